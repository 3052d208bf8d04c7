"""Figures (compatibility module): the code lives in :mod:`maxmargin.plotting.boundary`.

This module keeps ``from maxmargin.plot import ...`` working.
"""

from .plotting.boundary import *  # noqa: F403
from .plotting.boundary import __all__  # noqa: F401
