"""The C path of the squared hinge (issue 25): grid points, the refusals, learners along it."""

import json

import cvxpy as cp
import numpy as np
import pytest

import maxmargin as mm
from maxmargin import Dataset, SVMProblem, make_gaussians
from maxmargin.cli import main
from maxmargin.evaluation.path import regularization_path
from maxmargin.evaluation.path.grid import RegularizationPath
from maxmargin.evaluation.path.learners import learners_along_path
from maxmargin.evaluation.path.squared import MAX_NEWTON_DIM, newton_point
from maxmargin.exceptions import ParameterError

SQ = "squared_hinge"


def l2svm_cvxpy(X, y, C, intercept, s=1.0):
    """The L2-loss SVM written here, independently: (w, b, P*) by Clarabel."""
    w, b = cp.Variable(X.shape[1]), cp.Variable()
    bias = {"none": 0.0, "free": b, "augmented": b}[intercept]
    reg = cp.sum_squares(w) + (cp.square(b / s) if intercept == "augmented" else 0.0)
    xi = cp.pos(1 - cp.multiply(y, X @ w + bias))
    prob = cp.Problem(cp.Minimize(0.5 * reg + C * cp.sum_squares(xi)))
    prob.solve(solver="CLARABEL")
    return w.value, 0.0 if intercept == "none" else float(b.value), prob.value


@pytest.mark.parametrize("intercept", ["free", "none", "augmented"])
def test_grid_points_are_the_l2_svm_optimum(intercept):
    ds = make_gaussians(60, 3, separation=1.0, seed=2)
    X, y = ds.dense(), ds.y
    Cs = np.geomspace(1e-3, 1e3, 7)
    p = regularization_path(ds, C=Cs, intercept=intercept, loss=SQ)
    assert p.certified and p.loss == SQ and set(p.method) == {"newton"}
    for k, C in enumerate(Cs):
        w, b, P = l2svm_cvxpy(X, y, C, intercept)
        np.testing.assert_allclose(p.w[k], w, rtol=1e-5, atol=1e-6 * max(1, np.abs(w).max()))
        assert p.primal[k] == pytest.approx(P, rel=1e-6)
        # every reported number from w, b and the data: P = 1/2 ||w~||^2 + C sum xi^2
        xi = np.maximum(0.0, 1 - y * (X @ p.w[k] + p.b[k]))
        assert p.slack_sum[k] == pytest.approx((xi * xi).sum(), rel=1e-12, abs=1e-300)
        reg = p.w[k] @ p.w[k] + (p.b[k] ** 2 if intercept == "augmented" else 0.0)
        assert p.primal[k] == pytest.approx(0.5 * reg + C * (xi * xi).sum(), rel=1e-12)
        np.testing.assert_allclose(p.alpha[k], 2 * C * xi, rtol=1e-12, atol=1e-300)
    # the theorems of any convex loss: the loss falls, the norm grows along C
    assert np.all(np.diff(p.slack_sum) <= 1e-12 * p.slack_sum[0])
    assert np.all(np.diff(p.norm_reg) >= -1e-12 * p.norm_reg[-1])
    # both ends are the hinge's: N/A here
    assert p.hard_margin_limit is None and np.isnan(p.min_margin_sv_C)


def test_two_points_by_hand_the_path_is_rational_in_C():
    # x = +-1, no bias: both inside the margin for every C, P = w^2/2 + 2C (1 - w)^2, so
    # w(C) = 4C / (1 + 4C): not piecewise linear in C, which is why there is no exact path
    ds = Dataset([[1.0], [-1.0]], [1, -1])
    Cs = np.array([0.01, 0.1, 1.0, 10.0, 1000.0])
    p = regularization_path(ds, C=Cs, intercept="none", loss=SQ)
    np.testing.assert_allclose(p.w[:, 0], 4 * Cs / (1 + 4 * Cs), rtol=1e-14)
    np.testing.assert_allclose(p.alpha, (2 * Cs / (1 + 4 * Cs))[:, None] * [1, 1], rtol=1e-13)
    w, b, a = newton_point(SVMProblem(ds, C=1.0, intercept="none", loss=SQ), [0.0], 0.0)
    assert (w[0], b) == pytest.approx((0.8, 0.0), abs=1e-15) and a == pytest.approx([0.4, 0.4])


def test_newton_steps_from_any_start_and_their_limits(heart):
    p = SVMProblem(heart, C=0.5, loss=SQ)
    ref = newton_point(p, np.zeros(heart.d), 0.0)
    far = newton_point(p, np.full(heart.d, 3.0), -2.0)  # another start, the same optimum
    assert ref is not None and far is not None
    np.testing.assert_allclose(far[0], ref[0], rtol=1e-10, atol=1e-12)
    cert = mm.certify(p, *ref)
    assert cert.ok and cert.relative_gap < 1e-12
    wide = SVMProblem(Dataset(np.eye(3, MAX_NEWTON_DIM + 1), [1, -1, 1]), C=1.0, loss=SQ)
    assert newton_point(wide, np.zeros(MAX_NEWTON_DIM + 1), 0.0) is None  # too wide: solve


def test_file_round_trip_keeps_the_loss_and_recertifies(tmp_path):
    ds = make_gaussians(40, 2, seed=5)
    p = regularization_path(ds, C="1e-2:1e2:5", loss=SQ)
    p.to_json(tmp_path / "sq.json")
    back = RegularizationPath.from_json(tmp_path / "sq.json", ds)
    assert back.loss == SQ and back.certified
    # certified anew with the squared hinge: the hinge's certificate would refuse alpha > C
    assert all(c.ok for c in back.certificates) and np.max(back.alpha[-1]) > 100.0
    # a file without the key is a hinge path (older files)
    doc = json.loads(regularization_path(ds, C=[1.0]).to_json())
    doc.pop("loss")
    (tmp_path / "old.json").write_text(json.dumps(doc))
    assert RegularizationPath.from_json(tmp_path / "old.json", ds).loss == "hinge"


