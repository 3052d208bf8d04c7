"""Tests of maxmargin.evaluation.path.limits: the path's two ends, C_0 and C*."""

from __future__ import annotations

import math

import numpy as np
import pytest

from maxmargin import Dataset, make_gaussians, make_separable
from maxmargin.evaluation.path import regularization_path
from maxmargin.evaluation.path.limits import hard_margin_limit, min_margin_sv_C


def test_C_star_is_the_threshold():
    """w(C) = w_hard exactly for C >= C*, and not below it (unique hard dual)."""
    ds = make_separable(30, 2, margin=0.5, seed=7)
    lim = hard_margin_limit(ds)
    c = lim.C_star
    p = regularization_path(ds, C=[0.8 * c, 0.99 * c, c, 1.01 * c, 10 * c], hard_limit=False)
    hard_P = lim.primal_objective
    assert (p.slack_sum[:2] > 1e-9).all()
    assert (p.slack_sum[2:] <= 1e-9).all()
    np.testing.assert_allclose(p.primal[2:], hard_P, rtol=1e-9)
    assert (p.primal[:2] < hard_P * (1 - 1e-9)).all()


# ------------------------------------------------------------------ the analytical C_0


@pytest.mark.parametrize("intercept", ["free", "none", "augmented"])
def test_min_margin_sv_C_against_the_path(intercept):
    ds = make_gaussians(100, 3, seed=5)  # 50/50 classes: the free formula is closed form
    c0 = min_margin_sv_C(ds, intercept)
    assert 0 < c0 < math.inf
    p = regularization_path(
        ds, C=[0.5 * c0, 0.95 * c0, 1.02 * c0], intercept=intercept, hard_limit=False
    )
    assert p.n_margin_sv[:2].tolist() == [0, 0]
    assert p.n_bound_sv[:2].tolist() == [ds.n, ds.n]
    assert p.n_margin_sv[2] >= 1
    assert p.min_margin_sv_C == c0


def test_min_margin_sv_C_by_hand():
    # free, 2 points at +-2: g = 4, C_0 = 2 / (8 - (-8)).
    assert min_margin_sv_C(Dataset([[2.0], [-2.0]], [1, -1])) == 0.125
    # none: C_0 = 1 / max_i y_i g.x_i = 1 / 8; augmented adds s^2 sum y = 0 here.
    assert min_margin_sv_C(Dataset([[2.0], [-2.0]], [1, -1]), "augmented") == 0.125
    # free, unequal classes, integral small-C solution: + at 1, 2, 3 and - at -1.
    # beta* = (1, 0, 0) for the positives, w1 = 1 + 1 = 2, C_0 = 2 / (2 - (-2)) = 0.5.
    ds = Dataset([[1.0], [2.0], [3.0], [-1.0]], [1, 1, 1, -1])
    assert math.isclose(min_margin_sv_C(ds), 0.5, rel_tol=1e-12)
    p = regularization_path(ds, C=[0.45, 0.55], hard_limit=False)
    assert p.n_margin_sv.tolist()[0] == 0 and p.n_margin_sv[1] >= 1


def test_min_margin_sv_C_zero_for_fractional_majority():
    """Unequal classes with a fractional small-C solution: margin SVs at every C > 0."""
    ds = make_gaussians(61, 3, seed=2, positive_fraction=0.7)
    c0 = min_margin_sv_C(ds)
    if c0 == 0.0:
        p = regularization_path(ds, C=[1e-6, 1e-4], hard_limit=False)
        assert (p.n_margin_sv >= 1).all()
    else:  # integral: the closed form must hold as for balanced classes
        p = regularization_path(ds, C=[0.9 * c0, 1.02 * c0], hard_limit=False)
        assert p.n_margin_sv[0] == 0 and p.n_margin_sv[1] >= 1
