"""Learners and optima measured against each other: the comparison, the C paths.

:func:`~maxmargin.compare` (:mod:`.comparison`, :mod:`.scoring`, :mod:`.bounds`),
:func:`compare_kernel` (:mod:`.kernel_scoring`) and the C path (:mod:`.path`); see
``docs/architecture.md``.
"""

from .comparison import Comparison, compare, demo_comparison
from .kernel_scoring import KernelComparison, compare_kernel
from .path import regularization_path
from .path.exact import ExactPath, PathPoint
from .path.grid import RegularizationPath
from .path.grids import parse_grid
from .path.learners import LearnerPathStudy, learners_along_path
from .path.limits import HardMarginLimit, hard_margin_limit, min_margin_sv_C
from .scoring import RunResult, score_trace

__all__ = [
    "compare",
    "Comparison",
    "demo_comparison",
    "score_trace",
    "RunResult",
    "compare_kernel",
    "KernelComparison",
    "regularization_path",
    "parse_grid",
    "RegularizationPath",
    "ExactPath",
    "PathPoint",
    "hard_margin_limit",
    "HardMarginLimit",
    "min_margin_sv_C",
    "learners_along_path",
    "LearnerPathStudy",
]
