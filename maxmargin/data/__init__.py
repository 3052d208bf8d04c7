"""Data: the validated :class:`Dataset`, label mapping, loaders and seeded generators.

A :class:`Dataset` is checked once, at construction, so every other module may assume
``X`` of shape (n, d), float64 and finite (dense C-contiguous, or canonical CSR), and
``y`` of shape (n,) with values in {-1.0, +1.0}, both present.
"""

from __future__ import annotations

import math
import os
import zipfile
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import (
    _short,
    check_count,
    check_finite,
    check_fraction,
    check_int,
    check_memory,
    check_positive,
    seed_from_random_state,
)
from ..exceptions import DataError, ParameterError
from ..io.files import display
from . import _text as _textdata
from ._text import TextSource, compression_of, parse_csv, parse_libsvm
from ._text import sniff_format as _sniff_format

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
]

_PACKAGE_DATA = Path(__file__).resolve().parent.parent / "datasets"


def map_labels(y: Any, positive: Any = None) -> tuple[np.ndarray, tuple[Any, Any]]:
    """Map any two-valued labels to -1/+1 and say which is which.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels with exactly two distinct values (numbers or strings); with ``positive``,
        any number of values (one class against the rest). Numeric labels must be finite.
    positive : label, optional
        The label to map to +1. By default the larger of the two in sorted order
        (scikit-learn's ``classes_[1]``), so {0, 1} -> {-1, +1} and {1, 2} -> {-1, +1}.
        With more than two values, ``positive`` is mapped to +1 and every other label to
        -1 (one-vs-rest).

    Returns
    -------
    y_pm : ndarray of shape (n,), float64
        The labels as -1.0 / +1.0.
    classes : tuple (negative_label, positive_label)
        The original label mapped to -1 and the one mapped to +1 (one-vs-rest: the
        tuple of the labels mapped to -1, then ``positive``).

    Raises
    ------
    DataError
        Labels that are NaN or infinite, one value only, more than two values without
        ``positive``, or a ``positive`` that is not among them.

    Examples
    --------
    >>> y, classes = map_labels(["spam", "ham", "spam"])
    >>> y.tolist(), classes
    ([1.0, -1.0, 1.0], ('ham', 'spam'))
    >>> map_labels(["a", "b", "c", "a"], positive="a")[0].tolist()
    [1.0, -1.0, -1.0, 1.0]
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise DataError(f"labels must be one-dimensional, got shape {arr.shape}")
    _check_finite_labels(arr)
    values = np.unique(arr)
    if positive is not None and len(values) >= 2:
        if positive not in values:
            try:  # a label given as text ("1" from the command line) for numeric labels
                found = [v for v in values if v == type(v.item())(positive)]
            except (TypeError, ValueError):
                found = []
            if not found:
                raise DataError(f"positive label {positive!r} is not one of {_show(values)}")
            positive = found[0]
        y_pm = np.where(arr == positive, 1.0, -1.0)
        rest = tuple(_item(v) for v in values if v != positive)
        return y_pm, (rest[0] if len(rest) == 1 else rest, _item(positive))
    if len(values) != 2:
        hint = (
            (
                "; choose one class to train against the rest: positive=LABEL (on the "
                "command line --positive LABEL)"
            )
            if len(values) > 2
            else ""
        )
        raise DataError(
            f"labels must take exactly two values for a binary SVM, got {len(values)}: "
            f"{_show(values)}{hint}"
        )
    neg, pos = values[0], values[1]
    y_pm = np.where(arr == pos, 1.0, -1.0)
    return y_pm, (_item(neg), _item(pos))


def _item(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


def _show(values: np.ndarray) -> str:
    shown = [_item(v) for v in values[:10]]
    return f"{shown}{' ...' if len(values) > 10 else ''}"


def _check_finite_labels(arr: np.ndarray, prefix: str = "") -> None:
    """Numeric labels must be finite: NaN or inf would be mapped to a class silently."""
    if arr.dtype.kind == "c":
        raise DataError(f"{prefix}the labels are complex numbers; labels must be two classes")
    if arr.dtype.kind in "fiub":
        bad = ~np.isfinite(arr.astype(np.float64))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataError(
                f"{prefix}{int(bad.sum())} label(s) are NaN or infinite (first at "
                f"row {i}: {arr[i]}); every example needs one of two labels"
            )


def _check_feature_names(names: Any, d: int, name: str) -> tuple[str, ...] | None:
    """``names`` as a tuple of d strings (or None), or a DataError saying what is wrong."""
    if names is None:
        return None
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise DataError(
            f"{name}: feature_names must be a sequence of {d} strings, got {type(names).__name__}"
        )
    names = tuple(names)
    if len(names) != d:
        raise DataError(
            f"{name}: {len(names)} feature names for {d} features; give one name per column of X"
        )
    bad = [v for v in names if not isinstance(v, str)]
    if bad:
        raise DataError(
            f"{name}: feature names must be strings, got {bad[0]!r} ({type(bad[0]).__name__})"
        )
    return tuple(str(v) for v in names)


def _checked_X(X: Any, name: str) -> Any:
    """``X`` as float64, dense C-contiguous or CSR, checked.

    CSR with sorted indices and no duplicates; 2-D, not empty, finite; a DataError naming
    the first bad entry otherwise.
    """
    complex_ = DataError(
        f"{name}: X holds complex numbers; maxmargin needs real "
        "features (put real and imaginary parts in separate columns)"
    )
    if sp.issparse(X):
        if X.dtype.kind == "c":
            raise complex_
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sum_duplicates()
        X.sort_indices()
        values = X.data
    else:
        try:
            X = np.asarray(X)
            if X.dtype.kind != "c":
                X = np.ascontiguousarray(X, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise DataError(f"{name}: X is not numeric: {e}") from None
        if X.dtype.kind == "c":
            raise complex_
        values = X
    if X.ndim != 2:
        raise DataError(f"{name}: X must be 2-D (n, d), got shape {X.shape}")
    n, d = X.shape
    if n == 0:
        raise DataError(f"{name}: the data set is empty (0 examples)")
    if d == 0:
        raise DataError(f"{name}: the data set has no features (d = 0)")
    bad = ~np.isfinite(values)
    if bad.any():
        where = np.argwhere(bad)[0] if not sp.issparse(X) else None
        at = f" (first at row {where[0]}, column {where[1]})" if where is not None else ""
        raise DataError(
            f"{name}: X contains {int(bad.sum())} NaN or infinite values{at}; "
            "remove or impute them first"
        )
    return X


def _checked_y(y: Any, n: int, name: str) -> np.ndarray:
    """The labels as float64 in {-1, +1}, one per row.

    A DataError that says how to map other labels otherwise.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        y = y.reshape(-1) if y.ndim == 2 and 1 in y.shape else y
    if y.ndim != 1:
        raise DataError(f"{name}: y must be 1-D, got shape {y.shape}")
    if len(y) != n:
        raise DataError(f"{name}: X has {n} rows but y has {len(y)} labels; they must match")
    _check_finite_labels(y, f"{name}: ")
    try:
        yf = y.astype(np.float64)
    except (TypeError, ValueError):
        yf = None
    if yf is None or not np.all(np.isin(yf, (-1.0, 1.0))):
        values_ = np.unique(y)
        hint = ""
        if len(values_) == 2:
            hint = (
                f"; map them with maxmargin.map_labels(y) ({values_[0]!r} -> -1, "
                f"{values_[1]!r} -> +1) or Dataset.from_labels(X, y)"
            )
        raise DataError(
            f"{name}: labels must be -1 or +1, got values {values_[:10].tolist()}{hint}"
        )
    return yf


