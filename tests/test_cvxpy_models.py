"""The textbook cvxpy models (``SVMProblem.to_cvxpy``) give the certified optimum.

For every case (hard / C / lambda form x intercept free / none / augmented), with Clarabel
and PIQP through cvxpy, both models are solved and compared with ``solve(...)``: primal
objective = dual objective = the certified one (``lam P*`` in the lambda form), the
margin constraints' multipliers = alpha, ``w = sum_i alpha_i y_i x_i``.

Tolerances: both solvers are interior-point methods stopping at a relative gap of about
1e-8; their variables are then accurate to about 1e-6 of their scale (measured: at worst
2e-6, on the lambda form, whose objective is ``C n`` times smaller). So objectives are
compared at ``OBJ_RTOL = 1e-6`` and variables at ``VAR_TOL = 2e-5`` of their scale. alpha
is unique only when the margin points' columns ``(y_i z_i, y_i)`` are independent: it is
compared directly there, and everywhere through the certificate (the model's alpha must
certify the certified ``(w, b)``, which is what "alpha is optimal" means).

The solver-free property (hypothesis, across scales) shows that the models are the very
functions ``SVMProblem`` evaluates in numpy.
"""

from __future__ import annotations

import functools
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from maxmargin import Dataset, SVMProblem, certify, make_gaussians, make_separable, solve
from maxmargin.exceptions import ParameterError

cp = pytest.importorskip("cvxpy")

SOLVERS = [s for s in ("CLARABEL", "PIQP") if s in cp.installed_solvers()]
KINDS = ("hard", "C", "lambda")
INTERCEPTS = ("free", "none", "augmented")
OBJ_RTOL = 1e-6
VAR_TOL = 2e-5


@functools.cache
def _problem(kind: str, intercept: str, sparse: bool = False) -> SVMProblem:
    if kind == "hard":
        # offset 0: separable through the origin, so also for intercept "none"
        ds = make_separable(30, 3, margin=0.3, seed=2, offset=0.0)
    else:
        ds = make_gaussians(40, 3, seed=1)
    if sparse:
        X = ds.dense().copy()
        X[np.abs(X) < 0.5] = 0.0  # a genuinely sparse matrix
        ds = Dataset(sp.csr_matrix(X), ds.y)
    kw = {"hard": True} if kind == "hard" else {"C": 2.0} if kind == "C" else {"lam": 0.05}
    return SVMProblem(ds, intercept=intercept, intercept_scaling=1.5, **kw)


@functools.cache
def _reference(kind: str, intercept: str, sparse: bool = False):
    sol = solve(_problem(kind, intercept, sparse))
    assert sol.certificate.ok
    return sol


def _objective(kind: str) -> str:
    return "lambda" if kind == "lambda" else "C"


def _scale(problem: SVMProblem, kind: str) -> float:
    """The lambda form is the C form times lam: objective, multipliers."""
    return problem.lam if kind == "lambda" else 1.0


def _alpha_unique(problem: SVMProblem, sol) -> bool:
    """Alpha is unique iff the columns (y_i z_i, y_i) of the margin points are independent.

    Off the margin, complementary slackness fixes alpha_i to 0 or C.
    """
    on = np.flatnonzero(np.abs(problem.margins(sol.w, sol.b) - 1) <= 1e-7)
    Z = problem.Z[on]
    Z = Z.toarray() if sp.issparse(Z) else Z
    A = Z * problem.data.y[on, None]
    if problem.intercept == "free":
        A = np.hstack([A, problem.data.y[on, None]])
    return np.linalg.matrix_rank(A) == len(on)


def _check_against_reference(problem, sol, value, w, b, alpha, kind):
    """value, w, b, alpha of a cvxpy model (alpha in C-form units) against ``sol``."""
    P = sol.primal_objective
    ref = _scale(problem, kind) * P
    assert abs(value - ref) <= OBJ_RTOL * max(1.0, abs(ref)), (value, ref)
    wscale = max(1.0, float(np.linalg.norm(sol.w)))
    np.testing.assert_allclose(w, sol.w, rtol=0, atol=VAR_TOL * wscale)
    # b is unique unless the free intercept has no point strictly inside (0, C)
    if problem.intercept != "free" or len(sol.margin_support):
        assert abs(b - sol.b) <= VAR_TOL * max(1.0, abs(sol.b)), (b, sol.b)
    ascale = max(1.0, float(sol.alpha.max()) if problem.hard else problem.C)
    # w = sum_i alpha_i y_i x_i with the model's own alpha (stationarity)
    w_from_alpha, b_from_alpha = problem.weights_from_dual(alpha)
    np.testing.assert_allclose(w_from_alpha, sol.w, rtol=0, atol=VAR_TOL * wscale)
    if b_from_alpha is not None:
        assert abs(b_from_alpha - sol.b) <= VAR_TOL * max(1.0, abs(sol.b))
    # alpha is an optimal dual point: it certifies the certified (w, b) ...
    cert = certify(problem, sol.w, sol.b, np.clip(alpha, 0, problem.C), tol=VAR_TOL)
    assert cert.ok, cert.kkt
    # ... and equals solve's wherever alpha is unique
    if _alpha_unique(problem, sol):
        np.testing.assert_allclose(alpha, sol.alpha, rtol=0, atol=VAR_TOL * ascale)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("intercept", INTERCEPTS)
