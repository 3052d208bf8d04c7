"""``maxmargin demo``: built-in data end to end, solve + compare + figures."""

from __future__ import annotations

import argparse

from . import options as opt


def add(sub: argparse._SubParsersAction[opt._Parser]) -> None:
    """The ``demo`` command and its options."""
    p = opt._command(
        sub,
        "demo",
        "built-in data end to end: solve + compare + figures",
        "maxmargin demo --out demo/",
    )
    opt._add_out_args(p, "maxmargin-demo")
    opt._add_figure_args(p, draws=opt.COMPARE_FIGURES, writes=opt.COMPARE_FILES)
    opt._add_verbosity(p, "no summary, no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The built-in comparison and its report; the exit code."""
    from ..evaluation.comparison import demo_comparison

    plan = opt._outputs(args, opt._report_files(args, "checkpoints.csv"))
    if not args.quiet:
        print(
            "maxmargin demo: exact soft-margin SVM on built-in 2-D data, then five online "
            "learners measured against it",
            flush=True,
        )
    return opt._report(
        demo_comparison(progress=not args.quiet),
        plan,
        args.quiet,
        figures=opt._figure_options(args),
    )
