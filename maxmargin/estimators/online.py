"""The online learners as scikit-learn estimators: ``fit`` over epochs, ``partial_fit``."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Any

import numpy as np
from sklearn.utils.validation import validate_data

from .._validation import check_choice, check_int
from ..conventions import DEFAULT_INTERCEPT, resolve_sklearn
from ..data import Dataset
from ..exceptions import DataError, ParameterError
from ..online.base import OnlineLearner
from ..online.orders import ORDERS, _check_seed, iter_schedule
from ..online.registry import resolve
from ..online.runner import OnlineState
from ..problem import combine_weights, resolve_class_weight
from ._base import _binary_targets, _check_sample_weight, _known_pm, _labels, _LinearBinary

__all__ = [
    "PerceptronClassifier",
    "AveragedPerceptronClassifier",
    "PegasosClassifier",
    "PAClassifier",
]


_EPOCHS, _LAM = 10, 1e-4  # the defaults of epochs (max_iter) and lam (alpha)


# Dataclass fields: scikit-learn reads the parameters from the __init__ the dataclass
# writes, which stores each one as it is (as scikit-learn requires).
@dataclass(eq=False, repr=False, kw_only=True)
class _OnlineClassifier(_LinearBinary):
    """Shared parameters, ``fit`` and ``partial_fit`` of the online estimators."""

    epochs: int = _EPOCHS
    order: str = "shuffle"
    seed: int = 0
    intercept: str = DEFAULT_INTERCEPT
    intercept_scaling: float = 1.0
    max_iter: int | None = None
    random_state: Any = None
    class_weight: Any = None

    def _batch_weights(
        self, X: Any, y_pm: np.ndarray, classes: np.ndarray, sample_weight: Any
    ) -> np.ndarray | None:
        """A batch's weights: ``sample_weight`` times each row's class weight."""
        sw = _check_sample_weight(sample_weight, X)
        if self.class_weight is None:
            return sw
        if isinstance(self.class_weight, str) and self.class_weight == "balanced":
            raise ParameterError(
                "class_weight='balanced' needs the class counts of all the "
                "data, which partial_fit does not see; use fit, or give "
                "class_weight as a dict {label: weight}"
            )
        batch = Dataset(
            X, y_pm, name=type(self).__name__, classes=_labels(classes), require_both_classes=False
        )
        cw = resolve_class_weight(batch, self.class_weight)
        factor = np.where(y_pm > 0, cw[batch.classes[1]], cw[batch.classes[0]])
        return factor if sw is None else sw * factor

    def _use_average(self) -> bool:
        """Report the averaged iterate (learners with ``has_average``), not the last."""
        return False

    def _learner_args(self) -> tuple[str, dict[str, Any]]:
        """The learner's name in :data:`maxmargin.online.registry.LEARNERS`, its options."""
        raise NotImplementedError

    def _learner(self) -> OnlineLearner:
        """The learner, built and checked by :func:`maxmargin.online.registry.resolve`."""
        name, params = self._learner_args()
        return resolve(
            name, intercept=self.intercept, intercept_scaling=self.intercept_scaling, **params
        )

    def _publish(self, state: OnlineState) -> None:
        w: Any
        b: Any
        if self._use_average() and state.w_avg is not None:
            w, b = state.w_avg, state.b_avg
        else:
            w, b = state.w, state.b
        self.coef_ = np.asarray(w, dtype=np.float64).reshape(1, -1)
        self.intercept_ = np.array([float(b or 0.0)])
        self.t_ = int(state.t)
        self.n_mistakes_ = int(state.mistakes)
        self._state = state

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Any:
        """Train from scratch: ``epochs`` passes over ``(X, y)`` in ``order``.

        The same steps as ``maxmargin.run(learner, Dataset(X, y), epochs, order, seed)``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
            Two distinct labels.
        sample_weight : array-like of shape (n,), optional
            Example weights ``>= 0`` (times ``class_weight``), by the learner's
            ``sample_weight_rule``; ``"pa"`` refuses them.

        Returns
        -------
        self

        Examples
        --------
        >>> from maxmargin.estimators import PerceptronClassifier
        >>> X = [[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]]
        >>> clf = PerceptronClassifier(epochs=5, order="cyclic").fit(X, [0, 0, 1, 1])
        >>> clf.coef_.tolist(), clf.intercept_.tolist(), clf.n_mistakes_, clf.t_
        ([[2.0, 0.0]], [-1.0], 3, 20)
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        classes, y_pm = _binary_targets(self, y)
        epochs = check_int(
            "max_iter" if self.max_iter is not None else "epochs",
            resolve_sklearn("epochs", self.epochs, "max_iter", self.max_iter, default=_EPOCHS),
            minimum=1,
        )
        order = check_choice("order", self.order, ORDERS)
        seed = _check_seed(
            resolve_sklearn("seed", self.seed, "random_state", self.random_state, default=0)
        )
        data = Dataset(X, y_pm, name=type(self).__name__, classes=_labels(classes))
        sw, _ = combine_weights(data, _check_sample_weight(sample_weight, X), self.class_weight)
        state = OnlineState(self._learner())
        for idx in iter_schedule(data.n, epochs, order, seed):
            state.update(data, idx=idx, sample_weight=sw)
        self.classes_ = classes
        self._publish(state)
        self.n_iter_ = epochs
        return self

    def partial_fit(self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None) -> Any:
        """One pass over the batch ``(X, y)``, rows in the given order, continuing.

        The first call starts the learner from zero; later calls, and calls after
        :meth:`fit`, continue from its state.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (m, d)
        y : array-like of shape (m,)
            Labels; a batch may hold one class only once ``classes_`` is known.
        classes : array-like of shape (2,), optional
            The two labels: needed on a first call whose batch does not show both.
        sample_weight : array-like of shape (m,), optional
            As :meth:`fit`'s (``class_weight="balanced"`` is refused here).

        Returns
        -------
        self

        Examples
        --------
        Two batches of one class each reach the weights of one cyclic epoch over both:

        >>> from maxmargin.estimators import PerceptronClassifier
        >>> X = [[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]]
        >>> clf = PerceptronClassifier().partial_fit(X[:2], [0, 0], classes=[0, 1])
        >>> clf = clf.partial_fit(X[2:], [1, 1])
        >>> clf.t_, clf.coef_.tolist(), clf.intercept_.tolist()
        (4, [[2.0, 0.0]], [0.0])
        >>> once = PerceptronClassifier(epochs=1, order="cyclic").fit(X, [0, 0, 1, 1])
        >>> once.coef_.tolist(), once.intercept_.tolist()
        ([[2.0, 0.0]], [0.0])
        """
        first = not hasattr(self, "_state")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=first)
        if first:
            classes_, y_pm = _binary_targets(self, y, classes)
        else:
            classes_ = self.classes_
            if classes is not None and not np.array_equal(np.unique(classes), classes_):
                raise DataError(
                    f"classes={np.unique(classes).tolist()} differs from the "
                    f"classes_ {classes_.tolist()} of the earlier calls; call fit "
                    "(or clone the estimator) to start again"
                )
            y_pm = _known_pm(y, classes_)
        sw = self._batch_weights(X, y_pm, classes_, sample_weight)
        state = OnlineState(self._learner()) if first else self._state
        state.update(X, y_pm, sample_weight=sw)
        self.classes_ = classes_
        self._publish(state)
        self.n_iter_ = 1
        return self


#: The Parameters every online estimator shares, and its Attributes.
_ONLINE_PARAMS = """epochs : int >= 1
        Passes over the data in :meth:`fit`.
    order : {"cyclic", "shuffle", "sample"}
        Example order of :meth:`fit` (see :func:`maxmargin.online.schedule`).
    seed : int >= 0
        Seed of the random orders.
    intercept : {"free", "none", "augmented"}
        ``free``: an unregularised bias; ``augmented``: x -> (x, s); ``none``: f(x) = w.x.
    intercept_scaling : float > 0
        ``s``.
    max_iter : int >= 1, optional
        scikit-learn's name for ``epochs`` (then left at its default or equal).
    random_state : int >= 0, numpy RandomState or Generator, optional
        scikit-learn's name for ``seed``; None (the default) uses ``seed``.
    class_weight : dict or "balanced", optional
        Per-class weights multiplied into ``sample_weight`` (``"balanced"``: fit only).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the +1 class.
    coef_ : ndarray of shape (1, d)
    intercept_ : ndarray of shape (1,)
    t_ : int
        Steps taken (examples seen).
    n_mistakes_ : int
        Mistakes made during training.
    n_iter_ : int
        Passes in the last call (1 after :meth:`partial_fit`).
    n_features_in_ : int
    feature_names_in_ : ndarray of str"""


class PerceptronClassifier(_OnlineClassifier):  # noqa: D101 (__doc__: an f-string, below)
    __doc__ = f"""The perceptron (:class:`maxmargin.online.Perceptron`) as an estimator.

    ``w += y z`` on every ``y w.z <= 0``, from ``w = 0``.

    Parameters
    ----------
    {_ONLINE_PARAMS}

    Examples
    --------
    >>> from maxmargin.estimators import PerceptronClassifier
    >>> X = [[0.0, 1.0], [1.0, 2.0], [3.0, 0.0], [4.0, 1.0]]
    >>> clf = PerceptronClassifier(epochs=5).fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[0.0, 2.0], [5.0, 0.0]]).tolist(), clf.score(X, ["a", "a", "b", "b"])
    (['a', 'b'], 1.0)
    """

    def _learner_args(self) -> tuple[str, dict[str, Any]]:
        return "perceptron", {}


class AveragedPerceptronClassifier(PerceptronClassifier):  # noqa: D101 (__doc__: an f-string, below)
    __doc__ = f"""The averaged perceptron (:class:`maxmargin.online.AveragedPerceptron`).

    Reports the mean of the perceptron's iterates over every step taken.

    Parameters
    ----------
    {_ONLINE_PARAMS}

    Examples
    --------
    >>> from maxmargin.estimators import AveragedPerceptronClassifier
    >>> X = [[0.0, 1.0], [1.0, 2.0], [3.0, 0.0], [4.0, 1.0]]
    >>> clf = AveragedPerceptronClassifier(order="cyclic").partial_fit(X, [0, 0, 1, 1])
    >>> clf.t_, clf.predict([[5.0, 0.0]]).tolist()
    (4, [1])
    """

    def _learner_args(self) -> tuple[str, dict[str, Any]]:
        return "averaged_perceptron", {}


@dataclass(eq=False, repr=False)
class PegasosClassifier(_OnlineClassifier):  # noqa: D101 (__doc__: an f-string, below)
    __doc__ = f"""Online subgradient SoftSVM(lambda) (:class:`maxmargin.online.Pegasos`).

    Minimises ``lam/2 ||w~||^2 + (1/n) sum_i hinge_i`` (the SVM with ``C = 1/(lam n)``)
    by ``w_(t+1) = theta_t / (lam (t+1))``, ``theta_t = theta_(t-1) + y z 1[y w.z < 1]``.

    Parameters
    ----------
    lam : float > 0
        lambda (scikit-learn's SGDClassifier ``alpha``).
    alpha : float > 0, optional
        scikit-learn's name for ``lam`` (then left at its default or equal).
    projection : {{None, "lazy", "greedy"}}
        Projection onto the ball of radius ``1/sqrt(lam)``.
    batch_size : int >= 1
        Mini-batch size (a batch never spans two ``partial_fit`` calls).
    average : bool
        Report the mean of the iterates instead of the last one.
    {_ONLINE_PARAMS}

    Examples
    --------
    >>> from maxmargin.estimators import PegasosClassifier
    >>> X = [[0.0, 1.0], [1.0, 2.0], [3.0, 0.0], [4.0, 1.0]]
    >>> clf = PegasosClassifier(lam=0.1, average=True).fit(X, [0, 0, 1, 1])
    >>> clf.score(X, [0, 0, 1, 1]), clf.t_
    (1.0, 40)
    """

    lam: float = _LAM
    _: KW_ONLY
    projection: str | None = None
    batch_size: int = 1
    average: bool = False
    alpha: float | None = None

    def _use_average(self) -> bool:
        return bool(self.average)

    def _learner_args(self) -> tuple[str, dict[str, Any]]:
        lam = resolve_sklearn("lam", self.lam, "alpha", self.alpha, default=_LAM)
        return "pegasos", {"lam": lam, "projection": self.projection, "batch_size": self.batch_size}


@dataclass(eq=False, repr=False)
class PAClassifier(_OnlineClassifier):  # noqa: D101 (__doc__: an f-string, below)
    __doc__ = f"""Passive-aggressive classification (:mod:`maxmargin.online.pa`).

    ``w += tau y z`` with ``tau = l / ||z||^2`` (``"pa"``), ``min(C, l / ||z||^2)``
    (``"pa1"``, scikit-learn's ``PassiveAggressiveClassifier(loss="hinge")``) or
    ``l / (||z||^2 + 1/(2C))`` (``"pa2"``), ``l = max(0, 1 - y w.z)``.

    Parameters
    ----------
    C : float > 0
        Aggressiveness bound of PA-I / PA-II (ignored by ``"pa"``).
    variant : {{"pa1", "pa2", "pa"}}
    {_ONLINE_PARAMS}

    Examples
    --------
    >>> from maxmargin.estimators import PAClassifier
    >>> X = [[0.0, 1.0], [1.0, 2.0], [3.0, 0.0], [4.0, 1.0]]
    >>> PAClassifier(C=1.0, variant="pa2").fit(X, [-1, -1, 1, 1]).score(X, [-1, -1, 1, 1])
    1.0
    """

    C: float = 1.0
    _: KW_ONLY
    variant: str = "pa1"

    def _learner_args(self) -> tuple[str, dict[str, Any]]:
        variant = check_choice("variant", self.variant, ("pa1", "pa2", "pa"))
        return variant, {} if variant == "pa" else {"C": self.C}
