"""Tests of maxmargin.compare: every reported quantity recomputed independently.

Independent means: from the trace's weights, the data and the schedule, with plain
numpy loops written here, never through the helpers of maxmargin.compare or the
objectives of SVMProblem.
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from maxmargin import (
    CertificateError,
    DataError,
    Dataset,
    ParameterError,
    SVMProblem,
    load,
    make_gaussians,
    make_separable,
)
from maxmargin.evaluation.comparison import Comparison, compare
from maxmargin.exact import solve
from maxmargin.online import Pegasos, Perceptron, schedule
from maxmargin.report import write_report
from maxmargin.report.comparison import markdown

LAM = 0.05


@pytest.fixture(scope="module")
def sep():
    full = make_separable(90, 3, margin=0.3, seed=3)
    return full.subset(np.arange(60)), full.subset(np.arange(60, 90))


@pytest.fixture(scope="module")
def cmp(sep):
    train, test = sep
    return compare(
        train,
        learners=["perceptron", "averaged_perceptron", "pegasos", "subgradient", "pa1"],
        lam=LAM,
        intercept="none",
        epochs=6,
        orders=("cyclic", "shuffle", "sample"),
        seeds=(0, 1),
        holdout=test,
    )


@pytest.fixture(scope="module")
def cmp_aug():
    data = make_gaussians(50, 2, separation=1.5, seed=2)
    return compare(
        data,
        learners=["perceptron", "pegasos", "subgradient"],
        C=0.5,
        intercept="augmented",
        intercept_scaling=2.0,
        epochs=4,
        seeds=(0,),
    )


# ----------------------------------------------------------------------- independent


def _z(X, s):
    """The learners' features: x, or (x, s) when s > 0."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, float)
    return X if s == 0 else np.hstack([X, np.full((X.shape[0], 1), s)])


def _wt(w, b, s):
    return np.asarray(w, float) if s == 0 else np.append(w, b / s)


def _F(wt, Z, y, lam):
    return 0.5 * lam * wt @ wt + np.mean(np.maximum(0.0, 1.0 - y * (Z @ wt)))


def _check_run(r, c: Comparison):
    p = c.problem
    s = p.intercept_scaling if p.intercept == "augmented" else 0.0
    X = p.data.X
    y = p.data.y
    Z = _z(X, s)
    lam, C = p.lam, p.C
    ws = _wt(c.reference.w, c.reference.b, s)
    Fs = _F(ws, Z, y, lam)
    assert c.F_star == pytest.approx(Fs, rel=1e-12, abs=1e-15)
    R = max(np.linalg.norm(z) for z in Z)
    assert c.R == pytest.approx(R, rel=1e-12)
    tr = r.trace
    idx = schedule(tr.n, tr.epochs, tr.order, tr.seed)
    hinge_star = np.maximum(0.0, 1.0 - y * (Z @ ws))
    for j, t in enumerate(r.t):
        wt = _wt(tr.w[j], tr.b[j], s)
        f = Z @ wt
        assert r.train_error[j] == pytest.approx(np.mean(y * f <= 0))
        if c.holdout is not None:
            fh = np.asarray(c.holdout.X) @ tr.w[j] + tr.b[j]
            assert r.test_error[j] == pytest.approx(np.mean(c.holdout.y * fh <= 0))
        nw = np.linalg.norm(wt)
        if nw > 0:
            assert r.cosine[j] == pytest.approx(wt @ ws / (nw * np.linalg.norm(ws)), abs=1e-12)
            assert r.margin[j] == pytest.approx(min(y * f) / nw, abs=1e-12)
        # regret from the trace's cumulative loss/sqnorm and a plain loop over f_s(w*)
        fs_star = sum(0.5 * lam * ws @ ws + hinge_star[i] for i in idx[:t])
        reg = 0.5 * lam * tr.sqnorm[j] + tr.loss[j] - fs_star
        assert r.regret[j] == pytest.approx(reg, rel=1e-9, abs=1e-9)
        if r.kind == "objective":
            F = _F(wt, Z, y, lam)
            assert r.objective[j] == pytest.approx(F, rel=1e-12)
            assert r.subopt[j] == pytest.approx(F - Fs, rel=1e-9, abs=1e-13)
            assert r.rel_subopt[j] == pytest.approx((F - Fs) / Fs, rel=1e-9, abs=1e-12)
            assert r.distance[j] == pytest.approx(np.linalg.norm(wt - ws) / np.linalg.norm(ws))
            wa = _wt(tr.w_avg[j], tr.b_avg[j], s)
            assert r.subopt_avg[j] == pytest.approx(_F(wa, Z, y, lam) - Fs, rel=1e-9, abs=1e-13)
            a = np.clip(tr.dual[j], 0.0, C)
            u = (a * y) @ Z
            D = a.sum() - 0.5 * u @ u
            assert r.dual_gap[j] == pytest.approx(F - lam * D, rel=1e-9, abs=1e-13)
        else:
            assert r.subopt is None and r.dual_gap is None and r.distance is None
        if r.learner in ("perceptron", "averaged_perceptron"):
            L = sum(hinge_star[i] for i in idx[:t])
            nu = np.linalg.norm(ws)
            assert r.general_bound[j] == pytest.approx(L + R * nu * math.sqrt(L) + R * R * nu * nu)
    assert np.array_equal(r.mistakes, tr.mistakes)
    if r.kind == "objective":
        keep = (r.t >= math.sqrt(r.t[-1])) & (r.subopt > 0)
        slope = np.polyfit(np.log(r.t[keep]), np.log(r.subopt[keep]), 1)[0]
        assert r.rate == pytest.approx(slope, rel=1e-9)


