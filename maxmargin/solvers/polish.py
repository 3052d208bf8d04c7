"""The active-set polish: the reduced KKT system solved exactly, then re-certified.

The squared hinge: no bound SVs, and ``D_SS = diag(1 / (2 C_i))`` added to ``G G^T``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..certificate import Certificate, certify, margins
from ..problem import SVMProblem
from .qp import dual_diagonal, interval_intercept, weights_from_alpha

#: Largest m d' for which the polish densifies the margin SVs' sparse rows (32 MB); MINRES
#: above it.
DENSE_POLISH_SIZE = 4_000_000


def reduced_kkt(
    problem: SVMProblem,
    YZ: Any,
    M: np.ndarray,
    B: np.ndarray,
    max_margin_svs: int,
    start: tuple[np.ndarray, float] | None = None,
) -> tuple[np.ndarray, float | None, np.ndarray | None] | None:
    """Solve the KKT system with the active set fixed: ``(alpha, b, w~)``, None without margin SVs.

    ``[G G^T, y_M; y_M^T, 0] [alpha_M; b] = [1 - G w_B; -sum_B C_i y_i]``, ``G = (YZ)_M``:
    dense up to ``max_margin_svs``, else MINRES. ``w~`` is refined itself (afresh, ``(YZ)^T
    alpha`` would carry cancellation: 1e-9 on wine's margins against 1e-15).
    """
    n = problem.n
    m = M.size
    if m == 0:
        return None
    y = problem.data.y
    Z = problem.Z if YZ is None else YZ
    dz = Z.shape[1]
    free = problem.intercept == "free"
    if m > max_margin_svs or (sp.issparse(Z) and m * dz > DENSE_POLISH_SIZE):
        return _reduced_kkt_minres(problem, Z, YZ is None, M, B, start)
    G = _dense_rows(problem, Z, YZ is None, M)
    alpha = np.zeros(n)
    if B.size:
        alpha[B] = problem.costs[B]
    signs = y if YZ is None else 1.0
    wB = np.asarray((alpha * signs) @ Z).ravel()  # one product, no copy of the rows of B
    K = G @ G.T
    dM = dual_diagonal(problem)[M]  # 0 for the hinge
    K[np.diag_indices_from(K)] += dM
    rhs = 1.0 - G @ wB
    if free:
        yM = y[M]
        K = np.block([[K, yM[:, None]], [yM[None, :], np.zeros((1, 1))]])
        rhs = np.concatenate([rhs, [-_bound_balance(problem, B)]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", sla.LinAlgWarning)
        try:
            lu = sla.lu_factor(K, check_finite=False)
            sol = sla.lu_solve(lu, rhs, check_finite=False)
            if not np.isfinite(sol).all():
                raise np.linalg.LinAlgError

            def solve_K(r: np.ndarray) -> np.ndarray:
                return sla.lu_solve(lu, r, check_finite=False)
        except (np.linalg.LinAlgError, sla.LinAlgWarning):
            # Degenerate active set (duplicates, more margin SVs than d'+1): min-norm.
            def solve_K(r: np.ndarray) -> np.ndarray:
                return np.linalg.lstsq(K, r, rcond=None)[0]

            sol = solve_K(rhs)
    alpha[M] = sol[:m]
    b = float(sol[m]) if free else None
    # Refinement on the margin conditions, applied to w~ itself: each step gains ~cond(G)^2 u
    # (cond 3e6: the first solve is off by 1e-3, the third by 1e-15); on while they gain.
    wt = np.asarray((alpha * signs) @ Z).ravel()
    best = (np.inf, alpha[M].copy(), b, wt)
    for _ in range(8):
        res = 1.0 - G @ wt - dM * alpha[M]
        if free:
            res = np.concatenate([res - yM * b, [-float(y @ alpha)]])
        # progress in margin units (the equality's row is in alpha's, and at rounding)
        size = float(np.max(np.abs(res[:m]), initial=0.0))
        if not size < best[0]:
            break  # the last step made it worse: undo it
        best = (size, alpha[M].copy(), b, wt)
        step = solve_K(res)
        if not (np.isfinite(step).all() and size > 0):
            break
        alpha[M] += step[:m]
        wt = wt + G.T @ step[:m]
        if b is not None:
            b += float(step[m])
    _, alpha[M], b, wt = best
    return alpha, b, wt


#: Largest d' for which the squared hinge's polish solves its primal system (_squared_kkt).
SQUARED_PRIMAL_D = 2000


def _squared_kkt(
    problem: SVMProblem, Z: Any, signed: bool, S: np.ndarray
) -> tuple[np.ndarray, float | None, np.ndarray | None]:
    """The squared hinge's KKT system on its support set S in ``(w~, b)``: SPD, (d'+1) square."""
    y = problem.data.y
    G = _dense_rows(problem, Z, signed, S)
    c = 2.0 * problem.costs[S]
    yS = y[S]
    free = problem.intercept == "free"
    dz = G.shape[1]
    A = G.T @ (G * c[:, None])
    A[np.diag_indices(dz)] += 1.0
    rhs = G.T @ c
    if free:
        gy = G.T @ (c * yS)
        A = np.block([[A, gy[:, None]], [gy[None, :], np.array([[c.sum()]])]])
        rhs = np.append(rhs, float(c @ yS))
    try:
        fac = sla.cho_factor(A, check_finite=False)

        def solve_A(r: np.ndarray) -> np.ndarray:
            return sla.cho_solve(fac, r, check_finite=False)
    except np.linalg.LinAlgError:  # pragma: no cover - SPD by construction

        def solve_A(r: np.ndarray) -> np.ndarray:
            return np.linalg.lstsq(A, r, rcond=None)[0]

    x = solve_A(rhs)
    for _ in range(2):  # iterative refinement: the products with G, not A, give r
        wt, b = x[:dz], (float(x[dz]) if free else 0.0)
        a = c * (1.0 - G @ wt - yS * b)
        res = np.concatenate([G.T @ a - wt, [float(yS @ a)] if free else []])
        x = x + solve_A(res)
    wt, b = x[:dz], (float(x[dz]) if free else 0.0)
    alpha = np.zeros(problem.n)
    alpha[S] = c * (1.0 - G @ wt - yS * b)
    return alpha, (b if free else None), wt


def _dense_rows(problem: SVMProblem, Z: Any, signed: bool, idx: np.ndarray) -> np.ndarray:
    """The rows ``idx`` of Z, dense, times ``y`` when ``signed``."""
    G = Z[idx]
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    return G * problem.data.y[idx, None] if signed else G


def _bound_balance(problem: SVMProblem, B: np.ndarray) -> float:
    """``sum_{i in B} C_i y_i``: the bound SVs' share of ``y^T alpha``."""
    if not B.size:
        return 0.0
    y = problem.data.y
    if problem.weights is None:
        return problem.C * y[B].sum()
    return float(problem.costs[B] @ y[B])


