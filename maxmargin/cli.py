"""The ``maxmargin`` command line (DESIGN section 5).

Exit codes: 0 ok; 1 a certificate or check failed (including hard margin on data that
are not separable); 2 bad usage or bad data, reported as one line without a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from .exceptions import CertificateError, MaxMarginError, NotSeparableError

__all__ = ["main"]


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line (and exit code 2)."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message}")


def _jsonable(obj: Any) -> Any:
    """Plain-JSON form: arrays to lists, inf/nan to strings (JSON has no such numbers)."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return _jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return "inf" if obj > 0 else ("-inf" if obj < 0 else "nan")
    return obj


def _write_json(payload: dict, target: str | None) -> None:
    if target is None:
        return
    text = json.dumps(_jsonable(payload), indent=2)
    if target == "-":
        print(text)
    else:
        Path(target).write_text(text + "\n")


def _load_data(path: str, label: str | None = None):
    from .data import load

    return load(path, label=label)


def _problem(args: argparse.Namespace, data):
    from .problem import SVMProblem

    kw: dict[str, Any] = {"intercept": args.intercept}
    if getattr(args, "hard", False):
        kw["hard"] = True
    elif getattr(args, "lam", None) is not None:
        kw["lam"] = args.lam
    else:
        kw["C"] = 1.0 if getattr(args, "C", None) is None else args.C
    return SVMProblem(data, **kw)


def _add_data_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", metavar="DATA",
                   help="LIBSVM/svmlight file, CSV (label column named or last), .npz (X, y), "
                        "or builtin:heart_scale|separable|gaussians")
    p.add_argument("--label", default=None, help="CSV: name or index of the label column")


def _add_problem_args(p: argparse.ArgumentParser, *, allow_hard: bool = True,
                      intercept: str = "free") -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--C", type=float, default=None, help="soft margin penalty (default 1)")
    g.add_argument("--lam", type=float, default=None, help="lambda form: lam = 1/(C n)")
    if allow_hard:
        g.add_argument("--hard", action="store_true", help="hard margin")
    p.add_argument("--intercept", choices=("free", "none", "augmented"), default=intercept)


# ------------------------------------------------------------------------- solve


def _cmd_solve(args: argparse.Namespace) -> int:
    from .exact import solve

    data = _load_data(args.data, args.label)
    problem = _problem(args, data)
    forms = ("primal", "dual") if args.form == "both" else (args.form,)
    try:
        solutions = [solve(problem, form=f, solver=args.solver) for f in forms]
    except NotSeparableError as e:
        cert = e.certificate
        payload = {"separable": False, "message": str(e),
                   "certificate": cert.to_dict() if cert is not None else None}
        _write_json(payload, args.json)
        if args.json != "-":
            print(f"not separable: {e}")
        return 1
    main_sol = solutions[-1]
    if args.json != "-" and not args.quiet:
        for sol in solutions:
            print(sol.summary())
        if len(solutions) == 2:
            a, b = solutions
            diff = abs(a.primal_objective - b.primal_objective) / max(1.0, abs(a.primal_objective))
            print(f"primal vs dual form: relative objective difference {diff:.2e}, "
                  f"||w_primal - w_dual|| = {np.linalg.norm(a.w - b.w):.2e}")
    payload = main_sol.to_dict()
    if len(solutions) == 2:
        payload["forms"] = {s.form: s.to_dict() for s in solutions}
    _write_json(payload, args.json)
    return 0 if all(s.certificate.ok for s in solutions) else 1


# ------------------------------------------------------------------------- run


def _learner_params(args: argparse.Namespace, cls: type) -> dict[str, Any]:
    """The CLI options a learner's constructor accepts (others are for other learners)."""
    import inspect

    accepted = inspect.signature(cls.__init__).parameters
    given = {"lam": args.lam, "C": args.C, "eta0": args.eta0, "intercept": args.intercept,
             "projection": args.projection, "batch_size": args.batch_size}
    return {k: v for k, v in given.items() if v is not None and k in accepted}


