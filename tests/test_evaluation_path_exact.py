"""Tests of maxmargin.evaluation.path.exact: every breakpoint of the C path, certified."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import maxmargin as mm
from maxmargin import Dataset, ParameterError, SVMProblem, make_gaussians, make_separable
from maxmargin.cli import main
from maxmargin.evaluation.path import events as path_events
from maxmargin.evaluation.path import geometry as path_geometry
from maxmargin.evaluation.path import regularization_path
from maxmargin.evaluation.path import tracer as path_tracer
from maxmargin.evaluation.path.exact import ExactPath
from maxmargin.evaluation.path.limits import hard_margin_limit, min_margin_sv_C
from maxmargin.exact import solve
from maxmargin.report import write_report
from maxmargin.report.path import markdown

INTERCEPTS = ("free", "none", "augmented")


def _check_against_solves(
    ep: ExactPath, data: Dataset, intercept: str, seed: int, k: int = 4
) -> None:
    """At random C inside random segments, ``solution_at`` equals a fresh certified solve.

    Objective to 1e-9 relative, w to 1e-7 (relative to max(1, ||w||)). The reference is
    Clarabel (another route than the path's probes): on degenerate data the default
    route can return an unpolished point whose w is off by 1e-7 (seed 193 below).
    """
    rng = np.random.default_rng(seed)
    segs = rng.choice(ep.n_segments, size=min(k, ep.n_segments), replace=False)
    for s in segs:
        lo, hi = ep.bounds[s], ep.bounds[s + 1]
        hi = hi if math.isfinite(hi) else 2 * lo + 1.0
        C = float(lo + (hi - lo) * rng.uniform(0.1, 0.9))
        pt = ep.solution_at(C)
        problem = SVMProblem(data, C=C, intercept=intercept)
        sol = solve(problem, solver="CLARABEL")
        assert sol.certificate.ok and pt.certificate.ok, (C, pt.certificate)
        P = float(problem.primal_objective(pt.w, pt.b))
        assert abs(P - sol.primal_objective) <= 1e-9 * abs(sol.primal_objective), C
        assert np.abs(pt.w - sol.w).max() <= 1e-7 * max(1.0, np.abs(sol.w).max()), C
        # the point is recomputed from its sets: alpha in the box, w = sum alpha y x
        assert pt.alpha.min() >= 0 and pt.alpha.max() <= C * (1 + 1e-12)
        assert np.allclose(problem.weights_from_dual(pt.alpha)[0], pt.w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_solution_at_equals_a_fresh_solve(intercept):
    ds = make_gaussians(50, 3, separation=1.5, seed=4)
    ep = regularization_path(ds, 100.0, exact=True, intercept=intercept)
    # the last event is below C_max: the last segment is exact for every larger C
    assert ep.certified and ep.end_reason == "end" and ep.C_end == math.inf
    assert ep.breakpoints[-1] < 100.0 and len(ep) > 20 and ep.max_residual.max() < 1e-10
    _check_against_solves(ep, ds, intercept, seed=1)
    # breakpoints increase; every one has at least one event
    assert (np.diff(ep.breakpoints) > 0).all()
    assert (np.diff(ep.event_ptr) >= 1).all()


@pytest.mark.parametrize("intercept", ["free", "none"])
def test_separable_path_ends_at_the_hard_margin(intercept):
    ds = make_separable(30, 2, margin=0.4, seed=3)
    ep = regularization_path(ds, exact=True, intercept=intercept)
    lim = hard_margin_limit(ds, intercept)
    assert ep.complete and ep.separable and ep.C_end == math.inf
    assert ep.C_star == pytest.approx(lim.C_star, rel=1e-6)
    assert ep.C_star == ep.breakpoints[-1] and ep.n_left[-1] == 0
    # beyond C*, w is constant and equals the hard-margin solution
    w, b = ep.coefficients([ep.C_star, 10 * ep.C_star, 1e6 * ep.C_star])
    np.testing.assert_allclose(w, np.tile(lim.w, (3, 1)), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(b, lim.b, atol=1e-7)
    assert ep.solution_at(1e3 * ep.C_star).certificate.ok


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_separable_path_reaches_the_hard_margin_under_a_finite_C_max(intercept):
    # the last segment has no further event: it is exact for every C, C_max or not (the
    # CLI always passes a C_max)
    ds = mm.load("builtin:separable")
    ep = regularization_path(ds, 1e6, exact=True, intercept=intercept)
    lim = hard_margin_limit(ds, intercept)
    assert ep.end_reason == "end" and ep.complete and ep.C_end == math.inf
    assert ep.C_star == pytest.approx(lim.C_star, rel=1e-6)
    assert ep.C_star == ep.breakpoints[-1] and ep.n_left[-1] == 0


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_first_breakpoint_is_the_analytical_C0(intercept):
    ds = make_gaussians(40, 2, seed=2, positive_fraction=0.5)
    ep = regularization_path(ds, 10.0, exact=True, intercept=intercept)
    c0 = min_margin_sv_C(ds, intercept)
    assert 0 < c0 < math.inf
    assert ep.min_margin_sv_C == pytest.approx(c0, rel=1e-9)
    assert ep.breakpoints[0] == ep.min_margin_sv_C and ep.n_elbow[0] == 0
    # below C_0 every example is at its bound: alpha = C, w = C g
    C = 0.5 * c0
    pt = ep.solution_at(C)
    assert pt.left.size == ds.n and np.allclose(pt.alpha, C)


def test_unequal_classes_have_margin_svs_for_every_C():
    data = mm.load("builtin:heart_scale")
    ep = regularization_path(data, 0.01, exact=True, intercept="free")
    assert min_margin_sv_C(data) == 0.0 and ep.min_margin_sv_C == 0.0
    assert ep.n_elbow[0] > 0 and ep.certified
    # on the first segment alpha / C is constant (the face QP's beta*)
    a1, a2 = ep.alpha_at(1e-6), ep.alpha_at(1e-4)
    np.testing.assert_allclose(a1 / 1e-6, a2 / 1e-4, rtol=1e-9, atol=1e-12)
    _check_against_solves(ep, data, "free", seed=3, k=3)


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_hand_solved_two_points(intercept):
    """x = +-1: alpha = C, w = 2C below C = 1/2; from there alpha = 1/2, w = 1.

    w = 1 is the hard margin. For ``none`` the two signed rows are equal: one merged
    example.
    """
    ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True, intercept=intercept)
    assert ep.breakpoints.tolist() == [0.5] and ep.C_star == 0.5 and ep.complete
    assert ep.events_at(0) == [(0, "L", "E"), (1, "L", "E")]
    assert ep.n_merged == (1 if intercept == "none" else 0)
    for C in (0.01, 0.3, 0.5):
        pt = ep.solution_at(C)
        assert pt.w.tolist() == pytest.approx([2 * C]) and pt.b == pytest.approx(0, abs=1e-15)
        assert pt.alpha.tolist() == pytest.approx([C, C])
    for C in (0.6, 3.0, 1e9):
        pt = ep.solution_at(C)
        assert pt.w.tolist() == pytest.approx([1.0]) and pt.b == pytest.approx(0, abs=1e-12)
        assert pt.alpha.tolist() == pytest.approx([0.5, 0.5])
        assert pt.elbow.tolist() == [0, 1]


def test_hand_solved_three_points_unequal_classes():
    """x = (1, -1, 3), y = (+1, -1, +1), free intercept.

    The small-C face: beta = (1, 1, 0) (g = 2), so alpha = (C, C, 0) and w = 2C up to
    C_0 = 2 / (2 + 2) = 1/2. b is not unique there: the interval
    [max(2C - 1, 1 - 6C), 1 - 2C]. From C = 1/2 on: w = 1, b = 0, alpha = (1/2, 1/2, 0).
    """
    ep = regularization_path(Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1]), exact=True)
    assert ep.breakpoints.tolist() == pytest.approx([0.5])
    assert ep.min_margin_sv_C == pytest.approx(0.5) and ep.C_star == pytest.approx(0.5)
    for C in (0.05, 0.2, 0.4):
        pt = ep.solution_at(C)
        assert pt.w[0] == pytest.approx(2 * C)
        assert pt.alpha.tolist() == pytest.approx([C, C, 0.0])
        assert max(2 * C - 1, 1 - 6 * C) - 1e-12 <= pt.b <= 1 - 2 * C + 1e-12
        assert pt.certificate.ok
    pt = ep.solution_at(5.0)
    assert pt.w[0] == pytest.approx(1.0) and pt.b == pytest.approx(0.0, abs=1e-12)
    assert pt.alpha.tolist() == pytest.approx([0.5, 0.5, 0.0])


def _grid_sets(p, i):
    """(margin SVs, bound SVs) of grid point i, by alpha relative to C."""
    a, C = p.alpha[i], p.C[i]
    tol = 1e-6 * C
    bound = a >= C - tol
    return set(np.flatnonzero((a > tol) & ~bound)), set(np.flatnonzero(bound))


def test_breakpoints_bracket_the_grid_paths_set_changes():
    ds = make_gaussians(30, 2, separation=1.5, seed=7)
    ep = regularization_path(ds, 100.0, exact=True)
    grid = np.geomspace(ep.breakpoints[0] / 2, 50.0, 40)
    # stay clear of breakpoints, where the sets are ambiguous at the solver's precision
    near = np.abs(np.log(grid[:, None] / ep.breakpoints[None, :])).min(axis=1) < 1e-4
    grid = grid[~near]
    gp = regularization_path(ds, C=grid, hard_limit=False)
    assert gp.certified
    changes = 0
    for i, C in enumerate(gp.C):
        pt = ep.solution_at(float(C))
        assert _grid_sets(gp, i) == (set(pt.elbow), set(pt.left)), C
        if i:
            between = ((ep.breakpoints > gp.C[i - 1]) & (ep.breakpoints < C)).sum()
            same = _grid_sets(gp, i) == _grid_sets(gp, i - 1)
            assert same or between >= 1
            changes += not same
    assert changes >= 5


def _duplicated_and_lattice() -> list[Dataset]:
    rng = np.random.default_rng(0)
    base = make_gaussians(24, 2, seed=5)
    X = np.vstack([base.X, base.X[:6], base.X[:3]])
    y = np.concatenate([base.y, base.y[:6], base.y[:3]])
    g = np.array([[i, j] for i in range(-3, 4) for j in range(-3, 4)], float)
    s = g.sum(axis=1)
    yl = np.where(s > 0, 1.0, -1.0)
    yl[s == 0] = np.where(g[s == 0, 0] > 0, 1.0, -1.0)  # ties on the diagonal, by construction
    Xi = rng.integers(-2, 3, (30, 3)).astype(float)  # integer features: many ties
    yi = np.where(rng.random(30) < 0.5, 1.0, -1.0)
    yi[:2] = (1.0, -1.0)
    return [
        Dataset(X, y, name="duplicates"),
        Dataset(g, yl, name="lattice"),
        Dataset(Xi + yi[:, None], yi, name="integers"),
    ]


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_degenerate_data_goes_through(intercept):
    dup, lattice, integers = _duplicated_and_lattice()
    ep = regularization_path(dup, 50.0, exact=True, intercept=intercept)
    assert ep.certified and ep.n_merged == 9
    _check_against_solves(ep, dup, intercept, seed=5, k=3)
    # merged duplicates share their multiplier and move together
    a = ep.alpha_at(1.0)
    np.testing.assert_allclose(a[24:30], a[:6], rtol=1e-12)
    for ds in (lattice, integers):
        ep = regularization_path(ds, 50.0, exact=True, intercept=intercept)
        assert ep.certified, ds.name
        _check_against_solves(ep, ds, intercept, seed=6, k=3)


def test_a_tie_the_search_cannot_settle_goes_to_a_fresh_solve():
    """Integer features in 3-D: a breakpoint settled by a fresh solve, the path still exact.

    The seed was found by a search over such data sets: one of the 15 breakpoints is settled by
    a fresh certified solve; the path still matches fresh solves everywhere.
    """
    rng = np.random.default_rng(193)
    n, d = int(rng.integers(20, 80)), int(rng.integers(2, 5))
    X = rng.integers(-3, 4, (n, d)).astype(float)
    y = np.where(rng.random(n) < rng.uniform(0.3, 0.7), 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    X = X + y[:, None] * rng.integers(0, 2, d)
    ds = Dataset(X, y)
    ep = regularization_path(ds, 100.0, exact=True)
    assert ep.certified and ep.n_solves >= 1
    _check_against_solves(ep, ds, "free", seed=2, k=5)


def test_fresh_solves_settle_degenerate_events_to_the_same_path(monkeypatch):
    """Every breakpoint through the fresh-solve route gives the same path.

    Forcing every breakpoint through the fresh-solve route (as a degenerate event would
    be) gives the same breakpoints, events and coefficients.
    """
    ds = make_gaussians(20, 2, separation=1.5, seed=3)
    ref = regularization_path(ds, 10.0, exact=True)
    # every breakpoint to the degenerate side (no compiled loop), and there to fresh solves
    monkeypatch.setattr(path_tracer._Fast, "fastable", lambda self, seg: False)
    monkeypatch.setattr(path_events._Tracer, "settle", lambda self, *a, **k: None)
    ep = regularization_path(ds, 10.0, exact=True)
    assert set(ep.method) == {"solve"} and ep.n_solves >= len(ep)
    assert ep.certified
    np.testing.assert_allclose(ep.breakpoints, ref.breakpoints, rtol=1e-9)
    assert [ep.events_at(j) for j in range(len(ep))] == [ref.events_at(j) for j in range(len(ref))]
    Cs = np.geomspace(ref.breakpoints[0] / 2, 10.0, 50)
    np.testing.assert_allclose(
        ep.coefficients(Cs)[0], ref.coefficients(Cs)[0], rtol=1e-9, atol=1e-12
    )


@settings(
    max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    seed=st.integers(0, 10_000),
    scale=st.sampled_from([1e-150, 1e-60, 1e-8, 1e7, 1e80]),
    intercept=st.sampled_from(INTERCEPTS),
)
def test_breakpoints_scale_with_the_data(seed, scale, intercept):
    """X -> s X gives the same path with C -> C / s^2 and w -> w / s.

    The augmented column goes s -> s s too: the path does not depend on the data's units.
    """
    rng = np.random.default_rng(seed)
    n = 12
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[:2] = (1.0, -1.0)
    X = rng.standard_normal((n, 2)) + 0.8 * y[:, None]
    ep = regularization_path(Dataset(X, y), 100.0, exact=True, intercept=intercept)
    eps = regularization_path(
        Dataset(X * scale, y),
        100.0 / scale**2,
        exact=True,
        intercept=intercept,
        intercept_scaling=scale,
    )
    assert eps.certified and len(eps) == len(ep)
    np.testing.assert_allclose(eps.breakpoints * scale**2, ep.breakpoints, rtol=1e-8)
    Cs = np.geomspace(1e-3, 100.0, 7)
    np.testing.assert_allclose(
        eps.coefficients(Cs / scale**2)[0] * scale, ep.coefficients(Cs)[0], rtol=1e-8, atol=1e-10
    )


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_lambda_form_is_the_same_path(intercept):
    """alpha / C, w / C, b / C are affine in lambda = 1 / C on each segment.

    That is Hastie et al.'s scaled parametrisation; it gives the same solution.
    """
    ds = make_gaussians(25, 2, seed=8)
    ep = regularization_path(ds, 20.0, exact=True, intercept=intercept)
    rng = np.random.default_rng(0)
    for k in rng.choice(ep.n_segments, size=5, replace=False):
        f = ep.lambda_form(int(k))
        for C in np.linspace(ep.bounds[k], ep.bounds[k + 1], 4)[1:]:
            lam = 1.0 / C
            w, b = ep.coefficients(C)
            np.testing.assert_allclose(C * (f["w"][0] + lam * f["w"][1]), w, rtol=1e-9, atol=1e-12)
            assert C * (f["b"][0] + lam * f["b"][1]) == pytest.approx(b, abs=1e-10)
            np.testing.assert_allclose(
                C * (f["alpha"][0] + lam * f["alpha"][1]), ep.alpha_at(C), rtol=1e-9, atol=1e-13
            )
    assert "breakpoints" in repr(ep)


def test_sparse_features_kept_sparse_give_the_same_path(monkeypatch):
    data = mm.load("builtin:heart_scale")  # CSR
    dense = regularization_path(data, 10.0, exact=True)
    monkeypatch.setattr(path_geometry, "_DENSE_LIMIT", 0)  # keep G sparse (large data)
    sparse = regularization_path(data, 10.0, exact=True)
    assert sparse.certified and len(sparse) == len(dense)
    np.testing.assert_allclose(sparse.breakpoints, dense.breakpoints, rtol=1e-10)


def test_norm_and_slack_are_monotone_along_the_breakpoints():
    ds = make_gaussians(40, 3, seed=9)
    ep = regularization_path(ds, 100.0, exact=True, intercept="augmented")
    w, b = ep.coefficients(ep.breakpoints)
    pr = SVMProblem(ds, C=1.0, intercept="augmented")
    norm = np.sqrt(pr.regularizer(w, b))
    slack = pr.hinge(w, b).sum(axis=0)
    assert (np.diff(norm) >= -1e-12 * norm[1:]).all()
    assert (np.diff(slack) <= 1e-9 * slack[:-1]).all()


def test_exports_list_every_breakpoint_and_event(tmp_path):
    ds = make_gaussians(20, 2, seed=1)
    ep = regularization_path(ds, 10.0, exact=True, holdout=make_gaussians(20, 2, seed=2))
    d = json.loads(ep.to_json())
    assert d["n_breakpoints"] == len(ep) == len(d["breakpoints"])
    assert len(d["segments"]) == ep.n_segments
    assert d["breakpoints"][0]["C"] == ep.breakpoints[0]
    rows = list(csv.DictReader(io.StringIO(ep.to_csv())))
    assert len(rows) == ep.event_index.size
    j = int(rows[-1]["k"])
    assert (int(rows[-1]["index"]), rows[-1]["from"], rows[-1]["to"]) == ep.events_at(j)[-1]
    assert float(rows[0]["C"]) == ep.breakpoints[0]  # repr: the exact double
    files = write_report(ep, tmp_path / "rep", formats=("png",))
    names = {f.name for f in files}
    assert {"report.md", "report.json", "breakpoints.csv", "path_errors.png"} <= names
    assert (tmp_path / "rep" / "breakpoints.csv").read_text() == ep.to_csv()
    assert "breakpoints" in (tmp_path / "rep" / "report.md").read_text()
    assert not list((tmp_path / "rep").glob(".*"))  # no temporary files left behind
    # the segments in the JSON recompute w anywhere: w(C) = w_at + (C - C_lo) w_slope
    seg = d["segments"][3]
    C = 0.5 * (seg["C_lo"] + seg["C_hi"])
    w = np.array(seg["w_at"]) + (C - seg["C_lo"]) * np.array(seg["w_slope"])
    np.testing.assert_allclose(w, ep.coefficients(C)[0], rtol=1e-12)


def test_bad_input_is_a_clear_error():
    ds = make_gaussians(20, 2, seed=1)
    ep = regularization_path(ds, 1.0, exact=True)
    for bad in (0.0, -1.0, math.nan, 2.0):
        with pytest.raises(ParameterError):
            ep.solution_at(bad)
    with pytest.raises(ParameterError):
        ep.events_at(len(ep))
    with pytest.raises(ParameterError):
        regularization_path(ds, -1.0, exact=True)
    with pytest.raises(ParameterError):
        regularization_path(ds.X, 1.0, exact=True)
    with pytest.raises(ParameterError):
        regularization_path(ds, exact=True, holdout=make_gaussians(5, 3))
    with pytest.raises(ParameterError):
        regularization_path(ds, exact=True, intercept="both")


def test_path_exact_entry_covers_the_grid_range():
    ds = make_gaussians(30, 2, seed=1)
    ep = regularization_path(ds, C="1e-2:1e1:5", exact=True)
    # the last event is below the grid's top: the path covers every larger C too
    assert isinstance(ep, ExactPath) and ep.end_reason == "end"
    assert ep.bounds[0] == 1e-2 and ep.C_end == math.inf
    full = regularization_path(ds, 10.0, exact=True)
    np.testing.assert_allclose(
        ep.breakpoints, full.breakpoints[full.breakpoints > 1e-2], rtol=1e-10
    )
    Cs = np.geomspace(1e-2, 10.0, 9)
    np.testing.assert_allclose(
        ep.coefficients(Cs)[0], full.coefficients(Cs)[0], rtol=1e-10, atol=1e-13
    )
    with pytest.raises(ParameterError):
        ep.solution_at(5e-3)
    ep2 = regularization_path(ds, lam=[1.0 / (30 * 10.0), 1.0], exact=True)
    assert ep2.C_end == math.inf and ep2.bounds[0] == pytest.approx(1 / 30)
    assert regularization_path(ds, exact=True).bounds[0] == 0.0  # no grid: the whole path


def test_cli_path_exact(tmp_path, capsys):
    heart = str(mm.data.sources._PACKAGE_DATA / "heart_scale")
    code = main(["path", heart, "--exact", "--C-grid", "1e-3:10:3", "--out", str(tmp_path)])
    out, _ = capsys.readouterr()
    assert code == 0 and "breakpoints" in out
    rows = list(csv.DictReader((tmp_path / "breakpoints.csv").open()))
    js = json.loads((tmp_path / "report.json").read_text())
    assert js["certified"] and js["end_reason"] == "end" and len(rows) >= js["n_breakpoints"]
    code = main(["path", heart, "--exact", "--learners", "pegasos", "--out", str(tmp_path)])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--exact" in err


# --------------------------------------------------------------------------- issue 24


def _breast_cancer() -> Dataset:
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    return Dataset(StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0))


def test_breast_cancer_reaches_the_hard_margin():
    """Standardised breast_cancer is separable: the path reaches C* = 63,037 and ends there.

    It used to stop at C = 30,675 with end_reason "precision" and say "not separable" (the
    margins were recomputed from multipliers of size C that cancel; now they are carried).
    """
    data = _breast_cancer()
    ep = regularization_path(data, exact=True)
    lim = hard_margin_limit(data)
    assert ep.end_reason == "end" and ep.complete and ep.certified and ep.separable
    assert ep.C_star == pytest.approx(lim.C_star, rel=1e-6) and 6e4 < ep.C_star < 7e4
    assert ep.n_left[-1] == 0 and "not separable" not in markdown(ep)
    _assert_continuous(ep)
    w, b = ep.coefficients(2 * ep.C_star)
    np.testing.assert_allclose(w, lim.w, rtol=1e-6, atol=1e-6 * np.abs(lim.w).max())


def _mirror_ties() -> Dataset:
    """Mirror pairs ``(x, +1), (-x, -1)``: b = 0 by symmetry, the pair's events coincide."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((12, 2)) + [1.0, 0.4]
    return Dataset(np.vstack([X, -X]), np.r_[np.ones(12), -np.ones(12)], name="mirror ties")


def _opposite_duplicates() -> Dataset:
    """Copies of points with the other label (and one with the same): dependent rows."""
    base = make_gaussians(20, 2, separation=2.0, seed=6)
    X = np.vstack([base.X, base.X[:4], base.X[4:5]])
    y = np.concatenate([base.y, -base.y[:4], base.y[4:5]])
    return Dataset(X, y, name="opposite duplicates")


def _collinear_margin() -> Dataset:
    """Three points of each class on one line each: six margin SVs in three dimensions."""
    rng = np.random.default_rng(2)
    line = np.array([[-1.0, 1.0], [0.0, 1.0], [1.0, 1.0]])
    far = rng.uniform(-2, 2, (10, 2)) + [0.0, 3.0]
    X = np.vstack([line, far, -line, -far])
    return Dataset(X, np.r_[np.ones(13), -np.ones(13)], name="collinear margin")


def _degenerate_sets() -> list[Dataset]:
    dup, lattice, integers = _duplicated_and_lattice()
    return [_mirror_ties(), _opposite_duplicates(), _collinear_margin(), dup, lattice, integers]


def _assert_continuous(ep: ExactPath) -> None:
    """Each segment ends where the next one starts (w and b, relative to max(1, |w|)).

    And the sets replayed from the events agree with each segment's elbow and set sizes.
    """
    if len(ep) == 0:
        return
    t = np.diff(ep.bounds[:-1])[:, None]
    w_end = ep.w_at[:-1] + t * ep.w_slope[:-1]
    scale = np.maximum(1.0, np.abs(ep.w_at[1:]).max(axis=1))
    assert (np.abs(w_end - ep.w_at[1:]).max(axis=1) <= 1e-8 * scale).all()
    b_end = ep.b_at[:-1] + t[:, 0] * ep.b_slope[:-1]
    assert (np.abs(b_end - ep.b_at[1:]) <= 1e-8 * np.maximum(1.0, np.abs(ep.b_at[1:]))).all()
    # the sets replayed from the events are the segments' own (200 of them at most)
    for k in np.unique(np.linspace(0, ep.n_segments - 1, 200).astype(int)):
        st = ep._status(k)
        elbow = ep.elbow_index[ep.elbow_ptr[k] : ep.elbow_ptr[k + 1]]
        assert sorted(elbow) == np.flatnonzero(st == 1).tolist()
        assert (np.bincount(st, minlength=3) == (ep.n_right[k], ep.n_elbow[k], ep.n_left[k])).all()


@pytest.mark.parametrize("k", range(6))
@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_degenerate_sets_by_construction(k, intercept):
    """Ties, duplicates of either label, a dependent margin set, integer features.

    Every breakpoint certified, the path continuous, and equal to Clarabel's solves at
    random C.
    """
    ds = _degenerate_sets()[k]
    ep = regularization_path(ds, 200.0, exact=True, intercept=intercept)
    assert ep.certified and ep.certificates.ok.all() and ep.max_residual.max() < 1e-9, ds.name
    _assert_continuous(ep)
    _check_against_solves(ep, ds, intercept, seed=k, k=3)
    if ds.name == "mirror ties" and intercept == "free":
        assert np.diff(ep.event_ptr).max() >= 2  # several events at one C
    if ds.name == "collinear margin" and intercept == "free":
        # six points on the margin, more than d + 1 = 3 can be independent margin SVs
        assert ep.complete and ep.separable
        w, b = ep.coefficients(2 * ep.C_star)
        assert (np.abs(ds.y * (ds.X @ w + b) - 1) < 1e-9).sum() == 6


@settings(
    max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    seed=st.integers(0, 100_000),
    intercept=st.sampled_from(INTERCEPTS),
    dup=st.sampled_from(["none", "same", "opposite"]),
)
def test_random_degenerate_paths_are_certified_continuous_and_reach_C_star(seed, intercept, dup):
    """Small integer data with duplicates (either label) and ties, to the end of the path."""
    from maxmargin import is_separable

    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(6, 24)), int(rng.integers(1, 4))
    X = rng.integers(-2, 3, (n, d)).astype(float)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    X = X + y[:, None] * rng.integers(0, 3, d)  # shifted apart: often separable
    k = rng.integers(0, n, 3)
    if dup == "same":
        X, y = np.vstack([X, X[k]]), np.concatenate([y, y[k]])
    elif dup == "opposite":
        X, y = np.vstack([X, X[k[:1]]]), np.concatenate([y, -y[k[:1]]])
    ds = Dataset(X, y)
    ep = regularization_path(ds, exact=True, intercept=intercept)
    assert ep.certified and ep.end_reason == "end"
    _assert_continuous(ep)
    if is_separable(ds, intercept):
        lim = hard_margin_limit(ds, intercept)
        assert ep.separable and ep.C_star == pytest.approx(lim.C_star, rel=1e-7)
        w, b = ep.coefficients(2 * ep.C_star + 1.0)
        np.testing.assert_allclose(w, lim.w, rtol=1e-6, atol=1e-7)
    else:
        assert not ep.separable and ep.C_star == math.inf and ep.n_left[-1] > 0


