"""Compiled (numba) loop of the exact path's generic breakpoints; imported on first use.

``run`` follows breakpoints with one event and a well-conditioned elbow, each in
``O(n d' + m^2)``: values carried (never recomputed as ``G_E^T alpha_E + C g_L``), only
the *near* rows passed over between full passes (``fs[LAM] < fs[HFAR]`` bounds the far
rows' move). See ``docs/path.md`` ("A generic breakpoint").
"""

from __future__ import annotations

import numpy as np

from . import _kernels as _pk
from ._kernels import (
    _EPS,
    _INF,
    _U,
    AP_FROM,
    AP_J,
    BD,
    CL,
    CMAX,
    DRIFT,
    EG,
    ER,
    EV_J,
    EV_TO,
    EVERY,
    FAMAX,
    FCL,
    FREE,
    FULLS,
    FYL,
    HFAR,
    INVALID,
    KNEAR,
    LAM,
    NBP,
    NE,
    NHITS,
    NL,
    NN,
    NOISE,
    NSEG,
    PIVOT,
    RCOND,
    RDMAX,
    REANCHOR,
    REF,
    RMAX,
    SINCE,
    SPARSE,
    STEPS,
    TIE,
    TIE_TOL,
    USTAR,
    WDN,
    WIN,
    YL,
    B,
    C,
    M,
    _append,
    _axpy,
    _certificate,
    _combine,
    _delete,
    _dot,
    _factor,
    _fm,
    _gamma,
    _gram_col,
    _jit,
    _left_sums,
    _norm,
    _pivot,
    _refine_slopes,
    _refine_values,
    _slopes,
)

# what the tracer reads off this module: the state's sizes and slots, the margins
NF, NI, NC, TOL, margins = _pk.NF, _pk.NI, _pk.NC, _pk.TOL, _pk.margins
# statuses of run
(END, CMAX_, DEGEN, REDO, CADENCE, FULL, BUDGET, NOFAST) = range(1, 9)
# how run starts
CONTINUE, START, START_AT_BREAKPOINT = range(3)


@_fm
def _slope_rows(data, state, fs, ist, upd, count):
    """Margins moved to ``fs[C]`` (``r += upd r'``) and their new slopes ``r' = G w~' + y b'``.

    Kept apart from the sweep: alone, the loop vectorises (3x faster, measured).
    """
    G, Gp, Gi, Gx, y = data[0], data[1], data[2], data[3], data[4]
    r, rd, wd, near = state[6], state[7], state[10], state[13]
    sparse = ist[SPARSE]
    bd = fs[BD]
    every_row = count == y.shape[0]  # (a flag argument would compile this twice)
    if sparse:
        for q in range(count):
            i = q if every_row else near[q]
            r[i] += upd * rd[i]
            rd[i] = _dot(G, Gp, Gi, Gx, sparse, i, wd) + y[i] * bd
    else:  # the same, with the branch out of the loop
        for q in range(count):
            i = q if every_row else near[q]
            r[i] += upd * rd[i]
            acc = 0.0
            for k in range(G.shape[1]):
                acc += G[i, k] * wd[k]
            rd[i] = acc + y[i] * bd


@_fm
def _fresh_margins(data, state, fs, ist, upd):
    """Every margin afresh from ``w, b``; returns the largest drift of a near row's."""
    G, Gp, Gi, Gx, y = data[0], data[1], data[2], data[3], data[4]
    r, rd, w, near = state[6], state[7], state[9], state[13]
    sparse, b = ist[SPARSE], fs[B]
    drift = 0.0
    for q in range(ist[NN]):
        i = near[q]
        rf = _dot(G, Gp, Gi, Gx, sparse, i, w) + y[i] * b
        drift = max(drift, abs(rf - (r[i] + upd * rd[i])))
    for i in range(y.shape[0]):
        r[i] = _dot(G, Gp, Gi, Gx, sparse, i, w) + y[i] * b
    return drift


