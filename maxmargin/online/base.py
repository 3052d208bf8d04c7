"""The learner contract: what a learner declares, and what :func:`run` asks of it.

A learner is a class derived from :class:`OnlineLearner`. It holds its hyper-parameters
only, and says on the class what it is, so that nothing in maxmargin ever looks at its
name to decide how to score it:

========================  ============================================================
``objective``             the objective it minimises: ``"lambda"`` (``F``, it has
                          ``lam``), ``"C"`` (``P``, it has ``C``) or None; only a
                          learner with one is scored on suboptimality, distance to the
                          optimum, rate and duality gap
``problem_parameter``     the problem's parameter its constructor takes by that name
                          (``"lam"``, ``"C"`` or None): :func:`~maxmargin.compare`, the
                          path and a study build it with the problem's value
``mistake_driven``        the perceptron's update (zero start, ``w += eta y z`` exactly on
                          ``y w.z <= tau``; ``update_step`` eta and ``update_margin`` tau,
                          1 and 0 for the perceptron): the mistake bounds apply
``theory_rate``           the slope of ``log(F - F*)`` against ``log t`` the theory
                          gives (for the averaged iterate where it has one), or None
``has_dual``              it can report an implied dual point ``a``
                          (``w~ = sum_i a_i y_i z_i``): the implied-dual gap applies;
                          ``dual_counts_updates``: ``a`` is eta times the updates made
                          on each example (the mistake-rounds bound applies)
``has_average``           its trace has an averaged iterate ``w_avg``
``svm_space``             its output is a classifier ``sign(w~.z)`` in the SVM's space
                          (a zero score is a mistake): margin, angle and regret apply;
                          False for Winnow (``w.x > theta``: mistakes and error only)
``visits_schedule``       step ``t`` sees the schedule's example (the regret and the
                          mistake bounds are recomputed along it); False for a learner
                          that picks its examples itself
``resumable``             its state depends on ``d`` only, so
                          :class:`~maxmargin.online.OnlineState` can feed it batches
``sample_weight_rule``    how it takes example weights (``run(sample_weight=...)``), in
                          words; None: it refuses them
========================  ============================================================

and :meth:`OnlineLearner.regret_lipschitz` gives the constant of a logarithmic regret
bound where one is proven.

How :func:`~maxmargin.online.run` drives a learner (the *run protocol*; the built-in
learners implement it with compiled numba kernels, an implementation detail):

1. ``_check_data(dataset)``: refuse data the learner cannot run on;
2. ``_align(checkpoints, n, epochs)``: move checkpoints where the learner can stop;
3. ``state = _setup(packed)``: a fresh :class:`LearnerState` (a typed dataclass per
   learner) for the :class:`PackedData`;
4. ``_advance(packed, state, idx, lo, hi, t0)``: take the steps ``t0 + 1, ...`` on the
   examples ``idx[lo:hi]``, in place;
5. ``_snapshot(packed, state, t) -> Snapshot`` at every checkpoint;
6. ``_halted(state)`` at every epoch end: True ends the run there (a learner that stops,
   like a PLA after a clean pass);
7. ``_final(packed, state)`` (arrays saved once) and ``_decision(packed, state, w, b)``
   (decision values on the training data, for the final error) at the end.

Every learner sees the examples as ``z_i = (x_i, s)``: its weight vector ``w~`` has
``d + 1`` entries, ``s = intercept_scaling`` for intercepts ``augmented`` and ``free`` and
``s = 0`` for ``none`` (so the last entry never moves). :meth:`PackedData.split` gives
``(w, b)``. With ``free`` the last entry is an unregularised bias: the learner takes the
same steps on it, without the shrinkage a regulariser puts on the weights, and the run is
scored against the problem whose ``b`` is free.

A learner written in plain Python (``start``, ``step``, ``weights``: the public protocol
of :mod:`maxmargin.online.protocol`) is run through an adapter that implements this run
protocol for it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .._validation import check_scale
from ..conventions import DEFAULT_INTERCEPT
from ..data import Dataset
from ..exceptions import DataError, ParameterError
from ._compiled import kernels
from .learner import OBJECTIVES, Learner

__all__ = [
    "OnlineLearner",
    "LearnerState",
    "Snapshot",
    "PackedData",
    "step_weights",
]

#: The Parameters entries of the inherited ``intercept`` / ``intercept_scaling``, shared by
#: the learners' docstrings through :func:`_doc_intercept`.
INTERCEPT_PARAMETERS = """\
intercept : {"free", "augmented", "none"}, default "free"
    ``"free"`` (the default, :data:`maxmargin.conventions.DEFAULT_INTERCEPT`) learns an
    unregularised bias: each example ``x`` of shape (d,) is seen as ``z = (x, s)`` of
    shape (d + 1,), ``b = s * w[d]`` takes the steps of the weights but no shrinkage, no
    projection (the SVM of the textbooks and of scikit-learn's SGDClassifier), and the run
    is scored against the problem with a free ``b``; ``"augmented"`` regularises the bias
    like the weights (the perceptron's ``w0 += y s`` rule); ``"none"`` fits
    ``f(x) = w.x`` without a bias.
intercept_scaling : float > 0, default 1.0
    The constant ``s`` of the bias feature (unused with ``"none"``); at most ~1.34e154,
    so that ``s**2`` is a finite double."""

_MARKER = "{intercept_parameters}"


def _doc_intercept(cls: type) -> type:
    """Class decorator: put :data:`INTERCEPT_PARAMETERS` into the class's docstring.

    It goes where the docstring says ``{intercept_parameters}``, at that line's
    indentation.
    """
    doc = cls.__doc__ or ""
    for line in doc.splitlines():
        if line.strip() == _MARKER:
            indent = line[: len(line) - len(line.lstrip())]
            text = "\n".join(
                indent + part if part else part for part in INTERCEPT_PARAMETERS.splitlines()
            )
            cls.__doc__ = doc.replace(line, text, 1)
            return cls
    raise AssertionError(f"{cls.__name__}.__doc__ has no {_MARKER} line")


def step_weights(learner: OnlineLearner, sample_weight: Any, n: int) -> np.ndarray | None:
    """``sample_weight`` checked for ``learner``.

    An array of shape (n,), finite and ``>= 0``, or None (no weights, or every weight
    exactly 1: the unweighted run).

    Parameters
    ----------
    learner : OnlineLearner
    sample_weight : array-like of shape (n,) or None
    n : int

    Returns
    -------
    ndarray of shape (n,) or None

    Raises
    ------
    ParameterError
        The learner declares no ``sample_weight_rule``.
    DataError
        The wrong shape, a negative or non-finite weight.
    """
    if sample_weight is None:
        return None
    if learner.sample_weight_rule is None:
        raise ParameterError(
            f"{type(learner).__name__} takes no example weights (it "
            "declares no sample_weight_rule); the perceptrons, Pegasos, "
            "the online subgradient, PA-I and PA-II do"
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
    """The data in the one shape every compiled kernel takes (see ``_kernels``).

    Attributes
    ----------
    X_dense : ndarray of shape (n, d)
        C-contiguous float64 (empty for sparse data).
    indptr, indices, values : ndarray
        The CSR arrays (empty for dense data).
    sparse : bool
    y : ndarray of shape (n,)
    z_sqnorms : ndarray of shape (n,)
        ``||z_i||^2 = ||x_i||^2 + s^2``, the squared norms of the examples the learner sees.
    bias_feature : float
        ``s``, the constant appended to every example (0.0 for intercept ``none``).
    n, d : int
    record_dual : bool
        Whether the learner records its implied dual point.
    dataset : Dataset
    step_weights : ndarray of shape (n,) or None
        The example weights the steps are scaled by (None: unweighted; the kernels then
        run their unweighted loop).
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
        """Pack ``dataset`` for a learner with constant feature ``bias_feature``.

        Parameters
        ----------
        dataset : Dataset
        bias_feature : float
            ``s`` (0.0 for intercept ``none``).
        record_dual : bool
        step_weights : ndarray of shape (n,), optional
            Example weights, checked (:func:`step_weights`).

        Returns
        -------
        PackedData
        """
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
        """``(w, b)`` of a learner's vector ``w~ = (w, w_{d+1})``: ``b = s w_{d+1}``.

        The learners' space always has the bias entry (``s = 0`` for intercept ``none``,
        where it stays 0); :meth:`maxmargin.SVMProblem.from_augmented` is the problem's
        side, whose ``Z`` has that column for ``augmented`` only.

        Parameters
        ----------
        w_tilde : ndarray of shape (d + 1,)

        Returns
        -------
        w : ndarray of shape (d,)
            A copy.
        b : float
        """
        return np.array(w_tilde[:-1], dtype=float), float(self.bias_feature * w_tilde[-1])


@dataclass(eq=False)
class LearnerState:
    """A learner's running state, advanced in place by its steps.

    Every built-in learner extends it with its own arrays (a typed dataclass per learner).

    Attributes
    ----------
    totals : ndarray of shape (8,)
        The running statistics the compiled kernels update: ``totals[0]`` mistakes,
        ``totals[1]`` cumulative hinge loss, ``totals[2]`` cumulative ``||w~_t||^2`` (each
        of the predicting iterate, before its update), then learner-specific scalars
        (named by the learner's state class).
    steps : int
        Steps taken (set by :func:`~maxmargin.online.run` at the end).
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
    """What a learner reports at a checkpoint: its output on the original features.

    Attributes
    ----------
    w : ndarray of shape (d,)
        The learner's output (the pocket's weights, the average for the averaged
        perceptron).
    b : float
        Its intercept (``s w~_{d+1}``; Winnow's fixed ``-theta``).
    w_avg, b_avg : ndarray of shape (d,) and float, optional
        The averaged iterate (learners with ``has_average``).
    dual, dual_avg : ndarray of shape (n,), optional
        Implied dual points of ``w~`` and of the average (``record_dual``).
    extras : dict
        Learner-specific values recorded at every checkpoint (``pocket_errors``, ...).
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
    What it is scored on is declared by the class attributes below (see the module's
    docstring, and docs/contributing.md, "Adding a learner").

    Parameters
    ----------
    intercept : str
        One of the learner's ``supported_intercepts``: ``"none"`` (f(x) = w.x),
        ``"augmented"`` (x -> (x, s); the bias ``b = s w_{d+1}`` is learnt like any
        weight, the perceptron's ``w0 += y s`` rule) or ``"free"`` (the same bias
        feature, unregularised).
    intercept_scaling : float > 0
        The constant ``s`` of the bias feature.

    Attributes
    ----------
    name : str
        Registry name (``maxmargin.online.LEARNERS``); the trace's ``learner``.
    reference : str
        Where the algorithm comes from.
    supported_intercepts : tuple of str
    objective : {"lambda", "C"} or None
        The objective the learner minimises.
    problem_parameter : {"lam", "C"} or None
        The problem's parameter its constructor takes.
    mistake_driven : bool
        The perceptron's update rule: the mistake bounds apply.
    update_margin, update_step : float
        A mistake-driven learner's update ``w += update_step * y z`` whenever
        ``y w.z <= update_margin`` (the perceptron's 0 and 1); its mistake bounds use
        ``R^2 + 2 update_margin / update_step`` for ``R^2``.
    theory_rate : float or None
        Theoretical slope of ``log(F - F*)`` against ``log t``.
    has_dual : bool
        It can record an implied dual point ``a`` with ``w~ = sum_i a_i y_i z_i``.
    dual_counts_updates : bool
        That dual point is ``update_step`` times the updates made on each example (so
        the mistake bound summed over the mistake rounds applies).
    has_average : bool
        Its trace records an averaged iterate ``w_avg``.
    svm_space : bool
        Its output is ``sign(w~.z)`` in the SVM's space (margin, angle, regret apply).
    visits_schedule : bool
        Step ``t`` sees the example the order's schedule gives (so the regret and the
        mistake bounds can be recomputed along it); False for a learner that picks its
        own examples (the pocket on random current mistakes).
    resumable : bool
        Its state depends on ``d`` only (:class:`~maxmargin.online.OnlineState`).
    sample_weight_rule : str or None
        How its steps take example weights ``s_i`` (one line, for the docs and the
        messages); None: it refuses weights.
    """

    name: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    supported_intercepts: ClassVar[tuple[str, ...]] = ("none", "augmented", "free")
    # what the learner is scored on: declared on the class; an instance may narrow it when
    # a parameter changes what it minimises (OnlineSubgradient(lam=None): the hinge alone)
    objective: str | None = None
    problem_parameter: str | None = None
    mistake_driven: bool = False
    update_margin: float = 0.0
    update_step: float = 1.0
    theory_rate: float | None = None
    has_dual: ClassVar[bool] = False
    dual_counts_updates: ClassVar[bool] = False
    has_average: ClassVar[bool] = False
    svm_space: ClassVar[bool] = True
    visits_schedule: bool = True
    resumable: ClassVar[bool] = False
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
        if cls.objective not in (None, *OBJECTIVES):
            raise TypeError(
                f"{cls.__name__}.objective must be one of {OBJECTIVES} or None, "
                f"not {cls.objective!r}"
            )
        if cls.problem_parameter not in (None, "lam", "C"):
            raise TypeError(
                f"{cls.__name__}.problem_parameter must be 'lam', 'C' or None, "
                f"not {cls.problem_parameter!r}"
            )

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
        """Whether the learner's output is a weight vector on the features.

        A kernel perceptron with a non-linear kernel has none: it cannot be measured
        against the linear optimum.
        """
        return True

    def regret_lipschitz(self, R: float) -> float | None:
        """``G`` of the regret bound ``G^2 (1 + ln t) / (2 lam)`` against any ``u``, or None.

        The bound of online gradient descent with steps ``1/(lam t)`` on ``lam``-strongly
        convex losses whose subgradients are at most ``G`` (Hazan, Agarwal & Kale 2007);
        None where the learner's settings are not covered.

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
        """Take the steps ``t0 + 1, ...`` on the rows ``idx`` of ``data``, from ``state``.

        ``state`` None: a fresh one. Returns the state and the packed batch (which a
        snapshot reads).
        """
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
            The length of the ``x`` that :meth:`step` will see: ``d`` features, plus one
            (the bias feature ``s``) with intercept ``"augmented"``.

        Raises
        ------
        ParameterError
            The learner cannot be stepped one example at a time (it says why).

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

        The learner's compiled kernel on a batch of one example.

        Parameters
        ----------
        x : ndarray of shape (d,)
            With intercept ``"augmented"`` its last entry is the bias feature ``s``.
        y : float
            +1.0 or -1.0.
        t : int
            The step number, 1 for the first (Pegasos and the subgradient count their own
            steps).

        Raises
        ------
        ParameterError, DataError
            As :meth:`start`; ``x`` not of length ``d``, not finite, ``y`` not +-1.

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

        Raises
        ------
        ParameterError
            As :meth:`start`.

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

        Raises
        ------
        ParameterError
            As :meth:`start`, or the learner keeps no average.

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

        Such a learner puts a checkpoint at every epoch end, in ``_align``.
        """
        return False

    def _final(self, packed: PackedData, state: Any) -> dict[str, np.ndarray]:
        """Extra arrays saved once at the end of the run."""
        return {}

    def _decision(self, packed: PackedData, state: Any, w: np.ndarray, b: float) -> np.ndarray:
        """Decision values on the training data, for the final training error."""
        return np.asarray(packed.dataset.X @ w).ravel() + b
