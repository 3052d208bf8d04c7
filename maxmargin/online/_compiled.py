"""The learners' compiled loops (:mod:`._kernels`), imported when a learner first runs.

numba is imported then, not with ``maxmargin``: an exact solve does not need it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._deps import CompiledKernels

if TYPE_CHECKING:
    import numpy as np

    from .base import PackedData

#: :mod:`maxmargin.online._kernels`, loaded on first use (numba missing: a clear error).
kernels = CompiledKernels("maxmargin.online._kernels", "an online learner")


def head(packed: PackedData, idx: np.ndarray, lo: int, hi: int, t0: int) -> tuple:
    """The arguments every linear loop starts with: ``X, y, xn2, s, idx, lo, hi, t0``."""
    return (*packed.xargs, packed.y, packed.z_sqnorms, packed.bias_feature, idx, lo, hi, t0)