@dataclass(frozen=True, eq=False)
class Dataset:
    """A validated binary classification data set.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, d)
        Features; converted to float64 (dense C-contiguous, or canonical CSR).
    y : array-like of shape (n,)
        Labels in {-1, +1}, both present. Use :func:`map_labels` (or ``Dataset.from_labels``)
        for any other two labels.
    name : str
        A name for reports.
    classes : tuple
        The original labels mapped to -1 and +1 (``(-1, 1)`` when none were mapped).
    meta : dict
        Free-form facts about the data (the generators put the true ``w``, ``b`` and
        ``margin`` here).
    require_both_classes : bool
        Reject data with one class only (the default). Streams pass False: a
        ``partial_fit`` batch may hold a single example.
    feature_names : sequence of str of length d, optional
        The names of the columns of ``X``. By default the column names of a pandas
        DataFrame ``X`` when they are all strings (scikit-learn's rule for
        ``feature_names_in_``), else None. Kept by :meth:`subset` and :meth:`split`.

    Examples
    --------
    >>> ds = Dataset([[0.0, 1.0], [1.0, 0.0]], [1, -1])
    >>> ds.n, ds.d, float(ds.R)
    (2, 2, 1.0)
    >>> Dataset([[0.0, 1.0], [1.0, 0.0]], [1, -1], feature_names=["age", "dose"]).feature_names
    ('age', 'dose')
    """

    X: Any
    y: np.ndarray
    name: str = "data"
    classes: tuple = (-1, 1)
    meta: dict = field(default_factory=dict)
    require_both_classes: bool = field(default=True, repr=False)
    feature_names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        X = self.X
        names = self.feature_names
        if names is None and not sp.issparse(X):
            columns = getattr(X, "columns", None)  # a pandas (or polars) DataFrame
            if columns is not None and len(columns) and all(isinstance(c, str) for c in columns):
                names = tuple(columns)
        X = _checked_X(X, self.name)
        n, d = X.shape
        yf = _checked_y(self.y, n, self.name)
        if self.require_both_classes and np.unique(yf).size < 2:
            raise DataError(
                f"{self.name}: only one class present (all labels are {yf[0]:+.0f}); "
                "a classifier needs examples of both -1 and +1"
            )
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", np.ascontiguousarray(yf))
        object.__setattr__(self, "feature_names", _check_feature_names(names, d, self.name))

    @classmethod
    def from_labels(cls, X: Any, labels: Any, *, positive: Any = None, **kw: Any) -> Dataset:
        """Build a Dataset from any two labels, mapped with :func:`map_labels`.

        Parameters
        ----------
        X : array-like or sparse of shape (n, d)
        labels : array-like of shape (n,)
            Exactly two distinct values.
        positive : optional
            The label mapped to +1 (default: the larger of the two).
        **kw
            Other keyword arguments of :class:`Dataset` (``name``, ``meta``).

        Returns
        -------
        Dataset
            With ``classes`` holding the original labels of -1 and +1.

        Examples
        --------
        >>> ds = Dataset.from_labels([[0.0], [1.0]], ["cat", "dog"], positive="cat")
        >>> ds.y.tolist(), ds.classes
        ([1.0, -1.0], ('dog', 'cat'))
        """
        y, classes = map_labels(labels, positive=positive)
        return cls(X, y, classes=classes, **kw)

    @property
    def n(self) -> int:
        """Number of examples."""
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        """Number of features."""
        return int(self.X.shape[1])

    @property
    def is_sparse(self) -> bool:
        """Whether X is a scipy.sparse CSR matrix."""
        return sp.issparse(self.X)

    def row_norms(self) -> np.ndarray:
        """Euclidean norms ``||x_i||`` of the rows.

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> Dataset([[3.0, 4.0], [0.0, 1.0]], [1, -1]).row_norms().tolist()
        [5.0, 1.0]
        """
        if self.is_sparse:
            return np.sqrt(np.asarray(self.X.multiply(self.X).sum(axis=1)).ravel())
        return np.sqrt(np.einsum("ij,ij->i", self.X, self.X))

    @property
    def R(self) -> float:
        """``max_i ||x_i||`` of the raw features (without any bias column)."""
        return float(self.row_norms().max())

    def dense(self) -> np.ndarray:
        """X as a dense float64 array.

        Returns
        -------
        ndarray of shape (n, d)
            ``X`` itself when already dense, else a new array.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> Dataset(sp.csr_matrix([[0.0, 2.0], [1.0, 0.0]]), [1, -1]).dense().tolist()
        [[0.0, 2.0], [1.0, 0.0]]
        """
        return self.X.toarray() if self.is_sparse else self.X

    def subset(self, index: Any, name: str | None = None) -> Dataset:
        """The examples at ``index`` (both classes must remain).

        Parameters
        ----------
        index : array-like of int of shape (m,), or bool of shape (n,)
        name : str, optional
            The new name (default: this one's).

        Returns
        -------
        Dataset
            ``m`` examples (``X`` of shape (m, d)), same ``classes``, ``meta`` and
            ``feature_names``.

        Examples
        --------
        >>> ds = Dataset([[0.0], [1.0], [2.0]], [1, -1, 1])
        >>> ds.subset([0, 1]).X.shape
        (2, 1)
        """
        idx = np.asarray(index)
        if idx.ndim != 1 or not (
            idx.dtype.kind in "iu" or (idx.dtype.kind == "b" and idx.shape == (self.n,))
        ):
            raise ParameterError(
                f"index must be a 1-D array of ints, or of {self.n} bools; got {_short(index)}"
            )
        if idx.dtype.kind in "iu" and idx.size and not -self.n <= idx.min() <= idx.max() < self.n:
            raise ParameterError(
                f"index holds {idx.min() if idx.min() < -self.n else idx.max()}, out of "
                f"range for {self.n} examples"
            )
        return Dataset(
            self.X[idx],
            self.y[idx],
            name=name or self.name,
            classes=self.classes,
            meta=dict(self.meta),
            feature_names=self.feature_names,
        )

    def split(
        self, test_fraction: float = 0.25, seed: int = 0, *, random_state: Any = None
    ) -> tuple[Dataset, Dataset]:
        """Seeded stratified split into (train, test).

        Parameters
        ----------
        test_fraction : float, default 0.25
            Fraction of each class put in the test set (at least one example per class;
            each class must keep at least one training example).
        seed : int, default 0
        random_state : int or numpy.random.RandomState, optional
            scikit-learn's name for ``seed``: an int is the seed, a RandomState draws
            one; None (the default) uses ``seed``.

        Returns
        -------
        train, test : Dataset
            ``n - m`` and ``m`` examples, in their original order (both keep
            ``classes``, ``meta`` and ``feature_names``).

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> train, test = make_separable(20, 2, seed=0).split(0.25)
        >>> train.n + test.n, test.X.shape[1]
        (20, 2)
        """
        test_fraction = check_fraction("test_fraction", test_fraction)
        seed = check_int("seed", seed_from_random_state(random_state, seed), minimum=0)
        rng = np.random.default_rng(seed)
        test = []
        for label in (-1.0, 1.0):
            idx = np.flatnonzero(self.y == label)
            k = max(1, int(round(test_fraction * len(idx))))
            if k >= len(idx):
                raise DataError(f"{self.name}: too few examples of class {label:+.0f} to split")
            test.append(rng.permutation(idx)[:k])
        test_idx = np.sort(np.concatenate(test))
        train_idx = np.setdiff1d(np.arange(self.n), test_idx)
        return (
            self.subset(train_idx, f"{self.name}[train]"),
            self.subset(test_idx, f"{self.name}[test]"),
        )

    def __repr__(self) -> str:
        kind = "sparse" if self.is_sparse else "dense"
        n_pos = int((self.y > 0).sum())
        return (
            f"Dataset(name={self.name!r}, n={self.n}, d={self.d}, {kind}, "
            f"+1: {n_pos}, -1: {self.n - n_pos})"
        )


