r"""SMO for the kernel dual: LIBSVM's decomposition, compiled, with shrinking and a row cache.

Free intercept: two coordinates a step by Fan, Chen & Lin's (2005) WSS2; none: the one
coordinate of largest decrease. When the active set is optimal the gradient is recomputed
from the data and the run goes on if any point violates. See ``docs/kernels.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._deps import CompiledKernels
from ..exceptions import SolverError
from ..kernel_problem import KernelProblem
from .qp import middle

__all__ = ["SMO", "DEFAULT_CACHE_BYTES", "HardMarginUnbounded"]

kernels = CompiledKernels("maxmargin.solvers._smo_kernels", "the kernel SVM's SMO solver")

#: The kernel-row cache's budget (bytes): 8 n bytes a row.
DEFAULT_CACHE_BYTES = 1024**3

#: LIBSVM's ``TAU``: the curvature used where ``a_ij <= 0`` (duplicate points, a Gram
#: that is PSD only up to rounding).
TAU = 1e-12

_BUDGET = 1
_STALLED = 2

#: Unit roundoff of double precision.
_U = 2.0**-53


class HardMarginUnbounded(SolverError):
    """A hard margin's SMO run looks unbounded (``certain``: past the certifiable bound)."""

    def __init__(self, message: str, objective: float, certain: bool) -> None:
        super().__init__(message)
        self.objective = objective
        self.certain = certain


_KINDS = {"linear": 0, "rbf": 1, "poly": 2, "sigmoid": 3, "precomputed": 4, "callable": 4}

#: Multiply-adds of compiled work per call (~0.1 s): Ctrl-C waits for at most one call.
_WORK_PER_CALL = 50_000_000


