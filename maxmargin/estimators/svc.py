"""The exact SVM as a scikit-learn estimator: :class:`ExactSVC`."""

from __future__ import annotations

import copy
import warnings
from dataclasses import KW_ONLY, dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_choice, check_positive
from ..certificate import Certificate
from ..conventions import DEFAULT_INTERCEPT, DEFAULT_LOSS, INTERCEPTS, LOSSES
from ..data import Dataset
from ..exact import solve
from ..exceptions import DataError, ParameterError
from ..kernel_certificate import certify_kernel
from ..kernel_problem import KernelProblem
from ..kernels import kernel_block, make_kernel
from ..problem import SVMProblem
from ..solution import ExactSolution
from ..solvers import FORMS
from ..solvers.kernel import KernelSolution
from ._base import _binary_targets, _check_sample_weight, _known_pm, _labels, _LinearBinary

__all__ = ["ExactSVC"]

#: What a kernel fit's pickle keeps of its solution (beside ``alpha_`` and the weights).
_KERNEL_FIELDS = (
    "b", "support", "free_support", "bound_support", "dual_coef", "status", "route",
    "iterations", "polished", "solve_seconds",
)  # fmt: skip


def _kernel_fields(sol: Any) -> dict[str, Any]:
    """What a kernel fit keeps of its solution: ``_KERNEL_FIELDS`` and the example weights."""
    return {**{name: getattr(sol, name) for name in _KERNEL_FIELDS}, "weights": sol.problem.weights}