def _signed_sum(
    Z: Any, y: np.ndarray | None, B: np.ndarray, coef: np.ndarray | None = None
) -> np.ndarray:
    """``sum_{i in B} coef_i y_i z_i`` (``y`` None: rows already signed; ``coef`` None: 1)."""
    c = np.zeros(Z.shape[0])
    c[B] = 1.0 if y is None else y[B]
    if coef is not None:
        c[B] *= coef
    return np.asarray(c @ Z).ravel()


def _row_sq_norms(Z: Any, block: int = 16384) -> np.ndarray:
    """``||z_i||^2`` per row, a block of rows at a time (no full-size temporary)."""
    if not sp.issparse(Z):
        return np.einsum("ij,ij->i", Z, Z)
    out = np.empty(Z.shape[0])
    for lo in range(0, Z.shape[0], block):
        blk = Z[lo : lo + block]
        out[lo : lo + block] = np.asarray(blk.multiply(blk).sum(axis=1)).ravel()
    return out


#: Columns the MINRES preconditioner treats exactly (the densest among the margin SVs).
_HEAD_COLUMNS = 256


def _head_preconditioner(ZM: Any, sM: np.ndarray, diag: np.ndarray) -> Any:
    """``v -> P^{-1} v``, ``P = D + G_H G_H^T``: 256 densest columns exact, the rest diagonal."""
    m, dz = ZM.shape
    k = min(_HEAD_COLUMNS, dz)
    if not sp.issparse(ZM) or m < 4 * k:
        return lambda v: v / diag
    cnt = np.bincount(ZM.indices, minlength=dz)
    H = np.argpartition(-cnt, k - 1)[:k]
    GH = ZM[:, H].toarray() * sM[:, None]
    D = np.maximum(diag - np.einsum("ij,ij->i", GH, GH), 1e-3 * float(diag.mean()))
    GD = GH / D[:, None]
    fac = sla.cho_factor(np.eye(k) + GH.T @ GD, lower=True, check_finite=False)

    def apply(v: np.ndarray) -> np.ndarray:
        return v / D - GD @ sla.cho_solve(fac, GD.T @ v, check_finite=False)

    return apply


