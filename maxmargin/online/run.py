"""Run an online learner over a data set and record its :class:`~maxmargin.trace.Trace`."""

from __future__ import annotations

import inspect
import math
import sys
import time
from typing import Any

import numpy as np

from .._validation import WIDE_HINT, check_choice, check_int, check_memory
from ..data import Dataset
from ..exceptions import ParameterError
from ..trace import Trace
from ._base import OnlineLearner, _pack
from .pa import PA, PA1, PA2
from .pegasos import Pegasos
from .perceptron import (
    PLA,
    AveragedPerceptron,
    DualPerceptron,
    MarginPerceptron,
    Perceptron,
    VotedPerceptron,
)
from .pocket import Pocket
from .schedule import ORDERS, _check_seed, iter_schedule
from .subgradient import OnlineSubgradient
from .winnow import Winnow

__all__ = ["run", "LEARNERS", "make_learner", "default_checkpoints"]

#: Registry: learner name -> class.
LEARNERS: dict[str, type[OnlineLearner]] = {
    cls.name: cls
    for cls in (Perceptron, AveragedPerceptron, VotedPerceptron, DualPerceptron, Pocket,
                Pegasos, OnlineSubgradient, PA, PA1, PA2, Winnow, MarginPerceptron, PLA)
}


def make_learner(name: str, **params: Any) -> OnlineLearner:
    """Build a learner by its registry name.

    Parameters
    ----------
    name : str
        One of ``LEARNERS`` (``perceptron``, ``averaged_perceptron``, ``voted_perceptron``,
        ``dual_perceptron``, ``pocket``, ``pegasos``, ``subgradient``, ``pa``, ``pa1``,
        ``pa2``, ``winnow``, ``margin_perceptron``, ``pla``).
    **params
        Keyword arguments of the learner's class.

    Returns
    -------
    OnlineLearner
        An instance of ``LEARNERS[name]`` (hyper-parameters only; :func:`run` runs it).

    Examples
    --------
    >>> make_learner("pegasos", lam=0.01)
    Pegasos(lam=0.01, projection=None, batch_size=1, intercept='augmented', intercept_scaling=1.0)
    """
    if name not in LEARNERS:
        raise ParameterError(f"unknown learner {name!r}; choose from {', '.join(LEARNERS)}")
    cls = LEARNERS[name]
    accepted = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ParameterError(f"learner {name!r} has no parameter {', '.join(unknown)}; "
                             f"it accepts {', '.join(accepted)}")
    return cls(**params)


def default_checkpoints(n: int, epochs: int, per_decade: int = 10) -> np.ndarray:
    """Geometric checkpoints in ``t`` (``per_decade`` per factor 10) plus every epoch end.

    Examples
    --------
    >>> default_checkpoints(10, 2, per_decade=2).tolist()
    [1, 3, 7, 10, 20]
    """
    T = n * epochs
    num = max(2, int(math.ceil(per_decade * math.log10(max(T, 2)))) + 1)
    geo = np.unique(np.round(np.geomspace(1, T, num)).astype(np.int64))
    ends = np.arange(1, epochs + 1, dtype=np.int64) * n
    return np.unique(np.concatenate([geo, ends]))


def _checkpoints(checkpoints: Any, n: int, epochs: int) -> np.ndarray:
    T = n * epochs
    if checkpoints is None:
        return default_checkpoints(n, epochs)
    c = np.asarray(checkpoints)
    if c.ndim != 1 or c.size == 0 or not np.issubdtype(c.dtype, np.integer):
        raise ParameterError("checkpoints must be a 1-D sequence of integer steps in "
                             f"[1, {T}] (epochs * n); got {checkpoints!r}")
    if c.min() < 1 or c.max() > T:
        raise ParameterError(f"checkpoints must lie in [1, {T}] (epochs * n = {epochs} * {n}); "
                             f"got values from {c.min()} to {c.max()}")
    return np.unique(np.append(c.astype(np.int64), T))


