"""Compiled (numba) numerics of the exact path's generic breakpoints: imported on first use.

The elbow's factorisation ``R^T R = A_E A_E^T`` and its updates, a segment's slopes and
values, a breakpoint's certificate (``docs/path.md``). Arguments come in tuples:
``data = (G, Gp, Gi, Gx, y, c, share)`` (dense rows, or CSR with ``ist[SPARSE]``),
``state = (st, pos, E, aE, ad, R, r, rd, ue, w, wd, gL, v, near, h, gLf)``,
``rec`` as ``tracer._Recorder``'s arrays, scalars in ``fs`` (float) and ``ist`` (int).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .geometry import CERT_COLUMNS as CERT_COLS

#: Compiled once, cached on disk; IEEE division (x / 0 is inf or nan, as in numpy).
_jit = njit(cache=True, error_model="numpy")
#: The loops over the rows: sums reassociated (vectorised, 3x faster; the rounding bounds
#: below hold in any order).
_fm = njit(cache=True, error_model="numpy", fastmath={"reassoc", "contract"})
#: Row products, inlined where they are called (a call passes four arrays, and their
#: reference counts cost more than a row of 20 products).
_row = njit(inline="always", error_model="numpy")

_U = 2.0**-53
_EPS = 2.0**-52
_INF = math.inf
#: Constraints violated by more than this at a segment's start: the sets are wrong.
TIE_TOL = 1e-9
#: A new elbow row whose squared distance to the elbow's span is below this fraction of
#: its squared norm makes the elbow (numerically) dependent: not a generic breakpoint.
PIVOT = 1e-10

# float state ``fs``
(C, B, BD, YL, CL, ER, EG, REF, CMAX, TOL, REANCHOR) = range(11)
(USTAR, DRIFT, NOISE, TIE, WDN, RDMAX, RMAX, RCOND) = range(11, 19)
(LAM, HFAR, FCL, FYL, FAMAX) = range(19, 24)  # the far rows (see _loop)
NF = 24
# int state ``ist``
(M, SINCE, EVERY, FREE, SPARSE, EV_J, EV_TO, NHITS, INVALID) = range(9)
(NSEG, NBP, NE, STEPS, AP_J, AP_FROM, NL, NN, KNEAR, WIN, FULLS) = range(9, 20)
NI = 20
#: A certificate row: values, floors (NaN where a test does not apply), ok, undecided.
NC = len(CERT_COLS)


@_jit
def _gamma(k: int) -> float:
    ku = k * _U
    return ku / (1.0 - ku)


@_row
def _dot(G, Gp, Gi, Gx, sparse, i, v):
    acc = 0.0
    if sparse:
        for p in range(Gp[i], Gp[i + 1]):
            acc += Gx[p] * v[Gi[p]]
    else:
        for k in range(G.shape[1]):
            acc += G[i, k] * v[k]
    return acc


@_row
def _axpy(G, Gp, Gi, Gx, sparse, i, a, out):
    if sparse:
        for p in range(Gp[i], Gp[i + 1]):
            out[Gi[p]] += a * Gx[p]
    else:
        for k in range(G.shape[1]):
            out[k] += a * G[i, k]


@_jit
def _norm(v):
    s = 0.0
    for k in range(v.shape[0]):
        s += v[k] * v[k]
    return math.sqrt(s)


@_fm
def _combine(data, sparse, E, m, a, base, scale, out):
    """``out = scale base + sum_l a_l g_{E_l}``."""
    G, Gp, Gi, Gx = data[0], data[1], data[2], data[3]
    for k in range(out.shape[0]):
        out[k] = scale * base[k]
    for l in range(m):
        _axpy(G, Gp, Gi, Gx, sparse, E[l], a[l], out)


@_fm
def margins(data, sparse, w, b, out):
    """``out = G w + y b``: the margins from the data."""
    G, Gp, Gi, Gx, y = data[0], data[1], data[2], data[3], data[4]
    for i in range(y.shape[0]):
        out[i] = _dot(G, Gp, Gi, Gx, sparse, i, w) + y[i] * b


@_fm
def _gram_col(data, sparse, free, E, m, j, tmp, kvec):
    """``kvec[l] = a_{E_l} . a_j`` for the first m slots; returns ``a_j . a_j``."""
    G, Gp, Gi, Gx, y = data[0], data[1], data[2], data[3], data[4]
    for k in range(tmp.shape[0]):
        tmp[k] = 0.0
    _axpy(G, Gp, Gi, Gx, sparse, j, 1.0, tmp)
    for l in range(m):
        kvec[l] = _dot(G, Gp, Gi, Gx, sparse, E[l], tmp) + (y[E[l]] * y[j] if free else 0.0)
    return _norm(tmp) ** 2 + (1.0 if free else 0.0)


@_jit
def _pivot(R, m, kvec, kjj, rho):
    """Solve ``R^T rho = kvec``; returns the new pivot's square."""
    d2 = kjj
    for l in range(m):
        s = kvec[l]
        for q in range(l):
            s -= R[q, l] * rho[q]
        rho[l] = s / R[l, l]
        d2 -= rho[l] * rho[l]
    return d2


