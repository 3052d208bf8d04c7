"""The optional packages, imported on first use, and one error when one is missing.

``import maxmargin`` and an exact solve on the PIQP / Clarabel routes need numpy, scipy
and those solvers only. matplotlib (figures: the ``plot`` extra), numba (the compiled
loops of the online learners, the IPM and DCD) and cvxpy (its models, its solvers) are
imported where a feature needs them; a missing one is a :class:`DependencyError` naming
the package and the ``pip install`` that brings it.

numba's kernels are compiled on their first call and cached on disk (``cache=True``):
next to the package when it is writable, else in the user's cache directory (numba's
rule), else, where neither can be written, in a private temporary directory that lasts
as long as the process. The first compilation a process does is announced in one line
on a terminal (it takes seconds; not with the command's ``-q``), or at DEBUG on the
``"maxmargin"`` logger when that is enabled (the command's ``-v``, whether or not on a
terminal); loading from the cache is silent.
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
    """Whether ``module`` can be imported (looked up, not imported: no import cost).

    Parameters
    ----------
    module : str

    Returns
    -------
    bool

    Examples
    --------
    >>> installed("numpy"), installed("no_such_module_here")
    (True, False)
    """
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a broken entry
        return False


def require(module: str, what: str, pip: str | None = None) -> ModuleType:
    """Import ``module``, or raise a :class:`DependencyError` that says how to get it.

    Parameters
    ----------
    module : str
        E.g. ``"numba"``, ``"matplotlib.pyplot"``.
    what : str
        Who needs it, as the subject of "... needs numba" (``"the IPM solver"``).
    pip : str, optional
        The argument of ``pip install`` (default: the top-level package's name).

    Returns
    -------
    module

    Raises
    ------
    DependencyError
        The package is not installed, or it is and fails to import (the message then
        quotes the error).

    Examples
    --------
    >>> require("math", "counting").__name__
    'math'
    >>> try:
    ...     require("nosuchmod", "this example")
    ... except DependencyError as e:
    ...     print(e)
    this example needs nosuchmod, which is not installed: pip install nosuchmod
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

    ``kernels = CompiledKernels("maxmargin.online._kernels", "an online learner")`` at
    the top of a module, then ``kernels.perceptron_steps(...)`` inside its functions:
    numba is imported (or its absence reported) only when a kernel is needed, and the
    first kernel of the process that will be compiled rather than loaded from numba's
    cache is announced on the terminal.

    Parameters
    ----------
    module : str
        The kernels' module.
    what : str
        Who needs numba, for the error when it is missing.

    Examples
    --------
    >>> k = CompiledKernels("maxmargin.online._kernels", "an online learner")
    >>> k.MODE_THETA    # numba imported here, at the first name asked for
    0
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
    """Whether numba's cache holds a compiled version of ``dispatcher`` for this source.

    Read from numba's own index file; True when it cannot be told, so nothing is announced.
    """
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # numba's internals moved: say nothing rather than fail
        return True


def _announce() -> None:
    """Say once per process that kernels are being compiled.

    At DEBUG on maxmargin's logger (the command's ``-v``) when that is on, else on a
    terminal (unless ``-q``).
    """
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
