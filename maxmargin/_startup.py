"""Ctrl-C (SIGTERM, SIGHUP) while the ``maxmargin`` command starts up: one line, exit 128 + signal.

Imported first by the package, so the handler is in place during the imports and until
:func:`maxmargin.cli.main` takes over (:func:`started`); only in the command.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import PurePath
from types import FrameType


def _interrupted(signum: int, frame: FrameType | None) -> None:
    """Nothing is computed or written yet: end now, with the command's one line."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.write(
            "maxmargin: interrupted\n"
            if signum == signal.SIGINT
            else f"maxmargin: stopped by {signal.Signals(signum).name}\n"
        )
        sys.stderr.flush()
    os._exit(128 + signum)


def started() -> None:
    """Give Ctrl-C back to Python's KeyboardInterrupt, which the command handles."""
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _command() -> bool:
    """Whether this process is the ``maxmargin`` command (the console script)."""
    argv = getattr(sys, "argv", None) or [""]
    return PurePath(str(argv[0])).stem in ("maxmargin", "maxmargin-script")


#: What a terminal or a service manager sends to stop the command: SIGTERM and SIGHUP keep
#: this handler until the supervising parent takes them over (the child resets them).
STOPS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

if _command():
    with contextlib.suppress(ValueError):  # not the main thread: leave it
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _interrupted)
        for sig in STOPS:
            if signal.getsignal(sig) == signal.SIG_DFL:
                signal.signal(sig, _interrupted)
