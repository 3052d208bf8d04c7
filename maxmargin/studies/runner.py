"""`maxmargin.study`: validate the spec, skip finished cells, run the rest, write the table."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..exceptions import ParameterError
from ..io.files import MARKER, OutputPlan, check_outputs, mark_output_dir
from ..io.json import format_header
from ..plotting._mpl import check_formats
from ..report import Kind, register, write_report
from . import report as _report
from .cells import Plan, make_plan, versions
from .executors import StudyProgress, Tracker, parse_scheduler, run_dask, run_local
from .spec import StudySpec, load_spec
from .store import Store
from .table import assemble, read_record, write_table

__all__ = ["study", "StudyResult", "require_extra"]


def require_extra(scheduler: str | None = None) -> None:
    """A one-line ParameterError when the ``study`` extra is missing (Dask: for a scheduler)."""
    import importlib.util

    need = ["pyarrow"] + (["distributed"] if scheduler else [])
    missing = [m for m in need if importlib.util.find_spec(m) is None]
    if missing:
        raise ParameterError(
            f"studies need {' and '.join(missing)}: pip install 'maxmargin[study]'"
        )


@dataclass(frozen=True, eq=False)
class StudyResult:
    """What :func:`study` did and wrote.

    Attributes
    ----------
    spec : StudySpec
    plan : Plan
    out : Path
        The output folder.
    table : pyarrow.Table
        One row per cell and checkpoint (see :mod:`maxmargin.studies.table`).
    cells, skipped, ran, failed : int
        Cells in the study, already finished in ``out``, run now, failed after a retry.
    executions : int
        Attempts run now (a retried cell counts twice).
    paths : list of Path
        Files written.

    Examples
    --------
    >>> import tempfile
    >>> spec = {"problem": {"lam": 0.1}, "run": {"epochs": 1},
    ...         "data": [{"source": "builtin:separable"}], "learners": ["pegasos"]}
    >>> res = study(spec, tempfile.mkdtemp(), n_jobs=1, report=False)
    >>> res.table.column("subopt").to_pylist()[-1] > 0
    True
    """

    spec: StudySpec
    plan: Plan
    out: Path
    table: Any
    cells: int
    skipped: int
    ran: int
    executions: int
    failed: int
    paths: list = field(default_factory=list)

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame (needs pandas).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import tempfile
        >>> spec = {"problem": {"C": 1.0}, "run": {"epochs": 1},
        ...         "data": [{"source": "builtin:separable"}], "learners": ["perceptron"]}
        >>> df = study(spec, tempfile.mkdtemp(), n_jobs=1, report=False).to_pandas()
        >>> df.groupby("learner")["mistakes"].max().to_dict()
        {'perceptron': 2}
        """
        return self.table.to_pandas()

    def summary(self) -> str:
        """One line: cells run, skipped, failed; where the table is.

        Returns
        -------
        str

        Examples
        --------
        >>> import tempfile
        >>> spec = {"problem": {"C": 1.0}, "run": {"epochs": 1},
        ...         "data": [{"source": "builtin:separable"}], "learners": ["perceptron"]}
        >>> study(spec, tempfile.mkdtemp(), n_jobs=1, report=False).summary()[:47]
        'study study: 1 cells, 1 run now, 0 already done'
        """
        return (
            f"study {self.spec.name}: {self.cells} cells, {self.ran} run now, "
            f"{self.skipped} already done, {self.failed} failed; table "
            f"{self.out / 'results.parquet'}"
        )


register(StudyResult, Kind(_report.TABLE, _report.write, "the final numbers", ("title",)))


#: What a study writes into its folder (``fnmatch`` patterns): an input there is refused.
WRITES = (
    "study.json",
    "results.parquet",
    "results.csv",
    "report.md",
    "table.tex",
    "figures/*",
    "cells/*",
    "refs/*",
)


def _check_out(spec: StudySpec, given: Any, out: Any, force: bool) -> OutputPlan:
    """Check ``out`` before anything runs: writable, maxmargin's (or ``force``), no input there."""
    if not isinstance(out, (str, os.PathLike)):
        raise ParameterError(f"out must be a folder (str or Path), got {type(out).__name__}")
    inputs: list[tuple[str, Any]] = []
    if isinstance(given, (str, os.PathLike)):
        inputs.append(("study spec", given))
    for ds in spec.data:
        inputs += [(f"{ds.key}.source", ds.source), (f"{ds.key}.holdout", ds.holdout)]
    for lr in spec.learners:
        path, sep, _ = lr.target.rpartition(":")
        if sep and path.endswith(".py"):
            inputs.append((f"{lr.key}.class", path))
    inputs = [(what, p) for what, p in inputs if isinstance(p, (str, os.PathLike))]
    return check_outputs("study", folder=Path(out), writes=WRITES, inputs=inputs, force=force)


