# mypy: ignore-errors
"""Compiled (numba) SMO iterations of :mod:`maxmargin.solvers.smo`; imported on first use.

The dual ``min 1/2 a'Qa - 1'a``, ``Q_ij = y_i y_j K_ij``, ``0 <= a_i <= C_i`` (``C_i``
may be inf), with ``y'a = 0`` (:func:`smo_pairs`, two coordinates a step) or without
(:func:`smo_single`, one). ``G = Q a - 1`` is kept on the active set only.

The kernel rows come from ``gram`` (a materialized Gram, ``kind == KIND_GRAM``) or are
computed from ``X`` into an LRU cache: ``rows[s]`` holds the row of ``owner[s]``,
valid on every index when ``full[s]``, else on the active set of the epoch it was
computed in (``epoch_of[s]``: the active set only shrinks within an epoch).

``state``: ``[na, clock, epoch, shrink_countdown, iterations, rows computed,
entries computed]``; ``active[:na]`` are the
active indices, ``active[na:]`` the shrunk ones.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

KIND_LINEAR = 0
KIND_RBF = 1
KIND_POLY = 2
KIND_SIGMOID = 3
KIND_GRAM = 4

#: Returned by the iterations: the active set is optimal to eps, the iteration budget of
#: the call is spent, or no step can be taken (every candidate pair is degenerate).
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
    """``exp(x)`` for ``x <= 0`` to ~1 ulp, inlined (4x faster here than libm's call).

    ``x = k ln 2 + r`` with ``|r| <= ln(2)/2``; ``exp(r)`` by its Taylor polynomial of
    degree 13 (truncation below ``2e-16``); ``2^k`` from a table. The SMO's rows only:
    the certificate recomputes every entry with numpy.
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
def _fill_row(kind, X, sq, gamma, coef0, degree, i, active, na, out):
    """Row i of K on the active set: the dot products, then the kernel's function.

    The RBF exponentials go through a contiguous buffer, where the loop vectorizes.
    """
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
def _row(
    i,
    kind,
    X,
    sq,
    gram,
    gamma,
    coef0,
    degree,
    active,
    state,
    rows,
    slot_of,
    owner,
    stamp,
    epoch_of,
    full,
):
    """Row i of K (valid on the active set at least), from the cache or computed."""
    if kind == KIND_GRAM:
        return gram[i]
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
    _fill_row(kind, X, sq, gamma, coef0, degree, i, active, na, rows[s])
    state[5] += 1
    state[6] += na
    full[s] = na == n
    epoch_of[s] = state[2]
    stamp[s] = state[1]
    return rows[s]


@njit(cache=True)
def _in_up(yt, at, ct):
    return (yt > 0 and at < ct) or (yt < 0 and at > 0)


@njit(cache=True)
def _in_low(yt, at, ct):
    return (yt < 0 and at < ct) or (yt > 0 and at > 0)


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
    kind, X, sq, gram, gamma, coef0, degree, y, cost, diag, alpha, G, active, state, rows,
    slot_of, owner, stamp, epoch_of, full, eps, max_iter, shrinking, tau,
):  # fmt: skip
    """SMO with a free intercept: second-order working-set selection (WSS2), shrinking.

    ``i`` maximizes ``v_t = -y_t G_t`` over ``I_up``; ``j`` minimizes ``-(v_i - v_t)^2 /
    a_it`` over the ``t`` of ``I_low`` with ``v_t < v_i`` (``a_it = K_ii + K_tt - 2 K_it``,
    ``tau`` where it is not positive). Stops when ``max_up v - min_low v < eps``.
    Returns ``(status, v_max - v_min)``. The scan for the next ``i`` is fused with the
    update of G (one pass over the active set less a step).
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
        row_i = _row(
            i, kind, X, sq, gram, gamma, coef0, degree, active, state, rows, slot_of, owner,
            stamp, epoch_of, full,
        )  # fmt: skip
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
        row_j = _row(
            j, kind, X, sq, gram, gamma, coef0, degree, active, state, rows, slot_of, owner,
            stamp, epoch_of, full,
        )  # fmt: skip
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
    kind,
    X,
    sq,
    gram,
    gamma,
    coef0,
    degree,
    y,
    cost,
    diag,
    alpha,
    G,
    active,
    state,
    rows,
    slot_of,
    owner,
    stamp,
    epoch_of,
    full,
    eps,
    max_iter,
    shrinking,
    tau,
):
    """Greedy coordinate descent without intercept: the coordinate of largest gain.

    Projected gradient ``PG_t`` (``G_t``, clipped at a bound); the step of coordinate
    ``t`` is to ``clip(a_t - G_t / Q_tt, 0, C_t)`` and its gain
    ``-(G_t delta + Q_tt delta^2 / 2)``. Stops when ``max |PG| < eps``.
    Returns ``(status, max |PG|)``.
    """
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
        row_i = _row(
            i,
            kind,
            X,
            sq,
            gram,
            gamma,
            coef0,
            degree,
            active,
            state,
            rows,
            slot_of,
            owner,
            stamp,
            epoch_of,
            full,
        )
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
