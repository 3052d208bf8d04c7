"""Figures of every result (matplotlib, imported lazily: importing maxmargin never does).

One module per result: :mod:`~maxmargin.plotting.boundary` (a 2-D solution),
:mod:`~maxmargin.plotting.comparison` (learners against the optimum),
:mod:`~maxmargin.plotting.path` (grid and exact C paths),
:mod:`~maxmargin.plotting.animation` (an online run as a GIF).
"""
