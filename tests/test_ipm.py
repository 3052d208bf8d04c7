"""maxmargin's own dual interior-point method (maxmargin.solvers.ipm) and its wiring in solve.

References: PIQP and Clarabel on the same QP (independent implementations), the
certificate recomputed in numpy, and hand-solved two-point problems.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxmargin import (
    Dataset,
    NotSeparableError,
    ParameterError,
    SVMProblem,
    load,
    make_gaussians,
    make_separable,
)
from maxmargin.certificate import certify
from maxmargin.exact import solve
from maxmargin.separation import is_separable, verify_separation
from maxmargin.solvers import available_solvers
from maxmargin.solvers.ipm import solve_dual, suitable
from maxmargin.solvers.qp import signed_rows, weights_from_alpha

INTERCEPTS = ("free", "none", "augmented")


def _raw_ipm(problem):
    """The bare IPM point (no polish), certified by numpy."""
    YZ = signed_rows(problem)
    r = solve_dual(YZ, problem.data.y, problem.C, problem.intercept == "free")
    alpha = np.clip(r.alpha, 0.0, problem.C)
    w, b = weights_from_alpha(problem, YZ, alpha, r.nu)
    return r, certify(problem, w, b, alpha)


@pytest.mark.parametrize("intercept", INTERCEPTS)
@pytest.mark.parametrize("C", [0.05, 1.0, 50.0])
def test_matches_piqp_and_clarabel(intercept, C):
    p = SVMProblem(make_gaussians(300, 6, seed=1, separation=1.0), C=C, intercept=intercept)
    r, cert = _raw_ipm(p)
    assert r.state == "optimal"
    # the bare IPM point alone is certified to 1e-9 (before any polish)
    assert cert.max_residual() <= 1e-9
    ref = [solve(p, solver=s, polish=False).primal_objective for s in ("PIQP", "CLARABEL")]
    for P in ref:
        assert cert.primal_objective == pytest.approx(P, rel=1e-9)
    sol = solve(p, solver="IPM")
    assert sol.solver == "IPM" and sol.certificate.ok
    assert sol.primal_objective == pytest.approx(solve(p, solver="PIQP").primal_objective, rel=1e-9)


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_hard_margin_matches_the_generator(intercept):
    ds = make_separable(150, 3, margin=0.3, seed=2)
    p = SVMProblem(ds, hard=True, intercept=intercept)
    r, cert = _raw_ipm(p)
    assert r.state == "optimal" and cert.max_residual() <= 1e-9
    ref = solve(p, solver="CLARABEL").primal_objective
    assert cert.primal_objective == pytest.approx(ref, rel=1e-9)
    if intercept == "free":  # the generator's prescribed margin
        assert solve(p, solver="IPM").margin == pytest.approx(0.3, rel=1e-8)


def test_two_points_hand_solved():
    # x = +-1: w = 1, b = 0, alpha = (1/2, 1/2); with b free, also alpha_1 = alpha_2.
    r = solve_dual(np.array([[1.0], [1.0]]), np.array([1.0, -1.0]), math.inf, True)
    assert r.state == "optimal"
    np.testing.assert_allclose(r.alpha, [0.5, 0.5], atol=1e-9)
    # C = 0.25 < 1/2: both at the bound, w = 2C = 0.5.
    r = solve_dual(np.array([[1.0], [1.0]]), np.array([1.0, -1.0]), 0.25, True)
    np.testing.assert_allclose(r.alpha, [0.25, 0.25], atol=1e-9)


def test_default_is_the_ipm_where_it_applies():
    assert available_solvers()[0] == "IPM"
    p = SVMProblem(make_gaussians(3000, 8, seed=0), C=1.0)
    assert solve(p).solver == "IPM"
    assert solve(p, form="primal").solver == "PIQP"  # the IPM is dual-only
    with pytest.raises(ParameterError, match="dual form only"):
        solve(p, solver="IPM", form="primal")
    # tiny problems: PIQP is a few ms faster
    assert solve(SVMProblem(make_gaussians(200, 4, seed=0), C=1.0)).solver == "PIQP"
    assert suitable(10_000, 50, False) and not suitable(100_000, 5000, True)
    assert suitable(1000, 20_000, False) and not suitable(5000, 20_000, False)


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_not_separable_raises_with_verified_certificate(intercept):
    ds = make_gaussians(80, 2, seed=0, separation=0.5)
    with pytest.raises(NotSeparableError) as ei:
        solve(SVMProblem(ds, hard=True, intercept=intercept), solver="IPM")
    cert = ei.value.certificate
    assert cert.verified
    assert verify_separation(ds, cert.z, intercept).verified
    p = SVMProblem(ds, hard=True, intercept=intercept)
    r = solve_dual(signed_rows(p), ds.y, p.C, intercept == "free")
    assert r.state == "unbounded"


def test_tiny_margin_falls_back_or_solves():
    # gamma = 1e-4: ||w*|| = 1e4; whichever solver ends up answering, it is certified.
    ds = make_separable(200, 3, margin=1e-4, seed=0)
    for solver in ("IPM", None):
        sol = solve(SVMProblem(ds, hard=True), solver=solver)
        assert sol.margin == pytest.approx(1e-4, rel=1e-7) and sol.certificate.ok


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_d_greater_than_n_dense_q(intercept):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((15, 80))
    y = np.where(rng.random(15) < 0.5, -1.0, 1.0)
    y[:2] = [1, -1]
    for kw in ({"C": 1.0}, {"hard": True}):
        p = SVMProblem(Dataset(X, y), intercept=intercept, **kw)
        r, cert = _raw_ipm(p)  # d' > n: Q (n x n) is factored directly
        assert r.state == "optimal" and cert.max_residual() <= 1e-9
        sol = solve(p, solver="IPM")
        assert sol.solver == "IPM" and sol.certificate.ok
        ref = solve(p, solver="PIQP").primal_objective
        assert sol.primal_objective == pytest.approx(ref, rel=1e-9)
    r = solve_dual(signed_rows(p), y, math.inf, intercept == "free", linsolve="woodbury")
    assert r.state == "optimal"  # Woodbury also works there, only not cheaper


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_sparse_input(intercept):
    hs = load("builtin:heart_scale")
    assert sp.issparse(hs.X)
    p = SVMProblem(hs, C=1.0, intercept=intercept)
    r, cert = _raw_ipm(p)
    assert r.state == "optimal" and cert.max_residual() <= 1e-9
    sol = solve(p, solver="IPM")
    assert sol.solver == "IPM" and sol.certificate.ok
    dense = SVMProblem(Dataset(hs.dense(), hs.y), C=1.0, intercept=intercept)
    assert sol.primal_objective == pytest.approx(
        solve(dense, solver="PIQP").primal_objective, rel=1e-9
    )


def test_all_zero_features_and_degenerate():
    y = np.array([1.0, 1.0, -1.0, -1.0, -1.0])
    p = SVMProblem(Dataset(np.zeros((5, 3)), y), C=2.0)
    sol = solve(p, solver="IPM")  # w = 0; b and alpha from the LP-like dual
    assert sol.certificate.ok and np.allclose(sol.w, 0.0)
    # duplicated points (same label) and a single feature
    X = np.array([[1.0], [1.0], [1.0], [-1.0], [-2.0]])
    sol = solve(SVMProblem(Dataset(X, [1, 1, 1, -1, -1]), hard=True), solver="IPM")
    assert sol.solver == "IPM" and sol.certificate.ok and sol.margin == pytest.approx(1.0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 40),
    d=st.integers(1, 8),
    seed=st.integers(0, 10_000),
    logC=st.one_of(st.none(), st.floats(-2, 2)),
    intercept=st.sampled_from(INTERCEPTS),
    scale=st.sampled_from([1e-2, 1.0, 30.0]),
)
def test_certified_on_random_data(n, d, seed, logC, intercept, scale):
    # logC None: hard margin (certified optimum if separable, else a verified certificate)
    rng = np.random.default_rng(seed)
    X = scale * rng.standard_normal((n, d))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[-1] = 1.0, -1.0
    kw = {"hard": True} if logC is None else {"C": 10.0**logC}
    p = SVMProblem(Dataset(X, y), intercept=intercept, **kw)
    try:
        sol = solve(p, solver="IPM")
    except NotSeparableError as e:
        assert logC is not None or e.certificate.verified
        assert logC is None and not is_separable(p)
        return
    assert sol.certificate.ok, sol.certificate.worst()
    ref = solve(p, solver="PIQP")
    assert sol.primal_objective == pytest.approx(ref.primal_objective, rel=1e-8, abs=1e-10)


def test_polish_refines_the_margin_conditions_with_many_bound_svs():
    # 17255 of 20000 points at the bound: the reduced KKT's right-hand side 1 - G w_B
    # cancels to ~1e-16 |G w_B| (6.5e-13 residual unrefined); one refinement step on the
    # margin conditions brings the certificate to rounding level.
    p = SVMProblem(make_gaussians(20000, 3, seed=1, separation=0.5), C=1.0)
    sol = solve(p)
    assert sol.solver == "IPM" and sol.polished and sol.bound_support.size > 15000
    assert sol.certificate.max_residual() <= 1e-13
    assert sol.margin_support.size <= 4 and not np.isin(sol.margin_support, sol.bound_support).any()
