"""The ``maxmargin`` command: its parser, assembled from one module per command, and main."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from .._progress import notes_silenced
from ..exceptions import CertificateError, MaxMarginError
from ..io.files import display
from . import check, compare, demo, path, run, solve, study
from .options import _example, _Parser, _UsageError, _verbosity
from .supervisor import _internal_error, _supervise


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

    for command in (solve, run, compare, path, study, check, demo):
        command.add(sub)
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``maxmargin`` command; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default ``sys.argv[1:]``). Without ``argv`` (the installed command),
        where ``fork`` exists, the work runs in a supervised child so that Ctrl-C stops it
        within a second, and the process ends with the exit code instead of returning.

    Returns
    -------
    int
        0 ok, 1 a certificate or check failed, 2 bad usage / data / output, 70 an error
        maxmargin did not expect (the traceback with ``-v``), 130 interrupted.
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
            code = _supervise(args, _execute)
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
