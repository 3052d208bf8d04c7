"""The exact solve: hand-solved cases, known margins, invariances, edge cases, bad input.

References are independent of the code under test: hand derivations (in comments),
the generator's prescribed margin, and objectives recomputed here with plain numpy.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

from maxmargin import (
    DataError,
    Dataset,
    NotSeparableError,
    ParameterError,
    SolverError,
    SVMProblem,
    load,
    make_gaussians,
    make_separable,
)
from maxmargin.exact import solve
from maxmargin.separation import is_separable
from maxmargin.solvers import available_solvers

ROUTES = [
    ("dual", "PIQP", "direct"),
    ("primal", "PIQP", "direct"),
    ("dual", "CLARABEL", "direct"),
    ("primal", "CLARABEL", "direct"),
    ("dual", "CLARABEL", "cvxpy"),
    ("primal", "CLARABEL", "cvxpy"),
]


def np_primal(X, y, w, b, C):
    """C-form primal objective, written out here (not maxmargin's)."""
    xi = np.maximum(0.0, 1.0 - y * (X @ w + b))
    return 0.5 * w @ w + C * xi.sum()


def np_dual(X, y, alpha):
    v = X.T @ (alpha * y)
    return alpha.sum() - 0.5 * v @ v


# ----------------------------------------------------------------------------- hand-solved


@pytest.mark.parametrize("form,solver,iface", ROUTES)
def test_two_points_hard(form, solver, iface):
    # x1 = (2, 0), y = +1; x2 = (0, 0), y = -1. The max-margin hyperplane is the
    # perpendicular bisector x_1 = 1: w = (1, 0), b = -1 (f(x1) = 1, f(x2) = -1),
    # margin 1/||w|| = 1 (half the distance 2). Dual: w = a1 (2, 0) => a1 = 1/2 and
    # sum a_i y_i = 0 => a2 = 1/2. P = D = 1/2.
    ds = Dataset([[2.0, 0.0], [0.0, 0.0]], [1, -1])
    sol = solve(SVMProblem(ds, hard=True), form=form, solver=solver, interface=iface)
    np.testing.assert_allclose(sol.w, [1.0, 0.0], atol=1e-10)
    assert sol.b == pytest.approx(-1.0, abs=1e-10)
    np.testing.assert_allclose(sol.alpha, [0.5, 0.5], atol=1e-10)
    assert sol.margin == pytest.approx(1.0, abs=1e-10)
    assert sol.primal_objective == pytest.approx(0.5, abs=1e-10)
    assert sol.certificate.ok and sol.status == "optimal"
    assert sol.support.tolist() == [0, 1] and sol.bound_support.size == 0


@pytest.mark.parametrize("form,solver,iface", ROUTES[:4])
def test_four_points_hard_with_degenerate_margin_point(form, solver, iface):
    # Positives (1, 0), (1, 3); negatives (-1, 0), (-2, 1). The closest points of the two
    # hulls (segments) are (1, 0) and (-1, 0), distance 2, so the max-margin hyperplane
    # is x_1 = 0: w = (1, 0), b = 0, margin 1. (1, 3) lies on the margin too but
    # w = a1 (1,0) + a2 (1,3) + a3 (1,0) has second coordinate 3 a2 = 0 => a2 = 0;
    # a1 + a3 = 1 and a1 + a2 - a3 = 0 => a1 = a3 = 1/2. alpha = (1/2, 0, 1/2, 0).
    ds = Dataset([[1.0, 0.0], [1.0, 3.0], [-1.0, 0.0], [-2.0, 1.0]], [1, 1, -1, -1])
    sol = solve(SVMProblem(ds, hard=True), form=form, solver=solver, interface=iface)
    np.testing.assert_allclose(sol.w, [1.0, 0.0], atol=1e-9)
    assert sol.b == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(sol.alpha, [0.5, 0.0, 0.5, 0.0], atol=1e-9)
    assert sol.margin == pytest.approx(1.0, abs=1e-9)
    assert sol.support.tolist() == [0, 2]
    assert sol.certificate.ok


@pytest.mark.parametrize("C", [0.1, 0.3])
def test_two_points_soft_bound_svs(C):
    # x = +1 (y=+1), x = -1 (y=-1), C < 1/2. By symmetry take b = 0:
    # P(w) = w^2/2 + 2C max(0, 1 - w), minimised at w = 2C < 1 (both points inside the
    # margin, so alpha_i = C: bound SVs). D = 2C - (2C)^2/2 = P. Any b with |b| <= 1 - 2C
    # is optimal too (the hinge sum is flat there), so only that interval is checked.
    ds = Dataset([[1.0], [-1.0]], [1, -1])
    for form in ("dual", "primal"):
        sol = solve(SVMProblem(ds, C=C), form=form)
        assert sol.w[0] == pytest.approx(2 * C, abs=1e-10)
        assert abs(sol.b) <= 1 - 2 * C + 1e-10
        np.testing.assert_allclose(sol.alpha, [C, C], atol=1e-10)
        assert sol.primal_objective == pytest.approx(2 * C - 2 * C * C, abs=1e-10)
        assert sol.bound_support.tolist() == [0, 1] and sol.margin_support.size == 0


@pytest.mark.parametrize("seed,d,margin", [(0, 2, 0.5), (1, 3, 0.37), (2, 5, 0.05)])
def test_generator_margin_recovered(seed, d, margin):
    ds = make_separable(60, d, margin=margin, seed=seed, offset=0.3)
    sol = solve(SVMProblem(ds, hard=True))
    assert sol.margin == pytest.approx(margin, abs=1e-8)
    np.testing.assert_allclose(sol.w, ds.meta["w"], atol=1e-8 * np.linalg.norm(ds.meta["w"]))
    assert sol.b == pytest.approx(ds.meta["b"], abs=1e-8 * np.linalg.norm(ds.meta["w"]))
    # Independent check of hard-margin feasibility.
    assert (ds.y * (ds.X @ sol.w + sol.b)).min() >= 1 - 1e-9


# ----------------------------------------------------------------------------- precision


@pytest.mark.parametrize("intercept", ["free", "none", "augmented"])
def test_polish_reaches_target_precision(intercept):
    ds = make_gaussians(400, 6, seed=3)
    sol = solve(SVMProblem(ds, C=0.7, intercept=intercept))
    c = sol.certificate
    assert sol.polished
    assert abs(c.relative_gap) <= 1e-10
    assert max(c.kkt.values()) <= 1e-9, c.kkt
    # P and D recomputed here from scratch agree with the solution's.
    Z = ds.X if intercept != "augmented" else np.hstack([ds.X, np.ones((ds.n, 1))])
    wt = sol.w if intercept != "augmented" else np.append(sol.w, sol.b)
    b = sol.b if intercept == "free" else 0.0
    P = np_primal(Z, ds.y, wt, b, 0.7)
    assert P == pytest.approx(sol.primal_objective, rel=1e-12)
    assert np_dual(Z, ds.y, sol.alpha) == pytest.approx(P, rel=1e-10)


def test_primal_equals_dual_all_routes():
    ds = make_gaussians(150, 4, seed=5)
    p = SVMProblem(ds, C=2.0)
    sols = [solve(p, form=f, solver=s, interface=i) for f, s, i in ROUTES]
    for s in sols[1:]:
        assert s.primal_objective == pytest.approx(sols[0].primal_objective, rel=1e-10)
        np.testing.assert_allclose(s.w, sols[0].w, atol=1e-8)
        assert s.b == pytest.approx(sols[0].b, abs=1e-8)
        np.testing.assert_allclose(s.alpha, sols[0].alpha, atol=1e-7)


def test_C_form_equals_lambda_form():
    ds = make_gaussians(120, 3, seed=7)
    C = 0.5
    a = solve(SVMProblem(ds, C=C))
    b = solve(SVMProblem(ds, lam=1.0 / (C * ds.n)))
    np.testing.assert_allclose(a.w, b.w, atol=1e-10)
    assert a.b == pytest.approx(b.b, abs=1e-10)
    # F = P / (C n), computed here.
    F = 0.5 / (C * ds.n) * a.w @ a.w + np.maximum(0, 1 - ds.y * (ds.X @ a.w + a.b)).mean()
    assert F == pytest.approx(a.primal_objective / (C * ds.n), rel=1e-12)


def test_augmented_equals_none_with_constant_column_and_free_ignores_it():
    ds = make_gaussians(100, 3, seed=11)
    s = 2.5
    aug = solve(SVMProblem(ds, C=1.0, intercept="augmented", intercept_scaling=s))
    Xc = np.hstack([ds.X, np.full((ds.n, 1), s)])
    hom = solve(SVMProblem(Dataset(Xc, ds.y), C=1.0, intercept="none"))
    # Mapping: w~ = (w, b/s) on (x, s) <-> w on (x, s) with no intercept.
    np.testing.assert_allclose(hom.w[:-1], aug.w, atol=1e-9)
    assert hom.w[-1] * s == pytest.approx(aug.b, abs=1e-9)
    assert hom.primal_objective == pytest.approx(aug.primal_objective, rel=1e-11)
    # free on (x, 1): the constant column is dominated by the unregularised b.
    free = solve(SVMProblem(ds, C=1.0))
    free_c = solve(SVMProblem(Dataset(np.hstack([ds.X, np.ones((ds.n, 1))]), ds.y), C=1.0))
    assert free_c.w[-1] == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(free_c.w[:-1], free.w, atol=1e-9)
    assert free_c.b == pytest.approx(free.b, abs=1e-9)


def test_sample_order_invariance():
    ds = make_gaussians(150, 4, seed=2)
    perm = np.random.default_rng(0).permutation(ds.n)
    a = solve(SVMProblem(ds, C=1.0))
    b = solve(SVMProblem(Dataset(ds.X[perm], ds.y[perm]), C=1.0))
    np.testing.assert_allclose(a.w, b.w, atol=1e-10)
    assert a.b == pytest.approx(b.b, abs=1e-10)
    np.testing.assert_allclose(a.alpha[perm], b.alpha, atol=1e-9)
    assert sorted(perm[b.support].tolist()) == a.support.tolist()


def test_sparse_equals_dense():
    ds = load("builtin:heart_scale")
    a = solve(SVMProblem(ds, C=0.5))
    b = solve(SVMProblem(Dataset(ds.dense(), ds.y), C=0.5))
    np.testing.assert_allclose(a.w, b.w, atol=1e-10)
    assert a.b == pytest.approx(b.b, abs=1e-10)


def test_heart_scale_certified():
    ds = load("builtin:heart_scale")
    for form in ("dual", "primal"):
        sol = solve(SVMProblem(ds, C=1.0), form=form)
        assert sol.status == "optimal" and sol.certificate.ok and sol.polished
        assert abs(sol.certificate.relative_gap) <= 1e-10
        assert max(sol.certificate.kkt.values()) <= 1e-9
        X = ds.dense()
        assert np_primal(X, ds.y, sol.w, sol.b, 1.0) == pytest.approx(
            sol.primal_objective, rel=1e-12
        )
        assert 0 < len(sol.margin_support) < len(sol.support) < ds.n


# ----------------------------------------------------------------------------- edge cases


def test_all_zero_features():
    # w = 0 is forced (w != 0 changes no f_i and costs ||w||^2/2). With 3 positives and
    # 2 negatives, P(0, b) = C [3 max(0, 1 - b) + 2 max(0, 1 + b)] = C (5 - b) on
    # [-1, 1], increasing outside it, so b = 1 and P = 4 C.
    X = np.zeros((5, 3))
    y = np.array([1, 1, 1, -1, -1])
    sol = solve(SVMProblem(Dataset(X, y), C=1.0))
    np.testing.assert_allclose(sol.w, 0.0, atol=1e-12)
    assert sol.b == pytest.approx(1.0, abs=1e-9)
    assert sol.primal_objective == pytest.approx(4.0, abs=1e-9)
    assert sol.margin == np.inf and sol.certificate.ok
    json.dumps(sol.to_dict())  # inf written as a string, JSON stays valid
    with pytest.raises(NotSeparableError):
        solve(SVMProblem(Dataset(X, y), hard=True))


def test_d_greater_than_n():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 60))
    y = np.where(rng.random(12) < 0.5, -1.0, 1.0)
    y[:2] = [1, -1]
    ds = Dataset(X, y)
    assert is_separable(ds)
    sol = solve(SVMProblem(ds, hard=True))
    assert sol.certificate.ok
    r = y * (X @ sol.w + sol.b)
    assert r.min() >= 1 - 1e-9
    # With d > n and generic data every point is a margin SV (r = 1).
    np.testing.assert_allclose(r[sol.support], 1.0, atol=1e-9)


