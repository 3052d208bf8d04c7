"""The solvers of the exact QP: one module per backend, the registry, and the route rule.

A *route*: a solver, its interface (``"direct"``: :data:`BACKENDS`, each module with
``solve_qp(task, **settings) -> RawResult``; or ``"cvxpy"``) and the QP form.
:func:`choose_route` is the one rule. See ``docs/solvers.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from .._deps import installed as _package_installed
from .._validation import check_choice
from ..exceptions import ParameterError, SolverError
from ..problem import SVMProblem
from . import clarabel, dcd, ipm, piqp, via_cvxpy
from .qp import QPTask
from .result import RawResult

__all__ = [
    "Backend",
    "BACKENDS",
    "Route",
    "choose_route",
    "available_solvers",
    "hard_margin_retries",
    "FORMS",
]

#: The two QPs (:mod:`maxmargin.solvers.qp`).
FORMS = ("primal", "dual")


@dataclass(frozen=True)
class Backend:
    """A solver maxmargin drives itself (``interface="direct"``).

    Parameters
    ----------
    name : str
    package : str or None, what ``pip install`` needs (None: numpy/scipy only)
    forms : tuple of str, the forms of :data:`FORMS` it solves
    module : module, its ``solve_qp``
    signed_rows : bool, default True, whether it needs ``YZ`` (a copy of X)
    vectors_of_d : int, default 8, peak memory in vectors of d' (measured; too wide: refused)
    exact_bounds : bool, default False, its ``alpha_i`` off the margin exactly 0 or C
    tighter : callable ``n -> tuple of float``, tolerances to go on to when the polish misses
    unpolished : mapping, settings when the answer will not be polished
    resumes : bool, default False, whether it takes ``eps`` and ``start``

    Examples
    --------
    >>> BACKENDS["DCD"].forms, BACKENDS["DCD"].exact_bounds
    (('dual',), True)
    """

    name: str
    package: str | None
    forms: tuple[str, ...]
    module: ModuleType = field(repr=False)
    signed_rows: bool = True
    vectors_of_d: int = 8
    exact_bounds: bool = False
    tighter: Callable[[int], tuple[float, ...]] = field(default=lambda n: (), repr=False)
    unpolished: Mapping[str, Any] = field(default_factory=dict, repr=False, hash=False)
    resumes: bool = False

    def installed(self) -> bool:
        """Whether its package is installed (looked up, not imported: numba costs ~0.5 s).

        Returns
        -------
        bool

        Examples
        --------
        >>> BACKENDS["CLARABEL"].installed()
        True
        """
        return self.package is None or _package_installed(self.package)


#: The backends maxmargin drives itself, by name.
BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend("IPM", "numba", ("dual",), ipm, vectors_of_d=8),
        Backend(
            "DCD",
            "numba",
            ("dual",),
            dcd,
            signed_rows=False,
            vectors_of_d=8,
            exact_bounds=True,
            tighter=dcd.tighter_tolerances,
            unpolished={"eps": dcd.EPS_UNPOLISHED},
            resumes=True,
        ),
        Backend("PIQP", "piqp", FORMS, piqp, vectors_of_d=80),
        Backend("CLARABEL", "clarabel", FORMS, clarabel, vectors_of_d=120),
    )
}

#: cvxpy solvers that accept a QP (the others, e.g. SCIPY/GLPK, are LP-only).
CVXPY_QP = tuple(
    "CLARABEL PIQP OSQP ECOS SCS PROXQP QOCO CVXOPT GUROBI MOSEK CPLEX XPRESS COPT HIGHS".split()
)

#: The order of :func:`available_solvers`, by measurement; first-order solvers (OSQP, SCS)
#: last: they rarely reach a certifiable point without the polish.
PREFERENCE = ("IPM", "DCD", "PIQP", "CLARABEL", "ECOS", "PROXQP", "QOCO", "OSQP", "SCS")

#: The ``pip install`` of a solver whose package is not its name in lower case.
_PIP = {"IPM": "numba", "DCD": "numba", "PROXQP": "proxsuite"}


def _cvxpy_installed() -> list[str]:
    try:
        import cvxpy as cp
    except ImportError:  # cvxpy is a dependency, but a broken or partial install happens
        return []
    return [s for s in cp.installed_solvers() if s in CVXPY_QP]


def _direct_installed() -> list[str]:
    """The installed direct backends, in :data:`PREFERENCE` order."""
    return [s for s in PREFERENCE if s in BACKENDS and BACKENDS[s].installed()]


def available_solvers() -> list[str]:
    """Names of the installed QP solvers maxmargin can use, default first.

    Returns
    -------
    list of str
        Upper-case names as cvxpy spells them, plus ``"IPM"`` and ``"DCD"``; the first is
        what :func:`~maxmargin.solve` uses by default where it applies (:func:`choose_route`).

    Examples
    --------
    >>> "CLARABEL" in available_solvers(), available_solvers()[0]
    (True, 'IPM')
    """
    names = set(_cvxpy_installed()) | set(_direct_installed())
    ranked = [s for s in PREFERENCE if s in names]
    return ranked + sorted(names - set(ranked))


@dataclass(frozen=True)
class Route:
    """A solver, the interface that reaches it, the form it solves, and its fallbacks.

    Parameters
    ----------
    solver : str
    interface : {"direct", "cvxpy"}
    form : {"primal", "dual"}
    fallbacks : tuple of str, default ()

    Examples
    --------
    >>> Route("IPM", "direct", "dual").other("PIQP", "primal")
    Route(solver='PIQP', interface='direct', form='primal', fallbacks=())
    """

    solver: str
    interface: str
    form: str
    fallbacks: tuple[str, ...] = ()

    @property
    def backend(self) -> Backend | None:
        """The direct backend, or None (cvxpy)."""
        return BACKENDS[self.solver] if self.interface == "direct" else None

    @property
    def needs_signed_rows(self) -> bool:
        """Whether the route hands the signed rows ``YZ`` (a copy of X) to its solver."""
        return self.backend is None or self.backend.signed_rows

    @property
    def vectors_of_d(self) -> int:
        """Peak memory, in vectors of d' (cvxpy solvers: at least the IPM's)."""
        return self.backend.vectors_of_d if self.backend is not None else 8

    def run(self, problem: SVMProblem, YZ: Any, polish: bool, **settings: Any) -> RawResult:
        """Solve ``problem``'s QP on this route.

        Parameters
        ----------
        problem : SVMProblem
        YZ : the signed rows (:func:`~maxmargin.solvers.qp.signed_rows`), or None when not needed
        polish : bool, False: the backend may stop earlier
        **settings : the backend's settings

        Returns
        -------
        RawResult

        Examples
        --------
        >>> from maxmargin import SVMProblem, make_separable
        >>> from maxmargin.solvers.qp import signed_rows
        >>> p = SVMProblem(make_separable(20, 2, seed=0), C=1.0)
        >>> Route("CLARABEL", "direct", "dual").run(p, signed_rows(p), polish=True).status.name
        'OPTIMAL'
        """
        task = QPTask(problem, self.form, YZ)
        if self.backend is None:
            return via_cvxpy.solve_qp(task, solver=self.solver, **settings)
        base = {} if polish else self.backend.unpolished
        return self.backend.module.solve_qp(task, **{**base, **settings})

    def other(self, solver: str, form: str | None = None) -> Route:
        """The route to ``solver`` (direct when it has a direct interface).

        Parameters
        ----------
        solver : str
        form : {"primal", "dual"} or None, default this route's

        Returns
        -------
        Route

        Examples
        --------
        >>> Route("IPM", "direct", "dual").other("ECOS").interface
        'cvxpy'
        """
        return Route(
            solver, "direct" if solver in BACKENDS else "cvxpy", self.form if form is None else form
        )


def choose_route(
    problem: SVMProblem, form: str = "dual", solver: str | None = None, interface: str = "auto"
) -> Route:
    """The route :func:`~maxmargin.solve` takes: the one rule, measured.

    A named solver is taken as named (checked). Else: primal to PIQP; sparse X with
    ``d' > 1000`` to DCD; the IPM where :func:`~maxmargin.solvers.ipm.suitable`; else PIQP;
    PIQP then Clarabel as fallbacks. Measurements: ``docs/benchmarks.md``.

    Parameters
    ----------
    problem : SVMProblem
    form : {"dual", "primal"}, default "dual"
    solver : str or None, default None (the rule's)
    interface : {"auto", "direct", "cvxpy"}, default "auto"

    Returns
    -------
    Route

    Examples
    --------
    >>> from maxmargin import SVMProblem, make_separable
    >>> choose_route(SVMProblem(make_separable(20, 2, seed=0), C=1.0), form="primal").form
    'primal'
    """
    name, interface = _named_route(solver, interface)
    direct = [s for s in _direct_installed() if s not in ("IPM", "DCD")]
    backend = BACKENDS.get(name) if interface == "direct" else None
    if backend is not None and form not in backend.forms:
        if solver is not None:
            raise ParameterError(
                f"solver {name!r} solves the {backend.forms[0]} form "
                f"only; use form={backend.forms[0]!r} or another solver "
                f"({', '.join(direct)})"
            )
        name = direct[0] if direct else name
    if solver is not None or name != "IPM":
        return Route(name, interface, form)
    n, dz = problem.n, problem.d + (problem.intercept == "augmented")
    sparse = problem.data.is_sparse
    if sparse and dz > ipm.MAX_DZ:
        # PIQP keeps sparse X sparse: the fallback where DCD stalls (a hard or nearly
        # hard margin: coordinate descent's slow regime)
        return Route("DCD", interface, form, tuple(direct))
    if ipm.suitable(n, dz, sparse) or not direct:
        return Route("IPM", interface, form, tuple(direct))
    # PIQP's dual of the squared hinge calls itself infeasible at C R^2 ~ 1e6 (its Hessian
    # Q + 1/(2C) is then nearly singular): Clarabel's is the fallback there
    return Route(direct[0], interface, form, tuple(direct[1:]) if problem.squared else ())


def _named_route(solver: str | None, interface: str) -> tuple[str, str]:
    """``(solver, interface)`` for a named (or no) solver, checked, the interface resolved."""
    check_choice("interface", interface, ("auto", "direct", "cvxpy"))
    if interface == "cvxpy" and not _package_installed("cvxpy"):
        raise SolverError(
            "interface='cvxpy' needs cvxpy, which is not installed: pip install cvxpy"
        )
    if interface != "cvxpy":
        # importing cvxpy costs seconds: skip it when a direct solver will do
        direct = _direct_installed()
        wanted = None if solver is None else str(solver).strip().upper()
        if direct and (wanted is None or wanted in direct):
            return (wanted or direct[0]), "direct"
    installed = available_solvers()
    if not installed:  # pragma: no cover
        raise SolverError("no QP solver is installed; pip install clarabel piqp")
    name = (
        _default_solver(installed, interface)
        if solver is None
        else _checked_name(solver, installed)
    )
    if interface == "auto":
        interface = "direct" if name in BACKENDS else "cvxpy"
    elif interface == "direct" and name not in BACKENDS:
        raise ParameterError(
            f"solver {name} has no direct interface (direct: {', '.join(BACKENDS)}); "
            "use interface='cvxpy'"
        )
    elif interface == "cvxpy" and name not in _cvxpy_installed():
        raise SolverError(
            f"cvxpy does not see solver {name}; installed for cvxpy: "
            f"{', '.join(_cvxpy_installed())}"
        )
    return name, interface


def _default_solver(installed: list[str], interface: str) -> str:
    if interface == "direct":
        direct = [s for s in installed if s in BACKENDS]
        if not direct:
            raise SolverError("no direct solver installed; pip install piqp clarabel")
        return direct[0]
    if interface == "cvxpy":
        return [s for s in installed if s in _cvxpy_installed()][0]
    return installed[0]


def _checked_name(solver: Any, installed: list[str]) -> str:
    if not isinstance(solver, str):
        raise ParameterError(f"solver must be a name such as 'PIQP', got {solver!r}")
    name = solver.strip().upper()
    known = set(CVXPY_QP) | set(BACKENDS)
    if name not in known:
        raise ParameterError(
            f"unknown solver {solver!r}; maxmargin can use {', '.join(sorted(known))} "
            f"(installed here: {', '.join(installed)})"
        )
    if name not in installed:
        raise SolverError(_not_installed(name, installed))
    return name


def _not_installed(name: str, installed: list[str]) -> str:
    """Why solver ``name`` cannot be used here, and the ``pip install`` that fixes it."""
    pkg = _PIP.get(name, name.lower())
    there = f"(installed: {', '.join(installed)})"
    if name not in BACKENDS and not _package_installed("cvxpy"):
        both = "cvxpy" if _package_installed(pkg) else f"cvxpy {pkg}"
        return (
            f"solver {name} is reached through cvxpy, which is not installed: "
            f"pip install {both} {there}"
        )
    return (
        f"solver {name} needs {pkg}, which is not installed: pip install {pkg} "
        f"(or pick an installed solver: {', '.join(installed)})"
    )


def hard_margin_retries(route: Route) -> list[Route]:
    """The routes to try when ``route`` called a separable hard margin infeasible.

    Tiny margins can trip a solver's infeasibility test: the other form first, then each
    other direct solver in both forms.

    Parameters
    ----------
    route : Route

    Returns
    -------
    list of Route

    Examples
    --------
    >>> hard_margin_retries(Route("PIQP", "direct", "dual"))[0]
    Route(solver='PIQP', interface='direct', form='primal', fallbacks=())
    """
    other_form = "primal" if route.form == "dual" else "dual"
    names = [route.solver, *[s for s in _direct_installed() if s != route.solver]]
    retries = [route.other(name, f) for name in names for f in (route.form, other_form)]
    return [r for r in retries[1:] if r.backend is None or r.form in r.backend.forms]