@pytest.mark.parametrize("kind", KINDS)
def test_primal_model_gives_the_certified_optimum(kind, intercept, solver):
    problem, sol = _problem(kind, intercept), _reference(kind, intercept)
    model = problem.to_cvxpy("primal", objective=_objective(kind))
    assert model.objective.NAME == "minimize"
    expected = {"w", "xi"} | ({"b"} if intercept != "none" else set())
    assert set(model.var_dict) == (expected - {"xi"} if kind == "hard" else expected)
    value = model.solve(solver=solver)
    assert model.status == "optimal"
    v = model.var_dict
    w = v["w"].value
    b = float(v["b"].value) if "b" in v else 0.0
    scale = _scale(problem, kind)
    margin = model.constraints[0]
    assert margin.shape == (problem.n,)  # one vectorised constraint
    alpha = margin.dual_value / scale
    _check_against_reference(problem, sol, value, w, b, alpha, kind)
    if kind != "hard":
        # the multipliers of xi >= 0 are mu = C - alpha (d L / d xi = 0)
        mu = model.constraints[1].dual_value / scale
        np.testing.assert_allclose(
            mu, problem.C - alpha, rtol=0, atol=VAR_TOL * max(1.0, problem.C)
        )
        np.testing.assert_allclose(v["xi"].value, problem.hinge(w, b), rtol=0, atol=VAR_TOL)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("intercept", INTERCEPTS)
@pytest.mark.parametrize("kind", KINDS)
def test_dual_model_gives_the_certified_optimum(kind, intercept, solver):
    problem, sol = _problem(kind, intercept), _reference(kind, intercept)
    model = problem.to_cvxpy("dual", objective=_objective(kind))
    assert model.objective.NAME == "maximize"
    assert set(model.var_dict) == {"alpha"}
    value = model.solve(solver=solver)
    assert model.status == "optimal"
    alpha = model.var_dict["alpha"].value / _scale(problem, kind)
    w, b = problem.weights_from_dual(alpha)
    if intercept == "free":
        # b is the multiplier of sum_i alpha_i y_i = 0, in either form
        b = float(model.constraints[-1].dual_value)
    _check_against_reference(problem, sol, value, w, b, alpha, kind)


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_sparse_data_enter_the_models_sparse(intercept):
    problem, sol = _problem("C", intercept, True), _reference("C", intercept, True)
    assert sp.issparse(problem.data.X)
    for form in ("primal", "dual"):
        model = problem.to_cvxpy(form)
        big = [c.value for c in model.constants() if c.size >= problem.n * problem.d]
        assert big and all(sp.issparse(m) for m in big), [type(m) for m in big]
        value = model.solve(solver=SOLVERS[0])
        assert abs(value - sol.primal_objective) <= OBJ_RTOL * max(1, sol.primal_objective)


