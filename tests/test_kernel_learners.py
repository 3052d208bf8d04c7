"""The kernel online learners against plain numpy loops written here (bit for bit)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from maxmargin import Dataset, ParameterError
from maxmargin.kernels import GramOperator, make_kernel
from maxmargin.online import (
    LEARNERS,
    BudgetPerceptron,
    DualPerceptron,
    KernelPA,
    KernelPA1,
    KernelPegasos,
    Perceptron,
    run,
    schedule,
)


def xor(n: int, seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    return Dataset(X, y, name="xor")


DATA = xor(40)
CHECKPOINTS = [1, 5, 17, 40, 63, 100, 120]


def gram(data: Dataset, kernel: str = "rbf", **kw: object) -> np.ndarray:
    """The Gram written out here from the formulas (not the learners' code)."""
    X = np.asarray(data.X, float)
    if kernel == "rbf":
        g = float(kw.get("gamma", 1.0))
        D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
        return np.exp(-g * D)
    if kernel == "poly":
        return (float(kw["gamma"]) * X @ X.T + float(kw["coef0"])) ** int(kw["degree"])
    return X @ X.T


def engine_gram(data: Dataset, kernel: str = "rbf", **kw: object) -> np.ndarray:
    """The Gram the learners use (the engine's entries): the loops' inputs."""
    op = GramOperator.bind(make_kernel(kernel, **kw), data.X)  # type: ignore[arg-type]
    return op.block(np.arange(data.n))


def naive_pegasos(K, y, idx, lam, s2, ckpts):
    """Kernelized Pegasos as the paper writes it, with F = K (alpha y) kept up to date."""
    alpha = np.zeros(len(y))
    F = np.zeros(len(y))
    b = 0.0
    mistakes = 0
    out = []
    for t, i in enumerate(idx, 1):
        eta = 1.0 / (lam * t)
        m = y[i] * (F[i] * eta + b)
        mistakes += m <= 0
        if m < 1:
            alpha[i] += 1.0
            b += y[i] * s2 * (1.0 / (lam * (t + 1.0)))
            F += y[i] * K[i]
        if t in ckpts:  # the function step t + 1 predicts with
            out.append((alpha * (1.0 / (lam * (t + 1.0))), b, mistakes))
    return out


def naive_pa(K, y, idx, variant, C, s2, ckpts):
    a = np.zeros(len(y))
    F = np.zeros(len(y))
    b = 0.0
    mistakes = 0
    out = []
    for t, i in enumerate(idx, 1):
        m = y[i] * (F[i] + b)
        mistakes += m <= 0
        if m < 1 and K[i, i] + s2 > 0:
            ell = 1.0 - m
            q = K[i, i] + s2
            tau = ell / q if variant == 0 else min(C, ell / q)
            a[i] += tau
            b += tau * y[i] * s2
            F += (tau * y[i]) * K[i]
        if t in ckpts:
            out.append((a.copy(), b, mistakes))
    return out


def naive_budget(K, y, idx, budget, s2, ckpts):
    """The kernel perceptron with a FIFO support set of at most ``budget`` examples."""
    c = np.zeros(len(y))
    F = np.zeros(len(y))
    b = 0.0
    mistakes = 0
    support: list[int] = []
    out = []
    for t, i in enumerate(idx, 1):
        m = y[i] * (F[i] + b)
        if m <= 0:
            mistakes += 1
            if c[i] == 0:
                if len(support) == budget:
                    j = support.pop(0)
                    cj = c[j] * y[j]
                    c[j] = 0.0
                    b -= cj * s2
                    F += (-cj) * K[j]
                support.append(i)
            c[i] += 1.0
            b += y[i] * s2
            F += y[i] * K[i]
        if t in ckpts:
            out.append((c.copy(), b, mistakes))
    return out


def check_trace(tr, ref):
    assert tr.t.tolist() == CHECKPOINTS
    for k, (a, b, mistakes) in enumerate(ref):
        np.testing.assert_array_equal(tr.dual[k], a)  # bit for bit
        assert tr.b[k] == b
        assert tr.mistakes[k] == mistakes


RUN = dict(epochs=3, order="shuffle", seed=3, checkpoints=CHECKPOINTS, record_dual=True)


@pytest.mark.parametrize("intercept", ["free", "none"])
@pytest.mark.parametrize("lam", [1e-3, 0.1])
def test_pegasos_is_the_naive_loop(intercept, lam):
    tr = run(
        KernelPegasos(lam=lam, kernel="rbf", gamma=2.0, intercept=intercept, intercept_scaling=1.5),
        DATA,
        **RUN,
    )
    idx = schedule(DATA.n, 3, "shuffle", 3)
    s2 = 2.25 if intercept == "free" else 0.0
    ref = naive_pegasos(engine_gram(DATA, gamma=2.0), DATA.y, idx, lam, s2, CHECKPOINTS)
    check_trace(tr, ref)
    assert np.isnan(tr.w).all()
    # the Gram the loops ran on is the kernel's (written out here), to rounding
    np.testing.assert_allclose(engine_gram(DATA, gamma=2.0), gram(DATA, gamma=2.0), atol=1e-14)


def test_augmented_is_the_kernel_plus_s2():
    """Intercept augmented: the loop on K + s^2 without a bias, b = s^2 sum_j a_j y_j."""
    tr = run(
        KernelPegasos(
            lam=0.01, kernel="rbf", gamma=2.0, intercept="augmented", intercept_scaling=0.5
        ),
        DATA,
        **RUN,
    )
    idx = schedule(DATA.n, 3, "shuffle", 3)
    ref = naive_pegasos(engine_gram(DATA, gamma=2.0) + 0.25, DATA.y, idx, 0.01, 0.0, CHECKPOINTS)
    ref = [(a, 0.25 * float(a @ DATA.y), m) for a, _, m in ref]
    check_trace(tr, ref)


@pytest.mark.parametrize("cls", [KernelPA, KernelPA1])
@pytest.mark.parametrize("intercept", ["free", "none"])
def test_pa_is_the_naive_loop(cls, intercept):
    kw = dict(C=0.3) if cls is KernelPA1 else {}
    learner = cls(kernel="poly", degree=2, gamma=1.0, coef0=1.0, intercept=intercept, **kw)
    tr = run(learner, DATA, **RUN)
    idx = schedule(DATA.n, 3, "shuffle", 3)
    K = engine_gram(DATA, "poly", degree=2, gamma=1.0, coef0=1.0)
    ref = naive_pa(
        K, DATA.y, idx, learner.variant, learner.C, 1.0 if intercept == "free" else 0.0, CHECKPOINTS
    )
    check_trace(tr, ref)
    if cls is KernelPA1:  # PA-I's steps are at most C: one pass visits each example once
        first = run(learner, DATA, order="shuffle", seed=3, record_dual=True)
        assert first.dual[-1].max() <= 0.3


@pytest.mark.parametrize("budget", [1, 5, 1000])
@pytest.mark.parametrize("intercept", ["free", "none"])
def test_budget_perceptron_is_the_naive_loop(budget, intercept):
    tr = run(
        BudgetPerceptron(budget=budget, kernel="rbf", gamma=2.0, intercept=intercept), DATA, **RUN
    )
    idx = schedule(DATA.n, 3, "shuffle", 3)
    s2 = 1.0 if intercept == "free" else 0.0
    ref = naive_budget(engine_gram(DATA, gamma=2.0), DATA.y, idx, budget, s2, CHECKPOINTS)
    check_trace(tr, ref)
    assert ((tr.dual > 0).sum(axis=1) <= budget).all()
    if budget == 5:
        assert tr.extras["removed"][-1] > 0  # the budget was met: the rule ran


def test_a_large_budget_is_the_kernel_perceptron():
    kw = dict(kernel="rbf", gamma=2.0, intercept="free")
    bp = run(BudgetPerceptron(budget=DATA.n, **kw), DATA, **RUN)
    dp = run(DualPerceptron(**kw), DATA, **RUN)
    np.testing.assert_array_equal(bp.dual, dp.dual)
    np.testing.assert_array_equal(bp.mistakes, dp.mistakes)
    np.testing.assert_allclose(bp.b, dp.b, rtol=0, atol=1e-12)


def test_dual_perceptron_takes_the_kernel_learners_parameters():
    # gamma by name, resolved as SVC does; sigmoid; precomputed: the same run as the named one
    for kw in (dict(kernel="rbf", gamma="auto"), dict(kernel="sigmoid", gamma=0.5)):
        tr = run(DualPerceptron(**kw, intercept="none"), DATA, **RUN)
        K = engine_gram(DATA, **kw)
        ref = naive_budget(K, DATA.y, schedule(DATA.n, 3, "shuffle", 3), DATA.n, 0.0, CHECKPOINTS)
        check_trace(tr, ref)
    K = engine_gram(DATA, gamma=2.0)
    pre = run(DualPerceptron(kernel="precomputed", intercept="none"), Dataset(K, DATA.y), **RUN)
    named = run(DualPerceptron(kernel="rbf", gamma=2.0, intercept="none"), DATA, **RUN)
    np.testing.assert_array_equal(pre.dual, named.dual)


def test_linear_kernel_has_weights_and_matches_the_perceptron():
    data = Dataset(DATA.X, np.where(DATA.X[:, 0] > 0.1, 1.0, -1.0))
    bp = run(BudgetPerceptron(budget=1000, kernel="linear", intercept="none"), data, **RUN)
    pp = run(Perceptron(intercept="none"), data, **RUN)
    np.testing.assert_array_equal(bp.mistakes, pp.mistakes)
    np.testing.assert_allclose(bp.w, pp.w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bp.w[-1], data.X.T @ (bp.dual[-1] * data.y), rtol=1e-13)


def test_pegasos_f_is_the_papers_function():
    """f(x_i) = 1/(lam (T + 1)) sum_j alpha_j y_j K_ij + b, from the trace, on the data."""
    lam = 0.05
    tr = run(KernelPegasos(lam=lam, kernel="rbf", gamma=1.0), DATA, epochs=2, record_dual=True)
    K = gram(DATA, gamma=1.0)
    f = K @ (tr.dual[-1] * DATA.y) + tr.b[-1]
    err = float(np.mean(np.where(DATA.y * f <= 0, 1.0, 0.0)))
    assert err == pytest.approx(tr.final_train_error)
    # alpha / (lam (t + 1)) are counts over lam (t + 1): integers times the scale
    alpha = tr.dual[-1] * lam * (tr.t[-1] + 1)
    np.testing.assert_allclose(alpha, np.round(alpha), atol=1e-9)


@pytest.mark.parametrize("intercept", ["free", "augmented", "none"])
def test_the_linear_kernel_is_the_linear_learner(intercept):
    """With the linear kernel: Pegasos, PA, PA-I of maxmargin.online (a second route)."""
    from maxmargin import make_gaussians
    from maxmargin.online import PA, PA1, Pegasos

    data = make_gaussians(50, 3, seed=1)
    pairs = (
        (Pegasos(lam=0.05, intercept=intercept), KernelPegasos(lam=0.05, intercept=intercept)),
        (PA(intercept=intercept), KernelPA(intercept=intercept)),
        (PA1(C=0.2, intercept=intercept), KernelPA1(C=0.2, intercept=intercept)),
    )
    for linear, kernel in pairs:
        a = run(linear, data, epochs=3, order="shuffle", seed=2)
        b = run(kernel, data, epochs=3, order="shuffle", seed=2)
        np.testing.assert_array_equal(a.mistakes, b.mistakes)
        np.testing.assert_allclose(b.w, a.w, rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(b.b, a.b, rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(b.loss, a.loss, rtol=1e-11)
        assert a.final_train_error == b.final_train_error


def test_registered_and_refusals():
    for name in ("kernel_pegasos", "kernel_pa", "kernel_pa1", "budget_perceptron"):
        assert name in LEARNERS
    with pytest.raises(ParameterError, match="max_n"):
        run(KernelPA(max_n=10), DATA)
    with pytest.raises(ParameterError, match="kernel"):
        KernelPA(kernel="cosine")
    with pytest.raises(ParameterError, match="precomputed"):  # a trace could not be saved
        KernelPA(kernel=lambda A, B: A @ B.T)
    with pytest.raises(ParameterError, match="intercept"):
        KernelPegasos(intercept="bias")
    with pytest.raises(ParameterError, match="gamma"):
        KernelPA(gamma=-1.0)
    with pytest.raises(ParameterError, match="budget"):
        BudgetPerceptron(budget=0)
    with pytest.raises(ParameterError, match="precomputed"):
        run(KernelPA(kernel="precomputed"), DATA)
    with pytest.raises(ParameterError, match="one example at a time"):
        KernelPegasos().start(2)


def test_a_kernel_run_without_weights_is_not_called_diverged():
    # an RBF learner has no weights on the features (w is NaN by design): run and its
    # summary judge the bias and the dual coefficients, which are finite
    from maxmargin import make_separable
    from maxmargin.online import KernelPegasos, run

    tr = run(KernelPegasos(lam=0.01, kernel="rbf"), make_separable(50, 2, seed=0), epochs=2)
    assert np.isnan(tr.w).all() and tr.diverged_at is None
    assert "DIVERGED" not in tr.summary() and "final training error" in tr.summary()
    bad = dataclasses.replace(tr, b=np.where(tr.t >= tr.t[3], np.nan, tr.b))
    assert bad.diverged_at == int(tr.t[3])
