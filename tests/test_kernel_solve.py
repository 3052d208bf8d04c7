"""The kernel dual solved and certified: against cvxpy, SVC, the linear solver, itself.

The routes against each other; the certificate at every scale.
"""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from maxmargin import (
    DataError,
    Dataset,
    NotSeparableError,
    ParameterError,
    SolverError,
    SVMProblem,
)
from maxmargin.exact import solve
from maxmargin.kernel_certificate import certify_kernel, decision_values
from maxmargin.kernel_problem import KernelProblem
from maxmargin.solvers.kernel import solve_kernel_dual

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _xor(seed=0, n=60, d=2, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] * X[:, 1] + noise * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def _reference_dual(K, y, costs, free):
    """The dual by cvxpy/Clarabel, written here from the formulas (not maxmargin's)."""
    n = len(y)
    a = cp.Variable(n)
    Q = cp.psd_wrap(K * np.outer(y, y))
    cons = [a >= 0]
    if np.isfinite(costs).all():
        cons.append(a <= costs)
    if free:
        cons.append(y @ a == 0)
    prob = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.quad_form(a, Q)), cons)
    prob.solve(solver=cp.CLARABEL)
    return np.asarray(a.value), float(prob.value)


def _gram(p):
    return p.gram.block(np.arange(p.n))


CASES = [
    ("linear", {}),
    ("rbf", {"gamma": 0.7}),
    ("rbf", {}),
    ("poly", {"degree": 2, "gamma": 0.5, "coef0": 1.0}),
    ("poly", {"degree": 3, "gamma": "auto", "coef0": 0.0}),
]


@pytest.mark.parametrize("route", ["dense", "smo"])
@pytest.mark.parametrize("intercept", ["free", "none"])
@pytest.mark.parametrize("name, kw", CASES)
def test_every_kernel_against_an_independent_cvxpy_dual(name, kw, intercept, route):
    X, y = _xor(seed=1)
    p = KernelProblem(Dataset(X, y), name, C=3.0, intercept=intercept, **kw)
    sol = solve_kernel_dual(p, route=route, tol=1e-9)
    assert sol.status == "optimal" and sol.certificate.ok, sol.certificate
    assert sol.certificate.max_residual() <= 1e-11
    K = _gram(p)
    a_ref, d_ref = _reference_dual(K, y, p.costs, intercept == "free")
    assert sol.certificate.dual_objective == pytest.approx(d_ref, rel=1e-7)
    # the function K c is unique (the multipliers need not be): compare it
    assert np.allclose(K @ (sol.alpha * y), K @ (a_ref * y), atol=1e-5 * np.abs(K).max())


def test_sigmoid_callable_and_precomputed_against_cvxpy():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((12, 20))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    ds = Dataset(X, y)
    sig = KernelProblem(ds, "sigmoid", C=5.0, gamma=0.01)
    cal = KernelProblem(ds, lambda A, B: rbf_kernel(A, B, gamma=0.05), C=5.0)
    pre = KernelProblem(Dataset(rbf_kernel(X, X, gamma=0.05), y), "precomputed", C=5.0)
    for p in (sig, cal, pre):
        sol = solve_kernel_dual(p, tol=1e-9)
        assert sol.certificate.ok
        _, d_ref = _reference_dual(_gram(p), y, p.costs, True)
        assert sol.certificate.dual_objective == pytest.approx(d_ref, rel=1e-7)


