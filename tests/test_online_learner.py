"""The learner contract: what a learner declares decides how it is scored, never its name."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pytest

import maxmargin as mm
from maxmargin.online import (
    LEARNERS,
    PA1,
    DualPerceptron,
    OnlineLearner,
    OnlineSubgradient,
    Pegasos,
    Perceptron,
    Pocket,
    Winnow,
    run,
)
from maxmargin.online.base import LearnerState, PackedData, Snapshot
from maxmargin.online.learner import prediction_errors, scoring
from maxmargin.online.registry import objective_parameter, resolve

SEPARABLE = mm.make_separable(40, 2, seed=3)


def _renamed(cls: type) -> type:
    """The same learner under a name no code can know."""
    return type(f"Renamed{cls.__name__}", (cls,), {"name": f"renamed_{cls.name}"})


def _scores(run_result):
    r = run_result
    return (
        r.kind,
        math.isfinite(r.novikoff),
        r.general_bound is not None,
        r.regret_bound is not None,
        r.theory_slope if math.isfinite(r.theory_slope) else None,
        r.subopt is not None,
        r.dual_gap is not None,
        r.margin is not None,
    )


@pytest.mark.parametrize("name", [n for n, c in LEARNERS.items() if n not in ("winnow",)])
def test_a_renamed_learner_is_scored_like_the_original(name):
    problem = mm.SVMProblem(SEPARABLE, C=1.0, intercept="augmented")
    original = resolve(name, problem)
    renamed = resolve(
        _renamed(type(original)),
        problem,
        **{
            k: v
            for k, v in original.get_params().items()
            if k not in ("intercept", "intercept_scaling")
        },
    )
    cmp = mm.compare(SEPARABLE, problem, [original, renamed], epochs=2)
    a, b = cmp.runs
    assert b.learner == f"renamed_{name}"
    assert _scores(a) == _scores(b)
    np.testing.assert_array_equal(a.mistakes, b.mistakes)


def test_winnow_renamed_is_scored_on_mistakes_only():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 6)).astype(float)
    data = mm.Dataset(X, np.where(X[:, 0] + X[:, 2] > 0, 1, -1))
    learner = _renamed(Winnow)()
    cmp = mm.compare(data, learners=[learner], C=1.0, intercept="none", epochs=2)
    r = cmp.runs[0]
    assert r.kind == "mistakes" and r.margin is None and r.regret is None
    # Winnow's rule f > 0 (zero predicts -1), as the trace's own final error
    assert r.train_error[-1] == pytest.approx(r.trace.final_train_error)


@dataclass(eq=False)
class _SGDState(LearnerState):
    w: np.ndarray = field(default_factory=lambda: np.zeros(1))


class PlainSGD(OnlineLearner):
    """Hinge-loss SGD with steps 1/(lam t), written in plain Python against the contract."""

    name = "plain_sgd"
    objective = "lambda"
    problem_parameter = "lam"
    theory_rate = -1.0
    resumable = True

    def __init__(
        self, *, lam: float = 0.1, intercept: str = "augmented", intercept_scaling: float = 1.0
    ) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.lam = lam

    def _setup(self, packed: PackedData) -> _SGDState:
        return _SGDState(w=np.zeros(packed.d + 1))

    def _advance(self, packed, state, idx, lo, hi, t0):
        Z = packed.Z()
        for p in range(lo, hi):
            t = t0 + p - lo + 1
            i = idx[p]
            z = np.asarray(Z[i]).ravel()
            margin = packed.y[i] * (state.w @ z)
            state.totals[0] += margin <= 0
            state.totals[1] += max(0.0, 1.0 - margin)
            state.totals[2] += state.w @ state.w
            eta = 1.0 / (self.lam * t)
            state.w *= 1.0 - eta * self.lam
            if margin < 1:
                state.w += eta * packed.y[i] * z

    def _snapshot(self, packed, state, t):
        return Snapshot(*packed.split(state.w))


def test_a_learner_written_against_the_contract_gets_every_quantity():
    data = mm.make_gaussians(50, 2, seed=1)
    cmp = mm.compare(
        data, learners=[PlainSGD(lam=0.05)], lam=0.05, intercept="augmented", epochs=4
    )  # PlainSGD's own default intercept (it does not support free)
    r = cmp.runs[0]
    assert r.kind == "objective" and r.theory_slope == -1.0
    assert r.subopt is not None and (r.subopt[np.isfinite(r.subopt)] >= -1e-12).all()
    assert r.dual_gap is None  # it declares no implied dual point
    assert r.novikoff != r.novikoff and r.general_bound is None  # not mistake-driven
    # the objective recomputed with numpy from the trace
    tr = r.trace
    F = 0.5 * 0.05 * (np.sum(tr.w**2, axis=1) + tr.b**2) + np.maximum(
        0.0, 1.0 - data.y[:, None] * (data.X @ tr.w.T + tr.b)
    ).mean(axis=0)
    np.testing.assert_allclose(r.objective, F, rtol=1e-12)
    # and it resumes batch by batch
    state = mm.online.OnlineState(PlainSGD(lam=0.05))
    state.update(data.subset(np.arange(20))).update(data.subset(np.arange(20, 50)))
    np.testing.assert_allclose(state.w, run(PlainSGD(lam=0.05), data).w[-1], rtol=1e-12)


def test_declarations_are_checked_on_the_class():
    with pytest.raises(TypeError, match="objective"):
        type("Bad", (OnlineLearner,), {"objective": "hinge"})
    with pytest.raises(TypeError, match="problem_parameter"):
        type("Bad", (OnlineLearner,), {"problem_parameter": "gamma"})


def test_scoring_and_objective_parameter_follow_the_declarations():
    assert [scoring(LEARNERS[n]) for n in ("pegasos", "perceptron", "pa1", "winnow")] == [
        "objective",
        "linear",
        "linear",
        "mistakes",
    ]
    assert objective_parameter(Pegasos(lam=0.3)) == ("lam", 0.3)
    assert objective_parameter(PA1(C=2.0)) is None
    mistake_driven = sorted(n for n, c in LEARNERS.items() if c.mistake_driven)
    assert mistake_driven == [
        "averaged_perceptron",
        "dual_perceptron",
        "margin_perceptron",
        "perceptron",
        "pla",
        "pocket",
        "voted_perceptron",
    ]
    # a parameter may narrow what an instance is scored on: the hinge alone has no F
    assert scoring(OnlineSubgradient(lam=None)) == "linear"
    assert OnlineSubgradient(step="constant").theory_rate is None
    assert Pegasos(step="pegasos_paper", intercept="augmented").theory_rate == -1.0
    assert not Pocket(select="random_mistake").visits_schedule


def test_a_learner_with_the_wrong_objective_parameter_is_refused():
    with pytest.raises(mm.ParameterError, match="lam=0.5, the problem lam=0.1: it minimises"):
        mm.compare(SEPARABLE, learners=[Pegasos(lam=0.5, intercept="augmented")], lam=0.1)
    with pytest.raises(mm.ParameterError, match="no weight vector"):
        rbf = DualPerceptron(kernel="rbf", intercept="augmented")
        mm.compare(SEPARABLE, learners=[rbf], lam=0.1)


def test_prediction_errors_zero_score_conventions():
    f = np.array([[0.0, 1.0], [0.0, -1.0]])
    y = np.array([1.0, -1.0])
    assert prediction_errors(f, y).tolist() == [[True, False], [True, False]]
    assert prediction_errors(f, y, svm_space=False).tolist() == [[True, False], [False, False]]


def test_snapshot_split_is_the_bias_times_s():
    packed = PackedData.pack(SEPARABLE, 2.0, False)
    w, b = packed.split(np.array([1.0, 2.0, 3.0]))
    assert w.tolist() == [1.0, 2.0] and b == 6.0


class _OnePass(Perceptron):
    """A perceptron that stops after its first clean pass (``_halted``)."""

    name = "one_pass"

    def _align(self, checkpoints, n, epochs):
        return np.unique(np.concatenate([checkpoints, n * np.arange(1, epochs + 1)]))

    def _halted(self, state):
        clean = state.mistakes == getattr(state, "seen", -1)
        state.seen = state.mistakes
        return clean


def test_a_learner_that_halts_ends_the_run_at_that_epoch():
    tr = run(_OnePass(), SEPARABLE, epochs=500, order="cyclic")
    assert tr.epochs < 500 and tr.t[-1] == tr.epochs * SEPARABLE.n
    assert tr.final_train_error == 0.0
    full = run(Perceptron(), SEPARABLE, epochs=tr.epochs, order="cyclic")
    np.testing.assert_array_equal(full.w[-1], tr.w[-1])