def test_duplicates_same_label_and_single_feature_and_unequal_classes():
    rng = np.random.default_rng(4)
    X = np.concatenate([rng.normal(2, 0.5, 40), rng.normal(-2, 0.5, 4)])[:, None]
    X = np.vstack([X, X[:5]])
    y = np.concatenate([np.ones(40), -np.ones(4), np.ones(5)])
    sol = solve(SVMProblem(Dataset(X, y), C=1.0))
    assert sol.certificate.ok


# ----------------------------------------------------------------------------- not separable


def check_hull_certificate(ds, z, with_balance=True):
    """Independent numpy check of a non-separability certificate."""
    assert (z >= 0).all()
    assert z.sum() == pytest.approx(1.0, abs=1e-12)
    if with_balance:
        assert z @ ds.y == pytest.approx(0.0, abs=1e-12)
    X = ds.dense()
    assert np.linalg.norm(X.T @ (z * ds.y)) <= 1e-10 * max(1.0, ds.R)


@pytest.mark.parametrize("intercept", ["free", "none", "augmented"])
@pytest.mark.parametrize("form", ["dual", "primal"])
def test_not_separable_raises_with_verified_certificate(intercept, form):
    ds = make_gaussians(80, 3, seed=1)
    with pytest.raises(NotSeparableError) as ei:
        solve(SVMProblem(ds, hard=True, intercept=intercept), form=form)
    cert = ei.value.certificate
    assert cert.verified
    check_hull_certificate(ds, cert.z, with_balance=intercept != "none")
    if intercept != "none":
        # The hull point is a convex combination of each class.
        zp = cert.z * (ds.y > 0)
        zn = cert.z * (ds.y < 0)
        np.testing.assert_allclose(ds.X.T @ zp / zp.sum(), ds.X.T @ zn / zn.sum(), atol=1e-10)
        np.testing.assert_allclose(cert.hull_point, ds.X.T @ zp / zp.sum(), atol=1e-12)
    assert not is_separable(ds, intercept)