def test_every_quantity_recomputed(cmp):
    for r in cmp.runs:
        _check_run(r, cmp)


def test_every_quantity_recomputed_augmented(cmp_aug):
    assert not cmp_aug.separable
    for r in cmp_aug.runs:
        _check_run(r, cmp_aug)


def test_regret_from_a_replayed_perceptron(cmp):
    """The regret replayed step by step: the perceptron rerun here in plain Python."""
    p = cmp.problem
    X, y = p.data.X, p.data.y
    ws = cmp.reference.w
    for r in cmp.select(label="perceptron"):
        idx = schedule(p.n, cmp.epochs, r.order, r.seed)
        w = np.zeros(p.d)
        reg, mistakes, out = 0.0, 0, {}
        for t, i in enumerate(idx, start=1):
            m = y[i] * X[i] @ w
            reg += (0.5 * LAM * w @ w + max(0.0, 1 - m)) - (
                0.5 * LAM * ws @ ws + max(0.0, 1 - y[i] * X[i] @ ws)
            )
            if m <= 0:
                w = w + y[i] * X[i]
                mistakes += 1
            out[t] = (reg, mistakes, w.copy())
        for j, t in enumerate(r.t):
            assert r.regret[j] == pytest.approx(out[t][0], rel=1e-9, abs=1e-9)
            assert r.mistakes[j] == out[t][1]
            np.testing.assert_allclose(r.trace.w[j], out[t][2], atol=1e-12)


def test_summary_rows_are_final_means(cmp):
    for row in cmp.rows:
        runs = cmp.select(label=row["label"], order=row["order"])
        assert row["seeds"] == len(runs) == 2
        assert row["mistakes"] == pytest.approx(np.mean([r.mistakes[-1] for r in runs]))
        assert row["train_error"] == pytest.approx(np.mean([r.train_error[-1] for r in runs]))
        if row["kind"] == "objective":
            assert row["subopt"] == pytest.approx(np.mean([r.subopt[-1] for r in runs]))
            assert row["theory_slope"] == {"pegasos": -1.0, "subgradient": -0.5}[row["learner"]]
        else:
            assert row["subopt"] is None and row["dual_gap"] is None and row["rate"] is None


# ----------------------------------------------------------------------- theory


@pytest.mark.parametrize("order", ["cyclic", "shuffle", "sample"])
def test_perceptron_within_novikoff_every_order(order):
    data = make_separable(80, 4, margin=0.2, seed=5)  # intercept none, offset 0
    c = compare(
        data,
        learners=[Perceptron(intercept="none")],
        lam=0.01,
        intercept="none",
        epochs=8,
        orders=(order,),
        seeds=(0, 1, 2, 3),
    )
    gamma = data.meta["margin"]
    assert c.gamma == pytest.approx(gamma, rel=1e-6)
    R = np.linalg.norm(data.X, axis=1).max()
    for r in c.runs:
        assert r.mistakes[-1] <= (R / gamma) ** 2
        assert r.novikoff == pytest.approx((R / gamma) ** 2, rel=1e-5)
        assert r.novikoff_respected and r.general_respected
        assert r.train_error[-1] == 0.0 or r.mistakes[-1] < (R / gamma) ** 2


