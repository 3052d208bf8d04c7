r"""SMO for the kernel dual: LIBSVM's decomposition, compiled, with shrinking and a row cache.

The dual of :mod:`maxmargin.kernel_problem` with ``G = Q alpha - 1`` (so
``y_i G_i = f_i - b - y_i`` in margin units):

- free intercept: two coordinates a step, chosen by the second-order working-set
  selection of Fan, Chen & Lin (2005, "WSS2"): ``i = argmax_{I_up} -y_t G_t``,
  ``j = argmin_{t in I_low, -y_t G_t < -y_i G_i} -b_it^2 / a_it``, and the step along
  ``(y_i e_i - y_j e_j)`` that keeps ``y' alpha`` fixed, clipped to the box; stopped when
  ``max_{I_up} -y G - min_{I_low} -y G < eps`` (a violation of at most ``eps`` in
  margin units);
- no intercept: one coordinate a step, the one of largest decrease of the objective;
  stopped when the largest projected gradient is below ``eps``.

Shrinking: every ``min(n, 1000)`` steps, the points at a bound that cannot form a
violating pair are set aside; when the active set is optimal, the gradient of every
point is recomputed from the data (:meth:`~maxmargin.kernels.GramOperator.matvec`,
which also removes the drift of the incremental updates) and the run goes on with
every point if one of them violates. Kernel rows are cached (least recently used first)
in a budget of bytes. The compiled loop returns every ~0.1 s of work, so Ctrl-C is
honoured between calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._deps import CompiledKernels
from ..exceptions import SolverError
from ..kernel_problem import KernelProblem

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
    """A hard margin's SMO run looks unbounded: its separability is to be decided.

    Parameters
    ----------
    message : str
    objective : float
        The dual objective ``D = 1' alpha - 1/2 alpha' Q alpha`` reached: a lower bound
        on ``1/2 ||f*||_H^2`` (weak duality), so any separating function's margin is at
        most ``1/sqrt(2 D)``.
    certain : bool
        ``D`` passed the bound past which no point can be certified (else: the run
        passed its step count for a check, and may go on when the data are separable).
    """

    def __init__(self, message: str, objective: float, certain: bool) -> None:
        super().__init__(message)
        self.objective = objective
        self.certain = certain


_KINDS = {"linear": 0, "rbf": 1, "poly": 2, "sigmoid": 3, "precomputed": 4, "callable": 4}

#: Multiply-adds of compiled work per call (~0.1 s): Ctrl-C waits for at most one call.
_WORK_PER_CALL = 50_000_000


@dataclass(eq=False)
class SMO:
    """The state of one SMO run on a :class:`~maxmargin.kernel_problem.KernelProblem`.

    Create it, then call :meth:`run` with decreasing ``eps`` (each run continues from
    the last). ``alpha`` is feasible throughout (``0 <= alpha_i <= C_i``, ``y' alpha = 0``
    for the free intercept, up to rounding).

    Parameters
    ----------
    problem : KernelProblem
    cache_bytes : int
        Budget of the kernel-row cache (at least two rows are kept).
    shrinking : bool

    Attributes
    ----------
    alpha : ndarray of shape (n,)
    G : ndarray of shape (n,)
        ``Q alpha - 1`` (fresh on every index after :meth:`run`).
    iterations : int
        Steps taken so far.
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
        self._X = op.X if op.X is not None else np.zeros((1, 1))
        self._sq = op.sqnorms if op.sqnorms is not None else np.zeros(1)
        self._gram = op.gram if op.gram is not None else np.zeros((1, 1))
        self._gamma = float(op.gamma)
        self._coef0 = float(p.kernel.coef0)
        self._degree = int(p.kernel.degree)
        nslots = 1 if self._kind == 4 else int(max(2, min(n, self.cache_bytes // (8 * max(n, 1)))))
        self._rows = np.zeros((nslots, n if self._kind != 4 else 1))
        self._slot_of = np.full(n, -1, dtype=np.int64)
        self._owner = np.full(nslots, -1, dtype=np.int64)
        self._stamp = np.zeros(nslots, dtype=np.int64)
        self._epoch_of = np.full(nslots, -1, dtype=np.int64)
        self._full = np.zeros(nslots, dtype=np.bool_)
        self._active = np.arange(n, dtype=np.int64)
        self._state = np.array([n, 0, 0, min(n, 1000), 0, 0, 0], dtype=np.int64)
        self.alpha = np.zeros(n)
        self.G = -np.ones(n)
        d = self._X.shape[1] if self._kind != 4 else 1
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
        return int(self._rows.shape[0])

    def _fresh_gradient(self, rows: np.ndarray | None = None) -> None:
        """``G = y (K c) - 1`` from the data, on ``rows`` (default all)."""
        c = self.alpha * self._y
        q, _ = self.problem.gram.matvec(c, rows=rows)
        if rows is None:
            self.G = self._y * q - 1.0
        else:
            self.G[rows] = self._y[rows] * q - 1.0

    def violation(self) -> float:
        """The largest violation of optimality in margin units, over every point.

        Free intercept: ``max_{I_up} -y G - min_{I_low} -y G``; none: ``max |PG|``.
        """
        y, a, C, G = self._y, self.alpha, self._cost, self.G
        if self.problem.intercept == "free":
            v = -y * G
            up = ((y > 0) & (a < C)) | ((y < 0) & (a > 0))
            low = ((y < 0) & (a < C)) | ((y > 0) & (a > 0))
            if not up.any() or not low.any():
                return 0.0
            return float(v[up].max() - v[low].min())
        pg = np.where(a <= 0, np.minimum(G, 0.0), np.where(a >= C, np.maximum(G, 0.0), G))
        return float(np.max(np.abs(pg), initial=0.0))

    def run(self, eps: float) -> float:
        """Iterate until every point is optimal to ``eps`` (margin units).

        Parameters
        ----------
        eps : float > 0

        Returns
        -------
        float
            The violation reached (:meth:`violation`, with a fresh gradient).

        Raises
        ------
        SolverError
            No convergence within ``max(10^7, 100 n)`` steps (for hard margin: data
            that are not separable in the feature space, most likely).
        """
        n = self.problem.n
        step = kernels.smo_pairs if self.problem.intercept == "free" else kernels.smo_single
        st = self._state
        stuck = 0
        while True:
            status, _ = step(
                self._kind, self._X, self._sq, self._gram, self._gamma, self._coef0,
                self._degree, self._y, self._cost, self._diag, self.alpha, self.G,
                self._active, st, self._rows, self._slot_of, self._owner, self._stamp,
                self._epoch_of, self._full, float(eps), self._budget, self.shrinking, TAU,
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
        """The dual objective ``D = 1' alpha - 1/2 alpha' Q alpha = -1/2 alpha' (G - 1)``.

        ``G`` is fresh on the active set; a hard margin's shrunk points have
        ``alpha_i = 0`` (its only bound), so the product is the true one there.

        Returns
        -------
        float
        """
        return float(-0.5 * (self.alpha @ (self.G - 1.0)))

    def _check_bounded(self) -> None:
        """Hard margin: stop when the dual objective ``D`` passes ``1 / (n u R^2)``.

        ``D`` only rises, and stays below ``1/2 ||f*||_H^2 = 1 / (2 gamma^2)`` when some
        function separates the data with margin ``gamma`` (weak duality), and the sum
        of the multipliers then reaches ``2 D``: past the bound, the rounding of a
        decision value (``~ n u R^2 sum alpha``, ``R^2 = max K_ii``) is above the
        margin's unit, and no point of it can be certified. On data that no function
        of the kernel separates, ``D`` rises without bound (linearly in the steps): the
        first call past ``100 n`` steps stops once too, for the caller to decide.
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
        """``b`` of the current point: the mean of ``-y_i G_i`` over the free points.

        Without free points, the middle of the interval the bound points leave (0 for
        intercept ``none``).
        """
        if self.problem.intercept != "free":
            return 0.0
        y, a, C, G = self._y, self.alpha, self._cost, self.G
        v = -y * G
        free = (a > 0) & (a < C)
        if free.any():
            return float(v[free].mean())
        up = ((y > 0) & (a < C)) | ((y < 0) & (a > 0))
        low = ((y < 0) & (a < C)) | ((y > 0) & (a > 0))
        hi = float(v[up].max()) if up.any() else math.inf
        lo = float(v[low].min()) if low.any() else -math.inf
        if math.isfinite(hi) and math.isfinite(lo):
            return 0.5 * (hi + lo)
        return hi if math.isfinite(hi) else (lo if math.isfinite(lo) else 0.0)
