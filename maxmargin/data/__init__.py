"""Data: the validated :class:`Dataset`, label mapping, loaders per format, generators.

One module per job: ``dataset``, ``sources`` (:func:`load`), ``libsvm``, ``csv_file``,
``npz``, ``weights``, ``generators``; ``_text`` reads text in memory proportional to it.
"""

from ._text import STDIN
from .csv_file import CSV_DELIMITERS, load_csv
from .dataset import Dataset, map_labels, scale_rows
from .generators import make_gaussians, make_separable
from .libsvm import load_libsvm
from .npz import load_npz
from .sources import BUILTIN, load
from .weights import load_weights

__all__ = [
    "Dataset",
    "map_labels",
    "load",
    "load_libsvm",
    "load_csv",
    "load_npz",
    "load_weights",
    "STDIN",
    "CSV_DELIMITERS",
    "BUILTIN",
    "make_separable",
    "make_gaussians",
    "scale_rows",
]
