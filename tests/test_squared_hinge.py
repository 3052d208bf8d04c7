"""The squared hinge (L2-loss SVM) as a problem: its objectives, its cvxpy models, its file.

``SVMProblem(..., loss="squared_hinge")``: ``P = 1/2 ||w~||^2 + sum_i C_i xi_i^2``,
``D = sum alpha - 1/2 ||v||^2 - sum alpha_i^2 / (4 C_i)`` over ``alpha >= 0``. Checked
against hand-solved cases (two points: ``w = 4C / (1 + 4C)``, ``alpha_i = 2C / (1 + 4C)``)
and against a cvxpy model written here, independently of :mod:`maxmargin.cvxpy_models`.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from maxmargin import Dataset, SVMProblem, make_gaussians
from maxmargin.conventions import DEFAULT_LOSS, LOSSES
from maxmargin.exceptions import ParameterError

SQ = "squared_hinge"
TWO = Dataset([[1.0], [-1.0]], [1, -1])


def test_conventions() -> None:
    assert LOSSES == ("hinge", SQ) and DEFAULT_LOSS == "hinge"
    assert SVMProblem(TWO).loss == "hinge"


@pytest.mark.parametrize("C", [0.25, 1.0, 7.0])
def test_two_points_by_hand(C: float) -> None:
    # P(w) = w^2/2 + 2 C (1 - w)^2 (b = 0 by symmetry): w = 4C/(1+4C), alpha = 2C(1-w)
    p = SVMProblem(TWO, C=C, loss=SQ)
    w = 4 * C / (1 + 4 * C)
    a = 2 * C / (1 + 4 * C)
    P = 0.5 * w * w + 2 * C * (1 - w) ** 2
    assert float(p.primal_objective([w], 0.0)) == pytest.approx(P, rel=1e-14)
    assert float(p.dual_objective([a, a])) == pytest.approx(P, rel=1e-14)
    assert float(p.lambda_objective([w], 0.0)) == pytest.approx(P / (2 * C), rel=1e-14)
    assert p.weights_from_dual([a, a])[0].tolist() == pytest.approx([w])
    # KKT: alpha_i = 2 C xi_i
    np.testing.assert_allclose(2 * C * p.hinge([w], 0.0), [a, a], rtol=1e-14)
    np.testing.assert_allclose(p.squared_hinge([w], 0.0), (1 - w) ** 2, rtol=1e-14)
    np.testing.assert_allclose(p.losses([w], 0.0), (1 - w) ** 2, rtol=1e-14)
    # the hinge problem's objectives at the same point differ
    h = SVMProblem(TWO, C=C)
    assert float(h.primal_objective([w], 0.0)) == pytest.approx(0.5 * w * w + 2 * C * (1 - w))


def test_weighted_and_batched_by_hand() -> None:
    ds = Dataset([[1.0], [-2.0], [0.5]], [1, -1, 1])
    p = SVMProblem(ds, C=2.0, sample_weight=[3.0, 1.0, 0.0], loss=SQ)
    # xi = (0.5, 0, 0.75) at w = 0.5, b = 0; costs (6, 2, 0)
    assert float(p.primal_objective([0.5], 0.0)) == pytest.approx(0.125 + 6 * 0.25)
    assert float(p.lambda_objective([0.5], 0.0)) == pytest.approx(
        0.5 * p.lam * 0.25 + (3 * 0.25) / 3
    )
    # D: 1.5 - 1/2 (1 + 0.5*2)^2 - 1/(4*6) - 0.25/(4*2); a weight-0 example: alpha_3 = 0
    D = 1.5 - 0.5 * 4.0 - 1.0 / 24 - 0.25 / 8
    assert float(p.dual_objective([1.0, 0.5, 0.0])) == pytest.approx(D)
    assert float(p.dual_objective([1.0, 0.5, 0.1])) == -math.inf
    # k points at once
    got = p.dual_objective(np.array([[1.0, 0.5, 0.0], [0.0, 0.0, 0.0]]))
    np.testing.assert_allclose(got, [D, 0.0])
    got = p.primal_objective(np.array([[0.5], [0.0]]), np.array([0.0, 0.0]))
    np.testing.assert_allclose(got, [0.125 + 1.5, 6 + 2])


def test_augmented_and_none() -> None:
    p = SVMProblem(TWO, C=1.0, loss=SQ, intercept="augmented", intercept_scaling=2.0)
    # w~ = (1, 0.25): regularizer 1 + 1/16; margins y (w x + b) = (1.5, 0.5)
    assert float(p.primal_objective([1.0], 0.5)) == pytest.approx(0.5 * (1 + 1 / 16) + 0.25)
    q = SVMProblem(TWO, C=1.0, loss=SQ, intercept="none")
    with pytest.raises(ParameterError):
        q.primal_objective([1.0], 0.5)


def test_hard_margin_is_the_same_problem() -> None:
    h = SVMProblem(TWO, hard=True, loss=SQ)
    g = SVMProblem(TWO, hard=True)
    assert h.loss == SQ and not h.squared and g.loss == "hinge"
    assert float(h.primal_objective([1.0], 0.0)) == float(g.primal_objective([1.0], 0.0))
    assert float(h.dual_objective([0.5, 0.5])) == float(g.dual_objective([0.5, 0.5]))


def test_bad_loss_and_kernel_refused() -> None:
    with pytest.raises(ParameterError, match="loss"):
        SVMProblem(TWO, loss="log")
    with pytest.raises(ParameterError, match="kernel problem solves the hinge"):
        SVMProblem(TWO, loss=SQ, kernel="rbf")
    # the hinge is fine with a kernel
    assert type(SVMProblem(TWO, loss="hinge", kernel="rbf")).__name__ == "KernelProblem"


def test_repr_json_and_with_data() -> None:
    p = SVMProblem(TWO, C=2.0, loss=SQ)
    assert "loss='squared_hinge'" in repr(p)
    assert "loss" not in repr(SVMProblem(TWO, C=2.0))
    doc = json.loads(p.to_json())
    assert doc["loss"] == SQ
    back = SVMProblem.from_json(doc, TWO)
    assert back.loss == SQ and back.squared
    assert float(back.primal_objective([0.5])) == float(p.primal_objective([0.5]))
    assert p.without_data().with_data(TWO).loss == SQ
    # a file written before the key: the hinge
    del doc["loss"]
    old = SVMProblem.from_json(doc, TWO)
    assert old.loss == "hinge"


# --------------------------------------------------------------------------- cvxpy

cp = pytest.importorskip("cvxpy")


def _independent_primal(X: np.ndarray, y: np.ndarray, costs: np.ndarray, intercept: str):
    """min 1/2 ||w~||^2 + sum_i c_i max(0, 1 - y_i f_i)^2, written without maxmargin."""
    n, d = X.shape
    w = cp.Variable(d)
    b = cp.Variable() if intercept != "none" else 0.0
    reg = cp.sum_squares(w) + (cp.square(b) if intercept == "augmented" else 0.0)
    xi = cp.pos(1 - cp.multiply(y, X @ w + b))
    prob = cp.Problem(cp.Minimize(0.5 * reg + costs @ cp.square(xi)))
    prob.solve(solver="CLARABEL")
    return float(prob.value), w.value, (0.0 if intercept == "none" else float(b.value))


@pytest.mark.parametrize("intercept", ["free", "none", "augmented"])
@pytest.mark.parametrize("weighted", [False, True])
def test_models_against_independent_cvxpy(intercept: str, weighted: bool) -> None:
    ds = make_gaussians(40, 3, seed=3)
    sw = np.linspace(0.0, 2.0, ds.n) if weighted else None
    p = SVMProblem(ds, C=0.7, loss=SQ, intercept=intercept, sample_weight=sw)
    X = ds.dense()
    P_ref, w_ref, b_ref = _independent_primal(X, ds.y, p.costs, intercept)
    primal = p.to_cvxpy("primal")
    dual = p.to_cvxpy("dual")
    P = float(primal.solve(solver="CLARABEL"))
    D = float(dual.solve(solver="CLARABEL"))
    assert P == pytest.approx(P_ref, rel=1e-7) and D == pytest.approx(P_ref, rel=1e-7)
    w = primal.var_dict["w"].value
    b = float(primal.var_dict["b"].value) if intercept != "none" else 0.0
    np.testing.assert_allclose(w, w_ref, atol=1e-5)
    assert b == pytest.approx(b_ref, abs=1e-5)
    # numpy's objectives at the models' optimum
    assert float(p.primal_objective(w, b)) == pytest.approx(P_ref, rel=1e-7)
    alpha = dual.var_dict["alpha"].value
    assert np.all(np.abs(alpha[p.costs == 0]) < 1e-8)  # the model's alpha_i = 0 there
    alpha[p.costs == 0] = 0.0  # exactly: D counts any other value as -inf
    assert float(p.dual_objective(alpha)) == pytest.approx(P_ref, rel=1e-7)
    # KKT: w~ = sum alpha_i y_i z_i and alpha_i = 2 C_i xi_i; the margin multipliers = alpha
    np.testing.assert_allclose(p.weights_from_dual(alpha)[0], w_ref, atol=1e-5)
    # (Clarabel's points are accurate to ~1e-5 of their scale: VAR_TOL of test_cvxpy_models)
    np.testing.assert_allclose(alpha, 2 * p.costs * p.hinge(w_ref, b_ref), atol=1e-4)
    np.testing.assert_allclose(primal.constraints[0].dual_value, alpha, atol=1e-4)
    # the lambda forms: F* = lam P*, multipliers lam * alpha
    Fp = float(p.to_cvxpy("primal", "lambda").solve(solver="CLARABEL"))
    lam_dual = p.to_cvxpy("dual", "lambda")
    Fd = float(lam_dual.solve(solver="CLARABEL"))
    assert Fp == pytest.approx(p.lam * P_ref, rel=1e-7)
    assert Fd == pytest.approx(p.lam * P_ref, rel=1e-7)
    np.testing.assert_allclose(lam_dual.var_dict["alpha"].value / p.lam, alpha, atol=1e-4)
    assert float(p.lambda_objective(w, b)) == pytest.approx(p.lam * P_ref, rel=1e-7)


def test_dual_has_no_upper_bound_and_no_C_parameter() -> None:
    from maxmargin.cvxpy_models import dual_model

    # C small: the hinge's alpha would stop at C; the squared hinge's go above it
    p = SVMProblem(make_gaussians(30, 2, seed=5), C=1e-3, loss=SQ)
    model = p.to_cvxpy("dual")
    model.solve(solver="CLARABEL")
    assert model.var_dict["alpha"].value.max() > 1.5e-3
    with pytest.raises(ParameterError, match="squared hinge"):
        dual_model(p, C_parameter=True)
