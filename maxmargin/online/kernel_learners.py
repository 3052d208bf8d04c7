r"""Kernel online learners: kernelized Pegasos, kernel PA / PA-I, a budgeted perceptron.

Each keeps ``f(x) = sum_j a_j y_j k(x_j, x) + b`` (the trace's ``dual`` is ``a``, its ``w``
``sum_j a_j y_j x_j`` for the linear kernel, NaN otherwise) and ``F = K (a y)`` on the Gram
of the whole data set (``n <= max_n``), compiled in :mod:`._kernels`. See ``docs/kernels.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from textwrap import indent
from typing import ClassVar

import numpy as np
import scipy.sparse as sp

from .._validation import check_int, check_positive
from ..conventions import DEFAULT_INTERCEPT
from ..data import Dataset
from ..exceptions import ParameterError
from ..kernels import GramOperator, Kernel, make_kernel
from ._compiled import kernels as loops
from .base import LearnerState, OnlineLearner, PackedData, Snapshot
from .claims import PERMUTATION, SCALING, Claim
from .pa import _CRAMMER, PA, PA1

__all__ = ["KernelLearner", "KernelPegasos", "KernelPA", "KernelPA1", "BudgetPerceptron"]

#: The Parameters entries every kernel learner shares (``{kernel_parameters}``).
KERNEL_PARAMETERS = """\
kernel : {"linear", "rbf", "poly", "sigmoid", "precomputed"}, default "linear"
    The kernel, as :class:`sklearn.svm.SVC` names it (:mod:`maxmargin.kernels`);
    ``"precomputed"``: the data's ``X`` is the n x n Gram (how a callable kernel's Gram
    is given).
gamma : float > 0 or {"scale", "auto"}, default "scale"
degree : int >= 0, default 3
coef0 : float, default 0.0
max_n : int >= 1, default 8192
    Largest n whose (n, n) Gram the learner builds.
