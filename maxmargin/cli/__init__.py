"""The ``maxmargin`` command line.

Exit codes: 0 ok; 1 a certificate or check failed (including hard margin on data that
are not separable); 2 bad usage, bad data or an output that cannot be written, reported
as one line without a traceback, before any long computation; 130 interrupted (Ctrl-C).
Every bad input the command knows of, and what it says, is listed in docs/bad-input.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from .._progress import notes_silenced
from ..conventions import DEFAULT_INTERCEPT, INTERCEPTS
from ..exceptions import CertificateError, MaxMarginError, NotSeparableError
from ..io.files import OutputPlan, atomic_write, check_outputs, display
from ..io.json import dumps, format_header

__all__ = ["main"]


class _UsageError(Exception):
    pass


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Epilogs as written (the examples); every option's default in its help line."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (
            action.option_strings
            and not action.required
            and "default" not in text
            and not any(action.default is v for v in (None, False, argparse.SUPPRESS))
        ):
            text += " (default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line, with exit code 2.

    Each error names the help of the (sub)command it concerns.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: error: {message}; see '{self.prog} --help'")

    def parse_args(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        namespace: argparse.Namespace | None = None,
    ) -> argparse.Namespace:
        """Parse as argparse does, naming the help of the parser an unknown option is given to.

        An unknown option after a command names that command's help (argparse leaves it
        to the top-level parser, which would name ``maxmargin --help``); one before the
        command names ``maxmargin --help`` (argparse would hand it to the command), or,
        when it is an option of the command, says to put it after the command.
        """
        argv = list(sys.argv[1:] if args is None else args)
        subs: dict[str, argparse.ArgumentParser] = next(
            (a.choices for a in self._actions if isinstance(a, argparse._SubParsersAction)), {}
        )
        if subs:
            self._check_before_command(argv, subs)
        ns, extras = self.parse_known_args(argv, namespace)
        if extras:
            owner = subs.get(str(getattr(ns, "command", "")), self)
            owner.error(f"unrecognized arguments: {' '.join(extras)}")
        return ns

    def _check_before_command(
        self, argv: list[str], subs: dict[str, argparse.ArgumentParser]
    ) -> None:
        """Refuse an option before the command that is not the top level's."""
        command = next((a for a in argv if a in subs), None)
        for arg in argv:
            if arg == command or arg == "--":
                return
            if not arg.startswith("-") or arg == "-":
                continue
            name = arg.split("=", 1)[0]
            if name in self._option_string_actions:
                continue  # the top level's options (--help, --version) take no value
            owner = subs.get(command or "")
            if owner is not None and name in owner._option_string_actions:
                raise _UsageError(
                    f"{self.prog}: error: {name} is an option of '{owner.prog}', given "
                    f"before the command: write '{owner.prog} {name} ...'; see "
                    f"'{owner.prog} --help'"
                )
            self.error(f"unrecognized arguments: {arg}")


def _write_json(payload: dict, target: str | None) -> None:
    if target is None:
        return
    text = dumps(payload, indent=2)
    if target == "-":
        print(text)
    else:
        atomic_write(target, text + "\n")


def _stdout_free(args: argparse.Namespace) -> bool:
    """Whether the command may print its summary (stdout is not ``--json -``/``--csv -``)."""
    return "-" not in (getattr(args, "json", None), getattr(args, "csv", None))


def _write_table(result: Any, target: str | None) -> None:
    """``--csv``: the result's tidy table (``to_csv``) to a file or stdout."""
    if target is None:
        return
    if target == "-":
        sys.stdout.write(result.to_csv())
    else:
        result.to_csv(target)


def _load_data(args: argparse.Namespace, path: str | None = None, like: Any = None) -> Any:
    """Load DATA, or the file ``path`` read like the Dataset ``like``.

    A LIBSVM holdout gets the index base its DATA was read with.
    """
    from ..data import load
    from ..data.sources import _format_of
    from ..exceptions import ParameterError

    if args.data == "-" and getattr(args, "holdout", None) == "-":
        raise ParameterError(
            "DATA and --holdout both read standard input ('-'); give one of them as a file"
        )
    bases: dict[str, bool | str] = {"auto": "auto", "0": True, "1": False}
    zero_based = bases[args.index_base]
    if like is not None:
        if (
            zero_based == "auto"
            and "zero_based" in like.meta
            and _format_of(path) in ("libsvm", "stdin")
        ):
            zero_based = like.meta["zero_based"]
    return load(
        args.data if path is None else path,
        label=args.label,
        header=args.header,
        positive=args.positive,
        zero_based=zero_based,
    )


def _out_target(args: argparse.Namespace) -> str | None:
    """``--out``, or the command's default folder.

    None when ``--json`` or ``--csv`` replaces it.
    """
    if getattr(args, "out", None) is not None:
        return args.out
    if getattr(args, "json", None) is not None or getattr(args, "csv", None) is not None:
        return None
    return getattr(args, "default_out", None)


_INPUTS = (("DATA", "data"), ("--holdout", "holdout"), ("--weights", "weights"))
_TRACE = (".npz", ".json")
_FILES = (("--json", "json"), ("--csv", "csv"), ("--liblinear-model", "liblinear_model"))


def _inputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """Every file the command reads: DATA, --holdout, --weights, --trace, learner files.

    A ``--trace`` stands for the ``.npz`` and the ``.json`` beside it (``Trace.load``
    reads both); a learner ``path/file.py:Class`` for its file.
    """
    found = [(name, getattr(args, attr, None)) for name, attr in _INPUTS]
    for t in getattr(args, "trace", None) or []:
        stem = Path(t).with_suffix("") if Path(t).suffix else Path(t)
        found += [("--trace", t)] + [("--trace", str(stem.with_suffix(s))) for s in _TRACE]
    for option in ("learner", "learners"):
        for target in (getattr(args, option, None) or "").split(","):
            path, sep, _ = target.strip().rpartition(":")
            if sep and path.endswith(".py"):
                found.append((f"--{option}", path))
    return found


def _outputs(args: argparse.Namespace, writes: Sequence[str] = ()) -> OutputPlan:
    """Check every output before any work (exit 2 now, not after the computing).

    Each file option and ``--out`` alone, and that none is an input or another output
    (:func:`maxmargin.io.files.check_outputs`); ``writes``: what the command writes into
    ``--out`` (``report.md``, ``*.png``, ...).
    """
    files = {name: getattr(args, attr, None) for name, attr in _FILES}
    files["--animate"] = getattr(args, "animate", None)
    return check_outputs(
        args.command,
        files,
        folder=_out_target(args),
        writes=writes,
        inputs=_inputs(args),
        force=getattr(args, "force", False),
    )