def _reduced_kkt_minres(
    problem: SVMProblem,
    Z: Any,
    signed: bool,
    M: np.ndarray,
    B: np.ndarray,
    start: tuple[np.ndarray, float] | None,
) -> tuple[np.ndarray, float | None, None]:
    """The reduced KKT system of :func:`reduced_kkt` by preconditioned MINRES, from ``start``."""
    from scipy.sparse.linalg import LinearOperator, minres

    n = problem.n
    m = M.size
    y = problem.data.y
    free = problem.intercept == "free"
    ZM = Z[M]
    sM = y[M] if signed else np.ones(m)
    yM = y[M]
    if not B.size:
        wB = np.zeros(Z.shape[1])
    elif problem.weights is None:
        wB = problem.C * _signed_sum(Z, y if signed else None, B)
    else:
        wB = _signed_sum(Z, y if signed else None, B, problem.costs[B])
    rhs = 1.0 - sM * np.asarray(ZM @ wB).ravel()
    dM = dual_diagonal(problem)[M]  # 0 for the hinge
    diag = _row_sq_norms(ZM) + dM
    scale = float(diag.mean()) if diag.size and diag.mean() > 0 else 1.0
    pre_M = _head_preconditioner(ZM, sM, np.where(diag > 0, diag, scale))
    k = m + 1 if free else m

    def pre(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v).ravel()
        return np.append(pre_M(v[:m]), v[m:] / scale)

    def matvec(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v).ravel()
        a = v[:m]
        u = np.asarray(ZMt @ (sM * a)).ravel()
        out = np.empty(k)
        out[:m] = sM * np.asarray(ZM @ u).ravel() + dM * a
        if free:
            out[:m] += yM * v[m]
            out[m] = yM @ a
        return out

    if free:
        rhs = np.concatenate([rhs, [-_bound_balance(problem, B)]])
    x0 = np.zeros(k)
    if start is not None:
        x0[:m] = start[0][M]
        if free:
            x0[m] = start[1]
    ZMt = ZM.T  # a view (CSC): transposing inside matvec re-validates the indices
    A = LinearOperator((k, k), matvec=matvec, dtype=float)
    Pinv = LinearOperator((k, k), matvec=pre, dtype=float)
    # A right active set converges in ~100-400 iterations (measured); a wrong one never:
    # the cap bounds the cost of a wrong guess.
    sol = minres(A, rhs, x0=x0, rtol=1e-15, maxiter=min(k + 10, 3000), M=Pinv)[0]
    # MINRES's recurrences drift late: one restart from the true residual gains the last digits
    res = rhs - matvec(sol)
    if np.max(np.abs(res)) > 1e-14 * max(1.0, float(np.max(np.abs(rhs)))):
        sol = sol + minres(A, res, rtol=1e-4, maxiter=min(k + 10, 200), M=Pinv)[0]
    alpha = np.zeros(n)
    if B.size:
        alpha[B] = problem.costs[B]
    alpha[M] = sol[:m]
    return alpha, (float(sol[m]) if free else None), None


#: The largest relative stretch :func:`stretched` makes (beyond it: not rounding level).
MAX_STRETCH = 1e-10


def stretch_needed(r: np.ndarray, e: np.ndarray) -> float:
    """The smallest ``delta >= 0`` with every ``(1 + delta)(r_i - e_i) >= 1 + 4 e_i`` (padded)."""
    if not r.size:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        need = np.where(r > e, (1.0 + 4.0 * e) / (r - e) - 1.0, np.inf)
    return max(0.0, float(need.max())) * (1.0 + 2.0**-10)


