"""Kernels: scikit-learn's definitions, Gram blocks, rounding bounds, the PSD check."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import (
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
)
from sklearn.svm import SVC

from maxmargin import DataError, Dataset, ParameterError
from maxmargin.kernel_problem import KernelProblem
from maxmargin.kernels import GramOperator, Kernel, check_psd, kernel_block, make_kernel

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _data(seed=0, n=40, d=4, shift=0.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) + shift
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[:2] = [1.0, -1.0]
    return X, y


def _sk(name, X, Z, gamma, degree=3, coef0=0.0):
    if name == "linear":
        return linear_kernel(X, Z)
    if name == "rbf":
        return rbf_kernel(X, Z, gamma=gamma)
    if name == "poly":
        return polynomial_kernel(X, Z, degree=degree, gamma=gamma, coef0=coef0)
    return sigmoid_kernel(X, Z, gamma=gamma, coef0=coef0)


@pytest.mark.parametrize(
    "name, kw",
    [
        ("linear", {}),
        ("rbf", {"gamma": 0.3}),
        ("rbf", {"gamma": "scale"}),
        ("rbf", {"gamma": "auto"}),
        ("poly", {"gamma": 0.5, "degree": 2, "coef0": 1.0}),
        ("poly", {"gamma": "scale", "degree": 4, "coef0": -0.5}),
        ("poly", {"degree": 1, "gamma": 2.0}),
        ("sigmoid", {"gamma": 0.1, "coef0": 0.2}),
    ],
)
def test_blocks_equal_sklearn_pairwise(name, kw):
    X, _ = _data(shift=3.0)  # off-centre: the RBF blocks are computed centred
    k = make_kernel(name, **kw)
    g = k.resolve_gamma(X)
    op = GramOperator.bind(k, X)
    ref = _sk(name, X, X, g, k.degree, k.coef0)
    rows, cols = np.arange(5, 30), np.arange(0, 40, 3)
    assert np.allclose(op.block(rows, cols), ref[np.ix_(rows, cols)], rtol=1e-12, atol=1e-12)
    assert np.allclose(op.diag(), np.diag(ref), rtol=1e-12, atol=1e-12)
    assert np.allclose(kernel_block(k, g, X[:7], X[3:]), ref[:7, 3:], rtol=1e-12, atol=1e-12)
    Xn = np.random.default_rng(5).standard_normal((6, 4))
    assert np.allclose(op.cross(Xn), _sk(name, Xn, X, g, k.degree, k.coef0), rtol=1e-12, atol=1e-12)


def test_poly_degree_zero_is_the_constant_kernel_as_svc():
    X, y = _data()
    op = GramOperator.bind(Kernel("poly", degree=0), X)
    assert np.array_equal(op.block(np.arange(40)), np.ones((40, 40)))
    SVC(kernel="poly", degree=0).fit(X, y)  # SVC accepts it too


@pytest.mark.parametrize("gamma", ["scale", "auto", 0.7])
def test_gamma_resolved_as_svc(gamma):
    X, y = _data(seed=3, d=6)
    X[:, 2] *= 5
    clf = SVC(gamma=gamma).fit(X, y)
    assert Kernel("rbf", gamma=gamma).resolve_gamma(X) == clf._gamma
    # constant data: X.var() = 0 gives gamma 1, as SVC
    assert Kernel("rbf").resolve_gamma(np.ones((4, 3))) == 1.0


def test_callable_and_precomputed_equal_the_named_kernel():
    X, y = _data(seed=1)
    op = GramOperator.bind(Kernel("rbf", gamma=0.2), X)
    K = op.block(np.arange(40))
    cal = GramOperator.bind(make_kernel(lambda A, B: rbf_kernel(A, B, gamma=0.2)), X)
    pre = GramOperator.bind(Kernel("precomputed"), K)
    assert np.allclose(cal.block(np.arange(40)), K, rtol=1e-13, atol=1e-14)
    assert np.array_equal(pre.block(np.arange(40)), K)
    c = np.random.default_rng(2).standard_normal(40)
    for other in (cal, pre):
        assert np.allclose(other.matvec(c)[0], K @ c, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["linear", "rbf", "poly", "sigmoid"])
@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), scale=st.sampled_from([1e-3, 1.0, 1e3]))
def test_matvec_error_bound_holds(name, seed, scale):
    """``|fl(Kc) - Kc| <= err`` against an extended-precision reference."""
    rng = np.random.default_rng(seed)
    n, d = 30, 5
    X = (rng.standard_normal((n, d)) + rng.uniform(-3, 3)) * scale
    gamma = 0.5 / (d * scale * scale)
    k = make_kernel(name, gamma=gamma, degree=3, coef0=0.5)
    op = GramOperator.bind(k, X)
    c = rng.standard_normal(n) * rng.choice([1e-200, 1.0, 1e200])
    q, err = op.matvec(c, bound=True)
    Xl = X.astype(np.longdouble)
    dot = Xl @ Xl.T
    if name == "linear":
        Kl = dot
    elif name == "rbf":
        sq = (Xl * Xl).sum(axis=1)
        Kl = np.exp(-np.longdouble(gamma) * np.maximum(sq[:, None] + sq[None, :] - 2 * dot, 0))
    elif name == "poly":
        Kl = (np.longdouble(gamma) * dot + np.longdouble(0.5)) ** 3
    else:
        Kl = np.tanh(np.longdouble(gamma) * dot + np.longdouble(0.5))
    pc = float(np.max(np.abs(c)))
    ref = (Kl @ (c / pc).astype(np.longdouble)).astype(float) * pc
    assert np.all(np.abs(q - ref) <= err * 1.01 + 1e-300), (np.abs(q - ref) / err).max()
    assert np.all(err <= 1e-10 * (np.abs(op.block(np.arange(n))) @ np.abs(c)) + 1e-290)


def test_non_psd_callable_refused_with_its_smallest_eigenvalue():
    X, y = _data(seed=4, n=25)
    bad = make_kernel(lambda A, B: A @ B.T - 2.0 * np.eye(len(A), len(B)))
    lo = np.linalg.eigvalsh(X @ X.T - 2.0 * np.eye(25))[0]
    with pytest.raises(ParameterError, match="not positive semi-definite") as e:
        KernelProblem(Dataset(X, y), bad)
    assert f"{lo:.6g}" in str(e.value)
    # the Lanczos route (every n above dense_max) finds the same eigenvalue
    with pytest.raises(ParameterError) as e2:
        check_psd(GramOperator.bind(bad, X), dense_max=5)
    assert f"{lo:.5g}"[:6] in str(e2.value)


def test_precomputed_gram_checks():
    X, y = _data(seed=5, n=12)
    K = X @ X.T
    with pytest.raises(DataError, match="not positive semi-definite"):
        KernelProblem(Dataset(-K, y), "precomputed")
    with pytest.raises(DataError, match="square"):
        KernelProblem(Dataset(K[:, :5], y), "precomputed")
    A = K.copy()
    A[0, 1] += 1.0
    with pytest.raises(DataError, match="not symmetric"):
        KernelProblem(Dataset(A, y), "precomputed")
    # rank-deficient PSD (n > d): accepted, with a slack of rounding size
    p = KernelProblem(Dataset(K, y), "precomputed")
    assert 0 <= p.gram.psd_slack <= 1e-10 * np.linalg.eigvalsh(K)[-1]


def test_sigmoid_and_negative_coef0_poly_are_checked():
    X, y = _data(seed=6, n=30, d=3)
    with pytest.raises(ParameterError, match="sigmoid kernel is not positive"):
        KernelProblem(Dataset(X, y), "sigmoid", gamma=1.0, coef0=1.0)
    # fewer points than features and a small gamma: tanh(g x.z) ~ g x.z, PSD
    Xs, ys = _data(seed=7, n=6, d=20)
    p = KernelProblem(Dataset(Xs, ys), "sigmoid", gamma=0.01)
    assert p.gram.psd_slack >= 0
    with pytest.raises(ParameterError, match="poly kernel with coef0 < 0"):
        KernelProblem(Dataset(X, y), "poly", degree=3, coef0=-1.0, gamma=1.0)
    assert Kernel("poly", coef0=0.0).psd_for_all_data


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"kernel": "cubic"}, "'kernel' parameter"),
        ({"kernel": "rbf", "gamma": 0.0}, "'gamma'"),
        ({"kernel": "rbf", "gamma": "big"}, "'gamma'"),
        ({"kernel": "poly", "degree": -1}, "'degree'"),
        ({"kernel": "poly", "degree": 2.5}, "'degree'"),
        ({"kernel": "poly", "coef0": math.inf}, "'coef0'"),
        ({"kernel": 3}, "a kernel is a name"),
        ({"kernel": "rbf", "intercept": "augmented"}, "'intercept'"),
        ({"kernel": "rbf", "C": -1.0}, "'C'"),
        ({"kernel": "rbf", "C": 1.0, "hard": True}, "not both"),
    ],
)
def test_bad_parameters(kw, match):
    X, y = _data()
    with pytest.raises(ParameterError, match=match):
        KernelProblem(Dataset(X, y), **kw)


def test_callable_output_checked():
    X, y = _data(n=10)
    with pytest.raises(ParameterError, match="shape"):
        KernelProblem(Dataset(X, y), lambda A, B: np.ones((2, 2)))
    with pytest.raises(ParameterError, match="not finite"):
        KernelProblem(Dataset(X, y), lambda A, B: np.full((len(A), len(B)), np.nan))
