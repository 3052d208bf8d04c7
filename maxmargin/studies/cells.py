"""The study's units of work, their content-addressed keys, and the functions workers run.

Per data set and intercept mode, :func:`separability_task`; per grid value too,
:func:`reference_task` (the certified optimum); per cell (data set x grid value x learner x
seed x order), :func:`cell_task`: one :func:`maxmargin.compare` run against the shared
reference. Every key is a SHA-256 of everything its result depends on (``docs/study.md``).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import socket
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..evaluation.scoring import RunResult
from ..io.json import FORMATS
from ..io.schema import series_fields
from .spec import DataSpec, SpecError, StudySpec
from .store import Reference, Separability, data_digest, read_ref

__all__ = [
    "Plan",
    "DataItem",
    "RefJob",
    "CellJob",
    "make_plan",
    "separability_task",
    "reference_task",
    "cell_task",
    "versions",
]

#: The cell files' format version: bumped in ``io.json.FORMATS``, every cell reruns.
CELL_FORMAT = FORMATS["study_cell"][0]

#: Per-checkpoint arrays of a :class:`maxmargin.RunResult`, as table columns (those the
#: table had before the best-scale bounds and the timings came).
ARRAYS = tuple(
    k
    for k in series_fields(RunResult)
    if k not in ("general_bound_best", "general_scale", "mistake_rounds_bound", "seconds")
)

#: Per-run scalars of a :class:`maxmargin.RunResult`.
RUN_SCALARS = tuple(
    "kind learner_name learner_class learner_params intercept regret_G novikoff rate rate_avg "
    "theory_slope novikoff_respected general_respected regret_respected learn_seconds "
    "eval_seconds".split()
)

#: The certified reference of the cell, from :class:`maxmargin.Comparison`.
REF_SCALARS = tuple(
    "n d C lam F_star P_star ref_duality_gap ref_relative_gap ref_certified ref_solver "
    "n_support R gamma separable solve_seconds".split()
)


def versions() -> dict[str, str]:
    """Versions of the code a result was computed with.

    Examples
    --------
    >>> sorted(versions())
    ['maxmargin', 'numba', 'numpy', 'python']
    """
    import platform

    from .._deps import require
    from .._version import __version__

    numba = require("numba", "a study (its learners)")

    return {
        "maxmargin": __version__,
        "numpy": np.__version__,
        "numba": numba.__version__,
        "python": platform.python_version(),
    }


def _digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, eq=False)
class DataItem:
    """A loaded data set of the study, with the key of its separability task."""

    spec: DataSpec
    train: Any
    holdout: Any
    digest: str
    sep_key: str
    checkpoints: tuple


@dataclass(frozen=True)
class RefJob:
    """One exact solve: data set x intercept mode x grid value."""

    key: str
    sep_key: str
    data: str
    value: float
    intercept: str


@dataclass(frozen=True)
class CellJob:
    """One cell: data set x grid value x learner x seed x order (what a worker needs)."""

    key: str
    ref_key: str
    data: str
    value: float
    learner: str
    target: str
    params: dict
    seed: int
    order: str
    epochs: int
    checkpoints: tuple
    solver: str | None


@dataclass(frozen=True, eq=False)
class Plan:
    """Every task of a study, in a fixed order (data, grid value, learner, seed, order)."""

    spec: StudySpec
    data: dict
    refs: dict
    cells: tuple


def _load_one(ds: DataSpec) -> tuple[Any, Any]:
    from .. import data as mmdata
    from ..exceptions import MaxMarginError

    where = f"{ds.key}.{'generator' if ds.generator else 'source'}"
    try:
        if ds.generator:  # one of spec.GENERATORS: data.make_separable, make_gaussians
            data = getattr(mmdata, f"make_{ds.generator}")(**ds.params)
        else:
            data = mmdata.load(str(ds.source), label=ds.label_column)
    except (MaxMarginError, TypeError, ValueError, OSError) as e:
        raise SpecError(f"{where}: {e}") from None
    holdout, where = None, f"{ds.key}.holdout"
    try:
        if isinstance(ds.holdout, float):
            data, holdout = data.split(ds.holdout, seed=ds.split_seed)
        elif isinstance(ds.holdout, str):
            holdout = mmdata.load(ds.holdout, label=ds.label_column)
    except (MaxMarginError, ValueError, OSError) as e:
        raise SpecError(f"{where}: {e}") from None
    if holdout is not None and holdout.d != data.d:
        raise SpecError(
            f"{ds.key}.holdout: it has d = {holdout.d} features but the data have "
            f"d = {data.d}; they must match"
        )
    return data, holdout


def _checkpoints(spec: StudySpec, ds: DataSpec, n: int) -> tuple:
    from ..online import default_checkpoints

    T = n * spec.epochs
    if isinstance(spec.checkpoints, int):
        return tuple(int(t) for t in default_checkpoints(n, spec.epochs, spec.checkpoints))
    if spec.checkpoints[-1] > T:
        raise SpecError(
            f"{spec.source}: run.checkpoints: step {spec.checkpoints[-1]} is past "
            f"the last step epochs * n = {spec.epochs} * {n} = {T} of {ds.label} "
            f"({ds.key})"
        )
    return tuple(sorted(set(spec.checkpoints) | {T}))


def _check_learners(spec: StudySpec, item: DataItem) -> dict[str, str]:
    """Each learner's intercept mode (by label), every learner built to refuse it early."""
    from ..exceptions import MaxMarginError
    from ..online.registry import objective_parameter, resolve
    from ..problem import SVMProblem

    modes: dict[str, str] = {}
    for value in spec.grid:
        problem = SVMProblem(
            item.train,
            intercept=spec.intercept,
            intercept_scaling=spec.intercept_scaling,
            **{spec.grid_parameter: value},
        )
        for lr in spec.learners:
            try:
                learner = resolve(lr.target, problem, **lr.params)
            except MaxMarginError as e:
                raise SpecError(f"{spec.source}: {lr.key}: {e}") from None
            modes[lr.label] = learner.intercept  # its cells: the problem of its intercept
            declared = objective_parameter(learner)
            if declared is not None and not np.isclose(
                declared[1], getattr(problem, declared[0]), rtol=1e-9, atol=0
            ):
                name = declared[0]
                raise SpecError(
                    f"{spec.source}: {lr.key}.params.{name}: the learner must "
                    f"minimise the study's objective, {name} is set by "
                    "[problem]; remove it here"
                )
            if not learner.has_weights:
                raise SpecError(
                    f"{spec.source}: {lr.key}.params.kernel: only linear "
                    "learners have a weight vector to measure"
                )
    return modes


