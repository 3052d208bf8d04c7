# mypy: ignore-errors
# (numba code: its types are numba's to infer, and check at compile time)
"""The kernel online learners' compiled loops (numba), loaded on first use.

Every loop advances one learner over the steps ``lo <= p < hi`` of an index array
``idx`` on the learner's Gram ``K`` (n x n, C-contiguous). The function the learner holds
is ``f = sum_j a_j y_j k(x_j, .) + b``; the loops keep ``F = K (a * y)`` up to date (O(n)
per update, O(1) per step without one), so a step that does not update costs one lookup.

``st`` is the learner's ``totals`` (:class:`~maxmargin.online.base.LearnerState`):
``st[0]`` mistakes (``y f(x) <= 0`` before the step), ``st[1]`` cumulative hinge loss,
``st[2]`` cumulative ``||f_t||_H^2`` of the predicting function (bias left out),
``st[3]`` ``(a y)' K (a y)`` of the stored coefficients (updated, never recomputed),
``st[4]`` the bias ``b``, ``st[5]`` removals (the budgeted perceptron).

``s2`` is ``s^2`` for a free bias (the bias feature's square: the bias takes the
weights' step times ``s^2``, without the regulariser's shrinkage) and 0 without one.

The arithmetic of each step is written in one order, which the tests' plain numpy loops
repeat: the results are bit-identical to them.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def _add_row(F, K, i, c):  # pragma: no cover
    """``F += c K[i]``."""
    for j in range(F.shape[0]):
        F[j] += c * K[i, j]


@njit(cache=True)
def pegasos_steps(y, idx, lo, hi, t0, K, alpha, F, st, lam, s2):  # pragma: no cover
    """Kernelized Pegasos (Shalev-Shwartz et al. 2011, section 4).

    Step t on example i: ``m = y_i (F_i / (lam t) + b)``; if ``m < 1``:
    ``alpha_i += 1``, ``b += y_i s^2 / (lam (t + 1))``, ``F += y_i K[i]``. ``alpha`` are
    the counts; after step t the function is
    ``(1/(lam (t + 1))) sum_j alpha_j y_j k(x_j, .) + b``, the one step t + 1 predicts
    with (the free bias takes the step of that scale, as the linear learner's).
    """
    mistakes = st[0]
    loss = st[1]
    sqn = st[2]
    wn2 = st[3]
    b = st[4]
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
    st[0] = mistakes
    st[1] = loss
    st[2] = sqn
    st[3] = wn2
    st[4] = b


@njit(cache=True)
def pa_steps(y, idx, lo, hi, K, a, F, st, variant, C, s2):  # pragma: no cover
    """Kernel PA (variant 0), PA-I (1), PA-II (2) (Crammer et al. 2006, section 7).

    ``m = y_i (F_i + b)``, ``l = 1 - m``; if ``l > 0`` and ``q = K_ii + s^2 > 0``:
    ``tau = l / q`` (PA), ``min(C, l / q)`` (PA-I), ``l / (q + 1/(2C))`` (PA-II);
    ``a_i += tau``, ``b += tau y_i s^2``, ``F += tau y_i K[i]``.
    """
    mistakes = st[0]
    loss = st[1]
    sqn = st[2]
    wn2 = st[3]
    b = st[4]
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
                if variant == 0:
                    tau = ell / q
                elif variant == 1:
                    tau = min(C, ell / q)
                else:
                    tau = ell / (q + 0.5 / C)
                a[i] += tau
                b += tau * yi * s2
                wn2 += 2.0 * tau * yi * F[i] + tau * tau * K[i, i]
                _add_row(F, K, i, tau * yi)
    st[0] = mistakes
    st[1] = loss
    st[2] = sqn
    st[3] = wn2
    st[4] = b


@njit(cache=True)
def budget_perceptron_steps(y, idx, lo, hi, K, c, F, st, queue, qs, budget, s2):  # pragma: no cover
    """Kernel perceptron on a budget of ``budget`` support vectors, the oldest removed.

    ``queue`` (shape (budget,)) holds the support vectors in the order they entered,
    ``qs = (head, size)``. On a mistake (``y_i (F_i + b) <= 0``) on an example not in the
    support: when the support is full its oldest member j leaves (``F -= c_j y_j K[j]``,
    ``b -= c_j y_j s^2``, ``c_j = 0``); then ``c_i += 1``, ``b += y_i s^2``,
    ``F += y_i K[i]``. A mistake on a support vector adds to its count.
    """
    mistakes = st[0]
    loss = st[1]
    sqn = st[2]
    wn2 = st[3]
    b = st[4]
    removed = st[5]
    head = qs[0]
    size = qs[1]
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
    st[0] = mistakes
    st[1] = loss
    st[2] = sqn
    st[3] = wn2
    st[4] = b
    st[5] = removed
    qs[0] = head
    qs[1] = size
