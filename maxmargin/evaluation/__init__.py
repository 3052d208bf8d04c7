"""Learners and optima measured against each other: the comparison, the C paths.

- :mod:`~maxmargin.evaluation.comparison`: :func:`~maxmargin.compare`, online learners
  against the certified optimum of one problem;
- :mod:`~maxmargin.evaluation.path.grid`: the certified optimum on a grid of C (lambda);
- :mod:`~maxmargin.evaluation.path.exact`: every breakpoint of the piecewise-linear path;
- :mod:`~maxmargin.evaluation.path.limits`: its two ends, ``C_0`` and ``C*``;
- :mod:`~maxmargin.evaluation.path.learners`: learners run at every lambda of a path.
"""
