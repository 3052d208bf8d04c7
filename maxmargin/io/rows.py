"""Rows in a document: a list of row objects (:class:`RowsOf`) and a 2-D array (:class:`Rows`).

Some results keep, beside their fields, a readable table in their JSON: one object per
breakpoint or per segment, each with the same keys (``{"C": 0.5, "events": [...]}``).
:class:`RowsOf` declares such a list once (each key of a row and its codec): it writes
the rows and reads them back *column by column* (one list per key, each value through
its codec), refusing a row that is not an object or lacks a key in one line naming the
row. A column may itself be a :class:`RowsOf` (a breakpoint's events). A result's
:class:`~maxmargin.io.Layout` turns the columns into its fields.

:class:`Rows` is the array-of-rows codec: a 2-D float array written as a list of rows
(lists of numbers, ``"inf"``, ``null`` for NaN), read back with its width checked, an
empty list being zero rows of that width.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..exceptions import DataError
from .json import jsonable
from .schema import Codec

__all__ = ["RowsOf", "Rows"]


@dataclasses.dataclass(frozen=True)
class RowsOf(Codec):
    """A list of row objects with the same keys, each key written by its codec.

    Parameters
    ----------
    columns : mapping of str to Codec
        Each key of a row, in the order written, and how its value is written.

    Examples
    --------
    >>> from maxmargin import io
    >>> rows = RowsOf({"C": io.Number(), "ok": io.Bool()})
    >>> rows.dump([{"C": float("inf"), "ok": True}])
    [{'C': 'inf', 'ok': True}]
    >>> rows.load([{"C": 0.5, "ok": True}, {"C": "inf", "ok": False}])
    {'C': [0.5, inf], 'ok': [True, False]}
    """

    columns: Mapping[str, Codec]

    def dump(self, value: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Each row as an object of the declared keys, in the declared order."""
        return [{k: codec.dump(row[k]) for k, codec in self.columns.items()} for row in value]

    def load(self, doc: Any) -> dict[str, list[Any]]:
        """The rows' values column by column: ``{key: [value of each row]}``."""
        if not isinstance(doc, list):
            raise TypeError(f"expected a list of rows, got {doc!r:.60}")
        out: dict[str, list[Any]] = {k: [] for k in self.columns}
        for i, row in enumerate(doc):
            if not isinstance(row, dict):
                raise TypeError(f"row {i}: expected an object, got {row!r:.60}")
            for k, codec in self.columns.items():
                if k not in row:
                    raise DataError(f"row {i}: no {k!r} key")
                try:
                    out[k].append(codec.load(row[k]))
                except DataError as e:
                    raise DataError(f"row {i}, {k!r}: {e}") from None
                except (TypeError, ValueError, KeyError, IndexError) as e:
                    raise DataError(f"row {i}, {k!r}: {e}") from None
        return out


@dataclasses.dataclass(frozen=True)
class Rows(Codec):
    """A 2-D float array as a list of rows of ``width`` numbers each.

    Parameters
    ----------
    width : int
        The number of columns (an empty list reads back as shape ``(0, width)``).

    Examples
    --------
    >>> Rows(2).dump(np.array([[1.0, np.inf], [np.nan, 0.5]]))
    [[1.0, 'inf'], [None, 0.5]]
    >>> Rows(2).load([]).shape
    (0, 2)
    """

    width: int

    def dump(self, value: Any) -> Any:  # noqa: D102
        a = np.asarray(value, dtype=float).reshape(-1, self.width)
        return jsonable(a)

    def load(self, doc: Any) -> np.ndarray:  # noqa: D102
        if not isinstance(doc, list):
            raise TypeError(f"expected a list of rows, got {doc!r:.60}")
        if any(not isinstance(r, list) or len(r) != self.width for r in doc):
            raise ValueError(f"expected rows of {self.width} numbers each")
        return np.array(doc, dtype=float).reshape(len(doc), self.width)
