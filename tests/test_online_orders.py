"""maxmargin.online.orders: which example every step sees, regenerated exactly."""

import numpy as np
import pytest

from maxmargin import ParameterError
from maxmargin.online import Perceptron, VotedPerceptron, iter_schedule, run, schedule


def test_schedule_orders():
    assert schedule(5, 2).tolist() == [0, 1, 2, 3, 4] * 2
    sh = schedule(5, 3, "shuffle", 1).reshape(3, 5)
    assert all(sorted(r) == list(range(5)) for r in sh)
    assert len({tuple(r) for r in sh}) > 1  # a fresh permutation every epoch
    sa = schedule(1000, 1, "sample", 1)
    assert len(np.unique(sa)) < 1000  # with replacement
    # with replacement, uniform: about 1 - 1/e of the examples seen in one epoch
    assert abs(len(np.unique(sa)) / 1000 - (1 - np.exp(-1))) < 0.05


@pytest.mark.parametrize("order", ["cyclic", "shuffle", "sample"])
def test_schedule_is_the_epochs_of_iter_schedule_and_reproducible(order):
    epochs = list(iter_schedule(7, 3, order, seed=11))
    assert [e.dtype for e in epochs] == [np.int64] * 3
    assert np.array_equal(np.concatenate(epochs), schedule(7, 3, order, seed=11))
    assert np.array_equal(schedule(7, 3, order, seed=11), schedule(7, 3, order, seed=11))
    if order != "cyclic":
        assert not np.array_equal(schedule(7, 3, order, 11), schedule(7, 3, order, 12))
    else:  # the seed does not matter
        assert np.array_equal(schedule(7, 3, order, 11), schedule(7, 3, order, 12))


@pytest.mark.parametrize("order", ["cyclic", "shuffle", "sample"])
def test_schedule_is_what_run_visits(gauss, order):
    """The voted perceptron logs the example of every update: each is the schedule's."""
    tr = run(VotedPerceptron(), gauss, epochs=3, order=order, seed=5)
    idx = schedule(gauss.n, 3, order, seed=5)
    assert tr.extras["update_t"].size > 0
    np.testing.assert_array_equal(tr.extras["update_i"], idx[tr.extras["update_t"] - 1])
    # and a naive perceptron over the schedule makes the same mistakes
    X, y = gauss.dense(), gauss.y
    w, mistakes = np.zeros(gauss.d + 1), 0
    for i in idx:
        z = np.append(X[i], 1.0)
        if y[i] * (w @ z) <= 0:
            w += y[i] * z
            mistakes += 1
    assert run(Perceptron(), gauss, epochs=3, order=order, seed=5).mistakes[-1] == mistakes


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n": 0}, "'n'"),
        ({"epochs": 0}, "'epochs'"),
        ({"order": "random"}, "'order'"),
        ({"seed": -1}, "'seed'"),
        ({"seed": 1.5}, "'seed'"),
        ({"seed": True}, "'seed'"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = {"n": 5, "epochs": 1, "order": "shuffle", "seed": 0, **kwargs}
    with pytest.raises(ParameterError, match=match):
        schedule(**args)