def test_duplicate_points_opposite_labels():
    ds = Dataset([[1.0, 2.0], [1.0, 2.0], [4.0, 0.0], [-3.0, 1.0]], [1, -1, 1, -1])
    with pytest.raises(NotSeparableError, match="not linearly separable") as ei:
        solve(SVMProblem(ds, hard=True))
    z = ei.value.certificate.z
    check_hull_certificate(ds, z)
    np.testing.assert_allclose(z, [0.5, 0.5, 0, 0], atol=1e-12)
    assert json.dumps(ei.value.certificate.to_dict())
    # Soft margin on the same data is fine.
    assert solve(SVMProblem(ds, C=1.0)).certificate.ok


def test_is_separable_none_vs_free():
    # 1-D: positives at 1, 2; negatives at 3. Separable with an intercept, but not
    # through the origin (w x >= 1 on positives and -w x >= 1 at 3 need w > 0 and w < 0).
    ds = Dataset([[1.0], [2.0], [3.0]], [1, 1, -1])
    assert is_separable(ds, "free")
    assert not is_separable(ds, "none")


# ----------------------------------------------------------------------------- result API


def test_solution_api_and_json():
    ds = make_gaussians(60, 2, seed=0)
    sol = solve(SVMProblem(ds, C=1.0))
    d = sol.to_dict()
    for key in (
        "w",
        "b",
        "alpha",
        "support",
        "margin_support",
        "bound_support",
        "primal_objective",
        "dual_objective",
        "duality_gap",
        "kkt",
        "margin",
        "status",
        "solver",
        "form",
        "intercept",
        "C",
        "lam",
        "solve_seconds",
    ):
        assert key in d
    json.dumps(d)
    assert set(d["support"]) == set(d["margin_support"]) | set(d["bound_support"])
    np.testing.assert_allclose(sol.decision_function(ds.X), ds.X @ sol.w + sol.b)
    assert set(np.unique(sol.predict(ds.X))) <= {-1.0, 1.0}
    text = sol.summary()
    for word in (
        "primal objective",
        "dual objective",
        "duality gap",
        "KKT",
        "margin",
        "support vectors",
        "training error",
        "time",
    ):
        assert word in text
    hard = solve(SVMProblem(make_separable(20, 2, seed=0), hard=True)).to_dict()
    assert hard["C"] == "inf" and hard["hard"] is True
    with pytest.raises(AttributeError):
        sol.b = 0.0  # frozen


