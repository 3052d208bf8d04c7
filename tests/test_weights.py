"""Example weights (``sample_weight``, ``class_weight``): costs ``C_i = C s_i`` everywhere.

The reference for every exact route and both paths is the data with repeated rows: a
weight k is k copies of the example (the C form is the same problem), so the objective,
``w`` and ``b`` must agree, and each weighted ``alpha_i`` is the sum of its copies'.
The certificate is held to an independent reference at every scale (the repeated rows'
optimum, by Clarabel on the problem normalised by hand: ``_scale_reference``);
scikit-learn's ``SVC(sample_weight=...)`` is the reference at ordinary scale; each
weighted online rule is checked against a naive loop.
"""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from _scale_reference import dual_units, features, log_c, objective_units, reference
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from maxmargin import Dataset, SVMProblem, certify, make_separable, regularization_path, solve
from maxmargin.cli import main
from maxmargin.data import load
from maxmargin.data.sources import _PACKAGE_DATA
from maxmargin.evaluation.path.limits import hard_margin_limit, min_margin_sv_C
from maxmargin.exceptions import DataError, ParameterError, SolverError
from maxmargin.online import PA1, PA2, AveragedPerceptron, Pegasos, resolve, run, schedule
from maxmargin.problem import combine_weights
from maxmargin.solvers.scaling import scaled_problem

INTERCEPTS = ["free", "none", "augmented"]


def _noisy(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.3 + 0.8 * rng.standard_normal(n) > 0, 1.0, -1.0)
    w = rng.integers(0, 4, n).astype(float)
    w[np.flatnonzero(y > 0)[0]] = w[np.flatnonzero(y < 0)[0]] = 2.0  # both classes count
    return Dataset(X, y), w


def _repeated(ds, w):
    rep = np.repeat(np.arange(ds.n), w.astype(int))
    return ds.subset(rep), rep


def _same_optimum(a, r, rep, n, *, w_tol=1e-9, alpha=True):
    """``a`` (weighted) and ``r`` (repeated rows) agree.

    The same objective, w, b, and alpha of each example the sum of its copies'.
    """
    assert a.certificate.ok and r.certificate.ok
    assert a.primal_objective == pytest.approx(r.primal_objective, rel=1e-12)
    scale = max(1.0, float(np.linalg.norm(r.w)))
    np.testing.assert_allclose(a.w, r.w, rtol=0, atol=w_tol * scale)
    assert a.b == pytest.approx(r.b, abs=w_tol * scale)
    if alpha:
        summed = np.bincount(rep, weights=r.alpha, minlength=n)
        np.testing.assert_allclose(
            a.alpha, summed, rtol=0, atol=1e-9 * max(1.0, float(summed.max()))
        )


# ------------------------------------------------------------------ the problem


def test_costs_objectives_and_the_lambda_form():
    ds = Dataset([[1.0], [-1.0], [2.0]], [1, -1, 1])
    p = SVMProblem(ds, C=2.0, sample_weight=[3.0, 1.0, 0.0])
    assert p.costs.tolist() == [6.0, 2.0, 0.0] and p.weighted
    # P = 1/2 ||w||^2 + sum C_i xi_i at w = 0.5: xi = (0.5, 0.5, 0)
    assert float(p.primal_objective([0.5], 0.0)) == 0.125 + 6 * 0.5 + 2 * 0.5
    # F = P / (C n), lam = 1/(C n) as without weights (scikit-learn's SGDClassifier)
    assert p.lam == 1 / 6
    assert float(p.lambda_objective([0.5], 0.0)) == pytest.approx(
        float(p.primal_objective([0.5], 0.0)) / (2.0 * 3)
    )
    # weights all exactly 1 are no weights: the unweighted computation, bit for bit
    q = SVMProblem(ds, C=2.0, sample_weight=np.ones(3))
    assert q.weights is None and not q.weighted
    assert "weighted" in repr(p) and "weighted" not in repr(q)


