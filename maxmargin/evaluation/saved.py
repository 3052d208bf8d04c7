r"""Results read back from their JSON: a comparison and an exact path.

A comparison (SavedComparison, SavedRun) and an exact path (SavedExactPath); and the tidy table of a
comparison's runs, shared by :class:`~maxmargin.Comparison` and SavedComparison.

A comparison's JSON (``Comparison.to_json``, ``maxmargin compare --json``, ``report.json``)
holds every number and array the comparison computed, but neither the data nor the
traces (the learners' weights at each checkpoint): what comes back is everything else.
The reference and the hard-margin optimum come back as
:class:`~maxmargin.ExactSolution`\ s without their data: ``saved.reference.with_data(data)``
recomputes the certificate from the data (docs/formats.md).
"""

from __future__ import annotations

import copy
import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import DataError, ParameterError
from ..io import tables as _table
from ..io.files import atomic_write
from ..io.json import dumps, json_float, read_document
from ..solution import ExactSolution

__all__ = [
    "SavedComparison",
    "SavedRun",
    "SavedExactPath",
    "read_comparison",
    "runs_table",
    "breakpoints_csv",
]

#: What makes a JSON without a "format" key (maxmargin 0.1) a comparison.
LEGACY_KEYS = ("reference", "summary", "runs", "F_star", "epochs")

#: Summary-row keys whose values are text (the others are numbers, flags or None).
_TEXT = (
    "label",
    "learner",
    "order",
    "kind",
    "mistake_bound_kind",
    "bound_respected",
    "rate_iterate",
    "diverged",
)

#: The run keys that say which run it is (the tidy table's first columns).
_IDENTITY = ("label", "learner", "order", "seed", "kind")

#: A run's per-run numbers (RunResult.to_dict): ``null`` there is NaN (not available).
RUN_NUMBERS = (
    "regret_G",
    "novikoff",
    "rate",
    "rate_avg",
    "theory_slope",
    "learn_seconds",
    "eval_seconds",
)


def _array(values: list) -> np.ndarray:
    """A JSON list as int64 (all ints) or float64 (``null`` as NaN, ``"inf"`` strings)."""
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.int64)
    return np.array([json_float(v) for v in values], dtype=float)


def _value(v: Any) -> Any:
    """A JSON scalar back as Python: ``"inf"`` / ``"-inf"`` (and an old ``"nan"``) as floats."""
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    return v


def _array_keys(run: dict[str, Any]) -> list[str]:
    """The per-checkpoint keys of a run's dict: lists as long as ``t``.

    The N/A ones (None) of the same names in other runs are found by the caller.
    """
    k = len(run["t"])
    return [key for key, v in run.items() if key != "t" and isinstance(v, list) and len(v) == k]


def _cell(v: Any) -> Any:
    return math.nan if v is None else _value(v)


