"""compare_kernel and rkhs_distance against numpy (and cvxpy, SVC) recomputed here."""

from __future__ import annotations

import math
from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.svm import SVC

from maxmargin import Dataset, ParameterError
from maxmargin.evaluation.kernel_scoring import compare_kernel, rkhs_distance
from maxmargin.kernel_problem import KernelProblem
from maxmargin.online import KernelPA1, KernelPegasos


def xor(n: int, seed: int = 0, gap: float = 0.0) -> Dataset:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    X = X[np.abs(X[:, 0] * X[:, 1]) > gap]
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    return Dataset(X, y, name="xor")


def rbf(X: np.ndarray, g: float) -> np.ndarray:
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-g * D)


DATA = xor(60, gap=0.05)
G = 2.0


def primal(K, y, C, a, b):
    c = a * y
    f = K @ c + b
    return 0.5 * c @ K @ c + C * np.maximum(0, 1 - y * f).sum()


@pytest.fixture(scope="module")
def cmp():
    return compare_kernel(
        DATA,
        ["dual_perceptron", "kernel_pegasos", "kernel_pa", "kernel_pa1", "budget_perceptron"],
        gamma=G,
        C=10.0,
        epochs=8,
        seeds=[1],
    )


def test_objective_and_distance_are_the_numpy_values(cmp):
    K = rbf(DATA.X, G)
    y = DATA.y
    opt = cmp.optimum
    assert opt.certificate.ok
    p_star = primal(K, y, 10.0, opt.alpha, opt.b)
    assert cmp.objective == pytest.approx(p_star, rel=1e-10)
    # SVC's optimum (its own solver, tol 1e-10): the same objective
    svc = SVC(kernel="rbf", gamma=G, C=10.0, tol=1e-10).fit(DATA.X, y)
    a = np.zeros(DATA.n)
    a[svc.support_] = np.abs(svc.dual_coef_[0])
    assert primal(K, y, 10.0, a, svc.intercept_[0]) == pytest.approx(p_star, rel=1e-6)
    cstar = opt.alpha * y
    for s in cmp.scores:
        tr = s.trace
        assert s.t.tolist() == tr.t.tolist()
        for k in range(len(s.t)):
            P = primal(K, y, 10.0, tr.dual[k], tr.b[k])
            assert s.objective[k] == pytest.approx(P, rel=1e-10)
            assert s.suboptimality[k] == pytest.approx(P - p_star, rel=1e-8, abs=1e-9)
            e = tr.dual[k] * y - cstar
            d = math.sqrt(max(e @ K @ e, 0.0))
            assert s.distance[k] == pytest.approx(d, rel=1e-9, abs=1e-12)
            assert s.distance_low[k] <= d * (1 + 1e-12) + 1e-300
            assert d <= s.distance_high[k] * (1 + 1e-12)
        assert (s.suboptimality >= -1e-6 * abs(p_star)).all()  # no point beats the optimum
        np.testing.assert_array_equal(s.mistakes, tr.mistakes)
    # the learners' parameters: the problem's
    peg = next(s for s in cmp.scores if s.learner == "kernel_pegasos")
    assert peg.trace.params["lam"] == pytest.approx(1.0 / (10.0 * DATA.n))
    assert cmp.optimum_radius == pytest.approx(math.sqrt(2 * max(opt.certificate.duality_gap, 0)))


def test_regret_is_the_sum_of_the_losses_along_the_schedule(cmp):
    """Every step's function rebuilt here (the perceptron, PA-I): its loss, summed."""
    from maxmargin.online import schedule

    K = rbf(DATA.X, G)
    y, n = DATA.y, DATA.n
    lam = 1.0 / (10.0 * n)
    cs = cmp.optimum.alpha * y
    fs = K @ cs + cmp.optimum.b
    idx = schedule(n, 8, "shuffle", 1)
    for name in ("dual_perceptron", "kernel_pa1"):
        s = next(s for s in cmp.scores if s.learner == name)
        a, b, total = np.zeros(n), 0.0, []
        for i in idx:
            c = a * y
            f = K[i] @ c + b
            total.append(
                (0.5 * lam * c @ K @ c + max(0.0, 1 - y[i] * f))
                - (0.5 * lam * cs @ K @ cs + max(0.0, 1 - y[i] * fs[i]))
            )
            m = y[i] * f
            if name == "dual_perceptron" and m <= 0:
                a[i] += 1.0
                b += y[i]
            elif name == "kernel_pa1" and m < 1:
                tau = min(10.0, (1 - m) / (K[i, i] + 1.0))
                a[i] += tau
                b += tau * y[i]
        np.testing.assert_allclose(s.regret, np.cumsum(total)[s.t - 1], rtol=1e-8, atol=1e-8)


def test_novikoff_with_the_exact_kernel_margin(cmp):
    """The margin against cvxpy's hard-margin dual on K + s^2 (no intercept), written here."""
    y = DATA.y
    Ks = rbf(DATA.X, G) + 1.0
    a = cp.Variable(DATA.n)
    Q = cp.psd_wrap(Ks * np.outer(y, y))
    cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.quad_form(a, Q)), [a >= 0]).solve(
        solver=cp.CLARABEL
    )
    w2 = float(np.sum(a.value))  # at the optimum ||w||^2 = sum alpha
    assert cmp.margin == pytest.approx(1 / math.sqrt(w2), rel=1e-5)
    assert cmp.radius == pytest.approx(math.sqrt(2.0))
    assert cmp.novikoff == pytest.approx(2.0 * w2, rel=1e-5)
    perceptron = next(s for s in cmp.scores if s.learner == "dual_perceptron")
    assert perceptron.mistake_bound_applies
    assert perceptron.mistakes[-1] <= cmp.novikoff
    assert not next(s for s in cmp.scores if s.learner == "kernel_pa").mistake_bound_applies
    assert "dual_perceptron" in cmp.summary()


