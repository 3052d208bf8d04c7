"""Exact C / lambda regularization paths, their limits, and learners along them.

The *path* is the certified optimum of the soft-margin SVM (DESIGN section 1) at every
point of a grid of ``C`` (equivalently ``lam = 1/(C n)``):

.. math::

    (w(C), b(C)) = \\arg\\min_{w, b}\\ \\tfrac12 \\|\\tilde w\\|^2
                   + C \\textstyle\\sum_i \\max(0, 1 - y_i (w \\cdot x_i + b)).

How it is computed (:func:`path`):

1. The dual QP is compiled **once** in cvxpy with ``C`` a ``cp.Parameter`` (DPP: the box
   ``0 <= alpha <= C`` is the only place C enters), so re-solving only re-maps the
   parameter; ``warm_start=True`` is passed (used by solvers that support it).
2. **Warm start by shrinking** (every point after the first): the previous point's
   margins ``y_i f_i`` fix the examples far outside the margin at ``alpha = 0`` and those
   deep inside at ``alpha = C``; a small dual QP is solved (PIQP, directly) on the
   working set in between, every fixed example's KKT condition is checked at the new
   point, violators join the set, and so on. The result is polished by the exact
   module's active-set polish (reduced KKT solve) when not already exact. When it
   certifies to :data:`ACCEPT_TOL` (1e-9) the full QP is skipped; otherwise the compiled
   model of step 1 is solved.
3. Every point is certified in numpy by :func:`maxmargin.certificate.certify`.

Theorems used (proofs in ``docs/path.md``):

* **Monotonicity.** For ``C1 < C2`` and any optima: ``sum xi(C2) <= sum xi(C1)`` and
  ``||w~(C2)|| >= ||w~(C1)||`` (add the two optimality inequalities).
* **Hard-margin limit.** On separable data, ``w(C) = w_hard`` for every
  ``C >= C* = min { max_i alpha_i : alpha an optimal hard-margin dual point }``; when the
  hard dual optimum is unique, ``C* = max_i alpha_i^hard`` (:func:`hard_margin_limit`).
* **Smallest C with a margin SV.** For ``C <= C_0`` every example is a bound SV
  (``alpha = C``); :func:`min_margin_sv_C` gives ``C_0`` in closed form.
"""

from __future__ import annotations

import json
import math
import re
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from ._io import atomic_write
from ._progress import Progress
from ._validation import WIDE_HINT, check_choice, check_int, check_memory, check_positive
from .certificate import Certificate, certify
from .data import Dataset
from .exceptions import NotSeparableError, ParameterError, SolverError
from .problem import INTERCEPTS, SVMProblem

if TYPE_CHECKING:
    from .exact_path import ExactPath

__all__ = [
    "RegularizationPath",
    "HardMarginLimit",
    "LearnerPathStudy",
    "GridWarning",
    "path",
    "regularization_path",
    "parse_grid",
    "log_grid",
    "min_margin_sv_C",
    "hard_margin_limit",
    "learners_along_path",
    "write_path_report",
    "DEFAULT_GRID",
    "PATH_LEARNERS",
]

#: Default grid: 25 points log-spaced over [1e-3, 1e3] (the CLI's ``1e-3:1e3:25``).
DEFAULT_GRID = "1e-3:1e3:25"

#: A warm-started point is accepted without the full QP when its certificate's largest
#: residual (relative gap or scaled KKT) is at most this.
ACCEPT_TOL = 1e-9


class GridWarning(UserWarning):
    """A grid was reordered or had duplicates removed (see :func:`path`)."""


# --------------------------------------------------------------------------- grids


def log_grid(lo: float, hi: float, num: int = 25) -> np.ndarray:
    """``num`` values log-spaced from ``lo`` to ``hi`` (both included).

    Parameters
    ----------
    lo, hi : float > 0
        First and last values (exactly; ``lo == hi`` when ``num == 1``).
    num : int >= 1, default 25
        Number of values.

    Returns
    -------
    ndarray of shape (num,)
        Increasing when ``lo < hi``.

    Examples
    --------
    >>> log_grid(1e-2, 1e2, 5).tolist()
    [0.01, 0.1, 1.0, 10.0, 100.0]
    """
    lo = check_positive("lo", lo)
    hi = check_positive("hi", hi)
    num = check_int("num", num, minimum=1)
    if num == 1:
        if lo != hi:
            raise ParameterError(f"a 1-point grid needs lo == hi, got {lo:g}:{hi:g}:1")
        return np.array([lo])
    g = np.logspace(math.log10(lo), math.log10(hi), num)
    g[0], g[-1] = lo, hi  # exact end points (logspace rounds them)
    return g


_RANGE = re.compile(r"^\s*([^:]+):([^:]+):([^:]+)\s*$")


def parse_grid(text: str) -> np.ndarray:
    """Parse a grid: ``"lo:hi:num"`` (log-spaced, ends included) or ``"c1,c2,..."``.

    Parameters
    ----------
    text : str
        ``"1e-3:1e3:25"`` gives 25 values from 1e-3 to 1e3, equally spaced in log; a
        comma list gives those values as written (one value is a 1-point grid).

    Returns
    -------
    ndarray of shape (k,)
        In the order written; :func:`path` checks positivity and order.

    Raises
    ------
    ParameterError
        Empty text, a non-number, ``num < 1``, or a non-positive range end.

    Examples
    --------
    >>> parse_grid("1e-2:1e2:5").tolist()
    [0.01, 0.1, 1.0, 10.0, 100.0]
    >>> parse_grid("0.5, 2,8").tolist()
    [0.5, 2.0, 8.0]
    """
    if not isinstance(text, str) or not text.strip():
        raise ParameterError("empty grid; write lo:hi:num (e.g. 1e-3:1e3:25) or a comma "
                             "list (e.g. 0.1,1,10)")
    m = _RANGE.match(text)
    try:
        if m:
            lo, hi = float(m.group(1)), float(m.group(2))
            num_s = m.group(3).strip()
            num = int(float(num_s)) if float(num_s).is_integer() else None
            if num is None or num < 1:
                raise ParameterError(f"grid {text!r}: the number of points must be an int "
                                     f">= 1, got {num_s!r}")
            if not (lo > 0 and hi > 0 and math.isfinite(lo) and math.isfinite(hi)):
                raise ParameterError(f"grid {text!r}: lo and hi must be finite and > 0 "
                                     "(the grid is log-spaced)")
            return log_grid(lo, hi, num)
        parts = [p.strip() for p in text.split(",")]
        if any(not p for p in parts):
            raise ParameterError(f"grid {text!r} has an empty entry; write e.g. 0.1,1,10")
        return np.array([float(p) for p in parts])
    except ValueError:
        raise ParameterError(f"cannot read grid {text!r}: write lo:hi:num (e.g. 1e-3:1e3:25) "
                             "or a comma list of numbers (e.g. 0.1,1,10)") from None


def _check_grid(name: str, values: Any) -> np.ndarray:
    """Validate a C or lam grid; return it in increasing order (see :func:`path`)."""
    if isinstance(values, str):
        values = parse_grid(values)
    try:
        g = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ParameterError(f"the {name} grid must be numbers, got {values!r}") from None
    if g.size == 0:
        raise ParameterError(f"the {name} grid is empty; give at least one value, e.g. "
                             f"{name}={DEFAULT_GRID!r}")
    bad = ~np.isfinite(g) | (g <= 0)
    if bad.any():
        raise ParameterError(f"every {name} must be finite and > 0; got {g[bad][:5].tolist()} "
                             f"(at index {np.flatnonzero(bad)[:5].tolist()})")
    d = np.diff(g)
    if (d > 0).all():
        return g
    if (d < 0).all():
        return g[::-1].copy()
    u = np.unique(g)
    what = "duplicates removed" if u.size < g.size else "sorted"
    warnings.warn(f"the {name} grid was not monotone: {what} (a path is computed in "
                  f"increasing {name}); {g.size} values -> {u.size}", GridWarning, stacklevel=3)
    return u


# --------------------------------------------------------------------------- analytics