def test_available_solvers_default_first():
    names = available_solvers()
    assert names[0] in ("IPM", "PIQP", "CLARABEL")
    # (the IPM is the default where maxmargin.solvers.ipm.suitable holds: not at tiny sizes)
    assert solve(SVMProblem(make_gaussians(3000, 8), C=1.0)).solver == names[0]


def test_bad_input():
    p = SVMProblem(make_gaussians(30, 2), C=1.0)
    with pytest.raises(ParameterError, match="form"):
        solve(p, form="both")
    with pytest.raises(ParameterError, match="unknown solver"):
        solve(p, solver="NOPE")
    if "ECOS" not in available_solvers():
        with pytest.raises(SolverError, match="pip install ecos"):
            solve(p, solver="ECOS")
    with pytest.raises(ParameterError, match="interface"):
        solve(p, interface="magic")
    with pytest.raises(ParameterError, match="direct interface"):
        solve(p, solver="OSQP", interface="direct")
    with pytest.raises(ParameterError, match="SVMProblem"):
        solve(np.eye(2))


def test_sparse_features_with_all_zero_column():
    X = sp.random(80, 10, density=0.3, random_state=0, format="csr")
    X = sp.hstack([X, sp.csr_matrix((80, 1))], format="csr")
    y = np.where(np.random.default_rng(0).random(80) < 0.5, -1.0, 1.0)
    sol = solve(SVMProblem(Dataset(X, y), C=1.0))
    assert sol.certificate.ok and sol.w[-1] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("solver", ["PIQP", "CLARABEL"])
