"""Example orders for online learning: which example is seen at every step.

``cyclic`` (``0..n-1`` every epoch), ``shuffle`` (a fresh permutation every epoch) or
``sample`` (i.i.d. with replacement), from one ``default_rng(seed)`` stream, so
:func:`schedule` regenerates exactly what :func:`~maxmargin.online.run` visited
(``docs/learners.md``).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .._validation import check_choice, check_count, check_int
from ..exceptions import ParameterError

__all__ = ["ORDERS", "schedule", "iter_schedule"]

ORDERS = ("cyclic", "shuffle", "sample")


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or int(seed) < 0:
        raise ParameterError(f"The 'seed' parameter must be an int >= 0. Got {seed!r} instead.")
    return int(seed)


def iter_schedule(
    n: int, epochs: int = 1, order: str = "cyclic", seed: int = 0
) -> Iterator[np.ndarray]:
    """Yield the example indices (shape (n,), int64) of each epoch in turn; see :func:`schedule`.

    Parameters
    ----------
    n, epochs, order, seed : as in :func:`schedule`

    Yields
    ------
    ndarray of shape (n,), int64

    Examples
    --------
    >>> [e.tolist() for e in iter_schedule(3, epochs=2)]
    [[0, 1, 2], [0, 1, 2]]
    """
    n = check_int("n", n, minimum=1)
    epochs = check_int("epochs", epochs, minimum=1)
    order = check_choice("order", order, ORDERS)
    seed = _check_seed(seed)
    rng = np.random.default_rng(seed)
    base = np.arange(n, dtype=np.int64)
    for _ in range(epochs):
        if order == "cyclic":
            yield base
        elif order == "shuffle":
            yield rng.permutation(n).astype(np.int64, copy=False)
        else:
            yield rng.integers(0, n, size=n, dtype=np.int64)


def schedule(n: int, epochs: int = 1, order: str = "cyclic", seed: int = 0) -> np.ndarray:
    """The full index sequence of a run: step ``t`` (1-based) sees example ``idx[t - 1]``.

    Parameters
    ----------
    n : int >= 1
        Number of examples.
    epochs : int >= 1
    order : {"cyclic", "shuffle", "sample"}
        ``cyclic`` 0..n-1 each epoch; ``shuffle`` a new permutation each epoch; ``sample``
        i.i.d. with replacement.
    seed : int >= 0
        Seed of the random orders.

    Returns
    -------
    ndarray of shape (epochs * n,), int64
        Identical to what :func:`maxmargin.online.run` visits with the same arguments.

    Examples
    --------
    >>> schedule(4, epochs=2, order="shuffle", seed=1).reshape(2, 4).shape
    (2, 4)
    >>> sorted(schedule(4, order="shuffle", seed=1).tolist())
    [0, 1, 2, 3]
    """
    n = check_int("n", n, minimum=1)
    epochs = check_int("epochs", epochs, minimum=1)
    # the epochs' arrays, then the whole sequence: refuse before making them
    check_count("n", n, 16.0, "examples", detail="in one epoch")
    check_count("epochs", epochs, 16.0 * n + 112.0, "epochs", detail=f"of n = {n:,} steps")
    return np.concatenate(list(iter_schedule(n, epochs, order, seed)))
