r"""The kernel SVM dual solved exactly and certified: a dense route and an SMO route.

``dense`` (small n): PIQP or Clarabel on the Gram; ``smo`` (large n): SMO, its ``eps``
shrinking 100-fold while the certificate fails. Polished points are kept only when they
certify better. See ``docs/kernels.md``.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .. import io
from .._numerics import _pow2
from .._validation import check_choice
from ..certificate import Certificate, check_tol
from ..data import Dataset
from ..exceptions import MaxMarginError, NotSeparableError, ParameterError, SolverError
from ..kernel_certificate import certify_kernel
from ..kernel_problem import KernelProblem
from ..solution import CertifiedPoint, recertified_status
from .ipm import blas_threads
from .kernel_polish import polish_kernel
from .smo import DEFAULT_CACHE_BYTES, SMO, HardMarginUnbounded

__all__ = ["KernelSolution", "solve_kernel_dual", "ROUTES", "DENSE_MAX"]

#: The routes of :func:`solve_kernel_dual`.
ROUTES = ("auto", "dense", "smo")

#: Largest n the ``auto`` route solves densely (measured: SMO is faster above it).
DENSE_MAX = 300

#: Largest n the ``auto`` route solves densely when SMO did not converge.
DENSE_FALLBACK = 3000

#: SMO's first stopping tolerance (margin units), and the smallest it goes to.
_EPS_START = 1e-3
_EPS_MIN = 1e-13

#: A certificate at this level is rounding: a polished point there wins outright.
_ROUNDING = 1e-12


@dataclass(frozen=True, eq=False, kw_only=True)
class KernelSolution(CertifiedPoint, io.Persistent):
    """A solved and certified kernel SVM dual (``maxmargin.kernel_solution/1``).

    Read from a file without its data it is the file's word (no data, no Gram);
    ``from_json(file, data)`` re-certifies it (:meth:`with_data`).

    Fields: ``alpha``, ``b``; ``support`` (``alpha_i > 0``: exactly when ``polished``, else
    above ``1e-6 C_i``), ``free_support``, ``bound_support``; ``dual_coef`` (``alpha_i y_i``
    on the support: scikit-learn's ``dual_coef_[0]``); ``certificate``, ``status``
    (optimal, uncertified), ``route`` (dense-piqp, dense-clarabel, smo), ``iterations``,
    ``polished``, ``solve_seconds`` and ``problem``.
    """

    FORMAT: ClassVar[str] = "kernel_solution"
    COMPUTED: ClassVar[tuple[str, ...]] = (
        "primal_objective",
        "dual_objective",
        "duality_gap",
        "relative_gap",
    )

    problem: KernelProblem = io.persist(io.Nested(KernelProblem), inline=True)
    b: float
    alpha: np.ndarray = io.persist(io.Array(sparse=True))
    support: np.ndarray = io.persist(io.Array(int))
    dual_coef: np.ndarray
    free_support: np.ndarray = io.persist(io.Array(int))
    bound_support: np.ndarray = io.persist(io.Array(int))
    status: str
    route: str
    iterations: int
    polished: bool
    solve_seconds: float
    certificate: Certificate = io.persist(io.Nested(Certificate))

    @property
    def relative_gap(self) -> float:
        """The duality gap relative to the objectives: the certificate's."""
        return self.certificate.relative_gap

    def with_data(self, data: Dataset, *, tol: float | None = None) -> KernelSolution:
        """The solution on ``data``, its certificate recomputed from them with numpy.

        ``status`` becomes ``"uncertified"`` (with a RuntimeWarning) when the point does not
        certify on ``data``; a ``DataError`` for data of another shape or a non-PSD Gram.
        """
        problem = self.problem.with_data(data)
        t = self.certificate.tol if tol is None else tol
        cert = certify_kernel(problem, self.alpha, self.b, tol=t)
        status = recertified_status(self.status, cert, f"{data.name}: the kernel solution")
        return dataclasses.replace(self, problem=problem, certificate=cert, status=status)

    @property
    def margin(self) -> float:
        """The geometric margin ``1 / ||f||_H``, ``||f||_H^2 = c' K c`` (``c = alpha * y``)."""
        c = self.alpha * self.problem.data.y
        q, _ = self.problem.gram.matvec(c)
        sq = float(c @ q)
        return 1.0 / math.sqrt(sq) if sq > 0 else math.inf

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x) = sum_i alpha_i y_i k(x, x_i) + b`` for rows ``X`` (or ``K(new, train)``)."""
        p = self.problem
        data = p.data  # a solution read without its data: one line, from the problem
        if p.kernel.name == "callable":
            assert p.kernel.function is not None
            Xs = np.asarray(data.X.toarray() if hasattr(data.X, "toarray") else data.X)
            Kx = np.asarray(p.kernel.function(np.asarray(X, float), Xs[self.support]), float)
        else:
            Kx = p.gram.cross(X, self.support)
        return Kx @ self.dual_coef + self.b


def _better(a: Certificate, b: Certificate) -> bool:
    """Whether certificate ``a`` beats ``b`` (rounding-level ``a`` always does)."""
    return a.max_residual() < max(b.max_residual(), _ROUNDING)


def _solution(
    problem: KernelProblem,
    alpha: np.ndarray,
    b: float,
    cert: Certificate,
    route: str,
    iterations: int,
    polished: bool,
    t0: float,
) -> KernelSolution:
    C = problem.costs
    if polished:
        support = np.flatnonzero(alpha > 0)
        bound = np.flatnonzero((alpha >= C) & np.isfinite(C))
    else:
        tol = 1e-6 * (C if not problem.hard else float(alpha.max(initial=0.0)))
        support = np.flatnonzero(alpha > tol)
        bound = np.flatnonzero((alpha >= C - tol) & np.isfinite(C) & (alpha > tol))
    free = np.setdiff1d(support, bound, assume_unique=True)
    return KernelSolution(
        alpha=alpha,
        b=float(b),
        support=support,
        free_support=free,
        bound_support=bound,
        dual_coef=alpha[support] * problem.data.y[support],
        certificate=cert,
        status="optimal" if cert.ok else "uncertified",
        route=route,
        iterations=int(iterations),
        polished=polished,
        solve_seconds=time.perf_counter() - t0,
        problem=problem,
    )


def solve_kernel_dual(
    problem: KernelProblem,
    *,
    route: str = "auto",
    solver: str = "piqp",
    tol: float | None = None,
    cache_bytes: int = DEFAULT_CACHE_BYTES,
) -> KernelSolution:
    """Solve a kernel SVM's dual exactly, polish it, and certify it (else "uncertified").

    ``route`` auto: dense up to :data:`DENSE_MAX` points, else SMO (then dense up to
    :data:`DENSE_FALLBACK` where SMO fails). A :class:`NotSeparableError` only on a proof.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> ds = Dataset([[0.0], [1.0], [3.0], [4.0]], [-1, -1, 1, 1])
    >>> sol = solve_kernel_dual(KernelProblem(ds, "linear", hard=True))
    >>> sol.certificate.ok, round(sol.b, 12), sol.support.tolist()
    (True, -2.0, [1, 2])
    """
    if not isinstance(problem, KernelProblem):
        raise ParameterError(
            f"solve_kernel_dual needs a KernelProblem, got {type(problem).__name__}"
        )
    check_choice("route", route, ROUTES)
    check_choice("solver", solver, ("piqp", "clarabel"))
    tol = check_tol(tol)
    if problem.hard and _same_point_both_labels(problem) is not None:
        raise _not_separable(problem, None)  # proven from the data, before any solve
    t0 = time.perf_counter()
    # one BLAS thread: many mid-sized blocks (see solvers.ipm.blas_threads)
    with blas_threads(1):
        if route == "dense" or (route == "auto" and problem.n <= DENSE_MAX):
            return _dense(problem, solver, tol, t0)
        try:
            return _smo(problem, tol, cache_bytes, t0)
        except SolverError as e:
            # SMO stalls on an ill-conditioned Gram with a large C, an IPM does not (a hard
            # margin past what can be certified is decided already)
            if route == "smo" or problem.n > DENSE_FALLBACK or e.__cause__ is not None:
                raise
            return _dense(problem, solver, tol, t0)


def _smo(problem: KernelProblem, tol: float, cache_bytes: int, t0: float) -> KernelSolution:
    y = problem.data.y
    smo = SMO(problem, cache_bytes=cache_bytes)
    eps = _EPS_START
    best: tuple[np.ndarray, float, Certificate] | None = None
    while True:
        _run(smo, problem, eps)
        out = polish_kernel(problem, smo.alpha, y * (smo.G + 1.0), smo.intercept())
        if out is not None:
            a, b = out
            cert = certify_kernel(problem, a, b, tol=tol)
            if best is None or _better(cert, best[2]):
                best = (a, b, cert)
            if cert.ok and cert.max_residual() <= _ROUNDING:
                return _solution(problem, a, b, cert, "smo", smo.iterations, True, t0)
        if eps <= _EPS_MIN:
            break
        if best is not None and best[2].ok:
            break
        eps = max(eps * 1e-2, _EPS_MIN)
    a0 = smo.alpha.copy()
    b0 = smo.intercept()
    base = certify_kernel(problem, a0, b0, tol=tol)
    if best is not None and _better(best[2], base):
        return _solution(problem, *best, "smo", smo.iterations, True, t0)
    return _solution(problem, a0, b0, base, "smo", smo.iterations, False, t0)


def _run(smo: SMO, problem: KernelProblem, eps: float) -> None:
    """``smo.run(eps)``, deciding on the way a hard margin's dual that looks unbounded."""
    while True:
        try:
            smo.run(eps)
            return
        except HardMarginUnbounded as e:
            error = _not_separable(problem, None, e.objective if e.certain else None)
            if isinstance(error, NotSeparableError):
                raise error from None
            if e.certain:
                raise error from e