@pytest.mark.parametrize("route", ["dense", "smo"])
@pytest.mark.parametrize(
    "kw",
    [
        {"kernel": "rbf", "gamma": 0.5},
        {"kernel": "rbf", "gamma": "scale"},
        {"kernel": "poly", "degree": 3, "gamma": 0.4, "coef0": 1.0},
        {"kernel": "sigmoid", "gamma": 0.01, "coef0": 0.0},
        {"kernel": "linear"},
    ],
)
def test_against_sklearn_svc_at_tol_1e10(kw, route):
    rng = np.random.default_rng(3)
    if kw["kernel"] == "sigmoid":  # PSD only with fewer points than features
        X = rng.standard_normal((15, 30))
        y = np.where(X[:, 0] + 0.5 * rng.standard_normal(15) > 0, 1.0, -1.0)
    elif kw["kernel"] == "linear":  # a linear signal: unique multipliers
        X = rng.standard_normal((70, 3))
        y = np.where(X @ [1.0, -2.0, 0.5] + 0.8 * rng.standard_normal(70) > 0, 1.0, -1.0)
    else:
        X, y = _xor(seed=3, n=70)
    clf = SVC(C=2.0, tol=1e-10, **kw).fit(X, y)
    p = KernelProblem(Dataset(X, y), C=2.0, **kw)
    sol = solve_kernel_dual(p, route=route, tol=1e-9)
    assert sol.certificate.ok
    assert set(sol.support.tolist()) == set(clf.support_.tolist())
    order = np.argsort(clf.support_)
    assert np.allclose(sol.dual_coef, clf.dual_coef_[0][order], atol=1e-6)
    assert sol.b == pytest.approx(clf.intercept_[0], abs=1e-6)
    Xt = rng.standard_normal((25, X.shape[1]))
    assert np.allclose(sol.decision_function(Xt), clf.decision_function(Xt), atol=1e-6)
    assert np.allclose(sol.decision_function(X), clf.decision_function(X), atol=1e-6)
    # SVC's own point is not certified at 1e-9, and never better than the exact one
    a = np.zeros(len(y))
    a[clf.support_] = np.abs(clf.dual_coef_[0])
    c = certify_kernel(p, a, clf.intercept_[0], tol=1e-9)
    assert c.max_residual() >= sol.certificate.max_residual()


def test_sample_weights_against_svc():
    X, y = _xor(seed=4, n=50)
    sw = np.random.default_rng(4).uniform(0.2, 3.0, 50)
    sw[3] = 0.0
    clf = SVC(C=1.5, gamma=0.6, tol=1e-10).fit(X, y, sample_weight=sw)
    p = KernelProblem(Dataset(X, y), "rbf", C=1.5, gamma=0.6, sample_weight=sw)
    for route in ("dense", "smo"):
        sol = solve_kernel_dual(p, route=route, tol=1e-9)
        assert sol.certificate.ok and sol.alpha[3] == 0.0
        assert np.allclose(sol.decision_function(X), clf.decision_function(X), atol=1e-6)


@pytest.mark.parametrize("intercept", ["free", "none"])
def test_linear_kernel_equals_the_linear_solver(intercept):
    X, y = _xor(seed=5, n=80, d=4, noise=2.0)
    X[:, 0] += y  # a linear signal
    lin = solve(SVMProblem(Dataset(X, y), C=0.7, intercept=intercept))
    for route in ("dense", "smo"):
        sol = solve_kernel_dual(
            KernelProblem(Dataset(X, y), "linear", C=0.7, intercept=intercept), route=route
        )
        w = X.T @ (sol.alpha * y)
        assert np.allclose(w, lin.w, atol=1e-8)
        assert sol.b == pytest.approx(lin.b, abs=1e-8)
        assert sol.certificate.primal_objective == pytest.approx(
            lin.certificate.primal_objective, rel=1e-10
        )


def test_precomputed_and_callable_equal_the_named_kernel():
    X, y = _xor(seed=6, n=90)
    ds = Dataset(X, y)
    named = solve_kernel_dual(KernelProblem(ds, "rbf", C=2.0, gamma=0.4), route="smo")
    K = rbf_kernel(X, X, gamma=0.4)
    pre = solve_kernel_dual(KernelProblem(Dataset(K, y), "precomputed", C=2.0), route="smo")
    cal = solve_kernel_dual(
        KernelProblem(ds, lambda A, B: rbf_kernel(A, B, gamma=0.4), C=2.0), route="smo"
    )
    for other in (pre, cal):
        assert other.certificate.ok
        assert np.array_equal(other.support, named.support)
        assert np.allclose(other.alpha, named.alpha, atol=1e-9)
        assert other.b == pytest.approx(named.b, abs=1e-9)
    Xt = np.random.default_rng(6).standard_normal((10, 2))
    assert np.allclose(
        pre.decision_function(rbf_kernel(Xt, X, gamma=0.4)), named.decision_function(Xt)
    )
    assert np.allclose(cal.decision_function(Xt), named.decision_function(Xt))


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
@pytest.mark.parametrize("intercept", ["free", "none"])
def test_smo_route_equals_dense_route(C, intercept):
    X, y = _xor(seed=7, n=120, d=3)
    p = KernelProblem(Dataset(X, y), "rbf", C=C, intercept=intercept)
    d = solve_kernel_dual(p, route="dense")
    s = solve_kernel_dual(p, route="smo")
    assert d.route == "dense-piqp" and s.route == "smo"
    assert d.certificate.ok and s.certificate.ok
    assert np.allclose(d.alpha, s.alpha, atol=1e-9 * C)
    assert d.b == pytest.approx(s.b, abs=1e-9)
    assert np.array_equal(d.support, s.support)
    c = solve_kernel_dual(p, route="dense", solver="clarabel")
    assert c.route == "dense-clarabel" and np.allclose(c.alpha, s.alpha, atol=1e-9 * C)


