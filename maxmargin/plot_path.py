"""Figures (compatibility module): the code lives in :mod:`maxmargin.plotting.path`.

This module keeps ``from maxmargin.plot_path import ...`` working.
"""

from .plotting.path import *  # noqa: F403
from .plotting.path import __all__  # noqa: F401
