"""LIBSVM / svmlight text files: :func:`load_libsvm` and its streaming parser."""

from __future__ import annotations

import math
from array import array
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._log import logger
from .._validation import check_int
from ..exceptions import DataError, ParameterError
from ._text import TextSource, _source
from .dataset import Dataset, _with_labels

#: The largest LIBSVM feature index accepted (int64 indices, with room to spare).
MAX_INDEX = 2**62


def _nbytes(*buffers: array) -> float:
    return float(sum(b.itemsize * len(b) for b in buffers))


class _Libsvm:
    """LIBSVM lines parsed into compact buffers."""

    def __init__(self, shown: str, zero_based: bool | str) -> None:
        self.shown, self.zero_based = shown, zero_based
        self.labels = array("d")
        self.indptr = array("q", [0])
        self.indices = array("q")
        self.values = array("d")
        self.first_zero = 0  # the line of the first index 0
        self.qid_rows = 0

    def nbytes(self) -> float:
        return _nbytes(self.labels, self.indptr, self.indices, self.values)

    def line(self, raw: str, lineno: int) -> None:
        if "#" in raw:
            raw = raw.split("#", 1)[0]
        parts = raw.split()
        if not parts:
            return
        try:
            lab = float(parts[0])
        except ValueError:
            raise DataError(f"{self.shown}:{lineno}: label {parts[0]!r} is not a number") from None
        if not math.isfinite(lab):
            raise DataError(f"{self.shown}:{lineno}: label {parts[0]!r} is not a finite number")
        strict = self.zero_based is False  # an index 0 is an error
        indices, values = self.indices, self.values
        last = -1
        for tok in parts[1:]:
            idx_s, sep, val_s = tok.partition(":")
            try:
                idx, val = int(idx_s), float(val_s)
            except ValueError:
                idx, val = -2, 0.0  # malformed: _feature_error says how
            # inf - inf and nan - nan are nan: the value is finite when this is 0
            if not (sep and last < idx <= MAX_INDEX and val - val == 0.0) or (strict and not idx):
                if tok.startswith("qid:"):
                    self.qid_rows += 1
                    continue
                raise _feature_error(tok, last, self.zero_based, f"{self.shown}:{lineno}")
            if not idx and not self.first_zero:
                self.first_zero = lineno
            last = idx
            indices.append(idx)
            values.append(val)
        self.labels.append(lab)
        self.indptr.append(len(indices))

    def matrix(self, n_features: int | None) -> tuple[Any, bool]:
        """The CSR matrix and whether its indices were 0-based."""
        zero = bool(self.first_zero) if self.zero_based == "auto" else bool(self.zero_based)
        columns = np.frombuffer(self.indices, np.int64) if self.indices else np.zeros(0, np.int64)
        if not zero:
            columns -= 1  # in place: the buffer is not needed as it was
        d = int(columns.max()) + 1 if columns.size else 0
        if n_features is not None:
            if n_features < d:
                raise DataError(
                    f"{self.shown}: has feature index {d - 1 + (not zero)} > "
                    f"n_features={n_features} ({'0' if zero else '1'}-based)"
                )
            d = n_features
        values = np.frombuffer(self.values, float) if self.values else np.zeros(0)
        indptr = np.frombuffer(self.indptr, np.int64)
        X = sp.csr_matrix((values, columns, indptr), shape=(len(self.labels), max(d, 1)))
        return X, zero


def parse_libsvm(
    source: TextSource, n_features: int | None, zero_based: bool | str
) -> tuple[Any, np.ndarray, bool]:
    """``(X, labels, zero_based)`` of LIBSVM text: X a CSR matrix, labels floats.

    See :func:`maxmargin.data.load_libsvm` for the format and the errors.
    """
    shown = source.shown
    p = _Libsvm(shown, zero_based)
    lineno = 0
    for chunk in source.chunks(p.nbytes):
        for raw in chunk.splitlines():
            lineno += 1
            p.line(raw, lineno)
    if not p.labels:
        raise DataError(f"{shown}: no examples found")
    X, zero = p.matrix(n_features)
    if p.qid_rows:
        import warnings

        warnings.warn(
            f"{shown}: qid ignored ({p.qid_rows} rows carry a query id); maxmargin "
            "trains one classifier on all the rows, not one ranking per query",
            UserWarning,
            stacklevel=4,
        )
    why = (
        (f"an index 0 on line {p.first_zero}" if zero else "no index 0")
        if zero_based == "auto"
        else "as asked"
    )
    logger.debug(
        "%s: read as LIBSVM%s, %d rows x %d features, %s indices (%s)",
        shown,
        f" ({source.compression})" if source.compression else "",
        X.shape[0],
        X.shape[1],
        "0-based" if zero else "1-based",
        why,
    )
    return X, np.frombuffer(p.labels, float), zero


