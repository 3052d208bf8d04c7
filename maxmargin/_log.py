"""maxmargin's DEBUG logger ``"maxmargin"`` (the command's ``-v``), and the solvers' logs.

The QP solvers' iteration logs are silent unless :func:`solver_log` switches them on; they
then go to stderr (:func:`solver_output`), so that stdout keeps only what the program prints.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import sys
from collections.abc import Iterator

__all__ = ["logger", "solver_log", "solver_log_enabled", "solver_output"]

#: The logger of maxmargin's decisions (``logging.getLogger("maxmargin")``).
logger = logging.getLogger("maxmargin")

_SOLVER_LOG: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "maxmargin_solver_log", default=False
)


def solver_log_enabled() -> bool:
    """Whether the QP solvers should print their iteration log (inside :func:`solver_log`)."""
    return _SOLVER_LOG.get()


@contextlib.contextmanager
def solver_log(enabled: bool = True) -> Iterator[None]:
    """Let PIQP / Clarabel / cvxpy print their iteration log (to stderr) inside the block."""
    token = _SOLVER_LOG.set(bool(enabled))
    try:
        yield
    finally:
        _SOLVER_LOG.reset(token)


@contextlib.contextmanager
def solver_output() -> Iterator[None]:
    """Around a solver call: when :func:`solver_log` is on, send its output to stderr.

    File descriptor 1 too (PIQP, OSQP print from compiled code), C buffers flushed after.
    """
    if not solver_log_enabled():
        yield
        return
    saved = None
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()
    with contextlib.suppress(OSError):
        saved = os.dup(1)
        os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            with contextlib.suppress(OSError, AttributeError):
                import ctypes

                ctypes.CDLL(None).fflush(None)
            with contextlib.suppress(OSError):
                os.dup2(saved, 1)
                os.close(saved)
