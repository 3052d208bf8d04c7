r"""The certificate of a kernel SVM: optimality of ``(alpha, b)`` from the data alone.

Numpy only (the Gram's blocks and products of :class:`~maxmargin.kernels.GramOperator`):
the linear certificate's tests but ``stationarity`` (true by construction), with ``c =
alpha * y``, ``f = K c + b``; the gap is summed point by point, so only the points on the
margin carry rounding into it. See ``docs/certificates.md`` and ``docs/kernels.md``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._numerics import _ETA, _U, _gamma, _maxabs, _pow2, _ratio
from .certificate import (
    Certificate,
    _certificate,
    _check_b,
    _dual_residuals,
    _kkt_names,
    _non_finite,
    _slacks,
    check_tol,
)
from .exceptions import DataError, ParameterError
from .kernel_problem import KernelProblem

__all__ = ["certify_kernel", "decision_values"]


def decision_values(
    problem: KernelProblem, alpha: Any, b: float = 0.0, *, bound: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """``(f, err)``: ``f = K (alpha * y) + b`` on the training rows, and (``bound``) its rounding.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> p = KernelProblem(Dataset([[1.0], [-1.0]], [1, -1]), "linear", C=1.0)
    >>> decision_values(p, [0.5, 0.5], 0.0)[0].tolist()
    [1.0, -1.0]
    """
    c = np.asarray(alpha, dtype=float) * problem.data.y
    q, eq = problem.gram.matvec(c, bound=bound)
    f = q + b
    if not bound:
        return f, None
    assert eq is not None
    return f, eq + _U * np.abs(f)


def certify_kernel(
    problem: KernelProblem, alpha: Any, b: Any = 0.0, *, tol: float | None = None
) -> Certificate:
    """Certify ``(alpha, b)`` for a kernel problem from the data alone (numpy only).

    A :class:`Certificate` whose ``kkt`` has no ``stationarity`` (true by construction).

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> p = KernelProblem(Dataset([[1.0], [-1.0]], [1, -1]), "linear", C=10.0)
    >>> certify_kernel(p, [0.5, 0.5], 0.0).ok
    True
    >>> certify_kernel(p, [0.4, 0.4], 0.0).ok
    False
    """
    if not isinstance(problem, KernelProblem):
        raise ParameterError(f"certify_kernel needs a KernelProblem, got {type(problem).__name__}")
    tol = check_tol(tol)
    alpha = np.asarray(alpha, dtype=float).reshape(-1)
    n = problem.n
    if alpha.shape != (n,):
        raise DataError(f"alpha must have shape ({n},), got {alpha.shape}")
    b = _check_b(problem, b)
    if not (np.isfinite(alpha).all() and math.isfinite(b)):
        return _non_finite(_kkt_names(problem, stationarity=False), tol)
    with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
        y = problem.data.y
        n = problem.n
        hard = problem.hard
        C = problem.C
        c = alpha * y
        S_idx = np.flatnonzero(c)
        m = S_idx.size
        # ---- decision values, slacks and their rounding bounds (margin units)
        q, eq = problem.gram.matvec(c, cols=S_idx, bound=True)
        assert eq is not None
        f = q + b
        slacks = _slacks(y * f, eq + _U * np.abs(f))
        _, xi, exi, hinge_near, _ = slacks
        # ---- ||w||^2 = c' K c = c_S . q_S, scaled by a power of two (exact)
        pc = _pow2(_maxabs(c))
        cs = c[S_idx] / pc
        qS = q[S_idx]
        W = pc * float(cs @ qS)
        H = 0.5 * W
        ac = np.abs(c[S_idx])
        eH = 0.5 * (float(ac @ eq[S_idx]) + _gamma(m + 2) * float(ac @ np.abs(qS))) + 8 * _ETA
        eH *= 1 + 4 * _U
        sw = problem.weights
        S = float(xi.sum()) if sw is None else float(sw @ xi)
        P = H if hard else H + C * S
        D = float(alpha.sum()) - H
        eP = eH + _U * abs(P)
        if not hard:
            ex = exi if sw is None else sw * exi
            eP += C * (_gamma(n + 2) * S + float(ex[hinge_near].sum()))
        gap, egap = _gap(problem, alpha, b, slacks)
        rel = _ratio(gap, P) if gap >= 0 else -_ratio(-gap, P)
        floors = {
            "relative_gap": (_ratio(abs(gap) + egap, P - eP) - abs(rel) if P > eP else math.inf)
        }
        kkt: dict[str, float] = {}
        _dual_residuals(kkt, floors, problem, alpha, b, slacks)
        return _certificate(P, D, gap, rel, kkt, floors, tol)


def _gap(
    problem: KernelProblem, alpha: np.ndarray, b: float, slacks: tuple[np.ndarray, ...]
) -> tuple[float, float]:
    """``P - D = sum_i (alpha_i (r_i - 1) + C_i xi_i) - b y' alpha`` and its rounding bound.

    Without the cancellation of ``P - D``: a point at its bound adds no rounding (its term's
    slope in ``r_i`` is 0), only the points on the margin do.
    """
    one_minus_r, xi, exi, hinge_near, margin_near = slacks
    y = problem.data.y
    n = problem.n
    a1 = -alpha * one_minus_r  # alpha_i (r_i - 1)
    if problem.hard:
        t = a1
        slope = np.abs(alpha)
        a2 = np.zeros(n)
    else:
        costs = problem.costs
        a2 = costs * xi
        t = a1 + a2
        below = np.abs(alpha - costs)
        slope = np.where(
            hinge_near & margin_near,
            np.maximum(np.abs(alpha), below),
            np.where(hinge_near, below, np.abs(alpha)),
        )
    ya = float(alpha @ y)
    gap = float(t.sum()) - b * ya
    egap = (
        float(slope @ exi)
        + 3 * _U * float(np.abs(a1).sum() + np.abs(a2).sum())
        + _gamma(n + 1) * float(np.abs(t).sum())
        + abs(b) * (_gamma(n + 1) * float(np.abs(alpha).sum()) + _U * abs(ya))
        + 2 * _U * abs(gap)
        + n * _ETA
    ) * (1 + 4 * _U)
    return gap, egap
