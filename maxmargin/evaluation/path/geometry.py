"""The data as the exact path's tracer sees it: signed rows, merged duplicates, units."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from ...data import Dataset
from ...exceptions import ParameterError
from ...problem import SVMProblem

#: Set codes of the status arrays: right (alpha = 0), elbow (margin), left (alpha = C c).
_R, _E, _L = 0, 1, 2
SET_NAMES = ("R", "E", "L")
#: The columns of a breakpoint's certificate row, which the compiled loop fills in
#: (``_kernels.CERT_COLS``; here, so that a file is read without numba).
CERT_COLUMNS = (
    "primal", "dual", "gap", "relative_gap", "stationarity", "equality", "dual_feasibility",
    "complementary_alpha", "complementary_xi", "floor_relative_gap", "floor_stationarity",
    "floor_equality", "floor_dual_feasibility", "floor_complementary_alpha",
    "floor_complementary_xi", "ok", "undecided",
)  # fmt: skip
#: Keep the normalised features dense up to this many entries (faster matvecs).
_DENSE_LIMIT = 10_000_000


class _Geometry:
    """The data as the path sees it: ``G = (y_i z_i) / sigma``, merged duplicates.

    With ``sigma = max_i ||z_i||``, ``C' = C sigma^2``: tolerances do not depend on scale.
    """

    def __init__(
        self, data: Dataset, intercept: str, s: float, weights: np.ndarray | None = None
    ) -> None:
        from ...solvers.qp import signed_rows

        self.data = data
        # positive weights (the caller leaves out the zeros) or None; the path runs on
        # s_i / ws (ws a power of two near the largest) and C ws: costs, and every
        # tolerance below, independent of the weights' own scale
        self.weights = weights
        self.ws = (
            1.0 if weights is None else math.ldexp(1.0, math.frexp(float(weights.max()))[1] - 1)
        )
        self.unit_w = None if weights is None else weights / self.ws
        self.intercept = intercept
        self.s = s
        self.free = intercept == "free"
        problem = SVMProblem(data, C=1.0, intercept=intercept, intercept_scaling=s)
        self.unit = problem  # C = 1: its from_augmented splits a vector into (w, b)
        YZ = signed_rows(problem)
        if sp.issparse(YZ):
            YZ = sp.csr_matrix(YZ)
            if YZ.shape[0] * YZ.shape[1] <= _DENSE_LIMIT:
                YZ = YZ.toarray()
        norms = (
            np.sqrt(np.asarray(YZ.multiply(YZ).sum(axis=1)).ravel())
            if sp.issparse(YZ)
            else np.linalg.norm(YZ, axis=1)
        )
        sigma = float(norms.max())
        if not (sigma > 0 and math.isfinite(sigma)):
            raise ParameterError(
                "every example is the zero vector: the path is constant "
                "(w = 0) and has no breakpoint"
            )
        self.sigma2 = sigma * sigma
        self.cscale = self.sigma2 * self.ws  # internal C = user C * cscale
        y = np.asarray(data.y, float)
        # the same signed row is the same example to the QP, except that the free
        # intercept's y_i b tells the labels apart
        rep, inv = _duplicate_groups(YZ, y if self.free else np.zeros_like(y))
        self.inv = inv  # original index -> group
        self.n_orig = y.size
        self.y = y[rep]
        # the members' costs summed (unit costs without weights)
        self.c = np.bincount(inv, weights=self.unit_w, minlength=rep.size).astype(float)
        # the largest member's share of its group's multiplier (the certificates'
        # complementarity is per example): 1 / size, or the largest weight / the sum
        top = np.zeros(rep.size)
        np.maximum.at(top, inv, 1.0 if self.unit_w is None else self.unit_w)
        self.share = top / self.c
        G = YZ[rep] / sigma
        self.G = sp.csr_matrix(G) if sp.issparse(G) else np.ascontiguousarray(G)
        self.m = rep.size
        self.dz = YZ.shape[1]
        self.gl_updates = 0
        self._scaled: Dataset | None = None
        order = np.argsort(inv, kind="stable")
        bounds = np.searchsorted(inv[order], np.arange(rep.size + 1))
        self._members_order, self._members_bounds = order, bounds

    def members(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Original indices of the groups ``g``, and for each its group's position in ``g``."""
        g = np.asarray(g, np.int64)
        if self.m == self.n_orig:  # no duplicates: group k is example k
            return g.copy(), np.arange(g.size)
        lo, hi = self._members_bounds[g], self._members_bounds[g + 1]
        owner = np.repeat(np.arange(g.size), hi - lo)
        starts = np.repeat(lo - np.concatenate([[0], np.cumsum(hi - lo)[:-1]]), hi - lo)
        return self._members_order[np.arange(owner.size) + starts], owner

    def rows(self, idx: np.ndarray) -> np.ndarray:
        R = self.G[idx]
        return R.toarray() if sp.issparse(R) else R

    def Gt(self, v: np.ndarray) -> np.ndarray:
        """``G^T v``."""
        return np.asarray(v @ self.G).ravel()

    def Gdot(self, W: np.ndarray) -> np.ndarray:
        """``G W`` for W of shape (d', k)."""
        return np.asarray(self.G @ W)

    # user <-> internal units
    def C_user(self, C: float) -> float:
        return C / self.cscale

    def user_point(
        self, alpha_g: np.ndarray, w_int: np.ndarray, b: float
    ) -> tuple[np.ndarray, float, np.ndarray]:
        """(w, b, alpha) in the user's units from the internal group values."""
        share = alpha_g / self.c  # every member's share (unit costs)
        if self.unit_w is None:
            alpha = share[self.inv] / self.sigma2
        else:  # in proportion to the members' costs
            alpha = share[self.inv] * self.unit_w / self.sigma2
        wt = w_int / math.sqrt(self.sigma2)
        if self.intercept == "augmented":
            w, b_aug = self.unit.from_augmented(wt)
            return w.copy(), float(b_aug), alpha
        return wt, (float(b) if self.free else 0.0), alpha

    def problem(self, C_int: float) -> SVMProblem:
        """The user's problem at internal C (for the certificates)."""
        return SVMProblem(
            self.data,
            C=self.C_user(C_int),
            intercept=self.intercept,
            intercept_scaling=self.s,
            sample_weight=self.weights,
        )

    def scaled_problem(self, C_int: float) -> SVMProblem:
        """The same problem on ``z / sigma`` at ``C sigma^2`` (solvers' tolerances are absolute)."""
        if self._scaled is None:
            sig = math.sqrt(self.sigma2)
            X = self.data.X
            Xs = X.multiply(1.0 / sig).tocsr() if sp.issparse(X) else X / sig
            self._scaled = Dataset(Xs, self.data.y, name=self.data.name)
        return SVMProblem(
            self._scaled,
            C=C_int,
            intercept=self.intercept,
            intercept_scaling=self.s / math.sqrt(self.sigma2),
            sample_weight=self.unit_w,
        )


def _duplicate_groups(YZ: Any, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact duplicates of the rows ``(y_i z_i, key_i)``: representatives, each one's group."""
    n = key.size
    if sp.issparse(YZ):
        A = sp.csr_matrix(YZ)
        A.sum_duplicates()
        A.sort_indices()
        keys: dict[bytes, int] = {}
        inv = np.empty(n, np.int64)
        rep: list[int] = []
        for i in range(n):
            a, b = A.indptr[i], A.indptr[i + 1]
            k = A.indices[a:b].tobytes() + b"|" + A.data[a:b].tobytes() + key[i].tobytes()
            g = keys.get(k)
            if g is None:
                g = keys[k] = len(rep)
                rep.append(i)
            inv[i] = g
        return np.asarray(rep, np.int64), inv
    rows = np.column_stack([np.asarray(YZ), key])
    _, first, inv = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    inv = np.asarray(inv).ravel()
    # renumber groups by first occurrence, so group order follows the data
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return np.sort(first), rank[inv]
