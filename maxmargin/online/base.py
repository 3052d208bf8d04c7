"""The learner contract: :class:`OnlineLearner`, its state, snapshot and packed data.

A learner holds its hyper-parameters and declares on its class what it is scored on
(``docs/learners.md``, "What a learner declares"); :func:`~maxmargin.online.run` drives it
through the run protocol ``_check_data``, ``_align``, ``_setup``, ``_advance``,
``_snapshot``, ``_halted``, ``_final``, ``_decision`` (``docs/learners.md``).
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .._validation import check_scale
from ..conventions import DEFAULT_INTERCEPT
from ..data import Dataset
from ..exceptions import DataError, ParameterError
from ._compiled import kernels
from .learner import Learner, _check_kinds

__all__ = [
    "OnlineLearner",
    "LearnerState",
    "Snapshot",
    "PackedData",
    "step_weights",
]

#: The inherited ``intercept`` / ``intercept_scaling`` entries, put in by :func:`_doc_intercept`.
INTERCEPT_PARAMETERS = """\
intercept : {"free", "augmented", "none"}, default "free"
    Each example is seen as ``z = (x, s)``, ``b = s * w[d]``: ``"free"`` leaves ``b``
    unregularised (no shrinkage, no projection), ``"augmented"`` regularises it like the
    weights, ``"none"`` fits ``f(x) = w.x``.
intercept_scaling : float > 0, default 1.0
    The constant ``s`` of the bias feature; at most ~1.34e154 (``s**2`` finite)."""


def _doc_intercept(cls: type) -> type:
    """Class decorator: put :data:`INTERCEPT_PARAMETERS` at the docstring's marker line."""
    doc, marker = cls.__doc__ or "", "    {intercept_parameters}"
    if marker not in doc:
        raise AssertionError(f"{cls.__name__}.__doc__ has no {marker.strip()} line")
    cls.__doc__ = doc.replace(marker, textwrap.indent(INTERCEPT_PARAMETERS, "    "), 1)
    return cls


