"""The exact path read back from its JSON (:class:`SavedExactPath`), and its events' CSV.

Until the exact path is declared on :mod:`maxmargin.io` (``ExactPath.from_json`` giving
an ExactPath), what :meth:`ExactPath.from_json <maxmargin.ExactPath.from_json>` returns.
"""

from __future__ import annotations

import copy
import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...exceptions import DataError, ParameterError
from ...io.files import atomic_write
from ...io.json import dumps, json_float, read_document

__all__ = ["SavedExactPath", "breakpoints_csv"]


@dataclass(frozen=True, eq=False)
class SavedExactPath:
    """An exact regularization path read back from its JSON.

    What :meth:`ExactPath.from_json <maxmargin.ExactPath.from_json>` returns: the breakpoints,
    their events and, where the file has its segments, ``w(C)`` and ``b(C)`` exactly.

    The file holds neither the data nor the certificates' arrays: to re-certify, compute
    the path again from the data (it is exact, and cheap next to a grid).

    Attributes
    ----------
    data_name, intercept : str
    n, d : int
    certified : bool
        Every breakpoint certified, as the file says.
    breakpoints, lam : ndarray of shape (K,)
        The breakpoints in C, and ``1 / (C n)``.
    method : tuple of str
        ``"event"`` or ``"solve"`` (a degenerate event settled by a fresh solve).
    bounds : ndarray of shape (S + 1,) or None
        The segments' ends in C (None: the file has no segments).
    w_at, w_slope : ndarray of shape (S, d) or None
        ``w`` at each segment's lower end and its slope in C.
    b_at, b_slope : ndarray of shape (S,) or None
    document : dict
        The document as read.

    Examples
    --------
    >>> from maxmargin import Dataset, regularization_path
    >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
    >>> saved = SavedExactPath.from_json(ep.to_dict(include_segments=True))
    >>> saved.breakpoints.tolist(), saved.events_at(0)
    ([0.5], [(0, 'L', 'E'), (1, 'L', 'E')])
    """

    data_name: str
    n: int
    d: int
    intercept: str
    certified: bool
    breakpoints: np.ndarray
    lam: np.ndarray
    method: tuple[str, ...]
    bounds: np.ndarray | None
    w_at: np.ndarray | None
    w_slope: np.ndarray | None
    b_at: np.ndarray | None
    b_slope: np.ndarray | None
    document: dict[str, Any]

    @classmethod
    def from_json(cls, source: Any) -> SavedExactPath:
        """Read an exact path's JSON (a path, an open file, or the dict).

        Parameters
        ----------
        source : str, path-like, readable file, or dict

        Returns
        -------
        SavedExactPath

        Raises
        ------
        DataError
            Another kind of document, a newer format, or a key missing.

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
        >>> SavedExactPath.from_json(ep.to_dict()).bounds is None   # no segments
        True
        """
        doc = read_document(source, "exact_path", ("exact", "breakpoints", "C_end"))
        try:
            return cls._from_dict(doc)
        except (KeyError, TypeError, ValueError) as e:
            raise DataError(f"exact path document: missing or malformed key ({e})") from None

    @classmethod
    def _from_dict(cls, doc: dict[str, Any]) -> SavedExactPath:
        rows, segs = doc["breakpoints"], doc.get("segments")
        d = int(doc["d"])
        seg: dict[str, np.ndarray | None] = dict.fromkeys(
            ("bounds", "w_at", "w_slope", "b_at", "b_slope")
        )
        if segs:
            seg["bounds"] = np.array(
                [json_float(s["C_lo"]) for s in segs] + [json_float(segs[-1]["C_hi"])]
            )
            for key in ("w_at", "w_slope"):
                seg[key] = np.array(
                    [[json_float(v) for v in s[key]] for s in segs], dtype=float
                ).reshape(len(segs), d)
            for key in ("b_at", "b_slope"):
                seg[key] = np.array([json_float(s[key]) for s in segs])
        return cls(
            data_name=str(doc["data"]),
            n=int(doc["n"]),
            d=d,
            intercept=str(doc["intercept"]),
            certified=bool(doc["certified"]),
            breakpoints=np.array([json_float(r["C"]) for r in rows], dtype=float),
            lam=np.array([json_float(r["lam"]) for r in rows], dtype=float),
            method=tuple(str(r["method"]) for r in rows),
            document=copy.deepcopy(doc),
            **seg,
        )

    def __len__(self) -> int:
        return len(self.breakpoints)

    def events_at(self, j: int) -> list[tuple[int, str, str]]:
        """The events of breakpoint ``j``: ``(example, from set, to set)``.

        As :meth:`ExactPath.events_at <maxmargin.ExactPath.events_at>`.

        Parameters
        ----------
        j : int
            ``0 <= j < len(self)``.

        Returns
        -------
        list of (int, str, str)

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
        >>> SavedExactPath.from_json(ep.to_dict()).events_at(0) == ep.events_at(0)
        True
        """
        if not 0 <= j < len(self):
            raise ParameterError(f"breakpoint index must be in [0, {len(self)}), got {j}")
        return [
            (int(e["index"]), str(e["from"]), str(e["to"]))
            for e in self.document["breakpoints"][j]["events"]
        ]

    def coefficients(self, C: Any) -> tuple[np.ndarray, Any]:
        """``w(C)`` and ``b(C)`` from the file's segments.

        As :meth:`ExactPath.coefficients <maxmargin.ExactPath.coefficients>` computes them
        (the same numbers).

        Parameters
        ----------
        C : float or array-like of shape (k,)
            In the file's range of C.

        Returns
        -------
        w : ndarray of shape (d,) or (k, d)
        b : float or ndarray of shape (k,)

        Raises
        ------
        DataError
            The file has no segments (``to_json(include_segments=False)``).
        ParameterError
            A C outside the path's range.

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
        >>> saved = SavedExactPath.from_json(ep.to_dict(include_segments=True))
        >>> saved.coefficients([0.1, 1.0])[0].ravel().tolist()
        [0.2, 1.0]
        """
        if (
            self.bounds is None
            or self.w_at is None
            or self.w_slope is None
            or self.b_at is None
            or self.b_slope is None
        ):
            raise DataError(
                "this exact path's file has no segments (written with "
                "include_segments=False): w(C) needs them; maxmargin path "
                "--exact --json and report.json have them"
            )
        Cs = np.atleast_1d(np.asarray(C, dtype=float))
        lo, hi = float(self.bounds[0]), json_float(self.document["C_end"])
        if (
            Cs.size == 0
            or Cs.ndim != 1
            or not np.isfinite(Cs).all()
            or (Cs < lo * (1 - 1e-12)).any()
            or (Cs > hi * (1 + 1e-12)).any()
        ):
            raise ParameterError(f"C must lie in the path's range [{lo:.6g}, {hi:.6g}], got {C!r}")
        S = len(self.b_at)
        k = np.clip(np.searchsorted(self.bounds, Cs, side="left") - 1, 0, S - 1)
        t = Cs - self.bounds[k]
        w = self.w_at[k] + t[:, None] * self.w_slope[k]
        b = self.b_at[k] + t * self.b_slope[k]
        if np.ndim(C) == 0:
            return w[0], float(b[0])
        return w, b

    def to_dict(self) -> dict[str, Any]:
        """The document as read (a copy).

        Returns
        -------
        dict

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
        >>> SavedExactPath.from_json(ep.to_dict()).to_dict()["n_breakpoints"]
        1
        """
        return copy.deepcopy(self.document)

    def to_json(self, file: str | Path | None = None) -> str:
        """The JSON text of :meth:`to_dict` (the file's text).

        As :meth:`ExactPath.to_json <maxmargin.ExactPath.to_json>` writes it.

        Parameters
        ----------
        file : str or Path, optional
            Written atomically when given.

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
        >>> SavedExactPath.from_json(ep.to_dict()).to_json() == ep.to_json()
        True
        """
        text = dumps(self.document, indent=1)
        if file is not None:
            atomic_write(file, text)
        return text

    def to_csv(self, file: str | Path | None = None) -> str:
        """One CSV row per event.

        As :meth:`ExactPath.to_csv <maxmargin.ExactPath.to_csv>` (the same text).

        Parameters
        ----------
        file : str or Path, optional
            Written atomically when given.

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
        >>> SavedExactPath.from_json(ep.to_dict()).to_csv() == ep.to_csv()
        True
        """
        return breakpoints_csv(self.document["breakpoints"], file)

    def __repr__(self) -> str:
        return (
            f"SavedExactPath({self.data_name!r}, intercept={self.intercept!r}, "
            f"{len(self)} breakpoints, certified={self.certified})"
        )