def min_margin_sv_C(data: Dataset, intercept: str = "free",
                    intercept_scaling: float = 1.0) -> float:
    """The largest ``C_0`` such that for ``C <= C_0`` no example is a margin SV.

    Below ``C_0`` the optimum has every example at the bound (``alpha_i = C``) or, for
    the majority class of the ``free`` intercept with unequal classes, at 0 or C; just
    above it a margin SV (``0 < alpha_i < C``, ``y_i f_i = 1``) appears. The analogue of
    scikit-learn's ``l1_min_c`` for the L2-regularized hinge.

    Parameters
    ----------
    data : Dataset
    intercept : {"free", "none", "augmented"}
    intercept_scaling : float
        ``s`` of the augmented mode.

    Returns
    -------
    float
        ``C_0`` (``inf`` if no margin SV ever appears; ``0.0`` when margin SVs exist for
        every ``C > 0``, which happens with ``free`` and unequal classes in general).

    Notes
    -----
    With ``g = sum_i y_i z_i`` (``z = x``, or ``(x, s)`` for augmented):

    .. math::

        \\text{none, augmented:}\\quad C_0 = 1 / \\max_i\\, y_i\\, g \\cdot z_i

        \\text{free, } n_+ = n_-:\\quad
        C_0 = 2 / (\\max_{y_i = +1} g \\cdot x_i - \\min_{y_i = -1} g \\cdot x_i)

    (``alpha = C 1`` gives ``w = C g``; it is optimal iff some b makes every
    ``y_i f_i <= 1``.) With ``free`` and ``n_+ != n_-``, ``alpha = C 1`` is infeasible;
    for small C, ``alpha = C beta*`` where ``beta*`` minimises ``||sum beta_i y_i x_i||``
    over the minority class at 1 and the majority's ``beta`` in [0, 1] summing to the
    minority's size (exact regularization of the LP ``max sum alpha``). If ``beta*`` has a
    fractional entry, that example is a margin SV for every small C and ``C_0 = 0``;
    otherwise the formula above holds with ``g = sum_{beta*_i = 1} y_i x_i`` and the max /
    min over examples with ``beta*_i = 1``.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> min_margin_sv_C(Dataset([[2.0], [-2.0]], [1, -1]))   # g = 4, 2 / (8 + 8)
    0.125
    >>> min_margin_sv_C(Dataset([[2.0], [-2.0]], [1, -1]), intercept="none")
    0.125
    """
    if not isinstance(data, Dataset):
        raise ParameterError(f"min_margin_sv_C needs a Dataset, got {type(data).__name__}")
    intercept = check_choice("intercept", intercept, INTERCEPTS)
    s = check_positive("intercept_scaling", intercept_scaling)
    y = data.y
    X = data.X
    if intercept != "free":
        g = np.asarray(X.T @ y).ravel()
        r = y * np.asarray(X @ g).ravel()
        if intercept == "augmented":
            r = r + y * (s * s * y.sum())
        top = float(r.max())
        return 1.0 / top if top > 0 else math.inf
    n_pos = int((y > 0).sum())
    n_neg = data.n - n_pos
    beta = np.ones(data.n)
    if n_pos != n_neg:
        maj = 1.0 if n_pos > n_neg else -1.0
        beta = _face_beta(data, maj)
        if beta is None:
            return 0.0
    gw = np.asarray(X.T @ (beta * y)).ravel()
    f = np.asarray(X @ gw).ravel()
    on = beta > 0.5
    top = float(f[on & (y > 0)].max()) - float(f[on & (y < 0)].min())
    return 2.0 / top if top > 0 else math.inf


def _face_beta(data: Dataset, maj: float) -> np.ndarray | None:
    """The small-C multipliers ``beta*`` (alpha = C beta*) for unequal classes, or None
    when one is fractional (margin SVs for every C > 0). See :func:`min_margin_sv_C`."""
    import clarabel

    y = data.y
    J = np.flatnonzero(y == maj)
    K = np.flatnonzero(y != maj)
    m = K.size
    # beta* does not change when X is scaled; Clarabel's tolerances and the tie tests
    # below are absolute, so they see X / R (R rounded to a power of two: exact)
    from .certificate import _pow2, _radius

    X = data.X / _pow2(_radius(data))
    XJ = X[J]  # stays sparse for sparse X: the QP below takes it as it is
    gK = np.asarray(X[K].T @ y[K]).ravel()
    # min 1/2 ||maj * XJ' beta + gK||^2, sum beta = m, 0 <= beta <= 1   (u = XJ' beta)
    nJ, d = XJ.shape
    P = sp.block_diag([sp.csc_matrix((nJ, nJ)), sp.identity(d)], format="csc")
    q = np.concatenate([np.zeros(nJ), maj * gK])
    A = sp.vstack([sp.hstack([sp.csc_matrix(XJ.T), -sp.identity(d)]),
                   sp.hstack([sp.csc_matrix(np.ones((1, nJ))), sp.csc_matrix((1, d))])],
                  format="csc")
    Id = sp.identity(nJ + d, format="csc")[:nJ]
    M = sp.vstack([A, -Id, Id], format="csc")
    rhs = np.concatenate([np.zeros(d), [m], np.zeros(nJ), np.ones(nJ)])
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.tol_gap_abs = st.tol_gap_rel = st.tol_feas = 1e-10
    sol = clarabel.DefaultSolver(P, q, M, rhs, [clarabel.ZeroConeT(d + 1),
                                                clarabel.NonnegativeConeT(2 * nJ)],
                                 st).solve()
    if sol.status != clarabel.SolverStatus.Solved:  # pragma: no cover - tiny convex QP
        raise SolverError(f"min_margin_sv_C: the small-C face QP failed ({sol.status})")
    bJ = np.asarray(sol.x[:nJ])
    # Round and verify the rounded point's optimality on the capped simplex: with
    # grad_i = maj x_i . u, an integral optimum needs max_{beta=1} grad <= min_{beta=0} grad.
    order = np.argsort(-bJ, kind="stable")
    rounded = np.zeros(nJ)
    rounded[order[:m]] = 1.0
    if np.abs(bJ - rounded).max() > 1e-5:
        return None
    u = maj * XJ.T @ rounded + gK
    grad = maj * XJ @ u
    on, off = grad[rounded > 0.5], grad[rounded < 0.5]
    if off.size and on.size and on.max() > off.min() + 1e-9 * max(1.0, abs(on.max())):
        return None
    if off.size and on.size and on.max() >= off.min() - 1e-12 * max(1.0, abs(on.max())):
        return None  # a tie: the optimal face holds fractional points (degenerate)
    beta = np.ones(data.n)
    beta[J] = rounded
    return beta


@dataclass(frozen=True, eq=False)
class HardMarginLimit:
    """Where the soft-margin path meets the hard-margin optimum (separable data).

    Attributes
    ----------
    separable : bool
        Decided by :func:`maxmargin.exact.is_separable` (an LP).
    C_star : float
        ``min { max_i alpha_i : alpha hard-optimal }``: for every ``C >= C_star`` the
        soft-margin optimum is the hard one (``inf`` when not separable).
    max_alpha_hard : float
        ``max_i alpha_i`` of the computed hard solution (``= C_star`` when the hard dual
        optimum is unique; an upper bound otherwise).
    w, b, alpha : the hard-margin solution (None when not separable).
    primal_objective, margin : float
        ``1/2 ||w~||^2`` and ``1 / ||w~||`` of the hard solution (``margin`` is its
        :attr:`geometric_margin`, in the QP's space; ``docs/numbers.md``).
    last_C : float
        The path's largest C.
    last_rel_diff : float
        ``||(w, b)_last - (w, b)_hard|| / max(1, ||(w, b)_hard||)``.
    last_equal : bool
        ``last_C >= C_star`` and ``last_rel_diff <= 1e-6``.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> lim = hard_margin_limit(Dataset([[1.0], [-1.0]], [1, -1]))
    >>> lim.separable, lim.w.shape, round(lim.margin, 9)
    (True, (1,), 1.0)
    """

    separable: bool
    C_star: float = math.inf
    max_alpha_hard: float = math.inf
    w: np.ndarray | None = None
    b: float | None = None
    alpha: np.ndarray | None = None
    primal_objective: float = math.nan
    margin: float = math.nan
    last_C: float = math.nan
    last_rel_diff: float = math.nan
    last_equal: bool = False

    @property
    def geometric_margin(self) -> float:
        """``1/||w~||`` of the hard solution in the QP's space (:attr:`margin` by its name)."""
        return self.margin

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the hard solution's w, b; alpha left out)."""
        return {
            "separable": self.separable, "C_star": _num(self.C_star),
            "max_alpha_hard": _num(self.max_alpha_hard),
            "w": None if self.w is None else [float(t) for t in self.w],
            "b": None if self.b is None else float(self.b),
            "primal_objective": _num(self.primal_objective), "margin": _num(self.margin),
            "last_C": _num(self.last_C), "last_rel_diff": _num(self.last_rel_diff),
            "last_equal": bool(self.last_equal),
        }


