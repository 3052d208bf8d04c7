"""Scoring a run against the optimum: its bounds, external trajectories, the three margins.

The mistake bounds at their best scale, external trajectories (Trace.from_weights,
score_trace) and the names of the three margins, each recomputed here with numpy.
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
import scipy.sparse as sp
from test_evaluation_bounds import _B

from maxmargin import (
    DataError,
    Dataset,
    ParameterError,
    SVMProblem,
    Trace,
    load,
    make_gaussians,
    make_separable,
    solve,
)
from maxmargin.evaluation.bounds import best_scale_mistake_bound, fit_rate
from maxmargin.evaluation.comparison import compare
from maxmargin.evaluation.path import regularization_path
from maxmargin.evaluation.scoring import score_trace
from maxmargin.online import PLA, MarginPerceptron, Perceptron, Pocket, run, schedule
from maxmargin.report.comparison import markdown


@pytest.fixture(scope="module")
def heart():
    return compare(
        load("builtin:heart_scale"),
        learners=[
            "perceptron",
            MarginPerceptron(intercept="augmented"),
            MarginPerceptron(margin=0.5, eta=0.1, intercept="augmented"),
        ],
        C=1.0,
        intercept="augmented",
        epochs=3,
        seeds=(0, 1),
    )


def test_bounds_on_heart_scale_recomputed(heart):
    c = heart
    p = c.problem
    Z, y = p.Z.toarray(), p.data.y
    u = c.w_star
    m = y * (Z @ u)
    R = np.linalg.norm(Z, axis=1).max()
    for r in c.runs:
        learner = r.trace.params
        tau, eta = learner.get("margin", 0.0), learner.get("eta", 1.0)
        Rt = math.sqrt(R * R + 2 * tau / eta)
        idx = schedule(p.n, r.trace.epochs, r.order, r.seed)
        for j, t in enumerate(r.t):
            visits = np.bincount(idx[:t], minlength=p.n).astype(float)
            L = visits @ np.maximum(0.0, 1.0 - m)
            a = Rt * np.linalg.norm(u)
            assert r.general_bound[j] == pytest.approx(L + a * math.sqrt(L) + a * a)
            cj = r.general_scale[j]
            assert r.general_bound_best[j] == pytest.approx(_B(cj, m, visits, a), rel=1e-10)
            assert r.general_bound_best[j] <= r.general_bound[j]
            upd = r.trace.dual[j] / eta  # updates on each example (the mistake rounds)
            assert r.mistake_rounds_bound[j] == pytest.approx(_B(1.0, m, upd, a), rel=1e-10)
            U = r.trace.extras["updates"][j] if "updates" in r.trace.extras else r.mistakes[j]
            assert upd.sum() == pytest.approx(U)
            assert U <= r.general_bound_best[j] and U <= r.mistake_rounds_bound[j]
        assert r.best_bound_respected and r.general_respected
    row = c.rows[0]
    assert row["mistake_bound"] == min(row["general_bound_best"], row["mistake_rounds_bound"])
    assert row["bound_respected"] == "yes"


def test_best_scale_over_mistake_rounds_is_the_mistake_count(heart):
    # inf over c of the mistake-rounds form is M itself (docs/compare.md, section 6): the
    # bound holds for every c, and as c -> 0 it tends to the number of mistake rounds
    r = heart.select(label="perceptron", seed=0)[0]
    m = heart.problem.data.y * (heart.problem.Z @ heart.w_star)
    a = heart.R * np.linalg.norm(heart.w_star)
    b, c = best_scale_mistake_bound(m, r.trace.dual[-1], a)
    M = r.mistakes[-1]
    assert M <= b <= M * (1 + 1e-3) and c < 1e-3


def test_margin_perceptron_novikoff_on_separable_data():
    ds = make_separable(40, 2, margin=0.2, seed=4, offset=0.0)
    tau, eta = 2.0, 0.5
    c = compare(
        ds,
        learners=[MarginPerceptron(margin=tau, eta=eta, intercept="none"), PLA(intercept="none")],
        C=10.0,
        intercept="none",
        epochs=60,
        seeds=(0,),
    )
    mp, pla = c.runs
    gamma = c.gamma
    assert mp.novikoff == pytest.approx((c.R**2 + 2 * tau / eta) / gamma**2)
    assert mp.trace.extras["updates"][-1] <= mp.novikoff
    assert pla.novikoff == pytest.approx((c.R / gamma) ** 2) and pla.novikoff_respected
    assert bool(pla.trace.extras["converged"]) and pla.trace.epochs < 60


def test_pla_seeds_that_stop_at_different_epochs_make_a_report(tmp_path):
    from maxmargin.report import write_report

    ds = make_separable(60, 2, margin=0.1, seed=3)
    c = compare(
        ds,
        learners=[PLA(intercept="augmented")],
        C=1.0,
        epochs=30,
        seeds=(0, 1, 2),
        intercept="augmented",
    )
    assert len({r.trace.epochs for r in c.runs}) > 1  # ragged: each seed stops on its own
    names = [p.name for p in write_report(c, tmp_path, formats=("png",))]
    assert "mistakes.png" in names and c.rows[0]["bound_respected"] == "yes"


def test_random_pocket_scored_without_order_sums():
    ds = make_gaussians(40, 2, seed=1)
    learner = Pocket(select="random_mistake", intercept="augmented")
    c = compare(ds, learners=[learner], C=1.0, intercept="augmented", epochs=2)
    r = c.runs[0]
    assert r.regret is None and r.general_bound is None
    assert "random current mistake" in r.not_available["regret"]
    assert "N/A for pocket: regret" in markdown(c)


# ------------------------------------------------------------ external trajectories


def _hinge_F(X, y, w, b, lam):
    return lam / 2 * w @ w + np.maximum(0.0, 1 - y * (X @ w + b)).mean()


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_sgdclassifier_trace_suboptimality(fit_intercept):
    sklearn = pytest.importorskip("sklearn.linear_model")
    ds = make_gaussians(120, 4, separation=1.0, seed=5)
    X, y = ds.dense(), ds.y
    lam = 0.01
    clf = sklearn.SGDClassifier(
        loss="hinge",
        penalty="l2",
        alpha=lam,
        fit_intercept=fit_intercept,
        learning_rate="optimal",
        shuffle=False,
        random_state=0,
    )
    ts, Ws, bs = [], [], []
    for epoch in range(1, 9):
        clf.partial_fit(X, y, classes=[-1.0, 1.0])
        ts.append(epoch * ds.n)
        Ws.append(clf.coef_.copy())  # shape (1, d): a list of rows
        bs.append(clf.intercept_.copy())  # shape (1,)
    intercept = "free" if fit_intercept else "none"
    tr = Trace.from_weights(
        ts,
        Ws,
        bs if fit_intercept else None,
        name="sgdclassifier",
        data=ds,
        intercept=intercept,
        params={"alpha": lam},
    )
    assert tr.intercept == intercept and tr.w.shape == (8, 4)
    ref = solve(SVMProblem(ds, lam=lam, intercept=intercept))
    r = score_trace(tr, ref)
    # F* from the certified optimum, F(w_t) from the raw data: sklearn's own objective
    # (alpha/2 ||w||^2 + mean hinge, the intercept unregularised) is the lambda form
    F_star = _hinge_F(X, y, ref.w, ref.b, lam)
    for j in range(len(ts)):
        w, b = np.asarray(Ws[j]).ravel(), float(np.ravel(bs[j])[0]) if fit_intercept else 0.0
        assert r.subopt[j] == pytest.approx(_hinge_F(X, y, w, b, lam) - F_star, rel=1e-9, abs=1e-12)
        assert r.train_error[j] == np.mean(y * (X @ w + b) <= 0)
    assert np.all(r.subopt >= -1e-12)
    assert r.regret is None and r.dual_gap is None
    assert "Trace.from_weights" in r.not_available["regret"]
    assert "mistakes" in r.not_available and np.isnan(r.mistakes).all()
    assert "mistakes not recorded" in tr.summary()


def test_from_weights_checks_orientation():
    ds = make_gaussians(30, 3, seed=0)
    W = np.arange(12.0).reshape(4, 3)
    with pytest.raises(ParameterError, match="transposed"):
        Trace.from_weights([1, 2, 3, 4], W.T, name="x", data=ds)
    with pytest.raises(ParameterError, match=r"\(k, d\) = \(4, 3\)"):
        Trace.from_weights([1, 2, 3, 4], W[:, :2], name="x", data=ds)
    square = np.arange(9.0).reshape(3, 3)
    with pytest.raises(ParameterError, match="square"):  # k = d: cannot tell, refuse
        Trace.from_weights([10, 20, 30], square, name="x", data=ds)
    tr = Trace.from_weights([10, 20, 30], list(square), name="x", data=ds)  # rows: ok
    assert np.array_equal(tr.w, square)
    with pytest.raises(ParameterError, match="increasing"):
        Trace.from_weights([2, 1, 3, 4], W, name="x", data=ds)
    with pytest.raises(ParameterError, match="integer"):
        Trace.from_weights([1.5, 2, 3, 4], W, name="x", data=ds)
    with pytest.raises(ParameterError, match="data= .* n= and d="):
        Trace.from_weights([1, 2, 3, 4], W, name="x")
    with pytest.raises(ParameterError, match="one number per checkpoint"):
        Trace.from_weights([1, 2, 3, 4], W, [0.0, 1.0], name="x", data=ds)
    with pytest.raises(ParameterError, match="'none' but b"):
        Trace.from_weights([1, 2, 3, 4], W, np.ones(4), name="x", data=ds, intercept="none")
    sparse_rows = Trace.from_weights([1, 2, 3, 4], sp.csr_matrix(W), name="x", n=30, d=3)
    assert np.array_equal(sparse_rows.w, W) and math.isnan(sparse_rows.final_train_error)


def test_from_weights_round_trip_and_scoring_checks(tmp_path):
    ds = make_gaussians(30, 3, seed=0)
    tr = Trace.from_weights(
        [30, 60],
        np.ones((2, 3)),
        [0.5, 0.25],
        name="ext",
        data=ds,
        mistakes=[3, 5],
        seconds=[0.1, 0.2],
    )
    assert "mistakes" not in tr.missing and tr.mistakes.tolist() == [3, 5]
    tr.save(tmp_path / "ext")
    assert Trace.load(tmp_path / "ext") == tr
    run_trace = run(Perceptron(), ds, epochs=1)  # a file written before `missing` existed
    _, js = run_trace.save(tmp_path / "old")
    meta = json.loads(js.read_text())
    del meta["missing"]
    js.write_text(json.dumps(meta))
    assert Trace.load(js) == run_trace and run_trace.missing == {}
    ref = solve(SVMProblem(ds, C=1.0, intercept="augmented"))
    with pytest.raises(ParameterError, match="intercept"):
        score_trace(tr, ref)  # a free-intercept trace against the augmented problem
    other = make_gaussians(31, 3, seed=0)
    with pytest.raises(DataError, match="recorded on"):
        score_trace(tr, solve(SVMProblem(other, C=1.0)))
    r = score_trace(tr, solve(SVMProblem(ds, C=1.0)), kind="linear")
    assert r.subopt is None and r.cosine is not None and r.mistakes.tolist() == [3, 5]


def test_score_trace_equals_compare_on_a_run():
    ds = make_gaussians(50, 3, seed=2)
    c = compare(ds, learners=["pegasos"], lam=0.05, intercept="augmented", epochs=3, seeds=(0,))
    r0 = c.runs[0]
    r = score_trace(r0.trace, c.reference)  # the trace says what its learner declared
    for k in (
        "subopt",
        "subopt_avg",
        "dual_gap",
        "distance",
        "cosine",
        "margin",
        "regret",
        "regret_bound",
    ):
        np.testing.assert_array_equal(getattr(r, k), getattr(r0, k))
    assert r.kind == r0.kind == "objective" and r.theory_slope == r0.theory_slope == -1.0
    assert score_trace(r0.trace, c.reference, kind="linear").subopt is None


# ------------------------------------------------------------------ the three margins


def test_margin_names():
    ds = make_separable(30, 2, margin=0.3, seed=1, offset=0.5)
    s = 2.0
    hard = solve(SVMProblem(ds, hard=True, intercept="augmented", intercept_scaling=s))
    wt = np.append(hard.w, hard.b / s)
    assert hard.geometric_margin == hard.margin == pytest.approx(1 / np.linalg.norm(wt))
    assert hard.feature_margin == 1 / np.linalg.norm(hard.w)  # the features' space
    assert hard.margin_width == 2 * hard.feature_margin > 2 * hard.geometric_margin
    Z = np.hstack([ds.dense(), np.full((ds.n, 1), s)])
    # at the hard optimum the attained margin is the geometric one
    assert min(ds.y * (Z @ wt)) / np.linalg.norm(wt) == pytest.approx(hard.geometric_margin)
    p = regularization_path(
        ds, C=[0.1, 10.0], intercept="augmented", intercept_scaling=s, hard_limit=False
    )
    np.testing.assert_array_equal(p.feature_margin, 1 / np.linalg.norm(p.w, axis=1))
    np.testing.assert_array_equal(p.margin_width, p.width)
    wts = np.hstack([p.w, p.b[:, None] / s])
    np.testing.assert_allclose(p.geometric_margin, 1 / np.linalg.norm(wts, axis=1), rtol=1e-14)
    assert np.all(p.geometric_margin < p.feature_margin)  # the bias coordinate counts
    c = compare(
        ds, learners=["perceptron"], C=1.0, intercept="augmented", intercept_scaling=s, epochs=3
    )
    r = c.runs[0]
    assert r.attained_margin is r.margin
    assert c.gamma == pytest.approx(hard.geometric_margin, rel=1e-9)
    assert "margin 1/||w~||" in hard.summary()
    free = solve(SVMProblem(Dataset(ds.X, ds.y), hard=True))
    assert "margin 1/||w||" in free.summary()


def test_lecture_C_without_the_half_is_twice_ours():
    cp = pytest.importorskip("cvxpy")
    ds = make_gaussians(30, 2, separation=1.0, seed=3)
    X, y = ds.dense(), ds.y
    C_lec = 3.0
    w, b, xi = cp.Variable(2), cp.Variable(), cp.Variable(ds.n)
    cons = [cp.multiply(y, X @ w + b) >= 1 - xi, xi >= 0]
    lec = cp.Problem(cp.Minimize(cp.sum_squares(w) + C_lec * cp.sum(xi)), cons)
    lec.solve()
    sol = solve(SVMProblem(ds, C=C_lec / 2))
    np.testing.assert_allclose(w.value, sol.w, atol=1e-5)
    assert lec.value == pytest.approx(2 * sol.primal_objective, rel=1e-6)
    alpha_lec = cons[0].dual_value
    np.testing.assert_allclose(alpha_lec, 2 * sol.alpha, atol=1e-4)


# ----------------------------------------------------------------- the summary over seeds


def test_summary_is_the_median_over_seeds():
    """Final values over seeds: the median and the range [min, max] (conventions.summarize)."""
    cmp = compare(
        make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1, epochs=2, seeds=(0, 1, 2)
    )
    finals = (1.0, 2.0, 10.0)  # mean 4.33, median 2
    runs = []
    for r, v in zip(cmp.runs, finals, strict=True):
        sub = r.subopt.copy()
        sub[-1] = v
        runs.append(dataclasses.replace(r, subopt=sub))
    row = dataclasses.replace(cmp, runs=tuple(runs)).rows[0]
    assert row["subopt"] == 2.0 and row["subopt_range"] == [1.0, 10.0]
    m = [r.mistakes[-1] for r in cmp.runs]
    assert row["mistakes"] == float(np.median(m)) and row["mistakes_range"] == [min(m), max(m)]
    # the rate is fitted on the median curve of the iterate the theory is about
    curve = np.median([r.subopt_avg for r in cmp.runs], axis=0)
    assert row["rate"] == fit_rate(cmp.runs[0].t, curve)
    assert "median over seeds [min, max]" in markdown(cmp)


def test_free_intercept_with_a_subnormal_scaling_has_an_infinite_novikoff_bound():
    """b*/s overflows for s = 1e-320: gamma* in the learners' space is 0, the bound inf."""
    cmp = compare(
        make_separable(20, 2, seed=0, offset=1.0),
        learners=["perceptron"],
        C=1.0,
        intercept_scaling=1e-320,
        epochs=2,
    )
    assert cmp.separable and cmp.gamma == 0.0 and cmp.novikoff == math.inf
    assert cmp.runs[0].novikoff == math.inf and cmp.runs[0].novikoff_respected is None
    assert cmp.rows[0]["novikoff"] is None