@dataclass(eq=False)
class SMO:
    """The state of one SMO run: call :meth:`run` with decreasing ``eps``, each continuing.

    ``alpha`` stays feasible; ``G = Q alpha - 1`` is fresh on every index after a run.
    """

    problem: KernelProblem
    cache_bytes: int = DEFAULT_CACHE_BYTES
    shrinking: bool = True
    alpha: np.ndarray = field(init=False)
    G: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        p = self.problem
        n = p.n
        op = p.gram
        self._kind = _KINDS[p.kernel.name]
        self._y = np.ascontiguousarray(p.data.y, dtype=float)
        self._cost = np.ascontiguousarray(p.costs, dtype=float)
        self._diag = np.ascontiguousarray(op.diag())
        X = op.X if op.X is not None else np.zeros((1, 1))
        sq = op.sqnorms if op.sqnorms is not None else np.zeros(1)
        gram = op.gram if op.gram is not None else np.zeros((1, 1))
        k = p.kernel
        self._kern = (self._kind, X, sq, gram, float(op.gamma), float(k.coef0), int(k.degree))
        nslots = 1 if self._kind == 4 else int(max(2, min(n, self.cache_bytes // (8 * max(n, 1)))))
        self._cache = (
            np.zeros((nslots, n if self._kind != 4 else 1)),  # rows
            np.full(n, -1, dtype=np.int64),  # slot_of
            np.full(nslots, -1, dtype=np.int64),  # owner
            np.zeros(nslots, dtype=np.int64),  # stamp
            np.full(nslots, -1, dtype=np.int64),  # epoch_of
            np.zeros(nslots, dtype=np.bool_),  # full
        )
        self._active = np.arange(n, dtype=np.int64)
        self._state = np.array([n, 0, 0, min(n, 1000), 0, 0, 0], dtype=np.int64)
        self.alpha = np.zeros(n)
        self.G = -np.ones(n)
        d = X.shape[1] if self._kind != 4 else 1
        self._budget = int(max(50, _WORK_PER_CALL // (max(n, 1) * (2 + d))))
        self._max_steps = max(10_000_000, 100 * n)
        # hard margin: a dual objective above this is a margin below rounding (see
        # _check_bounded); the dual of data no function separates rises without bound
        r2 = float(np.max(self._diag, initial=0.0))
        self._objective_bound = 1.0 / (n * _U * r2) if p.hard and r2 > 0 else math.inf
        # ... and rises linearly, so slowly that the bound is out of reach: once, after
        # this many steps, the caller decides whether the data are separable at all
        self._check_at: float = 100 * n if p.hard else math.inf

    @property
    def iterations(self) -> int:
        """Steps taken so far (all runs)."""
        return int(self._state[4])

    @property
    def kernel_rows(self) -> tuple[int, int]:
        """``(rows, entries)``: kernel rows computed so far, and their entries."""
        return int(self._state[5]), int(self._state[6])

    @property
    def cached_rows(self) -> int:
        """Slots of the row cache (rows held at most)."""
        return int(self._cache[0].shape[0])

    def _fresh_gradient(self, rows: np.ndarray | None = None) -> None:
        """``G = y (K c) - 1`` from the data, on ``rows`` (default all)."""
        c = self.alpha * self._y
        q, _ = self.problem.gram.matvec(c, rows=rows)
        if rows is None:
            self.G = self._y * q - 1.0
        else:
            self.G[rows] = self._y[rows] * q - 1.0

    def violation(self) -> float:
        """The largest violation of optimality in margin units, over every point."""
        if self.problem.intercept == "free":
            v, up, low = self._sides()
            if not up.any() or not low.any():
                return 0.0
            return float(v[up].max() - v[low].min())
        a, C, G = self.alpha, self._cost, self.G
        pg = np.where(a <= 0, np.minimum(G, 0.0), np.where(a >= C, np.maximum(G, 0.0), G))
        return float(np.max(np.abs(pg), initial=0.0))

    def _sides(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(-y G, I_up, I_low)``."""
        y, a, C = self._y, self.alpha, self._cost
        up = ((y > 0) & (a < C)) | ((y < 0) & (a > 0))
        return -y * self.G, up, ((y < 0) & (a < C)) | ((y > 0) & (a > 0))

    def run(self, eps: float) -> float:
        """Iterate until every point is optimal to ``eps``; returns the violation reached."""
        n = self.problem.n
        step = kernels.smo_pairs if self.problem.intercept == "free" else kernels.smo_single
        st = self._state
        stuck = 0
        while True:
            status, _ = step(
                self._kern, self._y, self._cost, self._diag, self.alpha, self.G, self._active,
                st, self._cache, float(eps), self._budget, self.shrinking, TAU,
            )  # fmt: skip
            self._check_bounded()
            if st[4] > self._max_steps:
                raise SolverError(self._not_converged(eps))
            if status == _BUDGET:  # back in Python between calls (Ctrl-C), then go on
                continue
            # optimal (or stalled) on the active set: check every point, from the data
            was_full = st[0] == n
            self._fresh_gradient()
            viol = self.violation()
            if viol < eps or (status == _STALLED and was_full):
                return viol
            if was_full:
                # optimal by the incremental gradient, not by the fresh one: its drift
                # is above eps; twice in a row, eps is below what rounding allows
                stuck += 1
                if stuck >= 2:
                    return viol
            st[0] = n  # every point active again: a new epoch for the row cache
            st[2] += 1
            st[3] = 1  # shrink at the first step: only the violators stay

    def objective(self) -> float:
        """The dual objective ``D = -1/2 alpha' (G - 1)`` (shrunk hard-margin points: 0)."""
        return float(-0.5 * (self.alpha @ (self.G - 1.0)))

    def _check_bounded(self) -> None:
        """Hard margin: stop when ``D`` passes ``1 / (n u R^2)``, or once past ``100 n`` steps.

        Past the bound no point can be certified.
        """
        if not self.problem.hard:
            return
        D = self.objective()
        if D > self._objective_bound:
            raise HardMarginUnbounded(
                f"the hard margin's dual objective passed {self._objective_bound:.3g} "
                f"in {self.iterations} SMO steps",
                D,
                certain=True,
            )
        if self.iterations > self._check_at:
            self._check_at = math.inf
            raise HardMarginUnbounded(
                f"the hard margin's dual objective is {D:.3g} after {self.iterations} SMO steps",
                D,
                certain=False,
            )

    def _not_converged(self, eps: float) -> str:
        hint = (
            "; hard margin needs data separable in the kernel's feature space"
            if self.problem.hard
            else ""
        )
        return (
            f"SMO did not reach a violation of {eps:.0e} in {self.iterations} steps "
            f"(violation {self.violation():.2e}){hint}"
        )

    def intercept(self) -> float:
        """``b``: the mean of ``-y_i G_i`` over the free points, else the bounds' midpoint."""
        if self.problem.intercept != "free":
            return 0.0
        v, up, low = self._sides()
        free = up & low  # 0 < alpha_i < C_i
        if free.any():
            return float(v[free].mean())
        hi = float(v[up].max()) if up.any() else math.inf
        lo = float(v[low].min()) if low.any() else -math.inf
        return middle(lo, hi)
