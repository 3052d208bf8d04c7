"""``maxmargin compare``: learners against the certified optimum, and the report."""

from __future__ import annotations

import argparse
from typing import Any

from ..conventions import DEFAULT_INTERCEPT, INTERCEPTS
from .learners import _learner_options, _learner_targets
from .options import (
    COMPARE_FIGURES,
    COMPARE_FILES,
    _add_data_args,
    _add_figure_args,
    _add_learner_param_args,
    _add_loss_arg,
    _add_option,
    _add_out_args,
    _add_penalty_args,
    _add_verbosity,
    _add_weight_args,
    _check_weighted,
    _command,
    _figure_options,
    _load_data,
    _outputs,
    _Parser,
    _report,
    _report_files,
    _weights,
)


def add(sub: argparse._SubParsersAction[_Parser]) -> None:
    """The ``compare`` command and its options."""
    p = _command(
        sub,
        "compare",
        "run learners against the certified optimum; report",
        "maxmargin compare builtin:heart_scale --lam 0.01 "
        "--learners pegasos,pa1 --seeds 3 --out report/",
    )
    _add_data_args(p)
    _add_penalty_args(p, allow_hard=False)
    p.add_argument(
        "--intercept",
        choices=INTERCEPTS,
        default=DEFAULT_INTERCEPT,
        help="the problem's, and the learners' mode: free (b unregularised, the SVM of "
        "solve and path; the learners update it without shrinking it), none, or "
        "augmented (the bias a regularised weight); a learner that cannot take it (winnow: "
        "none) runs with one it supports and is scored against the problem of that "
        f"intercept, said in the report (default: {DEFAULT_INTERCEPT})",
    )
    _add_loss_arg(p, "the learners that take a loss (pegasos, subgradient) minimise it")
    _add_weight_args(p)
    _add_option(
        p,
        "--learners",
        help="comma-separated learners: names, module:Class or "
        "path/file.py:Class (default: perceptron, averaged_perceptron, "
        "pegasos, subgradient, pa1; the squared hinge: no pegasos, which needs "
        "--learner-param projection=greedy there; none when --trace is given)",
    )
    p.add_argument(
        "--trace",
        action="append",
        default=None,
        metavar="FILE.npz",
        help="score a saved trajectory too (repeatable): what 'run --out' or "
        "Trace.save writes, or a plain .npz with t, W (and b); see "
        "docs/cli.md (default: none)",
    )
    _add_learner_param_args(p)
    _add_option(p, "--epochs", default=10, help="passes over the data per run")
    p.add_argument("--order", default="shuffle", help="comma-separated: cyclic, shuffle, sample")
    p.add_argument("--seeds", type=int, default=1, help="number of seeds (0..K-1)")
    _add_option(p, "--holdout")
    _add_option(p, "--solver", help="QP solver of the exact reference (default: measured best)")
    _add_out_args(
        p, "maxmargin-compare", csv="one row per run and checkpoint (the report's checkpoints.csv)"
    )
    _add_figure_args(p, draws=COMPARE_FIGURES, writes=COMPARE_FILES)
    _add_verbosity(p, "no summary, no progress bar")
    p.set_defaults(func=run)


#: ``compare``'s learners when neither ``--learners`` nor ``--trace`` is given.
DEFAULT_COMPARE = "perceptron,averaged_perceptron,pegasos,subgradient,pa1"
#: The squared hinge's: Pegasos refuses it without a projection.
DEFAULT_COMPARE_SQUARED = "perceptron,averaged_perceptron,subgradient,pa1"


def run(args: argparse.Namespace) -> int:
    """Solve the reference, run and score the learners, write the report; the exit code."""
    from ..evaluation.comparison import _check_steps, compare
    from ..exceptions import ParameterError
    from ..online.registry import distribute, resolve
    from ..problem import SVMProblem
    from ..trace import Trace

    plan = _outputs(args, _report_files(args, "checkpoints.csv"))
    if args.seeds < 1:
        raise ParameterError(f"The 'seeds' parameter must be an int >= 1. Got {args.seeds}")
    default = DEFAULT_COMPARE_SQUARED if args.loss == "squared_hinge" else DEFAULT_COMPARE
    text = args.learners if args.learners is not None or args.trace else default
    targets = [] if text is None else _learner_targets(text, "--learners")
    params = [p for _, p in distribute(targets, **_learner_options(args))] if targets else []
    _check_weighted(args, targets)
    data = _load_data(args)
    holdout = _load_data(args, args.holdout, like=data) if args.holdout else None
    kw: dict[str, Any] = (
        {"lam": args.lam} if args.lam is not None else {"C": 1.0 if args.C is None else args.C}
    )
    problem = SVMProblem(
        data, intercept=args.intercept, loss=args.loss, **kw, **_weights(args, data)
    )
    # each with the problem's intercept if it supports it, else its own (scored against its own)
    learners = [resolve(t, problem, **p) for t, p in zip(targets, params, strict=True)]
    for learner in learners:  # their lam comes from the option given: name that one
        _check_steps(learner, problem, data.n, args.epochs, "C" if args.lam is None else "lam")
    traces = [Trace.load(path, data, args.intercept) for path in args.trace or []]
    cmp = compare(
        data,
        problem,
        learners=learners or None,
        traces=traces or None,
        epochs=args.epochs,
        orders=tuple(args.order.split(",")),
        seeds=range(args.seeds),  # counted before it is listed
        holdout=holdout,
        solver=args.solver,
        progress=not args.quiet,
    )
    return _report(cmp, plan, args.quiet, args.json, args.csv, _figure_options(args))
