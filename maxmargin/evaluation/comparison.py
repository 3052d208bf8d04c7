r"""Online learners measured against the certified exact optimum (:func:`compare`).

The optimum is solved once (the hard margin too when the data are separable), re-certified
from the data, and every learner x order x seed run is scored against it in the learners'
space (:math:`z_i = (x_i, s)` with an intercept). The quantities, and why: see
``docs/compare.md``.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .. import io
from .._progress import Progress
from .._validation import (
    WIDE_HINT,
    check_count,
    check_int,
    check_memory,
)
from ..conventions import DEFAULT_INTERCEPT, sklearn_names
from ..data import Dataset, make_separable
from ..exceptions import DataError, ParameterError
from ..io.schema import series_fields
from ..online import LEARNERS, ORDERS, OnlineLearner, run
from ..online.learner import Declared, is_learner
from ..online.registry import resolve
from ..online.runner import CHECKPOINT_OVERHEAD, _geometric_count, check_steps
from ..problem import SVMProblem
from ..separation import SeparationCertificate
from ..solution import ExactSolution
from ..trace import Trace
from .reference import Reference, _problem_of, _references, problem_for
from .scoring import RunResult, _check_trace, _declared_of, _evaluate, _summary_row

__all__ = ["compare", "Comparison", "demo_comparison"]


#: The per-checkpoint quantities of a run (the long table's columns after ``t``).
_SERIES = tuple(k for k in series_fields(RunResult) if k != "t")

#: The columns that say which run a row of the long table is (before ``t``).
_IDENTITY = ("label", "learner", "order", "seed", "intercept", "kind")


def _series_keys(cmp: Comparison) -> list[str]:
    """The per-checkpoint quantities some run has, in the order they first appear."""
    keys: dict[str, None] = {}
    for r in cmp.runs:
        keys.update(dict.fromkeys(k for k in _SERIES if getattr(r, k) is not None))
    return list(keys)


def _checkpoint_columns(cmp: Comparison) -> list[io.Column]:
    return [io.Column(k, k) for k in (*_IDENTITY, "t", *_series_keys(cmp))]


def _checkpoint_rows(cmp: Comparison) -> Iterator[dict[str, Any]]:
    """One row per run and checkpoint; a quantity that does not apply is None (empty)."""
    keys = _series_keys(cmp)
    for r in cmp.runs:
        ident = {k: getattr(r, k) for k in _IDENTITY}
        series = {k: getattr(r, k) for k in keys}
        for i, t in enumerate(r.t):
            yield {**ident, "t": t, **{k: None if v is None else v[i] for k, v in series.items()}}


def _first(name: str, doc: str) -> Any:
    """A property read from ``references[0]``."""
    return property(lambda self: getattr(self.references[0], name), doc=doc)


@dataclass(frozen=True, eq=False, kw_only=True)
class Comparison(io.Persistent):
    r"""Online learners measured against the certified optimum (what :func:`compare` returns).

    Its file holds every number but neither the data nor the traces;
    ``from_json(file, data)`` re-certifies every reference (``docs/formats.md``).

    Attributes
    ----------
    references : tuple of Reference
        One certified optimum per intercept mode of the runs, the requested mode first
        (:attr:`problem`, :attr:`F_star`, :attr:`R`, ... are read from it).
    runs : tuple of RunResult
        One per learner x order x seed, then one per trace given.
    holdout : Dataset or None
        None when read from a file (``holdout_name`` says which it was).
    holdout_name : str or None
    epochs : int
    orders, seeds : tuple
    timings : dict
        ``solve_seconds``, ``learn_seconds``, ``eval_seconds``, ``total_seconds``.

    Examples
    --------
    >>> import io
    >>> from maxmargin import make_separable
    >>> data = make_separable(30, 2, seed=0)
    >>> cmp = compare(data, learners=["perceptron", "pegasos"], lam=0.1, seeds=(0, 1))
    >>> len(cmp.runs), len(cmp.rows), cmp.w_star.shape, cmp.separable
    (4, 2, (2,), True)
    >>> saved = Comparison.from_json(io.StringIO(cmp.to_json()))
    >>> saved.runs[0].trace is None, saved.to_json() == cmp.to_json()
    (True, True)
    >>> Comparison.from_json(io.StringIO(cmp.to_json()), data).reference.certificate.ok
    True
    """

    FORMAT: ClassVar[str] = "comparison"
    COMPUTED: ClassVar[tuple[str, ...]] = ("summary",)
    CSV: ClassVar[io.Table] = io.Table(_checkpoint_rows, _checkpoint_columns)

    references: tuple = io.persist(io.Nested(Reference, many=True))
    runs: tuple = io.persist(io.Nested(RunResult, many=True))
    holdout: Dataset | None = io.transient()
    holdout_name: str | None = io.persist(key="holdout", default=None)
    epochs: int = 1
    orders: tuple = ("shuffle",)
    seeds: tuple = (0,)
    timings: dict[str, float] = field(default_factory=dict)

    problem = _first("problem", "The soft-margin problem of ``references[0]``.")
    reference = _first("solution", "Its certified optimum.")
    hard_solution = _first(
        "hard_solution", "The certified hard-margin optimum (separable data), else None."
    )
    F_star = _first("F_star", r":math:`F^* = \lambda P(\tilde w^*)` (lambda form).")
    R = _first("R", r":math:`\max_i \|z_i\|` in the learners' space.")
    gamma = _first("gamma", r":math:`\gamma^*` (nan when not separable).")
    w_star = _first("w_star", r":math:`\tilde w^*` in the learners' space.")
    separable = _first("separable", "Whether the data are separable.")
    novikoff = _first("novikoff", r":math:`(R/\gamma^*)^2`, nan when not separable.")

    def reference_of(self, run: RunResult) -> Reference:
        """The reference ``run`` is scored against: the one of its intercept mode.

        Parameters
        ----------
        run : RunResult
            One of :attr:`runs`.

        Returns
        -------
        Reference

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> data = Dataset([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]], [1, -1, 1, -1])
        >>> cmp = compare(data, learners=["pegasos", "winnow"], lam=0.1)  # winnow: none only
        >>> [cmp.reference_of(r).intercept for r in cmp.runs]
        ['free', 'none']
        """
        return next(ref for ref in self.references if ref.intercept == run.intercept)

    @functools.cached_property
    def rows(self) -> tuple[dict[str, Any], ...]:
        """One summary row per learner (or trace) x order: final values over the seeds."""
        keys = list(dict.fromkeys((r.label, r.order) for r in self.runs))
        groups = [[r for r in self.runs if (r.label, r.order) == key] for key in keys]
        return tuple(
            {
                **_summary_row(runs),
                "intercept": runs[0].intercept,
                "scored_against": self.reference_of(runs[0]).scored_against,
            }
            for runs in groups
        )

    @property
    def summary(self) -> list[dict[str, Any]]:
        """:attr:`rows` as written in the file (``jq .summary``), never read back."""
        return [dict(row) for row in self.rows]

    def with_data(self, data: Dataset, *, holdout: Dataset | None = None) -> Comparison:
        """The comparison on ``data``: each of its references re-certified with numpy.

        Parameters
        ----------
        data : Dataset
            The data the comparison ran on.
        holdout : Dataset, optional
            Its holdout (for :attr:`holdout`).

        Returns
        -------
        Comparison

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> data = make_separable(30, 2, seed=0)
        >>> saved = compare(data, learners=["pegasos"], lam=0.1).without_data()
        >>> saved.problem.data  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        maxmargin.exceptions.DataError: ... without its data ...
        >>> saved.with_data(data).reference.certificate.ok
        True
        """
        _check_holdout(holdout, data)
        return dataclasses.replace(
            self, references=tuple(r.with_data(data) for r in self.references), holdout=holdout
        )

    def select(
        self, label: str | None = None, order: str | None = None, seed: int | None = None
    ) -> list[RunResult]:
        """The runs matching the given label / order / seed (None matches any).

        Parameters
        ----------
        label, order : str, optional
        seed : int, optional

        Returns
        -------
        list of RunResult
            In the order of :attr:`runs`.

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1,
        ...               seeds=(0, 1))
        >>> [r.seed for r in cmp.select(label="pegasos", seed=1)]
        [1]
        """
        return [
            r
            for r in self.runs
            if (label is None or r.label == label)
            and (order is None or r.order == order)
            and (seed is None or r.seed == seed)
        ]

    @property
    def labels(self) -> list[str]:
        """The learners' labels, in the order given."""
        return list(dict.fromkeys(r.label for r in self.runs))

    def __repr__(self) -> str:
        return (
            f"Comparison({self.problem!r}, F*={self.F_star:.6g}, "
            f"learners={self.labels}, runs={len(self.runs)})"
        )