def run(learner: OnlineLearner | str, data: Dataset, epochs: int = 1, order: str = "cyclic",
        seed: int = 0, checkpoints: Any = None, record_dual: bool = False,
        progress: bool = False, *, random_state: Any = None) -> Trace:
    """Run ``learner`` on ``data`` for ``epochs`` passes and record its trajectory.

    Parameters
    ----------
    learner : OnlineLearner or str
        A learner instance, or a registry name (default parameters).
    data : Dataset
    epochs : int >= 1
    order : {"cyclic", "shuffle", "sample"}
        ``cyclic`` 0..n-1 each epoch; ``shuffle`` a new permutation each epoch; ``sample``
        i.i.d. with replacement. See :func:`maxmargin.online.schedule`.
    seed : int >= 0
        Same seed, same trajectory, bit for bit.
    checkpoints : sequence of int, optional
        Steps (1..epochs*n) at which to record; the last step is always added. Default:
        :func:`default_checkpoints` (geometric plus every epoch end). Mini-batch learners
        move a checkpoint to the end of its batch.
    record_dual : bool
        Record the implied dual point at each checkpoint (learners with ``has_dual``;
        ignored, ``trace.dual is None``, for the others).
    progress : bool
        Draw a progress bar on stderr.
    random_state : int >= 0 or numpy RandomState, optional
        scikit-learn's name for ``seed``; when given, it is the seed.

    Returns
    -------
    Trace

    Examples
    --------
    >>> from maxmargin import load_heart_scale
    >>> tr = run("pegasos", load_heart_scale(), epochs=3, order="shuffle", seed=1)
    >>> tr.steps, tr.order
    (810, 'shuffle')
    """
    if isinstance(learner, str):
        learner = make_learner(learner)
    if not isinstance(learner, OnlineLearner):
        raise ParameterError(f"learner must be an OnlineLearner or a name in LEARNERS, got "
                             f"{type(learner).__name__}")
    if not isinstance(data, Dataset):
        raise ParameterError(f"data must be a maxmargin.Dataset, got {type(data).__name__}; "
                             "wrap arrays with Dataset(X, y)")
    epochs = check_int("epochs", epochs, minimum=1)
    order = check_choice("order", order, ORDERS)
    from .._validation import seed_from_random_state  # scikit-learn's name for seed

    seed = _check_seed(seed_from_random_state(random_state, seed))
    learner._check_data(data)
    n, d = data.n, data.d
    T = n * epochs
    ckpts = learner._align(_checkpoints(checkpoints, n, epochs), n, epochs)
    # the trace keeps (k, d) weights (twice while they are stacked): refuse what cannot fit
    dual = bool(record_dual) and learner.has_dual
    check_memory(8.0 * (d + 1) * (8 + 4 * len(ckpts)) + 32.0 * dual * len(ckpts) * n,
                 f"running {learner.name} on {data.name} (d = {d:,} features, "
                 f"{len(ckpts)} checkpoints)", WIDE_HINT)

    tic = time.perf_counter()
    pk = _pack(data, learner._s, bool(record_dual) and learner.has_dual)
    state = learner._setup(pk)
    setup = time.perf_counter() - tic
    tic = time.perf_counter()
    learner._advance(pk, state, np.zeros(1, np.int64), 0, 0, 0)  # compile / load the kernel
    compile_s = time.perf_counter() - tic

    rec: dict[str, list] = {k: [] for k in ("t", "w", "b", "mistakes", "loss", "sqnorm",
                                            "seconds", "w_avg", "b_avg", "dual", "dual_avg")}
    extra: dict[str, list] = {}
    learn = 0.0
    record = 0.0
    pos = 0  # index into ckpts
    s_true = learner._s
    bar = _Bar(learner.name, T) if progress else None
    for e, idx in enumerate(iter_schedule(n, epochs, order, seed)):
        base = e * n
        lo = 0
        while True:
            stop = int(ckpts[pos]) if pos < len(ckpts) else T + 1
            hi = min(stop - base, n)
            if hi > lo:
                tic = time.perf_counter()
                learner._advance(pk, state, idx, lo, hi, base + lo)
                learn += time.perf_counter() - tic
                lo = hi
            if stop - base > n:
                break
            # checkpoint at step `stop`
            tic = time.perf_counter()
            with np.errstate(over="ignore", invalid="ignore"):  # divergence: see the trace
                snap = learner._snapshot(pk, state, stop)
            if "wt" in snap:
                w, b = snap["wt"][:-1], s_true * snap["wt"][-1]
            else:
                w, b = snap["w"], snap["b"]
            mistakes, loss, sqn = learner._stats(state)
            rec["t"].append(stop)
            rec["w"].append(w)
            rec["b"].append(b)
            rec["mistakes"].append(mistakes)
            rec["loss"].append(loss)
            rec["sqnorm"].append(sqn)
            rec["seconds"].append(learn)
            if "wt_avg" in snap:
                rec["w_avg"].append(snap["wt_avg"][:-1])
                rec["b_avg"].append(s_true * snap["wt_avg"][-1])
            for k in ("dual", "dual_avg"):
                if k in snap:
                    rec[k].append(snap[k])
            for k, v in snap.get("extra", {}).items():
                extra.setdefault(k, []).append(v)
            record += time.perf_counter() - tic
            if bar is not None:
                bar.update(stop)
            pos += 1
            if hi == n:
                break
        if learner._halted(state):  # it stopped (the PLA): the run ends with this epoch
            epochs, T = e + 1, (e + 1) * n
            break
    if bar is not None:
        bar.close()

    state.T = T
    tic = time.perf_counter()
    with np.errstate(over="ignore", invalid="ignore"):
        finals = learner._final(pk, state)
    w_fin, b_fin = rec["w"][-1], rec["b"][-1]
    if np.all(np.isfinite(w_fin)) or learner.name == "dual_perceptron":
        f = learner._decision(pk, state, w_fin, b_fin)
        if learner._zero_is_negative:
            err = float(np.mean((f > 0) != (data.y > 0)))
        else:
            err = float(np.mean(data.y * f <= 0))
    else:
        err = math.nan
    record += time.perf_counter() - tic

    t = np.asarray(rec["t"], np.int64)
    opt = {k: (np.asarray(rec[k], float) if rec[k] else None)
           for k in ("w_avg", "b_avg", "dual", "dual_avg")}
    extras = {k: np.asarray(v) for k, v in extra.items()}
    extras.update(finals)
    return Trace(
        learner=learner.name, params=learner.get_params(), order=order, seed=seed,
        data=data.name, intercept=learner.intercept,
        intercept_scaling=learner.intercept_scaling, n=n, d=d, epochs=epochs,
        t=t, epoch=(t + n - 1) // n, w=np.asarray(rec["w"], float).reshape(len(t), d),
        b=np.asarray(rec["b"], float), mistakes=np.asarray(rec["mistakes"], np.int64),
        loss=np.asarray(rec["loss"], float), sqnorm=np.asarray(rec["sqnorm"], float),
        seconds=np.asarray(rec["seconds"], float), **opt, extras=extras,
        final_train_error=err,
        timings={"learn_seconds": learn, "setup_seconds": setup, "record_seconds": record,
                 "compile_seconds": compile_s, "ns_per_step": learn / T * 1e9},
    )


class _Bar:
    """A minimal progress bar on stderr (only on a terminal)."""

    def __init__(self, name: str, total: int) -> None:
        self.name, self.total = name, total
        self.tty = sys.stderr.isatty()
        self.last = -1

    def update(self, t: int) -> None:
        pct = int(100 * t / self.total)
        if not self.tty or pct == self.last:
            return
        self.last = pct
        filled = pct * 30 // 100
        sys.stderr.write(f"\r{self.name:>20} [{'#' * filled}{'.' * (30 - filled)}] {pct:3d}%")
        sys.stderr.flush()

    def close(self) -> None:
        if self.tty:
            sys.stderr.write("\n")
