"""The DCD route (dual coordinate descent, maxmargin.solvers.dcd) and its wiring in solve.

References: PIQP on the same problem (an independent interior-point solver), the
certificate recomputed in numpy, hand-solved small problems, and the separation LP.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from maxmargin import (
    Dataset,
    NotSeparableError,
    ParameterError,
    SolverError,
    SVMProblem,
    load,
    make_gaussians,
    make_separable,
)
from maxmargin.certificate import certify
from maxmargin.exact import solve
from maxmargin.separation import is_separable
from maxmargin.solvers import available_solvers, choose_route
from maxmargin.solvers.dcd import coordinate_descent
from maxmargin.solvers.polish import reduced_kkt

INTERCEPTS = ("free", "none", "augmented")


def zipf_sparse(n, d, per_row, seed=0, flip=0.05):
    """Small text-like data: Zipf-distributed features, unit rows (as in bench/exact.py)."""
    rng = np.random.default_rng(seed)
    cdf = np.cumsum(1.0 / np.arange(1, d + 1))
    cols = np.minimum(np.searchsorted(cdf / cdf[-1], rng.random((n, per_row))), d - 1)
    cols.sort(axis=1)
    keep = np.ones(cols.shape, bool)
    keep[:, 1:] = cols[:, 1:] != cols[:, :-1]  # duplicates drawn in a row: kept once
    indptr = np.concatenate([[0], np.cumsum(keep.sum(axis=1))])
    vals = rng.exponential(1.0, indptr[-1]) + 0.1
    X = sp.csr_matrix((vals, cols[keep], indptr), shape=(n, d))
    X = sp.csr_matrix(sp.diags(1.0 / np.sqrt(X.multiply(X).sum(axis=1).A1)) @ X)
    f = X @ rng.standard_normal(d)
    y = np.where(f > np.median(f), 1.0, -1.0)
    flipped = rng.random(n) < flip
    y[flipped] = -y[flipped]
    return Dataset(X, y, name=f"zipf({n}x{d})")


def assert_same_optimum(sol, ref, rel=1e-9):
    assert sol.certificate.ok and ref.certificate.ok
    assert sol.primal_objective == pytest.approx(ref.primal_objective, rel=rel)
    np.testing.assert_array_equal(sol.support, ref.support)
    np.testing.assert_array_equal(sol.margin_support, ref.margin_support)
    np.testing.assert_array_equal(sol.bound_support, ref.bound_support)


# ----------------------------------------------------------------------------- hand-solved


def test_two_points_hand_solved():
    # x = +-1: hard margin w = 1, b = 0 and sum alpha = ||w||^2 = 1; the equality of the
    # free intercept splits it (1/2, 1/2) (without it y_i x_i = 1 twice: any split).
    ds = Dataset([[1.0], [-1.0]], [1, -1])
    for intercept in INTERCEPTS:
        sol = solve(SVMProblem(ds, hard=True, intercept=intercept), solver="DCD")
        assert sol.solver == "DCD" and sol.certificate.ok
        if intercept != "augmented":
            np.testing.assert_allclose(sol.w, [1.0], atol=1e-12)
            assert sol.alpha.sum() == pytest.approx(1.0, abs=1e-12) and abs(sol.b) <= 1e-12
        if intercept == "free":
            np.testing.assert_allclose(sol.alpha, [0.5, 0.5], atol=1e-12)
        if intercept == "augmented":
            # z = (+-1, 1): w~ = (1, 0), margin SVs both, alpha = (1/2, 1/2)
            np.testing.assert_allclose(sol.w, [1.0], atol=1e-12)
            np.testing.assert_allclose(sol.alpha, [0.5, 0.5], atol=1e-12)
    # C <= 1/2: both at the bound, alpha = C, w = 2C, b = 0 (free, by symmetry).
    sol = solve(SVMProblem(ds, C=0.2), solver="DCD")
    np.testing.assert_allclose(sol.alpha, [0.2, 0.2], atol=1e-12)
    np.testing.assert_allclose(sol.w, [0.4], atol=1e-12)
    assert sol.bound_support.tolist() == [0, 1]


def test_three_points_free_intercept_hand_solved():
    # x = 0 (y = -1), 2 and 3 (y = +1): the margin is [0, 2], so w = 1, b = -1;
    # alpha_3 = 0, and y^T alpha = 0 with w = 2 alpha_2 gives alpha_0 = alpha_2 = 1/2.
    ds = Dataset([[0.0], [2.0], [3.0]], [-1, 1, 1])
    r = coordinate_descent(ds.X, ds.y, math.inf, "free", eps=1e-13)
    assert r.state == "optimal"
    np.testing.assert_allclose(r.alpha, [0.5, 0.5, 0.0], atol=1e-9)
    assert r.b == pytest.approx(-1.0, abs=1e-9)
    sol = solve(SVMProblem(ds, hard=True), solver="DCD")
    np.testing.assert_allclose(sol.alpha, [0.5, 0.5, 0.0], atol=1e-12)
    assert sol.w[0] == pytest.approx(1.0, abs=1e-12) and sol.b == pytest.approx(-1.0, abs=1e-12)
    assert sol.margin_support.tolist() == [0, 1]


def test_all_zero_features():
    # w = 0; P(0, b) = C [3 max(0, 1 - b) + 2 max(0, 1 + b)] is smallest at b = 1, P = 4C
    # (test_exact's hand derivation). Every row is zero: only the intercept sees them,
    # and every projected gradient is equal (not 0) on the way: the stopping test must
    # not take that for convergence.
    X = np.zeros((5, 3))
    y = np.array([1, 1, 1, -1, -1])
    sol = solve(SVMProblem(Dataset(X, y), C=1.0), solver="DCD")
    np.testing.assert_allclose(sol.w, 0.0, atol=1e-12)
    assert sol.b == pytest.approx(1.0, abs=1e-9) and sol.primal_objective == pytest.approx(4.0)
    for intercept in INTERCEPTS:
        with pytest.raises(NotSeparableError):
            solve(SVMProblem(Dataset(X, y), hard=True, intercept=intercept), solver="DCD")
        p = SVMProblem(Dataset(X, y), C=1e3, intercept=intercept)
        sol = solve(p, solver="DCD")
        assert sol.certificate.ok
        assert sol.primal_objective == pytest.approx(solve(p, solver="PIQP").primal_objective)


# ----------------------------------------------------------------------------- agreement


@pytest.mark.parametrize("intercept", INTERCEPTS)
@pytest.mark.parametrize("name", ["gaussians", "heart_scale", "separable", "zipf"])
def test_agrees_with_piqp_soft(name, intercept):
    ds = {
        "gaussians": lambda: make_gaussians(150, 4, seed=7),
        "heart_scale": lambda: load("builtin:heart_scale"),
        "separable": lambda: make_separable(80, 3, margin=0.3, seed=2),
        "zipf": lambda: zipf_sparse(200, 400, 12),
    }[name]()
    p = SVMProblem(ds, C=0.7, intercept=intercept)
    sol = solve(p, solver="DCD")
    assert sol.solver == "DCD" and sol.polished
    assert abs(sol.certificate.relative_gap) <= 1e-10
    assert sol.certificate.max_residual() <= 1e-9
    assert_same_optimum(sol, solve(p, solver="PIQP"))


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_agrees_with_piqp_hard(intercept):
    ds = make_separable(60, 3, margin=0.2, seed=4)
    p = SVMProblem(ds, hard=True, intercept=intercept)
    sol = solve(p, solver="DCD")
    assert sol.certificate.max_residual() <= 1e-9
    assert_same_optimum(sol, solve(p, solver="PIQP"))
    # hard margin on sparse d > n data: separable, every iterate check proves it
    ds = zipf_sparse(60, 300, 10, seed=3, flip=0.0)
    p = SVMProblem(ds, hard=True, intercept=intercept)
    assert_same_optimum(solve(p, solver="DCD"), solve(p, solver="PIQP"))


def test_sparse_equals_dense():
    ds = zipf_sparse(150, 300, 10, seed=5)
    dense = Dataset(ds.dense(), ds.y)
    for intercept in INTERCEPTS:
        a = solve(SVMProblem(ds, C=2.0, intercept=intercept), solver="DCD")
        b = solve(SVMProblem(dense, C=2.0, intercept=intercept), solver="DCD")
        np.testing.assert_allclose(a.w, b.w, atol=1e-10)
        assert a.b == pytest.approx(b.b, abs=1e-10)
        np.testing.assert_allclose(a.alpha, b.alpha, atol=1e-10)
        # the bare sweeps too: same visiting order, same arithmetic up to rounding
        ra = coordinate_descent(ds.X, ds.y, 2.0, intercept, eps=1e-10)
        rb = coordinate_descent(dense.X, ds.y, 2.0, intercept, eps=1e-10)
        np.testing.assert_allclose(ra.alpha, rb.alpha, atol=1e-7)


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_hard_margin_not_separable_gives_the_separation_certificate(intercept):
    ds = zipf_sparse(120, 30, 6, seed=1, flip=0.3)
    with pytest.raises(NotSeparableError) as ei:
        solve(SVMProblem(ds, hard=True, intercept=intercept), solver="DCD")
    cert = ei.value.certificate
    assert cert.verified
    z = cert.z
    assert (z >= 0).all() and z.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.linalg.norm(ds.X.T @ (z * ds.y)) <= 1e-10 * max(1.0, ds.R)
    if intercept != "none":
        assert z @ ds.y == pytest.approx(0.0, abs=1e-12)


def test_bare_sweeps_report_states():
    ds = make_gaussians(60, 2, seed=0)
    r = coordinate_descent(ds.X, ds.y, math.inf, "free", decide_after=20)
    assert r.state == "undecided"  # not separable: the caller's LP decides
    r = coordinate_descent(ds.X, ds.y, 1.0, "free", max_sweeps=2)
    assert r.state == "inaccurate" and "sweep cap" in r.text
    r = coordinate_descent(ds.X, ds.y, 1.0, "free", eps=1e-12)
    assert r.state == "optimal"
    c = certify(SVMProblem(ds, C=1.0), (r.alpha * ds.y) @ ds.X, r.b, r.alpha)
    assert c.max_residual() <= 1e-10
    assert ((r.alpha >= 0) & (r.alpha <= 1.0)).all()
    # a zero row that cannot meet its margin through the origin: alpha = C (soft)
    X = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0]])
    r = coordinate_descent(X, np.array([1.0, 1.0, -1.0]), 0.5, "none", eps=1e-12)
    assert r.alpha[0] == 0.5
    r = coordinate_descent(X, np.array([1.0, 1.0, -1.0]), math.inf, "none", separable=True)
    assert r.state == "unbounded"


# ----------------------------------------------------------------------------- property


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(4, 40),
    d=st.integers(1, 30),
    seed=st.integers(0, 10_000),
    density=st.sampled_from([0.2, 0.6, 1.0]),
    logC=st.floats(-3, 1.5),
    intercept=st.sampled_from(INTERCEPTS),
    scale=st.sampled_from([1e-3, 1.0, 1e3]),
)
# the sweeps reach their cap at 1e-6 with a better point (residual 4e-7 from 4e-5),
# which the refinement used to drop; polished from the 1e-8 sweeps it is exact
@example(n=37, d=9, seed=131, density=1.0, logC=-2.75, intercept="free", scale=1e-3)
@example(n=38, d=9, seed=28, density=1.0, logC=-2.75, intercept="free", scale=1e-3)
def test_property_matches_piqp(n, d, seed, density, logC, intercept, scale):
    # C R^2 in [1e-3, 30] (R = max ||z_i||): (s X, C) is (X, C s^2), and coordinate
    # descent is made for moderate C R^2 (test_stiff_problem_is_certified_or_an_error...)
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=rng, format="csr") * scale
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[-1] = 1.0, -1.0
    # augmented: the bias column scaled with X (s = scale), else it dominates z_i
    kw = {"intercept": intercept, "intercept_scaling": scale}
    R = SVMProblem(Dataset(X, y), **kw).R
    p = SVMProblem(Dataset(X, y), C=10.0**logC / max(R, 1e-300) ** 2, **kw)
    sol = solve(p, solver="DCD")
    assert sol.certificate.ok, sol.certificate.worst()
    ref = solve(p, solver="PIQP")
    assert sol.primal_objective == pytest.approx(ref.primal_objective, rel=1e-8, abs=1e-10)


def test_stiff_problem_is_certified_or_an_error_never_a_wrong_answer():
    # Collinear rows of opposite labels with C ||x||^2 ~ 1e6: each sweep moves alpha by
    # ~1/||x||^2 (liblinear's dual solver has the same limit): the sweep cap is reached
    # and the certificate, not the solver, decides: the polish may still find the
    # optimum ("optimal_inaccurate"), or the route ends in a SolverError.
    X = np.array([[0.0], [144.16], [948.65], [0.0]])
    p = SVMProblem(Dataset(X, [1, -1, 1, -1]), C=1.0)
    ref = solve(p, solver="PIQP")
    try:
        sol = solve(p, solver="DCD", tol=1e-9)
    except SolverError as e:
        assert "sweep cap" in str(e)
    else:
        assert sol.status == "optimal_inaccurate" and sol.certificate.ok
        assert sol.primal_objective == pytest.approx(ref.primal_objective, rel=1e-9)
    with pytest.raises(SolverError, match="sweep cap"):
        solve(p, solver="DCD", polish=False)


@pytest.mark.parametrize("k", [-150, 150])
def test_extreme_scales(k):
    # (s X, C) is (X, C s^2) with w and alpha rescaled: the sweeps work in margin units.
    ds = zipf_sparse(60, 120, 8, seed=2)
    p = SVMProblem(Dataset(ds.X * 10.0**k, ds.y), C=1.0)
    sol = solve(p, solver="DCD")
    assert sol.certificate.ok, sol.certificate.worst()


# ----------------------------------------------------------------------------- polish


def test_iterative_polish_equals_the_direct_solve():
    # The reduced KKT system on one active set, by MINRES (products with the sparse rows
    # only) and by the dense m x m solve, for all three intercepts.
    ds = zipf_sparse(300, 2000, 10, seed=6)
    for intercept in INTERCEPTS:
        p = SVMProblem(ds, C=5.0, intercept=intercept)
        sol = solve(p, solver="PIQP")
        M, B = sol.margin_support, sol.bound_support
        assert M.size > 20
        direct = reduced_kkt(p, None, M, B, 10**6)
        start = (np.zeros(p.n), 0.0)
        iterative = reduced_kkt(p, None, M, B, 0, start)  # threshold 0: always MINRES
        np.testing.assert_allclose(iterative[0], direct[0], atol=1e-9)
        if intercept == "free":
            assert iterative[1] == pytest.approx(direct[1], abs=1e-9)
        np.testing.assert_allclose(direct[0], sol.alpha, atol=1e-8)


def test_large_margin_set_is_polished():
    # d >> n: most points are margin SVs, more than the 3000 the dense polish takes;
    # the polish runs MINRES and still ends at rounding level.
    ds = zipf_sparse(6000, 100000, 8, seed=8, flip=0.0)
    sol = solve(SVMProblem(ds, C=10.0), solver="DCD")
    assert sol.margin_support.size > 3000
    assert sol.polished and sol.certificate.max_residual() <= 1e-10
    assert abs(sol.certificate.relative_gap) <= 1e-12


# ----------------------------------------------------------------------------- wiring


def test_routing_rule_and_names():
    assert "DCD" in available_solvers()
    sparse_wide = SVMProblem(zipf_sparse(50, 2000, 5), C=1.0)
    assert choose_route(sparse_wide).solver == "DCD"
    assert solve(sparse_wide).solver == "DCD"
    gauss = choose_route(SVMProblem(make_gaussians(10000, 50), C=1.0))
    assert (gauss.solver, gauss.fallbacks[:1]) == ("IPM", ("PIQP",))
    assert choose_route(SVMProblem(load("builtin:heart_scale"), C=1.0)).solver == "PIQP"
    assert choose_route(sparse_wide, "primal").solver == "PIQP"
    assert choose_route(sparse_wide, solver="DCD").fallbacks == ()
    assert solve(sparse_wide, solver="dcd").solver == "DCD"  # any case
    with pytest.raises(ParameterError, match="dual form only"):
        solve(sparse_wide, form="primal", solver="DCD")


def test_ipm_refuses_to_densify_and_names_dcd():
    rng = np.random.default_rng(0)
    rows = np.repeat(np.arange(20000), 2)
    X = sp.csr_matrix(
        (rng.random(40000), (rows, rng.integers(0, 100000, 40000))), shape=(20000, 100000)
    )
    y = np.where(rng.random(20000) < 0.5, -1.0, 1.0)
    with pytest.raises(SolverError, match=r"solver='DCD' \(--solver DCD"):
        solve(SVMProblem(Dataset(X, y), C=1.0), solver="IPM")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(4, 30),
    d=st.integers(1, 30),
    seed=st.integers(0, 10_000),
    intercept=st.sampled_from(INTERCEPTS),
    scale=st.sampled_from([1e-3, 1.0, 1e3]),
)
def test_property_hard_margin(n, d, seed, intercept, scale):
    # Certified and equal to PIQP where separable, else the verified separation
    # certificate; never a wrong answer. A tiny margin (alpha ~ 1/margin^2 in the 1e4s)
    # can exhaust the sweeps: then a SolverError that says so.
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.5, random_state=rng, format="csr") * scale
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[-1] = 1.0, -1.0
    p = SVMProblem(Dataset(X, y), hard=True, intercept=intercept, intercept_scaling=scale)
    try:
        sol = solve(p, solver="DCD")
    except NotSeparableError as e:
        assert e.certificate.verified and not is_separable(p)
        return
    except SolverError as e:
        assert "sweep cap" in str(e) and "small hard margin" in str(e)
        assert is_separable(p)
        return
    assert sol.certificate.ok, sol.certificate.worst()
    ref = solve(p, solver="PIQP")
    assert sol.primal_objective == pytest.approx(ref.primal_objective, rel=1e-8)


def _tiny_hard_margin(n=40, d=1200, eps=1e-3):
    """Sparse, wide (d' > 1000: the DCD route), separable only by a tiny margin.

    Pairs of rows that differ by +-eps in the last feature, of opposite labels (alpha ~ 1e4:
    coordinate descent reaches its sweep cap in ~2 s).
    """
    rng = np.random.default_rng(0)
    m = n // 2
    A = sp.random(m, d, density=0.01, random_state=rng, format="csr") + sp.csr_matrix(
        (np.ones(m), (np.arange(m), np.arange(m))), shape=(m, d)
    )
    pert = sp.csr_matrix((np.full(m, eps), (np.arange(m), np.full(m, d - 1))), shape=(m, d))
    X = sp.vstack([A + pert, A - pert]).tocsr()
    return Dataset(X, np.r_[np.ones(m), -np.ones(m)], name="tiny-margin")


def test_default_route_falls_back_to_piqp_where_dcd_stalls():
    p = SVMProblem(_tiny_hard_margin(), hard=True, intercept="augmented")
    assert choose_route(p).solver == "DCD"
    with pytest.raises(SolverError, match=r"sweep cap .*solver='PIQP', --solver PIQP"):
        solve(p, solver="DCD")  # named: no fallback, and the advice is not "the default"
    sol = solve(p)
    assert sol.solver == "PIQP" and sol.status == "optimal" and sol.certificate.ok