def _report_files(args: argparse.Namespace, *tables: str) -> list[str]:
    """What a report writes into ``--out``: report.md/.json, ``tables``, the figures."""
    figures = () if getattr(args, "no_figures", False) else args.figure_formats
    return ["report.md", "report.json", *tables, *(f"*.{fmt}" for fmt in figures)]


@contextlib.contextmanager
def _verbosity(args: argparse.Namespace) -> Iterator[None]:
    """``-v``: maxmargin's decisions and the QP solvers' own log, on stderr.

    maxmargin's decisions go to the logger "maxmargin"; stdout keeps only what the command
    prints (``--json -``).
    """
    if not getattr(args, "verbose", False):
        yield
        return
    import logging

    from .._log import logger, solver_log

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("maxmargin: %(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        with solver_log():
            yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _problem(args: argparse.Namespace, data: Any) -> Any:
    from ..problem import SVMProblem

    kw: dict[str, Any] = {"intercept": args.intercept, **_weights(args, data)}
    if getattr(args, "hard", False):
        kw["hard"] = True
    elif getattr(args, "lam", None) is not None:
        kw["lam"] = args.lam
    else:
        kw["C"] = 1.0 if getattr(args, "C", None) is None else args.C
    return SVMProblem(data, **kw)


def _weights(args: argparse.Namespace, data: Any) -> dict[str, Any]:
    """``--weights FILE`` and ``--class-weight`` as ``sample_weight=`` / ``class_weight=``.

    Only those given.
    """
    from ..data import load_weights

    kw: dict[str, Any] = {}
    if getattr(args, "weights", None) is not None:
        kw["sample_weight"] = load_weights(args.weights, n=data.n)
    if getattr(args, "class_weight", None) is not None:
        kw["class_weight"] = args.class_weight
    return kw


def _check_weighted(args: argparse.Namespace, names: list[str] | None) -> None:
    """With weights, every learner must take them: say so before the long work."""
    if names is None or (
        getattr(args, "weights", None) is None and getattr(args, "class_weight", None) is None
    ):
        return
    from ..exceptions import ParameterError
    from ..online.registry import learner_class

    refuse = [nm for nm in names if getattr(learner_class(nm), "sample_weight_rule", None) is None]
    if refuse:
        raise ParameterError(
            f"{', '.join(refuse)} take(s) no example weights; with "
            "--weights/--class-weight use learners that do (perceptron, "
            "averaged_perceptron, pegasos, subgradient, pa1, pa2, ...)"
        )


def _class_weight(text: str) -> Any:
    """``balanced`` or ``LABEL:W,LABEL:W`` (argparse type)."""
    if text.strip() == "balanced":
        return "balanced"
    out: dict[str, float] = {}
    for item in text.split(","):
        label, sep, value = item.strip().rpartition(":")
        try:
            if not (sep and label):
                raise ValueError
            out[label.strip()] = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{item.strip()!r} is not LABEL:WEIGHT (give 'balanced' or e.g. '1:5,-1:1')"
            ) from None
    return out


def _add_weight_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--weights",
        metavar="FILE",
        default=None,
        help="example weights, one number per line in the data's order (a "
        "header line and # comments are skipped): example i costs "
        "C_i = C w_i (weight 0 leaves it out; soft margin only; default: "
        "every weight 1)",
    )
    p.add_argument(
        "--class-weight",
        dest="class_weight",
        type=_class_weight,
        default=None,
        metavar="balanced|LABEL:W,...",
        help="weights by class, multiplied into --weights: 'balanced' (n / (2 "
        "n_class), as scikit-learn) or the data's labels, e.g. '1:5,-1:1' "
        "(a label left out weighs 1; default: none)",
    )


def _add_data_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "data",
        metavar="DATA",
        help="LIBSVM/svmlight file (0- or 1-based), CSV (label column named or "
        "last), .npz (X, y), gzip/bzip2 of the text ones, '-' for stdin "
        "(LIBSVM or CSV, told by the content), or "
        "builtin:heart_scale|separable|gaussians",
    )
    p.add_argument(
        "--label",
        default=None,
        help="CSV: name or 0-based index of the label column (default: the last)",
    )
    p.add_argument(
        "--header",
        default=None,
        action=argparse.BooleanOptionalAction,
        help="CSV: the first row is (not) a header (default: detected from the feature columns)",
    )
    p.add_argument(
        "--positive",
        default=None,
        metavar="LABEL",
        help="the label that becomes +1; with more than two labels, LABEL "
        "against all the others (default: the larger of two labels)",
    )
    p.add_argument(
        "--index-base",
        dest="index_base",
        choices=("auto", "0", "1"),
        default="auto",
        help="LIBSVM: feature indices start at 0 (scikit-learn's "
        "dump_svmlight_file) or 1 (LIBSVM); auto: 0 when some index is 0, "
        "as scikit-learn's load_svmlight_file (default: auto; a LIBSVM "
        "--holdout is read with its DATA's base)",
    )


def _add_out_args(p: argparse.ArgumentParser, default: str | None, json: bool = False) -> None:
    if default is None:
        what = "write DIR/<learner>.npz and DIR/<learner>.json (default: not written)"
    else:
        what = f"where the report goes (default: {default}" + (
            "; none when --json or --csv is given without --out)" if json else ")"
        )
    p.add_argument("--out", metavar="DIR", default=None, help=what)
    p.set_defaults(default_out=default)
    p.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty DIR that maxmargin did not write",
    )
    if json:
        p.add_argument(
            "--json",
            metavar="FILE",
            default=None,
            help="write the report's JSON (report.json) to FILE; '-': stdout, "
            "and nothing else is printed there (default: not written)",
        )


def _add_learner_param_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--learner-param",
        dest="learner_param",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="a constructor parameter of the learners that take KEY (repeatable; "
        "VALUE read as JSON when it parses, else as a string; default: none)",
    )
    p.add_argument(
        "--step",
        default=None,
        metavar="SCHEDULE",
        help="step-size schedule of the learners that take one: constant, "
        "invsqrt (with the learner's eta0), constant:ETA, invsqrt:ETA0, "
        "pegasos, pegasos_paper, or a JSON object (default: each learner's "
        "own)",
    )


def _add_verbosity(p: argparse.ArgumentParser, quiet: str) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("-q", "--quiet", action="store_true", help=quiet)
    g.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="on stderr: maxmargin's decisions (how DATA was read, the solver "
        "route taken) and the QP solver's own log",
    )