def _dense_qp(problem: KernelProblem, K: np.ndarray, solver: str) -> tuple[np.ndarray, int]:
    """The dual QP on the dense Gram by PIQP (dense) or Clarabel: ``(alpha, iterations)``."""
    y = problem.data.y
    n = problem.n
    # K / s and C s with s a power of two near max |K_ij| (exact): the QP the solver
    # sees is in units where the Gram is ~1 whatever the data's scale (alpha = x / s)
    s = _pow2(float(np.max(np.abs(K), initial=0.0)))
    Q = (K / s) * np.outer(y, y)
    free = problem.intercept == "free"
    with np.errstate(over="ignore"):
        ub = problem.costs * s
    ub = np.where(ub < 1e300, ub, np.inf)
    if solver == "piqp":
        import piqp

        solver_ = piqp.DenseSolver()
        solver_.settings.eps_abs = 1e-10
        solver_.settings.eps_rel = 1e-11
        solver_.settings.max_iter = 500
        A, beq = (np.asfortranarray(y[None, :]), np.zeros(1)) if free else (None, None)
        top = np.where(np.isfinite(ub), ub, 1e300)  # PIQP's "no bound"
        solver_.setup(np.asfortranarray(Q), -np.ones(n), A, beq, None, None, None, np.zeros(n), top)
        status = solver_.solve()
        if status == piqp.PIQP_DUAL_INFEASIBLE and problem.hard:
            raise _not_separable(problem, K)
        if status not in (piqp.PIQP_SOLVED, piqp.PIQP_MAX_ITER_REACHED, piqp.PIQP_NUMERICS):
            raise SolverError(f"PIQP failed on the kernel dual: {status}")
        return np.asarray(solver_.result.x, dtype=float) / s, int(solver_.result.info.iter)
    import clarabel
    import scipy.sparse as sp

    rows = [sp.csc_matrix(y[None, :])] if free else []
    rows += [-sp.identity(n, format="csc")]
    fin = np.flatnonzero(np.isfinite(ub))
    if fin.size:
        rows.append(sp.identity(n, format="csc")[fin])
    M = sp.vstack(rows, format="csc")
    h = np.concatenate([np.zeros(1 if free else 0), np.zeros(n), ub[fin]])
    cones = ([clarabel.ZeroConeT(1)] if free else []) + [clarabel.NonnegativeConeT(n + fin.size)]
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.tol_gap_abs = st.tol_gap_rel = st.tol_feas = 1e-10
    sol = clarabel.DefaultSolver(sp.triu(sp.csc_matrix(Q), format="csc"), -np.ones(n), M, h,
                                 cones, st).solve()  # fmt: skip
    S = clarabel.SolverStatus
    if sol.status in (S.DualInfeasible, S.AlmostDualInfeasible) and problem.hard:
        raise _not_separable(problem, K)
    if sol.status not in (S.Solved, S.AlmostSolved, S.MaxIterations, S.InsufficientProgress):
        raise SolverError(f"Clarabel failed on the kernel dual: {sol.status}")
    return np.asarray(sol.x, dtype=float) / s, int(sol.iterations)


