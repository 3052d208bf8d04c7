"""What the estimators share: binary targets, weights, ``decision_function``/``predict``.

Needs scikit-learn >= 1.6 (estimator tags, ``validate_data``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import sklearn
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError as e:  # pragma: no cover - exercised only without scikit-learn
    raise ImportError(
        "maxmargin.estimators needs scikit-learn >= 1.6; install it with "
        "`pip install 'scikit-learn>=1.6'` (the rest of maxmargin works without it)"
    ) from e

from ..exceptions import DataError

_SK_VERSION = tuple(int(p) for p in sklearn.__version__.split(".")[:2] if p.isdigit())
if _SK_VERSION < (1, 6):  # pragma: no cover
    raise ImportError(
        f"maxmargin.estimators needs scikit-learn >= 1.6 (estimator tags, validate_data); "
        f"found {sklearn.__version__}: pip install -U 'scikit-learn>=1.6'"
    )


def _binary_targets(
    est: BaseEstimator, y: np.ndarray, classes: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """``classes_`` (sorted, 2) and the labels as -1/+1 (``classes_[1]`` is +1)."""
    check_classification_targets(y)
    name = type(est).__name__
    labels = np.unique(y) if classes is None else np.unique(np.asarray(classes))
    if labels.size > 2 or np.unique(y).size > 2:
        raise DataError(
            f"Only binary classification is supported. {name} got {labels.size} classes "
            f"({labels[:10].tolist()}); wrap it in "
            f"sklearn.multiclass.OneVsRestClassifier({name}()) for more than two"
        )
    if labels.size < 2:
        raise DataError(
            f"{name} needs two classes to train, but only one class is present "
            f"({labels.tolist()}); give examples of both (partial_fit: pass classes=[a, b])"
        )
    unknown = np.setdiff1d(np.unique(y), labels)
    if unknown.size:
        raise DataError(
            f"labels {unknown[:10].tolist()} are not in classes "
            f"{labels.tolist()}; pass every label in `classes` on the first call"
        )
    return labels, np.where(y == labels[1], 1.0, -1.0)


def _known_pm(y: np.ndarray, classes: np.ndarray, hint: str = "") -> np.ndarray:
    """``y`` as -1/+1 (``classes[1]`` is +1), its labels checked against fitted ``classes``."""
    check_classification_targets(y)
    unknown = np.setdiff1d(np.unique(y), classes)
    if unknown.size:
        raise DataError(
            f"labels {unknown[:10].tolist()} are not among classes_ {classes.tolist()}{hint}"
        )
    return np.where(y == classes[1], 1.0, -1.0)


def _labels(classes: np.ndarray) -> tuple:
    """``classes_`` as a Dataset's ``classes`` (plain Python labels)."""
    return tuple(c.item() if isinstance(c, np.generic) else c for c in classes)


def _check_sample_weight(sample_weight: Any, X: Any) -> np.ndarray | None:
    """``sample_weight`` as a float array of shape (n,) (None stays None), checked."""
    if sample_weight is None:
        return None
    try:
        sw = np.array(sample_weight, dtype=np.float64)  # a copy: never written back
    except (TypeError, ValueError):
        raise DataError("sample_weight must be an array of numbers") from None
    n = X.shape[0]
    if sw.ndim != 1 or sw.shape[0] != n:
        raise DataError(
            f"sample_weight must have shape ({n},), one weight per row of X; got {sw.shape}"
        )
    return sw


class _LinearBinary(ClassifierMixin, BaseEstimator):
    """``decision_function``/``predict`` from ``coef_`` (1, d), ``intercept_`` (1,)."""

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags

    def decision_function(self, X: Any) -> np.ndarray:
        """Signed score ``f(x) = w.x + b``; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)

        Examples
        --------
        >>> from maxmargin.estimators import PerceptronClassifier
        >>> clf = PerceptronClassifier(order="cyclic").fit([[-1.0], [1.0]], ["no", "yes"])
        >>> clf.decision_function([[-2.0], [3.0]]).tolist()
        [-4.0, 6.0]
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_[0]).reshape(-1) + self.intercept_[0]

    def predict(self, X: Any) -> np.ndarray:
        """Class labels: ``classes_[1]`` where ``f(x) > 0``, else ``classes_[0]``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)
            Labels from ``classes_``.

        Examples
        --------
        >>> from maxmargin.estimators import PerceptronClassifier
        >>> clf = PerceptronClassifier(order="cyclic").fit([[-1.0], [1.0]], ["no", "yes"])
        >>> clf.predict([[-2.0], [3.0]]).tolist()
        ['no', 'yes']
        """
        scores = self.decision_function(X)  # checks fitted first
        return self.classes_[(scores > 0).astype(int)]
