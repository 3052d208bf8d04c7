"""SVMProblem: parameters and numpy objectives against hand computation."""

import math

import numpy as np
import pytest

import maxmargin as mm
from maxmargin import DataError, ParameterError


@pytest.fixture
def ds():
    return mm.Dataset([[1.0, 0.0], [0.0, 2.0], [-1.0, -1.0]], [1, 1, -1])


def test_C_and_lambda_forms(ds):
    p = mm.SVMProblem(ds, C=2.0)
    assert p.lam == pytest.approx(1 / (2.0 * 3))
    q = mm.SVMProblem(ds, lam=p.lam)
    assert q.C == pytest.approx(2.0)
    w, b = np.array([0.3, -0.2]), 0.1
    # F = P / (C n) by definition
    assert q.lambda_objective(w, b) == pytest.approx(p.primal_objective(w, b) / (2.0 * 3))


def test_objectives_by_hand(ds):
    p = mm.SVMProblem(ds, C=1.0)
    w, b = np.array([1.0, 0.5]), -0.5
    # f = [0.5, 0.5, -2.0]; y f = [0.5, 0.5, 2.0]; hinge = [0.5, 0.5, 0]
    assert p.hinge(w, b).tolist() == [0.5, 0.5, 0.0]
    assert p.primal_objective(w, b) == pytest.approx(0.5 * 1.25 + 1.0)
    alpha = np.array([0.5, 0.25, 0.75])
    # sum alpha y x = 0.5*[1,0] + 0.25*[0,2] - 0.75*[-1,-1] = [1.25, 1.25]
    assert p.dual_objective(alpha) == pytest.approx(1.5 - 0.5 * (1.25**2 * 2))


def test_augmented_regularizes_the_bias(ds):
    p = mm.SVMProblem(ds, C=1.0, intercept="augmented", intercept_scaling=2.0)
    assert p.Z.shape == (3, 3) and np.all(p.Z[:, 2] == 2.0)
    w, b = np.array([1.0, 0.0]), 1.0
    assert p.regularizer(w, b) == pytest.approx(1.0 + 0.25)
    w2, b2 = p.weights_from_dual(np.array([1.0, 0.0, 0.0]))
    assert w2.tolist() == [1.0, 0.0] and b2 == pytest.approx(4.0)  # b = s * (s * 1)


def test_vectorised_over_checkpoints(ds):
    p = mm.SVMProblem(ds, C=0.7)
    W = np.array([[1.0, 0.5], [0.0, 0.0], [-1.0, 2.0]])
    b = np.array([-0.5, 0.0, 0.3])
    F = p.lambda_objective(W, b)
    assert F.shape == (3,)
    assert np.allclose(F, [p.lambda_objective(W[k], b[k]) for k in range(3)])


def test_hard_margin_problem(ds):
    p = mm.SVMProblem(ds, hard=True)
    assert math.isinf(p.C) and p.lam == 0.0
    with pytest.raises(ParameterError, match="soft margin only"):
        p.lambda_objective([0.0, 0.0])


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"C": 0}, r"'C' parameter must be a float in the range \(0, inf\)"),
        ({"C": -1}, "'C' parameter"),
        ({"C": float("nan")}, "'C' parameter"),
        ({"C": float("inf")}, "'C' parameter"),
        ({"lam": 0.0}, "'lam' parameter"),
        ({"C": 1.0, "lam": 1.0}, "only one of"),
        ({"C": 1.0, "hard": True}, "only one of"),
        ({"intercept": "bias"}, "'intercept' parameter must be one of"),
        ({"intercept_scaling": 0}, "'intercept_scaling'"),
    ],
)
def test_bad_parameters(ds, kw, msg):
    with pytest.raises(ParameterError, match=msg):
        mm.SVMProblem(ds, **kw)


def test_none_intercept_rejects_bias(ds):
    p = mm.SVMProblem(ds, C=1.0, intercept="none")
    with pytest.raises(ParameterError, match="b = 0"):
        p.primal_objective([1.0, 1.0], 0.5)


def test_not_a_dataset():
    with pytest.raises(ParameterError, match="Dataset"):
        mm.SVMProblem(np.zeros((2, 2)))


def test_the_deprecated_kind_is_gone(ds):
    """One name per concept: ``hard`` (a bool), not also ``kind``."""
    assert not hasattr(mm.SVMProblem(ds, hard=True), "kind")


def test_a_problem_without_its_data(ds):
    named = mm.Dataset(ds.X, ds.y, name="three", feature_names=["u", "v"])
    p = mm.SVMProblem(named, lam=0.2, intercept="augmented", intercept_scaling=2.0)
    q = p.without_data()
    assert (q.n, q.d, q.data_name, q.feature_names) == (3, 2, "three", ("u", "v"))
    assert (q.C, q.lam, q.hard, q.intercept, q.intercept_scaling) == (
        p.C,
        p.lam,
        False,
        "augmented",
        2.0,
    )
    assert q.regularizer([1.0, 0.0], 2.0) == p.regularizer([1.0, 0.0], 2.0)  # no data needed
    with pytest.raises(DataError, match="^three: this problem was read from a file without"):
        q.hinge([1.0, 0.0], 0.0)
    back = q.with_data(named)
    assert back.data is named and back.lam == p.lam and back.C == p.C
    assert back.primal_objective([1.0, 0.5], 0.25) == p.primal_objective([1.0, 0.5], 0.25)


def test_with_data_refuses_other_data(ds):
    q = mm.SVMProblem(mm.Dataset(ds.X, ds.y, feature_names=["u", "v"]), C=1.0).without_data()
    with pytest.raises(DataError, match="n=3, d=2; data has n=2, d=2"):
        q.with_data(mm.Dataset(ds.X[1:], ds.y[1:]))
    with pytest.raises(DataError, match=r"features are \['u', 'v'\]"):
        q.with_data(mm.Dataset(ds.X, ds.y, feature_names=["a", "b"]))
    with pytest.raises(ParameterError, match="must be a maxmargin.Dataset"):
        q.with_data(ds.X)
    assert q.with_data(ds).feature_names is None  # no names: nothing to compare


def test_weights_travel_without_the_data(ds):
    p = mm.SVMProblem(ds, C=2.0, sample_weight=[3.0, 0.0, 1.0], class_weight={1: 2.0})
    q = p.without_data()
    assert np.array_equal(q.weights, p.weights) and q.class_weight is None  # its effect stays
    assert np.array_equal(q.costs, p.costs)
    assert np.array_equal(q.with_data(ds).costs, p.costs)
