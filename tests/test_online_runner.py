"""maxmargin.online.runner.OnlineState: one learner's state fed batch by batch (``partial_fit``)."""

import numpy as np
import pytest

from maxmargin import DataError, Dataset, ParameterError
from maxmargin.online import LEARNERS, OnlineState, resolve, run


def _batches(data, sizes):
    """(X, y) batches of the given sizes, in order (a batch may hold one class)."""
    X, lo = data.dense(), 0
    for k in sizes:
        yield X[lo : lo + k], data.y[lo : lo + k]
        lo += k


@pytest.mark.parametrize("name", [n for n, c in LEARNERS.items() if c.resumable])
def test_batches_give_one_cyclic_run(gauss, name):
    learner = resolve(name)
    state = OnlineState(learner)
    for X, y in _batches(gauss, (10, 1, 26)):  # batch size 1 in the middle
        state.update(X, y)
    tr = run(resolve(name), gauss, epochs=1, order="cyclic")
    assert state.t == gauss.n and state.d == gauss.d
    np.testing.assert_allclose(state.w, tr.w[-1], rtol=1e-12, atol=1e-14)
    assert state.b == pytest.approx(tr.b[-1], rel=1e-12, abs=1e-14)
    assert state.mistakes == tr.mistakes[-1]
    if learner.has_average:
        np.testing.assert_allclose(state.w_avg, tr.w_avg[-1], rtol=1e-12, atol=1e-14)
    else:
        assert state.w_avg is None


def test_idx_and_arrays(gauss):
    state = OnlineState(resolve("perceptron"))
    order = np.r_[5 : gauss.n, 0:5]
    state.update(gauss.dense(), gauss.y, idx=order)  # arrays and a visiting order
    X, y = gauss.dense()[order], gauss.y[order]
    ref = run("perceptron", Dataset(X, y), order="cyclic")
    np.testing.assert_allclose(state.w, ref.w[-1], rtol=1e-12)
    one_class = OnlineState(resolve("pa1")).update(X[y > 0][:3], y[y > 0][:3])
    assert one_class.t == 3  # a batch may hold a single class
    empty = OnlineState(resolve("pa1")).update(X[:3], y[:3], idx=[])
    assert empty.t == 0 and (empty.w == 0).all()


def test_refusals_say_what_to_do(gauss):
    for name in (n for n, c in LEARNERS.items() if not c.resumable):
        with pytest.raises(ParameterError, match="cannot be resumed batch by batch"):
            OnlineState(resolve(name))
    state = OnlineState(resolve("perceptron")).update(gauss)
    with pytest.raises(DataError, match="same columns"):
        state.update(gauss.dense()[:, :2], gauss.y)
    with pytest.raises(ParameterError, match="idx"):
        state.update(gauss, idx=[gauss.n])
    with pytest.raises(ParameterError, match="X and y"):
        state.update(gauss.dense())
