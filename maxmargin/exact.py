"""The exact solve: hard/soft-margin SVM as a QP, polished, certified.

Two routes to the same QP (DESIGN section 1, in the space ``z_i`` the QP sees):

Primal, variables ``w~`` (d'), ``b`` (free only), ``xi`` (n, soft only):

.. math::

    \\min \\tfrac12 \\|\\tilde w\\|^2 + C \\textstyle\\sum_i \\xi_i \\quad
    \\text{s.t. } y_i (z_i \\cdot \\tilde w + b) \\ge 1 - \\xi_i,\\ \\xi_i \\ge 0

(``alpha`` = the multipliers of the margin constraints). Dual, variables ``alpha`` (n)
and ``u = sum_i alpha_i y_i z_i`` (d'), so the Hessian is never an n x n matrix:

.. math::

    \\min \\tfrac12 \\|u\\|^2 - \\textstyle\\sum_i \\alpha_i \\quad
    \\text{s.t. } u = (YZ)^T \\alpha,\\ y^T \\alpha = 0 \\text{ (free)},\\ 0 \\le \\alpha \\le C

(``b`` = the multiplier of ``y^T alpha = 0``). The QP goes to maxmargin's own
interior-point method (``solver="IPM"``, :mod:`maxmargin._ipm`: dual form only, every
Newton system solved in ``O(n d'^2)`` by the Woodbury identity on ``Q = (YZ)(YZ)^T``),
straight to PIQP or Clarabel as sparse matrices (``interface="direct"``: no modelling
overhead), through cvxpy (``interface="cvxpy"``, any cvxpy QP solver), or, for sparse
high-dimensional data, to dual coordinate descent (``solver="DCD"``,
:mod:`maxmargin._dcd`: dual form only, X read row by row). Without a named solver,
:func:`_default_route` picks DCD, the IPM (with PIQP as the fallback when it does not
end certified) or PIQP by a measured rule; the primal form goes to PIQP.

After the interior-point solve, :func:`solve` *polishes*: it fixes the active set
(margin SVs with ``y_i f_i = 1``, bound SVs with ``alpha_i = C``, the rest with
``alpha_i = 0``), solves the reduced KKT linear system exactly, re-certifies with
:func:`maxmargin.certificate.certify`, and keeps the polished point only when its
certificate is better (or when both are at rounding level, <= 1e-12: the polished point's
active set is exact). Nothing is reported as optimal on the solver's word alone.

Problems on extreme scales (features far from unit size, C far from 1) are handed to the
solvers as an equivalent well-scaled problem, ``(t Z, C / t^2)`` with ``t`` a power of two,
and mapped back exactly (:func:`solve`, Notes).
"""

from __future__ import annotations

import contextvars
import math
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from . import _ipm
from ._log import logger, solver_log_enabled, solver_output
from ._validation import WIDE_HINT, check_choice, check_memory
from .certificate import (
    DEFAULT_TOL,
    Certificate,
    SeparationCertificate,
    _norm,
    _pow2,
    _radius,
    _row_norms,
    certify,
    verify_separation,
)
from .data import Dataset, scale_rows
from .exceptions import NotSeparableError, ParameterError, SolverError
from .problem import SVMProblem

__all__ = [
    "ExactSolution",
    "solve",
    "is_separable",
    "separation_certificate",
    "available_solvers",
    "FORMS",
]

FORMS = ("primal", "dual")

#: Solvers driven without cvxpy (our own IPM and dual coordinate descent; PIQP/Clarabel
#: on our sparse QP matrices).
_DIRECT = ("IPM", "DCD", "PIQP", "CLARABEL")
#: cvxpy solvers that accept a QP (the others, e.g. SCIPY/GLPK, are LP-only).
_CVXPY_QP = ("CLARABEL", "PIQP", "OSQP", "ECOS", "SCS", "PROXQP", "QOCO", "CVXOPT",
             "GUROBI", "MOSEK", "CPLEX", "XPRESS", "COPT", "HIGHS")
#: Default order, by measurement (bench/exact.py; 2 cores): our Woodbury IPM on the dual
#: is the fastest route where it applies (10000 x 50: ~0.2 s against PIQP ~1.2 s; it
#: reaches ~1e-12 before polishing); otherwise PIQP's dual (10000 x 50: PIQP ~0.3-1.2 s,
#: Clarabel ~0.5-1.3 s; both reach ~1e-9 before polishing). First-order solvers (OSQP,
#: SCS) come last: they rarely reach a certifiable point without the polish.
_PREFERENCE = ("IPM", "DCD", "PIQP", "CLARABEL", "ECOS", "PROXQP", "QOCO", "OSQP", "SCS")

#: Tighter than the defaults: first-order solvers stop far too early for a certificate.
_CVXPY_OPTIONS: dict[str, dict[str, Any]] = {
    "OSQP": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iter": 100_000, "polish": True},
    "SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 100_000},
}

_PIP = {"PIQP": "piqp", "CLARABEL": "clarabel", "OSQP": "osqp", "SCS": "scs", "ECOS": "ecos",
        "PROXQP": "proxsuite", "QOCO": "qoco", "CVXOPT": "cvxopt"}


# --------------------------------------------------------------------------- solvers


def _cvxpy_installed() -> list[str]:
    try:
        import cvxpy as cp
    except ImportError:  # pragma: no cover - cvxpy is a hard dependency
        return []
    return [s for s in cp.installed_solvers() if s in _CVXPY_QP]


def _direct_installed() -> list[str]:
    out = ["IPM", "DCD"]  # numpy/scipy, and numba (a dependency): always there
    for name, mod in (("PIQP", "piqp"), ("CLARABEL", "clarabel")):
        try:
            __import__(mod)
        except ImportError:
            continue
        out.append(name)
    return out


def available_solvers() -> list[str]:
    """Names of the installed QP solvers maxmargin can use, default first.

    Returns
    -------
    list of str
        Upper-case names as cvxpy spells them (``"PIQP"``, ``"CLARABEL"``, ...), plus
        ``"IPM"`` (maxmargin's own dual interior-point method) and ``"DCD"`` (dual
        coordinate descent, for sparse high-dimensional data); the first is what
        :func:`solve` uses when ``solver=None`` (where the IPM does not apply -- primal
        form, a d' x d' Gram too large, sparse data with d' > 1000 -- the route
        ``_default_route`` picks).

    Examples
    --------
    >>> "CLARABEL" in available_solvers(), available_solvers()[0]
    (True, 'IPM')
    """
    names = set(_cvxpy_installed()) | set(_direct_installed())
    ranked = [s for s in _PREFERENCE if s in names]
    return ranked + sorted(names - set(ranked))