def _same_point_both_labels(problem: KernelProblem) -> tuple[int, int] | None:
    """Two examples with the same kernel row and opposite labels (an exact proof), or None."""
    op = problem.gram
    rows = np.asarray(op.gram if op.gram is not None else op.X)
    _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    y = problem.data.y
    clash = np.flatnonzero(y != y[first[inverse]])
    if clash.size == 0:
        return None
    j = int(clash[0])
    return int(first[inverse[j]]), j


def _not_separable(
    problem: KernelProblem, K: np.ndarray | None, objective: float | None = None
) -> MaxMarginError:
    """What an unbounded hard-margin dual means: decided by a proof, never by a solver's word.

    Both labels on one point, or the separation LP (up to :data:`DENSE_FALLBACK` points): an
    ill-conditioned RBF Gram can make the QP solvers report unbounded on separable data.
    """
    from scipy.optimize import linprog

    pair = _same_point_both_labels(problem)
    if pair is not None:
        return NotSeparableError(
            f"{problem.data.name}: hard margin is infeasible: examples {pair[0]} and "
            f"{pair[1]} are the same point (the same row of the "
            f"{problem.kernel.name} kernel) with both labels, so no function separates "
            "them; use a soft margin (C)"
        )
    bound = ""
    if objective is not None:
        bound = f" (its margin is at most {1.0 / math.sqrt(2.0 * objective):.3g})"
    if K is None:
        if problem.n > DENSE_FALLBACK:
            return SolverError(
                f"{problem.data.name}: the hard margin's dual grows past what double "
                f"precision can certify{bound}: either no function of the "
                f"{problem.kernel.name} kernel separates the classes or the margin is "
                "below rounding; the separation LP is not solved above "
                f"{DENSE_FALLBACK} points, so this cannot be decided: use a soft margin "
                "(C), or a kernel parameter that separates the points more (a larger gamma)"
            )
        K = problem.gram.block(np.arange(problem.n))
    y = problem.data.y
    free = problem.intercept == "free"
    # K / s, s a power of two near max |K_ij| (exact; c scales by s, b not): the LP's
    # tolerances are absolute, and a Gram of entries 1e-150 would look infeasible
    K = K / _pow2(float(np.max(np.abs(K), initial=0.0)))
    A = -(y[:, None] * (np.hstack([K, np.ones((problem.n, 1))]) if free else K))
    lp = linprog(
        np.zeros(A.shape[1]), A_ub=A, b_ub=-np.ones(problem.n), bounds=(None, None),
        method="highs",
    )  # fmt: skip
    if lp.status == 2:  # infeasible: no function of the kernel separates the classes
        return NotSeparableError(
            f"{problem.data.name}: hard margin is infeasible: no function of the "
            f"{problem.kernel.name} kernel separates the two classes (the separation LP "
            "is infeasible); use a soft margin (C)"
        )
    return SolverError(
        f"{problem.data.name}: the classes are separable by the {problem.kernel.name} "
        f"kernel (an LP found a separating function){bound}, but its Gram is too "
        "ill-conditioned for the hard margin's dual in double precision: try a smaller "
        "C, i.e. a soft margin with a finite C, or a kernel parameter that separates the "
        "points more (a larger gamma)"
    )


