"""The seeded generators: make_separable (its exact geometry), make_gaussians."""

import inspect

import numpy as np
import pytest

import maxmargin as mm


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("d", [1, 2, 5])
def test_make_separable_margin_is_exact_geometry(seed, d):
    ds = mm.make_separable(40, d, margin=0.3, seed=seed, offset=0.7)
    w, b = ds.meta["w"], ds.meta["b"]
    yf = ds.y * (ds.X @ w + b)
    # every point on or outside the margin, and the pair at distance exactly 2*gamma
    assert yf.min() == pytest.approx(1.0, abs=1e-12)
    assert np.linalg.norm(ds.X[0] - ds.X[1]) == pytest.approx(2 * 0.3, abs=1e-12)
    assert 1 / np.linalg.norm(w) == pytest.approx(0.3)


def test_generators_are_seeded():
    a, b = mm.make_gaussians(30, 3, seed=5), mm.make_gaussians(30, 3, seed=5)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.X, mm.make_gaussians(30, 3, seed=6).X)


@pytest.mark.parametrize("make", [mm.make_separable, mm.make_gaussians])
def test_random_state_is_resolved_by_the_conventions(make):
    """scikit-learn's name, read by conventions.sklearn_names: a seed given too must agree.

    An explicit ``seed=0`` is given, even though it is the default's value: beside
    ``random_state=2`` it is a disagreement, not a seed to drop.
    """
    assert inspect.signature(make).parameters["random_state"].default is None
    with pytest.raises(mm.ParameterError, match="seed=0 and random_state=2 disagree"):
        make(30, 3, seed=0, random_state=2)
    same = make(30, 3, seed=2, random_state=2)
    assert np.array_equal(same.X, make(30, 3, seed=2).X)
    drawn = make(30, 3, random_state=np.random.default_rng(1))  # a Generator draws a seed
    assert np.array_equal(drawn.X, make(30, 3, random_state=np.random.default_rng(1)).X)