@_jit
def _append(R, m, rho, d2):
    for l in range(m):
        R[l, m] = rho[l]
        R[m, l] = 0.0
    R[m, m] = math.sqrt(d2)


@_jit
def _delete(R, m, k):
    """Remove slot k from ``R^T R``: column k out, Givens rotations back to triangular."""
    for col in range(k, m - 1):
        for row in range(m):
            R[row, col] = R[row, col + 1]
    for l in range(k, m - 1):
        a, b = R[l, l], R[l + 1, l]
        rr = math.hypot(a, b)
        cs, sn = (a / rr, b / rr) if rr > 0 else (1.0, 0.0)
        for col in range(l, m - 1):
            t1, t2 = R[l, col], R[l + 1, col]
            R[l, col] = cs * t1 + sn * t2
            R[l + 1, col] = -sn * t1 + cs * t2
    for l in range(m):
        R[m - 1, l] = 0.0
        R[l, m - 1] = 0.0


@_jit
def _solve(R, m, rhs, out):
    """``R^T R out = rhs`` (forward, then back substitution)."""
    for l in range(m):
        s = rhs[l]
        for q in range(l):
            s -= R[q, l] * out[q]
        out[l] = s / R[l, l]
    for l in range(m - 1, -1, -1):
        s = out[l]
        for q in range(l + 1, m):
            s -= R[l, q] * out[q]
        out[l] = s / R[l, l]


@_jit
def _factor(data, sparse, free, E, m, R, dz):
    """Factorise the elbow from the data, slot by slot; False if it is dependent."""
    tmp, kvec, rho = np.empty(dz), np.empty(m), np.empty(m)
    for k in range(m):
        kjj = _gram_col(data, sparse, free, E, k, E[k], tmp, kvec)
        d2 = _pivot(R, k, kvec, kjj, rho)
        if not d2 > PIVOT * kjj:
            return False
        _append(R, k, rho, d2)
    return True


@_jit
def _rcond(R, m):
    """A cheap estimate of the reciprocal condition of ``R^T R``: (min/max pivot)^2."""
    lo, hi = _INF, 0.0
    for l in range(m):
        lo = min(lo, abs(R[l, l]))
        hi = max(hi, abs(R[l, l]))
    return (lo / hi) ** 2 if m else 1.0


@_jit
def _bordered(R, m, y, E, free, rhs, t, out):
    """Solve ``K a + y_E b = rhs, y_E'a = t`` (free) or ``K a = rhs``; returns b."""
    _solve(R, m, rhs, out)
    if not free or m == 0:
        return 0.0
    yE, q = np.empty(m), np.empty(m)
    for l in range(m):
        yE[l] = y[E[l]]
    _solve(R, m, yE, q)
    yp = yq = 0.0
    for l in range(m):
        yp += yE[l] * out[l]
        yq += yE[l] * q[l]
    b = t + (yp - t) / yq
    for l in range(m):
        out[l] -= q[l] * (b - t)
    return b