def runs_table(runs: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    """The tidy table of a comparison's runs: one row per run and checkpoint.

    Parameters
    ----------
    runs : sequence of dict
        ``Comparison.to_dict()["runs"]`` (each :meth:`RunResult.to_dict
        <maxmargin.RunResult.to_dict>`).

    Returns
    -------
    columns : list of str
        ``label, learner, order, seed, kind, t``, then every per-checkpoint quantity
        that some run has, in the runs' order (``mistakes``, ``train_error``,
        ``objective``, ``subopt``, ...).
    rows : list of list
        N/A (a quantity that does not apply to a run's learner) is None.

    Examples
    --------
    >>> cols, rows = runs_table([{"label": "p", "learner": "p", "order": "cyclic",
    ...                           "seed": 0, "kind": "linear", "t": [1, 2],
    ...                           "mistakes": [1, 1], "subopt": None}])
    >>> cols
    ['label', 'learner', 'order', 'seed', 'kind', 't', 'mistakes']
    >>> rows[1]
    ['p', 'p', 'cyclic', 0, 'linear', 2, 1]
    """
    keys: dict[str, None] = {}
    for run in runs:
        keys.update(dict.fromkeys(_array_keys(run)))
    columns = [*_IDENTITY, "t", *keys]
    rows = []
    for run in runs:
        ident = [run.get(k) for k in _IDENTITY]
        cols = [run.get(key) if isinstance(run.get(key), list) else None for key in keys]
        for i, t in enumerate(run["t"]):
            # a null inside a per-checkpoint list is a NaN (the CSV's "nan"); a whole
            # quantity that does not apply is None (an empty cell)
            rows.append([*ident, t, *(None if c is None else _cell(c[i]) for c in cols)])
    return columns, rows


@dataclass(frozen=True, eq=False)
class SavedRun:
    """One run of a :class:`SavedComparison`: :class:`~maxmargin.RunResult`'s numbers.

    Without its trace.

    Every per-checkpoint quantity of the file is an attribute (``run.subopt``,
    ``run.mistakes``: ndarray, or None where it does not apply), and so is every
    per-run number (``run.rate``, ``run.novikoff``, ...).

    Attributes
    ----------
    label, learner, order, kind : str
    seed : int or None
    params : dict
        The learner's parameters.
    t : ndarray of int64
    arrays : dict of str to ndarray
        The per-checkpoint quantities the run has, by name (``t`` included).
    scalars : dict
        The per-run numbers and flags by name (``"inf"`` as a float; a number not
        available, ``null`` in the file, as NaN, as on the run), and None for every
        other quantity, per run or per checkpoint, that does not apply.

    Examples
    --------
    >>> from maxmargin import make_separable, compare
    >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
    >>> run = SavedComparison.from_dict(cmp.to_dict()).runs[0]
    >>> run.label, bool((run.subopt == cmp.runs[0].subopt).all())
    ('pegasos', True)
    """

    label: str
    learner: str
    order: str
    seed: int | None
    kind: str
    params: dict
    t: np.ndarray
    arrays: dict
    scalars: dict

    @classmethod
    def from_dict(cls, run: dict[str, Any]) -> SavedRun:
        """From :meth:`RunResult.to_dict <maxmargin.RunResult.to_dict>`.

        Parameters
        ----------
        run : dict

        Returns
        -------
        SavedRun

        Examples
        --------
        >>> SavedRun.from_dict({"label": "p", "learner": "p", "order": "cyclic", "seed": 0,
        ...                     "kind": "linear", "t": [1, 2], "mistakes": [1, 1]}).mistakes
        array([1, 1])
        """
        keys = _array_keys(run)
        arrays: dict[str, np.ndarray] = {"t": _array(run["t"])}
        scalars: dict[str, Any] = {}
        for key, v in run.items():
            if key in _IDENTITY or key in ("t", "params"):
                continue
            if key in keys:
                arrays[key] = _array(v)
            elif v is None:
                # a per-run number not available is NaN, as on RunResult; any other null
                # is N/A (a per-checkpoint quantity, a flag)
                scalars[key] = math.nan if key in RUN_NUMBERS else None
            else:
                scalars[key] = _value(v) if not isinstance(v, dict) else dict(v)
        return cls(
            label=str(run["label"]),
            learner=str(run["learner"]),
            order=str(run["order"]),
            seed=run.get("seed"),
            kind=str(run["kind"]),
            params=dict(run.get("params") or {}),
            t=arrays["t"],
            arrays=arrays,
            scalars=scalars,
        )

    def __getattr__(self, name: str) -> Any:
        # only reached when normal lookup fails: the file's quantities by name
        for store in ("arrays", "scalars"):
            values = self.__dict__.get(store, {})
            if name in values:
                return values[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


@dataclass(frozen=True, eq=False)
class SavedComparison:
    """A :class:`~maxmargin.Comparison` read from its JSON.

    What :meth:`Comparison.from_json <maxmargin.Comparison.from_json>` returns: every number and
    array, without the data and the traces.

    Attributes
    ----------
    data_name : str
    n, d : int
    intercept : str
    intercept_scaling, C, lam : float
    holdout_name : str or None
    epochs : int
    orders, seeds : tuple
    F_star, R, gamma, novikoff : float
    separable : bool
    w_star : ndarray of shape (d',)
        In the learners' space (``(w, b/s)`` for ``augmented``).
    reference : ExactSolution
        The certified optimum as the file states it; ``reference.with_data(data)``
        recomputes its certificate from the data and gives the ExactSolution.
    hard_solution : ExactSolution or None
        The hard-margin optimum (separable data), likewise.
    rows : tuple of dict
        The summary rows (:attr:`Comparison.rows <maxmargin.Comparison.rows>`).
    runs : tuple of SavedRun
    timings : dict
    document : dict
        The file's content as read; :meth:`to_dict` returns a copy.

    Examples
    --------
    >>> import io
    >>> from maxmargin import Comparison, compare, make_separable
    >>> data = make_separable(30, 2, seed=0)
    >>> cmp = compare(data, learners=["perceptron", "pegasos"], lam=0.1)
    >>> saved = Comparison.from_json(io.StringIO(cmp.to_json()))
    >>> saved.labels, saved.to_json() == cmp.to_json()
    (['perceptron', 'pegasos'], True)
    >>> saved.reference.with_data(data).certificate.ok
    True
    """

    data_name: str
    n: int
    d: int
    intercept: str
    intercept_scaling: float
    C: float
    lam: float
    holdout_name: str | None
    epochs: int
    orders: tuple
    seeds: tuple
    F_star: float
    R: float
    gamma: float
    novikoff: float
    separable: bool
    w_star: np.ndarray
    reference: ExactSolution
    hard_solution: ExactSolution | None
    rows: tuple
    runs: tuple
    timings: dict
    document: dict

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> SavedComparison:
        """From :meth:`Comparison.to_dict <maxmargin.Comparison.to_dict>`.

        Parameters
        ----------
        doc : dict

        Returns
        -------
        SavedComparison

        Raises
        ------
        DataError
            A key is missing or holds something else than it should.

        Examples
        --------
        >>> from maxmargin import compare, make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
        >>> SavedComparison.from_dict(cmp.to_dict()).F_star == cmp.F_star
        True
        """
        try:
            return cls._build(doc)
        except KeyError as e:
            raise DataError(f"the comparison has no {e.args[0]!r} key") from None
        except (TypeError, ValueError, AttributeError) as e:
            if isinstance(e, DataError):
                raise
            raise DataError(f"the comparison holds a value of the wrong type ({e})") from None

    @classmethod
    def _build(cls, doc: dict[str, Any]) -> SavedComparison:
        s = json_float(doc.get("intercept_scaling", 1.0))

        def solution(d: dict[str, Any] | None) -> ExactSolution | None:
            return None if d is None else ExactSolution.from_json(d)

        reference = solution(doc["reference"])
        assert reference is not None
        return cls(
            data_name=str(doc["data"]),
            n=int(doc["n"]),
            d=int(doc["d"]),
            intercept=str(doc["intercept"]),
            intercept_scaling=s,
            C=json_float(doc["C"]),
            lam=json_float(doc["lam"]),
            holdout_name=doc.get("holdout"),
            epochs=int(doc["epochs"]),
            orders=tuple(doc["orders"]),
            seeds=tuple(doc["seeds"]),
            F_star=json_float(doc["F_star"]),
            R=json_float(doc["R"]),
            gamma=json_float(doc["gamma"]),
            novikoff=json_float(doc["novikoff"]),
            separable=bool(doc["separable"]),
            w_star=_array(doc["w_star"]).astype(float),
            reference=reference,
            hard_solution=solution(doc.get("hard")),
            rows=tuple(
                {k: v if k in _TEXT else _value(v) for k, v in row.items()}
                for row in doc["summary"]
            ),
            runs=tuple(SavedRun.from_dict(r) for r in doc["runs"]),
            timings={k: json_float(v) for k, v in (doc.get("timings") or {}).items()},
            document=copy.deepcopy(doc),
        )

    @property
    def labels(self) -> list[str]:
        """The learners' labels, in the order of the runs."""
        return list(dict.fromkeys(r.label for r in self.runs))

    def select(
        self, label: str | None = None, order: str | None = None, seed: int | None = None
    ) -> list[SavedRun]:
        """The runs matching the given label / order / seed (None matches any).

        Parameters
        ----------
        label, order : str, optional
        seed : int, optional

        Returns
        -------
        list of SavedRun

        Examples
        --------
        >>> from maxmargin import compare, make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1,
        ...               seeds=(0, 1))
        >>> [r.seed for r in SavedComparison.from_dict(cmp.to_dict()).select(seed=1)]
        [1]
        """
        return [
            r
            for r in self.runs
            if (label is None or r.label == label)
            and (order is None or r.order == order)
            and (seed is None or r.seed == seed)
        ]

    def to_dict(self) -> dict[str, Any]:
        """The document as read (a copy).

        What :meth:`Comparison.to_dict <maxmargin.Comparison.to_dict>` wrote.

        Returns
        -------
        dict

        Examples
        --------
        >>> from maxmargin import compare, make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
        >>> SavedComparison.from_dict(cmp.to_dict()).to_dict() == cmp.to_dict()
        True
        """
        return copy.deepcopy(self.document)

    def to_json(self, file: str | Path | None = None, indent: int | None = 1) -> str:
        """The JSON text of :meth:`to_dict`.

        As :meth:`Comparison.to_json <maxmargin.Comparison.to_json>` writes it.

        Parameters
        ----------
        file : str or Path, optional
            Written atomically when given.
        indent : int or None, default 1

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import compare, make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
        >>> SavedComparison.from_dict(cmp.to_dict()).to_json() == cmp.to_json()
        True
        """
        text = dumps(self.document, indent=indent) + "\n"
        if file is not None:
            atomic_write(file, text)
        return text

    def to_csv(self, file: str | Path | None = None) -> str:
        """One CSV row per run and checkpoint.

        As :meth:`Comparison.to_csv <maxmargin.Comparison.to_csv>` (the same text).

        Parameters
        ----------
        file : str or Path, optional
            Written atomically when given.

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import compare, make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
        >>> SavedComparison.from_dict(cmp.to_dict()).to_csv() == cmp.to_csv()
        True
        """
        return _table.to_csv(*runs_table(self.document["runs"]), file=file)

    def to_frame(self) -> Any:
        """The rows of :meth:`to_csv` as a pandas DataFrame (pandas is optional).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from maxmargin import compare, make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
        >>> SavedComparison.from_dict(cmp.to_dict()).to_frame().shape == cmp.to_frame().shape
        True
        """
        return _table.to_frame(*runs_table(self.document["runs"]))

    def __repr__(self) -> str:
        return (
            f"SavedComparison({self.data_name!r}, n={self.n}, d={self.d}, "
            f"F*={self.F_star:.6g}, learners={self.labels}, runs={len(self.runs)})"
        )


def read_comparison(source: Any) -> SavedComparison:
    """Read a comparison's JSON.

    What :meth:`Comparison.from_json <maxmargin.Comparison.from_json>` does.

    Parameters
    ----------
    source : str, path-like, readable file, or dict

    Returns
    -------
    SavedComparison

    Examples
    --------
    >>> from maxmargin import compare, make_separable
    >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
    >>> read_comparison(cmp.to_dict()).labels
    ['pegasos']
    """
    return SavedComparison.from_dict(read_document(source, "comparison", LEGACY_KEYS))


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
