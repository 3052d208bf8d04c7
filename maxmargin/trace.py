"""The recorded trajectory of an online learner at its checkpoints: :class:`Trace`.

What :func:`maxmargin.online.run` returns and the comparison consumes; weights from
elsewhere become one through :meth:`Trace.from_weights` (``docs/learners.md``).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from . import io
from ._validation import _short
from .exceptions import DataError, ParameterError
from .io.files import display

__all__ = ["Trace"]

#: the parameters that set a learner's step size (a divergence names them when present)
_STEP_PARAMS = ("eta", "eta0", "step")
#: why a trace built from weights alone lacks its per-step records
_FROM_WEIGHTS = "not recorded: the trace was built from weights alone (Trace.from_weights)"


@dataclass(frozen=True, eq=False, kw_only=True)
class Trace(io.Persistent):
    r"""The trajectory of one online run, at ``k`` checkpoints.

    Parameters
    ----------
    learner, data : str
        The learner's registry name (or :meth:`from_weights`' name), the data set's name.
    params : dict
        The learner's parameters (``intercept`` included).
    order : {"cyclic", "shuffle", "sample", "external"}
        ``"external"``: the weights came from elsewhere (:meth:`from_weights`).
    seed : int or None
        Seed of the order (``maxmargin.online.schedule`` regenerates it).
    intercept : {"none", "augmented", "free"}
    intercept_scaling : float
        ``s`` of the augmented mode (the learner saw ``z = (x, s)``).
    n, d, epochs : int
    t, epoch : ndarray of shape (k,), int64
        Steps at the checkpoints (increasing, last ``epochs * n``) and their 1-based epoch.
    w : ndarray of shape (k, d)
        The learner's output weights on the original features after step ``t``.
    b : ndarray of shape (k,)
        Intercept: ``s * w_{d+1}`` (augmented), 0 (none), ``-theta`` (Winnow).
    mistakes : ndarray of shape (k,), int64
        Cumulative online mistakes :math:`\sum_{s\le t} \mathbb 1[y_s f_s(x_s) \le 0]`.
    loss : ndarray of shape (k,)
        Cumulative online hinge :math:`\sum_{s\le t} \max(0, 1 - y_s\, \tilde w_s\cdot z_s)`.
    sqnorm : ndarray of shape (k,)
        Cumulative :math:`\sum_{s\le t} \|\tilde w_s\|^2` (for the regret).
    seconds : ndarray of shape (k,)
        Cumulative learning time (compiled loop only).
    w_avg, b_avg : ndarray of shape (k, d) and (k,), optional
        The averaged iterate, where it is the theoretical output.
    dual, dual_avg : ndarray of shape (k, n), optional
        Implied dual point (``record_dual=True``), and of ``w_avg``.
    extras : dict of str -> ndarray
        Learner-specific arrays (pocket errors, voted perceptron updates, ...).
    final_train_error : float
        Training error of the final output.
    timings : dict of str -> float
        ``learn_seconds``, ``setup_seconds``, ``record_seconds``, ``ns_per_step``.
    missing : dict of str -> str
        Fields the trace does not hold (NaN), with the reason scoring gives for N/A.
    declares : dict
        What the learner declared (:class:`maxmargin.online.learner.Declared`); empty when
        unknown.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> tr = run("perceptron", make_separable(50, 3, seed=0), epochs=2)
    >>> tr.steps, tr.w.shape[1], int(tr.epoch[-1])
    (100, 3, 2)
    """

    # maxmargin.trace/1 (docs/formats.md): the arrays in <stem>.npz as numpy stored them
    # (extras as extra_<name>), the rest in <stem>.json (io.save_pair, io.load_pair)
    FORMAT: ClassVar[str] = "trace"
    COMPUTED: ClassVar[tuple[str, ...]] = ("diverged_at", "summary")

    learner: str
    params: dict
    order: str
    seed: int | None
    data: str
    intercept: str
    intercept_scaling: float
    n: int
    d: int
    epochs: int
    t: np.ndarray = io.persist(io.Array(int))
    epoch: np.ndarray = io.persist(io.Array(int))
    w: np.ndarray
    b: np.ndarray
    mistakes: np.ndarray = io.persist(io.Array(None))  # int64; NaN when not recorded
    loss: np.ndarray
    sqnorm: np.ndarray
    seconds: np.ndarray
    w_avg: np.ndarray | None = None
    b_avg: np.ndarray | None = None
    dual: np.ndarray | None = None
    dual_avg: np.ndarray | None = None
    extras: dict = io.persist(io.Arrays(), key="extra", default_factory=dict)
    final_train_error: float = math.nan
    timings: dict = io.persist(io.Numbers(), default_factory=dict)
    missing: dict = field(default_factory=dict)
    declares: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ external weights

    @classmethod
    def from_weights(
        cls,
        t: Any,
        W: Any,
        b: Any = None,
        *,
        name: str,
        data: Any = None,
        n: int | None = None,
        d: int | None = None,
        intercept: str | None = None,
        intercept_scaling: float = 1.0,
        w_avg: Any = None,
        b_avg: Any = None,
        mistakes: Any = None,
        seconds: Any = None,
        params: dict | None = None,
        extras: dict | None = None,
        kind: str = "objective",
    ) -> Trace:
        r"""A trace from weights produced elsewhere, to be scored like any run.

        What weights alone lack (per-step losses, mistakes, dual points) is NaN and named
        in :attr:`missing`.

        Parameters
        ----------
        t : array-like of shape (k,)
            Positive integers, strictly increasing.
        W : array-like of shape (k, d), or a sequence of k arrays of d entries each
            One row per checkpoint (a square array is refused: pass ``list(W)``).
        b : array-like of shape (k,), optional
            The intercepts; None: all 0.
        name : str
            The learner's name in reports.
        data : Dataset, optional
            The training data; else give ``n`` and ``d``.
        n, d : int, optional
        intercept : {"free", "augmented", "none"}, optional
            How ``b`` is regularised (default ``"free"`` with ``b``, ``"none"`` without).
        intercept_scaling : float > 0
        w_avg, b_avg : array-like of shape (k, d) and (k,), optional
            An averaged iterate.
        mistakes, seconds : array-like of shape (k,), optional
            Cumulative online mistakes, and learning time.
        params, extras : dict, optional
            The learner's parameters, and its extra arrays, for the record.
        kind : {"objective", "linear", "mistakes"}, default "objective"
            What the weights are scored on: every quantity, a linear classifier's, errors.

        Returns
        -------
        Trace
            ``order`` ``"external"``, ``seed`` None, ``epochs`` ``ceil(t[-1] / n)``.

        Raises
        ------
        ParameterError
            Steps, shapes or intercepts that do not fit; neither ``data`` nor ``n``, ``d``.

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> ds = make_separable(20, 2, seed=0)
        >>> tr = Trace.from_weights([20, 40], [[1.0, 0.0], [1.0, 0.5]], name="mine", data=ds)
        >>> tr.order, tr.epochs, sorted(tr.missing)
        ('external', 2, ['loss', 'mistakes', 'seconds', 'sqnorm'])
        """
        if not isinstance(name, str) or not name:
            raise ParameterError(f"name must be a non-empty string, got {name!r}")
        if kind not in ("objective", "linear", "mistakes"):
            raise ParameterError(f"kind must be 'objective', 'linear' or 'mistakes', got {kind!r}")
        n, d = _data_shape(data, n, d)
        tt = _steps_of(t)
        k = tt.size
        Wm = _rows("W", W, k, d)
        bv = np.zeros(k) if b is None else _vector("b", b, k)
        if intercept is None:
            intercept = "none" if b is None else "free"
        if intercept not in ("none", "augmented", "free"):
            raise ParameterError(
                f"intercept must be 'free', 'augmented' or 'none', got {intercept!r}"
            )
        if intercept == "none" and np.any(bv != 0):
            raise ParameterError(
                "intercept='none' but b is not zero; use 'free' (an unregularised b) or 'augmented'"
            )
        s = float(intercept_scaling)
        if not (math.isfinite(s) and s > 0):
            raise ParameterError(f"intercept_scaling must be a finite float > 0, got {s!r}")
        if (b_avg is not None and w_avg is None) or (
            w_avg is not None and b is not None and b_avg is None
        ):
            raise ParameterError(
                "give w_avg and b_avg together (b_avg may be left out only when b is)"
            )
        Wa = None if w_avg is None else _rows("w_avg", w_avg, k, d)
        ba = None if Wa is None else (np.zeros(k) if b_avg is None else _vector("b_avg", b_avg, k))
        given = {"loss": None, "sqnorm": None, "mistakes": mistakes, "seconds": seconds}
        missing = {key: _FROM_WEIGHTS for key, v in given.items() if v is None}
        mk = np.full(k, np.nan)
        if mistakes is not None:
            mk = _vector("mistakes", mistakes, k)
            if np.any(mk < 0) or np.any(np.diff(mk) < 0) or np.any(mk != np.round(mk)):
                raise ParameterError(
                    "mistakes must be cumulative counts: integers >= 0, non-decreasing"
                )
            mk = mk.astype(np.int64)
        sec = np.full(k, np.nan) if seconds is None else _vector("seconds", seconds, k)
        err = math.nan
        if data is not None and np.all(np.isfinite(Wm[-1])) and np.isfinite(bv[-1]):
            f = np.asarray(data.X @ Wm[-1]).ravel() + bv[-1]
            err = float(np.mean(data.y * f <= 0))
        return cls(
            learner=name,
            params=dict(params or {}),
            order="external",
            seed=None,
            data=getattr(data, "name", ""),
            intercept=intercept,
            intercept_scaling=s,
            n=n,
            d=d,
            epochs=int(-(-int(tt[-1]) // n)),
            t=tt,
            epoch=(tt + n - 1) // n,
            w=Wm,
            b=bv,
            mistakes=mk,
            loss=np.full(k, np.nan),
            sqnorm=np.full(k, np.nan),
            seconds=sec,
            w_avg=Wa,
            b_avg=ba,
            extras=dict(extras or {}),
            final_train_error=err,
            missing=missing,
            declares={
                "name": name,
                "objective": "lambda" if kind == "objective" else None,
                "svm_space": kind != "mistakes",
            },
        )

    # ------------------------------------------------------------------ derived

    @property
    def steps(self) -> int:
        """Total number of steps ``T = epochs * n``."""
        return int(self.t[-1])

    @property
    def finite(self) -> np.ndarray:
        """Checkpoints whose weights (and averaged weights) are all finite, shape (k,).

        A nonlinear kernel learner's ``w`` is NaN by design: its bias and dual are checked.
        """
        if self.params.get("kernel", "linear") != "linear":
            ok = np.isfinite(self.b)
            return ok if self.dual is None else ok & np.isfinite(self.dual).all(axis=1)
        ok = np.isfinite(self.w).all(axis=1) & np.isfinite(self.b)
        if self.w_avg is not None and self.b_avg is not None:
            ok &= np.isfinite(self.w_avg).all(axis=1) & np.isfinite(self.b_avg)
        return ok

    @property
    def diverged_at(self) -> int | None:
        """The first checkpoint step ``t`` whose weights are not finite (None: never)."""
        bad = np.flatnonzero(~self.finite)
        return None if bad.size == 0 else int(self.t[bad[0]])

    def divergence(self) -> str:
        """Where the run diverged, in words ("" when it did not).

        The step-size hint only for a learner whose parameters set a step size.

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> from maxmargin.online import run
        >>> run("perceptron", make_separable(20, 2, seed=0)).divergence()
        ''
        """
        at = self.diverged_at
        if at is None:
            return ""
        k = int(np.searchsorted(self.t, at))
        last = (
            f"; finite up to step {int(self.t[k - 1]):,}"
            if k > 0
            else " (the first checkpoint; no finite one)"
        )
        text = (
            f"the weights are not finite from checkpoint {k + 1} of {self.t.size} on "
            f"(step {at:,} of {self.steps:,}){last}"
        )
        steps = [f"{key} = {self.params[key]!r}" for key in _STEP_PARAMS if key in self.params]
        if steps:  # only a learner with a step size can blame it
            text += f" (overflow: a step size too large for the data? {', '.join(steps)})"
        return text

    @property
    def ns_per_step(self) -> float:
        """Learning time per step in nanoseconds."""
        return float(self.seconds[-1]) / max(self.steps, 1) * 1e9

    def w_tilde(self, average: bool = False) -> np.ndarray:
        """Weights in the learner's space: ``w`` or ``(w, b/s)`` (augmented), (k, d').

        Parameters
        ----------
        average : bool, default False
            The averaged iterate (``w_avg``, ``b_avg``) instead of the last one.

        Returns
        -------
        ndarray of shape (k, d')

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> from maxmargin.online import run
        >>> tr = run(("perceptron", {"intercept": "augmented"}), make_separable(20, 2, seed=0))
        >>> tr.w_tilde().shape[1]
        3
        """
        w, b = (self.w_avg, self.b_avg) if average else (self.w, self.b)
        if w is None or b is None:
            raise DataError(f"the {self.learner} trace has no averaged iterate")
        if self.intercept != "augmented":
            return w
        return np.concatenate([w, (b / self.intercept_scaling)[:, None]], axis=1)

    def summary(self) -> str:
        """One line: mistakes, final training error, speed.

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> from maxmargin.online import run
        >>> run("perceptron", make_separable(20, 2, seed=0)).summary().split(":")[0]
        'perceptron'
        """
        mist = (
            "mistakes not recorded"
            if "mistakes" in self.missing
            else f"{int(self.mistakes[-1]):,} mistakes"
        )
        head = (
            f"{self.learner}: {mist} in {self.steps:,} steps "
            f"({self.epochs} epoch{'s' if self.epochs != 1 else ''}, {self.order}), "
        )
        if self.diverged_at is not None:
            return head + f"DIVERGED: {self.divergence()}"
        speed = "" if "seconds" in self.missing else f", {self.ns_per_step:,.0f} ns/step"
        return head + f"final training error {self.final_train_error:.2%}" + speed

    # ------------------------------------------------------------------ equality

    def __eq__(self, other: object) -> bool:
        # every field a file keeps (arrays element by element, NaN equal to NaN)
        return io.equal(self, other) if isinstance(other, Trace) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ files

    def save(self, path: str | Path) -> tuple[Path, Path]:
        """Write ``<stem>.npz`` (arrays, no pickles) and ``<stem>.json`` (metadata).

        Parameters
        ----------
        path : str or Path
            A directory (existing, or with a trailing ``/``: ``DIR/<learner>.npz``), or a stem.

        Returns
        -------
        (npz_path, json_path)

        Examples
        --------
        >>> import tempfile
        >>> from maxmargin import make_separable
        >>> from maxmargin.online import run
        >>> tr = run("perceptron", make_separable(20, 2, seed=0))
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     npz, js = tr.save(tmp)
        ...     Trace.load(npz) == tr
        True
        """
        as_dir = str(path).endswith(("/", "\\"))
        path = Path(path)
        stem = path / self.learner if (as_dir or path.is_dir()) else _strip(path)
        stem.parent.mkdir(parents=True, exist_ok=True)
        return io.save_pair(self, stem)

    @classmethod
    def load(cls, path: str | Path, data: Any = None, intercept: str | None = None) -> Trace:
        """Read a trajectory file: a :meth:`save` pair, or a plain ``.npz`` of weights.

        Parameters
        ----------
        path : str or Path
            A pair's ``.npz``, ``.json`` or stem; or a plain ``.npz`` with arrays ``t``, ``W``
            (optionally ``b``, ``w_avg``, ``b_avg``, ``mistakes``, ``kind``): :meth:`from_weights`.
        data : Dataset, optional
            The training data: needed for a plain ``.npz``, checked against a pair.
        intercept : {"free", "augmented", "none"}, optional
            For a plain ``.npz``, as in :meth:`from_weights`.

        Returns
        -------
        Trace

        Raises
        ------
        DataError
            No such file, not a trajectory, or a pair recorded on other data.
        ParameterError
            ``path`` not a file name; a plain ``.npz`` without ``data`` or with bad arrays.

        Examples
        --------
        >>> Trace.load("no/such/trace.npz")  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        maxmargin.exceptions.DataError: no/such/trace.npz: no such file
        """
        if not isinstance(path, (str, os.PathLike)) or not str(path):
            raise ParameterError(
                f"path must be a file name (str or pathlib.Path), got {_short(path)}"
            )
        given, shown = Path(path), display(path)
        if given.suffix not in (".npz", ".json") and (given.suffix or given.is_file()):
            raise DataError(
                f"{shown}: give a .npz file (or the .json beside one that Trace.save wrote)"
            )
        stem = _strip(given)
        js = stem.with_name(stem.name + ".json")
        npz = stem.with_name(stem.name + ".npz")
        if not npz.exists():
            if given.exists():  # e.g. a run's report.json: not a trajectory
                raise DataError(
                    f"{shown}: a .json is read only beside the .npz Trace.save wrote with "
                    f"it, and {display(npz)} does not exist; give a trajectory .npz "
                    "(`run --out DIR` writes DIR/<learner>.npz), or a plain .npz with "
                    "arrays t and W"
                )
            raise DataError(f"{shown}: no such file")
        if js.exists():
            trace: Trace = io.load_pair(cls, stem)
            if data is not None and (trace.n, trace.d) != (data.n, data.d):
                raise DataError(
                    f"{shown}: recorded on (n, d) = ({trace.n}, {trace.d}), but the data "
                    f"{getattr(data, 'name', '')!r} has ({data.n}, {data.d})"
                )
            return trace
        try:
            with np.load(npz, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except (OSError, ValueError) as e:
            raise DataError(f"{shown}: not a readable .npz ({e})") from None
        absent = [k for k in ("t", "W") if k not in arrays]
        if absent:
            raise DataError(
                f"{shown}: a plain .npz needs arrays t and W (and optionally b, w_avg, "
                f"b_avg, mistakes, kind); it lacks {', '.join(absent)}"
            )
        if data is None:
            raise ParameterError(
                f"{shown}: a plain .npz of weights is read with data= (the training Dataset)"
            )
        try:
            return cls.from_weights(
                arrays["t"],
                arrays["W"],
                arrays.get("b"),
                name=stem.name,
                data=data,
                intercept=intercept,
                w_avg=arrays.get("w_avg"),
                b_avg=arrays.get("b_avg"),
                mistakes=arrays.get("mistakes"),
                kind=str(arrays["kind"]) if "kind" in arrays else "objective",
            )
        except ParameterError as e:
            raise ParameterError(f"{shown}: {e}") from None


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParameterError(f"{name} must be an int >= 1, got {value!r}")
    return int(value)


def _rows(what: str, value: Any, k: int, d: int) -> np.ndarray:
    """``value`` as a (k, d) float array of k snapshots, refusing what may be transposed."""
    if isinstance(value, np.ndarray) or hasattr(value, "toarray"):
        a = value.toarray() if hasattr(value, "toarray") else value
        a = np.asarray(a, dtype=float)
        if a.ndim < 2 or a.shape[0] != k or int(np.prod(a.shape[1:])) != d:
            hint = (
                " (transposed? rows must be the checkpoints)"
                if (a.ndim == 2 and a.shape == (d, k))
                else ""
            )
            raise ParameterError(
                f"{what} has shape {a.shape}; it must be (k, d) = ({k}, {d}):"
                f" one row per checkpoint t (k = len(t)), d features{hint}"
            )
        if a.ndim == 2 and k == d:
            raise ParameterError(
                f"{what} is a square ({k}, {d}) array: with k = d its orientation cannot be "
                f"checked; pass list({what}) if its rows are the {k} snapshots (one per "
                "checkpoint)"
            )
        return np.ascontiguousarray(a.reshape(k, d))
    try:
        rows = [np.asarray(r, dtype=float).ravel() for r in value]
    except TypeError:
        raise ParameterError(
            f"{what} must be an array of shape (k, d) or a sequence of k "
            f"weight vectors; got {type(value).__name__}"
        ) from None
    if len(rows) != k or any(r.size != d for r in rows):
        sizes = sorted({r.size for r in rows})
        raise ParameterError(
            f"{what} has {len(rows)} snapshot(s) of size(s) {sizes}; it "
            f"needs k = len(t) = {k} snapshots of d = {d} weights"
        )
    return np.array(rows, dtype=float).reshape(k, d)


def _vector(what: str, value: Any, k: int) -> np.ndarray:
    """``value`` as k floats (one per checkpoint; ``(k, 1)`` or k 1-element arrays too)."""
    try:
        v = np.array([np.asarray(x, dtype=float).ravel() for x in value], dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"{what} must hold one number per checkpoint (k = {k})") from None
    if v.ndim != 2 or v.shape != (k, 1):
        raise ParameterError(
            f"{what} has {v.shape[0] if v.ndim else 0} entr(ies) of size "
            f"{v.shape[1:] if v.ndim == 2 else '?'}; it needs one number per "
            f"checkpoint (k = len(t) = {k})"
        )
    return v[:, 0]


def _data_shape(data: Any, n: int | None, d: int | None) -> tuple[int, int]:
    """``(n, d)`` of the data a trace from elsewhere ran on (given, or of ``data``)."""
    if data is not None:
        if not hasattr(data, "X") or not hasattr(data, "y"):
            raise ParameterError(f"data must be a maxmargin.Dataset, got {type(data).__name__}")
        for key, given, real in (("n", n, data.n), ("d", d, data.d)):
            if given is not None and int(given) != real:
                raise ParameterError(f"{key}={given} but data has {key} = {real}")
        n, d = data.n, data.d
    elif n is None or d is None:
        raise ParameterError(
            "give data= (the training Dataset) or both n= and d=: the weights are checked against d"
        )
    return _positive_int("n", n), _positive_int("d", d)


def _steps_of(t: Any) -> np.ndarray:
    """The checkpoints of a trace from elsewhere: positive increasing integers."""
    tt = np.asarray(t)
    whole = np.issubdtype(tt.dtype, np.floating) and np.all(np.isfinite(tt) & (tt == np.round(tt)))
    if tt.ndim != 1 or tt.size == 0 or not (np.issubdtype(tt.dtype, np.integer) or whole):
        raise ParameterError(
            f"t must be a 1-D array of k >= 1 integer steps; got shape {tt.shape}, dtype {tt.dtype}"
        )
    tt = tt.astype(np.int64)
    if tt[0] < 1 or np.any(np.diff(tt) <= 0):
        raise ParameterError(
            "t must be positive and strictly increasing (the steps at "
            f"which the weights were taken); got {tt.tolist()[:8]}"
        )
    return tt


def _strip(path: Path) -> Path:
    return path.with_suffix("") if path.suffix in (".npz", ".json") else path
