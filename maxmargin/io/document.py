"""What every result inherits from its declarations: its files, with and without its data.

:class:`Persistent` (JSON, tables, ``without_data`` / ``with_data``) and :func:`save_pair`
/ :func:`load_pair` (arrays in ``.npz`` beside the JSON). See ``docs/contributing.md``.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np

from ..exceptions import DataError, ParameterError
from . import tables
from .files import atomic_write
from .json import _parse, _where, dumps, format_header, read_document
from .schema import Array, Arrays, Layout, Spec, from_dict, specs, to_dict

__all__ = ["Persistent", "save_pair", "load_pair"]


class Persistent:
    """The files of a result, from the fields it declares (the mixin every result derives).

    Its class attributes ``FORMAT``, ``COMPUTED``, ``LAYOUT``, ``TABLE`` and ``CSV`` are
    described in ``docs/contributing.md`` ("Adding a result").
    """

    FORMAT: ClassVar[str | None] = None
    COMPUTED: ClassVar[tuple[str, ...]] = ()
    LAYOUT: ClassVar[Layout | None] = None
    TABLE: ClassVar[tables.Table | None] = None
    CSV: ClassVar[tables.Table | None] = None

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON types: the format header, then every declared field.

        Returns
        -------
        dict
            ``format`` and ``maxmargin_version``, one key per field, the ``COMPUTED`` keys.

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem
        >>> SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), hard=True).to_dict()["C"]
        'inf'
        """
        head = format_header(self.FORMAT) if self.FORMAT else {}
        return {**head, **to_dict(self)}

    def to_json(self, file: str | os.PathLike[str] | None = None) -> str:
        """The :meth:`to_dict` as strict JSON text; written atomically to ``file`` when given.

        Parameters
        ----------
        file : str or path-like, optional

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), C=1.0))
        >>> sol.to_json().splitlines()[1]
        ' "format": "maxmargin.solution/2",'
        """
        text = dumps(self.to_dict(), indent=1) + "\n"
        if file is not None:
            atomic_write(Path(file), text)
        return text

    @classmethod
    def from_json(cls, source: Any, data: Any = None, **kw: Any) -> Self:
        """Read what :meth:`to_json` wrote; with ``data``, recompute what they allow.

        A file is not a proof: without the data, the result is the file's word.

        Parameters
        ----------
        source : str, path-like, readable text file, or dict
            The file, or its parsed content.
        data : Dataset, optional
            The data the result was computed on.
        **kw
            Passed to :meth:`with_data` (``tol=``, ``holdout=``).

        Returns
        -------
        the class

        Examples
        --------
        >>> import io
        >>> from maxmargin import Dataset, ExactSolution, SVMProblem, solve
        >>> data = Dataset([[2.0], [-2.0]], [1, -1])
        >>> text = solve(SVMProblem(data, C=1.0)).to_json()
        >>> saved = ExactSolution.from_json(io.StringIO(text))
        >>> type(saved).__name__, saved.predict([[3.0]]).tolist(), saved.to_json() == text
        ('ExactSolution', [1.0], True)
        >>> ExactSolution.from_json(io.StringIO(text), data).certificate.ok
        True
        """
        doc = read_document(source, cls.FORMAT) if cls.FORMAT else _parse(source)
        try:
            obj = from_dict(cls, doc)
        except DataError as e:
            what = f"maxmargin {cls.FORMAT} document" if cls.FORMAT else cls.__name__
            raise DataError(f"{_where(source)}: not a readable {what}: {e}") from None
        return obj if data is None else obj.with_data(data, **kw)

    def with_data(self, data: Any) -> Self:
        """The result on ``data``, recomputing what the data allow (overridden).

        Parameters
        ----------
        data : Dataset

        Returns
        -------
        the class

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem
        >>> data = Dataset([[1.0], [-1.0]], [1, -1])
        >>> SVMProblem(data, C=2.0).without_data().with_data(data).lam
        0.25
        """
        raise ParameterError(f"{type(self).__name__} has nothing to recompute from data")

    def without_data(self) -> Self:
        """Exactly what a file of this result keeps: the same class, transient fields None.

        Returns
        -------
        the class

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem
        >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), C=2.0).without_data()
        >>> p.n, p.C, p._data is None
        (2, 2.0, True)
        """
        return from_dict(type(self), to_dict(self))

    def _table(self, which: str) -> tables.Table:
        table = (self.CSV or self.TABLE) if which == "CSV" else self.TABLE
        if table is None:
            raise ParameterError(f"{type(self).__name__} has no table")
        return table

    def to_csv(self, file: str | os.PathLike[str] | None = None) -> str:
        """The result's table as CSV text (every column); written atomically to ``file``.

        Parameters
        ----------
        file : str or path-like, optional

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> p = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), C=[0.1, 10.0])
        >>> p.to_csv().splitlines()[0][:12]
        'C,lam,b,w[0]'
        """
        return tables.csv(self._table("CSV"), self, None if file is None else Path(file))

    def to_frame(self) -> Any:
        """The result's table as a pandas DataFrame (the CSV's columns).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> p = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), C=[0.1, 10.0])
        >>> p.to_frame()["C"].tolist()
        [0.1, 10.0]
        """
        return tables.frame(self._table("CSV"), self)

    def to_latex(self, file: str | os.PathLike[str] | None = None) -> str:
        r"""The result's table as a LaTeX booktabs ``tabular`` (``\usepackage{booktabs}``).

        Parameters
        ----------
        file : str or path-like, optional
            Written atomically when given.

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> p = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), C=[0.1, 10.0])
        >>> p.to_latex().splitlines()[1]
        '\\toprule'
        """
        return tables.latex(self._table("TABLE"), self, None if file is None else Path(file))