def hard_margin_limit(data: Dataset, intercept: str = "free", *,
                      solver: str | None = None, intercept_scaling: float = 1.0,
                      last: tuple[float, Any, float] | None = None) -> HardMarginLimit:
    """The hard-margin optimum and the threshold ``C*`` above which the path equals it.

    Parameters
    ----------
    data : Dataset
    intercept : {"free", "none", "augmented"}
    solver : str, optional
        Passed to :func:`maxmargin.exact.solve`.
    intercept_scaling : float
    last : (C, w, b), optional
        A path's last point, compared with the hard solution.

    Returns
    -------
    HardMarginLimit

    Notes
    -----
    The soft dual is the hard dual plus the box ``alpha <= C``. A hard-optimal
    ``alpha^h`` with ``max_i alpha^h_i <= C`` is feasible for the soft dual, and optimal
    there (the soft feasible set is smaller), with the same value; so
    ``(w_hard, b_hard, xi = 0)`` attains it and is the soft optimum. Conversely if the
    soft optimum has ``xi = 0`` its dual is hard-optimal and in the box. Hence

    .. math:: C^* = \\min \\{\\, \\|\\alpha\\|_\\infty : \\alpha \\text{ hard-optimal} \\}

    computed by an LP over the hard-optimal face ``{alpha >= 0 on the points with
    y_i f_i = 1, sum alpha_i y_i z_i = w~_hard, y' alpha = 0}`` (``= max alpha^h`` when the
    hard dual optimum is unique).

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> lim = hard_margin_limit(Dataset([[1.0], [-1.0]], [1, -1]))
    >>> lim.separable, round(lim.C_star, 9)
    (True, 0.5)
    """
    from .exact import is_separable, solve

    intercept = check_choice("intercept", intercept, INTERCEPTS)
    if not is_separable(data, intercept):
        return HardMarginLimit(False)
    problem = SVMProblem(data, hard=True, intercept=intercept,
                         intercept_scaling=intercept_scaling)
    try:
        sol = solve(problem, solver=solver)
    except NotSeparableError:  # pragma: no cover - the LP said separable
        return HardMarginLimit(False)
    amax = float(sol.alpha.max())
    c_star = min(amax, _min_inf_norm_alpha(problem, sol))
    lastC, rel, eq = math.nan, math.nan, False
    if last is not None:
        lastC, lw, lb = last
        hv = np.concatenate([sol.w, [sol.b]])
        diff = np.concatenate([np.asarray(lw, float) - sol.w, [float(lb) - sol.b]])
        rel = float(np.linalg.norm(diff) / max(1.0, np.linalg.norm(hv)))
        eq = bool(lastC >= c_star * (1 - 1e-9) and rel <= 1e-6)
    return HardMarginLimit(True, c_star, amax, sol.w, float(sol.b), sol.alpha,
                           float(sol.primal_objective), float(sol.margin), lastC, rel, eq)


def _min_inf_norm_alpha(problem: SVMProblem, sol: Any) -> float:
    """LP: the smallest ``max alpha`` over the hard-optimal dual face (inf if it fails)."""
    from scipy.optimize import linprog

    from .exact import _signed_Z

    y = problem.data.y
    r = y * problem.decision_function(sol.w, sol.b)
    M = np.flatnonzero(r <= 1.0 + 1e-7)
    if M.size == 0:
        return math.inf
    YZ = _signed_Z(problem)
    G = YZ[M]
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    wt = problem.to_augmented(sol.w, sol.b)
    m = M.size
    # variables (alpha_M, t): min t, alpha_M - t <= 0, G' alpha = w~, y_M' alpha = 0
    A_eq = np.hstack([G.T, np.zeros((G.shape[1], 1))])
    b_eq = wt
    if problem.intercept == "free":
        A_eq = np.vstack([A_eq, np.concatenate([y[M], [0.0]])])
        b_eq = np.concatenate([b_eq, [0.0]])
    A_ub = np.hstack([np.identity(m), -np.ones((m, 1))])
    c = np.zeros(m + 1)
    c[-1] = 1.0
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(m), A_eq=A_eq, b_eq=b_eq,
                  bounds=[(0, None)] * (m + 1), method="highs")
    if res.status != 0 or res.x is None:
        return math.inf
    return float(res.x[-1])


# --------------------------------------------------------------------------- the path


def _num(x: Any) -> Any:
    x = float(x)
    return x if math.isfinite(x) else str(x)


