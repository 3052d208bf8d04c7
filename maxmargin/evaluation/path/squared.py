"""The squared hinge's grid points, warm-started by the finite Newton method.

On the set ``S`` of examples inside the margin the objective is quadratic: solve, update
``S``, until it no longer changes (Keerthi & DeCoste 2005). See ``docs/path.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ...problem import SVMProblem

__all__ = ["newton_point", "MAX_NEWTON", "MAX_NEWTON_DIM"]

#: Newton steps (active-set changes) before the warm start gives up.
MAX_NEWTON = 50
#: The widest ``d'`` the warm start forms its ``d' x d'`` system for (8 * d'^2 bytes).
MAX_NEWTON_DIM = 2000


def newton_point(
    problem: SVMProblem, w0: Any, b0: float
) -> tuple[np.ndarray, float, np.ndarray] | None:
    """The L2-loss SVM's optimum from the start ``(w0, b0)``: ``(w, b, alpha)``, or None.

    Parameters
    ----------
    problem : SVMProblem
        A soft-margin problem with ``loss="squared_hinge"``.
    w0 : array-like of shape (d,)
    b0 : float
        The start (the previous grid point).

    Returns
    -------
    (w, b, alpha) or None
        None: ``d' > MAX_NEWTON_DIM``, a singular system, or more than ``MAX_NEWTON`` steps.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), C=1.0, intercept="none",
    ...                loss="squared_hinge")
    >>> w, b, a = newton_point(p, [0.0], 0.0)
    >>> round(float(w[0]), 12), a.round(12).tolist()  # w = 4C/(1 + 4C), alpha = 2C(1 - w)
    (0.8, [0.4, 0.4])
    """
    Z, y, c = problem.Z, problem.data.y, problem.costs
    free = problem.intercept == "free"
    v = np.asarray(problem.to_augmented(np.asarray(w0, float), float(b0)), float)
    dz = v.size
    if dz > MAX_NEWTON_DIM:
        return None
    b = float(b0) if free else 0.0
    active = None
    for _ in range(MAX_NEWTON + 1):
        m = y * (np.asarray(Z @ v).ravel() + b)
        now = np.flatnonzero((m < 1.0) & (c > 0.0))
        if active is not None and np.array_equal(now, active):
            w, bb = problem.from_augmented(v)
            xi = np.maximum(0.0, 1.0 - m)
            return np.asarray(w, float), (b if free else float(bb)), 2.0 * c * xi
        active = now
        got = _solve_on(Z, y, c, active, free)
        if got is None:
            return None
        v, b = got
    return None


def _solve_on(
    Z: Any, y: np.ndarray, c: np.ndarray, S: np.ndarray, free: bool
) -> tuple[np.ndarray, float] | None:
    """The minimiser of the quadratic whose active set is ``S``: ``(w~, b)``; None if singular."""
    ZS, cS, yS = Z[S], c[S], y[S]
    CZ = sp.diags(cS) @ ZS if sp.issparse(ZS) else cS[:, None] * ZS
    G = ZS.T @ CZ
    H = np.eye(Z.shape[1]) + 2.0 * (G.toarray() if sp.issparse(G) else np.asarray(G))
    g = 2.0 * np.asarray(CZ.T @ yS).ravel()
    if free:
        u = 2.0 * np.asarray(CZ.sum(axis=0)).ravel()
        K = np.block([[H, u[:, None]], [u[None, :], np.array([[2.0 * cS.sum()]])]])
        rhs = np.append(g, 2.0 * float(cS @ yS))
    else:
        K, rhs = H, g
    try:
        sol = np.linalg.solve(K, rhs)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(sol)):
        return None
    return (sol[:-1], float(sol[-1])) if free else (sol, 0.0)
