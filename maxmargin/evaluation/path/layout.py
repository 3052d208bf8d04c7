"""The exact path's file: its breakpoint and segment rows, its certificates' rows, its CSV.

The arrays of :class:`~maxmargin.evaluation.path.exact.ExactPath` that are not one key
each are written as readable rows (:data:`LAYOUT`); ``breakpoints.csv`` is :data:`CSV`.
``docs/formats.md`` lists the keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ... import io
from .geometry import CERT_COLUMNS, SET_NAMES
from .tracer import BreakpointCertificates

__all__ = ["LAYOUT", "CSV", "Certificates", "CERT_COLUMNS"]

if TYPE_CHECKING:
    from .exact import ExactPath

#: Every this many segments the status array is stored (at least; the rest is replayed).
_SNAPSHOT_EVERY = 64


_N, _I, _A = io.Number(), io.Int(), io.Array()
_EVENTS = io.RowsOf({"index": _I, "from": io.Str(), "to": io.Str()})
_BREAKPOINTS = io.RowsOf(
    dict(k=_I, C=_N, lam=_N, events=_EVENTS, method=io.Str(), certified=io.Bool(),
         max_residual=_N, n_elbow=_I, n_left=_I, n_right=_I, norm_w=_N, b=_N)
)  # fmt: skip
_SEGMENTS = io.RowsOf(
    dict(C_lo=_N, C_hi=_N, w_at=_A, w_slope=_A, b_at=_N, b_slope=_N, elbow=io.Array(int),
         alpha_at=_A, alpha_slope=_A, n_left=_I, n_right=_I)
)  # fmt: skip
#: The fields the breakpoint and segment rows (and ``status_start``) hold.
LAYOUT_FIELDS = (
    "breakpoints", "lam", "bounds", "w_at", "w_slope", "b_at", "b_slope", "elbow_ptr",
    "elbow_index", "elbow_alpha_at", "elbow_alpha_slope", "n_elbow", "n_left", "n_right",
    "event_ptr", "event_index", "event_from", "event_to", "method", "max_residual",
    "snapshots",
)  # fmt: skip


class Certificates(io.Codec):
    """The breakpoints' certificates: their rows of numbers (``CERT_COLUMNS``) and tol."""

    def dump(self, value: BreakpointCertificates) -> Any:  # noqa: D102
        return {"tol": value._tol, "columns": list(CERT_COLUMNS), "rows": _ROWS.dump(value._rows)}

    def load(self, doc: Any) -> BreakpointCertificates:  # noqa: D102
        if not isinstance(doc, dict) or list(doc.get("columns", ())) != list(CERT_COLUMNS):
            raise ValueError(f"expected {{tol, columns, rows}} with the columns {CERT_COLUMNS}")
        return BreakpointCertificates(_ROWS.load(doc["rows"]), io.Number().load(doc["tol"]), {})


_ROWS = io.Rows(len(CERT_COLUMNS))


def write_rows(ep: ExactPath) -> dict[str, Any]:
    """``breakpoints``, ``segments`` and ``status_start``: the readable rows of the file."""
    K = len(ep)
    w, b = ep.coefficients(ep.breakpoints) if K else (np.zeros((0, ep.d)), np.zeros(0))
    breakpoints = [
        {
            "k": j,
            "C": ep.breakpoints[j],
            "lam": ep.lam[j],
            "events": [{"index": i, "from": f, "to": t} for i, f, t in ep.events_at(j)],
            "method": ep.method[j],
            "certified": bool(ep.certificates.ok[j]),
            "max_residual": ep.max_residual[j],
            "n_elbow": int(ep.n_elbow[j + 1]),
            "n_left": int(ep.n_left[j + 1]),
            "n_right": int(ep.n_right[j + 1]),
            "norm_w": float(np.linalg.norm(w[j])),
            "b": b[j],
        }
        for j in range(K)
    ]
    segments = []
    for k in range(ep.n_segments):
        e = slice(ep.elbow_ptr[k], ep.elbow_ptr[k + 1])
        segments.append(
            {
                "C_lo": ep.bounds[k],
                "C_hi": ep.bounds[k + 1],
                "w_at": ep.w_at[k],
                "w_slope": ep.w_slope[k],
                "b_at": ep.b_at[k],
                "b_slope": ep.b_slope[k],
                "elbow": ep.elbow_index[e],
                "alpha_at": ep.elbow_alpha_at[e],
                "alpha_slope": ep.elbow_alpha_slope[e],
                "n_left": int(ep.n_left[k]),
                "n_right": int(ep.n_right[k]),
            }
        )
    return {
        "breakpoints": _BREAKPOINTS.dump(breakpoints),
        "segments": _SEGMENTS.dump(segments),
        "status_start": "".join(np.array(SET_NAMES)[ep.snapshots[0]]),
    }


def _ptr(parts: list[Any]) -> np.ndarray:
    return np.concatenate([[0], np.cumsum([len(p) for p in parts])]).astype(np.int64)


