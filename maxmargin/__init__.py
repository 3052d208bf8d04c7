"""maxmargin: exact max-margin classifiers, certified, and online learners measured against them."""

from . import _startup as _startup  # first: Ctrl-C while the command imports is one line
from ._version import __version__
from .certificate import Certificate, certify
from .data import Dataset, load, make_gaussians, make_separable
from .evaluation.comparison import Comparison, compare
from .evaluation.path import regularization_path
from .evaluation.path.exact import ExactPath, PathPoint
from .evaluation.path.grid import RegularizationPath
from .evaluation.path.learners import LearnerPathStudy, learners_along_path
from .evaluation.path.limits import HardMarginLimit, hard_margin_limit, min_margin_sv_C
from .evaluation.scoring import RunResult, score_trace
from .exact import solve
from .exceptions import (
    CertificateError,
    DataError,
    DependencyError,
    MaxMarginError,
    NotSeparableError,
    OutputError,
    ParameterError,
    SolverError,
)
from .online import Learner, run
from .problem import SVMProblem
from .report import write_report
from .separation import (
    SeparationCertificate,
    is_separable,
    separation_certificate,
    verify_separation,
)
from .solution import ExactSolution
from .trace import Trace

#: scikit-learn is an optional dependency: its estimators load on first use.
_ESTIMATORS = (
    "ExactSVC",
    "PerceptronClassifier",
    "AveragedPerceptronClassifier",
    "PegasosClassifier",
    "PAClassifier",
)


def __getattr__(name: str) -> object:
    if name in ("study", "StudyResult"):  # loaded on first use, like the estimators
        from . import studies

        return getattr(studies, name)
    if name in _ESTIMATORS:
        from . import estimators

        return getattr(estimators, name)
    raise AttributeError(f"module 'maxmargin' has no attribute {name!r}")


#: One name per concept (tests/test_api.py pins it); every other name is at its home
#: (the learners in :mod:`maxmargin.online`, the loaders in :mod:`maxmargin.data`, ...).
__all__ = [
    "__version__",
    # data and problems
    "Dataset",
    "load",
    "make_separable",
    "make_gaussians",
    "SVMProblem",
    # the exact solve and its proofs
    "solve",
    "ExactSolution",
    "certify",
    "Certificate",
    "is_separable",
    "separation_certificate",
    "SeparationCertificate",
    "verify_separation",
    # online learners
    "Learner",
    "run",
    "Trace",
    # learners against the optimum
    "compare",
    "score_trace",
    "Comparison",
    "RunResult",
    # the C path
    "regularization_path",
    "RegularizationPath",
    "ExactPath",
    "PathPoint",
    "hard_margin_limit",
    "HardMarginLimit",
    "min_margin_sv_C",
    "learners_along_path",
    "LearnerPathStudy",
    # reports and studies
    "write_report",
    "study",
    "StudyResult",
    # scikit-learn estimators (loaded on first use)
    *_ESTIMATORS,
    # errors
    "MaxMarginError",
    "DataError",
    "ParameterError",
    "SolverError",
    "NotSeparableError",
    "CertificateError",
    "OutputError",
    "DependencyError",
]
