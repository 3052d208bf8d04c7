r"""The certificate of a kernel SVM: optimality of ``(alpha, b)`` from the data alone.

Numpy only (the Gram's blocks and products of :class:`~maxmargin.kernels.GramOperator`),
so a kernel solution from anywhere (maxmargin's solver, scikit-learn's ``SVC``:
``alpha[clf.support_] = |clf.dual_coef_[0]|``, ``b = clf.intercept_[0]``) is checked
against the data, never against a solver's status.

With ``c = alpha * y``, ``q = K c``, decision values ``f = q + b``, ``r_i = y_i f_i``,
``xi_i = max(0, 1 - r_i)`` and costs ``C_i``, the primal point is the function ``f``
the multipliers define (``w = sum_i c_i phi(x_i)``, ``||w||^2 = c^T K c``), so

.. math::

    P &= \tfrac12 c^T K c + \sum_i C_i \xi_i, \qquad
    D = \sum_i \alpha_i - \tfrac12 c^T K c \\
    \text{gap} &= P - D, \qquad \text{relative gap} = (P - D) / P .

The linear certificate's ``stationarity`` (``w = sum_i alpha_i y_i x_i``) holds here by
construction and is not a test. The other KKT residuals are the linear certificate's
(:mod:`maxmargin.certificate`), with the same scales:

=======================  =========================================  ======================
name                     entries                                    divided by
=======================  =========================================  ======================
``equality``             ``sum_i alpha_i y_i max(1, |b|)`` (free)   ``sum_i |alpha_i|``
``dual_feasibility``     ``max(0, -alpha_i, alpha_i - C_i)``        ``C_i`` (hard:
                                                                    ``max |alpha|``)
``primal_feasibility``   ``max(0, 1 - r_i)`` (hard margin only)     1 (margin units)
``complementary_alpha``  ``|alpha_i| max(0, r_i - 1)``              ``max |alpha|``
``complementary_xi``     ``|C_i - alpha_i| xi_i`` (soft margin)     ``C_i``
=======================  =========================================  ======================

Scale-free: ``K -> t K`` and ``C -> C / t`` give ``alpha -> alpha / t``, ``q``, ``f``,
``r``, ``xi`` unchanged and ``P, D -> P / t, D / t``: every test is a ratio of two
quantities that move together.

Rounding. The error of each ``q_i`` is bounded rigorously by
:meth:`~maxmargin.kernels.GramOperator.matvec` (the entries' own rounding against the
exact kernel, the products, the sums, and a PSD slack ``s`` where the Gram was
checked), and propagates to ``f``, ``xi``, ``c^T K c`` (``|c|^T err_q + gamma_m |c|^T
|q|``), ``P``, ``D`` and each residual as in the linear certificate. The gap is summed
point by point, ``P - D = sum_i (alpha_i (r_i - 1) + C_i xi_i) - b y^T alpha``, where
the error of a point's ``r_i`` counts only through the slope of its term (``alpha_i``
above the margin, ``alpha_i - C_i`` below): 0 for a point at its bound, so only the
points on the margin carry rounding into the gap. A test passes when
``value + floor <= tol``, fails when ``value - floor > tol``, and is otherwise
undecided: never CERTIFIED where double precision cannot decide.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._numerics import _ETA, _U, _gamma, _maxabs, _pow2, _ratio
from .certificate import DEFAULT_TOL, Certificate, _certificate, _dual_residuals
from .exceptions import DataError, ParameterError
from .kernel_problem import KernelProblem

__all__ = ["certify_kernel", "decision_values"]


def _kkt_names(problem: KernelProblem) -> list[str]:
    names = []
    if problem.intercept == "free":
        names.append("equality")
    names.append("dual_feasibility")
    if problem.hard:
        names.append("primal_feasibility")
    names.append("complementary_alpha")
    if not problem.hard:
        names.append("complementary_xi")
    return names


def decision_values(
    problem: KernelProblem, alpha: Any, b: float = 0.0, *, bound: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """``f = K (alpha * y) + b`` on the training rows, with its rounding bound.

    Parameters
    ----------
    problem : KernelProblem
    alpha : array-like of shape (n,)
    b : float
    bound : bool
        Also return ``err`` with ``|fl(f)_i - f_i| <= err_i``.

    Returns
    -------
    f : ndarray of shape (n,)
    err : ndarray of shape (n,) or None

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


def _non_finite(names: list[str], tol: float) -> Certificate:
    """The certificate of a non-finite input: undefined, never zero."""
    inf = math.inf
    return Certificate(
        inf,
        -inf,
        inf,
        inf,
        {k: inf for k in names},
        tol,
        False,
        {k: inf for k in ("relative_gap", *names)},
        None,
    )


