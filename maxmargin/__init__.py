"""maxmargin: exact max-margin classifiers, certified, and online learners measured against them."""

from .data import (
    Dataset,
    load,
    load_csv,
    load_heart_scale,
    load_libsvm,
    load_npz,
    make_gaussians,
    make_separable,
    map_labels,
)
from .exceptions import (
    CertificateError,
    DataError,
    MaxMarginError,
    NotSeparableError,
    ParameterError,
    SolverError,
)
from .problem import INTERCEPTS, SVMProblem

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "Dataset",
    "SVMProblem",
    "INTERCEPTS",
    "load",
    "load_csv",
    "load_heart_scale",
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
]
