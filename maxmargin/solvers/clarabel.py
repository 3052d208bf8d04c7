"""Clarabel on maxmargin's sparse QP matrices (no modelling layer)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._log import solver_log_enabled
from .qp import QPTask
from .result import RawResult, Status

__all__ = ["solve_qp"]


def solve_qp(task: QPTask) -> RawResult:
    """Solve ``task``'s QP matrices with Clarabel (the box becomes rows of its cone)."""
    import clarabel

    qp = task.qp
    nvar = qp.P.shape[0]
    blocks: list = []
    rhs: list[Any] = []
    cones: list = []
    m_eq = 0
    if qp.A is not None:
        blocks.append(qp.A)
        rhs.append(qp.c)
        m_eq = qp.A.shape[0]
        cones.append(clarabel.ZeroConeT(m_eq))
    m_ineq = 0
    if qp.G is not None:
        blocks.append(qp.G)
        rhs.append(qp.h)
        m_ineq = qp.G.shape[0]
    # Variable bounds become rows (Clarabel has no native box): -x <= -lb, x <= ub.
    eye = sp.identity(nvar, format="csc")
    fl, fu = np.isfinite(qp.lb), np.isfinite(qp.ub)
    if fl.any():
        blocks.append(-eye[np.flatnonzero(fl)])
        rhs.append(-qp.lb[fl])
    if fu.any():
        blocks.append(eye[np.flatnonzero(fu)])
        rhs.append(qp.ub[fu])
    M = sp.vstack(blocks, format="csc")
    m_nn = M.shape[0] - m_eq
    if m_nn:
        cones.append(clarabel.NonnegativeConeT(m_nn))
    st = clarabel.DefaultSettings()
    st.verbose = solver_log_enabled()
    st.tol_gap_abs = st.tol_gap_rel = 1e-10
    st.tol_feas = 1e-10
    st.max_iter = 300
    if task.form == "dual" and not task.problem.hard:
        # The soft-margin dual is bounded, yet Clarabel's unboundedness test fired on raw
        # wine and breast_cancer (a box C' ~ 4e6 against entries of 1e-7): switched off.
        st.tol_infeas_abs = st.tol_infeas_rel = 0.0
    sol = clarabel.DefaultSolver(
        sp.triu(qp.P, format="csc"), qp.q, M, np.concatenate(rhs), cones, st
    ).solve()
    text = str(sol.status)
    S = clarabel.SolverStatus
    if sol.status == S.Solved:
        state = Status.OPTIMAL
    elif sol.status == S.PrimalInfeasible:
        state = Status.INFEASIBLE
    elif sol.status == S.DualInfeasible:
        state = Status.UNBOUNDED
    elif sol.status in (
        S.AlmostSolved,
        S.MaxIterations,
        S.InsufficientProgress,
        S.NumericalError,
        S.MaxTime,
    ):
        state = Status.INACCURATE
    elif sol.status == S.AlmostPrimalInfeasible:
        state = Status.INFEASIBLE_INACCURATE
    else:
        state = Status.FAILED
    z = np.array(sol.z)
    # Clarabel's dual: P x + q + M'z = 0 with z in the dual cone: our signs again.
    y_eq = z[:m_eq] if qp.A is not None else None
    z_ineq = z[m_eq : m_eq + m_ineq] if qp.G is not None else None
    return RawResult(state, text, np.array(sol.x), y_eq, z_ineq)
