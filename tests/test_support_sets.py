"""Support sets at every C: the definitions of docs/formulations.md, checked independently.

The sets are read off ``alpha`` (:func:`maxmargin.certificate.support_sets`): margin SVs
``0 < alpha_i < C``, bound SVs ``alpha_i = C``, the rest ``alpha_i = 0``. They must not
depend on how far C lies above ``max alpha`` (the hard-margin regime), and they must
agree with the KKT conditions of the point: the reference here classifies every example
by its margin ``r_i = y_i f(x_i)`` (computed here with numpy) wherever the certificate's
accuracy decides, and by ``alpha`` only among the points on the margin. On digits 3 vs 8
the sets are compared with a second solver (Clarabel's dual, through cvxpy, at a tight
tolerance).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from maxmargin import Dataset, ExactSVC, SolverError, SVMProblem, regularization_path, solve


def test_the_hand_solved_sets_at_a_huge_C():
    # x = 1, -1, 3 with labels +, -, +: w = 1, b = 0, alpha = (1/2, 1/2, 0) for every
    # C >= 1/2 (the hard margin). The sets used to vanish once 1e-8 C > 1/2.
    ds = Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1])
    for C in (1.0, 1e9, 1e12, 1e15):
        sol = solve(SVMProblem(ds, C=C))
        assert sol.certificate.ok
        np.testing.assert_allclose(sol.alpha, [0.5, 0.5, 0.0], atol=1e-12)
        assert sol.support.tolist() == [0, 1], C
        assert sol.margin_support.tolist() == [0, 1] and sol.bound_support.size == 0
        assert 0 < sol.sv_tol <= 1e-3 * 0.5
    clf = ExactSVC(C=1e9).fit([[1.0], [-1.0], [3.0]], [1, -1, 1])
    assert clf.support_.tolist() == [1, 0]  # SVC's order: class -1 first
    np.testing.assert_allclose(clf.dual_coef_, [[-0.5, 0.5]], atol=1e-12)


def test_the_grid_path_counts_the_same_sets():
    ds = Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1])
    rp = regularization_path(ds, C=[0.1, 1.0, 1e9], hard_limit=False)
    # C = 0.1 < 1/2: alpha = (C, C, 0), two bound SVs; above 1/2: two margin SVs
    assert rp.n_bound_sv.tolist() == [2, 0, 0]
    assert rp.n_margin_sv.tolist() == [0, 2, 2]


def _digits_3_vs_8():
    datasets = pytest.importorskip("sklearn.datasets")
    dg = datasets.load_digits()
    keep = np.isin(dg.target, [3, 8])
    return dg.data[keep], np.where(dg.target[keep] == 3, 1.0, -1.0)


def _clarabel_dual_alpha(X, y, C, intercept):
    """alpha of the dual by Clarabel (cvxpy), at a tight tolerance: a second route."""
    cp = pytest.importorskip("cvxpy")
    Z = np.hstack([X, np.ones((len(X), 1))]) if intercept == "augmented" else X
    a = cp.Variable(len(y))
    cons = [a >= 0, a <= C]
    if intercept == "free":
        cons.append(y @ a == 0)
    obj = cp.Minimize(0.5 * cp.sum_squares((Z * y[:, None]).T @ a) - cp.sum(a))
    cp.Problem(obj, cons).solve(
        solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12, max_iter=500
    )
    return np.asarray(a.value, float)


@pytest.mark.parametrize("intercept", ["none", "augmented", "free"])
def test_digits_3_vs_8_at_C_1e4_keep_all_29_support_vectors(intercept):
    # C = 1e4 is far above max alpha (~1e-2): the soft margin is the hard margin. The sets
    # were empty (none, augmented) or short of 2 (free) with a threshold relative to C.
    X, y = _digits_3_vs_8()
    ds = Dataset(X, y)
    sol = solve(SVMProblem(ds, C=1e4, intercept=intercept))
    hard = solve(SVMProblem(ds, hard=True, intercept=intercept))
    ref = _clarabel_dual_alpha(X, y, 1e4, intercept)
    big = ref > 1e-6 * ref.max()
    # the second route's alpha are unambiguous: nothing between 1e-9 and 1e-6 of the max
    assert not np.any((ref > 1e-9 * ref.max()) & ~big)
    assert big.sum() == 29
    assert sol.certificate.ok and sol.bound_support.size == 0
    assert sol.support.tolist() == np.flatnonzero(big).tolist()
    assert sol.margin_support.tolist() == sol.support.tolist()
    assert hard.support.tolist() == sol.support.tolist()
    clf = ExactSVC(C=1e4, intercept=intercept).fit(X, y)
    assert sorted(clf.support_.tolist()) == sol.support.tolist()


# ----------------------------------------------------------------------------- property


def _kkt_reference(problem, sol):
    """Each example's set by the KKT conditions of the returned point, or None (undecided).

    ``r_i = y_i f(x_i)`` from numpy; ``eta = 2 sqrt(kappa)``, ``kappa`` the
    certificate's proven accuracy (at least 2^-52). Complementary slackness certified to
    kappa gives: ``r_i > 1 + eta`` -> ``alpha_i <= sqrt(kappa) max alpha / 2``, not a
    support vector; ``r_i < 1 - eta`` -> ``alpha_i >= (1 - sqrt(kappa) / 2) C``, a bound
    SV. On the margin ``alpha`` decides, and the reference takes only clear values: at
    least 1e-3 of max alpha and 1e-3 below C (a margin SV), exactly 0 (none), at C (to
    1e-12, bound); any other value on the margin is left undecided.
    """
    X = problem.data.X
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    y = problem.data.y
    r = y * (X @ sol.w + sol.b)
    a = sol.alpha
    amax = float(a.max())
    kappa = max(sol.certificate.accuracy(), 2.0**-52)
    eta = 2.0 * math.sqrt(kappa)
    C = math.inf if problem.hard else problem.C
    ref = np.full(problem.n, None, dtype=object)
    ref[r > 1 + eta] = "none"
    if not problem.hard:
        ref[r < 1 - eta] = "bound"
    on = np.abs(r - 1) <= eta
    ref[on & (a >= 1e-3 * amax) & (a <= (1 - 1e-3) * C)] = "margin"
    ref[on & (a == 0)] = "none"
    if not problem.hard:
        ref[on & (a >= (1 - 1e-12) * C)] = "bound"
    return ref


@st.composite
def problems(draw):
    """Small dense problems, ``C = 10^j`` for j in [-6, 12], features times ``10^k``.

    Separable data (a gap around a random hyperplane) at every C, and the hard margin;
    overlapping classes (label noise) for ``C R^2 <= 1e6``, where double precision can
    still resolve both terms of the soft-margin objective.
    """
    n = draw(st.integers(6, 40))
    d = draw(st.integers(1, 5))
    intercept = draw(st.sampled_from(["free", "none", "augmented"]))
    separable = draw(st.booleans())
    hard = separable and draw(st.booleans())
    j = draw(st.sampled_from([-6, 0, 4, 9, 12]) | st.floats(-6, 12))
    k = draw(st.sampled_from([0, -3, 3]) | st.integers(-3, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.standard_normal((n, d))
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    score = X @ u + (0.0 if intercept == "none" else rng.uniform(-0.5, 0.5))
    if separable:
        keep = np.abs(score) >= 0.2
        X, score = X[keep], score[keep]
    else:
        score = score + rng.standard_normal(score.size)
        j = min(j, 6 - 2 * k - 1)  # C R^2 <= 1e6 (R ~ 3 10^k)
    y = np.where(score >= 0, 1.0, -1.0)
    if y.size < 3 or abs(y.sum()) == y.size:
        X, y = np.array([[1.0], [-1.0], [3.0]]), np.array([1.0, -1.0, 1.0])
    s = 10.0**k
    kw = {"hard": True} if hard else {"C": 10.0**j}
    return SVMProblem(Dataset(X * s, y), intercept=intercept, intercept_scaling=s, **kw)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(problem=SVMProblem(Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1]), C=1e9))
@given(problem=problems())
def test_support_sets_match_the_kkt_conditions_at_every_C(problem):
    try:
        sol = solve(problem)
    except SolverError:  # an extreme C R^2 the message explains (tested elsewhere)
        return
    if not sol.certificate.ok:
        return
    support, margin, bound = (
        set(s.tolist()) for s in (sol.support, sol.margin_support, sol.bound_support)
    )
    assert margin | bound == support and not margin & bound
    ref = _kkt_reference(problem, sol)
    for i, want in enumerate(ref):
        got = "bound" if i in bound else "margin" if i in margin else "none"
        assert want is None or got == want, (i, want, got, sol.alpha[i], sol.certificate.accuracy())
    # at least one margin SV or one bound SV: an optimum always has support vectors
    assert support