def certify_kernel(
    problem: KernelProblem, alpha: Any, b: Any = 0.0, *, tol: float | None = None
) -> Certificate:
    r"""Certify ``(alpha, b)`` for a kernel problem from the data alone (numpy only).

    Parameters
    ----------
    problem : KernelProblem
    alpha : array-like of shape (n,)
        The dual multipliers (0 off the support).
    b : float
        The intercept (0 for intercept ``none``).
    tol : float, optional
        Tolerance for ``ok`` (default :data:`~maxmargin.certificate.DEFAULT_TOL`).

    Returns
    -------
    Certificate
        The linear certificate's type; its ``kkt`` has no ``stationarity`` (the
        primal point is the one ``alpha`` defines).

    Raises
    ------
    DataError
        ``alpha`` of the wrong shape, or ``b`` not a number.
    ParameterError
        A bad ``tol``, or ``b != 0`` with intercept ``none``.

    Notes
    -----
    .. math::

        P - D = \sum_i \big(\alpha_i (r_i - 1) + C_i \xi_i\big) - b\, y^T \alpha \ge 0
        \quad (0 \le \alpha \le C,\ y^T \alpha = 0),

    and ``P = D`` exactly at the optimum; the gap is computed by this sum (only the
    points on the margin carry rounding into it). See the module docstring for the
    tests.

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
    tol = DEFAULT_TOL if tol is None else float(tol)
    if not (tol > 0 and math.isfinite(tol)):
        raise ParameterError(f"tol must be a finite float > 0, got {tol!r}")
    alpha = np.asarray(alpha, dtype=float).reshape(-1)
    n = problem.n
    if alpha.shape != (n,):
        raise DataError(f"alpha must have shape ({n},), got {alpha.shape}")
    try:
        b = float(b if b is not None else 0.0)
    except (TypeError, ValueError):
        raise DataError(f"b must be a number, got {b!r}") from None
    if problem.intercept == "none" and b != 0.0:
        raise ParameterError(f"intercept='none' fixes b = 0; got b = {b!r}")
    names = _kkt_names(problem)
    if not (np.isfinite(alpha).all() and math.isfinite(b)):
        return _non_finite(names, tol)
    with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
        return _certify(problem, alpha, b, tol)


def _gap(
    problem: KernelProblem,
    alpha: np.ndarray,
    b: float,
    one_minus_r: np.ndarray,
    xi: np.ndarray,
    exi: np.ndarray,
    hinge_near: np.ndarray,
    margin_near: np.ndarray,
) -> tuple[float, float]:
    r"""``P - D`` summed point by point, and a bound on its rounding.

    ``P - D = sum_i t_i - b y' alpha`` with ``t_i = alpha_i (r_i - 1) + C_i xi_i``: the
    same number as ``P - D`` (``c' K c = sum_i alpha_i r_i - b y' alpha``), without
    their cancellation. ``t_i`` as a function of ``r_i`` has slope ``alpha_i`` above the
    margin and ``alpha_i - C_i`` below, so a point at its bound (``alpha_i = C_i`` inside
    the margin, 0 outside) adds nothing to the error however far off its ``r_i`` is:
    only the points on the margin do.
    """
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


def _certify(problem: KernelProblem, alpha: np.ndarray, b: float, tol: float) -> Certificate:
    y = problem.data.y
    n = problem.n
    hard = problem.hard
    C = problem.C
    costs = problem.costs
    c = alpha * y
    S_idx = np.flatnonzero(c)
    m = S_idx.size
    # ---- decision values, slacks and their rounding bounds (margin units)
    q, eq = problem.gram.matvec(c, cols=S_idx, bound=True)
    assert eq is not None
    f = q + b
    ef = eq + _U * np.abs(f)
    r = y * f
    one_minus_r = 1.0 - r
    xi = np.maximum(0.0, one_minus_r)
    exi = ef + _U * np.abs(one_minus_r)  # bound on |xi^ - xi| and on max(0, r - 1)
    hinge_near = one_minus_r > -exi
    margin_near = one_minus_r < exi
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
    gap, egap = _gap(problem, alpha, b, one_minus_r, xi, exi, hinge_near, margin_near)
    rel = _ratio(gap, P) if gap >= 0 else -_ratio(-gap, P)
    floors = {"relative_gap": (_ratio(abs(gap) + egap, P - eP) - abs(rel) if P > eP else math.inf)}
    kkt: dict[str, float] = {}
    _dual_residuals(
        kkt, floors, problem.intercept == "free", hard, C, sw, costs, alpha, y, b, xi, exi,
        one_minus_r, hinge_near, margin_near,
    )  # fmt: skip
    return _certificate(P, D, gap, rel, kkt, floors, tol)