def test_no_margin_when_the_kernel_does_not_separate():
    X = np.array([[0.0], [0.0], [1.0]])
    data = Dataset(X, np.array([1.0, -1.0, 1.0]))
    out = compare_kernel(data, ["dual_perceptron"], kernel="linear", intercept="none", epochs=2)
    assert out.margin is None and out.novikoff is None


def test_distance_is_never_negative_and_brackets_zero():
    # the linear kernel on n > d: e in the null space of X^T, e' K e = 0 exactly, computed
    # as a rounding error of either sign
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 1)) * 1e3
    p = KernelProblem(Dataset(X, np.array([1.0, -1, 1, -1, 1, -1])), "linear", C=1.0)
    for _ in range(20):
        v = rng.normal(size=6)
        e = v - X[:, 0] * (X[:, 0] @ v) / (X[:, 0] @ X[:, 0])
        d, lo, hi = rkhs_distance(p, e, np.zeros(6))
        assert d >= 0 and lo == 0.0 and hi >= 0
        assert hi < 1e-3  # rounding of ||X|| ||e|| ~ 1e3, not more
    d, lo, hi = rkhs_distance(p, np.ones(6), np.ones(6))
    assert (d, lo, hi) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("scale", [1e-150, 1.0, 1e150])
def test_distance_scales(scale):
    p = KernelProblem(DATA, "rbf", gamma=G, C=1.0)
    rng = np.random.default_rng(1)
    c1 = rng.normal(size=DATA.n)
    d1, lo1, hi1 = rkhs_distance(p, c1, np.zeros(DATA.n))
    d, lo, hi = rkhs_distance(p, scale * c1, np.zeros(DATA.n))
    assert d == pytest.approx(scale * d1, rel=1e-12)
    assert lo <= d <= hi and hi - lo <= 1e-10 * d


def test_refusals_before_the_solve():
    with pytest.raises(ParameterError, match="not a kernel learner"):
        compare_kernel(DATA, ["pegasos"])
    with pytest.raises(ParameterError, match="kernel"):
        compare_kernel(DATA, [KernelPA1(kernel="rbf", gamma=1.0)], gamma=G)
    with pytest.raises(ParameterError, match="lam"):
        compare_kernel(DATA, [KernelPegasos(lam=0.1, kernel="rbf", gamma=G)], gamma=G)
    with pytest.raises(ParameterError, match="C = "):
        compare_kernel(DATA, [KernelPA1(C=2.0, kernel="rbf", gamma=G)], gamma=G, C=1.0)
    with pytest.raises(ParameterError, match="intercept"):
        compare_kernel(DATA, [KernelPA1(kernel="rbf", gamma=G, intercept="none")], gamma=G)
    with pytest.raises(ParameterError, match="intercept"):
        compare_kernel(DATA, intercept="augmented")
    with pytest.raises(ParameterError, match="max_n"):
        compare_kernel(DATA, [KernelPA1(kernel="rbf", gamma=G, max_n=5)], gamma=G)
    with pytest.raises(ParameterError, match="kernel learners"):
        compare_kernel(DATA, [object()])


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**20),
    xscale=st.sampled_from([1e-100, 1e-8, 1.0, 1e8, 1e100]),
    cscale=st.sampled_from([1e-150, 1e-3, 1.0, 1e3, 1e150]),
    null=st.booleans(),
)
def test_distance_interval_holds_exactly(seed, xscale, cscale, null):
    """The interval holds the exact distance (Fractions), at any scale, near zero too."""
    rng = np.random.default_rng(seed)
    n, d = 8, 2
    X = rng.normal(size=(n, d)) * xscale
    p = KernelProblem(Dataset(X, np.where(np.arange(n) % 2, 1.0, -1.0)), "linear", C=1.0)
    c2 = rng.normal(size=n) * cscale
    e = rng.normal(size=n)
    if null:  # e in the null space of X^T (to rounding): the distance is ~0
        e -= X @ np.linalg.lstsq(X, e, rcond=None)[0]
    c1 = c2 + e * cscale
    dist, lo, hi = rkhs_distance(p, c1, c2)
    E = [Fraction(a) - Fraction(b) for a, b in zip(c1, c2, strict=True)]
    Xf = [[Fraction(v) for v in row] for row in X]
    v = [sum(E[i] * Xf[i][k] for i in range(n)) for k in range(d)]  # X^T e, exactly
    exact = sum(t * t for t in v)  # e' K e = ||X^T e||^2
    assert 0 <= lo <= dist <= hi
    assert Fraction(lo) ** 2 <= exact <= Fraction(hi) ** 2
    if not null:  # and it is tight: rounding, not a blanket
        assert hi - lo <= 1e-9 * hi


def test_compare_refuses_a_kernel_learner_and_names_compare_kernel():
    from maxmargin import compare, make_separable
    from maxmargin.online import KernelPegasos

    with pytest.raises(ParameterError, match="compare_kernel"):
        compare(
            make_separable(30, 2, seed=0), learners=[KernelPegasos(lam=0.1, kernel="rbf")], lam=0.1
        )