# Dataclass fields: scikit-learn reads the parameters from the __init__ the dataclass writes.
@dataclass(eq=False, repr=False)
class ExactSVC(_LinearBinary):
    r"""SVM solved exactly and certified: :func:`maxmargin.solve` as an estimator.

    Solves the C-form soft-margin SVM (or the hard-margin SVM with ``hard=True``)

    .. math::

        \min_{w, b}\ \tfrac12 \|w\|^2 + C \sum_i \max(0, 1 - y_i (w \cdot x_i + b))

    to the certified optimum: ``SVC(kernel=..., C=C)``'s problem with ``intercept="free"``,
    ``LinearSVC(C=C)``'s with ``loss="squared_hinge", intercept="augmented"``. See
    ``docs/estimators.md``.

    Parameters
    ----------
    C : float > 0
        Soft-margin penalty (ignored when ``hard=True``).
    kernel : {"linear", "rbf", "poly", "sigmoid", "precomputed"} or callable
        As ``SVC``'s; only ``"linear"`` has ``coef_``, ``augmented``, ``form``, ``solver``.
    degree : int >= 0
    gamma : float > 0 or {"scale", "auto"}
    coef0 : float
    hard : bool
        Hard margin; non-separable data raise :class:`~maxmargin.exceptions.NotSeparableError`.
    intercept : {"free", "none", "augmented"}
        ``free``: b not regularized (SVC); ``none``: b = 0; ``augmented``: x -> (x, s).
    form : {"dual", "primal"}
        Which QP the solver sees.
    solver : str, optional
        A QP solver name (``"PIQP"``, ``"CLARABEL"``, ...); default the fastest installed.
    intercept_scaling : float > 0
        ``s`` of the augmented mode.
    class_weight : dict or "balanced", optional
        Per-class weights multiplied into ``fit``'s ``sample_weight``, as ``SVC``'s.
    loss : {"hinge", "squared_hinge"}
        The soft margin's loss (linear kernel only).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the +1 class.
    coef_ : ndarray of shape (1, d)
        ``w`` (linear kernel only).
    intercept_ : ndarray of shape (1,)
    support_ : ndarray of shape (n_SV,), int
        Support vectors, class ``classes_[0]`` first, each in index order (SVC's).
    support_vectors_ : ndarray or sparse of shape (n_SV, d)
    dual_coef_ : ndarray of shape (1, n_SV)
        ``y_i alpha_i`` of the support vectors.
    n_support_ : ndarray of shape (2,), int32
    alpha_ : ndarray of shape (n,)
    certificate_ : Certificate
    margin_ : float
        ``1/||w~||`` (another kernel: ``1/||f||_H``).
    solution_ : ExactSolution or KernelSolution
        What :func:`maxmargin.solve` returned; not pickled (:meth:`recertify` rebuilds it).
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Notes
    -----
    Pickles keep what predicting and :meth:`recertify` need, not the training set
    (``docs/estimators.md``).

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

    C: float = 1.0
    _: KW_ONLY
    kernel: Any = "linear"
    degree: int = 3
    gamma: float | str = "scale"
    coef0: float = 0.0
    hard: bool = False
    intercept: str = DEFAULT_INTERCEPT
    form: str = "dual"
    solver: str | None = None
    intercept_scaling: float = 1.0
    class_weight: Any = None
    loss: str = DEFAULT_LOSS

    def _dataset(self, X: Any, y_pm: np.ndarray, classes: np.ndarray) -> Dataset:
        """The training data, with the DataFrame's column names and the labels."""
        names = getattr(self, "feature_names_in_", None)
        return Dataset(
            X,
            y_pm,
            name=type(self).__name__,
            classes=_labels(classes),
            feature_names=None if names is None else names.tolist(),
        )

    def _linear(self) -> bool:
        """Whether the kernel is the linear one (the primal/dual route, ``coef_``)."""
        return isinstance(self.kernel, str) and self.kernel == "linear"

    def _problem(self, data: Dataset, sample_weight: Any = None) -> Any:
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
        kw: dict[str, Any] = {"loss": check_choice("loss", self.loss, LOSSES)}
        if not self._linear():
            if self.solver is not None:
                raise ParameterError(
                    f"The 'solver' parameter is the linear kernel's; a {self.kernel!r} "
                    f"kernel is solved by its own dual route. Leave solver=None."
                )
            kw.update(kernel=self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0)
        if self.hard:
            kw["hard"] = True
        else:
            kw["C"] = check_positive("C", self.C)
        return SVMProblem(
            data,
            intercept=self.intercept,
            intercept_scaling=s,
            sample_weight=sample_weight,
            class_weight=self.class_weight,
            **kw,
        )

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> ExactSVC:
        """Solve the SVM on ``(X, y)`` exactly and certify the optimum.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
            For ``kernel="precomputed"``: the Gram matrix, shape (n, n).
        y : array-like of shape (n,)
            Two distinct labels (numbers or strings).
        sample_weight : array-like of shape (n,), optional
            Weights ``>= 0``: example i costs ``C_i = C sample_weight_i`` (as ``SVC``).

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
        for stale in ("coef_", "margin_", "_gamma"):  # left by an earlier fit
            self.__dict__.pop(stale, None)
        sol: ExactSolution | KernelSolution
        if self._linear():
            sol = solve(problem, form=self.form, solver=self.solver)
            self.coef_ = np.asarray(sol.w, dtype=np.float64).reshape(1, -1)
            self.margin_ = float(sol.margin)
        else:
            sol = solve(problem)
            self._gamma = float(problem.gram.gamma)
            self.margin_ = float(sol.margin)
        sup = np.asarray(sol.support, dtype=np.intp)
        sup = np.concatenate([sup[y_pm[sup] < 0], sup[y_pm[sup] > 0]])
        self.classes_ = classes
        self.intercept_ = np.array([float(sol.b)])
        self.alpha_ = np.asarray(sol.alpha, dtype=np.float64)
        self.support_ = sup.astype(np.int32)
        # SVC keeps no support vectors for a precomputed Gram (its rows are not points)
        vectors: Any = np.empty((0, 0)) if self.kernel == "precomputed" else X[sup]
        self.support_vectors_ = vectors
        self.dual_coef_ = (y_pm[sup] * self.alpha_[sup]).reshape(1, -1)
        self.n_support_ = np.array([(y_pm[sup] < 0).sum(), (y_pm[sup] > 0).sum()], dtype=np.int32)
        self.certificate_ = sol.certificate
        self.solution_: ExactSolution | KernelSolution = sol
        self.__dict__.pop("_solution", None)  # left by an unpickled earlier fit
        return self

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = isinstance(self.kernel, str) and self.kernel == "precomputed"
        return tags

    def decision_function(self, X: Any) -> np.ndarray:
        """Signed score ``f(x) = sum_j dual_coef_j k(x, sv_j) + b``; positive: ``classes_[1]``.

        For the linear kernel ``f(x) = coef_ . x + intercept_``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (m, d)
            For ``kernel="precomputed"``: ``K(X, X_train)``, shape (m, n_train).

        Returns
        -------
        ndarray of shape (m,)

        Examples
        --------
        >>> X = [[-2.0], [-1.0], [0.0], [1.0], [2.0]]
        >>> clf = ExactSVC(C=10.0, kernel="rbf", gamma=1.0).fit(X, [0, 0, 1, 0, 0])
        >>> (clf.decision_function([[0.0], [2.0]]) > 0).tolist()
        [True, False]
        """
        if self._linear():
            return super().decision_function(X)
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        if self.kernel == "precomputed":
            Kx = X[:, self.support_]
            Kx = Kx.toarray() if sp.issparse(Kx) else Kx
        else:
            kernel = make_kernel(
                self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0
            )
            Kx = kernel_block(kernel, self._gamma, X, self.support_vectors_)
        return np.asarray(Kx @ self.dual_coef_[0]).reshape(-1) + self.intercept_[0]

    def recertify(self, X: Any, y: Any, *, tol: float | None = None) -> Certificate:
        """Re-check the fitted optimum on the training data (after unpickling, say).

        Recomputes the fitted point's certificate with numpy on ``(X, y)``, the training
        data in the same row order, and sets ``solution_`` (``docs/estimators.md``).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
            The training features (``"precomputed"``: the training Gram, (n, n)).
        y : array-like of shape (n,)
            The training labels (from ``classes_``).
        tol : float, optional
            Tolerance of the certificate (default: that of ``certificate_``).

        Returns
        -------
        Certificate
            ``ok`` when the optimum is certified on ``(X, y)`` (else a RuntimeWarning,
            and ``solution_.status`` is ``"uncertified"``).

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
        y_pm = _known_pm(y, self.classes_, "; give the training labels")
        n = self.alpha_.shape[0]
        if X.shape[0] != n:
            raise DataError(
                f"X has {X.shape[0]} rows, but the model was fit on {n}; "
                "give the training data, rows in the same order"
            )
        rows, sv = X[self.support_], self.support_vectors_
        rows = rows.toarray() if sp.issparse(rows) else rows
        sv = sv.toarray() if sp.issparse(sv) else sv
        if self.kernel == "precomputed":
            rows = sv  # SVC keeps no support vectors for a Gram: its rows are not points
        if not (
            np.array_equal(rows, sv)
            and np.array_equal(y_pm[self.support_], np.sign(self.dual_coef_[0]))
        ):
            raise DataError(
                "X, y are not the training data: the rows support_ differ from "
                "support_vectors_ (or their labels from dual_coef_'s signs); give "
                "the data fit saw, rows in the same order"
            )
        data = self._dataset(X, y_pm, self.classes_)
        tol = self.certificate_.tol if tol is None else tol
        saved = self.__dict__.get("_solution")  # the solution a pickle kept
        sol: ExactSolution | KernelSolution
        if not self._linear():
            sol = self._kernel_solution(data, tol, saved)
        elif saved is None:
            assert isinstance(self.solution_, ExactSolution)
            sol = self.solution_.with_data(data, tol=tol)
        else:
            sol = ExactSolution.from_json(saved, data, tol=tol)
        self.__dict__.pop("_solution", None)
        self.solution_ = sol
        return sol.certificate

    def _kernel_solution(
        self, data: Dataset, tol: float, saved: dict[str, Any] | None
    ) -> KernelSolution:
        """The kernel fit's solution on ``data`` (from ``saved``, a pickle's, or ``solution_``)."""
        if saved is None:
            saved = _kernel_fields(self.solution_)
        kw = {"hard": True} if self.hard else {"C": float(self.C)}
        # fit's gamma, resolved ("scale" reads X): the kernels that have one
        gamma = self._gamma if self.kernel in ("rbf", "poly", "sigmoid") else self.gamma
        problem = KernelProblem(
            data,
            make_kernel(self.kernel, gamma=gamma, degree=self.degree, coef0=self.coef0),
            intercept=self.intercept,
            sample_weight=saved["weights"],
            **kw,
        )
        cert = certify_kernel(problem, self.alpha_, float(self.intercept_[0]), tol=tol)
        fields = {name: saved[name] for name in _KERNEL_FIELDS}
        if not cert.ok:
            fields["status"] = "uncertified"
            warnings.warn(
                f"{data.name}: the fitted point is NOT CERTIFIED on these data (relative "
                f"gap {cert.relative_gap:.2e}, worst KKT residual {cert.worst()[0]} = "
                f"{cert.worst()[1]:.2e}): are they the data it was fit on?",
                RuntimeWarning,
                stacklevel=3,
            )
        return KernelSolution(alpha=self.alpha_, certificate=cert, problem=problem, **fields)

    # Pickles: everything but the training set (see the class Notes).

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())  # a copy: the live __dict__ stays as it is
        sol = state.pop("solution_", None)
        if isinstance(sol, KernelSolution):
            # its problem holds the training set and the Gram: what recertify needs besides
            state["_solution"] = _kernel_fields(sol)
        elif sol is not None:
            # what a file of it keeps (without_data's fields, alpha by its non-zero
            # entries): the in-memory without_data() holds alpha dense, O(n)
            state["_solution"] = sol.to_dict()
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
        if name == "solution_" and "_solution" in self.__dict__:
            raise AttributeError(
                "solution_ is not pickled (it holds the training set); call recertify(X, y) "
                "with the training data to rebuild it"
            )
        if name == "coef_" and "support_" in self.__dict__ and not self._linear():
            raise AttributeError("coef_ is only available when using a linear kernel")
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