def breakpoints_csv(rows: Sequence[dict[str, Any]], file: str | Path | None = None) -> str:
    """The CSV of :meth:`ExactPath.to_csv <maxmargin.ExactPath.to_csv>`, one row per event.

    From the breakpoints of :meth:`ExactPath.to_dict <maxmargin.ExactPath.to_dict>`.

    Parameters
    ----------
    rows : sequence of dict
        ``to_dict()["breakpoints"]``.
    file : str or Path, optional
        Written atomically when given.

    Returns
    -------
    str

    Examples
    --------
    >>> row = {"k": 0, "C": 0.5, "lam": 1.0, "method": "event", "certified": True,
    ...        "max_residual": 0.0, "events": [{"index": 0, "from": "L", "to": "E"}]}
    >>> print(breakpoints_csv([row]).splitlines()[1])
    0,0.5,1.0,0,L,E,event,True,0
    """
    buf = io.StringIO()
    wr = csv.writer(buf, lineterminator="\n")
    wr.writerow(["k", "C", "lam", "index", "from", "to", "method", "certified", "max_residual"])
    for r in rows:
        for e in r["events"]:
            wr.writerow(
                [
                    r["k"],
                    repr(json_float(r["C"])),
                    repr(json_float(r["lam"])),
                    e["index"],
                    e["from"],
                    e["to"],
                    r["method"],
                    bool(r["certified"]),
                    f"{json_float(r['max_residual']):.3g}",
                ]
            )
    text = buf.getvalue()
    if file is not None:
        atomic_write(file, text)
    return text
