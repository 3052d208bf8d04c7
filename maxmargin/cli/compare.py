"""``maxmargin compare``: learners against the certified optimum, and the report."""

from __future__ import annotations

import argparse
from typing import Any

from ..conventions import DEFAULT_INTERCEPT, INTERCEPTS
from . import options as opt
from .learners import _learner_options, _learner_targets


def add(sub: argparse._SubParsersAction[opt._Parser]) -> None:
    """The ``compare`` command and its options."""
    p = opt._command(
        sub,
        "compare",
        "run learners against the certified optimum; report",
        "maxmargin compare builtin:heart_scale --lam 0.01 "
        "--learners pegasos,pa1 --seeds 3 --out report/",
        "maxmargin compare xor.csv --kernel rbf --gamma 2 --C 10 --seeds 3 --out kreport/",
    )
    opt._add_data_args(p)
    opt._add_penalty_args(p, allow_hard=False)
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
    opt._add_loss_arg(p, "the learners that take a loss (pegasos, subgradient) minimise it")
    opt._add_weight_args(p)
    opt._add_option(
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
        metavar="FILE.npz",
        help="score a saved trajectory too (repeatable): what 'run --out' or "
        "Trace.save writes, or a plain .npz with t, W (and b); see "
        "docs/cli.md (default: none)",
    )
    opt._add_learner_param_args(p)
    opt._add_option(p, "--epochs", default=10, help="passes over the data per run")
    p.add_argument("--order", default="shuffle", help="comma-separated: cyclic, shuffle, sample")
    p.add_argument("--seeds", type=int, default=1, help="number of seeds (0..K-1)")
    opt._add_option(p, "--holdout")
    opt._add_option(p, "--solver", help="QP solver of the exact reference (default: measured best)")
    opt._add_out_args(
        p, "maxmargin-compare", csv="one row per run and checkpoint (the report's checkpoints.csv)"
    )
    opt._add_figure_args(p, draws=opt.COMPARE_FIGURES, writes=opt.COMPARE_FILES)
    opt._add_kernel_args(
        p,
        "compare the kernel learners against the certified kernel SVM of this kernel "
        "(--C, --intercept free or none, --epochs, one --order, --seeds; default: the "
        "linear comparison)",
    )
    opt._add_verbosity(p, "no summary, no progress bar")
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

    if args.kernel is not None or opt._kernel_options(args):
        return run_kernel(args)
    plan = opt._outputs(args, opt._report_files(args, "checkpoints.csv"))
    if args.seeds < 1:
        raise ParameterError(f"The 'seeds' parameter must be an int >= 1. Got {args.seeds}")
    default = DEFAULT_COMPARE_SQUARED if args.loss == "squared_hinge" else DEFAULT_COMPARE
    text = args.learners if args.learners is not None or args.trace else default
    targets = [] if text is None else _learner_targets(text, "--learners")
    kernel_learners = [t for t in targets if t in _kernel_learner_names()]
    if kernel_learners:
        raise ParameterError(
            f"--learners {kernel_learners[0]}: a kernel learner; give --kernel "
            "(rbf, poly, sigmoid or linear) to score it against the kernel SVM"
        )
    params = [p for _, p in distribute(targets, **_learner_options(args))] if targets else []
    opt._check_weighted(args, targets)
    data = opt._load_data(args)
    holdout = opt._load_data(args, args.holdout, like=data) if args.holdout else None
    kw: dict[str, Any] = (
        {"lam": args.lam} if args.lam is not None else {"C": 1.0 if args.C is None else args.C}
    )
    problem = SVMProblem(
        data, intercept=args.intercept, loss=args.loss, **kw, **opt._weights(args, data)
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
    return opt._report(cmp, plan, args.quiet, args.json, args.csv, opt._figure_options(args))


def _kernel_learner_names() -> list[str]:
    """The registry's kernel learners, sorted: ``compare --kernel``'s default."""
    from ..online.kernel_learners import KernelLearner
    from ..online.registry import LEARNERS

    return sorted(k for k, v in LEARNERS.items() if issubclass(v, KernelLearner))


def _kernel_refusals(args: argparse.Namespace, names: list[str]) -> str | None:
    """Why ``compare --kernel`` cannot run with these options (None: it can); before any work."""
    refusal = opt._kernel_param_refusal(args, "the linear comparison", "the linear comparison's")
    if refusal is not None:
        return refusal
    linear = [t for t in names if t not in _kernel_learner_names()]
    if linear:
        return (
            f"--learners {linear[0]}: not a kernel learner; with --kernel compare runs "
            f"{', '.join(_kernel_learner_names())}"
        )
    if args.lam is not None:
        return "--lam: the kernel comparison takes --C (kernel_pegasos gets lam = 1/(C n))"
    linear_only = ("weights", "class_weight", "trace", "holdout", "solver", "learner_param", "step")
    stray = ["--" + o.replace("_", "-") for o in linear_only if getattr(args, o, None)]
    if stray:
        return f"{stray[0]} is the linear comparison's; compare --kernel does not take it"
    if "," in args.order:
        return f"--order {args.order}: compare --kernel runs one order"
    return None


def run_kernel(args: argparse.Namespace) -> int:
    """``compare --kernel``: the kernel learners against the certified kernel SVM; exit code."""
    from ..evaluation.kernel_scoring import compare_kernel
    from ..exceptions import ParameterError

    names = (
        _learner_targets(args.learners, "--learners")
        if args.learners is not None
        else _kernel_learner_names()
    )
    refusal = _kernel_refusals(args, names)
    if refusal is not None:
        raise ParameterError(refusal)
    if args.seeds < 1:
        raise ParameterError(f"The 'seeds' parameter must be an int >= 1. Got {args.seeds}")
    kernel = opt._kernel(args)
    plan = opt._outputs(args, opt._report_files(args, "checkpoints.csv"))
    data = opt._load_data(args)
    cmp = compare_kernel(
        data,
        names,
        kernel=kernel.name,
        gamma=kernel.gamma,
        degree=kernel.degree,
        coef0=kernel.coef0,
        C=1.0 if args.C is None else args.C,
        intercept=args.intercept,
        epochs=args.epochs,
        order=args.order,
        seeds=range(args.seeds),
    )
    return opt._report(cmp, plan, args.quiet, args.json, args.csv, opt._figure_options(args))
