"""Tidy tables of results: CSV text (standard library) and pandas DataFrames (optional).

A table is a list of column names and rows (sequences of Python values, one per column).
Every result that exports one (``RegularizationPath.to_csv``, ``Comparison.to_csv``, ...)
builds it once and hands it here, so the CSV and the DataFrame hold the same values.
In CSV, floats are written with ``repr`` (they read back to the same doubles), ``None``
(N/A) as an empty cell, ``inf`` / ``nan`` as ``inf`` / ``nan`` (what pandas reads).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..exceptions import ParameterError
from .files import atomic_write

__all__ = ["to_csv", "to_frame"]


def _cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        return (
            repr(v)
            if math.isfinite(v)
            else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
        )
    return v


def to_csv(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], file: str | Path | None = None
) -> str:
    """The table as CSV text (header first); written atomically to ``file`` when given.

    Parameters
    ----------
    columns : sequence of str
    rows : sequence of sequences
        Python values (float, int, bool, str, None).
    file : str or Path, optional

    Returns
    -------
    str

    Examples
    --------
    >>> print(to_csv(["C", "w[0]", "note"], [[0.1, float("inf"), None]]), end="")
    C,w[0],note
    0.1,inf,
    """
    buf = io.StringIO()
    wr = csv.writer(buf, lineterminator="\n")
    wr.writerow(columns)
    for row in rows:
        wr.writerow([_cell(v) for v in row])
    text = buf.getvalue()
    if file is not None:
        atomic_write(file, text)
    return text


def to_frame(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Any:
    """The table as a pandas DataFrame (``None`` becomes ``NaN`` in numeric columns).

    Parameters
    ----------
    columns : sequence of str
    rows : sequence of sequences

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ParameterError
        pandas is not installed (``to_csv`` needs nothing).

    Examples
    --------
    >>> to_frame(["C", "n_sv"], [[0.1, 2], [1.0, 3]]).shape
    (2, 2)
    """
    try:
        import pandas as pd
    except ImportError:
        raise ParameterError(
            "to_frame needs pandas: pip install pandas (or "
            "pip install 'maxmargin[pandas]'); to_csv needs nothing"
        ) from None
    return pd.DataFrame.from_records([list(r) for r in rows], columns=list(columns))
