"""Run an online learner over a data set and record its :class:`~maxmargin.trace.Trace`.

:func:`run` drives a fresh state over whole epochs; :class:`OnlineState` keeps one state
alive between batches (what ``partial_fit`` needs).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from .._progress import Progress
from .._validation import (
    WIDE_HINT,
    check_bool,
    check_choice,
    check_count,
    check_int,
    check_memory,
)
from ..conventions import sklearn_names
from ..data import Dataset
from ..exceptions import DataError, ParameterError
from ..trace import Trace
from .base import LearnerState, OnlineLearner, PackedData, Snapshot, step_weights
from .learner import Declared, prediction_errors
from .orders import ORDERS, _check_seed, iter_schedule
from .registry import resolve

__all__ = ["run", "default_checkpoints", "OnlineState"]


#: Bytes of Python objects a recorded checkpoint holds besides its arrays.
CHECKPOINT_OVERHEAD = 1024.0

#: The most steps (epochs * n) a run may take: step counts are int64.
MAX_STEPS = 2**62


def _geometric_count(T: int, per_decade: int = 10) -> int:
    """The number of geometric checkpoints :func:`default_checkpoints` spaces over ``T``."""
    return max(2, int(math.ceil(per_decade * math.log10(max(T, 2)))) + 1)


def default_checkpoints(n: int, epochs: int, per_decade: int = 10) -> np.ndarray:
    """Geometric checkpoints in ``t`` (``per_decade`` per factor 10) plus every epoch end.

    Parameters
    ----------
    n, epochs : int
    per_decade : int, default 10

    Returns
    -------
    ndarray of int64, increasing, in ``[1, n epochs]``

    Examples
    --------
    >>> default_checkpoints(10, 2, per_decade=2).tolist()
    [1, 3, 7, 10, 20]
    """
    T = n * epochs
    num = _geometric_count(T, per_decade)
    geo = np.unique(np.round(np.geomspace(1, T, num)).astype(np.int64))
    ends = np.arange(1, epochs + 1, dtype=np.int64) * n
    return np.unique(np.concatenate([geo, ends]))


def _checkpoints(checkpoints: Any, n: int, epochs: int) -> np.ndarray:
    T = n * epochs
    if checkpoints is None:
        return default_checkpoints(n, epochs)
    c = np.asarray(checkpoints)
    if c.ndim != 1 or c.size == 0 or not np.issubdtype(c.dtype, np.integer):
        raise ParameterError(
            "checkpoints must be a 1-D sequence of integer steps in "
            f"[1, {T}] (epochs * n); got {checkpoints!r}"
        )
    if c.min() < 1 or c.max() > T:
        raise ParameterError(
            f"checkpoints must lie in [1, {T}] (epochs * n = {epochs} * {n}); "
            f"got values from {c.min()} to {c.max()}"
        )
    return np.unique(np.append(c.astype(np.int64), T))


@sklearn_names(random_state="seed", max_iter="epochs")
def run(
    learner: Any,
    data: Dataset,
    epochs: int = 1,
    order: str = "cyclic",
    seed: int = 0,
    checkpoints: Any = None,
    record_dual: bool = False,
    progress: bool = False,
    *,
    sample_weight: Any = None,
) -> Trace:
    """Run ``learner`` on ``data`` for ``epochs`` passes and record its trajectory.

    Parameters
    ----------
    learner : OnlineLearner, a learner of the public protocol, str, ...
        Anything :func:`~maxmargin.online.resolve` takes (an instance, a scikit-learn or
        river classifier, a registry name, ``module:Class``, a class, a pair).
    data : Dataset
    epochs : int >= 1
    order : {"cyclic", "shuffle", "sample"}
        See :func:`maxmargin.online.schedule`.
    seed : int >= 0
        Same seed, same trajectory, bit for bit.
    checkpoints : sequence of int, optional
        Steps (1..epochs*n) at which to record; the last step is always added. Default:
        :func:`default_checkpoints`.
    record_dual : bool
        Record the implied dual point at each checkpoint (learners with ``has_dual``).
    progress : bool
        Draw a progress bar on stderr.
    random_state : int >= 0, numpy RandomState or Generator, optional
        scikit-learn's name for ``seed``.
    max_iter : int >= 1, optional
        scikit-learn's name for ``epochs``.
    sample_weight : array-like of shape (n,), optional
        Example weights ``s_i >= 0`` (learners with a ``sample_weight_rule``); the trace's
        ``loss`` then sums ``s_i`` times each hinge.

    Returns
    -------
    Trace

    Examples
    --------
    >>> from maxmargin import load
    >>> tr = run("pegasos", load("builtin:heart_scale"), epochs=3, order="shuffle", seed=1)
    >>> tr.steps, tr.order
    (810, 'shuffle')
    """
    learner = resolve(learner)
    if not isinstance(data, Dataset):
        raise ParameterError(
            f"data must be a maxmargin.Dataset, got {type(data).__name__}; "
            "wrap arrays with Dataset(X, y)"
        )
    epochs = check_int("epochs", epochs, minimum=1)
    order = check_choice("order", order, ORDERS)
    seed = _check_seed(seed)
    sw = step_weights(learner, sample_weight, data.n)
    learner._check_data(data)
    n, d = data.n, data.d
    check_steps(learner, n, epochs)
    record_dual = check_bool("record_dual", record_dual) and learner.has_dual
    # the trace keeps (k, d) weights (twice while they are stacked), the dual points with
    # record_dual, and a few Python objects per checkpoint: refuse what cannot fit
    each = 32.0 * (d + 1) + 32.0 * record_dual * n + CHECKPOINT_OVERHEAD
    base = 64.0 * (d + 1)

    def check(k: int) -> None:  # k checkpoints: the data's width is the question
        check_memory(
            base + each * k,
            f"running {learner.name} on {data.name} (d = {d:,} features, {k} checkpoints)",
            WIDE_HINT,
        )

    if checkpoints is None:  # one checkpoint per epoch end: refuse before making them
        geo = _geometric_count(n * epochs)
        check(geo + 1)
        check_count(
            "epochs",
            epochs,
            each,
            "epochs",
            detail=f"a checkpoint at each epoch's end, of d + 1 = {d + 1:,} weights"
            + (f" and n = {n:,} dual values" if record_dual else ""),
            base=base + each * geo,
            hint="give fewer epochs (or, in Python, checkpoints=)",
        )
    ckpts = learner._align(_checkpoints(checkpoints, n, epochs), n, epochs)
    check(len(ckpts))

    timer = _Timer()
    with timer("setup_seconds"):
        packed = PackedData.pack(data, learner.bias_feature, record_dual, sw)
        state = learner._setup(packed)
    with timer("compile_seconds"):  # compile / load the kernel
        learner._advance(packed, state, np.zeros(1, np.int64), 0, 0, 0)
    recorder = _Recorder()
    with Progress(n * epochs, learner.name, enabled=progress) as bar:
        for t, idx, lo, hi, base in _steps(n, epochs, order, seed, ckpts):
            if hi > lo:
                with timer("learn_seconds"):
                    learner._advance(packed, state, idx, lo, hi, base + lo)
            if t is not None:
                with timer("record_seconds"), np.errstate(over="ignore", invalid="ignore"):
                    recorder.add(
                        t, learner._snapshot(packed, state, t), state, timer["learn_seconds"]
                    )
                bar.update_to(t)
            if hi == n and learner._halted(state):  # it stopped: the run ends here
                epochs = base // n + 1
                break
    state.steps = n * epochs
    with timer("record_seconds"), np.errstate(over="ignore", invalid="ignore"):
        finals = learner._final(packed, state)
        error = _final_error(learner, packed, state, recorder)
    timings = {
        k: timer[k] for k in ("learn_seconds", "setup_seconds", "record_seconds", "compile_seconds")
    }
    timings["ns_per_step"] = timings["learn_seconds"] / (n * epochs) * 1e9
    R = float(np.sqrt(packed.z_sqnorms.max(initial=0.0)))
    return recorder.trace(
        learner,
        data,
        finals,
        order=order,
        seed=seed,
        epochs=epochs,
        final_train_error=error,
        timings=timings,
        declares=Declared.of(learner, R).to_dict(),
    )


def check_steps(learner: Any, n: int, epochs: int) -> None:
    """Refuse a run whose step count, or whose ``lam`` times it, double precision cannot hold.

    Examples
    --------
    >>> from maxmargin.online import Pegasos
    >>> check_steps(Pegasos(lam=0.1), 270, 10)
    """
    if n * epochs > MAX_STEPS:
        raise ParameterError(
            f"The 'epochs' parameter must be at most {MAX_STEPS // n:,} here: epochs * n "
            f"= {epochs:,} * {n:,} steps exceed {MAX_STEPS:,} (2**62). Got {epochs!r} instead."
        )
    lam = getattr(learner, "lam", None)
    if isinstance(lam, float) and not lam * (n * epochs + 1.0) <= 2.0**1023:
        most = 2.0**1023 / (n * epochs + 1.0)
        raise ParameterError(
            f"The 'lam' parameter is too large for {n * epochs:,} steps: lam * t must stay "
            f"below 2**1023 (9e307) for every step t, or the step 1/(lam t) underflows; "
            f"lam <= {most:.3g} here. Got {lam!r} instead."
        )


def _steps(
    n: int, epochs: int, order: str, seed: int, ckpts: np.ndarray
) -> Iterator[tuple[int | None, np.ndarray, int, int, int]]:
    """The run cut at the checkpoints: steps on ``idx[lo:hi]``, then record at ``t`` (or None)."""
    pos = 0  # index into ckpts
    T = n * epochs
    for e, idx in enumerate(iter_schedule(n, epochs, order, seed)):
        base = e * n
        lo = 0
        while True:
            stop = int(ckpts[pos]) if pos < len(ckpts) else T + 1
            hi = min(stop - base, n)
            if stop - base > n:  # the next checkpoint is in a later epoch
                yield None, idx, lo, hi, base
                break
            yield stop, idx, lo, hi, base
            pos += 1
            lo = max(lo, hi)
            if hi == n:
                break


class _Timer(dict):
    """Seconds per phase: ``with timer("learn_seconds"): ...`` adds to that entry."""

    @contextlib.contextmanager
    def __call__(self, key: str) -> Iterator[None]:
        tic = time.perf_counter()
        try:
            yield
        finally:
            self[key] = self.get(key, 0.0) + time.perf_counter() - tic

    def __missing__(self, key: str) -> float:
        return 0.0


class _Recorder:
    """The checkpoints' snapshots and running totals, stacked into a Trace at the end."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, Snapshot, int, float, float, float]] = []

    def add(self, t: int, snap: Snapshot, state: LearnerState, seconds: float) -> None:
        self.rows.append((t, snap, state.mistakes, state.loss, state.sqnorm, seconds))

    def last(self) -> Snapshot:
        return self.rows[-1][1]

    def trace(
        self, learner: OnlineLearner, data: Dataset, finals: dict[str, np.ndarray], **fields: Any
    ) -> Trace:
        n, d = data.n, data.d
        t = np.array([r[0] for r in self.rows], np.int64)
        snaps = [r[1] for r in self.rows]

        def stack(key: str) -> np.ndarray | None:
            values = [getattr(s, key) for s in snaps]
            return None if any(v is None for v in values) else np.asarray(values, float)

        extras = {k: np.asarray([s.extras[k] for s in snaps]) for k in snaps[0].extras}
        extras.update(finals)
        return Trace(
            learner=learner.name,
            params=learner.get_params(),
            data=data.name,
            intercept=learner.intercept,
            intercept_scaling=learner.intercept_scaling,
            n=n,
            d=d,
            t=t,
            epoch=(t + n - 1) // n,
            w=np.asarray([s.w for s in snaps], float).reshape(len(t), d),
            b=np.asarray([s.b for s in snaps], float),
            mistakes=np.array([r[2] for r in self.rows], np.int64),
            loss=np.array([r[3] for r in self.rows], float),
            sqnorm=np.array([r[4] for r in self.rows], float),
            seconds=np.array([r[5] for r in self.rows], float),
            w_avg=stack("w_avg"),
            b_avg=stack("b_avg"),
            dual=stack("dual"),
            dual_avg=stack("dual_avg"),
            extras=extras,
            **fields,
        )


