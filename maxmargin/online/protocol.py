"""Your own learner, in plain Python: the public learner protocol and its adapter.

A learner is any object with ``start(d)``, ``step(x, y, t)`` and ``weights()`` and
optional class attributes declaring what it is scored on; :class:`PythonLearner` runs it
like a built-in (measuring mistakes, loss and ``||w||^2`` itself), through the loop of
its ``compiled_step`` if it has one. See ``docs/own-learner.md``.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._deps import require
from .._validation import check_memory, failure
from ..conventions import intercept_for
from ..exceptions import MaxMarginError, ParameterError
from .base import LearnerState, OnlineLearner, PackedData, Snapshot
from .claims import _regret_G
from .learner import _declared, is_learner

__all__ = ["PythonLearner", "LearnerError", "learner_params"]


def learner_params(cls: type) -> tuple[str, ...]:
    """The keyword parameters of a learner class's constructor.

    Examples
    --------
    >>> from maxmargin.online import PA1, Learner
    >>> learner_params(PA1), learner_params(Learner)
    (('C', 'intercept', 'intercept_scaling'), ())
    """
    if isinstance(cls, type) and issubclass(cls, OnlineLearner):
        return cls.param_names()
    init = cls.__init__
    if init is object.__init__:
        return ()
    return tuple(
        p.name
        for p in inspect.signature(init).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    )


class LearnerError(ParameterError):
    """A user's learner failed (raised, exited, or returned no weight vector): its bug, not ours.

    The message names the learner, the method and the step; its exception is chained.
    """


@contextlib.contextmanager
def _blame(learner: Any, what: str, at: Callable[[], str] = lambda: "") -> Iterator[None]:
    """Re-raise an exception of ``learner``'s own code as a :class:`LearnerError`.

    ``sys.exit`` too: in the command's child process it would end the command silently.
    """
    try:
        yield
    except (MaxMarginError, KeyboardInterrupt):
        raise
    except BaseException as e:  # GeneratorExit, BaseException: still the learner's, not ours
        name = getattr(learner, "name", "") or type(learner).__name__
        did, _, text = failure(e).partition(": ")
        raise LearnerError(
            f"learner {name!r} {did} in {what}{at()}"
            + (
                ""
                if isinstance(e, SystemExit)
                else f"{': ' + text if text else ''} (-v shows the traceback)"
            )
        ) from e


@dataclass(eq=False)
class PythonState(LearnerState):
    """The adapter's state: the dense read-only rows the learner sees, their source, its arrays."""

    rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    source: PackedData | None = None
    arrays: tuple = ()


