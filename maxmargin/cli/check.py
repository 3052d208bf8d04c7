"""``maxmargin check``: a learner's claims judged on a battery of certified problems."""

from __future__ import annotations

import argparse
from typing import Any

from . import options as opt
from .learners import _learner_options


def add(sub: argparse._SubParsersAction[opt._Parser]) -> None:
    """The ``check`` command and its options."""
    p = opt._command(
        sub,
        "check",
        "judge a learner's claims on a battery of certified problems: PASS or FAIL",
        "maxmargin check pegasos --quick",
        "maxmargin check mylearners.py:MyPegasos --json verdicts.json",
        "maxmargin check pegasos --quick --out check-pegasos",
    )
    p.add_argument(
        "target",
        metavar="TARGET",
        help="the learner: a built-in name (pegasos, perceptron, ...), module:Class or "
        "path/file.py:Class (docs/validating.md)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="the quick battery (seconds: for CI) instead of the default one (under a "
        "minute for a built-in learner)",
    )
    p.add_argument(
        "--seeds",
        metavar="K|S,S,...",
        help="the seeds of the shuffle and sample runs: K (0..K-1, K >= 2) or a "
        "comma-separated list (default: the battery's: 3 quick, 5 default)",
    )
    p.add_argument(
        "--data-seed",
        dest="data_seed",
        type=int,
        default=0,
        help="the seed of the battery's data (other problems of the same kinds)",
    )
    p.add_argument(
        "--problems",
        metavar="TEXT[,TEXT]",
        help="only the problems whose name contains one of these, e.g. "
        "separable/none,gaussians (default: every problem the learner supports)",
    )
    opt._add_learner_param_args(p)
    opt._add_json_arg(p, "the report (every verdict and its evidence) as JSON")
    p.add_argument(
        "--out",
        metavar="DIR",
        help="write the report folder into DIR: report.md, report.json, verdicts.csv, "
        "table.tex (LaTeX) and the suboptimality figure (default: not written)",
    )
    opt._add_option(p, "--force")
    opt._add_figure_args(
        p,
        draws="suboptimality (the first problem whose runs have one)",
        writes="report.md, report.json, verdicts.csv and table.tex",
        formats="png",
    )
    opt._add_verbosity(p, "no table, no progress bar: the exit code says")
    p.set_defaults(func=run)


def _seeds(text: str | None) -> Any:
    """``--seeds``: None, a count, or a list of seeds (checked by check_learner)."""
    from ..exceptions import ParameterError

    if text is None:
        return None
    parts = [s.strip() for s in text.split(",")]
    try:
        values = [int(s) for s in parts]
    except ValueError:
        raise ParameterError(
            f"--seeds {text!r}: give a number of seeds K (>= 2) or comma-separated seeds >= 0"
        ) from None
    return values[0] if len(values) == 1 else values


def _learner(args: argparse.Namespace) -> Any:
    """The learner ``check_learner`` is given: the target, built when options are given."""
    from ..online import OnlineLearner
    from ..online.registry import build, distribute, learner_class, resolve

    cls = learner_class(args.target)  # an unknown name or a file that does not import: now
    ((_, params),) = distribute([args.target], **_learner_options(args))
    if not params:
        return args.target
    if isinstance(cls, type) and issubclass(cls, OnlineLearner):
        return resolve(args.target, **params)  # a built-in instance keeps its settings
    build(cls, args.target, **params)  # a constructor that refuses them: now, in one line
    return (args.target, params)  # built with them per problem; its reproduce lines too


def run(args: argparse.Namespace) -> int:
    """Check the inputs and the output, run the battery, print the verdicts; the exit code."""
    from ..exceptions import ParameterError
    from ..io.files import check_outputs
    from ..report import write_report
    from ..testing import check_learner

    path, sep, _ = args.target.rpartition(":")
    inputs = [("TARGET", path)] if sep and path.endswith(".py") else []
    plan = check_outputs(
        "check",
        {"--json": args.json},
        folder=args.out,
        writes=opt._report_files(args, "verdicts.csv"),
        inputs=inputs,
        force=args.force,
    )
    learner = _learner(args)
    seeds = _seeds(args.seeds)
    problems = None
    if args.problems is not None:
        problems = [p.strip() for p in args.problems.split(",") if p.strip()]
        if not problems:
            raise ParameterError("--problems needs at least one name (e.g. separable/none)")
    # check_learner refuses bad seeds, a bad data seed, or no problem for this learner
    # before it solves or runs anything
    report = check_learner(
        learner,
        battery="quick" if args.quick else "default",
        seeds=seeds,
        data_seed=args.data_seed,
        problems=problems,
        progress=not args.quiet,
    )
    if not args.quiet and args.json != "-":
        print(report.to_text(), end="")
    opt._write_json(report.to_dict(), args.json)
    if plan.folder is not None:
        with plan.staged() as stage:
            write_report(report, stage.path, **opt._figure_options(args))
    return 0 if report.passed else 1
