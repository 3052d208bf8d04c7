"""The QPs handed to the solvers, built as sparse matrices, and the map back to (w, b)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..data import scale_rows
from ..problem import SVMProblem

#: Peak memory of a solve in vectors of d' (measured on 4 examples, d = 3e6, the larger of
#: the two forms): wide data that cannot fit are refused before anything is allocated.
#: Other cvxpy solvers: at least the IPM's.
_VECTORS_OF_D = {"IPM": 8, "PIQP": 80, "CLARABEL": 120}


def _signed_Z(problem: SVMProblem) -> Any:
    """``YZ``: the rows ``y_i z_i`` (dense ndarray or CSR), shape (n, d')."""
    Z, y = problem.Z, problem.data.y
    if sp.issparse(Z):
        return scale_rows(Z, y)
    return Z * y[:, None]


@dataclass
class _QP:
    """``min 1/2 x'Px + q'x  s.t.  A x = c,  G x <= h,  lb <= x <= ub`` (sparse CSC)."""

    P: sp.csc_matrix
    q: np.ndarray
    A: sp.csc_matrix | None
    c: np.ndarray | None
    G: sp.csc_matrix | None
    h: np.ndarray | None
    lb: np.ndarray
    ub: np.ndarray


def _build_dual(problem: SVMProblem, YZ: Any) -> _QP:
    n, dz = YZ.shape
    P = sp.block_diag([sp.csc_matrix((n, n)), sp.identity(dz, format="csc")], format="csc")
    q = np.concatenate([-np.ones(n), np.zeros(dz)])
    rows = [sp.hstack([-sp.csc_matrix(YZ.T), sp.identity(dz)], format="csc")]
    if problem.intercept == "free":
        rows.append(sp.hstack([sp.csc_matrix(problem.data.y[None, :]),
                               sp.csc_matrix((1, dz))], format="csc"))
    A = sp.vstack(rows, format="csc")
    lb = np.concatenate([np.zeros(n), np.full(dz, -np.inf)])
    ub = np.concatenate([np.full(n, problem.C), np.full(dz, np.inf)])
    return _QP(P, q, A, np.zeros(A.shape[0]), None, None, lb, ub)


def _build_primal(problem: SVMProblem, YZ: Any) -> _QP:
    n, dz = YZ.shape
    nb = 1 if problem.intercept == "free" else 0
    nx = 0 if problem.hard else n
    P = sp.block_diag([sp.identity(dz, format="csc"), sp.csc_matrix((nb + nx, nb + nx))],
                      format="csc")
    q = np.concatenate([np.zeros(dz + nb), np.full(nx, problem.C)])
    blocks = [-sp.csc_matrix(YZ)]
    if nb:
        blocks.append(sp.csc_matrix(-problem.data.y[:, None]))
    if nx:
        blocks.append(-sp.identity(n, format="csc"))
    G = sp.hstack(blocks, format="csc")
    lb = np.concatenate([np.full(dz + nb, -np.inf), np.zeros(nx)])
    ub = np.full(dz + nb + nx, np.inf)
    return _QP(P, q, None, None, G, -np.ones(n), lb, ub)


def _wb_from_alpha(problem: SVMProblem, YZ: Any, alpha: np.ndarray,
                   b: float | None) -> tuple[np.ndarray, float]:
    # YZ None (the DCD route never forms it): the same product from Z and y
    v = problem.dual_weights(alpha) if YZ is None else np.asarray(YZ.T @ alpha).ravel()
    if problem.intercept == "augmented":
        return v[:-1], float(v[-1] * problem.intercept_scaling)
    if problem.intercept == "none":
        return v, 0.0
    return v, float(b if b is not None else 0.0)
