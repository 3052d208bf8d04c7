"""The kernel dual's active-set polish: the reduced KKT system solved exactly.

``[K_FF, 1; 1', 0] [c_F; b] = [y_F - K_FB c_B; -1' c_B]`` for the free points ``F`` (``c =
alpha * y``); points that break their condition move, a few rounds at most.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla

from ..kernel_problem import KernelProblem
from .qp import interval_intercept

__all__ = ["polish_kernel", "MAX_FREE"]

#: Most free support vectors whose reduced system is solved (288 MB, ~10 s at 6000).
MAX_FREE = 6000

#: Below this reciprocal condition number, the LU solution is noise: solved on a basis.
_SINGULAR = 1e-12

#: A point whose margin condition is broken by more than this (margin units) moves.
_MOVE_TOL = 1e-12


def _basic_solver(M: np.ndarray, rhs: np.ndarray, x0: np.ndarray) -> np.ndarray:
    """A singular (consistent) KKT system solved on a basis of its columns: a vertex of the face."""
    _, R, piv = sla.qr(M, pivoting=True, mode="economic", check_finite=False)
    dR = np.abs(np.diag(R))
    rank = int((dR > 1e-11 * dR[0]).sum()) if dR.size and dR[0] > 0 else 0
    basic, rest = np.sort(piv[:rank]), np.sort(piv[rank:])
    x = x0.copy()
    if rank:
        r = rhs[basic] - M[np.ix_(basic, rest)] @ x0[rest]
        x[basic] = np.linalg.lstsq(M[np.ix_(basic, basic)], r, rcond=None)[0]
    return x


def _solve_reduced(
    problem: KernelProblem, F: np.ndarray, B: np.ndarray, c: np.ndarray, x0: np.ndarray
) -> tuple[np.ndarray, float] | None:
    """``(c_F, b)`` of the reduced KKT system, with one refinement step; None if not finite."""
    op = problem.gram
    y = problem.data.y
    m = F.size
    free = problem.intercept == "free"
    M = op.block(F, F)
    rhs = y[F] - (op.matvec(c, rows=F, cols=B)[0] if B.size else 0.0)
    if free:
        M = np.block([[M, np.ones((m, 1))], [np.ones((1, m)), np.zeros((1, 1))]])
        rhs = np.append(rhs, -float(c[B].sum()))
    else:
        x0 = x0[:m]
    with warnings.catch_warnings():
        warnings.simplefilter("error", sla.LinAlgWarning)
        try:
            lu = sla.lu_factor(M, check_finite=False)
            rcond, _ = sla.lapack.dgecon(lu[0], np.linalg.norm(M, 1), norm="1")
            if not rcond > _SINGULAR:  # also NaN
                raise np.linalg.LinAlgError
            sol = sla.lu_solve(lu, rhs, check_finite=False)
            if not np.isfinite(sol).all():
                raise np.linalg.LinAlgError

            def solve(r: np.ndarray) -> np.ndarray:
                return sla.lu_solve(lu, r, check_finite=False)
        except (np.linalg.LinAlgError, sla.LinAlgWarning, ValueError):
            sol = _basic_solver(M, rhs, x0)

            def solve(r: np.ndarray) -> np.ndarray:
                return _basic_solver(M, r, np.zeros_like(r))

    if not np.isfinite(sol).all():
        return None
    # refinement from the true residual: f_F = K_F,(F u B) c + b computed from the data
    cc = c.copy()
    cc[F] = sol[:m]
    b = float(sol[m]) if free else 0.0
    cols = np.concatenate([F, B])
    res = y[F] - op.matvec(cc, rows=F, cols=cols)[0] - b
    if free:
        res = np.append(res, -float(cc[cols].sum()))
    step = solve(res)
    if np.isfinite(step).all():
        sol = sol + step
    return sol[:m], (float(sol[m]) if free else 0.0)


def polish_kernel(
    problem: KernelProblem,
    alpha: np.ndarray,
    q: np.ndarray,
    b: float,
    atol: np.ndarray | float = 0.0,
    rounds: int = 10,
) -> tuple[np.ndarray, float] | None:
    """Polish a dual point (``q = K (alpha * y)``): its active set solved exactly, corrected.

    ``alpha_i <= atol_i`` counts as 0, ``>= C_i - atol_i`` as ``C_i``; None past
    :data:`MAX_FREE` free points or when the corrections do not settle.
    """
    y = problem.data.y
    C = problem.costs
    n = problem.n
    at0 = alpha <= atol
    atC = (alpha >= C - atol) & ~at0
    state = np.zeros(n, dtype=np.int8)  # 0: Z, 1: F, 2: B
    state[~at0 & ~atC] = 1
    state[atC] = 2
    state[C <= 0] = 0  # an example of cost 0 is at both bounds: never free
    c_old = alpha * y
    q = q.copy()
    for _ in range(rounds):
        F = np.flatnonzero(state == 1)
        B = np.flatnonzero(state == 2)
        if F.size > MAX_FREE:
            return None
        c = np.zeros(n)
        c[B] = y[B] * C[B]
        if F.size:
            out = _solve_reduced(problem, F, B, c, np.append(c_old[F], b))
            if out is None:
                return None
            c[F], b = out
        dc = c - c_old
        if dc.any():
            q = q + problem.gram.matvec(dc)[0]
        c_old = c
        if not F.size:
            b_ = _interval_intercept(problem, q, state)
            if b_ is None:
                return None
            b = b_
        a = y * c
        r = y * (q + b)
        to_zero = (state == 1) & (a < 0)
        to_bound = (state == 1) & (a > C)
        from_zero = (state == 0) & (r < 1 - _MOVE_TOL) & (C > 0)
        from_bound = (state == 2) & (r > 1 + _MOVE_TOL)
        moves = int(to_zero.sum() + to_bound.sum() + from_zero.sum() + from_bound.sum())
        if moves == 0:
            return np.clip(a, 0.0, C), b
        state[to_zero] = 0
        state[to_bound] = 2
        state[from_zero | from_bound] = 1
    return None


def _interval_intercept(problem: KernelProblem, q: np.ndarray, state: np.ndarray) -> float | None:
    """``b`` without free points: the middle of the interval every point's side allows (or None)."""
    if problem.intercept != "free":
        return 0.0
    y = problem.data.y
    return interval_intercept(y, y - q, (state == 0) & (problem.costs > 0), state == 2)
