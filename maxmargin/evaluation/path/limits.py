"""The two ends of the C path: ``C_0`` in closed form, ``C*`` by one hard-margin solve.

With example weights ``s_i`` both take them; examples of weight 0 are left out of both.
Proofs in ``docs/path.md``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ... import io
from ..._validation import check_choice, check_positive
from ...conventions import DEFAULT_INTERCEPT, INTERCEPTS
from ...data import Dataset
from ...exceptions import NotSeparableError, ParameterError, SolverError
from ...problem import SVMProblem

__all__ = ["min_margin_sv_C", "hard_margin_limit", "HardMarginLimit"]


def min_margin_sv_C(
    data: Dataset,
    intercept: str = DEFAULT_INTERCEPT,
    intercept_scaling: float = 1.0,
    *,
    sample_weight: Any = None,
) -> float:
    r"""The largest ``C_0`` such that for ``C <= C_0`` no example is a margin SV.

    The analogue of scikit-learn's ``l1_min_c`` for the L2-regularized hinge.

    Parameters
    ----------
    data : Dataset
    intercept : {"free", "none", "augmented"}
    intercept_scaling : float
        ``s`` of the augmented mode.
    sample_weight : array-like of shape (n,), optional
        The example weights ``s_i`` (costs ``C_i = C s_i``).

    Returns
    -------
    float
        ``C_0`` (``inf`` if no margin SV ever appears; ``0.0`` when there are margin SVs
        for every ``C > 0``).

    Notes
    -----
    With ``g = sum_i s_i y_i z_i`` (``z = x``, or ``(x, s)`` for augmented):

    .. math::

        \text{none, augmented:}\quad C_0 = 1 / \max_i\, y_i\, g \cdot z_i

        \text{free, } n_+ = n_-:\quad
        C_0 = 2 / (\max_{y_i = +1} g \cdot x_i - \min_{y_i = -1} g \cdot x_i)

    With ``free`` and ``n_+ != n_-``, a small QP decides (``docs/path.md``).

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
    data, sw = _positive_part(data, sample_weight)
    y = data.y
    X = data.X
    if intercept != "free":
        sy = y if sw is None else sw * y
        g = np.asarray(X.T @ sy).ravel()
        r = y * np.asarray(X @ g).ravel()
        if intercept == "augmented":
            r = r + y * (s * s * sy.sum())
        top = float(r.max())
        return 1.0 / top if top > 0 else math.inf
    if sw is None:
        n_pos: float = int((y > 0).sum())
        n_neg: float = data.n - n_pos
        balanced = n_pos == n_neg
        caps = np.ones(data.n)
    else:
        n_pos, n_neg = float(sw[y > 0].sum()), float(sw[y < 0].sum())
        # equal up to rounding: class_weight="balanced" makes them n/2 each
        balanced = abs(n_pos - n_neg) <= 1e-12 * max(n_pos, n_neg)
        caps = sw
    beta: np.ndarray | None = caps
    if not balanced:
        maj = 1.0 if n_pos > n_neg else -1.0
        beta = _face_beta(data, maj, caps)
        if beta is None:
            return 0.0
    assert beta is not None
    gw = np.asarray(X.T @ (beta * y)).ravel()
    f = np.asarray(X @ gw).ravel()
    on = beta > 0.5 * caps
    top = float(f[on & (y > 0)].max()) - float(f[on & (y < 0)].min())
    return 2.0 / top if top > 0 else math.inf


def _positive_part(data: Dataset, sample_weight: Any) -> tuple[Dataset, np.ndarray | None]:
    """The examples of positive weight and their weights (None: unweighted, as given)."""
    if sample_weight is None:
        return data, None
    sw = np.asarray(sample_weight, dtype=float)
    if sw.shape != (data.n,):
        raise ParameterError(f"sample_weight must have shape ({data.n},), got {sw.shape}")
    keep = sw > 0
    if keep.all():
        return data, sw
    return data.subset(np.flatnonzero(keep)), sw[keep]


