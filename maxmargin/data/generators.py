"""Seeded synthetic data: :func:`make_separable` (exact solution known), :func:`make_gaussians`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import check_count, check_finite, check_fraction, check_int, check_positive
from ..conventions import sklearn_names
from ..exceptions import ParameterError
from .dataset import Dataset


def _check_shape(n: Any, d: Any) -> tuple[int, int]:
    """``n`` and ``d`` of a generator: ints, refused before allocating when too large."""
    n, d = check_int("n", n, minimum=2), check_int("d", d, minimum=1)
    # X and two more (n, d) arrays while it is made
    check_count("d", d, 64.0, "features", detail="of 2 examples")
    check_count("n", n, 32.0 * (d + 2), "examples", detail=f"of d = {d:,} features")
    return n, d


@sklearn_names(random_state="seed")
def make_separable(
    n: int = 100,
    d: int = 2,
    margin: float = 0.5,
    *,
    seed: int = 0,
    radius: float = 2.0,
    offset: float = 0.0,
) -> Dataset:
    r"""Linearly separable data whose exact hard-margin solution is known.

    A unit normal ``u`` is drawn at random. One pair of points ``p +- margin*u`` with the
    same component orthogonal to ``u`` is placed on the two margin hyperplanes; no
    separating hyperplane can do better than half their distance, so the max-margin
    solution (intercept ``free`` or, with ``offset=0``, ``none``) is exactly

    .. math:: w^* = u / \gamma, \quad b^* = -\mathrm{offset}/\gamma,
              \quad \gamma = \mathrm{margin}.

    The other points are uniform in a ball of ``radius`` with ``|u.x| - margin`` drawn
    uniform in ``(0.05 margin, radius)`` so they lie strictly outside the margin.

    Parameters
    ----------
    n : int >= 2
    d : int >= 1
    margin : float > 0
        The geometric margin gamma of the data.
    seed : int
    radius : float
        Scale of the spread along the hyperplane.
    offset : float
        Shift of every point along u (the true b is ``-offset/margin``).
    random_state : int >= 0, numpy RandomState or Generator, optional
        scikit-learn's name for ``seed`` (:func:`maxmargin.conventions.sklearn_names`).

    Returns
    -------
    Dataset
        With ``meta = {"w": w*, "b": b*, "margin": gamma}``.

    Examples
    --------
    >>> ds = make_separable(20, 2, margin=0.3, seed=1)
    >>> float(ds.meta["margin"])
    0.3
    """
    n, d = _check_shape(n, d)
    margin = check_positive("margin", margin)
    radius = check_positive("radius", radius)
    if margin >= 20 * radius:  # the other points lie (0.05 margin, radius) beyond it
        raise ParameterError(
            f"The 'margin' parameter must be below 20 radius = {20 * radius:g} (the other "
            f"points lie 0.05 margin to radius beyond the margin). Got {margin!r} instead."
        )
    offset = check_finite("offset", offset)
    seed = check_int("seed", seed, minimum=0)
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    perp = rng.standard_normal((n, d)) * (radius / math.sqrt(max(d, 1)))
    perp -= np.outer(perp @ u, u)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[1] = 1.0, -1.0
    dist = margin + rng.uniform(0.05 * margin, radius, size=n)
    dist[:2] = margin
    perp[1] = perp[0]
    X = perp + np.outer(y * dist + offset, u)
    meta = {"w": u / margin, "b": -offset / margin, "margin": margin}
    return Dataset(X, y, name=f"separable(n={n}, d={d}, margin={margin:g}, seed={seed})", meta=meta)


@sklearn_names(random_state="seed")
def make_gaussians(
    n: int = 200,
    d: int = 2,
    *,
    separation: float = 2.0,
    seed: int = 0,
    positive_fraction: float = 0.5,
) -> Dataset:
    """Two overlapping isotropic Gaussian classes (usually not separable).

    Class +1 ~ N(+separation/2 * e, I), class -1 ~ N(-separation/2 * e, I) with ``e`` a
    random unit vector; ``positive_fraction`` sets the class balance.

    Parameters
    ----------
    n, d : int
        Numbers of examples and features.
    separation : float
        Distance between the two class means.
    seed : int
    positive_fraction : float
        Fraction of the examples in class +1.
    random_state : int >= 0, numpy RandomState or Generator, optional
        scikit-learn's name for ``seed`` (:func:`maxmargin.conventions.sklearn_names`).

    Returns
    -------
    Dataset
        ``X`` of shape (n, d), ``y`` of shape (n,).

    Examples
    --------
    >>> make_gaussians(50, 3, seed=0).d
    3
    """
    n, d = _check_shape(n, d)
    separation = check_finite("separation", separation)
    positive_fraction = check_fraction("positive_fraction", positive_fraction)
    seed = check_int("seed", seed, minimum=0)
    rng = np.random.default_rng(seed)
    e = rng.standard_normal(d)
    e /= np.linalg.norm(e)
    n_pos = min(n - 1, max(1, int(round(positive_fraction * n))))
    y = np.concatenate([np.ones(n_pos), -np.ones(n - n_pos)])
    y = y[rng.permutation(n)]
    X = rng.standard_normal((n, d)) + np.outer(y * separation / 2, e)
    name = f"gaussians(n={n}, d={d}, separation={separation:g}, seed={seed})"
    return Dataset(X, y, name=name, meta={"direction": e, "separation": separation})
