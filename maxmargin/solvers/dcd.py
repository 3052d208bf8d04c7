r"""Dual coordinate descent for the linear SVM dual (Hsieh et al. 2008, LIBLINEAR's method).

The route for sparse, high-dimensional data: one pass over the data costs ``O(nnz(X))``,
``X`` is read row by row (CSR or dense) and never copied or densified, and the only
other memory is ``w`` (d'), ``alpha`` (n) and an index array (n).

The dual QP (see :mod:`maxmargin.exact`), with ``z_i`` the features the QP sees and
``Q_ij = y_i y_j z_i.z_j``:

.. math::

    \min_\alpha \tfrac12 \alpha^T Q \alpha - 1^T \alpha, \qquad
    0 \le \alpha_i \le C_i, \qquad y^T \alpha = 0 \ \text{(free intercept only)}

(``C_i = C`` without weights) ``C = inf`` for hard margin. Coordinate ``i`` is minimised
exactly, with ``w = sum_j alpha_j y_j z_j`` kept up to date: ``G_i = y_i w.z_i - 1``,
``alpha_i <- clip(alpha_i - G_i / ||z_i||^2, 0, C_i)``, ``w += (new - old) y_i z_i``.
The squared hinge (LIBLINEAR's L2-loss dual) is the same with ``Q + D``, ``D_ii = 1 /
(2 C_i)``, and no upper bound: ``G_i`` gains ``D_ii alpha_i`` and the step's curvature
``||z_i||^2 + D_ii``.
Sweeps visit the active coordinates in a random order and *shrink* (drop) coordinates
at a bound whose gradient points out of the box by more than the last sweep's largest
violation; the iteration stops when the projected gradients' spread
``max PG - min PG`` is below ``eps`` on every coordinate (after un-shrinking).

Intercept ``none``: exactly the above. ``augmented``: ``z_i = (x_i, s)``, handled by one
extra entry of ``w`` (no copy of X). ``free``: the equality ``y^T alpha = 0`` is handled
by the *method of multipliers* (augmented Lagrangian) on it, whose multiplier is the
intercept ``b``: the inner problem

.. math::

    \min_{0 \le \alpha \le C}\ \tfrac12 \alpha^T Q \alpha - 1^T \alpha
    + b_k\, y^T \alpha + \tfrac\rho2 (y^T \alpha)^2

is the ``augmented`` problem with ``s = sqrt(rho)`` and every decision value shifted by
``b_k`` (coordinate ``i`` sees ``G_i = y_i (w.x_i + b_k + rho y^T alpha) - 1``), solved by
the same sweeps; then ``b_{k+1} = b_k + rho y^T alpha``. In the primal this is the
proximal-point method on the intercept, ``b_{k+1} = argmin_b phi(b) + (b - b_k)^2 /
(2 rho)`` with ``phi(b) = min_w P(w, b)`` convex: it converges from any start, and
the point it ends at satisfies every KKT condition of the free-intercept problem with
``b = b_{k+1}`` up to the inner tolerance, except the equality, whose residual is
``|b_{k+1} - b_k| / rho``. The sweeps stop at a tolerance where the active set is
identified; :func:`maxmargin.exact.solve` then polishes (solves the reduced KKT system
on that active set) and certifies with numpy, as on every route.

Hard margin on data that are not separable makes the dual unbounded; this module only
reports that the iteration did not converge (``"unbounded"`` when ``alpha`` blew up,
``"inaccurate"`` at the sweep cap): the caller decides separability by an LP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._deps import CompiledKernels
from ..separation import separation_certificate
from .qp import QPTask
from .result import RawResult, Status

__all__ = [
    "DCDResult",
    "coordinate_descent",
    "solve_qp",
    "first_tolerance",
    "tighter_tolerances",
    "EPS_UNPOLISHED",
    "REFINE_EPS",
]

#: The compiled sweeps (:mod:`._dcd_kernels`), imported on first use: numba's import and
#: cache load cost ~0.5 s, which the other routes should not pay.
kernels = CompiledKernels("maxmargin.solvers._dcd_kernels", "the DCD solver")

#: Work (stored entries read) per compiled call: ~0.1 s, so Ctrl-C is honoured between
#: calls (a compiled loop cannot be interrupted).
_WORK_PER_CALL = 30_000_000


@dataclass(frozen=True)
class DCDResult:
    """What :func:`coordinate_descent` returns.

    Attributes
    ----------
    state : str
        ``"optimal"`` (the tolerance was reached), ``"inaccurate"`` (sweep cap),
        ``"unbounded"`` (hard margin: ``alpha`` blew up; the data are probably not
        separable, which the caller decides by an LP).
    text : str
        One line: sweeps, outer (intercept) iterations, final violations.
    alpha : ndarray of shape (n,)
        Dual point, in the box ``0 <= alpha <= C``.
    b : float
        Intercept: the multiplier of ``y^T alpha = 0`` (free), ``s w~_{d+1}``
        (augmented), 0 (none).
    sweeps : int
        Passes over the active coordinates, all outer iterations together.
    outer : int
        Multiplier updates (free intercept; 1 otherwise).
    """

    state: str
    text: str
    alpha: np.ndarray
    b: float
    sweeps: int
    outer: int


# One method-of-multipliers loop whose steps share alpha, w, b, s, the shrinking state and
# the inner tolerance: cut apart, every piece would pass all of them both ways.
def coordinate_descent(  # noqa: C901
    X: Any,
    y: np.ndarray,
    C: Any,
    intercept: str,
    *,
    intercept_scaling: float = 1.0,
    eps: float = 1e-8,
    max_sweeps: int = 20_000,
    seed: int = 0,
    alpha0: np.ndarray | None = None,
    b0: float = 0.0,
    separable: bool | None = None,
    decide_after: int = 100,
    squared: bool = False,
) -> DCDResult:
    """Solve the SVM dual by dual coordinate descent with shrinking.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)
        The examples (CSR is read as is; other sparse formats are converted once).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,)
        Box bound, or one per example (the costs ``C_i > 0``); ``math.inf``: hard
        margin.
    intercept : {"free", "none", "augmented"}
    intercept_scaling : float
        ``s`` of the augmented mode.
    eps : float
        Stop when the projected gradients' spread (margin units: ``G_i = y_i f_i - 1``)
        is below ``eps`` and, for the free intercept, the last change of ``b`` is below
        ``eps`` too.
    max_sweeps : int
        Cap on the passes over the active coordinates (all outer iterations together).
    seed : int
        Seed of the random visiting order (results are reproducible).
    alpha0 : ndarray of shape (n,), optional
        Warm start (in the box); ``b0`` the intercept it goes with (free only).
    b0 : float
    separable : bool, optional
        Hard margin only. None: watch the iterates, and return ``"undecided"`` after
        ``decide_after`` sweeps unless some iterate ``w`` has separated the classes by
        then (which proves the data separable); True: the caller knows (by an LP).
    decide_after : int
    squared : bool
        The squared hinge (the L2-loss dual): ``C`` are the costs ``C_i > 0`` of
        ``C_i xi_i^2``; ``alpha`` has no upper bound and ``Q`` gains ``1 / (2 C_i)`` on
        its diagonal.

    Returns
    -------
    DCDResult
        ``state`` is ``"undecided"`` when the caller must decide separability.

    Examples
    --------
    Two points ``x = +-1`` (optimum ``alpha = (1/2, 1/2)``, ``b = 0``):

    >>> r = coordinate_descent(np.array([[1.0], [-1.0]]), np.array([1.0, -1.0]), math.inf,
    ...                        "free", eps=1e-12)
    >>> r.state, np.round(r.alpha, 9).tolist(), round(abs(r.b), 9)
    ('optimal', [0.5, 0.5], 0.0)
    """
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = y.shape[0]
    if sp.issparse(X):
        if not (X.format == "csr" and X.has_sorted_indices):
            X = sp.csr_matrix(X)
        Xk = (X.indptr, X.indices, X.data)
        sq = kernels.row_sq_norms(X.indptr, X.data)
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
        Xk = X
        sq = np.einsum("ij,ij->i", X, X)
    d = X.shape[1]
    Cv = np.ascontiguousarray(np.broadcast_to(np.asarray(C, dtype=np.float64), (n,)))
    # sum_i C_i: C n without weights, as it always was computed
    c_sum = C * n if np.ndim(C) == 0 else float(Cv.sum())
    dii = np.zeros(n)
    if squared:  # D_ii = 1/(2 C_i) and no upper bound
        dii = 0.5 / Cv
        Cv = np.full(n, math.inf)
    hard = not squared and not np.isfinite(Cv).all()
    s = _bias_feature(intercept, intercept_scaling, sq, c_sum)
    rho = s * s
    qd = sq + rho + dii
    alpha = np.zeros(n) if alpha0 is None else np.array(alpha0, dtype=np.float64)
    if alpha0 is None and intercept == "free" and not hard and not squared:
        # A zero row only sees b: alpha_i = C unless y_i b >= 1, where it drops to 0 in
        # one step; started at 0, zero rows of both labels would climb in steps 2/rho.
        alpha[sq == 0] = Cv[sq == 0]
    w = np.zeros(d + 1)
    if alpha0 is not None or intercept == "free":
        w[:d] = np.asarray((alpha * y) @ X).ravel()
        w[d] = s * float(alpha @ y)
    # free: b is the centre b_k of the proximal step; alpha's own intercept is
    # b_k + s w_{d+1} = b_k + rho y^T alpha
    b = float(b0) - s * w[d] if intercept == "free" else 0.0
    index = np.arange(n, dtype=np.int64)
    fst = np.array([math.inf, -math.inf, math.inf, -math.inf])
    ist = np.zeros(5, dtype=np.int64)
    ist[0] = n
    rng = np.array([seed], dtype=np.uint64)
    watch = hard and separable is None
    next_check = 10
    outer = 0
    state = "running"
    free = intercept == "free"
    # Free intercept: the inner tolerance follows the outer progress (an inexact
    # augmented Lagrangian): loose while b still moves a lot, eps at the end.
    inner_eps = max(eps, 1e-2) if free else eps
    db = math.inf
    drift = 0.0  # |change of b| since every coordinate was last visited
    while state == "running":
        ist[2] = 0
        while ist[2] == 0 and ist[1] < max_sweeps and ist[3] == 0:
            cap = min(max_sweeps, next_check) if watch else max_sweeps
            kernels.dcd_chunk(
                Xk,
                y,
                qd,
                Cv,
                dii,
                b,
                s,
                alpha,
                w,
                index,
                fst,
                ist,
                rng,
                inner_eps,
                _WORK_PER_CALL,
                cap,
            )
            if watch and ist[2] == 0 and ist[1] >= next_check:
                if _separates(X, y, w, s, intercept):
                    watch = False
                elif ist[1] >= decide_after:
                    state = "undecided"
                    break
                else:
                    next_check *= 2
        if state != "running":
            break
        if ist[3]:
            state = "unbounded"
            break
        if ist[2] == 0:
            state = "inaccurate"  # sweep cap
            break
        full = ist[0] == n
        if free:
            db = s * w[d]  # rho y^T alpha: the step of the multiplier
            eq = abs(w[d] / s)  # |y^T alpha|
            # b settled (margin units) and the equality met (relative to alpha's size)
            met = abs(db) <= eps and eq <= eps * float(np.max(alpha, initial=0.0))
            done = full and inner_eps <= eps and met
            # b_{k+1} = b_k + rho y^T alpha; the shrunk coordinates stay out while b
            # moves by less than the shrinking thresholds (their gradients move by
            # y_i db only; the final full sweep re-checks them all)
            b += db
            outer += 1
            if done:
                state = "optimal"
                break
            drift += abs(db)
            if ist[0] == 0 or not drift < min(fst[0], -fst[1]) < math.inf:
                # b moved by more than the shrinking thresholds since the coordinates
                # were last all visited (or every one is shrunk): a shrunk gradient may
                # have changed sign, visit every coordinate again
                ist[0] = n
                fst[0], fst[1] = math.inf, -math.inf
                drift = 0.0
            if inner_eps <= eps and abs(db) <= eps and not met:
                # b has stopped moving but y^T alpha is not 0: rho is too small for
                # steps rho y^T alpha to matter (the usual augmented-Lagrangian
                # safeguard: raise it; the inner problem gets stiffer, so only here)
                s *= math.sqrt(10.0)
                w[d] *= math.sqrt(10.0)
                qd = sq + s * s + dii
            inner_eps = max(eps, min(inner_eps, 0.1 * abs(db)))
            if inner_eps > eps or not met:
                continue
        elif full:
            state = "optimal"
            break
        # un-shrink: the next sweeps visit every coordinate again
        ist[0] = n
        fst[0], fst[1] = math.inf, -math.inf
        drift = 0.0
    sweeps = int(ist[1])
    viol = max(fst[2], 0.0) - min(fst[3], 0.0)
    passes = ist[4] / max(X.nnz if sp.issparse(X) else X.size, 1)
    text = f"{sweeps} sweeps ({passes:.1f} passes over X), PG spread {viol:.1e}"
    if free:
        # alpha's own intercept (the point it is optimal for): b_k + rho y^T alpha
        b_out = b if state == "optimal" else b + s * w[d]
        text += f", {outer} multiplier updates, last change of b {abs(db):.1e}"
    else:
        b_out = s * w[d]  # augmented: s w~_{d+1}; none: s = 0
    text = _why_stopped(
        state,
        text,
        sweeps,
        max_sweeps,
        hard,
        alpha,
        float(np.max(np.asarray(C, dtype=float), initial=0.0)) * float(np.max(qd, initial=0.0)),
    )
    return DCDResult(state, text, alpha, float(b_out), sweeps, outer)


def _bias_feature(intercept: str, intercept_scaling: float, sq: np.ndarray, c_sum: float) -> float:
    """``s``, the constant feature of the bias.

    The user's (augmented), 0 (none), or, for the free intercept, the square root of the
    method of multipliers' penalty ``rho``.
    """
    if intercept == "augmented":
        return float(intercept_scaling)
    if intercept != "free":
        return 0.0
    # rho on the scale of Q's diagonal: the inner problem is then as well conditioned as
    # the augmented one with s = 1 on unit rows (liblinear's default). Not its mean: a
    # row with ||x_i||^2 << rho moves alpha_i by steps ~ 1/rho only, so two such rows of
    # opposite labels need ~ C rho sweeps to reach their bound; the 10th percentile keeps
    # that rare. Where C is so small that every alpha sits at C (C ||x||^2 << 1/n), b
    # moves by about rho C n (rho sum_i C_i) per update: 1/(C n) keeps that step O(1) in
    # margin units.
    nz = sq[sq > 0]
    rho0 = float(np.percentile(nz, 10)) if nz.size else 0.0
    rho0 = max(rho0, 0.0 if not math.isfinite(c_sum) else 1.0 / c_sum)
    return math.sqrt(rho0) if rho0 > 0 else 1.0


def _why_stopped(
    state: str, text: str, sweeps: int, max_sweeps: int, hard: bool, alpha: np.ndarray, c_r2: float
) -> str:
    """The result's one line, with why the sweeps stopped when they did not converge."""
    if state == "inaccurate":
        if hard:
            why = (
                f"coordinate descent is slow for a small hard margin: max alpha "
                f"{float(np.max(alpha, initial=0.0)):.3g} so far"
            )
        else:
            why = (
                f"coordinate descent is slow where C R^2 = {c_r2:.3g} is large and "
                "examples of both labels nearly coincide"
            )
        return (
            f"sweep cap {max_sweeps} reached ({why}: an interior-point solver suits "
            f"such data: solver='PIQP', --solver PIQP); {text}"
        )
    if state == "undecided":
        return f"no separating iterate after {sweeps} sweeps; {text}"
    return text