def _resolve_solver(solver: str | None, interface: str) -> tuple[str, str]:
    check_choice("interface", interface, ("auto", "direct", "cvxpy"))
    if interface != "cvxpy":
        # importing cvxpy costs seconds: skip it when a direct solver will do
        direct = _direct_installed()
        wanted = None if solver is None else str(solver).strip().upper()
        if direct and (wanted is None or wanted in direct):
            ranked = [s for s in _PREFERENCE if s in direct]
            return (wanted or ranked[0]), "direct"
    installed = available_solvers()
    if not installed:  # pragma: no cover
        raise SolverError("no QP solver is installed; pip install clarabel piqp")
    if solver is None:
        if interface == "direct":
            direct = [s for s in installed if s in _DIRECT]
            if not direct:
                raise SolverError("no direct solver installed; pip install piqp clarabel")
            name = direct[0]
        elif interface == "cvxpy":
            cvx = [s for s in installed if s in _cvxpy_installed()]
            name = cvx[0]
        else:
            name = installed[0]
    else:
        if not isinstance(solver, str):
            raise ParameterError(f"solver must be a name such as 'PIQP', got {solver!r}")
        name = solver.strip().upper()
        known = set(_CVXPY_QP) | set(_DIRECT)
        if name not in known:
            raise ParameterError(
                f"unknown solver {solver!r}; maxmargin can use {', '.join(sorted(known))} "
                f"(installed here: {', '.join(installed)})"
            )
        if name not in installed:
            pkg = _PIP.get(name, name.lower())
            raise SolverError(
                f"solver {name} is not installed (installed: {', '.join(installed)}); "
                f"install it with `pip install {pkg}` or pick an installed one"
            )
    if interface == "auto":
        interface = "direct" if name in _DIRECT else "cvxpy"
    elif interface == "direct" and name not in _DIRECT:
        raise ParameterError(
            f"solver {name} has no direct interface (direct: {', '.join(_DIRECT)}); "
            "use interface='cvxpy'"
        )
    elif interface == "cvxpy" and name not in _cvxpy_installed():
        raise SolverError(f"cvxpy does not see solver {name}; installed for cvxpy: "
                          f"{', '.join(_cvxpy_installed())}")
    return name, interface


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, eq=False)
class ExactSolution:
    """The certified optimum of an :class:`SVMProblem`.

    Attributes
    ----------
    w : ndarray of shape (d,)
        Weights on the original features.
    b : float
        Intercept (0 for ``none``; ``s * w~_{d+1}`` for ``augmented``).
    alpha : ndarray of shape (n,)
        Dual multipliers.
    support, margin_support, bound_support : ndarray of int
        Indices with ``alpha > sv_tol``; ``sv_tol < alpha < C - sv_tol`` (on the margin,
        ``y f = 1``); ``alpha >= C - sv_tol`` (inside the margin or misclassified;
        always empty for hard margin).
    sv_tol : float
        The support tolerance: ``1e-8 C`` after a successful polish, else ``1e-6 C``
        (hard margin: ``max alpha`` in place of C): relative, like the certificate.
    primal_objective, dual_objective, duality_gap : float
        Recomputed in numpy by the certificate (C form).
    margin : float
        ``1 / ||w~||``: the geometric margin in the space the QP sees (for
        ``augmented`` that includes the bias coordinate ``b/s``; for free/none it is
        ``1/||w||``). ``inf`` when ``w~ = 0``. Also :attr:`geometric_margin` (the name
        that says which margin it is; ``docs/numbers.md``).
    certificate : Certificate
    status : str
        ``"optimal"`` (solver converged and certificate ok), ``"optimal_inaccurate"``
        (the solver reported trouble but the certificate proves optimality), or
        ``"uncertified"`` (the certificate failed, or double precision cannot decide
        it: see ``certificate.undecided``; a warning was issued).
    solver, interface, form : str
    solve_seconds : float
        Wall time of build + solve + polish + certificate.
    polished : bool
        Whether the active-set polish produced the reported point.
    problem : SVMProblem

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem
    >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
    >>> round(sol.margin, 12), sol.support.tolist()
    (2.0, [0, 1])
    """

    w: np.ndarray
    b: float
    alpha: np.ndarray
    support: np.ndarray
    margin_support: np.ndarray
    bound_support: np.ndarray
    sv_tol: float
    primal_objective: float
    dual_objective: float
    duality_gap: float
    margin: float
    certificate: Certificate
    status: str
    solver: str
    form: str
    solve_seconds: float
    polished: bool
    problem: SVMProblem
    interface: str = "direct"

    @property
    def geometric_margin(self) -> float:
        """``1/||w~||`` in the QP's space (:attr:`margin` by its name; ``docs/numbers.md``).

        The distance from the decision hyperplane to the hyperplanes ``f = +-1`` in the
        space the regulariser measures: ``(x, s)`` for ``augmented``, ``x`` otherwise.
        """
        return self.margin

    @property
    def margin_width(self) -> float:
        """``2/||w~||``: the distance between the hyperplanes ``f = +1`` and ``f = -1`` (the
        lecture notes' ``M = 2/||w||``), in the QP's space."""
        return 2.0 * self.margin

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x) = w.x + b`` for the rows of ``X``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n', d), or Dataset
            One row of shape (d,) is accepted too.

        Returns
        -------
        ndarray of shape (n',)

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem
        >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
        >>> sol.decision_function([[1.0]]).round(12).tolist()
        [0.5]
        """
        if isinstance(X, Dataset):
            X = X.X
        if not sp.issparse(X):
            X = np.asarray(X, dtype=float)
            if X.ndim == 1:
                X = X.reshape(1, -1)
        if X.shape[-1] != self.w.shape[0]:
            raise ParameterError(f"X must have {self.w.shape[0]} columns, got {X.shape[-1]}")
        return np.asarray(X @ self.w).reshape(-1) + self.b

    def predict(self, X: Any) -> np.ndarray:
        """Labels ``sign(f(x))`` in {-1, +1} (``f = 0`` maps to +1).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n', d), or Dataset

        Returns
        -------
        ndarray of shape (n',)
            -1.0 or +1.0 per row.

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem
        >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
        >>> sol.predict([[3.0], [-0.5]]).tolist()
        [1.0, -1.0]
        """
        return np.where(self.decision_function(X) >= 0, 1.0, -1.0)

    @property
    def training_error(self) -> float:
        """Fraction of training examples misclassified (``y_i f_i <= 0``)."""
        r = self.problem.margins(self.w, self.b)
        return float(np.mean(r <= 0))

    def to_dict(self) -> dict[str, Any]:
        """The JSON of DESIGN section 5, as plain Python types.

        Hard margin has no C: ``"C"`` is ``null`` (and ``"hard": true``, ``"lam": 0.0``).
        Other non-finite numbers (``margin`` when ``w = 0``) are the strings
        ``"inf"``/``"nan"``.

        Returns
        -------
        dict
            ``w`` (and ``feature_names``, the data's names of its entries, or None),
            ``b``, ``alpha``, the support sets, objectives, gap, ``kkt``, ``margin``,
            ``status``, ``solver``, ``form``, ``intercept``, ``C``, ``lam``,
            ``solve_seconds`` and more (see docs/cli.md).

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem
        >>> d = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), C=1.0)).to_dict()
        >>> d["support"], d["intercept"], d["C"]
        ([0, 1], 'free', 1.0)
        """
        p = self.problem

        def num(x: float) -> float | str:
            x = float(x)
            return x if math.isfinite(x) else str(x)

        return {
            "w": [float(t) for t in self.w],
            "feature_names": None if p.data.feature_names is None else list(p.data.feature_names),
            "b": float(self.b),
            "alpha": [float(t) for t in self.alpha],
            "support": [int(i) for i in self.support],
            "margin_support": [int(i) for i in self.margin_support],
            "bound_support": [int(i) for i in self.bound_support],
            "sv_tol": float(self.sv_tol),
            "primal_objective": num(self.primal_objective),
            "dual_objective": num(self.dual_objective),
            "duality_gap": num(self.duality_gap),
            "relative_gap": num(self.certificate.relative_gap),
            "kkt": {k: num(v) for k, v in self.certificate.kkt.items()},
            "floors": {k: num(v) for k, v in self.certificate.floors.items()},
            "certified": bool(self.certificate.ok),
            "undecided": self.certificate.undecided,
            "margin": num(self.margin),
            "status": self.status,
            "solver": self.solver,
            "interface": self.interface,
            "form": self.form,
            "polished": bool(self.polished),
            "intercept": p.intercept,
            "hard": bool(p.hard),
            "C": None if p.hard else float(p.C),
            "lam": float(p.lam),
            "n": int(p.n),
            "d": int(p.d),
            "training_error": self.training_error,
            "solve_seconds": float(self.solve_seconds),
        }

    def summary(self) -> str:
        """A readable multi-line report (what ``maxmargin solve`` prints).

        Returns
        -------
        str
            Objectives, gap, KKT residuals, certificate verdict, margin, support vectors,
            training error and time, one per line.

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem
        >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
        >>> print(sol.summary().splitlines()[0])
        maxmargin exact solve: data (n=2, d=1), hard margin, intercept=free
        """
        p, c = self.problem, self.certificate
        reg = "hard margin" if p.hard else f"C={p.C:.6g} (lam={p.lam:.6g})"
        fl = c.floors
        kkt = "\n".join(f"    {k:<22s}{v:.3e}   (rounding bound {fl.get(k, 0.0):.1e})"
                        for k, v in c.kkt.items())
        verdict = "CERTIFIED OPTIMAL" if c.ok else "NOT CERTIFIED"
        if c.undecided:
            verdict += f" (double precision cannot decide: {c.undecided})"
        rounding = f"; rounding bound {fl.get('relative_gap', 0.0):.1e}"
        if self.duality_gap < 0 and c.gap_at_rounding:
            rounding += ": the gap is negative by rounding only, i.e. zero"
        return "\n".join([
            f"maxmargin exact solve: {p.data.name} (n={p.n}, d={p.d}), {reg}, "
            f"intercept={p.intercept}",
            f"  solver            {self.solver} ({self.interface}), {self.form} form, "
            f"status {self.status}, polished={self.polished}",
            f"  primal objective  {self.primal_objective:.15g}",
            f"  dual objective    {self.dual_objective:.15g}",
            f"  duality gap       {self.duality_gap:.3e} (relative {c.relative_gap:.3e}"
            f"{rounding})",
            "  KKT residuals (scaled; see docs/certificates.md)",
            kkt,
            f"  certificate       {verdict} at tol {c.tol:.0e} (worst: {c.worst()[0]})",
            (f"  margin 1/||w~||   {self.margin:.12g}" if p.intercept == "augmented"
             else f"  margin 1/||w||    {self.margin:.12g}"),
            f"  b                 {self.b:.12g}",
            f"  support vectors   {len(self.support)} "
            f"(margin {len(self.margin_support)}, bound {len(self.bound_support)}; "
            f"sv_tol {self.sv_tol:.1e})",
            f"  training error    {self.training_error:.4f}",
            f"  time              {self.solve_seconds:.3f} s",
        ])

    def __repr__(self) -> str:
        return (f"ExactSolution(status={self.status!r}, P={self.primal_objective:.10g}, "
                f"gap={self.duality_gap:.2e}, certified={self.certificate.ok}, "
                f"n_sv={len(self.support)}, solver={self.solver!r}, form={self.form!r})")


# --------------------------------------------------------------------------- QP building


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


class _Raw:
    """What a backend returns: status class, solver status text, x, multipliers."""

    def __init__(self, state: str, text: str, x: np.ndarray | None = None,
                 y_eq: np.ndarray | None = None, z_ineq: np.ndarray | None = None):
        self.state, self.text, self.x, self.y_eq, self.z_ineq = state, text, x, y_eq, z_ineq


def _run_piqp(qp: _QP) -> _Raw:
    import piqp

    s = piqp.SparseSolver()
    s.settings.eps_abs = 1e-9
    s.settings.eps_rel = 1e-10
    s.settings.max_iter = 500
    s.settings.verbose = solver_log_enabled()
    h_l = None if qp.h is None else np.full(qp.h.shape, -np.inf)
    s.setup(qp.P, qp.q, qp.A, qp.c, qp.G, h_l, qp.h, qp.lb, qp.ub)
    status = s.solve()
    r = s.result
    text = str(status).split(".")[-1]
    if status == piqp.PIQP_SOLVED:
        state = "optimal"
    elif status == piqp.PIQP_PRIMAL_INFEASIBLE:
        state = "infeasible"
    elif status == piqp.PIQP_DUAL_INFEASIBLE:
        state = "unbounded"
    elif status in (piqp.PIQP_MAX_ITER_REACHED, piqp.PIQP_NUMERICS):
        state = "inaccurate"
    else:
        state = "failed"
    # PIQP's Lagrangian is f + y'(Ax - c) + z_u'(Gx - h): the same signs as ours.
    return _Raw(state, text, np.array(r.x), None if qp.A is None else np.array(r.y),
                None if qp.G is None else np.array(r.z_u))


def _run_ipm(problem: SVMProblem, YZ: Any) -> _Raw:
    """maxmargin's own dual IPM (:mod:`maxmargin._ipm`), in the ``_run_piqp`` contract.

    ``x = (alpha, u = (YZ)^T alpha)`` as in :func:`_build_dual`; ``y_eq[-1]`` is the
    multiplier of ``y^T alpha = 0`` (the intercept, free only).
    """
    free = problem.intercept == "free"
    r = _ipm.solve_dual(YZ, problem.data.y, problem.C, free)
    u = np.asarray(YZ.T @ r.alpha).ravel()
    return _Raw(r.state, f"{r.state} ({r.iterations} iterations; {r.text})",
                np.concatenate([r.alpha, u]), np.array([r.nu]) if free else None, None)


#: Tolerances of the DCD route (projected-gradient spread, margin units), measured on
#: Zipf-sparse data (docs/benchmarks.md): at min(1e-4, 10/n) the polish finds the exact
#: active set (5000 x 20000 to 100000 x 47000 at 1e-4, gap ~1e-15; at 400000 x 47000
#: 1e-4 leaves a few dozen points on the wrong side, 2.5e-5 does not: the points within
#: eps of the margin grow with n); sweeping on to 1e-8 would cost twice the sweeps.
#: Without the polish the sweeps go to 1e-9; where the polish misses, the sweeps go on
#: to the next tolerance and the polish is tried again.
_DCD_EPS_UNPOLISHED = 1e-9
_DCD_REFINE_EPS = (1e-6, 1e-8)


def _dcd_eps(n: int) -> float:
    """The first tolerance of the DCD route for n examples (see ``_DCD_REFINE_EPS``)."""
    return min(1e-4, 10.0 / n)


def _run_dcd(problem: SVMProblem, eps: float | None = None,
             start: tuple[np.ndarray, float] | None = None) -> _Raw:
    """Dual coordinate descent (:mod:`maxmargin._dcd`) in the ``_run_piqp`` contract.

    ``x = alpha`` only (nothing downstream reads ``u``; it is never formed: this route
    reads X row by row and copies nothing); ``y_eq[-1]`` is the intercept (free only).
    ``start = (alpha, b)``: a warm start.
    """
    from . import _dcd

    X, y, C = problem.data.X, problem.data.y, problem.C
    eps = _dcd_eps(problem.n) if eps is None else eps
    kw: dict[str, Any] = {"intercept_scaling": problem.intercept_scaling, "eps": eps}
    if start is not None:
        kw.update(alpha0=start[0], b0=start[1], separable=True if problem.hard else None)
    r = _dcd.solve_qp(X, y, C, problem.intercept, **kw)
    if r.state == "undecided":
        # Hard margin, no iterate separates the classes yet: the LP decides. Not
        # separable: "unbounded" sends solve() to the separation certificate. Separable:
        # go on from where the sweeps stopped.
        if separation_certificate(problem) is not None:
            return _Raw("unbounded", r.text, r.alpha)
        kw.update(alpha0=r.alpha, b0=r.b, separable=True)
        r = _dcd.solve_qp(X, y, C, problem.intercept, **kw)
    return _Raw(r.state, r.text, r.alpha,
                np.array([r.b]) if problem.intercept == "free" else None, None)


def _run_clarabel(qp: _QP) -> _Raw:
    import clarabel

    nvar = qp.P.shape[0]
    blocks, rhs, cones = [], [], []
    m_eq = 0
    if qp.A is not None:
        blocks.append(qp.A)
        rhs.append(qp.c)
        m_eq = qp.A.shape[0]
        cones.append(clarabel.ZeroConeT(m_eq))
    m_ineq = 0
    if qp.G is not None:
        blocks.append(qp.G)
        rhs.append(qp.h)
        m_ineq = qp.G.shape[0]
    # Variable bounds become rows (Clarabel has no native box): -x <= -lb, x <= ub.
    I = sp.identity(nvar, format="csc")
    fl, fu = np.isfinite(qp.lb), np.isfinite(qp.ub)
    if fl.any():
        blocks.append(-I[np.flatnonzero(fl)])
        rhs.append(-qp.lb[fl])
    if fu.any():
        blocks.append(I[np.flatnonzero(fu)])
        rhs.append(qp.ub[fu])
    M = sp.vstack(blocks, format="csc")
    m_nn = M.shape[0] - m_eq
    if m_nn:
        cones.append(clarabel.NonnegativeConeT(m_nn))
    st = clarabel.DefaultSettings()
    st.verbose = solver_log_enabled()
    st.tol_gap_abs = st.tol_gap_rel = 1e-10
    st.tol_feas = 1e-10
    st.max_iter = 300
    sol = clarabel.DefaultSolver(sp.triu(qp.P, format="csc"), qp.q, M, np.concatenate(rhs),
                                 cones, st).solve()
    text = str(sol.status)
    S = clarabel.SolverStatus
    if sol.status == S.Solved:
        state = "optimal"
    elif sol.status == S.PrimalInfeasible:
        state = "infeasible"
    elif sol.status == S.DualInfeasible:
        state = "unbounded"
    elif sol.status in (S.AlmostSolved, S.MaxIterations, S.InsufficientProgress,
                        S.NumericalError, S.MaxTime):
        state = "inaccurate"
    elif sol.status in (S.AlmostPrimalInfeasible,):
        state = "infeasible_inaccurate"
    else:
        state = "failed"
    z = np.array(sol.z)
    # Clarabel's dual: P x + q + M'z = 0 with z in the dual cone: our signs again.
    return _Raw(state, text, np.array(sol.x), z[:m_eq] if qp.A is not None else None,
                z[m_eq:m_eq + m_ineq] if qp.G is not None else None)


def _run_cvxpy(problem: SVMProblem, YZ: Any, form: str, solver: str) -> tuple[_Raw, Any]:
    import cvxpy as cp

    n, dz = YZ.shape
    y = problem.data.y
    if form == "primal":
        v = cp.Variable(dz)
        expr = YZ @ v
        obj = 0.5 * cp.sum_squares(v)
        b = None
        if problem.intercept == "free":
            b = cp.Variable()
            expr = expr + y * b
        if not problem.hard:
            xi = cp.Variable(n, nonneg=True)
            expr = expr + xi
            obj = obj + problem.C * cp.sum(xi)
        cons = [expr >= 1]
        prob = cp.Problem(cp.Minimize(obj), cons)
    else:
        a = cp.Variable(n, nonneg=True)
        cons = []
        if not problem.hard:
            cons.append(a <= problem.C)
        eq = None
        if problem.intercept == "free":
            eq = y @ a == 0
            cons.append(eq)
        # Never an n x n matrix: the Hessian is (YZ)(YZ)^T only implicitly.
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(YZ.T @ a) - cp.sum(a)), cons)
    try:
        prob.solve(solver=solver, verbose=solver_log_enabled(),
                   **_CVXPY_OPTIONS.get(solver, {}))
    except cp.error.SolverError as e:
        return _Raw("failed", f"cvxpy: {e}"), None
    status = prob.status
    state = {"optimal": "optimal", "infeasible": "infeasible", "unbounded": "unbounded",
             "optimal_inaccurate": "inaccurate", "user_limit": "inaccurate",
             "infeasible_inaccurate": "infeasible_inaccurate",
             "unbounded_inaccurate": "unbounded"}.get(status, "failed")
    values = [v_.value for v_ in prob.variables()]
    if state not in ("optimal", "inaccurate") or any(v_ is None for v_ in values):
        return _Raw(state if state != "inaccurate" else "failed", status), None
    if form == "primal":
        x = np.concatenate([v.value, [b.value] if b is not None else [],
                            xi.value if not problem.hard else []])
        return _Raw(state, status, x, None, np.asarray(cons[0].dual_value, float)), None
    alpha = np.asarray(a.value, float)
    u = YZ.T @ alpha
    x = np.concatenate([alpha, np.asarray(u).ravel()])
    # cvxpy's equality multiplier of the minimisation has the PIQP/Clarabel sign (checked).
    yeq = None if eq is None else np.concatenate([np.zeros(dz), [float(eq.dual_value)]])
    return _Raw(state, status, x, yeq, None), None


# --------------------------------------------------------------------------- polish


def _wb_from_alpha(problem: SVMProblem, YZ: Any, alpha: np.ndarray,
                   b: float | None) -> tuple[np.ndarray, float]:
    # YZ None (the DCD route never forms it): the same product from Z and y
    v = problem.dual_weights(alpha) if YZ is None else np.asarray(YZ.T @ alpha).ravel()
    if problem.intercept == "augmented":
        return v[:-1], float(v[-1] * problem.intercept_scaling)
    if problem.intercept == "none":
        return v, 0.0
    return v, float(b if b is not None else 0.0)


#: Largest m d' for which the direct polish densifies the margin SVs' rows of a sparse
#: YZ (32 MB); above it, and above ``max_margin_svs`` margin SVs, the reduced KKT system
#: is solved by MINRES with products by the sparse rows (never an m x m matrix).
_DENSE_POLISH_SIZE = 4_000_000


def _reduced_kkt(problem: SVMProblem, YZ: Any, M: np.ndarray, B: np.ndarray,
                 max_margin_svs: int, start: tuple[np.ndarray, float] | None = None,
                 ) -> tuple[np.ndarray, float | None] | None:
    """Solve the KKT system with the active set fixed; None when there is no margin SV.

    With ``G = (YZ)_M`` and ``w_B = C (YZ)_B^T 1`` the margin conditions
    ``y_i (z_i.w~ + b) = 1`` on M and ``w~ = G^T alpha_M + w_B`` give

        [G G^T   y_M] [alpha_M]   [1 - G w_B     ]
        [y_M^T    0 ] [   b   ] = [-C sum_B y_i  ]     (free; drop b's row/column else)

    Solved densely (``G G^T`` formed, m x m) when ``m <= max_margin_svs`` and G is dense
    or small; otherwise by :func:`_reduced_kkt_minres` from ``start = (alpha, b)``.
    ``YZ`` may be None (the DCD route): rows of ``problem.Z`` times ``y`` are used.
    """
    n = problem.n
    m = M.size
    if m == 0:
        return None
    y = problem.data.y
    Z = problem.Z if YZ is None else YZ
    dz = Z.shape[1]
    C = problem.C
    free = problem.intercept == "free"
    if m > max_margin_svs or (sp.issparse(Z) and m * dz > _DENSE_POLISH_SIZE):
        return _reduced_kkt_minres(problem, Z, YZ is None, M, B, start)
    G = Z[M]
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    if YZ is None:
        G = G * y[M, None]
    alpha = np.zeros(n)
    if B.size:
        alpha[B] = C
    signs = y if YZ is None else 1.0
    wB = np.asarray((alpha * signs) @ Z).ravel()  # one product, no copy of the rows of B
    K = G @ G.T
    rhs = 1.0 - G @ wB
    if free:
        yM = y[M]
        K = np.block([[K, yM[:, None]], [yM[None, :], np.zeros((1, 1))]])
        rhs = np.concatenate([rhs, [-C * y[B].sum() if B.size else 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", sla.LinAlgWarning)
        try:
            lu = sla.lu_factor(K, check_finite=False)
            sol = sla.lu_solve(lu, rhs, check_finite=False)
            if not np.isfinite(sol).all():
                raise np.linalg.LinAlgError

            def solve_K(r: np.ndarray) -> np.ndarray:
                return sla.lu_solve(lu, r, check_finite=False)
        except (np.linalg.LinAlgError, sla.LinAlgWarning):
            # Degenerate active set (duplicates, more margin SVs than d'+1): min-norm.
            def solve_K(r: np.ndarray) -> np.ndarray:
                return np.linalg.lstsq(K, r, rcond=None)[0]
            sol = solve_K(rhs)
    alpha[M] = sol[:m]
    b = float(sol[m]) if free else None
    # One step of iterative refinement on the margin conditions, with w~ = (YZ)^T alpha
    # as the certificate computes it: 1 - G wB above cancels to ~1e-16 |G wB|, which is
    # 1e-11 when half of 10^6 points are at the bound.
    res = 1.0 - G @ np.asarray((alpha * signs) @ Z).ravel()
    if free:
        res = np.concatenate([res - yM * b, [-float(y @ alpha)]])
    step = solve_K(res)
    if np.isfinite(step).all():
        alpha[M] += step[:m]
        if free:
            b += float(step[m])
    return alpha, b


def _signed_sum(Z: Any, y: np.ndarray | None, B: np.ndarray) -> np.ndarray:
    """``sum_{i in B} y_i z_i`` (``y`` None: the rows of Z are signed already)."""
    c = np.zeros(Z.shape[0])
    c[B] = 1.0 if y is None else y[B]
    return np.asarray(c @ Z).ravel()


def _row_sq_norms(Z: Any, block: int = 16384) -> np.ndarray:
    """``||z_i||^2`` per row, a block of rows at a time (no full-size temporary)."""
    if not sp.issparse(Z):
        return np.einsum("ij,ij->i", Z, Z)
    out = np.empty(Z.shape[0])
    for lo in range(0, Z.shape[0], block):
        blk = Z[lo:lo + block]
        out[lo:lo + block] = np.asarray(blk.multiply(blk).sum(axis=1)).ravel()
    return out


#: Columns the MINRES preconditioner treats exactly (the densest among the margin SVs).
_HEAD_COLUMNS = 256


def _head_preconditioner(ZM: Any, sM: np.ndarray, diag: np.ndarray) -> Any:
    """``v -> P^{-1} v`` for ``P = D + G_H G_H^T``, an SPD approximation of ``G G^T``.

    ``G_H``: the :data:`_HEAD_COLUMNS` columns of ``G = diag(s) Z_M`` with the most
    entries (dense, m x k); ``D``: the diagonal of the rest, ``||z_i||^2 -
    ||z_{i,H}||^2``. On text-like data the head columns (frequent words) carry the large
    eigenvalues of ``G G^T``; applied by the Woodbury identity with one k x k Cholesky.
    Measured on Zipf-sparse 100000 x 47000 (3841 margin SVs): 179 MINRES iterations
    against 430 with the diagonal alone; 400000 x 47000: 412 against 1009. Dense or
    small problems: the diagonal ``||z_i||^2`` alone.
    """
    import scipy.linalg as sla

    m, dz = ZM.shape
    k = min(_HEAD_COLUMNS, dz)
    if not sp.issparse(ZM) or m < 4 * k:
        return lambda v: v / diag
    cnt = np.bincount(ZM.indices, minlength=dz)
    H = np.argpartition(-cnt, k - 1)[:k]
    GH = ZM[:, H].toarray() * sM[:, None]
    D = np.maximum(diag - np.einsum("ij,ij->i", GH, GH), 1e-3 * float(diag.mean()))
    GD = GH / D[:, None]
    fac = sla.cho_factor(np.eye(k) + GH.T @ GD, lower=True, check_finite=False)

    def apply(v: np.ndarray) -> np.ndarray:
        return v / D - GD @ sla.cho_solve(fac, GD.T @ v, check_finite=False)

    return apply


def _reduced_kkt_minres(problem: SVMProblem, Z: Any, signed: bool, M: np.ndarray,
                        B: np.ndarray, start: tuple[np.ndarray, float] | None,
                        ) -> tuple[np.ndarray, float | None]:
    """The reduced KKT system of :func:`_reduced_kkt` by MINRES, never forming ``G G^T``.

    Each product costs two passes over the margin SVs' rows (``O(nnz)``); the
    (m+1) x (m+1) system is symmetric indefinite for the free intercept (MINRES), and
    positive semi-definite otherwise. It starts from ``start`` (the solver's ``alpha_M``,
    ``b``) and is preconditioned by :func:`_head_preconditioner` (``1/mean ||z_i||^2``
    for b's row). ``signed``: multiply the rows of Z by ``y`` on the fly (no signed copy
    of X).
    """
    from scipy.sparse.linalg import LinearOperator, minres

    n = problem.n
    m = M.size
    y = problem.data.y
    C = problem.C
    free = problem.intercept == "free"
    ZM = Z[M]
    sM = y[M] if signed else np.ones(m)
    yM = y[M]
    wB = C * _signed_sum(Z, y if signed else None, B) if B.size else np.zeros(Z.shape[1])
    rhs = 1.0 - sM * np.asarray(ZM @ wB).ravel()
    diag = _row_sq_norms(ZM)
    scale = float(diag.mean()) if diag.size and diag.mean() > 0 else 1.0
    pre_M = _head_preconditioner(ZM, sM, np.where(diag > 0, diag, scale))
    k = m + 1 if free else m

    def pre(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v).ravel()
        return np.append(pre_M(v[:m]), v[m:] / scale)

    def matvec(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v).ravel()
        a = v[:m]
        u = np.asarray(ZMt @ (sM * a)).ravel()
        out = np.empty(k)
        out[:m] = sM * np.asarray(ZM @ u).ravel()
        if free:
            out[:m] += yM * v[m]
            out[m] = yM @ a
        return out

    if free:
        rhs = np.concatenate([rhs, [-C * y[B].sum() if B.size else 0.0]])
    x0 = np.zeros(k)
    if start is not None:
        x0[:m] = start[0][M]
        if free:
            x0[m] = start[1]
    ZMt = ZM.T  # a view (CSC): transposing inside matvec re-validates the indices
    A = LinearOperator((k, k), matvec=matvec, dtype=float)
    Pinv = LinearOperator((k, k), matvec=pre, dtype=float)
    # A right active set converges in ~100-400 iterations from the solver's point
    # (measured, Zipf-sparse up to 400000 x 47000); a wrong one is an inconsistent
    # system that never does: the cap bounds the cost of a wrong guess.
    sol = minres(A, rhs, x0=x0, rtol=1e-15, maxiter=min(k + 10, 3000), M=Pinv)[0]
    # MINRES's recurrences drift from the true residual late in the run: one restart
    # from the true residual (iterative refinement) gains the last digits.
    res = rhs - matvec(sol)
    if np.max(np.abs(res)) > 1e-14 * max(1.0, float(np.max(np.abs(rhs)))):
        sol = sol + minres(A, res, rtol=1e-4, maxiter=min(k + 10, 200), M=Pinv)[0]
    alpha = np.zeros(n)
    if B.size:
        alpha[B] = C
    alpha[M] = sol[:m]
    return alpha, (float(sol[m]) if free else None)


def _polish(problem: SVMProblem, YZ: Any, w: np.ndarray, b: float, alpha: np.ndarray,
            base: Certificate, tol: float, *, from_alpha: bool = False,
            ) -> tuple[np.ndarray, float, np.ndarray, Certificate] | None:
    """Try a few active-set guesses; return the best certified point if it beats ``base``.

    "Beats" means a smaller :meth:`Certificate.max_residual`, or both at rounding level
    (<= 1e-12), where the exact active set of the polished point wins. ``from_alpha``:
    only the guesses read off ``alpha`` (coordinate descent puts every non-margin
    ``alpha_i`` exactly at 0 or C, where an interior-point method is only close to them;
    each wrong guess costs a reduced KKT solve).
    """
    y = problem.data.y
    C = problem.C
    hard = problem.hard
    max_m = 3000
    best = None
    # At rounding level (<= 1e-12) the two points are equally optimal; then prefer the
    # polished one: its active set is exact (alpha exactly 0 or C off the margin), which
    # an IPM that converged to ~1e-15 never gives.
    best_score = max(base.max_residual(), 1e-12)
    r0 = y * problem.decision_function(w, b)
    ascale = C if not hard else float(alpha.max(initial=0.0))  # alpha's own scale
    guesses = []
    # Most likely first: an IPM stopped at ~1e-9 puts margin SVs within ~1e-7 of r = 1.
    for rtol in (1e-7, 1e-5, 1e-9, 1e-3):
        M = np.flatnonzero(np.abs(r0 - 1.0) <= rtol)
        B = np.empty(0, int) if hard else np.flatnonzero(r0 < 1.0 - rtol)
        if hard:
            M = np.flatnonzero(r0 <= 1.0 + rtol)
        guesses.append((M, B))
    for atol in (1e-8, 1e-6):
        a_t = atol * ascale
        if hard:
            M = np.flatnonzero(alpha > a_t)
            B = np.empty(0, int)
        else:
            B = np.flatnonzero(alpha >= C - a_t)
            M = np.flatnonzero((alpha > a_t) & (alpha < C - a_t))
        guesses.append((M, B))
    if from_alpha:
        # Coordinate descent: one guess, and only small corrections; where it is wrong,
        # the caller sweeps on to a tighter tolerance instead (cheaper at scale).
        guesses = guesses[-2:-1]
    seen = set()
    # Solves by MINRES (large margin sets) cost up to thousands of products each: at
    # most 3 of them for an interior-point point's guesses (coordinate descent: 8).
    iterative_left = 8 if from_alpha else 3
    dz = problem.d + (problem.intercept == "augmented")
    for M, B in guesses:
        start = (alpha, b)
        # a few active-set corrections from the violated conditions (coordinate descent:
        # one point at a time, the worst first; its guess is off by a few points at most)
        for _ in range(8 if from_alpha else 4):
            key = (M.tobytes(), B.tobytes())
            if key in seen:
                break
            seen.add(key)
            if M.size > max_m or (problem.data.is_sparse and M.size * dz > _DENSE_POLISH_SIZE):
                if iterative_left == 0:
                    return best
                iterative_left -= 1
            out = _reduced_kkt(problem, YZ, M, B, max_m, start)
            if out is None:
                break
            a, bb = out
            lo = 0.0
            hi = np.inf if hard else C
            a_clip = np.clip(a, lo, hi)
            w2, b2 = _wb_from_alpha(problem, YZ, a_clip, bb)
            cert = certify(problem, w2, b2, a_clip, tol=tol)
            score = cert.max_residual()
            if score < best_score:
                best, best_score = (w2, b2, a_clip, cert), score
            if score <= 1e-11:  # 100x below the 1e-9 target: no other guess can matter
                return best
            # Move the points whose condition the guess broke, then retry.
            r = y * problem.decision_function(w2, b2)
            inM = np.zeros(problem.n, bool)
            inM[M] = True
            inB = np.zeros(problem.n, bool)
            inB[B] = True
            to_zero = inM & (a < -1e-12 * ascale)
            to_bound = inM & (a > hi + 1e-12 * ascale)
            rest_bad = ~inM & ~inB & (r < 1 - 1e-12)
            bound_bad = inB & (r > 1 + 1e-12)
            moved = int(to_zero.sum() + to_bound.sum() + rest_bad.sum() + bound_bad.sum())
            if moved == 0 or (from_alpha and moved > max(10, M.size // 100)):
                break
            if from_alpha:
                # the single worst violation (alpha's in units of its scale, r's in margin
                # units); moving them all at once can cycle
                viol = np.zeros(problem.n)
                viol[to_zero] = -a[to_zero] / ascale
                viol[to_bound] = (a[to_bound] - hi) / ascale
                viol[rest_bad] = 1 - r[rest_bad]
                viol[bound_bad] = r[bound_bad] - 1
                keep = np.zeros(problem.n, bool)
                keep[int(np.argmax(viol))] = True
                to_zero, to_bound = to_zero & keep, to_bound & keep
                rest_bad, bound_bad = rest_bad & keep, bound_bad & keep
                start = (a_clip, bb if bb is not None else b)
            inM = (inM & ~to_zero & ~to_bound) | rest_bad | bound_bad
            inB = (inB & ~bound_bad) | to_bound
            M, B = np.flatnonzero(inM), np.flatnonzero(inB)
    return best


# --------------------------------------------------------------------------- separation


def separation_certificate(data: Dataset | SVMProblem, intercept: str = "free", *,
                           tol: float = 1e-9) -> SeparationCertificate | None:
    """Find and verify ``z`` proving the data are not separable, or None if they are.

    Solves the LP ``z >= 0, sum z = 1, sum z_i y_i x_i = 0`` (plus ``sum z_i y_i = 0``
    unless ``intercept="none"``) with HiGHS on ``X / R`` (the LP is invariant to scaling
    X, its solver's tolerances are not), then refines ``z`` on its support by an exact
    least-squares solve and verifies it with
    :func:`maxmargin.certificate.verify_separation` (``hull_distance`` relative to R).

    Parameters
    ----------
    data : Dataset or SVMProblem
    intercept : {"free", "none", "augmented"}
        Ignored for an SVMProblem (its own mode is used).
    tol : float
        Verification tolerance.

    Returns
    -------
    SeparationCertificate or None

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> ds = Dataset([[0.0], [1.0], [0.5]], [1, 1, -1])
    >>> cert = separation_certificate(ds)
    >>> cert.verified, cert.z.round(6).tolist()
    (True, [0.25, 0.25, 0.5])
    """
    from scipy.optimize import linprog

    if isinstance(data, SVMProblem):
        intercept = data.intercept
        data = data.data
    if not isinstance(data, Dataset):
        raise ParameterError(f"expected a Dataset or SVMProblem, got {type(data).__name__}")
    check_choice("intercept", intercept, ("free", "none", "augmented"))
    y = data.y
    # The LP's constraints are homogeneous in X, so z does not change when X is scaled;
    # HiGHS's tolerances are absolute, so it sees X / R (R rounded to a power of two,
    # an exact scaling): separable data scaled by 1e-12 must not look non-separable.
    scale = _pow2(_radius(data))
    X = data.X / scale if scale != 1.0 else data.X
    YX = scale_rows(X, y) if data.is_sparse else X * y[:, None]
    rows = [sp.csr_matrix(YX.T)]
    if intercept != "none":
        rows.append(sp.csr_matrix(y[None, :]))
    rows.append(sp.csr_matrix(np.ones((1, data.n))))
    A = sp.vstack(rows, format="csr")
    rhs = np.zeros(A.shape[0])
    rhs[-1] = 1.0
    res = linprog(np.zeros(data.n), A_eq=A, b_eq=rhs, bounds=(0, None), method="highs")
    if res.status == 2:  # infeasible LP: the classes are separable
        return None
    if res.status != 0 or res.x is None:
        raise SolverError(f"separation LP failed ({res.message}); the data may be "
                          "badly scaled: standardise the features and retry")
    z = np.maximum(res.x, 0.0)
    cert = verify_separation(data, z, intercept, tol=tol)
    S = np.flatnonzero(z > 0)
    if S.size:
        # Clean HiGHS's 1e-9-level feasibility error: exact solve on the vertex's support.
        AS = A[:, S].toarray()
        zS = np.linalg.lstsq(AS, rhs, rcond=None)[0]
        if (zS >= 0).all():
            z2 = np.zeros(data.n)
            z2[S] = zS
            cert2 = verify_separation(data, z2, intercept, tol=tol)
            if max(cert2.residuals.values()) <= max(cert.residuals.values()):
                cert = cert2
    return cert


def is_separable(data: Dataset | SVMProblem, intercept: str = "free") -> bool:
    """Whether some hyperplane separates the classes (hard margin is feasible).

    Decided by the LP of :func:`separation_certificate` (no exception raised).

    Parameters
    ----------
    data : Dataset or SVMProblem
        The examples (an SVMProblem's data and intercept mode are used).
    intercept : {"free", "none", "augmented"}
        Separable by ``w.x + b`` (free, augmented) or by ``w.x`` through the origin (none).

    Returns
    -------
    bool
        True when no point lies in both classes' convex hulls (for ``none``: no
        non-negative combination of ``y_i x_i`` sums to zero).

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> is_separable(Dataset([[0.0], [1.0]], [-1, 1]))
    True
    >>> is_separable(Dataset([[0.0], [1.0], [0.5]], [1, 1, -1]))
    False
    """
    return separation_certificate(data, intercept) is None


def _raise_not_separable(problem: SVMProblem, how: str) -> None:
    cert = separation_certificate(problem)
    if cert is None:  # pragma: no cover - callers check first
        raise SolverError(f"hard margin reported {how} but the data are separable")
    pos = np.flatnonzero(cert.z > 0)
    msg = (f"{problem.data.name}: the classes are not linearly separable "
           f"(intercept={problem.intercept}): a convex combination of {pos.size} examples "
           f"lies in both classes' hulls (certificate verified={cert.verified}); "
           "use a soft margin (C or lam) instead of hard=True")
    raise NotSeparableError(msg, cert)


# --------------------------------------------------------------------------- scaling

#: Problems with ``R = max ||z_i||`` and ``C`` inside these bounds go to the solvers as
#: given (their tolerances are tuned there; measured in bench/exact.py); any other is
#: solved as the equivalent problem ``(t Z, C / t^2)`` with ``t`` a power of two.
_COMFORT_R = (2.0 ** -4, 2.0 ** 8)
_COMFORT_C = (1.0, 2.0 ** 20)


def _scale_free_c(problem: SVMProblem) -> tuple[float, float]:
    """``(R, log2(C R^2))``: the radius of the z_i and the problem's one scale-free number
    (``inf`` for hard margin). ``(tZ, C/t^2)`` has the same solution up to
    ``w -> w/t, alpha -> alpha/t^2``, so only ``C R^2`` says how hard the problem is."""
    rn = _row_norms_z(problem)
    R = float(rn.max()) if rn.size else 0.0
    if problem.hard or not R > 0:
        return R, math.inf
    return R, math.log2(problem.C) + 2.0 * math.log2(R)


def _row_norms_z(problem: SVMProblem) -> np.ndarray:
    rn = _row_norms(problem.data)
    return rn if problem.intercept != "augmented" else np.hypot(rn, problem.intercept_scaling)


def _solver_scale(problem: SVMProblem) -> float:
    """The power of two ``t`` with which the solvers see ``(t Z, C / t^2)``; 1 to solve as
    given. ``C R^2 >= 1``: ``t = 1/R`` (unit features, ``C' = C R^2``); ``C R^2 < 1``:
    ``t = sqrt(C)`` (``C' = 1``, the dual in ``beta = alpha / C``). Exact, and idempotent:
    the rescaled problem gets ``t = 1``."""
    R, lc = _scale_free_c(problem)
    if not R > 0:
        return 1.0
    C = problem.C
    if _COMFORT_R[0] <= R <= _COMFORT_R[1] and (
            problem.hard or _COMFORT_C[0] <= C <= _COMFORT_C[1]):
        return 1.0
    if lc >= 0:
        t = 1.0 / _pow2(R)                          # R' in [1/2, 1)
    else:
        t = math.ldexp(1.0, (math.frexp(C)[1] - 1) // 2)  # C' in [1, 4)
    return 1.0 if 0.25 < t < 4.0 else t


def _scaled_problem(problem: SVMProblem, t: float, hard: bool = False) -> SVMProblem:
    """``(t Z, C / t^2)``: the same problem with ``w' = w/t, b' = b, alpha' = alpha/t^2``
    (``hard=True``: its hard-margin counterpart on ``t Z``)."""
    data = problem.data
    ds = data if t == 1.0 else Dataset(data.X * t, data.y, name=data.name,
                                       classes=data.classes)
    hard = hard or problem.hard
    kw: dict[str, Any] = {"hard": True} if hard else {"C": problem.C / (t * t)}
    return SVMProblem(ds, intercept=problem.intercept,
                      intercept_scaling=problem.intercept_scaling * t, **kw)


def _scale_hint(problem: SVMProblem) -> str:
    """A hint for the error messages when the problem is at an extreme of ``C R^2``."""
    _, lc = _scale_free_c(problem)
    if problem.hard or not math.isfinite(lc) or abs(lc) < 40:  # 40: C R^2 ~ 1e12
        return ""
    e10 = lc * math.log10(2.0)  # C R^2 may be beyond the doubles (1e330): print 10^e10
    cr2 = f"{10.0 ** (e10 - math.floor(e10)):.1f}e{math.floor(e10):+d}"
    if lc > 0:
        return (f". Note: C R^2 = {cr2} (R = max ||z_i||, and C R^2 is what matters: "
                "scaling X by s and C by 1/s^2 gives the same problem): at so large a C "
                "the soft margin is numerically the hard margin (if the data are "
                "separable: use hard=True) or the minimiser of the hinge loss alone; "
                "double precision cannot resolve both terms of the objective. Use a "
                "smaller C")
    return (f". Note: C R^2 = {cr2} (R = max ||z_i||): at so small a C the "
            "weights are negligible next to the hinge term; use a larger C")


def _cert_trouble(cert: Certificate) -> str:
    """What is wrong with a certificate that is not ok, in a few words."""
    if cert.undecided:
        return f"undecided: {cert.undecided}"
    k, v = cert.worst()
    return f"relative gap {cert.relative_gap:.2e}, worst KKT residual {k} = {v:.2e}"


#: Set while _solve_rescaled runs its inner solves (which must not rescale again).
_INNER: contextvars.ContextVar[bool] = contextvars.ContextVar("maxmargin_inner_solve",
                                                              default=False)

#: Above this log2(C R^2) (C R^2 > 1e9) a soft margin on separable data is tried as the
#: hard margin first, and a non-separable one in the primal form too (PIQP's dual stalls).
_HUGE_LC = 30.0


def _solve_rescaled(problem: SVMProblem, t: float, t0: float, **kw: Any) -> ExactSolution:
    """:func:`solve` on ``(t Z, C / t^2)``, mapped back exactly and certified on
    ``problem`` itself. At a huge ``C R^2`` the soft margin is tried as the hard margin
    (separable data) or in the primal form."""
    token = _INNER.set(True)
    try:
        return _solve_rescaled_inner(problem, t, t0, **kw)
    finally:
        _INNER.reset(token)


def _solve_rescaled_inner(problem: SVMProblem, t: float, t0: float,
                          **kw: Any) -> ExactSolution:
    _, lc = _scale_free_c(problem)
    huge = not problem.hard and lc > _HUGE_LC
    if huge:
        sol = _soft_as_hard(problem, t, t0, kw["tol"])
        if sol is not None:
            return sol
    if not problem.hard and not math.isfinite(problem.C / (t * t)):
        raise SolverError(f"{problem.data.name}: the data are not separable, and the soft "
                          f"margin cannot be solved in double precision{_scale_hint(problem)}")
    scaled = _scaled_problem(problem, t)
    tries = [kw]
    if huge and kw["form"] == "dual" and kw["solver"] is None:
        tries.append({**kw, "form": "primal", "solver": "PIQP"})
    best, error = None, None
    for k in tries:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                sol = solve(scaled, **k)
            except SolverError as e:
                error = error or e
                continue
        w, b, alpha = sol.w * t, sol.b, sol.alpha * (t * t)
        cert = certify(problem, w, b, alpha, tol=kw["tol"])
        if best is None or (cert.ok and not best[3].ok):
            best = (sol, w, b, cert, alpha, caught)
        if cert.ok:
            break
    if best is None:
        raise error  # type: ignore[misc]
    sol, w, b, cert, alpha, caught = best
    for wn in caught:  # re-issue all but the verdict, which is redone on `problem` below
        if "certificate of the exact solve" not in str(wn.message):
            warnings.warn_explicit(wn.message, wn.category, wn.filename, wn.lineno)
    return _solution(problem, w, b, alpha, cert, sol.status, sol.solver, sol.form,
                     sol.interface, sol.polished, t0, stacklevel=5)


def _soft_as_hard(problem: SVMProblem, t: float, t0: float,
                  tol: float) -> ExactSolution | None:
    """The soft-margin optimum from the hard margin, when the data are separable and
    ``C >= max alpha_hard`` (then the hard optimum satisfies the soft KKT conditions); None
    otherwise. ``(w, b)`` is stretched by ``1 + delta`` so that every ``y_i f_i`` exceeds
    1 by more than its rounding error: at this C a slack of 1e-16 would cost more than
    the whole objective."""
    # the hard margin as the solvers should see it: unit features (t = 1/R here, since
    # C R^2 > 1), solved without a further rescaling
    hp = _scaled_problem(problem, t, hard=True)
    if not is_separable(hp):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sol = solve(hp)
    except (SolverError, NotSeparableError):
        return None
    w, b, alpha = sol.w * t, sol.b, sol.alpha * (t * t)
    if not sol.certificate.ok or float(alpha.max(initial=0.0)) > problem.C:
        return None
    y = problem.data.y
    r = y * problem.decision_function(w, b)
    rnd = (problem.d + 3) * 2.0 ** -52 * float(
        (_row_norms(problem.data) * _norm(w) + abs(b)).max())
    delta = 4.0 * rnd + 2.0 * max(0.0, 1.0 - float(r.min()))
    if delta > 0.01 * tol:  # the stretch costs 2 delta of the objective
        return None
    w, b = w * (1.0 + delta), b * (1.0 + delta)
    cert = certify(problem, w, b, alpha, tol=tol)
    if not cert.ok:
        return None
    return _solution(problem, w, b, alpha, cert, sol.status, sol.solver, sol.form,
                     sol.interface, sol.polished, t0, stacklevel=5)


def _solution(problem: SVMProblem, w: np.ndarray, b: float, alpha: np.ndarray,
              cert: Certificate, status: str, name: str, form: str, iface: str,
              polished: bool, t0: float, stacklevel: int = 3) -> ExactSolution:
    """The :class:`ExactSolution`; ``status`` becomes ``"uncertified"`` (with a warning)
    when the certificate is not ok."""
    if not cert.ok:
        status = "uncertified"
        warnings.warn(
            f"{problem.data.name}: the certificate of the exact solve is degraded: NOT "
            f"CERTIFIED ({_cert_trouble(cert)}; tol {cert.tol:.0e}); try an "
            f"interior-point solver (PIQP, CLARABEL){_scale_hint(problem)}",
            RuntimeWarning, stacklevel=stacklevel,
        )
    # relative to C (alpha lies in [0, C]), or to max alpha for hard margin
    scale = problem.C if not problem.hard else float(alpha.max(initial=0.0))
    sv_tol = (1e-8 if polished else 1e-6) * scale
    support = np.flatnonzero(alpha > sv_tol)
    if problem.hard:
        bound = np.empty(0, dtype=np.int64)
    else:
        bound = np.flatnonzero(alpha >= problem.C - sv_tol)
    # (not np.setdiff1d: it sorts, 0.5 s at n = 10^6)
    margin_sv = support if problem.hard else support[alpha[support] < problem.C - sv_tol]
    nrm = _norm(problem.to_augmented(w, b))
    margin = 1.0 / nrm if nrm > 0 else math.inf
    return ExactSolution(
        w=np.asarray(w, float), b=float(b), alpha=alpha, support=support,
        margin_support=margin_sv, bound_support=bound, sv_tol=float(sv_tol),
        primal_objective=cert.primal_objective, dual_objective=cert.dual_objective,
        duality_gap=cert.duality_gap, margin=margin, certificate=cert, status=status,
        solver=name, form=form, solve_seconds=time.perf_counter() - t0, polished=polished,
        problem=problem, interface=iface,
    )


# --------------------------------------------------------------------------- solve


def _default_route(problem: SVMProblem, fallback: str) -> str:
    """The solver :func:`solve` uses for the dual form when none is named: the one rule.

    Measured on 2 cores (CPU seconds to a certified optimum, C = 1; docs/benchmarks.md,
    "Choosing the route"):

    - ``"DCD"`` (dual coordinate descent, :mod:`maxmargin._dcd`) for sparse X with
      ``d' > 1000``: there the IPM's d' x d' Gram (or n x n Q) is dense and PIQP's sparse
      LDL fills in (Zipf-sparse 2000 x 1500: DCD 0.012, PIQP 0.14, IPM 2.0; 5000 x 20000:
      DCD 0.053, IPM 29, PIQP 519);
    - ``"IPM"`` where :func:`maxmargin._ipm.suitable` says its factorisation is cheap
      (dense Gaussians 10000 x 50: IPM 0.096, PIQP 0.50, while DCD stalls: C R^2 ~ 100
      with both labels overlapping is coordinate descent's worst case);
    - ``fallback`` (PIQP) otherwise (tiny problems: 1000 x 10 and heart_scale within
      2 ms of one another on every route).
    """
    n, dz = problem.n, problem.d + (problem.intercept == "augmented")
    sparse = problem.data.is_sparse
    if sparse and dz > _ipm.MAX_DZ:
        return "DCD"
    if _ipm.suitable(n, dz, sparse):
        return "IPM"
    return fallback



def solve(problem: SVMProblem, form: str = "dual", solver: str | None = None,
          polish: bool = True, *, interface: str = "auto",
          tol: float | None = None) -> ExactSolution:
    """Solve ``problem`` exactly, polish, and certify.

    Parameters
    ----------
    problem : SVMProblem
        Hard margin, C or lambda form; intercept free, none or augmented.
    form : {"dual", "primal"}
        Which QP the solver sees. Both give the same optimum (to the polish's accuracy).
    solver : str, optional
        ``"PIQP"``, ``"CLARABEL"``, or any QP solver cvxpy has installed (``"OSQP"``,
        ``"SCS"``, ...). Default: the first of :func:`available_solvers` (chosen by
        measurement).
    polish : bool
        Run the active-set polish (reduced KKT solve) after the interior-point solve.
    interface : {"auto", "direct", "cvxpy"}
        ``direct`` hands sparse matrices to PIQP/Clarabel; ``cvxpy`` builds the model in
        cvxpy; ``auto`` is direct when the solver has a direct interface.
    tol : float, optional
        Certificate tolerance (default 1e-6).

    Returns
    -------
    ExactSolution

    Raises
    ------
    NotSeparableError
        Hard margin on non-separable data; ``.certificate`` is a verified
        :class:`~maxmargin.certificate.SeparationCertificate`.
    SolverError
        Solver not installed, failed, or an inaccurate answer the certificate cannot
        confirm.
    ParameterError
        Unknown form, solver or interface.

    Notes
    -----
    Maps: ``w~ = sum_i alpha_i y_i z_i``; ``b`` is the equality multiplier (dual form,
    free intercept) or a primal variable; ``alpha`` are the margin constraints'
    multipliers (primal form). The polish then solves, with margin SVs M, bound SVs B:

    .. math:: y_i (z_i \\cdot \\tilde w + b) = 1\\ (i \\in M),\\ \\alpha_B = C,\\
              \\alpha_{\\text{rest}} = 0,\\ y^T\\alpha = 0.

    Solvers have absolute tolerances, the certificate does not: a problem with
    ``R = max ||z_i||`` or ``C`` far from 1 is solved as the equivalent ``(t Z, C/t^2)``
    (``t`` a power of two: ``t = 1/R`` when ``C R^2 >= 1``, else ``t = sqrt(C)``), mapped
    back exactly and certified on ``problem``; at ``C R^2 > 2^30`` separable data are
    solved as the hard margin (the same optimum when ``C >= max alpha``). See
    docs/certificates.md, section 4.

    Examples
    --------
    Two points ``x = +-1`` (hand-solved: ``w = 1, b = 0, alpha = (1/2, 1/2)``):

    >>> from maxmargin import Dataset, SVMProblem
    >>> sol = solve(SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), hard=True))
    >>> sol.w.round(12).tolist(), abs(round(sol.b, 12)), sol.alpha.round(12).tolist()
    ([1.0], 0.0, [0.5, 0.5])
    >>> sol.certificate.ok
    True
    """
    t0 = time.perf_counter()
    if not isinstance(problem, SVMProblem):
        raise ParameterError(
            f"solve needs a maxmargin.SVMProblem, got {type(problem).__name__}; "
            "build one with SVMProblem(Dataset(X, y), C=...)"
        )
    form = check_choice("form", form, FORMS)
    name, iface = _resolve_solver(solver, interface)
    tol = DEFAULT_TOL if tol is None else float(tol)
    t = _solver_scale(problem)
    if not _INNER.get() and (t != 1.0 or (not problem.hard and
                                          _scale_free_c(problem)[1] > _HUGE_LC)):
        logger.debug("solve %s: solved as the equivalent problem with X scaled by t = %g",
                    problem.data.name, t)
        return _solve_rescaled(problem, t, t0, form=form, solver=solver, polish=polish,
                               interface=interface, tol=tol)
    n, dz = problem.n, problem.d + (problem.intercept == "augmented")
    free = problem.intercept == "free"
    others = [s_ for s_ in _direct_installed() if s_ not in ("IPM", "DCD")]
    if name in ("IPM", "DCD") and form == "primal":
        if solver is not None:
            raise ParameterError(f"solver {name!r} solves the dual form only; use "
                                 f"form='dual' or another solver ({', '.join(others)})")
        name = others[0] if others else name
    if name == "IPM" and solver is None:
        name = _default_route(problem, others[0] if others else "IPM")
    # The default IPM falls back to PIQP (then Clarabel) when it does not end certified.
    ipm_fallback = others if (name == "IPM" and solver is None) else []
    check_memory(8.0 * dz * _VECTORS_OF_D.get(name, 8), f"solving {problem.data.name} with "
                 f"{name} (d = {dz:,} features)", WIDE_HINT)
    # The signed rows y_i z_i, a copy of X: only the routes that hand X to a QP solver
    # make it (the DCD route reads X itself, and so do its polish and certificate).
    YZ = None if name == "DCD" else _signed_Z(problem)

    def attempt(form: str, name: str, iface: str) -> _Raw:
        nonlocal YZ
        logger.debug("solve %s (n=%d, d'=%d): %s (%s), %s form", problem.data.name, n, dz,
                     name, iface, form)
        with solver_output():
            if name == "DCD":
                raw = _run_dcd(problem, None if polish else _DCD_EPS_UNPOLISHED)
            else:
                if YZ is None:
                    YZ = _signed_Z(problem)
                if name == "IPM":
                    raw = _run_ipm(problem, YZ)
                elif iface == "direct":
                    qp = _build_dual(problem, YZ) if form == "dual" else \
                        _build_primal(problem, YZ)
                    raw = _run_piqp(qp) if name == "PIQP" else _run_clarabel(qp)
                else:
                    raw = _run_cvxpy(problem, YZ, form, name)[0]
        logger.debug("  %s: %s", name, raw.text if raw.text.startswith(raw.state)
                     else f"{raw.state} ({raw.text})")
        return raw

    raw = attempt(form, name, iface)
    if ipm_fallback and raw.state not in ("optimal", "inaccurate", "unbounded"):
        name = ipm_fallback[0]
        raw = attempt(form, name, iface)
    if problem.hard and raw.state in ("infeasible", "infeasible_inaccurate", "unbounded",
                                      "failed"):
        # Primal infeasible (primal form) or dual unbounded (dual form) means not
        # separable -- but decide by the LP, never by the status alone.
        if separation_certificate(problem) is not None:
            _raise_not_separable(problem, raw.text)
        # Separable after all: tiny margins (huge ||w||) can trip a solver's
        # infeasibility test. Fall back to the other form, then the other direct solver.
        fallbacks = [(f, nm) for nm in (name, *[s_ for s_ in _direct_installed()
                                                if s_ != name])
                     for f in (form, "primal" if form == "dual" else "dual")
                     if not (nm in ("IPM", "DCD") and f == "primal")][1:]
        for f2, nm2 in fallbacks:
            raw2 = attempt(f2, nm2, "direct" if nm2 in _DIRECT else "cvxpy")
            if raw2.state == "optimal":
                raw, form, name = raw2, f2, nm2
                iface = "direct" if nm2 in _DIRECT else "cvxpy"
                break
        else:
            raise SolverError(
                f"the solver reported the hard-margin problem {raw.text}, but an LP finds "
                "the data separable (with a tiny margin, or badly scaled); standardise the "
                "features, or use a soft margin with a large C"
            )
    if raw.state not in ("optimal", "inaccurate") or raw.x is None:
        raise SolverError(
            f"{name} ({iface}, {form} form) returned status {raw.text!r}; no optimum was "
            f"obtained. Try another solver (installed: {', '.join(available_solvers())}) "
            f"or the other form{_scale_hint(problem)}"
        )

    def finish(raw: _Raw, form: str) -> tuple[np.ndarray, float, np.ndarray,
                                              Certificate, bool]:
        x = raw.x
        if form == "dual":
            alpha = np.asarray(x[:n], float)
            b = float(raw.y_eq[-1]) if (free and raw.y_eq is not None) else None
            w, b = _wb_from_alpha(problem, YZ, alpha, b)
        else:
            v = np.asarray(x[:dz], float)
            b = float(x[dz]) if free else 0.0
            if problem.intercept == "augmented":
                w, b = v[:-1], float(v[-1] * problem.intercept_scaling)
            else:
                w = v
            alpha = np.asarray(raw.z_ineq, float).ravel()
        # The IPM stays strictly inside the box; clip rounding-level excursions only.
        hi = np.inf if problem.hard else problem.C
        alpha = np.clip(alpha, 0.0, hi)
        cert = certify(problem, w, b, alpha, tol=tol)
        polished = False
        if polish:
            best = _polish(problem, YZ, w, b, alpha, cert, tol, from_alpha=name == "DCD")
            if best is not None:
                w, b, alpha, cert = best
                polished = True
        return w, b, alpha, cert, polished

    w, b, alpha, cert, polished = finish(raw, form)
    if name == "DCD" and polish:
        # The sweeps stop at a loose tolerance where the polish usually finds the exact
        # active set; where it did not (the point misses the precision the other routes
        # reach: KKT 1e-9, gap 1e-10), sweep on to a tighter one and polish again.
        for eps in _DCD_REFINE_EPS:
            if eps >= _dcd_eps(n):
                continue
            if raw.state != "optimal" or (cert.max_residual() <= 1e-9
                                          and abs(cert.relative_gap) <= 1e-10):
                break
            raw2 = _run_dcd(problem, eps, (alpha, b))
            out2 = finish(raw2, form)
            if raw2.state == "optimal" and out2[3].max_residual() < cert.max_residual():
                raw = raw2
                w, b, alpha, cert, polished = out2
    logger.debug("  polished: %s; certificate %s", polished, "ok" if cert.ok else "failed")
    ipm_proved = cert.ok and (raw.state == "optimal" or max(
        cert.max_residual(), abs(cert.relative_gap)) <= 1e-8)
    if name == "IPM" and ipm_fallback and not ipm_proved:
        # The default IPM did not end certified (a stalled IPM whose polished point the
        # certificate proves to 1e-8 is kept): PIQP's answer, if it certifies better.
        raw2 = attempt(form, ipm_fallback[0], "direct")
        if raw2.state in ("optimal", "inaccurate") and raw2.x is not None:
            out2 = finish(raw2, form)
            if (raw2.state == "optimal" and out2[3].ok) or \
                    out2[3].max_residual() < cert.max_residual():
                raw, name = raw2, ipm_fallback[0]
                w, b, alpha, cert, polished = out2

    if raw.state != "optimal" and not cert.ok:
        raise SolverError(
            f"{name} ({iface}, {form} form) returned the inaccurate status "
            f"{raw.text!r} and the certificate does not confirm optimality "
            f"({_cert_trouble(cert)}); try another solver or the other form"
            f"{_scale_hint(problem)}"
        )
    return _solution(problem, w, b, alpha, cert,
                     ("optimal" if raw.state == "optimal" else "optimal_inaccurate"),
                     name, form, iface, polished, t0)