@pytest.mark.parametrize("route", ["dense", "smo"])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_hard_margin_on_separable_data(kernel, route):
    rng = np.random.default_rng(8)
    X = np.vstack([rng.standard_normal((25, 2)) + 3, rng.standard_normal((25, 2)) - 3])
    y = np.r_[np.ones(25), -np.ones(25)]
    p = KernelProblem(Dataset(X, y), kernel, hard=True)
    sol = solve_kernel_dual(p, route=route)
    assert sol.certificate.ok and "primal_feasibility" in sol.certificate.kkt
    f = decision_values(p, sol.alpha, sol.b)[0]
    assert np.all(y * f >= 1 - 1e-9)
    assert np.allclose((y * f)[sol.support], 1.0, atol=1e-9)
    assert sol.bound_support.size == 0
    # the hard margin is the soft margin's limit: a large C gives the same function
    soft = solve_kernel_dual(KernelProblem(Dataset(X, y), kernel, C=1e8), route=route)
    assert np.allclose(soft.alpha, sol.alpha, atol=1e-7 * sol.alpha.max())


def test_hard_margin_rbf_separates_xor_and_linear_does_not():
    X, y = _xor(seed=9, n=40, noise=0.0)
    sol = solve_kernel_dual(KernelProblem(Dataset(X, y), "rbf", hard=True, gamma=1.0))
    assert sol.certificate.ok
    with pytest.raises(NotSeparableError, match="no function of the linear kernel"):
        solve_kernel_dual(KernelProblem(Dataset(X, y), "linear", hard=True), route="dense")


def test_bad_input_of_the_engine():
    X, y = _xor(n=20)
    p = KernelProblem(Dataset(X, y), "rbf")
    with pytest.raises(ParameterError, match="'route'"):
        solve_kernel_dual(p, route="fast")
    with pytest.raises(ParameterError, match="KernelProblem"):
        solve_kernel_dual(SVMProblem(Dataset(X, y)))
    with pytest.raises(DataError, match="shape"):
        certify_kernel(p, np.zeros(3))
    with pytest.raises(ParameterError, match="fixes b = 0"):
        certify_kernel(KernelProblem(Dataset(X, y), "rbf", intercept="none"), np.zeros(20), 1.0)
    c = certify_kernel(p, np.full(20, np.nan))
    assert not c.ok and all(math.isinf(v) for v in c.kkt.values())


# --------------------------------------------------------------------------- certificate


@st.composite
def gram_problems(draw):
    """A precomputed RBF Gram times ``2^k`` or ``10^k``, ``C`` from 1e-30 to 1e30."""
    n = draw(st.integers(8, 40))
    seed = draw(st.integers(0, 2**31 - 1))
    X, y = _xor(seed=seed, n=n, d=draw(st.integers(2, 4)), noise=0.5)
    if (y > 0).all() or (y < 0).all():
        y[:2] = [1.0, -1.0]
    K = rbf_kernel(X, X, gamma=draw(st.sampled_from([0.1, 1.0, 5.0])))
    t = 10.0 ** draw(st.sampled_from([0, -150, 150, -40, 40]) | st.integers(-150, 150))
    j = draw(st.sampled_from([0, -30, 30, -3, 3]) | st.integers(-30, 30))
    C = 10.0**j / t
    if not (1e-300 < C < 1e300):
        C = 1.0 / t
    intercept = draw(st.sampled_from(["free", "none"]))
    if draw(st.integers(0, 4)) == 0:
        C = math.inf  # hard margin: an RBF Gram of distinct points separates anything
    return K, y, t, C, intercept