@_jit
def _sweep(c, share, st, pos, aE, r, rd, fs, sums, idx, count):
    """The certificate's sums and the rows' distances to their events, from ``r, r'``.

    ``sums``: hinge sum, its bound, largest alpha share, the two complementarity values
    and bounds, (7: drift), max |r|, max |r'|, max |r'| on E, smallest distance,
    violated (1.0), second smallest distance, the row of the smallest.
    """
    Cc, Er = fs[C], fs[ER]
    noise, tie = fs[NOISE], fs[TIE]
    every_row = count == r.shape[0]
    S = eS = amax = ca = ca_hi = cx = cx_hi = rmax = rdmax = rdE = 0.0
    umin, u2, jmin, invalid = _INF, _INF, -1, 0.0
    bad = -max(TIE_TOL, tie)
    for q in range(count):
        i = q if every_row else idx[q]
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


@_fm
def _far_sums(data, state, fs, sums):
    """The far rows' share of the certificate: their slack sum and its rounding, alpha."""
    gLf, w = state[15], state[9]
    S = fs[FCL] - fs[FYL] * fs[B]
    for k in range(w.shape[0]):
        S -= gLf[k] * w[k]
    sums[0] += S
    sums[1] += (
        _gamma(data[4].shape[0] + w.shape[0] + 3) * fs[FCL] * (_norm(w) + abs(fs[B]) + 1.0)
        + fs[ER] * fs[FCL]
    )
    sums[2] = max(sums[2], fs[C] * fs[FAMAX])


