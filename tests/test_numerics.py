"""The robust numerics (maxmargin/_numerics.py) against independent references.

Norms computed after an exact power-of-two scaling neither underflow nor overflow where
the plain formula does (data scaled by 1e-180 or 1e180), and agree with ``math.hypot`` /
``math.fsum`` references elsewhere; ``_ratio`` says ``0/0 = 0`` and ``x/0 = inf``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import maxmargin as mm
from maxmargin._numerics import (
    _ETA,
    _TINY,
    _U,
    _gamma,
    _maxabs,
    _norm,
    _pow2,
    _radius,
    _ratio,
    _row_norms,
    _row_norms_robust,
)


def test_constants_are_those_of_ieee_double():
    assert _U == np.finfo(float).eps / 2 and 1.0 + _U == 1.0 and 1.0 + 2 * _U > 1.0
    assert _TINY == np.finfo(float).tiny and _ETA == math.ulp(0.0)
    assert _gamma(1) == pytest.approx(_U) and _gamma(10) > 10 * _U
    assert _gamma(2**52) == math.inf  # k u >= 1/2: no bound


@pytest.mark.parametrize("m", [1e-310, 0.75, 1.0, 3.0, 1e300, 2.0**-1074])
def test_pow2_is_a_power_of_two_within_a_factor_two(m):
    p = _pow2(m)
    assert math.frexp(p)[0] == 0.5  # a power of two
    assert 0.5 <= m / p < 1.0


def test_pow2_of_zero_and_non_finite_is_one():
    assert _pow2(0.0) == _pow2(math.inf) == _pow2(math.nan) == 1.0


@given(
    st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=20),
    st.sampled_from([1e-180, 1e-30, 1.0, 1e30, 1e180]),
)
def test_norm_at_every_scale_against_hypot(values, scale):
    u = np.array(values) * scale
    ref = math.hypot(*u.tolist())
    assert _norm(u) == pytest.approx(ref, rel=1e-14, abs=0.0)


def test_norm_where_the_plain_formula_fails():
    tiny, huge = np.full(3, 1e-180), np.full(3, 1e180)
    assert _norm(tiny) == pytest.approx(math.sqrt(3) * 1e-180, rel=1e-15)
    assert _norm(huge) == pytest.approx(math.sqrt(3) * 1e180, rel=1e-15)
    assert _norm(np.zeros(4)) == 0.0 and _norm(np.zeros(0)) == 0.0
    assert _norm(np.array([1.0, np.inf])) == math.inf
    assert _maxabs(np.zeros(0)) == 0.0 and _maxabs([-3.0, 2.0]) == 3.0


@pytest.mark.parametrize("scale", [1e-170, 1.0, 1e170])
def test_row_norms_dense_and_sparse_agree_with_fsum(scale):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 4)) * scale
    X[2] = 0.0
    ref = [math.sqrt(math.fsum((v / scale) ** 2 for v in row)) * scale for row in X]
    assert np.allclose(_row_norms_robust(X), ref, rtol=1e-14, atol=0)
    assert np.allclose(_row_norms_robust(sp.csr_matrix(X)), ref, rtol=1e-14, atol=0)


def test_radius_of_a_dataset_is_cached_and_scale_free():
    ds = mm.make_gaussians(20, 3, seed=0)
    R = _radius(ds)
    assert R == pytest.approx(float(np.sqrt((ds.X**2).sum(axis=1)).max()), rel=1e-14)
    assert _row_norms(ds) is _row_norms(ds)  # computed once per Dataset
    small = mm.Dataset(ds.X * 1e-200, ds.y)
    assert _radius(small) == pytest.approx(R * 1e-200, rel=1e-14)


@pytest.mark.parametrize(
    "num, den, expected",
    [
        (0.0, 0.0, 0.0),
        (1.0, 0.0, math.inf),
        (3.0, 2.0, 1.5),
        (0.0, 5.0, 0.0),
        (2.0, -1.0, math.inf),
    ],
)
def test_ratio(num, den, expected):
    assert _ratio(num, den) == expected
