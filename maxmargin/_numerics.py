"""Robust numerics: norms and scalings without spurious under/overflow, rounding bounds.

``gamma_k``, exact power-of-two scalings, norms after one, and ratios with ``0/0 = 0``.
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from .data import Dataset

#: Unit roundoff of IEEE double precision.
_U = 2.0**-53
#: Smallest normal double (a generous bound on the error of a subnormal dot product).
_TINY = 2.0**-1022
#: Smallest subnormal: the absolute error of one operation whose result underflows.
_ETA = 2.0**-1074


def _gamma(k: int) -> float:
    """``gamma_k = k u / (1 - k u)``: the relative error bound of a k-term sum or dot."""
    ku = k * _U
    return ku / (1.0 - ku) if ku < 0.5 else math.inf


def _pow2(m: float) -> float:
    """A power of two within a factor 2 of ``m > 0`` (1 for 0 or non-finite): exact to divide by."""
    if not (m > 0 and math.isfinite(m)):
        return 1.0
    return math.ldexp(1.0, math.frexp(m)[1])


def _maxabs(u: Any) -> float:
    u = np.asarray(u)
    return float(np.max(np.abs(u))) if u.size else 0.0


def _norm(u: Any) -> float:
    """Euclidean norm without spurious under/overflow (``np.linalg.norm`` of 1e-180s is 0)."""
    m = _maxabs(u)
    if not (m > 0 and math.isfinite(m)):
        return m
    p = _pow2(m)
    t = np.asarray(u) / p
    return p * math.sqrt(float(t @ t))


def _row_norms_robust(X: Any) -> np.ndarray:
    """``||x_i||`` for every row, computed after an exact power-of-two scaling."""
    sparse = sp.issparse(X)
    p = _pow2(_maxabs(X.data if sparse else X))
    Xs = X / p
    sq = (
        np.asarray(Xs.multiply(Xs).sum(axis=1)).ravel() if sparse else np.einsum("ij,ij->i", Xs, Xs)
    )
    return p * np.sqrt(sq)


_ROW_NORMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _row_norms(data: Dataset) -> np.ndarray:
    """Cached robust row norms of a Dataset (the polish certifies many points per solve)."""
    rn = _ROW_NORMS.get(data)
    if rn is None:
        rn = _row_norms_robust(data.X)
        _ROW_NORMS[data] = rn
    return rn


def _radius(data: Dataset) -> float:
    """``R = max_i ||x_i||`` without under/overflow."""
    rn = _row_norms(data)
    return float(rn.max()) if rn.size else 0.0


def _ratio(num: float, den: float) -> float:
    """``num / den`` with ``0/0 = 0`` and ``x/0 = inf`` (a test that cannot be scaled)."""
    if den > 0:
        return num / den
    return 0.0 if num == 0 else math.inf
