"""Compiled (numba) inner loops of the online learners, linear and kernel, loaded on first use.

Each advances a learner's state in place over the steps ``lo <= p < hi`` of ``idx`` (step
``t = t0 + p - lo + 1``). ``X``: dense or the CSR tuple (:mod:`maxmargin._rows`); the learners
see ``z_i = (x_i, s)``, ``xn2[i] = ||z_i||^2``, ``free``: the last weight is an unregularised
bias. ``st``: ``st[0]`` mistakes, ``st[1]`` cumulative hinge, ``st[2]`` cumulative
``||w~_t||^2`` (before each update; a free bias left out), then per-loop slots. ``sw``: example
weights scaling the step and hinge (None compiles to the unweighted loop). The kernel loops
keep ``F = K (a y)`` on the Gram ``K``. Each step's arithmetic is the tests' naive loops'.
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
    X, y, xn2, s, idx, lo, hi, t0, w, u, st, c, ct, upd, rule, sw, free
):  # pragma: no cover
    """``if y w.z <= thr: w += eta y z``; ``st[3]`` ``||w||^2``, ``st[4]`` updates.

    ``rule = (averaged, track_dual, track_updates, thr, eta)``. Averaging: ``u += (t-1) eta y
    z`` (the iterates' mean is ``w - u/T``); returns the number of steps logged in ``upd``.
    """
    averaged, track_dual, track_updates, thr, eta = rule
    mistakes, loss, sqn, wn2, nupd = st[0], st[1], st[2], st[3], st[4]
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
    st[0], st[1], st[2], st[3], st[4] = mistakes, loss, sqn, wn2, nupd
    return nup


@njit(cache=True)
def _errors(X, y, s, w, F, use_gram, mg, fill):  # pragma: no cover
    """The errors of ``w``: ``mg[j] <= 0`` counted, after ``mg = y Z w`` when ``fill``."""
    errs = 0
    for j in range(y.shape[0]):
        if fill:
            mg[j] = y[j] * (F[j] if use_gram else dot(X, j, w, s))
        if mg[j] <= 0.0:
            errs += 1
    return errs


@njit(cache=True)
def _pocket(errs, t, w, pw, st):  # pragma: no cover
    """Pocket ``w`` (its ``errs`` errors, at step ``t``) if it beats the pocket's ``st[4]``."""
    if errs < st[4]:
        st[4], st[5], st[7] = errs, t, st[7] + 1.0
        pw[:] = w


@njit(cache=True)
def pocket_steps(
    X, y, xn2, s, idx, lo, hi, t0, w, pw, F, G, use_gram, check_every, st, u, mg, rand, free
):  # pragma: no cover
    """Perceptron plus pocket: keep the ``w`` with the fewest training errors so far.

    ``rand``: step ``t`` updates on the ``floor(u |E|)``-th of the current mistakes ``E``
    (``u = u[t - t0 - 1]``), not ``idx``; none left: ``st[8]`` = the steps taken, the end.
    After every ``check_every``-th update the errors of ``w`` are counted (through ``F = Z
    w``, kept by ``G = Z Z^T``, when ``use_gram``). ``st[3]`` ``||w||^2``, ``st[4]`` pocket
    errors, ``st[5]`` its step, ``st[6]`` updates, ``st[7]`` pocketings, ``st[9]``: ``mg``
    holds ``y Z w``.
    """
    n = y.shape[0]
    mistakes, loss, sqn, wn2 = st[0], st[1], st[2], st[3]
    last = w.shape[0] - 1
    for p in range(lo, hi):
        t = t0 + p - lo + 1
        if not rand:
            i = idx[p]
            m = y[i] * dot(X, i, w, s)
        else:
            if st[8] > 0.0:
                break
            errs = _errors(X, y, s, w, F, use_gram, mg, st[9] == 0.0)
            st[9] = 1.0
            if errs == 0:
                st[8] = t - 1.0
                _pocket(0, t - 1.0, w, pw, st)
                break
            k = min(int(u[p - lo] * errs), errs - 1)
            i = 0
            for j in range(n):
                if mg[j] <= 0.0:
                    if k == 0:
                        i = j
                        break
                    k -= 1
            m = mg[i]
        yi = y[i]
        if m < 1.0:
            loss += 1.0 - m
        sqn += wn2 - w[last] * w[last] if free else wn2
        if m <= 0.0:
            mistakes += 1.0
            axpy(X, i, yi, w, s)
            wn2 += 2.0 * m + xn2[i]
            st[9] = 0.0
            st[6] += 1.0
            if use_gram:
                _add_row(F, G, i, yi)
            if st[6] % check_every == 0:
                _pocket(_errors(X, y, s, w, F, use_gram, mg, True), t, w, pw, st)
                st[9] = 1.0
    st[0], st[1], st[2], st[3] = mistakes, loss, sqn, wn2


# ------------------------------------------------------------------ on the Gram K


@njit(cache=True)
def _add_row(F, K, i, c):  # pragma: no cover
    """``F += c K[i]``."""
    for j in range(F.shape[0]):
        F[j] += c * K[i, j]


@njit(cache=True)
def dual_perceptron_steps(y, idx, lo, hi, K, c, F, st, free_s2=0.0):  # pragma: no cover
    """Kernel perceptron: ``if y_i F_i <= 0: c_i += 1; F += y_i K[i]``, ``F = K (c*y)``.

    ``st[3]`` ``(c y)' K (c y)``; ``st[4]`` ``sum_i c_i y_i``, the bias weight over ``s``
    (``free_s2 = s^2``: a free bias, whose ``s^2 st[4]^2`` ``st[2]`` leaves out).
    """
    mistakes, loss, sqn, wn2, cy = st[0], st[1], st[2], st[3], st[4]
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
            _add_row(F, K, i, yi)
    st[0], st[1], st[2], st[3], st[4] = mistakes, loss, sqn, wn2, cy


@njit(cache=True)
def pegasos_steps(y, idx, lo, hi, t0, K, alpha, F, st, lam, s2):  # pragma: no cover
    """Kernelized Pegasos: ``m = y_i (F_i / (lam t) + b)``; if ``m < 1``: ``alpha_i += 1``.

    Then ``b += y_i s2 / (lam (t + 1))`` (``s2 = s^2`` with a free bias, else 0), ``F +=
    y_i K[i]``; ``st[3]`` ``(alpha y)' K (alpha y)``, ``st[4]`` ``b``.
    """
    mistakes, loss, sqn, wn2, b = st[0], st[1], st[2], st[3], st[4]
    for p in range(lo, hi):
        t = t0 + (p - lo) + 1
        i = idx[p]
        yi = y[i]
        eta = 1.0 / (lam * t)
        m = yi * (F[i] * eta + b)
        sqn += wn2 * eta * eta
        if m <= 0.0:
            mistakes += 1.0
        if m < 1.0:
            loss += 1.0 - m
            alpha[i] += 1.0
            b += yi * s2 * (1.0 / (lam * (t + 1.0)))
            wn2 += 2.0 * yi * F[i] + K[i, i]
            _add_row(F, K, i, yi)
    st[0], st[1], st[2], st[3], st[4] = mistakes, loss, sqn, wn2, b


@njit(cache=True)
def kernel_pa_steps(y, idx, lo, hi, K, a, F, st, variant, C, s2):  # pragma: no cover
    """Kernel PA / PA-I / PA-II: ``a_i += tau``, ``b += tau y_i s2``, ``F += tau y_i K[i]``.

    ``tau`` from ``l = 1 - y_i (F_i + b)`` and ``q = K_ii + s2`` as :func:`pa_steps`;
    ``st[3]`` ``(a y)' K (a y)``, ``st[4]`` ``b``.
    """
    mistakes, loss, sqn, wn2, b = st[0], st[1], st[2], st[3], st[4]
    for p in range(lo, hi):
        i = idx[p]
        yi = y[i]
        m = yi * (F[i] + b)
        sqn += wn2
        if m <= 0.0:
            mistakes += 1.0
        if m < 1.0:
            ell = 1.0 - m
            loss += ell
            q = K[i, i] + s2
            if q > 0.0:
                tau = _pa_tau(variant, ell, q, C)
                a[i] += tau
                b += tau * yi * s2
                wn2 += 2.0 * tau * yi * F[i] + tau * tau * K[i, i]
                _add_row(F, K, i, tau * yi)
    st[0], st[1], st[2], st[3], st[4] = mistakes, loss, sqn, wn2, b


@njit(cache=True)
def budget_perceptron_steps(y, idx, lo, hi, K, c, F, st, queue, qs, budget, s2):  # pragma: no cover
    """Kernel perceptron keeping at most ``budget`` support vectors, the oldest removed.

    ``queue`` holds them in the order they entered, ``qs = (head, size)``; a mistake on a
    new example when full first removes the oldest ``j`` (``c_j = 0``, its share of ``F``
    and ``b`` taken back). ``st[3]``, ``st[4]`` as :func:`pegasos_steps`, ``st[5]`` removals.
    """
    mistakes, loss, sqn, wn2, b, removed = st[0], st[1], st[2], st[3], st[4], st[5]
    head, size = qs[0], qs[1]
    for p in range(lo, hi):
        i = idx[p]
        yi = y[i]
        m = yi * (F[i] + b)
        if m < 1.0:
            loss += 1.0 - m
        sqn += wn2
        if m <= 0.0:
            mistakes += 1.0
            if c[i] == 0.0:
                if size == budget:
                    j = queue[head]
                    head = (head + 1) % budget
                    size -= 1
                    cj = c[j] * y[j]
                    c[j] = 0.0
                    b -= cj * s2
                    wn2 += cj * cj * K[j, j] - 2.0 * cj * F[j]
                    _add_row(F, K, j, -cj)
                    removed += 1.0
                queue[(head + size) % budget] = i
                size += 1
            c[i] += 1.0
            b += yi * s2
            wn2 += 2.0 * yi * F[i] + K[i, i]
            _add_row(F, K, i, yi)
    st[0], st[1], st[2], st[3], st[4], st[5] = mistakes, loss, sqn, wn2, b, removed
    qs[0], qs[1] = head, size


# ------------------------------------------------------------- subgradient / Pegasos

MODE_THETA = 0  # Pegasos in the notes' OMD form: w = rho * theta / (lam (tau + 1))
_FOLD = 1.0 / 64.0  # re-base w = sigma v when |sigma| leaves [1/64, 64]
MODE_SCALED = 1  # w <- (1 - eta lam) w + eta y z (Pegasos greedy projection, OSD)


@njit(cache=True)
def sgd_steps(
    X, y, xn2, s, idx, lo, hi, t0, v, A, st, c, cA, mbuf, rule, sw, free, sq
):  # pragma: no cover
    """Online subgradient on ``lam/2 ||w||^2 + sw_i hinge`` (``sq``: ``xi^2``), ``w = sigma v``.

    ``st[3]`` ``||v||^2``, ``st[4]`` sigma, ``st[5]`` S (the sigmas of the iterates the
    losses were taken at, summed), ``st[6]`` tau (batches done): their mean is ``(S v - A) /
    tau`` (dual: ``(S c - cA) / tau``). MODE_THETA: ``v = theta``, ``sigma = rho / (step_a
    (tau + step_b))`` (rho: the lazy projection, ``proj = 1``). MODE_SCALED: ``sigma *= 1 -
    eta lam``, ``v += eta/(|B| sigma) sum y z``, then the greedy projection (``proj = 2``),
    ``eta`` by ``step_mode`` (``step_sizes.py``). Batches of ``k`` steps never cross ``hi``.
    ``free``: ``v[d]`` is the bias itself, unshrunk, unprojected, out of ``||v||^2``.
    ``rule = (mode, proj, lam, step_mode, step_a, step_b, radius, k, track_dual)``.
    """
    mode, proj, lam, step_mode, step_a, step_b, radius, k, track_dual = rule
    d1 = v.shape[0]
    dw = d1 - 1 if free else d1  # the entries sigma scales (not a free bias)
    sv = 0.0 if free else s  # the constant feature inside the scaled part
    mistakes, loss, sqn, vn2, sigma, S, tau = st[0], st[1], st[2], st[3], st[4], st[5], st[6]
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
    st[0], st[1], st[2], st[3], st[4], st[5], st[6] = mistakes, loss, sqn, vn2, sigma, S, tau


@njit(cache=True)
def _pa_tau(variant, ell, q, C):  # pragma: no cover
    """PA's step ``l / q`` (variant 0), PA-I's ``min(C, l / q)`` (1), PA-II's (2), or 0.

    0 where nothing can step: ``q = 0`` (PA, PA-I), ``C = 0`` (PA-II, a weight 0).
    """
    if variant == 2:
        return ell / (q + 0.5 / C) if C > 0.0 else 0.0
    if not q > 0.0:
        return 0.0
    return ell / q if variant == 0 else min(C, ell / q)


@njit(cache=True)
def pa_steps(
    X, y, xn2, s, idx, lo, hi, t0, w, st, c, variant, C, track_dual, sw=None, free=False
):  # pragma: no cover
    """PA (variant 0), PA-I (1), PA-II (2): ``w += tau y z``; ``st[3]`` ``||w||^2``.

    Weighted: ``C_i = C sw_i``.
    """
    mistakes, loss, sqn, wn2 = st[0], st[1], st[2], st[3]
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
            tau = _pa_tau(variant, ell, q, Ci)
            if tau > 0.0:
                axpy(X, i, tau * yi, w, s)
                wn2 += 2.0 * tau * m + tau * tau * q
                if track_dual:
                    c[i] += tau
    st[0], st[1], st[2], st[3] = mistakes, loss, sqn, wn2


@njit(cache=True)
def winnow_steps(X, y, idx, lo, hi, t0, w, st, theta, alpha, variant):  # pragma: no cover
    """Winnow: on a mistake of ``w.x > theta`` the active weights times ``alpha``, ``1/alpha`` or 0.

    ``w``'s last slot stays 0; ``st[3]`` ``||w||^2``.
    """
    mistakes, loss, sqn, wn2 = st[0], st[1], st[2], st[3]
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
            fac = alpha if yi > 0.0 else (0.0 if variant == 1 else 1.0 / alpha)
            wn2 += scale_active(X, i, w, fac)
    st[0], st[1], st[2], st[3] = mistakes, loss, sqn, wn2


def empty_state() -> np.ndarray:
    """A zeroed statistics vector ``st`` (8 slots)."""
    return np.zeros(8)
