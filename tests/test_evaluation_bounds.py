"""The bounds a run is held to (maxmargin/evaluation/bounds.py), recomputed here.

The perceptron's mistake bound at its best scale against a brute-force minimum and across
scales of the data, the quadratic's root, a feasible dual point, the fitted rate.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maxmargin import SVMProblem, make_gaussians, solve
from maxmargin.evaluation.bounds import (
    best_scale_mistake_bound,
    feasible_dual,
    fit_rate,
    quadratic_mistake_bound,
)

# --------------------------------------------------------------------- the bounds


def _B(c, m, k, a1):
    """The bound for c u by brute force: the quadratic's root with L(c) summed plainly."""
    L = float(np.sum(k * np.maximum(0.0, 1.0 - c * m)))
    a = c * a1
    return ((a + math.sqrt(a * a + 4 * L)) / 2) ** 2


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30), a1=st.floats(0.01, 100.0))
def test_best_scale_bound_is_valid_and_near_the_brute_force_minimum(seed, n, a1):
    rng = np.random.default_rng(seed)
    m = rng.normal(0.5, 1.0, n)
    k = rng.integers(0, 5, n).astype(float)
    b, c = best_scale_mistake_bound(m, k, a1)
    assert b == pytest.approx(_B(c, m, k, a1), rel=1e-12, abs=1e-12)  # the value at c
    grid = np.geomspace(1e-6, 1e6, 20001)
    L = np.maximum(0.0, 1.0 - grid[:, None] * m) @ k
    brute = (((grid * a1 + np.sqrt((grid * a1) ** 2 + 4 * L)) / 2) ** 2).min()
    assert b <= brute * (1 + 1e-6) + 1e-12
    b1, _ = best_scale_mistake_bound(m, k, a1, scale=1.0)
    assert b1 == pytest.approx(_B(1.0, m, k, a1), rel=1e-12, abs=1e-12) and b <= b1 + 1e-12


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), e=st.integers(-150, 150))
def test_best_scale_bound_does_not_depend_on_the_data_scale(seed, e):
    # z -> k z scales the margins y u.z and R ||u|| by k: the best c by 1/k, the bound not
    rng = np.random.default_rng(seed)
    m = rng.normal(0.3, 1.0, 25)
    counts = rng.integers(0, 4, 25).astype(float)
    a1 = float(np.abs(m).max() * rng.uniform(1.0, 5.0))  # R||u|| >= max |y u.z|
    k = 10.0**e
    b0, c0 = best_scale_mistake_bound(m, counts, a1)
    b1, c1 = best_scale_mistake_bound(m * k, counts, a1 * k)
    assert b1 == pytest.approx(b0, rel=1e-9)
    assert c1 * k == pytest.approx(c0, rel=1e-6)


def test_quadratic_root_solves_the_inequality_exactly():
    L, a = np.array([0.0, 3.0, 50.0]), np.array([2.0, 1.5, 0.1])
    M = quadratic_mistake_bound(L, a)
    np.testing.assert_allclose(M, L + a * np.sqrt(M), rtol=1e-14)
    assert np.all(M <= L + a * np.sqrt(L) + a * a)  # tighter than the textbook form


def test_feasible_dual_free_intercept():
    data = make_gaussians(30, 2, seed=1)
    p = SVMProblem(data, C=0.3, intercept="free")
    a = np.random.default_rng(0).uniform(-1, 2, size=(4, 30))
    f = feasible_dual(a, p)
    assert np.all((f >= 0) & (f <= 0.3))
    np.testing.assert_allclose(f @ data.y, 0.0, atol=1e-12)
    sol = solve(p)
    D = f.sum(axis=1) - 0.5 * np.sum(((f * data.y) @ data.X) ** 2, axis=1)
    assert np.all(D <= sol.primal_objective + 1e-9)


def test_fit_rate():
    t = np.geomspace(1, 1e4, 30)
    assert fit_rate(t, 5 * t**-0.5) == pytest.approx(-0.5)
    assert math.isnan(fit_rate([1, 2], [1.0, 0.5]))
