"""CSV files: :func:`load_csv` and its streaming parser (separator, header, label column)."""

from __future__ import annotations

import csv
from array import array
from pathlib import Path
from typing import Any

import numpy as np

from .._log import logger
from ..exceptions import DataError, ParameterError
from ._text import TextSource, _source
from .dataset import Dataset, _with_labels

#: Separators :func:`maxmargin.data.load_csv` recognises, in order of preference.
CSV_DELIMITERS = (",", ";", "\t")


def sniff_delimiter(lines: list[str]) -> str:
    """The separator that splits every line into the same number (>= 2) of fields (most numbers)."""
    best, best_score = ",", -1
    for delim in CSV_DELIMITERS:
        try:
            rows = list(csv.reader(lines, delimiter=delim))
        except csv.Error:
            continue
        widths = {len(r) for r in rows}
        if len(widths) != 1 or min(widths) < 2:
            continue
        score = sum(is_number(c) for r in rows for c in r)
        if score > best_score:
            best, best_score = delim, score
    return best


def is_number(s: str, kind: type = float) -> bool:
    """Whether ``kind(s)`` (``float``, ``int``) reads ``s``."""
    try:
        kind(s)
    except ValueError:
        return False
    return True


class _Labels:
    """A label column as codes into its distinct strings (8 bytes a row)."""

    def __init__(self) -> None:
        self.codes = array("q")
        self.distinct: dict[str, int] = {}
        self.first_line: list[int] = []  # of each distinct label
        self.nbytes = 0.0

    def code(self, s: str, line: int) -> int:
        c = self.distinct.get(s)
        if c is None:
            c = self.distinct[s] = len(self.distinct)
            self.first_line.append(line)
            self.nbytes += 100.0 + len(s)  # a dict entry and its string
        return c

    def values(self, shown: str, code0: int | None) -> np.ndarray:
        """The labels (``code0``: the first row's, put in front): numbers if all are, else text."""
        codes = np.frombuffer(self.codes, np.int64) if self.codes else np.zeros(0, np.int64)
        if code0 is not None:
            codes = np.concatenate([np.array([code0], np.int64), codes])
        strings = list(self.distinct)
        if not all(is_number(s) for s in strings):
            return np.asarray(strings)[codes]
        numbers = np.array([float(s) for s in strings])
        bad = [(self.first_line[c], strings[c]) for c in np.flatnonzero(~np.isfinite(numbers))]
        if bad:
            ln, s = min(bad)
            raise DataError(f"{shown}:{ln}: label {s!r} is not a finite number")
        return numbers[codes]


class _Csv:
    """CSV rows parsed into compact buffers; the first row kept until the header is known."""

    def __init__(self, shown: str, label: str | int | None, header: bool | None) -> None:
        self.shown, self.label, self.header = shown, label, header
        self.by_name = isinstance(label, str) and not is_number(label, int)
        self.xs = array("d")
        self.labels = _Labels()
        self.first: list[str] | None = None
        self.first_line = self.width = self.col = self.rows = 0  # rows: after the first
        self.first_ok = True  # every feature of the first row is a number (at xs[:d])
        self.candidates: set[int] = set()  # columns: first cell text, every other a number
        self.feats: list[int] = []

    def nbytes(self) -> float:
        return 8.0 * (len(self.xs) + len(self.labels.codes)) + self.labels.nbytes

    def first_row(self, r: list[str], ln: int) -> None:
        self.first, self.first_line, self.width = r, ln, len(r)
        if self.width < 2:
            raise DataError(
                f"{self.shown}:{ln}: one column only: no comma, semicolon or tab "
                f"separates the values ({r[0][:40]!r}); a CSV data file needs "
                "feature columns and a label column"
            )
        named = self.header is True or (self.header is None and self.by_name)
        names = [c.strip() for c in r] if named else None
        self.col = _label_column(self.label, names, self.width, self.shown)
        self.feats = [j for j in range(self.width) if j != self.col]
        if self.header is None and not self.by_name:
            self.candidates = {j for j, c in enumerate(r) if c.strip() and not is_number(c)}
        for j in self.feats:
            try:
                self.xs.append(float(r[j]))
            except ValueError:
                self.first_ok = False
                self.xs.append(0.0)

    def row(self, r: list[str], ln: int, sep_name: str) -> None:
        if len(r) != self.width:
            raise DataError(
                f"{self.shown}:{ln}: {len(r)} columns, expected {self.width} (separator {sep_name})"
            )
        if self.candidates:
            self.candidates = {j for j in self.candidates if is_number(r[j])}
        try:
            self.xs.extend([float(r[j]) for j in self.feats])
        except ValueError:
            raise self._not_a_number(r, ln) from None
        self.labels.codes.append(self._label(r, ln))
        self.rows += 1

    def _label(self, r: list[str], ln: int) -> int:
        s = r[self.col].strip()
        if not s:
            raise DataError(f"{self.shown}:{ln}: the label (column {self.col + 1}) is empty")
        return self.labels.code(s, ln)

    def _not_a_number(self, r: list[str], ln: int) -> DataError:
        j = next(j for j in self.feats if not is_number(r[j]))
        return DataError(f"{self.shown}:{ln}: column {j + 1} value {r[j]!r} is not a number")

    def finish(self) -> tuple[np.ndarray, np.ndarray, list[str] | None]:
        first = self.first
        if first is None:
            raise DataError(f"{self.shown}: no rows")
        header = self.header
        if header is None:
            header = self.by_name or (self.rows > 0 and bool(self.candidates))
        X = np.frombuffer(self.xs, float).reshape(-1, len(self.feats))
        code0 = None
        if header:
            X = X[1:]
            if not self.rows:
                raise DataError(f"{self.shown}: no data rows after the header")
        else:
            if not self.first_ok:
                raise self._not_a_number(first, self.first_line)
            code0 = self._label(first, self.first_line)
            self.labels.first_line[code0] = min(self.labels.first_line[code0], self.first_line)
        y = self.labels.values(self.shown, code0)
        names = [first[j].strip() or f"column {j + 1}" for j in self.feats] if header else None
        return X, y, names