def _check_seq(name: str, value: Any) -> tuple:
    if isinstance(value, (str, int, np.integer)):
        value = (value,)
    try:
        out = tuple(value)
    except TypeError:
        raise ParameterError(f"{name} must be a sequence, got {value!r}") from None
    if not out:
        raise ParameterError(f"{name} is empty; give at least one")
    return out


def _labels() -> Any:
    """A labeller: the name, then ``name-2``, ``name-3`` for repeats."""
    seen: dict[str, int] = {}

    def label(name: str) -> str:
        seen[name] = seen.get(name, 0) + 1
        return name if seen[name] == 1 else f"{name}-{seen[name]}"

    return label


def _build_learners(
    learners: Any, problem: SVMProblem, label: Any
) -> list[tuple[str, OnlineLearner]]:
    """The learners to run, each built by :func:`~maxmargin.online.resolve`, labelled."""
    one = isinstance(learners, (str, type, OnlineLearner)) or is_learner(learners)
    out: list[tuple[str, OnlineLearner]] = []
    for item in _listed(
        learners, one, "learners must be a sequence of learners (names, classes or objects)"
    ):
        learner = resolve(item, problem)
        _check_learner(learner, problem)
        out.append((label(learner.name), learner))
    return out


def _listed(value: Any, one: bool, message: str) -> list:
    """``value`` as a list (``[value]`` when ``one``, ``[]`` for None); else ``message``."""
    if value is None or one:
        return [] if value is None else [value]
    try:
        return list(value)
    except TypeError:
        raise ParameterError(f"{message}, got {type(value).__name__}") from None