def test_class_weight_as_scikit_learn():
    ds = Dataset.from_labels([[0.0], [1.0], [2.0], [3.0]], ["a", "b", "b", "b"])
    w, cw = combine_weights(ds, class_weight="balanced")
    assert cw == {"a": 2.0, "b": 4 / 6} and w.tolist() == [2.0, 4 / 6, 4 / 6, 4 / 6]
    w, cw = combine_weights(ds, [1.0, 2.0, 0.0, 1.0], {"b": 3.0})
    assert w.tolist() == [1.0, 6.0, 0.0, 3.0] and cw == {"a": 1.0, "b": 3.0}
    num = Dataset.from_labels([[0.0], [1.0]], [3, 5])
    assert combine_weights(num, class_weight={"5": 2.0})[0].tolist() == [1.0, 2.0]  # CLI text


@pytest.mark.parametrize(
    "kw,match",
    [
        ({"sample_weight": [1.0, -1.0, 1.0]}, "finite and >= 0"),
        ({"sample_weight": [1.0, np.nan, 1.0]}, "finite and >= 0"),
        ({"sample_weight": [1.0, 1.0]}, r"shape \(3,\)"),
        ({"sample_weight": [0.0, 0.0, 0.0]}, "every sample weight is zero"),
        ({"sample_weight": [1.0, 0.0, 1.0]}, "class -1 has weight zero"),
        ({"class_weight": {7: 2.0}}, "does not have"),
        ({"class_weight": "heavy"}, "'balanced'"),
        ({"class_weight": {1: -2.0}}, "finite and >= 0"),
        ({"sample_weight": [1e300, 1.0, 1.0], "C": 1e10}, "overflow"),
        ({"sample_weight": [1.0, 2.0, 1.0], "hard": True}, "soft margin"),
    ],
)
def test_bad_weights_say_what_is_wrong(kw, match):
    ds = Dataset([[1.0], [-1.0], [2.0]], [1, -1, 1])
    with pytest.raises((DataError, ParameterError), match=match):
        SVMProblem(ds, **kw)


# ------------------------------------------------------------------ the certificate


def test_certificate_judges_each_example_against_its_own_box():
    ds = Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1])
    p = SVMProblem(ds, C=1.0, sample_weight=[2.0, 2.0, 0.0])
    sol = solve(p)
    assert sol.certificate.ok and sol.alpha[2] == 0.0
    # alpha_1 = 1.5 C is inside [0, C_1 = 2C], but outside the unweighted box [0, C]
    c = certify(SVMProblem(ds, C=1.0, sample_weight=[2.0, 2.0, 1.0]), [1.0], 0.0, [1.5, 1.5, 0.0])
    assert c.kkt["dual_feasibility"] == 0.0
    c = certify(SVMProblem(ds, C=1.0), [1.0], 0.0, [1.5, 1.5, 0.0])
    assert c.kkt["dual_feasibility"] == 0.5
    # weight 0: its box is {0}; any alpha_i there is infinitely far out -- decided
    bad = certify(p, sol.w, sol.b, sol.alpha + np.array([0.0, 0.0, 1e-300]))
    assert bad.kkt["dual_feasibility"] == math.inf and not bad.ok and bad.undecided is None
    # and the slack of an example of weight 0 costs nothing
    assert (
        certify(p, sol.w, sol.b, sol.alpha).kkt["complementary_xi"]
        == sol.certificate.kkt["complementary_xi"]
    )


