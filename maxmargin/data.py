"""Data: the validated :class:`Dataset`, label mapping, loaders and seeded generators.

A :class:`Dataset` is checked once, at construction, so every other module may assume
``X`` of shape (n, d), float64 and finite (dense C-contiguous, or canonical CSR), and
``y`` of shape (n,) with values in {-1.0, +1.0}, both present.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._validation import check_int, check_positive
from .exceptions import DataError

__all__ = [
    "Dataset",
    "map_labels",
    "load",
    "load_libsvm",
    "load_csv",
    "load_npz",
    "load_heart_scale",
    "load_builtin",
    "BUILTIN",
    "make_separable",
    "make_gaussians",
]

_PACKAGE_DATA = Path(__file__).resolve().parent / "datasets"


def map_labels(y: Any, positive: Any = None) -> tuple[np.ndarray, tuple[Any, Any]]:
    """Map any two-valued labels to -1/+1 and say which is which.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels with exactly two distinct values (numbers or strings).
    positive : label, optional
        The label to map to +1. By default the larger of the two in sorted order
        (scikit-learn's ``classes_[1]``), so {0, 1} -> {-1, +1} and {1, 2} -> {-1, +1}.

    Returns
    -------
    y_pm : ndarray of shape (n,), float64
        The labels as -1.0 / +1.0.
    classes : tuple (negative_label, positive_label)
        The original label mapped to -1 and the one mapped to +1.

    Examples
    --------
    >>> y, classes = map_labels(["spam", "ham", "spam"])
    >>> y.tolist(), classes
    ([1.0, -1.0, 1.0], ('ham', 'spam'))
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise DataError(f"labels must be one-dimensional, got shape {arr.shape}")
    values = np.unique(arr)
    if len(values) != 2:
        raise DataError(
            f"labels must take exactly two values for a binary SVM, got {len(values)}: "
            f"{values[:10].tolist()}"
        )
    neg, pos = values[0], values[1]
    if positive is not None:
        if positive not in values:
            raise DataError(f"positive label {positive!r} is not one of {values.tolist()}")
        neg, pos = (values[1], values[0]) if positive == values[0] else (values[0], values[1])
    y_pm = np.where(arr == pos, 1.0, -1.0)
    return y_pm, (neg.item() if hasattr(neg, "item") else neg,
                  pos.item() if hasattr(pos, "item") else pos)


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

    Examples
    --------
    >>> ds = Dataset([[0.0, 1.0], [1.0, 0.0]], [1, -1])
    >>> ds.n, ds.d, float(ds.R)
    (2, 2, 1.0)
    """

    X: Any
    y: np.ndarray
    name: str = "data"
    classes: tuple = (-1, 1)
    meta: dict = field(default_factory=dict)
    require_both_classes: bool = field(default=True, repr=False)

    def __post_init__(self) -> None:
        X = self.X
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64)
            X.sum_duplicates()
            X.sort_indices()
            values = X.data
        else:
            try:
                X = np.ascontiguousarray(X, dtype=np.float64)
            except (TypeError, ValueError) as e:
                raise DataError(f"{self.name}: X is not numeric: {e}") from None
            values = X
        if X.ndim != 2:
            raise DataError(f"{self.name}: X must be 2-D (n, d), got shape {X.shape}")
        n, d = X.shape
        if n == 0:
            raise DataError(f"{self.name}: the data set is empty (0 examples)")
        if d == 0:
            raise DataError(f"{self.name}: the data set has no features (d = 0)")
        bad = ~np.isfinite(values)
        if bad.any():
            where = np.argwhere(bad)[0] if not sp.issparse(X) else None
            at = f" (first at row {where[0]}, column {where[1]})" if where is not None else ""
            raise DataError(
                f"{self.name}: X contains {int(bad.sum())} NaN or infinite values{at}; "
                "remove or impute them first"
            )
        y = np.asarray(self.y)
        if y.ndim != 1:
            y = y.reshape(-1) if y.ndim == 2 and 1 in y.shape else y
        if y.ndim != 1:
            raise DataError(f"{self.name}: y must be 1-D, got shape {y.shape}")
        if len(y) != n:
            raise DataError(
                f"{self.name}: X has {n} rows but y has {len(y)} labels; they must match"
            )
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
                f"{self.name}: labels must be -1 or +1, got values "
                f"{values_[:10].tolist()}{hint}"
            )
        if self.require_both_classes and np.unique(yf).size < 2:
            raise DataError(
                f"{self.name}: only one class present (all labels are {yf[0]:+.0f}); "
                "a classifier needs examples of both -1 and +1"
            )
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", np.ascontiguousarray(yf))

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
            ``m`` examples (``X`` of shape (m, d)), same ``classes`` and ``meta``.

        Examples
        --------
        >>> ds = Dataset([[0.0], [1.0], [2.0]], [1, -1, 1])
        >>> ds.subset([0, 1]).X.shape
        (2, 1)
        """
        idx = np.asarray(index)
        return Dataset(self.X[idx], self.y[idx], name=name or self.name,
                       classes=self.classes, meta=dict(self.meta))

    def split(self, test_fraction: float = 0.25, seed: int = 0) -> tuple[Dataset, Dataset]:
        """Seeded stratified split into (train, test).

        Parameters
        ----------
        test_fraction : float, default 0.25
            Fraction of each class put in the test set (at least one example per class;
            each class must keep at least one training example).
        seed : int, default 0

        Returns
        -------
        train, test : Dataset
            ``n - m`` and ``m`` examples, in their original order.

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> train, test = make_separable(20, 2, seed=0).split(0.25)
        >>> train.n + test.n, test.X.shape[1]
        (20, 2)
        """
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
        return (self.subset(train_idx, f"{self.name}[train]"),
                self.subset(test_idx, f"{self.name}[test]"))

    def __repr__(self) -> str:
        kind = "sparse" if self.is_sparse else "dense"
        n_pos = int((self.y > 0).sum())
        return (f"Dataset(name={self.name!r}, n={self.n}, d={self.d}, {kind}, "
                f"+1: {n_pos}, -1: {self.n - n_pos})")


# --------------------------------------------------------------------------- loaders


def load_libsvm(path: str | Path, n_features: int | None = None, *,
                name: str | None = None) -> Dataset:
    """Load a LIBSVM / svmlight text file into a sparse :class:`Dataset`.

    Lines are ``label index:value index:value ...`` with 1-based increasing indices;
    ``#`` starts a comment; blank lines are skipped. Labels with two values other than
    -1/+1 (e.g. 0/1 or 1/2) are mapped with :func:`map_labels`.

    Parameters
    ----------
    path : str or Path
        The file.
    n_features : int, optional
        Number of columns (default: the largest index seen).
    name : str, optional
        Name for reports (default: the file name).

    Returns
    -------
    Dataset
        ``X`` a CSR matrix of shape (n, d), ``y`` of shape (n,) in {-1, +1}.

    Raises
    ------
    DataError
        With the file name and line number of a malformed line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "tiny.svm"
    >>> _ = f.write_text("+1 1:0.5 3:1\\n-1 2:2\\n")
    >>> ds = load_libsvm(f)
    >>> ds.X.shape, ds.y.tolist()
    ((2, 3), [1.0, -1.0])
    """
    path = Path(path)
    name = name or path.name
    labels: list[str] = []
    indptr = [0]
    indices: list[int] = []
    values: list[float] = []
    try:
        text = path.read_text()
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise DataError(f"{path}: not a text file (LIBSVM files are text)") from None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        label = parts[0]
        try:
            float(label)
        except ValueError:
            raise DataError(f"{path}:{lineno}: label {label!r} is not a number") from None
        last = 0
        for tok in parts[1:]:
            if tok.startswith("qid:"):
                continue
            idx_s, sep, val_s = tok.partition(":")
            try:
                if not sep:
                    raise ValueError
                idx = int(idx_s)
                val = float(val_s)
            except ValueError:
                raise DataError(
                    f"{path}:{lineno}: malformed feature {tok!r} (expected index:value)"
                ) from None
            if idx < 1:
                raise DataError(f"{path}:{lineno}: feature index {idx} < 1 (indices are 1-based)")
            if idx <= last:
                raise DataError(
                    f"{path}:{lineno}: feature indices must increase ({idx} after {last})"
                )
            if not math.isfinite(val):
                raise DataError(f"{path}:{lineno}: feature {idx} is {val_s} (NaN/inf not allowed)")
            last = idx
            indices.append(idx - 1)
            values.append(val)
        labels.append(label)
        indptr.append(len(indices))
    if not labels:
        raise DataError(f"{path}: no examples found")
    d = max(indices, default=-1) + 1
    if n_features is not None:
        if n_features < d:
            raise DataError(f"{path}: has feature index {d} > n_features={n_features}")
        d = n_features
    X = sp.csr_matrix((np.asarray(values, float), np.asarray(indices, np.int64),
                       np.asarray(indptr, np.int64)), shape=(len(labels), max(d, 1)))
    return _with_labels(X, np.asarray([float(s) for s in labels]), name)


def _with_labels(X: Any, labels: np.ndarray, name: str) -> Dataset:
    values = np.unique(labels)
    if len(values) == 2 and not np.array_equal(values, [-1.0, 1.0]):
        return Dataset.from_labels(X, labels, name=name)
    return Dataset(X, labels, name=name)


def load_csv(path: str | Path, label: str | int | None = None, *,
             name: str | None = None) -> Dataset:
    """Load a CSV file: one column is the label (by header name or index; default last).

    A header row is detected when its cells are not all numbers. Any two label values
    are mapped to -1/+1 (see :func:`map_labels`).

    Parameters
    ----------
    path : str or Path
        The file.
    label : str or int, optional
        The label column: a header name or a column index (default: the last column).
    name : str, optional
        Name for reports (default: the file name).

    Returns
    -------
    Dataset
        ``X`` of shape (n, d) (every column but the label), ``y`` of shape (n,).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = f.write_text("a,b,cls\\n0,1,yes\\n1,0,no\\n")
    >>> ds = load_csv(f, label="cls")
    >>> ds.X.shape, ds.y.tolist(), ds.classes
    ((2, 2), [1.0, -1.0], ('no', 'yes'))
    """
    path = Path(path)
    name = name or path.name
    try:
        with path.open(newline="") as f:
            rows = [r for r in csv.reader(f) if r and any(c.strip() for c in r)]
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e.strerror or e}") from None
    if not rows:
        raise DataError(f"{path}: no rows")
    header = None
    if not all(_is_number(c) for c in rows[0]):
        header, rows = [c.strip() for c in rows[0]], rows[1:]
    if not rows:
        raise DataError(f"{path}: no data rows after the header")
    width = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != width:
            line = i + 1 + (header is not None)
            raise DataError(f"{path}:{line}: {len(r)} columns, expected {width}")
    if label is None:
        col = width - 1
    elif isinstance(label, str) and not label.lstrip("-").isdigit():
        if header is None or label not in header:
            raise DataError(f"{path}: no column named {label!r} (columns: {header})")
        col = header.index(label)
    else:
        col = int(label) % width
    feats = [j for j in range(width) if j != col]
    X = np.empty((len(rows), len(feats)))
    for i, r in enumerate(rows):
        for k, j in enumerate(feats):
            try:
                X[i, k] = float(r[j])
            except ValueError:
                raise DataError(
                    f"{path}:{i + 1 + (header is not None)}: column {j + 1} value {r[j]!r} "
                    "is not a number"
                ) from None
    labels = np.asarray([r[col].strip() for r in rows])
    if all(_is_number(s) for s in labels):
        return _with_labels(X, labels.astype(float), name)
    return Dataset.from_labels(X, labels, name=name)


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def load_npz(path: str | Path, *, name: str | None = None) -> Dataset:
    """Load an ``.npz`` archive holding arrays ``X`` (n, d) and ``y`` (n,).

    Parameters
    ----------
    path : str or Path
        The archive (read with ``allow_pickle=False``).
    name : str, optional
        Name for reports (default: the file name).

    Returns
    -------
    Dataset
        Two label values other than -1/+1 are mapped with :func:`map_labels`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "tiny.npz"
    >>> np.savez(f, X=np.eye(2), y=np.array([1, -1]))
    >>> load_npz(f).n
    2
    """
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            if "X" not in z or "y" not in z:
                raise DataError(f"{path}: an .npz data file needs arrays 'X' and 'y' "
                                f"(found {sorted(z.files)})")
            X, y = z["X"], z["y"]
    except (OSError, ValueError) as e:
        raise DataError(f"{path}: cannot read as .npz: {e}") from None
    values = np.unique(y)
    if len(values) == 2 and not np.isin(values, (-1, 1)).all():
        return Dataset.from_labels(X, y, name=name or path.name)
    return Dataset(X, y, name=name or path.name)


