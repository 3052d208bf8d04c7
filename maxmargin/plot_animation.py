"""Figures (compatibility module): the code lives in :mod:`maxmargin.plotting.animation`.

This module keeps ``from maxmargin.plot_animation import ...`` working.
"""

from .plotting.animation import *  # noqa: F403
from .plotting.animation import __all__  # noqa: F401
