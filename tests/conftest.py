"""Shared settings and fixtures of the test suite."""

import os

import matplotlib
import pytest
from hypothesis import settings

import maxmargin as mm

os.environ.setdefault("MPLBACKEND", "Agg")
matplotlib.use("Agg")

# `make test` (and CI) replays the same examples every run: a red run must be
# reproducible, and a green one must not turn red by chance on the next clone. New
# examples are explored on purpose (`make explore`, HYPOTHESIS_PROFILE=explore); a case
# found there is fixed and pinned with @example in its test. No deadline in either: an
# example is never too slow, whatever the machine's load.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# --------------------------------------------------------------------------- shared data
# Small data sets several test modules use (a Dataset is frozen: sharing is safe).


@pytest.fixture(scope="session")
def heart():
    """heart_scale (270 x 13, sparse, not separable), the package's built-in data set."""
    return mm.load("builtin:heart_scale")


@pytest.fixture(scope="session")
def separable():
    """30 separable 2-D points with margin 0.3 (drawable)."""
    return mm.make_separable(30, 2, margin=0.3, seed=1)


@pytest.fixture(scope="session")
def gauss():
    """37 x 4 overlapping Gaussians: an odd n, so batches and epochs do not align."""
    return mm.make_gaussians(37, 4, separation=1.5, seed=3)


@pytest.fixture(scope="module")
def named():
    """Overlapping 3-D data with feature names (not separable: bound SVs too)."""
    ds = mm.make_gaussians(40, 3, separation=1.0, seed=4)
    return mm.Dataset(ds.X, ds.y, name="named", feature_names=["age", "dose", "w,eight"])


@pytest.fixture(scope="module")
def grid_path(separable):
    return mm.regularization_path(separable, C="1e-3:1e3:7")
