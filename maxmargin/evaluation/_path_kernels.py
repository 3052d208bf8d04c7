"""Compiled (numba) loop of the exact path's generic breakpoints; imported on first use.

A *generic* breakpoint has one event and leaves a well-conditioned elbow system. ``run``
follows such breakpoints one after the other, each in ``O(n d' + m^2)``: one pass over
the data (move the margins to the breakpoint, compute the new margin slopes) and one
over the n-vectors (the breakpoint's certificate, every constraint's distance to its
event), and an update of the elbow's factorisation. Everything else goes back to
:mod:`maxmargin.evaluation.path_tracer`.

The elbow system is factorised as ``R^T R = A_E A_E^T`` (``A`` the rows ``(g_i, y_i)`` for
the free intercept, ``g_i`` otherwise; R upper triangular, in slot order), updated by a
column append (one triangular solve) or a column delete (Givens rotations), and rebuilt
from the data every ``ist[EVERY]`` breakpoints together with ``g_L`` and the margins
(the *refresh*; the drift found then is kept in ``fs[DRIFT]``). ``R^T R = K + y y^T``
with ``K = G_E G_E^T``, so the bordered system of the free intercept is solved through it:
``K a + y b = s, y'a = t`` gives ``a = p - q (b - t)``, ``p = (R^T R)^{-1} s``,
``q = (R^T R)^{-1} y``, ``b = t + (y'p - t) / y'q``.

Values are carried from breakpoint to breakpoint (``w += u w'``), never recomputed as
``G_E^T alpha_E + C g_L``: that sum cancels terms of size ``C`` (non-separable data at
large C, separable data near C*), the carried ``w`` does not. The margins are carried
likewise (``r += u r'``, ``r'`` from the data at every breakpoint) and recomputed from
the data at each refresh; ``fs[ER]`` bounds their rounding.

Arguments come in tuples: ``data = (G, Gp, Gi, Gx, y, c, share)`` (``G`` the dense
(n, d') rows in internal units, norm <= 1, or ``Gp, Gi, Gx`` their CSR arrays with
``ist[SPARSE]`` set; ``c`` the costs; ``share`` each group's largest member share),
``state = (st, pos, E, aE, ad, R, r, rd, ue, w, wd, gL, v)`` and
``rec = (seg_f, seg_w, seg_wd, seg_ep, e_idx, e_a, e_ad, bp_f, bp_ev, cert)`` (see
``path_tracer._Recorder``), and the scalars in ``fs`` (float) and ``ist`` (int).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

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
(C, B, BD, YL, CL, CL2, ER, EG, REF, CMAX, TOL, REANCHOR) = range(12)
(USTAR, DRIFT, NOISE, TIE, WDN, RDMAX, RMAX, RCOND) = range(12, 20)
NF = 20
# int state ``ist``
(M, SINCE, EVERY, FREE, SPARSE, EV_J, EV_TO, NHITS, INVALID) = range(9)
(NSEG, NBP, NE, STEPS, AP_J, AP_FROM, NL) = range(9, 16)
NI = 16
# statuses of run
(END, CMAX_, DEGEN, REDO, CADENCE, FULL, BUDGET, NOFAST) = range(1, 9)
# how run starts
CONTINUE, START, START_AT_BREAKPOINT = range(3)
#: A certificate row: values, floors (NaN where a test does not apply), ok, undecided.
CERT_COLS = (
    "primal",
    "dual",
    "gap",
    "relative_gap",
    "stationarity",
    "equality",
    "dual_feasibility",
    "complementary_alpha",
    "complementary_xi",
    "floor_relative_gap",
    "floor_stationarity",
    "floor_equality",
    "floor_dual_feasibility",
    "floor_complementary_alpha",
    "floor_complementary_xi",
    "ok",
    "undecided",
)
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


# --------------------------------------------------------------------------- factor


@_fm
def _gram_col(data, sparse, free, E, m, j, tmp, kvec):
    """``kvec[l] = a_{E_l} . a_j`` for the first m slots; returns ``a_j . a_j``."""
    G, Gp, Gi, Gx, y = data[0], data[1], data[2], data[3], data[4]
    tmp[:] = 0.0
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


# --------------------------------------------------------------------------- values


@_fm
def _left_sums(data, st, gL, fs, ist):
    """``g_L``, ``y_L = sum c y``, ``sum c``, ``sum c^2`` over the left set, from the data."""
    G, Gp, Gi, Gx, y, c = data[0], data[1], data[2], data[3], data[4], data[5]
    sparse = ist[SPARSE]
    gL[:] = 0.0
    yl = cl = cl2 = 0.0
    for i in range(y.shape[0]):
        if st[i] == 2:
            _axpy(G, Gp, Gi, Gx, sparse, i, c[i], gL)
            yl += c[i] * y[i]
            cl += c[i]
            cl2 += c[i] * c[i]
    fs[YL], fs[CL], fs[CL2] = yl, cl, cl2
    fs[EG] = _gamma(y.shape[0] + 2) * cl  # rows of norm <= 1
    nl = 0
    for i in range(y.shape[0]):
        nl += st[i] == 2
    ist[NL] = nl


@_jit
def _slopes(data, state, fs, ist):
    """Slopes in C of the sets' solution: ``alpha_E`` (ad), ``b`` and ``w~`` (wd).

    ``K a + y_E b = -G_E g_L``, ``y_E'a = -y_L``, ``w~' = g_L + G_E^T a``. Also the slopes'
    rounding level ``fs[NOISE]`` and the pivots' ``fs[RCOND]``.
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
def _refine(data, state, fs, ist, slopes):
    """One step of iterative refinement, of the slopes or (at a refresh) of the values.

    Slopes: the elbow's margin slopes back to 0, ``y'alpha'`` to ``-y_L``. Values: the
    elbow's margins from the data back to 1, ``y'alpha`` to 0. Returns how far the values
    moved (w and b, in margin units).
    """
    G, Gp, Gi, Gx, y = data[0], data[1], data[2], data[3], data[4]
    E, aE, ad, R, rd, w, wd = state[2], state[3], state[4], state[5], state[7], state[9], state[10]
    m, sparse = ist[M], ist[SPARSE]
    s, delta = np.empty(m), np.empty(m)
    ty = fs[YL] if slopes else fs[C] * fs[YL]
    a, target = (ad, wd) if slopes else (aE, w)
    for l in range(m):
        if slopes:
            s[l] = -rd[E[l]]
        else:
            s[l] = 1.0 - (_dot(G, Gp, Gi, Gx, sparse, E[l], w) + y[E[l]] * fs[B])
        ty += a[l] * y[E[l]]
    db = _bordered(R, m, y, E, ist[FREE], s, -ty, delta)
    moved = np.zeros(w.shape[0])
    for l in range(m):
        a[l] += delta[l]
        _axpy(G, Gp, Gi, Gx, sparse, E[l], delta[l], moved)
    for k in range(w.shape[0]):
        target[k] += moved[k]
    if slopes:
        fs[BD] += db
    else:
        fs[B] += db
    return _norm(moved) + abs(db)


