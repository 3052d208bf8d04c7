"""scikit-learn compatible estimators: the exact SVM and the online learners.

:class:`ExactSVC` wraps :func:`maxmargin.solve`, the others the online learners (``fit``
over epochs, ``partial_fit`` one pass continuing). Binary classifiers, ``classes_[1]`` is
+1 and a score of exactly 0 gives ``classes_[0]``. Needs scikit-learn >= 1.6. See
``docs/estimators.md``.
"""

# First: without scikit-learn >= 1.6, the import error says which version to install.
from . import _base  # noqa: F401
from .online import (
    AveragedPerceptronClassifier,
    PAClassifier,
    PegasosClassifier,
    PerceptronClassifier,
)
from .svc import ExactSVC

__all__ = [
    "ExactSVC",
    "PerceptronClassifier",
    "AveragedPerceptronClassifier",
    "PegasosClassifier",
    "PAClassifier",
]