def _figure_formats(text: str) -> tuple[str, ...]:
    from ..plotting._mpl import check_formats

    try:
        return check_formats(text)
    except MaxMarginError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


#: The largest ``--dpi``: a report's largest figures (about 12 x 10 inches) are then
#: 14,400 x 12,000 pixels, 700 MB as they are drawn; matplotlib refuses 2**23 pixels a side.
MAX_DPI = 1200


def _dpi(text: str) -> int:
    """``--dpi``: an int in [1, MAX_DPI] (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_DPI:
        raise argparse.ArgumentTypeError(f"expected an integer from 1 to {MAX_DPI}, got {text!r}")
    return value


def _add_figure_args(p: argparse.ArgumentParser, formats: str = "png,svg", dpi: int = 150) -> None:
    """``--format``, ``--dpi``, ``--no-figures``: how a report's figures are written."""
    g = p.add_argument_group("figures (need matplotlib: pip install 'maxmargin[plot]')")
    g.add_argument(
        "--format",
        dest="figure_formats",
        metavar="FMT[,FMT]",
        type=_figure_formats,
        default=_figure_formats(formats),
        help=f"figure formats, comma-separated: png, pdf, svg, eps, ... (default: {formats})",
    )
    g.add_argument(
        "--dpi",
        type=_dpi,
        default=dpi,
        help=f"resolution of the raster figures (default: {dpi})",
    )
    g.add_argument(
        "--no-figures",
        dest="no_figures",
        action="store_true",
        help="write report.md and report.json only",
    )


def _figure_options(args: argparse.Namespace) -> dict[str, Any]:
    """The figure arguments of the report writers, from ``_add_figure_args``."""
    return {"formats": args.figure_formats, "dpi": args.dpi, "figures": not args.no_figures}


def _add_problem_args(
    p: argparse.ArgumentParser, *, allow_hard: bool = True, intercept: str = DEFAULT_INTERCEPT
) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--C", type=float, default=None, help="soft margin penalty (default 1)")
    g.add_argument(
        "--lam",
        type=float,
        default=None,
        help="lambda form, lam = 1/(C n), instead of C (default: the C form)",
    )
    if allow_hard:
        g.add_argument("--hard", action="store_true", help="hard margin")
    p.add_argument(
        "--intercept",
        choices=INTERCEPTS,
        default=intercept,
        help="free: b unregularised (SVC's problem); none: b = 0; augmented: "
        f"x -> (x, 1), b regularised (LinearSVC's) (default: {intercept})",
    )


# ------------------------------------------------------------------------- solve


def _cmd_solve(args: argparse.Namespace) -> int:
    from ..exact import solve

    if args.liblinear_model == "-":
        from ..exceptions import ParameterError

        raise ParameterError(
            "--liblinear-model needs a file name (LIBLINEAR's predict reads a file)"
        )
    _outputs(args)
    data = _load_data(args)
    problem = _problem(args, data)
    if args.liblinear_model is not None:  # labels LIBLINEAR cannot store: say so now
        from ..liblinear_model import liblinear_labels

        liblinear_labels(data, "--liblinear-model")
    forms = ("primal", "dual") if args.form == "both" else (args.form,)
    try:
        solutions = [solve(problem, form=f, solver=args.solver) for f in forms]
    except NotSeparableError as e:
        cert = e.certificate
        payload = {
            **format_header("not_separable"),
            "separable": False,
            "message": str(e),
            "certificate": cert.to_dict() if cert is not None else None,
        }
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
            diff = abs(a.primal_objective - b.primal_objective) / max(
                abs(a.primal_objective), np.finfo(float).tiny
            )
            print(
                f"primal vs dual form: relative objective difference {diff:.2e}, "
                f"||w_primal - w_dual|| = {np.linalg.norm(a.w - b.w):.2e}"
            )
    payload = main_sol.to_dict()
    if len(solutions) == 2:
        payload["forms"] = {s.form: s.to_dict() for s in solutions}
    _write_json(payload, args.json)
    if args.liblinear_model is not None:
        from ..liblinear_model import write_liblinear_model

        model = write_liblinear_model(main_sol, args.liblinear_model)
        if args.json != "-" and not args.quiet:
            print(f"wrote {display(model)} (LIBLINEAR model: predict TEST {display(model)} OUT)")
    return 0 if all(s.certificate.ok for s in solutions) else 1


# ------------------------------------------------------------------------- run


def _learner_options(args: argparse.Namespace, cls: Any) -> dict[str, Any]:
    """The ``run`` options a learner's constructor takes (others are for other learners)."""
    from ..online.protocol import learner_params

    given = {
        "lam": args.lam,
        "C": args.C,
        "eta0": args.eta0,
        "intercept": args.intercept,
        "projection": args.projection,
        "batch_size": args.batch_size,
    }
    return {k: v for k, v in given.items() if v is not None and k in learner_params(cls)}


def _check_options_apply(args: argparse.Namespace, classes: list[Any], targets: list[str]) -> None:
    """An option given explicitly that no chosen learner takes is an error, not ignored."""
    from ..exceptions import ParameterError
    from ..online import LEARNERS
    from ..online.protocol import learner_params

    for key in ("lam", "C", "eta0", "projection", "batch_size"):
        if getattr(args, key) is None or any(key in learner_params(c) for c in classes):
            continue
        takers = [name for name, c in LEARNERS.items() if key in learner_params(c)]
        option = "--" + key.replace("_", "-")
        raise ParameterError(
            f"{option} applies to none of the learners given ({', '.join(targets)}); "
            f"it is for {', '.join(takers)}"
        )


def _learner_targets(text: str | None, option: str = "--learner") -> list[str]:
    """The learners a comma-separated option names, each resolved now.

    Registry names, ``module:Class`` or ``path/file.py:Class``; a bad one exits 2 before any
    work.
    """
    from ..exceptions import ParameterError
    from ..online.registry import learner_class

    targets = [t.strip() for t in (text or "").split(",") if t.strip()]
    if not targets:
        raise ParameterError(
            f"{option} needs at least one learner (a name such as "
            "perceptron, or module:Class, or path/file.py:Class)"
        )
    for target in targets:
        learner_class(target)
    return targets


def _parse_value(text: str) -> Any:
    """A ``--learner-param`` value: JSON when it parses, else the string itself.

    JSON: numbers, true, null, lists, objects.
    """
    try:
        return json.loads(text)
    except ValueError:
        return text


