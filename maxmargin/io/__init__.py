"""Persistence, in one place: results declare their fields; io writes and reads them.

Declarations in :mod:`~maxmargin.io.schema`, files in :mod:`~maxmargin.io.document`;
docs/contributing.md ("Adding a result") shows a result declared.
"""

from . import schema
from .document import Persistent, load_pair, save_pair
from .rows import Rows, RowsOf
from .schema import *  # noqa: F403 (the declarations: schema.__all__)
from .tables import Column, Table

__all__ = ["Persistent", "save_pair", "load_pair", "RowsOf", "Rows", "Table", "Column"]
__all__ += schema.__all__