def _learner_names(text: str) -> list[str]:
    from .exceptions import ParameterError
    from .online import LEARNERS

    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise ParameterError("--learner needs at least one name")
    unknown = [s for s in names if s not in LEARNERS]
    if unknown:
        raise ParameterError(f"unknown learner {', '.join(map(repr, unknown))}; "
                             f"choose from {', '.join(LEARNERS)}")
    return names


def _cmd_run(args: argparse.Namespace) -> int:
    from .online import LEARNERS, make_learner, run

    data = _load_data(args.data, args.label)
    names = _learner_names(args.learner)
    learners = [make_learner(nm, **_learner_params(args, LEARNERS[nm])) for nm in names]
    out = Path(args.out) if args.out else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    for learner in learners:
        trace = run(learner, data, epochs=args.epochs, order=args.order, seed=args.seed,
                    progress=not args.quiet)
        if not args.quiet:
            print(trace.summary())
        if out is not None:
            npz, js = trace.save(out / learner.name)
            if not args.quiet:
                print(f"  wrote {npz} and {js}")
    return 0


# ------------------------------------------------------------------------- compare / demo


def _report(cmp: Any, out: Path, quiet: bool) -> int:
    from .compare import write_report

    paths = write_report(cmp, out)
    if not quiet:
        print(cmp.reference.summary())
        print()
        print(cmp.to_markdown())
        print(f"\nwrote {len(paths)} files; the report is {out / 'report.md'}")
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from .compare import compare
    from .exceptions import ParameterError

    data = _load_data(args.data, args.label)
    holdout = _load_data(args.holdout, args.label) if args.holdout else None
    if args.seeds < 1:
        raise ParameterError(f"The 'seeds' parameter must be an int >= 1. Got {args.seeds}")
    kw: dict[str, Any] = {"lam": args.lam} if args.lam is not None else {"C": args.C or 1.0}
    cmp = compare(data, learners=_learner_names(args.learners), intercept=args.intercept,
                  epochs=args.epochs, orders=tuple(args.order.split(",")),
                  seeds=tuple(range(args.seeds)), holdout=holdout, solver=args.solver,
                  progress=not args.quiet, **kw)
    return _report(cmp, Path(args.out), args.quiet)


def _cmd_demo(args: argparse.Namespace) -> int:
    from .compare import demo_comparison

    if not args.quiet:
        print("maxmargin demo: exact soft-margin SVM on built-in 2-D data, then five online "
              "learners measured against it", flush=True)
    return _report(demo_comparison(progress=not args.quiet), Path(args.out), args.quiet)


# ------------------------------------------------------------------------- path


def _cmd_path(args: argparse.Namespace) -> int:
    import os

    from .path import learners_along_path, parse_grid, path, write_path_report

    data = _load_data(args.data, args.label)
    holdout = _load_data(args.holdout, args.label) if args.holdout else None
    grid = parse_grid(args.lam_grid if args.lam_grid else args.C_grid)
    key = "lam" if args.lam_grid else "C"
    show = not args.quiet
    result = path(data, intercept=args.intercept, holdout=holdout, solver=args.solver,
                  progress=show, **{key: grid})
    study = None
    if args.learners:
        names = _learner_names(args.learners)
        # the learners solve the augmented problem: measure them against its own path
        exact = result if args.intercept == "augmented" else path(
            data, intercept="augmented", solver=args.solver, progress=show, **{key: grid})
        study = learners_along_path(data, learners=names, epochs=args.epochs,
                                    seed=args.seed, exact=exact,
                                    n_jobs=args.jobs or os.cpu_count(), progress=show)
    out = Path(args.out)
    paths = write_path_report(result, out, study=study)
    if show:
        print(result.to_markdown())
        print(f"\nwrote {len(paths)} files; the report is {out / 'report.md'}")
    return 0 if result.certified else 1


