"""Figures (compatibility module): the code lives in :mod:`maxmargin.plotting.comparison`.

This module keeps ``from maxmargin.plot_compare import ...`` working.
"""

from .plotting.comparison import *  # noqa: F403
from .plotting.comparison import __all__  # noqa: F401
