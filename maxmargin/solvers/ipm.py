r"""A primal-dual interior-point method for the linear SVM dual, with Woodbury solves.

Mehrotra's predictor-corrector on ``min 1/2 a'Qa - 1'a``, ``Q = V V^T`` (``V = YZ``),
``0 <= a <= C`` (hard margin and squared hinge: no upper bound), ``y'a = 0`` for the free
intercept (``nu = b``). Woodbury: ``O(n d'^2)`` an iteration (``d' > n``: ``Q + D``
factored). The caller polishes; ``"unbounded"`` never decides separability.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from threadpoolctl import ThreadpoolController

from .._deps import CompiledKernels
from ..exceptions import SolverError
from .qp import QPTask
from .result import RawResult, Status

__all__ = ["IPMResult", "solve_dual", "suitable", "dense_bytes"]

#: The compiled loops (:mod:`._ipm_kernels`), imported at the first solve (numba).
kernels = CompiledKernels("maxmargin.solvers._ipm_kernels", "the IPM solver")

#: Largest d' for which the dense d' x d' Gram is formed (8 MB at 1000).
MAX_DZ = 1000
#: Largest n for which Q = V V^T (n x n) may be formed when d' > n.
MAX_DENSE_N = 3000
#: Per-iteration flop budget for the automatic choice (n d'^2 or n^3/3).
MAX_FLOPS = 4e10
#: Below this n d', PIQP is a few ms faster (measured: 1000 x 10 PIQP 11 ms, IPM 15 ms).
MIN_SIZE = 20_000
#: Largest d' whose weighted Gram is a numba pass (measured); BLAS in row blocks above.
NUMBA_GRAM_D = 128
#: Rows per BLAS block of the Gram (a block of V fits in L2 at d' ~ 100).
GRAM_BLOCK = 2048
#: The dense work arrays (:func:`dense_bytes`) :func:`solve_dual` accepts.
MAX_DENSE_BYTES = 2 * 2**30


@dataclass
class IPMResult:
    """What :func:`solve_dual` returns; ``state``: optimal, inaccurate, unbounded or failed."""

    state: str
    text: str
    alpha: np.ndarray
    nu: float
    iterations: int


def suitable(n: int, dz: int, sparse: bool) -> bool:
    """Whether the IPM is a sensible default for an (n, d') problem (else PIQP).

    Examples
    --------
    >>> suitable(10000, 50, False), suitable(500, 20000, False), suitable(10**5, 5000, True)
    (True, True, False)
    >>> suitable(270, 13, True)  # heart_scale: PIQP is faster there
    False
    """
    if n <= 0 or dz <= 0 or n * dz < MIN_SIZE:
        return False
    if dz <= n:
        return dz <= MAX_DZ and n * dz * dz <= MAX_FLOPS
    if sparse and dz > MAX_DZ and n > MAX_DENSE_N:
        return False
    return n <= MAX_DENSE_N and n * n * (dz + n / 3) <= MAX_FLOPS


class _Rows:
    """Products with ``V`` (n x d'): numba passes on dense rows, scipy on sparse ones."""

    def __init__(self, V: Any) -> None:
        self.sparse = sp.issparse(V)
        self.V: Any = (
            sp.csr_matrix(V, dtype=float) if self.sparse else np.ascontiguousarray(V, dtype=float)
        )
        self.n, self.d = V.shape

    def gram(
        self, w: np.ndarray, c1: np.ndarray, c2: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``V^T diag(w) V``, ``V^T (w c1)``, ``V^T (w c2)``."""
        V, d = self.V, self.d
        if self.sparse:
            W = sp.csr_matrix(V.multiply(np.sqrt(w)[:, None]))
            G = (W.T @ W).toarray()
            return G, np.asarray(V.T @ (w * c1)).ravel(), np.asarray(V.T @ (w * c2)).ravel()
        if d > NUMBA_GRAM_D:
            # large G: BLAS (syrk) in row blocks, no n x d' temporary
            G = np.zeros((d, d))
            s = np.sqrt(w)
            for lo in range(0, self.n, GRAM_BLOCK):
                W = V[lo : lo + GRAM_BLOCK] * s[lo : lo + GRAM_BLOCK, None]
                G += W.T @ W
            return G, V.T @ (w * c1), V.T @ (w * c2)
        return kernels.gram(V, w, c1, c2)

    def rmatvec(self, s: np.ndarray, r: np.ndarray) -> np.ndarray:
        """``V^T (s r)``."""
        if self.sparse:
            return np.asarray(self.V.T @ (s * r)).ravel()
        out = np.empty(self.d)
        kernels.rmatvec(self.V, s, r, out)
        return out

    def backsub(self, s: np.ndarray, r: np.ndarray, u: np.ndarray) -> np.ndarray:
        """``s (r - V u)``."""
        if self.sparse:
            return s * (r - self.V @ u)
        x = np.empty(self.n)
        kernels.backsub(self.V, s, r, u, x)
        return x

    def backsub2(
        self, s: np.ndarray, r1: np.ndarray, u1: np.ndarray, r2: np.ndarray, u2: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`backsub` for two right-hand sides (one pass over V)."""
        if self.sparse:
            return self.backsub(s, r1, u1), self.backsub(s, r2, u2)
        x1, x2 = np.empty(self.n), np.empty(self.n)
        kernels.backsub2(self.V, s, r1, u1, r2, u2, x1, x2)
        return x1, x2

    def rmatvec1(self, x: np.ndarray) -> np.ndarray:
        """``V^T x``."""
        return np.asarray(self.V.T @ x).ravel()

    def Qx(self, x: np.ndarray) -> np.ndarray:
        """``V V^T x`` (Q is never formed)."""
        return np.asarray(self.V @ self.rmatvec1(x)).ravel()

    def residual(
        self,
        D: np.ndarray,
        Dinv: np.ndarray,
        x: np.ndarray,
        nu: float,
        y: np.ndarray,
        r: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """``res = r - ((V V^T + D) x + nu y)``, ``V^T (Dinv res)`` and ``max |res|``."""
        vx = self.rmatvec1(x)
        if self.sparse:
            res = r - (np.asarray(self.V @ vx).ravel() + D * x + nu * y)
            return res, self.rmatvec(Dinv, res), float(np.max(np.abs(res), initial=0.0))
        res, p = np.empty(self.n), np.empty(self.d)
        size = kernels.residual(self.V, vx, D, Dinv, x, nu, y, r, res, p)
        return res, p, size


class _KKT:
    """Solves ``(V V^T + D) x + y nu = r, y^T x = s`` (and ``r0`` in the same passes)."""

    def __init__(
        self,
        rows: _Rows | None,
        Q: np.ndarray | None,
        D: np.ndarray,
        Dinv: np.ndarray,
        y: np.ndarray | None,
        r0: np.ndarray,
    ) -> None:
        self.rows, self.Q, self.D, self.Dinv, self.y = rows, Q, D, Dinv, y
        self.y0 = np.zeros(len(D)) if y is None else y  # nu y with nu = 0 without it
        if Q is not None:
            K = Q.copy()
            K[np.diag_indices_from(K)] += D
            self.fac = _chol(K)
            self.x0 = self._solve_K(r0)
            if y is not None:
                self.Ky = self._solve_K(y)
        else:
            assert rows is not None  # Woodbury exactly when Q is not given
            G, py, p0 = rows.gram(Dinv, self.y0, r0)
            G[np.diag_indices_from(G)] += 1.0
            self.fac = _chol(G)
            u0 = sla.cho_solve(self.fac, p0, check_finite=False)
            if y is None:
                self.x0 = rows.backsub(Dinv, r0, u0)
            else:
                uy = sla.cho_solve(self.fac, py, check_finite=False)
                self.x0, self.Ky = rows.backsub2(Dinv, r0, u0, y, uy)
        if y is not None:
            self.yKy = float(y @ self.Ky)

    def _solve_K(self, r: np.ndarray, p: np.ndarray | None = None) -> np.ndarray:
        """``(V V^T + D)^{-1} r``; ``p = V^T (Dinv r)`` when already known."""
        if self.Q is not None:
            return sla.cho_solve(self.fac, r, check_finite=False)
        assert self.rows is not None
        if p is None:
            p = self.rows.rmatvec(self.Dinv, r)
        u = sla.cho_solve(self.fac, p, check_finite=False)
        return self.rows.backsub(self.Dinv, r, u)

    def _eliminate(self, x: np.ndarray, s: float) -> tuple[np.ndarray, float]:
        """Add ``-nu K^{-1} y`` to ``x = K^{-1} r`` so that ``y^T x = s``."""
        if self.y is None:
            return x, 0.0
        nu = (float(self.y @ x) - s) / self.yKy
        x -= nu * self.Ky
        return x, nu

    def _residual(
        self, r: np.ndarray, s: float, x: np.ndarray, nu: float
    ) -> tuple[np.ndarray, float, np.ndarray | None, float]:
        res_s = s - (float(self.y @ x) if self.y is not None else 0.0)
        if self.Q is None:
            assert self.rows is not None
            res, p, size = self.rows.residual(self.D, self.Dinv, x, nu, self.y0, r)
            return res, res_s, p, size + abs(res_s)
        res = r - (self.Q @ x + self.D * x + nu * self.y0)
        return res, res_s, None, float(np.max(np.abs(res), initial=0.0)) + abs(res_s)

    def solve(
        self, r: np.ndarray, s: float = 0.0, refine: int = 1, first: bool = False
    ) -> tuple[np.ndarray, float]:
        """The Newton step, with up to ``refine`` refinement steps (``first``: ``r`` is ``r0``)."""
        x, nu = self._eliminate(self.x0 if first else self._solve_K(r), s)
        if refine <= 0:
            return x, nu
        scale = float(np.max(np.abs(r), initial=0.0)) + abs(s)
        last = math.inf
        for _ in range(refine):
            res, res_s, p, size = self._residual(r, s, x, nu)
            if size <= 1e-14 * scale or size >= 0.5 * last:
                break
            last = size
            dx, dnu = self._eliminate(self._solve_K(res, p), res_s)
            x += dx
            nu += dnu
        return x, nu


def _chol(A: np.ndarray) -> Any:
    """Cholesky of a symmetric positive definite A; a tiny diagonal shift if it fails."""
    try:
        return sla.cho_factor(A, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        shift = 1e-13 * max(1.0, float(np.max(np.abs(np.diag(A)))))
        return sla.cho_factor(A + shift * np.eye(A.shape[0]), lower=True, check_finite=False)


def solve_dual(
    V: Any,
    y: np.ndarray,
    C: Any,
    free: bool,
    *,
    tol: float = 1e-10,
    max_iter: int = 100,
    linsolve: str = "auto",
    squared: bool = False,
) -> IPMResult:
    """Mehrotra predictor-corrector on the dual with ``Q = V V^T``, stopping at ``tol``.

    ``V``: the rows ``y_i z_i``; ``C``: the costs (inf: hard margin); ``free``: with
    ``y^T alpha = 0``. Raises :class:`SolverError` past :data:`MAX_DENSE_BYTES`.

    Examples
    --------
    >>> r = solve_dual(np.array([[1.0], [1.0]]), np.array([1.0, -1.0]), math.inf, True)
    >>> r.state, np.round(r.alpha, 8).tolist(), round(abs(r.nu), 8)
    ('optimal', [0.5, 0.5], 0.0)
    """
    need = dense_bytes(V)
    if need > MAX_DENSE_BYTES:
        n, dz = V.shape
        raise SolverError(
            f"the IPM would form {need / 2**30:.1f} GiB of dense matrices for this "
            f"{n} x {dz} problem (it densifies sparse X and factors a "
            f"{min(n, dz)} x {min(n, dz)} matrix); use solver='DCD' (--solver DCD: dual "
            "coordinate descent: reads sparse X as it is, made for sparse high-dimensional data)"
        )
    # diverging hard-margin iterates overflow by design
    with np.errstate(all="ignore"), blas_threads(1):
        return _solve_dual(V, y, C, free, tol, max_iter, linsolve, squared)


_CONTROLLER: ThreadpoolController | None = None


def blas_threads(limit: int) -> Any:
    """Context manager: at most ``limit`` BLAS threads inside (see ``docs/benchmarks.md``).

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> with blas_threads(1):
    ...     all(p["num_threads"] == 1 for p in threadpool_info() if p["user_api"] == "blas")
    True
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=limit, user_api="blas")


def dense_bytes(V: Any) -> int:
    """Bytes of the dense arrays :func:`solve_dual` forms for ``V`` (shape (n, d')).

    Examples
    --------
    >>> round(dense_bytes(sp.csr_matrix((20000, 100000))) / 2**30, 1)  # densified V + Q
    17.9
    """
    n, dz = V.shape
    out = 8 * (dz * dz if dz <= n else n * n)
    if sp.issparse(V) and (n * dz <= 4_000_000 or V.nnz > 0.2 * n * dz or dz > n):
        out += 8 * n * dz
    return out


def _solve_dual(
    V: Any, y: np.ndarray, C: Any, free: bool, tol: float, max_iter: int, linsolve: str, sq: bool
) -> IPMResult:
    n, dz = V.shape
    y = np.ascontiguousarray(y, dtype=float)
    C = np.broadcast_to(np.asarray(C, dtype=float), (n,))
    # the squared hinge: E = 1/(2 C_i) on Q's diagonal, and no upper bound (the kernels'
    # "hard" branch); its dual is bounded, so nothing below reads divergence as unbounded
    E = 0.5 / C if sq else None
    hard = not np.isfinite(C).all() or sq  # no upper bound
    if linsolve == "auto":
        linsolve = "woodbury" if dz <= n else "dense"
    if sp.issparse(V) and (n * dz <= 4_000_000 or V.nnz > 0.2 * n * dz):
        # small or not really sparse: dense products beat sparse ones (heart_scale: 4x)
        V = V.toarray()
    rows = _Rows(V)
    Q = None
    if linsolve == "dense":
        Vd = V.toarray() if sp.issparse(V) else np.asarray(V)
        Q = Vd @ Vd.T

    def Qx(x: np.ndarray) -> np.ndarray:
        out = Q @ x if Q is not None else rows.Qx(x)
        return out if E is None else out + E * x

    Cf = np.zeros(n) if hard else np.ascontiguousarray(C)  # never read when hard
    a, zl, zu = _start(Qx, n, Cf, hard)
    nu = 0.0
    m = n if hard else 2 * n
    yy = y if free else None
    yk = y if free else np.zeros(n)  # nu stays 0 without the equality
    rd, D, Dinv, rhs = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    rl, ru = np.empty(n), np.empty(n)
    ra, rs, rzl, rzu = np.empty(n), np.empty(n), np.empty(n), np.empty(n)  # reciprocals
    it = 0
    text = ""
    state = "inaccurate"
    best: tuple[float, np.ndarray, float] | None = None
    stalled = 0
    for it in range(1, max_iter + 1):
        Qa = Qx(a)
        comp, aqa, asum, rdmax, qmax, amax, ya = kernels.residuals(
            Qa, a, zl, zu, yk, nu, Cf, hard, rd
        )
        rp = ya if free else 0.0
        mu = comp / m
        fval = 0.5 * aqa - asum
        scale_f = max(1.0, abs(fval))
        res_d = rdmax / (1.0 + qmax)
        res_p = abs(rp) / (1.0 + amax)
        gap = comp / scale_f
        score = max(gap, res_d, res_p)
        if best is None or score < 0.5 * best[0]:
            best, stalled = (score, a.copy(), nu), 0
        else:
            stalled += 1
        text = f"iter {it - 1}: rel. gap {gap:.1e}, dual res {res_d:.1e}, primal res {res_p:.1e}"
        if gap <= tol and res_d <= tol and res_p <= tol:
            state = "optimal"
            break
        if stalled >= 5 and best[0] <= 1e-6:
            # rounding has the last word (Woodbury cancellation as mu -> 0): hand the
            # best iterate to the polish
            text = f"stalled at {best[0]:.1e}; {text}"
            break
        if hard and not sq and amax > 1e13:
            # dual unbounded: no separating hyperplane (or a margin < ~1e-6.5 of the data)
            return IPMResult(
                "unbounded", f"dual diverges (max alpha {amax:.1e}); {text}", a, nu, it - 1
            )
        if not (math.isfinite(comp) and math.isfinite(fval)):
            state, text = "failed", f"non-finite iterate; {text}"
            break
        # Refinement where the Woodbury cancellation bites, the corrector's only (the
        # predictor needs no more digits: measured, ~10% faster)
        refine = 3 if gap < 1e-6 else 0
        kernels.scaling(a, zl, zu, Cf, hard, D, Dinv, ra, rs, rzl, rzu)
        _add_diagonal(E, D, Dinv)
        # predictor (affine scaling: target mu = 0), solved with the factorisation
        kernels.predictor_rhs(rd, zl, zu, hard, rhs)
        try:
            K = _KKT(None if Q is not None else rows, Q, D, Dinv, yy, rhs)
        except (np.linalg.LinAlgError, ValueError) as exc:
            state, text = "failed", f"factorisation failed ({exc}); {text}"
            break
        dx, dnu = K.solve(rhs, -rp, 0, first=True)
        t, comp_aff = kernels.affine_step(a, zl, zu, dx, ra, rs, Cf, hard)
        sigma = min(1.0, max(0.0, comp_aff / comp)) ** 3
        # corrector: centring sigma*mu plus the second-order term
        kernels.corrector_rhs(a, zl, zu, dx, rd, sigma * mu, ra, rs, Cf, hard, rl, ru, rhs)
        dx, dnu = K.solve(rhs, -rp, refine)
        t, finite = kernels.corrector_step(a, zl, zu, dx, rl, ru, ra, rs, rzl, rzu, hard)
        eta = max(0.99, 1.0 - mu)
        t = min(1.0, eta * t)
        if not (math.isfinite(t) and finite):
            state, text = "failed", f"non-finite step; {text}"
            break
        # a += t dx, zl += t dzl, zu += t dzu, kept strictly interior against rounding
        kernels.update(a, zl, zu, dx, rl, ru, ra, rs, t, Cf, hard)
        nu = nu + t * dnu
    else:
        state = "inaccurate"
        if hard and not sq:
            return IPMResult("unbounded", f"iteration cap; {text}", a, nu, it)
    if state != "optimal" and best is not None:
        a, nu = best[1], best[2]
    return IPMResult(state, text, a, float(nu) if free else 0.0, it)


def _add_diagonal(E: np.ndarray | None, D: np.ndarray, Dinv: np.ndarray) -> None:
    """The squared hinge's ``E`` into the Newton system's diagonal ``D`` (and ``1/D``)."""
    if E is not None:
        D += E
        np.divide(1.0, D, out=Dinv)


def _start(Qx: Any, n: int, C: np.ndarray, hard: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start at ``alpha = t e``, ``t`` the minimiser along e (clipped); ``z = g^+- + delta``."""
    e = np.ones(n)
    qe = float(e @ Qx(e))
    tstar = n / qe if qe > 0 else 1.0
    if hard:
        a = np.full(n, max(tstar, 1e-2))
    else:
        top = 0.5 * C
        a = np.minimum(top, np.maximum(tstar, 1e-2 * np.minimum(top, 1.0)))
    g = Qx(a) - e
    delta = 0.1 * max(1.0, float(np.max(np.abs(g))))
    zl = np.maximum(g, 0.0) + delta
    zu = np.zeros(n) if hard else np.maximum(-g, 0.0) + delta
    return a, zl, zu


def solve_qp(task: QPTask) -> RawResult:
    """maxmargin's own dual IPM on ``task``: ``x = (alpha, (YZ)^T alpha)``, ``y_eq = [b]``."""
    problem, YZ = task.whole("IPM"), task.YZ
    free = problem.intercept == "free"
    r = solve_dual(YZ, problem.data.y, problem.costs, free, squared=problem.squared)
    u = np.asarray(YZ.T @ r.alpha).ravel()
    text = f"{r.state} ({r.iterations} iterations; {r.text})"
    return RawResult(
        Status(r.state), text, np.concatenate([r.alpha, u]), np.array([r.nu]) if free else None
    )