def read_rows(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of :func:`write_rows`'s keys (the sets replayed from ``status_start``)."""
    bp, seg = _BREAKPOINTS.load(doc["breakpoints"]), _SEGMENTS.load(doc["segments"])
    K, S, n, d = len(bp["C"]), len(seg["C_lo"]), int(doc["n"]), int(doc["d"])
    letters = doc["status_start"]
    if not isinstance(letters, str) or set(letters) - set(SET_NAMES):
        raise ValueError(f"status_start: expected a string of {SET_NAMES}, got {letters!r:.40}")
    st0 = np.array([SET_NAMES.index(c) for c in letters], np.int8)
    if S != K + 1 or st0.size != n:
        raise ValueError(
            f"{K} breakpoints need {K + 1} segments and n = {n} sets, got {S}, {st0.size}"
        )
    ev = bp["events"]
    codes = {name: c for c, name in enumerate(SET_NAMES)}
    if {x for e in ev for x in (*e["from"], *e["to"])} - set(codes):
        raise ValueError(f"an event from or to a set other than {SET_NAMES}")
    fields: dict[str, Any] = {
        "breakpoints": np.array(bp["C"], float),
        "lam": np.array(bp["lam"], float),
        "bounds": np.array([*seg["C_lo"], seg["C_hi"][-1]], float),
        "w_at": np.array(seg["w_at"], float).reshape(S, d),
        "w_slope": np.array(seg["w_slope"], float).reshape(S, d),
        "b_at": np.array(seg["b_at"], float),
        "b_slope": np.array(seg["b_slope"], float),
        "elbow_ptr": _ptr(seg["elbow"]),
        "elbow_index": np.concatenate([np.zeros(0, np.int64), *seg["elbow"]]),
        "elbow_alpha_at": np.concatenate([np.zeros(0), *seg["alpha_at"]]),
        "elbow_alpha_slope": np.concatenate([np.zeros(0), *seg["alpha_slope"]]),
        "n_elbow": np.diff(_ptr(seg["elbow"])),
        "n_left": np.array(seg["n_left"], np.int64),
        "n_right": np.array(seg["n_right"], np.int64),
        "event_ptr": _ptr([e["index"] for e in ev]),
        "event_index": np.array([i for e in ev for i in e["index"]], np.int64),
        "event_from": np.array([codes[f] for e in ev for f in e["from"]], np.int8),
        "event_to": np.array([codes[t] for e in ev for t in e["to"]], np.int8),
        "method": tuple(bp["method"]),
        "max_residual": np.array(bp["max_residual"], float),
    }
    for key in ("elbow_index", "event_index"):
        if fields[key].size and not 0 <= fields[key].min() <= fields[key].max() < n:
            raise ValueError(f"{key}: an example index outside [0, {n})")
    if (fields["n_elbow"] + fields["n_left"] + fields["n_right"] != n).any():
        raise ValueError(f"a segment whose elbow, left and right sets do not hold n = {n}")
    snaps = _snapshots(st0, fields["event_ptr"], fields["event_index"], fields["event_to"], S)
    return {**fields, "snapshots": snaps}


class _ThreeDigits(float):
    """A residual: a float, written in the CSV with 3 significant digits (as it always was)."""

    def __repr__(self) -> str:
        return format(float(self), ".3g")


def event_rows(ep: ExactPath) -> list[dict[str, Any]]:
    """One row per event (a breakpoint with several events has several rows)."""
    return [
        {
            "k": j,
            "C": float(ep.breakpoints[j]),
            "lam": float(ep.lam[j]),
            "index": i,
            "from": f,
            "to": t,
            "method": ep.method[j],
            "certified": bool(ep.certificates.ok[j]),
            "max_residual": _ThreeDigits(ep.max_residual[j]),
        }
        for j in range(len(ep))
        for i, f, t in ep.events_at(j)
    ]


EVENT_COLUMNS = [
    io.Column(k, k)
    for k in ("k", "C", "lam", "index", "from", "to", "method", "certified", "max_residual")
]


#: The rows of an exact path's document (its CSR arrays as readable rows).
LAYOUT = io.Layout(LAYOUT_FIELDS, write_rows, read_rows)
#: ``breakpoints.csv``: one row per event.
CSV = io.Table(event_rows, EVENT_COLUMNS)


def _snapshots(
    st0: np.ndarray, ptr: np.ndarray, index: np.ndarray, to: np.ndarray, S: int
) -> dict[int, np.ndarray]:
    """The status of segment 0, of every ``max(64, n // 64)``-th and of the last (replayed)."""
    every = max(_SNAPSHOT_EVERY, st0.size // 64)
    snaps, st = {0: st0}, st0.copy()
    for k in range(every, S, every):
        _replay(st, index[ptr[k - every] : ptr[k]], to[ptr[k - every] : ptr[k]])
        snaps[k] = st.copy()
    _replay(st, index[ptr[(S - 1) // every * every] :], to[ptr[(S - 1) // every * every] :])
    snaps[S - 1] = st
    return snaps


def _replay(st: np.ndarray, index: np.ndarray, to: np.ndarray) -> None:
    """Apply events in order to the status array ``st`` (the last one of each example wins)."""
    if index.size:
        last, first = np.unique(index[::-1], return_index=True)
        st[last] = to[::-1][first]