def parse_csv(
    source: TextSource, label: str | int | None, header: bool | None
) -> tuple[np.ndarray, np.ndarray, list[str] | None]:
    """``(X, labels, feature_names)`` of CSV text (names None without a header row)."""
    delim = sniff_delimiter([ln for ln in source.first().splitlines() if ln.strip()][:100])
    sep_name = "tab" if delim == "\t" else repr(delim)
    p = _Csv(source.shown, label, header)
    reader = csv.reader(source.lines(p.nbytes), delimiter=delim)
    try:
        for r in reader:
            if not r or not any(c.strip() for c in r):
                continue
            if p.first is None:
                p.first_row(r, reader.line_num)
            else:
                p.row(r, reader.line_num, sep_name)
    except csv.Error as e:
        raise DataError(f"{source.shown}: not a readable CSV file: {e}") from None
    X, y, names = p.finish()
    logger.debug(
        "%s: read as CSV%s, %d rows x %d features, separator %s, %s, label column %d (0-based)",
        source.shown,
        f" ({source.compression})" if source.compression else "",
        X.shape[0],
        X.shape[1],
        sep_name,
        "a header row" if names is not None else "no header",
        p.col,
    )
    return X, y, names


def _label_column(label: str | int | None, names: list[str] | None, width: int, shown: str) -> int:
    if label is None:
        return width - 1
    if isinstance(label, (int, np.integer)) or is_number(str(label), int):
        i = int(label)
        if not -width <= i < width:
            raise DataError(
                f"{shown}: label column {i} is out of range: the file has {width} "
                f"columns (0 to {width - 1}; -1 is the last)"
            )
        return i % width
    if names is None:
        raise DataError(
            f"{shown}: no header row, so no column named {label!r}; give the "
            f"label column's index (0 to {width - 1}), or header=True "
            "(--header) if the first row holds the names"
        )
    if label not in names:
        raise DataError(f"{shown}: no column named {label!r} (columns: {', '.join(names)})")
    if names.count(label) > 1:
        raise DataError(
            f"{shown}: {names.count(label)} columns are named {label!r}; give "
            "the label column's index instead"
        )
    return names.index(label)


def load_csv(
    path: str | Path,
    label: str | int | None = None,
    *,
    header: bool | None = None,
    positive: Any = None,
    name: str | None = None,
) -> Dataset:
    r"""Load a CSV file: one column is the label (by header name or index; default last).

    The separator (comma, semicolon or tab) and the header are detected; labels are mapped
    by :func:`map_labels`; gzip and bzip2 are decompressed. See ``docs/data.md``.

    Parameters
    ----------
    path : str or Path
        The file; ``"-"`` reads standard input.
    label : str or int, optional
        The label column: a header name, or a 0-based column index (negative counts
        from the end; default: the last column).
    header : bool, optional
        Whether the first row holds column names (default: detected; a ``label`` given by
        name implies a header).
    positive : label, optional
        The label mapped to +1 (with more than two labels: against all the others).
    name : str, optional
        Name for reports (default: the file name).

    Returns
    -------
    Dataset
        ``X`` of shape (n, d) (every column but the label), ``y`` of shape (n,);
        ``feature_names`` from the header (None without one).

    Raises
    ------
    DataError
        A file that is not UTF-8 CSV text, ragged rows, a non-number among the features
        (file:line), a label column not found, labels that are not two classes.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = f.write_text("a,b,cls\n0,1,yes\n1,0,no\n")
    >>> ds = load_csv(f, label="cls")
    >>> ds.X.shape, ds.y.tolist(), ds.classes, ds.feature_names
    ((2, 2), [1.0, -1.0], ('no', 'yes'), ('a', 'b'))
    """
    path_, shown, default_name = _source(path)
    with TextSource(path_, shown, "CSV") as source:
        return _csv_dataset(source, name or default_name, label, header, positive)


def _csv_dataset(
    source: TextSource, name: str, label: str | int | None, header: bool | None, positive: Any
) -> Dataset:
    if header is not None and not isinstance(header, (bool, np.bool_)):
        raise ParameterError(
            f"The 'header' parameter must be None, True or False. Got {header!r} instead."
        )
    if label is not None and (
        isinstance(label, (bool, np.bool_)) or not isinstance(label, (str, int, np.integer))
    ):
        raise ParameterError(
            "The 'label' parameter must be a column name (str) or index (int). "
            f"Got {label!r} instead."
        )
    X, labels, names = parse_csv(source, label, None if header is None else bool(header))
    return _with_labels(
        X, labels, name, positive, feature_names=None if names is None else tuple(names)
    )