@dataclass(frozen=True, eq=False)
class RegularizationPath:
    """The certified soft-margin optimum at each point of a C (lambda) grid.

    Every per-point array has the grid's length ``k`` as its first axis; points are in
    increasing C (decreasing lambda).

    Attributes
    ----------
    C, lam : ndarray of shape (k,)
        ``lam = 1 / (C n)``.
    w : ndarray of shape (k, d)
        Weights on the original features.
    b : ndarray of shape (k,)
    alpha : ndarray of shape (k, n)
        Dual multipliers.
    norm_w : ndarray of shape (k,)
        ``||w||`` (original features).
    norm_reg : ndarray of shape (k,)
        ``||w~||``, the regularized norm (``= norm_w`` except for ``augmented``, where it
        includes ``b/s``); non-decreasing in C (a theorem).
    margin, width : ndarray of shape (k,)
        ``1/||w||`` and ``2/||w||`` (geometric, in x-space, the bias left out; inf when
        ``w = 0``); also :attr:`feature_margin` and :attr:`margin_width`, the names that
        say which margin they are. For ``augmented`` they differ from
        :attr:`geometric_margin` ``= 1/||w~||`` of the QP's space (``docs/numbers.md``).
    n_margin_sv, n_bound_sv : ndarray of shape (k,), int
        ``sv_tol < alpha_i < C - sv_tol`` and ``alpha_i >= C - sv_tol``, with
        ``sv_tol = 1e-8 C`` (polished) or ``1e-6 C``: relative to C, unlike
        ``ExactSolution.sv_tol`` (``max(1, C)``), so that tiny C still has margin SVs.
    train_error, holdout_error : ndarray of shape (k,)
        Fraction with ``y f(x) <= 0`` (holdout: nan when no holdout set).
    slack_sum : ndarray of shape (k,)
        ``sum_i xi_i``; non-increasing in C (a theorem).
    primal, dual, relative_gap, max_kkt : ndarray of shape (k,)
        From the numpy certificate (C form); ``max_kkt`` is the largest scaled KKT
        residual.
    certificates : tuple of Certificate
    method : tuple of str
        ``"warm"`` (working-set warm start, certified to 1e-9, no full QP) or ``"qp"``
        (the compiled full QP).
    seconds : ndarray of shape (k,)
        Wall time of each point (solve + polish + certificate).
    intercept : str
    intercept_scaling : float
    data_name : str
    n, d : int
    solver : str
    min_margin_sv_C : float
        :func:`min_margin_sv_C` of the data (nan when not computed).
    hard : HardMarginLimit or None
        The hard-margin comparison (None when not computed).
    compile_seconds, total_seconds : float
        Building the DPP model (once) and the whole path.
    extras : dict
        Free-form additions by callers (empty from :func:`path`); not serialised.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> p = path(Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1]), C=[0.1, 10.0])
    >>> len(p), p.w.shape, p.alpha.shape, p.certified
    (2, (2, 1), (2, 3), True)
    """

    C: np.ndarray
    lam: np.ndarray
    w: np.ndarray
    b: np.ndarray
    alpha: np.ndarray
    norm_w: np.ndarray
    norm_reg: np.ndarray
    margin: np.ndarray
    width: np.ndarray
    n_margin_sv: np.ndarray
    n_bound_sv: np.ndarray
    train_error: np.ndarray
    holdout_error: np.ndarray
    slack_sum: np.ndarray
    primal: np.ndarray
    dual: np.ndarray
    relative_gap: np.ndarray
    max_kkt: np.ndarray
    certificates: tuple
    method: tuple
    seconds: np.ndarray
    intercept: str
    intercept_scaling: float
    data_name: str
    n: int
    d: int
    solver: str
    min_margin_sv_C: float = math.nan
    hard: HardMarginLimit | None = None
    compile_seconds: float = 0.0
    total_seconds: float = 0.0
    extras: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.C.size)

    @property
    def feature_margin(self) -> np.ndarray:
        """``1/||w||``: from the decision hyperplane to ``f = +-1`` in the feature space
        ``x`` (the bias left out); :attr:`margin` by its name, shape (k,)."""
        return self.margin

    @property
    def margin_width(self) -> np.ndarray:
        """``2/||w||``: between the hyperplanes ``f = +1`` and ``f = -1`` in ``x`` (the
        lecture notes' ``M = 2/||w||``); :attr:`width` by its name, shape (k,)."""
        return self.width

    @property
    def geometric_margin(self) -> np.ndarray:
        """``1/||w~||`` in the QP's space, as :attr:`ExactSolution.geometric_margin
        <maxmargin.ExactSolution.geometric_margin>` (``= feature_margin`` unless
        ``augmented``), shape (k,)."""
        with np.errstate(divide="ignore"):
            return np.where(self.norm_reg > 0, 1.0 / np.where(self.norm_reg > 0,
                                                             self.norm_reg, 1.0), np.inf)

    @property
    def certified(self) -> bool:
        """Whether every point's certificate is ok."""
        return all(c.ok for c in self.certificates)

    _ARRAYS = ("C", "lam", "b", "norm_w", "norm_reg", "margin", "width", "n_margin_sv",
               "n_bound_sv", "train_error", "holdout_error", "slack_sum", "primal", "dual",
               "relative_gap", "max_kkt", "seconds")

    def to_dict(self, include_alpha: bool = False) -> dict[str, Any]:
        """Plain-Python dict (JSON-ready; non-finite numbers as strings).

        Parameters
        ----------
        include_alpha : bool, default False
            Add ``alpha`` as k lists of n floats.

        Returns
        -------
        dict
            The per-point arrays as lists of length k, ``w`` as k lists of d floats,
            ``kkt`` and ``certificate_ok`` per point, ``hard``, and the scalars.

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> p = path(Dataset([[1.0], [-1.0]], [1, -1]), C=[0.1, 1.0])
        >>> d = p.to_dict()
        >>> d["C"], d["n_margin_sv"]
        ([0.1, 1.0], [0, 2])
        """
        out: dict[str, Any] = {
            "data": self.data_name, "n": self.n, "d": self.d, "intercept": self.intercept,
            "intercept_scaling": self.intercept_scaling, "solver": self.solver,
            "certified": self.certified,
            "min_margin_sv_C": _num(self.min_margin_sv_C),
            "compile_seconds": self.compile_seconds, "total_seconds": self.total_seconds,
        }
        for k in self._ARRAYS:
            a = getattr(self, k)
            out[k] = [int(v) for v in a] if a.dtype.kind == "i" else [_num(v) for v in a]
        out["w"] = [[float(v) for v in row] for row in self.w]
        out["method"] = list(self.method)
        out["kkt"] = [{k: _num(v) for k, v in c.kkt.items()} for c in self.certificates]
        out["certificate_ok"] = [bool(c.ok) for c in self.certificates]
        out["certificate_undecided"] = [c.undecided for c in self.certificates]
        out["hard"] = None if self.hard is None else self.hard.to_dict()
        if include_alpha:
            out["alpha"] = [[float(v) for v in row] for row in self.alpha]
        return out

    def to_json(self, file: str | Path | None = None, include_alpha: bool = False) -> str:
        """The :meth:`to_dict` as JSON text; written to ``file`` when given.

        Parameters
        ----------
        file : str or Path, optional
            File to write the text to.
        include_alpha : bool, default False
            Add ``alpha`` (shape (k, n)).

        Returns
        -------
        str

        Examples
        --------
        >>> import json
        >>> from maxmargin import Dataset
        >>> p = path(Dataset([[1.0], [-1.0]], [1, -1]), C=[0.1, 1.0])
        >>> alpha = json.loads(p.to_json(include_alpha=True))["alpha"]
        >>> len(alpha), len(alpha[0])    # (k, n)
        (2, 2)
        """
        text = json.dumps(self.to_dict(include_alpha), indent=1)
        if file is not None:
            atomic_write(file, text)
        return text

    def to_markdown(self) -> str:
        """A readable report: summary, limits, one table row per grid point.

        Returns
        -------
        str
            Markdown text.

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> p = path(Dataset([[1.0], [-1.0]], [1, -1]), C=[0.1, 1.0])
        >>> print(p.to_markdown().splitlines()[0])
        # Regularization path: data (n=2, d=1, intercept=free)
        """
        L = [f"# Regularization path: {self.data_name} (n={self.n}, d={self.d}, "
             f"intercept={self.intercept})", ""]
        ok = sum(c.ok for c in self.certificates)
        cont = sum(m == "warm" for m in self.method)
        L.append(f"- {len(self)} grid points, C from {self.C[0]:.4g} to {self.C[-1]:.4g} "
                 f"(lambda = 1/(C n) from {self.lam[0]:.4g} to {self.lam[-1]:.4g})")
        und = sum(c.undecided is not None for c in self.certificates)
        L.append(f"- certified: {ok}/{len(self)} points (worst relative gap "
                 f"{np.abs(self.relative_gap).max():.1e}, worst scaled KKT residual "
                 f"{self.max_kkt.max():.1e})"
                 + (f"; {und} not certified because double precision cannot decide them"
                    if und else ""))
        L.append(f"- solver {self.solver}; {cont} points warm-started on a working set "
                 "(no full QP), "
                 f"{len(self) - cont} by the DPP-compiled QP; model compiled once in "
                 f"{self.compile_seconds:.2f} s; path {self.total_seconds:.2f} s")
        c0 = self.min_margin_sv_C
        if not math.isnan(c0):
            L.append(f"- smallest C with a margin SV (analytical): C_0 = {c0:.6g}"
                     + (" (margin SVs for every C > 0)" if c0 == 0 else "")
                     + (": below it every example is a bound SV" if 0 < c0 < math.inf
                        else ""))
        h = self.hard
        if h is not None:
            if not h.separable:
                L.append("- hard-margin limit: the data are not separable (LP); the path "
                         "never reaches a zero-slack solution")
            else:
                L.append(f"- hard-margin limit: separable, hard margin 1/||w~|| = "
                         f"{h.margin:.6g}; the soft optimum equals the hard one for every "
                         f"C >= C* = {h.C_star:.6g} (max alpha_hard = "
                         f"{h.max_alpha_hard:.6g})")
                L.append(f"- last point C = {h.last_C:.4g}: relative distance to the hard "
                         f"solution {h.last_rel_diff:.1e} -> "
                         f"{'equal' if h.last_equal else 'not equal'}"
                         + ("" if h.last_C >= h.C_star else
                            f" (the grid stops below C*; extend it past {h.C_star:.3g})"))
        hold = not np.isnan(self.holdout_error).all()
        # A bare | inside a cell ends it (GFM tables): the norm is written \|\|w\|\|.
        head = ["C", "lambda", r"\|\|w\|\|", r"width 2/\|\|w\|\|", "margin SV", "bound SV",
                "train err", *(["holdout err"] if hold else []), "sum xi", "primal",
                "rel gap", "max KKT", "method"]
        L += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for i in range(len(self)):
            L.append(
                f"| {self.C[i]:.4g} | {self.lam[i]:.4g} | {self.norm_w[i]:.6g} | "
                f"{self.width[i]:.6g} | {self.n_margin_sv[i]} | {self.n_bound_sv[i]} | "
                f"{self.train_error[i]:.4f} | "
                + (f"{self.holdout_error[i]:.4f} | " if hold else "")
                + f"{self.slack_sum[i]:.6g} | {self.primal[i]:.10g} | "
                f"{self.relative_gap[i]:.1e} | {self.max_kkt[i]:.1e} | {self.method[i]} |")
        return "\n".join(L) + "\n"