def _face_beta(data: Dataset, maj: float, caps: np.ndarray) -> np.ndarray | None:
    """The small-C multipliers ``beta*`` (alpha = C beta*) for unequal classes, or None.

    None when one is fractional (margin SVs for every C > 0).
    """
    import clarabel

    y = data.y
    J = np.flatnonzero(y == maj)
    K = np.flatnonzero(y != maj)
    cJ = caps[J]
    m = float(caps[K].sum())
    # beta* does not change when X is scaled; Clarabel's tolerances and the tie tests
    # below are absolute, so they see X / R (R rounded to a power of two: exact)
    from ..._numerics import _pow2, _radius

    X = data.X / _pow2(_radius(data))
    XJ = X[J]  # stays sparse for sparse X: the QP below takes it as it is
    gK = np.asarray(X[K].T @ (caps[K] * y[K])).ravel()
    # min 1/2 ||maj * XJ' beta + gK||^2, sum beta = m, 0 <= beta <= caps  (u = XJ' beta)
    nJ, d = XJ.shape
    P = sp.block_diag([sp.csc_matrix((nJ, nJ)), sp.identity(d)], format="csc")
    q = np.concatenate([np.zeros(nJ), maj * gK])
    A = sp.vstack(
        [
            sp.hstack([sp.csc_matrix(XJ.T), -sp.identity(d)]),
            sp.hstack([sp.csc_matrix(np.ones((1, nJ))), sp.csc_matrix((1, d))]),
        ],
        format="csc",
    )
    Id = sp.identity(nJ + d, format="csc")[:nJ]
    M = sp.vstack([A, -Id, Id], format="csc")
    rhs = np.concatenate([np.zeros(d), [m], np.zeros(nJ), cJ])
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.tol_gap_abs = st.tol_gap_rel = st.tol_feas = 1e-10
    sol = clarabel.DefaultSolver(
        P, q, M, rhs, [clarabel.ZeroConeT(d + 1), clarabel.NonnegativeConeT(2 * nJ)], st
    ).solve()
    if sol.status != clarabel.SolverStatus.Solved:  # pragma: no cover - tiny convex QP
        raise SolverError(f"min_margin_sv_C: the small-C face QP failed ({sol.status})")
    bJ = np.asarray(sol.x[:nJ]) / cJ  # each beta_i as a fraction of its cap
    # Round and verify the rounded point's optimality on the capped simplex: with
    # grad_i = maj x_i . u, an integral optimum needs max_{beta=cap} grad <= min_{beta=0}
    # grad, and the caps of the first ones in order must add up to m exactly
    order = np.argsort(-bJ, kind="stable")
    filled = np.cumsum(cJ[order])
    k = int(np.searchsorted(filled, m * (1 - 1e-12)))  # the caps filled up to m
    if k >= nJ or abs(filled[k] - m) > 1e-12 * m:
        return None  # no set of whole caps adds up to m: one beta is fractional
    rounded = np.zeros(nJ)
    rounded[order[: k + 1]] = 1.0
    if np.abs(bJ - rounded).max() > 1e-5:
        return None
    u = maj * XJ.T @ (rounded * cJ) + gK
    grad = maj * XJ @ u
    on, off = grad[rounded > 0.5], grad[rounded < 0.5]
    if off.size and on.size and on.max() > off.min() + 1e-9 * max(1.0, abs(on.max())):
        return None
    if off.size and on.size and on.max() >= off.min() - 1e-12 * max(1.0, abs(on.max())):
        return None  # a tie: the optimal face holds fractional points (degenerate)
    beta = caps.copy()
    beta[J] = rounded * cJ
    return beta


@dataclass(frozen=True, eq=False)
class HardMarginLimit(io.Persistent):
    """Where the soft-margin path meets the hard-margin optimum (separable data).

    Attributes
    ----------
    separable : bool
        Decided by :func:`maxmargin.is_separable` (an LP).
    C_star : float
        ``min { max_i alpha_i / s_i : alpha hard-optimal }`` (``inf`` when not separable).
    max_alpha_hard : float
        ``max_i alpha_i / s_i`` of the computed hard solution (an upper bound of C_star).
    w, b, alpha : the hard-margin solution (None when not separable; ``alpha`` is not
        written to files).
    primal_objective, margin : float
        ``1/2 ||w~||^2`` and ``1 / ||w~||`` of the hard solution (``docs/numbers.md``).
    last_C : float
        The path's largest C.
    last_rel_diff : float
        ``||(w, b)_last - (w, b)_hard|| / max(1, ||(w, b)_hard||)``.
    last_equal : bool
        ``last_C >= C_star`` and ``last_rel_diff <= 1e-6``.
    failure : str or None
        Why ``C_star`` is ``nan`` on separable data (the hard-margin solve failed).

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
    alpha: np.ndarray | None = io.transient()
    primal_objective: float = math.nan
    margin: float = math.nan
    last_C: float = math.nan
    last_rel_diff: float = math.nan
    last_equal: bool = False
    failure: str | None = None

    @property
    def geometric_margin(self) -> float:
        """``1/||w~||`` of the hard solution in the QP's space (:attr:`margin` by its name)."""
        return self.margin