def step_weights(learner: OnlineLearner, sample_weight: Any, n: int) -> np.ndarray | None:
    """``sample_weight`` checked for ``learner``: shape (n,), finite, >= 0; None if all 1."""
    if sample_weight is None:
        return None
    if learner.sample_weight_rule is None:
        raise ParameterError(
            f"{type(learner).__name__} takes no example weights (it declares no sample_weight_rule)"
            "; the perceptrons, Pegasos, the online subgradient, PA-I and PA-II do"
        )
    try:
        sw = np.array(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError("sample_weight must be an array of numbers") from None
    if sw.shape != (n,):
        raise DataError(
            f"sample_weight must have shape ({n},), one weight per example; got {sw.shape}"
        )
    if not (np.isfinite(sw).all() and (sw >= 0).all()):
        raise DataError("sample_weight must be finite and >= 0")
    return None if np.all(sw == 1.0) else sw


@dataclass(eq=False)
class PackedData:
    """The data in the one shape every compiled kernel takes (dense or CSR arrays).

    ``z_sqnorms`` holds ``||x_i||^2 + s^2``; ``bias_feature`` is ``s`` (0.0 for ``none``).
    """

    X_dense: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    sparse: bool
    y: np.ndarray
    z_sqnorms: np.ndarray
    bias_feature: float
    n: int
    d: int
    record_dual: bool
    dataset: Dataset
    step_weights: np.ndarray | None = None

    @classmethod
    def pack(
        cls,
        dataset: Dataset,
        bias_feature: float,
        record_dual: bool,
        step_weights: np.ndarray | None = None,
    ) -> PackedData:
        """Pack ``dataset`` for a learner with constant feature ``bias_feature``."""
        X = dataset.X
        if sp.issparse(X):
            X_dense = np.zeros((0, 0))
            indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
            indices = np.ascontiguousarray(X.indices, dtype=np.int64)
            values = np.ascontiguousarray(X.data, dtype=np.float64)
        else:
            X_dense = np.ascontiguousarray(X, dtype=np.float64)
            indptr = np.zeros(1, np.int64)
            indices = np.zeros(0, np.int64)
            values = np.zeros(0)
        z_sqnorms = dataset.row_norms() ** 2 + bias_feature * bias_feature
        return cls(
            X_dense,
            indptr,
            indices,
            values,
            sp.issparse(X),
            dataset.y,
            np.ascontiguousarray(z_sqnorms),
            float(bias_feature),
            dataset.n,
            dataset.d,
            bool(record_dual),
            dataset,
            None if step_weights is None else np.ascontiguousarray(step_weights, dtype=np.float64),
        )

    @property
    def xargs(self) -> tuple:
        """``(X,)``: the dense array, or the CSR tuple, as the kernels take it."""
        if self.sparse:
            return ((self.indptr, self.indices, self.values),)
        return (self.X_dense,)

    def Z(self) -> Any:
        """The learner's examples ``z_i = (x_i, s)``, shape (n, d + 1), dense or CSR."""
        X = self.dataset.X
        col = np.full((self.n, 1), self.bias_feature)
        if self.sparse:
            return sp.hstack([X, sp.csr_matrix(col)], format="csr")
        return np.hstack([X, col])

    def split(self, w_tilde: np.ndarray) -> tuple[np.ndarray, float]:
        """``(w, b)`` of a learner's vector ``w~ = (w, w_{d+1})``: ``b = s w_{d+1}``."""
        return np.array(w_tilde[:-1], dtype=float), float(self.bias_feature * w_tilde[-1])


@dataclass(eq=False)
class LearnerState:
    """A learner's running state, advanced in place; each learner extends it with its arrays.

    ``totals`` (shape (8,)): mistakes, cumulative hinge loss, cumulative ``||w~_t||^2``
    (of the predicting iterate), then learner-specific scalars.
    """

    totals: np.ndarray = field(default_factory=lambda: kernels.empty_state())
    steps: int = 0

    @property
    def mistakes(self) -> int:
        """Online mistakes so far (``y w.z <= 0`` before the step)."""
        return int(self.totals[0])

    @property
    def loss(self) -> float:
        """Cumulative hinge loss ``sum_s max(0, 1 - y_s w~_s.z_s)``."""
        return float(self.totals[1])

    @property
    def sqnorm(self) -> float:
        """Cumulative ``sum_s ||w~_s||^2`` (for the regret of the lambda objective)."""
        return float(self.totals[2])


@dataclass(frozen=True, eq=False)
class Snapshot:
    """What a learner reports at a checkpoint: its output ``w, b`` on the original features.

    ``w_avg, b_avg``: the averaged iterate; ``dual, dual_avg``: implied dual points;
    ``extras``: learner-specific values (``pocket_errors``, ...).
    """

    w: np.ndarray
    b: float
    w_avg: np.ndarray | None = None
    b_avg: float | None = None
    dual: np.ndarray | None = None
    dual_avg: np.ndarray | None = None
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class _ByHand:
    """A learner stepped by hand: ``start(d)``'s length, its state, the last example."""

    d: int
    state: Any
    packed: PackedData
    t: int = 0


class OnlineLearner(Learner):
    """Base class of the online learners (not used directly).

    A learner holds its hyper-parameters only; :func:`maxmargin.online.run` creates its
    :class:`LearnerState`, drives the steps and records a :class:`~maxmargin.trace.Trace`.
    The class attributes declare what it is scored on (``docs/learners.md``, "What a
    learner declares"); ``intercept`` is one of its ``supported_intercepts``.

    Parameters
    ----------
    intercept : {"free", "augmented", "none"}, default "free"
    intercept_scaling : float > 0, default 1.0

    Examples
    --------
    >>> from maxmargin.online import PA1
    >>> issubclass(PA1, OnlineLearner), PA1().intercept
    (True, 'free')
    """

    # the other declarations, and their defaults, are Learner's
    reference: ClassVar[str] = ""
    supported_intercepts: ClassVar[tuple[str, ...]] = ("none", "augmented", "free")
    visits_schedule: bool = True
    sample_weight_rule: ClassVar[str | None] = None

    def __init__(
        self, *, intercept: str = DEFAULT_INTERCEPT, intercept_scaling: float = 1.0
    ) -> None:
        if not isinstance(intercept, str) or intercept not in self.supported_intercepts:
            raise ParameterError(
                f"{type(self).__name__} supports intercept "
                f"{' or '.join(map(repr, self.supported_intercepts))}, not {intercept!r}"
            )
        self.intercept = intercept
        self.intercept_scaling = check_scale("intercept_scaling", intercept_scaling)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _check_kinds(cls.__name__, cls.objective, cls.problem_parameter, TypeError)

    # ------------------------------------------------------------------ parameters

    @classmethod
    def param_names(cls) -> tuple[str, ...]:
        """The constructor's keyword parameters.

        Returns
        -------
        tuple of str

        Examples
        --------
        >>> from maxmargin.online import PA1
        >>> PA1.param_names()
        ('C', 'intercept', 'intercept_scaling')
        """
        return tuple(p for p in inspect.signature(cls.__init__).parameters if p != "self")

    def get_params(self) -> dict[str, Any]:
        """The constructor's parameters and their values (JSON types only).

        Returns
        -------
        dict
            Parameter name to value.

        Examples
        --------
        >>> from maxmargin.online import Perceptron
        >>> Perceptron(intercept="none").get_params()
        {'intercept': 'none', 'intercept_scaling': 1.0}
        """
        return {name: getattr(self, name) for name in self.param_names()}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    @property
    def bias_feature(self) -> float:
        """``s``: the constant feature appended to every example (0.0 for ``none``)."""
        return 0.0 if self.intercept == "none" else self.intercept_scaling

    @property
    def has_weights(self) -> bool:
        """Whether the output is a weight vector on the features (not a non-linear kernel's)."""
        return True

    def regret_lipschitz(self, R: float) -> float | None:
        """``G`` of the regret bound ``G^2 (1 + ln t) / (2 lam)`` against any ``u``, or None.

        Online gradient descent with steps ``1/(lam t)`` on ``lam``-strongly convex losses
        with subgradients at most ``G`` (Hazan, Agarwal & Kale 2007).

        Parameters
        ----------
        R : float
            ``max_i ||z_i||``.

        Returns
        -------
        float or None

        Examples
        --------
        >>> from maxmargin.online import Pegasos, Perceptron
        >>> Pegasos(lam=0.1, intercept="none").regret_lipschitz(2.0)
        4.0
        >>> Pegasos(lam=0.1).regret_lipschitz(2.0), Perceptron().regret_lipschitz(2.0)
        (None, None)
        """
        return None

    # ------------------------------------------------------------------ the public protocol
    # Stepping by hand runs the learner's own compiled kernel on a batch of one example,
    # through _feed, the path OnlineState takes too: the same steps as run's, bit for bit.

    #: Why the learner cannot be stepped one example at a time (None: it can).
    _no_steps: str | None = None

    def _feed(
        self, state: Any, data: Dataset, idx: np.ndarray, t0: int, sample_weight: Any = None
    ) -> tuple[Any, PackedData]:
        """Take the steps ``t0 + 1, ...`` on the rows ``idx`` of ``data`` (None: a fresh state)."""
        self._check_data(data)
        sw = step_weights(self, sample_weight, data.n)
        packed = PackedData.pack(data, self.bias_feature, False, sw)
        if state is None:
            state = self._setup(packed)
        if idx.size:
            self._advance(packed, state, idx, 0, int(idx.size), t0)
        return state, packed

    def _by_hand(self) -> _ByHand:
        """The state ``start(d)`` began (ParameterError before, or for a learner refusing)."""
        if self._no_steps is not None:
            raise ParameterError(
                f"{type(self).__name__} cannot be stepped one example at a time: "
                f"{self._no_steps}; run it with maxmargin.online.run"
            )
        hand = vars(self).get("_hand")
        if hand is None:
            raise ParameterError(f"{type(self).__name__}: call start(d) before step or weights")
        return hand

    def _example(self, x: Any, y: float) -> Dataset:
        """The example ``(x, y)`` as a data set of one row (``x`` without ``s``, augmented)."""
        return Dataset(np.atleast_2d(x), np.array([y]), name="step", require_both_classes=False)

    def _protocol(self, w: np.ndarray, b: float) -> Any:
        """``(w, b)`` as the protocol returns them: ``w``, ``w~ = (w, b/s)`` or ``(w, b)``."""
        if self.intercept == "free":
            return w, b
        return np.append(w, b / self.intercept_scaling) if self.intercept == "augmented" else w

    def start(self, d: int) -> None:
        """Set a fresh state for examples of length ``d`` (the public protocol).

        Parameters
        ----------
        d : int
            The length of :meth:`step`'s ``x`` (with ``"augmented"``, including ``s``).

        Examples
        --------
        >>> from maxmargin.online import Perceptron
        >>> p = Perceptron(intercept="none")
        >>> p.start(2)
        >>> p.step(np.array([1.0, 2.0]), -1.0, 1)
        >>> p.weights()
        array([-1., -2.])
        """
        vars(self).pop("_hand", None)
        if self._no_steps is None:
            zero = self._example(np.zeros(d - (self.intercept == "augmented")), 1.0)
            self._hand = _ByHand(d, *self._feed(None, zero, np.zeros(0, np.int64), 0))
        self._by_hand()

    def step(self, x: np.ndarray, y: float, t: int) -> None:
        """Take one step on the example ``(x, y)``: :func:`~maxmargin.online.run`'s step.

        Parameters
        ----------
        x : ndarray of shape (d,)
            With intercept ``"augmented"`` its last entry is the bias feature ``s``.
        y : float
            +1.0 or -1.0.
        t : int
            The step number, 1 for the first.

        Examples
        --------
        >>> from maxmargin.online import Pegasos
        >>> p = Pegasos(lam=1.0, intercept="free")
        >>> p.start(1)
        >>> p.step(np.array([2.0]), 1.0, 1)
        >>> p.weights()
        (array([1.]), 0.5)
        """
        hand = self._by_hand()
        x = np.asarray(x, dtype=float)
        if x.shape != (hand.d,):
            raise ParameterError(
                f"{type(self).__name__}: x must have the shape ({hand.d},) start(d) was given; "
                f"got {x.shape}"
            )
        row = x[:-1] if self.intercept == "augmented" else x
        hand.state, hand.packed = self._feed(
            hand.state, self._example(row, y), np.zeros(1, np.int64), t - 1
        )
        hand.t = t

    def _snapshot_by_hand(self) -> tuple[_ByHand, Snapshot]:
        hand = self._by_hand()
        with np.errstate(divide="ignore", invalid="ignore"):  # an average of no steps
            return hand, self._snapshot(hand.packed, hand.state, max(hand.t, 1))

    def weights(self) -> Any:
        """The learner's output: what :func:`~maxmargin.online.run`'s trace records as ``w``.

        Returns
        -------
        ndarray or (ndarray, float)
            ``w`` (intercept ``"none"``), ``w~ = (w, b/s)`` (``"augmented"``) or
            ``(w, b)`` (``"free"``); for the averaged perceptron, the average.

        Examples
        --------
        >>> from maxmargin.online import Perceptron
        >>> p = Perceptron(intercept="augmented")
        >>> p.start(3)
        >>> p.step(np.array([1.0, 2.0, 1.0]), 1.0, 1)
        >>> p.weights()
        array([1., 2., 1.])
        """
        _, snap = self._snapshot_by_hand()
        return self._protocol(snap.w, snap.b)

    def average(self) -> Any:
        """The averaged iterate (learners with ``has_average``): the trace's ``w_avg``.

        Returns
        -------
        ndarray or (ndarray, float)
            As :meth:`weights`; :meth:`weights` itself before any step.

        Examples
        --------
        >>> from maxmargin.online import Pegasos
        >>> p = Pegasos(lam=1.0, intercept="none")
        >>> p.start(1)
        >>> p.step(np.array([1.0]), 1.0, 1)
        >>> p.step(np.array([1.0]), 1.0, 2)
        >>> p.average()
        array([0.25])
        """
        if not self.has_average:
            raise ParameterError(
                f"{type(self).__name__} keeps no averaged iterate (has_average is False)"
            )
        hand, snap = self._snapshot_by_hand()
        if hand.t == 0:
            return self._protocol(snap.w, snap.b)
        assert snap.w_avg is not None and snap.b_avg is not None
        return self._protocol(snap.w_avg, snap.b_avg)

    # ------------------------------------------------------------------ the run protocol

    def _check_data(self, dataset: Dataset) -> None:
        """Raise DataError when the learner cannot run on ``dataset``."""

    def _align(self, checkpoints: np.ndarray, n: int, epochs: int) -> np.ndarray:
        """Move checkpoints to where the learner can stop (mini-batch boundaries)."""
        return checkpoints

    def _setup(self, packed: PackedData) -> LearnerState:
        """A fresh state for ``packed``."""
        raise NotImplementedError

    def _advance(
        self, packed: PackedData, state: Any, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        """Take steps ``t0 + 1, ..., t0 + hi - lo`` on the examples ``idx[lo:hi]``."""
        raise NotImplementedError

    def _snapshot(self, packed: PackedData, state: Any, t: int) -> Snapshot:
        """The learner's output after step ``t``."""
        raise NotImplementedError

    def _halted(self, state: Any) -> bool:
        """True when the learner has stopped: the run ends with this epoch.

        Such a learner must put a checkpoint at every epoch end, in ``_align``.
        """
        return False

    def _final(self, packed: PackedData, state: Any) -> dict[str, np.ndarray]:
        """Extra arrays saved once at the end of the run."""
        return {}

    def _decision(self, packed: PackedData, state: Any, w: np.ndarray, b: float) -> np.ndarray:
        """Decision values on the training data, for the final training error."""
        return np.asarray(packed.dataset.X @ w).ravel() + b