def scale_rows(X: sp.csr_matrix, v: np.ndarray) -> sp.csr_matrix:
    """``diag(v) @ X`` for CSR ``X`` in O(nnz), shape (n, d).

    scipy's sparse product allocates a work array of one entry per column, which is
    24 GB for ``d = 3e9`` (one huge LIBSVM index); scaling the stored values does not.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n, d)
    v : ndarray of shape (n,)

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, d)

    Examples
    --------
    >>> scale_rows(sp.csr_matrix([[1.0, 0.0], [0.0, 2.0]]), np.array([-1.0, 3.0])).toarray()
    array([[-1.,  0.],
           [ 0.,  6.]])
    """
    X = sp.csr_matrix(X)
    return sp.csr_matrix(
        (X.data * np.repeat(v, np.diff(X.indptr)), X.indices.copy(), X.indptr.copy()), shape=X.shape
    )


# --------------------------------------------------------------------------- loaders


#: ``load("-")`` (and every loader, and ``DATA`` on the command line) reads standard input.
STDIN = "-"

#: Separators :func:`load_csv` recognises, in order of preference.
CSV_DELIMITERS = _textdata.CSV_DELIMITERS


def _is_stdin(path: Any) -> bool:
    return isinstance(path, (str, Path)) and str(path) == STDIN