def hard_margin_limit(
    data: Dataset,
    intercept: str = DEFAULT_INTERCEPT,
    *,
    solver: str | None = None,
    intercept_scaling: float = 1.0,
    last: tuple[float, Any, float] | None = None,
    sample_weight: Any = None,
) -> HardMarginLimit:
    r"""The hard-margin optimum and the threshold ``C*`` above which the path equals it.

    Parameters
    ----------
    data : Dataset
    intercept : {"free", "none", "augmented"}
    solver : str, optional
        Passed to :func:`maxmargin.exact.solve`.
    intercept_scaling : float
    last : (C, w, b), optional
        A path's last point, compared with the hard solution.
    sample_weight : array-like of shape (n,), optional
        The example weights ``s_i``: examples of weight 0 are left out; ``C*`` is the
        smallest ``C`` with ``alpha_i <= C s_i``.

    Returns
    -------
    HardMarginLimit
        ``alpha`` has one entry per example of ``data``. When the hard-margin solve
        fails on separable data, ``C_star`` is ``nan`` and ``failure`` says why (with a
        ``RuntimeWarning``).

    Notes
    -----
    .. math:: C^* = \min \{\, \|\alpha\|_\infty : \alpha \text{ hard-optimal} \}

    computed by an LP over the hard-optimal face (proof in ``docs/path.md``).

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> lim = hard_margin_limit(Dataset([[1.0], [-1.0]], [1, -1]))
    >>> lim.separable, round(lim.C_star, 9)
    (True, 0.5)
    """
    from ...exact import solve
    from ...separation import is_separable

    intercept = check_choice("intercept", intercept, INTERCEPTS)
    n_all = data.n
    keep = None if sample_weight is None else np.flatnonzero(np.asarray(sample_weight) > 0)
    data, sw = _positive_part(data, sample_weight)
    if not is_separable(data, intercept):
        return HardMarginLimit(False)
    problem = SVMProblem(data, hard=True, intercept=intercept, intercept_scaling=intercept_scaling)
    try:
        sol = solve(problem, solver=solver)
    except NotSeparableError:  # pragma: no cover - the LP said separable
        return HardMarginLimit(False)
    except SolverError as e:
        why = f"the hard-margin solve failed: {e}"
        warnings.warn(
            f"{data.name}: separable, but C* (where the path meets the hard margin) is not "
            f"determined: {why}",
            RuntimeWarning,
            stacklevel=2,
        )
        return HardMarginLimit(True, math.nan, math.nan, failure=why)
    amax = float(sol.alpha.max() if sw is None else (sol.alpha / sw).max())
    c_star = min(amax, _min_inf_norm_alpha(problem, sol, sw))
    alpha = sol.alpha
    if keep is not None and keep.size < n_all:
        alpha = np.zeros(n_all)
        alpha[keep] = sol.alpha
    lastC, rel, eq = math.nan, math.nan, False
    if last is not None:
        lastC, lw, lb = last
        hv = np.concatenate([sol.w, [sol.b]])
        diff = np.concatenate([np.asarray(lw, float) - sol.w, [float(lb) - sol.b]])
        rel = float(np.linalg.norm(diff)) / max(1.0, float(np.linalg.norm(hv)))
        eq = bool(lastC >= c_star * (1 - 1e-9) and rel <= 1e-6)
    return HardMarginLimit(
        True,
        c_star,
        amax,
        sol.w,
        float(sol.b),
        alpha,
        float(sol.primal_objective),
        float(sol.margin),
        lastC,
        rel,
        eq,
    )


def _min_inf_norm_alpha(problem: SVMProblem, sol: Any, sw: np.ndarray | None = None) -> float:
    """LP: the smallest ``max alpha_i / s_i`` over the hard-optimal dual face (inf: failed)."""
    from scipy.optimize import linprog

    from ...solvers.qp import signed_rows

    y = problem.data.y
    r = y * problem.decision_function(sol.w, sol.b)
    M = np.flatnonzero(r <= 1.0 + 1e-7)
    if M.size == 0:
        return math.inf
    YZ = signed_rows(problem)
    G = YZ[M]
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    wt = problem.to_augmented(sol.w, sol.b)
    m = M.size
    # variables (alpha_M, t): min t, alpha_M - t s_M <= 0, G' alpha = w~, y_M' alpha = 0
    A_eq = np.hstack([G.T, np.zeros((G.shape[1], 1))])
    b_eq = wt
    if problem.intercept == "free":
        A_eq = np.vstack([A_eq, np.concatenate([y[M], [0.0]])])
        b_eq = np.concatenate([b_eq, [0.0]])
    A_ub = np.hstack([np.identity(m), -(np.ones((m, 1)) if sw is None else sw[M, None])])
    c = np.zeros(m + 1)
    c[-1] = 1.0
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(m),
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=[(0, None)] * (m + 1),
        method="highs",
    )
    if res.status != 0 or res.x is None:
        return math.inf
    return float(res.x[-1])
