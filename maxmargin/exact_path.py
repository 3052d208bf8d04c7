"""The exact piecewise-linear C path (compatibility module).

The code lives in :mod:`maxmargin.evaluation.exact_path` and :mod:`maxmargin.report`;
this module keeps
``from maxmargin.exact_path import ...`` working.
"""

from .evaluation.exact_path import ExactPath, PathPoint, exact_regularization_path
from .report import write_exact_path_report

__all__ = ["ExactPath", "PathPoint", "exact_regularization_path", "write_exact_path_report"]
