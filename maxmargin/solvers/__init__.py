"""The solvers of the exact QP, one module per backend, and the registry of routes."""

from __future__ import annotations

from .._validation import check_choice
from ..exceptions import ParameterError, SolverError
from ..problem import SVMProblem
from . import ipm

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


_PIP = {"PIQP": "piqp", "CLARABEL": "clarabel", "OSQP": "osqp", "SCS": "scs", "ECOS": "ecos",
        "PROXQP": "proxsuite", "QOCO": "qoco", "CVXOPT": "cvxopt"}


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


def _default_route(problem: SVMProblem, fallback: str) -> str:
    """The solver :func:`solve` uses for the dual form when none is named: the one rule.

    Measured on 2 cores (CPU seconds to a certified optimum, C = 1; docs/benchmarks.md,
    "Choosing the route"):

    - ``"DCD"`` (dual coordinate descent, :mod:`maxmargin._dcd`) for sparse X with
      ``d' > 1000``: there the IPM's d' x d' Gram (or n x n Q) is dense and PIQP's sparse
      LDL fills in (Zipf-sparse 2000 x 1500: DCD 0.012, PIQP 0.14, IPM 2.0; 5000 x 20000:
      DCD 0.053, IPM 29, PIQP 519);
    - ``"IPM"`` where :func:`maxmargin.ipm.suitable` says its factorisation is cheap
      (dense Gaussians 10000 x 50: IPM 0.096, PIQP 0.50, while DCD stalls: C R^2 ~ 100
      with both labels overlapping is coordinate descent's worst case);
    - ``fallback`` (PIQP) otherwise (tiny problems: 1000 x 10 and heart_scale within
      2 ms of one another on every route).
    """
    n, dz = problem.n, problem.d + (problem.intercept == "augmented")
    sparse = problem.data.is_sparse
    if sparse and dz > ipm.MAX_DZ:
        return "DCD"
    if ipm.suitable(n, dz, sparse):
        return "IPM"
    return fallback
