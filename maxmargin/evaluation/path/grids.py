"""Grids of C (lambda): parsing, log-spaced grids, the checks every path applies."""

from __future__ import annotations

import math
import re
import warnings
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np

from ..._validation import check_count, check_int, check_positive, reciprocal_form
from ...exceptions import ParameterError

__all__ = ["GridWarning", "parse_grid", "log_grid", "DEFAULT_GRID"]


#: Default grid: 25 points log-spaced over [1e-3, 1e3] (the CLI's ``1e-3:1e3:25``).
DEFAULT_GRID = "1e-3:1e3:25"


class GridWarning(UserWarning):
    """A grid was reordered or had duplicates removed (a path is computed in increasing C)."""


def log_grid(lo: float, hi: float, num: int = 25) -> np.ndarray:
    """``num`` values log-spaced from ``lo`` to ``hi`` (both included).

    Parameters
    ----------
    lo, hi : float > 0
        First and last values (exactly; ``lo == hi`` when ``num == 1``).
    num : int >= 1, default 25
        Number of values.

    Returns
    -------
    ndarray of shape (num,)
        Increasing when ``lo < hi``.

    Examples
    --------
    >>> log_grid(1e-2, 1e2, 5).tolist()
    [0.01, 0.1, 1.0, 10.0, 100.0]
    """
    lo = check_positive("lo", lo)
    hi = check_positive("hi", hi)
    num = check_int("num", num, minimum=1)
    # numpy's geomspace holds a few temporaries of the grid's size
    check_count("num", num, 32.0, "grid points")
    if num == 1:
        if lo != hi:
            raise ParameterError(f"a 1-point grid needs lo == hi, got {lo:g}:{hi:g}:1")
        return np.array([lo])
    g = np.logspace(math.log10(lo), math.log10(hi), num)
    g[0], g[-1] = lo, hi  # exact end points (logspace rounds them)
    return g


_RANGE = re.compile(r"^\s*([^:]+):([^:]+):([^:]+)\s*$")


def parse_grid(text: str) -> np.ndarray:
    """Parse a grid: ``"lo:hi:num"`` (log-spaced, ends included) or ``"c1,c2,..."``.

    Parameters
    ----------
    text : str
        ``"1e-3:1e3:25"`` (25 values, log-spaced) or a comma list.

    Returns
    -------
    ndarray of shape (k,)
        In the order written.

    Raises
    ------
    ParameterError
        Empty text, a non-number, ``num < 1``, or a non-positive range end.

    Examples
    --------
    >>> parse_grid("1e-2:1e2:5").tolist()
    [0.01, 0.1, 1.0, 10.0, 100.0]
    >>> parse_grid("0.5, 2,8").tolist()
    [0.5, 2.0, 8.0]
    """
    if not isinstance(text, str) or not text.strip():
        raise ParameterError(
            "empty grid; write lo:hi:num (e.g. 1e-3:1e3:25) or a comma list (e.g. 0.1,1,10)"
        )
    m = _RANGE.match(text)
    try:
        if m:
            lo, hi = float(m.group(1)), float(m.group(2))
            num_s = m.group(3).strip()
            # 1e24 is 10**24 (float reads 999,999,999,999,999,983,222,784); a count of 30
            # digits or more is refused anyway, and float's is then short to print
            exact, f = Decimal(num_s), float(num_s)
            num = int(f) if f.is_integer() else None
            if exact.is_finite() and exact.adjusted() < 30 and exact == exact.to_integral_value():
                num = int(exact)
            if num is None or num < 1:
                raise ParameterError(
                    f"grid {text!r}: the number of points must be an int >= 1, got {num_s!r}"
                )
            if not (lo > 0 and hi > 0 and math.isfinite(lo) and math.isfinite(hi)):
                raise ParameterError(
                    f"grid {text!r}: lo and hi must be finite and > 0 (the grid is log-spaced)"
                )
            return log_grid(lo, hi, num)
        parts = [p.strip() for p in text.split(",")]
        if any(not p for p in parts):
            raise ParameterError(f"grid {text!r} has an empty entry; write e.g. 0.1,1,10")
        return np.array([float(p) for p in parts])
    except ParameterError:
        raise  # already says what is wrong (a ValueError too: keep it from the generic one)
    except (ValueError, InvalidOperation):
        raise ParameterError(
            f"cannot read grid {text!r}: write lo:hi:num (e.g. 1e-3:1e3:25) "
            "or a comma list of numbers (e.g. 0.1,1,10)"
        ) from None


def _reciprocal_grid(name: str, grid: np.ndarray, n: int, other: str) -> np.ndarray:
    """``1 / (grid n)``: the other form of every grid point, each a finite double > 0."""
    with np.errstate(over="ignore", divide="ignore"):
        out = 1.0 / (grid * n)
    bad = np.flatnonzero(~((out > 0) & np.isfinite(out)))
    if bad.size:
        reciprocal_form(name, float(grid[bad[0]]), n, other)  # raises, naming the range
    return out


def _check_grid(name: str, values: Any) -> np.ndarray:
    """Validate a C or lam grid; return it in increasing order (a warning if it was not)."""
    if isinstance(values, str):
        values = parse_grid(values)
    try:
        g = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ParameterError(f"the {name} grid must be numbers, got {values!r}") from None
    if g.size == 0:
        raise ParameterError(
            f"the {name} grid is empty; give at least one value, e.g. {name}={DEFAULT_GRID!r}"
        )
    bad = ~np.isfinite(g) | (g <= 0)
    if bad.any():
        raise ParameterError(
            f"every {name} must be finite and > 0; got {g[bad][:5].tolist()} "
            f"(at index {np.flatnonzero(bad)[:5].tolist()})"
        )
    d = np.diff(g)
    if (d > 0).all():
        return g
    if (d < 0).all():
        return g[::-1].copy()
    u = np.unique(g)
    what = "duplicates removed" if u.size < g.size else "sorted"
    warnings.warn(
        f"the {name} grid was not monotone: {what} (a path is computed in "
        f"increasing {name}); {g.size} values -> {u.size}",
        GridWarning,
        stacklevel=3,
    )
    return u
