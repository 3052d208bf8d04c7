"""The squared hinge's certificate: gap, ``alpha >= 0`` (no box), ``alpha_i = 2 C_i xi_i``.

Optima here are exact by construction, not a solver's: two points ``+-a`` (``w = 4 C a /
(1 + 4 C a^2)``, ``alpha_i = 2 C / (1 + 4 C a^2)``, ``b = 0``), and, at a C small enough
that every example is inside the margin, the least-squares system the optimum then solves
(``min 1/2 ||w||^2 + C ||1 - y (X w + b)||^2``: linear). Properties across scales: ``X ->
s X``, ``C -> C / s^2`` maps the optimum to ``(w / s, b, alpha / s^2)``, and the verdict
must not move.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from maxmargin import Dataset, SVMProblem, certify, make_gaussians
from maxmargin.certificate import support_sets

SQ = "squared_hinge"


def _two_points(a: float, C: float) -> tuple[SVMProblem, np.ndarray, float, np.ndarray]:
    """The exact optimum of ``+-a`` with labels ``+-1``, computed without overflow."""
    p = SVMProblem(Dataset([[a], [-a]], [1, -1]), C=C, loss=SQ)
    k = (4 * C * a) * a  # 4 C a^2, may overflow to inf: then e = 0
    if k > 1:
        e = ((1 / (4 * C * a)) / a) if math.isfinite(4 * C * a) else 0.0  # 1 / (4 C a^2)
        w = 1 / (a * (1 + e))
        alpha = ((1 / (2 * a)) / a) / (1 + e)
    else:
        w = 4 * C * a / (1 + k)
        alpha = 2 * C / (1 + k)
    return p, np.array([w]), 0.0, np.array([alpha, alpha])


def _all_inside(ds: Dataset, C: float) -> tuple[np.ndarray, float, np.ndarray]:
    """The optimum when every ``y_i f_i < 1``: the normal equations of the least squares."""
    X, y = ds.dense(), ds.y
    n, d = X.shape
    A = np.hstack([X, np.ones((n, 1))])
    H = 2 * C * A.T @ A
    H[:d, :d] += np.eye(d)
    wb = np.linalg.solve(H, 2 * C * A.T @ y)
    w, b = wb[:d], float(wb[d])
    r = y * (X @ w + b)
    assert np.all(r < 1), "not every example is inside the margin: choose a smaller C"
    return w, b, 2 * C * (1 - r)


def _two_points_k(log_a: float, log_k: float) -> tuple[SVMProblem, np.ndarray, float, np.ndarray]:
    """:func:`_two_points` at ``C a^2 = 10^log_k`` (C itself may be far beyond 1e30)."""
    a = 10.0**log_a
    return _two_points(a, ((10.0**log_k) / a) / a)


@given(st.floats(-150, 150), st.floats(-30, 20))
@example(150.0, 20.0)
@example(-150.0, -30.0)
@example(-140.0, 20.0)
@example(140.0, -30.0)
@example(0.0, 0.0)
def test_two_points_certified_at_every_scale(log_a: float, log_k: float) -> None:
    # C a^2 (C R^2, what matters) from 1e-30 to 1e20; a from 1e-150 to 1e150
    assume(1e-300 < 10.0**log_k / 10.0 ** (2 * log_a) < 1e300)  # C and lam = 1/(C n) doubles
    p, w, b, alpha = _two_points_k(log_a, log_k)
    cert = certify(p, w, b, alpha)
    assert cert.ok, str(cert)
    assert sorted(cert.kkt) == sorted(
        ["stationarity", "equality", "dual_feasibility", "complementary_alpha", "slack"]
    )
    # and 0.1% off in alpha: alpha_i = 2 C xi_i is broken, which the certificate sees
    bad = certify(p, w, b, alpha * 1.001)
    assert not bad.ok and bad.undecided is None


@pytest.mark.parametrize("log_a", [-130.0, 0.0, 150.0])
def test_beyond_the_doubles_is_undecided_never_certified(log_a: float) -> None:
    # at C R^2 = 1e30 a slack of one rounding (1e-16) costs C 1e-32 = 1e-2 of P: the
    # objective cannot be told from its rounding
    p, w, b, alpha = _two_points_k(log_a, 30.0)
    cert = certify(p, w, b, alpha)
    assert not cert.ok and cert.undecided is not None


@pytest.mark.parametrize("C", [1e-3, 1e-2])
@pytest.mark.parametrize("s", [1e-150, 2.0**-300, 1e-9, 1.0, 1e9, 1e150])
def test_least_squares_optimum_at_every_scale(C: float, s: float) -> None:
    ds = make_gaussians(30, 3, seed=4)
    w, b, alpha = _all_inside(ds, C)
    base = certify(SVMProblem(ds, C=C, loss=SQ), w, b, alpha)
    assert base.ok and base.relative_gap < 1e-12, str(base)
    p = SVMProblem(Dataset(ds.dense() * s, ds.y), C=C / s**2, loss=SQ)
    cert = certify(p, w / s, b, alpha / s**2)
    assert cert.ok, str(cert)
    for k, v in base.kkt.items():
        assert cert.kkt[k] <= max(1e-12, 1e3 * v), (k, cert.kkt[k], v)


def test_the_hinge_certificate_rejects_the_squared_optimum_and_vice_versa() -> None:
    ds = make_gaussians(30, 3, seed=4)
    w, b, alpha = _all_inside(ds, 1e-2)
    assert certify(SVMProblem(ds, C=1e-2, loss=SQ), w, b, alpha).ok
    # the hinge's box alpha <= C is broken (alpha_i = 2 C xi_i > C where xi_i > 1/2)
    assert not certify(SVMProblem(ds, C=1e-2), w, b, alpha).ok


def test_perturbations_and_infeasible_points_fail() -> None:
    ds = make_gaussians(30, 3, seed=4)
    p = SVMProblem(ds, C=1e-2, loss=SQ)
    w, b, alpha = _all_inside(ds, 1e-2)
    for args in ((w * 1.001, b, alpha), (w, b + 1e-3, alpha), (w, b, alpha * 0.999)):
        c = certify(p, *args)
        assert not c.ok and c.undecided is None
    neg = alpha.copy()
    neg[0] = -alpha.max()
    c = certify(p, w, b, neg)
    assert not c.ok and c.kkt["dual_feasibility"] > 0.5
    # no upper bound: alpha far above C is feasible for the squared hinge
    big = certify(SVMProblem(ds, C=1e-4, loss=SQ), *_all_inside(ds, 1e-4))
    assert big.ok and big.kkt["dual_feasibility"] == 0.0


def test_weight_zero_fixes_alpha_at_zero() -> None:
    ds = make_gaussians(30, 3, seed=4)
    sw = np.ones(ds.n)
    sw[0] = 0.0
    keep = np.arange(1, ds.n)
    sub = ds.subset(keep)
    w, b, a_sub = _all_inside(sub, 1e-2)
    p = SVMProblem(ds, C=1e-2, loss=SQ, sample_weight=sw)
    alpha = np.zeros(ds.n)
    alpha[keep] = a_sub
    assert certify(p, w, b, alpha).ok  # example 0 costs nothing, whatever its slack
    alpha[0] = 1e-3
    c = certify(p, w, b, alpha)
    assert not c.ok and c.kkt["dual_feasibility"] == math.inf and c.undecided is None


def test_undecided_when_the_doubles_cannot_decide() -> None:
    p, w, b, alpha = _two_points(1.0, 1.0)
    c = certify(p, w, b, alpha, tol=1e-17)
    assert not c.ok and c.undecided is not None and "cannot decide" in c.undecided


def test_hard_margin_under_either_loss_is_the_same_certificate() -> None:
    ds = Dataset([[1.0], [-1.0]], [1, -1])
    a = certify(SVMProblem(ds, hard=True, loss=SQ), [1.0], 0.0, [0.5, 0.5])
    h = certify(SVMProblem(ds, hard=True), [1.0], 0.0, [0.5, 0.5])
    assert a == h and a.ok


def test_support_sets_have_no_bound() -> None:
    ds = make_gaussians(30, 3, seed=4)
    p = SVMProblem(ds, C=1e-2, loss=SQ)
    w, b, alpha = _all_inside(ds, 1e-2)
    cert = certify(p, w, b, alpha)
    support, margin, bound, _ = support_sets(p, alpha, cert, w, b)
    assert support.tolist() == list(range(ds.n))  # every example is inside the margin
    assert margin.tolist() == support.tolist() and bound.size == 0
    p2, w2, b2, a2 = _two_points(1.0, 1e8)  # nearly hard: alpha far below C
    s2, m2, b2_, _ = support_sets(p2, a2, certify(p2, w2, b2, a2))
    assert s2.tolist() == [0, 1] and m2.tolist() == [0, 1] and b2_.size == 0