# --------------------------------------------------------------------------- the pass


@_fm
def _pass(data, state, fs, ist, upd, fresh, sums):
    """One pass over the data at the breakpoint ``fs[C]``, then :func:`_sweep`.

    Moves the margins there (``r += upd r'``, or afresh from ``w, b`` when ``fresh``) and
    computes the new margin slopes ``r' = G w~' + y b'``. Two loops: the products alone
    vectorise, with the rest of the sweep in the same loop they do not (3x slower,
    measured). Memory traffic: G once, and a few n-vectors.
    """
    G, Gp, Gi, Gx, y = data[0], data[1], data[2], data[3], data[4]
    r, rd, w, wd = state[6], state[7], state[9], state[10]
    sparse = ist[SPARSE]
    b, bd = fs[B], fs[BD]
    drift = 0.0
    if fresh:
        for i in range(y.shape[0]):
            rf = _dot(G, Gp, Gi, Gx, sparse, i, w) + y[i] * b
            drift = max(drift, abs(rf - (r[i] + upd * rd[i])))
            r[i] = rf
            rd[i] = _dot(G, Gp, Gi, Gx, sparse, i, wd) + y[i] * bd
    elif sparse:
        for i in range(y.shape[0]):
            r[i] += upd * rd[i]
            rd[i] = _dot(G, Gp, Gi, Gx, sparse, i, wd) + y[i] * bd
    else:  # the same, with the branch out of the loop (vectorised)
        for i in range(y.shape[0]):
            r[i] += upd * rd[i]
            acc = 0.0
            for k in range(G.shape[1]):
                acc += G[i, k] * wd[k]
            rd[i] = acc + y[i] * bd
    sums[7] = drift
    _sweep(data[5], data[6], state[0], state[1], state[3], r, rd, fs, sums)


