"""The child process that does a command's work, and the parent that stops it on a signal."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from .._startup import STOPS
from .options import _FILES, _out_target

#: What the child runs: the parsed command, its exit code (:func:`maxmargin.cli.main._execute`).
Work = Callable[[argparse.Namespace], int]


#: The exit code of an error maxmargin did not expect (a bug): sysexits.h's EX_SOFTWARE,
#: apart from 1 (a check failed) and 2 (bad input).
EXIT_INTERNAL = 70


def _internal_error(e: Exception | str, verbose: bool) -> int:
    """An exception maxmargin did not expect (a bug), or its text: one line; EXIT_INTERNAL."""
    with contextlib.suppress(OSError, ValueError):
        if verbose and isinstance(e, Exception):
            import traceback

            traceback.print_exception(e, file=sys.stderr)
        if isinstance(e, str):
            text = e
        else:
            from .._validation import failure  # safe where str(e) itself raises

            text = failure(e).removeprefix("raised ")
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
    for _, option in _FILES:
        if getattr(args, option, None) not in (None, "-"):
            dirs.append(Path(getattr(args, option)).parent)
    target = _out_target(args)
    if target is not None:
        dirs.append(Path(target))
    return [(d, d.exists()) for d in dirs]


def _supervise(args: argparse.Namespace, execute: Work) -> int:
    """Run the command in a child process and stop it at once on Ctrl-C.

    Compiled code (PIQP, numba) holds the interpreter while it runs, so a KeyboardInterrupt in
    the same process waits for it. The parent only waits: on SIGINT (SIGTERM, SIGHUP) it kills
    the child's process group, removes its temporary files, prints one line and exits 130
    (143, 129). The child's guard (:func:`_guard`) reads ``tie``, which only this process can
    write: if this process dies unannounced, the guard kills the child. The child writes its
    exit code to ``result``: a child that ends without one is an error, not a success.
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
        return execute(args)
    if pid == 0:
        os.close(tie)
        os.close(result_r)
        _child(args, execute, lifeline, result_w, dirs)
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
    args: argparse.Namespace,
    execute: Work,
    lifeline: int,
    result: int,
    dirs: list[tuple[Path, bool]],
) -> NoReturn:
    """The child's life: its process group, its guard, the work, its exit code written."""
    code = None
    try:
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        for sig in STOPS:  # the start-up's one-line handler stays with the parent
            signal.signal(sig, signal.SIG_DFL)
        _guard(lifeline, result, dirs)
        _own_streams()
        code = execute(args)
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


def _own_streams() -> None:
    """Point stdout and stderr at private copies: a learner's ``os.close(1)`` spares them."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            stream.flush()
            fd = os.dup(stream.fileno())
        except (OSError, ValueError, AttributeError):  # closed, or not a real file
            continue
        setattr(
            sys,
            name,
            open(  # noqa: SIM115 -- the process's stream until it ends
                fd,
                "w",
                buffering=1 if stream.line_buffering else -1,
                encoding=stream.encoding,
                errors=stream.errors,
            ),
        )


def _guard(lifeline: int, result: int, dirs: list[tuple[Path, bool]]) -> None:
    """Fork the guard: it kills this process's group if the supervisor dies first.

    It waits on ``lifeline``, whose write end only the supervisor holds; end of file without
    the supervisor's byte means the supervisor was killed. Portable (no ``PR_SET_PDEATHSIG``,
    which would spare the workers); its own process group survives the kill it sends.
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

    With ``wait``, ``pid`` is an unwaited child of ours: killed itself too, and waited for.
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
