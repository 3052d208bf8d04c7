"""``maxmargin path``: the certified C / lambda path, on a grid or every breakpoint."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..io.files import display
from . import options as opt
from .learners import _learner_options, _learner_targets


def add(sub: argparse._SubParsersAction[opt._Parser]) -> None:
    """The ``path`` command and its options."""
    p = opt._command(
        sub,
        "path",
        "exact C / lambda regularization path, certified",
        "maxmargin path builtin:heart_scale --C-grid 1e-3:1e2:20 --out heart-path/",
        "maxmargin path data.csv --exact --json - > path.json",
    )
    opt._add_data_args(p)
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--C-grid",
        dest="C_grid",
        default="1e-3:1e3:25",
        help="lo:hi:num (log-spaced) or a comma list (default 1e-3:1e3:25)",
    )
    g.add_argument(
        "--lam-grid",
        dest="lam_grid",
        help="a grid of lambda instead of C (default: the C grid)",
    )
    opt._add_intercept_arg(p)
    opt._add_loss_arg(p, "the grid only (--exact is the hinge's), --learners minimise it")
    opt._add_weight_args(p)
    opt._add_option(p, "--holdout")
    p.add_argument(
        "--exact",
        action="store_true",
        help="every breakpoint of the path in the grid's range (up to the "
        "hard-margin C* at most), each certified",
    )
    opt._add_option(
        p,
        "--learners",
        help="also run these learners at each lambda, with the path's intercept "
        "(names such as pegasos,subgradient,pa1, module:Class or "
        "path/file.py:Class; default: none)",
    )
    opt._add_learner_param_args(p)
    opt._add_option(p, "--epochs", default=10, help="learners' budget per lambda")
    opt._add_option(p, "--seed", help="seed of the learners' orders")
    opt._add_option(p, "--jobs", help="processes for the learners (default: the number of CPUs)")
    opt._add_option(p, "--solver", help="QP solver of the points (default: measured best)")
    opt._add_out_args(
        p,
        "maxmargin-path",
        csv="one row per grid point (the report's grid.csv; with --exact one per event, "
        "its breakpoints.csv)",
    )
    opt._add_figure_args(
        p,
        draws="path_coefficients, path_errors, path_objective, path_support_vectors, "
        "path_tradeoff, path_width, and with --learners path_learners_subopt and "
        "path_learners_epochs",
        writes="report.md, report.json, grid.csv (breakpoints.csv with --exact) and table.tex",
    )
    opt._add_verbosity(p, "no table, no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Trace the path, run the learners along it, write the report; the exit code."""
    from .._validation import check_int
    from ..evaluation.path import regularization_path as path
    from ..evaluation.path.grids import parse_grid
    from ..evaluation.path.learners import check_study_size, learners_along_path
    from ..exceptions import ParameterError
    from ..online.registry import distribute
    from ..report import write_report
    from ..report.path import markdown

    if args.exact and args.learners:
        raise ParameterError("--learners runs at the grid's lambdas: use it without --exact")
    if args.exact and args.loss == "squared_hinge":
        raise ParameterError(
            "--exact traces the hinge's piecewise-linear path; the squared hinge's is "
            "rational in C between support-set changes: use the grid (without --exact)"
        )
    plan = opt._outputs(args, opt._report_files(args, "grid.csv", "breakpoints.csv"))
    out = plan.folder
    grid = parse_grid(args.C_grid if args.lam_grid is None else args.lam_grid)
    key = "C" if args.lam_grid is None else "lam"
    targets = None if args.learners is None else _learner_targets(args.learners, "--learners")
    opt._check_weighted(args, targets)
    entries = None if targets is None else distribute(targets, **_learner_options(args))
    if entries is not None:  # the learners run after the whole path: check their options now
        check_int("epochs", args.epochs, minimum=1)
        check_int("seed", args.seed, minimum=0)
        if args.jobs is not None:
            check_int("jobs", args.jobs, minimum=1)
    data = opt._load_data(args)
    jobs = (os.cpu_count() or 1) if args.jobs is None else args.jobs
    if entries is not None:  # every run's curves, sized before the path is computed
        check_study_size(data, len(grid), len(entries), args.epochs, jobs)
    holdout = opt._load_data(args, args.holdout, like=data) if args.holdout else None
    show = not args.quiet
    on_grid: dict[str, Any] = {key: grid, **opt._weights(args, data)}
    result = path(
        data,
        intercept=args.intercept,
        loss=args.loss,
        holdout=holdout,
        solver=args.solver,
        progress=show,
        exact=args.exact,
        **on_grid,
    )
    study = None
    if args.exact:  # the figures over the grid's range
        Cs = grid if key == "C" else 1.0 / (grid * data.n)
        lo, hi = float(min(Cs)), float(max(Cs))
        extra: dict[str, Any] = {"C_range": (lo, hi) if lo < hi else None}
    else:
        if entries is not None:
            # the learners are built with the path's intercept (free: an unregularised bias)
            # and scored against the very optima of the table
            study = learners_along_path(
                data,
                learners=entries,
                epochs=args.epochs,
                seed=args.seed,
                exact=result,
                n_jobs=jobs,
                progress=show,
            )
        extra = {"study": study, "feature_names": data.feature_names}
    paths: list[Path] = []
    if out is not None:
        with plan.staged() as stage:
            write_report(result, stage.path, **extra, **opt._figure_options(args))
        paths = stage.files
    if show and opt._stdout_free(args):
        print(markdown(result, max_rows=40 if args.exact else 200))
        if out is not None:
            more = f", every breakpoint in {display(out / 'breakpoints.csv')}" if args.exact else ""
            print(f"\nwrote {len(paths)} files; the report is {display(out / 'report.md')}{more}")
    if args.json is not None:
        payload = result.to_dict()
        if study is not None:
            payload["learners"] = study.to_dict()
        opt._write_json(payload, args.json)
    opt._write_table(result, args.csv)  # with --exact, breakpoints.csv's rows
    return 0 if result.certified else 1