def test_pegasos_expected_suboptimality_bound():
    r"""E[F(w_avg_T)] - F* <= G^2 (1 + ln T) / (2 lam T), G = 2R.

    The lecture notes' Pegasos is online gradient descent on f_t(w) = lam/2 |w|^2 + hinge_t with
    eta_t = 1/(lam (t+1)). Without projection w_{t+1} = theta_t / (lam (t+1)) and
    |theta_t| <= t R, so lam |w_t| < R and every subgradient lam w_t - y z 1[..] has norm
    < 2R =: G. The strongly convex OGD analysis with 1/eta_t - 1/eta_{t-1} = lam gives
    Regret_T(u) <= lam |u|^2 / 2 + G^2 ln(T+1) / (2 lam), and lam |w*| <= R (w* = sum a_i
    y_i z_i with a_i in [0, 1/(lam n)]) makes the first term at most G^2 (1 - 1/T)/(8 lam)
    <= G^2 (1 + ln T - ln(T+1))/(2 lam); so Regret_T(w*) <= G^2 (1 + ln T)/(2 lam). With
    i.i.d. sampling E f_t(w_t) = E F(w_t), and Jensen on the average gives the bound.
    """
    data = make_gaussians(80, 3, separation=1.5, seed=4)
    lam = 0.02
    c = compare(
        data,
        learners=["pegasos"],
        lam=lam,
        intercept="augmented",
        epochs=10,
        orders=("sample",),
        seeds=tuple(range(8)),
    )
    R = np.sqrt((np.linalg.norm(data.X, axis=1) ** 2 + 1.0).max())
    G = 2 * R
    t = c.runs[0].t
    mean_avg = np.mean([r.subopt_avg for r in c.runs], axis=0)
    bound = G**2 * (1 + np.log(t)) / (2 * lam * t)
    assert np.all(mean_avg <= bound)
    assert np.all(mean_avg > -1e-12)
    for r in c.runs:  # the deterministic regret bound behind it, every seed
        assert r.regret_G == pytest.approx(G)
        assert r.regret_respected


def test_pegasos_regret_sublinear():
    data = make_gaussians(100, 2, separation=1.0, seed=6)
    c = compare(
        data,
        learners=["pegasos"],
        lam=0.01,
        intercept="augmented",
        epochs=20,
        orders=("shuffle",),
        seeds=(3,),
    )
    r = c.runs[0]
    ends = np.isin(r.t, np.arange(1, 21) * data.n)
    per_t = r.regret[ends] / r.t[ends]
    assert np.all(np.diff(per_t) < 0), per_t


def test_implied_dual_gap_bounds_true_gap(cmp, cmp_aug):
    for c in (cmp, cmp_aug):
        for r in c.runs:
            if r.kind != "objective":
                continue
            assert np.all(r.dual_gap >= r.subopt - 1e-12)
            assert np.all(r.dual_gap_avg >= r.subopt_avg - 1e-12)
            assert np.all(r.subopt >= -1e-12)


def test_general_bound_on_non_separable_data():
    c = compare(
        load("builtin:heart_scale"),
        learners=["perceptron", "pegasos"],
        lam=0.01,
        epochs=2,
        seeds=(0,),
    )
    assert not c.separable and math.isnan(c.novikoff)
    perc = c.select(label="perceptron")[0]
    assert perc.novikoff_respected is None and perc.general_respected
    assert c.rows[0]["bound_respected"] == "yes"


# ----------------------------------------------------------------------- helpers


# ----------------------------------------------------------------------- outputs


def test_report_files(tmp_path, cmp_aug):
    paths = write_report(cmp_aug, tmp_path / "out")
    names = {p.name for p in paths}
    for stem in ("suboptimality", "gaps", "regret", "mistakes", "boundary"):
        assert {f"{stem}.png", f"{stem}.svg"} <= names
    assert all(p.stat().st_size > 0 for p in paths)
    md = (tmp_path / "out" / "report.md").read_text()
    assert "| perceptron |" in md and "N/A" in md and "certified" in md
    js = json.loads((tmp_path / "out" / "report.json").read_text())
    assert js["summary"][0]["subopt"] is None
    assert js["summary"][1]["learner"] == "pegasos"
    assert len(js["runs"]) == 3 and js["runs"][1]["subopt"][-1] == pytest.approx(
        float(cmp_aug.runs[1].subopt[-1])
    )


# ----------------------------------------------------------------------- bad input