def _parse_step(text: str) -> Any:
    """``--step``: a schedule name, ``constant:ETA`` / ``invsqrt:ETA0``, or JSON.

    A name: ``constant``, ``invsqrt`` (the learner's eta0), ``pegasos``, ``pegasos_paper``;
    JSON: that of ``StepSize.to_dict()``.
    """
    from ..exceptions import ParameterError
    from ..online.step_sizes import STEP_NAMES, as_step

    text = text.strip()
    if text.startswith("{"):
        value = _parse_value(text)
        if not isinstance(value, dict):
            raise ParameterError(f"--step {text!r} is not a JSON object")
        return as_step(value)
    name, sep, size = text.partition(":")
    if not sep:
        if name not in STEP_NAMES:
            raise ParameterError(
                f"unknown --step {name!r}; choose from "
                f"{', '.join(STEP_NAMES)} (constant:ETA, invsqrt:ETA0) or a "
                "JSON object"
            )
        return name
    try:
        eta = float(size)
    except ValueError:
        raise ParameterError(f"--step {text!r}: {size!r} is not a number") from None
    if name not in ("constant", "invsqrt"):
        raise ParameterError(f"--step {text!r}: only constant:ETA and invsqrt:ETA0 take a size")
    return as_step(name, eta0=eta)


def _learner_params(args: argparse.Namespace, targets: list[str]) -> list[dict[str, Any]]:
    """Per learner: the ``--learner-param`` and ``--step`` values its constructor takes.

    A key no learner takes is an error.
    """
    from ..exceptions import ParameterError
    from ..online.protocol import learner_params
    from ..online.registry import learner_class

    given: dict[str, Any] = {}
    for item in getattr(args, "learner_param", None) or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ParameterError(f"--learner-param {item!r} is not KEY=VALUE")
        given[key.strip()] = _parse_value(value)
    if getattr(args, "step", None) is not None:
        given["step"] = _parse_step(args.step)
    accepted = [set(learner_params(learner_class(t))) for t in targets]
    for key in given:
        if not any(key in acc for acc in accepted):
            option = "--step" if key == "step" else f"--learner-param {key}"
            takes = "; ".join(
                f"{t}: {', '.join(sorted(acc)) or 'nothing'}"
                for t, acc in zip(targets, accepted, strict=True)
            )
            raise ParameterError(f"{option}: no learner given takes {key!r} ({takes})")
    return [{k: v for k, v in given.items() if k in acc} for acc in accepted]


def _run_learners(args: argparse.Namespace, targets: list[str]) -> list[Any]:
    """The learners of ``run``, each built with the options its constructor takes.

    A learner of the public protocol is wrapped with ``--intercept`` (default: its own).
    """
    from ..exceptions import ParameterError
    from ..online import OnlineLearner
    from ..online.protocol import as_learner
    from ..online.registry import build, learner_class

    _check_options_apply(args, [learner_class(t) for t in targets], targets)
    learners = []
    for target, params in zip(targets, _learner_params(args, targets), strict=True):
        cls = learner_class(target)
        built = build(cls, target, **{**_learner_options(args, cls), **params})
        learners.append(
            built if issubclass(cls, OnlineLearner) else as_learner(built, intercept=args.intercept)
        )
    names = [lr.name for lr in learners]
    twice = sorted({nm for nm in names if names.count(nm) > 1})
    if twice:
        raise ParameterError(
            f"learner {', '.join(map(repr, twice))} given twice; each writes one trace"
        )
    return learners


