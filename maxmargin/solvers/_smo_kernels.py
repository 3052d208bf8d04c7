# mypy: ignore-errors
"""Compiled (numba) SMO iterations of :mod:`maxmargin.solvers.smo`; imported on first use.

``kern = (kind, X, sq, gram, gamma, coef0, degree)``; ``cache = (rows, slot_of, owner,
stamp, epoch_of, full)``: ``rows[s]`` holds the row of ``owner[s]``, valid everywhere when
``full[s]``, else on the active set of its epoch. ``state``: ``[na, clock, epoch,
shrink_countdown, iterations, rows computed, entries computed]``; ``active[:na]`` active.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

KIND_RBF = 1
KIND_POLY = 2
KIND_SIGMOID = 3
KIND_GRAM = 4

#: Returned by the iterations: optimal to eps, the call's budget spent, or no step possible.
CONVERGED = 0
BUDGET = 1
STALLED = 2

_FM = {"reassoc", "contract"}

#: ``2^k`` for ``k = -1100 .. 0`` (:func:`_exp`'s scaling; subnormal and 0 below -1022).
_POW2 = 2.0 ** np.arange(-1100, 1, dtype=np.float64)
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # the high bits of ln 2 (fdlibm): k ln2_hi is exact
_LN2_LO = 1.90821492927058770002e-10


@njit(cache=True, fastmath={"contract"})
def _exp(x):
    """``exp(x)`` for ``x <= 0`` to ~1 ulp (``2^k`` times a degree-13 Taylor polynomial).

    Inlined, 4x faster than libm's call; the certificate recomputes every entry with numpy.
    """
    if x < -745.0:
        x = -745.0
    k = math.floor(x * _LOG2E + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = 1.6059043836821613e-10
    p = p * r + 2.08767569878681e-09
    p = p * r + 2.505210838544172e-08
    p = p * r + 2.755731922398589e-07
    p = p * r + 2.7557319223985893e-06
    p = p * r + 2.48015873015873e-05
    p = p * r + 0.0001984126984126984
    p = p * r + 0.001388888888888889
    p = p * r + 0.008333333333333333
    p = p * r + 0.041666666666666664
    p = p * r + 0.16666666666666666
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    return p * _POW2[int(k) + 1100]


@njit(cache=True, fastmath=_FM)
def _fill_row(kern, i, active, na, out):
    """Row i of K on the active set (via a contiguous buffer, where the loops vectorize)."""
    kind, X, sq, _, gamma, coef0, degree = kern
    d = X.shape[1]
    tmp = np.empty(na)
    for p in range(na):
        j = active[p]
        dot = 0.0
        for k in range(d):
            dot += X[i, k] * X[j, k]
        tmp[p] = dot
    if kind == KIND_RBF:
        for p in range(na):
            d2 = sq[i] + sq[active[p]] - 2.0 * tmp[p]
            if d2 < 0.0:
                d2 = 0.0
            tmp[p] = -gamma * d2
        for p in range(na):
            tmp[p] = _exp(tmp[p])
    elif kind == KIND_POLY:
        for p in range(na):
            t = gamma * tmp[p] + coef0
            v = 1.0
            for _ in range(degree):
                v *= t
            tmp[p] = v
    elif kind == KIND_SIGMOID:
        for p in range(na):
            tmp[p] = math.tanh(gamma * tmp[p] + coef0)
    for p in range(na):
        out[active[p]] = tmp[p]


@njit(cache=True)
def _row(i, kern, active, state, cache):
    """Row i of K (valid on the active set at least), from the cache or computed."""
    if kern[0] == KIND_GRAM:
        return kern[3][i]
    rows, slot_of, owner, stamp, epoch_of, full = cache
    na = state[0]
    n = slot_of.shape[0]
    state[1] += 1
    s = slot_of[i]
    if s >= 0:
        if full[s] or epoch_of[s] == state[2]:
            stamp[s] = state[1]
            return rows[s]
    else:
        # least recently used slot (a linear scan: a row costs far more to compute)
        s = 0
        best = stamp[0]
        for t in range(1, stamp.shape[0]):
            if stamp[t] < best:
                best = stamp[t]
                s = t
        if owner[s] >= 0:
            slot_of[owner[s]] = -1
        owner[s] = i
        slot_of[i] = s
    _fill_row(kern, i, active, na, rows[s])
    state[5] += 1
    state[6] += na
    full[s] = na == n
    epoch_of[s] = state[2]
    stamp[s] = state[1]
    return rows[s]


@njit(cache=True)
def _side(yt, at, ct):
    """Bit 1: t is in I_up; bit 2: in I_low."""
    s = 0
    if (yt > 0 and at < ct) or (yt < 0 and at > 0):
        s |= 1
    if (yt < 0 and at < ct) or (yt > 0 and at > 0):
        s |= 2
    return s


@njit(cache=True)
def smo_pairs(  # noqa: C901 - one compiled loop: a helper per branch costs a call a step
    kern, y, cost, diag, alpha, G, active, state, cache, eps, max_iter, shrinking, tau
):
    """SMO with a free intercept (WSS2, shrinking); returns ``(status, v_max - v_min)``.

    The scan for the next ``i`` is fused with the update of G: one pass a step less.
    """
    n = y.shape[0]
    side = np.zeros(n, dtype=np.int8)
    na = state[0]
    gmax = -math.inf
    gmin = math.inf
    i = -1
    for p in range(na):
        t = active[p]
        st = _side(y[t], alpha[t], cost[t])
        side[t] = st
        v = -y[t] * G[t]
        if (st & 1) and v >= gmax:
            gmax = v
            i = t
        if (st & 2) and v < gmin:
            gmin = v
    it = 0
    gap = gmax - gmin
    while it < max_iter:
        gap = gmax - gmin
        if i < 0 or gap < eps:
            return CONVERGED, gap
        if shrinking:
            state[3] -= 1
            if state[3] <= 0:
                state[3] = min(n, 1000)
                k = 0
                for p in range(na):
                    t = active[p]
                    v = -y[t] * G[t]
                    st = side[t]
                    # at a bound, a point of one side that cannot make a violating pair
                    drop = (st == 1 and v < gmin) or (st == 2 and v > gmax)
                    if not drop:
                        active[p], active[k] = active[k], active[p]
                        k += 1
                state[0] = k
                na = k
        row_i = _row(i, kern, active, state, cache)
        j = -1
        best = math.inf
        di_ = diag[i]
        for p in range(na):
            t = active[p]
            if side[t] & 2:
                bt = gmax + y[t] * G[t]
                if bt > 0:
                    a = di_ + diag[t] - 2.0 * row_i[t]
                    if a <= 0:
                        a = tau
                    s = -bt * bt / a
                    if s <= best:
                        best = s
                        j = t
        if j < 0:
            return STALLED, gap
        row_j = _row(j, kern, active, state, cache)
        a = di_ + diag[j] - 2.0 * row_i[j]
        if a <= 0:
            a = tau
        step = (gmax + y[j] * G[j]) / a
        lim_i = cost[i] - alpha[i] if y[i] > 0 else alpha[i]
        lim_j = alpha[j] if y[j] > 0 else cost[j] - alpha[j]
        ai, aj = alpha[i], alpha[j]
        step = min(step, lim_i, lim_j)
        # a step to a bound puts the multiplier exactly on it
        if step >= lim_i:
            alpha[i] = cost[i] if y[i] > 0 else 0.0
        else:
            alpha[i] = min(max(ai + y[i] * step, 0.0), cost[i])
        if step >= lim_j:
            alpha[j] = 0.0 if y[j] > 0 else cost[j]
        else:
            alpha[j] = min(max(aj - y[j] * step, 0.0), cost[j])
        side[i] = _side(y[i], alpha[i], cost[i])
        side[j] = _side(y[j], alpha[j], cost[j])
        di = y[i] * (alpha[i] - ai)
        dj = y[j] * (alpha[j] - aj)
        gmax = -math.inf
        gmin = math.inf
        i = -1
        for p in range(na):
            t = active[p]
            g = G[t] + y[t] * (row_i[t] * di + row_j[t] * dj)
            G[t] = g
            v = -y[t] * g
            st = side[t]
            if (st & 1) and v >= gmax:
                gmax = v
                i = t
            if (st & 2) and v < gmin:
                gmin = v
        it += 1
        state[4] += 1
    return BUDGET, gmax - gmin


@njit(cache=True)
def smo_single(  # noqa: C901 - one compiled loop (see smo_pairs)
    kern, y, cost, diag, alpha, G, active, state, cache, eps, max_iter, shrinking, tau
):
    """Greedy coordinate descent without intercept; returns ``(status, max |PG|)``."""
    n = y.shape[0]
    it = 0
    viol = math.inf
    while it < max_iter:
        na = state[0]
        viol = 0.0
        best = -1.0
        i = -1
        step_i = 0.0
        for p in range(na):
            t = active[p]
            g = G[t]
            at = alpha[t]
            if at <= 0.0:
                pg = min(g, 0.0)
            elif at >= cost[t]:
                pg = max(g, 0.0)
            else:
                pg = g
            if pg == 0.0:
                continue
            if abs(pg) > viol:
                viol = abs(pg)
            qt = diag[t] if diag[t] > 0 else tau
            new = min(max(at - g / qt, 0.0), cost[t])
            dlt = new - at
            gain = -(g * dlt + 0.5 * qt * dlt * dlt)
            if gain > best:
                best = gain
                i = t
                step_i = dlt
        if i < 0 or viol < eps:
            return CONVERGED, viol
        if shrinking:
            state[3] -= 1
            if state[3] <= 0:
                state[3] = min(n, 1000)
                k = 0
                for p in range(na):
                    t = active[p]
                    drop = (alpha[t] <= 0.0 and G[t] > viol) or (
                        alpha[t] >= cost[t] and G[t] < -viol
                    )
                    if not drop or t == i:
                        active[p], active[k] = active[k], active[p]
                        k += 1
                state[0] = k
                na = k
        row_i = _row(i, kern, active, state, cache)
        ai = alpha[i]
        new = ai + step_i
        if new <= 0.0:
            new = 0.0
        elif new >= cost[i]:
            new = cost[i]
        alpha[i] = new
        di = y[i] * (new - ai)
        for p in range(na):
            t = active[p]
            G[t] += y[t] * row_i[t] * di
        it += 1
        state[4] += 1
    return BUDGET, viol