@_jit
def _sweep(c, share, st, pos, aE, r, rd, fs, sums):
    """The certificate's sums and the rows' distances to their events, from ``r, r'``.

    ``sums``: hinge sum, its rounding bound, the largest alpha share, the two
    complementarity values and their bounds, (7: the drift, by :func:`_pass`), max |r|,
    max |r'|, max |r'| on the elbow, the smallest distance, 1.0 when a constraint is
    violated at the start, the second smallest distance, the row of the smallest.
    """
    Cc, Er = fs[C], fs[ER]
    noise, tie = fs[NOISE], fs[TIE]
    S = eS = amax = ca = ca_hi = cx = cx_hi = rmax = rdmax = rdE = 0.0
    umin, u2, jmin, invalid = _INF, _INF, -1, 0.0
    bad = -max(TIE_TOL, tie)
    for i in range(r.shape[0]):
        ri, rdi, ci = r[i], rd[i], c[i]
        s = st[i]
        om = 1.0 - ri
        xi = om if om > 0.0 else 0.0
        exi = Er + _U * abs(om)
        S += ci * xi
        rmax = max(rmax, abs(ri))
        rdmax = max(rdmax, abs(rdi))
        if om > -exi:
            eS += ci * exi
        if s == 1:  # the elbow: alpha in the box, margin 1, slope 0; no row event
            a = aE[pos[i]]
            sa = a * share[i]
            amax = max(amax, sa)
            ex = -om if om < 0.0 else 0.0
            if om < exi:
                ca = max(ca, sa * ex)
                ca_hi = max(ca_hi, sa * (ex + exi))
            if om > -exi:
                fr = abs(Cc * ci - a) / (Cc * ci)
                cx = max(cx, fr * xi)
                cx_hi = max(cx_hi, fr * (xi + exi))
            rdE = max(rdE, abs(rdi))
            continue
        if s == 0:  # right: alpha = 0 (|C c - alpha| / C c = 1), margin >= 1
            if om > -exi:
                cx = max(cx, xi)
                cx_hi = max(cx_hi, xi + exi)
            h, sl = -om, rdi
        else:  # left: alpha = C c, margin <= 1
            sa = Cc * ci * share[i]
            amax = max(amax, sa)
            if om < exi:
                ex = -om if om < 0.0 else 0.0
                ca = max(ca, sa * ex)
                ca_hi = max(ca_hi, sa * (ex + exi))
            h, sl = om, -rdi
        if h < bad:
            invalid = 1.0
        if sl < -noise:
            u = h / -sl if h > tie else 0.0
            if u < u2:
                if u < umin:
                    u2, umin, jmin = umin, u, i
                else:
                    u2 = u
    sums[0], sums[1], sums[2], sums[3], sums[4] = S, eS, amax, ca, ca_hi
    sums[5], sums[6], sums[8], sums[9] = cx, cx_hi, rmax, rdmax
    sums[10], sums[11], sums[12], sums[13], sums[14] = rdE, umin, invalid, u2, jmin


@_jit
def _next_event(c, state, fs, ist, sums):
    """The next event from the sweep's two smallest row distances and the elbow's bounds.

    Sets ``fs[USTAR]``, ``ist[NHITS]`` (0, 1, or 2 for "several within the window"),
    ``ist[INVALID]`` and, for one, ``EV_J``, ``EV_TO``. The elbow's bounds
    ``0 <= alpha_i <= C c_i`` are ties within ``16 eps / rcond`` of ``C``; a slope below
    its rounding level is zero.
    """
    E, aE, ad = state[2], state[3], state[4]
    m, Cc = ist[M], fs[C]
    cs = max(Cc, fs[REF])
    kappa = 16 * _EPS / max(fs[RCOND], 1e-300)
    a1max = 0.0
    for l in range(m):
        a1max = max(a1max, abs(ad[l] / c[E[l]]))
    noise_a = kappa * (1.0 + a1max)
    tie_a = max(1e-12, kappa) * cs
    bad = -max(TIE_TOL, kappa) * cs
    u1, u2, j, to = sums[11], sums[13], int(sums[14]), 1
    invalid = sums[12] > 0
    for l in range(m):
        a0, a1 = aE[l] / c[E[l]], ad[l] / c[E[l]]
        for h, sl, dest in ((a0, a1, 0), (Cc - a0, 1.0 - a1, 2)):
            invalid = invalid or h < bad
            if sl < -noise_a:
                u = h / -sl if h > tie_a else 0.0
                if u < u2:
                    if u < u1:
                        u2, u1, j, to = u1, u, E[l], dest
                    else:
                        u2 = u
    fs[USTAR] = u1
    ist[INVALID] = 1 if invalid else 0
    ist[NHITS] = 0
    if u1 < _INF:
        win = u1 + (1e-11 * max(Cc + u1, fs[REF]) if u1 > 0 else 0.0)
        ist[NHITS] = 2 if u2 <= win else 1
        ist[EV_J], ist[EV_TO] = j, to


