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

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np
import scipy.sparse as sp

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

from .._validation import (
    check_choice,
    check_int,
    check_positive,
    resolve_alias,
    seed_from_random_state,
)
from ..certificate import Certificate, certify
from ..conventions import DEFAULT_INTERCEPT, INTERCEPTS
from ..data import Dataset
from ..exact import FORMS, solve
from ..exceptions import DataError, ParameterError
from ..online import AveragedPerceptron, Pegasos, Perceptron
from ..online.base import OnlineLearner
from ..online.orders import ORDERS, _check_seed, iter_schedule
from ..online.pa import PA, PA1, PA2
from ..online.runner import OnlineState
from ..problem import SVMProblem, combine_weights, resolve_class_weight
from ..solution import ExactSolution

__all__ = [
    "ExactSVC",
    "PerceptronClassifier",
    "AveragedPerceptronClassifier",
    "PegasosClassifier",
    "PAClassifier",
]

_SK_VERSION = tuple(int(p) for p in sklearn.__version__.split(".")[:2] if p.isdigit())
if _SK_VERSION < (1, 6):  # pragma: no cover
    raise ImportError(
        f"maxmargin.estimators needs scikit-learn >= 1.6 (estimator tags, validate_data); "
        f"found {sklearn.__version__}: pip install -U 'scikit-learn>=1.6'"
    )


# --------------------------------------------------------------------------- shared


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


def _labels(classes: np.ndarray) -> tuple:
    """``classes_`` as a Dataset's ``classes`` (plain Python labels)."""
    return tuple(c.item() if isinstance(c, np.generic) else c for c in classes)