def _final_error(
    learner: OnlineLearner, packed: PackedData, state: LearnerState, recorder: _Recorder
) -> float:
    """Training error of the learner's final output (nan when it diverged)."""
    last = recorder.last()
    if learner.has_weights and not np.all(np.isfinite(last.w)):
        return math.nan
    f = learner._decision(packed, state, last.w, last.b)
    return float(np.mean(prediction_errors(f, packed.y, learner.svm_space)))


class OnlineState:
    """The running state of one learner, advanced batch by batch.

    ``t`` (steps so far), ``d`` (fixed by the first batch), ``w`` (shape (d,)), ``b``,
    ``w_avg``, ``b_avg`` (as the trace's; None without ``has_average``) and ``mistakes``
    (``y w.z <= 0`` before the step) are the state after the last batch.

    Parameters
    ----------
    learner : OnlineLearner declaring ``resumable``

    Examples
    --------
    Two batches give the weights of one cyclic run over both:

    >>> from maxmargin import Dataset, make_separable
    >>> from maxmargin.online import Perceptron, run
    >>> ds = make_separable(40, 2, seed=0)
    >>> st = OnlineState(Perceptron())
    >>> _ = st.update(Dataset(ds.X[:25], ds.y[:25])).update(Dataset(ds.X[25:], ds.y[25:]))
    >>> st.t, bool(np.allclose(st.w, run(Perceptron(), ds).w[-1]))
    (40, True)
    """

    def __init__(self, learner: OnlineLearner) -> None:
        if not (isinstance(learner, OnlineLearner) and learner.resumable):
            from .registry import LEARNERS

            names = ", ".join(c.__name__ for c in LEARNERS.values() if c.resumable)
            raise ParameterError(
                f"{type(learner).__name__} cannot be resumed batch by batch (its state depends "
                f"on the whole data set); use one of {names}, or maxmargin.run on the full data"
            )
        self.learner = learner
        self.t = 0
        self.d: int | None = None
        self.w: np.ndarray | None = None
        self.b = 0.0
        self.w_avg: np.ndarray | None = None
        self.b_avg: float | None = None
        self.mistakes = 0
        self._state: Any = None

    def update(
        self, data: Any, y: Any = None, idx: Any = None, *, sample_weight: Any = None
    ) -> OnlineState:
        """Take one step per entry of ``idx`` (default: every row of the batch in order).

        Parameters
        ----------
        data : Dataset, or array of shape (n, d) (``d`` that of the first batch)
        y : array of shape (n,), with an array ``data`` (a single class allowed)
        idx : array of int or None, the rows to visit in order (repeats allowed)
        sample_weight : array of shape (n,) or None, as :func:`run` takes them

        Returns
        -------
        OnlineState, ``self``

        Examples
        --------
        >>> from maxmargin.online import Perceptron
        >>> st = OnlineState(Perceptron(intercept="none"))
        >>> st.update(np.array([[1.0, 2.0]]), np.array([-1.0]), idx=[0, 0]).t
        2
        """
        if not isinstance(data, Dataset):
            if y is None:
                raise ParameterError("give the batch as a maxmargin.Dataset, or as X and y")
            data = Dataset(data, y, name="batch", require_both_classes=False)
        if self.d is not None and data.d != self.d:
            raise DataError(
                f"this state was started on {self.d} features, the batch has "
                f"{data.d}; every batch must have the same columns"
            )
        if idx is None:
            idx = np.arange(data.n, dtype=np.int64)
        else:
            idx = np.ascontiguousarray(idx, dtype=np.int64).reshape(-1)
            if idx.size and (idx.min() < 0 or idx.max() >= data.n):
                raise ParameterError(f"idx must index rows 0..{data.n - 1} of the batch")
        learner = self.learner
        self._state, packed = learner._feed(self._state, data, idx, self.t, sample_weight)
        self.d = data.d
        if idx.size:
            self.t += int(idx.size)
            snap = learner._snapshot(packed, self._state, self.t)
            self.w, self.b = snap.w, snap.b
            self.w_avg, self.b_avg = snap.w_avg, snap.b_avg
            self.mistakes = self._state.mistakes
        elif self.w is None:
            self.w = np.zeros(data.d)
        return self