def _check_learner(learner: OnlineLearner, problem: SVMProblem) -> None:
    """Refuse a learner without weights, or whose bias feature is not the problem's ``s``."""
    if not learner.has_weights:
        raise ParameterError(
            f"{learner!r} has no weight vector to measure against the linear optimum (a "
            "non-linear kernel): score it against the kernel SVM with "
            "maxmargin.evaluation.kernel_scoring.compare_kernel, or use kernel='linear'"
        )
    s = problem.intercept_scaling
    if learner.intercept != "none" and learner.intercept_scaling != s:
        raise ParameterError(
            f"{learner!r} has intercept_scaling={learner.intercept_scaling:g} but the problem "
            f"has intercept_scaling={s:g}; the learner must see the same bias feature: build "
            "it with the problem's intercept_scaling"
        )


@sklearn_names(random_state="seeds", alpha="lam", max_iter="epochs")
def compare(
    data: Dataset,
    problem: SVMProblem | None = None,
    learners: Any = None,
    *,
    C: float | None = None,
    lam: float | None = None,
    intercept: str = DEFAULT_INTERCEPT,
    intercept_scaling: float = 1.0,
    loss: str | None = None,
    epochs: int = 10,
    orders: Sequence[str] | str = ("shuffle",),
    seeds: Sequence[int] | int = (0,),
    holdout: Dataset | None = None,
    checkpoints: Any = None,
    reference: ExactSolution | None = None,
    solver: str | None = None,
    progress: bool = False,
    hard_reference: ExactSolution | SeparationCertificate | None = None,
    traces: Any = None,
) -> Comparison:
    r"""Run online learners and measure them against the certified exact optimum.

    Parameters
    ----------
    data : Dataset
        The training data.
    problem : SVMProblem, optional
        A soft-margin problem on ``data``, any intercept; or give ``C`` / ``lam``.
    learners : sequence, optional
        Names, ``module:Class`` targets, classes, learner objects or ``(target, params)``
        pairs, each built by :func:`maxmargin.online.resolve` (``docs/compare.md``). One
        that cannot take the problem's intercept is scored against the problem of its own.
    C, lam : float, optional
        The soft-margin parameter, one of them (when ``problem`` is not given).
    intercept : {"free", "none", "augmented"}, default "free"
        Intercept mode of the problem built from ``C`` / ``lam``.
    intercept_scaling : float
        ``s`` of the bias feature the learners see (``augmented``, ``free``).
    loss : {"hinge", "squared_hinge"}, optional
        The loss of the problem built from ``C`` / ``lam`` (default the hinge).
    epochs : int
    orders : sequence of {"cyclic", "shuffle", "sample"}
    seeds : sequence of int
    holdout : Dataset, optional
        Held-out data (same ``d``) for the test error.
    checkpoints : sequence of int, optional
        Passed to :func:`maxmargin.online.run` (default geometric + epoch ends).
    reference : ExactSolution, optional
        A precomputed optimum of ``problem`` (re-certified here, never trusted).
    solver : str, optional
        QP solver for the exact solves.
    progress : bool
        A progress bar on a terminal.
    hard_reference : ExactSolution or SeparationCertificate, optional
        The hard-margin optimum, or a certificate of non-separability (re-checked here).
    traces : sequence of Trace, optional
        Trajectories recorded elsewhere, scored as :func:`score_trace` scores them.
    random_state : int >= 0, numpy RandomState or Generator, optional
        scikit-learn's name for one seed: ``random_state=s`` is ``seeds=(s,)``.
    alpha : float > 0, optional
        scikit-learn's name for ``lam``.
    max_iter : int >= 1, optional
        scikit-learn's name for ``epochs``.

    Returns
    -------
    Comparison

    Raises
    ------
    ParameterError
        A bad parameter, learner or trace (see ``docs/bad-input.md``).
    DataError
        A holdout or trace whose ``d`` differs.
    CertificateError
        The optimum's certificate fails.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> cmp = compare(make_separable(40, 2, seed=0), learners=["perceptron", "pegasos"],
    ...               lam=0.05, intercept="none", epochs=3)
    >>> [row["label"] for row in cmp.rows]
    ['perceptron', 'pegasos']
    >>> bool(cmp.rows[0]["novikoff_respected"]), cmp.rows[0]["subopt"] is None
    (True, True)
    """
    tic_all = time.perf_counter()
    problem = _problem_of(data, problem, C, lam, intercept, intercept_scaling, loss)
    label = _labels()
    built = _build_learners(learners, problem, label)
    given = _given_traces(traces, problem, label)
    if not built and not given:
        empty = (
            "the learners list is empty and no traces were given"
            if learners is not None
            else "no learners and no traces"
        )
        raise ParameterError(
            f"{empty}: give learners (names such as "
            f"{', '.join(list(LEARNERS)[:3])}, module:Class, classes or "
            "learner objects) or traces (Trace objects), or both"
        )
    orders = _check_orders(orders)
    epochs = check_int("epochs", epochs, minimum=1)
    seeds = _check_seeds(seeds, built, orders, data, epochs, checkpoints)
    n_runs = len(built) * len(orders) * len(seeds)
    gave = "lam" if lam is not None else "C" if C is not None else None
    for _, learner in built:
        _check_steps(learner, problem, data.n, epochs, gave)
    _check_holdout(holdout, data)

    modes = [lr.intercept for _, lr in built] + [tr.intercept for _, _, tr in given]
    modes = sorted(dict.fromkeys(modes), key=lambda m: m != problem.intercept)
    if problem.intercept not in modes and (reference is not None or hard_reference is not None):
        raise ParameterError(
            f"reference= and hard_reference= are of the problem with intercept="
            f"{problem.intercept!r}, but no learner or trace runs with it (they run with "
            f"{' and '.join(modes)}): leave them out, or give that problem's learners"
        )

    tic = time.perf_counter()
    refs = _references(problem, modes, reference, hard_reference, solver, holdout)
    solve_s = time.perf_counter() - tic

    runs: list[RunResult] = []
    kw: dict[str, Any] = dict(epochs=epochs, checkpoints=checkpoints, record_dual=True)
    with Progress(n_runs * data.n * epochs, "compare", enabled=progress) as bar:
        for (name, learner), order, seed in itertools.product(built, orders, seeds):
            tr = run(learner, data, order=order, seed=seed, sample_weight=problem.weights, **kw)
            runs.append(_evaluate(name, learner, tr, refs[learner.intercept][1]))
            bar.update(data.n * epochs)
    runs += [_evaluate(name, decl, tr, refs[tr.intercept][1]) for name, decl, tr in given]
    timings = {
        "solve_seconds": solve_s,
        "learn_seconds": float(
            sum(r.learn_seconds for r in runs if math.isfinite(r.learn_seconds))
        ),
        "eval_seconds": float(sum(r.eval_seconds for r in runs)),
        "total_seconds": time.perf_counter() - tic_all,
    }
    return Comparison(
        references=tuple(ref for ref, _ in refs.values()),
        runs=tuple(runs),
        holdout=holdout,
        holdout_name=None if holdout is None else holdout.name,
        epochs=int(epochs),
        orders=orders,
        seeds=seeds,
        timings=timings,
    )


