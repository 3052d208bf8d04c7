"""The solvers room (maxmargin.solvers), each backend called bare.

The registry, the route rule, each backend's solve_qp and RawResult. The solves end to end are
in test_exact.py, test_ipm.py and test_dcd.py; here each backend is called bare, as solve()
calls it.
"""

import importlib.util
import inspect

import numpy as np
import pytest

from maxmargin import Dataset, ParameterError, SolverError, SVMProblem, make_gaussians, solve
from maxmargin.certificate import certify
from maxmargin.solvers import (
    BACKENDS,
    FORMS,
    Route,
    available_solvers,
    choose_route,
    dcd,
    hard_margin_retries,
    piqp,
    via_cvxpy,
)
from maxmargin.solvers.qp import (
    QPTask,
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
    assert BACKENDS["DCD"].resumes and not BACKENDS["IPM"].resumes
    assert BACKENDS["DCD"].unpolished == {"eps": dcd.EPS_UNPOLISHED}  # no polish: solve on
    assert all(not b.unpolished for name, b in BACKENDS.items() if name != "DCD")
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


_MODULES = {**{name: b.module for name, b in BACKENDS.items()}, "cvxpy": via_cvxpy}


@pytest.mark.parametrize("name", sorted(_MODULES))
def test_every_backend_module_solves_a_task_with_its_own_keywords(name):
    """One signature for every backend: ``solve_qp(task, *, <its own settings>)``."""
    params = list(inspect.signature(_MODULES[name].solve_qp).parameters.values())
    assert params[0].name == "task" and params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    kinds = {p.kind for p in params[1:]}
    assert kinds <= {inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD}
    assert inspect.signature(_MODULES[name].solve_qp).return_annotation == "RawResult"


@pytest.mark.parametrize("name", sorted(_MODULES))
def test_each_installed_backend_solves_a_tiny_problem_through_its_module(name):
    """x = -1, 1, 3 (y = -1, 1, 1), C = 10: by hand w = 1, b = 0, alpha = (1/2, 1/2, 0).

    The margin is 1 on the first two (w + b = 1, w - b = 1), the third is outside it, and
    ``w = sum alpha_i y_i x_i = alpha_1 + alpha_2``, ``y^T alpha = 0``.
    """
    backend = BACKENDS.get(name)
    if importlib.util.find_spec("cvxpy" if backend is None else backend.package) is None:
        pytest.skip(f"{name} is not installed")
    p = SVMProblem(Dataset(np.array([[-1.0], [1.0], [3.0]]), np.array([-1.0, 1.0, 1.0])), C=10.0)
    settings = {"solver": "CLARABEL"} if backend is None else {}
    forms = FORMS if backend is None else backend.forms
    for form in forms:
        YZ = signed_rows(p) if backend is None or backend.signed_rows else None
        raw = _MODULES[name].solve_qp(QPTask(p, form, YZ), **settings)
        assert raw.status is Status.OPTIMAL, raw.describe()
        if form == "dual":
            alpha = raw.x[: p.n]
            w, b = weights_from_alpha(p, YZ, alpha, raw.y_eq[-1])
        else:
            (w, b), alpha = primal_point(p, raw.x), raw.z_ineq
        assert np.allclose(alpha, [0.5, 0.5, 0.0], atol=1e-6), (form, alpha)
        assert np.allclose(w, [1.0], atol=1e-6) and abs(b) < 1e-6, (form, w, b)


def test_a_task_refuses_what_its_backend_does_not_solve(soft):
    YZ = signed_rows(soft)
    rows = np.arange(5)
    with pytest.raises(ValueError, match="dual form only"):
        QPTask(soft, "primal", YZ, rows=rows)
    with pytest.raises(ValueError, match="not a working set"):
        BACKENDS["IPM"].module.solve_qp(QPTask(soft, "dual", YZ, rows=rows))
    with pytest.raises(ValueError, match="dual form, not primal"):
        BACKENDS["DCD"].module.solve_qp(QPTask(soft, "primal"))
    task = QPTask(soft, "dual", YZ)
    assert task.qp is task.qp  # built once


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
    r = piqp.solve_qp(QPTask(soft, "dual", YZ, rows=rows, at_bound=at_bound))
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
