"""The numba row kernels on one example of a dense or CSR ``X``, shared by every compiled loop.

``X`` is the dense (n, d) array or the CSR tuple ``(indptr, indices, vals)``: its type picks
the implementation at compile time (a runtime branch would stop the dense reduction from
vectorising). A weight vector ``w`` has d + 1 entries; the last multiplies the constant ``s``.
"""

from __future__ import annotations

from typing import Any

from numba import types
from numba.extending import overload

__all__ = ["dot", "axpy", "scale_active", "row_nnz"]

# reassociation only: lets LLVM vectorise the dot-product reduction (results stay
# deterministic for a given machine; they differ from a sequential sum by rounding).
_FM = {"reassoc", "contract"}

# numba compares an overload's signature with its implementations', annotations included:
# both are annotated Any.


def dot(X: Any, i: int, w: Any, s: float) -> float:  # pragma: no cover - the overload runs
    """``x_i . w[:d] + s w[d]``."""
    raise NotImplementedError


def axpy(X: Any, i: int, a: float, w: Any, s: float) -> None:  # pragma: no cover
    """``w[:d] += a x_i``, ``w[d] += a s``."""
    raise NotImplementedError


def scale_active(X: Any, i: int, w: Any, fac: float) -> float:  # pragma: no cover
    """``w_j *= fac`` where ``x_ij != 0``; returns the change of ``||w||^2``."""
    raise NotImplementedError


def row_nnz(X: Any, i: int) -> int:  # pragma: no cover
    """The stored entries of row ``i`` (``d`` for dense ``X``)."""
    raise NotImplementedError


@overload(dot, jit_options={"fastmath": _FM})
def _ov_dot(X: Any, i: Any, w: Any, s: Any) -> Any:
    if isinstance(X, types.Array):

        def dense(X: Any, i: Any, w: Any, s: Any) -> Any:
            d = w.shape[0] - 1
            acc = 0.0
            for j in range(d):
                acc += X[i, j] * w[j]
            return acc + s * w[d]

        return dense

    def sparse(X: Any, i: Any, w: Any, s: Any) -> Any:
        indptr, indices, vals = X
        acc = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            acc += vals[p] * w[indices[p]]
        return acc + s * w[w.shape[0] - 1]

    return sparse


@overload(axpy)
def _ov_axpy(X: Any, i: Any, a: Any, w: Any, s: Any) -> Any:
    if isinstance(X, types.Array):

        def dense(X: Any, i: Any, a: Any, w: Any, s: Any) -> Any:
            d = w.shape[0] - 1
            for j in range(d):
                w[j] += a * X[i, j]
            w[d] += a * s

        return dense

    def sparse(X: Any, i: Any, a: Any, w: Any, s: Any) -> Any:
        indptr, indices, vals = X
        for p in range(indptr[i], indptr[i + 1]):
            w[indices[p]] += a * vals[p]
        w[w.shape[0] - 1] += a * s

    return sparse


@overload(scale_active)
def _ov_scale_active(X: Any, i: Any, w: Any, fac: Any) -> Any:
    if isinstance(X, types.Array):

        def dense(X: Any, i: Any, w: Any, fac: Any) -> Any:
            dn = 0.0
            for j in range(X.shape[1]):
                if X[i, j] != 0.0:
                    old = w[j]
                    w[j] = old * fac
                    dn += w[j] * w[j] - old * old
            return dn

        return dense

    def sparse(X: Any, i: Any, w: Any, fac: Any) -> Any:
        indptr, indices, vals = X
        dn = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            if vals[p] != 0.0:
                j = indices[p]
                old = w[j]
                w[j] = old * fac
                dn += w[j] * w[j] - old * old
        return dn

    return sparse


@overload(row_nnz)
def _ov_row_nnz(X: Any, i: Any) -> Any:
    if isinstance(X, types.Array):

        def dense(X: Any, i: Any) -> Any:
            return X.shape[1]

        return dense

    def sparse(X: Any, i: Any) -> Any:
        return X[0][i + 1] - X[0][i]

    return sparse
