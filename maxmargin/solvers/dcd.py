r"""Dual coordinate descent for the linear SVM dual (Hsieh et al. 2008, LIBLINEAR's method).

Reads X row by row, never copied: ``O(nnz(X))`` a sweep, with shrinking; the free intercept
by the method of multipliers on ``y'a = 0``. ``"unbounded"`` never decides separability.
See ``docs/solvers.md``.
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

#: The compiled sweeps, imported on first use (numba's import costs ~0.5 s).
kernels = CompiledKernels("maxmargin.solvers._dcd_kernels", "the DCD solver")

#: Stored entries read per compiled call: ~0.1 s, so Ctrl-C is honoured between calls.
_WORK_PER_CALL = 30_000_000


@dataclass(frozen=True)
class DCDResult:
    """What :func:`coordinate_descent` returns (``state``: optimal, inaccurate, unbounded...)."""

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
    """Solve the SVM dual by dual coordinate descent with shrinking, to ``eps`` (margin units).

    ``separable=None`` (hard margin): ``"undecided"`` after ``decide_after`` sweeps unless
    an iterate separated the classes.

    Examples
    --------
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
    sweep = (alpha, w, index, fst, ist, rng)  # the sweeps' state, updated in place
    while state == "running":
        ist[2] = 0
        while ist[2] == 0 and ist[1] < max_sweeps and ist[3] == 0:
            cap = min(max_sweeps, next_check) if watch else max_sweeps
            kernels.dcd_chunk(Xk, y, qd, Cv, dii, b, s, *sweep, inner_eps, _WORK_PER_CALL, cap)
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
            # b_{k+1} = b_k + rho y^T alpha; the shrunk coordinates stay out while b moves
            # by less than the shrinking thresholds (the final full sweep re-checks them)
            b += db
            outer += 1
            if done:
                state = "optimal"
                break
            drift += abs(db)
            if ist[0] == 0 or not drift < min(fst[0], -fst[1]) < math.inf:
                # b moved past the thresholds (or all are shrunk): visit every one again
                ist[0] = n
                fst[0], fst[1] = math.inf, -math.inf
                drift = 0.0
            if inner_eps <= eps and abs(db) <= eps and not met:
                # b stopped but y^T alpha is not 0: rho too small (raise it, only here:
                # the inner problem gets stiffer)
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
    c_r2 = float(np.max(np.asarray(C, dtype=float), initial=0.0)) * float(np.max(qd, initial=0.0))
    text = _why_stopped(state, text, sweeps, max_sweeps, hard, alpha, c_r2)
    return DCDResult(state, text, alpha, float(b_out), sweeps, outer)


def _bias_feature(intercept: str, intercept_scaling: float, sq: np.ndarray, c_sum: float) -> float:
    """``s``, the constant feature of the bias (free: ``sqrt(rho)`` of the multipliers' penalty)."""
    if intercept == "augmented":
        return float(intercept_scaling)
    if intercept != "free":
        return 0.0
    # rho on the scale of Q's diagonal, its 10th percentile (rows with ||x_i||^2 << rho
    # need ~ C rho sweeps); at least 1/sum C_i, where b moves by ~rho sum C_i an update
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
    """Whether the iterate ``w`` strictly separates the classes: a proof of separability."""
    f = np.asarray(X @ w[:-1]).ravel()
    if intercept == "augmented":
        f = f + s * w[-1]
    slack = 1e-12 * float(np.max(np.abs(f), initial=0.0))
    if intercept == "none":
        return bool(np.min(y * f) > slack)
    return bool(np.min(f[y > 0]) - np.max(f[y < 0]) > slack)


#: Tolerances of the DCD route (margin units, measured): unpolished, and those it goes on
#: to where the polish misses at ``first_tolerance``.
EPS_UNPOLISHED = 1e-9
REFINE_EPS = (1e-6, 1e-8)


def first_tolerance(n: int) -> float:
    """The first tolerance of the DCD route for n examples (see ``REFINE_EPS``)."""
    return min(1e-4, 10.0 / n)


def tighter_tolerances(n: int) -> tuple[float, ...]:
    """The tolerances the route goes on to, in order, when the polish misses."""
    return tuple(eps for eps in REFINE_EPS if eps < first_tolerance(n))


def solve_qp(
    task: QPTask, *, eps: float | None = None, start: tuple[np.ndarray, float] | None = None
) -> RawResult:
    """Dual coordinate descent on ``task``: ``x = alpha`` only, ``y_eq = [b]`` (free).

    A hard margin whose iterates do not separate is decided by the separation LP:
    ``UNBOUNDED`` when not separable, else the sweeps go on.
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
    y_eq = np.array([r.b]) if problem.intercept == "free" else None
    return RawResult(Status(r.state), r.text, r.alpha, y_eq)
