"""Rows in a document: a list of row objects (:class:`RowsOf`) and a 2-D array (:class:`Rows`).

:class:`RowsOf` writes rows of the same keys and reads them back column by column (a
result's :class:`~maxmargin.io.Layout` turns the columns into its fields).
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
    """A list of row objects with the same keys, each key written by its codec."""

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
                except (DataError, TypeError, ValueError, KeyError, IndexError) as e:
                    raise DataError(f"row {i}, {k!r}: {e}") from None
        return out


@dataclasses.dataclass(frozen=True)
class Rows(Codec):
    """A 2-D float array as a list of rows of ``width`` numbers each."""

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
