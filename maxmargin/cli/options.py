"""What the commands share: the parser, the option groups, reading DATA, the outputs' check."""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..conventions import DEFAULT_INTERCEPT, INTERCEPTS
from ..exceptions import MaxMarginError
from ..io.files import OutputPlan, atomic_write, check_outputs, display
from ..io.json import dumps

if TYPE_CHECKING:  # pragma: no cover
    from ..kernels import Kernel


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
    """argparse that reports a usage error in one line (exit 2), naming its command's help."""

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
        """Parse as argparse does, naming the help of the parser an unknown option concerns.

        argparse would name ``maxmargin --help`` for an unknown option after a command, and hand
        one before the command to the command; an option of the command given before it is told
        to go after it.
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


def _write_table(result: Any, target: str | None, table: Any = None) -> None:
    """``--csv``: the result's tidy table (``to_csv``, or ``table``) to a file or stdout."""
    if target is None:
        return
    from ..io import tables

    file = None if target == "-" else target
    text = result.to_csv(file) if table is None else tables.csv(table, result, file)
    if file is None:
        sys.stdout.write(text)


def _load_data(args: argparse.Namespace, path: str | None = None, like: Any = None) -> Any:
    """Load DATA, or the file ``path`` read like the Dataset ``like`` (LIBSVM: its base)."""
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
    """``--out``, or the command's default folder; None when ``--json`` or ``--csv`` replaces it."""
    if getattr(args, "out", None) is not None:
        return args.out
    if getattr(args, "json", None) is not None or getattr(args, "csv", None) is not None:
        return None
    return getattr(args, "default_out", None)


_INPUTS = (("DATA", "data"), ("--holdout", "holdout"), ("--weights", "weights"))
_TRACE = (".npz", ".json")
#: The options that name a file to write: checked before any work (:func:`_outputs`), and
#: their folders searched for a killed child's temporary files (``supervisor._output_dirs``).
_FILES = (
    ("--json", "json"),
    ("--csv", "csv"),
    ("--liblinear-model", "liblinear_model"),
    ("--animate", "animate"),
)


