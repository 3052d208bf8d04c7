"""The declarations (maxmargin/io/schema.py): codecs, inference, to_dict / from_dict.

Each codec writes JSON types and reads back the same value (to the bit), refuses a value
of the wrong kind in one line naming the key; an annotation io cannot write, two fields
writing one key and a non-nested inline are refused when the class is first used.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from maxmargin import DataError, io
from maxmargin.io import schema


def _round_trip(codec, value):
    """``value`` through the codec and strict JSON text, back."""
    return codec.load(json.loads(json.dumps(codec.dump(value), allow_nan=False)))


@pytest.mark.parametrize(
    "codec, value",
    [
        (io.Number(), 0.1),
        (io.Number(), math.inf),
        (io.Number(), -math.inf),
        (io.Number(), 5e-324),
        (io.Int(), -3),
        (io.Bool(), True),
        (io.Str(), "w[age]"),
        (io.Dict(), {"eta0": 0.5, "kind": "constant"}),
        (io.Tuple(), (1, "a")),
        (io.Numbers(), {"stationarity": 1e-9, "gap": math.inf}),
        (io.Strings(), ("age", "dose")),
    ],
)
def test_codecs_read_back_what_they_wrote(codec, value):
    assert _round_trip(codec, value) == value


def test_numbers_write_nan_as_null_and_read_it_back():
    assert io.Number().dump(math.nan) is None
    assert math.isnan(_round_trip(io.Number(), math.nan))
    assert math.isnan(_round_trip(io.Numbers(), {"a": math.nan})["a"])


@pytest.mark.parametrize(
    "codec, value",
    [
        (io.Array(), np.array([0.1, -np.inf, np.nan, 5e-324, 1e308])),
        (io.Array(), np.arange(6.0).reshape(2, 3)),
        (io.Array(), np.zeros(0)),
        (io.Array(int), np.array([0, 3, 2**40])),
        (io.Array(int), np.zeros(0, dtype=np.int64)),
        (io.Array(None), np.array([3, 0, 2**40])),  # ints as written stay ints
        (io.Array(None), np.array([[1.0, np.inf], [np.nan, 2.0]])),
        (io.Array(None), np.array([1.0, 2.0])),  # floats that are whole stay floats
        (io.Array(sparse=True), np.array([0.0, 1e-300, 0.0, -2.5, 0.0])),
        (io.Array(sparse=True), np.zeros(4)),
        (io.Series(), np.array([1.0, np.nan])),
    ],
)
def test_arrays_read_back_to_the_bit(codec, value):
    back = _round_trip(codec, value)
    assert back.shape == value.shape and back.dtype.kind == value.dtype.kind
    assert np.array_equal(back, value, equal_nan=True)


def test_a_sparse_array_is_written_by_its_non_zero_entries():
    doc = io.Array(sparse=True).dump(np.array([0.0, 2.0, 0.0, 0.5]))
    assert doc == {"n": 4, "index": [1, 3], "value": [2.0, 0.5]}


def test_arrays_by_name_and_nested_results():
    arrays = {"a": np.array([1.0, 2.0]), "b": np.zeros((2, 2))}
    back = _round_trip(io.Arrays(), arrays)
    assert back.keys() == arrays.keys() and all(np.array_equal(back[k], arrays[k]) for k in back)
    assert _round_trip(io.Nested(_Point, many=True), (_Point(1.0), _Point(2.0, 3))) == (
        _Point(1.0),
        _Point(2.0, 3),
    )


@pytest.mark.parametrize(
    "codec, doc",
    [
        (io.Number(), "1.5"),
        (io.Number(), True),
        (io.Int(), 1.0),
        (io.Int(), True),
        (io.Bool(), 1),
        (io.Str(), 3),
        (io.Dict(), [1]),
        (io.Tuple(), "ab"),
        (io.Numbers(), [1.0]),
        (io.Strings(), ["a", 1]),
        (io.Array(), "abc"),
        (io.Array(), 1.0),
        (io.Array(), [[1.0, 2.0], [3.0]]),
        (io.Array(int), [1, 2.5]),
        (io.Array(int), [True]),
        (io.Array(sparse=True), [0.0, 1.0]),
        (io.Array(sparse=True), {"n": 2, "index": [5], "value": [1.0]}),
        (io.Array(sparse=True), {"n": 2, "index": [0, 1], "value": [1.0]}),
        (io.Array(sparse=True), {"n": 2, "index": [-1], "value": [1.0]}),
        (io.Array(sparse=True), {"index": [0], "value": [1.0]}),
    ],
)
def test_codecs_refuse_a_value_of_the_wrong_kind_in_one_line(codec, doc):
    @dataclass(frozen=True)
    class One:
        v: object = io.persist(codec)

    with pytest.raises(DataError) as e:
        schema.from_dict(One, {"v": doc})
    assert str(e.value).startswith("'v': ") and "\n" not in str(e.value)


# --------------------------------------------------------------------------- classes


@dataclass(frozen=True)
class _Point:
    x: float
    n: int = 1


@dataclass(frozen=True, eq=False)
class _Everything:
    COMPUTED: ClassVar[tuple[str, ...]] = ("total",)

    x: float
    k: int
    ok: bool = io.persist(key="certified")
    name: str | None
    names: tuple[str, ...] | None
    scores: np.ndarray
    weights: np.ndarray | None
    alpha: np.ndarray = io.persist(io.Array(sparse=True))
    point: _Point = io.persist(io.Nested(_Point), inline=False)
    data: object = io.transient()
    added_later: float = 7.0

    @property
    def total(self) -> float:
        return float(self.scores.sum())


def _everything(**kw):
    base = dict(
        x=math.inf,
        k=3,
        ok=True,
        name=None,
        names=("a", "b"),
        scores=np.array([1.0, 2.0]),
        weights=None,
        alpha=np.array([0.0, 0.5, 0.0]),
        point=_Point(2.5, 4),
        data=object(),
    )
    return _Everything(**{**base, **kw})


def test_fields_inferred_from_their_annotation_and_declared_otherwise():
    obj = _everything()
    doc = schema.to_dict(obj)
    assert list(doc) == [
        "x",
        "k",
        "certified",
        "name",
        "names",
        "scores",
        "weights",
        "alpha",
        "point",
        "added_later",
        "total",
    ]
    assert doc["x"] == "inf" and doc["names"] == ["a", "b"] and doc["point"] == {"x": 2.5, "n": 4}
    assert doc["total"] == 3.0 and "data" not in doc  # computed written; transient not
    back = schema.from_dict(_Everything, json.loads(json.dumps(doc)))
    assert back.data is None and schema.equal(back, obj) and back.point == obj.point
    assert back.names == ("a", "b") and back.x == math.inf and back.weights is None


def test_a_missing_key_takes_the_fields_default_else_is_one_line():
    doc = schema.to_dict(_everything())
    del doc["added_later"]
    assert schema.from_dict(_Everything, doc).added_later == 7.0
    del doc["k"]
    with pytest.raises(DataError, match="^no 'k' key$"):
        schema.from_dict(_Everything, doc)


def test_null_reads_as_none_only_where_the_annotation_allows_it():
    doc = schema.to_dict(_everything())
    assert schema.from_dict(_Everything, {**doc, "name": None}).name is None
    with pytest.raises(DataError, match="^'scores': "):
        schema.from_dict(_Everything, {**doc, "scores": None})
    assert math.isnan(schema.from_dict(_Everything, {**doc, "x": None}).x)  # N/A


def test_inline_writes_the_nested_keys_at_the_same_level():
    @dataclass(frozen=True)
    class Outer:
        y: float
        point: _Point = io.persist(io.Nested(_Point), inline=True)

    doc = schema.to_dict(Outer(1.0, _Point(2.0, 5)))
    assert doc == {"y": 1.0, "x": 2.0, "n": 5}
    assert schema.from_dict(Outer, doc) == Outer(1.0, _Point(2.0, 5))


def test_declarations_refused_when_the_class_is_first_used():
    @dataclass(frozen=True)
    class Unknown:
        things: list

    with pytest.raises(TypeError, match=r"Unknown.things: .*declare the field with io.persist"):
        schema.to_dict(Unknown([]))

    @dataclass(frozen=True)
    class Twice:
        x: float
        y: float = io.persist(key="x")

    with pytest.raises(TypeError, match=r"two fields write the key\(s\) \['x'\]"):
        schema.to_dict(Twice(1.0, 2.0))

    @dataclass(frozen=True)
    class Clash:
        x: float
        point: _Point = io.persist(io.Nested(_Point), inline=True)

    with pytest.raises(TypeError, match="two fields write"):
        schema.specs(Clash)

    @dataclass(frozen=True)
    class NotNested:
        x: float = io.persist(io.Number(), inline=True)

    with pytest.raises(TypeError, match="inline needs an io.Nested"):
        schema.specs(NotNested)


def test_a_layout_writes_and_reads_its_own_keys():
    def write(obj):
        return {"rows": [{"a": float(a), "b": float(b)} for a, b in zip(obj.a, obj.b, strict=True)]}

    def read(doc):
        rows = doc["rows"]
        return {"a": np.array([r["a"] for r in rows]), "b": np.array([r["b"] for r in rows])}

    @dataclass(frozen=True)
    class Rows:
        LAYOUT: ClassVar = io.Layout(("a", "b"), write, read)
        a: np.ndarray
        b: np.ndarray
        name: str

    obj = Rows(np.array([1.0, 2.0]), np.array([3.0, 4.0]), "r")
    doc = schema.to_dict(obj)
    assert doc == {"name": "r", "rows": [{"a": 1.0, "b": 3.0}, {"a": 2.0, "b": 4.0}]}
    back = schema.from_dict(Rows, doc)
    assert np.array_equal(back.a, obj.a) and np.array_equal(back.b, obj.b)
    with pytest.raises(DataError, match="no 'rows' key"):
        schema.from_dict(Rows, {"name": "r"})


def test_series_fields_and_equal():
    @dataclass(frozen=True, eq=False)
    class Run:
        t: np.ndarray = io.persist(io.Series(int))
        loss: np.ndarray = io.persist(io.Series())
        w: np.ndarray | None = None

    assert schema.series_fields(Run) == ["t", "loss"]
    a = Run(np.array([1, 2]), np.array([0.5, np.nan]))
    assert schema.equal(a, Run(np.array([1, 2]), np.array([0.5, np.nan])))  # nan == nan
    assert not schema.equal(a, Run(np.array([1, 2]), np.array([0.5, 0.25])))
    assert not schema.equal(a, _Point(1.0))


def test_transient_fields_are_left_out_of_repr_and_default_to_none():
    f = {f.name: f for f in dataclasses.fields(_Everything)}["data"]
    assert f.default is None and not f.repr


def test_an_array_of_either_kind_reads_integers_as_int64_and_the_rest_as_floats():
    assert io.Array(None).load([1, 2]).dtype == np.int64
    assert io.Array(None).load([1, 2.5]).dtype == np.float64
    assert io.Array(None).load([]).dtype == np.float64
    back = io.Arrays().load({"i": [1, 2], "f": [0.5, None, "inf"]})
    assert back["i"].dtype == np.int64 and np.isnan(back["f"][1]) and back["f"][2] == np.inf


def test_computed_methods_are_called_and_skipped_fields_never_written():
    @dataclass(frozen=True)
    class Run:
        COMPUTED: ClassVar[tuple[str, ...]] = ("steps", "summary")
        t: np.ndarray = io.persist(io.Array(int))
        name: str = "run"

        @property
        def steps(self) -> int:
            return int(self.t[-1])

        def summary(self) -> str:
            return f"{self.name}: {self.steps} steps"

    class Refused(io.Array):
        def dump(self, value):
            raise AssertionError("a skipped field must not be converted")

    run = Run(np.array([2, 4]))
    assert schema.to_dict(run) == {
        "t": [2, 4],
        "name": "run",
        "steps": 4,
        "summary": "run: 4 steps",
    }
    assert schema.to_dict(run, skip={"t"}) == {"name": "run", "steps": 4, "summary": "run: 4 steps"}

    @dataclass(frozen=True)
    class Hidden:
        t: np.ndarray = io.persist(Refused())

    assert schema.to_dict(Hidden(np.ones(2)), skip=("t",)) == {}