def test_bad_input(sep):
    train, _ = sep
    with pytest.raises(ParameterError, match="empty"):
        compare(train, learners=[], lam=LAM, intercept="none")
    with pytest.raises(ParameterError, match="unknown learner"):
        compare(train, learners=["percepton"], lam=LAM, intercept="none")
    with pytest.raises(ParameterError, match="only one of C and lam"):
        compare(train, learners=["pegasos"], C=1.0, lam=LAM)
    p = SVMProblem(train, lam=LAM, intercept="none")
    with pytest.raises(ParameterError, match="not both"):
        compare(train, p, ["pegasos"], C=1.0)
    with pytest.raises(DataError, match="d = 2"):
        compare(
            train,
            learners=["pegasos"],
            lam=LAM,
            intercept="none",
            holdout=Dataset(np.eye(2), [1, -1]),
        )
    with pytest.raises(ParameterError, match="intercept_scaling=2 but the problem has"):
        compare(train, learners=[Perceptron(intercept_scaling=2.0)], lam=LAM)
    with pytest.raises(ParameterError, match="lam=0.1"):
        compare(train, learners=[Pegasos(lam=0.1, intercept="none")], lam=LAM, intercept="none")
    with pytest.raises(ParameterError, match="soft-margin"):
        compare(train, SVMProblem(train, hard=True, intercept="none"), ["perceptron"])
    with pytest.raises(ParameterError, match="order"):
        compare(train, learners=["pegasos"], lam=LAM, intercept="none", orders=("random",))


def test_refuses_uncertified_reference(sep):
    train, _ = sep
    p = SVMProblem(train, lam=LAM, intercept="none")
    sol = solve(p)
    bad = dataclasses.replace(sol, w=sol.w * 1.05)  # its stored certificate still says ok
    with pytest.raises(CertificateError, match="not certified"):
        compare(train, p, ["pegasos"], reference=bad)


def test_rate_footnote_names_the_iterate_of_each_row():
    """The rate is fitted on the average only where a learner keeps one."""
    from maxmargin import compare, make_gaussians

    cmp = compare(
        make_gaussians(80, 2, separation=1.5, seed=0),
        lam=0.05,
        learners=["pegasos", "subgradient"],
        epochs=2,
        seeds=[0],
    )
    md = markdown(cmp)
    for row in cmp.rows:
        if row.get("rate_iterate"):
            assert f"{row['label']}: {row['rate_iterate']}" in md
    assert "(the average)" not in md


# ------------------------------------------------------- runs of several intercept modes


class _MyPerceptron:
    """A learner of the public protocol that never sees a bias of its own."""

    mistake_driven = True
    supported_intercepts = ("none", "augmented")

    def start(self, d):
        self.w = np.zeros(d)

    def step(self, x, y, t):
        if y * (self.w @ x) <= 0:
            self.w += y * x

    def weights(self):
        return self.w


@pytest.fixture(scope="module")
def binary():
    """Features in {0, 1} (Winnow's), the label the majority of the first three."""
    X = np.random.default_rng(4).integers(0, 2, size=(90, 6)).astype(float)
    full = Dataset(X, np.where(X[:, :3].sum(axis=1) >= 2, 1, -1))
    return full.subset(np.arange(60)), full.subset(np.arange(60, 90))


def _mixed(data, **kw):
    learners = ["pegasos", Perceptron(intercept="augmented"), "winnow", _MyPerceptron()]
    return compare(data, learners=learners, lam=LAM, epochs=3, seeds=(0, 1), **kw)


@pytest.fixture(scope="module")
def mixed(binary):
    return _mixed(binary[0], holdout=binary[1])


