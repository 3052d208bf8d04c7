r"""The SVM problem: data + (hard margin | C | lambda) + intercept mode, and its objectives.

Everything here is numpy only, so objectives can be evaluated for any (w, b, alpha).

Formulas (docs/formulations.md), with ``f(x) = w.x + b``,
``hinge_i = max(0, 1 - y_i f(x_i))`` and per-example costs ``C_i = C s_i`` (``s_i``
the example's weight: ``sample_weight_i`` times the weight of its class; 1 without
weights):

.. math::

    P(w, b) &= \tfrac12 \|\tilde w\|^2 + \sum_i C_i\, \mathrm{hinge}_i \\
    F(w, b) &= \tfrac{\lambda}{2} \|\tilde w\|^2
             + \tfrac1n \sum_i s_i\, \mathrm{hinge}_i
             = P / (C n), \qquad \lambda = 1/(C n) \\
    D(\alpha) &= \sum_i \alpha_i - \tfrac12 \|\sum_i \alpha_i y_i z_i\|^2,
    \qquad 0 \le \alpha_i \le C_i

where ``w~ = w`` for intercept ``free`` and ``none`` and ``w~ = (w, b/s)`` for
``augmented`` (z_i = (x_i, s)); otherwise ``z_i = x_i``. The squared hinge
(``loss="squared_hinge"``, the L2-loss SVM) squares each slack, and its dual loses the
upper bound and gains a diagonal:

.. math::

    P(w, b) &= \tfrac12 \|\tilde w\|^2 + \sum_i C_i\, \mathrm{hinge}_i^2, \qquad
    F = \tfrac{\lambda}{2} \|\tilde w\|^2 + \tfrac1n \sum_i s_i\, \mathrm{hinge}_i^2 \\
    D(\alpha) &= \sum_i \alpha_i - \tfrac12 \|\sum_i \alpha_i y_i z_i\|^2
    - \sum_i \frac{\alpha_i^2}{4 C_i}, \qquad \alpha_i \ge 0

(KKT: ``w~ = sum_i alpha_i y_i z_i`` and ``alpha_i = 2 C_i hinge_i``). The lambda form weighs the
losses as scikit-learn's ``SGDClassifier`` does (each loss times its weight, divided by
``n``, the number of rows given), so ``lam = 1/(C n)`` with or without weights.
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
from ._validation import check_bool, check_choice, check_positive, check_scale, reciprocal_form
from .conventions import DEFAULT_INTERCEPT, DEFAULT_LOSS, INTERCEPTS, LOSSES
from .cvxpy_models import dual_model, primal_model
from .data import Dataset
from .data.weights import combine_weights, resolve_class_weight
from .exceptions import DataError, ParameterError
from .kernel_problem import svm_problem

__all__ = ["SVMProblem", "combine_weights", "resolve_class_weight"]


@dataclass(frozen=True, eq=False, init=False, kw_only=True)
class SVMProblem(io.Persistent):
    """A linear SVM problem on a :class:`Dataset`.

    Give at most one of ``C``, ``lam`` or ``hard=True`` (default: ``C = 1``). Both forms
    are always available afterwards: ``lam = 1 / (C n)``; a hard-margin problem has
    ``C = inf`` and ``lam = 0``.

    A problem read from a file holds all but its data (``n``, ``d``, the data's name and
    feature names, parameters, weights): :attr:`data`, and what needs it, then raise one
    line; :meth:`with_data` gives the problem on its data back.

    Parameters
    ----------
    data : Dataset
    C : float > 0, optional
        Soft-margin penalty of the C form.
    lam : float > 0, optional
        Regularization of the lambda form (scikit-learn's SGDClassifier ``alpha``).
        The one given must leave the other, ``1 / (C n)`` or ``1 / (lam n)``, a finite
        double > 0 (``C = 1e-320`` is refused: its ``lam`` overflows).
    hard : bool
        Hard margin: ``min 1/2 ||w~||^2 s.t. y_i f(x_i) >= 1``.
    intercept : {"free", "none", "augmented"}
        ``free``: b is not regularized; ``none``: b = 0; ``augmented``: x -> (x, s) and
        ``b = s * w_{d+1}`` is regularized (liblinear's intercept_scaling).
    intercept_scaling : float > 0
        The constant ``s`` of the augmented mode.
    sample_weight : array-like of shape (n,), optional
        Per-example weights ``>= 0``, finite: example i costs ``C_i = C sample_weight_i``
        per unit of slack (LIBSVM's ``-W``, scikit-learn's ``fit(sample_weight=...)``).
        A weight of 0 takes the example out of the problem (``alpha_i = 0``). Soft
        margin only.
    class_weight : dict or "balanced", optional
        Weights by class, multiplied into ``sample_weight`` (LIBSVM's ``-wi``):
        ``{label: weight}`` with the data's original labels (``data.classes``; a label
        left out weighs 1), or ``"balanced"``: ``n / (2 n_c)`` for class c, as
        scikit-learn. Soft margin only.
    loss : {"hinge", "squared_hinge"}
        The soft margin's loss of each slack ``xi_i = max(0, 1 - y_i f(x_i))``:
        ``xi_i`` (the L1-loss SVM, the textbook's) or ``xi_i^2`` (the L2-loss SVM,
        scikit-learn's ``LinearSVC()`` default). The hard margin has no slack: with
        ``hard=True`` both name the same problem (accepted, kept as given). Linear
        problems only (a kernel problem refuses the squared hinge).
    kernel : None, str, callable or Kernel, optional
        None or ``"linear"``: this problem. Any other kernel of :mod:`maxmargin.kernels`
        (``"rbf"``, ``"poly"``, ``"sigmoid"``, ``"precomputed"``, a callable): the call
        returns a :class:`~maxmargin.kernel_problem.KernelProblem` (intercept ``free`` or
        ``none``), which :func:`maxmargin.solve` solves by the kernel dual.
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
        The weights ``s_i`` the costs are made of (``sample_weight`` times the class
        weight); None when there are none (or every one is exactly 1).
    class_weight : dict or None
        The weight of each original label, as resolved from ``class_weight`` (not in
        files: its effect is in ``weights``).

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
        given = [k for k, v in (("C", C), ("lam", lam)) if v is not None]
        hard = check_bool("hard", hard)
        if hard:
            given.append("hard")
        if len(given) > 1:
            raise ParameterError(
                f"give only one of C, lam or hard=True (got {', '.join(given)}); "
                "lam = 1/(C n) is derived from C and vice versa"
            )
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
        # frozen: the fields are set once, here (C and lam always both, as floats)
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

    @property
    def data(self) -> Dataset:
        """The problem's data (a problem read from a file has none: :meth:`with_data`)."""
        if self._data is None:
            raise DataError(
                f"{self.data_name}: this problem was read from a file without its data; "
                "give them: from_json(file, data), or .with_data(data)"
            )
        return self._data

    def with_data(self, data: Dataset) -> SVMProblem:
        """The problem on ``data`` (checked: same n, d and feature names), built anew.

        Parameters
        ----------
        data : Dataset
            The data it was stated on (rows in the same order: the weights are per row).

        Returns
        -------
        SVMProblem

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> data = Dataset([[1.0], [-1.0]], [1, -1])
        >>> p = SVMProblem(data, lam=0.3).without_data()
        >>> p.n, p.lam, p.with_data(data).lam == 0.3
        (2, 0.3, True)
        """
        if not isinstance(data, Dataset):
            raise ParameterError(f"data must be a maxmargin.Dataset, got {type(data).__name__}")
        if (data.n, data.d) != (self.n, self.d):
            raise DataError(
                f"the problem is of data with n={self.n}, d={self.d}; {data.name} has "
                f"n={data.n}, d={data.d}: give the data it was stated on"
            )
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
        """Whether the slacks are squared: the soft margin with ``loss="squared_hinge"``.

        The hard margin is the same problem under either loss (no slacks): False there.
        """
        return self.loss == "squared_hinge" and not self.hard

    @cached_property
    def costs(self) -> np.ndarray:
        """The per-example costs ``C_i = C s_i``, shape (n,).

        The dual box is ``0 <= alpha_i <= C_i`` (``inf`` for hard margin; ``C`` everywhere
        without weights). The squared hinge has no upper bound: there ``C_i`` weighs
        ``xi_i^2`` and adds ``alpha_i^2 / (4 C_i)`` to the dual.
        """
        if self.weights is None:
            return np.full(self.n, self.C)
        return self.C * self.weights

    @cached_property
    def Z(self) -> Any:
        """The features the QP sees, shape (n, d) or (n, d+1) for ``augmented``.

        Dense ndarray or CSR, like ``data.X``.
        """
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
        w : array-like of shape (d,) or (k, d)
        b : float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (d',) or (k, d')
            ``d' = d + 1`` for ``augmented``, else ``d``.

        Examples
        --------
        >>> from maxmargin import Dataset
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
            ``s * v_{d+1}`` for ``augmented``; 0 otherwise.

        Examples
        --------
        >>> from maxmargin import Dataset
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
        w : array-like of shape (d,) or (k, d)
            One weight vector, or ``k`` of them (e.g. a trace's checkpoints).
        b : float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (n,) or (n, k)

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> p = SVMProblem(Dataset([[1.0], [-2.0]], [1, -1]))
        >>> p.decision_function([2.0], 0.5).tolist()
        [2.5, -3.5]
        """
        w, b = self._wb(w, b)
        return np.asarray(self.data.X @ w.T) + b

    def margins(self, w: Any, b: Any = 0.0) -> np.ndarray:
        """Functional margins ``y_i f(x_i)``.

        Parameters
        ----------
        w : array-like of shape (d,) or (k, d)
        b : float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (n,) or (n, k)

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> p = SVMProblem(Dataset([[1.0], [-2.0]], [1, -1]))
        >>> p.margins([2.0], 0.5).tolist()
        [2.5, 3.5]
        """
        f = self.decision_function(w, b)
        return f * (self.data.y if f.ndim == 1 else self.data.y[:, None])

    def hinge(self, w: Any, b: Any = 0.0) -> np.ndarray:
        """Hinge losses (slacks) ``xi_i = max(0, 1 - y_i f(x_i))``.

        Parameters
        ----------
        w : array-like of shape (d,) or (k, d)
        b : float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (n,) or (n, k)

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> p = SVMProblem(Dataset([[1.0], [-2.0]], [1, -1]))
        >>> p.hinge([0.5], 0.0).tolist()
        [0.5, 0.0]
        """
        return np.maximum(0.0, 1.0 - self.margins(w, b))

    def squared_hinge(self, w: Any, b: Any = 0.0) -> np.ndarray:
        """Squared hinge losses ``xi_i^2 = max(0, 1 - y_i f(x_i))^2``.

        Parameters
        ----------
        w : array-like of shape (d,) or (k, d)
        b : float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (n,) or (n, k)

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> p = SVMProblem(Dataset([[1.0], [-2.0]], [1, -1]), loss="squared_hinge")
        >>> p.squared_hinge([0.5], 0.0).tolist()
        [0.25, 0.0]
        """
        return self.hinge(w, b) ** 2

    def losses(self, w: Any, b: Any = 0.0) -> np.ndarray:
        """The problem's loss of each example: :meth:`hinge` or :meth:`squared_hinge`.

        Parameters
        ----------
        w : array-like of shape (d,) or (k, d)
        b : float or array-like of shape (k,)

        Returns
        -------
        ndarray of shape (n,) or (n, k)
            ``xi_i`` for ``loss="hinge"``, ``xi_i^2`` for ``loss="squared_hinge"``.

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ds = Dataset([[1.0], [-2.0]], [1, -1])
        >>> SVMProblem(ds).losses([0.5]).tolist()
        [0.5, 0.0]
        >>> SVMProblem(ds, loss="squared_hinge").losses([0.5]).tolist()
        [0.25, 0.0]
        """
        xi = self.hinge(w, b)
        return xi * xi if self.loss == "squared_hinge" else xi

    def regularizer(self, w: Any, b: Any = 0.0) -> np.ndarray | float:
        """The squared regularized norm ``||w~||^2``.

        ``||w||^2``, plus ``(b/s)^2`` in the augmented mode (where the bias is a weight).

        Parameters
        ----------
        w : array-like of shape (d,) or (k, d)
        b : float or array-like of shape (k,)

        Returns
        -------
        float or ndarray of shape (k,)

        Examples
        --------
        >>> from maxmargin import Dataset
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

        (``C_i = C s_i``, ``C`` without weights; the squared hinge: ``C_i xi_i^2``; hard
        margin: ``1/2 ||w~||^2``, its feasibility is checked by ``certify``).

        Parameters
        ----------
        w : array-like of shape (d,) or (k, d)
        b : float or array-like of shape (k,)

        Returns
        -------
        float or ndarray of shape (k,)

        Examples
        --------
        >>> from maxmargin import Dataset
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
        return half + self.C * self._weighted_sum(self.losses(w, b))

    def _weighted_sum(self, v: np.ndarray) -> Any:
        """``sum_i s_i v_i`` over axis 0 (``sum_i v_i`` without weights, as before)."""
        if self.weights is None:
            return v.sum(axis=0)
        return self.weights @ v

    def lambda_objective(self, w: Any, b: Any = 0.0) -> np.ndarray | float:
        r"""The lambda-form objective (soft margin only).

        .. math:: F(w, b) = \tfrac{\lambda}{2} \|\tilde w\|^2
                  + \tfrac1n \textstyle\sum_i s_i \xi_i = P / (C n)

        (``s_i = 1`` without weights; with them, each loss times its weight over the
        ``n`` rows, as scikit-learn's ``SGDClassifier``; the squared hinge: ``xi_i^2``).

        Parameters
        ----------
        w : array-like of shape (d,) or (k, d)
        b : float or array-like of shape (k,)

        Returns
        -------
        float or ndarray of shape (k,)

        Examples
        --------
        >>> from maxmargin import Dataset
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
        >>> from maxmargin import Dataset
        >>> p = SVMProblem(Dataset([[1.0], [-2.0]], [1, -1]))
        >>> p.dual_weights([1.0, 0.5]).tolist()  # 1*1*1 + 0.5*(-1)*(-2)
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

        (the bracket for the squared hinge; an example of cost ``C_i = 0`` there adds
        0 for ``alpha_i = 0`` and ``inf`` otherwise). Feasibility (box, equality) is not
        checked here: see ``certify``.

        Parameters
        ----------
        alpha : array-like of shape (n,) or (k, n)

        Returns
        -------
        float or ndarray of shape (k,)

        Examples
        --------
        >>> from maxmargin import Dataset
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

        As ``(alpha_i / (2 sqrt C_i))^2``, whose quotient neither over- nor underflows
        where ``alpha_i^2`` would; ``C_i = 0`` (weight 0) fixes ``alpha_i = 0``: 0 there,
        ``inf`` for any other value.
        """
        costs = self.costs
        pos = costs > 0
        root = 2.0 * np.sqrt(np.where(pos, costs, 1.0))
        q = np.where(pos, alpha / root, np.where(alpha == 0, 0.0, np.inf))
        return np.einsum("...j,...j->...", q, q)

    def weights_from_dual(self, alpha: Any) -> tuple[np.ndarray, float | None]:
        """The primal ``(w, b)`` mapped from alpha: ``w = sum alpha_i y_i x_i``.

        The same map for both losses (the squared hinge's KKT conditions add
        ``alpha_i = 2 C_i xi_i``, which fixes the free ``b`` from any ``alpha_i > 0``).

        Parameters
        ----------
        alpha : array-like of shape (n,)

        Returns
        -------
        w : ndarray of shape (d,)
        b : float or None
            ``s * v_{d+1}`` for ``augmented``, ``0`` for ``none``, and ``None`` for
            ``free`` (there b comes from the equality multiplier or the margin SVs).

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), intercept="none")
        >>> w, b = p.weights_from_dual([0.5, 0.5])
        >>> w.tolist(), b
        ([1.0], 0.0)
        """
        w, b = self.from_augmented(self.dual_weights(alpha))
        return w, (None if self.intercept == "free" else float(b))

    def to_cvxpy(self, form: str = "primal", objective: str = "C") -> Any:
        """The problem as a textbook ``cvxpy.Problem``, to print, solve and teach with.

        ``primal``: ``min 1/2 ||w~||^2 + C sum_i xi_i  s.t.  y_i (w.x_i + b) >= 1 - xi_i,
        xi_i >= 0`` with variables ``w``, ``b``, ``xi`` (``model.var_dict``), the margin
        constraints as one vectorised ``model.constraints[0]`` whose ``dual_value`` is
        ``alpha``. ``dual``: ``max sum_i alpha_i - 1/2 ||sum_i alpha_i y_i z_i||^2  s.t.
        0 <= alpha_i <= C, sum_i alpha_i y_i = 0`` with variable ``alpha``. The squared
        hinge: ``C sum_i xi_i^2`` in the primal; ``- sum_i alpha_i^2 / (4 C)`` in the dual,
        which has no upper bound. Details, the hard margin and the intercept modes:
        :mod:`maxmargin.cvxpy_models` (cvxpy is imported there, on first call).

        Parameters
        ----------
        form : {"primal", "dual"}
        objective : {"C", "lambda"}
            ``"C"``: the C form ``P`` (and its dual ``D``); ``"lambda"``: the lambda form
            ``F = P / (C n)``, whose multipliers are ``lam * alpha`` (soft margin only).
            Both have the optimum of :func:`maxmargin.solve`, in their own units.

        Returns
        -------
        cvxpy.Problem

        Examples
        --------
        >>> from maxmargin import Dataset
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