def stretched(
    problem: SVMProblem, w: np.ndarray, b: float, alpha: np.ndarray, cert: Certificate, tol: float
) -> tuple[np.ndarray, float, Certificate] | None:
    """``(1 + delta) (w, b)``, every margin near 1 above 1 by more than its rounding, if better.

    A polished margin is 1 to rounding either side: a hard margin just infeasible, a soft one
    paying ``C_i xi_i`` for rounding-level slacks (a relative gap of 1e-8 at C = 1e4).
    """
    if problem.squared:  # its support vectors are inside the margin by design
        return None
    r, e = margins(problem, w, b)
    near = r >= 1.0 - MAX_STRETCH
    if problem.hard and (not near.all() or bool(np.all(r >= 1.0 - e))):
        return None  # beyond a stretch, or feasible to rounding already (2.0 stays 2.0)
    delta = stretch_needed(r[near], e[near])
    if not 0.0 < delta <= MAX_STRETCH:
        return None
    if not problem.hard:
        # worth a certificate only when the slacks it removes outweigh its cost
        C = problem.costs
        gain = float(C[near] @ (np.maximum(0.0, 1.0 - r[near]) + e[near]))
        if gain <= 2.0 * delta * cert.primal_objective:
            return None
    w2, b2 = w * (1.0 + delta), b * (1.0 + delta)
    cert2 = certify(problem, w2, b2, alpha, tol=tol)
    if problem.hard:
        better = cert2.ok or not cert.ok
    else:
        better = cert2.accuracy() < cert.accuracy()
    return (w2, float(b2), cert2) if better else None


def _alpha_in_box(
    problem: SVMProblem, YZ: Any, M: np.ndarray, a: np.ndarray, wt: np.ndarray
) -> np.ndarray | None:
    """Multipliers in their box with the same ``w~`` (BVLS), where a singular system left it."""
    from scipy.optimize import lsq_linear

    Z = problem.Z if YZ is None else YZ
    if M.size == 0 or (sp.issparse(Z) and M.size * Z.shape[1] > DENSE_POLISH_SIZE):
        return None
    y = problem.data.y
    G = _dense_rows(problem, Z, YZ is None, M)
    rest = a.copy()
    rest[M] = 0.0  # alpha on B (at C) and 0 elsewhere
    signs = y if YZ is None else 1.0
    A, target = G.T, wt - np.asarray((rest * signs) @ Z).ravel()
    if problem.intercept == "free":
        # the equality's row in the units of the others (a column of G's size)
        unit = float(np.sqrt(np.mean(np.einsum("ij,ij->i", G, G)))) or 1.0
        A = np.vstack([A, unit * y[M][None, :]])
        target = np.append(target, -unit * float(y @ rest))
    hi = np.full(M.size, np.inf) if _no_box(problem) else problem.costs[M]
    try:
        fit = lsq_linear(A, target, bounds=(np.zeros(M.size), hi), method="bvls", tol=1e-15)
    except (ValueError, np.linalg.LinAlgError):  # pragma: no cover - a degenerate fit
        return None
    if not np.isfinite(fit.x).all():
        return None
    out = rest
    out[M] = np.clip(fit.x, 0.0, hi)
    return out


def _candidate(
    problem: SVMProblem,
    YZ: Any,
    out: tuple[np.ndarray, float | None, np.ndarray | None],
    tol: float,
    M: np.ndarray | None = None,
) -> tuple[np.ndarray, float, np.ndarray, Certificate]:
    """One reduced KKT solution ``out``, clipped, certified and maybe stretched (or refitted)."""
    a, bb, wt = out
    free = problem.intercept == "free"
    a_clip = np.clip(a, 0.0, np.inf if _no_box(problem) else problem.costs)
    if wt is not None and np.array_equal(a_clip, a):
        w, b_aug = problem.from_augmented(wt)
        b = float(bb or 0.0) if free else float(b_aug)
    else:
        w, b = weights_from_alpha(problem, YZ, a_clip, bb)
    cert = certify(problem, w, b, a_clip, tol=tol)
    if M is not None and not np.array_equal(a_clip, a):
        signs = problem.data.y if YZ is None else 1.0
        Z = problem.Z if YZ is None else YZ
        wt_a = wt if wt is not None else np.asarray((a * signs) @ Z).ravel()
        a_fit = _alpha_in_box(problem, YZ, M, a, wt_a)
        if a_fit is not None:
            w2, b_aug2 = problem.from_augmented(wt_a)
            b2 = float(bb or 0.0) if free else float(b_aug2)
            cert2 = certify(problem, w2, b2, a_fit, tol=tol)
            if cert2.max_residual() < cert.max_residual():
                w, b, a_clip, cert = w2, b2, a_fit, cert2
    st = stretched(problem, w, b, a_clip, cert, tol)
    if st is not None:
        w, b, cert = st
    return w, b, a_clip, cert


