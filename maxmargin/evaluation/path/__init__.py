"""The C path: the certified optimum along C (lambda), on a grid or exactly.

- :mod:`~maxmargin.evaluation.path.grid`: the certified optimum on a grid of C (lambda);
- :mod:`~maxmargin.evaluation.path.exact`: every breakpoint of the piecewise-linear path;
- :mod:`~maxmargin.evaluation.path.tracer`, :mod:`~maxmargin.evaluation.path.events`,
  :mod:`~maxmargin.evaluation.path.geometry`: the exact path's tracer;
- :mod:`~maxmargin.evaluation.path.limits`: its two ends, ``C_0`` and ``C*``;
- :mod:`~maxmargin.evaluation.path.learners`: learners run at every lambda of a path.
"""
