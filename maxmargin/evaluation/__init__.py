"""Learners and optima measured against each other: the comparison, the C paths.

- :mod:`~maxmargin.evaluation.comparison`: :func:`~maxmargin.compare`, online learners
  against the certified optimum of one problem (:func:`demo_comparison`: the CLI's demo);
- :mod:`~maxmargin.evaluation.scoring`: one run scored (:func:`~maxmargin.score_trace`);
- :mod:`~maxmargin.evaluation.bounds`: the theory's bounds the scores are held against;
- :mod:`~maxmargin.evaluation.kernel_scoring`: kernel learners against the kernel optimum;
- :mod:`~maxmargin.evaluation.path`: the C path, on a grid or exact, its two ends and
  learners along it (grid strings: :func:`parse_grid`).

The names below are the face of the room; those of ``maxmargin.__all__`` are also there.
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