#: Built-in data sets, loadable as ``builtin:NAME`` wherever a data file is expected.
BUILTIN = ("heart_scale", "separable", "gaussians")


def load_builtin(name: str) -> Dataset:
    """A built-in data set by name (what ``load("builtin:NAME")`` returns).

    Parameters
    ----------
    name : {"heart_scale", "separable", "gaussians"}
        ``heart_scale``: the bundled LIBSVM file (270 x 13, not separable);
        ``separable``: ``make_separable(200, 2, margin=0.3, seed=0)``;
        ``gaussians``: ``make_gaussians(400, 2, separation=2.0, seed=0)``.

    Returns
    -------
    Dataset
        The data set, labels in {-1, +1}.

    Examples
    --------
    >>> load_builtin("separable").meta["margin"]
    0.3
    """
    if name == "heart_scale":
        return load_heart_scale()
    if name == "separable":
        return make_separable(200, 2, margin=0.3, seed=0)
    if name == "gaussians":
        return make_gaussians(400, 2, separation=2.0, seed=0)
    raise DataError(f"no built-in data set {name!r}; choose from {', '.join(BUILTIN)}")


def load(path: str | Path, *, label: str | int | None = None) -> Dataset:
    """Load a data file by its suffix: ``.csv``, ``.npz``, else LIBSVM/svmlight.

    ``"builtin:NAME"`` loads a built-in data set instead (see :func:`load_builtin`).

    Parameters
    ----------
    path : str or Path
        The file; :func:`load_csv`, :func:`load_npz` or :func:`load_libsvm` reads it.
        Or ``"builtin:heart_scale"``, ``"builtin:separable"``, ``"builtin:gaussians"``.
    label : str or int, optional
        CSV only: the label column (see :func:`load_csv`).

    Returns
    -------
    Dataset
        The data, labels in {-1, +1}.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = f.write_text("1,2,1\\n3,4,-1\\n")
    >>> load(f).X.tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    >>> load("builtin:gaussians").n
    400
    """
    if isinstance(path, str) and path.startswith("builtin:"):
        return load_builtin(path.split(":", 1)[1])
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return load_csv(path, label=label)
    if suffix == ".npz":
        return load_npz(path)
    return load_libsvm(path)


