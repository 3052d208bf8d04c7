"""SVMProblem(data, kernel=...) and solve: the kernel route, checked against others."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from sklearn.svm import SVC

from maxmargin import Dataset, ParameterError, SVMProblem, make_gaussians
from maxmargin.exact import solve
from maxmargin.kernel_problem import KernelProblem
from maxmargin.kernels import make_kernel
from maxmargin.solvers.kernel import KernelSolution, solve_kernel_dual

DATA = make_gaussians(60, 2, separation=1.5, seed=4)


def test_a_kernel_makes_a_kernel_problem():
    p = SVMProblem(DATA, C=2.0, kernel="rbf", gamma=0.5)
    assert isinstance(p, KernelProblem) and not isinstance(p, SVMProblem)
    assert (p.C, p.gram.gamma, p.intercept, p.kernel.name) == (2.0, 0.5, "free", "rbf")
    q = SVMProblem(DATA, lam=0.01, kernel="poly", degree=2, coef0=1.0, intercept="none")
    assert q.C == pytest.approx(1.0 / (0.01 * DATA.n)) and q.intercept == "none"
    assert (q.kernel.degree, q.kernel.coef0) == (2, 1.0)
    h = SVMProblem(DATA, hard=True, kernel="rbf")
    assert h.hard and h.C == np.inf


def test_the_linear_kernel_is_todays_problem():
    for kw in ({}, {"kernel": None}, {"kernel": "linear"}, {"kernel": "linear", "gamma": 3.0}):
        p = SVMProblem(DATA, C=0.5, **kw)
        assert type(p) is SVMProblem and p.C == 0.5
    p = SVMProblem(DATA, C=0.5)
    for q in (copy.copy(p), copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is SVMProblem and q.C == 0.5 and q.n == p.n


def test_solve_dispatches_to_the_kernel_dual():
    p = SVMProblem(DATA, C=1.0, kernel="rbf", gamma=0.5)
    sol = solve(p)
    assert isinstance(sol, KernelSolution) and sol.certificate.ok
    ref = solve_kernel_dual(KernelProblem(DATA, "rbf", C=1.0, gamma=0.5))
    np.testing.assert_array_equal(sol.alpha, ref.alpha)
    assert sol.b == ref.b
    # SVC, LIBSVM's own solver at a tight tolerance: the same decision function
    svc = SVC(kernel="rbf", C=1.0, gamma=0.5, tol=1e-10).fit(DATA.X, DATA.y)
    np.testing.assert_allclose(
        sol.decision_function(DATA.X), svc.decision_function(DATA.X), atol=1e-6
    )


@pytest.mark.parametrize("intercept", ["free", "none"])
def test_the_linear_kernel_by_the_kernel_route_is_the_linear_solve(intercept):
    lin = solve(SVMProblem(DATA, C=0.7, intercept=intercept))
    ker = solve(SVMProblem(DATA, C=0.7, intercept=intercept, kernel=make_kernel("linear")))
    assert isinstance(ker, KernelSolution) and ker.certificate.ok
    w = DATA.X.T @ (ker.alpha * DATA.y)
    np.testing.assert_allclose(w, lin.w, rtol=1e-6, atol=1e-7)
    assert ker.b == pytest.approx(lin.b, abs=1e-6)
    assert ker.certificate.primal_objective == pytest.approx(
        lin.certificate.primal_objective, rel=1e-8
    )


def test_refusals():
    with pytest.raises(ParameterError, match="only one of C, lam"):
        SVMProblem(DATA, C=1.0, lam=0.1, kernel="rbf")
    with pytest.raises(ParameterError, match="intercept"):
        SVMProblem(DATA, kernel="rbf", intercept="augmented")
    with pytest.raises(ParameterError, match="sample_weight"):
        SVMProblem(DATA, hard=True, kernel="rbf", sample_weight=np.ones(DATA.n))
    with pytest.raises(ParameterError, match="kernel"):
        SVMProblem(DATA, kernel="cosine")
    with pytest.raises(ParameterError, match="Dataset"):
        SVMProblem(DATA.X, kernel="rbf")
    with pytest.raises(ParameterError, match="lam"):
        SVMProblem(DATA, lam=-1.0, kernel="rbf")


def test_a_precomputed_gram_is_the_named_kernel():
    K = KernelProblem(DATA, "rbf", gamma=0.5).gram.block(np.arange(DATA.n))
    pre = solve(SVMProblem(Dataset(K, DATA.y), C=1.0, kernel="precomputed"))
    named = solve(SVMProblem(DATA, C=1.0, kernel="rbf", gamma=0.5))
    assert pre.certificate.ok and named.certificate.ok
    np.testing.assert_allclose(pre.alpha, named.alpha, atol=1e-9)