class _DualModel:
    """The dual QP compiled once in cvxpy, ``C`` a DPP parameter (box upper bound)."""

    def __init__(self, problem: SVMProblem, YZ: Any, solver: str) -> None:
        import cvxpy as cp

        t0 = time.perf_counter()
        n = problem.n
        self.solver = solver
        self.a = cp.Variable(n, nonneg=True)
        self.C = cp.Parameter(nonneg=True, value=float(problem.C))
        cons = [self.a <= self.C]
        self.eq = None
        if problem.intercept == "free":
            self.eq = problem.data.y @ self.a == 0
            cons.append(self.eq)
        obj = 0.5 * cp.sum_squares(YZ.T @ self.a) - cp.sum(self.a)
        self.prob = cp.Problem(cp.Minimize(obj), cons)
        assert self.prob.is_dpp()
        self.compiled = False
        self.seconds = time.perf_counter() - t0

    def solve(self, C: float) -> tuple[np.ndarray, float | None, str]:
        import cvxpy as cp

        from .exact import _CVXPY_OPTIONS

        self.C.value = float(C)
        t0 = time.perf_counter()
        try:
            self.prob.solve(solver=self.solver, warm_start=True,
                            **_CVXPY_OPTIONS.get(self.solver, {}))
        except cp.error.SolverError as e:
            raise SolverError(f"path: {self.solver} failed at C={C:.6g} ({e}); try "
                              "solver='CLARABEL' or 'PIQP'") from None
        if not self.compiled:  # the first call compiles; count it as build time
            self.compiled = True
            st = self.prob.solver_stats
            solve_t = float(st.solve_time or 0.0) if st is not None else 0.0
            self.seconds += max(0.0, time.perf_counter() - t0 - solve_t)
        if self.prob.status not in ("optimal", "optimal_inaccurate") or self.a.value is None:
            raise SolverError(f"path: {self.solver} returned {self.prob.status!r} at "
                              f"C={C:.6g}; try another solver (CLARABEL, PIQP)")
        b = None if self.eq is None else float(self.eq.dual_value)
        return np.clip(np.asarray(self.a.value, float), 0.0, C), b, self.prob.status


def _sv_counts(alpha: np.ndarray, C: float, polished: bool) -> tuple[int, int]:
    # relative to C (alpha lies in [0, C]); exact.solve's max(1, C) would count nothing
    # as a margin SV once C < 1e-6
    sv_tol = (1e-8 if polished else 1e-6) * C
    bound = alpha >= C - sv_tol
    margin = (alpha > sv_tol) & ~bound
    return int(margin.sum()), int(bound.sum())


def _solve_point(problem: SVMProblem, YZ: Any, model: _DualModel | None,
                 prev: tuple | None, tol: float) -> tuple[np.ndarray, float, np.ndarray,
                                                           Certificate, bool, str]:
    """One grid point: the working-set warm start from ``prev`` if it certifies, else the
    compiled full QP; polished and certified."""
    from .exact import _polish, _wb_from_alpha

    C = problem.C
    if prev is not None:
        w0, b0 = prev[0], prev[1]
        ws = _working_set_solve(problem, YZ, w0, b0)
        if ws is not None:
            a, b_eq = ws
            w, b = _wb_from_alpha(problem, YZ, a, b_eq)
            cert = certify(problem, w, b, a, tol=tol)
            polished = False
            if cert.max_residual() > 1e-11:  # polish only what is not exact already
                best = _polish(problem, YZ, w, b, a, cert, tol)
                if best is None:
                    best = _polish_no_margin(problem, YZ, a, cert, tol)
                if best is not None:
                    (w, b, a, cert), polished = best, True
            if cert.max_residual() <= ACCEPT_TOL:
                return np.asarray(w, float), float(b), a, cert, polished, "warm"
    if model is None:
        # the measured default route (maxmargin's IPM / PIQP), polished and certified
        from .exact import solve

        sol = solve(problem, tol=tol)
        return (np.asarray(sol.w, float), float(sol.b), np.asarray(sol.alpha, float),
                sol.certificate, sol.polished, "qp")
    a, b_eq, _ = model.solve(C)
    w, b = _wb_from_alpha(problem, YZ, a, b_eq)
    cert = certify(problem, w, b, a, tol=tol)
    best = _polish(problem, YZ, w, b, a, cert, tol)
    if best is None:  # no margin SV to polish on: try the {0, C} rounding
        best = _polish_no_margin(problem, YZ, a, cert, tol)
    polished = best is not None
    if polished:
        w, b, a, cert = best
    return np.asarray(w, float), float(b), a, cert, polished, "qp"


