"""Compiled (numba) sweeps of :mod:`maxmargin.solvers.dcd`; imported on first use only.

``X``: dense (n, d) or the CSR tuple ``(indptr, indices, vals)``. ``w`` has d + 1 entries;
the last multiplies the constant ``s`` (0, the augmented ``s``, or ``sqrt(rho)``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._rows import axpy, dot, row_nnz


@njit(cache=True)
def row_sq_norms(indptr, vals):  # pragma: no cover - compiled
    """``||x_i||^2`` of CSR rows, without a temporary copy of X."""
    n = indptr.shape[0] - 1
    out = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            acc += vals[p] * vals[p]
        out[i] = acc
    return out


@njit(cache=True)
def dcd_chunk(
    X, y, qd, C, dii, b, s, alpha, w, index, fst, ist, rng, eps, work_limit, max_sweeps
):  # pragma: no cover - compiled
    """Shrinking DCD sweeps (LIBLINEAR's ``solve_l2r_l1l2_svc``), state in the arguments.

    ``fst = [PGmax_old, PGmin_old, PGmax, PGmin]``; ``ist = [active, sweeps, converged,
    unbounded, entries read]``; ``rng[0]``: a 64-bit LCG (MMIX), far cheaper than numpy's.
    """
    active = ist[0]
    pgmax_old = fst[0]
    pgmin_old = fst[1]
    work = 0
    while work < work_limit and ist[1] < max_sweeps:
        x = rng[0]
        for k in range(active - 1):
            x = x * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
            j = k + np.int64((x >> np.uint64(33)) % np.uint64(active - k))
            t = index[k]
            index[k] = index[j]
            index[j] = t
        rng[0] = x
        pgmax = -math.inf
        pgmin = math.inf
        k = 0
        while k < active:
            i = index[k]
            yi = y[i]
            a = alpha[i]
            g = yi * (dot(X, i, w, s) + b) - 1.0 + dii[i] * a
            work += row_nnz(X, i) + 1
            Ci = C[i]
            pg = 0.0
            if a == 0.0:
                if g > pgmax_old:
                    active -= 1
                    index[k] = index[active]
                    index[active] = i
                    continue
                if g < 0.0:
                    pg = g
            elif a == Ci:
                if g < pgmin_old:
                    active -= 1
                    index[k] = index[active]
                    index[active] = i
                    continue
                if g > 0.0:
                    pg = g
            else:
                pg = g
            if pg > pgmax:
                pgmax = pg
            if pg < pgmin:
                pgmin = pg
            if pg != 0.0:
                q = qd[i]
                if q > 0.0:
                    an = min(max(a - g / q, 0.0), Ci)
                elif g < 0.0:
                    # z_i = 0 with a margin it cannot meet: alpha_i = C (hard: unbounded)
                    if Ci == math.inf:
                        ist[3] = 1
                        return
                    an = Ci
                else:
                    an = 0.0
                if an != a:
                    alpha[i] = an
                    axpy(X, i, (an - a) * yi, w, s)
                    if an > 1e200 and Ci == math.inf:
                        ist[3] = 1
                        return
            k += 1
        ist[1] += 1
        fst[2] = pgmax
        fst[3] = pgmin
        # liblinear tests pgmax - pgmin; with 0 in the range, which it nearly always
        # is, that is the same test, and it also rejects "every PG equal but not 0"
        # (e.g. all-zero rows of both labels, which only the intercept sees)
        if max(pgmax, 0.0) - min(pgmin, 0.0) <= eps:
            # converged on the active coordinates; the caller un-shrinks (or, for the
            # free intercept, first moves the multiplier)
            ist[2] = 1
            break
        pgmax_old = pgmax if pgmax > 0.0 else math.inf
        pgmin_old = pgmin if pgmin < 0.0 else -math.inf
    ist[0] = active
    ist[4] += work
    fst[0] = pgmax_old
    fst[1] = pgmin_old
