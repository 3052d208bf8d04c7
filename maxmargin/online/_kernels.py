"""Compiled (numba) inner loops of the online learners.

Every kernel advances one learner over the steps ``lo <= p < hi`` of an index array
``idx`` (step ``t = t0 + p - lo + 1``) and updates its state arrays in place, so
:func:`maxmargin.online.run` can call it chunk by chunk between checkpoints and time
learning alone. ``X`` is the dense (n, d) array or the CSR tuple
``(indptr, indices, vals)``. The learners see ``z_i = (x_i, s)``: the last entry
of every weight vector multiplies the constant ``s`` (``s = 0`` for intercept
``none``, so that entry stays exactly 0). ``xn2[i] = ||z_i||^2``. With ``free``
(intercept ``free``) the last entry is an unregularised bias: the running ``||w~_t||^2``
leaves it out, and the subgradient steps do not shrink it.

Running statistics live in a float64 array ``st``:
``st[0]`` mistakes, ``st[1]`` cumulative hinge (its square for the squared-hinge
learners), ``st[2]`` cumulative ``||w~_t||^2``
(both evaluated before each update), then learner-specific scalars.

Example weights: the kernels that take ``sw`` (an array of shape (n,), or None for no
weights, which compiles to the unweighted loop itself) scale example i's step by its
weight (and its hinge in ``st[1]``); a step of weight 0 changes nothing.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._rows import axpy, dot, scale_active
from .step_sizes import STEP_CONSTANT, STEP_INVLAM

# ----------------------------------------------------------------------- perceptron


@njit(cache=True)
def perceptron_steps(
    X,
    y,
    xn2,
    s,
    idx,
    lo,
    hi,
    t0,
    w,
    u,
    st,
    c,
    ct,
    upd,
    averaged,
    track_dual,
    track_updates,
    thr=0.0,
    eta=1.0,
    sw=None,
    free=False,
):  # pragma: no cover
    """Perceptron ``if y w.z <= thr: w += eta y z``; optional average and update log.

    Weighted: ``w += eta sw_i y z`` (no update where ``sw_i = 0``).

    ``thr = 0, eta = 1`` is Rosenblatt's perceptron (and the same floating-point
    operations as without them: ``1.0 * a`` is ``a``); ``thr > 0`` the margin perceptron.
    ``st[3]`` = ``||w||^2``, ``st[4]`` the number of updates (= mistakes when
    ``thr = 0``). Averaging: ``u += (t-1) eta y z`` so that the mean of the weights after
    steps 1..T is ``w - u/T``. Returns the number of updates logged.
    """
    mistakes = st[0]
    loss = st[1]
    sqn = st[2]
    wn2 = st[3]
    nupd = st[4]
    nup = 0
    last = w.shape[0] - 1
    for p in range(lo, hi):
        i = idx[p]
        t = t0 + p - lo + 1
        yi = y[i]
        m = yi * dot(X, i, w, s)
        e = eta
        skip = False
        if sw is not None:
            e = eta * sw[i]
            skip = e == 0.0
        if m < 1.0:
            loss += 1.0 - m if sw is None else sw[i] * (1.0 - m)
        sqn += wn2 - w[last] * w[last] if free else wn2
        if m <= 0.0:
            mistakes += 1.0
        if m <= thr and not skip:
            nupd += 1.0
            axpy(X, i, e * yi, w, s)
            wn2 += 2.0 * e * m + e * e * xn2[i]
            if averaged:
                axpy(X, i, e * yi * (t - 1.0), u, s)
            if track_dual:
                c[i] += e
                ct[i] += e * (t - 1.0)
            if track_updates:
                upd[nup] = t
                nup += 1
    st[0] = mistakes
    st[1] = loss
    st[2] = sqn
    st[3] = wn2
    st[4] = nupd
    return nup


@njit(cache=True)
def pocket_steps(
    X, y, xn2, s, idx, lo, hi, t0, w, pw, F, G, use_gram, check_every, st, free=False
):  # pragma: no cover
    """Perceptron plus pocket: keep the ``w`` with the fewest training errors so far.

    After an update, count the training errors of ``w`` (every ``check_every``-th update)
    and pocket it if it has fewer than ``pw``.

    ``F = Z w`` is kept up to date through the Gram matrix ``G = Z Z^T`` (O(n) per
    update) when ``use_gram``, else the count rescans the data (O(nd)).
    ``st[3]`` ``||w||^2``, ``st[4]`` pocket errors, ``st[5]`` step the pocket was filled,
    ``st[6]`` number of updates, ``st[7]`` number of pocket replacements.
    """
    n = y.shape[0]
    mistakes = st[0]
    loss = st[1]
    sqn = st[2]
    wn2 = st[3]
    last = w.shape[0] - 1
    for p in range(lo, hi):
        i = idx[p]
        t = t0 + p - lo + 1
        yi = y[i]
        m = yi * dot(X, i, w, s)
        if m < 1.0:
            loss += 1.0 - m
        sqn += wn2 - w[last] * w[last] if free else wn2
        if m <= 0.0:
            mistakes += 1.0
            axpy(X, i, yi, w, s)
            wn2 += 2.0 * m + xn2[i]
            st[6] += 1.0
            if use_gram:
                for j in range(n):
                    F[j] += yi * G[i, j]
            if st[6] % check_every == 0:
                errs = 0
                if use_gram:
                    for j in range(n):
                        if y[j] * F[j] <= 0.0:
                            errs += 1
                else:
                    for j in range(n):
                        if y[j] * dot(X, j, w, s) <= 0.0:
                            errs += 1
                if errs < st[4]:
                    st[4] = errs
                    st[5] = t
                    st[7] += 1.0
                    pw[:] = w
    st[0] = mistakes
    st[1] = loss
    st[2] = sqn
    st[3] = wn2


@njit(cache=True)
def pocket_random_steps(
    X, y, xn2, s, lo, hi, t0, w, pw, F, G, use_gram, check_every, st, u, mg, free=False
):  # pragma: no cover
    """The pocket algorithm as the lecture notes write it.

    Every step corrects a *random current mistake* of ``w`` (the schedule's example is not
    used).

    Step ``t`` draws ``u[t - t0 - 1]`` in [0, 1); with ``E`` the indices ``j`` (in
    increasing order) where ``y_j w.z_j <= 0``, it updates on ``E[floor(u |E|)]``, then
    counts the training errors of the new ``w`` (every ``check_every``-th update) and
    pockets it if it has fewer than ``pw``. When ``E`` is empty ``w`` separates the data
    and the algorithm stops: ``st[8]`` = the number of steps taken (0: still running).
    ``mg`` holds ``y_j w.z_j`` of the current ``w`` when ``st[9] = 1``; ``F = Z w``
    through the Gram matrix when ``use_gram``. Other slots as in :func:`pocket_steps`.
    """
    n = y.shape[0]
    mistakes = st[0]
    loss = st[1]
    sqn = st[2]
    wn2 = st[3]
    for p in range(lo, hi):
        if st[8] > 0.0:
            break
        t = t0 + p - lo + 1
        if st[9] == 0.0:
            for j in range(n):
                mg[j] = y[j] * (F[j] if use_gram else dot(X, j, w, s))
            st[9] = 1.0
        errs = 0
        for j in range(n):
            if mg[j] <= 0.0:
                errs += 1
        if errs == 0:
            st[8] = t - 1.0
            if st[4] > 0.0:
                st[4] = 0.0
                st[5] = t - 1.0
                st[7] += 1.0
                pw[:] = w
            break
        k = int(u[p - lo] * errs)
        if k >= errs:
            k = errs - 1
        i = 0
        for j in range(n):
            if mg[j] <= 0.0:
                if k == 0:
                    i = j
                    break
                k -= 1
        yi = y[i]
        m = mg[i]
        loss += 1.0 - m
        sqn += wn2 - w[w.shape[0] - 1] ** 2 if free else wn2
        mistakes += 1.0
        axpy(X, i, yi, w, s)
        wn2 += 2.0 * m + xn2[i]
        st[9] = 0.0
        st[6] += 1.0
        if use_gram:
            for j in range(n):
                F[j] += yi * G[i, j]
        if st[6] % check_every == 0:
            for j in range(n):
                mg[j] = y[j] * (F[j] if use_gram else dot(X, j, w, s))
            st[9] = 1.0
            errs = 0
            for j in range(n):
                if mg[j] <= 0.0:
                    errs += 1
            if errs < st[4]:
                st[4] = errs
                st[5] = t
                st[7] += 1.0
                pw[:] = w
    st[0] = mistakes
    st[1] = loss
    st[2] = sqn
    st[3] = wn2


@njit(cache=True)
def dual_perceptron_steps(y, idx, lo, hi, K, c, F, st, free_s2=0.0):  # pragma: no cover
    """Kernel perceptron: ``if y_i F_i <= 0: c_i += 1; F += y_i K[i]``, ``F = K (c*y)``.

    ``st[3]`` = ``||w~||^2 = (c*y)' K (c*y)``; ``st[4]`` = ``sum_i c_i y_i``, the bias
    weight over ``s`` (``free_s2 = s^2`` for a free bias, whose square ``s^2 st[4]^2``
    the running ``||w||^2`` leaves out; 0 otherwise).
    """
    n = y.shape[0]
    mistakes = st[0]
    loss = st[1]
    sqn = st[2]
    wn2 = st[3]
    cy = st[4]
    for p in range(lo, hi):
        i = idx[p]
        yi = y[i]
        m = yi * F[i]
        if m < 1.0:
            loss += 1.0 - m
        sqn += wn2 - free_s2 * cy * cy
        if m <= 0.0:
            mistakes += 1.0
            c[i] += 1.0
            cy += yi
            wn2 += 2.0 * m + K[i, i]
            for j in range(n):
                F[j] += yi * K[i, j]
    st[0] = mistakes
    st[1] = loss
    st[2] = sqn
    st[3] = wn2
    st[4] = cy


# ------------------------------------------------------------- subgradient / Pegasos

MODE_THETA = 0  # Pegasos in the notes' OMD form: w = rho * theta / (lam (tau + 1))
_FOLD = 1.0 / 64.0  # re-base w = sigma v when |sigma| leaves [1/64, 64]
MODE_SCALED = 1  # w <- (1 - eta lam) w + eta y z (Pegasos greedy projection, OSD)


@njit(cache=True)
def sgd_steps(
    X,
    y,
    xn2,
    s,
    idx,
    lo,
    hi,
    t0,
    v,
    A,
    st,
    c,
    cA,
    mbuf,
    mode,
    proj,
    lam,
    step_mode,
    step_a,
    step_b,
    radius,
    k,
    track_dual,
    sw=None,
    free=False,
    sq=False,
):  # pragma: no cover
    """Online subgradient on ``f_t(w) = lam/2 ||w||^2 + hinge``; w = sigma * v.

    Weighted: ``f_t(w) = lam/2 ||w||^2 + sw_i hinge`` (the hinge's step times ``sw_i``).
    ``sq``: the squared hinge ``xi^2``, ``xi = max(0, 1 - y w.z)``, in place of the hinge
    (in the step, whose ``y z`` is then ``2 xi y z``, and in ``st[1]``).

    ``st[3]`` ``||v||^2``, ``st[4]`` sigma, ``st[5]`` S (sum of the sigmas of the
    iterates whose losses were taken, in v's units), ``st[6]`` tau (batches done).
    The mean of the iterates is ``(S v - A) / tau``; in dual coordinates
    ``(S c - cA) / tau``.

    mode THETA: v = theta; after batch tau, sigma = rho / (step_a (tau + step_b)), rho
    the lazy projection factor (proj = 1) or 1 (step_a is lam: the notes' offset
    step_b = 1, the paper's 0).
    mode SCALED: sigma *= 1 - eta lam, v += eta/(|B| sigma) sum y z, then the greedy
    projection (proj = 2); eta = step_a / sqrt(tau) (step_mode STEP_INVSQRT), step_a
    (STEP_CONSTANT) or 1/(step_a (tau + step_b)) (STEP_INVLAM): see ``step_sizes.py``.
    ``lam = 0`` is the hinge alone (sigma never changes).
    Batches of ``k`` consecutive steps; a batch never crosses ``hi``.

    ``free``: the last entry is an unregularised bias ``beta`` (``b = s beta``), kept
    unscaled in ``v[d]``: the same step without the shrinkage,
    ``beta += eta/|B| sum y s`` (mode THETA: ``eta = 1/(step_a (tau + step_b))``), never
    projected, left out of ``||v||^2``; ``A[d]`` is the sum of the betas of the iterates
    whose losses were taken (their mean is ``A[d] / tau``).
    """
    d1 = v.shape[0]
    dw = d1 - 1 if free else d1  # the entries sigma scales (not a free bias)
    sv = 0.0 if free else s  # the constant feature inside the scaled part
    mistakes = st[0]
    loss = st[1]
    sqn = st[2]
    vn2 = st[3]
    sigma = st[4]
    S = st[5]
    tau = st[6]
    p = lo
    while p < hi:
        nb = min(k, hi - p)
        tau += 1.0
        S += sigma
        bs = s * v[d1 - 1] if free else 0.0  # the free bias's part of every score
        if free:
            A[d1 - 1] += v[d1 - 1]
        for q in range(nb):
            i = idx[p + q]
            m = y[i] * (sigma * dot(X, i, v, sv) + bs) if free else y[i] * sigma * dot(X, i, v, s)
            mbuf[q] = m
            if m < 1.0:
                xi = (1.0 - m) * (1.0 - m) if sq else 1.0 - m
                loss += xi if sw is None else sw[i] * xi
            if m <= 0.0:
                mistakes += 1.0
            sqn += sigma * sigma * vn2
        inv_sigma = 1.0 / sigma  # y v.z = m / sigma for the v the margins were taken at
        if mode == MODE_THETA:
            a = 1.0 / nb
            new_sigma = 1.0 / (step_a * (tau + step_b))
            eta = new_sigma
        else:
            if step_mode == STEP_INVLAM:
                eta = 1.0 / (step_a * (tau + step_b))
            elif step_mode == STEP_CONSTANT:
                eta = step_a
            else:
                eta = step_a / math.sqrt(tau)
            f = 1.0 - eta * lam
            new_sigma = sigma * f
            if new_sigma == 0.0:
                # w_{t+1} = 0 + eta y z: restart the representation at v = 0, sigma = 1
                for j in range(dw):
                    A[j] -= S * v[j]
                    v[j] = 0.0
                if track_dual:
                    for j in range(c.shape[0]):
                        cA[j] -= S * c[j]
                        c[j] = 0.0
                S = 0.0
                vn2 = 0.0
                new_sigma = 1.0
                inv_sigma = 0.0
            a = eta / (nb * new_sigma)
        gb = 0.0  # sum of y over the active examples (the free bias's step)
        for q in range(nb):
            m = mbuf[q]
            if m < 1.0:
                i = idx[p + q]
                yi = y[i]
                ai = a
                gi = yi  # the free bias's share of the step
                if sq:  # the squared hinge's gradient is 2 xi times the hinge's
                    ai = a * (2.0 * (1.0 - m))
                    gi = yi * (2.0 * (1.0 - m))
                if sw is not None:
                    ai = ai * sw[i]
                    gi = gi * sw[i]
                if nb == 1:
                    # ||v + a y z||^2 = ||v||^2 + 2 a y v.z + a^2 ||z||^2, y v.z = m/sigma
                    if free:  # v.x and ||x||^2: the bias is not in v's norm
                        vn2 += 2.0 * ai * (m - yi * bs) * inv_sigma + ai * ai * (xn2[i] - s * s)
                    else:
                        vn2 += 2.0 * ai * m * inv_sigma + ai * ai * xn2[i]
                axpy(X, i, ai * yi, v, sv)
                axpy(X, i, S * ai * yi, A, sv)
                gb += gi
                if track_dual:
                    c[i] += ai
                    cA[i] += S * ai
        if free:
            v[d1 - 1] += eta * s * gb / nb
        if nb > 1:
            vn2 = 0.0
            for j in range(dw):
                vn2 += v[j] * v[j]
        if proj != 0:
            nrm = abs(new_sigma) * math.sqrt(max(vn2, 0.0))
            if nrm > radius:
                new_sigma *= radius / nrm
        sigma = new_sigma
        if mode != MODE_THETA and (abs(sigma) < _FOLD or abs(sigma) > 1.0 / _FOLD):
            # fold: v' = sigma v, sigma' = 1, A' = -(S v - A), S' = 0. Keeps the average
            # (S v - A) free of cancellation when sigma drifts far from 1.
            for j in range(dw):
                q = S * v[j] - A[j]
                v[j] *= sigma
                A[j] = -q
            if track_dual:
                for j in range(c.shape[0]):
                    q = S * c[j] - cA[j]
                    c[j] *= sigma
                    cA[j] = -q
            vn2 *= sigma * sigma
            S = 0.0
            sigma = 1.0
        p += nb
    st[0] = mistakes
    st[1] = loss
    st[2] = sqn
    st[3] = vn2
    st[4] = sigma
    st[5] = S
    st[6] = tau


# ----------------------------------------------------------------- passive-aggressive


@njit(cache=True)
def pa_steps(
    X, y, xn2, s, idx, lo, hi, t0, w, st, c, variant, C, track_dual, sw=None, free=False
):  # pragma: no cover
    """PA (variant 0), PA-I (1), PA-II (2): ``w += tau y z`` with ``tau`` from the loss.

    ``st[3]`` = ``||w||^2``. Weighted (PA-I, PA-II): example i's ``C_i = C sw_i``.
    """
    mistakes = st[0]
    loss = st[1]
    sqn = st[2]
    wn2 = st[3]
    last = w.shape[0] - 1
    for p in range(lo, hi):
        i = idx[p]
        yi = y[i]
        m = yi * dot(X, i, w, s)
        sqn += wn2 - w[last] * w[last] if free else wn2
        if m <= 0.0:
            mistakes += 1.0
        if m < 1.0:
            ell = 1.0 - m
            Ci = C
            if sw is not None:
                Ci = C * sw[i]
                loss += sw[i] * ell
            else:
                loss += ell
            q = xn2[i]
            if variant == 0:
                tau = ell / q if q > 0.0 else 0.0
            elif variant == 1:
                tau = min(Ci, ell / q) if q > 0.0 else 0.0
            elif Ci > 0.0:
                tau = ell / (q + 0.5 / Ci)
            else:
                tau = 0.0
            if tau > 0.0:
                axpy(X, i, tau * yi, w, s)
                wn2 += 2.0 * tau * m + tau * tau * q
                if track_dual:
                    c[i] += tau
    st[0] = mistakes
    st[1] = loss
    st[2] = sqn
    st[3] = wn2


# ------------------------------------------------------------------------- Winnow


@njit(cache=True)
def winnow_steps(X, y, idx, lo, hi, t0, w, st, theta, alpha, variant):  # pragma: no cover
    """Winnow on {0,1} features: predict +1 iff ``w.x > theta``.

    On a mistake multiply (y = +1) or divide (y = -1, variant 2) / zero (variant 1) the
    active weights by ``alpha``. ``w`` has a last slot fixed at 0; ``st[3]`` =
    ``||w||^2``.
    """
    mistakes = st[0]
    loss = st[1]
    sqn = st[2]
    wn2 = st[3]
    for p in range(lo, hi):
        i = idx[p]
        yi = y[i]
        f = dot(X, i, w, 0.0) - theta
        m = yi * f
        if m < 1.0:
            loss += 1.0 - m
        sqn += wn2
        pred = 1.0 if f > 0.0 else -1.0
        if pred != yi:
            mistakes += 1.0
            if yi > 0.0:
                fac = alpha
            elif variant == 1:
                fac = 0.0
            else:
                fac = 1.0 / alpha
            wn2 += scale_active(X, i, w, fac)
    st[0] = mistakes
    st[1] = loss
    st[2] = sqn
    st[3] = wn2


def empty_state() -> np.ndarray:
    """A zeroed statistics vector ``st`` (8 slots)."""
    return np.zeros(8)