@_jit
def _segment_pass(data, state, fs, ist, sums, upd, fresh):
    """Slopes of the current sets, then the pass at ``fs[C]``, then the next event.

    When the elbow's own margin slopes come out above their rounding level, the slopes
    are refined (at most twice) and the pass repeated without moving the margins.
    """
    _slopes(data, state, fs, ist)
    fs[TIE] = max(1e-12, 2 * fs[ER])
    _pass(data, state, fs, ist, upd, fresh, sums)
    for _ in range(2):
        if sums[10] <= fs[NOISE]:
            break
        _refine(data, state, fs, ist, True)
        fs[WDN] = _norm(state[10]) + abs(fs[BD])
        _pass(data, state, fs, ist, 0.0, False, sums)
    fs[NOISE] = max(fs[NOISE], 2 * sums[10])
    fs[RDMAX], fs[RMAX] = sums[9], sums[8]
    _next_event(data[5], state, fs, ist, sums)


# --------------------------------------------------------------------------- certificate


@_jit
def _certificate(y, c, state, fs, ist, sums, out):
    """The breakpoint's certificate: the tests of ``maxmargin.certificate.certify``.

    On the carried margins (``sums`` of the sweep; their rounding bound ``fs[ER]``), ``w``,
    ``b`` and ``alpha`` (``alpha_E``, ``C c`` on L); ``v = G_E^T alpha_E + C g_L`` is
    ``state[12]``. Floors as certify's: a bound on each value's rounding, the carried
    margins' and ``g_L``'s included. ``out``: the CERT_COLS row. Returns the largest
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


@_jit
def _certify_here(data, state, fs, ist, sums, out):
    """``v``, then the certificate of the breakpoint at ``fs[C]``; False: not good enough."""
    E, aE, gL, v = state[2], state[3], state[11], state[12]
    _combine(data, ist[SPARSE], E, ist[M], aE, gL, fs[C], v)
    worst = _certificate(data[4], data[5], state, fs, ist, sums, out)
    return out[15] > 0 and worst <= fs[REANCHOR], worst


# --------------------------------------------------------------------------- the loop


@_jit
def _move(data, state, fs, ist, rho, d2):
    """Move to the pending breakpoint and apply its one event (factor, g_L, sets)."""
    G, Gp, Gi, Gx, y, c = data[0], data[1], data[2], data[3], data[4], data[5]
    st, pos, E, aE, ad, R, w, wd, gL = (
        state[0], state[1], state[2], state[3], state[4], state[5], state[9], state[10],
        state[11],
    )  # fmt: skip
    sparse = ist[SPARSE]
    u, m = fs[USTAR], ist[M]
    j, to = ist[EV_J], ist[EV_TO]
    frm = st[j]
    ist[AP_J], ist[AP_FROM] = j, frm
    # the carried margins' rounding: the slopes' own, the update's, w's and b's
    fs[ER] += u * (_gamma(w.shape[0] + 3) * fs[WDN] + 2 * _U * fs[RDMAX]) + _U * (
        fs[RMAX] + u * fs[RDMAX] + _norm(w) + abs(fs[B]) + u * fs[WDN]
    )
    fs[C] += u
    for k in range(w.shape[0]):
        w[k] += u * wd[k]
    fs[B] += u * fs[BD]
    for l in range(m):
        # a multiplier off its bound by rounding only (a few ulps of C c) is at the bound
        cap = fs[C] * c[E[l]]
        a = aE[l] + u * ad[l]
        aE[l] = 0.0 if abs(a) <= 8 * _EPS * cap else (cap if abs(a - cap) <= 8 * _EPS * cap else a)
    if to == 1:
        _append(R, m, rho, d2)
        E[m], pos[j] = j, m
        aE[m] = fs[C] * c[j] if frm == 2 else 0.0
        ist[M] = m + 1
    else:
        k = pos[j]
        _delete(R, m, k)
        for l in range(k, m - 1):
            E[l], aE[l], ad[l] = E[l + 1], aE[l + 1], ad[l + 1]
            pos[E[l]] = l
        pos[j] = -1
        ist[M] = m - 1
    sign = 1.0 if to == 2 else (-1.0 if frm == 2 else 0.0)
    if sign != 0.0:
        _axpy(G, Gp, Gi, Gx, sparse, j, sign * c[j], gL)
        fs[YL] += sign * c[j] * y[j]
        fs[CL] += sign * c[j]
        fs[CL2] += sign * c[j] * c[j]
        fs[EG] += 2 * _U * (_norm(gL) + c[j])
        ist[NL] += int(sign)
        if ist[NL] == 0:  # exactly: the hard-margin end has constant w
            gL[:] = 0.0
            fs[YL] = fs[CL] = fs[CL2] = fs[EG] = 0.0
    st[j] = to


@_jit
def _record_segment(state, fs, ist, rec):
    """Segment ``ist[NSEG]``: its lower end, ``w, w', b, b'`` there, its elbow."""
    E, aE, ad, w, wd = state[2], state[3], state[4], state[9], state[10]
    seg_f, seg_w, seg_wd, seg_ep, e_idx, e_a, e_ad = (
        rec[0],
        rec[1],
        rec[2],
        rec[3],
        rec[4],
        rec[5],
        rec[6],
    )
    k, m, ne = ist[NSEG], ist[M], ist[NE]
    seg_f[k, 0], seg_f[k, 1], seg_f[k, 2] = fs[C], fs[B], fs[BD]
    seg_w[k, :] = w
    seg_wd[k, :] = wd
    for l in range(m):
        e_idx[ne + l], e_a[ne + l], e_ad[ne + l] = E[l], aE[l], ad[l]
    seg_ep[k + 1] = ne + m
    ist[NSEG], ist[NE] = k + 1, ne + m


@_jit
def _record_breakpoint(fs, ist, rec, worst, j, frm, to):
    nb = ist[NBP]
    bp_f, bp_ev = rec[7], rec[8]
    bp_f[nb, 0], bp_f[nb, 1] = fs[C], worst
    bp_ev[nb, 0], bp_ev[nb, 1], bp_ev[nb, 2] = j, frm, to
    ist[NBP] = nb + 1


@_jit
def _refresh(data, state, fs, ist):
    """g_L and the factor from the data, then the values refined: (ok, how far they moved).

    Not ok: the elbow is dependent after all.
    """
    sparse, m = ist[SPARSE], ist[M]
    _left_sums(data, state[0], state[11], fs, ist)
    if not _factor(data, sparse, ist[FREE], state[2], m, state[5], state[9].shape[0]):
        return False, 0.0
    return True, _refine(data, state, fs, ist, False)


@_jit
def _start(data, state, fs, ist, rec, sums, how):
    """Enter from sets and values set by the caller; False: not for the compiled loop.

    Builds g_L and the factor from the data, then the segment's pass; with
    ``how == START_AT_BREAKPOINT`` certifies ``fs[C]`` as a breakpoint (its event is
    recorded by the caller) and records it.
    """
    w = state[9]
    _left_sums(data, state[0], state[11], fs, ist)
    if not _factor(data, ist[SPARSE], ist[FREE], state[2], ist[M], state[5], w.shape[0]):
        return False
    fs[ER] = _gamma(w.shape[0] + 3) * (_norm(w) + abs(fs[B]))
    _segment_pass(data, state, fs, ist, sums, 0.0, True)
    if ist[INVALID]:
        return False
    if how == START_AT_BREAKPOINT:
        good, worst = _certify_here(data, state, fs, ist, sums, rec[9][ist[NBP]])
        if not good:
            return False
        _record_breakpoint(fs, ist, rec, worst, -1, -1, -1)
    ist[SINCE] = 0
    _record_segment(state, fs, ist, rec)
    return True


@_jit
def _blocked(data, state, fs, ist, rec, spent, tmp, kvec, rho):
    """``(0, pivot)``: the pending event is generic and the buffers have room.

    Else ``(status, 0)`` with the status ``run`` returns. ``rho``: the new factor column.
    """
    E, R = state[2], state[5]
    if ist[NHITS] == 0:
        return END, 0.0
    if fs[C] + fs[USTAR] >= fs[CMAX]:
        return CMAX_, 0.0
    if ist[NHITS] > 1 or fs[USTAR] == 0.0 or ist[INVALID]:
        return DEGEN, 0.0
    if spent:
        return BUDGET, 0.0
    k, m = ist[NSEG], ist[M]
    if k + 1 >= rec[0].shape[0] or ist[NBP] >= rec[7].shape[0] or ist[NE] + m + 1 > rec[4].shape[0]:
        return FULL, 0.0
    if ist[EV_TO] != 1:
        # an empty elbow of the free intercept: b is not unique
        return (DEGEN, 0.0) if ist[FREE] and m == 1 else (0, 0.0)
    if m >= R.shape[0]:
        return DEGEN, 0.0
    kjj = _gram_col(data, ist[SPARSE], ist[FREE], E, m, ist[EV_J], tmp, kvec)
    d2 = _pivot(R, m, kvec, kjj, rho)
    return (0, d2) if d2 > PIVOT * kjj else (DEGEN, 0.0)  # DEGEN: a dependent elbow


@_jit
def run(data, state, fs, ist, rec, how, budget):
    """Follow generic breakpoints; returns a status (END, CMAX_, DEGEN, ... above).

    ``how``: CONTINUE, or START / START_AT_BREAKPOINT when the caller just set the sets and
    values (``st, pos, E, aE, w, fs[C], fs[B]``): see :func:`_start`. Each generic
    breakpoint records ``bp_f = (C, largest residual)``, ``bp_ev = (group, from, to)``,
    its certificate row and the segment after it. Returns before recording when the next
    breakpoint is not generic (DEGEN: the state is the current segment's start, the
    event not applied), when the breakpoint just reached fails its certificate or leaves
    violated sets (REDO: the event ``AP_J, AP_FROM`` is applied, nothing recorded), after
    a refresh (CADENCE), when the buffers are full (FULL), after ``budget`` breakpoints
    (BUDGET), and NOFAST when a start is not for the compiled loop.
    """
    sums = np.empty(15)
    if how != CONTINUE and not _start(data, state, fs, ist, rec, sums, how):
        return NOFAST
    st = state[0]
    mmax = state[5].shape[0]
    tmp, kvec, rho = np.empty(state[9].shape[0]), np.empty(mmax), np.empty(mmax)
    done = 0
    while True:
        status, d2 = _blocked(data, state, fs, ist, rec, done >= budget, tmp, kvec, rho)
        if status:
            return status
        upd = fs[USTAR]
        _move(data, state, fs, ist, rho, d2)
        done += 1
        ist[STEPS] += 1
        ist[SINCE] += 1
        fresh = ist[SINCE] >= ist[EVERY]
        er_carried = moved = 0.0
        if fresh:
            ok, moved = _refresh(data, state, fs, ist)
            if not ok:
                return REDO
            er_carried = fs[ER]
            fs[ER] = _gamma(state[9].shape[0] + 3) * (_norm(state[9]) + abs(fs[B]))
        _segment_pass(data, state, fs, ist, sums, upd, fresh)
        if fresh:
            # the fresh margins against the carried ones: within the carried bound, the
            # refresh's own rounding and what the refinement moved
            fs[DRIFT] = max(fs[DRIFT], sums[7] / (er_carried + fs[ER] + moved))
            ist[SINCE] = 0
        if ist[INVALID]:
            return REDO  # the event's sets are violated at once: settle it afresh
        good, worst = _certify_here(data, state, fs, ist, sums, rec[9][ist[NBP]])
        if not good:
            return REDO
        _record_breakpoint(fs, ist, rec, worst, ist[AP_J], ist[AP_FROM], st[ist[AP_J]])
        _record_segment(state, fs, ist, rec)
        if fresh:
            return CADENCE