intercept : {"free", "augmented", "none"}, default "free"
    ``"free"``: an unregularised bias ``b`` (its step is the weights' times ``s^2``);
    ``"augmented"``: the kernel ``k + s^2`` (``b = s^2 sum_j a_j y_j``, regularised
    with the weights); ``"none"``: ``f(x) = sum_j a_j y_j k(x_j, x)``.
intercept_scaling : float > 0, default 1.0
    ``s``."""


def _doc_kernel(cls: type) -> type:
    """Class decorator: put :data:`KERNEL_PARAMETERS` where the docstring says so."""
    doc = cls.__doc__ or ""
    if "\n    {kernel_parameters}\n" not in doc:
        raise AssertionError(f"{cls.__name__}.__doc__ has no {{kernel_parameters}} line")
    cls.__doc__ = doc.replace("{kernel_parameters}", indent(KERNEL_PARAMETERS, "    ").lstrip(), 1)
    return cls


def learner_gram(kernel: Kernel, dataset: Dataset) -> np.ndarray:
    """The dense (n, n) Gram of ``kernel`` on ``dataset``: the exact solver's entries."""
    X = dataset.X
    if kernel.name == "linear" and sp.issparse(X):
        K = np.asarray((X @ X.T).toarray())
    else:
        K = GramOperator.bind(kernel, X).block(np.arange(dataset.n))
    return np.ascontiguousarray(K, dtype=np.float64)


@dataclass(eq=False)
class KernelState(LearnerState):
    """A kernel learner's state: the Gram, its coefficients, ``F = K (coef y)``, steps taken.

    ``coef``: Pegasos' counts ``alpha``, else ``a``; ``queue``, ``qs = (head, size)``: the
    budgeted perceptron's support vectors, oldest first.
    """

    gram: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    coef: np.ndarray = field(default_factory=lambda: np.zeros(0))
    scores: np.ndarray = field(default_factory=lambda: np.zeros(0))
    t: int = 0
    queue: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    qs: np.ndarray = field(default_factory=lambda: np.zeros(2, np.int64))


class KernelLearner(OnlineLearner):
    """Base of the kernel learners: the kernel's parameters, the Gram, the snapshots.

    Parameters
    ----------
    kernel, gamma, degree, coef0, max_n, intercept, intercept_scaling
        See the learners.
    """

    has_dual = True
    _no_steps = "it keeps the (n, n) Gram of the whole data set"

    def __init__(
        self,
        *,
        kernel: str = "linear",
        gamma: float | str = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        max_n: int = 8192,
        intercept: str = DEFAULT_INTERCEPT,
        intercept_scaling: float = 1.0,
    ) -> None:
        self._init_kernel(kernel, gamma, degree, coef0, max_n, intercept, intercept_scaling)

    def _init_kernel(
        self,
        kernel: str,
        gamma: float | str,
        degree: int,
        coef0: float,
        max_n: int,
        intercept: str,
        intercept_scaling: float,
    ) -> None:
        """Check and set the parameters every kernel learner takes."""
        OnlineLearner.__init__(self, intercept=intercept, intercept_scaling=intercept_scaling)
        if not isinstance(kernel, str):
            # a trace keeps its learner's parameters in JSON: a function cannot be saved
            raise ParameterError(
                "a kernel learner takes its kernel by name (its parameters are saved with the "
                "trace); for a callable k, give kernel='precomputed' and the Gram k(X, X) as X"
            )
        spec = make_kernel(kernel, gamma=gamma, degree=degree, coef0=coef0)
        self.kernel = kernel
        self.gamma = spec.gamma
        self.degree = spec.degree
        self.coef0 = spec.coef0
        self.max_n = check_int("max_n", max_n, minimum=1)

    def kernel_spec(self) -> Kernel:
        """The learner's :class:`~maxmargin.kernels.Kernel`.

        Returns
        -------
        Kernel

        Examples
        --------
        >>> KernelPA(kernel="poly", degree=2).kernel_spec()
        Kernel(name='poly', gamma='scale', degree=2, coef0=0.0)
        """
        return make_kernel(self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0)

    @property
    def has_weights(self) -> bool:
        """Only the linear kernel has weights on the features."""
        return self.kernel == "linear"

    @property
    def _s2(self) -> float:
        """``s^2`` for a free bias, 0 without one."""
        return self.intercept_scaling**2 if self.intercept == "free" else 0.0

    def _check_data(self, dataset: Dataset) -> None:
        if dataset.n > self.max_n:
            raise ParameterError(
                f"{self.name} builds the (n, n) Gram and n = {dataset.n} > max_n = "
                f"{self.max_n}; raise max_n if memory allows ({8 * dataset.n**2 / 2**30:.1f} "
                "GiB), or solve the kernel SVM exactly"
            )
        if self.kernel == "precomputed" and dataset.X.shape != (dataset.n, dataset.n):
            raise ParameterError(
                f"kernel 'precomputed' needs the n x n Gram as X, got shape {dataset.X.shape}"
            )

    def _setup(self, packed: PackedData) -> KernelState:
        K = learner_gram(self.kernel_spec(), packed.dataset)
        if self.intercept == "augmented":
            K += packed.bias_feature**2
        return KernelState(gram=K, coef=np.zeros(packed.n), scores=np.zeros(packed.n))

    def _scale(self, t: int) -> float:
        """The factor from the learner's coefficients to ``a`` after step ``t``."""
        return 1.0

    def _snapshot(self, packed: PackedData, state: KernelState, t: int) -> Snapshot:
        a = state.coef * self._scale(t)
        if self.intercept == "augmented":
            b = packed.bias_feature**2 * float(a @ packed.y)
        else:
            b = float(state.totals[4])
        if self.has_weights:
            w = np.asarray(packed.dataset.X.T @ (a * packed.y), dtype=float).ravel()
        else:
            w = np.full(packed.d, np.nan)
        return Snapshot(w, b, dual=a if packed.record_dual else None)

    def _decision(
        self, packed: PackedData, state: KernelState, w: np.ndarray, b: float
    ) -> np.ndarray:
        # the scores hold the bias (the kernel k + s^2) with intercept augmented
        return state.scores * self._scale(state.t) + (b if self.intercept != "augmented" else 0)


@_doc_kernel
class KernelPegasos(KernelLearner):
    r"""Kernelized Pegasos (Shalev-Shwartz, Singer, Srebro & Cotter 2011, section 4).

    The counts ``alpha`` (``alpha = 0``); step ``t`` on example ``i`` predicts with
    ``f_t = (1/(lam t)) sum_j alpha_j y_j k(x_j, .) + b``, the paper's rule:

    .. math::

        \text{if } y_i \Big(\frac{1}{\lambda t} \sum_j \alpha_j y_j k(x_j, x_i) + b\Big)
        < 1:\quad \alpha_i \mathrel{+}= 1, \quad
        b \mathrel{+}= \frac{y_i s^2}{\lambda (t + 1)} .

    The trace's ``dual`` after step ``t`` is ``a = alpha / (lam (t + 1))``; the linear
    kernel gives :class:`~maxmargin.online.Pegasos` (see ``docs/kernels.md``).

    Parameters
    ----------
    lam : float > 0, default 1e-4
        The regulariser's weight.
    {kernel_parameters}

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> from maxmargin.online import run
    >>> xor = Dataset([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [-1, -1, 1, 1])
    >>> tr = run(KernelPegasos(lam=0.1, kernel="rbf", gamma=2.0), xor, epochs=10)
    >>> tr.final_train_error
    0.0
    """

    name = "kernel_pegasos"
    reference = "Shalev-Shwartz, Singer, Srebro & Cotter (2011), section 4"
    objective = "lambda"
    problem_parameter = "lam"
    claims: ClassVar[tuple[Claim, ...] | None] = (PERMUTATION,)

    def __init__(
        self,
        *,
        lam: float = 1e-4,
        kernel: str = "linear",
        gamma: float | str = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        max_n: int = 8192,
        intercept: str = DEFAULT_INTERCEPT,
        intercept_scaling: float = 1.0,
    ) -> None:
        self._init_kernel(kernel, gamma, degree, coef0, max_n, intercept, intercept_scaling)
        self.lam = check_positive("lam", lam)

    def _scale(self, t: int) -> float:
        return 1.0 / (self.lam * (t + 1.0))

    def _advance(
        self, packed: PackedData, state: KernelState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        args = (state.gram, state.coef, state.scores, state.totals, self.lam, self._s2)
        loops.pegasos_steps(packed.y, idx, lo, hi, t0, *args)
        state.t = t0 + hi - lo


@_doc_kernel
class KernelPA(KernelLearner):
    r"""Kernel passive-aggressive (Crammer, Dekel, Keshet, Shalev-Shwartz & Singer 2006).

    With ``l = max(0, 1 - y_i (f(x_i) + b))`` and ``q = k(x_i, x_i) + s^2``:

    .. math::

        a_i \mathrel{+}= \tau, \quad b \mathrel{+}= \tau y_i s^2, \qquad
        \tau = \frac{l}{q}\ (\mathrm{PA}), \quad \min\Big(C, \frac{l}{q}\Big)\
        (\mathrm{PA\text{-}I}) ;

    ``tau = 0`` when ``q = 0``; the trace's ``dual`` ``a`` sums the steps per example.

    Parameters
    ----------
    {kernel_parameters}

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> from maxmargin.online import run
    >>> xor = Dataset([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [-1, -1, 1, 1])
    >>> run(KernelPA(kernel="rbf", gamma=2.0), xor, epochs=5).final_train_error
    0.0
    """

    name = "kernel_pa"
    reference = _CRAMMER + ", section 7"
    variant: ClassVar[int] = 0
    C: float = 1.0
    claims: ClassVar[tuple[Claim, ...] | None] = PA.claims  # its bounds hold in any RKHS

    def _advance(
        self, packed: PackedData, state: KernelState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        args = (state.gram, state.coef, state.scores, state.totals, self.variant, self.C)
        loops.kernel_pa_steps(packed.y, idx, lo, hi, *args, self._s2)
        state.t = t0 + hi - lo


@_doc_kernel
class KernelPA1(KernelPA):
    r"""Kernel PA-I: ``tau = min(C, l / q)`` (see :class:`KernelPA`), the kernel SVM's online twin.

    Parameters
    ----------
    C : float > 0, default 1.0
        The largest step (the SVM's C).
    {kernel_parameters}

    Examples
    --------
    >>> KernelPA1(C=0.5, kernel="poly", degree=2).get_params()["C"]
    0.5
    """

    name = "kernel_pa1"
    variant = 1
    objective = "C"
    problem_parameter = "C"
    claims = PA1.claims

    def __init__(
        self,
        *,
        C: float = 1.0,
        kernel: str = "linear",
        gamma: float | str = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        max_n: int = 8192,
        intercept: str = DEFAULT_INTERCEPT,
        intercept_scaling: float = 1.0,
    ) -> None:
        self._init_kernel(kernel, gamma, degree, coef0, max_n, intercept, intercept_scaling)
        self.C = check_positive("C", C)


@_doc_kernel
class BudgetPerceptron(KernelLearner):
    r"""The kernel perceptron on a budget of support vectors, the oldest removed.

    The kernel perceptron's rule (``if y_i (f(x_i) + b) <= 0: c_i += 1``, ``b += y_i
    s^2``) with at most ``budget`` examples of non-zero count: a mistake outside a full
    support first removes the oldest support vector (its count and share of ``b``), the
    Forgetron's rule (Dekel et al. 2008) without its shrinking.

    Parameters
    ----------
    budget : int >= 1, default 100
        The most support vectors kept.
    {kernel_parameters}

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> from maxmargin.online import run
    >>> xor = Dataset([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [-1, -1, 1, 1])
    >>> tr = run(BudgetPerceptron(budget=2, kernel="rbf", gamma=2.0), xor, epochs=3,
    ...          record_dual=True)
    >>> tr.dual[-1].tolist(), float(tr.extras["removed"][-1])  # two support vectors: not enough
    ([0.0, 0.0, 1.0, 1.0], 9.0)
    """

    name = "budget_perceptron"
    claims: ClassVar[tuple[Claim, ...] | None] = (PERMUTATION, SCALING)
    reference = (
        "Crammer, Kandola & Singer (2003); Dekel, Shalev-Shwartz & Singer (2008), the "
        "Forgetron's removal of the oldest support vector"
    )

    def __init__(
        self,
        *,
        budget: int = 100,
        kernel: str = "linear",
        gamma: float | str = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        max_n: int = 8192,
        intercept: str = DEFAULT_INTERCEPT,
        intercept_scaling: float = 1.0,
    ) -> None:
        self._init_kernel(kernel, gamma, degree, coef0, max_n, intercept, intercept_scaling)
        self.budget = check_int("budget", budget, minimum=1)

    def _setup(self, packed: PackedData) -> KernelState:
        state = super()._setup(packed)
        state.queue = np.zeros(self.budget, np.int64)
        return state

    def _advance(
        self, packed: PackedData, state: KernelState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        args = (state.gram, state.coef, state.scores, state.totals, state.queue, state.qs)
        loops.budget_perceptron_steps(packed.y, idx, lo, hi, *args, self.budget, self._s2)
        state.t = t0 + hi - lo

    def _snapshot(self, packed: PackedData, state: KernelState, t: int) -> Snapshot:
        snap = super()._snapshot(packed, state, t)
        snap.extras["removed"] = float(state.totals[5])
        return snap
