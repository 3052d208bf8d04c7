"""scikit-learn compatible estimators: the exact SVM and the online learners.

:class:`ExactSVC` wraps :func:`maxmargin.solve` (certified optimum of the hard- or
soft-margin linear SVM); :class:`PerceptronClassifier`, :class:`AveragedPerceptronClassifier`,
:class:`PegasosClassifier` and :class:`PAClassifier` wrap the online learners of
:mod:`maxmargin.online` with ``fit`` (epochs over the data, like :func:`maxmargin.run`)
and ``partial_fit`` (one pass over a batch, continuing the learner's state through
:class:`maxmargin.online.runner.OnlineState`).

All are binary classifiers: any two labels (numbers or strings) are mapped to -1/+1 with
``classes_[1]`` as +1, as scikit-learn does; more than two classes raise a ``ValueError``
(a :class:`~maxmargin.exceptions.DataError`) saying to wrap the estimator in
:class:`sklearn.multiclass.OneVsRestClassifier`. Prediction follows scikit-learn:
``decision_function(x) > 0`` gives ``classes_[1]``, a score of exactly 0 gives
``classes_[0]`` (maxmargin's own ``ExactSolution.predict`` maps 0 to +1).

Needs scikit-learn >= 1.6 (estimator tags). See ``docs/estimators.md``.
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
