"""An independent reference for the optimum of small dense SVMs at any scale.

Nothing here uses maxmargin's solver or certificate: the problem is normalised by hand
(unit features, or C' = 1), solved by Clarabel in the *primal* form, and bracketed by
its own weak duality (a primal value above P*, a clipped and balanced dual point below),
or, for a tiny C R^2, by an analytic bound. Every number is in "objective units":
``P* = unit * obj*`` with ``unit = C`` (soft margin) or ``1 / R^2`` (hard margin).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp


def robust_norm(u):
    m = float(np.max(np.abs(u))) if np.size(u) else 0.0
    if not (m > 0 and math.isfinite(m)):
        return m
    return m * float(np.linalg.norm(np.asarray(u) / m))


def features(X, intercept, s0):
    """The z_i the QP sees (dense)."""
    return np.hstack([X, np.full((len(X), 1), s0)]) if intercept == "augmented" else X


def radius(Z):
    m = float(np.max(np.abs(Z)))
    return m * float(np.sqrt(((Z / m) ** 2).sum(axis=1)).max())


def log_c(Z, C):
    """ln(C R^2): the problem's one scale-free number."""
    return math.log(C) + 2.0 * math.log(radius(Z))


def objective_units(Z, y, w, b, C, hard, intercept, s0, unit):
    """``P(w, b) / unit`` without under- or overflow (the bias of ``augmented`` is b/s0)."""
    wt = np.append(w, b / s0) if intercept == "augmented" else np.asarray(w, float)
    half = 0.5 * (robust_norm(wt) / math.sqrt(unit)) ** 2
    if hard:
        return half
    X = Z[:, : w.size] if intercept == "augmented" else Z
    m = robust_norm(w) or 1.0
    f = m * (X @ (w / m)) + b
    xi = float(np.maximum(0.0, 1.0 - y * f).sum())
    return half + (math.exp(math.log(C) - math.log(unit)) * xi if xi else 0.0)


def dual_units(Z, y, alpha, unit):
    """``D(alpha) / unit = sum(alpha / unit) - 1/2 ||sum (alpha / unit) y z sqrt(unit)||^2``."""
    a = alpha / unit
    v = (a * y) @ (Z * math.sqrt(unit))
    return float(a.sum()) - 0.5 * float(v @ v)


def _balanced(beta, y, hi):
    beta = np.clip(beta, 0.0, hi)
    sp_, sn = beta[y > 0].sum(), beta[y < 0].sum()
    if sp_ > sn:
        beta[y > 0] *= sn / sp_ if sp_ > 0 else 0.0
    elif sn > sp_:
        beta[y < 0] *= sp_ / sn if sn > 0 else 0.0
    return beta


def _clarabel_primal(Zs, y, q, hard, free):
    """min q/2 ||w||^2 + sum xi  s.t.  y (Zs w + b) >= 1 - xi, xi >= 0 (hard: no xi).

    Returns (w, b, beta) or None; beta are the margin constraints' multipliers.
    """
    import clarabel

    n, dz = Zs.shape
    nb = 1 if free else 0
    nx = 0 if hard else n
    nv = dz + nb + nx
    P = sp.block_diag([q * sp.identity(dz), sp.csc_matrix((nb + nx, nb + nx))], format="csc")
    c = np.concatenate([np.zeros(dz + nb), np.ones(nx)])
    rows = [-sp.csc_matrix(Zs * y[:, None])]
    if nb:
        rows.append(sp.csc_matrix(-y[:, None]))
    if nx:
        rows.append(-sp.identity(n))
    A = sp.hstack(rows, format="csc")
    h = -np.ones(n)
    if nx:
        A = sp.vstack(
            [A, sp.hstack([sp.csc_matrix((nx, dz + nb)), -sp.identity(nx)])], format="csc"
        )
        h = np.concatenate([h, np.zeros(nx)])
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.tol_gap_abs = st.tol_gap_rel = st.tol_feas = 1e-12
    st.max_iter = 200
    sol = clarabel.DefaultSolver(
        sp.triu(P, format="csc"), c, A, h, [clarabel.NonnegativeConeT(A.shape[0])], st
    ).solve()
    if str(sol.status) not in ("Solved", "AlmostSolved"):
        return None
    x = np.asarray(sol.x)
    assert x.size == nv
    return x[:dz], (float(x[dz]) if free else 0.0), np.asarray(sol.z)[:n]


def _hard_with_alpha(Z, y, free):
    """Hard margin on Z/R: ``(lo, hi, 1/R^2, max alpha')`` (alpha' = alpha R^2), or None."""
    R = radius(Z)
    out = _clarabel_primal(Z / R, y, 1.0, True, free)
    if out is None:
        return None
    w, b, alpha = out
    r = y * ((Z / R) @ w + b)
    if r.min() <= 0:
        return None
    hi = 0.5 * float(w @ w) / float(r.min()) ** 2
    a = _balanced(alpha, y, np.inf) if free else np.maximum(alpha, 0.0)
    v = (a * y) @ (Z / R)
    lo = float(a.sum()) - 0.5 * float(v @ v)
    return lo, hi, 1.0 / (R * R), float(a.max())


def reference(X, y, C, hard, intercept, s0=1.0):
    """``(lo, hi, unit)`` with ``lo * unit <= P* <= hi * unit``, or None (no reference).

    Soft margin, ``C R^2 n^2 < 1e-10``: ``w~ = 0`` up to a term the Lipschitz bound
    ``sum xi(w~, b) >= sum xi(0, b) - n R ||w~||`` makes negligible: ``P*/C`` lies in
    ``[L0 - n^2 C R^2 / 2, L0]``, ``L0 = 2 min(n+, n-)`` (free) or ``n``. Otherwise
    Clarabel's primal on ``(Z / R, C R^2)`` (``C R^2 >= 1``) or ``(sqrt(C) Z, 1)``.
    """
    Z = features(X, intercept, s0)
    n = len(y)
    free = intercept == "free"
    R = radius(Z)
    if hard:
        out = _hard_with_alpha(Z, y, free)
        return None if out is None else out[:3]
    lc = log_c(Z, C)
    if lc + 2 * math.log(n) < math.log(1e-10):
        L0 = 2.0 * min((y > 0).sum(), (y < 0).sum()) if free else float(n)
        return L0 - 0.5 * n * n * math.exp(lc), L0, C
    if lc >= 0:
        Zs, q = Z / R, math.exp(-lc)  # obj = 1/(2 C R^2) ||w'||^2 + sum xi
    else:
        Zs, q = Z * math.sqrt(C), 1.0  # obj = 1/2 ||w'||^2 + sum xi
    out = None if q < 1e-12 else _clarabel_primal(Zs, y, q, False, free)
    if out is None:
        # C R^2 huge: an LP in all but name. Separable data with C >= max alpha_hard
        # have the hard-margin optimum; otherwise there is no reference from here.
        hard_ref = _hard_with_alpha(Z, y, free)
        if hard_ref is None or math.log(max(hard_ref[3], 1e-300)) > lc:
            return None
        return hard_ref[:3]
    w, b, beta = out
    hi = 0.5 * q * float(w @ w) + float(np.maximum(0.0, 1.0 - y * (Zs @ w + b)).sum())
    beta = _balanced(beta, y, 1.0) if free else np.clip(beta, 0.0, 1.0)
    v = (beta * y) @ Zs
    lo = float(beta.sum()) - 0.5 / q * float(v @ v)
    return lo, hi, C