def test_the_compiled_loop_and_the_dense_route_give_the_same_path(monkeypatch):
    """Every breakpoint through the compiled loop, or through the dense route of old."""
    ds = make_gaussians(300, 5, seed=3)
    fast = regularization_path(ds, 100.0, exact=True, intercept="free")
    monkeypatch.setattr(path_tracer._Fast, "fastable", lambda self, seg: False)
    dense = regularization_path(ds, 100.0, exact=True, intercept="free")
    assert len(fast) == len(dense) > 100 and fast.certified and dense.certified
    _assert_continuous(fast)
    np.testing.assert_allclose(fast.breakpoints, dense.breakpoints, rtol=1e-9)
    assert (fast.event_index == dense.event_index).all()
    Cs = np.geomspace(fast.breakpoints[0] / 2, 100.0, 60)
    np.testing.assert_allclose(
        fast.coefficients(Cs)[0], dense.coefficients(Cs)[0], rtol=1e-9, atol=1e-12
    )


def test_refreshes_find_the_carried_margins_within_their_bound(monkeypatch):
    """At every refresh the margins recomputed from X agree with the carried ones.

    Within the rigorous bound of their rounding (drift ratio <= 1), refreshed every 4
    breakpoints here; the breakpoints certified by ``certify`` itself at the cadence.
    """
    monkeypatch.setattr(path_tracer, "REFRESH_EVERY", 4)
    monkeypatch.setattr(path_tracer, "CERTIFY_EVERY", 1)
    seen = []
    trace = path_tracer.trace
    monkeypatch.setattr(
        path_tracer, "trace", lambda *a, **k: seen.append(trace(*a, **k)) or seen[-1]
    )
    ep = regularization_path(make_gaussians(400, 6, seed=5), 50.0, exact=True)
    traced = seen[0]
    assert traced.n_fast > 100 and 0 < traced.drift <= 1.0
    full = [j for j in range(len(ep)) if j in ep.certificates._full]
    assert len(full) >= traced.n_fast // 4 - 1 and all(ep.certificates[j].ok for j in full)


