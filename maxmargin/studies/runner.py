"""`maxmargin.study`: validate the spec, skip finished cells, run the rest, write the table."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._json import format_header
from ..exceptions import ParameterError
from ..plotting._mpl import check_formats
from .cells import Plan, make_plan, versions
from .executors import StudyProgress, Tracker, parse_scheduler, run_dask, run_local
from .spec import StudySpec, load_spec
from .store import Store
from .table import assemble, write_table

__all__ = ["study", "StudyResult", "require_extra"]


def require_extra(scheduler: str | None = None) -> None:
    """Raise a one-line ParameterError when the ``study`` extra is not installed.

    Parameters
    ----------
    scheduler : str, optional
        When given, Dask distributed is needed as well as pyarrow.

    Raises
    ------
    ParameterError
        Naming the missing packages and the extra that installs them.
    """
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
    cells : int
        Cells in the study.
    skipped : int
        Cells already finished in ``out`` (not run again).
    ran : int
        Cells run now (each counted once, whatever its attempts).
    executions : int
        Attempts run now (a retried cell counts twice).
    failed : int
        Cells that failed (after their retry).
    paths : list of Path
        Files written: ``results.parquet``, ``results.csv``, ``study.json``, the report.

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
            One row per cell and checkpoint.

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


def study(
    spec: str | Path | Mapping | StudySpec,
    out: str | Path = "maxmargin-study",
    *,
    scheduler: str | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
    report: bool = True,
    formats: Sequence[str] | str = ("png",),
    dpi: int = 150,
    figures: bool = True,
) -> StudyResult:
    """Run a study: data sets x C (or lambda) x learners x seeds x orders, resumably.

    Each cell (data set, grid value, learner, seed, order) is one :func:`maxmargin.compare`
    run against a certified optimum solved once per data set and grid value and shared
    by its cells. A cell whose file is already in ``out`` (same inputs, same code) is
    skipped; a cell that raises, or whose worker dies, is retried once and, failing again,
    recorded with its error while every other cell finishes.

    Parameters
    ----------
    spec : str or Path or mapping or StudySpec
        The TOML file, its parsed mapping, or a :class:`StudySpec`; validated in full
        (data loaded, learners built) before anything runs.
    out : str or Path, default "maxmargin-study"
        Output folder: ``cells/`` (one file per finished cell), ``refs/`` (cached
        exact solutions), ``results.parquet``, ``results.csv``, ``study.json``,
        ``report.md`` and ``figures/``.
    scheduler : str, optional
        ``tcp://HOST:PORT`` of a Dask scheduler, or ``local:N`` to start a local Dask
        cluster of N workers. Default: local processes (joblib's loky).
    n_jobs : int, optional
        Local processes (default: the number of CPUs, at most the cells to run). ``1``
        runs every task in this process, one after another, as joblib does: the easiest
        to debug, but a learner that kills its process then ends the study (rerun it: the
        finished cells are kept).
    progress : bool
        Cells done / total and an ETA on a terminal (silent when not a TTY).
    report : bool
        Also write ``report.md`` and the figures.
    formats : sequence of str, or str
        The figures' formats (matplotlib's names; ``"png,pdf"``), checked first.
    dpi : int
        Resolution of the raster figures.
    figures : bool
        Draw the report's figures (without matplotlib: skipped, with one warning).

    Returns
    -------
    StudyResult

    Raises
    ------
    SpecError
        An invalid spec (the message names the key).
    ParameterError
        The ``study`` extra is missing, ``out`` is not writable, a bad ``scheduler``.

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
    spec = spec if isinstance(spec, StudySpec) else load_spec(spec)
    plan = make_plan(spec)
    store = Store(out)
    pending = [c for c in plan.cells if not store.finished(c.key)]
    store.write_text(
        "study.json",
        json.dumps(
            {
                **format_header("study"),
                "spec_hash": spec.hash,
                "spec": spec.raw,
                "cells": len(plan.cells),
                "versions": versions(),
            },
            indent=1,
            default=str,
        )
        + "\n",
    )
    with StudyProgress(len(pending), f"study {spec.name}", enabled=progress) as bar:
        tracker = Tracker(store, bar)
        if pending and scheduler is None:
            run_local(plan, pending, store, tracker, n_jobs)
        elif pending and scheduler is not None:
            run_dask(plan, pending, store, tracker, scheduler)
    table = assemble(plan, store)
    paths = [*write_table(table, store), store.root / "study.json"]
    if report:
        from .report import write_report

        paths += write_report(
            table, store.root, title=spec.name, formats=formats, dpi=dpi, figures=figures
        )
    failed = table.column("status").to_pylist().count("failed")  # one row per failed cell
    return StudyResult(
        spec=spec,
        plan=plan,
        out=store.root,
        table=table,
        cells=len(plan.cells),
        skipped=len(plan.cells) - len(pending),
        ran=tracker.counts["ok"] + tracker.counts["failed"],
        executions=sum(tracker.attempts.values()),
        failed=failed,
        paths=paths,
    )
