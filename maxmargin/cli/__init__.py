"""The ``maxmargin`` command line.

Exit codes: 0 ok; 1 a certificate or check failed (including hard margin on data that
are not separable); 2 bad usage, bad data or an output that cannot be written, reported
as one line without a traceback, before any long computation; 130 interrupted (Ctrl-C).
Every bad input the command knows of, and what it says, is listed in docs/bad-input.md.
"""

from .main import main

__all__ = ["main"]
