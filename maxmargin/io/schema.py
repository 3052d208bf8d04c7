"""Results declare their fields once; this module writes them to JSON types and reads them back.

A field is written under its name by the codec its annotation implies (``float``,
``int``, ``bool``, ``str``, ``dict``, ``tuple``, ``np.ndarray``, each optionally ``| None``)
or as declared with :func:`persist`; :func:`transient` fields need the data and are never
written. Annotations are read as strings, so anything else must be declared.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from typing import Any

import numpy as np

from ..exceptions import DataError
from .json import json_float, json_number, jsonable

__all__ = [
    "Codec",
    "Number",
    "Int",
    "Bool",
    "Str",
    "Dict",
    "Tuple",
    "Numbers",
    "Strings",
    "Array",
    "Arrays",
    "Series",
    "Nested",
    "Layout",
    "persist",
    "transient",
    "to_dict",
    "from_dict",
    "series_fields",
    "equal",
]


class Codec:
    """How one value is written as JSON types (:meth:`dump`) and read back (:meth:`load`)."""

    def dump(self, value: Any) -> Any:
        """``value`` in JSON types."""
        return jsonable(value)

    def load(self, doc: Any) -> Any:
        """The value :meth:`dump` wrote."""
        return doc

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _expect(doc: Any, kind: type | tuple[type, ...], what: str) -> Any:
    if (isinstance(doc, bool) and kind is not bool) or not isinstance(doc, kind):
        raise TypeError(f"expected {what}, got {doc!r:.60}")
    return doc


class Number(Codec):
    """A float: ``inf`` as ``"inf"``, NaN (not available) as ``null`` and back."""

    def dump(self, value: Any) -> Any:  # noqa: D102
        return json_number(value)

    def load(self, doc: Any) -> float:  # noqa: D102
        return json_float(doc)


class Int(Codec):
    """An int (not a bool)."""

    def load(self, doc: Any) -> int:  # noqa: D102
        return int(_expect(doc, int, "an integer"))


class Bool(Codec):
    """A bool."""

    def load(self, doc: Any) -> bool:  # noqa: D102
        return _expect(doc, bool, "true or false")


class Str(Codec):
    """A string."""

    def load(self, doc: Any) -> str:  # noqa: D102
        return _expect(doc, str, "a string")


class Dict(Codec):
    """A dict of JSON values, as written (``params``, ``meta``)."""

    def load(self, doc: Any) -> dict:  # noqa: D102
        return dict(_expect(doc, dict, "an object"))


class Tuple(Codec):
    """A tuple of JSON values, written as a list."""

    def load(self, doc: Any) -> tuple:  # noqa: D102
        return tuple(_expect(doc, list, "a list"))


class Numbers(Codec):
    """A dict of floats by name (``kkt``, ``floors``, ``timings``)."""

    def dump(self, value: Any) -> Any:  # noqa: D102
        return {str(k): json_number(v) for k, v in value.items()}

    def load(self, doc: Any) -> dict[str, float]:  # noqa: D102
        return {str(k): json_float(v) for k, v in _expect(doc, dict, "an object").items()}


class Strings(Codec):
    """A tuple of strings (feature names), written as a list."""

    def dump(self, value: Any) -> Any:  # noqa: D102
        return [str(s) for s in value]

    def load(self, doc: Any) -> tuple[str, ...]:  # noqa: D102
        return tuple(_expect(s, str, "a string") for s in _expect(doc, list, "a list"))


@dataclasses.dataclass(frozen=True)
class Array(Codec):
    """An ndarray as (nested) lists; ``sparse``: ``{"n", "index", "value"}`` (O(non-zeros)).

    ``dtype=None``: integers or floats as written (a trace's ``mistakes``, its ``extras``).
    """

    dtype: type | None = float
    sparse: bool = False

    def dump(self, value: Any) -> Any:  # noqa: D102
        if not self.sparse:
            return jsonable(np.asarray(value))
        a = np.asarray(value, dtype=float).reshape(-1)
        nz = np.flatnonzero(a)
        return {"n": int(a.size), "index": nz.tolist(), "value": jsonable(a[nz])}

    def load(self, doc: Any) -> np.ndarray:  # noqa: D102
        if self.sparse:
            _expect(doc, dict, 'an object {"n", "index", "value"}')
            out = np.zeros(Int().load(doc["n"]))
            index = Array(int).load(doc["index"])
            value = Array().load(doc["value"])
            if index.ndim != 1 or index.shape != value.shape or (index < 0).any():
                raise ValueError("index and value must be lists of one length, index >= 0")
            out[index] = value  # an index past n: IndexError, a malformed document
            return out
        a = None if self.dtype is float else np.asarray(doc)
        if self.dtype is int and a is not None and a.size and a.dtype.kind not in "iu":
            raise TypeError(f"expected integers, got {a.dtype} values")
        if a is not None and (self.dtype is int or (a.size and a.dtype.kind in "iu")):
            out = a.astype(np.int64)
        else:
            out = np.array(doc, dtype=float)  # null -> nan, "inf" -> inf
        if out.ndim == 0:
            raise TypeError(f"expected a list, got {doc!r:.60}")
        return out


class Series(Array):
    """An array aligned with the result's checkpoints: a column of its long CSV table."""


class Arrays(Codec):
    """A dict of arrays by name (a trace's ``extras``): integers or floats, as written."""

    def dump(self, value: Any) -> Any:  # noqa: D102
        return {str(k): jsonable(np.asarray(v)) for k, v in value.items()}

    def load(self, doc: Any) -> dict[str, np.ndarray]:  # noqa: D102
        items = _expect(doc, dict, "an object").items()
        return {str(k): Array(None).load(v) for k, v in items}


@dataclasses.dataclass(frozen=True)
class Nested(Codec):
    """A result inside a result (written by its own declarations), or a tuple of them."""

    cls: type
    many: bool = False

    def dump(self, value: Any) -> Any:  # noqa: D102
        return [to_dict(v) for v in value] if self.many else to_dict(value)

    def load(self, doc: Any) -> Any:  # noqa: D102
        if self.many:
            return tuple(from_dict(self.cls, d) for d in _expect(doc, list, "a list"))
        return from_dict(self.cls, _expect(doc, dict, "an object"))

    def keys(self) -> list[str]:
        """The keys the nested result writes (when inlined, at its parent's level)."""
        return _keys(self.cls, specs(self.cls))


@dataclasses.dataclass(frozen=True)
class Layout:
    """Keys that are not one field each (rare): a pair of functions for some fields."""

    fields: tuple[str, ...]
    write: Callable[[Any], dict[str, Any]]
    read: Callable[[Mapping[str, Any]], dict[str, Any]]


_INFER = Codec()  # a marker: the codec comes from the annotation


@dataclasses.dataclass(frozen=True)
class Spec:
    """How one field is written: its codec, key, whether inlined, transient or optional."""

    codec: Codec = _INFER
    key: str | None = None
    inline: bool = False
    transient: bool = False
    optional: bool = False


def persist(
    codec: Codec | None = None, *, key: str | None = None, inline: bool = False, **field: Any
) -> Any:
    """A field written under ``key`` (default: its name) by ``codec`` (default: inferred)."""
    spec = Spec(codec or _INFER, key, inline)
    return dataclasses.field(metadata={"io": spec}, **field)


def transient(**field: Any) -> Any:
    """A field that needs the data (a Dataset, a trace): not in the file, None when read."""
    field.setdefault("default", None)
    field.setdefault("repr", False)
    return dataclasses.field(metadata={"io": Spec(transient=True)}, **field)


_BY_ANNOTATION: dict[str, Codec] = {
    "float": Number(),
    "int": Int(),
    "bool": Bool(),
    "str": Str(),
    "dict": Dict(),
    "dict[str, float]": Numbers(),
    "tuple": Tuple(),
    "tuple[str, ...]": Strings(),
    "np.ndarray": Array(),
    "ndarray": Array(),  # an annotation that is not a string (no __future__ import)
}
_SPECS: dict[type, list[tuple[dataclasses.Field, Spec]]] = {}


def specs(cls: type) -> list[tuple[dataclasses.Field, Spec]]:
    """Each field of ``cls`` with how it is written, worked out once per class."""
    if cls in _SPECS:
        return _SPECS[cls]
    out = []
    for f in dataclasses.fields(cls):
        s = f.metadata.get("io", Spec())
        annotation = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
        parts = [p.strip() for p in annotation.split("|")]
        base = " | ".join(p for p in parts if p != "None")
        s = dataclasses.replace(s, optional="None" in parts)
        if s.codec is _INFER and not s.transient:
            if base not in _BY_ANNOTATION:
                raise TypeError(
                    f"{cls.__name__}.{f.name}: an annotation ({f.type}) io cannot write by "
                    "itself; declare the field with io.persist(codec) or io.transient()"
                )
            s = dataclasses.replace(s, codec=_BY_ANNOTATION[base])
        out.append((f, s))
    keys = _keys(cls, out)
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise TypeError(f"{cls.__name__}: two fields write the key(s) {twice}")
    _SPECS[cls] = out
    return out


def _written(cls: type, fields: list[tuple[dataclasses.Field, Spec]]) -> list:
    """The fields written one key (or one inlined result) each: not transient or LAYOUT's."""
    skip = getattr(getattr(cls, "LAYOUT", None), "fields", ())
    return [(f, s) for f, s in fields if not s.transient and f.name not in skip]


def _keys(cls: type, fields: list[tuple[dataclasses.Field, Spec]]) -> list[str]:
    """Every key a document of ``cls`` holds (its fields', inlined ones', computed ones)."""
    out: list[str] = []
    for f, s in _written(cls, fields):
        if not s.inline:
            out.append(s.key or f.name)
        elif isinstance(s.codec, Nested):
            out += s.codec.keys()
        else:
            raise TypeError(f"{cls.__name__}.{f.name}: inline needs an io.Nested codec")
    return out + list(getattr(cls, "COMPUTED", ()))


def to_dict(obj: Any, *, skip: Collection[str] = ()) -> dict[str, Any]:
    """The declared fields of ``obj`` in JSON types, then its ``COMPUTED`` properties."""
    cls = type(obj)
    layout = getattr(cls, "LAYOUT", None)
    out: dict[str, Any] = {}
    for f, s in _written(cls, specs(cls)):
        if f.name in skip:
            continue
        value = getattr(obj, f.name)
        if s.inline:
            out.update(s.codec.dump(value))
        else:
            out[s.key or f.name] = None if value is None else s.codec.dump(value)
    if layout is not None:
        out.update(layout.write(obj))
    for name in getattr(cls, "COMPUTED", ()):
        value = getattr(obj, name)
        out[name] = jsonable(value() if callable(value) else value)
    return out


def from_dict(cls: type, doc: Mapping[str, Any]) -> Any:
    """``cls`` from what :func:`to_dict` wrote: the file's fields, transient ones None.

    ``__init__`` is not called (nothing is re-validated: ``with_data`` does that); a missing
    key takes the field's default (a key added after the file was written).
    """
    obj: Any = object.__new__(cls)
    layout = getattr(cls, "LAYOUT", None)
    values = {} if layout is None else _read(layout.read, doc, "the layout's keys")
    for f, s in specs(cls):
        key = s.key or f.name
        if f.name in values:
            value = values[f.name]
        elif s.transient:
            value = None
        elif s.inline:
            value = _read(s.codec.load, doc, None)
        elif key in doc:
            value = None if doc[key] is None and s.optional else _read(s.codec.load, doc[key], key)
        elif f.default is not dataclasses.MISSING:
            value = f.default
        elif f.default_factory is not dataclasses.MISSING:
            value = f.default_factory()
        else:
            raise DataError(f"no {key!r} key")
        object.__setattr__(obj, f.name, value)
    return obj


def _read(load: Callable[[Any], Any], doc: Any, key: str | None) -> Any:
    """``load(doc)``, its errors as one DataError naming the key."""
    try:
        return load(doc)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:  # DataError too
        what = f"no {e.args[0]!r} key" if isinstance(e, KeyError) else str(e)
        raise DataError(f"{key!r}: {what}" if key else what) from None


def series_fields(cls: type) -> list[str]:
    """The fields of ``cls`` declared :class:`Series` (its long table's columns)."""
    return [f.name for f, s in specs(cls) if isinstance(s.codec, Series) and not s.transient]


def equal(a: Any, b: Any) -> bool:
    """Whether two results hold the same values in every field a file keeps."""
    return type(a) is type(b) and to_dict(a) == to_dict(b)