def _source(path: Any) -> tuple[Path | None, str, str]:
    """(the file, or None for standard input; its name in messages; the data's name)."""
    if _is_stdin(path):
        return None, "<stdin>", "stdin"
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(
            f"path must be a file name (str or pathlib.Path), got {type(path).__name__}"
        )
    path = Path(path)
    return path, display(path), display(path.name)


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

    Lines are ``label index:value index:value ...`` with increasing indices; ``#``
    starts a comment; blank lines are skipped; a UTF-8 byte-order mark is ignored; a
    ``qid:N`` (svmlight's ranking query id) is accepted and ignored, with one warning
    saying so. gzip and bzip2 files are decompressed (told by their first bytes, whatever
    the name). Labels with two values other than -1/+1 (e.g. 0/1 or 1/2) are mapped with
    :func:`map_labels`. ``X`` stays sparse whatever the largest index: a file whose one
    index is 3,000,000,000 loads in kilobytes (what is then done with ``d`` features is
    checked against the memory before it starts).

    Parameters
    ----------
    path : str or Path
        The file; ``"-"`` reads standard input.
    n_features : int, optional
        Number of columns (default: the largest index seen, plus one when 0-based).
    positive : label, optional
        The label mapped to +1; with more than two labels, one class against the rest
        (see :func:`map_labels`).
    name : str, optional
        Name for reports (default: the file name).
    zero_based : {"auto", True, False}
        Whether index 0 is the first column (scikit-learn's ``dump_svmlight_file``
        writes 0-based files by default) or index 1 is (LIBSVM's files). ``"auto"``
        (scikit-learn's rule in ``load_svmlight_file``): 0-based when some index is 0,
        else 1-based. With False an index 0 is an error.

    Returns
    -------
    Dataset
        ``X`` a CSR matrix of shape (n, d), ``y`` of shape (n,) in {-1, +1};
        ``meta["zero_based"]`` says which base was used (load a test file with the same:
        ``load_libsvm(test, zero_based=train.meta["zero_based"])``).

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
        n_features = check_int("n_features", n_features, minimum=1, maximum=_textdata.MAX_INDEX + 1)
    X, labels, zero = parse_libsvm(source, n_features, zero_based)
    return _with_labels(X, labels, name, positive, meta={"zero_based": zero})


def _with_labels(
    X: Any,
    labels: np.ndarray,
    name: str,
    positive: Any = None,
    *,
    meta: dict | None = None,
    feature_names: Any = None,
) -> Dataset:
    _check_finite_labels(labels, f"{name}: ")
    kw = {"name": name, "meta": dict(meta or {}), "feature_names": feature_names}
    if positive is None and labels.dtype.kind == "f" and np.isin(labels, (-1.0, 1.0)).all():
        return Dataset(X, labels, **kw)
    try:
        return Dataset.from_labels(X, labels, positive=positive, **kw)
    except DataError as e:
        if str(e).startswith(name):
            raise
        raise DataError(f"{name}: {e}") from None


def load_csv(
    path: str | Path,
    label: str | int | None = None,
    *,
    header: bool | None = None,
    positive: Any = None,
    name: str | None = None,
) -> Dataset:
    r"""Load a CSV file: one column is the label (by header name or index; default last).

    The separator is detected: comma, semicolon or tab, whichever splits every line
    into the same number (at least two) of fields (see :data:`CSV_DELIMITERS`). A UTF-8
    byte-order mark is ignored; gzip and bzip2 files are decompressed (told by their
    first bytes). Labels may be numbers or strings; two values are mapped to -1/+1 (see
    :func:`map_labels`); more than two are an error unless ``positive`` picks one class
    against the rest. The header's names of the feature columns become
    ``Dataset.feature_names``.

    Parameters
    ----------
    path : str or Path
        The file; ``"-"`` reads standard input.
    label : str or int, optional
        The label column: a header name, or a 0-based column index (negative counts
        from the end; default: the last column).
    header : bool, optional
        Whether the first row holds column names. Default: detected from the feature
        columns: the first row is a header when one of its cells is text where every
        other row of that column holds a number (a label column of strings says
        nothing). A ``label`` given by name implies a header.
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
        A binary, damaged compressed or non-UTF-8 file, one column only, rows of
        different lengths, a non-number among the features (file:line), a label column
        out of range or not found, labels that are not two classes.

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

    A ``.gz`` or ``.bz2`` suffix is looked through (``data.csv.gz`` is CSV); compressed
    text is recognised by its first bytes whatever the name. ``"-"`` reads standard
    input, LIBSVM or CSV as its content says (LIBSVM when the first 100 lines are
    ``label idx:val ...`` or a label alone, one with a feature). ``"builtin:NAME"``
    loads a built-in data set instead (:data:`BUILTIN`): ``heart_scale``, the LIBSVM
    data set shipped with maxmargin (Statlog (Heart) scaled to [-1, 1], 270 x 13, sparse,
    not linearly separable; BSD licence in ``maxmargin/datasets/heart_scale.COPYRIGHT``);
    ``separable``, ``make_separable(200, 2, margin=0.3, seed=0)``; ``gaussians``,
    ``make_gaussians(400, 2, separation=2.0, seed=0)``.

    Parameters
    ----------
    path : str or Path
        The file; :func:`load_csv`, :func:`load_npz` or :func:`load_libsvm` reads it.
        Or ``"-"``, or ``"builtin:heart_scale"``, ``"builtin:separable"``,
        ``"builtin:gaussians"``.
    label : str or int, optional
        CSV only: the label column (see :func:`load_csv`).
    header : bool, optional
        CSV only: whether the first row holds column names (default: detected).
    positive : label, optional
        The label mapped to +1; with more than two labels, that class against the rest.
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
            fmt = _sniff_format(first)
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


# --------------------------------------------------------------------------- generators


def _check_shape(n: Any, d: Any) -> tuple[int, int]:
    """``n`` and ``d`` of a generator: ints, refused before allocating when too large."""
    n, d = check_int("n", n, minimum=2), check_int("d", d, minimum=1)
    # X and two more (n, d) arrays while it is made
    check_count("d", d, 64.0, "features", detail="of 2 examples")
    check_count("n", n, 32.0 * (d + 2), "examples", detail=f"of d = {d:,} features")
    return n, d


def make_separable(
    n: int = 100,
    d: int = 2,
    margin: float = 0.5,
    *,
    seed: int = 0,
    radius: float = 2.0,
    offset: float = 0.0,
    random_state: Any = None,
) -> Dataset:
    r"""Linearly separable data whose exact hard-margin solution is known.

    A unit normal ``u`` is drawn at random. One pair of points ``p +- margin*u`` with the
    same component orthogonal to ``u`` is placed on the two margin hyperplanes; no
    separating hyperplane can do better than half their distance, so the max-margin
    solution (intercept ``free`` or, with ``offset=0``, ``none``) is exactly

    .. math:: w^* = u / \gamma, \quad b^* = -\mathrm{offset}/\gamma,
              \quad \gamma = \mathrm{margin}.

    The other points are uniform in a ball of ``radius`` with ``|u.x| - margin`` drawn
    uniform in ``(0.05 margin, radius)`` so they lie strictly outside the margin.

    Parameters
    ----------
    n : int >= 2
    d : int >= 1
    margin : float > 0
        The geometric margin gamma of the data.
    seed : int
    radius : float
        Scale of the spread along the hyperplane.
    offset : float
        Shift of every point along u (the true b is ``-offset/margin``).
    random_state : int >= 0 or numpy RandomState, optional
        scikit-learn's name for ``seed`` (its ``make_classification``'s): an int is the
        seed, a RandomState draws one; None (the default) uses ``seed``.

    Returns
    -------
    Dataset
        With ``meta = {"w": w*, "b": b*, "margin": gamma}``.

    Examples
    --------
    >>> ds = make_separable(20, 2, margin=0.3, seed=1)
    >>> float(ds.meta["margin"])
    0.3
    """
    n, d = _check_shape(n, d)
    margin = check_positive("margin", margin)
    radius = check_positive("radius", radius)
    if margin >= 20 * radius:  # the other points lie (0.05 margin, radius) beyond it
        raise ParameterError(
            f"The 'margin' parameter must be below 20 radius = {20 * radius:g} (the other "
            f"points lie 0.05 margin to radius beyond the margin). Got {margin!r} instead."
        )
    offset = check_finite("offset", offset)
    seed = check_int("seed", seed_from_random_state(random_state, seed), minimum=0)
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    perp = rng.standard_normal((n, d)) * (radius / math.sqrt(max(d, 1)))
    perp -= np.outer(perp @ u, u)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[1] = 1.0, -1.0
    dist = margin + rng.uniform(0.05 * margin, radius, size=n)
    dist[:2] = margin
    perp[1] = perp[0]
    X = perp + np.outer(y * dist + offset, u)
    meta = {"w": u / margin, "b": -offset / margin, "margin": margin}
    return Dataset(X, y, name=f"separable(n={n}, d={d}, margin={margin:g}, seed={seed})", meta=meta)


def make_gaussians(
    n: int = 200,
    d: int = 2,
    *,
    separation: float = 2.0,
    seed: int = 0,
    positive_fraction: float = 0.5,
    random_state: Any = None,
) -> Dataset:
    """Two overlapping isotropic Gaussian classes (usually not separable).

    Class +1 ~ N(+separation/2 * e, I), class -1 ~ N(-separation/2 * e, I) with ``e`` a
    random unit vector; ``positive_fraction`` sets the class balance.

    Parameters
    ----------
    n : int
        Number of examples.
    d : int
        Number of features.
    separation : float
        Distance between the two class means.
    seed : int
        Seed of ``numpy.random.default_rng``: the same seed gives the same data.
    positive_fraction : float
        Fraction of the examples in class +1.
    random_state : int >= 0 or numpy RandomState, optional
        scikit-learn's name for ``seed`` (its ``make_classification``'s): an int is the
        seed, a RandomState draws one; None (the default) uses ``seed``.

    Returns
    -------
    Dataset
        ``X`` of shape (n, d), ``y`` of shape (n,).

    Examples
    --------
    >>> make_gaussians(50, 3, seed=0).d
    3
    """
    n, d = _check_shape(n, d)
    separation = check_finite("separation", separation)
    positive_fraction = check_fraction("positive_fraction", positive_fraction)
    seed = check_int("seed", seed_from_random_state(random_state, seed), minimum=0)
    rng = np.random.default_rng(seed)
    e = rng.standard_normal(d)
    e /= np.linalg.norm(e)
    n_pos = min(n - 1, max(1, int(round(positive_fraction * n))))
    y = np.concatenate([np.ones(n_pos), -np.ones(n - n_pos)])
    y = y[rng.permutation(n)]
    X = rng.standard_normal((n, d)) + np.outer(y * separation / 2, e)
    return Dataset(
        X,
        y,
        name=f"gaussians(n={n}, d={d}, separation={separation:g}, seed={seed})",
        meta={"direction": e, "separation": separation},
    )


def load_weights(path: str | Path, n: int | None = None) -> np.ndarray:
    r"""Example weights from a text file: one number per line, in the order of the data.

    Blank lines and lines starting with ``#`` are skipped; a first line that is not a
    number is a header (so a one-column CSV reads as well); gzip and bzip2 are read as
    the data files are.

    Parameters
    ----------
    path : str or Path
    n : int, optional
        The number of examples the weights are for (checked).

    Returns
    -------
    ndarray of shape (n,)
        Finite and ``>= 0`` (:class:`~maxmargin.SVMProblem` checks the rest).

    Raises
    ------
    DataError
        A line that is not a number, a weight that is negative or not finite, or not
        ``n`` of them.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     f = os.path.join(tmp, "w.txt")
    ...     _ = open(f, "w").write("weight\n1\n2.5\n# a comment\n0\n")
    ...     load_weights(f, n=3).tolist()
    [1.0, 2.5, 0.0]
    """
    file, shown, _ = _source(path)
    if file is None:
        raise DataError("the weights cannot be read from standard input ('-'); give a file")
    if n is not None:
        n = check_int("n", n, minimum=1)
    values = array("d")
    count = 0  # the weights (beyond n, counted and not kept)
    first = True
    with TextSource(file, shown, "weights") as source:
        for lineno, line in enumerate(source.lines(lambda: 8.0 * len(values)), 1):
            item = line.strip().strip(",").strip()
            if not item or item.startswith("#"):
                continue
            try:
                v = float(item)
            except ValueError:
                if first:  # a header
                    first = False
                    continue
                raise DataError(
                    f"{shown} line {lineno}: {item[:40]!r} is not a number (one weight per line)"
                ) from None
            first = False
            if not (math.isfinite(v) and v >= 0):
                raise DataError(
                    f"{shown} line {lineno}: weight {item[:40]!r}; weights must be finite and >= 0"
                )
            count += 1
            if n is None or count <= n:
                values.append(v)
    if n is not None and count != n:
        raise DataError(
            f"{shown} has {count} weights, but the data have {n} examples "
            "(one weight per example, in the data's order)"
        )
    return np.frombuffer(values, float).copy() if values else np.zeros(0)