def test_tiny_margin_is_solved_not_called_infeasible(solver):
    # gamma = 1e-4 with points spread over radius 2: ||w*|| = 1e4, P* = 5e7. PIQP's dual
    # infeasibility test misfires here; solve must consult the LP and fall back.
    ds = make_separable(200, 3, margin=1e-4, seed=0)
    sol = solve(SVMProblem(ds, hard=True), solver=solver)
    assert sol.margin == pytest.approx(1e-4, rel=1e-7)
    assert sol.certificate.ok


def test_uncertified_advice_names_only_solvers_not_tried():
    # PIQP ran and ended uncertified (at C = 1e12 the stationarity's rounding bound, 6e-7,
    # is far above tol 1e-9: undecided): the advice names Clarabel, not PIQP again
    with pytest.warns(RuntimeWarning, match="NOT CERTIFIED") as rec:
        sol = solve(SVMProblem(load("builtin:heart_scale"), C=1e12), tol=1e-9)
    assert sol.solver == "PIQP" and sol.status == "uncertified"
    text = " ".join(str(w.message) for w in rec)
    assert "interior-point solver (CLARABEL)" in text and "(PIQP" not in text


def test_negative_weight_message_prints_the_plain_number():
    ds = load("builtin:heart_scale")
    w = np.ones(len(ds.y))
    w[3] = -1.0
    with pytest.raises(DataError, match=r"example 3 has -1\.0$"):
        SVMProblem(ds, C=1.0, sample_weight=w)


