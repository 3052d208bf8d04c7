"""``maxmargin study``: data sets x C x learners x seeds from a TOML spec."""

from __future__ import annotations

import argparse

from . import options as opt


def add(sub: argparse._SubParsersAction[opt._Parser]) -> None:
    """The ``study`` command and its options."""
    p = opt._command(
        sub,
        "study",
        "data sets x C x learners x seeds: resumable, local or Dask; one table and a report",
        "maxmargin study examples/study.toml --out study/ --jobs 4",
    )
    p.add_argument("spec", metavar="STUDY.toml", help="the study (see docs/study.md)")
    p.add_argument(
        "--out",
        metavar="DIR",
        default="maxmargin-study",
        help="output folder; finished cells found there are not run again",
    )
    opt._add_option(p, "--force")
    p.add_argument(
        "--scheduler",
        help="tcp://HOST:PORT of a Dask scheduler, or local:N for N local Dask "
        "workers (default: local processes)",
    )
    opt._add_option(p, "--jobs", help="local processes (default: the number of CPUs)")
    p.add_argument(
        "--no-report",
        dest="no_report",
        action="store_true",
        help="write the table only (no report.md, table.tex, figures)",
    )
    opt._add_figure_args(
        p,
        draws="figures/DATA-suboptimality and figures/DATA-mistakes, per data set",
        writes="report.md, table.tex, results.parquet, results.csv, study.json and the cache "
        "(cells/, refs/)",
        formats="png",
    )
    opt._add_verbosity(p, "no summary, no progress line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the study (or what is left of it), write its table and report; the exit code."""
    from ..studies import study

    result = study(
        args.spec,
        args.out,
        force=args.force,
        scheduler=args.scheduler,
        n_jobs=args.jobs,
        progress=not args.quiet,
        report=not args.no_report,
        **opt._figure_options(args),
    )
    if not args.quiet:
        print(result.summary())
    return 1 if result.failed else 0