class PythonLearner(OnlineLearner):
    """The adapter: a learner written in plain Python, run like a built-in.

    It copies the wrapped object's declarations, so scoring reads them as for a built-in.

    Parameters
    ----------
    learner : object with ``start(d)``, ``step(x, y, t)`` and ``weights()``
    intercept : str or None, default :func:`~maxmargin.conventions.intercept_for` of its
        ``supported_intercepts``
    intercept_scaling : float > 0, default 1.0

    Examples
    --------
    >>> from maxmargin.online import Learner
    >>> class Nothing(Learner):
    ...     def start(self, d): self.w = np.zeros(d)
    ...     def step(self, x, y, t): pass
    ...     def weights(self): return self.w
    >>> PythonLearner(Nothing(), intercept="none")
    PythonLearner(Nothing(), intercept='none', intercept_scaling=1.0)
    """

    reference = "a learner written against the public protocol (maxmargin.online.protocol)"

    def __init__(
        self, learner: Any, *, intercept: str | None = None, intercept_scaling: float = 1.0
    ) -> None:
        if isinstance(learner, (OnlineLearner, type)) or not is_learner(learner):
            raise ParameterError(
                f"PythonLearner wraps a learner object with start(d), step(x, y, t) and "
                f"weights() (docs/own-learner.md); got {learner!r}"
            )
        self.learner = learner
        for key, value in _declared(learner).items():
            setattr(self, key, value)  # before the intercept is checked against them
        if intercept is None:
            intercept = intercept_for(self.supported_intercepts)
        if intercept not in self.supported_intercepts:
            raise ParameterError(
                f"{type(learner).__name__} supports intercept "
                f"{' or '.join(map(repr, self.supported_intercepts))}, not {intercept!r} "
                "(it declares supported_intercepts)"
            )
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.name = str(  # type: ignore[misc]
            getattr(learner, "name", "") or type(learner).__name__
        )
        compiled = getattr(learner, "compiled_step", None)
        if compiled is not None and not (
            hasattr(compiled, "py_func") and callable(getattr(learner, "state", None))
        ):
            raise ParameterError(
                f"{type(learner).__name__}.compiled_step must be a numba @njit function, "
                "and the learner must have a state() method returning the arrays it updates"
            )
        self._compiled = compiled

    def __getattr__(self, key: str) -> Any:
        # the wrapped learner's own attributes (its lam or C, read by the scoring)
        if key.startswith("__") or key in ("learner", "_compiled"):
            raise AttributeError(key)
        return getattr(self.learner, key)

    def get_params(self) -> dict[str, Any]:
        """The wrapped learner's parameters, then ``intercept`` and ``intercept_scaling``.

        Returns
        -------
        dict

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> f = lambda *args: None
        >>> inner = SimpleNamespace(start=f, step=f, weights=f, get_params=lambda: {"lam": 0.5})
        >>> PythonLearner(inner, intercept="none").get_params()
        {'lam': 0.5, 'intercept': 'none', 'intercept_scaling': 1.0}
        """
        own = getattr(self.learner, "get_params", None)
        if callable(own):
            params = dict(own())
        else:
            params = {
                p: getattr(self.learner, p)
                for p in learner_params(type(self.learner))
                if hasattr(self.learner, p)
            }
        params.update(intercept=self.intercept, intercept_scaling=self.intercept_scaling)
        return params

    def __repr__(self) -> str:
        skip = ("intercept", "intercept_scaling")
        inner = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items() if k not in skip)
        return (
            f"PythonLearner({type(self.learner).__name__}({inner}), intercept={self.intercept!r}, "
            f"intercept_scaling={self.intercept_scaling!r})"
        )

    def start(self, d: int, *args: Any) -> None:
        """The wrapped learner's ``start``.

        Parameters
        ----------
        d : int
        *args : ``n`` with ``has_dual``

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> w = np.zeros(2)
        >>> inner = SimpleNamespace(start=lambda d: w.fill(0.0), weights=lambda: w,
        ...                         step=lambda x, y, t: np.add(w, y * x, out=w))
        >>> lr = PythonLearner(inner, intercept="none")
        >>> lr.start(2)
        >>> lr.step(np.ones(2), -1.0, 1)
        >>> lr.weights().tolist()
        [-1.0, -1.0]
        """
        self.learner.start(d, *args)

    def step(self, x: np.ndarray, y: float, t: int, *args: Any) -> None:
        """The wrapped learner's ``step``.

        Parameters
        ----------
        x : ndarray of shape (d,)
        y : float, +1.0 or -1.0
        t : int, 1 for the first step
        *args : ``i`` with ``has_dual``

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> w = np.zeros(2)
        >>> inner = SimpleNamespace(start=lambda d: w.fill(0.0), weights=lambda: w,
        ...                         step=lambda x, y, t: np.add(w, y * x, out=w))
        >>> lr = PythonLearner(inner, intercept="none")
        >>> lr.start(2)
        >>> lr.step(np.ones(2), -1.0, 1)
        >>> lr.weights().tolist()
        [-1.0, -1.0]
        """
        self.learner.step(x, y, t, *args)

    def weights(self) -> Any:
        """The wrapped learner's ``weights()``.

        Returns
        -------
        ndarray or (ndarray, float), as :meth:`OnlineLearner.weights`

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> w = np.zeros(2)
        >>> inner = SimpleNamespace(start=lambda d: w.fill(0.0), weights=lambda: w,
        ...                         step=lambda x, y, t: np.add(w, y * x, out=w))
        >>> lr = PythonLearner(inner, intercept="none")
        >>> lr.start(2)
        >>> lr.step(np.ones(2), -1.0, 1)
        >>> lr.weights().tolist()
        [-1.0, -1.0]
        """
        return self.learner.weights()

    def average(self) -> Any:
        """The wrapped learner's ``average()`` (a learner with ``has_average``).

        Returns
        -------
        ndarray or (ndarray, float), as :meth:`OnlineLearner.weights`

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> f = lambda *args: None
        >>> inner = SimpleNamespace(start=f, step=f, weights=f, average=lambda: 1.0)
        >>> PythonLearner(inner).average()
        1.0
        """
        return self.learner.average()

    def regret_lipschitz(self, R: float) -> float | None:
        """The learner's ``regret_lipschitz(R)``, else its declared ``regret_G``.

        Parameters
        ----------
        R : float, the radius of the data

        Returns
        -------
        float or None

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> f = lambda *args: None
        >>> inner = SimpleNamespace(start=f, step=f, weights=f, regret_G=2.0)
        >>> PythonLearner(inner).regret_lipschitz(1.0)
        2.0
        """
        return _regret_G(self.learner, R)

    # ------------------------------------------------------------------ the run protocol

    def _dim(self, packed: PackedData) -> int:
        return packed.d + (self.intercept == "augmented")

    def _rows(self, packed: PackedData) -> np.ndarray:
        """The examples as the learner sees them: dense, read-only, (n, d')."""
        d1 = self._dim(packed)
        if packed.sparse:
            check_memory(
                8.0 * packed.n * d1,
                f"densifying {packed.dataset.name} for "
                f"{self.name} (a Python learner sees dense rows)",
            )
        X = packed.dataset.X
        X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
        if self.intercept == "augmented":
            X = np.hstack([X, np.full((packed.n, 1), self.intercept_scaling)])
        rows = np.ascontiguousarray(X, dtype=float)
        if rows is packed.dataset.X:
            rows = rows.view()
        rows.flags.writeable = False
        return rows

    def _setup(self, packed: PackedData) -> PythonState:
        d1 = self._dim(packed)
        with _blame(self.learner, "start()"):
            if self.has_dual:
                self.learner.start(d1, packed.n)
            else:
                self.learner.start(d1)
        state = PythonState(rows=self._rows(packed), source=packed)
        with _blame(self.learner, "weights()"):
            out = self.learner.weights()
        self._split(out, packed, "weights")  # refuse a wrong shape now
        if self._compiled is not None:
            with _blame(self.learner, "state()"):
                state.arrays = self._state_arrays(d1)
        return state

    def _state_arrays(self, d1: int) -> tuple:
        arrays = tuple(self.learner.state())
        free = self.intercept == "free"
        who = type(self.learner).__name__
        if not arrays or not all(isinstance(a, np.ndarray) for a in arrays):
            raise ParameterError(f"{who}.state() must return a tuple of numpy arrays")
        if arrays[0].shape != (d1,) or arrays[0].dtype != np.float64:
            raise ParameterError(
                f"{who}.state()[0] must be its float64 weight vector of "
                f"shape ({d1},); got {arrays[0].dtype} {arrays[0].shape}"
            )
        if free and (len(arrays) < 2 or arrays[1].shape != (1,)):
            raise ParameterError(
                f"{who}.state()[1] must be its free bias, a float64 array of shape (1,)"
            )
        return arrays

    def _advance(
        self, packed: PackedData, state: PythonState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        if state.source is not packed:  # a new batch (OnlineState)
            state.rows, state.source = self._rows(packed), packed
        if self._compiled is not None:
            self._advance_compiled(packed, state, idx, lo, hi, t0)
            return
        learner, rows, y, tot = self.learner, state.rows, packed.y, state.totals
        step, weights = learner.step, learner.weights
        free, indexed = self.intercept == "free", self.has_dual
        sq = self.loss == "squared_hinge"  # the trace sums the loss the learner declares
        mistakes, loss, sqn = float(tot[0]), float(tot[1]), float(tot[2])
        p = lo
        with _blame(learner, "step()", lambda: f" at step {t0 + p - lo + 1}"):
            for p in range(lo, hi):
                i = int(idx[p])
                x = rows[i]
                yi = float(y[i])
                out = weights()
                w, b = out if free else (out, 0.0)
                m = yi * (float(np.dot(w, x)) + b)
                if m < 1.0:
                    loss += (1.0 - m) * (1.0 - m) if sq else 1.0 - m
                if m <= 0.0:
                    mistakes += 1.0
                sqn += float(np.dot(w, w))
                if indexed:
                    step(x, yi, t0 + p - lo + 1, i)
                else:
                    step(x, yi, t0 + p - lo + 1)
        tot[0], tot[1], tot[2] = mistakes, loss, sqn

    def _advance_compiled(
        self, packed: PackedData, state: PythonState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        arrays = state.arrays
        free = self.intercept == "free"
        bias = arrays[1] if free else np.zeros(1)
        step = self._compiled if self.has_dual else _with_index(self._compiled)
        what = "compiled_step" + (" (compiling it)" if hi == lo else "")
        with _blame(
            self.learner, what, lambda: f" within steps {t0 + 1}..{t0 + hi - lo}" if hi > lo else ""
        ):
            _compiled_loop()(
                step,
                state.rows,
                packed.y,
                idx,
                lo,
                hi,
                t0,
                arrays[0],
                bias,
                free,
                arrays,
                state.totals,
                self.loss == "squared_hinge",
            )

    def _split(self, out: Any, packed: PackedData, what: str) -> tuple[np.ndarray, float]:
        """``(w, b)`` on the original features from what ``weights()`` returned."""
        d1 = self._dim(packed)
        who = f"learner {self.name!r}: {what}()"
        pair = isinstance(out, tuple) and len(out) == 2
        if self.intercept == "free" and not pair:
            raise LearnerError(
                f"{who} must return the pair (w, b) with intercept 'free' "
                f"(an unregularised bias); got {_shown(out)}"
            )
        if self.intercept != "free" and pair:
            raise LearnerError(
                f"{who} returned a pair (w, b), the form of intercept 'free'; with intercept "
                f"{self.intercept!r} return the weight vector alone (augmented: the bias is "
                "its last entry, over s)"
            )
        w, b = out if pair else (out, 0.0)
        w = _numbers(w)
        if w is None:
            raise LearnerError(f"{who} returned {_shown(out)}; it must return an array of numbers")
        if w.shape != (d1,):
            space = {"none": "x", "augmented": "z = (x, s)", "free": "x"}[self.intercept]
            raise LearnerError(
                f"{who} returned shape {w.shape}; with intercept "
                f"{self.intercept!r} it must be ({d1},), the length of {space}"
            )
        bias = _numbers(b)
        # an array of one entry: a compiled learner's bias (its state); the Python loop
        # adds the bias to floats and needs a number
        if bias is None or bias.size != 1 or (bias.ndim and self._compiled is None):
            raise LearnerError(f"{who} returned a bias that is not a number: {_shown(b)}")
        if self.intercept == "augmented":
            return w[:-1].copy(), float(self.intercept_scaling * w[-1])
        return w, float(bias.reshape(()))

    def _snapshot(self, packed: PackedData, state: PythonState, t: int) -> Snapshot:
        with _blame(self.learner, "weights()", lambda: f" at step {t}"):
            out = self.learner.weights()
            avg = self.learner.average() if self.has_average else None
            raw = self.learner.dual() if packed.record_dual and self.has_dual else None
        w, b = self._split(out, packed, "weights")
        w_avg = b_avg = None
        if self.has_average:
            w_avg, b_avg = self._split(avg, packed, "average")
        dual = None
        if raw is not None:
            dual = _numbers(raw)
            if dual is None or dual.size != packed.n:
                got = _shown(raw) if dual is None else f"shape {dual.shape}"
                raise LearnerError(
                    f"learner {self.name!r}: dual() returned {got}; it must be numbers of "
                    f"shape (n,) = ({packed.n},)"
                )
            dual = dual.reshape(-1)
        return Snapshot(w, b, w_avg=w_avg, b_avg=b_avg, dual=dual)


def _numbers(value: Any) -> np.ndarray | None:
    """``value`` as a new float array; None when it is not numbers (not parsing ``"1"``)."""
    try:
        kind = np.asarray(value).dtype.kind
        return np.array(value, dtype=float) if kind in "biuf" else None
    except Exception:  # a ragged list, an object whose __array__ raises ...
        return None


def _shown(value: Any) -> str:
    """``value``'s type and a short repr, for a message about what a learner returned."""
    import reprlib

    return f"{type(value).__name__} {reprlib.repr(value)}"


def as_learner(
    obj: Any, *, intercept: str | None = None, intercept_scaling: float = 1.0
) -> OnlineLearner:
    """``obj`` as a learner :func:`~maxmargin.online.run` can drive: a built-in, or wrapped.

    A wrapped object's ``intercept`` defaults to its own ``intercept`` attribute.

    Examples
    --------
    >>> from maxmargin.online import Perceptron
    >>> p = Perceptron()
    >>> as_learner(p) is p
    True
    """
    if isinstance(obj, OnlineLearner):
        return obj
    if isinstance(obj, type) or not is_learner(obj):
        what = (
            f"the class {obj.__name__} (give an instance)"
            if isinstance(obj, type)
            else type(obj).__name__
        )
        raise ParameterError(
            f"a learner must be an OnlineLearner or an object with start(d), step(x, y, t) "
            f"and weights() (docs/own-learner.md); got {what}"
        )
    if intercept is None:
        own = getattr(obj, "intercept", None)
        intercept = own if isinstance(own, str) else None  # None: the adapter's default
    return PythonLearner(obj, intercept=intercept, intercept_scaling=intercept_scaling)


@functools.lru_cache(maxsize=1)
def _compiled_loop() -> Any:
    """The compiled loop driving ``compiled_step(x, y, t, i, *arrays)`` (numba on first use)."""
    njit = require("numba", "a learner's compiled_step").njit

    @njit
    def loop(  # type: ignore[no-untyped-def]
        step,
        rows,
        y,
        idx,
        lo,
        hi,
        t0,
        w,
        bias,
        free,
        arrays,
        tot,
        sq,
    ):  # pragma: no cover - compiled
        mistakes, loss, sqn = tot[0], tot[1], tot[2]
        for p in range(lo, hi):
            i = idx[p]
            x = rows[i]
            yi = y[i]
            f = bias[0] if free else 0.0
            nw = 0.0
            for j in range(w.shape[0]):
                f += w[j] * x[j]
                nw += w[j] * w[j]
            m = yi * f
            if m < 1.0:
                loss += (1.0 - m) * (1.0 - m) if sq else 1.0 - m
            if m <= 0.0:
                mistakes += 1.0
            sqn += nw
            step(x, yi, t0 + p - lo + 1, i, *arrays)
        tot[0], tot[1], tot[2] = mistakes, loss, sqn

    return loop


@functools.lru_cache(maxsize=64)
def _with_index(step: Any) -> Any:
    """``step(x, y, t, *arrays)`` as ``(x, y, t, i, *arrays)``, compiled (once per step)."""
    njit = require("numba", "a learner's compiled_step").njit

    @njit
    def indexed(x, y, t, i, *arrays):  # type: ignore[no-untyped-def]  # pragma: no cover
        step(x, y, t, *arrays)

    return indexed