def _array_fields(cls: type) -> list[tuple[dataclasses.Field, Spec, str, bool]]:
    """``(field, spec, key, many)`` of the fields a pair keeps in its ``.npz``."""
    return [
        (f, s, s.key or f.name, isinstance(s.codec, Arrays))
        for f, s in specs(cls)
        if not s.transient
        and (isinstance(s.codec, Arrays) or (isinstance(s.codec, Array) and not s.codec.sparse))
    ]


def save_pair(obj: Persistent, stem: str | os.PathLike[str]) -> tuple[Path, Path]:
    """``<stem>.npz`` (the result's arrays, no pickles) and ``<stem>.json`` (the rest)."""
    stem = Path(stem)
    fields = _array_fields(type(obj))
    arrays: dict[str, np.ndarray] = {}
    for f, _, key, many in fields:
        value = getattr(obj, f.name)
        items = value.items() if many else [(None, value)]
        for k, v in items:
            if v is not None:
                arrays[key if k is None else f"{key}_{k}"] = np.asarray(v)
    bad = sorted(k for k, v in arrays.items() if v.dtype == object)
    if bad:
        raise DataError(f"array {bad[0]!r} has dtype object; it cannot be saved without pickle")
    doc = {**format_header(obj.FORMAT or ""), **to_dict(obj, skip={f[0].name for f in fields})}
    computed = {k: doc.pop(k) for k in obj.COMPUTED}
    doc = {**doc, "arrays": sorted(arrays), **computed}
    npz, js = stem.with_name(stem.name + ".npz"), stem.with_name(stem.name + ".json")
    atomic_write(npz, lambda fh: np.savez(fh, **arrays))  # type: ignore[arg-type]
    atomic_write(js, dumps(doc, indent=2) + "\n")
    return npz, js


def load_pair(cls: type[Persistent], stem: str | os.PathLike[str]) -> Any:
    """Read what :func:`save_pair` wrote: the arrays exactly as stored (dtypes kept)."""
    stem = Path(stem)
    npz, js = stem.with_name(stem.name + ".npz"), stem.with_name(stem.name + ".json")
    for p in (js, npz):
        if not p.exists():
            raise DataError(f"{p}: no such file")
    doc = read_document(js, cls.FORMAT or "")
    try:
        with np.load(npz, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError) as e:
        raise DataError(f"{npz}: not a readable .npz ({e})") from None
    stored: dict[str, Any] = {}
    for f, spec, key, many in _array_fields(cls):
        if many:
            stored[f.name] = {
                k[len(key) + 1 :]: v for k, v in arrays.items() if k.startswith(key + "_")
            }
        elif key in arrays:
            stored[f.name] = arrays[key]
        elif not spec.optional and f.default is f.default_factory is dataclasses.MISSING:
            raise DataError(f"{npz}: no array {key!r}")
        if f.name in stored or spec.optional:
            doc[key] = stored.get(f.name)  # the codecs check them; absent: None
    try:
        obj = from_dict(cls, doc)
    except DataError as e:
        raise DataError(f"{js}: not a readable maxmargin {cls.FORMAT} file pair: {e}") from None
    for name, value in stored.items():  # as numpy stored them: no JSON conversion to undo
        object.__setattr__(obj, name, value)
    return obj