def test_refusals_before_any_solve():
    ds = make_gaussians(20, 2, seed=0)
    with pytest.raises(ParameterError, match="rational in C"):
        regularization_path(ds, exact=True, loss=SQ)
    with pytest.raises(ParameterError, match="only as C -> inf"):
        regularization_path(ds, C=[1.0], hard_limit=True, loss=SQ)
    with pytest.raises(ParameterError, match="'loss' parameter must be one of"):
        regularization_path(ds, C=[1.0], loss="log")


def test_learners_along_the_squared_path():
    ds = make_gaussians(60, 3, seed=1)
    st = learners_along_path(ds, lam=[0.01, 0.1], epochs=3, loss=SQ)
    # the defaults, with Pegasos projected (it refuses the squared hinge without)
    assert st.learners == ("pegasos", "subgradient", "pa1") and st.loss == SQ
    assert "squared hinge" in st.scored_against
    for i, lam in enumerate(st.lam):
        prob = SVMProblem(ds, lam=float(lam), loss=SQ)
        ref = regularization_path(ds, lam=[float(lam)], loss=SQ)
        assert st.F_star[i] == pytest.approx(float(prob.lambda_objective(ref.w[0], ref.b[0])))
    assert np.all(st.rel_subopt[np.isfinite(st.rel_subopt)] >= -1e-9)
    with pytest.raises(ParameterError, match="needs projection"):
        learners_along_path(ds, lam=[0.1], learners=["pegasos"], epochs=1, loss=SQ)
    exact = regularization_path(ds, lam=[0.1], loss=SQ)
    with pytest.raises(ParameterError, match="the exact path has loss"):
        learners_along_path(ds, exact=exact, learners=["subgradient"], loss="hinge")


def test_cli_path_loss(tmp_path, capsys):
    code = main(
        ["path", "builtin:heart_scale", "--C-grid", "1e-2:1e2:4", "--loss", SQ, "--quiet",
         "--json", str(tmp_path / "p.json")]
    )  # fmt: skip
    assert code == 0
    js = json.loads((tmp_path / "p.json").read_text())
    assert js["loss"] == SQ and js["certified"]
    capsys.readouterr()
    code = main(["path", "builtin:heart_scale", "--loss", SQ, "--exact"])
    err = capsys.readouterr().err
    assert code == 2 and "rational in C" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("s", [1e-150, 1e-100, 1e-20, 1e20, 1e100, 1e150])
def test_the_path_scales(s):
    # X -> s X with C -> C / s^2 is the same problem, w -> w / s: Newton steps and
    # certificate at every scale the doubles hold
    ds = make_gaussians(40, 3, separation=1.0, seed=2)
    Cs = np.array([0.01, 1.0, 100.0])
    ref = regularization_path(ds, C=Cs, intercept="none", loss=SQ)
    p = regularization_path(Dataset(ds.dense() * s, ds.y), C=Cs / s**2, intercept="none", loss=SQ)
    assert p.certified and set(p.method) == {"newton"}
    np.testing.assert_allclose(p.w * s, ref.w, rtol=1e-12, atol=1e-14 * np.abs(ref.w).max())


def test_weighted_points_are_the_weighted_l2_svm():
    # costs C_i = C s_i, a zero weight included: that example leaves the objective
    ds = make_gaussians(40, 2, separation=1.0, seed=3)
    X, y = ds.dense(), ds.y
    sw = np.linspace(0.0, 3.0, ds.n)
    p = regularization_path(ds, C=[0.1, 10.0], loss=SQ, sample_weight=sw)
    assert p.certified and set(p.method) == {"newton"}
    for k, C in enumerate(p.C):
        w, b = cp.Variable(2), cp.Variable()
        xi = cp.pos(1 - cp.multiply(y, X @ w + b))
        cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * sw @ cp.square(xi))).solve(
            solver="CLARABEL"
        )
        np.testing.assert_allclose(p.w[k], w.value, rtol=1e-5, atol=1e-6)
        xi_k = np.maximum(0.0, 1 - y * (X @ p.w[k] + p.b[k]))
        assert p.slack_sum[k] == pytest.approx(sw @ xi_k**2, rel=1e-12)
        assert p.alpha[k][0] == 0.0  # weight 0: alpha_0 = 2 C s_0 xi_0 = 0


def test_full_solves_agree_with_newton_and_linearsvc(heart):
    # warm_start=False: every point by maxmargin.solve's route; the same optima as the
    # Newton steps, and as scikit-learn's LinearSVC (intercept regularised: augmented)
    from sklearn.svm import LinearSVC

    Cs = [0.01, 1.0, 100.0]
    newton = regularization_path(heart, C=Cs, intercept="augmented", loss=SQ)
    full = regularization_path(heart, C=Cs, intercept="augmented", loss=SQ, warm_start=False)
    assert full.certified and set(full.method) == {"qp"} and set(newton.method) == {"newton"}
    np.testing.assert_allclose(full.w, newton.w, rtol=1e-8, atol=1e-10)
    for k, C in enumerate(Cs):
        svc = LinearSVC(C=C, loss=SQ, dual=False, tol=1e-12, max_iter=10**4)
        svc.fit(heart.X, heart.y)
        np.testing.assert_allclose(svc.coef_[0], newton.w[k], rtol=1e-6, atol=1e-8)
        assert svc.intercept_[0] == pytest.approx(newton.b[k], rel=1e-6, abs=1e-8)