def _check_sample_weight(sample_weight: Any, X: Any) -> np.ndarray | None:
    """``sample_weight`` as a float array of shape (n,) (None stays None).

    Checked the way scikit-learn does: a ValueError that says what is wrong.
    """
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
        >>> from maxmargin.estimators import ExactSVC
        >>> X = [[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]]
        >>> clf = ExactSVC(C=10.0).fit(X, ["no", "no", "yes", "yes"])
        >>> clf.decision_function([[0.0, 0.5], [3.0, 0.5]]).round(6).tolist()
        [-1.0, 2.0]
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
        >>> from maxmargin.estimators import ExactSVC
        >>> X = [[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]]
        >>> clf = ExactSVC(C=10.0).fit(X, ["no", "no", "yes", "yes"])
        >>> clf.predict([[0.5, 0.0], [3.0, 0.5]]).tolist()
        ['no', 'yes']
        """
        scores = self.decision_function(X)  # checks fitted first
        return self.classes_[(scores > 0).astype(int)]


# --------------------------------------------------------------------------- exact


class ExactSVC(_LinearBinary):
    r"""Linear SVM solved exactly and certified: :func:`maxmargin.solve` as an estimator.

    Solves the C-form soft-margin SVM (or the hard-margin SVM with ``hard=True``)

    .. math::

        \min_{w, b}\ \tfrac12 \|w\|^2 + C \sum_i \max(0, 1 - y_i (w \cdot x_i + b))

    to the optimum, polishes it on its active set, and attaches the numpy-recomputed
    certificate (duality gap, KKT residuals). With ``intercept="free"`` it is the
    problem of ``sklearn.svm.SVC(kernel="linear", C=C)``.

    Parameters
    ----------
    C : float > 0
        Soft-margin penalty (ignored when ``hard=True``).
    hard : bool
        Hard margin (``y_i f(x_i) >= 1`` for all i); non-separable data raise
        :class:`~maxmargin.exceptions.NotSeparableError` with a certificate.
    intercept : {"free", "none", "augmented"}
        ``free``: b not regularized (libsvm's SVC); ``none``: b = 0; ``augmented``:
        x -> (x, s), b = s w_{d+1} regularized (liblinear's LinearSVC).
    form : {"dual", "primal"}
        Which QP the solver sees.
    solver : str, optional
        A QP solver name (``"PIQP"``, ``"CLARABEL"``, ...); default the fastest installed.
    intercept_scaling : float > 0
        ``s`` of the augmented mode.
    class_weight : dict or "balanced", optional
        Per-class weights multiplied into ``fit``'s ``sample_weight``, as ``SVC``:
        ``{label: weight}`` (a label left out weighs 1) or ``"balanced"``
        (``n / (2 n_c)``). Example i then costs ``C_i = C sample_weight_i
        class_weight[y_i]`` (soft margin only).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the +1 class.
    coef_ : ndarray of shape (1, d)
        ``w``.
    intercept_ : ndarray of shape (1,)
        ``b``.
    support_ : ndarray of shape (n_SV,), int
        Indices of the support vectors (``ExactSolution.support``), class ``classes_[0]``
        first, each class in index order (SVC's order).
    support_vectors_ : ndarray or sparse of shape (n_SV, d)
        ``X[support_]``.
    dual_coef_ : ndarray of shape (1, n_SV)
        ``y_i alpha_i`` of the support vectors (SVC's sign convention: ``coef_ =
        dual_coef_ @ support_vectors_`` for ``intercept`` free or none).
    n_support_ : ndarray of shape (2,), int32
        Support vectors per class, in ``classes_`` order.
    alpha_ : ndarray of shape (n,)
        All dual multipliers.
    certificate_ : Certificate
        The certificate of optimality (``certificate_.ok``, ``duality_gap``, ``kkt``;
        ``undecided`` says why when double precision cannot decide it).
    margin_ : float
        The geometric margin ``1/||w~||``.
    solution_ : ExactSolution
        Everything :func:`maxmargin.solve` returned. Not pickled (its problem holds the
        training set): after unpickling, :meth:`recertify` with the training data
        rebuilds it.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names (a pandas DataFrame).

    Notes
    -----
    **Pickles** keep what predicting and re-certifying need, not the training set:
    ``coef_``, ``intercept_``, the support vectors (``support_``,
    ``support_vectors_``, ``dual_coef_``), ``alpha_`` (stored by its non-zero entries:
    after the polish it is exactly 0 off the support vectors), ``certificate_`` and
    every field of ``solution_`` but its ``problem``. The size is O(#SV d), not
    O(n d). A certificate needs every example (the hinge losses of the primal, the
    stationarity ``w = sum_i alpha_i y_i x_i``): ``clf.recertify(X, y)`` re-checks the
    optimum on the training data and restores ``solution_``. ``copy.copy`` and
    ``copy.deepcopy`` keep everything.

    Examples
    --------
    >>> from maxmargin.estimators import ExactSVC
    >>> X = [[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]]
    >>> clf = ExactSVC(C=10.0).fit(X, ["no", "no", "yes", "yes"])
    >>> (clf.coef_.round(6) + 0.0).tolist(), clf.intercept_.round(6).tolist()
    ([[1.0, 0.0]], [-1.0])
    >>> clf.predict([[3.0, 0.5]]).tolist(), clf.certificate_.ok
    (['yes'], True)
    >>> clf.dual_coef_.round(6).tolist(), clf.support_.tolist(), clf.n_support_.tolist()
    ([[-0.25, -0.25, 0.25, 0.25]], [0, 1, 2, 3], [2, 2])
    """

    def __init__(
        self,
        C: float = 1.0,
        *,
        hard: bool = False,
        intercept: str = DEFAULT_INTERCEPT,
        form: str = "dual",
        solver: str | None = None,
        intercept_scaling: float = 1.0,
        class_weight: Any = None,
    ) -> None:
        self.C = C
        self.hard = hard
        self.intercept = intercept
        self.form = form
        self.solver = solver
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight

    def _dataset(self, X: Any, y_pm: np.ndarray, classes: np.ndarray) -> Dataset:
        """The training data, with the DataFrame's column names and the labels.

        ``solution_.to_dict()`` lists the column names beside ``w``; ``class_weight``
        names the labels.
        """
        names = getattr(self, "feature_names_in_", None)
        return Dataset(
            X,
            y_pm,
            name=type(self).__name__,
            classes=_labels(classes),
            feature_names=None if names is None else names.tolist(),
        )

    def _problem(self, data: Dataset, sample_weight: Any = None) -> SVMProblem:
        if not isinstance(self.hard, (bool, np.bool_)):
            raise ParameterError(f"The 'hard' parameter must be a bool. Got {self.hard!r} instead.")
        check_choice("intercept", self.intercept, INTERCEPTS)
        check_choice("form", self.form, FORMS)
        if self.solver is not None and not isinstance(self.solver, str):
            raise ParameterError(
                f"The 'solver' parameter must be None or a solver name such "
                f"as 'PIQP'. Got {self.solver!r} instead."
            )
        s = check_positive("intercept_scaling", self.intercept_scaling)
        if self.hard:
            return SVMProblem(
                data,
                hard=True,
                intercept=self.intercept,
                intercept_scaling=s,
                sample_weight=sample_weight,
                class_weight=self.class_weight,
            )
        return SVMProblem(
            data,
            C=check_positive("C", self.C),
            intercept=self.intercept,
            intercept_scaling=s,
            sample_weight=sample_weight,
            class_weight=self.class_weight,
        )

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> ExactSVC:
        """Solve the SVM on ``(X, y)`` exactly and certify the optimum.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
            Two distinct labels (numbers or strings).
        sample_weight : array-like of shape (n,), optional
            Per-example weights ``>= 0``: example i costs ``C_i = C sample_weight_i``
            (times its ``class_weight``) per unit of slack, as ``SVC``; weight 0 leaves
            the example out (``alpha_i = 0``). Integer weights give exactly the fit of
            the data with repeated rows. Soft margin only.

        Returns
        -------
        ExactSVC
            ``self``, fitted.

        Examples
        --------
        >>> ExactSVC(hard=True).fit([[-1.0], [1.0]], [0, 1]).margin_
        1.0
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        classes, y_pm = _binary_targets(self, y)
        sample_weight = _check_sample_weight(sample_weight, X)
        problem = self._problem(self._dataset(X, y_pm, classes), sample_weight)
        sol: ExactSolution = solve(problem, form=self.form, solver=self.solver)
        sup = np.asarray(sol.support, dtype=np.intp)
        sup = np.concatenate([sup[y_pm[sup] < 0], sup[y_pm[sup] > 0]])
        self.classes_ = classes
        self.coef_ = np.asarray(sol.w, dtype=np.float64).reshape(1, -1)
        self.intercept_ = np.array([float(sol.b)])
        self.alpha_ = np.asarray(sol.alpha, dtype=np.float64)
        self.support_ = sup.astype(np.int32)
        self.support_vectors_ = X[sup]
        self.dual_coef_ = (y_pm[sup] * self.alpha_[sup]).reshape(1, -1)
        self.n_support_ = np.array([(y_pm[sup] < 0).sum(), (y_pm[sup] > 0).sum()], dtype=np.int32)
        self.certificate_ = sol.certificate
        self.margin_ = float(sol.margin)
        self.solution_ = sol
        self.__dict__.pop("_solution_fields", None)  # left by an unpickled earlier fit
        return self

    def recertify(
        self, X: Any, y: Any, *, sample_weight: Any = None, tol: float | None = None
    ) -> Certificate:
        """Re-check the fitted optimum on the training data (after unpickling, say).

        Recomputes the certificate of ``(coef_, intercept_, alpha_)`` with numpy from
        ``(X, y)``, as :func:`maxmargin.certify` does, and restores ``solution_`` when
        it was left out of a pickle. ``(X, y)`` must be the training data, rows in the
        same order: the rows ``support_`` must equal ``support_vectors_`` exactly.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
            The training features.
        y : array-like of shape (n,)
            The training labels (from ``classes_``).
        sample_weight : array-like of shape (n,), optional
            The ``sample_weight`` fit was given (the estimator does not keep it).
        tol : float, optional
            Tolerance of the certificate (default: that of ``certificate_``).

        Returns
        -------
        Certificate
            ``ok`` when the optimum is certified on ``(X, y)``.

        Examples
        --------
        >>> import pickle
        >>> X, y = [[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]], [0, 0, 1, 1]
        >>> clf = pickle.loads(pickle.dumps(ExactSVC(C=10.0).fit(X, y)))
        >>> hasattr(clf, "solution_"), clf.recertify(X, y).ok, hasattr(clf, "solution_")
        (False, True, True)
        """
        check_is_fitted(self)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=False)
        check_classification_targets(y)
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise DataError(
                f"labels {unknown[:10].tolist()} are not among classes_ "
                f"{self.classes_.tolist()}; give the training labels"
            )
        n = self.alpha_.shape[0]
        if X.shape[0] != n:
            raise DataError(
                f"X has {X.shape[0]} rows, but the model was fit on {n}; "
                "give the training data, rows in the same order"
            )
        y_pm = np.where(y == self.classes_[1], 1.0, -1.0)
        rows, sv = X[self.support_], self.support_vectors_
        rows = rows.toarray() if sp.issparse(rows) else rows
        sv = sv.toarray() if sp.issparse(sv) else sv
        if not (
            np.array_equal(rows, sv)
            and np.array_equal(y_pm[self.support_], np.sign(self.dual_coef_[0]))
        ):
            raise DataError(
                "X, y are not the training data: the rows support_ differ from "
                "support_vectors_ (or their labels from dual_coef_'s signs); give "
                "the data fit saw, rows in the same order"
            )
        problem = self._problem(
            self._dataset(X, y_pm, self.classes_), _check_sample_weight(sample_weight, X)
        )
        cert = certify(
            problem,
            self.coef_[0],
            self.intercept_[0],
            self.alpha_,
            tol=self.certificate_.tol if tol is None else tol,
        )
        fields = self.__dict__.pop("_solution_fields", None)
        if fields is not None and "solution_" not in self.__dict__:
            self.solution_ = ExactSolution(**fields, alpha=self.alpha_, problem=problem)
        return cert

    # Pickles: everything but the training set (see the class Notes).

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())  # a copy: the live __dict__ stays as it is
        sol = state.pop("solution_", None)
        if sol is not None:
            state["_solution_fields"] = {
                f.name: getattr(sol, f.name)
                for f in dataclasses.fields(sol)
                if f.name not in ("problem", "alpha")
            }
        alpha = state.pop("alpha_", None)
        if alpha is not None:
            nz = np.flatnonzero(alpha)
            state["_alpha_nonzero"] = (alpha.shape[0], nz, alpha[nz])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        packed = state.pop("_alpha_nonzero", None)
        if packed is not None:
            n, nz, values = packed
            alpha = np.zeros(n)
            alpha[nz] = values
            state["alpha_"] = alpha
        super().__setstate__(state)

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: explain the one attribute a pickle drops.
        if name == "solution_" and "_solution_fields" in self.__dict__:
            raise AttributeError(
                "solution_ is not pickled (it holds the training set); "
                "call recertify(X, y) with the training data to rebuild it"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __copy__(self) -> ExactSVC:
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> ExactSVC:
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new


# --------------------------------------------------------------------------- online


class _OnlineClassifier(_LinearBinary):
    """Shared ``fit``/``partial_fit`` of the online estimators (not used directly)."""

    class_weight: Any = None

    def _batch_weights(
        self, X: Any, y_pm: np.ndarray, classes: np.ndarray, sample_weight: Any
    ) -> np.ndarray | None:
        """A batch's weights: ``sample_weight`` times the weight of each row's class.

        A batch may hold one class, so nothing asks for both here.
        """
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

    def _learner(self) -> OnlineLearner:
        raise NotImplementedError

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

        The same steps as ``maxmargin.run(learner, Dataset(X, y), epochs, order, seed)``:
        ``coef_`` and ``intercept_`` are the run's final ``w`` and ``b``. ``max_iter``
        and ``random_state``, when given, stand for ``epochs`` and ``seed``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
            Two distinct labels.
        sample_weight : array-like of shape (n,), optional
            Example weights ``>= 0`` (times ``class_weight``), taken by the learner's
            rule (``sample_weight_rule`` of :mod:`maxmargin.online`: the step scaled by
            the weight, as scikit-learn's ``Perceptron`` and ``SGDClassifier``; PA's
            ``C_i = C s_i``). The plain ``"pa"`` variant has no C and refuses them.

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
            resolve_alias("epochs", self.epochs, 10, "max_iter", self.max_iter),
            minimum=1,
        )
        order = check_choice("order", self.order, ORDERS)
        seed = _check_seed(seed_from_random_state(self.random_state, self.seed))
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

        The first call (on an unfitted estimator) starts the learner from zero; later
        calls, and calls after :meth:`fit`, continue from its state (weights, step
        count, running averages). A stream fed in batches reaches the weights of a cyclic
        :meth:`fit` over their concatenation.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (m, d)
        y : array-like of shape (m,)
            Labels; a batch may hold one class only once ``classes_`` is known.
        classes : array-like of shape (2,), optional
            The two labels. Needed on the first call when that batch does not show both;
            later, when given, must equal ``classes_``.
        sample_weight : array-like of shape (m,), optional
            Weights of the batch's rows (as :meth:`fit`); ``class_weight="balanced"``
            is not available here (the class counts of the whole stream are unknown).

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
            classes_, _ = _binary_targets(self, y, classes)
        else:
            check_classification_targets(y)
            classes_ = self.classes_
            if classes is not None and not np.array_equal(np.unique(classes), classes_):
                raise DataError(
                    f"classes={np.unique(classes).tolist()} differs from the "
                    f"classes_ {classes_.tolist()} of the earlier calls; call fit "
                    "(or clone the estimator) to start again"
                )
            unknown = np.setdiff1d(np.unique(y), classes_)
            if unknown.size:
                raise DataError(
                    f"labels {unknown[:10].tolist()} are not among classes_ {classes_.tolist()}"
                )
        y_pm = np.where(y == classes_[1], 1.0, -1.0)
        sw = self._batch_weights(X, y_pm, classes_, sample_weight)
        state = OnlineState(self._learner()) if first else self._state
        state.update(X, y_pm, sample_weight=sw)
        self.classes_ = classes_
        self._publish(state)
        self.n_iter_ = 1
        return self


_ONLINE_PARAMS = """epochs : int >= 1
        Passes over the data in :meth:`fit`.
    order : {"cyclic", "shuffle", "sample"}
        Example order of :meth:`fit` (see :func:`maxmargin.online.schedule`).
    seed : int >= 0
        Seed of the random orders; same seed, same weights.
    intercept : {"augmented", "none", "free"}
        ``augmented``: x -> (x, s), the bias ``b = s w_{d+1}`` is learnt like a weight;
        ``free``: the same bias, unregularised (never shrunk or projected: SGDClassifier's);
        ``none``: f(x) = w.x.
    intercept_scaling : float > 0
        ``s``.
    max_iter : int >= 1, optional
        scikit-learn's name for ``epochs`` (``SGDClassifier``, ``Perceptron``): when
        given, it is the number of passes (``epochs`` must then be left at its default
        or equal it).
    random_state : int >= 0, numpy RandomState or Generator, optional
        scikit-learn's name for ``seed``: when given, an int is the seed and a
        RandomState draws one. None (the default) uses ``seed``, so fits are
        reproducible (unlike scikit-learn, where None means fresh randomness).
    class_weight : dict or "balanced", optional
        Per-class weights multiplied into ``sample_weight`` (``{label: weight}``, a
        label left out weighing 1, or ``"balanced"``: ``n / (2 n_c)``, :meth:`fit`
        only)."""

_ONLINE_ATTRS = """classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the +1 class.
    coef_ : ndarray of shape (1, d)
    intercept_ : ndarray of shape (1,)
    t_ : int
        Steps taken (examples seen, over fit and every partial_fit).
    n_mistakes_ : int
        Mistakes made during training (``y_t w_t.z_t <= 0``).
    n_iter_ : int
        Passes over the data in the last call: ``epochs`` after :meth:`fit`, 1 after
        :meth:`partial_fit` (as scikit-learn's ``SGDClassifier``).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names."""


class PerceptronClassifier(_OnlineClassifier):  # noqa: D101 (__doc__: an f-string, below)
    __doc__ = f"""The perceptron (:class:`maxmargin.online.Perceptron`) as an estimator.

    ``w += y z`` on every ``y w.z <= 0``, from ``w = 0``.

    Parameters
    ----------
    {_ONLINE_PARAMS}

    Attributes
    ----------
    {_ONLINE_ATTRS}

    Examples
    --------
    >>> from maxmargin.estimators import PerceptronClassifier
    >>> X = [[0.0, 1.0], [1.0, 2.0], [3.0, 0.0], [4.0, 1.0]]
    >>> clf = PerceptronClassifier(epochs=5).fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[0.0, 2.0], [5.0, 0.0]]).tolist(), clf.score(X, ["a", "a", "b", "b"])
    (['a', 'b'], 1.0)
    """

    def __init__(
        self,
        *,
        epochs: int = 10,
        order: str = "shuffle",
        seed: int = 0,
        intercept: str = "augmented",
        intercept_scaling: float = 1.0,
        max_iter: int | None = None,
        random_state: Any = None,
        class_weight: Any = None,
    ) -> None:
        self.epochs = epochs
        self.order = order
        self.seed = seed
        self.intercept = intercept
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.random_state = random_state
        self.class_weight = class_weight

    def _learner(self) -> OnlineLearner:
        return Perceptron(intercept=self.intercept, intercept_scaling=self.intercept_scaling)


class AveragedPerceptronClassifier(PerceptronClassifier):  # noqa: D101 (__doc__: an f-string, below)
    __doc__ = f"""The averaged perceptron (:class:`maxmargin.online.AveragedPerceptron`).

    Runs the perceptron and reports the mean of its iterates over every step taken
    (across ``partial_fit`` calls too).

    Parameters
    ----------
    {_ONLINE_PARAMS}

    Attributes
    ----------
    {_ONLINE_ATTRS}

    Examples
    --------
    >>> from maxmargin.estimators import AveragedPerceptronClassifier
    >>> X = [[0.0, 1.0], [1.0, 2.0], [3.0, 0.0], [4.0, 1.0]]
    >>> clf = AveragedPerceptronClassifier(order="cyclic").partial_fit(X, [0, 0, 1, 1])
    >>> clf.t_, clf.predict([[5.0, 0.0]]).tolist()
    (4, [1])
    """

    def _learner(self) -> OnlineLearner:
        return AveragedPerceptron(
            intercept=self.intercept, intercept_scaling=self.intercept_scaling
        )


class PegasosClassifier(_OnlineClassifier):  # noqa: D101 (__doc__: an f-string, below)
    __doc__ = f"""Online subgradient SoftSVM(lambda) (:class:`maxmargin.online.Pegasos`).

    Minimises ``lam/2 ||w~||^2 + (1/n) sum_i hinge_i`` (the SVM with ``C = 1/(lam n)``)
    by ``w_(t+1) = theta_t / (lam (t+1))``, ``theta_t = theta_(t-1) + y z 1[y w.z < 1]``.

    Parameters
    ----------
    lam : float > 0
        lambda (scikit-learn's SGDClassifier ``alpha``).
    alpha : float > 0, optional
        scikit-learn's name for ``lam`` (``SGDClassifier(alpha=...)``): when given, it
        is lambda (``lam`` must then be left at its default or equal it).
    projection : {{None, "lazy", "greedy"}}
        Projection onto the ball of radius ``1/sqrt(lam)``.
    batch_size : int >= 1
        Mini-batch size (a batch never spans two ``partial_fit`` calls).
    average : bool
        Report the mean of the iterates (the point of the ``O(log T / (lam T))`` bound)
        instead of the last iterate.
    {_ONLINE_PARAMS}

    Attributes
    ----------
    {_ONLINE_ATTRS}

    Examples
    --------
    >>> from maxmargin.estimators import PegasosClassifier
    >>> X = [[0.0, 1.0], [1.0, 2.0], [3.0, 0.0], [4.0, 1.0]]
    >>> clf = PegasosClassifier(lam=0.1, average=True).fit(X, [0, 0, 1, 1])
    >>> clf.score(X, [0, 0, 1, 1]), clf.t_
    (1.0, 40)
    """

    def __init__(
        self,
        lam: float = 1e-4,
        *,
        projection: str | None = None,
        batch_size: int = 1,
        average: bool = False,
        epochs: int = 10,
        order: str = "shuffle",
        seed: int = 0,
        intercept: str = "augmented",
        intercept_scaling: float = 1.0,
        alpha: float | None = None,
        max_iter: int | None = None,
        random_state: Any = None,
        class_weight: Any = None,
    ) -> None:
        self.lam = lam
        self.projection = projection
        self.batch_size = batch_size
        self.average = average
        self.epochs = epochs
        self.order = order
        self.seed = seed
        self.intercept = intercept
        self.intercept_scaling = intercept_scaling
        self.alpha = alpha
        self.max_iter = max_iter
        self.random_state = random_state
        self.class_weight = class_weight

    def _use_average(self) -> bool:
        return bool(self.average)

    def _learner(self) -> OnlineLearner:
        lam = resolve_alias("lam", self.lam, 1e-4, "alpha", self.alpha)
        return Pegasos(
            lam=lam,
            projection=self.projection,
            batch_size=self.batch_size,
            intercept=self.intercept,
            intercept_scaling=self.intercept_scaling,
        )


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

    Attributes
    ----------
    {_ONLINE_ATTRS}

    Examples
    --------
    >>> from maxmargin.estimators import PAClassifier
    >>> X = [[0.0, 1.0], [1.0, 2.0], [3.0, 0.0], [4.0, 1.0]]
    >>> PAClassifier(C=1.0, variant="pa2").fit(X, [-1, -1, 1, 1]).score(X, [-1, -1, 1, 1])
    1.0
    """

    def __init__(
        self,
        C: float = 1.0,
        *,
        variant: str = "pa1",
        epochs: int = 10,
        order: str = "shuffle",
        seed: int = 0,
        intercept: str = "augmented",
        intercept_scaling: float = 1.0,
        max_iter: int | None = None,
        random_state: Any = None,
        class_weight: Any = None,
    ) -> None:
        self.C = C
        self.variant = variant
        self.epochs = epochs
        self.order = order
        self.seed = seed
        self.intercept = intercept
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.random_state = random_state
        self.class_weight = class_weight

    def _learner(self) -> OnlineLearner:
        variant = check_choice("variant", self.variant, ("pa1", "pa2", "pa"))
        kw: dict[str, Any] = {
            "intercept": self.intercept,
            "intercept_scaling": self.intercept_scaling,
        }
        if variant == "pa":
            return PA(**kw)
        return (PA1 if variant == "pa1" else PA2)(C=self.C, **kw)
