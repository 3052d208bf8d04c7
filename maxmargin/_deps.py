"""The optional packages (matplotlib, numba, cvxpy), imported on first use.

A missing one is a :class:`DependencyError` naming the ``pip install`` that brings it.
numba's kernels are cached on disk (a private temporary directory where no cache can be
written); the first compilation of a process is announced in one line.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import tempfile
from types import ModuleType
from typing import Any

from ._log import logger
from ._progress import note
from .exceptions import DependencyError

__all__ = ["require", "installed", "CompiledKernels", "PLOT_EXTRA"]

#: What ``pip install`` brings matplotlib and Pillow for maxmargin's figures.
PLOT_EXTRA = "'maxmargin[plot]'"


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (looked up, not imported: no import cost)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a broken entry
        return False


def require(module: str, what: str, pip: str | None = None) -> ModuleType:
    """Import ``module``, or raise a :class:`DependencyError` that says how to install it.

    >>> require("nosuchmod", "this example")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    maxmargin.exceptions.DependencyError: this example needs nosuchmod, which is not installed: ...
    """
    top = module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if e.name is not None and e.name.partition(".")[0] != top:
            raise DependencyError(
                f"{what} needs {top}, which is installed but does not import: {e}"
            ) from e
        raise DependencyError(
            f"{what} needs {top}, which is not installed: pip install {pip or top}"
        ) from None


#: Whether this process has announced a compilation already (once per process).
_announced = False


class CompiledKernels:
    """A module of numba kernels, imported on the first use of one of its names.

    The first kernel of the process compiled rather than loaded from numba's cache is
    announced.
    """

    def __init__(self, module: str, what: str) -> None:
        self._name = module
        self._what = what
        self._mod: ModuleType | None = None

    def _load(self) -> ModuleType:
        if self._mod is None:
            numba = require("numba", self._what)
            try:
                self._mod = importlib.import_module(self._name)
            except RuntimeError as e:  # numba: no cache directory can be written
                if "cannot cache" not in str(e):
                    raise
                numba.config.CACHE_DIR = tempfile.mkdtemp(prefix="maxmargin-numba-")
                self._mod = importlib.import_module(self._name)
        return self._mod

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self._load(), name)
        if getattr(value, "signatures", None) == [] and not _in_cache(value):
            _announce()
        setattr(self, name, value)  # the next uses skip this method
        return value


def _in_cache(dispatcher: Any) -> bool:
    """Whether numba's cache holds ``dispatcher`` compiled (True when it cannot be told)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # numba's internals moved: say nothing rather than fail
        return True


def _announce() -> None:
    """Say once per process that kernels are being compiled (DEBUG log, else the terminal)."""
    global _announced
    if not _announced:
        _announced = True
        text = (
            "compiling the numba kernels (a few seconds, once: they are cached for the next runs)"
        )
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(text)
        else:
            note(f"maxmargin: {text}")
