"""PIQP on maxmargin's sparse QP matrices (no modelling layer)."""

from __future__ import annotations

import numpy as np

from .._log import solver_log_enabled
from .qp import _QP
from .result import _Raw


def _run_piqp(qp: _QP) -> _Raw:
    import piqp

    s = piqp.SparseSolver()
    s.settings.eps_abs = 1e-9
    s.settings.eps_rel = 1e-10
    s.settings.max_iter = 500
    s.settings.verbose = solver_log_enabled()
    h_l = None if qp.h is None else np.full(qp.h.shape, -np.inf)
    s.setup(qp.P, qp.q, qp.A, qp.c, qp.G, h_l, qp.h, qp.lb, qp.ub)
    status = s.solve()
    r = s.result
    text = str(status).split(".")[-1]
    if status == piqp.PIQP_SOLVED:
        state = "optimal"
    elif status == piqp.PIQP_PRIMAL_INFEASIBLE:
        state = "infeasible"
    elif status == piqp.PIQP_DUAL_INFEASIBLE:
        state = "unbounded"
    elif status in (piqp.PIQP_MAX_ITER_REACHED, piqp.PIQP_NUMERICS):
        state = "inaccurate"
    else:
        state = "failed"
    # PIQP's Lagrangian is f + y'(Ax - c) + z_u'(Gx - h): the same signs as ours.
    return _Raw(state, text, np.array(r.x), None if qp.A is None else np.array(r.y),
                None if qp.G is None else np.array(r.z_u))