def _working_set_solve(problem: SVMProblem, YZ: Any, w0: np.ndarray, b0: float,
                       max_rounds: int = 30) -> tuple[np.ndarray, float | None] | None:
    """Warm start by shrinking: the dual QP on the examples near the previous margin.

    With the previous point's margins ``r_i = y_i f_i``, examples far outside the margin
    are fixed at ``alpha = 0`` and those deep inside at ``alpha = C``; the QP is solved
    (PIQP or Clarabel, directly) on the working set ``W`` in between, then every fixed
    example's KKT condition is checked at the new point and violators join ``W``. Returns
    ``(alpha, b)`` (b None unless free), or None when the sub-QP fails or the rounds run
    out (the caller then solves the full compiled QP).
    """
    n = problem.n
    C = problem.C
    y = problem.data.y
    dz = YZ.shape[1]
    r = y * problem.decision_function(w0, b0)
    dist = np.abs(r - 1.0)
    size = min(n, max(8 * (dz + 1), n // 20))
    inW = np.zeros(n, bool)
    inW[np.argpartition(dist, size - 1)[:size]] = True
    for _ in range(max_rounds):
        W = np.flatnonzero(inW)
        atC = ~inW & (r < 1.0)
        out = _sub_qp(problem, YZ, W, np.flatnonzero(atC))
        if out is None:
            return None
        aW, b = out
        a = np.zeros(n)
        a[atC] = C
        a[W] = aW
        v = np.asarray(YZ.T @ a).ravel()
        r_new = np.asarray(YZ @ v).ravel() + (y * b if b is not None else 0.0)
        scale = 1e-9
        bad = (~inW) & ((atC & (r_new > 1.0 + scale)) | (~atC & (r_new < 1.0 - scale)))
        if not bad.any():
            return a, b
        inW |= bad  # the violators join the working set
        r = r_new
    return None


def _sub_qp(problem: SVMProblem, YZ: Any, W: np.ndarray, B: np.ndarray
            ) -> tuple[np.ndarray, float | None] | None:
    """The dual QP on ``W`` with ``alpha_B = C`` and the rest 0 fixed, solved by PIQP.

    ``min 1/2 ||u||^2 - sum a_W  s.t.  u - (YZ_W)' a_W = C (YZ_B)' 1,
    y_W' a_W = -C sum_B y_i (free), 0 <= a_W <= C``.
    """
    import piqp

    C = problem.C
    y = problem.data.y
    m, dz = W.size, YZ.shape[1]
    G = YZ[W]
    G = sp.csc_matrix(G) if sp.issparse(G) else sp.csc_matrix(np.asarray(G))
    uB = C * np.asarray(YZ[B].sum(axis=0)).ravel() if B.size else np.zeros(dz)
    P = sp.block_diag([sp.csc_matrix((m, m)), sp.identity(dz)], format="csc")
    q = np.concatenate([-np.ones(m), np.zeros(dz)])
    rows = [sp.hstack([-G.T, sp.identity(dz)], format="csc")]
    rhs = [uB]
    free = problem.intercept == "free"
    if free:
        rows.append(sp.hstack([sp.csc_matrix(y[W][None, :]), sp.csc_matrix((1, dz))]))
        rhs.append([-C * float(y[B].sum()) if B.size else 0.0])
    A = sp.vstack(rows, format="csc")
    lb = np.concatenate([np.zeros(m), np.full(dz, -np.inf)])
    ub = np.concatenate([np.full(m, C), np.full(dz, np.inf)])
    s = piqp.SparseSolver()
    s.settings.eps_abs = 1e-10
    s.settings.eps_rel = 1e-11
    s.settings.max_iter = 500
    s.setup(P, q, A, np.concatenate(rhs), None, None, None, lb, ub)
    if s.solve() != piqp.PIQP_SOLVED:
        return None
    x = np.asarray(s.result.x)
    return np.clip(x[:m], 0.0, C), (float(np.asarray(s.result.y)[-1]) if free else None)


def _polish_no_margin(problem: SVMProblem, YZ: Any, alpha: np.ndarray, base: Certificate,
                      tol: float) -> tuple | None:
    """Polish a point without margin SVs: ``alpha`` rounded to {0, C}; ``b`` the middle
    of the interval where every example keeps its side (``y f <= 1`` at C, ``>= 1`` at 0).
    Returns ``(w, b, alpha, cert)`` when its certificate beats ``base``, else None."""
    from .exact import _wb_from_alpha

    C = problem.C
    y = problem.data.y
    a = np.where(alpha >= 0.5 * C, C, 0.0)
    if problem.intercept == "free" and abs(float(a @ y)) > 0.5 * C:
        return None
    w, b = _wb_from_alpha(problem, YZ, a, 0.0)
    if problem.intercept == "free":
        f = np.asarray(problem.data.X @ w).ravel()
        # y f + y b <= 1 on the bound set, >= 1 on the zero set, as bounds on b
        at_c = a > 0
        lo_p = (1.0 - f)[(~at_c) & (y > 0)]        # b >= 1 - f  (y=+1, alpha=0)
        lo_n = (-1.0 - f)[at_c & (y < 0)]          # b >= -1 - f (y=-1, alpha=C)
        hi_p = (1.0 - f)[at_c & (y > 0)]           # b <= 1 - f  (y=+1, alpha=C)
        hi_n = (-1.0 - f)[(~at_c) & (y < 0)]       # b <= -1 - f (y=-1, alpha=0)
        lo = max([v.max() for v in (lo_p, lo_n) if v.size], default=-np.inf)
        hi = min([v.min() for v in (hi_p, hi_n) if v.size], default=np.inf)
        if lo > hi:
            return None
        b = 0.5 * (lo + hi) if np.isfinite(lo) and np.isfinite(hi) else (
            lo if np.isfinite(lo) else (hi if np.isfinite(hi) else 0.0))
    cert = certify(problem, w, b, a, tol=tol)
    if cert.max_residual() < base.max_residual():
        return w, float(b), a, cert
    return None


def path(data: Dataset, C: Any = None, lam: Any = None, intercept: str = "free",
         holdout: Dataset | None = None, solver: str | None = None, progress: bool = False,
         *, intercept_scaling: float = 1.0, warm_start: bool = True,
         hard_limit: bool | None = None, tol: float | None = None,
         exact: bool = False) -> RegularizationPath | ExactPath:
    """The certified soft-margin optimum at every point of a C (or lambda) grid.

    With ``exact=True``, the entire path instead: every breakpoint where a support set
    changes, the events there, and the exact affine pieces between them
    (:func:`maxmargin.exact_path.exact_regularization_path`); the grid then only sets
    the range, from its smallest to its largest C (none given: the whole path, from
    C -> 0).

    Parameters
    ----------
    data : Dataset
    C : array-like of float > 0 or str, optional
        The C grid (a string is read by :func:`parse_grid`, e.g. ``"1e-3:1e3:25"``).
        Default :data:`DEFAULT_GRID`.
    lam : array-like of float > 0 or str, optional
        A lambda grid instead (``C = 1/(lam n)``). Giving both is an error.
    intercept : {"free", "none", "augmented"}
    holdout : Dataset, optional
        Held-out examples (same d) for ``holdout_error``.
    solver : str, optional
        A cvxpy QP solver (``"CLARABEL"``, ``"PIQP"``, ...): the full solves then go
        through one DPP-compiled cvxpy model (``C`` a ``cp.Parameter``), re-solved at
        each point. Default: :func:`maxmargin.solve`'s measured route (maxmargin's
        interior-point method or PIQP), which is faster.
    progress : bool
        Progress bar on a terminal (stderr).
    intercept_scaling : float
        ``s`` of the augmented mode.
    warm_start : bool
        Warm-start each point from the previous one on a working set (default; the
        full compiled QP only where that does not certify). ``False``: the compiled QP
        at every point (DPP re-solves only).
    hard_limit : bool, optional
        Compare with the hard-margin optimum (an LP decides separability first). Default:
        yes when ``n * d <= 2e6``.
    tol : float, optional
        Certificate tolerance (default 1e-6; warm-started points meet 1e-9).
    exact : bool, default False
        Compute every breakpoint (an :class:`~maxmargin.exact_path.ExactPath`) instead of
        the grid's points; ``warm_start`` and ``hard_limit`` do not apply.

    Returns
    -------
    RegularizationPath or ExactPath
        Points in increasing C (``exact=True``: an ExactPath).

    Raises
    ------
    ParameterError
        Both ``C`` and ``lam``; an empty grid; a value that is not finite and > 0; a
        holdout with another number of features.

    Warns
    -----
    GridWarning
        A grid that is not monotone is sorted (duplicates removed). A decreasing grid
        (e.g. ``lam`` in increasing order) is simply reversed, without a warning.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> p = path(make_separable(30, 2, seed=0), C="1e-2:1e2:5")
    >>> p.certified, bool((p.margin[:-1] >= p.margin[1:]).all())
    (True, True)
    >>> p.hard.last_equal
    True
    >>> ep = path(make_separable(30, 2, seed=0), exact=True)
    >>> ep.certified, ep.end_reason, float(ep.C_star) > 0
    (True, 'end', True)
    """
    t_start = time.perf_counter()
    if not isinstance(data, Dataset):
        raise ParameterError(f"path needs a maxmargin.Dataset, got {type(data).__name__}")
    if C is not None and lam is not None:
        raise ParameterError("give a C grid or a lam grid, not both (lam = 1/(C n))")
    intercept = check_choice("intercept", intercept, INTERCEPTS)
    if lam is not None:
        lams = _check_grid("lam", lam)[::-1]
        Cs = 1.0 / (lams * data.n)
    else:
        Cs = _check_grid("C", DEFAULT_GRID if C is None else C)
    if holdout is not None:
        if not isinstance(holdout, Dataset):
            raise ParameterError(f"holdout must be a Dataset, got {type(holdout).__name__}")
        if holdout.d != data.d:
            raise ParameterError(f"holdout has {holdout.d} features, the data {data.d}; "
                                 "they must match")
    # w at every grid point, plus what one solve holds: refuse what cannot fit
    check_memory(8.0 * (data.d + 1) * (8 + 2 * len(Cs)) + 16.0 * data.n * len(Cs),
                 f"the path of {data.name} (d = {data.d:,} features, {len(Cs)} points)",
                 WIDE_HINT)
    if exact:
        from .exact_path import exact_regularization_path

        given = C is not None or lam is not None
        return exact_regularization_path(
            data, intercept, C_max=float(Cs[-1]) if given else None,
            C_min=float(Cs[0]) if given and Cs.size > 1 else None, holdout=holdout,
            solver=solver, intercept_scaling=intercept_scaling, tol=tol, progress=progress)
    from .exact import _signed_Z

    solver_name = "default" if solver is None else str(solver).strip().upper()
    problems = [SVMProblem(data, C=float(c), intercept=intercept,
                           intercept_scaling=intercept_scaling) for c in Cs]
    YZ = _signed_Z(problems[0])
    if sp.issparse(YZ):
        YZ = sp.csr_matrix(YZ)
    tol = 1e-6 if tol is None else float(tol)
    # A named cvxpy solver gets the DPP model, compiled once; by default the full solves
    # take exact.solve's measured route, which is faster than any cvxpy re-solve here
    # (bench/path.py: the compiled model saves ~8% of a fresh cvxpy solve, the IPM ~85%).
    model = None if solver is None else _DualModel(problems[0], YZ, solver_name)
    k, n, d = len(Cs), data.n, data.d
    W = np.zeros((k, d))
    B = np.zeros(k)
    A = np.zeros((k, n))
    certs: list[Certificate] = []
    methods: list[str] = []
    secs = np.zeros(k)
    nm = np.zeros(k, np.int64)
    nb = np.zeros(k, np.int64)
    prev = None
    with Progress(k, "path", enabled=progress) as bar:
        for i, pr in enumerate(problems):
            t0 = time.perf_counter()
            w, b, a, cert, polished, how = _solve_point(
                pr, YZ, model, prev if warm_start else None, tol)
            W[i], B[i], A[i] = w, b, a
            certs.append(cert)
            methods.append(how)
            nm[i], nb[i] = _sv_counts(a, pr.C, polished)
            prev = (w, b, a, pr.C)
            secs[i] = time.perf_counter() - t0
            bar.update(1)
    compile_s = 0.0 if model is None else model.seconds
    y = data.y
    F = np.asarray(data.X @ W.T)  # (n, k)
    R = (F + B) * y[:, None]
    train_err = (R <= 0).mean(axis=0)
    slack = np.maximum(0.0, 1.0 - R).sum(axis=0)
    hold_err = np.full(k, np.nan)
    if holdout is not None:
        Rh = (np.asarray(holdout.X @ W.T) + B) * holdout.y[:, None]
        hold_err = (Rh <= 0).mean(axis=0)
    norm_w = np.linalg.norm(W, axis=1)
    norm_reg = norm_w.copy()
    if intercept == "augmented":
        norm_reg = np.sqrt(norm_w ** 2 + (B / intercept_scaling) ** 2)
    with np.errstate(divide="ignore"):
        margin = np.where(norm_w > 0, 1.0 / np.where(norm_w > 0, norm_w, 1.0), np.inf)
    c0 = min_margin_sv_C(data, intercept, intercept_scaling)
    if hard_limit is None:
        hard_limit = n * d <= 2_000_000
    hard = None
    if hard_limit:
        hard = hard_margin_limit(data, intercept, intercept_scaling=intercept_scaling,
                                 last=(float(Cs[-1]), W[-1], float(B[-1])))
    return RegularizationPath(
        C=Cs, lam=1.0 / (Cs * n), w=W, b=B, alpha=A, norm_w=norm_w, norm_reg=norm_reg,
        margin=margin, width=2.0 * margin, n_margin_sv=nm, n_bound_sv=nb,
        train_error=train_err, holdout_error=hold_err, slack_sum=slack,
        primal=np.array([c.primal_objective for c in certs]),
        dual=np.array([c.dual_objective for c in certs]),
        relative_gap=np.array([c.relative_gap for c in certs]),
        max_kkt=np.array([max(c.kkt.values()) for c in certs]),
        certificates=tuple(certs), method=tuple(methods), seconds=secs,
        intercept=intercept, intercept_scaling=float(intercept_scaling),
        data_name=data.name, n=n, d=d, solver=solver_name, min_margin_sv_C=c0, hard=hard,
        compile_seconds=float(compile_s), total_seconds=time.perf_counter() - t_start,
    )


#: The same function under a name that does not shadow the ``maxmargin.path`` module when
#: re-exported at the top level (``from maxmargin import regularization_path``).
regularization_path = path


# --------------------------------------------------------------------------- learners


#: Learners studied along the path by default, and how each gets its parameter from lam.
PATH_LEARNERS = ("pegasos", "subgradient", "pa1")
#: :func:`learners_along_path` uses its worker pool only when its runs see at least this
#: many examples in all (runs x epochs x n): starting a worker (a Python with numpy and
#: the compiled kernels) costs ~1 s, the runs ~50-100 ns per example.
MIN_POOL_STEPS = 50_000_000


def _learner_params(name: str, lam: float, n: int) -> dict[str, Any]:
    if name in ("pegasos", "subgradient"):
        return {"lam": float(lam)}
    if name in ("pa1", "pa2"):
        return {"C": 1.0 / (lam * n)}  # the SVM's C of this lambda
    raise ParameterError(f"learner {name!r} has no lambda or C to match along the path; "
                         f"use some of pegasos, subgradient, pa1, pa2")


def _idle_cores() -> int:
    """Cores not busy with other work: ``cpu_count`` minus the 1-minute load average
    (at least 1; all cores where the load average is unknown)."""
    import os

    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return cores
    return max(1, min(cores, int(cores - load + 0.5)))


def _learner_job(job: tuple) -> tuple[np.ndarray, float]:
    """Run one learner at one lambda and evaluate its lambda objective at every
    checkpoint (module-level, so a worker can run it; the evaluation, O(n d) per
    checkpoint, is as long as the run: it belongs in the worker too)."""
    from .online import make_learner, run

    data, name, params, epochs, order, seed, ckpts, lam, scaling = job
    tr = run(make_learner(name, **params), data, epochs=epochs, order=order, seed=seed,
             checkpoints=ckpts)
    prob = SVMProblem(data, lam=lam, intercept="augmented", intercept_scaling=scaling)
    F = np.asarray(prob.lambda_objective(tr.w, tr.b), float)
    return F, float(tr.timings.get("learn_seconds", math.nan))


@dataclass(frozen=True, eq=False)
class LearnerPathStudy:
    """Online learners run at every lambda of a grid, scored against that lambda's optimum.

    Attributes
    ----------
    lam : ndarray of shape (k,)
        Increasing.
    learners : tuple of str
    epochs : int
    order : str
    seed : int
        Run ``(i, j)`` (lambda i, learner j) used seed ``seed + 1009 i + j``: the result
        does not depend on how the runs were scheduled.
    t : ndarray of shape (m,)
        Checkpoints (examples seen).
    n : int
    F_star : ndarray of shape (k,)
        ``F* = min F`` (lambda form, intercept ``augmented``), from the certified path.
    rel_subopt : ndarray of shape (L, k, m)
        ``(F(w_t) - F*) / F*`` of learner j at lambda i after t steps.
    eps : tuple of float
    epochs_to_eps : ndarray of shape (len(eps), L, k)
        First checkpoint (in epochs, ``t / n``) from which ``rel_subopt <= eps`` holds at
        every later checkpoint; inf if not so at the end of the budget.
    seconds : ndarray of shape (L, k)
        Learning time of each run.

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> st = learners_along_path(make_gaussians(40, 2, seed=0), lam=[0.01, 0.1],
    ...                          learners=["pegasos"], epochs=1)
    >>> st.rel_subopt.shape[:2], st.epochs_to_eps.shape[1:]
    ((1, 2), (1, 2))
    """

    lam: np.ndarray
    learners: tuple
    epochs: int
    order: str
    seed: int
    t: np.ndarray
    n: int
    F_star: np.ndarray
    rel_subopt: np.ndarray
    eps: tuple
    epochs_to_eps: np.ndarray
    seconds: np.ndarray

    @property
    def final_rel_subopt(self) -> np.ndarray:
        """``rel_subopt`` at the last checkpoint, shape (L, k)."""
        return self.rel_subopt[:, :, -1]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the full curves included)."""
        return {
            "lam": [float(v) for v in self.lam], "learners": list(self.learners),
            "epochs": self.epochs, "order": self.order, "seed": self.seed,
            "t": [int(v) for v in self.t], "n": self.n,
            "F_star": [float(v) for v in self.F_star],
            "eps": [float(e) for e in self.eps],
            "final_rel_subopt": {nm: [_num(v) for v in self.final_rel_subopt[j]]
                                 for j, nm in enumerate(self.learners)},
            "epochs_to_eps": {f"{e:g}": {nm: [_num(v) for v in self.epochs_to_eps[q, j]]
                                         for j, nm in enumerate(self.learners)}
                              for q, e in enumerate(self.eps)},
            "rel_subopt": {nm: [[_num(v) for v in row] for row in self.rel_subopt[j]]
                           for j, nm in enumerate(self.learners)},
        }

    def to_markdown(self) -> str:
        """Tables: final relative suboptimality and epochs to each eps, per lambda."""
        L = [f"## Learners along the path ({self.epochs} epochs, order {self.order}, "
             f"seed {self.seed})", "",
             "Relative suboptimality `(F(w_T) - F*) / F*` after the budget:", "",
             "| lambda | " + " | ".join(self.learners) + " |",
             "|---|" + "---|" * len(self.learners)]
        for i, lam in enumerate(self.lam):
            L.append(f"| {lam:.3g} | " + " | ".join(
                f"{self.final_rel_subopt[j, i]:.2e}" for j in range(len(self.learners)))
                + " |")
        for q, e in enumerate(self.eps):
            L += ["", f"Epochs to reach relative suboptimality {e:g} (inf: not within "
                  "the budget):", "", "| lambda | " + " | ".join(self.learners) + " |",
                  "|---|" + "---|" * len(self.learners)]
            for i, lam in enumerate(self.lam):
                L.append(f"| {lam:.3g} | " + " | ".join(
                    f"{self.epochs_to_eps[q, j, i]:.3g}" for j in range(len(self.learners)))
                    + " |")
        return "\n".join(L) + "\n"


def learners_along_path(data: Dataset, lam: Any = None, *, C: Any = None,
                        learners: Sequence[str] = PATH_LEARNERS, epochs: int = 10,
                        order: str = "shuffle", seed: int = 0,
                        eps: Sequence[float] = (1e-1, 1e-2), n_jobs: int | None = 1,
                        exact: RegularizationPath | None = None,
                        progress: bool = False) -> LearnerPathStudy:
    """Run learners at each lambda for a fixed budget; suboptimality against the optimum.

    Parameters
    ----------
    data : Dataset
    lam, C : grid, optional
        As for :func:`path` (default: the lambdas of ``exact``, or :data:`DEFAULT_GRID`
        in C).
    learners : sequence of str
        Names from ``maxmargin.online.LEARNERS`` that have a lambda or C: ``pegasos``,
        ``subgradient`` (``lam`` = the grid's lambda), ``pa1``, ``pa2`` (``C = 1/(lam n)``).
    epochs : int
        The budget, in passes over the data.
    order : {"shuffle", "cyclic", "sample"}
    seed : int
    eps : sequence of float
        Relative suboptimality levels for ``epochs_to_eps``.
    n_jobs : int or None
        Worker processes (``None`` or ``-1``: all cores; 1: no pool). Seeds are fixed
        per run, so the result is the same for every ``n_jobs``.
    exact : RegularizationPath, optional
        A path with intercept ``augmented`` (the learners' mode) on the same grid; computed
        when not given.
    progress : bool

    Returns
    -------
    LearnerPathStudy

    Notes
    -----
    Pegasos' expected suboptimality after T steps is ``O(R^2 log T / (lam T))``, so the
    number of epochs to reach a fixed eps grows like ``1/lam``: the study's figure shows
    it on log-log axes next to a slope -1 guide.

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> st = learners_along_path(make_gaussians(60, 2, seed=0), lam=[0.01, 0.1],
    ...                          learners=["pegasos"], epochs=3)
    >>> st.rel_subopt.shape[:2], bool((st.final_rel_subopt >= -1e-9).all())
    ((1, 2), True)
    """
    import os

    from .online import default_checkpoints

    epochs = check_int("epochs", epochs, minimum=1)
    names = tuple(learners)
    if not names:
        raise ParameterError("no learners given; use e.g. learners=['pegasos', 'pa1']")
    for nm in names:
        _learner_params(nm, 1.0, data.n)
    if exact is None:
        if lam is None and C is None:
            C = DEFAULT_GRID
        exact = path(data, C=C, lam=lam, intercept="augmented", hard_limit=False,
                     progress=progress)
    elif lam is not None or C is not None:
        raise ParameterError("give either a grid or exact=, not both")
    if exact.intercept != "augmented":
        raise ParameterError("the learners use intercept='augmented'; compute the exact "
                             "path with intercept='augmented'")
    order_idx = np.argsort(exact.lam)
    lams = exact.lam[order_idx]
    n = data.n
    F_star = np.array([
        float(SVMProblem(data, C=float(exact.C[i]), intercept="augmented",
                         intercept_scaling=exact.intercept_scaling)
              .lambda_objective(exact.w[i], exact.b[i])) for i in order_idx])
    ckpts = default_checkpoints(n, epochs)
    jobs = [(data, nm, _learner_params(nm, lam_, n), epochs, order, seed + 1009 * i + j,
             ckpts, float(lam_), exact.intercept_scaling)
            for i, lam_ in enumerate(lams) for j, nm in enumerate(names)]
    if n_jobs in (None, -1):
        workers = os.cpu_count() or 1
    else:
        workers = check_int("n_jobs", n_jobs)
    results: list[Any] = [None] * len(jobs)
    if len(jobs) * epochs * n < MIN_POOL_STEPS:
        workers = 1  # starting the workers would cost more than the runs
    # a worker beside a busy core makes the pool slower than one process (measured)
    workers = min(workers, _idle_cores())
    with Progress(len(jobs), "learners", enabled=progress) as bar:
        if workers > 1 and len(jobs) > 1:
            # joblib's loky workers: no `if __name__ == "__main__"` guard needed in the
            # caller's script, reused across calls, arrays of `data` memory-mapped once
            # instead of pickled per run, BLAS limited to cores / workers threads each.
            from joblib import Parallel, delayed

            par = Parallel(n_jobs=min(workers, len(jobs)), return_as="generator")
            for q, res in enumerate(par(delayed(_learner_job)(job) for job in jobs)):
                results[q] = res
                bar.update(1)
        else:
            for q, job in enumerate(jobs):
                results[q] = _learner_job(job)
                bar.update(1)
    k, Lk = len(lams), len(names)
    m = len(ckpts)
    rel = np.full((Lk, k, m), np.nan)
    secs = np.zeros((Lk, k))
    for q, (F, s_) in enumerate(results):
        i, j = divmod(q, Lk)
        rel[j, i, :F.size] = (F - F_star[i]) / F_star[i]
        secs[j, i] = s_
    eps_t = tuple(float(check_positive("eps", e)) for e in eps)
    ep = np.full((len(eps_t), Lk, k), np.inf)
    for q, e in enumerate(eps_t):
        above = ~(rel <= e)
        for j in range(Lk):
            for i in range(k):
                idx = np.flatnonzero(above[j, i])  # reached *and stayed* below eps
                first = 0 if idx.size == 0 else idx[-1] + 1
                if first < m:
                    ep[q, j, i] = ckpts[first] / n
    return LearnerPathStudy(lams, names, epochs, order, int(seed), ckpts, n, F_star, rel,
                            eps_t, ep, secs)


# --------------------------------------------------------------------------- report


def write_path_report(path_result: RegularizationPath, out_dir: str | Path, *,
                      study: LearnerPathStudy | None = None,
                      formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Write ``report.md``, ``report.json`` and the path figures into ``out_dir``.

    Parameters
    ----------
    path_result : RegularizationPath
    out_dir : str or Path
        Created when missing.
    study : LearnerPathStudy, optional
        Adds the learners' tables and figure.
    formats : sequence of str
        Figure formats.

    Returns
    -------
    list of pathlib.Path
        Every file written, report.md and report.json first.

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import make_separable
    >>> p = path(make_separable(30, 2, seed=0), C="1e-2:1e2:4")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     names = [f.name for f in write_path_report(p, tmp, formats=("png",))]
    >>> names[:2], "path_width.png" in names
    (['report.md', 'report.json'], True)
    """
    from .plot_path import save_path_figures

    if not isinstance(path_result, RegularizationPath):
        raise ParameterError("write_path_report needs the RegularizationPath of path(), got "
                             f"{type(path_result).__name__}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figs = save_path_figures(path_result, out, study=study, formats=formats)
    md = path_result.to_markdown()
    if study is not None:
        md += "\n" + study.to_markdown()
    shown = [f for f in figs if f.suffix == ".png"] or figs
    if shown:
        md += "\n## Figures\n\n" + "\n".join(f"![{f.stem}]({f.name})" for f in shown) + "\n"
    md += ("\nHow to read these numbers and recompute them: see docs/path.md in the "
           "maxmargin repository.\n")
    report = atomic_write(out / "report.md", md)
    d = path_result.to_dict()
    if study is not None:
        d["learners"] = study.to_dict()
    js = atomic_write(out / "report.json", json.dumps(d, indent=1))
    return [report, js, *figs]
