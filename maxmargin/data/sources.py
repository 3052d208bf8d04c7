"""The front door to data, :func:`load`: a file by its suffix, standard input, ``builtin:NAME``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..exceptions import DataError, ParameterError
from ._text import TextSource, _is_stdin, _source
from .csv_file import _csv_dataset, load_csv
from .dataset import Dataset
from .generators import make_gaussians, make_separable
from .libsvm import _check_zero_based, _libsvm_dataset, load_libsvm
from .npz import load_npz

_PACKAGE_DATA = Path(__file__).resolve().parent.parent / "datasets"


#: Built-in data sets, loadable as ``builtin:NAME`` wherever a data file is expected.
BUILTIN = ("heart_scale", "separable", "gaussians")


def load(
    path: str | Path,
    *,
    label: str | int | None = None,
    header: bool | None = None,
    positive: Any = None,
    zero_based: bool | str = "auto",
) -> Dataset:
    r"""Load a data file by its suffix: ``.csv``, ``.npz``, else LIBSVM/svmlight.

    A ``.gz`` or ``.bz2`` suffix is looked through; ``"-"`` reads standard input (LIBSVM or
    CSV, as its content says); ``"builtin:NAME"`` loads a built-in data set
    (:data:`BUILTIN`). See ``docs/data.md``.

    Parameters
    ----------
    path : str or Path
        The file, ``"-"`` or ``"builtin:NAME"``.
    label : str or int, optional
        CSV only: the label column (see :func:`load_csv`).
    header : bool, optional
        CSV only: whether the first row holds column names (default: detected).
    positive : label, optional
        The label mapped to +1 (see :func:`map_labels`).
    zero_based : {"auto", True, False}
        LIBSVM only: the base of the feature indices (see :func:`load_libsvm`).

    Returns
    -------
    Dataset
        The data, labels in {-1, +1}.

    Raises
    ------
    DataError
        No such file, or what the format's loader refuses.
    ParameterError
        ``label`` or ``header`` for a file that is not CSV, ``zero_based`` (other than
        ``"auto"``) for one that is not LIBSVM.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = f.write_text("1,2,1\n3,4,-1\n")
    >>> load(f).X.tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    >>> load("builtin:gaussians").n
    400
    >>> ds = load("builtin:heart_scale")
    >>> ds.n, ds.d
    (270, 13)
    >>> load("builtin:separable").meta["margin"]
    0.3
    """
    zero_based = _check_zero_based(zero_based)
    if isinstance(path, str) and path.startswith("builtin:"):
        name = path.split(":", 1)[1]
        if name == "heart_scale":
            ds = load_libsvm(_PACKAGE_DATA / "heart_scale", name="heart_scale", zero_based=False)
        elif name == "separable":
            ds = make_separable(200, 2, margin=0.3, seed=0)
        elif name == "gaussians":
            ds = make_gaussians(400, 2, separation=2.0, seed=0)
        else:
            raise DataError(f"no built-in data set {name!r}; choose from {', '.join(BUILTIN)}")
        if positive is None:
            return ds
        return Dataset.from_labels(
            ds.X,
            ds.y,
            positive=positive,
            name=ds.name,
            meta=ds.meta,
            feature_names=ds.feature_names,
        )
    path_, shown, name = _source(path)
    fmt = _format_of(path)
    if path_ is None:  # standard input: LIBSVM or CSV as the content says
        with TextSource(None, shown, "data") as source:
            first = source.first()
            if not first.strip() and source.at_end():
                raise DataError(f"{shown}: empty: no data was piped in")
            fmt = sniff_format(first)
            _check_format_args(fmt, shown, label, header, zero_based)
            if fmt == "csv":
                return _csv_dataset(source, name, label, header, positive)
            return _libsvm_dataset(source, name, None, positive, zero_based)
    if not path_.exists():
        raise DataError(f"{shown}: no such file")
    _check_format_args(fmt, shown, label, header, zero_based)
    if fmt == "csv":
        return load_csv(path_, label=label, header=header, positive=positive)
    if fmt == "npz":
        return load_npz(path_, positive=positive)
    if fmt == "npy":
        raise DataError(
            f"{shown}: a .npy file holds one array; save X and y together with "
            "numpy.savez(path, X=X, y=y) and load the .npz"
        )
    return load_libsvm(path_, positive=positive, zero_based=zero_based)


def _check_format_args(
    fmt: str, shown: str, label: Any, header: Any, zero_based: bool | str
) -> None:
    """The options of one format given for a file of another: refused."""
    if fmt != "libsvm" and zero_based != "auto":
        raise ParameterError(
            f"zero_based= (--index-base) is for LIBSVM files; {shown} is read as "
            f"{'CSV' if fmt == 'csv' else '.' + fmt}"
        )
    if fmt == "csv":
        return
    for what, value in (("label", label), ("header", header)):
        if value is not None:
            raise ParameterError(
                f"{what}= (--{what}) is for CSV files; {shown} is read as "
                f"{'.npz' if fmt == 'npz' else 'LIBSVM'}"
            )


def _format_of(path: Any) -> str:
    """What :func:`load` reads ``path`` as, by its name.

    ``"builtin"``, ``"stdin"`` (decided from the content), ``"csv"``, ``"npz"``, ``"npy"``
    or ``"libsvm"``; a ``.gz`` / ``.bz2`` suffix is looked through.
    """
    if isinstance(path, str) and path.startswith("builtin:"):
        return "builtin"
    if _is_stdin(path):
        return "stdin"
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".gz", ".bz2"):
        suffix = Path(path.stem).suffix.lower()
    return {".csv": "csv", ".npz": "npz", ".npy": "npy"}.get(suffix, "libsvm")


def sniff_format(text: str) -> str:
    """``"libsvm"`` or ``"csv"``: the format the content looks like.

    ``"libsvm"`` when the first 100 lines (comments dropped) are ``label idx:val ...`` (or
    a label alone) and one has a feature; else ``"csv"``.
    """
    features = False
    lines = 0
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if (
            len(parts) >= 2
            and all(":" in p for p in parts[1:])
            and "," not in line
            and ";" not in line
        ):
            features = True
        elif len(parts) > 1 or any(c in line for c in ",;:"):
            return "csv"
        lines += 1
        if lines == 100:
            break
    return "libsvm" if features else "csv"
