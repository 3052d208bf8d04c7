"""The QPs handed to the solvers, built as sparse matrices, and the map back to (w, b).

Primal in ``(w~, b, xi)``; dual in ``(alpha, u = (YZ)^T alpha)`` so that the Hessian is
never n x n; the squared hinge adds ``C_i xi_i^2`` (primal) or ``1 / (2 C_i)`` on the
dual's diagonal and no upper bound. See ``docs/formulations.md``, section 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..data import scale_rows
from ..problem import SVMProblem

__all__ = [
    "QP",
    "QPTask",
    "signed_rows",
    "build_dual",
    "build_primal",
    "weights_from_alpha",
    "primal_point",
    "dual_diagonal",
    "interval_intercept",
    "middle",
]


def signed_rows(problem: SVMProblem) -> Any:
    """``YZ``: the rows ``y_i z_i`` (dense ndarray or CSR), shape (n, d')."""
    Z, y = problem.Z, problem.data.y
    return scale_rows(Z, y) if sp.issparse(Z) else Z * y[:, None]


@dataclass(frozen=True, eq=False)
class QP:
    """``min 1/2 x'Px + q'x  s.t.  A x = c,  G x <= h,  lb <= x <= ub`` (sparse CSC)."""

    P: sp.csc_matrix
    q: np.ndarray
    A: sp.csc_matrix | None
    c: np.ndarray | None
    G: sp.csc_matrix | None
    h: np.ndarray | None
    lb: np.ndarray
    ub: np.ndarray


@dataclass(frozen=True, eq=False)
class QPTask:
    """One QP to solve: what every backend's ``solve_qp(task, **settings)`` takes.

    An SVM backend reads ``problem`` (and ``YZ``: the signed rows, None for DCD); a general
    QP solver reads :attr:`qp`. ``rows``, ``at_bound``: a working set of the dual.
    """

    problem: SVMProblem
    form: str = "dual"
    YZ: Any = None
    rows: np.ndarray | None = None
    at_bound: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.form != "dual" and (self.rows is not None or self.at_bound is not None):
            raise ValueError("a working set is of the dual form only")

    @cached_property
    def qp(self) -> QP:
        """:func:`build_dual` or :func:`build_primal` of the task, built once."""
        if self.form == "dual":
            return build_dual(self.problem, self.YZ, self.rows, self.at_bound)
        return build_primal(self.problem, self.YZ)

    def whole(self, backend: str, forms: tuple[str, ...] = ("dual",)) -> SVMProblem:
        """``problem``, for a backend that solves the whole problem in ``forms`` only."""
        if self.rows is not None or self.at_bound is not None:
            raise ValueError(f"{backend} solves the whole problem, not a working set")
        if self.form not in forms:
            raise ValueError(f"{backend} solves the {' or '.join(forms)} form, not {self.form}")
        return self.problem


def build_dual(
    problem: SVMProblem, YZ: Any, rows: np.ndarray | None = None, at_bound: np.ndarray | None = None
) -> QP:
    """The dual QP, variables ``x = (alpha, u)``; on a working set when ``rows`` is given.

    ``at_bound`` B is fixed at ``alpha_i = C_i``, the rest of the rows at 0.
    """
    C, y = problem.C, problem.data.y
    G = YZ if rows is None else YZ[rows]
    m, dz = G.shape
    u_bound, y_bound = np.zeros(dz), 0.0
    if at_bound is not None and at_bound.size:
        if problem.weights is None:
            u_bound = C * np.asarray(YZ[at_bound].sum(axis=0)).ravel()
            y_bound = C * float(y[at_bound].sum())
        else:
            cB = problem.costs[at_bound]
            u_bound = np.asarray(cB @ YZ[at_bound]).ravel()
            y_bound = float(cB @ y[at_bound])
    costs = problem.costs if rows is None else problem.costs[rows]
    diag = sp.csc_matrix((m, m))
    if problem.squared:  # D_ii = 1/(2 C_i); alpha_i = 0 (ub below) where C_i = 0
        dii = dual_diagonal(problem)
        diag = sp.diags(dii if rows is None else dii[rows], format="csc")
    P = sp.block_diag([diag, sp.identity(dz, format="csc")], format="csc")
    q = np.concatenate([-np.ones(m), np.zeros(dz)])
    blocks = [sp.hstack([-sp.csc_matrix(G.T), sp.identity(dz)], format="csc")]
    rhs = [u_bound]
    if problem.intercept == "free":
        y_rows = y if rows is None else y[rows]
        blocks.append(
            sp.hstack([sp.csc_matrix(y_rows[None, :]), sp.csc_matrix((1, dz))], format="csc")
        )
        rhs.append(np.array([-y_bound]))
    A = sp.vstack(blocks, format="csc")
    lb = np.concatenate([np.zeros(m), np.full(dz, -np.inf)])
    if problem.squared:
        costs = np.where(costs > 0, np.inf, 0.0)  # no upper bound (weight 0: alpha_i = 0)
    ub = np.concatenate([costs, np.full(dz, np.inf)])
    return QP(P, q, A, np.concatenate(rhs), None, None, lb, ub)


def build_primal(problem: SVMProblem, YZ: Any) -> QP:
    """The primal QP, variables ``x = (w~, b (free only), xi (soft only))``."""
    n, dz = YZ.shape
    nb = 1 if problem.intercept == "free" else 0
    nx = 0 if problem.hard else n
    sq = problem.squared
    # the slacks' Hessian: 0 (the hinge, C_i xi_i linear) or 2 C_i (C_i xi_i^2)
    hx = sp.diags(2.0 * problem.costs, format="csc") if sq else sp.csc_matrix((nx, nx))
    P = sp.block_diag([sp.identity(dz, format="csc"), sp.csc_matrix((nb, nb)), hx], format="csc")
    q = np.concatenate([np.zeros(dz + nb), problem.costs if nx and not sq else np.zeros(nx)])
    blocks = [-sp.csc_matrix(YZ)]
    if nb:
        blocks.append(sp.csc_matrix(-problem.data.y[:, None]))
    if nx:
        blocks.append(-sp.identity(n, format="csc"))
    G = sp.hstack(blocks, format="csc")
    lb = np.concatenate([np.full(dz + nb, -np.inf), np.zeros(nx)])
    ub = np.full(dz + nb + nx, np.inf)
    return QP(P, q, None, None, G, -np.ones(n), lb, ub)


def weights_from_alpha(
    problem: SVMProblem, YZ: Any, alpha: np.ndarray, b: float | None
) -> tuple[np.ndarray, float]:
    """``(w, b)`` of a dual point: ``w~ = (YZ)^T alpha`` (``YZ`` None: from ``Z`` and ``y``)."""
    v = problem.dual_weights(alpha) if YZ is None else np.asarray(YZ.T @ alpha).ravel()
    w, b_aug = problem.from_augmented(v)
    return w, float((b or 0.0) if problem.intercept == "free" else b_aug)


def primal_point(problem: SVMProblem, x: np.ndarray) -> tuple[np.ndarray, float]:
    """``(w, b)`` of the primal QP's variables ``x = (w~, b, xi)``."""
    dz = problem.d + (problem.intercept == "augmented")
    w, b = problem.from_augmented(np.asarray(x[:dz], float))
    return w, float(x[dz] if problem.intercept == "free" else b)


def dual_diagonal(problem: SVMProblem) -> np.ndarray:
    """The squared hinge's diagonal of the dual's Hessian: ``1 / (2 C_i)`` (0 at ``C_i = 0``)."""
    if not problem.squared:
        return np.zeros(problem.n)
    costs = problem.costs
    pos = costs > 0
    return np.where(pos, 0.5 / np.where(pos, costs, 1.0), 0.0)


def interval_intercept(
    y: np.ndarray, v: np.ndarray, at0: np.ndarray, atC: np.ndarray
) -> float | None:
    """The middle of the ``b`` keeping each point at 0 or at C on its side (``v = y - f``).

    ``y_i (f_i + b) >= 1`` on ``at0``, ``<= 1`` on ``atC``; None when no ``b`` does.
    """
    lo = float(v[(at0 & (y > 0)) | (atC & (y < 0))].max(initial=-np.inf))
    hi = float(v[(at0 & (y < 0)) | (atC & (y > 0))].min(initial=np.inf))
    return None if lo > hi else middle(lo, hi)


def middle(lo: float, hi: float) -> float:
    """The middle of ``[lo, hi]``, else its finite end, else 0."""
    if math.isfinite(lo) and math.isfinite(hi):
        return 0.5 * (lo + hi)
    return lo if math.isfinite(lo) else (hi if math.isfinite(hi) else 0.0)
