"""Wrong numbers an audit found in the exact solve, each reduced to a hand-solved case.

Zero rows of both labels at a large C (the polish must find ``w = 1``, not certify a
point 13% off), support sets once some ``alpha_i = C`` (a margin SV with ``alpha = 1/2``
must stay one at ``C = 1e8``), and duplicated points with opposite labels (a singular
reduced KKT system whose minimum-norm multipliers leave their box). References are hand
derivations in the comments; each property runs across scales (``X`` times
1e-150..1e150, ``C`` from 1e-30 to 1e30 where ``C R^2`` is solvable).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from maxmargin import Dataset, ExactSVC, SVMProblem, certify, solve
from maxmargin.report.path import markdown

# Two zero rows (labels + and -) and x = +-1. Each zero row has y f = 0 whatever (w, b):
# it pays C (xi = 1) and sits at its bound alpha = C. The rest is the two-point problem
# with w = 1, b = 0, alpha = 1/2 on each (for C >= 1/2): the zero rows only add 2C.
ZERO_ROWS = (np.array([[0.0], [0.0], [1.0], [-1.0]]), np.array([1, -1, 1, -1]))

# The same with x = +-2 added: y f = 2 there, so alpha = 0; x = +-1 stay the margin SVs.
SV6 = (np.array([[0.0], [0.0], [2.0], [-2.0], [1.0], [-1.0]]), np.array([1, -1, 1, -1, 1, -1]))


@pytest.mark.parametrize("intercept", ["none", "free", "augmented"])
@pytest.mark.parametrize("C", [1e8, 1e10, 1e14])
def test_zero_rows_of_both_labels_polish_to_the_hand_solved_optimum(intercept, C):
    # The solver stops at a relative gap of ~1e-9 of P ~ 2C: w was 1.13 (C = 1e8) or 3.16
    # (C = 1e10), unpolished and CERTIFIED. The optimum is w = 1 exactly.
    sol = solve(SVMProblem(Dataset(*ZERO_ROWS), C=C, intercept=intercept))
    assert sol.certificate.ok and sol.polished
    np.testing.assert_allclose(sol.w, [1.0], rtol=1e-12)
    assert abs(sol.b) <= 1e-12
    np.testing.assert_allclose(sol.alpha, [C, C, 0.5, 0.5], rtol=1e-12)
    assert sol.margin_support.tolist() == [2, 3] and sol.bound_support.tolist() == [0, 1]
    assert math.isclose(sol.margin, 1.0, rel_tol=1e-12)


def test_sv6_keeps_its_margin_svs_when_two_alphas_are_at_C():
    # alpha = (C, C, 0, 0, 1/2, 1/2), w = 1: x = +-1 are margin SVs (y f = 1 exactly). The
    # threshold tau max(alpha) = tau C (4.9 at C = 1e8) dropped them.
    X, y = SV6
    for C in (1e6, 1e8, 1e12):
        sol = solve(SVMProblem(Dataset(X, y), C=C))
        assert sol.certificate.ok and sol.polished
        np.testing.assert_allclose(sol.w, [1.0], rtol=1e-12)
        assert sol.support.tolist() == [0, 1, 4, 5], C
        assert sol.margin_support.tolist() == [4, 5] and sol.bound_support.tolist() == [0, 1]
    clf = ExactSVC(C=1e8).fit(X, y)
    assert sorted(clf.support_.tolist()) == [0, 1, 4, 5]  # scikit-learn's SVC: [1 5 0 4]
    # the dual coefficients rebuild coef_ (they were [] @ X = 0 against coef_ = 1)
    np.testing.assert_allclose(clf.dual_coef_ @ X[clf.support_], clf.coef_, rtol=1e-12)


def _duplicates_with_opposite_labels() -> Dataset:
    # 20 points, each 3 times with one label, then 9 of them again with the other label
    rng = np.random.default_rng(0)
    B = np.repeat(rng.normal(size=(20, 2)), 3, axis=0)
    yB = np.repeat(np.where(rng.random(20) < 0.5, 1, -1), 3)
    return Dataset(np.vstack([B, B[:9]]), np.r_[yB, -yB[:9]])


@pytest.mark.parametrize("C", [1.0, 4.735, 100.0])
def test_duplicates_with_opposite_labels_polish_to_rounding(C):
    # 39 margin SVs in d' = 3: the reduced KKT system is singular and its minimum-norm
    # alpha left the box; the point stayed unpolished at relative gaps of 1.6e-11 to
    # 6.4e-10 against a rounding bound of 2.4e-14.
    sol = solve(SVMProblem(_duplicates_with_opposite_labels(), C=C, intercept="augmented"))
    cert = sol.certificate
    assert cert.ok and sol.polished
    assert abs(cert.relative_gap) <= cert.floors["relative_gap"]
    assert cert.max_residual() <= 1e-13


def test_zero_rows_added_to_random_data_polish_to_rounding():
    # the audit's sweep, reduced: random 2-D data plus 1-3 pairs of zero rows, no intercept
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n, k = int(rng.integers(6, 20)), int(rng.integers(1, 4))
        X = np.vstack([rng.normal(size=(n, 2)), np.zeros((2 * k, 2))])
        y = np.r_[np.where(np.arange(n) % 2 == 0, 1, -1), np.tile([1, -1], k)]
        for C in (1e7, 1e9):
            sol = solve(SVMProblem(Dataset(X, y), C=C, intercept="none"))
            cert = sol.certificate
            assert cert.ok and sol.polished, (seed, C)
            assert abs(cert.relative_gap) <= 10 * cert.floors["relative_gap"], (seed, C)


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["none", "free", "augmented"]),
    st.floats(-141, 150),
    st.floats(0, 12),
    st.booleans(),
)
def test_sv6_sets_and_weights_at_every_scale(intercept, log_s, log_cs2, zero_rows_only):
    # X -> s X, C -> C / s^2 is the same problem: w = 1/s, alpha = (C, C, [0, 0,] 1/(2s^2),
    # 1/(2s^2)) whenever C s^2 >= 1/2 (here 1..1e12: above ~1e15, 2C rounds away the unit-size
    # terms of the objective and w is not decided in double precision); C from 1e-282
    # to 1e300
    s = 10.0**log_s
    C = 10.0 ** (log_cs2 - 2 * log_s)
    X, y = ZERO_ROWS if zero_rows_only else SV6
    margin_svs = [2, 3] if zero_rows_only else [4, 5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the augmented column scales with X (intercept_scaling s): the same problem
        sol = solve(SVMProblem(Dataset(X * s, y), C=C, intercept=intercept, intercept_scaling=s))
    assert sol.certificate.ok
    assert math.isclose(sol.w[0] * s, 1.0, rel_tol=1e-9)
    assert sol.margin_support.tolist() == margin_svs
    assert sol.bound_support.tolist() == [0, 1]


def _raw(name: str) -> Dataset:
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    if name == "wine":  # classes 0 vs 1
        keep = y < 2
        return Dataset(X[keep], np.where(y[keep] == 0, 1, -1))
    return Dataset(X, np.where(y == 1, 1, -1))


@pytest.mark.parametrize("name", ["wine", "breast_cancer"])
@pytest.mark.parametrize("intercept", ["none", "free", "augmented"])
@pytest.mark.parametrize("C", [1.0, 1e3])
def test_direct_clarabel_certifies_raw_wine_and_breast_cancer(name, intercept, C):
    # Raw columns from 1e-3 to 4e3: rescaled to max ||z_i|| = 1, Clarabel called the
    # bounded soft-margin dual unbounded ('DualInfeasible'); it must agree with the
    # default route's optimum.
    problem = SVMProblem(_raw(name), C=C, intercept=intercept)
    sol = solve(problem, solver="CLARABEL")
    ref = solve(problem)
    assert sol.certificate.ok and ref.certificate.ok
    scale = max(1.0, float(np.linalg.norm(ref.w)))
    assert float(np.linalg.norm(sol.w - ref.w)) <= 1e-6 * scale


@pytest.mark.parametrize("s", [1e-150, 1e-20, 1e20, 1e150])
def test_direct_clarabel_on_raw_wine_at_every_scale(s):
    # X -> s X, C -> C / s^2: the same problem, w -> w / s
    ds = _raw("wine")
    ref = solve(SVMProblem(ds, C=1.0))
    sol = solve(SVMProblem(Dataset(ds.X * s, ds.y), C=1.0 / s**2), solver="CLARABEL")
    assert sol.certificate.ok
    np.testing.assert_allclose(sol.w * s, ref.w, rtol=1e-6, atol=1e-9 * np.abs(ref.w).max())


def _hard_solves_fail(monkeypatch):
    """Make every hard-margin solve fail as raw breast_cancer's does (soft ones run)."""
    import maxmargin.exact as exact
    from maxmargin import SolverError

    real = exact.solve

    def solve_or_fail(problem, *args, **kwargs):
        if problem.hard:
            raise SolverError("PIQP_MAX_ITER_REACHED (as on raw breast_cancer)")
        return real(problem, *args, **kwargs)

    monkeypatch.setattr(exact, "solve", solve_or_fail)


