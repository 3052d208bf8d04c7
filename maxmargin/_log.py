"""What maxmargin says about its own decisions, and whether the QP solvers print their log.

maxmargin's decisions (the format a data file was read as, the base of its indices, the
route a solve took) go to the standard :mod:`logging` logger ``"maxmargin"`` at DEBUG:
silent unless the application asks for them (the command's ``-v`` does). The
solvers' own iteration logs (PIQP, Clarabel, cvxpy's solvers) are silent unless
:func:`solver_log` switches them on for the duration of a ``with`` block; they then go
to stderr (:func:`solver_output`), so that stdout keeps only what the program prints.
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
    """Whether the QP solvers should print their iteration log (inside :func:`solver_log`).

    Returns
    -------
    bool

    Examples
    --------
    >>> solver_log_enabled()
    False
    """
    return _SOLVER_LOG.get()


@contextlib.contextmanager
def solver_log(enabled: bool = True) -> Iterator[None]:
    """Let PIQP / Clarabel / cvxpy print their iteration log (to stderr) inside the block.

    Parameters
    ----------
    enabled : bool
        False leaves them silent (the default outside the block).

    Yields
    ------
    None

    Examples
    --------
    >>> with solver_log():
    ...     solver_log_enabled()
    True
    """
    token = _SOLVER_LOG.set(bool(enabled))
    try:
        yield
    finally:
        _SOLVER_LOG.reset(token)


@contextlib.contextmanager
def solver_output() -> Iterator[None]:
    """Around a solver call: when :func:`solver_log` is on, send its output to stderr.

    The solvers print from Python (Clarabel, cvxpy) and from compiled code on file
    descriptor 1 (PIQP, OSQP); both point to stderr inside the block, and the C stdio
    buffers are flushed before stdout is given back.

    Yields
    ------
    None

    Examples
    --------
    >>> with solver_log(), solver_output():
    ...     print("iteration 1")  # on stderr
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