@_fm
def _left_sums(data, st, gL, fs, ist):
    """``g_L``, ``y_L = sum c y`` and ``sum c`` over the left set, from the data."""
    G, Gp, Gi, Gx, y, c = data[0], data[1], data[2], data[3], data[4], data[5]
    sparse = ist[SPARSE]
    for k in range(gL.shape[0]):
        gL[k] = 0.0
    yl = cl = 0.0
    for i in range(y.shape[0]):
        if st[i] == 2:
            _axpy(G, Gp, Gi, Gx, sparse, i, c[i], gL)
            yl += c[i] * y[i]
            cl += c[i]
    fs[YL], fs[CL] = yl, cl
    fs[EG] = _gamma(y.shape[0] + 2) * cl  # rows of norm <= 1
    nl = 0
    for i in range(y.shape[0]):
        nl += st[i] == 2
    ist[NL] = nl


@_jit
def _slopes(data, state, fs, ist):
    """Slopes in C of the sets' solution: ``alpha_E`` (ad), ``b`` and ``w~`` (wd).

    ``K a + y_E b = -G_E g_L``, ``y_E'a = -y_L``, ``w~' = g_L + G_E^T a``.
    """
    G, Gp, Gi, Gx, y = data[0], data[1], data[2], data[3], data[4]
    E, ad, R, wd, gL = state[2], state[4], state[5], state[10], state[11]
    m, sparse = ist[M], ist[SPARSE]
    s = np.empty(m)
    for l in range(m):
        s[l] = -_dot(G, Gp, Gi, Gx, sparse, E[l], gL)
    fs[BD] = _bordered(R, m, y, E, ist[FREE], s, -fs[YL], ad)
    _combine(data, sparse, E, m, ad, gL, 1.0, wd)
    t1 = fs[CL]  # w~' sums terms of norm <= c_i (L) and |a_l| (E): its rounding level
    for l in range(m):
        t1 += abs(ad[l])
    fs[WDN] = _norm(wd) + abs(fs[BD])
    fs[NOISE] = 16 * _EPS * (fs[WDN] + t1)
    fs[RCOND] = _rcond(R, m)


@_jit
def _correct(data, state, fs, ist, s, ty, a, target):
    """Solve the elbow system for the residuals, add the correction to ``a`` and ``target``.

    Returns (the intercept's correction, how far w~ moved).
    """
    E, R, m = state[2], state[5], ist[M]
    delta = np.empty(m)
    db = _bordered(R, m, data[4], E, ist[FREE], s, -ty, delta)
    moved = np.zeros(target.shape[0])
    for l in range(m):
        a[l] += delta[l]
    _combine(data, ist[SPARSE], E, m, delta, moved, 0.0, moved)
    for k in range(target.shape[0]):
        target[k] += moved[k]
    return db, _norm(moved)


@_jit
def _refine_slopes(data, state, fs, ist):
    """One step of iterative refinement of the slopes (the elbow's margin slopes to 0)."""
    y, E, ad, rd, wd, m = data[4], state[2], state[4], state[7], state[10], ist[M]
    s = np.empty(m)
    ty = fs[YL]
    for l in range(m):
        s[l] = -rd[E[l]]
        ty += ad[l] * y[E[l]]
    db, _ = _correct(data, state, fs, ist, s, ty, ad, wd)
    fs[BD] += db