def _dense(problem: KernelProblem, solver: str, tol: float, t0: float) -> KernelSolution:
    n = problem.n
    y = problem.data.y
    C = problem.costs
    K = problem.gram.block(np.arange(n))
    try:
        x, iters = _dense_qp(problem, K, solver)
    except SolverError as first:
        # the interior-point methods fail differently on an ill-conditioned Gram with a
        # large C: the other one, before giving up
        solver = "clarabel" if solver == "piqp" else "piqp"
        try:
            x, iters = _dense_qp(problem, K, solver)
        except SolverError:
            raise SolverError(
                f"{first}; {solver} failed too. The Gram is ill-conditioned for C = "
                f"{problem.C:.3g} (multipliers far above the objective): try a smaller C, "
                "or a kernel parameter that separates the points more (a larger gamma)"
            ) from None
    alpha = np.clip(x, 0.0, C)
    q = K @ (alpha * y)
    scale: Any = C if not problem.hard else max(float(alpha.max(initial=0.0)), 1e-300)
    b0 = _free_mean_intercept(problem, alpha, q, 1e-6 * scale)
    route = f"dense-{solver}"
    base = certify_kernel(problem, alpha, b0, tol=tol)
    best: tuple[np.ndarray, float, Certificate] | None = None
    seen: set[bytes] = set()
    for rel in (1e-8, 1e-6, 1e-10, 1e-4):
        atol = rel * scale
        key = np.packbits(np.concatenate([alpha <= atol, alpha >= C - atol])).tobytes()
        if key in seen:
            continue
        seen.add(key)
        out = polish_kernel(problem, alpha, q, b0, atol=atol)
        if out is None:
            continue
        cert = certify_kernel(problem, out[0], out[1], tol=tol)
        if best is None or _better(cert, best[2]):
            best = (out[0], out[1], cert)
        if cert.ok and cert.max_residual() <= _ROUNDING:
            break
    if best is not None and _better(best[2], base):
        return _solution(problem, *best, route, iters, True, t0)
    return _solution(problem, alpha, b0, base, route, iters, False, t0)


def _free_mean_intercept(
    problem: KernelProblem, alpha: np.ndarray, q: np.ndarray, atol: Any
) -> float:
    """``b``: the mean of ``y_i - q_i`` over the points clearly inside the box."""
    if problem.intercept != "free":
        return 0.0
    y = problem.data.y
    free = (alpha > atol) & (alpha < problem.costs - atol)
    if free.any():
        return float(np.mean((y - q)[free]))
    sv = alpha > atol
    return float(np.mean((y - q)[sv])) if sv.any() else 0.0
