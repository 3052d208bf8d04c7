"""The C path: :func:`regularization_path`, the one entry to the optimum along C (lambda).

On a grid (:class:`~maxmargin.evaluation.path.grid.RegularizationPath`) or exactly, every
breakpoint (:class:`~maxmargin.evaluation.path.exact.ExactPath`). See ``docs/path.md``.
"""

from __future__ import annotations

import time
from typing import Any, Literal, TypedDict, Unpack, overload

from ..._validation import (
    WIDE_HINT,
    check_bool,
    check_choice,
    check_count,
    check_memory,
    check_positive,
)
from ...conventions import DEFAULT_INTERCEPT, DEFAULT_LOSS, INTERCEPTS, LOSSES
from ...data import Dataset
from ...exceptions import ParameterError
from ...problem import combine_weights
from .assemble import _exact_path
from .exact import ExactPath
from .grid import RegularizationPath, _grid_path
from .grids import DEFAULT_GRID, _check_grid, _reciprocal_grid

__all__ = ["regularization_path"]


class _Options(TypedDict, total=False):
    """The keyword arguments both kinds of path take (for the overloads below)."""

    intercept: str
    holdout: Dataset | None
    solver: str | None
    progress: bool
    intercept_scaling: float
    warm_start: bool
    hard_limit: bool | None
    tol: float | None
    sample_weight: Any
    class_weight: Any
    Cs: Any
    alphas: Any
    loss: str


# The return type follows ``exact`` (for type checkers: an ExactPath has no grid points).
@overload
def regularization_path(
    data: Dataset,
    C: Any = ...,
    lam: Any = ...,
    *,
    exact: Literal[False] = ...,
    **options: Unpack[_Options],
) -> RegularizationPath: ...


@overload
def regularization_path(
    data: Dataset,
    C: Any = ...,
    lam: Any = ...,
    *,
    exact: Literal[True],
    **options: Unpack[_Options],
) -> ExactPath: ...