@settings(max_examples=25, deadline=None)
@given(k=st.integers(-300, 300), m=st.integers(-60, 60), seed=st.integers(0, 1000))
def test_certificate_exactly_invariant_to_scaling_weights_and_data(k, m, seed):
    # (X, C, s) ~ (2^k X, C 4^-k, s) ~ (X, C 2^m, s 2^-m): the same problem, every
    # operation of the certificate scaled by an exact power of two
    ds, w = _noisy(seed=seed)
    p = SVMProblem(ds, C=0.7, sample_weight=w * 0.3)
    sol = solve(p)
    k = max(-400, min(400, k))
    t = math.ldexp(1.0, k // 2)
    q = scaled_problem(p, t)
    r = SVMProblem(ds, C=0.7 * 2.0**m, sample_weight=w * 0.3 * 2.0**-m)
    c1 = certify(p, sol.w, sol.b, sol.alpha)
    for c2 in (
        certify(q, sol.w / t, sol.b, sol.alpha / (t * t)),
        certify(r, sol.w, sol.b, sol.alpha),
    ):
        assert c1.ok == c2.ok and c1.kkt == c2.kkt and c1.relative_gap == c2.relative_gap


@st.composite
def weighted_scaled(draw):
    """``(X, y, m, k, j, c)``: integer weights m (0..3) times 10^c, data times 10^k, C = 10^j."""
    n = draw(st.integers(8, 30))
    d = draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + rng.standard_normal(n) * 0.7 > 0, 1.0, -1.0)
    if (y > 0).all() or (y < 0).all():
        y[0] = -y[0]
    m = rng.integers(0, 4, n).astype(float)
    m[np.flatnonzero(y > 0)[0]] = m[np.flatnonzero(y < 0)[0]] = 1.0
    j = draw(st.sampled_from([0, -30, 30, -6, 6]) | st.integers(-30, 30))
    k = draw(
        st.sampled_from([0, -150, 150, -50, 50])
        | st.integers(-150, 150)
        | st.integers(-3, 3).map(lambda e: max(-150, min(150, -j // 2 + e)))
    )
    c = draw(st.sampled_from([0, -10, 10]) | st.integers(-10, 10))
    return X, y, m, k, j, c


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# C = 1e8 with weights of 1e-10 and X times 1e150: C / t^2 overflowed where the costs
# C s_i / t^2 did not (scaled_problem now moves the weights' scale into C)
@example(
    case=(
        np.array([[0.126], [-0.132], [0.640], [0.105], [-0.536], [0.362], [1.304], [0.947]]),
        np.array([-1.0, -1, -1, -1, 1, -1, -1, -1]),
        np.array([1.0, 2, 0, 1, 1, 1, 1, 0]),
        150,
        8,
        -10,
    ),
    intercept="none",
    eps=1e-4,
    seed=0,
)
# C' = C R^2 finite but C' n beyond the doubles in the rescaled sub-problem (a weight 0
# leaves n = 7): a SolverError, not the sub-problem's ParameterError about a C never given
@example(
    case=(
        np.array(
            [
                0.12573022,
                -0.13210486,
                0.64042265,
                0.10490012,
                -0.53566937,
                0.36159505,
                1.30400005,
                0.94708096,
                -0.70373524,
                -1.26542147,
                -0.62327446,
            ]
        )[:, None],
        np.array([-1.0, -1, -1, -1, -1, -1, 1, 1, -1, 1, -1]),
        np.array([1.0, 2, 1, 2, 3, 1, 1, 3, 3, 3, 1]),
        143,
        30,
        -10,
    ),
    intercept="free",
    eps=1e-4,
    seed=0,
)
@example(
    case=(
        np.array([[0.346], [0.822], [0.330], [-1.303], [0.905], [0.446], [-0.537], [0.581]]),
        np.array([1.0, 1, 1, -1, 1, -1, 1, 1]),
        np.array([1.0, 1, 3, 1, 2, 1, 0, 3]),
        150,
        17,
        -10,
    ),
    intercept="free",
    eps=1e-4,
    seed=0,
)
@given(
    case=weighted_scaled(),
    intercept=st.sampled_from(INTERCEPTS),
    eps=st.sampled_from([1e-4, 1e-2, 0.3]),
    seed=st.integers(0, 2**16),
)
def test_certified_means_optimal_with_weights_at_every_scale(case, intercept, eps, seed):
    # weights m 10^c with integers m: the problem is the repeated rows' at C' = C 10^c,
    # whose optimum the independent reference brackets; whenever certify says ok, the
    # point's P and D must lie within O(tol) of it (the solution and perturbed points)
    X0, y, m, k, j, c = case
    X = X0 * 10.0**k
    C, s = 10.0**j, m * 10.0**c
    try:
        p = SVMProblem(
            Dataset(X, y), C=C, intercept=intercept, sample_weight=s, intercept_scaling=10.0**k
        )
    except DataError:
        return  # C s_i beyond the doubles: refused, as it must be
    rep = np.repeat(np.arange(len(y)), m.astype(int))
    Cr = C * 10.0**c
    Zr = features(X[rep], intercept, p.intercept_scaling)
    ref = reference(X[rep], y[rep], Cr, False, intercept, p.intercept_scaling)
    if ref is not None and (ref[1] - ref[0]) > 1e-9 * ref[0]:
        ref = None
    try:
        sol = solve(p)
    except SolverError as e:
        lc10 = log_c(Zr, Cr) / math.log(10)
        assert ref is None or abs(lc10) > 6, (k, j, c, str(e))
        return
    if ref is not None and abs(log_c(Zr, Cr * 3) / math.log(10)) <= 6:
        assert sol.certificate.ok, (k, j, c, sol.certificate)
    if ref is None:
        return
    lo, hi, unit = ref
    slack_ref = (hi - lo) / lo
    rng = np.random.default_rng(seed)
    Z = features(X, intercept, p.intercept_scaling)
    points = [
        ("solution", sol.w, sol.b, sol.alpha),
        ("w*(1+eps)", sol.w * (1 + eps), sol.b, sol.alpha),
        ("alpha*(1+eps)", sol.w, sol.b, sol.alpha * (1 + eps)),
        ("alpha permuted", sol.w, sol.b, rng.permutation(sol.alpha)),
        ("all times (1+eps)", sol.w * (1 + eps), sol.b * (1 + eps), sol.alpha * (1 + eps)),
    ]
    for name, w, b, a in points:
        for tol in (1e-6, 1e-9):
            cert = certify(p, w, b, a, tol=tol)
            if not cert.ok:
                continue
            P = objective_units(Zr, y[rep], w, b, Cr, False, intercept, p.intercept_scaling, unit)
            D = dual_units(Z, y, a, unit)
            slack = 10 * tol + slack_ref + 1e-12
            ctx = (name, tol, k, j, c, lo, hi, P, D, cert)
            assert lo * (1 - 1e-12) <= P <= hi * (1 + slack), ctx
            assert lo * (1 - slack) <= D <= hi * (1 + slack), ctx


# ------------------------------------------------------------------ every exact route

ROUTES = [
    ("IPM", "dual", "auto"),
    ("PIQP", "dual", "auto"),
    ("PIQP", "primal", "auto"),
    ("CLARABEL", "dual", "auto"),
    ("CLARABEL", "primal", "auto"),
    ("DCD", "dual", "auto"),
    ("CLARABEL", "dual", "cvxpy"),
    ("CLARABEL", "primal", "cvxpy"),
]


@pytest.mark.parametrize("solver,form,interface", ROUTES)
@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_integer_weights_are_repeated_rows_on_every_route(solver, form, interface, intercept):
    ds, w = _noisy(seed=1)
    dr, rep = _repeated(ds, w)
    kw = dict(solver=solver, form=form, interface=interface)
    a = solve(SVMProblem(ds, C=0.7, intercept=intercept, sample_weight=w), **kw)
    r = solve(SVMProblem(dr, C=0.7, intercept=intercept), **kw)
    _same_optimum(a, r, rep, ds.n)
    assert (a.alpha[w == 0] == 0).all()
    # every support set relative to its own box
    assert set(a.bound_support) <= set(np.flatnonzero(a.alpha >= 0.7 * w * (1 - 1e-6)))


def test_weights_on_sparse_data_and_the_default_route():
    ds, w = _noisy(n=60, d=4, seed=2)
    dr, rep = _repeated(ds, w)
    sds = Dataset(sp.csr_matrix(ds.X), ds.y)
    for data in (ds, sds):
        a = solve(SVMProblem(data, C=2.0, sample_weight=w))
        r = solve(SVMProblem(dr, C=2.0))
        _same_optimum(a, r, rep, ds.n)
    d2 = Dataset(sp.csr_matrix(ds.X), ds.y)
    a = solve(SVMProblem(d2, C=2.0, sample_weight=w), solver="DCD")
    _same_optimum(a, solve(SVMProblem(dr, C=2.0)), rep, ds.n)


def test_the_cvxpy_models_take_the_weights():
    ds, w = _noisy(n=25, seed=3)
    p = SVMProblem(ds, C=0.5, sample_weight=w * 0.5)
    P = solve(p).primal_objective
    for form in ("primal", "dual"):
        assert float(p.to_cvxpy(form).solve(solver="CLARABEL")) == pytest.approx(P, rel=1e-7)
        assert float(p.to_cvxpy(form, "lambda").solve(solver="CLARABEL")) == pytest.approx(
            p.lam * P, rel=1e-7
        )


def test_extreme_weights_are_rescaled_exactly():
    # weights 1e12 with C 1e-12: the costs are ordinary; the solve sees them as such
    ds, w = _noisy(seed=4)
    a = solve(SVMProblem(ds, C=1e-12, sample_weight=w * 1e12))
    b = solve(SVMProblem(ds, C=1.0, sample_weight=w))
    assert a.certificate.ok and a.primal_objective == pytest.approx(b.primal_objective, rel=1e-10)


# ------------------------------------------------------------------ paths and their ends


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_paths_with_integer_weights_are_the_repeated_rows_paths(intercept):
    ds, w = _noisy(n=30, d=2, seed=5)
    dr, rep = _repeated(ds, w)
    grid = [0.01, 0.1, 1.0, 10.0]
    a = regularization_path(ds, C=grid, intercept=intercept, sample_weight=w)
    r = regularization_path(dr, C=grid, intercept=intercept)
    assert a.certified and r.certified
    np.testing.assert_allclose(a.primal, r.primal, rtol=1e-12)
    np.testing.assert_allclose(a.slack_sum, r.slack_sum, rtol=1e-9, atol=1e-12)
    # warm-started points are certified to 1e-9, so w agrees to ~sqrt(gap) at worst
    np.testing.assert_allclose(a.w, r.w, atol=1e-7)
    summed = np.array([np.bincount(rep, weights=row, minlength=ds.n) for row in r.alpha])
    np.testing.assert_allclose(a.alpha, summed, atol=1e-7)
    assert (a.n_margin_sv <= r.n_margin_sv).all()
    ea = regularization_path(ds, exact=True, intercept=intercept, sample_weight=w)
    er = regularization_path(dr, exact=True, intercept=intercept)
    assert ea.certified and er.certified and len(ea) == len(er) > 0
    np.testing.assert_allclose(ea.breakpoints, er.breakpoints, rtol=1e-12)
    Cs = np.array([0.003, 0.05, 0.7, 4.0])
    Cs = Cs[Cs < ea.C_end]
    np.testing.assert_allclose(ea.coefficients(Cs)[0], er.coefficients(Cs)[0], atol=1e-12)
    for C in Cs:
        summed = np.bincount(rep, weights=er.alpha_at(C), minlength=ds.n)
        np.testing.assert_allclose(ea.alpha_at(C), summed, atol=1e-12)
        pt = ea.solution_at(C)
        assert pt.certificate.ok and (pt.alpha[w == 0] == 0).all()
    assert set(np.flatnonzero(w == 0)) <= set(ea.solution_at(Cs[-1]).right)


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_limits_with_weights(intercept):
    ds = make_separable(30, 2, seed=3)
    w = np.random.default_rng(2).integers(0, 4, 30).astype(float)
    w[np.flatnonzero(ds.y > 0)[0]] = w[np.flatnonzero(ds.y < 0)[0]] = 1.0
    dr, _ = _repeated(ds, w)
    assert min_margin_sv_C(ds, intercept, sample_weight=w) == pytest.approx(
        min_margin_sv_C(dr, intercept), rel=1e-9
    )
    hw, hr = hard_margin_limit(ds, intercept, sample_weight=w), hard_margin_limit(dr, intercept)
    assert hw.C_star == pytest.approx(hr.C_star, rel=1e-6)
    assert hw.alpha.shape == (30,) and (hw.alpha[w == 0] == 0).all()
    # C_0: every example at its own bound below it, a margin SV above
    c0 = min_margin_sv_C(ds, intercept, sample_weight=w)
    if 0 < c0 < math.inf:
        below = solve(SVMProblem(ds, C=0.5 * c0, intercept=intercept, sample_weight=w))
        assert below.margin_support.size == 0
    # C*: from C* on, the hard-margin solution
    above = solve(SVMProblem(ds, C=1.01 * hw.C_star, intercept=intercept, sample_weight=w))
    np.testing.assert_allclose(above.w, hw.w, atol=1e-7)


# ------------------------------------------------------------------ scikit-learn


def test_svc_with_sample_weight_and_class_weight_is_the_reference():
    pytest.importorskip("sklearn")
    from sklearn.svm import SVC

    from maxmargin.estimators import ExactSVC

    ds, _ = _noisy(n=80, d=4, seed=6)
    X, y = ds.X, np.where(ds.y > 0, "yes", "no")
    sw = np.random.default_rng(6).uniform(0.0, 3.0, 80)
    sw[:4] = 0.0
    for cw in (None, "balanced", {"yes": 3.0}):
        sk = SVC(kernel="linear", C=0.8, tol=1e-12, class_weight=cw).fit(X, y, sample_weight=sw)
        mm = ExactSVC(C=0.8, class_weight=cw).fit(X, y, sample_weight=sw)
        assert mm.certificate_.ok
        np.testing.assert_allclose(mm.coef_, sk.coef_, atol=1e-6)
        np.testing.assert_allclose(mm.intercept_, sk.intercept_, atol=1e-6)
        # libsvm drops the weight-0 rows first: its support_ indexes the rows left
        alpha = np.zeros(80)
        alpha[np.flatnonzero(sw > 0)[sk.support_]] = np.abs(sk.dual_coef_[0])
        cert = certify(mm.solution_.problem, sk.coef_[0], sk.intercept_[0], alpha)
        assert cert.ok, cert
    # integer weights: the fit of the repeated rows (and weight 0: the row removed)
    m = np.random.default_rng(1).integers(0, 3, 80).astype(float)
    m[:2] = 1.0
    rep = np.repeat(np.arange(80), m.astype(int))
    a = ExactSVC(C=0.8).fit(X, y, sample_weight=m)
    b = ExactSVC(C=0.8).fit(X[rep], y[rep])
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)
    # the solution keeps its weights: a pickle re-certifies on (X, y) alone ...
    back = pickle.loads(pickle.dumps(a))
    assert back.recertify(X, y).ok and back.solution_.problem.weights.tolist() == m.tolist()
    # ... and the same point is no optimum of the problem without them
    y_pm = np.where(y == a.classes_[1], 1.0, -1.0)
    assert not certify(
        SVMProblem(Dataset(X, y_pm), C=0.8), a.coef_[0], a.intercept_[0], a.alpha_
    ).ok


def test_online_estimators_take_weights():
    from maxmargin.estimators import PAClassifier, PegasosClassifier, PerceptronClassifier

    ds, _ = _noisy(n=50, seed=7)
    X, y = ds.X, ds.y
    one = PerceptronClassifier(order="cyclic", epochs=3).fit(X, y)
    two = PerceptronClassifier(order="cyclic", epochs=3).fit(X, y, sample_weight=np.full(50, 2.0))
    np.testing.assert_array_equal(two.coef_, 2 * one.coef_)  # w += 2 y z: exactly twice
    # PA-I with weights s: C_i = C s_i, so weights 2 are C doubled
    np.testing.assert_allclose(
        PAClassifier(C=0.3, order="cyclic").fit(X, y, sample_weight=np.full(50, 2.0)).coef_,
        PAClassifier(C=0.6, order="cyclic").fit(X, y).coef_,
        rtol=1e-13,
    )
    # Pegasos: the hinge term times 2 is lambda halved (the same steps)
    np.testing.assert_allclose(
        PegasosClassifier(lam=0.1, order="cyclic").fit(X, y, sample_weight=np.full(50, 2.0)).coef_,
        PegasosClassifier(lam=0.05, order="cyclic").fit(X, y).coef_,
        rtol=1e-12,
    )
    # a weight-0 row never updates the perceptron: the fit without it
    keep = np.ones(50, bool)
    keep[[3, 9]] = False
    sw = keep.astype(float)
    np.testing.assert_array_equal(
        PerceptronClassifier(order="cyclic").fit(X, y, sample_weight=sw).coef_,
        PerceptronClassifier(order="cyclic").fit(X[keep], y[keep]).coef_,
    )
    # class_weight multiplies in; partial_fit cannot know the counts 'balanced' needs
    a = PerceptronClassifier(order="cyclic", class_weight={1.0: 2.0}).fit(X, y)
    b = PerceptronClassifier(order="cyclic").fit(X, y, sample_weight=np.where(y > 0, 2.0, 1.0))
    np.testing.assert_array_equal(a.coef_, b.coef_)
    with pytest.raises(ParameterError, match="partial_fit"):
        PerceptronClassifier(class_weight="balanced").partial_fit(X, y)
    with pytest.raises(ParameterError, match="no example weights"):
        PAClassifier(variant="pa").fit(X, y, sample_weight=sw)


# ------------------------------------------------------------------ weighted online rules


def _Z(ds):
    return np.hstack([ds.X, np.ones((ds.n, 1))])


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(b).max()))


