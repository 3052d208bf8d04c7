"""The validated :class:`Dataset` and the label mapping: the checks every data set passes.

Checked once, at construction: every other module may assume ``X`` (n, d) float64 finite
(dense C-contiguous, or canonical CSR) and ``y`` (n,) in {-1.0, +1.0}, both present.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import _short, check_fraction, check_int
from ..conventions import sklearn_names
from ..exceptions import DataError, ParameterError


def map_labels(y: Any, positive: Any = None) -> tuple[np.ndarray, tuple[Any, Any]]:
    """Map any two-valued labels to -1/+1 and say which is which.

    Parameters
    ----------
    y : array-like of shape (n,)
        Two distinct values (numbers, finite, or strings); with ``positive``, any number.
    positive : label, optional
        The label mapped to +1, every other to -1 (default: the larger of two in sorted
        order, scikit-learn's ``classes_[1]``).

    Returns
    -------
    y_pm : ndarray of shape (n,), float64
        The labels as -1.0 / +1.0.
    classes : tuple (negative_label, positive_label)
        The original labels of -1 and +1 (one-vs-rest: the tuple of those of -1 first).

    Raises
    ------
    DataError
        Labels NaN or infinite, one value only, more than two without ``positive``, or a
        ``positive`` not among them.

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
        hint = ""
        if len(values) > 2:
            hint = (
                "; choose one class to train against the rest: positive=LABEL (on the "
                "command line --positive LABEL)"
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
    """``X`` as float64 (dense C-contiguous or canonical CSR), 2-D, not empty, finite."""
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
    """The labels as float64 in {-1, +1}, one per row; else a DataError saying how to map them."""
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
                f"; map them with maxmargin.data.map_labels(y) ({values_[0]!r} -> -1, "
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
        Free-form facts about the data (the generators' true ``w``, ``b``, ``margin``).
    require_both_classes : bool
        Reject data with one class only (streams pass False: a batch may hold one example).
    feature_names : sequence of str of length d, optional
        The names of the columns of ``X`` (default: a DataFrame's string column names).

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

    @sklearn_names(random_state="seed")
    def split(self, test_fraction: float = 0.25, seed: int = 0) -> tuple[Dataset, Dataset]:
        """Seeded stratified split into (train, test).

        Parameters
        ----------
        test_fraction : float, default 0.25
            Fraction of each class put in the test set (at least one example per class;
            each class must keep at least one training example).
        seed : int, default 0
        random_state : int >= 0, numpy RandomState or Generator, optional
            scikit-learn's name for ``seed`` (:func:`maxmargin.conventions.sklearn_names`).

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
        seed = check_int("seed", seed, minimum=0)
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
    """``diag(v) @ X`` for CSR ``X`` (n, d) in O(nnz).

    scipy's sparse product allocates a work array of one entry per column (24 GB for
    ``d = 3e9``); scaling the stored values does not.

    Parameters
    ----------
    X : scipy.sparse matrix of shape (n, d)
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
