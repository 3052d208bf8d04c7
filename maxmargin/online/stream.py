"""A learner's running state carried across batches: what ``partial_fit`` needs.

:func:`~maxmargin.online.run` creates a fresh state on every call, drives it over whole
epochs and returns a :class:`~maxmargin.trace.Trace`. :class:`OnlineState` keeps one
state alive between calls instead, so a stream of batches can be fed to the same
learner: the compiled kernels keep everything in the state arrays (weights, running
statistics, Pegasos' scale and step counter) and take the global step number ``t0``, so
nothing else is needed to resume.

Feeding the batches ``B_1, B_2, ...`` in turn gives the weights of one cyclic ``run`` over
their concatenation (for mini-batch Pegasos, when every batch length is a multiple of
``batch_size``: a mini-batch never straddles two calls).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..data import Dataset
from ..exceptions import DataError, ParameterError
from .base import OnlineLearner, PackedData, step_weights

__all__ = ["OnlineState"]


class OnlineState:
    """The running state of one learner, advanced batch by batch.

    Parameters
    ----------
    learner : OnlineLearner
        A learner whose class declares ``resumable`` (its state depends on ``d`` only):
        not the dual perceptron (its (n, n) kernel matrix), the pocket (training-error
        checks over the data) or the voted perceptron (indices into the data).

    Attributes
    ----------
    t : int
        Steps taken so far (examples seen, over all batches).
    d : int or None
        Number of features, fixed by the first batch.
    w : ndarray of shape (d,)
        Current weights on the original features (for the averaged perceptron, the
        average, as in its trace).
    b : float
        Current intercept ``s w~_{d+1}`` (0 for intercept ``none``).
    w_avg, b_avg : ndarray of shape (d,), float, or None
        The averaged iterate of learners with ``has_average`` (Pegasos), else None.
    mistakes : int
        Mistakes (``y w.z <= 0`` before the step) made so far.

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
                f"{type(learner).__name__} cannot be resumed batch by batch (its state "
                f"depends on the whole data set); use one of {names}, or maxmargin.run "
                "on the full data"
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
        data : Dataset or array-like / sparse of shape (n, d)
            The batch; its number of features must match the first batch's.
        y : array-like of shape (n,), optional
            Labels in {-1, +1} when ``data`` is an array; unlike a :class:`Dataset`, a
            batch may hold a single class.
        idx : array-like of int, optional
            Rows of the batch to visit, in order (repeats allowed).
        sample_weight : array-like of shape (n,), optional
            Weights of the batch's rows, taken by the learner's ``sample_weight_rule``.

        Returns
        -------
        OnlineState
            ``self``, advanced by ``len(idx)`` steps.
        """
        if not isinstance(data, Dataset):
            if y is None:
                raise ParameterError("give the batch as a maxmargin.Dataset, or as X and y")
            data = (
                data
                if isinstance(data, Dataset)
                else Dataset(data, y, name="batch", require_both_classes=False)
            )
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
        learner._check_data(data)
        packed = PackedData.pack(
            data, learner.bias_feature, False, step_weights(learner, sample_weight, data.n)
        )
        if self._state is None:
            self._state = learner._setup(packed)
            self.d = data.d
        if idx.size:
            learner._advance(packed, self._state, idx, 0, int(idx.size), self.t)
            self.t += int(idx.size)
            snap = learner._snapshot(packed, self._state, self.t)
            self.w, self.b = snap.w, snap.b
            self.w_avg, self.b_avg = snap.w_avg, snap.b_avg
            self.mistakes = self._state.mistakes
        elif self.w is None:
            self.w = np.zeros(data.d)
        return self