# ------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of the ``maxmargin`` command."""
    from . import __version__

    parser = _Parser(prog="maxmargin", description=(
        "Exact, certified linear max-margin classifiers, and online learners "
        "measured against them."))
    parser.add_argument("--version", action="version", version=f"maxmargin {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("solve", help="exact hard/soft-margin SVM with a certificate")
    _add_data_args(p)
    _add_problem_args(p)
    p.add_argument("--form", choices=("primal", "dual", "both"), default="dual")
    p.add_argument("--solver", default=None,
                   help="IPM, DCD (sparse high-dimensional data), PIQP, CLARABEL or a cvxpy "
                        "QP solver (default: picked by measurement, see docs/benchmarks.md)")
    p.add_argument("--json", metavar="FILE", default=None,
                   help="write the JSON result ('-': stdout)")
    p.add_argument("--quiet", action="store_true", help="no summary on stdout")
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("run", help="run online learners and record their traces")
    _add_data_args(p)
    p.add_argument("--learner", required=True,
                   help="comma-separated names (perceptron, pegasos, pa1, ...)")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--order", choices=("cyclic", "shuffle", "sample"), default="shuffle")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lam", type=float, default=None, help="lambda of pegasos / subgradient")
    p.add_argument("--C", type=float, default=None, help="C of pa1 / pa2")
    p.add_argument("--eta0", type=float, default=None, help="eta0 of subgradient")
    p.add_argument("--projection", default=None, choices=("lazy", "greedy"),
                   help="pegasos: project onto the ball of radius 1/sqrt(lam)")
    p.add_argument("--batch-size", dest="batch_size", type=int, default=None)
    p.add_argument("--intercept", choices=("none", "augmented"), default=None,
                   help="default: each learner's own (augmented for most)")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="write DIR/<learner>.npz and DIR/<learner>.json")
    p.add_argument("--quiet", action="store_true", help="no summary, no progress bar")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("compare", help="run learners against the certified optimum; report")
    _add_data_args(p)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--C", type=float, default=None, help="soft margin penalty (default 1)")
    g.add_argument("--lam", type=float, default=None, help="lambda form: lam = 1/(C n)")
    p.add_argument("--intercept", choices=("augmented", "none"), default="augmented",
                   help="the learners' modes (default augmented)")
    p.add_argument("--learners", default="perceptron,averaged_perceptron,pegasos,subgradient,pa1",
                   help="comma-separated learner names")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--order", default="shuffle", help="comma-separated: cyclic, shuffle, sample")
    p.add_argument("--seeds", type=int, default=1, help="number of seeds (0..K-1)")
    p.add_argument("--holdout", default=None, help="held-out data file (same features)")
    p.add_argument("--solver", default=None)
    p.add_argument("--out", metavar="DIR", default="maxmargin-compare")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser("path", help="exact C / lambda regularization path, certified")
    _add_data_args(p)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--C-grid", dest="C_grid", default="1e-3:1e3:25",
                   help="lo:hi:num (log-spaced) or a comma list (default 1e-3:1e3:25)")
    g.add_argument("--lam-grid", dest="lam_grid", default=None, help="grid of lambda instead")
    p.add_argument("--intercept", choices=("free", "none", "augmented"), default="free")
    p.add_argument("--holdout", default=None, help="held-out data file (same features)")
    p.add_argument("--learners", default=None,
                   help="also run these learners at each lambda (e.g. pegasos,subgradient,pa1)")
    p.add_argument("--epochs", type=int, default=10, help="learners' budget per lambda")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=None, help="processes for the learners")
    p.add_argument("--solver", default=None)
    p.add_argument("--out", metavar="DIR", default="maxmargin-path")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=_cmd_path)

    p = sub.add_parser("demo", help="built-in data end to end: solve + compare + figures")
    p.add_argument("--out", metavar="DIR", default="maxmargin-demo")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``maxmargin`` command; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        return int(args.func(args))
    except _UsageError as e:
        print(f"{e} (see maxmargin --help)", file=sys.stderr)
        return 2
    except CertificateError as e:
        print(f"maxmargin: check failed: {e}", file=sys.stderr)
        return 1
    except MaxMarginError as e:
        print(f"maxmargin: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("maxmargin: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader (e.g. `| head`) went away: not an error of ours
        sys.stdout = None  # type: ignore[assignment]
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