def _cmd_run(args: argparse.Namespace) -> int:
    from ..online import run

    targets = _learner_targets(args.learner)
    if args.animate and len(targets) != 1:
        from ..exceptions import ParameterError

        raise ParameterError(
            f"--animate draws one learner; got {len(targets)} ({', '.join(targets)})"
        )
    learners = _run_learners(args, targets)
    plan = _outputs(args, [f"{lr.name}{s}" for lr in learners for s in (".npz", ".json")])
    data = _load_data(args)
    if args.animate:
        from ..plotting.animation import _check_target

        _check_target(data, args.animate)
    with plan.staged() if plan.folder is not None else contextlib.nullcontext() as stage:
        for learner in learners:
            trace = run(
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


# ------------------------------------------------------------------------- compare / demo


def _report(
    cmp: Any,
    plan: OutputPlan,
    quiet: bool,
    json_target: str | None = None,
    csv_target: str | None = None,
    figures: dict[str, Any] | None = None,
) -> int:
    from ..report import write_report

    out, paths = plan.folder, []
    if out is not None:
        with plan.staged() as stage:
            write_report(cmp, stage.path, **(figures or {}))
        paths = stage.files
    if not quiet and "-" not in (json_target, csv_target):
        print(cmp.reference.summary())
        print()
        print(cmp.to_markdown())
        if out is not None:
            print(f"\nwrote {len(paths)} files; the report is {display(out / 'report.md')}")
    _write_json(cmp.to_dict(), json_target)
    _write_table(cmp, csv_target)
    for row in cmp.rows:
        if row.get("diverged"):
            what = ":" if row["order"] == "external" else " diverged:"  # a trace from elsewhere
            warnings.warn(f"{row['label']} ({row['order']}){what} {row['diverged']}", stacklevel=1)
    return 0


#: ``compare``'s learners when neither ``--learners`` nor ``--trace`` is given.
DEFAULT_COMPARE = "perceptron,averaged_perceptron,pegasos,subgradient,pa1"


def _load_trace(path: str, data: Any, intercept: str) -> Any:
    """A trajectory file: what ``Trace.save`` writes, or a plain ``.npz`` of weights.

    ``Trace.save`` writes a ``.npz`` beside its ``.json`` (either may be given); a plain
    ``.npz`` holds ``t``, ``W`` and optionally ``b``, ``w_avg``, ``b_avg``, ``mistakes`` and
    ``kind``, read as ``Trace.from_weights`` reads them, with the problem's ``intercept``.
    """
    from ..exceptions import DataError, ParameterError
    from ..trace import Trace

    p = Path(path)
    if p.suffix not in (".npz", ".json") and (p.suffix or p.is_file()):
        raise DataError(
            f"--trace {path}: give a .npz file (or the .json beside one that Trace.save wrote)"
        )
    stem = p.with_suffix("") if p.suffix else p
    if stem.with_suffix(".json").exists() and stem.with_suffix(".npz").exists():
        return Trace.load(stem)
    npz = stem.with_suffix(".npz")
    if not npz.exists():
        if p.exists():  # e.g. a run's report.json: not a trajectory
            raise DataError(
                f"--trace {path}: a .json is read only beside the .npz Trace.save "
                f"wrote with it, and {display(npz)} does not exist; give a "
                "trajectory .npz (`run --out DIR` writes DIR/<learner>.npz), or a "
                "plain .npz with arrays t and W"
            )
        raise DataError(f"--trace {path}: no such file")
    try:
        with np.load(npz, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError) as e:
        raise DataError(f"--trace {path}: not a readable .npz ({e})") from None
    absent = [k for k in ("t", "W") if k not in arrays]
    if absent:
        raise DataError(
            f"--trace {path}: a plain .npz needs arrays t and W (and optionally "
            f"b, w_avg, b_avg, mistakes, kind); it lacks {', '.join(absent)}"
        )
    b = arrays.get("b")
    kind = str(arrays["kind"]) if "kind" in arrays else "objective"
    try:
        return Trace.from_weights(
            arrays["t"],
            arrays["W"],
            b,
            name=stem.name,
            data=data,
            intercept=intercept,
            w_avg=arrays.get("w_avg"),
            b_avg=arrays.get("b_avg"),
            mistakes=arrays.get("mistakes"),
            kind=kind,
        )
    except ParameterError as e:
        raise ParameterError(f"--trace {path}: {e}") from None


def _cmd_compare(args: argparse.Namespace) -> int:
    from ..evaluation.comparison import _check_steps, compare
    from ..exceptions import ParameterError
    from ..online.registry import learner_for
    from ..problem import SVMProblem

    plan = _outputs(args, _report_files(args, "checkpoints.csv"))
    if args.seeds < 1:
        raise ParameterError(f"The 'seeds' parameter must be an int >= 1. Got {args.seeds}")
    text = args.learners if args.learners is not None or args.trace else DEFAULT_COMPARE
    targets = [] if text is None else _learner_targets(text, "--learners")
    params = _learner_params(args, targets) if targets else []
    _check_weighted(args, targets)
    data = _load_data(args)
    holdout = _load_data(args, args.holdout, like=data) if args.holdout else None
    kw: dict[str, Any] = (
        {"lam": args.lam} if args.lam is not None else {"C": 1.0 if args.C is None else args.C}
    )
    problem = SVMProblem(data, intercept=args.intercept, **kw, **_weights(args, data))
    learners = [learner_for(t, problem, **p) for t, p in zip(targets, params, strict=True)]
    for learner in learners:  # their lam comes from the option given: name that one
        _check_steps(learner, problem, data.n, args.epochs, "C" if args.lam is None else "lam")
    traces = [_load_trace(path, data, args.intercept) for path in args.trace or []]
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


def _cmd_demo(args: argparse.Namespace) -> int:
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


# ------------------------------------------------------------------------- path


def _cmd_path(args: argparse.Namespace) -> int:
    from .._validation import check_int
    from ..evaluation.path import regularization_path as path
    from ..evaluation.path.grids import parse_grid
    from ..evaluation.path.learners import learners_along_path
    from ..report import write_path_report

    if args.exact and args.learners:
        from ..exceptions import ParameterError

        raise ParameterError("--learners runs at the grid's lambdas: use it without --exact")
    plan = _outputs(args, _report_files(args, "grid.csv", "breakpoints.csv"))
    out = plan.folder
    grid = parse_grid(args.C_grid if args.lam_grid is None else args.lam_grid)
    key = "C" if args.lam_grid is None else "lam"
    targets = None if args.learners is None else _learner_targets(args.learners, "--learners")
    _check_weighted(args, targets)
    entries = (
        None if targets is None else list(zip(targets, _learner_params(args, targets), strict=True))
    )
    if entries is not None:  # the learners run after the whole path: check their options now
        check_int("epochs", args.epochs, minimum=1)
        check_int("seed", args.seed, minimum=0)
        if args.jobs is not None:
            check_int("jobs", args.jobs, minimum=1)
    data = _load_data(args)
    holdout = _load_data(args, args.holdout, like=data) if args.holdout else None
    show = not args.quiet
    on_grid: dict[str, Any] = {key: grid, **_weights(args, data)}
    if args.exact:
        return _exact_path(args, data, holdout, on_grid, grid, plan, show)
    result = path(
        data,
        intercept=args.intercept,
        holdout=holdout,
        solver=args.solver,
        progress=show,
        **on_grid,
    )
    study = None
    if entries is not None:
        # the learners are built with the path's intercept (free: an unregularised bias)
        # and scored against the very optima of the table
        study = learners_along_path(
            data,
            learners=entries,
            epochs=args.epochs,
            seed=args.seed,
            exact=result,
            n_jobs=os.cpu_count() if args.jobs is None else args.jobs,
            progress=show,
        )
    paths: list[Path] = []
    if out is not None:
        with plan.staged() as stage:
            write_path_report(
                result,
                stage.path,
                study=study,
                **_figure_options(args),
                feature_names=data.feature_names,
            )
        paths = stage.files
    if show and _stdout_free(args):
        print(result.to_markdown())
        if out is not None:
            print(f"\nwrote {len(paths)} files; the report is {display(out / 'report.md')}")
    if args.json is not None:
        payload = result.to_dict()
        if study is not None:
            payload["learners"] = study.to_dict()
        _write_json(payload, args.json)
    _write_table(result, args.csv)
    return 0 if result.certified else 1


def _exact_path(
    args: argparse.Namespace,
    data: Any,
    holdout: Any,
    on_grid: dict[str, Any],
    grid: Any,
    plan: OutputPlan,
    show: bool,
) -> int:
    """``path --exact``: every breakpoint in the grid's range; figures over that range."""
    from ..evaluation.path import regularization_path as path
    from ..report import write_exact_path_report

    result = path(
        data,
        intercept=args.intercept,
        holdout=holdout,
        solver=args.solver,
        progress=show,
        exact=True,
        **on_grid,
    )
    Cs = grid if "C" in on_grid else 1.0 / (grid * data.n)
    out, paths = plan.folder, []
    if out is not None:
        with plan.staged() as stage:
            write_exact_path_report(
                result,
                stage.path,
                C_range=(float(min(Cs)), float(max(Cs)))
                if len(grid) > 1 and min(Cs) < max(Cs)
                else None,
                **_figure_options(args),
            )
        paths = stage.files
    if show and _stdout_free(args):
        print(result.to_markdown(max_rows=40))
        if out is not None:
            print(
                f"\nwrote {len(paths)} files; the report is {display(out / 'report.md')}, "
                f"every breakpoint in {display(out / 'breakpoints.csv')}"
            )
    if args.json is not None:
        _write_json(result.to_dict(include_segments=True), args.json)
    _write_table(result, args.csv)  # breakpoints.csv's rows
    return 0 if result.certified else 1


# ------------------------------------------------------------------------- study


def _cmd_study(args: argparse.Namespace) -> int:
    from ..studies import study

    result = study(
        args.spec,
        args.out,
        force=args.force,
        scheduler=args.scheduler,
        n_jobs=args.jobs,
        progress=not args.quiet,
        report=not args.no_report,
        **_figure_options(args),
    )
    if not args.quiet:
        print(result.summary())
    return 1 if result.failed else 0


# ------------------------------------------------------------------------- parser


def _example(*lines: str) -> str:
    return "example:\n" + "\n".join(f"  {line}" for line in lines)


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of the ``maxmargin`` command."""
    from .._version import __version__

    parser = _Parser(
        prog="maxmargin",
        description=(
            "Exact, certified linear max-margin classifiers, and online learners "
            "measured against them."
        ),
        epilog=_example("maxmargin demo"),
    )
    parser.add_argument("--version", action="version", version=f"maxmargin {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser(
        "solve",
        help="exact hard/soft-margin SVM with a certificate",
        epilog=_example(
            "maxmargin solve builtin:heart_scale --C 0.5 --json solution.json",
            "cat train.csv | maxmargin solve - --label y --json - > solution.json",
        ),
    )
    _add_data_args(p)
    _add_problem_args(p)
    _add_weight_args(p)
    p.add_argument(
        "--form",
        choices=("primal", "dual", "both"),
        default="dual",
        help="the QP the solver sees; both: solve each and say how far apart the answers are",
    )
    p.add_argument(
        "--solver",
        default=None,
        help="IPM, DCD (sparse high-dimensional data), PIQP, CLARABEL or a cvxpy "
        "QP solver (default: picked by measurement, see docs/benchmarks.md)",
    )
    p.add_argument(
        "--json",
        metavar="FILE",
        default=None,
        help="write the result as JSON to FILE; '-': stdout, and nothing else "
        "is printed there (default: not written)",
    )
    p.add_argument(
        "--liblinear-model",
        dest="liblinear_model",
        metavar="FILE",
        default=None,
        help="write the solution as a LIBLINEAR model file, for LIBLINEAR's "
        "predict (integer labels; default: not written)",
    )
    _add_verbosity(p, "no summary on stdout")
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser(
        "run",
        help="run online learners and record their traces",
        epilog=_example(
            "maxmargin run builtin:heart_scale --learner "
            "perceptron,pegasos --lam 0.01 --out traces/"
        ),
    )
    _add_data_args(p)
    p.add_argument(
        "--learner",
        required=True,
        help="comma-separated learners: names (perceptron, pegasos, pa1, ...), "
        "module:Class or path/file.py:Class (a learner of your own, "
        "docs/own-learner.md)",
    )
    p.add_argument(
        "--epochs",
        type=int,
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
    p.add_argument("--seed", type=int, default=0, help="seed of the order")
    p.add_argument(
        "--lam",
        type=float,
        default=None,
        help="lambda of pegasos / subgradient (default: each learner's own)",
    )
    p.add_argument(
        "--C", type=float, default=None, help="C of pa1 / pa2 (default: each learner's own)"
    )
    p.add_argument(
        "--eta0", type=float, default=None, help="eta0 of subgradient (default: the learner's own)"
    )
    p.add_argument(
        "--projection",
        default=None,
        choices=("lazy", "greedy"),
        help="pegasos: project onto the ball of radius 1/sqrt(lam) (default: no projection)",
    )
    p.add_argument(
        "--batch-size",
        dest="batch_size",
        type=int,
        default=None,
        help="pegasos: mini-batch size (default: the learner's own, 1)",
    )
    p.add_argument(
        "--intercept",
        choices=("none", "augmented", "free"),
        default=None,
        help="augmented: the bias is the weight of a constant feature, "
        "regularised; free: the same bias, unregularised (default: each "
        "learner's own, augmented for most)",
    )
    _add_learner_param_args(p)
    _add_out_args(p, None)
    p.add_argument(
        "--animate",
        metavar="OUT.gif",
        default=None,
        help="2-D data, one learner: write an animated GIF of the run (one frame "
        "per checkpoint) against the exact optimum and Novikoff's bound "
        "(default: none)",
    )
    p.add_argument(
        "--dpi",
        type=_dpi,
        default=100,
        help="--animate: resolution of the frames (default: 100)",
    )
    _add_verbosity(p, "no summary, no progress bar")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser(
        "compare",
        help="run learners against the certified optimum; report",
        epilog=_example(
            "maxmargin compare builtin:heart_scale --lam 0.01 "
            "--learners pegasos,pa1 --seeds 3 --out report/"
        ),
    )
    _add_data_args(p)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--C", type=float, default=None, help="soft margin penalty (default 1)")
    g.add_argument(
        "--lam",
        type=float,
        default=None,
        help="lambda form, lam = 1/(C n), instead of C (default: the C form)",
    )
    p.add_argument(
        "--intercept",
        choices=("augmented", "none", "free"),
        default="augmented",
        help="the problem's, and the learners' mode: augmented (the bias a "
        "regularised weight), none, or free (b unregularised, the SVM of "
        "solve and path; the learners update it without shrinking it)",
    )
    _add_weight_args(p)
    p.add_argument(
        "--learners",
        default=None,
        help="comma-separated learners: names, module:Class or "
        "path/file.py:Class (default: perceptron, averaged_perceptron, "
        "pegasos, subgradient, pa1; none when --trace is given)",
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
    p.add_argument("--epochs", type=int, default=10, help="passes over the data per run")
    p.add_argument("--order", default="shuffle", help="comma-separated: cyclic, shuffle, sample")
    p.add_argument("--seeds", type=int, default=1, help="number of seeds (0..K-1)")
    p.add_argument(
        "--holdout", default=None, help="held-out data file (same features; default: none)"
    )
    p.add_argument(
        "--solver", default=None, help="QP solver of the exact reference (default: measured best)"
    )
    _add_out_args(p, "maxmargin-compare", json=True)
    p.add_argument(
        "--csv",
        metavar="FILE",
        default=None,
        help="write one row per run and checkpoint (the report's "
        "checkpoints.csv) to FILE; '-': stdout (default: not written)",
    )
    _add_figure_args(p)
    _add_verbosity(p, "no summary, no progress bar")
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser(
        "path",
        help="exact C / lambda regularization path, certified",
        epilog=_example(
            "maxmargin path builtin:heart_scale --C-grid 1e-3:1e2:20 --out heart-path/",
            "maxmargin path data.csv --exact --json - > path.json",
        ),
    )
    _add_data_args(p)
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
        default=None,
        help="a grid of lambda instead of C (default: the C grid)",
    )
    p.add_argument(
        "--intercept",
        choices=INTERCEPTS,
        default=DEFAULT_INTERCEPT,
        help="free: b unregularised (SVC's problem); none: b = 0; augmented: "
        "x -> (x, 1), b regularised (LinearSVC's)",
    )
    _add_weight_args(p)
    p.add_argument(
        "--holdout", default=None, help="held-out data file (same features; default: none)"
    )
    p.add_argument(
        "--exact",
        action="store_true",
        help="every breakpoint of the path in the grid's range (up to the "
        "hard-margin C* at most), each certified",
    )
    p.add_argument(
        "--learners",
        default=None,
        help="also run these learners at each lambda, with the path's intercept "
        "(names such as pegasos,subgradient,pa1, module:Class or "
        "path/file.py:Class; default: none)",
    )
    _add_learner_param_args(p)
    p.add_argument("--epochs", type=int, default=10, help="learners' budget per lambda")
    p.add_argument("--seed", type=int, default=0, help="seed of the learners' orders")
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="processes for the learners (default: the number of CPUs)",
    )
    p.add_argument(
        "--solver", default=None, help="QP solver of the points (default: measured best)"
    )
    _add_out_args(p, "maxmargin-path", json=True)
    p.add_argument(
        "--csv",
        metavar="FILE",
        default=None,
        help="write one row per grid point (the report's grid.csv; with --exact "
        "one per event, its breakpoints.csv) to FILE; '-': stdout (default: "
        "not written)",
    )
    _add_figure_args(p)
    _add_verbosity(p, "no table, no progress bar")
    p.set_defaults(func=_cmd_path)

    p = sub.add_parser(
        "study",
        help="data sets x C x learners x seeds: resumable, local or Dask; one table and a report",
        epilog=_example("maxmargin study examples/study.toml --out study/ --jobs 4"),
    )
    p.add_argument("spec", metavar="STUDY.toml", help="the study (see docs/study.md)")
    p.add_argument(
        "--out",
        metavar="DIR",
        default="maxmargin-study",
        help="output folder; finished cells found there are not run again",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty DIR that maxmargin did not write",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        help="tcp://HOST:PORT of a Dask scheduler, or local:N for N local Dask "
        "workers (default: local processes)",
    )
    p.add_argument(
        "--jobs", type=int, default=None, help="local processes (default: the number of CPUs)"
    )
    p.add_argument(
        "--no-report",
        dest="no_report",
        action="store_true",
        help="write the table only (no report.md, no figures)",
    )
    _add_figure_args(p, formats="png")
    _add_verbosity(p, "no summary, no progress line")
    p.set_defaults(func=_cmd_study)

    p = sub.add_parser(
        "demo",
        help="built-in data end to end: solve + compare + figures",
        epilog=_example("maxmargin demo --out demo/"),
    )
    _add_out_args(p, "maxmargin-demo")
    _add_figure_args(p)
    _add_verbosity(p, "no summary, no progress bar")
    p.set_defaults(func=_cmd_demo)
    return parser


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """One ``maxmargin: warning: ...`` line instead of Python's two with the source line."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        text = " ".join(str(message).split())
        print(f"maxmargin: warning: {text}", file=sys.stderr if file is None else file)


@contextlib.contextmanager
def _cli_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _show_warning
        yield


def _execute(args: argparse.Namespace) -> int:
    """Run the parsed command; every error maxmargin knows of becomes one line on stderr."""
    try:
        with _cli_warnings(), _verbosity(args), notes_silenced(getattr(args, "quiet", False)):
            return int(args.func(args))
    except _UsageError as e:
        print(e, file=sys.stderr)
        return 2
    except CertificateError as e:
        print(f"maxmargin: check failed: {e}", file=sys.stderr)
        return 1
    except MaxMarginError as e:
        if getattr(args, "verbose", False) and e.__cause__ is not None:  # a learner's own bug
            import traceback

            traceback.print_exception(e.__cause__, file=sys.stderr)
        print(f"maxmargin: error: {e}", file=sys.stderr)
        return 2
    except MemoryError:
        print(
            "maxmargin: error: out of memory (the data are too large for this machine)",
            file=sys.stderr,
        )
        return 2
    except BrokenPipeError:
        # the reader (e.g. `| head`) went away: not an error of ours
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:  # a file that changed under us after the checks (disk full, ...)
        where = f"{display(e.filename)}: " if e.filename else ""
        print(f"maxmargin: error: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        from ..io.files import remove_temporaries

        remove_temporaries()
        print("maxmargin: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug: one line, not a traceback (-v shows it)
        return _internal_error(e, getattr(args, "verbose", False))


#: The exit code of an error maxmargin did not expect (a bug): sysexits.h's EX_SOFTWARE,
#: apart from 1 (a check failed) and 2 (bad input).
EXIT_INTERNAL = 70


def _internal_error(e: Exception | str, verbose: bool) -> int:
    """An exception maxmargin did not expect (a bug): :data:`EXIT_INTERNAL`.

    One line; the traceback with -v. ``e`` may be the text of the line instead.
    """
    with contextlib.suppress(OSError, ValueError):
        if verbose and isinstance(e, Exception):
            import traceback

            traceback.print_exception(e, file=sys.stderr)
        text = e if isinstance(e, str) else f"{type(e).__name__}: {' '.join(str(e).split())}"
        print(
            f"maxmargin: internal error: {text} (please report it to the maxmargin "
            "developers, with the command line"
            + ("" if verbose or isinstance(e, str) else "; -v shows the traceback")
            + ")",
            file=sys.stderr,
        )
    return EXIT_INTERNAL


class _Stop(BaseException):
    """SIGTERM / SIGHUP in the supervising process."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _output_dirs(args: argparse.Namespace) -> list[tuple[Path, bool]]:
    """The directories the command may write into, and whether each exists already."""
    dirs = []
    for option in ("json", "csv", "liblinear_model"):
        if getattr(args, option, None) not in (None, "-"):
            dirs.append(Path(getattr(args, option)).parent)
    target = _out_target(args)
    if target is not None:
        dirs.append(Path(target))
    return [(d, d.exists()) for d in dirs]


def _supervise(args: argparse.Namespace) -> int:
    """Run the command in a child process and stop it at once on Ctrl-C.

    Compiled code (PIQP's C++ solve, numba loops) holds the interpreter for as long as it
    runs, so a KeyboardInterrupt raised in the same process waits for it (90 s and more
    on a large problem). The parent only waits: on SIGINT (or SIGTERM, SIGHUP) it kills
    the child's process group, removes the temporary files the child left, prints one line
    and exits 130 (143, 129). The child has its own process group, so the terminal's
    Ctrl-C reaches the parent only, and the kill reaches the learners' worker processes.

    Two pipes tie the child to this process. The child's guard (:func:`_guard`) holds the
    read end of ``tie``, whose write end only this process has: if this process dies
    without a word (SIGKILL), the guard sees the pipe close and kills the child's group.
    The child writes its exit code to ``result`` when it has one: a child that ends
    without (a learner's ``os._exit``) is an error, not a silent success.
    """
    dirs = _output_dirs(args)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    lifeline, tie = os.pipe()
    result_r, result_w = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # no process to spare: work here (Ctrl-C waits for compiled code)
        for fd in (lifeline, tie, result_r, result_w):
            os.close(fd)
        return _execute(args)
    if pid == 0:
        os.close(tie)
        os.close(result_r)
        _child(args, lifeline, result_w, dirs)
    os.close(lifeline)
    os.close(result_w)
    try:
        code = _wait(args, pid, dirs, result_r)
    finally:
        os.close(result_r)
    # the child is gone and its group killed: the guard may go (an exception above leaves
    # the tie to close with this process, and the guard to finish the kill)
    with contextlib.suppress(OSError):
        os.write(tie, b".")
    os.close(tie)
    return code


def _child(
    args: argparse.Namespace, lifeline: int, result: int, dirs: list[tuple[Path, bool]]
) -> NoReturn:
    """The child's life: its process group, its guard, the work, its exit code written."""
    code = None
    try:
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        _guard(lifeline, result, dirs)
        code = _execute(args)
    except Exception as e:  # a bug: os._exit below would swallow the traceback
        code = _internal_error(e, getattr(args, "verbose", False))
    finally:  # (a SystemExit from code not maxmargin's: no result, the parent says so)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        if code is not None:
            with contextlib.suppress(OSError):
                os.write(result, bytes([code & 0xFF]))
        os._exit(1 if code is None else code)


def _guard(lifeline: int, result: int, dirs: list[tuple[Path, bool]]) -> None:
    """Fork the guard: it kills this process's group if the supervisor dies first.

    The guard waits on ``lifeline``, a pipe whose write end only the supervisor holds:
    the supervisor writes one byte once it has waited for the child (or killed it); end
    of file without that byte means it was killed (SIGKILL), so the guard kills the child
    and its workers and removes their temporary files as the supervisor would. Portable
    (no ``prctl(PR_SET_PDEATHSIG)``, which Linux alone has and which would spare the
    workers), and it works while the child is stuck in compiled code. The guard has its
    own process group, so that it survives the kill it sends.
    """
    child = os.getpid()
    try:
        guard = os.fork()
    except OSError:  # no process to spare: the work goes on unguarded
        guard = 1
    if guard != 0:
        os.close(lifeline)
        return
    try:
        os.close(result)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # not the caller's pipes: they end with the command
            os.dup2(null, fd)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        os.setpgid(0, 0)
        if not os.read(lifeline, 1):
            _kill(child, dirs, wait=False)
    finally:
        os._exit(0)


def _wait(args: argparse.Namespace, pid: int, dirs: list[tuple[Path, bool]], result: int) -> int:
    """Wait for the child; on SIGINT, SIGTERM or SIGHUP kill it. Its exit code."""

    def stop(signum: int, frame: Any) -> None:
        raise _Stop(signum)

    try:
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
        try:
            _, status = os.waitpid(pid, 0)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    except (KeyboardInterrupt, _Stop) as e:
        signum = e.signum if isinstance(e, _Stop) else signal.SIGINT
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: the kill goes on
        _kill(pid, dirs)
        if sys.stderr.isatty():
            sys.stderr.write("\n")
        print(
            "maxmargin: interrupted"
            if signum == signal.SIGINT
            else f"maxmargin: stopped by {signal.Signals(signum).name}",
            file=sys.stderr,
        )
        return 128 + signum
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # the child was killed (the kernel's out-of-memory killer sends SIGKILL)
        _kill(pid, dirs, wait=False)
        why = " (out of memory?)" if -code == signal.SIGKILL else ""
        print(
            f"maxmargin: error: the computation was killed by {signal.Signals(-code).name}{why}",
            file=sys.stderr,
        )
        return 128 - code
    os.set_blocking(result, False)
    try:
        delivered = bool(os.read(result, 1))
    except BlockingIOError:  # a process the child forked still holds the write end
        delivered = False
    if delivered:
        return code
    _kill(pid, dirs, wait=False)
    what = f"the computation ended without a result (exit status {code})"
    mine = [
        t.strip()
        for option in ("learner", "learners")
        for t in (getattr(args, option, None) or "").split(",")
        if ":" in t
    ]
    if not mine:
        return _internal_error(what, getattr(args, "verbose", False))
    print(
        f"maxmargin: error: {what}: did the learner {' or '.join(map(repr, mine))} call os._exit?",
        file=sys.stderr,
    )
    return 2


def _kill(pid: int, dirs: list[tuple[Path, bool]], wait: bool = True) -> None:
    """Kill process group ``pid``, remove its temporary files and the folders it made.

    With ``wait``, ``pid`` is a child of this process not yet waited for: it is killed
    (were it not its group's leader yet) and waited for. Without, it may have been
    waited for already, and its number may be another process's: the group only.
    """
    from ..io.files import remove_temporaries

    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    if wait:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)
    remove_temporaries([d for d, _ in dirs], pid)
    for d, existed in dirs:  # a directory the child created and left empty
        if not existed:
            with contextlib.suppress(OSError):
                d.rmdir()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``maxmargin`` command; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default ``sys.argv[1:]``). Without ``argv`` (the installed
        command) on a system with ``fork``, the work runs in a child process so that
        Ctrl-C stops any route within a second (see :func:`_supervise`), and the process
        ends with the exit code instead of returning. With ``argv`` it runs in this
        process, and Ctrl-C is seen when compiled code returns.

    Returns
    -------
    int
        0 ok, 1 a certificate or check failed, 2 bad usage / data / output, 70 an
        error maxmargin did not expect (a bug: one line, the traceback with ``-v``), 130
        interrupted.
    """
    try:
        from .._startup import started

        started()  # Ctrl-C raises KeyboardInterrupt again, handled here and below
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except _UsageError as e:
            print(e, file=sys.stderr)
            return 2
        if args.command is None:
            parser.print_help()
            return 2
        if argv is None and hasattr(os, "fork"):
            code = _supervise(args)
            # the parent did no work: skip the interpreter's teardown (numba, scipy...)
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(OSError, ValueError):
                    stream.flush()
            os._exit(code)
        return _execute(args)
    except KeyboardInterrupt:
        print("maxmargin: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