@_fm
def _refine_values(data, state, fs, ist):
    """One step of iterative refinement of the values (the elbow's margins to 1); the move."""
    G, Gp, Gi, Gx, y = data[0], data[1], data[2], data[3], data[4]
    E, aE, w, m, sparse = state[2], state[3], state[9], ist[M], ist[SPARSE]
    s = np.empty(m)
    ty = fs[C] * fs[YL]
    for l in range(m):
        s[l] = 1.0 - (_dot(G, Gp, Gi, Gx, sparse, E[l], w) + y[E[l]] * fs[B])
        ty += aE[l] * y[E[l]]
    db, moved = _correct(data, state, fs, ist, s, ty, aE, w)
    fs[B] += db
    return moved + abs(db)


@_jit
def _certificate(y, c, state, fs, ist, sums, out):
    """The breakpoint's certificate (``certify``'s tests on the carried margins) into ``out``.

    Floors as certify's, the carried margins' rounding included; returns the largest
    residual.
    """
    E, aE, w, v = state[2], state[3], state[9], state[12]
    m = ist[M]
    Cc, b = fs[C], fs[B]
    dz, n = w.shape[0], y.shape[0]
    S, eS, amax = sums[0], sums[1], sums[2]
    asum, ay, box = Cc * fs[CL], Cc * fs[YL], 0.0
    for l in range(m):
        a = aE[l]
        asum += abs(a)
        ay += a * y[E[l]]
        box = max(box, max(-a, a - Cc * c[E[l]]) / (Cc * c[E[l]]))
    nw, nv = _norm(w), _norm(v)
    dmax = 0.0
    for k in range(dz):
        dmax = max(dmax, abs(w[k] - v[k]))
    H = 0.5 * nw * nw
    P = H + Cc * S
    D = asum - 0.5 * nv * nv
    gap = P - D
    # rounding: v from alpha (rows of norm <= 1) and the carried g_L; P from the margins
    ev = _gamma(m + 2) * asum + Cc * fs[EG]
    eP = _gamma(dz + 4) * H + Cc * (_gamma(n + 2) * S + eS) + _U * P
    eD = _gamma(n + 1) * asum + nv * ev + 0.5 * ev * ev + _gamma(dz + 4) * nv * nv + _U * abs(D)
    rel = gap / P
    out[0], out[1], out[2], out[3] = P, D, gap, rel
    out[9] = (abs(gap) + eP + eD + _U * abs(gap)) / (P - eP) - abs(rel) if P > eP else _INF
    out[4] = dmax / math.sqrt(2.0 * P)
    out[10] = (dmax * (1 + _U) + ev) / math.sqrt(2.0 * (P - eP)) - out[4] if P > eP else _INF
    if ist[FREE]:
        bw = max(1.0, abs(b))
        out[5] = abs(ay) / asum * bw if asum > 0 else 0.0
        out[11] = _gamma(n + 2) * (bw + out[5]) + Cc * fs[EG] / max(asum, 1e-300) * bw
    else:
        out[5] = out[11] = math.nan
    out[6] = max(0.0, box)
    out[12] = 2 * _U * (out[6] + 1.0)
    out[7] = sums[3] / amax if amax > 0 else 0.0
    out[13] = max(0.0, (sums[4] / amax if amax > 0 else 0.0) * (1 + 4 * _U) - out[7])
    out[8] = sums[5]
    out[14] = max(0.0, sums[6] * (1 + 4 * _U) - sums[5])
    return _verdict(out, fs[TOL])


@_jit
def _verdict(out, tol):
    """``out[15]`` ok, ``out[16]`` undecided (as certify's); returns the largest residual."""
    failed = undecided = False
    worst = 0.0
    for k in range(3, 9):
        val, fl = abs(out[k]), out[k + 6]
        if math.isnan(val):
            continue
        worst = max(worst, val)
        if not (math.isfinite(val) and math.isfinite(fl)):
            undecided = True
        elif val - fl > tol:
            failed = True
        elif val + fl > tol:
            undecided = True
    out[15] = 1.0 if not (failed or undecided) else 0.0
    out[16] = 1.0 if (undecided and not failed) else 0.0
    return worst if math.isfinite(worst) else _INF