@_jit
def _select(h, k, work):
    """The k-th smallest of ``h`` (quickselect on a copy in ``work``; h < 0 counts)."""
    n = h.shape[0]
    for i in range(n):
        work[i] = h[i]
    lo, hi, kk = 0, n - 1, k - 1
    while lo < hi:
        pivot = work[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while work[i] < pivot:
                i += 1
            while work[j] > pivot:
                j -= 1
            if i <= j:
                work[i], work[j] = work[j], work[i]
                i += 1
                j -= 1
        if kk <= j:
            hi = j
        elif kk >= i:
            lo = i
        else:
            break
    return work[kk]


@_fm
def _screen(data, state, fs, ist, ran_out):
    """After a full pass: the near rows, the far rows' distance ``fs[HFAR]`` and sums.

    KNEAR doubles when the budget ran out within 16 breakpoints, halves past 32.
    """
    G, Gp, Gi, Gx, y, c, share = data
    st, r, near, h, gLf = state[0], state[6], state[13], state[14], state[15]
    n, sparse = y.shape[0], ist[SPARSE]
    win, k = ist[WIN], ist[KNEAR]
    if ran_out and win < 16:
        k = min(n, 2 * k)
    elif not ran_out and win >= 32:
        k = max(min(n, 64), k // 2)
    ist[KNEAR], ist[WIN] = k, 0
    ist[FULLS] += 1
    for i in range(n):
        h[i] = -1.0 if st[i] == 1 else abs(r[i] - 1.0)
    tau = _select(h, k, np.empty(n)) if k < n else _INF
    nn, hmin, fcl, fyl, famax = 0, _INF, 0.0, 0.0, 0.0
    for k in range(gLf.shape[0]):
        gLf[k] = 0.0
    for i in range(n):
        if h[i] < 0.0 or h[i] <= tau:
            near[nn] = i
            nn += 1
        else:
            hmin = min(hmin, h[i])
            if st[i] == 2:
                _axpy(G, Gp, Gi, Gx, sparse, i, c[i], gLf)
                fcl += c[i]
                fyl += c[i] * y[i]
                famax = max(famax, c[i] * share[i])
    ist[NN] = nn
    fs[HFAR] = hmin - 2 * fs[ER]
    fs[FCL], fs[FYL], fs[FAMAX], fs[LAM] = fcl, fyl, famax, 0.0


@_jit
def _full_pass(data, state, fs, ist, sums, upd, ran_out):
    """Every row: margins afresh (the drift kept), slopes, the whole sweep, the screen."""
    drift = _fresh_margins(data, state, fs, ist, upd)
    w = state[9]
    fs[ER] = _gamma(w.shape[0] + 3) * (_norm(w) + abs(fs[B]))
    fs[TIE] = max(1e-12, 2 * fs[ER])
    n = data[4].shape[0]
    _slope_rows(data, state, fs, ist, 0.0, n)
    _sweep(data[5], data[6], state[0], state[1], state[3], state[6], state[7], fs, sums,
           state[13], n)  # fmt: skip
    sums[7] = drift
    _screen(data, state, fs, ist, ran_out)


@_jit
def _near_pass(data, state, fs, ist, sums, upd):
    """The near rows only (margins carried), and the far rows' share of the certificate."""
    nn = ist[NN]
    _slope_rows(data, state, fs, ist, upd, nn)
    fs[TIE] = max(1e-12, 2 * fs[ER])
    _sweep(data[5], data[6], state[0], state[1], state[3], state[6], state[7], fs, sums,
           state[13], nn)  # fmt: skip
    sums[7] = 0.0
    _far_sums(data, state, fs, sums)


@_jit
def _next_event(c, state, fs, ist, sums):
    """The next event from the sweep's two smallest row distances and the elbow's bounds.

    Sets ``fs[USTAR]``, ``ist[NHITS]`` (2: several), ``ist[INVALID]``, ``EV_J``, ``EV_TO``.
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
def _segment_pass(data, state, fs, ist, sums, upd, full):
    """Slopes of the current sets, the pass at ``fs[C]`` (full or near), the next event.

    Returns the relative drift of the margins at a full pass (0 without one).
    """
    _slopes(data, state, fs, ist)
    # (ran_out a run-time False: a literal would compile _full_pass and _screen twice)
    er, drift, ran_out = fs[ER], 0.0, ist[NN] < 0
    for attempt in range(4):
        if full:
            _full_pass(data, state, fs, ist, sums, upd, ran_out)
            # the fresh margins against the carried ones, relative to both bounds
            drift = max(drift, sums[7] / (er + fs[ER]))
        else:
            _near_pass(data, state, fs, ist, sums, upd)
        upd = 0.0  # the margins are at fs[C] now
        if sums[10] > fs[NOISE] and attempt < 2:
            _refine_slopes(data, state, fs, ist)
            fs[WDN] = _norm(state[10]) + abs(fs[BD])
            continue
        fs[NOISE] = max(fs[NOISE], 2 * sums[10])
        fs[RDMAX], fs[RMAX] = sums[9], sums[8]
        _next_event(data[5], state, fs, ist, sums)
        if full or (ist[NHITS] > 0 and fs[LAM] + fs[USTAR] * fs[WDN] < fs[HFAR]):
            break
        full = ran_out = True  # a far row might get there first: look at every row
    return drift


@_jit
def _certify_here(data, state, fs, ist, sums, out):
    """``v``, then the certificate of the breakpoint at ``fs[C]``; False: not good enough."""
    E, aE, gL, v = state[2], state[3], state[11], state[12]
    _combine(data, ist[SPARSE], E, ist[M], aE, gL, fs[C], v)
    worst = _certificate(data[4], data[5], state, fs, ist, sums, out)
    return out[15] > 0 and worst <= fs[REANCHOR], worst


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
    fs[LAM] += u * fs[WDN]  # how far any far row's margin may have moved (rows of norm <= 1)
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
        fs[EG] += 2 * _U * (_norm(gL) + c[j])
        ist[NL] += int(sign)
        if ist[NL] == 0:  # exactly: the hard-margin end has constant w
            for k in range(gL.shape[0]):
                gL[k] = 0.0
            fs[YL] = fs[CL] = fs[EG] = 0.0
    st[j] = to


@_jit
def _record_segment(state, fs, ist, rec):
    """Segment ``ist[NSEG]``: its lower end, ``w, w', b, b'`` there, its elbow."""
    E, aE, ad, w, wd = state[2], state[3], state[4], state[9], state[10]
    seg_f, seg_w, seg_wd, seg_ep, e_idx, e_a, e_ad, _bp_f, _bp_ev, _cert = rec
    k, m, ne = ist[NSEG], ist[M], ist[NE]
    seg_f[k, 0], seg_f[k, 1], seg_f[k, 2] = fs[C], fs[B], fs[BD]
    for q in range(w.shape[0]):
        seg_w[k, q], seg_wd[k, q] = w[q], wd[q]
    for l in range(m):
        e_idx[ne + l], e_a[ne + l], e_ad[ne + l] = E[l], aE[l], ad[l]
    seg_ep[k + 1] = ne + m
    ist[NSEG], ist[NE] = k + 1, ne + m


@_jit
def _record_breakpoint(fs, ist, rec, worst, st):
    """Breakpoint ``ist[NBP]`` at ``fs[C]``: its largest residual, the event just applied."""
    nb, j = ist[NBP], ist[AP_J]
    bp_f, bp_ev = rec[7], rec[8]
    bp_f[nb, 0], bp_f[nb, 1] = fs[C], worst
    bp_ev[nb, 0], bp_ev[nb, 1], bp_ev[nb, 2] = j, ist[AP_FROM], (st[j] if j >= 0 else -1)
    ist[NBP] = nb + 1


@_jit
def _refresh(data, state, fs, ist):
    """g_L and the factor from the data, then the values refined: (ok, how far they moved)."""
    sparse, m = ist[SPARSE], ist[M]
    _left_sums(data, state[0], state[11], fs, ist)
    if not _factor(data, sparse, ist[FREE], state[2], m, state[5], state[9].shape[0]):
        return False, 0.0
    return True, _refine_values(data, state, fs, ist)


@_jit
def _start(data, state, fs, ist, rec, sums, how):
    """Enter from sets and values set by the caller; False: not for the compiled loop."""
    w = state[9]
    _left_sums(data, state[0], state[11], fs, ist)
    if not _factor(data, ist[SPARSE], ist[FREE], state[2], ist[M], state[5], w.shape[0]):
        return False
    ist[NN], ist[WIN] = 0, 0
    # (a run-time True: a literal would compile _segment_pass and all below it twice)
    _segment_pass(data, state, fs, ist, sums, 0.0, ist[NN] == 0)
    if ist[INVALID]:
        return False
    if how == START_AT_BREAKPOINT:
        good, worst = _certify_here(data, state, fs, ist, sums, rec[9][ist[NBP]])
        if not good:
            return False
        ist[AP_J], ist[AP_FROM] = -1, -1
        _record_breakpoint(fs, ist, rec, worst, state[0])
    ist[SINCE] = 0
    _record_segment(state, fs, ist, rec)
    return True


@_jit
def _blocked(data, state, fs, ist, rec, spent, tmp, kvec, rho):
    """``(0, pivot)``: the pending event is generic and the buffers have room; else (status, 0)."""
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

    DEGEN: the next breakpoint is not generic (event not applied); REDO: the one reached
    fails (event ``AP_J, AP_FROM`` applied, nothing recorded).
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
        ist[WIN] += 1
        fresh = ist[SINCE] >= ist[EVERY]
        if fresh:
            ok, moved = _refresh(data, state, fs, ist)
            if not ok:
                return REDO
            fs[ER] += moved  # the refinement moved w and b: the carried margins lag
            ist[SINCE] = 0
        fs[DRIFT] = max(fs[DRIFT], _segment_pass(data, state, fs, ist, sums, upd, fresh))
        if ist[INVALID]:
            return REDO  # the event's sets are violated at once: settle it afresh
        good, worst = _certify_here(data, state, fs, ist, sums, rec[9][ist[NBP]])
        if not good:
            return REDO
        _record_breakpoint(fs, ist, rec, worst, st)
        _record_segment(state, fs, ist, rec)
        if fresh:
            return CADENCE
