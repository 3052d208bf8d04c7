"""Data: the validated :class:`Dataset`, label mapping, loaders per format, generators.

The face of the package: each name below has its one home, a module per job:
``dataset`` (:class:`Dataset`, :func:`map_labels`, the checks), ``sources`` (:func:`load`,
the front door: by suffix, standard input, ``builtin:NAME``), ``libsvm``, ``csv_file``,
``npz``, ``weights`` (one loader per format), ``generators`` (:func:`make_separable`,
:func:`make_gaussians`); ``_text`` reads text files (compressed or not, or standard input)
in memory proportional to their data.
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