def test_report_and_figures_of_a_grid_range_exact_path(tmp_path):
    """A path built on a grid's range starts at its C_min: report and figures draw from there.

    Both used to raise ``ParameterError: C = 0.00027 is below the start of this path``
    (the default range was a decade below the first breakpoint) and leave an empty folder.
    """
    from maxmargin.plotting.path import plot_coefficients

    ep = regularization_path(
        make_gaussians(60, 3, seed=2), C=np.geomspace(1e-3, 1e3, 25), exact=True
    )
    assert ep.bounds[0] == 1e-3 and ep.breakpoints[0] < 1e-2
    files = write_report(ep, tmp_path / "rep", formats=("png",))
    assert {"report.md", "path_coefficients.png"} <= {f.name for f in files}
    ax = plot_coefficients(ep)
    assert min(ax.get_lines()[0].get_xdata()) >= 1e-3
    with pytest.raises(ParameterError):
        write_report(ep, tmp_path / "off", C_range=(1e-6, 1e-4))
    assert not (tmp_path / "off").exists()


def test_objective_figure_draws_no_rounding_noise_past_C_star():
    """Past C* the slack is exactly 0 (no bound SV): the slack part is not drawn there."""
    from maxmargin.plotting.path import plot_objective

    ep = regularization_path(make_separable(40, 2, seed=1), exact=True)
    ax = plot_objective(ep, C_range=(ep.C_star / 100, ep.C_star * 1e9))
    slack_line = next(ln for ln in ax.get_lines() if ln.get_label() == r"$C {\sum}_i \xi_i$")
    assert max(slack_line.get_xdata()) <= ep.C_star


