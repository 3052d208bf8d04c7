"""The recorded trajectory of an online learner: :class:`Trace`.

A trace is what :func:`maxmargin.online.run` returns and what the comparison with the
exact optimum consumes. Everything is recorded at checkpoints only (geometric in ``t``
plus the end of every epoch), so recording costs little and evaluation against the
optimum can be vectorised over checkpoints afterwards.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from ._io import atomic_write
from ._json import jsonable
from .exceptions import DataError

__all__ = ["Trace"]

_FORMAT = "maxmargin.trace/1"
_REQUIRED = ("t", "epoch", "w", "b", "mistakes", "loss", "sqnorm", "seconds")
_OPTIONAL = ("w_avg", "b_avg", "dual", "dual_avg")
_META = ("learner", "params", "order", "seed", "data", "intercept", "intercept_scaling",
         "n", "d", "epochs", "final_train_error", "timings")


@dataclass(frozen=True, eq=False)
class Trace:
    r"""The trajectory of one online run, at ``k`` checkpoints.

    Parameters
    ----------
    learner : str
        Registry name of the learner (``"perceptron"``, ``"pegasos"``, ...).
    params : dict
        The learner's parameters (``intercept`` included).
    order : {"cyclic", "shuffle", "sample"}
    seed : int
        Seed of the order; ``maxmargin.online.schedule(n, epochs, order, seed)``
        regenerates the example visited at every step.
    data : str
        Name of the data set.
    intercept : {"none", "augmented"}
    intercept_scaling : float
        ``s`` of the augmented mode (the learner saw ``z = (x, s)``).
    n, d, epochs : int
    t : ndarray of shape (k,), int64
        Steps (examples seen) at the checkpoints, increasing, last = ``epochs * n``.
    epoch : ndarray of shape (k,), int64
        The (1-based) epoch each checkpoint falls in, ``ceil(t / n)``.
    w : ndarray of shape (k, d)
        Weights on the original features after step ``t``: the learner's output (the
        pocket for ``pocket``, the average for ``averaged_perceptron``).
    b : ndarray of shape (k,)
        Intercept: ``s * w_{d+1}`` (augmented), 0 (none), ``-theta`` (Winnow).
    mistakes : ndarray of shape (k,), int64
        Cumulative online mistakes :math:`\sum_{s\le t} \mathbb 1[y_s f_s(x_s) \le 0]` of
        the predicting iterate, before its update.
    loss : ndarray of shape (k,)
        Cumulative online hinge :math:`\sum_{s\le t} \max(0, 1 - y_s\, \tilde w_s\cdot
        z_s)`, each evaluated before the update of step ``s``.
    sqnorm : ndarray of shape (k,)
        Cumulative :math:`\sum_{s\le t} \|\tilde w_s\|^2` (same iterates), so that the
        regret against ``u`` is ``lam/2 * sqnorm + loss - sum_{s<=t} f_s(u)``.
    seconds : ndarray of shape (k,)
        Cumulative learning time (compiled loop only; recording and evaluation excluded).
    w_avg, b_avg : ndarray of shape (k, d) and (k,), optional
        The averaged iterate where the average is the theoretical output (Pegasos and
        online subgradient: mean of ``w_1..w_t``; voted perceptron: ``sum c_k v_k / T``).
    dual, dual_avg : ndarray of shape (k, n), optional
        Implied dual point ``a`` with ``w~ = sum_i a_i y_i z_i`` (and of ``w_avg``), when
        run with ``record_dual=True`` for a learner that has one.
    extras : dict of str -> ndarray
        Learner-specific arrays (pocket errors, voted perceptron updates, ...).
    final_train_error : float
        Training error of the final output (for the voted perceptron: of the vote).
    timings : dict of str -> float
        ``learn_seconds``, ``setup_seconds``, ``record_seconds``, ``ns_per_step``.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> tr = run("perceptron", make_separable(50, 3, seed=0), epochs=2)
    >>> tr.steps, tr.w.shape[1], int(tr.epoch[-1])
    (100, 3, 2)
    """

    learner: str
    params: dict
    order: str
    seed: int
    data: str
    intercept: str
    intercept_scaling: float
    n: int
    d: int
    epochs: int
    t: np.ndarray
    epoch: np.ndarray
    w: np.ndarray
    b: np.ndarray
    mistakes: np.ndarray
    loss: np.ndarray
    sqnorm: np.ndarray
    seconds: np.ndarray
    w_avg: np.ndarray | None = None
    b_avg: np.ndarray | None = None
    dual: np.ndarray | None = None
    dual_avg: np.ndarray | None = None
    extras: dict = field(default_factory=dict)
    final_train_error: float = math.nan
    timings: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ derived

    @property
    def steps(self) -> int:
        """Total number of steps ``T = epochs * n``."""
        return int(self.t[-1])

    @property
    def finite(self) -> np.ndarray:
        """Checkpoints whose weights (and averaged weights) are all finite, shape (k,).

        Returns
        -------
        ndarray of bool
        """
        ok = np.isfinite(self.w).all(axis=1) & np.isfinite(self.b)
        if self.w_avg is not None and self.b_avg is not None:
            ok &= np.isfinite(self.w_avg).all(axis=1) & np.isfinite(self.b_avg)
        return ok

    @property
    def diverged_at(self) -> int | None:
        """The first checkpoint step ``t`` whose weights are not finite (None: never).

        A learner whose step size is too large for the data (``subgradient`` with a
        large ``lam``) overflows to inf and then NaN. Every checkpoint from this one on
        is meaningless; :meth:`divergence` says it in words.

        Returns
        -------
        int or None
        """
        bad = np.flatnonzero(~self.finite)
        return None if bad.size == 0 else int(self.t[bad[0]])

    def divergence(self) -> str:
        """Where the run diverged, in words ("" when it did not).

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
        last = f"; finite up to step {int(self.t[k - 1]):,}" if k > 0 else \
            "; not finite at the first checkpoint"
        return (f"the weights are not finite (overflow) at step {at:,} of "
                f"{self.steps:,}{last} (a step size too large for the data?)")

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
            ``d' = d + 1`` for intercept ``augmented``, else ``d``.

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> from maxmargin.online import run
        >>> run("perceptron", make_separable(20, 2, seed=0)).w_tilde().shape[1]
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
        head = (f"{self.learner}: {int(self.mistakes[-1]):,} mistakes in {self.steps:,} steps "
                f"({self.epochs} epoch{'s' if self.epochs != 1 else ''}, {self.order}), ")
        if self.diverged_at is not None:
            return head + f"DIVERGED: {self.divergence()}"
        return (head + f"final training error {self.final_train_error:.2%}, "
                f"{self.ns_per_step:,.0f} ns/step")

    # ------------------------------------------------------------------ equality

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if f.name == "extras":
                if a.keys() != b.keys() or not all(_arr_eq(a[k], b[k]) for k in a):
                    return False
            elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                if not _arr_eq(a, b):
                    return False
            elif isinstance(a, float) and isinstance(b, float):
                if not (a == b or (math.isnan(a) and math.isnan(b))):
                    return False
            elif a != b:
                return False
        return True

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ files

    def save(self, path: str | Path) -> tuple[Path, Path]:
        """Write ``<stem>.npz`` (arrays, no pickles) and ``<stem>.json`` (metadata).

        Parameters
        ----------
        path : str or Path
            A directory, existing or written with a trailing ``/`` (files
            ``DIR/<learner>.npz`` and ``.json``, DESIGN section 5), or a stem
            (``out/run1`` -> ``out/run1.npz``, ``out/run1.json``).

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
        arrays: dict[str, np.ndarray] = {k: getattr(self, k) for k in _REQUIRED}
        for k in _OPTIONAL:
            if getattr(self, k) is not None:
                arrays[k] = getattr(self, k)
        for k, v in self.extras.items():
            arrays[f"extra_{k}"] = np.asarray(v)
        for k, v in arrays.items():
            if v.dtype == object:
                raise DataError(f"trace array {k!r} has dtype object; cannot save without pickle")
        npz = stem.with_name(stem.name + ".npz")
        js = stem.with_name(stem.name + ".json")
        meta: dict[str, Any] = {"format": _FORMAT}
        for k in _META:
            v = getattr(self, k)
            meta[k] = None if isinstance(v, float) and math.isnan(v) else v
        meta["arrays"] = sorted(arrays)
        meta["diverged_at"] = self.diverged_at
        meta["summary"] = self.summary()
        text = json.dumps(jsonable(meta), indent=2) + "\n"
        atomic_write(npz, lambda fh: np.savez(fh, **arrays))  # type: ignore[arg-type]
        atomic_write(js, text)
        return npz, js

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        """Read a trace written by :meth:`save` (give the ``.npz``, the ``.json`` or the stem).

        Parameters
        ----------
        path : str or Path
            The ``.npz``, the ``.json``, or their common stem.

        Returns
        -------
        Trace

        Examples
        --------
        >>> Trace.load("no/such/trace")  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        maxmargin.exceptions.DataError: no/such/trace.json: no such trace file
        """
        stem = _strip(Path(path))
        js = stem.with_name(stem.name + ".json")
        npz = stem.with_name(stem.name + ".npz")
        for p in (js, npz):
            if not p.exists():
                raise DataError(f"{p}: no such trace file")
        try:
            meta = json.loads(js.read_text())
        except ValueError as e:
            raise DataError(f"{js}: not valid JSON: {e}") from None
        if meta.get("format") != _FORMAT:
            raise DataError(f"{js}: not a maxmargin trace (format {meta.get('format')!r})")
        with np.load(npz, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        missing = [k for k in _REQUIRED if k not in arrays]
        if missing:
            raise DataError(f"{npz}: missing arrays {missing}")
        kw: dict[str, Any] = {k: meta[k] for k in _META}
        if kw["final_train_error"] is None:
            kw["final_train_error"] = math.nan
        for k in _REQUIRED + _OPTIONAL:
            if k in arrays:
                kw[k] = arrays[k]
        kw["extras"] = {k[6:]: v for k, v in arrays.items() if k.startswith("extra_")}
        return cls(**kw)


def _strip(path: Path) -> Path:
    return path.with_suffix("") if path.suffix in (".npz", ".json") else path


def _arr_eq(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype.kind == b.dtype.kind and bool(
        np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
