"""The theory a run is held to: mistake bounds, the fitted rate, feasible dual points.

Functions of numbers only; the bounds are those of ``docs/compare.md``, section 6.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import check_positive
from ..exceptions import ParameterError
from ..problem import SVMProblem
from ..trace import Trace

__all__ = [
    "feasible_dual",
    "fit_rate",
    "quadratic_mistake_bound",
    "best_scale_mistake_bound",
]


def feasible_dual(alpha: Any, problem: SVMProblem) -> np.ndarray:
    r"""Make dual points feasible for ``problem`` (C form), so that ``D`` bounds ``P*``.

    Clips into the box :math:`0 \le \alpha_i \le C_i` (squared hinge: :math:`\alpha_i \ge
    0`); for intercept ``free`` it then restores :math:`\sum_i \alpha_i y_i = 0` by
    scaling down the class with the larger total. ``alpha``: (n,) or (k, n); non-finite
    entries become 0.

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem
    >>> p = SVMProblem(Dataset([[1.0], [-1.0], [2.0]], [1, -1, 1]), C=1.0, intercept="free")
    >>> feasible_dual([3.0, 0.5, -1.0], p).tolist()
    [0.5, 0.5, 0.0]
    """
    a = np.nan_to_num(np.asarray(alpha, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    if problem.hard:
        raise ParameterError("feasible_dual needs a soft-margin problem (C or lam)")
    if problem.loss == "squared_hinge":
        a = np.maximum(a, 0.0)
    else:
        a = np.clip(a, 0.0, problem.C if problem.weights is None else problem.costs)
    if problem.intercept == "free":
        y = problem.data.y
        pos = (a * (y > 0)).sum(axis=-1, keepdims=True)
        neg = (a * (y < 0)).sum(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            fp = np.where(pos > neg, neg / pos, 1.0)
            fn = np.where(neg > pos, pos / neg, 1.0)
        a = np.where(y > 0, a * fp, a * fn)
    return a


def fit_rate(t: Any, values: Any) -> float:
    r"""Slope of ``log(values)`` against ``log(t)`` over the second half of the run.

    :math:`t \ge \sqrt{T}`, ``T = max(t)`` (the half on the log-t axis); non-positive or
    non-finite values are left out; ``nan`` with fewer than 3 usable points.

    Examples
    --------
    >>> t = np.array([1, 10, 100, 1000, 10000])
    >>> round(fit_rate(t, 3.0 / t), 12)
    -1.0
    """
    t = np.asarray(t, dtype=float)
    v = np.asarray(values, dtype=float)
    if t.size == 0:
        return math.nan
    keep = (t >= math.sqrt(t.max())) & np.isfinite(v) & (v > 0) & (t > 0)
    if keep.sum() < 3:
        return math.nan
    lt, lv = np.log(t[keep]), np.log(v[keep])
    if np.ptp(lt) == 0:
        return math.nan
    return float(np.polyfit(lt, lv, 1)[0])


def quadratic_mistake_bound(L: Any, a: Any) -> np.ndarray:
    r"""The largest ``M`` with :math:`M \le L + a\sqrt M`: :math:`((a + \sqrt{a^2 + 4L})/2)^2`.

    The exact solution of the perceptron's :math:`M \le L + a\sqrt M` (``a = ||u|| R``,
    ``L`` the hinge of ``u``, broadcast together); Novikoff's :math:`a^2` when ``L = 0``,
    at most the textbook's relaxation :math:`L + a\sqrt L + a^2` (``general_bound``).

    Examples
    --------
    >>> float(quadratic_mistake_bound(0.0, 3.0))
    9.0
    >>> float(quadratic_mistake_bound(2.0, 1.0))
    4.0
    """
    L = np.asarray(L, dtype=float)
    a = np.asarray(a, dtype=float)
    return ((a + np.sqrt(a * a + 4.0 * L)) / 2.0) ** 2


def best_scale_mistake_bound(
    margins: Any, counts: Any, r_u: float, *, scale: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    r"""The perceptron's mistake bound for the comparator ``c u``, at the best scale ``c > 0``.

    :math:`M \le B(c) = ((a + \sqrt{a^2 + 4 L(c)})/2)^2` with :math:`a = c R\|u\|` and
    :math:`L(c) = \sum_i k_i \max(0, 1 - c\, m_i)` (``docs/compare.md``, section 6),
    searched on a log grid of ``c`` relative to ``max|m|``, refined by golden section, and
    compared with the limit ``c -> 0`` (returned with ``c = 0``). Every ``c`` gives a valid
    bound.

    Parameters
    ----------
    margins : array-like of shape (n,)
        ``y_i u.z_i`` of the comparator ``u``.
    counts : array-like of shape (n,) or (k, n)
        ``k_i`` per example, one row per checkpoint.
    r_u : float >= 0
        ``R ||u||`` (with ``R`` the radius the learner's analysis uses).
    scale : float > 0, optional
        Evaluate at this ``c`` instead of minimising.

    Returns
    -------
    bound, c : ndarray of shape (k,) (or scalars for 1-D ``counts``)

    Examples
    --------
    >>> m = np.array([2.0, 2.0])  # u classifies both points with margin 2
    >>> b, c = best_scale_mistake_bound(m, [1.0, 1.0], r_u=1.0)
    >>> round(float(b), 9), round(float(c), 6)  # c = 1/2: L = 0, bound (R||u||/2)^2
    (0.25, 0.5)
    """
    m = np.asarray(margins, dtype=float)
    K = np.asarray(counts, dtype=float)
    one = K.ndim == 1
    K = np.atleast_2d(K)
    order = np.argsort(m, kind="stable")
    ms = m[order]
    zero = np.zeros((K.shape[0], 1))
    Kc = np.concatenate([zero, np.cumsum(K[:, order], axis=1)], axis=1)  # (k, n+1)
    Sc = np.concatenate([zero, np.cumsum(K[:, order] * ms, axis=1)], axis=1)
    rows = np.arange(K.shape[0])

    def B(c: np.ndarray) -> np.ndarray:  # c of shape (k, g) -> bounds (k, g)
        J = np.searchsorted(ms, 1.0 / c, side="left")  # m_i < 1/c: the active hinges
        L = np.maximum(Kc[rows[:, None], J] - c * Sc[rows[:, None], J], 0.0)
        return quadratic_mistake_bound(L, c * r_u)

    if scale is not None:
        c = np.full((K.shape[0], 1), check_positive("scale", scale))
        b = B(c)[:, 0]
        c = c[:, 0]
    else:
        # the grid is relative to the margins' scale, so that scaling the data by k scales
        # the best c by 1/k and leaves the bound as it is
        top = float(np.max(np.abs(m), initial=0.0)) or float(r_u) or 1.0
        grid = np.geomspace(1e-6, 1e6, 241) / top
        vals = B(np.broadcast_to(grid, (K.shape[0], grid.size)))
        j = np.argmin(vals, axis=1)
        lo = grid[np.maximum(j - 1, 0)][:, None]
        hi = grid[np.minimum(j + 1, grid.size - 1)][:, None]
        g = (math.sqrt(5.0) - 1.0) / 2.0  # golden section on log c
        a, z = np.log(lo), np.log(hi)
        for _ in range(60):
            x1, x2 = z - g * (z - a), a + g * (z - a)
            left = B(np.exp(x1)) <= B(np.exp(x2))
            z = np.where(left, x2, z)
            a = np.where(left, a, x1)
        cand = np.concatenate([grid[j][:, None], np.exp((a + z) / 2.0)], axis=1)
        bc = B(cand)
        best = np.argmin(bc, axis=1)
        b, c = bc[rows, best], cand[rows, best]
        # c -> 0: every hinge tends to 1, a to 0, and B to the number of rounds, sum_i k_i
        # (the infimum when it lies there; reported with c = 0)
        rounds = K.sum(axis=1)
        low = rounds <= b
        b, c = np.where(low, rounds, b), np.where(low, 0.0, c)
    return (b[0], c[0]) if one else (b, c)


def _visit_counts(idx: np.ndarray, n: int, t: np.ndarray) -> np.ndarray:
    """``counts[k, i]`` = visits of example ``i`` among the first ``t[k]`` steps, (k, n)."""
    out = np.zeros((len(t), n))
    acc = np.zeros(n)
    prev = 0
    for k, tk in enumerate(t):
        acc += np.bincount(idx[prev:tk], minlength=n)
        out[k] = acc
        prev = int(tk)
    return out


def _theory_slope(decl: Any, kind: str) -> float:
    """The rate the learner declares for the objective it minimises (nan: none)."""
    rate = None if kind != "objective" else decl.theory_rate
    return math.nan if rate is None else float(rate)


def _mistake_bounds(
    decl: Any,
    tr: Trace,
    space: tuple[float, float, np.ndarray, float],
    visited: tuple[np.ndarray, np.ndarray] | None,
) -> dict[str, Any]:
    """Novikoff's and the general mistake bounds for a learner of the perceptron family."""
    R, ns, m, gamma = space
    # the margin perceptron (update on y w.z <= tau, step eta): R^2 -> R^2 + 2 tau / eta
    tau, eta = float(decl.update_margin), float(decl.update_step)
    Rt = R if tau == 0.0 else math.sqrt(R * R + 2.0 * tau / eta)
    out: dict[str, Any] = {}
    if math.isfinite(gamma):
        # gamma* underflows to 0 when b*/s overflows (a subnormal s): the bound is infinite
        out["novikoff"] = (Rt / gamma) ** 2 if gamma > 0 else math.inf
    if visited is not None:
        idx, L = visited
        out["general_bound"] = L + Rt * ns * np.sqrt(L) + (Rt * ns) ** 2  # textbook form
        counts = _visit_counts(idx, tr.n, tr.t)
        out["general_bound_best"], out["general_scale"] = best_scale_mistake_bound(
            m, counts, Rt * ns
        )
    if tr.dual is not None and decl.dual_counts_updates:
        out["mistake_rounds_bound"], _ = best_scale_mistake_bound(
            m, tr.dual / eta, Rt * ns, scale=1.0
        )
    return out
