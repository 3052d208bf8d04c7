"""maxmargin: exact max-margin classifiers, certified, and online learners measured against them."""

from . import _startup as _startup  # first: Ctrl-C while the command imports is one line
from ._version import __version__
from .certificate import Certificate, certify
from .conventions import INTERCEPTS
from .data import (
    Dataset,
    load,
    load_csv,
    load_libsvm,
    load_npz,
    make_gaussians,
    make_separable,
    map_labels,
)
from .evaluation.comparison import Comparison, compare, demo_comparison
from .evaluation.path import regularization_path
from .evaluation.path.exact import ExactPath, PathPoint
from .evaluation.path.grid import RegularizationPath
from .evaluation.path.grids import parse_grid
from .evaluation.path.learners import learners_along_path
from .evaluation.path.limits import hard_margin_limit, min_margin_sv_C
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
from .online import (
    LEARNERS,
    PA,
    PA1,
    PA2,
    PLA,
    AveragedPerceptron,
    DualPerceptron,
    Learner,
    MarginPerceptron,
    OnlineSubgradient,
    Pegasos,
    Perceptron,
    Pocket,
    VotedPerceptron,
    Winnow,
    run,
    schedule,
)
from .problem import SVMProblem
from .report import write_exact_path_report, write_path_report, write_report
from .separation import (
    SeparationCertificate,
    is_separable,
    separation_certificate,
    verify_separation,
)
from .solution import ExactSolution
from .solvers import available_solvers
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


__all__ = [
    "__version__",
    *_ESTIMATORS,
    "Dataset",
    "SVMProblem",
    "INTERCEPTS",
    "solve",
    "ExactSolution",
    "available_solvers",
    "is_separable",
    "separation_certificate",
    "certify",
    "Certificate",
    "SeparationCertificate",
    "verify_separation",
    "run",
    "Trace",
    "compare",
    "score_trace",
    "Comparison",
    "RunResult",
    "write_report",
    "demo_comparison",
    "regularization_path",
    "RegularizationPath",
    "hard_margin_limit",
    "min_margin_sv_C",
    "learners_along_path",
    "parse_grid",
    "write_path_report",
    "study",
    "StudyResult",
    "ExactPath",
    "PathPoint",
    "write_exact_path_report",
    "LEARNERS",
    "schedule",
    "Learner",
    "Perceptron",
    "MarginPerceptron",
    "PLA",
    "AveragedPerceptron",
    "VotedPerceptron",
    "DualPerceptron",
    "Pocket",
    "Pegasos",
    "OnlineSubgradient",
    "PA",
    "PA1",
    "PA2",
    "Winnow",
    "load",
    "load_csv",
    "load_libsvm",
    "load_npz",
    "make_gaussians",
    "make_separable",
    "map_labels",
    "MaxMarginError",
    "DataError",
    "ParameterError",
    "SolverError",
    "NotSeparableError",
    "CertificateError",
    "OutputError",
    "DependencyError",
]