def _separates(X: Any, y: np.ndarray, w: np.ndarray, s: float, intercept: str) -> bool:
    """Whether the iterate ``w`` strictly separates the classes.

    A proof of separability: with the intercept ``none`` through the origin, otherwise
    with some ``b``.
    """
    f = np.asarray(X @ w[:-1]).ravel()
    if intercept == "augmented":
        f = f + s * w[-1]
    slack = 1e-12 * float(np.max(np.abs(f), initial=0.0))
    if intercept == "none":
        return bool(np.min(y * f) > slack)
    return bool(np.min(f[y > 0]) - np.max(f[y < 0]) > slack)


#: Tolerances of the DCD route (projected-gradient spread, margin units), measured on
#: Zipf-sparse data (docs/benchmarks.md): at min(1e-4, 10/n) the polish finds the exact
#: active set (5000 x 20000 to 100000 x 47000 at 1e-4, gap ~1e-15; at 400000 x 47000
#: 1e-4 leaves a few dozen points on the wrong side, 2.5e-5 does not: the points within
#: eps of the margin grow with n); sweeping on to 1e-8 would cost twice the sweeps.
#: Without the polish the sweeps go to 1e-9; where the polish misses, the sweeps go on
#: to the next tolerance and the polish is tried again.
EPS_UNPOLISHED = 1e-9
REFINE_EPS = (1e-6, 1e-8)