def test_weighted_steps_match_naive_loops():
    ds, _ = _noisy(n=37, d=3, seed=8)
    Z, y = _Z(ds), ds.y
    s = np.random.default_rng(8).uniform(0.0, 2.5, ds.n)
    s[5] = 0.0
    idx = schedule(ds.n, 3, "shuffle", seed=4)
    # the averaged perceptron: w += s_i y z on y w.z <= 0 (weight 0: no update)
    w, ws, L = np.zeros(4), [], 0.0
    for i in idx:
        m = y[i] * (w @ Z[i])
        L += s[i] * max(0.0, 1 - m)
        if m <= 0 and s[i] > 0:
            w = w + s[i] * y[i] * Z[i]
        ws.append(w.copy())
    tr = run(
        AveragedPerceptron(intercept="augmented"),
        ds,
        epochs=3,
        order="shuffle",
        seed=4,
        sample_weight=s,
        record_dual=True,
    )
    _close(tr.w_tilde()[-1], np.mean(ws, axis=0))  # its trace reports the average
    _close(tr.loss[-1], L)
    # Pegasos (greedy projection onto the ball of radius sqrt(mean(s) / lam))
    lam = 0.05
    w = np.zeros(4)
    for t, i in enumerate(idx, start=1):
        eta = 1 / (lam * (t + 1))
        g = s[i] * y[i] * Z[i] if y[i] * (w @ Z[i]) < 1 else 0.0
        w = (1 - eta * lam) * w + eta * g
        r = math.sqrt(s.mean() / lam)
        if np.linalg.norm(w) > r:
            w = w * r / np.linalg.norm(w)
    tr = run(
        Pegasos(lam=lam, projection="greedy", intercept="augmented"),
        ds,
        epochs=3,
        order="shuffle",
        seed=4,
        sample_weight=s,
        record_dual=True,
    )
    _close(tr.w_tilde()[-1], w)
    _close(Z.T @ (tr.dual[-1] * y), w)  # the implied dual point carries the weights
    # PA-I and PA-II with C_i = C s_i
    for cls, step in (
        (PA1, lambda ell, q, Ci: min(Ci, ell / q)),
        (PA2, lambda ell, q, Ci: ell / (q + 1 / (2 * Ci)) if Ci > 0 else 0.0),
    ):
        w = np.zeros(4)
        for i in idx:
            ell = max(0.0, 1 - y[i] * (w @ Z[i]))
            w = w + step(ell, Z[i] @ Z[i], 0.3 * s[i]) * y[i] * Z[i]
        _close(
            run(
                cls(C=0.3, intercept="augmented"),
                ds,
                epochs=3,
                order="shuffle",
                seed=4,
                sample_weight=s,
            ).w_tilde()[-1],
            w,
        )