def _inputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """Every file the command reads (a ``--trace``: its .npz and .json; a learner: its .py)."""
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

    ``writes``: what the command writes into ``--out`` (``report.md``, ``*.png``, ...).
    """
    files = {name: getattr(args, attr, None) for name, attr in _FILES}
    return check_outputs(
        args.command,
        files,
        folder=_out_target(args),
        writes=writes,
        inputs=_inputs(args),
        force=getattr(args, "force", False),
    )


def _report_files(args: argparse.Namespace, *tables: str) -> list[str]:
    """What a report writes into ``--out``: report.md/.json, ``tables``, table.tex, figures."""
    figures = () if getattr(args, "no_figures", False) else args.figure_formats
    files = ["report.md", "report.json", *tables, "table.tex"]
    return files + [f"*.{fmt}" for fmt in figures]


@contextlib.contextmanager
def _verbosity(args: argparse.Namespace) -> Iterator[None]:
    """``-v``: maxmargin's decisions and the QP solvers' own log, on stderr."""
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
    if getattr(args, "loss", None) is not None:  # solve's --loss
        kw["loss"] = args.loss
    if getattr(args, "hard", False):
        kw["hard"] = True
    elif getattr(args, "lam", None) is not None:
        kw["lam"] = args.lam
    else:
        kw["C"] = 1.0 if getattr(args, "C", None) is None else args.C
    return SVMProblem(data, **kw)


def _weights(args: argparse.Namespace, data: Any) -> dict[str, Any]:
    """``--weights`` and ``--class-weight`` (those given) as ``SVMProblem`` keywords."""
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
        help="example weights, one number per line in the data's order (a "
        "header line and # comments are skipped): example i costs "
        "C_i = C w_i (weight 0 leaves it out; soft margin only; default: "
        "every weight 1)",
    )
    p.add_argument(
        "--class-weight",
        dest="class_weight",
        type=_class_weight,
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
        help="CSV: name or 0-based index of the label column (default: the last)",
    )
    p.add_argument(
        "--header",
        action=argparse.BooleanOptionalAction,
        help="CSV: the first row is (not) a header (default: detected from the feature columns)",
    )
    p.add_argument(
        "--positive",
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


def _add_out_args(p: argparse.ArgumentParser, default: str | None, csv: str | None = None) -> None:
    """``--out DIR`` (``default``: the report's), ``--force``; with ``csv``, ``--json/--csv``."""
    if default is None:
        what = "write DIR/<learner>.npz and DIR/<learner>.json (default: not written)"
    else:
        what = f"where the report goes (default: {default}" + (
            "; none when --json or --csv is given without --out)" if csv else ")"
        )
    p.add_argument("--out", metavar="DIR", help=what)
    p.set_defaults(default_out=default)
    _add_option(p, "--force")
    if csv is not None:
        _add_json_arg(p, "the report's JSON (report.json)")
        p.add_argument(
            "--csv",
            metavar="FILE",
            help=f"write {csv} to FILE; '-': stdout (default: not written)",
        )


def _add_json_arg(p: argparse.ArgumentParser, what: str) -> None:
    """``--json FILE``: ``what`` as JSON, to a file or alone on stdout."""
    p.add_argument(
        "--json",
        metavar="FILE",
        help=f"write {what} to FILE; '-': stdout, and nothing else is printed there "
        "(default: not written)",
    )


def _add_learner_param_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--learner-param",
        dest="learner_param",
        action="append",
        metavar="KEY=VALUE",
        help="a constructor parameter of the learners that take KEY (repeatable; "
        "VALUE read as JSON when it parses, else as a string; default: none)",
    )
    p.add_argument(
        "--step",
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


#: Options that several commands take, each declared here once; a command adds its own
#: words (``help``) and, where it differs, its ``default`` (:func:`_add_option`).
_OPTIONS: dict[str, dict[str, Any]] = {
    "--learners": {},
    "--epochs": {"type": int},
    "--seed": {"type": int, "default": 0},
    "--holdout": {"help": "held-out data file (same features; default: none)"},
    "--solver": {},
    "--jobs": {"type": int},
    "--force": {
        "action": "store_true",
        "help": "write into a non-empty DIR that maxmargin did not write",
    },
    "--dpi": {"type": _dpi},
}


def _add_loss_arg(p: argparse.ArgumentParser, what: str) -> None:
    """``--loss``: the problem's loss (``solve``, ``compare``, ``path``), ``what`` it does there."""
    from ..conventions import DEFAULT_LOSS, LOSSES

    p.add_argument(
        "--loss",
        choices=LOSSES,
        default=DEFAULT_LOSS,
        help=f"the soft margin's loss of each slack: hinge (xi_i, SVC's) or squared_hinge "
        f"(xi_i^2, the L2-loss SVM, LinearSVC's default); {what} (default: {DEFAULT_LOSS})",
    )


def _add_option(p: argparse._ActionsContainer, name: str, **words: Any) -> None:
    """Add the shared option ``name`` (:data:`_OPTIONS`) with the command's ``words``."""
    p.add_argument(name, **{**_OPTIONS[name], **words})


#: What ``compare`` (and ``demo``) draw, and write without figures (``--no-figures``).
COMPARE_FIGURES = (
    "suboptimality, suboptimality_time, gaps, regret, mistakes, and the boundary of 2-D data"
)
COMPARE_FILES = "report.md, report.json, checkpoints.csv and table.tex"


def _add_figure_args(
    p: argparse.ArgumentParser,
    *,
    draws: str,
    writes: str,
    formats: str = "png,svg",
    dpi: int = 150,
) -> None:
    """``--format``, ``--dpi``, ``--no-figures``: how a report's figures are written.

    ``draws`` names the figures and ``writes`` the files written without them (``--no-figures``'
    help names both).
    """
    g = p.add_argument_group("figures (need matplotlib: pip install 'maxmargin[plot]')")
    g.add_argument(
        "--format",
        dest="figure_formats",
        metavar="FMT[,FMT]",
        type=_figure_formats,
        default=_figure_formats(formats),
        help=f"figure formats, comma-separated: png, pdf, svg, eps, ... (default: {formats})",
    )
    _add_option(g, "--dpi", default=dpi, help=f"resolution of the raster figures (default: {dpi})")
    g.add_argument(
        "--no-figures",
        dest="no_figures",
        action="store_true",
        help=f"draw no figures (not {draws}): write {writes} only",
    )


def _figure_options(args: argparse.Namespace) -> dict[str, Any]:
    """The figure arguments of the report writers, from ``_add_figure_args``."""
    return {"formats": args.figure_formats, "dpi": args.dpi, "figures": not args.no_figures}


def _add_penalty_args(p: argparse.ArgumentParser, *, allow_hard: bool = True) -> None:
    """``--C`` | ``--lam`` (| ``--hard``): the problem's penalty, one of them."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--C", type=float, help="soft margin penalty (default 1)")
    g.add_argument(
        "--lam",
        type=float,
        help="lambda form, lam = 1/(C n), instead of C (default: the C form)",
    )
    if allow_hard:
        g.add_argument("--hard", action="store_true", help="hard margin")


def _add_intercept_arg(p: argparse.ArgumentParser) -> None:
    """``--intercept`` of the SVM problem (``solve``, ``path``)."""
    p.add_argument(
        "--intercept",
        choices=INTERCEPTS,
        default=DEFAULT_INTERCEPT,
        help="free: b unregularised (SVC's problem); none: b = 0; augmented: "
        f"x -> (x, 1), b regularised (LinearSVC's) (default: {DEFAULT_INTERCEPT})",
    )


def _command(
    sub: argparse._SubParsersAction[_Parser], name: str, summary: str, *examples: str
) -> _Parser:
    """The parser of the command ``name``: its line in ``maxmargin --help``, its examples."""
    return sub.add_parser(name, help=summary, epilog=_example(*examples))


#: The kernels ``--kernel`` names (a callable or a precomputed Gram: from Python only).
KERNEL_NAMES = ("rbf", "poly", "sigmoid", "linear")


def _add_kernel_args(p: argparse.ArgumentParser, what: str) -> None:
    """``--kernel``, ``--gamma``, ``--degree``, ``--coef0`` (solve, compare); ``what``: its help."""
    k = p.add_argument_group("kernel SVM (docs/kernels.md)")
    k.add_argument("--kernel", choices=KERNEL_NAMES, help=what)
    k.add_argument(
        "--gamma",
        metavar="G|scale|auto",
        help="rbf, poly, sigmoid: a float > 0, 'scale' (1/(d X.var()), as SVC) or "
        "'auto' (1/d) (default: scale)",
    )
    k.add_argument("--degree", metavar="D", help="poly: an integer >= 0 (default 3)")
    k.add_argument("--coef0", type=float, metavar="R", help="poly, sigmoid (default 0)")


def _kernel_options(args: argparse.Namespace) -> list[str]:
    """The kernel parameters given (``--gamma``, ``--degree``, ``--coef0``)."""
    return [f"--{o}" for o in ("gamma", "degree", "coef0") if getattr(args, o) is not None]


def _kernel_param_refusal(args: argparse.Namespace, linear: str, owner: str) -> str | None:
    """Why the kernel options cannot go together (None: they can), before any work.

    ``linear``: what the command does without ``--kernel``; ``owner``: whose options the linear
    ones are, in the messages.
    """
    from ..conventions import DEFAULT_LOSS
    from ..kernel_problem import KERNEL_INTERCEPTS

    given = _kernel_options(args)
    if args.kernel is None:
        verb = "needs" if len(given) == 1 else "need"
        return f"{', '.join(given)} {verb} --kernel ({linear} has no kernel parameters)"
    used = {"rbf": ("--gamma",), "poly": ("--gamma", "--degree", "--coef0")}
    used["sigmoid"] = ("--gamma", "--coef0")
    stray = [o for o in given if o not in used.get(args.kernel, ())]
    if stray:
        verb = "does" if len(stray) == 1 else "do"
        return f"{', '.join(stray)} {verb} not apply to the {args.kernel} kernel"
    if args.loss != DEFAULT_LOSS:
        return f"--loss {args.loss} is {owner}; a kernel SVM solves the hinge"
    if args.intercept not in KERNEL_INTERCEPTS:
        return (
            f"--intercept {args.intercept} is {owner}; a kernel SVM takes "
            f"{' or '.join(KERNEL_INTERCEPTS)}"
        )
    return None


def _kernel(args: argparse.Namespace) -> Kernel:
    """``--kernel`` with its parameters, checked (``ParameterError``: exit 2)."""
    from ..exceptions import ParameterError
    from ..kernels import make_kernel

    kw: dict[str, Any] = {}
    if args.gamma is not None:
        g = args.gamma.strip()
        try:
            kw["gamma"] = g if g in ("scale", "auto") else float(g)
        except ValueError:
            raise ParameterError(
                f"--gamma must be a float > 0, 'scale' or 'auto', got {args.gamma!r}"
            ) from None
    if args.degree is not None:
        try:
            kw["degree"] = int(args.degree)
        except ValueError:
            raise ParameterError(f"--degree must be an integer >= 0, got {args.degree!r}") from None
    if args.coef0 is not None:
        kw["coef0"] = args.coef0
    try:
        return make_kernel(args.kernel, **kw)
    except ParameterError as e:  # the Python parameter's words, the option's name
        raise ParameterError(f"--kernel {args.kernel}: {e}") from None


def _report(
    cmp: Any,
    plan: OutputPlan,
    quiet: bool,
    json_target: str | None = None,
    csv_target: str | None = None,
    figures: dict[str, Any] | None = None,
) -> int:
    """Write a comparison's (or a kernel comparison's) outputs; the exit code."""
    from ..evaluation.kernel_scoring import KernelComparison
    from ..report import write_report
    from ..report.comparison import markdown
    from ..report.kernel import CHECKPOINTS

    kernel = isinstance(cmp, KernelComparison)
    out, paths = plan.folder, []
    if out is not None:
        with plan.staged() as stage:
            write_report(cmp, stage.path, **(figures or {}))
        paths = stage.files
    if not quiet and "-" not in (json_target, csv_target):
        print(cmp.summary() if kernel else f"{cmp.reference.summary()}\n\n{markdown(cmp)}")
        if out is not None:
            print(f"\nwrote {len(paths)} files; the report is {display(out / 'report.md')}")
    _write_json(cmp.to_dict(), json_target)
    _write_table(cmp, csv_target, CHECKPOINTS if kernel else None)
    for row in cmp.rows:
        if row.get("diverged"):
            what = ":" if row["order"] == "external" else " diverged:"  # a trace from elsewhere
            warnings.warn(f"{row['label']} ({row['order']}){what} {row['diverged']}", stacklevel=1)
    return 1 if kernel and not cmp.optimum.certificate.ok else 0  # a kernel optimum not certified


def _example(*lines: str) -> str:
    return "example:\n" + "\n".join(f"  {line}" for line in lines)