def test_the_grid_path_keeps_its_points_when_the_hard_margin_fails(monkeypatch):
    # The path's soft solves all certify; the final hard-margin solve (C*) raised
    # SolverError and lost every point. Now: C* nan, the reason in a field and a warning.
    from maxmargin import regularization_path
    from maxmargin.evaluation.path.limits import HardMarginLimit

    _hard_solves_fail(monkeypatch)
    ds = Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1])
    with pytest.warns(RuntimeWarning, match="C\\* .* is not determined"):
        rp = regularization_path(ds, C=[0.1, 1.0, 10.0], hard_limit=True)
    assert all(c.ok for c in rp.certificates) and len(rp.C) == 3
    lim = rp.hard_margin_limit
    assert lim is not None and lim.separable and math.isnan(lim.C_star)
    assert "PIQP_MAX_ITER_REACHED" in lim.failure
    assert HardMarginLimit.from_json(lim.to_dict()).failure == lim.failure
    assert "C* not determined" in markdown(rp)


def test_the_exact_path_on_raw_breast_cancer_keeps_its_breakpoints():
    # Separable, but its hard margin is not decidable in double precision: the exact path
    # stops for precision and used to end in the hard-margin solve's SolverError.
    from maxmargin import regularization_path

    ds = _raw("breast_cancer")
    with pytest.warns(RuntimeWarning, match="not determined"):
        ep = regularization_path(ds, exact=True)
    assert ep.separable and ep.end_reason in ("precision", "unsettled")
    assert len(ep) > 0 and ep.certified
    assert math.isnan(ep.C_star) and "hard-margin solve failed" in ep.C_star_failure
    assert ep.to_dict()["C_star_failure"] == ep.C_star_failure
    assert "C* not determined" in markdown(ep)