def _feature_error(tok: str, last: int, zero_based: bool | str, where: str) -> DataError:
    """What is wrong with the ``index:value`` token ``tok`` (``last``: the previous index)."""
    idx_s, sep, val_s = tok.partition(":")
    try:
        if not sep:
            raise ValueError
        idx = int(idx_s)
        float(val_s)
    except ValueError:
        return DataError(f"{where}: malformed feature {tok!r} (expected index:value)")
    if idx < 0:
        return DataError(f"{where}: feature index {idx} is negative")
    if idx == 0 and zero_based is False:
        return DataError(
            f"{where}: feature index 0 < 1 (indices are 1-based here: "
            "zero_based=False, --index-base 1, or a --holdout read like its "
            "1-based DATA)"
        )
    if idx > MAX_INDEX:
        return DataError(f"{where}: feature index {idx} is too large (more than {MAX_INDEX:,})")
    if idx <= last:
        return DataError(f"{where}: feature indices must increase ({idx} after {last})")
    return DataError(f"{where}: feature {idx} is {val_s} (NaN/inf not allowed)")


def _check_zero_based(zero_based: Any) -> bool | str:
    if isinstance(zero_based, str) and zero_based == "auto":
        return "auto"
    if isinstance(zero_based, (bool, np.bool_)):
        return bool(zero_based)
    raise ParameterError(
        f"The 'zero_based' parameter must be 'auto', True or False. Got {zero_based!r} instead."
    )


def load_libsvm(
    path: str | Path,
    n_features: int | None = None,
    *,
    positive: Any = None,
    name: str | None = None,
    zero_based: bool | str = "auto",
) -> Dataset:
    r"""Load a LIBSVM / svmlight text file into a sparse :class:`Dataset`.

    Lines are ``label index:value ...`` with increasing indices; ``#`` comments; ``qid:N``
    ignored with one warning; gzip and bzip2 decompressed; labels mapped by
    :func:`map_labels`; ``X`` sparse whatever the largest index. See ``docs/data.md``.

    Parameters
    ----------
    path : str or Path
        The file; ``"-"`` reads standard input.
    n_features : int, optional
        Number of columns (default: the largest index seen, plus one when 0-based).
    positive : label, optional
        The label mapped to +1 (see :func:`map_labels`).
    name : str, optional
        Name for reports (default: the file name).
    zero_based : {"auto", True, False}
        Whether index 0 (scikit-learn's files) or 1 (LIBSVM's) is the first column;
        ``"auto"``: 0-based when some index is 0 (scikit-learn's rule).

    Returns
    -------
    Dataset
        ``X`` a CSR matrix of shape (n, d), ``y`` of shape (n,) in {-1, +1};
        ``meta["zero_based"]`` the base used (to load a test file with).

    Raises
    ------
    DataError
        With the file name and line number of a malformed line; a binary, damaged
        compressed or non-UTF-8 file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "tiny.svm"
    >>> _ = f.write_text("+1 1:0.5 3:1\n-1 2:2\n")
    >>> ds = load_libsvm(f)
    >>> ds.X.shape, ds.y.tolist(), ds.meta
    ((2, 3), [1.0, -1.0], {'zero_based': False})
    >>> _ = f.write_text("+1 0:0.5 2:1\n-1 1:2\n")  # as dump_svmlight_file writes it
    >>> load_libsvm(f).X.toarray().tolist()
    [[0.5, 0.0, 1.0], [0.0, 2.0, 0.0]]
    """
    zero_based = _check_zero_based(zero_based)
    path_, shown, default_name = _source(path)
    with TextSource(path_, shown, "LIBSVM") as source:
        return _libsvm_dataset(source, name or default_name, n_features, positive, zero_based)


def _libsvm_dataset(
    source: TextSource, name: str, n_features: int | None, positive: Any, zero_based: bool | str
) -> Dataset:
    if n_features is not None:
        n_features = check_int("n_features", n_features, minimum=1, maximum=MAX_INDEX + 1)
    X, labels, zero = parse_libsvm(source, n_features, zero_based)
    return _with_labels(X, labels, name, positive, meta={"zero_based": zero})
