"""One point of a grid path solved: warm-started on a working set, else a full solve.

Every point is polished on its support sets and certified (:func:`_solve_point`); the
method is in ``docs/path.md``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ...certificate import Certificate, certify
from ...exceptions import SolverError
from ...problem import SVMProblem
from ...solvers import piqp
from ...solvers.polish import polish, polish_no_margin
from ...solvers.qp import QPTask, weights_from_alpha
from ...solvers.result import Status
from ...solvers.via_cvxpy import CVXPY_OPTIONS

#: A warm-started point is accepted without the full QP when its certificate's largest
#: residual (relative gap or scaled KKT) is at most this.
ACCEPT_TOL = 1e-9


class _DualModel:
    """The dual QP compiled once in cvxpy with ``C`` a DPP parameter, re-solved at each point."""

    def __init__(self, problem: SVMProblem, solver: str) -> None:
        from ...cvxpy_models import dual_model

        t0 = time.perf_counter()
        self.solver = solver
        self.prob = dual_model(problem, C_parameter=True)
        assert self.prob.is_dpp()
        self.alpha = self.prob.var_dict["alpha"]
        self.C = self.prob.param_dict["C"]
        self.eq = self.prob.constraints[-1] if problem.intercept == "free" else None
        self.compiled = False
        self.seconds = time.perf_counter() - t0

    def solve(self, C: float, costs: np.ndarray) -> tuple[np.ndarray, float | None, str]:
        import cvxpy as cp

        self.C.value = float(C)
        t0 = time.perf_counter()
        try:
            self.prob.solve(
                solver=self.solver, warm_start=True, **CVXPY_OPTIONS.get(self.solver, {})
            )
        except cp.error.SolverError as e:
            raise SolverError(
                f"path: {self.solver} failed at C={C:.6g} ({e}); try solver='CLARABEL' or 'PIQP'"
            ) from None
        if not self.compiled:  # the first call compiles; count it as build time
            self.compiled = True
            st = self.prob.solver_stats
            solve_t = float(st.solve_time or 0.0) if st is not None else 0.0
            self.seconds += max(0.0, time.perf_counter() - t0 - solve_t)
        if self.prob.status not in ("optimal", "optimal_inaccurate") or self.alpha.value is None:
            raise SolverError(
                f"path: {self.solver} returned {self.prob.status!r} at "
                f"C={C:.6g}; try another solver (CLARABEL, PIQP)"
            )
        b = None if self.eq is None else float(self.eq.dual_value)
        return np.clip(np.asarray(self.alpha.value, float), 0.0, costs), b, self.prob.status


def _solve_point(
    problem: SVMProblem, YZ: Any, model: _DualModel | None, prev: tuple | None, tol: float
) -> tuple[np.ndarray, float, np.ndarray, Certificate, str, str]:
    """One grid point, polished and certified: ``(w, b, alpha, certificate, method, by)``."""
    if prev is not None:
        ws = _working_set_solve(problem, YZ, prev[0], prev[1])
        if ws is not None:
            # a point that does not settle gets the full QP
            best, _ = _polished(problem, YZ, *ws, tol)
            if best is not None and best[3].max_residual() <= ACCEPT_TOL:
                w, b, a, cert = best
                return np.asarray(w, float), float(b), a, cert, "warm", ""
    if model is None:
        # the measured default route (maxmargin's IPM / PIQP), polished and certified
        from ...exact import solve

        sol = solve(problem, tol=tol)
        w, b, a = np.asarray(sol.w, float), float(sol.b), np.asarray(sol.alpha, float)
        return w, b, a, sol.certificate, "qp", sol.solver
    best, raw = _polished(problem, YZ, *model.solve(problem.C, problem.costs)[:2], tol)
    w, b, a, cert = best or raw
    return np.asarray(w, float), float(b), a, cert, "dpp", model.solver


def _polished(
    problem: SVMProblem, YZ: Any, a: np.ndarray, b_eq: float | None, tol: float
) -> tuple[Any, tuple]:
    """``alpha`` polished on its support sets (None if it cannot be), and as it was."""
    w, b = weights_from_alpha(problem, YZ, a, b_eq)
    cert = certify(problem, w, b, a, tol=tol)
    # always polish: a small residual does not mean the right support sets (at tiny C it
    # is tiny whatever alpha is); with no margin SV to polish on, the {0, C} rounding
    best = polish(problem, YZ, w, b, a, cert, tol) or polish_no_margin(problem, YZ, a, cert, tol)
    return best, (w, b, a, cert)


def _working_set_solve(
    problem: SVMProblem, YZ: Any, w0: np.ndarray, b0: float, max_rounds: int = 30
) -> tuple[np.ndarray, float | None] | None:
    """Warm start by shrinking: ``(alpha, b)`` from the dual QP near the previous margin.

    None when the sub-QP fails or the rounds run out (b None unless free).
    """
    n = problem.n
    C = problem.costs
    y = problem.data.y
    dz = YZ.shape[1]
    r = y * problem.decision_function(w0, b0)
    dist = np.abs(r - 1.0)
    size = min(n, max(8 * (dz + 1), n // 20))
    counts = C > 0  # an example of cost 0 sits at alpha_i = 0 = C_i: never in W
    dist = np.where(counts, dist, np.inf)
    inW = np.zeros(n, bool)
    inW[np.argpartition(dist, size - 1)[:size]] = True
    inW &= counts
    for _ in range(max_rounds):
        W = np.flatnonzero(inW)
        atC = ~inW & (r < 1.0)
        # the dual on the working set W, alpha fixed at C where atC and at 0 elsewhere
        raw = piqp.solve_qp(
            QPTask(problem, "dual", YZ, rows=W, at_bound=np.flatnonzero(atC)),
            eps_abs=1e-10,
            eps_rel=1e-11,
        )
        if raw.status is not Status.OPTIMAL or raw.x is None:
            return None
        aW = np.clip(raw.x[: W.size], 0.0, C[W])
        b = float(raw.y_eq[-1]) if problem.intercept == "free" and raw.y_eq is not None else None
        a = np.zeros(n)
        a[atC] = C[atC]
        a[W] = aW
        v = np.asarray(YZ.T @ a).ravel()
        r_new = np.asarray(YZ @ v).ravel() + (y * b if b is not None else 0.0)
        scale = 1e-9
        bad = (~inW) & counts & ((atC & (r_new > 1.0 + scale)) | (~atC & (r_new < 1.0 - scale)))
        if not bad.any():
            return a, b
        inW |= bad  # the violators join the working set
        r = r_new
    return None