def load_heart_scale() -> Dataset:
    """The LIBSVM ``heart_scale`` data set shipped with maxmargin (270 x 13, sparse).

    Statlog (Heart) scaled to [-1, 1], from the LIBSVM data sets page; BSD licence in
    ``maxmargin/datasets/heart_scale.COPYRIGHT``. Not linearly separable.

    Returns
    -------
    Dataset
        ``X`` a CSR matrix of shape (270, 13), ``y`` of shape (270,) in {-1, +1}.

    Examples
    --------
    >>> ds = load_heart_scale()
    >>> ds.n, ds.d
    (270, 13)
    """
    return load_libsvm(_PACKAGE_DATA / "heart_scale", name="heart_scale")


# --------------------------------------------------------------------------- generators


def make_separable(n: int = 100, d: int = 2, margin: float = 0.5, *, seed: int = 0,
                   radius: float = 2.0, offset: float = 0.0) -> Dataset:
    """Linearly separable data whose exact hard-margin solution is known.

    A unit normal ``u`` is drawn at random. One pair of points ``p +- margin*u`` with the
    same component orthogonal to ``u`` is placed on the two margin hyperplanes; no
    separating hyperplane can do better than half their distance, so the max-margin
    solution (intercept ``free`` or, with ``offset=0``, ``none``) is exactly

    .. math:: w^* = u / \\gamma, \\quad b^* = -\\mathrm{offset}/\\gamma,
              \\quad \\gamma = \\mathrm{margin}.

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
    n = check_int("n", n, minimum=2)
    d = check_int("d", d, minimum=1)
    margin = check_positive("margin", margin)
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
    return Dataset(X, y, name=f"separable(n={n}, d={d}, margin={margin:g}, seed={seed})",
                   meta=meta)


def make_gaussians(n: int = 200, d: int = 2, *, separation: float = 2.0, seed: int = 0,
                   positive_fraction: float = 0.5) -> Dataset:
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

    Returns
    -------
    Dataset
        ``X`` of shape (n, d), ``y`` of shape (n,).

    Examples
    --------
    >>> make_gaussians(50, 3, seed=0).d
    3
    """
    n = check_int("n", n, minimum=2)
    d = check_int("d", d, minimum=1)
    if not 0 < positive_fraction < 1:
        raise DataError(f"positive_fraction must be in (0, 1), got {positive_fraction}")
    rng = np.random.default_rng(seed)
    e = rng.standard_normal(d)
    e /= np.linalg.norm(e)
    n_pos = min(n - 1, max(1, int(round(positive_fraction * n))))
    y = np.concatenate([np.ones(n_pos), -np.ones(n - n_pos)])
    y = y[rng.permutation(n)]
    X = rng.standard_normal((n, d)) + np.outer(y * separation / 2, e)
    return Dataset(X, y, name=f"gaussians(n={n}, d={d}, separation={separation:g}, seed={seed})",
                   meta={"direction": e, "separation": separation})
