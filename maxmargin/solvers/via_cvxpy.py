"""Any cvxpy QP solver, on the primal or the dual built in cvxpy."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._log import solver_log_enabled
from ..problem import SVMProblem
from .result import _Raw

#: Tighter than the defaults: first-order solvers stop far too early for a certificate.
_CVXPY_OPTIONS: dict[str, dict[str, Any]] = {
    "OSQP": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iter": 100_000, "polish": True},
    "SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 100_000},
}


def _run_cvxpy(problem: SVMProblem, YZ: Any, form: str, solver: str) -> tuple[_Raw, Any]:
    import cvxpy as cp

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
            obj = obj + problem.C * cp.sum(xi)
        cons = [expr >= 1]
        prob = cp.Problem(cp.Minimize(obj), cons)
    else:
        a = cp.Variable(n, nonneg=True)
        cons = []
        if not problem.hard:
            cons.append(a <= problem.C)
        eq = None
        if problem.intercept == "free":
            eq = y @ a == 0
            cons.append(eq)
        # Never an n x n matrix: the Hessian is (YZ)(YZ)^T only implicitly.
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(YZ.T @ a) - cp.sum(a)), cons)
    try:
        prob.solve(solver=solver, verbose=solver_log_enabled(),
                   **_CVXPY_OPTIONS.get(solver, {}))
    except cp.error.SolverError as e:
        return _Raw("failed", f"cvxpy: {e}"), None
    status = prob.status
    state = {"optimal": "optimal", "infeasible": "infeasible", "unbounded": "unbounded",
             "optimal_inaccurate": "inaccurate", "user_limit": "inaccurate",
             "infeasible_inaccurate": "infeasible_inaccurate",
             "unbounded_inaccurate": "unbounded"}.get(status, "failed")
    values = [v_.value for v_ in prob.variables()]
    if state not in ("optimal", "inaccurate") or any(v_ is None for v_ in values):
        return _Raw(state if state != "inaccurate" else "failed", status), None
    if form == "primal":
        x = np.concatenate([v.value, [b.value] if b is not None else [],
                            xi.value if not problem.hard else []])
        return _Raw(state, status, x, None, np.asarray(cons[0].dual_value, float)), None
    alpha = np.asarray(a.value, float)
    u = YZ.T @ alpha
    x = np.concatenate([alpha, np.asarray(u).ravel()])
    # cvxpy's equality multiplier of the minimisation has the PIQP/Clarabel sign (checked).
    yeq = None if eq is None else np.concatenate([np.zeros(dz), [float(eq.dual_value)]])
    return _Raw(state, status, x, yeq, None), None
