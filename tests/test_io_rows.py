"""Rows in a document (maxmargin/io/rows.py): a list of row objects, a 2-D array of rows.

Each writes JSON types and reads back the same values (to the bit), column by column for
:class:`RowsOf`; a row that is not an object, a key missing, a value of the wrong kind
or a row of the wrong width is refused in one line naming the row and the key.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any, ClassVar

import numpy as np
import pytest

from maxmargin import DataError, io

EVENTS = io.RowsOf({"index": io.Int(), "from": io.Str()})
ROWS = io.RowsOf({"C": io.Number(), "ok": io.Bool(), "w": io.Array(), "events": EVENTS})


def _through_json(doc: Any) -> Any:
    return json.loads(json.dumps(doc, allow_nan=False))


def test_rows_of_write_each_row_and_read_them_back_by_column():
    rows = [
        {
            "C": 0.1,
            "ok": True,
            "w": np.array([1.0, -np.inf]),
            "events": [{"index": 3, "from": "L"}],
        },
        {"C": math.inf, "ok": False, "w": np.array([np.nan, 5e-324]), "events": []},
    ]
    doc = _through_json(ROWS.dump(rows))
    assert [list(r) for r in doc] == [["C", "ok", "w", "events"]] * 2  # the declared order
    assert doc[1]["C"] == "inf" and doc[1]["w"] == [None, 5e-324]
    cols = ROWS.load(doc)
    assert cols["C"] == [0.1, math.inf] and cols["ok"] == [True, False]
    assert np.array_equal(cols["w"][0], rows[0]["w"])
    assert np.array_equal(cols["w"][1], rows[1]["w"], equal_nan=True)
    assert cols["events"] == [{"index": [3], "from": ["L"]}, {"index": [], "from": []}]
    assert ROWS.load([]) == {"C": [], "ok": [], "w": [], "events": []}


@pytest.mark.parametrize(
    "doc, match",
    [
        ({"C": 1.0}, "a list of rows"),
        ([{"C": 1.0, "ok": True, "w": [1.0], "events": []}, 3], "row 1: expected an object"),
        ([{"C": 1.0, "w": [1.0], "events": []}], "row 0: no 'ok' key"),
        ([{"C": 1.0, "ok": "yes", "w": [1.0], "events": []}], "row 0, 'ok': expected true"),
        (
            [{"C": 1.0, "ok": True, "w": [1.0], "events": [{"index": 1.5, "from": "L"}]}],
            "row 0, 'events': row 0, 'index': expected an integer",
        ),  # fmt: skip
    ],
)
def test_rows_of_refuse_a_malformed_row_in_one_line(doc, match):
    with pytest.raises((DataError, TypeError), match=match) as e:
        ROWS.load(doc)
    assert "\n" not in str(e.value)


def test_rows_write_a_2d_array_and_keep_its_width_when_empty():
    a = np.array([[1.0, np.inf, np.nan], [0.1, -0.0, 5e-324]])
    back = io.Rows(3).load(_through_json(io.Rows(3).dump(a)))
    assert back.shape == (2, 3) and np.array_equal(back, a, equal_nan=True)
    assert io.Rows(3).load([]).shape == (0, 3)
    with pytest.raises(ValueError, match="rows of 3 numbers"):
        io.Rows(3).load([[1.0, 2.0]])
    with pytest.raises(TypeError, match="a list of rows"):
        io.Rows(3).load({"rows": []})


def test_a_layout_of_rows_round_trips_through_a_result():
    """How a result keeps CSR arrays as readable rows: a Layout over a RowsOf."""
    groups = io.RowsOf({"name": io.Str(), "members": io.Array(int)})

    def write(obj: Any) -> dict[str, Any]:
        parts = np.split(obj.index, obj.ptr[1:-1])
        rows = [{"name": n, "members": m} for n, m in zip(obj.names, parts, strict=True)]
        return {"groups": groups.dump(rows)}

    def read(doc: Any) -> dict[str, Any]:
        cols = groups.load(doc["groups"])
        sizes = [len(m) for m in cols["members"]]
        return {
            "names": tuple(cols["name"]),
            "ptr": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            "index": np.concatenate([np.zeros(0, np.int64), *cols["members"]]),
        }

    @dataclasses.dataclass(frozen=True)
    class Groups(io.Persistent):
        LAYOUT: ClassVar = io.Layout(("names", "ptr", "index"), write, read)
        names: tuple
        ptr: np.ndarray
        index: np.ndarray
        title: str = "g"

    g = Groups(("a", "b", "c"), np.array([0, 2, 2, 3]), np.array([4, 1, 0]))
    doc = g.to_dict()
    assert doc == {
        "title": "g",
        "groups": [
            {"name": "a", "members": [4, 1]},
            {"name": "b", "members": []},
            {"name": "c", "members": [0]},
        ],
    }
    back = Groups.from_json(_through_json(doc))
    assert back.names == g.names and back.title == "g"
    assert np.array_equal(back.ptr, g.ptr) and np.array_equal(back.index, g.index)
    assert back.index.dtype == np.int64 and back.to_json() == g.to_json()
    with pytest.raises(DataError, match="row 1: no 'members' key"):
        Groups.from_json({"title": "g", "groups": [{"name": "a", "members": []}, {"name": "b"}]})
