r"""The linear SVM problem (:class:`SVMProblem`): data, C or lam or hard margin, intercept, loss.

Numpy only, so its objectives can be evaluated for any ``(w, b, alpha)``. The formulas
(C form ``P``, lambda form ``F = P / (C n)``, dual ``D``; hinge and squared hinge) are in
``docs/formulations.md``.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import io
from ._validation import check_choice, check_positive, check_scale, reciprocal_form
from .conventions import DEFAULT_INTERCEPT, DEFAULT_LOSS, INTERCEPTS, LOSSES
from .cvxpy_models import dual_model, primal_model
from .data import Dataset
from .data.weights import combine_weights, resolve_class_weight
from .exceptions import DataError, ParameterError
from .kernel_problem import OnData, one_form, svm_problem

__all__ = ["SVMProblem", "combine_weights", "resolve_class_weight"]


@dataclass(frozen=True, eq=False, init=False, kw_only=True)
class SVMProblem(OnData, io.Persistent):
    """A linear SVM problem on a :class:`Dataset`.

    Give at most one of ``C``, ``lam`` or ``hard=True`` (default ``C = 1``); the other form
    is derived: ``lam = 1 / (C n)``, and a hard margin has ``C = inf``, ``lam = 0``. A problem
    read from a file has no data until :meth:`with_data`.

    Parameters
    ----------
    data : Dataset
    C : float > 0, optional
        Soft-margin penalty of the C form.
    lam : float > 0, optional
        Regularization of the lambda form (SGDClassifier's ``alpha``); its ``C`` must be finite.
    hard : bool
        Hard margin: ``min 1/2 ||w~||^2 s.t. y_i f(x_i) >= 1``.
    intercept : {"free", "none", "augmented"}
        ``free``: b not regularized; ``none``: b = 0; ``augmented``: x -> (x, s), b = s w_{d+1}.
    intercept_scaling : float > 0
        The constant ``s`` of the augmented mode (liblinear's).
    sample_weight : array-like of shape (n,), optional
        Weights ``>= 0``: example i costs ``C_i = C sample_weight_i`` (soft margin only); a
        weight of 0 takes the example out (``alpha_i = 0``). See ``docs/weights.md``.
    class_weight : dict or "balanced", optional
        ``{label: weight}`` (original labels) or ``"balanced"`` (``n / (2 n_c)``), times
        ``sample_weight``.
    loss : {"hinge", "squared_hinge"}
        Each slack's loss: ``xi_i`` (L1-loss SVM) or ``xi_i^2`` (L2-loss; linear only).
    kernel : None, str, callable or Kernel, optional
        Other than None or ``"linear"``: the call returns a
        :class:`~maxmargin.kernel_problem.KernelProblem` (``docs/kernels.md``).
    gamma, degree, coef0
        The kernel's parameters, as :class:`sklearn.svm.SVC` takes them.

    Attributes
    ----------
    n, d : int
        The number of examples and of original features.
    data_name : str
        The data's name (written ``data`` in files).
    feature_names : tuple of str or None
        The data's names of the features.
    weights : ndarray of shape (n,) or None
        The weights ``s_i`` of the costs; None without (or all exactly 1).
    class_weight : dict or None
        The weight of each original label (not in files: its effect is in ``weights``).

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), C=2.0)
    >>> p.lam
    0.25
    >>> float(p.primal_objective([1.0], 0.0))
    0.5
    >>> q = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), C=2.0, sample_weight=[3.0, 1.0])
    >>> q.costs.tolist(), float(q.primal_objective([0.5], 0.0))  # 0.125 + 6 * 0.5
    ([6.0, 2.0], 4.125)
    """

    _data: Dataset | None = io.transient()  # None: read from a file without its data
    data_name: str = io.persist(key="data")
    n: int
    d: int
    feature_names: tuple[str, ...] | None
    C: float
    lam: float
    hard: bool
    intercept: str
    intercept_scaling: float
    weights: np.ndarray | None
    loss: str = DEFAULT_LOSS  # files written before the key have the hinge
    class_weight: dict | None = io.transient()  # its effect is in weights

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        """A kernel other than linear: :func:`~maxmargin.kernel_problem.svm_problem`'s."""
        kernel = kwargs.get("kernel")
        if kernel is None or (isinstance(kernel, str) and kernel == "linear"):
            return super().__new__(cls)
        loss = kwargs.pop("loss", DEFAULT_LOSS)
        if loss != DEFAULT_LOSS:
            raise ParameterError(
                f"loss={loss!r} is for linear problems; a kernel problem solves the hinge "
                "(loss='hinge')"
            )
        return svm_problem(*args, **kwargs)

    def __init__(
        self,
        data: Dataset,
        C: float | None = None,
        lam: float | None = None,
        hard: bool = False,
        intercept: str = DEFAULT_INTERCEPT,
        intercept_scaling: float = 1.0,
        *,
        sample_weight: Any = None,
        class_weight: Any = None,
        loss: str = DEFAULT_LOSS,
        kernel: Any = None,
        gamma: float | str = "scale",
        degree: int = 3,
        coef0: float = 0.0,
    ) -> None:
        if not isinstance(data, Dataset):
            raise ParameterError(
                f"SVMProblem needs a maxmargin.Dataset, got {type(data).__name__}; "
                "wrap arrays with Dataset(X, y)"
            )
        hard = one_form(C, lam, hard)
        check_choice("intercept", intercept, INTERCEPTS)
        check_choice("loss", loss, LOSSES)
        s = check_scale("intercept_scaling", intercept_scaling)
        n = data.n
        if hard:
            C, lam = math.inf, 0.0
        elif lam is not None:
            lam = check_positive("lam", lam)
            C = reciprocal_form("lam", lam, n, "C")
        else:
            C = check_positive("C", 1.0 if C is None else C)
            lam = reciprocal_form("C", C, n, "lam")
        if hard and (sample_weight is not None or class_weight is not None):
            raise ParameterError(
                "sample_weight and class_weight are costs of the soft margin (C_i = C s_i); "
                "the hard margin has none: give C (or lam), or drop the examples to leave "
                "out"
            )
        weights, classes = combine_weights(data, sample_weight, class_weight)
        if weights is not None and not math.isfinite(C * float(weights.max())):
            raise DataError(
                f"the costs C_i = C * weight_i overflow (C = {C!r}, largest "
                f"weight {float(weights.max())!r}); scale the weights down"
            )
        for name, value in (
            ("_data", data),
            ("data_name", data.name),
            ("n", n),
            ("d", data.d),
            ("feature_names", data.feature_names),
            ("C", C),
            ("lam", lam),
            ("hard", bool(hard)),
            ("intercept", intercept),
            ("intercept_scaling", s),
            ("weights", weights),
            ("loss", loss),
            ("class_weight", classes),
        ):
            object.__setattr__(self, name, value)

    # what inspect, the docs and the parameter checks read: __init__'s, not __new__'s
    __new__.__signature__ = inspect.signature(__init__)  # type: ignore[attr-defined]

    def with_data(self, data: Dataset) -> SVMProblem:
        """The problem on ``data`` (checked: same n, d and feature names), built anew.

        Parameters
        ----------
        data : Dataset
            The data it was stated on, rows in the same order.

        Returns
        -------
        SVMProblem

        Examples
        --------
        >>> data = Dataset([[1.0], [-1.0]], [1, -1])
        >>> p = SVMProblem(data, lam=0.3).without_data()
        >>> p.n, p.lam, p.with_data(data).lam == 0.3
        (2, 0.3, True)
        """
        self._check_shape(data)
        ours, theirs = self.feature_names, data.feature_names
        if ours is not None and theirs is not None and tuple(theirs) != ours:
            raise DataError(
                f"the problem's features are {list(ours)[:5]}...; {data.name} has "
                f"{list(theirs)[:5]}..."
            )
        s, w = self.intercept_scaling, self.weights
        C = None if self.hard else self.C
        p = SVMProblem(data, C, None, self.hard, self.intercept, s, sample_weight=w, loss=self.loss)
        object.__setattr__(p, "lam", self.lam)  # the stated lam to the bit (given, not C)
        return p

    # ------------------------------------------------------------------ structure

    @property
    def weighted(self) -> bool:
        """Whether the examples have weights (``weights`` is not None)."""
        return self.weights is not None

    @property
    def squared(self) -> bool:
        """Whether the slacks are squared: ``loss="squared_hinge"`` and a soft margin."""
        return self.loss == "squared_hinge" and not self.hard

    @cached_property
    def Z(self) -> Any:
        """The features the QP sees, (n, d) or (n, d+1) for ``augmented``; dense or CSR."""
        X = self.data.X
        if self.intercept != "augmented":
            return X
        col = np.full((self.n, 1), self.intercept_scaling)
        if sp.issparse(X):
            return sp.hstack([X, sp.csr_matrix(col)], format="csr")
        return np.hstack([X, col])

    @cached_property
    def R(self) -> float:
        """``max_i ||z_i||``: the radius of the features the learner sees."""
        r2 = self.data.row_norms() ** 2
        if self.intercept == "augmented":
            r2 = r2 + self.intercept_scaling**2
        return float(np.sqrt(r2.max()))

    def to_augmented(self, w: Any, b: Any) -> np.ndarray:
        """The weight vector in Z-space: ``w``, or ``(w, b/s)`` for ``augmented``.

        Parameters
        ----------
        w, b : array-like of shape (d,) or (k, d), and float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (d',) or (k, d')

        Examples
        --------
        >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), intercept="augmented",
        ...                intercept_scaling=2.0)
        >>> p.to_augmented([3.0], 1.0).tolist()
        [3.0, 0.5]
        """
        w = np.asarray(w, dtype=float)
        if self.intercept != "augmented":
            return w
        b = np.asarray(b, dtype=float)
        return np.concatenate([w, (b / self.intercept_scaling)[..., None]], axis=-1)

    def from_augmented(self, v: Any) -> tuple[np.ndarray, Any]:
        """Inverse of :meth:`to_augmented`: split a Z-space vector into ``(w, b)``.

        Parameters
        ----------
        v : array-like of shape (d',) or (k, d')

        Returns
        -------
        w : ndarray of shape (d,) or (k, d)
        b : float or ndarray of shape (k,)

        Examples
        --------
        >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), intercept="augmented")
        >>> w, b = p.from_augmented([3.0, 0.5])
        >>> w.tolist(), b
        ([3.0], 0.5)
        """
        v = np.asarray(v, dtype=float)
        if self.intercept != "augmented":
            return v, np.zeros(v.shape[:-1]) if v.ndim > 1 else 0.0
        b = v[..., -1] * self.intercept_scaling
        return v[..., :-1], (b if v.ndim > 1 else float(b))

    # ------------------------------------------------------------------ objectives

    def _wb(self, w: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
        w = np.asarray(w, dtype=float)
        if w.ndim not in (1, 2) or w.shape[-1] != self.d:
            raise DataError(f"w must have shape (d,) or (k, d) with d = {self.d}, got {w.shape}")
        b = np.zeros(w.shape[:-1]) if b is None else np.asarray(b, dtype=float)
        if b.shape != w.shape[:-1]:
            raise DataError(f"b must have shape {w.shape[:-1]}, got {b.shape}")
        return w, b

    def decision_function(self, w: Any, b: Any = 0.0) -> np.ndarray:
        """Decision values ``f(x_i) = w.x_i + b`` on the problem's data.

        Parameters
        ----------
        w, b : array-like of shape (d,) or (k, d), and float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (n,) or (n, k)

        Examples
        --------
        >>> SVMProblem(Dataset([[1.0], [-2.0]], [1, -1])).decision_function([2.0], 0.5).tolist()
        [2.5, -3.5]
        """
        w, b = self._wb(w, b)
        return np.asarray(self.data.X @ w.T) + b

    def margins(self, w: Any, b: Any = 0.0) -> np.ndarray:
        """Functional margins ``y_i f(x_i)``.

        Parameters
        ----------
        w, b : array-like of shape (d,) or (k, d), and float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (n,) or (n, k)

        Examples
        --------
        >>> SVMProblem(Dataset([[1.0], [-2.0]], [1, -1])).margins([2.0], 0.5).tolist()
        [2.5, 3.5]
        """
        f = self.decision_function(w, b)
        return f * (self.data.y if f.ndim == 1 else self.data.y[:, None])

    def hinge(self, w: Any, b: Any = 0.0) -> np.ndarray:
        """Hinge losses (slacks) ``xi_i = max(0, 1 - y_i f(x_i))``.

        Parameters
        ----------
        w, b : array-like of shape (d,) or (k, d), and float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (n,) or (n, k)

        Examples
        --------
        >>> SVMProblem(Dataset([[1.0], [-2.0]], [1, -1])).hinge([0.5], 0.0).tolist()
        [0.5, 0.0]
        """
        return np.maximum(0.0, 1.0 - self.margins(w, b))

    def squared_hinge(self, w: Any, b: Any = 0.0) -> np.ndarray:
        """Squared hinge losses ``xi_i^2 = max(0, 1 - y_i f(x_i))^2``.

        Parameters
        ----------
        w, b : array-like of shape (d,) or (k, d), and float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (n,) or (n, k)

        Examples
        --------
        >>> p = SVMProblem(Dataset([[1.0], [-2.0]], [1, -1]), loss="squared_hinge")
        >>> p.squared_hinge([0.5], 0.0).tolist()
        [0.25, 0.0]
        """
        return self.hinge(w, b) ** 2

    def losses(self, w: Any, b: Any = 0.0) -> np.ndarray:
        """The problem's loss of each example: :meth:`hinge` or :meth:`squared_hinge`.

        Parameters
        ----------
        w, b : array-like of shape (d,) or (k, d), and float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (n,) or (n, k)
            ``xi_i`` for ``loss="hinge"``, ``xi_i^2`` for ``loss="squared_hinge"``.

        Examples
        --------
        >>> ds = Dataset([[1.0], [-2.0]], [1, -1])
        >>> SVMProblem(ds).losses([0.5]).tolist()
        [0.5, 0.0]
        >>> SVMProblem(ds, loss="squared_hinge").losses([0.5]).tolist()
        [0.25, 0.0]
        """
        xi = self.hinge(w, b)
        return xi * xi if self.loss == "squared_hinge" else xi

    def regularizer(self, w: Any, b: Any = 0.0) -> np.ndarray | float:
        """The squared regularized norm ``||w~||^2`` (plus ``(b/s)^2`` for ``augmented``).

        Parameters
        ----------
        w, b : array-like of shape (d,) or (k, d), and float or array-like of shape (k,)

        Returns
        -------
        float or ndarray of shape (k,)

        Examples
        --------
        >>> ds = Dataset([[1.0], [-2.0]], [1, -1])
        >>> float(SVMProblem(ds).regularizer([3.0], 4.0))
        9.0
        >>> float(SVMProblem(ds, intercept="augmented").regularizer([3.0], 4.0))
        25.0
        """
        v = self.to_augmented(*self._wb(w, b))
        return np.einsum("...j,...j->...", v, v)

    def primal_objective(self, w: Any, b: Any = 0.0) -> np.ndarray | float:
        r"""The C-form primal objective.

        .. math:: P(w, b) = \tfrac12 \|\tilde w\|^2 + \textstyle\sum_i C_i \xi_i

        (``C_i xi_i^2`` for the squared hinge; ``1/2 ||w~||^2`` for the hard margin).

        Parameters
        ----------
        w, b : array-like of shape (d,) or (k, d), and float or array-like of shape (k,)

        Returns
        -------
        float or ndarray of shape (k,)

        Examples
        --------
        >>> p = SVMProblem(Dataset([[1.0], [-2.0]], [1, -1]), C=2.0)
        >>> float(p.primal_objective([0.5], 0.0))  # 0.125 + 2 * (0.5 + 0)
        1.125
        >>> q = SVMProblem(p.data, C=2.0, loss="squared_hinge")
        >>> float(q.primal_objective([0.5], 0.0))  # 0.125 + 2 * (0.5^2 + 0)
        0.625
        """
        self._check_b(b)
        half = 0.5 * self.regularizer(w, b)
        if self.hard:
            return half
        xi = self.losses(w, b)
        return half + self.C * (xi.sum(axis=0) if self.weights is None else self.weights @ xi)

    def lambda_objective(self, w: Any, b: Any = 0.0) -> np.ndarray | float:
        r"""The lambda-form objective (soft margin only).

        .. math:: F(w, b) = \tfrac{\lambda}{2} \|\tilde w\|^2
                  + \tfrac1n \textstyle\sum_i s_i \xi_i = P / (C n)

        Parameters
        ----------
        w, b : array-like of shape (d,) or (k, d), and float or array-like of shape (k,)

        Returns
        -------
        float or ndarray of shape (k,)

        Examples
        --------
        >>> p = SVMProblem(Dataset([[1.0], [-2.0]], [1, -1]), C=2.0)
        >>> float(p.lambda_objective([0.5], 0.0))  # P / (C n) = 1.125 / 4
        0.28125
        """
        if self.hard:
            raise ParameterError("the lambda form exists for soft margin only (hard has lam = 0)")
        self._check_b(b)
        xi = self.losses(w, b)
        loss = xi.mean(axis=0) if self.weights is None else self.weights @ xi / self.n
        return 0.5 * self.lam * self.regularizer(w, b) + loss

    def dual_weights(self, alpha: Any) -> np.ndarray:
        """The dual map ``v = sum_i alpha_i y_i z_i`` (in Z-space).

        Parameters
        ----------
        alpha : array-like of shape (n,) or (k, n)

        Returns
        -------
        ndarray of shape (d',) or (k, d')

        Examples
        --------
        >>> SVMProblem(Dataset([[1.0], [-2.0]], [1, -1])).dual_weights([1.0, 0.5]).tolist()
        [2.0]
        """
        alpha = self._alpha(alpha)
        # (alpha*y) @ Z, not Z.T @ (alpha*y).T: the transposed product is ~40x slower
        return np.asarray((alpha * self.data.y) @ self.Z)

    def dual_objective(self, alpha: Any) -> np.ndarray | float:
        r"""The dual objective.

        .. math:: D(\alpha) = \textstyle\sum_i \alpha_i
                  - \tfrac12 \|\sum_i \alpha_i y_i z_i\|^2
                  \ \left[- \textstyle\sum_i \alpha_i^2 / (4 C_i)\right]

        (the bracket for the squared hinge). Feasibility is not checked: see ``certify``.

        Parameters
        ----------
        alpha : array-like of shape (n,) or (k, n)

        Returns
        -------
        float or ndarray of shape (k,)

        Examples
        --------
        >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]))
        >>> float(p.dual_objective([0.5, 0.5]))  # 1 - 1/2 * 1^2
        0.5
        >>> q = SVMProblem(p.data, C=1.0, loss="squared_hinge")
        >>> round(float(q.dual_objective([0.4, 0.4])), 12)  # 0.8 - 0.8^2 / 2 - 2 * 0.16 / 4
        0.4
        """
        alpha = self._alpha(alpha)
        v = self.dual_weights(alpha)
        D = alpha.sum(axis=-1) - 0.5 * np.einsum("...j,...j->...", v, v)
        if not self.squared:
            return D
        return D - self._diagonal_term(alpha)

    def _diagonal_term(self, alpha: np.ndarray) -> Any:
        """``sum_i alpha_i^2 / (4 C_i)``: the squared hinge's addition to the dual.

        As ``(alpha_i / (2 sqrt C_i))^2``, which does not overflow where ``alpha_i^2`` would;
        ``C_i = 0`` fixes ``alpha_i = 0`` (any other value: ``inf``).
        """
        costs = self.costs
        pos = costs > 0
        root = 2.0 * np.sqrt(np.where(pos, costs, 1.0))
        q = np.where(pos, alpha / root, np.where(alpha == 0, 0.0, np.inf))
        return np.einsum("...j,...j->...", q, q)

    def weights_from_dual(self, alpha: Any) -> tuple[np.ndarray, float | None]:
        """The primal ``(w, b)`` mapped from alpha: ``w = sum alpha_i y_i x_i`` (both losses).

        Parameters
        ----------
        alpha : array-like of shape (n,)

        Returns
        -------
        w : ndarray of shape (d,)
        b : float or None
            None for ``free`` (its b is not a function of alpha alone).

        Examples
        --------
        >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), intercept="none")
        >>> w, b = p.weights_from_dual([0.5, 0.5])
        >>> w.tolist(), b
        ([1.0], 0.0)
        """
        w, b = self.from_augmented(self.dual_weights(alpha))
        return w, (None if self.intercept == "free" else float(b))

    def to_cvxpy(self, form: str = "primal", objective: str = "C") -> Any:
        """The problem as a textbook ``cvxpy.Problem``: see :mod:`maxmargin.cvxpy_models`.

        The primal's variables are ``w``, ``b``, ``xi``; ``constraints[0].dual_value`` is
        ``alpha``. The dual's variable is ``alpha``.

        Parameters
        ----------
        form : {"primal", "dual"}
        objective : {"C", "lambda"}
            The C form ``P``, or the lambda form ``F = P / (C n)`` (multipliers ``lam alpha``).

        Returns
        -------
        cvxpy.Problem

        Examples
        --------
        >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), C=2.0)
        >>> primal, dual = p.to_cvxpy("primal"), p.to_cvxpy("dual")
        >>> sorted(primal.var_dict), sorted(dual.var_dict)
        (['b', 'w', 'xi'], ['alpha'])
        >>> P, D = primal.solve(solver="CLARABEL"), dual.solve(solver="CLARABEL")
        >>> round(float(P), 6), round(float(D), 6)
        (0.5, 0.5)
        >>> primal.constraints[0].dual_value.round(6).tolist()
        [0.5, 0.5]
        """
        form = check_choice("form", form, ("primal", "dual"))
        return (primal_model if form == "primal" else dual_model)(self, objective)

    def _alpha(self, alpha: Any) -> np.ndarray:
        alpha = np.asarray(alpha, dtype=float)
        if alpha.shape[-1:] != (self.n,) or alpha.ndim > 2:
            raise DataError(
                f"alpha must have shape (n,) or (k, n) with n = {self.n}, got {alpha.shape}"
            )
        return alpha

    def _check_b(self, b: Any) -> None:
        if self.intercept == "none" and np.any(np.asarray(b, dtype=float) != 0):
            raise ParameterError("intercept='none' fixes b = 0; got a non-zero b")

    def __repr__(self) -> str:
        form = "hard" if self.hard else f"C={self.C:.6g}, lam={self.lam:.6g}"
        if self.weights is not None:
            form += ", weighted"
        if self.loss != DEFAULT_LOSS:
            form += f", loss={self.loss!r}"
        return f"SVMProblem({self.data_name!r}, {form}, intercept={self.intercept!r})"
