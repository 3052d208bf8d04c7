"""``maxmargin run``: online learners, one trace each."""

from __future__ import annotations

import argparse
import contextlib
import warnings

from ..conventions import DEFAULT_INTERCEPT, INTERCEPTS
from ..io.files import display
from . import options as opt
from .learners import _learner_options, _learner_targets


def add(sub: argparse._SubParsersAction[opt._Parser]) -> None:
    """The ``run`` command and its options."""
    p = opt._command(
        sub,
        "run",
        "run online learners and record their traces",
        "maxmargin run builtin:heart_scale --learner perceptron,pegasos --lam 0.01 --out traces/",
    )
    opt._add_data_args(p)
    p.add_argument(
        "--learner",
        required=True,
        help="comma-separated learners: names (perceptron, pegasos, pa1, ...), "
        "module:Class or path/file.py:Class (a learner of your own, "
        "docs/own-learner.md)",
    )
    opt._add_option(
        p,
        "--epochs",
        default=1,
        help="passes over the data (default: 1, as maxmargin.run; compare, path "
        "and the estimators default to 10)",
    )
    p.add_argument(
        "--order",
        choices=("cyclic", "shuffle", "sample"),
        default="shuffle",
        help="example order: cyclic, shuffle (a new permutation each epoch) or sample (i.i.d.)",
    )
    opt._add_option(p, "--seed", help="seed of the order")
    for name, words in (
        ("--lam", "lambda of pegasos / subgradient (default: each learner's own)"),
        ("--C", "C of pa1 / pa2 (default: each learner's own)"),
        ("--eta0", "eta0 of subgradient (default: the learner's own)"),
    ):
        p.add_argument(name, type=float, help=words)
    p.add_argument(
        "--projection",
        choices=("lazy", "greedy"),
        help="pegasos: project onto the ball of radius 1/sqrt(lam) (default: no projection)",
    )
    p.add_argument(
        "--batch-size",
        dest="batch_size",
        type=int,
        help="pegasos: mini-batch size (default: the learner's own, 1)",
    )
    p.add_argument(
        "--intercept",
        choices=INTERCEPTS,
        help="augmented: the bias is the weight of a constant feature, "
        "regularised; free: the same bias, unregularised (default: each "
        f"learner's own, {DEFAULT_INTERCEPT} where it supports it)",
    )
    opt._add_learner_param_args(p)
    opt._add_out_args(p, None)
    p.add_argument(
        "--animate",
        metavar="OUT.gif",
        help="2-D data, one learner: write an animated GIF of the run (one frame "
        "per checkpoint) against the exact optimum and Novikoff's bound "
        "(default: none)",
    )
    opt._add_option(
        p, "--dpi", default=100, help="--animate: resolution of the frames (default: 100)"
    )
    opt._add_verbosity(p, "no summary, no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run each learner, print its summary, save its trace; the exit code."""
    from ..online import run as run_learner
    from ..online.registry import resolve_all

    targets = _learner_targets(args.learner)
    if args.animate and len(targets) != 1:
        from ..exceptions import ParameterError

        raise ParameterError(
            f"--animate draws one learner; got {len(targets)} ({', '.join(targets)})"
        )
    learners = resolve_all(targets, intercept=args.intercept, **_learner_options(args, shared=True))
    plan = opt._outputs(args, [f"{lr.name}{s}" for lr in learners for s in (".npz", ".json")])
    data = opt._load_data(args)
    if args.animate:
        from ..plotting.animation import _check_target

        _check_target(data, args.animate)
    with plan.staged() if plan.folder is not None else contextlib.nullcontext() as stage:
        for learner in learners:
            trace = run_learner(
                learner,
                data,
                epochs=args.epochs,
                order=args.order,
                seed=args.seed,
                progress=not args.quiet,
            )
            if not args.quiet:
                print(trace.summary())
            if trace.diverged_at is not None:
                warnings.warn(f"{learner.name} diverged: {trace.divergence()}", stacklevel=1)
            if stage is not None:
                trace.save(stage.path / learner.name)
            if args.animate:
                from ..plotting.animation import animate_run

                gif = animate_run(trace, data, args.animate, dpi=args.dpi, progress=not args.quiet)
                if not args.quiet:
                    print(f"  wrote {display(gif)} ({len(trace.t)} frames, one per checkpoint)")
    if stage is not None and not args.quiet:
        print(f"wrote {', '.join(display(f) for f in stage.files)}")
    return 0