def make_plan(spec: StudySpec) -> Plan:
    """Load every data set and list every task of ``spec``; check all that can fail early.

    Examples
    --------
    >>> from maxmargin.studies import load_spec
    >>> spec = load_spec({"problem": {"C": [0.1, 1.0]}, "run": {"seeds": 2, "epochs": 2},
    ...                   "data": [{"source": "builtin:separable"}],
    ...                   "learners": ["perceptron", "pegasos"]})
    >>> plan = make_plan(spec)
    >>> len(plan.data), len(plan.refs), len(plan.cells)
    (1, 2, 8)
    """
    from .._version import __version__
    from ..online.registry import digest as learner_digest

    code = f"maxmargin {__version__}; study cell format {CELL_FORMAT}"

    def sep_key(digest: str, intercept: str) -> str:
        return _digest(
            {
                "code": code,
                "data": digest,
                "intercept": intercept,
                "intercept_scaling": spec.intercept_scaling,
                "solver": spec.solver,
            }
        )

    data: dict[str, DataItem] = {}
    modes: dict[str, dict[str, str]] = {}
    for ds in spec.data:
        train, holdout = _load_one(ds)
        digest = data_digest(train, holdout)
        data[ds.label] = DataItem(
            ds,
            train,
            holdout,
            digest,
            sep_key(digest, spec.intercept),
            _checkpoints(spec, ds, train.n),
        )
        modes[ds.label] = _check_learners(spec, data[ds.label])
    digests = {lr.label: learner_digest(lr.target) for lr in spec.learners}
    refs: dict[str, RefJob] = {}
    cells: list[CellJob] = []
    for label, item in data.items():
        for value in spec.grid:
            ref_of: dict[str, str] = {}  # intercept mode -> the key of its reference
            for mode in dict.fromkeys(modes[label].values()):
                sk = sep_key(item.digest, mode)
                ref_of[mode] = _digest({"sep": sk, spec.grid_parameter: value})
                refs[ref_of[mode]] = RefJob(ref_of[mode], sk, label, value, mode)
            job = functools.partial(
                CellJob, epochs=spec.epochs, checkpoints=item.checkpoints, solver=spec.solver
            )
            for lr, seed, order in itertools.product(spec.learners, spec.seeds, spec.orders):
                ref_key = ref_of[modes[label][lr.label]]
                key = _digest(
                    {
                        "ref": ref_key,
                        "learner": lr.target,
                        "params": lr.params,
                        "code": digests[lr.label],
                        "seed": seed,
                        "order": order,
                        "epochs": spec.epochs,
                        "checkpoints": list(item.checkpoints),
                    }
                )
                cells.append(
                    job(key, ref_key, label, value, lr.label, lr.target, lr.params, seed, order)
                )
    return Plan(spec, data, refs, tuple(cells))


def separability_task(
    data: Any, holdout: Any, intercept: str, intercept_scaling: float, solver: str | None
) -> Separability:
    """Decide separability of ``data`` once: the LP, then the hard margin if separable.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> s = separability_task(make_separable(20, seed=0), None, "augmented", 1.0, None)
    >>> s.hard.problem.hard, s.hard.problem.data is s.data
    (True, True)
    """
    from ..exact import solve
    from ..problem import SVMProblem
    from ..separation import separation_certificate

    tic = time.perf_counter()
    cert = separation_certificate(data, intercept)
    if cert is None:
        hard: Any = solve(
            SVMProblem(data, hard=True, intercept=intercept, intercept_scaling=intercept_scaling),
            solver=solver,
        )
    else:
        hard = cert if cert.verified else None
    return Separability(data, holdout, hard, time.perf_counter() - tic)