def _raw_wine():
    datasets = pytest.importorskip("sklearn.datasets")
    wn = datasets.load_wine()
    keep = wn.target < 2
    return wn.data[keep], np.where(wn.target[keep] == 0, 1.0, -1.0)


@pytest.mark.parametrize("intercept", ["none", "augmented", "free"])
def test_hard_margin_point_is_feasible_to_rounding_on_raw_wine(intercept):
    # raw wine (features 0.1 .. 1.7e3): y f >= 1 was violated by up to 2.5e-9 (none), a
    # negative relative gap of -2e-9 and a margin 1e-9 too large. Now any violation is
    # within its rounding bound (the certificate's, ~1e-13 here), and so is the gap.
    X, y = _raw_wine()
    sol = solve(SVMProblem(Dataset(X, y), hard=True, intercept=intercept))
    cert = sol.certificate
    assert cert.ok and sol.polished
    assert cert.kkt["primal_feasibility"] <= cert.floors["primal_feasibility"] <= 1e-12
    r = y * (X @ sol.w + sol.b)
    assert r.min() >= 1.0 - 1e-13  # and in plain numpy too
    assert abs(cert.relative_gap) <= cert.floors["relative_gap"] <= 1e-11


def test_hard_margin_every_route_fails_on_is_solved_as_a_soft_margin():
    # wine with its columns scaled by 10^-2..10^3: the hard-margin dual defeats PIQP and
    # the IPM (both call it infeasible) and Clarabel (its point misses y f >= 1 by 3.4).
    # The soft margin at a large C has the same optimum and a bounded dual.
    X, y = _raw_wine()
    X = X / X.std(axis=0) * 10.0 ** np.array([-2.0, 0, 0, 0, 3, 0, 1, 0, -2, 0, 1, 0, 1])
    ds = Dataset(X, y)
    sol = solve(SVMProblem(ds, hard=True, intercept="none"))
    cert = sol.certificate
    assert cert.ok and cert.kkt["primal_feasibility"] <= cert.floors["primal_feasibility"]
    assert sol.bound_support.size == 0 and sol.status == "optimal"
    soft = solve(SVMProblem(ds, C=1e9, intercept="none"))  # C far above max alpha
    assert soft.certificate.ok and soft.bound_support.size == 0
    assert sol.margin == pytest.approx(soft.margin, rel=1e-9)
    assert sol.support.tolist() == soft.support.tolist()


@pytest.mark.parametrize("C", [1e-310, 1e-320, 5e-324])
def test_subnormal_C_is_refused_naming_C(heart, C):
    # C = 1e-320 ended NOT CERTIFIED (alpha in [0, C] has 11 significant bits: the
    # equality could not be met to 1e-6) while 1e-300 certifies: below the smallest
    # normal double C is refused, before any solve, with what to do instead (below 1/(n
    # DBL_MAX) already by SVMProblem, whose lam = 1/(C n) would overflow)
    with pytest.raises(
        ParameterError, match=r"^C = .* smallest normal double.*scale the|'C' .*overflows to inf"
    ):
        solve(SVMProblem(heart, C=C))
    w = np.ones(heart.n)
    w[0] = 1e-300  # a weighted cost C s_i below it: the same
    with pytest.raises(ParameterError, match=r"smallest cost C s_i"):
        solve(SVMProblem(heart, C=1e-10, sample_weight=w))


def test_smallest_normal_C_still_certifies(heart):
    for C in (1e-300, 2.2250738585072014e-308):
        sol = solve(SVMProblem(heart, C=C))
        assert sol.certificate.ok and sol.status == "optimal", C