def test_a_precision_stop_says_what_is_true():
    """A path stopped for precision on separable data says so and names C* (not "not separable")."""
    import dataclasses

    ep = regularization_path(make_separable(30, 2, seed=3), exact=True)
    stopped = dataclasses.replace(ep, end_reason="precision", C_end=float(ep.breakpoints[-2]))
    md = markdown(stopped)
    assert "not separable" not in md and f"C* = {ep.C_star:.6g}" in md
    assert "cannot be decided in double precision" in md and "rescaling" in md


def test_C_star_is_where_the_slack_vanishes_when_a_bound_SV_stays_tied():
    """A bound SV can reach the margin with another and stay in L there (a tie).

    The solution is the hard-margin one from that breakpoint on; later breakpoints only move
    multipliers among tied examples. C* is that breakpoint, as hard_margin_limit's LP says
    (it was the last breakpoint, 1.18125 against 1.15625; found by a sweep of 600 paths).
    """
    rng = np.random.default_rng(10_578)
    n, d = int(rng.integers(20, 80)), int(rng.integers(2, 5))
    X = rng.integers(-3, 4, (n, d)).astype(float)
    y = np.where(rng.random(n) < rng.uniform(0.3, 0.7), 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    ds = Dataset(X + y[:, None] * rng.integers(0, 2, d), y)
    ep = regularization_path(ds, exact=True, intercept="augmented")
    lim = hard_margin_limit(ds, "augmented")
    assert ep.certified and ep.complete and ep.separable
    assert ep.C_star == pytest.approx(lim.C_star, rel=1e-9) and ep.C_star < ep.breakpoints[-1]
    w, b = ep.coefficients(ep.C_star * (1 + 1e-6))
    np.testing.assert_allclose(w, lim.w, atol=1e-9)
    assert ep.solution_at(ep.C_star).certificate.ok


def test_a_breakpoint_nothing_settles_ends_the_path_with_the_reason():
    """A feature 1e6 times the others: the path stops where nothing settles a breakpoint.

    Certified up to there, ``end_reason="unsettled"`` and a report line that says what
    gets further (it used to stop at C ~ 1e-7 with "precision", or raise SolverError).
    """
    ds = make_gaussians(200, 4, seed=2)
    X = ds.X.copy()
    X[:, 0] *= 1e6
    ep = regularization_path(Dataset(X, ds.y), exact=True)
    assert ep.end_reason == "unsettled" and ep.certified and not ep.complete
    assert 1e-5 < ep.C_end < 1e-2 and ep.C_star == math.inf and not ep.separable
    assert "standardising" in markdown(ep)
    assert ep.solution_at(ep.C_end).certificate.ok
