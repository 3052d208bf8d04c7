"""The built-in learners are learners of the public protocol (issue 10).

Stepped by hand (``start``, ``step``, ``weights``, ``average``: their compiled kernel on a
batch of one example) over the examples in the order ``run(order="cyclic")`` visits them,
each gives the weights of ``run``'s final checkpoint, bit for bit.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

from maxmargin import Dataset, make_gaussians
from maxmargin.conventions import DEFAULT_INTERCEPT, intercept_for
from maxmargin.exceptions import DataError, ParameterError
from maxmargin.online import (
    LEARNERS,
    PA,
    PA1,
    PA2,
    PLA,
    AveragedPerceptron,
    DualPerceptron,
    Learner,
    MarginPerceptron,
    OnlineSubgradient,
    Pegasos,
    Perceptron,
    Pocket,
    PythonLearner,
    VotedPerceptron,
    Winnow,
    resolve,
    run,
)
from maxmargin.online.learner import is_learner

EPOCHS = 3
S = 2.0  # intercept_scaling: exercises the bias feature

# (factory, whether it has w_avg)
CASES: dict[str, tuple[Any, bool]] = {
    "perceptron": (lambda i: Perceptron(intercept=i, intercept_scaling=S), False),
    "margin_perceptron": (
        lambda i: MarginPerceptron(margin=0.5, eta=0.3, intercept=i, intercept_scaling=S),
        False,
    ),
    "averaged_perceptron": (lambda i: AveragedPerceptron(intercept=i, intercept_scaling=S), False),
    "voted_perceptron": (lambda i: VotedPerceptron(intercept=i, intercept_scaling=S), True),
    "pa": (lambda i: PA(intercept=i, intercept_scaling=S), False),
    "pa1": (lambda i: PA1(C=0.1, intercept=i, intercept_scaling=S), False),
    "pa2": (lambda i: PA2(C=0.5, intercept=i, intercept_scaling=S), False),
    "pegasos": (lambda i: Pegasos(lam=0.1, intercept=i, intercept_scaling=S), True),
    "pegasos_paper": (
        lambda i: Pegasos(lam=0.1, step="pegasos_paper", intercept=i, intercept_scaling=S),
        True,
    ),
    "pegasos_lazy": (
        lambda i: Pegasos(lam=2.0, projection="lazy", intercept=i, intercept_scaling=S),
        True,
    ),
    "pegasos_greedy": (
        lambda i: Pegasos(lam=2.0, projection="greedy", intercept=i, intercept_scaling=S),
        True,
    ),
    "subgradient": (
        lambda i: OnlineSubgradient(lam=0.1, eta0=0.5, intercept=i, intercept_scaling=S),
        True,
    ),
    "subgradient_hinge_constant": (
        lambda i: OnlineSubgradient(
            lam=None, step="constant", eta0=0.05, intercept=i, intercept_scaling=S
        ),
        True,
    ),
}

INTERCEPTS = ("none", "augmented", "free")


def _wb(learner: Any, out: Any, intercept: str) -> tuple[np.ndarray, float]:
    """(w, b) on the original features from what the protocol returned."""
    if intercept == "free":
        w, b = out
        return np.asarray(w), float(b)
    w = np.asarray(out)
    if intercept == "augmented":
        return w[:-1], S * float(w[-1])
    return w, 0.0


def _by_hand(learner: Any, data: Dataset, intercept: str) -> Any:
    X = np.asarray(data.X, dtype=float)
    if intercept == "augmented":
        X = np.hstack([X, np.full((data.n, 1), S)])
    learner.start(X.shape[1])
    t = 0
    for _ in range(EPOCHS):
        for i in range(data.n):
            t += 1
            learner.step(X[i], float(data.y[i]), t)
    return learner


@pytest.fixture(scope="module")
def data() -> Dataset:
    return make_gaussians(25, 3, separation=1.5, seed=3)


@pytest.mark.parametrize("intercept", INTERCEPTS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_stepping_by_hand_gives_the_run(case: str, intercept: str, data: Dataset) -> None:
    make, has_avg = CASES[case]
    tr = run(make(intercept), data, epochs=EPOCHS, order="cyclic")
    assert tr.t[-1] == EPOCHS * data.n
    learner = _by_hand(make(intercept), data, intercept)
    w, b = _wb(learner, learner.weights(), intercept)
    assert np.array_equal(w, tr.w[-1]) and b == tr.b[-1]
    if has_avg:
        w_avg, b_avg = _wb(learner, learner.average(), intercept)
        assert np.array_equal(w_avg, tr.w_avg[-1]) and b_avg == tr.b_avg[-1]
    assert np.any(w != 0.0)  # the run learnt something: the comparison can fail


@pytest.mark.parametrize("variant", ["winnow1", "winnow2"])
def test_winnow_by_hand(variant: str) -> None:
    rng = np.random.default_rng(0)
    X = (rng.random((40, 8)) < 0.4).astype(float)
    y = np.where(X[:, 0] + X[:, 3] > 0, 1.0, -1.0)
    ds = Dataset(X, y)
    tr = run(Winnow(variant=variant), ds, epochs=EPOCHS, order="cyclic")
    wn = _by_hand(Winnow(variant=variant), ds, "none")
    assert np.array_equal(wn.weights(), tr.w[-1])
    assert tr.b[-1] == -8.0
    assert not np.all(wn.weights() == 1.0)


def test_every_registered_learner_is_a_learner_of_the_protocol() -> None:
    for cls in LEARNERS.values():
        assert issubclass(cls, Learner), cls
        assert is_learner(cls), cls
    assert isinstance(Perceptron(), Learner) and is_learner(Pegasos(lam=0.1))


@pytest.mark.parametrize(
    "learner, why",
    [
        (Pocket(), "training errors"),
        (PLA(), "pass without a mistake"),
        (DualPerceptron(), "kernel matrix"),
        (Pegasos(lam=0.1, batch_size=4), "batches of 4"),
    ],
)
def test_learners_that_cannot_be_stepped_say_why(learner: Any, why: str) -> None:
    for call in (lambda: learner.start(3), lambda: learner.step(np.zeros(3), 1.0, 1)):
        with pytest.raises(ParameterError, match=why):
            call()
    with pytest.raises(ParameterError, match="maxmargin.online.run"):
        learner.weights()


def test_the_run_path_is_unchanged_by_stepping(data: Dataset) -> None:
    """Stepping an instance by hand leaves what run() gives with it untouched."""
    p = Perceptron()
    before = run(p, data, epochs=2, order="cyclic")
    _by_hand(p, data, "augmented")
    after = run(p, data, epochs=2, order="cyclic")
    np.testing.assert_array_equal(before.w, after.w)


def test_stepping_by_hand_checks_its_calls() -> None:
    p = Perceptron(intercept="augmented")
    with pytest.raises(ParameterError, match=r"Perceptron: call start\(d\) before step"):
        p.weights()
    p.start(3)  # two features and the bias feature s
    assert np.array_equal(p.weights(), np.zeros(3))
    with pytest.raises(ParameterError, match=r"x must have the shape \(3,\) start\(d\) was given"):
        p.step(np.zeros(2), 1.0, 1)
    with pytest.raises(DataError, match=r"step: labels must be -1 or \+1, got values \[0.0\]"):
        p.step(np.zeros(3), 0.0, 1)
    with pytest.raises(ParameterError, match="Perceptron keeps no averaged iterate"):
        p.average()
    with pytest.raises(DataError, match="Winnow needs features in"):
        wn = Winnow()
        wn.start(2)
        wn.step(np.array([0.5, 1.0]), 1.0, 1)


def test_before_any_step_the_output_is_the_start() -> None:
    wn = Winnow()
    wn.start(3)
    assert np.array_equal(wn.weights(), np.ones(3))  # Winnow starts at w = 1
    peg = Pegasos(lam=0.1, intercept="free")
    peg.start(2)
    w, b = peg.average()  # the average of no iterate: the start itself
    assert np.array_equal(w, np.zeros(2)) and b == 0.0
    avg = AveragedPerceptron(intercept="none")
    avg.start(2)
    assert np.array_equal(avg.weights(), np.zeros(2))
    avg.start(2)  # start again: a fresh state
    avg.step(np.array([1.0, 0.0]), 1.0, 1)
    avg.step(np.array([1.0, 0.0]), 1.0, 2)
    assert np.array_equal(avg.weights(), np.array([1.0, 0.0]))  # w_2 = w_3 = (1, 0)


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_learners_default_to_the_conventions_intercept(name: str, data: Dataset) -> None:
    """The textbook SVM's free bias where a learner supports it (Winnow: none), as solve's."""
    cls = LEARNERS[name]
    expected = intercept_for(cls.supported_intercepts)
    assert expected == (DEFAULT_INTERCEPT if name != "winnow" else "none")
    assert cls().intercept == expected
    assert inspect.signature(cls).parameters["intercept"].default == expected
    assert resolve(name).intercept == expected
    if name == "winnow":
        data = Dataset((data.X > 0).astype(float), data.y)
    assert run(name, data, epochs=1).intercept == expected


def test_an_object_of_the_protocol_defaults_to_the_conventions_intercept() -> None:
    class Free(Learner):
        supported_intercepts = ("none", "augmented", "free")

    class Both(Learner):  # the protocol's default: ("none", "augmented")
        pass

    assert PythonLearner(Free()).intercept == resolve(Free()).intercept == "free"
    assert PythonLearner(Both()).intercept == resolve(Both()).intercept == "augmented"
