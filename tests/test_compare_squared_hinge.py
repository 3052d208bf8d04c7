"""Learners scored against the L2-loss SVM (issue 25): compare, score_trace, the CLI."""

import json

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from maxmargin import SVMProblem, Trace, compare, make_gaussians, solve
from maxmargin.cli import main
from maxmargin.evaluation.bounds import feasible_dual
from maxmargin.evaluation.scoring import score_trace
from maxmargin.exceptions import ParameterError
from maxmargin.online import OnlineSubgradient, Pegasos, run, schedule

SQ = "squared_hinge"
LAM = 0.05


@pytest.fixture(scope="module")
def data():
    return make_gaussians(50, 3, separation=1.0, seed=7)


@pytest.fixture(scope="module")
def cmp(data):
    learners = ["subgradient", ("pegasos", {"projection": "greedy"}), "perceptron"]
    return compare(data, learners=learners, lam=LAM, intercept="none", loss=SQ, epochs=20)


def F_sq(data, w, b=0.0):
    xi = np.maximum(0.0, 1 - data.y * (data.dense() @ w + b))
    return 0.5 * LAM * w @ w + np.mean(xi * xi)


def test_the_reference_is_the_l2_svm(cmp, data):
    ref = cmp.references[0]
    assert ref.problem.loss == SQ and "squared hinge" in ref.scored_against
    assert cmp.rows[0]["scored_against"] == ref.scored_against
    # F* = lam P* of the certified L2-loss optimum, recomputed here
    assert ref.solution.certificate.ok
    assert cmp.F_star == pytest.approx(F_sq(data, ref.solution.w), rel=1e-12)


def test_objective_learners_scored_on_the_squared_hinge(cmp, data):
    sub, peg, per = cmp.runs
    for r in (sub, peg):
        assert r.kind == "objective" and r.params["loss"] == SQ
        # F at every checkpoint from the trace's weights, by hand
        F = [F_sq(data, w) for w in r.trace.w]
        np.testing.assert_allclose(r.objective, F, rtol=1e-12)
        assert np.all(r.subopt >= -1e-12 * cmp.F_star)
        # weak duality with the squared hinge's dual: the gap bounds the suboptimality
        assert np.all(r.dual_gap >= r.subopt - 1e-12)
    assert sub.subopt[-1] < 0.05 * cmp.F_star and peg.subopt_avg[-1] < 0.05 * cmp.F_star
    # no G for the unprojected subgradient; Pegasos' greedy ball gives one, and it holds
    assert sub.regret_bound is None and sub.theory_slope != sub.theory_slope  # nan
    r = 1 / np.sqrt(2 * LAM)
    R = float(np.max(np.linalg.norm(data.dense(), axis=1)))
    assert peg.regret_G == pytest.approx(LAM * r + 2 * (1 + r * R) * R, rel=1e-12)
    assert peg.regret_respected
    assert per.kind == "linear" and per.subopt is None


def test_regret_is_of_the_squared_hinge(cmp, data):
    peg = cmp.runs[1]
    tr = peg.trace
    X, y = data.dense(), data.y
    idx = schedule(data.n, tr.epochs, tr.order, int(tr.seed))
    w_star = cmp.references[0].solution.w
    xi_star = np.maximum(0.0, 1 - y * (X @ w_star))
    k = -1
    t = int(tr.t[k])
    star = 0.5 * LAM * t * (w_star @ w_star) + np.sum(xi_star[idx[:t]] ** 2)
    mine = 0.5 * LAM * tr.sqnorm[k] + tr.loss[k]
    assert peg.regret[k] == pytest.approx(mine - star, rel=1e-9, abs=1e-9)


def test_linearsvc_weights_score_zero_suboptimality(data):
    # scikit-learn's default SVM, its intercept regularised: the augmented problem
    C = 1 / (LAM * data.n)
    # (the primal Newton route: deterministic, and it converges to 1e-12 here)
    svc = LinearSVC(C=C, loss=SQ, dual=False, tol=1e-12, max_iter=10**4, random_state=0)
    svc.fit(data.dense(), data.y)
    tr = Trace.from_weights(
        [1], svc.coef_, svc.intercept_, name="LinearSVC", data=data, intercept="augmented"
    )
    ref = solve(SVMProblem(data, lam=LAM, intercept="augmented", loss=SQ))
    res = score_trace(tr, ref)
    assert -1e-12 <= res.rel_subopt[0] < 1e-10
    np.testing.assert_allclose(svc.coef_[0], ref.w, rtol=1e-6)
    # the hinge's LinearSVC is far from this optimum: the check tells the losses apart
    hinge = LinearSVC(C=C, loss="hinge", tol=1e-8, max_iter=10**5, random_state=0)
    hinge.fit(data.dense(), data.y)
    tr = Trace.from_weights(
        [1], hinge.coef_, hinge.intercept_, name="hinge", data=data, intercept="augmented"
    )
    assert score_trace(tr, ref).rel_subopt[0] > 1e-2


def test_a_learner_of_another_loss_is_refused(data):
    with pytest.raises(ParameterError, match="minimises the hinge objective"):
        compare(data, learners=[Pegasos(lam=LAM, intercept="none")], lam=LAM, intercept="none",
                loss=SQ)  # fmt: skip
    with pytest.raises(ParameterError, match="minimises the hinge objective"):
        compare(data, learners=[("subgradient", {"loss": "hinge"})], lam=LAM, loss=SQ)
    hinge = SVMProblem(data, lam=LAM)
    with pytest.raises(ParameterError, match="but the problem has loss='hinge'"):
        compare(data, hinge, learners=["subgradient"], loss=SQ)
    # a trace keeps its learner's loss: scored against the other problem, refused
    tr = run(OnlineSubgradient(lam=LAM, loss=SQ), data, epochs=1)
    with pytest.raises(ParameterError, match="minimised the squared_hinge objective"):
        score_trace(tr, solve(hinge))


def test_feasible_dual_has_no_box_for_the_squared_hinge(data):
    p = SVMProblem(data, C=0.1, intercept="none", loss=SQ)
    a = np.linspace(-1.0, 5.0, data.n)
    np.testing.assert_array_equal(feasible_dual(a, p), np.maximum(a, 0.0))


def test_cli_compare_loss(capsys, tmp_path):
    code = main(
        ["compare", "builtin:heart_scale", "--lam", "0.01", "--loss", SQ, "--epochs", "2",
         "--quiet", "--json", str(tmp_path / "c.json")]
    )  # fmt: skip
    assert code == 0
    js = json.loads((tmp_path / "c.json").read_text())
    text = json.dumps(js)
    assert "squared hinge" in text and '"pegasos"' not in text
