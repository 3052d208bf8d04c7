"""A primal-dual interior-point method for the linear SVM dual, with Woodbury solves.

The QP (DESIGN section 1, in the space ``z_i`` the QP sees, ``V = YZ`` of shape (n, d')):

.. math::

    \\min_\\alpha \\tfrac12 \\alpha^T Q \\alpha - 1^T \\alpha, \\quad Q = V V^T, \\qquad
    0 \\le \\alpha \\le C, \\quad y^T \\alpha = 0 \\ \\text{(free intercept only)}

``C = inf`` for hard margin (only ``alpha >= 0``). ``Q`` is never formed when
``d' <= n``. With multipliers ``z_l >= 0`` (for ``alpha >= 0``), ``z_u >= 0`` (for
``alpha <= C``) and ``nu`` (for ``y^T alpha = 0``; it is the intercept ``b``) the KKT
conditions are

.. math::

    Q\\alpha - 1 + y\\nu - z_l + z_u = 0,\\quad y^T\\alpha = 0,\\quad
    \\alpha_i z_{l,i} = 0,\\quad (C - \\alpha_i) z_{u,i} = 0.

Mehrotra's predictor-corrector keeps ``0 < alpha < C`` and ``z > 0`` and solves, twice per
iteration with the same factorisation,

.. math::

    (Q + D)\\,\\Delta\\alpha + y\\,\\Delta\\nu = r, \\qquad y^T\\Delta\\alpha = s, \\qquad
    D = \\mathrm{diag}\\Big(\\frac{z_l}{\\alpha} + \\frac{z_u}{C - \\alpha}\\Big) > 0.

By the Woodbury identity

.. math::

    (D + V V^T)^{-1} = D^{-1} - D^{-1} V (I + V^T D^{-1} V)^{-1} V^T D^{-1},

one iteration costs ``O(n d'^2)`` (the d' x d' Gram ``V^T D^{-1} V``, dense or sparse
products) plus a d' x d' Cholesky; the equality is eliminated by its 1 x 1 Schur
complement ``y^T (Q + D)^{-1} y``. When ``d' > n`` the Woodbury form is no cheaper, and
this module forms ``Q + D`` (n x n) and factors it directly (``linsolve="dense"``);
callers should only do so for small n (see :func:`suitable`). Each solve gets one step
of iterative refinement on the full system (two products with V), which recovers the
accuracy the Woodbury cancellation loses late in the iteration.

The iteration stops at a relative duality gap and relative residuals of ``tol``
(1e-10 by default); the caller's active-set polish finishes the job. Hard margin on
non-separable data makes the dual unbounded: the iterates diverge, and :func:`solve_dual`
reports ``"unbounded"`` (the caller decides separability by an LP, never on this word).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from .exceptions import SolverError

__all__ = ["IPMResult", "solve_dual", "suitable", "dense_bytes"]

#: Largest d' for which the dense d' x d' Gram is formed (8 MB at 1000).
MAX_DZ = 1000
#: Largest n for which Q = V V^T (n x n) may be formed when d' > n.
MAX_DENSE_N = 3000
#: Per-iteration flop budget for the automatic choice (n d'^2 or n^3/3).
MAX_FLOPS = 4e10
#: Below this n d', PIQP's compiled loop beats our Python-level iteration by a few ms
#: (measured, 2 cores: 1000 x 10 PIQP 11 ms vs IPM 15 ms; 3000 x 10 PIQP 30 vs IPM 23).
MIN_SIZE = 20_000
#: solve_dual refuses a problem whose dense work arrays (densified V, the n x n Q or the
#: d' x d' Gram) would exceed this: sparse 20000 x 100000 would need 15 GiB.
MAX_DENSE_BYTES = 2 * 2**30


@dataclass
class IPMResult:
    """What :func:`solve_dual` returns.

    Attributes
    ----------
    state : str
        ``"optimal"`` (tolerance reached), ``"inaccurate"`` (stalled or iteration cap,
        with a usable point), ``"unbounded"`` (hard margin: the dual diverges, so the
        data are probably not separable) or ``"failed"`` (numerical breakdown).
    text : str
        A one-line account (iterations, final gap and residuals).
    alpha : ndarray of shape (n,)
        Dual point, strictly inside the box.
    nu : float
        Multiplier of ``y^T alpha = 0`` (the intercept b); 0 without the equality.
    iterations : int
    """

    state: str
    text: str
    alpha: np.ndarray
    nu: float
    iterations: int


def suitable(n: int, dz: int, sparse: bool) -> bool:
    """Whether the IPM is a sensible default for an (n, d') problem.

    True when the d' x d' Gram is small (``d' <= 1000``) and ``d' <= n`` (Woodbury), or
    when ``d' > n`` but ``n <= 3000`` (then ``Q`` itself is factored), one iteration
    costs at most ~4e10 flops, and the problem is not tiny (``n d' >= 20000``; below
    that PIQP is a few milliseconds faster). Sparse data with ``d' > 1000`` go to
    PIQP, whose sparse LDL can exploit the sparsity the dense Gram would destroy.

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


class _KKT:
    """Solves ``(V V^T + D) x + y nu = r, y^T x = s`` for one diagonal ``D``."""

    def __init__(self, V: Any, D: np.ndarray, y: np.ndarray | None, mode: str) -> None:
        self.V, self.D, self.y, self.mode = V, D, y, mode
        self.Dinv = 1.0 / D
        if mode == "dense":
            K = self._Q + np.diag(D)
            self.fac = _chol(K)
        else:
            s = np.sqrt(self.Dinv)
            if sp.issparse(V):
                W = sp.csr_matrix(V.multiply(s[:, None]))
                G = (W.T @ W).toarray()
            else:
                W = V * s[:, None]
                G = W.T @ W
            G[np.diag_indices_from(G)] += 1.0
            self.fac = _chol(G)
        if y is not None:
            self.Ky = self._solve_K(y)
            self.yKy = float(y @ self.Ky)

    _Q: np.ndarray  # set by the caller in dense mode

    def _solve_K(self, r: np.ndarray) -> np.ndarray:
        """``(V V^T + D)^{-1} r`` (Woodbury, or the dense Cholesky)."""
        if self.mode == "dense":
            return sla.cho_solve(self.fac, r, check_finite=False)
        t = self.Dinv * r
        u = sla.cho_solve(self.fac, np.asarray(self.V.T @ t).ravel(), check_finite=False)
        return t - self.Dinv * np.asarray(self.V @ u).ravel()

    def _solve_once(self, r: np.ndarray, s: float) -> tuple[np.ndarray, float]:
        x = self._solve_K(r)
        if self.y is None:
            return x, 0.0
        nu = (float(self.y @ x) - s) / self.yKy
        return x - nu * self.Ky, nu

    def _apply(self, x: np.ndarray, nu: float) -> tuple[np.ndarray, float]:
        if self.mode == "dense":
            Kx = self._Q @ x
        else:
            Kx = np.asarray(self.V @ np.asarray(self.V.T @ x).ravel()).ravel()
        Kx += self.D * x
        if self.y is None:
            return Kx, 0.0
        return Kx + nu * self.y, float(self.y @ x)

    def solve(self, r: np.ndarray, s: float = 0.0, refine: int = 1
              ) -> tuple[np.ndarray, float]:
        """The Newton step, with up to ``refine`` steps of iterative refinement.

        Refinement stops once the residual of the full system is below ``1e-14`` of
        the right-hand side (or stops shrinking).
        """
        x, nu = self._solve_once(r, s)
        scale = float(np.max(np.abs(r), initial=0.0)) + abs(s)
        last = math.inf
        for _ in range(refine):
            Kx, yx = self._apply(x, nu)
            res, res_s = r - Kx, s - yx
            size = float(np.max(np.abs(res), initial=0.0)) + abs(res_s)
            if size <= 1e-14 * scale or size >= 0.5 * last:
                break
            last = size
            dx, dnu = self._solve_once(res, res_s)
            x, nu = x + dx, nu + dnu
        return x, nu


def _chol(A: np.ndarray) -> Any:
    """Cholesky of a symmetric positive definite A; a tiny diagonal shift if it fails."""
    try:
        return sla.cho_factor(A, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        shift = 1e-13 * max(1.0, float(np.max(np.abs(np.diag(A)))))
        return sla.cho_factor(A + shift * np.eye(A.shape[0]), lower=True, check_finite=False)


def _step_to_boundary(v: np.ndarray, dv: np.ndarray) -> float:
    """Largest t <= 1 with ``v + t dv >= 0`` (v > 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(dv < 0, v / -dv, np.inf)
    return float(min(1.0, r.min(initial=np.inf)))


def solve_dual(V: Any, y: np.ndarray, C: float, free: bool, *, tol: float = 1e-10,
               max_iter: int = 100, linsolve: str = "auto") -> IPMResult:
    """Mehrotra predictor-corrector on the SVM dual QP with ``Q = V V^T`` (implicit).

    Parameters
    ----------
    V : ndarray or scipy.sparse matrix of shape (n, d')
        ``YZ``: the rows ``y_i z_i``.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float
        Upper bound (``math.inf`` for hard margin).
    free : bool
        Whether the equality ``y^T alpha = 0`` is present (free intercept).
    tol : float
        Relative tolerance on the duality gap ``(alpha^T z_l + (C-alpha)^T z_u) /
        max(1, |f|)`` and on the scaled residuals.
    max_iter : int
    linsolve : {"auto", "woodbury", "dense"}
        ``auto``: Woodbury when ``d' <= n``, else form ``Q`` (n x n).

    Returns
    -------
    IPMResult

    Raises
    ------
    SolverError
        When the dense work arrays would exceed :data:`MAX_DENSE_BYTES`
        (:func:`dense_bytes`); the message names the DCD route.

    Examples
    --------
    Two points ``+-1`` (optimum ``alpha = (1/2, 1/2)``, ``b = 0``):

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
            f"{min(n, dz)} x {min(n, dz)} matrix); use solver='DCD' (dual coordinate "
            "descent: reads sparse X as it is, made for sparse high-dimensional data)")
    with np.errstate(all="ignore"):  # diverging hard-margin iterates overflow by design
        return _solve_dual(V, y, C, free, tol=tol, max_iter=max_iter, linsolve=linsolve)


def dense_bytes(V: Any) -> int:
    """Bytes of the dense arrays :func:`solve_dual` forms for ``V`` (shape (n, d')).

    A densified V where :func:`_solve_dual` densifies a sparse one, plus the d' x d'
    Gram (Woodbury, ``d' <= n``) or the n x n Q (``d' > n``).

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


def _solve_dual(V: Any, y: np.ndarray, C: float, free: bool, *, tol: float,
                max_iter: int, linsolve: str) -> IPMResult:
    n, dz = V.shape
    y = np.asarray(y, float)
    hard = not math.isfinite(C)
    if linsolve == "auto":
        linsolve = "woodbury" if dz <= n else "dense"
    if sp.issparse(V) and (n * dz <= 4_000_000 or V.nnz > 0.2 * n * dz):
        # small or not really sparse: dense BLAS beats sparse products (heart_scale: 4x)
        V = V.toarray()
    Q = None
    if linsolve == "dense":
        Vd = V.toarray() if sp.issparse(V) else np.asarray(V)
        Q = Vd @ Vd.T

    def Qx(x: np.ndarray) -> np.ndarray:
        if Q is not None:
            return Q @ x
        return np.asarray(V @ np.asarray(V.T @ x).ravel()).ravel()

    e = np.ones(n)
    a, zl, zu = _start(Qx, n, C, hard)
    nu = 0.0
    m = n if hard else 2 * n
    yy = y if free else None
    it = 0
    text = ""
    state = "inaccurate"
    best: tuple[float, np.ndarray, float] | None = None
    stalled = 0
    for it in range(1, max_iter + 1):
        Qa = Qx(a)
        su = np.full(n, np.inf) if hard else C - a
        rd = Qa - e - zl + (0.0 if hard else zu)
        if free:
            rd = rd + nu * y
        rp = float(y @ a) if free else 0.0
        comp = float(a @ zl + (0.0 if hard else su @ zu))
        mu = comp / m
        fval = 0.5 * float(a @ Qa) - float(a.sum())
        scale_f = max(1.0, abs(fval))
        amax = float(np.max(a))
        res_d = float(np.max(np.abs(rd))) / (1.0 + float(np.max(np.abs(Qa))))
        res_p = abs(rp) / (1.0 + amax)
        gap = comp / scale_f
        score = max(gap, res_d, res_p)
        if best is None or score < 0.5 * best[0]:
            best, stalled = (score, a.copy(), nu), 0
        else:
            stalled += 1
        text = (f"iter {it - 1}: rel. gap {gap:.1e}, dual res {res_d:.1e}, "
                f"primal res {res_p:.1e}")
        if gap <= tol and res_d <= tol and res_p <= tol:
            state = "optimal"
            break
        if stalled >= 5 and best[0] <= 1e-6:
            # rounding has the last word (Woodbury cancellation as mu -> 0): hand the
            # best iterate to the polish
            text = f"stalled at {best[0]:.1e}; {text}"
            break
        if hard and amax > 1e13:
            # dual unbounded: no separating hyperplane (or a margin < ~1e-6.5 of the data)
            return IPMResult("unbounded", f"dual diverges (max alpha {amax:.1e}); {text}",
                             a, nu, it - 1)
        if not (math.isfinite(comp) and math.isfinite(fval)):
            state, text = "failed", f"non-finite iterate; {text}"
            break
        # Iterative refinement only where the Woodbury cancellation starts to bite.
        refine = 3 if gap < 1e-6 else 0
        D = zl / a + (0.0 if hard else zu / su)
        try:
            K = _KKT(V, D, yy, linsolve) if Q is None else _dense_kkt(Q, V, D, yy)
        except (np.linalg.LinAlgError, ValueError) as exc:
            state, text = "failed", f"factorisation failed ({exc}); {text}"
            break
        # predictor (affine scaling: target mu = 0)
        rhs = -rd - zl + (0.0 if hard else zu)   # rl/a - ru/su with rl = -a zl, ru = -su zu
        dx, dnu = K.solve(rhs, -rp, refine)
        dzl = -zl - zl * dx / a
        dzu = np.zeros(n) if hard else -zu + zu * dx / su
        t = _max_step(a, su, zl, zu, dx, dzl, dzu, hard)
        comp_aff = float((a + t * dx) @ (zl + t * dzl))
        if not hard:
            comp_aff += float((su - t * dx) @ (zu + t * dzu))
        sigma = min(1.0, max(0.0, comp_aff / comp)) ** 3
        # corrector: centring sigma*mu plus the second-order term
        rl = sigma * mu - a * zl - dx * dzl
        rhs = -rd + rl / a
        if not hard:
            ru = sigma * mu - su * zu + dx * dzu
            rhs = rhs - ru / su
        dx, dnu = K.solve(rhs, -rp, refine)
        dzl = (rl - zl * dx) / a
        dzu = np.zeros(n) if hard else (ru + zu * dx) / su
        t = _max_step(a, su, zl, zu, dx, dzl, dzu, hard)
        eta = max(0.99, 1.0 - mu)
        t = min(1.0, eta * t)
        if not (math.isfinite(t) and np.isfinite(dx).all()):
            state, text = "failed", f"non-finite step; {text}"
            break
        a = a + t * dx
        nu = nu + t * dnu
        zl = zl + t * dzl
        if not hard:
            zu = zu + t * dzu
        # keep strictly interior against rounding
        tiny = 1e-300
        a = np.maximum(a, tiny)
        if not hard:
            a = np.minimum(a, C * (1 - 1e-16))
        zl = np.maximum(zl, tiny)
        if not hard:
            zu = np.maximum(zu, tiny)
    else:
        state = "inaccurate"
        if hard:
            return IPMResult("unbounded", f"iteration cap; {text}", a, nu, it)
    if state != "optimal" and best is not None:
        a, nu = best[1], best[2]
    return IPMResult(state, text, a, float(nu) if free else 0.0, it)


def _start(Qx: Any, n: int, C: float, hard: bool
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Starting point: ``alpha = t e`` with t the minimiser of the objective along e.

    ``t* = n / e^T Q e``, clipped to ``[1e-2 min(C/2, 1), C/2]``; then ``z_l = g^+ + delta``,
    ``z_u = g^- + delta`` with ``g = Q alpha - 1`` (so the dual residual is 0 for soft
    margin) and ``delta = max(1, ||g||_inf) / 10``, which keeps complementarity away from
    0. Measured on Gaussians, heart_scale and separable sets at C = 0.01..1000, this
    needs ~20% fewer iterations than ``alpha = min(C/2, 1)``, ``delta = 1``.
    """
    e = np.ones(n)
    qe = float(e @ Qx(e))
    tstar = n / qe if qe > 0 else 1.0
    top = 0.5 * C if not hard else math.inf
    a = np.full(n, min(top, max(tstar, 1e-2 * min(top, 1.0))))
    g = Qx(a) - e
    delta = 0.1 * max(1.0, float(np.max(np.abs(g))))
    zl = np.maximum(g, 0.0) + delta
    zu = np.zeros(n) if hard else np.maximum(-g, 0.0) + delta
    return a, zl, zu


def _dense_kkt(Q: np.ndarray, V: Any, D: np.ndarray, y: np.ndarray | None) -> _KKT:
    K = _KKT.__new__(_KKT)
    K._Q = Q
    K.__init__(V, D, y, "dense")
    return K


def _max_step(a: np.ndarray, su: np.ndarray, zl: np.ndarray, zu: np.ndarray,
              dx: np.ndarray, dzl: np.ndarray, dzu: np.ndarray, hard: bool) -> float:
    t = min(_step_to_boundary(a, dx), _step_to_boundary(zl, dzl))
    if not hard:
        t = min(t, _step_to_boundary(su, -dx), _step_to_boundary(zu, dzu))
    return t
