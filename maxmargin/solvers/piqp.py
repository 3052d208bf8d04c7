"""PIQP on maxmargin's sparse QP matrices (no modelling layer)."""

from __future__ import annotations

import numpy as np

from .._log import solver_log_enabled
from .qp import QPTask
from .result import RawResult, Status

__all__ = ["solve_qp"]


def solve_qp(
    task: QPTask, *, eps_abs: float = 1e-9, eps_rel: float = 1e-10, max_iter: int = 500
) -> RawResult:
    """Solve ``task``'s QP matrices with PIQP's sparse interior-point method.

    Tolerances tighter than its defaults: the polish takes over from ~1e-9.
    """
    import piqp

    qp = task.qp
    s = piqp.SparseSolver()
    s.settings.eps_abs = eps_abs
    s.settings.eps_rel = eps_rel
    s.settings.max_iter = max_iter
    s.settings.verbose = solver_log_enabled()
    h_l = None if qp.h is None else np.full(qp.h.shape, -np.inf)
    s.setup(qp.P, qp.q, qp.A, qp.c, qp.G, h_l, qp.h, qp.lb, qp.ub)
    status = s.solve()
    r = s.result
    text = str(status).split(".")[-1]
    if status == piqp.PIQP_SOLVED:
        state = Status.OPTIMAL
    elif status == piqp.PIQP_PRIMAL_INFEASIBLE:
        state = Status.INFEASIBLE
    elif status == piqp.PIQP_DUAL_INFEASIBLE:
        state = Status.UNBOUNDED
    elif status in (piqp.PIQP_MAX_ITER_REACHED, piqp.PIQP_NUMERICS):
        state = Status.INACCURATE
    else:
        state = Status.FAILED
    y_eq = None if qp.A is None else np.array(r.y)
    return RawResult(state, text, np.array(r.x), y_eq, None if qp.G is None else np.array(r.z_u))
