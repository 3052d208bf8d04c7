"""The exact SVM as a scikit-learn estimator: :class:`ExactSVC`."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets
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
from ._base import _binary_targets, _check_sample_weight, _labels, _LinearBinary

__all__ = ["ExactSVC"]

#: What a kernel fit's pickle keeps of its solution (beside ``alpha_`` and the weights).
_KERNEL_FIELDS = (
    "b", "support", "free_support", "bound_support", "dual_coef", "status", "route",
    "iterations", "polished", "solve_seconds",
)  # fmt: skip


class ExactSVC(_LinearBinary):
    r"""SVM solved exactly and certified: :func:`maxmargin.solve` as an estimator.

    Solves the C-form soft-margin SVM (or the hard-margin SVM with ``hard=True``)

    .. math::

        \min_{w, b}\ \tfrac12 \|w\|^2 + C \sum_i \max(0, 1 - y_i (w \cdot x_i + b))

    to the optimum, polishes it on its active set, and attaches the numpy-recomputed
    certificate (duality gap, KKT residuals). With ``intercept="free"`` it is the
    problem of ``sklearn.svm.SVC(kernel="linear", C=C)``. ``loss="squared_hinge"``
    squares each slack (``C sum_i max(0, 1 - y_i f_i)^2``, the L2-loss SVM): with
    ``intercept="augmented"`` it is the problem of ``sklearn.svm.LinearSVC(C=C)`` (its
    default loss, its regularized intercept). Any other ``kernel`` is
    ``SVC(kernel=...)``'s problem, solved by the kernel dual
    (:func:`~maxmargin.solvers.kernel.solve_kernel_dual`) and certified by
    :func:`~maxmargin.kernel_certificate.certify_kernel`.

    Parameters
    ----------
    C : float > 0
        Soft-margin penalty (ignored when ``hard=True``).
    kernel : {"linear", "rbf", "poly", "sigmoid", "precomputed"} or callable
        As ``SVC``'s (:mod:`maxmargin.kernels`). Only ``"linear"`` has ``coef_``, the
        intercept mode ``augmented``, ``form`` and ``solver``.
    degree : int >= 0
        ``poly``'s degree.
    gamma : float > 0 or {"scale", "auto"}
        ``rbf``, ``poly`` and ``sigmoid``: ``"scale"`` is ``1 / (d X.var())``,
        ``"auto"`` is ``1 / d``, as ``SVC``.
    coef0 : float
        ``poly`` and ``sigmoid``'s constant.
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
    loss : {"hinge", "squared_hinge"}
        The soft margin's loss, ``LinearSVC``'s name: ``xi_i`` or ``xi_i^2`` (linear
        kernel only; the hard margin is the same problem under either).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the +1 class.
    coef_ : ndarray of shape (1, d)
        ``w`` (linear kernel only; an AttributeError otherwise, as ``SVC``).
    intercept_ : ndarray of shape (1,)
        ``b``.
    support_ : ndarray of shape (n_SV,), int
        Indices of the support vectors (``ExactSolution.support``), class ``classes_[0]``
        first, each class in index order (SVC's order). ``decision_function(X) =
        k(X, support_vectors_) @ dual_coef_[0] + intercept_`` for every kernel.
    support_vectors_ : ndarray or sparse of shape (n_SV, d)
        ``X[support_]`` (an empty (0, 0) array for ``precomputed``, as ``SVC``).
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
        The geometric margin ``1/||w~||``; for another kernel ``1/||f||_H``, with
        ``||f||_H^2 = (alpha y)' K (alpha y)`` (``KernelSolution.margin``).
    solution_ : ExactSolution or KernelSolution
        Everything :func:`maxmargin.solve` returned. Pickled without its data (its
        problem holds the training set): after unpickling, :meth:`recertify` with the
        training data rebuilds it.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names (a pandas DataFrame).

    Notes
    -----
    **Pickles** keep what predicting and re-certifying need, not the training set:
    ``coef_``, ``intercept_``, the support vectors (``support_``,
    ``support_vectors_``, ``dual_coef_``), ``alpha_`` (stored by its non-zero entries:
    after the polish it is exactly 0 off the support vectors), ``certificate_`` and
    ``solution_`` without its data (what its file keeps: ``ExactSolution.to_dict()``,
    the problem's parameters and weights but not the training set). The size is
    O(#SV d), not O(n d) (plus n weights when ``fit`` had ``sample_weight`` or
    ``class_weight``). A certificate needs every example (the hinge losses of the
    primal, the stationarity ``w = sum_i alpha_i y_i x_i``): ``clf.recertify(X, y)``
    re-checks the optimum on the training data and restores ``solution_`` (another
    kernel's too: its pickle keeps ``alpha_``, ``intercept_``, the support sets and the
    example weights, and the problem is rebuilt with fit's resolved ``gamma``).
    ``copy.copy`` and ``copy.deepcopy`` keep everything.

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

    solution_: ExactSolution | KernelSolution

    def __init__(
        self,
        C: float = 1.0,
        *,
        kernel: Any = "linear",
        degree: int = 3,
        gamma: float | str = "scale",
        coef0: float = 0.0,
        hard: bool = False,
        intercept: str = DEFAULT_INTERCEPT,
        form: str = "dual",
        solver: str | None = None,
        intercept_scaling: float = 1.0,
        class_weight: Any = None,
        loss: str = DEFAULT_LOSS,
    ) -> None:
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.hard = hard
        self.intercept = intercept
        self.form = form
        self.solver = solver
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.loss = loss

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
            kw.update(kernel=self.kernel, gamma=self.gamma, degree=self.degree)
            kw["coef0"] = self.coef0
        if self.hard:
            return SVMProblem(
                data,
                hard=True,
                intercept=self.intercept,
                intercept_scaling=s,
                sample_weight=sample_weight,
                class_weight=self.class_weight,
                **kw,
            )
        return SVMProblem(
            data,
            C=check_positive("C", self.C),
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
        self.solution_ = sol
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

        ``solution_.with_data``: recomputes the certificate of the fitted point with
        numpy from ``(X, y)`` (and the example weights ``fit`` was given, which the
        solution keeps), as :func:`maxmargin.certify` does, and sets ``solution_`` to
        the solution on ``(X, y)`` (restoring it after unpickling). Another kernel:
        the kernel problem rebuilt on ``(X, y)`` (fit's resolved ``gamma``, its example
        weights) and ``(alpha_, intercept_)`` certified by
        :func:`~maxmargin.kernel_certificate.certify_kernel`. ``(X, y)`` must be the
        training data, rows in the same order: the rows ``support_`` must equal
        ``support_vectors_`` exactly (a precomputed Gram has none to compare).

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
        """The kernel fit's solution on ``data``: its problem rebuilt, its point certified.

        ``saved``: what a pickle kept of it (:meth:`__getstate__`), else ``solution_``.
        The problem is fit's, with its resolved ``gamma`` and example weights.
        """
        if saved is None:
            sol = self.solution_
            saved = {name: getattr(sol, name) for name in _KERNEL_FIELDS}
            saved["weights"] = sol.problem.weights
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
            # its problem holds the training set and the Gram: what recertify needs
            # besides them (the example weights: n numbers when fit had some)
            state["_solution"] = {name: getattr(sol, name) for name in _KERNEL_FIELDS}
            state["_solution"]["weights"] = sol.problem.weights
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
