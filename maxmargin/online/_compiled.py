"""The learners' compiled loops (:mod:`._kernels`), imported when a learner first runs.

numba is imported then, not with ``maxmargin``: an exact solve does not need it.
"""

from .._deps import CompiledKernels

#: :mod:`maxmargin.online._kernels`, loaded on first use (numba missing: a clear error).
kernels = CompiledKernels("maxmargin.online._kernels", "an online learner")