def reference_task(
    sep: Separability,
    grid_parameter: str,
    value: float,
    intercept: str,
    intercept_scaling: float,
    solver: str | None,
) -> Reference:
    """Solve the soft-margin problem of ``sep.data`` at one grid value (certified).

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> s = separability_task(make_separable(20, seed=0), None, "none", 1.0, None)
    >>> r = reference_task(s, "C", 1.0, "none", 1.0, None)
    >>> r.soft.certificate.ok, r.soft.problem.data is r.hard.problem.data
    (True, True)
    """
    from ..exact import solve
    from ..problem import SVMProblem

    tic = time.perf_counter()
    by_grid: dict[str, Any] = {grid_parameter: value}
    problem = SVMProblem(
        sep.data, intercept=intercept, intercept_scaling=intercept_scaling, **by_grid
    )
    soft = solve(problem, solver=solver)
    return Reference(soft, sep.hard, sep.holdout, time.perf_counter() - tic)


def given(obj: Any) -> Any:
    """Return ``obj``: a task whose argument is a value the driver already has.

    Examples
    --------
    >>> given(3)
    3
    """
    return obj


#: References loaded by this worker process (the local route passes file paths).
_LOADED: OrderedDict[str, Reference] = OrderedDict()


def _reference(ref: Reference | str) -> Reference:
    if not isinstance(ref, str):
        return ref
    if ref not in _LOADED:
        loaded = read_ref(Path(ref), Path(ref).stem)
        if not isinstance(loaded, Reference):
            raise RuntimeError(f"the cached reference {ref} does not read")
        _LOADED[ref] = loaded
        while len(_LOADED) > 4:
            _LOADED.popitem(last=False)
    _LOADED.move_to_end(ref)
    return _LOADED[ref]


def _array(v: Any) -> list | None:
    return None if v is None else np.asarray(v).tolist()


def _class_name(learner: Any) -> str:
    """The learner's class (a protocol learner's own, not its adapter's)."""
    cls = type(getattr(learner, "learner", learner))
    return f"{cls.__module__}.{cls.__qualname__}"


def _run_columns(cmp: Any, learner: Any, ref: Reference) -> tuple[dict, dict]:
    r, sol, p = cmp.runs[0], cmp.reference, cmp.problem
    own = {
        "learner_name": learner.name,
        "learner_class": _class_name(learner),
        "learner_params": json.dumps(learner.get_params(), sort_keys=True, default=str),
        "intercept": str(r.intercept),
        "n": int(p.n),
        "d": int(p.d),
        "C": float(p.C),
        "lam": float(p.lam),
        "P_star": float(sol.primal_objective),
        "ref_duality_gap": float(sol.duality_gap),
        "ref_relative_gap": float(sol.certificate.relative_gap),
        "ref_certified": bool(sol.certificate.ok),
        "ref_solver": str(sol.solver),
        "n_support": int(len(sol.support)),
        "solve_seconds": float(ref.seconds),
    }
    # the rest is the run's (or the comparison's: F_star, R, gamma, separable) as it is
    plain = {k: own[k] if k in own else getattr(r, k) for k in RUN_SCALARS}
    plain |= {k: own[k] if k in own else getattr(cmp, k) for k in REF_SCALARS}
    scalars = {k: float(v) if isinstance(v, (float, np.floating)) else v for k, v in plain.items()}
    return {k: _array(getattr(r, k)) for k in ARRAYS}, scalars


def cell_task(cell: CellJob, ref: Reference | str) -> dict[str, Any]:
    """Run one cell against its reference (or its cache's path): :func:`maxmargin.compare`.

    Never raises for the cell's own failures: they come back as ``status = "error"``.
    """
    from ..evaluation.comparison import compare
    from ..online.registry import resolve

    tic = time.perf_counter()
    out: dict[str, Any] = {
        "worker": f"{socket.gethostname()}:{os.getpid()}",
        "versions": versions(),
    }
    try:
        reference = _reference(ref)
        problem = reference.soft.problem
        learner = resolve(cell.target, problem, **cell.params)
        cmp = compare(
            problem.data,
            problem,
            [learner],
            epochs=cell.epochs,
            orders=(cell.order,),
            seeds=(cell.seed,),
            holdout=reference.holdout,
            checkpoints=np.asarray(cell.checkpoints, dtype=np.int64),
            reference=reference.soft,
            hard_reference=reference.hard,
            solver=cell.solver,
        )
        out["arrays"], out["scalars"] = _run_columns(cmp, learner, reference)
        out["status"] = "ok"
    except Exception as e:  # recorded and retried by the caller
        out.update(
            status="error",
            error=" ".join(f"{type(e).__name__}: {e}".split()),
            traceback=traceback.format_exc(),
        )
    out["cell_seconds"] = time.perf_counter() - tic
    return out