def study(
    spec: str | Path | Mapping | StudySpec,
    out: str | Path = "maxmargin-study",
    *,
    force: bool = False,
    scheduler: str | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
    report: bool = True,
    formats: Sequence[str] | str = ("png",),
    dpi: int = 150,
    figures: bool = True,
) -> StudyResult:
    """Run a study: data sets x C (or lambda) x learners x seeds x orders, resumably.

    Each cell is one :func:`maxmargin.compare` run against a certified optimum shared by
    its cells; a finished cell in ``out`` is skipped, a failing one retried once
    (``docs/study.md``).

    Parameters
    ----------
    spec : str or Path or mapping or StudySpec
        The TOML file, its parsed mapping, or a :class:`StudySpec`; validated in full
        before anything runs.
    out : str or Path, default "maxmargin-study"
        Output folder: new, empty, or one a study wrote.
    force : bool
        Write into a non-empty folder maxmargin did not write.
    scheduler : str, optional
        ``tcp://HOST:PORT`` of a Dask scheduler, or ``local:N`` to start a local Dask
        cluster of N workers. Default: local processes (joblib's loky).
    n_jobs : int, optional
        Local processes (default: the number of CPUs); ``1`` runs every task in this one.
    progress : bool
        Cells done / total and an ETA on a terminal.
    report : bool
        Also write ``report.md`` and the figures.
    formats : sequence of str, or str
        The figures' formats (matplotlib's names; ``"png,pdf"``), checked first.
    dpi : int
        Resolution of the raster figures.
    figures : bool
        Draw the report's figures.

    Returns
    -------
    StudyResult

    Raises
    ------
    SpecError
        An invalid spec (the message names the key).
    ParameterError
        The ``study`` extra is missing, or a bad argument.
    OutputError
        ``out`` cannot be written, is not maxmargin's (without ``force``), or holds an input.

    Examples
    --------
    >>> import tempfile
    >>> spec = {"problem": {"C": [0.1, 1.0]}, "run": {"epochs": 2, "seeds": 2},
    ...         "data": [{"generator": "gaussians", "params": {"n": 30, "seed": 0}}],
    ...         "learners": ["perceptron", "pegasos"]}
    >>> out = tempfile.mkdtemp()
    >>> res = study(spec, out, n_jobs=1, report=False)
    >>> res.cells, res.ran, res.failed
    (8, 8, 0)
    >>> study(spec, out, n_jobs=1, report=False).skipped    # finished cells are kept
    8
    """
    require_extra(scheduler)
    formats = check_formats(formats)
    if scheduler is not None:
        parse_scheduler(scheduler)
    if n_jobs is not None and (
        isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1
    ):
        raise ParameterError(f"n_jobs must be an int >= 1, got {n_jobs!r}")
    if not isinstance(spec, (str, os.PathLike, Mapping, StudySpec)):
        raise ParameterError(
            "spec must be a TOML file (str or Path), a mapping or a StudySpec, got "
            f"{type(spec).__name__}"
        )
    given, spec = spec, spec if isinstance(spec, StudySpec) else load_spec(spec)
    outputs = _check_out(spec, given, out, force)
    plan = make_plan(spec)
    store = Store(out)
    if not (store.root / MARKER).exists():  # a rerun after an interrupt finds it maxmargin's
        mark_output_dir(store.root, "study", [])
    pending = [
        c for c in plan.cells if (r := read_record(store, c.key)) is None or r["status"] != "ok"
    ]
    header = {"spec_hash": spec.hash, "spec": spec.raw, "cells": len(plan.cells)}
    header = {**format_header("study"), **header, "versions": versions()}
    store.write_text("study.json", json.dumps(header, indent=1, default=str) + "\n")
    with StudyProgress(len(pending), f"study {spec.name}", enabled=progress) as bar:
        tracker = Tracker(store, bar)
        if pending and scheduler is None:
            run_local(plan, pending, store, tracker, n_jobs)
        elif pending and scheduler is not None:
            run_dask(plan, pending, store, tracker, scheduler)
    table = assemble(plan, store)
    result = StudyResult(
        spec=spec,
        plan=plan,
        out=store.root,
        table=table,
        cells=len(plan.cells),
        skipped=len(plan.cells) - len(pending),
        ran=tracker.counts["ok"] + tracker.counts["failed"],
        executions=sum(tracker.attempts.values()),
        failed=table.column("status").to_pylist().count("failed"),  # a row per failed cell
    )
    with outputs.staged() as stage:  # the table and the report: the old ones or new ones
        write_table(table, stage.path)
        if report:
            write_report(result, stage.path, formats=formats, dpi=dpi, figures=figures)
    return replace(result, paths=[*stage.files, store.root / "study.json"])