def first_tolerance(n: int) -> float:
    """The first tolerance of the DCD route for n examples (see ``REFINE_EPS``).

    Parameters
    ----------
    n : int

    Returns
    -------
    float
    """
    return min(1e-4, 10.0 / n)


def tighter_tolerances(n: int) -> tuple[float, ...]:
    """The tolerances the route goes on to, in order, when the polish misses.

    Parameters
    ----------
    n : int

    Returns
    -------
    tuple of float
    """
    return tuple(eps for eps in REFINE_EPS if eps < first_tolerance(n))


def solve_qp(
    task: QPTask, *, eps: float | None = None, start: tuple[np.ndarray, float] | None = None
) -> RawResult:
    """Dual coordinate descent (:func:`coordinate_descent`) on ``task.problem``.

    Parameters
    ----------
    task : QPTask
        The whole dual (``task.YZ`` is not read: this route reads X row by row).
    eps : float, optional
        The tolerance (default :func:`first_tolerance`).
    start : (alpha, b), optional
        A warm start.

    Returns
    -------
    RawResult
        ``x = alpha`` only (nothing downstream reads ``u``; it is never formed: this
        route reads X row by row and copies nothing); ``y_eq[-1]`` is the intercept (free
        only). A hard margin whose iterates do not separate the classes is decided by the
        separation LP: not separable, ``UNBOUNDED`` (the caller raises with the LP's
        certificate); separable, the sweeps go on.
    """
    problem = task.whole("DCD")
    X, y = problem.data.X, problem.data.y
    C = problem.C if problem.weights is None else problem.costs
    eps = first_tolerance(problem.n) if eps is None else eps
    kw: dict[str, Any] = {
        "intercept_scaling": problem.intercept_scaling,
        "eps": eps,
        "squared": problem.squared,
    }
    if start is not None:
        kw.update(alpha0=start[0], b0=start[1], separable=True if problem.hard else None)
    r = coordinate_descent(X, y, C, problem.intercept, **kw)
    if r.state == "undecided":
        if separation_certificate(problem) is not None:
            return RawResult(Status.UNBOUNDED, r.text, r.alpha)
        kw.update(alpha0=r.alpha, b0=r.b, separable=True)
        r = coordinate_descent(X, y, C, problem.intercept, **kw)
    return RawResult(
        Status(r.state),
        r.text,
        r.alpha,
        np.array([r.b]) if problem.intercept == "free" else None,
        None,
    )