#: The index of coordinate descent's one guess in :func:`_active_set_guesses`.
_ALPHA_GUESS = 4


def _active_set_guesses(
    problem: SVMProblem, w: np.ndarray, b: float, alpha: np.ndarray, ascale: Any
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Active sets ``(M, B)`` to try, the most likely first: off the margins, then off ``alpha``."""
    C, hard = problem.costs, _no_box(problem)  # the squared hinge's S: y_i f_i < 1
    r0 = problem.data.y * problem.decision_function(w, b)
    guesses = []
    # an example of cost 0 is at both of its bounds (alpha_i = 0 = C_i): never in M or B
    pos = np.ones(problem.n, bool) if hard else C > 0
    none = np.zeros(problem.n, bool)
    for rtol in (1e-7, 1e-5, 1e-9, 1e-3):
        if hard:
            guesses.append((r0 <= 1.0 + rtol, none))
        else:
            guesses.append(((np.abs(r0 - 1.0) <= rtol) & pos, (r0 < 1.0 - rtol) & pos))
    for atol in (1e-8, 1e-6):
        a_t = atol * ascale
        if hard:
            guesses.append((alpha > a_t, none))
        else:
            guesses.append(((alpha > a_t) & (alpha < C - a_t), (alpha >= C - a_t) & pos))
    if not hard:
        # Zero against the free multipliers' own size, bound against each C_i: "small"
        # relative to C misses margin SVs far below C (zero rows of both labels at C = 1e8).
        inner = pos & (alpha < 0.5 * C)
        afree = float(alpha[inner].max(initial=0.0))
        if 0.0 < afree < 1e-3 * float(np.max(ascale, initial=0.0)):
            for atol in (1e-6, 1e-3):
                B = (alpha >= (1.0 - atol) * C) & pos
                guesses.append(((alpha > atol * afree) & (alpha < (1.0 - atol) * C), B))
            # (w, b) itself may be off by a factor (sv6 at C = 1e12: 20x): the margin SVs
            # are then the free examples of the smallest y_i f_i, not those at 1
            rest = pos & (alpha < (1.0 - 1e-6) * C)
            rmin = float(r0[rest].min(initial=np.inf))
            if 0.0 < rmin < np.inf:
                B = (alpha >= (1.0 - 1e-6) * C) & pos
                for rtol in (1e-3, 1e-2, 1e-1):
                    guesses.append((rest & (r0 <= rmin * (1.0 + rtol)), B))
    return [(np.flatnonzero(M), np.flatnonzero(B)) for M, B in guesses]


def _score(cert: Certificate) -> float:
    """:meth:`Certificate.max_residual`, or 0 when every test is within its rounding floor."""
    vals = {"relative_gap": abs(cert.relative_gap), **cert.kkt}
    if all(v <= cert.floors.get(k, 0.0) for k, v in vals.items()):
        return 0.0
    return cert.max_residual()


def polish(
    problem: SVMProblem,
    YZ: Any,
    w: np.ndarray,
    b: float,
    alpha: np.ndarray,
    base: Certificate,
    tol: float,
    *,
    from_alpha: bool = False,
) -> tuple[np.ndarray, float, np.ndarray, Certificate] | None:
    """Try a few active-set guesses; return the best certified point if it beats ``base``.

    ``from_alpha``: only the guess read off ``alpha`` (coordinate descent's).
    """
    y = problem.data.y
    hard = _no_box(problem)  # the squared hinge as the hard margin: no bound SVs
    max_m = 3000
    best = None
    # at rounding level (<= 1e-12) the polished point wins: its active set is exact
    best_score = max(_score(base), 1e-12)
    # alpha's own scale: max alpha, or C_i where smaller (never C alone: C >> max alpha)
    amax = float(alpha.max(initial=0.0))
    ascale = amax if hard else np.minimum(problem.costs, amax)
    guesses = _active_set_guesses(problem, w, b, alpha, ascale)
    if from_alpha:
        # Coordinate descent: one guess, small corrections (else the caller sweeps on).
        guesses = guesses[_ALPHA_GUESS : _ALPHA_GUESS + 1]
    seen = set()
    # MINRES solves cost up to thousands of products each: at most 3 (coordinate descent 8)
    iterative_left = 8 if from_alpha else 3
    dz = problem.d + (problem.intercept == "augmented")
    for M, B in guesses:
        start = (alpha, b)
        # a few active-set corrections (coordinate descent: the worst point at a time)
        for _ in range(8 if from_alpha else 4):
            key = (M.tobytes(), B.tobytes())
            if key in seen:
                break
            seen.add(key)
            direct = problem.squared and dz <= SQUARED_PRIMAL_D  # a (d'+1) system
            large = M.size > max_m or (problem.data.is_sparse and M.size * dz > DENSE_POLISH_SIZE)
            if large and not direct:
                if iterative_left == 0:
                    return best
                iterative_left -= 1
            if direct:
                Z = problem.Z if YZ is None else YZ
                out = _squared_kkt(problem, Z, YZ is None, M) if M.size else None
            else:
                out = reduced_kkt(problem, YZ, M, B, max_m, start)
            if out is None:
                break
            a, bb, _ = out
            hi = np.inf if hard else problem.costs
            w2, b2, a_clip, cert = _candidate(problem, YZ, out, tol, M)
            score = _score(cert)
            if score < best_score:
                best, best_score = (w2, b2, a_clip, cert), score
            if score <= 1e-11:  # 100x below the 1e-9 target: no other guess can matter
                return best
            # Move the points whose condition the guess broke, then retry.
            r = y * problem.decision_function(w2, b2)
            inM = np.zeros(problem.n, bool)
            inM[M] = True
            inB = np.zeros(problem.n, bool)
            inB[B] = True
            to_zero = inM & (a < -1e-12 * ascale)
            to_bound = inM & (a > hi + 1e-12 * ascale)
            rest_bad = ~inM & ~inB & (r < 1 - 1e-12)
            if not hard:
                rest_bad &= problem.costs > 0  # cost 0: alpha_i = 0 is its bound too
            bound_bad = inB & (r > 1 + 1e-12)
            moved = int(to_zero.sum() + to_bound.sum() + rest_bad.sum() + bound_bad.sum())
            if moved == 0 or (from_alpha and moved > max(10, M.size // 100)):
                break
            if from_alpha:
                # the single worst violation (alpha's in units of its scale, r's in margin
                # units); moving them all at once can cycle
                viol = np.zeros(problem.n)
                if hard:  # no upper bound: nothing moves to it
                    viol[to_zero] = -a[to_zero] / ascale
                else:
                    assert isinstance(ascale, np.ndarray) and isinstance(hi, np.ndarray)
                    viol[to_zero] = -a[to_zero] / ascale[to_zero]
                    viol[to_bound] = (a[to_bound] - hi[to_bound]) / ascale[to_bound]
                viol[rest_bad] = 1 - r[rest_bad]
                viol[bound_bad] = r[bound_bad] - 1
                keep = np.zeros(problem.n, bool)
                keep[int(np.argmax(viol))] = True
                to_zero, to_bound = to_zero & keep, to_bound & keep
                rest_bad, bound_bad = rest_bad & keep, bound_bad & keep
                start = (a_clip, bb if bb is not None else b)
            inM = (inM & ~to_zero & ~to_bound) | rest_bad | bound_bad
            inB = (inB & ~bound_bad) | to_bound
            M, B = np.flatnonzero(inM), np.flatnonzero(inB)
    return best


def _no_box(problem: SVMProblem) -> bool:
    """Whether alpha has no upper bound: the hard margin, and the squared hinge."""
    return problem.hard or problem.squared


def polish_no_margin(
    problem: SVMProblem, YZ: Any, alpha: np.ndarray, base: Certificate, tol: float
) -> tuple | None:
    """Without margin SVs: ``alpha`` rounded to {0, C_i}, ``b`` mid-interval; if better."""
    C = problem.costs
    y = problem.data.y
    a = np.where(alpha >= 0.5 * C, C, 0.0)
    if problem.intercept == "free" and abs(float(a @ y)) > 0.5 * float(C.max(initial=0.0)):
        return None
    w, b = weights_from_alpha(problem, YZ, a, 0.0)
    if problem.intercept == "free":
        f = np.asarray(problem.data.X @ w).ravel()
        # an example of cost 0 is at both bounds: it bounds nothing
        b_mid = interval_intercept(y, y - f, (a == 0) & (C > 0), a > 0)
        if b_mid is None:
            return None
        b = b_mid
    cert = certify(problem, w, b, a, tol=tol)
    if cert.max_residual() < base.max_residual():
        return w, float(b), a, cert
    return None