def test_learners_without_a_weight_rule_refuse_weights():
    ds, w = _noisy(seed=9)
    for name in ("pocket", "winnow", "voted_perceptron", "dual_perceptron", "pa"):
        with pytest.raises(ParameterError, match="no example weights"):
            run(resolve(name), ds, sample_weight=w)


def test_compare_measures_learners_against_the_weighted_optimum():
    from maxmargin import compare

    ds, w = _noisy(n=60, d=2, seed=10)
    p = SVMProblem(ds, C=0.2, intercept="augmented", sample_weight=w)
    cmp = compare(ds, problem=p, learners=["pegasos", "perceptron"], epochs=30, seeds=(0,))
    peg = next(r for r in cmp.runs if r.label == "pegasos")
    # Pegasos minimises F = lam/2 ||w~||^2 + (1/n) sum s_i hinge_i: it gets close
    assert peg.rel_subopt[-1] < 1e-2 and peg.dual_gap[-1] >= peg.subopt[-1] - 1e-12
    per = next(r for r in cmp.runs if r.label == "perceptron")
    assert "weighted steps" in per.not_available["novikoff"]


# ------------------------------------------------------------------ the command line


def test_cli_weights_file_is_the_weighted_problem(tmp_path, capsys):

    heart = str(_PACKAGE_DATA / "heart_scale")
    data = load("builtin:heart_scale")
    s = np.random.default_rng(0).integers(0, 4, data.n)
    wfile = tmp_path / "w.txt"
    wfile.write_text("weight\n" + "\n".join(map(str, s)) + "\n")
    out = tmp_path / "s.json"
    assert main(["solve", heart, "--C", "0.5", "--weights", str(wfile), "--json", str(out)]) == 0
    assert "weighted (C_i = C s_i" in capsys.readouterr().out
    js = json.loads(out.read_text())
    X, y = data.X.toarray(), data.y
    w, b = np.array(js["w"]), js["b"]
    P = 0.5 * w @ w + 0.5 * (s * np.maximum(0, 1 - y * (X @ w + b))).sum()
    assert P == pytest.approx(js["primal_objective"], rel=1e-9)
    assert js["weights"] == pytest.approx(s.tolist())
    # --class-weight balanced is scikit-learn's n / (2 n_c)
    out2 = tmp_path / "b.json"
    assert (
        main(["solve", heart, "--C", "0.5", "--class-weight", "balanced", "--json", str(out2)]) == 0
    )
    ref = solve(SVMProblem(data, C=0.5, class_weight="balanced"))
    assert json.loads(out2.read_text())["primal_objective"] == pytest.approx(
        ref.primal_objective, rel=1e-9
    )


