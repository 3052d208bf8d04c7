"""Persistence, in one place: results declare their fields; io writes and reads them.

- :mod:`~maxmargin.io.schema`: the declarations (:func:`persist`, :func:`transient`, the
  codecs) and :func:`to_dict` / :func:`from_dict`;
- :mod:`~maxmargin.io.document`: :class:`Persistent`, the mixin every result derives
  (``to_json``, ``from_json(source, data=None)``, ``with_data``, ``without_data``, its
  tables), and :func:`save_pair` / :func:`load_pair` (arrays in ``.npz`` beside JSON);
- :mod:`~maxmargin.io.rows`: :class:`RowsOf` (a list of row objects, read column by
  column) and :class:`Rows` (a 2-D array as a list of rows), for a ``Layout``;
- :mod:`~maxmargin.io.tables`: :class:`Table` / :class:`Column`, rendered as CSV, a
  DataFrame, markdown and LaTeX booktabs;
- :mod:`~maxmargin.io.json`: the strict JSON sanitiser and the ``format`` header of every
  document;
- :mod:`~maxmargin.io.files`: atomic writes and the checks of a command's outputs.

docs/contributing.md ("Adding a result") shows a result declared and tested.
"""

from .document import Persistent, load_pair, save_pair
from .rows import Rows, RowsOf
from .schema import (
    Array,
    Arrays,
    Bool,
    Codec,
    Dict,
    Int,
    Layout,
    Nested,
    Number,
    Numbers,
    Series,
    Str,
    Strings,
    Tuple,
    equal,
    from_dict,
    persist,
    series_fields,
    to_dict,
    transient,
)
from .tables import Column, Table

__all__ = [
    "Persistent",
    "persist",
    "transient",
    "Codec",
    "Number",
    "Int",
    "Bool",
    "Str",
    "Dict",
    "Tuple",
    "Numbers",
    "Strings",
    "Array",
    "Arrays",
    "Series",
    "Nested",
    "Layout",
    "RowsOf",
    "Rows",
    "Table",
    "Column",
    "to_dict",
    "from_dict",
    "series_fields",
    "equal",
    "save_pair",
    "load_pair",
]