def test_degenerate_alpha_is_checked_through_the_certificate():
    # w = (1, 0) and alpha_1 + alpha_2 + alpha_3 = 1: any such split is optimal
    ds = Dataset([[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [2.0, 1.0]], [1, 1, -1, 1])
    problem = SVMProblem(ds, hard=True, intercept="none")
    sol = solve(problem)
    assert not _alpha_unique(problem, sol)
    model = problem.to_cvxpy("primal")
    value = model.solve(solver=SOLVERS[0])
    _check_against_reference(
        problem, sol, value, model.var_dict["w"].value, 0.0, model.constraints[0].dual_value, "hard"
    )


def _random_problem(seed: int, kind: str, intercept: str, x_exp: int, c_exp: int):
    rng = np.random.default_rng(seed)
    n, d = 12, 3
    X = rng.standard_normal((n, d)) * 10.0**x_exp
    y = np.where(rng.standard_normal(n) > 0, 1, -1)
    y[:2] = (1, -1)
    s = 10.0 ** rng.uniform(-2, 2)
    kw = (
        {"hard": True}
        if kind == "hard"
        else {"C": 10.0**c_exp}
        if kind == "C"
        else {"lam": 10.0**c_exp}
    )
    problem = SVMProblem(Dataset(X, y), intercept=intercept, intercept_scaling=s, **kw)
    # a point of the natural size at that scale: f = w.x + b of order one
    w = rng.standard_normal(d) * 10.0**-x_exp
    b = 0.0 if intercept == "none" else float(rng.standard_normal())
    # a dual point of the natural size, balanced (sum_i alpha_i y_i = 0) as at an optimum
    alpha = rng.uniform(0.1, 1, n) * 10.0**-x_exp
    alpha[y > 0] *= alpha[y < 0].sum() / alpha[y > 0].sum()
    return problem, w, b, alpha


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# v = sum alpha_i y_i z_i is rounding noise here (balanced alpha ~ 1e126, s-column)
@example(seed=0, kind="lambda", intercept="augmented", x_exp=-126, c_exp=30)
@given(
    seed=st.integers(0, 2**16),
    kind=st.sampled_from(KINDS),
    intercept=st.sampled_from(INTERCEPTS),
    x_exp=st.integers(-150, 150),
    c_exp=st.integers(-30, 30),
)
def test_models_are_the_problems_own_functions(seed, kind, intercept, x_exp, c_exp):
    """At any (w, b, xi = hinge) and alpha, the models' objectives and constraint are right.

    The objectives are P (or F) and D (or lam D), and the margin constraint is
    y f >= 1 - xi: no solver, every scale.
    """
    problem, w, b, alpha = _random_problem(seed, kind, intercept, x_exp, c_exp)
    objective, scale = _objective(kind), _scale(problem, kind)
    primal = problem.to_cvxpy("primal", objective)
    primal.var_dict["w"].value = w
    if "b" in primal.var_dict:
        primal.var_dict["b"].value = b
    if "xi" in primal.var_dict:
        primal.var_dict["xi"].value = problem.hinge(w, b)
        expected = (
            problem.lambda_objective(w, b) if kind == "lambda" else problem.primal_objective(w, b)
        )
        slack = problem.hinge(w, b)
    else:
        expected = problem.primal_objective(w, b)
        slack = np.zeros(problem.n)
    assert primal.objective.value == pytest.approx(expected, rel=1e-12)
    # the margin constraint is y f >= 1 - xi: its violation is max(0, 1 - y f - xi)
    r = problem.margins(w, b)
    violation = primal.constraints[0].violation()
    np.testing.assert_allclose(
        violation, np.maximum(0, 1 - r - slack), rtol=1e-12, atol=1e-12 * max(1, np.abs(r).max())
    )

    dual = problem.to_cvxpy("dual", objective)
    dual.var_dict["alpha"].value = scale * alpha
    v = problem.dual_weights(alpha)
    D = problem.dual_objective(alpha)
    # D is a difference, and v = sum_i alpha_i y_i z_i may cancel (balanced alpha, the
    # constant column): two summation orders differ by the rounding bound of
    # sum_i alpha_i - 1/2 ||v||^2, with |dv| <= delta = n eps sum_i alpha_i ||z_i||
    znorm = np.sqrt(
        problem.data.row_norms() ** 2
        + (problem.intercept_scaling**2 if intercept == "augmented" else 0)
    )
    eps, n = np.finfo(float).eps, problem.n
    delta = n * eps * float(alpha @ znorm)
    size = 1e4 * (
        n * eps * (alpha.sum() + float(v @ v)) + np.linalg.norm(v) * delta + delta * delta
    )
    assert abs(dual.objective.value - scale * D) <= scale * size


def test_bad_arguments_are_refused():
    problem = _problem("hard", "free")
    with pytest.raises(ParameterError, match="lambda form exists for soft margin only"):
        problem.to_cvxpy("primal", objective="lambda")
    with pytest.raises(ParameterError, match="form"):
        problem.to_cvxpy("both")
    with pytest.raises(ParameterError, match="objective"):
        _problem("C", "free").to_cvxpy("dual", objective="P")


def test_a_model_of_anything_but_a_problem_is_refused():
    # the models read the problem's attributes only (cvxpy_models does not import
    # problem): what is not an SVMProblem is still refused in one line
    from maxmargin.cvxpy_models import dual_model, primal_model

    for model in (primal_model, dual_model):
        for thing in (_problem("C", "free").data, None):
            with pytest.raises(ParameterError, match="needs a maxmargin.SVMProblem, got"):
                model(thing)


def test_importing_problem_and_certificate_stays_numpy_only():
    code = "import sys, maxmargin.problem, maxmargin.certificate; sys.exit('cvxpy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