def _given_traces(
    traces: Any, problem: SVMProblem, label: Any
) -> list[tuple[str, Declared, Trace]]:
    """The traces to score, checked, with their labels and declarations."""
    out = []
    one = isinstance(traces, Trace)
    for tr in _listed(traces, one, "traces must be a sequence of Trace objects"):
        decl = _declared_of(tr) if isinstance(tr, Trace) else Declared()
        own = problem_for(problem, tr.intercept) if isinstance(tr, Trace) else problem
        _check_trace(tr, own, decl)
        out.append((label(tr.learner), decl, tr))
    return out


def _check_orders(orders: Any) -> tuple:
    orders = _check_seq("orders", orders)
    for o in orders:
        if o not in ORDERS:
            raise ParameterError(f"unknown order {o!r}; choose from {', '.join(ORDERS)}")
    return orders


#: Bytes a seed takes in the comparison's tuple of seeds (a Python int and its slot).
_SEED_BYTES = 40.0


def _check_seeds(
    seeds: Any, built: list, orders: tuple, data: Dataset, epochs: int, checkpoints: Any
) -> tuple[int, ...]:
    """The seeds, checked; refused before they are listed when the runs' traces cannot fit."""
    per_seed = len(built) * len(orders)  # runs
    T = data.n * epochs
    if checkpoints is None:
        k = _geometric_count(T) + epochs
    else:
        try:
            k = len(np.atleast_1d(checkpoints)) + 1
        except (TypeError, ValueError):
            k = 2  # run() says what is wrong with them
    each = 8.0 * (2 * (data.d + 1) + 3 * data.n) + CHECKPOINT_OVERHEAD  # per checkpoint

    def check(k: int, runs: int) -> None:  # the data's width is the question
        check_memory(
            each * k * runs,
            f"comparing {runs} runs on {data.name} (d = {data.d:,} features)",
            WIDE_HINT,
        )

    check(_geometric_count(T) + 1, per_seed)  # one seed, a checkpoint at one epoch's end
    if checkpoints is None and per_seed:  # a checkpoint at each epoch's end of each run
        check_count(
            "epochs",
            epochs,
            each * per_seed,
            "epochs",
            detail=f"a checkpoint at each epoch's end of {per_seed} run(s) per seed",
            base=each * per_seed * _geometric_count(T),
        )
    if isinstance(seeds, range):  # count it before listing it (the command's 0..K-1)
        # len() stops at sys.maxsize (an OverflowError): count it exactly
        step = seeds.step
        n_seeds = max(0, (seeds.stop - seeds.start + step - (1 if step > 0 else -1)) // step)
        if n_seeds and min(seeds.start, seeds.start + (n_seeds - 1) * step) < 0:
            raise ParameterError(f"seeds must be ints >= 0, got {seeds!r}")
    else:
        seeds = _check_seq("seeds", seeds)
        n_seeds = len(seeds)
    if n_seeds == 0:
        raise ParameterError("seeds is empty; give at least one")
    check_count(  # a seed is kept in a tuple even when no learner runs (traces only)
        "seeds",
        n_seeds,
        each * k * per_seed + _SEED_BYTES,
        "seeds",
        detail=f"{per_seed} run(s) per seed of {k:,} checkpoints, every trace kept",
    )
    check(k, per_seed * n_seeds)
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ParameterError(f"seeds must be ints >= 0, got {s!r}")
    return tuple(int(s) for s in seeds)


def _check_steps(
    learner: OnlineLearner, problem: SVMProblem, n: int, epochs: int, given: str | None
) -> None:
    """:func:`~maxmargin.online.runner.check_steps`, naming the parameter ``given``."""
    try:
        check_steps(learner, n, epochs)
    except ParameterError as e:
        if given == "lam" or "'lam'" not in str(e):
            raise
        c_min = (n * epochs + 1.0) / 2.0**1023 / n
        head = (
            "The 'C' parameter is too small"
            if given == "C"
            else f"The problem's C = {problem.C!r} is too small"
        )
        raise ParameterError(
            f"{head} for {n * epochs:,} steps of {learner.name}: its lam = 1/(C n) = "
            f"{problem.lam:.3g}, and lam * t must stay below 2**1023 (9e307) for every "
            f"step t; C >= {c_min:.3g} here. Got C = {problem.C!r}."
        ) from None


def _check_holdout(holdout: Any, data: Dataset) -> None:
    if holdout is None:
        return
    if not isinstance(holdout, Dataset):
        raise ParameterError(f"holdout must be a maxmargin.Dataset, got {type(holdout).__name__}")
    if holdout.d != data.d:
        raise DataError(
            f"holdout {holdout.name} has d = {holdout.d} features but the "
            f"training data {data.name} has d = {data.d}; they must match"
        )


def demo_comparison(progress: bool = False) -> Comparison:
    """The built-in demo: generated 2-D data, soft margin, five learners, three seeds.

    Separable data (Novikoff applies) with ``C = 0.5`` (soft and hard optima differ).

    Parameters
    ----------
    progress : bool, default False
        Show a progress bar per run (on stderr).

    Returns
    -------
    Comparison
        15 runs (5 learners x 1 order x 3 seeds) against the certified optimum.

    Examples
    --------
    >>> cmp = demo_comparison()
    >>> len(cmp.runs), cmp.separable
    (15, True)

    ``write_report(cmp, "maxmargin-demo")`` writes the report, its JSON and figures.
    """
    full = make_separable(600, 2, margin=0.15, seed=7, offset=0.4)
    train = full.subset(np.arange(300), name="demo: separable 2-D (n=300)")
    test = full.subset(np.arange(300, 600), name="demo holdout (n=300)")
    return compare(
        train,
        learners=["perceptron", "averaged_perceptron", "pegasos", "subgradient", "pa1"],
        C=0.5,
        intercept="augmented",
        epochs=30,
        orders=("shuffle",),
        seeds=(0, 1, 2),
        holdout=test,
        progress=progress,
    )