def test_mixed_intercepts_each_scored_against_its_own_problem(binary, mixed):
    train, _ = binary
    # free requested first, then the others as the learners bring them
    assert [ref.intercept for ref in mixed.references] == ["free", "augmented", "none"]
    assert mixed.problem.intercept == "free" and mixed.reference is mixed.references[0].solution
    modes = {r.label: r.intercept for r in mixed.runs}
    assert modes == {
        "pegasos": "free",
        "perceptron": "augmented",
        "winnow": "none",
        "_MyPerceptron": "augmented",  # intercept_for(("none", "augmented")): augmented
    }
    for ref in mixed.references:
        p = ref.problem
        assert (p.data, p.C, p.lam, p.intercept_scaling) == (train, mixed.problem.C, LAM, 1.0)
        # F* of a fresh solve of its own problem, recomputed with numpy
        fresh = solve(SVMProblem(train, lam=LAM, intercept=ref.intercept))
        s = 1.0 if ref.intercept == "augmented" else 0.0
        Z = _z(train.X, s)
        if ref.intercept == "free":  # b unregularised
            Fs = 0.5 * LAM * fresh.w @ fresh.w + np.mean(
                np.maximum(0.0, 1.0 - train.y * (train.X @ fresh.w + fresh.b))
            )
        else:
            Fs = _F(_wt(fresh.w, fresh.b, s), Z, train.y, LAM)
        assert ref.F_star == pytest.approx(Fs, rel=1e-9)
        assert ref.solution.certificate.ok
        assert ref.separable == (ref.intercept != "none")  # no bias: x = 0 is in both classes
        if ref.intercept != "free":
            assert ref.R == pytest.approx(max(np.linalg.norm(z) for z in Z), rel=1e-12)
    # each run's scores are against its own optimum: the perceptron's cosine with w~* of
    # the augmented problem, Winnow's novikoff of the problem without a bias
    aug = mixed.references[1]
    r = mixed.select(label="perceptron", seed=0)[0]
    wt = np.append(r.trace.w[-1], r.trace.b[-1])
    cos = wt @ aug.w_star / (np.linalg.norm(wt) * np.linalg.norm(aug.w_star))
    assert r.cosine[-1] == pytest.approx(cos, abs=1e-12)
    assert r.novikoff == pytest.approx(aug.novikoff, rel=1e-12)
    assert mixed.reference_of(r) is aug
    # the table names the problem per row, the rows say it in words
    rows = {row["label"]: row for row in mixed.rows}
    assert rows["winnow"]["scored_against"] == mixed.references[2].scored_against
    assert "intercept none" in rows["winnow"]["scored_against"]
    text = markdown(mixed)
    assert "| learner | order | scored against | seeds |" in text
    assert "| winnow | shuffle | intercept none |" in text
    assert "| pegasos | shuffle | intercept free |" in text
    for mode in ("free", "augmented", "none"):
        assert f"## Reference, intercept `{mode}` (certified)" in text
    assert "| learner | scored against | verdict |" in text
    assert "| winnow | intercept none |" in text.split("## Verdicts")[1]


def test_mixed_comparison_equals_one_comparison_per_mode(binary, mixed):
    """Each run equals the same run in a comparison of its own intercept alone."""
    train, test = binary
    alone = {
        "free": compare(train, learners=["pegasos"], lam=LAM, epochs=3, seeds=(0, 1), holdout=test),
        "augmented": compare(
            train,
            learners=[Perceptron(intercept="augmented"), _MyPerceptron()],
            lam=LAM,
            intercept="augmented",
            epochs=3,
            seeds=(0, 1),
            holdout=test,
        ),
        "none": compare(
            train,
            learners=["winnow"],
            lam=LAM,
            intercept="none",
            epochs=3,
            seeds=(0, 1),
            holdout=test,
        ),
    }
    for ref in mixed.references:
        one = alone[ref.intercept]
        assert len(one.references) == 1
        assert ref.F_star == pytest.approx(one.F_star, rel=1e-12)
        assert (ref.R, ref.gamma) == pytest.approx((one.R, one.gamma), rel=1e-12, nan_ok=True)
        assert np.allclose(ref.w_star, one.w_star, rtol=1e-9, atol=1e-12)
    for r in mixed.runs:
        (o,) = alone[r.intercept].select(label=r.label, seed=r.seed)
        for key in (
            "mistakes",
            "train_error",
            "test_error",
            "subopt",
            "cosine",
            "margin",
            "regret",
            "general_bound",
        ):
            a, b = getattr(r, key), getattr(o, key)
            assert (a is None) == (b is None), key
            if a is not None:
                assert np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True), (r.label, key)
        assert r.kind == o.kind and _close(r.novikoff, o.novikoff)


def _close(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12)


def test_one_intercept_one_reference_and_no_column(cmp):
    assert len(cmp.references) == 1 and {r.intercept for r in cmp.runs} == {"none"}
    assert "scored against |" not in markdown(cmp)


def test_winnow_alone_is_scored_against_the_problem_without_bias(binary):
    train, _ = binary
    c = compare(train, learners=["winnow"], lam=LAM, epochs=2)
    assert [ref.intercept for ref in c.references] == ["none"] and c.problem.intercept == "none"
    with pytest.raises(ParameterError, match="no learner or trace runs with it"):
        compare(train, learners=["winnow"], lam=LAM, reference=solve(SVMProblem(train, lam=LAM)))


def test_a_trace_of_another_intercept_is_scored_against_its_problem(sep):
    train, _ = sep
    from maxmargin.online import run

    tr = run(Perceptron(intercept="none"), train, epochs=2)
    c = compare(train, learners=["pegasos"], traces=[tr], lam=LAM, epochs=2)
    assert [ref.intercept for ref in c.references] == ["free", "none"]
    assert c.select(label="perceptron")[0].intercept == "none"
