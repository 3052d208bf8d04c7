r"""Tables of results: one declaration, rendered as CSV, a DataFrame, markdown and LaTeX.

A result declares its table once (:class:`Table`: a function giving its rows, and its
:class:`Column`\ s); the renderers here write it in every form, so the CSV, the
DataFrame, the markdown of a report and the LaTeX booktabs table of a paper hold the same
values:

- :func:`csv`, :func:`frame`: every column; floats written with ``repr`` (they read back
  to the same doubles), N/A (``None``) an empty cell, ``inf`` / ``nan`` as ``inf`` /
  ``nan`` (what pandas reads); pandas is optional (:func:`frame` says how to get it);
- :func:`markdown`: the shown columns, numbers by each column's format, N/A for a value
  that is None or NaN, ``|`` escaped;
- :func:`latex`: the same as a ``tabular`` with ``\toprule``, ``\midrule``,
  ``\bottomrule`` (the ``booktabs`` package, nothing else): text left-aligned, numbers
  right-aligned, an exponent ``1.2e-03`` written ``$1.2\times10^{-3}$``, N/A ``--``,
  the specials of text cells escaped (``_ % & # $ { } ~ ^ \ | < >``).

A *spread* column is a value over seeds: its row holds the median under the column's key
and ``[min, max]`` under ``<key>_range`` (:func:`maxmargin.conventions.summarize`); it is
shown ``median [min, max]`` (the median alone when min = max) and written in CSV as three
columns.
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
    "to_csv",
    "to_frame",
]


@dataclass(frozen=True)
class Column:
    r"""One column of a result's table.

    Parameters
    ----------
    key : str
        The row's key it shows.
    header : str
        Its header in markdown (and in LaTeX, escaped, unless ``latex`` is given).
    fmt : str
        The format spec of a number shown (``".3g"``); ``""``: ``str(value)``.
    latex : str, optional
        Its LaTeX header (math allowed: ``"$F - F^\star$"``).
    csv : str, optional
        Its CSV / DataFrame column name (default: ``key``).
    shown : bool
        In markdown and LaTeX (CSV and DataFrames hold every column).
    spread : bool
        A value over seeds: shown ``median [min, max]``, the range read from the row's
        ``<key>_range``.
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
    """A result's table: its rows and its columns (either may depend on the result).

    Parameters
    ----------
    rows : callable
        ``rows(result)``: the rows, each a mapping of column key to value.
    columns : sequence of Column, or callable
        The columns, or ``columns(result)`` (a weight per feature: ``w[<name>]``).

    Examples
    --------
    >>> t = Table(lambda r: r, [Column("C", "C", ".3g"), Column("ok", "certified")])
    >>> print(markdown(t, [{"C": 0.5, "ok": True}, {"C": None, "ok": False}]))
    | C | certified |
    |---|---|
    | 0.5 | True |
    | N/A | False |
    """

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
    wr = _csv.writer(buf, lineterminator="\n")
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


def csv(table: Table, result: Any, file: str | Path | None = None) -> str:
    """``result``'s table as CSV text, every column; written atomically to ``file``.

    Parameters
    ----------
    table : Table
    result : object
        What ``table.rows`` and ``table.columns`` are given.
    file : str or Path, optional

    Returns
    -------
    str
    """
    return to_csv(*_flat(*table.of(result)), file=file)


def frame(table: Table, result: Any) -> Any:
    """``result``'s table as a pandas DataFrame, every column (the CSV's).

    Parameters
    ----------
    table : Table
    result : object

    Returns
    -------
    pandas.DataFrame
    """
    return to_frame(*_flat(*table.of(result)))


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
    """``result``'s table in markdown: the shown columns, N/A for what is not available.

    Parameters
    ----------
    table : Table
    result : object

    Returns
    -------
    str
        Header, delimiter and one line per row (no trailing newline).
    """
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
    r"""``text`` with LaTeX's special characters escaped (``_`` -> ``\_``, ...).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> print(latex_text("w[x_1] & 50% ~ $"))
    w[x\_1] \& 50\% \textasciitilde{} \$
    """
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
    r"""``result``'s table as a LaTeX ``tabular`` with booktabs rules.

    Text columns are left-aligned, numbers right-aligned; a number with an exponent is
    written ``$1.2\times10^{-3}$``, N/A ``--``; the header is the column's ``latex``
    (raw) or its ``header`` (escaped). Needs ``\usepackage{booktabs}``, nothing else.

    Parameters
    ----------
    table : Table
    result : object
    file : str or Path, optional
        Written atomically when given.

    Returns
    -------
    str

    Examples
    --------
    >>> t = Table(lambda r: r, [Column("name", "learner"), Column("gap", "gap", ".1e")])
    >>> print(latex(t, [{"name": "pa_1", "gap": 0.00123}]), end="")
    \begin{tabular}{lr}
    \toprule
    learner & gap \\
    \midrule
    pa\_1 & $1.2\times10^{-3}$ \\
    \bottomrule
    \end{tabular}
    """
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