def _reference(K, y, costs, hard, alpha, b):
    """Relative gap and KKT residuals in extended precision (longdouble), by hand."""
    L = np.longdouble
    a = alpha.astype(L)
    c = a * y.astype(L)
    q = K.astype(L) @ c
    r = y.astype(L) * (q + L(b))
    xi = np.maximum(L(0), 1 - r)
    W = c @ q
    P = W / 2 + (0 if hard else (costs.astype(L) * xi).sum())
    D = a.sum() - W / 2
    out = {"relative_gap": abs((P - D) / P)}
    amax = np.max(np.abs(a))
    out["complementary_alpha"] = np.max(np.abs(a) * np.maximum(L(0), r - 1)) / amax
    if hard:
        out["primal_feasibility"] = np.max(xi)
    else:
        Cl = costs.astype(L)
        out["complementary_xi"] = np.max(np.abs(Cl - a) / Cl * xi)
    return {k: float(v) for k, v in out.items()}


@SETTINGS
@given(gram_problems(), st.floats(1e-12, 1e-4), st.integers(0, 3))
def test_certified_means_optimal_at_every_scale(case, eps, how):
    """Whenever the certificate says ok at tol, the extended-precision residuals are <= tol.

    For the solution and for points perturbed by ``eps`` (around the tolerance).
    """
    K, y, t, C, intercept = case
    hard = C == math.inf
    kw = {"hard": True} if hard else {"C": C}
    p = KernelProblem(Dataset(K * t, y), "precomputed", intercept=intercept, **kw)
    try:
        sol = solve_kernel_dual(p, tol=1e-9)
    except SolverError as e:  # extreme C times an ill-conditioned Gram: say what to do
        assert "try a smaller C" in str(e)
        return
    alpha, b = sol.alpha.copy(), sol.b
    rng = np.random.default_rng(int(eps * 1e15) % 2**31)
    if how == 1:
        alpha = np.clip(alpha * (1 + eps * rng.uniform(-1, 1, p.n)), 0, p.costs)
    elif how == 2 and intercept == "free":
        b = b + eps * max(1.0, abs(b))
    elif how == 3:
        i = int(rng.integers(p.n))
        alpha[i] = min(p.costs[i], alpha[i] + eps * (alpha.max() if hard else p.C))
    for tol in (1e-6, 1e-9):
        cert = certify_kernel(p, alpha, b, tol=tol)
        if cert.ok:
            ref = _reference(K * t, y, p.costs, hard, alpha, b)
            for k, v in ref.items():
                assert v <= tol * (1 + 1e-6), (k, v, tol, cert)
            if intercept == "free":
                assert abs(alpha @ y) / np.abs(alpha).sum() * max(1, abs(b)) <= tol * 1.01


@SETTINGS
@given(gram_problems(), st.integers(-300, 300))
def test_certificate_exactly_invariant_to_power_of_two_scaling(case, k):
    """``K -> 2^k K``, ``C -> 2^-k C``, ``alpha -> 2^-k alpha``: every number the same."""
    K, y, _, _, intercept = case
    p = KernelProblem(Dataset(K, y), "precomputed", C=1.0, intercept=intercept)
    sol = solve_kernel_dual(p, tol=1e-9)
    s = 2.0**k
    q = KernelProblem(Dataset(K * s, y), "precomputed", C=1.0 / s, intercept=intercept)
    base = certify_kernel(p, sol.alpha, sol.b, tol=1e-9)
    scaled = certify_kernel(q, sol.alpha / s, sol.b, tol=1e-9)
    assert scaled.ok == base.ok
    assert scaled.relative_gap == base.relative_gap
    assert scaled.kkt == base.kkt
    for name, v in base.floors.items():
        assert scaled.floors[name] == pytest.approx(v, rel=1e-12, abs=1e-300)


