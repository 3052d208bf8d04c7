"""The grid regularization path, its limits and the learners along it (compatibility module).

The code lives in :mod:`maxmargin.evaluation.grid_path`,
:mod:`maxmargin.evaluation.limits`, :mod:`maxmargin.evaluation.along_path` and
:mod:`maxmargin.report`; this
module keeps ``from maxmargin.path import ...`` working.
"""

from .evaluation.along_path import (
    MIN_POOL_STEPS,
    PATH_LEARNERS,
    LearnerPathStudy,
    learners_along_path,
)
from .evaluation.grid_path import (
    DEFAULT_GRID,
    GridWarning,
    RegularizationPath,
    log_grid,
    parse_grid,
    path,
    regularization_path,
)
from .evaluation.limits import HardMarginLimit, hard_margin_limit, min_margin_sv_C
from .report import write_path_report

__all__ = [
    "RegularizationPath",
    "HardMarginLimit",
    "LearnerPathStudy",
    "GridWarning",
    "path",
    "regularization_path",
    "parse_grid",
    "log_grid",
    "min_margin_sv_C",
    "hard_margin_limit",
    "learners_along_path",
    "write_path_report",
    "DEFAULT_GRID",
    "PATH_LEARNERS",
    "MIN_POOL_STEPS",
]
