"""Any cvxpy QP solver, on the primal or the dual built in cvxpy."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._log import solver_log_enabled
from .qp import QPTask, dual_diagonal
from .result import RawResult, Status

__all__ = ["solve_qp", "CVXPY_OPTIONS"]

#: Tighter than the defaults: first-order solvers stop far too early for a certificate.
CVXPY_OPTIONS: dict[str, dict[str, Any]] = {
    "OSQP": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iter": 100_000, "polish": True},
    "SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 100_000},
}


def solve_qp(task: QPTask, *, solver: str) -> RawResult:
    """Build ``task``'s primal or dual in cvxpy, solve it with ``solver``, in :mod:`.qp`'s terms."""
    import cvxpy as cp

    problem, YZ, form = task.whole("cvxpy", ("dual", "primal")), task.YZ, task.form
    n, dz = YZ.shape
    y = problem.data.y
    if form == "primal":
        v = cp.Variable(dz)
        expr = YZ @ v
        obj = 0.5 * cp.sum_squares(v)
        b = None
        if problem.intercept == "free":
            b = cp.Variable()
            expr = expr + y * b
        if not problem.hard:
            xi = cp.Variable(n, nonneg=True)
            expr = expr + xi
            loss = cp.square(xi) if problem.squared else xi
            obj = obj + (
                problem.C * cp.sum(loss) if problem.weights is None else problem.costs @ loss
            )
        cons = [expr >= 1]
        prob = cp.Problem(cp.Minimize(obj), cons)
    else:
        a = cp.Variable(n, nonneg=True)
        cons = []
        diagonal: Any = 0.0
        if problem.squared:
            # no upper bound; sum_i alpha_i^2 / (4 C_i), alpha_i = 0 where C_i = 0
            costs = problem.costs
            pos = costs > 0
            diagonal = cp.sum(cp.multiply(0.5 * dual_diagonal(problem), cp.square(a)))
            if not pos.all():
                cons.append(a[np.flatnonzero(~pos)] == 0)
        elif not problem.hard:
            cons.append(a <= (problem.C if problem.weights is None else problem.costs))
        eq = None
        if problem.intercept == "free":
            eq = y @ a == 0
            cons.append(eq)
        # Never an n x n matrix: the Hessian is (YZ)(YZ)^T only implicitly.
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(YZ.T @ a) + diagonal - cp.sum(a)), cons)
    try:
        prob.solve(solver=solver, verbose=solver_log_enabled(), **CVXPY_OPTIONS.get(solver, {}))
    except cp.error.SolverError as e:
        return RawResult(Status.FAILED, f"cvxpy: {e}")
    text = prob.status
    state = _STATUS.get(text, Status.FAILED)
    values = [v_.value for v_ in prob.variables()]
    if not state.has_point or any(v_ is None for v_ in values):
        return RawResult(Status.FAILED if state is Status.INACCURATE else state, text)
    if form == "primal":
        x = np.concatenate(
            [v.value, [b.value] if b is not None else [], xi.value if not problem.hard else []]
        )
        return RawResult(state, text, x, None, np.asarray(cons[0].dual_value, float))
    alpha = np.asarray(a.value, float)
    u = YZ.T @ alpha
    x = np.concatenate([alpha, np.asarray(u).ravel()])
    # cvxpy's equality multiplier of the minimisation has the PIQP/Clarabel sign (checked).
    yeq = None if eq is None else np.concatenate([np.zeros(dz), [float(eq.dual_value)]])
    return RawResult(state, text, x, yeq, None)


#: cvxpy's statuses in maxmargin's terms.
_STATUS = {
    "optimal": Status.OPTIMAL,
    "infeasible": Status.INFEASIBLE,
    "unbounded": Status.UNBOUNDED,
    "optimal_inaccurate": Status.INACCURATE,
    "user_limit": Status.INACCURATE,
    "infeasible_inaccurate": Status.INFEASIBLE_INACCURATE,
    "unbounded_inaccurate": Status.UNBOUNDED,
}