def regularization_path(
    data: Dataset,
    C: Any = None,
    lam: Any = None,
    *,
    exact: bool = False,
    intercept: str = DEFAULT_INTERCEPT,
    holdout: Dataset | None = None,
    solver: str | None = None,
    progress: bool = False,
    intercept_scaling: float = 1.0,
    warm_start: bool = True,
    hard_limit: bool | None = None,
    tol: float | None = None,
    sample_weight: Any = None,
    class_weight: Any = None,
    Cs: Any = None,
    alphas: Any = None,
    loss: str = DEFAULT_LOSS,
) -> RegularizationPath | ExactPath:
    """The certified soft-margin optimum along C: at every point of a grid, or exactly.

    With ``exact=True``, every breakpoint where a support set changes (the grid only
    sets the range; no grid: the whole path). See ``docs/path.md``.

    Parameters
    ----------
    data : Dataset
    C : array-like of float > 0 or str, optional
        The C grid (a string as ``"1e-3:1e3:25"``, read by
        :func:`~maxmargin.evaluation.path.grids.parse_grid`). Default
        :data:`~maxmargin.evaluation.path.grids.DEFAULT_GRID` (``exact=True``: none).
    lam : array-like of float > 0 or str, optional
        A lambda grid instead (``C = 1/(lam n)``). Give one grid.
    exact : bool, default False
        Compute every breakpoint (an :class:`~maxmargin.evaluation.path.exact.ExactPath`).
    intercept : {"free", "none", "augmented"}
    holdout : Dataset, optional
        Held-out examples (same d) for the held-out error.
    solver : str, optional
        The solver of the full solves; on a grid, a cvxpy solver name compiles one DPP
        model. Default: :func:`maxmargin.solve`'s route.
    progress : bool
        Progress bar on a terminal (stderr).
    intercept_scaling : float
        ``s`` of the augmented mode.
    warm_start : bool
        Warm-start each grid point from the previous one (``False``: full solves).
    hard_limit : bool, optional
        Compare the grid's last point with the hard-margin optimum. Default: yes when
        ``n * d <= 2e6``.
    tol : float, optional
        Certificate tolerance (default 1e-6).
    sample_weight : array-like of shape (n,), optional
        Example weights: costs ``C_i = C s_i`` at every C.
    class_weight : dict or "balanced", optional
        Weights by class, multiplied into ``sample_weight``.
    Cs, alphas : array-like or str, optional
        scikit-learn's names of ``C`` and ``lam``.
    loss : {"hinge", "squared_hinge"}
        The loss of every point's problem (the squared hinge: on a grid only).

    Returns
    -------
    RegularizationPath or ExactPath
        Points in increasing C; ``exact=True``: an ExactPath.

    Raises
    ------
    ParameterError
        Not a Dataset; more than one grid; an empty grid; a value that is not finite and
        > 0; an unknown intercept; a holdout with another number of features.
    SolverError
        The exact path's first segment could not be found, or it makes no progress.

    Warns
    -----
    GridWarning
        A grid that is not monotone is sorted (duplicates removed).

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> p = regularization_path(make_separable(30, 2, seed=0), C="1e-2:1e2:5")
    >>> p.certified, bool((p.margin[:-1] >= p.margin[1:]).all())
    (True, True)
    >>> p.hard_margin_limit.last_equal
    True

    Two points ``x = +-1`` (hand-solved): bound SVs with ``w = 2C`` up to ``C = 1/2``,
    then margin SVs with ``w = 1``, the hard-margin solution.

    >>> from maxmargin import Dataset
    >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
    >>> ep.breakpoints.tolist(), ep.events_at(0), ep.C_star
    ([0.5], [(0, 'L', 'E'), (1, 'L', 'E')], 0.5)
    >>> ep.coefficients(0.1)[0].tolist(), ep.coefficients(7.0)[0].tolist()
    ([0.2], [1.0])
    """
    t0 = time.perf_counter()
    if not isinstance(data, Dataset):
        raise ParameterError(
            f"regularization_path needs a maxmargin.Dataset, got {type(data).__name__}"
        )
    grids = {"C": C, "lam": lam, "Cs": Cs, "alphas": alphas}
    given = [k for k, v in grids.items() if v is not None]
    if len(given) > 1:
        raise ParameterError(
            f"give one grid, not both {' and '.join(given)} (lam = 1/(C n); Cs and alphas "
            "are scikit-learn's names of C and lam)"
        )
    grid = grids[given[0]] if given else None
    name = "lam" if given and given[0] in ("lam", "alphas") else "C"
    intercept = check_choice("intercept", intercept, INTERCEPTS)
    s = check_positive("intercept_scaling", intercept_scaling)
    exact, warm_start = check_bool("exact", exact), check_bool("warm_start", warm_start)
    if hard_limit is not None:
        hard_limit = check_bool("hard_limit", hard_limit)
    tol = 1e-6 if tol is None else check_positive("tol", tol)
    loss = check_choice("loss", loss, LOSSES)
    if loss == "squared_hinge" and exact:
        raise ParameterError(
            "exact=True traces the hinge's piecewise-linear path; the squared hinge's w(C) "
            "is rational in C between support-set changes: use a grid (exact=False)"
        )
    if loss == "squared_hinge" and hard_limit:
        raise ParameterError(
            "hard_limit=True: the squared hinge's w(C) reaches the hard margin only as "
            "C -> inf, there is no C* to compare at; leave hard_limit out"
        )
    if name == "lam":
        grid_C = _reciprocal_grid("lam", _check_grid("lam", grid)[::-1], data.n, "C")
    else:
        grid_C = _check_grid("C", DEFAULT_GRID if grid is None else grid)
        _reciprocal_grid("C", grid_C, data.n, "lam")
    if holdout is not None:
        if not isinstance(holdout, Dataset):
            raise ParameterError(f"holdout must be a Dataset, got {type(holdout).__name__}")
        if holdout.d != data.d:
            raise ParameterError(
                f"holdout has {holdout.d} features, the data {data.d}; they must match"
            )
    weights, _ = combine_weights(data, sample_weight, class_weight)
    # w at every grid point, plus what one solve holds: refuse what cannot fit
    per_point, base = 16.0 * (data.d + 1) + 16.0 * data.n, 64.0 * (data.d + 1)
    what = f"the {'exact path' if exact else 'path'} of {data.name}"
    check_memory(base + per_point, f"{what} (d = {data.d:,} features)", WIDE_HINT)
    check_count(
        name,
        len(grid_C),
        per_point,
        "grid points",
        detail=f"{what}, n = {data.n:,}, d = {data.d:,}",
        base=base,
    )
    if exact:
        return _exact_path(
            data,
            intercept,
            s,
            weights,
            C_max=float(grid_C[-1]) if grid is not None else None,
            C_min=float(grid_C[0]) if grid is not None and grid_C.size > 1 else None,
            holdout=holdout,
            solver=solver,
            tol=tol,
            progress=progress,
            t0=t0,
        )
    return _grid_path(
        data,
        grid_C,
        intercept,
        s,
        weights,
        holdout=holdout,
        solver=solver,
        progress=progress,
        warm_start=warm_start,
        hard_limit=hard_limit,
        tol=tol,
        t_start=t0,
        loss=loss,
    )
