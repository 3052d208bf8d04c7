r"""Tables of results: one declaration, rendered as CSV, a DataFrame, markdown and LaTeX.

CSV and DataFrames hold every column, floats by ``repr`` (N/A empty); markdown and LaTeX
(booktabs, an exponent as ``$1.2\times10^{-3}$``, N/A ``--``) the shown ones. A *spread*
column is a value over seeds: ``median [min, max]``, three columns in CSV.
"""

from __future__ import annotations

import csv as _csv
import io
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import ParameterError
from .files import atomic_write

__all__ = [
    "Column",
    "Table",
    "csv",
    "frame",
    "markdown",
    "latex",
    "latex_text",
]


@dataclass(frozen=True)
class Column:
    """One column of a result's table.

    ``csv``: its CSV name (default ``key``); ``shown``: in markdown and LaTeX (CSV holds
    every column); ``spread``: a value over seeds, shown ``median [min, max]`` from the
    row's ``<key>_range``.
    """

    key: str
    header: str
    fmt: str = ""
    latex: str | None = None
    csv: str | None = None
    shown: bool = True
    spread: bool = False


@dataclass(frozen=True)
class Table:
    """A result's table: its rows and its columns (either may depend on the result)."""

    rows: Callable[[Any], Iterable[Mapping[str, Any]]]
    columns: Sequence[Column] | Callable[[Any], Sequence[Column]]

    def of(self, result: Any) -> tuple[list[Column], list[Mapping[str, Any]]]:
        """The columns and the rows for ``result``."""
        cols = self.columns(result) if callable(self.columns) else self.columns
        return list(cols), list(self.rows(result))


def _plain(v: Any) -> Any:
    """A numpy scalar as the Python number it holds (``repr``, ``format`` as Python's)."""
    return v.item() if isinstance(v, np.generic) else v


def _missing(v: Any) -> bool:
    v = _plain(v)
    return v is None or (isinstance(v, float) and math.isnan(v))


def _flat(columns: Sequence[Column], rows: Sequence[Mapping[str, Any]]) -> tuple[list, list]:
    """Every column of the table as CSV names and plain rows (a spread: three columns)."""
    names: list[str] = []
    for c in columns:
        name = c.csv or c.key
        names += [name, f"{name}_min", f"{name}_max"] if c.spread else [name]
    out = []
    for r in rows:
        row = []
        for c in columns:
            row.append(r.get(c.key))
            if c.spread:
                row += list(r.get(f"{c.key}_range") or (None, None))
        out.append(row)
    return names, out


def _cell(v: Any) -> Any:
    v = _plain(v)
    if v is None:
        return ""
    if isinstance(v, float):
        if math.isfinite(v):
            return repr(v)
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def csv(table: Table, result: Any, file: str | Path | None = None) -> str:
    """``result``'s table as CSV text, every column; written atomically to ``file``."""
    columns, rows = _flat(*table.of(result))
    buf = io.StringIO()
    wr = _csv.writer(buf, lineterminator="\n")
    wr.writerow(columns)
    wr.writerows([_cell(v) for v in row] for row in rows)
    text = buf.getvalue()
    if file is not None:
        atomic_write(file, text)
    return text


def frame(table: Table, result: Any) -> Any:
    """``result``'s table as a pandas DataFrame, every column (``None``: ``NaN`` in numbers)."""
    try:
        import pandas as pd
    except ImportError:
        raise ParameterError(
            "to_frame needs pandas: pip install pandas (or "
            "pip install 'maxmargin[pandas]'); to_csv needs nothing"
        ) from None
    columns, rows = _flat(*table.of(result))
    return pd.DataFrame.from_records(rows, columns=columns)


def _number(v: Any, fmt: str) -> str:
    v = _plain(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not fmt:
        return str(v)
    return format(v, fmt)


def _shown(c: Column, row: Mapping[str, Any], number: Callable[[Any, str], str], na: str) -> str:
    v = row.get(c.key)
    if _missing(v):
        return na
    text = number(v, c.fmt)
    lo, hi = row.get(f"{c.key}_range") or (None, None)
    # one seed, or every seed alike: the range says nothing the median does not
    if c.spread and not (_missing(lo) or _missing(hi)) and lo != hi:
        text += f" [{number(lo, c.fmt)}, {number(hi, c.fmt)}]"
    return text


def markdown(table: Table, result: Any) -> str:
    """``result``'s table in markdown: the shown columns, N/A for what is not available."""
    columns, rows = table.of(result)
    columns = [c for c in columns if c.shown]

    def esc(text: str) -> str:
        return text.replace("|", r"\|")

    lines = [
        "| " + " | ".join(esc(c.header) for c in columns) + " |",
        "|" + "---|" * len(columns),
    ]
    for r in rows:
        lines.append("| " + " | ".join(esc(_shown(c, r, _number, "N/A")) for c in columns) + " |")
    return "\n".join(lines)


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "|": r"\textbar{}",  # OT1 fonts draw these three as other glyphs
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}
_ESCAPE = str.maketrans(_LATEX_SPECIALS)
_EXPONENT = re.compile(r"(-?[0-9.]+)e([+-])0*([0-9]+)")


def latex_text(text: str) -> str:
    r"""``text`` with LaTeX's special characters escaped (``_`` -> ``\_``, ...)."""
    return text.translate(_ESCAPE)


def _latex_number(v: Any, fmt: str) -> str:
    v = _plain(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return latex_text(str(v))
    if math.isinf(v):
        return r"$\infty$" if v > 0 else r"$-\infty$"
    text = _number(v, fmt)
    m = _EXPONENT.fullmatch(text)
    if m is None:
        return latex_text(text)  # a percentage's %
    mant, sign, exp = m.groups()
    return f"${mant}\\times10^{{{'-' if sign == '-' else ''}{exp}}}$"


def _numeric(c: Column, rows: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a column shows numbers (right-aligned): a spread, or numbers where given."""
    values = [_plain(r.get(c.key)) for r in rows if not _missing(r.get(c.key))]
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    return c.spread or (bool(values) and numbers)


def latex(table: Table, result: Any, file: str | Path | None = None) -> str:
    r"""``result``'s table as a LaTeX ``tabular`` with booktabs rules."""
    columns, rows = table.of(result)
    columns = [c for c in columns if c.shown]
    align = "".join("r" if _numeric(c, rows) else "l" for c in columns)
    head = " & ".join(c.latex if c.latex is not None else latex_text(c.header) for c in columns)
    body = [" & ".join(_shown(c, r, _latex_number, "--") for c in columns) + r" \\" for r in rows]
    text = "\n".join(
        [
            rf"\begin{{tabular}}{{{align}}}",
            r"\toprule",
            head + r" \\",
            r"\midrule",
            *body,
            r"\bottomrule",
            r"\end{tabular}",
            "",
        ]
    )
    if file is not None:
        atomic_write(file, text)
    return text