@pytest.mark.parametrize(
    "argv,match",
    [
        (["--weights", "{missing}"], "cannot read"),
        (["--weights", "{short}"], "270"),
        (["--weights", "{negative}"], "line 270"),
        (["--class-weight", "1:x"], "LABEL:WEIGHT"),
        (["--class-weight", "7:2"], "7"),
        (["--hard", "--weights", "{ok}"], "soft margin"),
    ],
)
def test_cli_bad_weights_one_line_exit_2(tmp_path, capsys, argv, match):

    files = {
        "missing": tmp_path / "nope.txt",
        "short": tmp_path / "short.txt",
        "negative": tmp_path / "neg.txt",
        "ok": tmp_path / "ok.txt",
    }
    files["short"].write_text("1\n2\n")
    files["negative"].write_text("\n".join(["1"] * 269 + ["-1"]) + "\n")
    files["ok"].write_text("\n".join(["1"] * 270) + "\n")
    argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in argv]
    code = main(["solve", str(_PACKAGE_DATA / "heart_scale"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and match in err, err


def test_cli_compare_refuses_learners_without_weights_before_the_work(tmp_path, capsys):

    code = main(
        [
            "compare",
            str(_PACKAGE_DATA / "heart_scale"),
            "--class-weight",
            "balanced",
            "--learners",
            "perceptron,winnow",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "winnow" in err and not (tmp_path / "out").exists()


def test_scaled_problem_keeps_every_cost_exact_and_C_finite():
    # (t X, C / t^2) with t a power of two: the costs C s_i / t^2 bit for bit, also where
    # C / t^2 alone is beyond the doubles (the weights' scale goes into C)
    ds = make_separable(12, 2, margin=0.2, seed=0)
    w = np.linspace(1.0, 3.0, 12) * 1e-300
    p = SVMProblem(ds, C=1e300, sample_weight=w)
    for k in (-500, -200, 0, 200):
        t = math.ldexp(1.0, k)
        q = scaled_problem(p, t)
        assert math.isfinite(q.C)
        np.testing.assert_array_equal(q.costs, np.ldexp(p.costs, -2 * k))