def test_digits_gap_above_its_floor_is_the_stretch_and_no_rounding_error():
    # digits 3 vs 8, C = 1e4: relative gap 1.67e-12 against a floor of 1.5e-12. The floor
    # is right: the gap is the stretch's real cost 2 delta (every margin SV at 1 + delta),
    # and undoing the stretch gives a point whose gap is within its floor, but whose
    # floor (8.8e-7, the slacks rounding allows times C) proves far less.
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_digits(return_X_y=True)
    keep = (y == 3) | (y == 8)
    problem = SVMProblem(Dataset(X[keep], np.where(y[keep] == 3, 1, -1)), C=1e4)
    sol = solve(problem)
    cert = sol.certificate
    assert cert.ok
    r = problem.margins(sol.w, sol.b)
    delta = float(r[sol.margin_support].min()) - 1.0
    assert 0 < delta <= 1e-10
    np.testing.assert_allclose(r[sol.margin_support], 1.0 + delta, rtol=0, atol=1e-13)
    # the gap is 2 delta (its rounding aside), the complementarity delta
    assert abs(cert.relative_gap - 2 * delta) <= cert.floors["relative_gap"]
    assert abs(cert.kkt["complementary_alpha"] - delta) <= cert.floors["complementary_alpha"]
    unstretched = certify(problem, sol.w / (1 + delta), sol.b / (1 + delta), sol.alpha)
    assert abs(unstretched.relative_gap) <= unstretched.floors["relative_gap"]
    assert unstretched.accuracy() > 1e3 * cert.accuracy()


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(["none", "free", "augmented"]),
    st.floats(-140, 140),
    st.floats(0, 10),
)
@example(385657, "free", -79.3929976002649, math.log10(14012.047839807276))  # unpolished
@example(174, "none", 1.0, 0.0)  # every alpha_i = C: no margin SV for the polish to solve for
def test_zero_rows_polish_to_rounding_at_every_scale(seed, intercept, log_s, log_cs2):
    # random 2-D data plus 1-3 pairs of zero rows, X -> s X and C -> C / s^2 (C s^2 from 1
    # to 1e10): polished, the relative gap within 10 times its rounding bound (4 of 150
    # such draws stayed unpolished at 1e-11 against 1e-14 before)
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(6, 20)), int(rng.integers(1, 4))
    X = np.vstack([rng.normal(size=(n, 2)), np.zeros((2 * k, 2))])
    y = np.r_[np.where(np.arange(n) % 2 == 0, 1, -1), np.tile([1, -1], k)]
    s = 10.0**log_s
    problem = SVMProblem(
        Dataset(X * s, y), C=10.0**log_cs2 / s**2, intercept=intercept, intercept_scaling=s
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = solve(problem)
    cert = sol.certificate
    assert cert.ok and sol.polished
    assert abs(cert.relative_gap) <= 10 * cert.floors["relative_gap"]
