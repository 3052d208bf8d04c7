"""``.npz`` archives of the arrays ``X`` and ``y`` (and ``feature_names``): :func:`load_npz`."""

from __future__ import annotations

import math
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import check_memory
from ..exceptions import DataError
from ..io.files import display
from ._text import _is_stdin, _source, compression_of
from .dataset import Dataset, _with_labels


def load_npz(path: str | Path, *, positive: Any = None, name: str | None = None) -> Dataset:
    """Load an ``.npz`` archive holding arrays ``X`` (n, d) and ``y`` (n,).

    An optional array ``feature_names`` (d,) of strings becomes
    ``Dataset.feature_names``.

    Parameters
    ----------
    path : str or Path
        The archive (read with ``allow_pickle=False``).
    positive : label, optional
        The label mapped to +1 (with more than two labels: against all the others).
    name : str, optional
        Name for reports (default: the file name).

    Returns
    -------
    Dataset
        Two label values other than -1/+1 are mapped with :func:`map_labels`.

    Raises
    ------
    DataError
        A ``.npy`` file or anything else that is not a zip archive, object arrays
        (pickles), no ``X`` or ``y``, or data :class:`Dataset` refuses.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "tiny.npz"
    >>> np.savez(f, X=np.eye(2), y=np.array([1, -1]))
    >>> load_npz(f).n
    2
    """
    if _is_stdin(path):
        raise DataError(
            "an .npz archive cannot be read from standard input ('-'); give its file name"
        )
    file, shown, _ = _source(path)
    assert file is not None
    name = name or display(file.name)
    try:
        with file.open("rb") as f:
            head = f.read(10)
    except IsADirectoryError:
        raise DataError(f"{shown}: is a directory, not a data file") from None
    except OSError as e:
        raise DataError(f"{shown}: cannot read: {e.strerror or e}") from None
    how = "save X and y together with numpy.savez(path, X=X, y=y)"
    if head[:6] == b"\x93NUMPY":
        raise DataError(f"{shown}: a .npy file (one array), not an .npz archive; {how}")
    if compression_of(head) is not None:
        raise DataError(
            f"{shown}: a {compression_of(head)} file, not an .npz archive; .npz "
            "archives are read as they are (numpy.savez_compressed compresses "
            "inside the archive)"
        )
    if not zipfile.is_zipfile(file):
        raise DataError(f"{shown}: not an .npz archive (not a zip file); {how}")
    try:
        with np.load(file, allow_pickle=False) as z:
            if "X" not in z.files or "y" not in z.files:
                raise DataError(
                    f"{shown}: an .npz data file needs arrays 'X' and 'y' "
                    f"(found {sorted(z.files)}); {how}"
                )
            _check_npz_size(z, shown)
            X, y = z["X"], z["y"]
            names = z["feature_names"] if "feature_names" in z.files else None
    except DataError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        why = (
            "it holds object arrays (pickles), which maxmargin does not load"
            if "pickle" in str(e)
            else str(e)
        )
        raise DataError(f"{shown}: cannot read as .npz: {why}") from None
    if names is not None and (names.ndim != 1 or names.dtype.kind != "U"):
        raise DataError(
            f"{shown}: the array 'feature_names' must hold strings (d,), got "
            f"dtype {names.dtype} and shape {names.shape}"
        )
    return _with_labels(
        X,
        np.asarray(y).reshape(-1) if np.ndim(y) == 2 and 1 in np.shape(y) else np.asarray(y),
        name,
        positive,
        feature_names=None if names is None else names.tolist(),
    )


def _check_npz_size(z: Any, shown: str) -> None:
    """Refuse, from their headers, arrays X and y that cannot fit (a zip bomb, say).

    Counted twice: the arrays as stored, and X as float64 when it is stored otherwise.
    """
    nbytes = 0
    shapes = []
    for key in ("X", "y"):
        with z.zip.open(f"{key}.npy") as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, _, dtype = np.lib.format.read_array_header_2_0(f)
            else:  # numpy reads (and checks) other versions itself
                return
        shapes.append(f"{key} {shape}")
        nbytes += 2 * math.prod(shape) * max(dtype.itemsize, 8)
    check_memory(nbytes, f"{shown} (arrays {' and '.join(shapes)})")