def test_rbf_certificate_invariant_to_scaling_the_data_and_gamma():
    X, y = _xor(seed=10, n=50)
    p = KernelProblem(Dataset(X, y), "rbf", C=1.0, gamma=0.5)
    sol = solve_kernel_dual(p)
    for s in (1e-150, 1e-20, 1e20, 1e150):
        q = KernelProblem(Dataset(X * s, y), "rbf", C=1.0, gamma=0.5 / s**2)
        c = certify_kernel(q, sol.alpha, sol.b, tol=1e-9)
        assert c.ok
        assert c.relative_gap == pytest.approx(sol.certificate.relative_gap, abs=1e-13)
        ss = solve_kernel_dual(q, route="smo")
        assert ss.certificate.ok and np.allclose(ss.alpha, sol.alpha, atol=1e-9)


# --------------------------------------------------------------------------- SMO details


def test_smo_with_a_two_row_cache_and_without_shrinking_finds_the_same_point():
    from maxmargin.solvers.smo import SMO

    X, y = _xor(seed=11, n=150, d=3)
    p = KernelProblem(Dataset(X, y), "rbf", C=2.0)
    ref = solve_kernel_dual(p, route="smo")
    tiny = solve_kernel_dual(p, route="smo", cache_bytes=1)
    assert tiny.certificate.ok and np.allclose(tiny.alpha, ref.alpha, atol=1e-10)
    smo = SMO(p, cache_bytes=1, shrinking=False)
    assert smo.cached_rows == 2
    assert smo.run(1e-8) < 1e-8
    assert np.allclose(smo.alpha, ref.alpha, atol=1e-5)
    assert smo.kernel_rows[0] > 2  # rows were evicted and computed again


def test_smo_route_never_forms_the_n_by_n_gram():
    import tracemalloc

    from sklearn.datasets import make_classification

    n = 6000
    X, y01 = make_classification(n_samples=n, n_features=10, random_state=0)
    p = KernelProblem(Dataset(X, 2.0 * y01 - 1.0), "rbf", C=1.0)
    tracemalloc.start()
    sol = solve_kernel_dual(p, route="smo", cache_bytes=8 * 2**20)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert sol.certificate.ok
    assert peak < 8 * n * n / 2, f"{peak / 2**20:.0f} MiB"


def test_auto_route_solves_densely_where_smo_does_not_converge(monkeypatch):
    from maxmargin.solvers import kernel as kernel_module

    def stall(self, eps):
        raise SolverError("SMO did not reach a violation of 1e-03")

    monkeypatch.setattr(kernel_module.SMO, "run", stall)
    X, y = _xor(seed=12, n=kernel_module.DENSE_MAX + 20)
    p = KernelProblem(Dataset(X, y), "rbf", C=1.0)
    assert solve_kernel_dual(p).route == "dense-piqp"
    with pytest.raises(SolverError, match="SMO did not reach"):
        solve_kernel_dual(p, route="smo")


def test_a_callable_gram_too_large_for_memory_is_refused(monkeypatch):
    import maxmargin.kernels as kernels_module

    monkeypatch.setattr(kernels_module, "CALLABLE_GRAM_BYTES", 1000)
    X, y = _xor(n=20)
    with pytest.raises(ParameterError, match="use a named kernel"):
        KernelProblem(Dataset(X, y), lambda A, B: A @ B.T)


def test_unbounded_dual_is_decided_by_an_lp_not_by_the_solver():
    # An RBF Gram of distinct points separates any labelling; an ill-conditioned one made
    # PIQP report an unbounded dual, which was taken for "not separable" (a hypothesis
    # draw: 17 points, entries up to 0.999). The LP decides: separable -> SolverError
    # saying so; a point repeated with the other label -> NotSeparableError.
    from maxmargin.solvers.kernel import _not_separable

    rng = np.random.default_rng(3)
    X = rng.normal(size=(17, 2))
    y = np.where(rng.uniform(size=17) < 0.5, -1.0, 1.0)
    y[:2] = (1.0, -1.0)
    K = rbf_kernel(X, gamma=0.05)
    p = KernelProblem(Dataset(K, y), "precomputed", hard=True)
    e = _not_separable(p, K)
    assert isinstance(e, SolverError) and "separable" in str(e) and "try a smaller C" in str(e)
    X[1] = X[0]  # the same point with both labels: nothing separates them
    K = rbf_kernel(X, gamma=0.05)
    p = KernelProblem(Dataset(K, y), "precomputed", hard=True)
    assert isinstance(_not_separable(p, K), NotSeparableError)
