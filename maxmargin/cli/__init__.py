"""The ``maxmargin`` command line: ``docs/cli.md``; exit codes at :func:`main`."""

from .main import main

__all__ = ["main"]
