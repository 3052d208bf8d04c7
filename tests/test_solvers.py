"""The solvers room (maxmargin.solvers), each backend called bare.

The registry, the route rule, each backend's solve_qp and RawResult. The solves end to end are
in test_exact.py, test_ipm.py and test_dcd.py; here each backend is called bare, as solve()
calls it.
"""

import numpy as np
import pytest

from maxmargin import ParameterError, SolverError, SVMProblem, make_gaussians, solve
from maxmargin.certificate import certify
from maxmargin.solvers import (
    BACKENDS,
    FORMS,
    Route,
    available_solvers,
    choose_route,
    hard_margin_retries,
    piqp,
)
from maxmargin.solvers.qp import (
    build_dual,
    build_primal,
    primal_point,
    signed_rows,
    weights_from_alpha,
)
from maxmargin.solvers.result import RawResult, Status


@pytest.fixture(scope="module")
def soft(gauss):
    return SVMProblem(gauss, C=2.0)


def test_registry_lists_each_backend_once_with_its_forms():
    assert set(BACKENDS) == {"IPM", "DCD", "PIQP", "CLARABEL"}
    assert BACKENDS["IPM"].forms == BACKENDS["DCD"].forms == ("dual",)
    assert BACKENDS["PIQP"].forms == BACKENDS["CLARABEL"].forms == FORMS
    assert not BACKENDS["DCD"].signed_rows and BACKENDS["DCD"].exact_bounds
    assert BACKENDS["DCD"].resume is not None and BACKENDS["IPM"].resume is None
    assert all(b.installed() for b in BACKENDS.values())  # the test extra has them all
    assert available_solvers()[:4] == ["IPM", "DCD", "PIQP", "CLARABEL"]


@pytest.mark.parametrize("name", ["IPM", "DCD", "PIQP", "CLARABEL"])
@pytest.mark.parametrize("intercept", ["free", "none", "augmented"])
def test_each_backend_bare_reaches_the_optimum(soft, name, intercept):
    p = SVMProblem(soft.data, C=soft.C, intercept=intercept)
    route = Route(name, "direct", "dual")
    YZ = signed_rows(p) if route.needs_signed_rows else None
    raw = route.run(p, YZ, polish=False)
    assert isinstance(raw, RawResult) and raw.status is Status.OPTIMAL and raw.has_point
    b = raw.y_eq[-1] if intercept == "free" else None
    w, b = weights_from_alpha(p, YZ, np.clip(raw.x[: p.n], 0, p.C), b)
    ref = solve(p)
    assert np.allclose(w, ref.w, atol=1e-6) and abs(b - ref.b) < 1e-6


@pytest.mark.parametrize("intercept", ["free", "none", "augmented"])
def test_primal_qp_maps_back_to_the_same_optimum(soft, intercept):
    p = SVMProblem(soft.data, C=soft.C, intercept=intercept)
    YZ = signed_rows(p)
    raw = Route("PIQP", "direct", "primal").run(p, YZ, polish=False)
    w, b = primal_point(p, raw.x)
    alpha = np.clip(raw.z_ineq, 0, p.C)
    assert certify(p, w, b, alpha, tol=1e-6).ok


def test_dual_qp_on_a_working_set_fixes_the_rest(soft):
    """build_dual(rows, at_bound) is the full dual with alpha fixed at C or 0.

    Fixed at C on at_bound and at 0 elsewhere: on the optimum's own sets it returns the
    optimum.
    """
    sol = solve(soft)
    at_bound = sol.bound_support
    rows = np.setdiff1d(np.arange(soft.n), at_bound)
    YZ = signed_rows(soft)
    full, sub = build_dual(soft, YZ), build_dual(soft, YZ, rows=rows, at_bound=at_bound)
    assert full.P.shape[0] == soft.n + soft.d and sub.P.shape[0] == rows.size + soft.d
    r = piqp.solve_qp(sub)
    assert r.status is Status.OPTIMAL
    alpha = np.zeros(soft.n)
    alpha[at_bound] = soft.C
    alpha[rows] = r.x[: rows.size]
    assert np.allclose(alpha, sol.alpha, atol=1e-6)
    assert build_primal(soft, YZ).G.shape == (soft.n, soft.d + 1 + soft.n)


def test_choose_route_is_the_measured_rule(heart):
    small = SVMProblem(heart, C=1.0)
    assert choose_route(small) == Route("PIQP", "direct", "dual")  # tiny: PIQP
    big = choose_route(SVMProblem(make_gaussians(10000, 50), C=1.0))
    assert big.solver == "IPM" and big.fallbacks == ("PIQP", "CLARABEL")
    assert choose_route(small, "primal").solver == "PIQP"
    assert choose_route(small, solver="clarabel") == Route("CLARABEL", "direct", "dual")
    assert choose_route(small, solver="CLARABEL", interface="cvxpy").interface == "cvxpy"
    with pytest.raises(ParameterError, match="dual form only"):
        choose_route(small, "primal", solver="IPM")
    with pytest.raises(ParameterError, match="unknown solver"):
        choose_route(small, solver="NOPE")
    with pytest.raises(ParameterError, match="no direct interface"):
        choose_route(small, solver="SCS", interface="direct")
    if "GUROBI" not in available_solvers():
        with pytest.raises(SolverError, match="not installed"):
            choose_route(small, solver="GUROBI")


def test_hard_margin_retries_other_form_first_never_a_dual_only_primal():
    retries = hard_margin_retries(Route("PIQP", "direct", "dual"))
    assert retries[0] == Route("PIQP", "direct", "primal")
    assert Route("PIQP", "direct", "dual") not in retries
    assert all(r.form in r.backend.forms for r in retries if r.backend is not None)
    assert {r.solver for r in retries} >= {"IPM", "DCD", "CLARABEL"}
    via_cvxpy = hard_margin_retries(Route("ECOS", "cvxpy", "dual"))
    assert via_cvxpy[0] == Route("ECOS", "cvxpy", "primal")


def test_status_says_what_solve_may_do_with_it():
    assert {s for s in Status if s.has_point} == {Status.OPTIMAL, Status.INACCURATE}
    assert {s for s in Status if s.says_infeasible} == {
        Status.INFEASIBLE,
        Status.INFEASIBLE_INACCURATE,
        Status.UNBOUNDED,
        Status.FAILED,
    }
    assert not RawResult(Status.OPTIMAL, "solved").has_point  # no x
    assert RawResult(Status.INACCURATE, "max iter").describe() == "inaccurate (max iter)"
    assert (
        RawResult(Status.OPTIMAL, "optimal (12 iterations)").describe() == "optimal (12 iterations)"
    )
