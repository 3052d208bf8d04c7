"""The seeded generators: make_separable (its exact geometry), make_gaussians."""

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
