"""Figures of every result (matplotlib, imported lazily: importing maxmargin never does).

One module per result: :mod:`~maxmargin.plotting.boundary` (a 2-D solution),
:mod:`~maxmargin.plotting.comparison` (learners against the optimum),
:mod:`~maxmargin.plotting.path` (grid and exact C paths),
:mod:`~maxmargin.plotting.animation` (an online run as a GIF). The names below are the
face; :func:`maxmargin.write_report` draws them into a report folder.
"""

from .animation import animate_run
from .boundary import plot_boundary
from .comparison import (
    plot_boundaries,
    plot_gaps,
    plot_mistakes,
    plot_regret,
    plot_suboptimality,
    save_figures,
)
from .path import (
    plot_coefficients,
    plot_errors,
    plot_learners_vs_lambda,
    plot_objective,
    plot_support_vectors,
    plot_tradeoff,
    plot_width,
    save_path_figures,
)

__all__ = [
    # a 2-D solution, an online run
    "plot_boundary",
    "animate_run",
    # learners against the optimum
    "plot_suboptimality",
    "plot_gaps",
    "plot_regret",
    "plot_mistakes",
    "plot_boundaries",
    "save_figures",
    # the C path, on a grid or exact
    "plot_width",
    "plot_support_vectors",
    "plot_errors",
    "plot_coefficients",
    "plot_objective",
    "plot_tradeoff",
    "plot_learners_vs_lambda",
    "save_path_figures",
]
