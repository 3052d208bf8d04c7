"""Tests of maxmargin.evaluation.path.grid: the C path on a grid, its theorems, grids, reports."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from maxmargin import Dataset, ParameterError, SVMProblem, make_gaussians, make_separable
from maxmargin.evaluation.path import regularization_path
from maxmargin.evaluation.path.grids import GridWarning, parse_grid
from maxmargin.exact import solve
from maxmargin.report import write_report
from maxmargin.report.path import markdown


@pytest.mark.parametrize("intercept", ["free", "none", "augmented"])
def test_each_point_equals_a_fresh_solve(intercept):
    ds = make_gaussians(80, 3, seed=4)
    p = regularization_path(ds, C="1e-2:1e2:5", intercept=intercept, hard_limit=False)
    assert p.certified
    assert "warm" in p.method  # the warm start did its job on at least one point
    for i, C in enumerate(p.C):
        sol = solve(SVMProblem(ds, C=float(C), intercept=intercept))
        assert abs(p.primal[i] - sol.primal_objective) <= 1e-9 * abs(sol.primal_objective)
        assert np.allclose(p.w[i], sol.w, rtol=1e-6, atol=1e-7)
        # the stored numbers are the certificate's, recomputed from (w, b, alpha)
        pr = SVMProblem(ds, C=float(C), intercept=intercept)
        assert math.isclose(p.primal[i], float(pr.primal_objective(p.w[i], p.b[i])), rel_tol=1e-12)
        assert math.isclose(
            p.slack_sum[i], float(pr.hinge(p.w[i], p.b[i]).sum()), rel_tol=1e-9, abs_tol=1e-12
        )


def test_warm_and_cold_paths_agree():
    ds = make_gaussians(120, 4, seed=1)
    warm = regularization_path(ds, C="1e-3:1e3:7", hard_limit=False)
    cold = regularization_path(ds, C="1e-3:1e3:7", hard_limit=False, warm_start=False)
    assert set(cold.method) == {"qp"}
    np.testing.assert_allclose(warm.primal, cold.primal, rtol=1e-9)


def test_report_names_the_route():
    """Each point's method says what solved it, and the report names that route."""
    ds = make_gaussians(40, 2, seed=0)
    p = regularization_path(ds, C="1e-2:1e2:4", hard_limit=False)
    md = markdown(p)
    assert p.method[0] == "qp" and set(p.method[1:]) == {"warm"}  # the first point: a solve
    assert p.solver in ("IPM", "PIQP") and "DPP" not in md
    assert f"1 solved by {p.solver} (maxmargin.solve's route)" in md
    assert "3 warm-started on a working set" in md
    q = regularization_path(ds, C="1e-2:1e2:4", solver="clarabel", warm_start=False)
    assert set(q.method) == {"dpp"} and q.solver == "CLARABEL"
    np.testing.assert_allclose(q.primal, p.primal, rtol=1e-9)
    assert "4 by the DPP-compiled cvxpy model (CLARABEL" in markdown(q)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(6, 24),
    d=st.integers(1, 3),
    intercept=st.sampled_from(["free", "none", "augmented"]),
)
@example(seed=851, n=9, d=2, intercept="free")
def test_monotone_norm_and_slack(seed, n, d, intercept):
    """||w~|| non-decreasing and sum xi non-increasing in C (a theorem, docs/path.md)."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[:2] = (1.0, -1.0)
    X = rng.standard_normal((n, d)) + 0.7 * y[:, None]
    p = regularization_path(
        Dataset(X, y), C=np.geomspace(1e-2, 1e2, 7), intercept=intercept, hard_limit=False
    )
    assert p.certified
    # The certificate guarantees w to its tolerance (1e-6, scaled): at a degenerate optimum
    # the polish may not apply (e.g. w* = 0 with every example at the margin or the bound,
    # seed=851, n=9, d=2, free), leaving the interior-point point, accurate to ~2e-7.
    tol_n = 1e-6 * np.maximum(1.0, p.norm_reg[1:])
    assert (np.diff(p.norm_reg) >= -tol_n).all(), p.norm_reg
    tol_s = 1e-6 * np.maximum(1.0, p.slack_sum[:-1])
    assert (np.diff(p.slack_sum) <= tol_s).all(), p.slack_sum


@pytest.mark.parametrize("intercept", ["free", "none"])
def test_large_C_end_equals_hard_margin(intercept):
    ds = make_separable(40, 3, margin=0.4, seed=3)
    p = regularization_path(ds, C="1e-2:1e3:6", intercept=intercept)
    h = p.hard_margin_limit
    assert h.separable and h.last_equal and h.last_rel_diff < 1e-7
    hard = solve(SVMProblem(ds, hard=True, intercept=intercept))
    np.testing.assert_allclose(p.w[-1], hard.w, rtol=1e-7, atol=1e-9)
    assert math.isclose(h.C_star, float(hard.alpha.max()), rel_tol=1e-6)
    if intercept == "free":  # the generator's known optimum
        np.testing.assert_allclose(h.w, ds.meta["w"], rtol=1e-7, atol=1e-9)


def test_hard_limit_on_non_separable_data():
    p = regularization_path(make_gaussians(60, 2, separation=0.5, seed=0), C="1e-1:1e1:3")
    h = p.hard_margin_limit
    assert h is not None and not h.separable and h.C_star == math.inf
    assert "not separable" in markdown(p)


# ------------------------------------------------------------------ grids, bad input


def test_parse_grid():
    g = parse_grid("1e-3:1e3:25")
    assert g.size == 25 and g[0] == 1e-3 and g[-1] == 1e3
    np.testing.assert_allclose(np.diff(np.log10(g)), 0.25)
    assert parse_grid("0.1, 1,10").tolist() == [0.1, 1.0, 10.0]
    assert parse_grid("2").tolist() == [2.0]
    for bad in ["", "  ", "a:b:c", "1:10:0", "1:10:2.5", "0:10:5", "-1:1:3", "1,,2", "x"]:
        with pytest.raises(ParameterError):
            parse_grid(bad)


@pytest.mark.parametrize(
    ("grid", "says"),
    [
        ("1e-3:1e-1:1", "1-point grid needs lo == hi"),
        ("1e-3:1e-1:0", "number of points must be an int >= 1"),
        ("1:10:2.5", "number of points must be an int >= 1"),
    ],
)
def test_parse_grid_says_what_is_wrong(grid, says):
    with pytest.raises(ParameterError, match=says):
        parse_grid(grid)


@pytest.mark.parametrize("grid", [[], [1.0, 0.0], [1.0, -2.0], [1.0, np.nan], [np.inf], "", "1,-1"])
def test_bad_grids(grid):
    ds = make_gaussians(20, 2, seed=0)
    with pytest.raises(ParameterError):
        regularization_path(ds, C=grid)
    if not isinstance(grid, str):
        with pytest.raises(ParameterError):
            regularization_path(ds, lam=grid)


def test_both_grids_and_bad_holdout():
    ds = make_gaussians(20, 2, seed=0)
    with pytest.raises(ParameterError, match="not both"):
        regularization_path(ds, C=[1.0], lam=[0.1])
    with pytest.raises(ParameterError, match="features"):
        regularization_path(ds, C=[1.0], holdout=make_gaussians(10, 3, seed=1))


def test_unsorted_grid_is_sorted_with_a_warning():
    ds = make_gaussians(30, 2, seed=0)
    with pytest.warns(GridWarning, match="sorted"):
        p = regularization_path(ds, C=[1.0, 0.1, 10.0], hard_limit=False)
    assert p.C.tolist() == [0.1, 1.0, 10.0]
    with pytest.warns(GridWarning, match="duplicates"):
        p = regularization_path(ds, C=[1.0, 0.1, 1.0], hard_limit=False)
    assert p.C.tolist() == [0.1, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = regularization_path(
            ds, C=[10.0, 1.0], hard_limit=False
        )  # decreasing: reversed silently
        q = regularization_path(
            ds, lam=[1e-3, 1e-2], hard_limit=False
        )  # increasing lam = decreasing C
    assert p.C.tolist() == [1.0, 10.0]
    np.testing.assert_allclose(q.lam, [1e-2, 1e-3])
    np.testing.assert_allclose(q.C, 1.0 / (q.lam * ds.n))


# ------------------------------------------------------------------ outputs


def test_report_files_json_and_holdout(tmp_path):
    ds = make_gaussians(80, 3, seed=0)
    train, test = ds.split(0.25, seed=0)
    p = regularization_path(train, C="1e-2:1e2:4", holdout=test)
    assert np.isfinite(p.holdout_error).all()
    files = write_report(p, tmp_path, formats=("png", "svg"))
    names = {f.name for f in files}
    assert {
        "report.md",
        "report.json",
        "path_width.png",
        "path_width.svg",
        "path_support_vectors.png",
        "path_errors.svg",
        "path_coefficients.png",
    } <= names
    d = json.loads((tmp_path / "report.json").read_text())
    assert d["C"] == pytest.approx(p.C.tolist()) and len(d["w"]) == 4
    assert d["certified"] is True
    md = (tmp_path / "report.md").read_text()
    assert "held" in md or "holdout" in md
    assert "| C | lambda |" in md


def test_every_warm_point_is_as_exact_as_a_fresh_solve():
    # heart_scale at tiny C: a working-set point certified with a tiny residual had the
    # wrong support sets (112 margin / 158 bound SVs at C = 1e-8 instead of 3 / 238)
    import maxmargin as mm
    from maxmargin import SVMProblem
    from maxmargin.exact import solve

    ds = mm.load(str(mm.data.sources._PACKAGE_DATA / "heart_scale"))
    p = regularization_path(ds, C="1e-9:1e-3:7")
    for i, C in enumerate(p.C):
        sol = solve(SVMProblem(ds, C=float(C)))
        nm, nb = (
            int(((sol.alpha > 1e-8 * C) & (sol.alpha < C - 1e-8 * C)).sum()),
            int((sol.alpha >= C - 1e-8 * C).sum()),
        )
        assert (p.n_margin_sv[i], p.n_bound_sv[i]) == (nm, nb), (C, p.method[i])
        assert np.abs(p.w[i] - sol.w).max() <= 1e-9 * np.abs(sol.w).max(), C


def test_integer_weights_equal_repeated_rows_along_the_path():
    # every point polished: the weighted and the repeated-rows paths agree to rounding
    from maxmargin import Dataset, make_gaussians

    ds = make_gaussians(40, 3, seed=2)
    k = np.random.default_rng(0).integers(1, 4, ds.n)
    rep = Dataset(np.repeat(np.asarray(ds.X), k, axis=0), np.repeat(np.asarray(ds.y), k))
    a = regularization_path(ds, C="1e-3:1e2:9", sample_weight=k)
    b = regularization_path(rep, C="1e-3:1e2:9")
    assert np.abs(a.w - b.w).max() <= 1e-12 * np.abs(b.w).max()
    np.testing.assert_allclose(a.b, b.b, rtol=0, atol=1e-12 * max(1.0, np.abs(b.b).max()))


def test_the_report_text_lives_in_report_path(tmp_path):
    # results are numbers: their prose is maxmargin.report.path's, as written to report.md
    from maxmargin import ExactPath, RegularizationPath
    from maxmargin.evaluation.path.learners import LearnerPathStudy

    for cls in (RegularizationPath, ExactPath, LearnerPathStudy):
        assert not hasattr(cls, "to_markdown"), cls.__name__
    p = regularization_path(make_separable(20, 2, seed=0), C=[0.1, 10.0])
    write_report(p, tmp_path, figures=False)
    assert (tmp_path / "report.md").read_text().startswith(markdown(p))
    with pytest.raises(ParameterError, match="markdown needs a RegularizationPath.*got str"):
        markdown("report")
