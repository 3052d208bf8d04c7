"""``maxmargin demo``: built-in data end to end, solve + compare + figures."""

from __future__ import annotations

import argparse

from .options import (
    COMPARE_FIGURES,
    COMPARE_FILES,
    _add_figure_args,
    _add_out_args,
    _add_verbosity,
    _command,
    _figure_options,
    _outputs,
    _Parser,
    _report,
    _report_files,
)


def add(sub: argparse._SubParsersAction[_Parser]) -> None:
    """The ``demo`` command and its options."""
    p = _command(
        sub,
        "demo",
        "built-in data end to end: solve + compare + figures",
        "maxmargin demo --out demo/",
    )
    _add_out_args(p, "maxmargin-demo")
    _add_figure_args(p, draws=COMPARE_FIGURES, writes=COMPARE_FILES)
    _add_verbosity(p, "no summary, no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The built-in comparison and its report; the exit code."""
    from ..evaluation.comparison import demo_comparison

    plan = _outputs(args, _report_files(args, "checkpoints.csv"))
    if not args.quiet:
        print(
            "maxmargin demo: exact soft-margin SVM on built-in 2-D data, then five online "
            "learners measured against it",
            flush=True,
        )
    return _report(
        demo_comparison(progress=not args.quiet), plan, args.quiet, figures=_figure_options(args)
    )
