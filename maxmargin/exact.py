r"""The exact solve (:func:`solve`): the SVM as a QP, solved, polished, certified.

The QP (primal or dual, :mod:`maxmargin.solvers.qp`) goes to the own IPM, DCD, PIQP or
Clarabel directly, or through cvxpy (``docs/solvers.md``); the polish solves the reduced KKT
system of the active set, and nothing is reported optimal on a solver's word alone. Extreme
scales are solved as an equivalent ``(t Z, C / t^2)`` and mapped back exactly
(``docs/certificates.md``, section 4).
"""

from __future__ import annotations

import contextvars
import math
import sys
import time
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

# The modules, not their names: each name has one import path, its home's.
from . import separation, solution, solvers
from ._log import logger, solver_output
from ._numerics import _norm
from ._validation import WIDE_HINT, check_bool, check_choice, check_memory
from .certificate import Certificate, certify, check_tol, margins, support_sets
from .exceptions import NotSeparableError, ParameterError, SolverError
from .kernel_problem import KernelProblem
from .problem import SVMProblem
from .separation import _raise_not_separable
from .solvers import Route, choose_route, hard_margin_retries
from .solvers.kernel import solve_kernel_dual
from .solvers.polish import polish as polish_point
from .solvers.polish import polish_no_margin, stretch_needed, stretched
from .solvers.qp import primal_point, signed_rows, weights_from_alpha
from .solvers.result import RawResult, Status
from .solvers.scaling import (
    HUGE_LOG_CR2,
    max_cost,
    scale_free_c,
    scale_hint,
    scaled_problem,
    solver_scale,
    times_inv_t2,
)

if TYPE_CHECKING:
    from .solution import ExactSolution

__all__ = ["solve"]


#: Set while _solve_rescaled runs its inner solves (which must not rescale again).
_INNER: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "maxmargin_inner_solve", default=False
)


def _solve_rescaled(problem: SVMProblem, t: float, t0: float, **kw: Any) -> ExactSolution:
    """:func:`solve` on ``(t Z, C / t^2)``, mapped back exactly, certified on ``problem``."""
    token = _INNER.set(True)
    try:
        return _solve_rescaled_inner(problem, t, t0, **kw)
    finally:
        _INNER.reset(token)


def _solve_rescaled_inner(problem: SVMProblem, t: float, t0: float, **kw: Any) -> ExactSolution:
    _, lc = scale_free_c(problem)
    huge = not problem.hard and lc > HUGE_LOG_CR2
    # the squared hinge's optimum is never the hard margin's (alpha_i = 2 C xi_i > 0 on
    # every support vector): only the hinge's is found that way
    as_hard = huge and not problem.squared
    if as_hard:
        sol = _soft_as_hard(problem, t, t0, kw["tol"])
        if sol is not None:
            return sol

    def cannot() -> SolverError:
        # "not separable" only where the hard margin was tried (at a huge C R^2) and failed
        why = "the data are not separable, and " if as_hard else ""
        return SolverError(
            f"{problem.data.name}: {why}the soft margin at C = {problem.C:.3g} cannot be "
            f"solved in double precision{scale_hint(problem)}"
        )

    if not problem.hard and not math.isfinite(times_inv_t2(max_cost(problem), t)):  # C s_i
        raise cannot()
    try:
        scaled = scaled_problem(problem, t)
    except ParameterError:  # C / t^2 or its lam beyond the doubles (the user's C is fine)
        raise cannot() from None
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
        w, b, alpha = sol.w * t, sol.b, times_inv_t2(sol.alpha, 1.0 / t)
        cert = certify(problem, w, b, alpha, tol=kw["tol"])
        if best is None or (cert.ok and not best[3].ok):
            best = (sol, w, b, cert, alpha, caught)
        if cert.ok:
            break
    if best is None:
        raise error  # type: ignore[misc]
    sol, w, b, cert, alpha, caught = best
    _reissue(caught, verdict=False)
    return _solution(problem, w, b, alpha, cert, _how(sol), t0, stacklevel=5)


def _soft_as_hard(problem: SVMProblem, t: float, t0: float, tol: float) -> ExactSolution | None:
    """The soft-margin optimum from the hard margin (separable, ``C >= max alpha``), or None.

    ``(w, b)`` is stretched so that every ``y_i f_i`` exceeds 1 by more than its rounding:
    at this C a slack of 1e-16 would cost more than the whole objective.
    """
    if _HARD_AS_SOFT.get():  # this soft margin stands for a hard one that failed
        return None
    # the hard margin as the solvers should see it: unit features (t = 1/R here, since
    # C R^2 > 1), solved without a further rescaling
    hp = scaled_problem(problem, t, as_hard_margin=True)
    if not separation.is_separable(hp):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sol = solve(hp)
    except (SolverError, NotSeparableError):
        return None
    w, b, alpha = sol.w * t, sol.b, times_inv_t2(sol.alpha, 1.0 / t)
    if not sol.certificate.ok or np.any(alpha > problem.costs):
        return None
    delta = stretch_needed(*margins(problem, w, b))
    if delta > 0.01 * tol:  # the stretch costs 2 delta of the objective
        return None
    w, b = w * (1.0 + delta), b * (1.0 + delta)
    cert = certify(problem, w, b, alpha, tol=tol)
    if not cert.ok:
        return None
    return _solution(problem, w, b, alpha, cert, _how(sol), t0, stacklevel=5)


def _cert_trouble(cert: Certificate) -> str:
    """What is wrong with a certificate that is not ok, in a few words."""
    if cert.undecided:
        return f"undecided: {cert.undecided}"
    k, v = cert.worst()
    return f"relative gap {cert.relative_gap:.2e}, worst KKT residual {k} = {v:.2e}"


def _solution(
    problem: SVMProblem,
    w: np.ndarray,
    b: float,
    alpha: np.ndarray,
    cert: Certificate,
    how: tuple[str, str, str, str, bool],
    t0: float,
    stacklevel: int = 3,
) -> ExactSolution:
    """The :class:`ExactSolution` (``"uncertified"``, with a warning, if the cert is not ok).

    ``how``: the status, solver, form, interface and whether polished.
    """
    status, name, form, iface, polished = how
    if not cert.ok:
        status = "uncertified"
        others = ", ".join(s for s in ("PIQP", "CLARABEL") if s != name.upper())
        warnings.warn(
            f"{problem.data.name}: the certificate of the exact solve is degraded: NOT "
            f"CERTIFIED ({_cert_trouble(cert)}; tol {cert.tol:.0e}); "
            f"try another interior-point solver ({others}){scale_hint(problem)}",
            RuntimeWarning,
            stacklevel=stacklevel,
        )
    support, margin_sv, bound, sv_tol = support_sets(problem, alpha, cert, w, b)
    nrm = _norm(problem.to_augmented(w, b))
    margin = 1.0 / nrm if nrm > 0 else math.inf
    return solution.ExactSolution(
        w=np.asarray(w, float),
        b=float(b),
        alpha=alpha,
        support=support,
        margin_support=margin_sv,
        bound_support=bound,
        sv_tol=float(sv_tol),
        margin=margin,
        training_error=float(np.mean(problem.margins(w, b) <= 0)),
        certificate=cert,
        status=status,
        solver=name,
        form=form,
        solve_seconds=time.perf_counter() - t0,
        polished=polished,
        problem=problem,
        interface=iface,
    )


def _how(sol: ExactSolution) -> tuple[str, str, str, str, bool]:
    """The solver's fields of an inner solve ``sol``, for :func:`_solution`."""
    return sol.status, sol.solver, sol.form, sol.interface, sol.polished


def solve(
    problem: SVMProblem,
    form: str = "dual",
    solver: str | None = None,
    polish: bool = True,
    *,
    interface: str = "auto",
    tol: float | None = None,
) -> ExactSolution:
    r"""Solve ``problem`` exactly, polish, and certify.

    Parameters
    ----------
    problem : SVMProblem
        A kernel problem is solved by :func:`~maxmargin.solvers.kernel.solve_kernel_dual`
        (``tol`` only) into a :class:`~maxmargin.solvers.kernel.KernelSolution`.
    form : {"dual", "primal"}
        Which QP the solver sees (the same optimum).
    solver : str, optional
        ``"IPM"``, ``"DCD"``, ``"PIQP"``, ``"CLARABEL"`` or a cvxpy QP solver; default chosen
        per problem by :func:`~maxmargin.solvers.choose_route` (``docs/solvers.md``).
    polish : bool
        Run the active-set polish (reduced KKT solve) after the solve.
    interface : {"auto", "direct", "cvxpy"}
        ``direct`` hands sparse matrices to PIQP/Clarabel; ``auto``: direct where it can.
    tol : float, optional
        Certificate tolerance (default 1e-6).

    Returns
    -------
    ExactSolution

    Raises
    ------
    NotSeparableError
        Hard margin on non-separable data (``.certificate`` proves it).
    SolverError, ParameterError
        A solver missing or failed, or an answer the certificate cannot confirm; bad options.

    Notes
    -----
    The polish solves, with margin SVs M, bound SVs B:

    .. math:: y_i (z_i \cdot \tilde w + b) = 1\ (i \in M),\ \alpha_B = C,\
              \alpha_{\text{rest}} = 0,\ y^T\alpha = 0.

    Solvers have absolute tolerances, the certificate does not: a problem with
    ``R = max ||z_i||`` or ``C`` far from 1 is solved as ``(t Z, C/t^2)``, ``t`` a power of
    two, mapped back exactly (``docs/certificates.md``, section 4).

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
    if isinstance(problem, KernelProblem):  # SVMProblem(data, kernel=...) built it
        return solve_kernel_dual(problem, tol=tol)
    if not isinstance(problem, SVMProblem):
        raise ParameterError(
            f"solve needs a maxmargin.SVMProblem, got {type(problem).__name__}; "
            "build one with SVMProblem(Dataset(X, y), C=...)"
        )
    form = check_choice("form", form, solvers.FORMS)
    route = choose_route(problem, form, solver, interface)
    tol = check_tol(tol)
    polish = check_bool("polish", polish)
    _check_normal_costs(problem)
    kw: dict[str, Any] = {
        "form": form,
        "solver": solver,
        "polish": polish,
        "interface": interface,
        "tol": tol,
    }
    if problem.hard and solver is None and not _INNER.get() and not _HARD_AS_SOFT.get():
        return _hard_with_fallback(problem, route, t0, **kw)
    return _solve(problem, route, t0, **kw)


def _solve(problem: SVMProblem, route: Route, t0: float, **kw: Any) -> ExactSolution:
    """:func:`solve` once its arguments (form, solver, polish, interface, tol) are checked."""
    if problem.weights is not None and not problem.costs.all():
        return _solve_without_zero_costs(problem, t0, **kw)
    t = solver_scale(problem, route.solver)
    if _rescaled(problem, t):
        logger.debug(
            "solve %s: solved as the equivalent problem with X scaled by t = %g",
            problem.data.name,
            t,
        )
        return _solve_rescaled(problem, t, t0, **kw)
    dz = problem.d + (problem.intercept == "augmented")
    check_memory(
        8.0 * dz * route.vectors_of_d,
        f"solving {problem.data.name} with {route.solver} (d = {dz:,} features)",
        WIDE_HINT,
    )
    attempts = _Attempts(problem, kw["tol"], kw["polish"])
    point = attempts.finish(_first_answer(attempts, route))
    point = _refined(attempts, point)
    point = _fallback_if_uncertified(attempts, point)
    logger.debug(
        "  polished: %s; certificate %s", point.polished, "ok" if point.cert.ok else "failed"
    )
    return _accepted(problem, point, t0)


def _check_normal_costs(problem: SVMProblem) -> None:
    """Refuse a cost ``C_i`` below the smallest normal double (2.2e-308).

    Subnormal multipliers have too few bits: at ``C = 1e-320`` no point satisfies
    ``sum_i alpha_i y_i = 0`` to 1e-6, while ``C = 1e-300`` certifies to rounding.
    """
    if problem.hard:
        return
    costs = problem.costs
    pos = costs[costs > 0]
    low = float(pos.min()) if pos.size else math.inf
    if low >= sys.float_info.min:
        return
    if problem.weights is None:
        what = f"C = {problem.C:.3g}"
    else:
        what = f"the smallest cost C s_i = {low:.3g} (C = {problem.C:.3g})"
    bits = math.frexp(low)[1] + 1074  # a subnormal's significant bits
    raise ParameterError(
        f"{what} is below the smallest normal double, 2.2e-308: the multipliers alpha_i "
        f"in [0, C] would be subnormal numbers, with at most {bits} significant bits "
        "instead of 53, and are not solved for. Only C R^2 matters (X "
        "times s with C / s^2 is the same problem): scale the features down and C up"
    )


#: Set while _hard_as_soft solves its soft margin (which must not turn into a hard one).
_HARD_AS_SOFT: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "maxmargin_hard_as_soft", default=False
)


def _hard_with_fallback(problem: SVMProblem, route: Route, t0: float, **kw: Any) -> ExactSolution:
    """A hard margin the default routes could not certify, solved as a soft margin.

    A margin tiny next to the features' scale can defeat every route; the soft margin at a
    large C has a bounded dual (:func:`_hard_as_soft`). Else the first answer stands.
    """
    sol: ExactSolution | None = None
    error: SolverError | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            sol = _solve(problem, route, t0, **kw)
        except SolverError as e:
            error = e
        except BaseException:  # NotSeparableError, Ctrl-C: with the warnings so far
            _reissue(caught)
            raise
    if sol is None or not sol.certificate.ok:
        alt = _hard_as_soft(problem, t0, kw["tol"])
        if alt is not None:
            return alt
    _reissue(caught)
    if sol is None:
        raise error  # type: ignore[misc]
    return sol


def _reissue(caught: list[warnings.WarningMessage], verdict: bool = True) -> None:
    """Issue recorded warnings again (all but the verdict, redone later, if not ``verdict``)."""
    for wn in caught:
        if verdict or "certificate of the exact solve" not in str(wn.message):
            warnings.warn_explicit(wn.message, wn.category, wn.filename, wn.lineno)


def _hard_as_soft(problem: SVMProblem, t0: float, tol: float) -> ExactSolution | None:
    """The hard-margin optimum as the soft margin's at ``C R^2 = 2^40`` or ``2^50``, or None.

    Certified on ``problem`` itself, the hard margin, or not taken.
    """
    R, _ = scale_free_c(problem)
    if not (R > 0 and math.isfinite(R)):
        return None
    token = _HARD_AS_SOFT.set(True)
    try:
        for k in (40, 50):
            e = math.frexp(R)[1]  # C = 2^k / R^2 without overflow: R in [2^(e-1), 2^e)
            C = math.ldexp(1.0, k - 2 * e)
            if not 0.0 < C < math.inf:
                continue
            soft = SVMProblem(
                problem.data,
                C=C,
                intercept=problem.intercept,
                intercept_scaling=problem.intercept_scaling,
            )
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    sol = solve(soft, tol=tol)
            except SolverError:
                continue
            w, b = sol.w, sol.b
            cert = certify(problem, w, b, sol.alpha, tol=tol)
            st = stretched(problem, w, b, sol.alpha, cert, tol)  # provably feasible
            if st is not None:
                w, b, cert = st
            logger.debug("  hard margin as the soft margin at C R^2 = 2^%d: %s", k, cert.ok)
            if cert.ok:
                return _solution(problem, w, b, sol.alpha, cert, _how(sol), t0)
    finally:
        _HARD_AS_SOFT.reset(token)
    return None


def _solve_without_zero_costs(problem: SVMProblem, t0: float, **kw: Any) -> ExactSolution:
    """Solve without the examples of weight 0, put ``alpha_i = 0`` back, certify on ``problem``."""
    keep = np.flatnonzero(problem.costs > 0)
    data = problem.data
    sub = SVMProblem(
        data.subset(keep),
        C=problem.C,
        intercept=problem.intercept,
        intercept_scaling=problem.intercept_scaling,
        sample_weight=problem.weights[keep],  # type: ignore[index]
        loss=problem.loss,
    )
    logger.debug("solve %s: %d examples of weight 0 left out", data.name, problem.n - keep.size)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sol = solve(sub, **kw)
    _reissue(caught, verdict=False)
    alpha = np.zeros(problem.n)
    alpha[keep] = sol.alpha
    cert = certify(problem, sol.w, sol.b, alpha, tol=kw["tol"])
    return _solution(problem, sol.w, sol.b, alpha, cert, _how(sol), t0, stacklevel=4)


def _rescaled(problem: SVMProblem, t: float) -> bool:
    """Whether :func:`solve` hands ``problem`` to the solvers rescaled (never twice)."""
    if _INNER.get():
        return False
    return t != 1.0 or (not problem.hard and scale_free_c(problem)[1] > HUGE_LOG_CR2)


@dataclass(frozen=True, eq=False)
class _Point:
    """A route's answer mapped to ``(w, b, alpha)``, certified, maybe polished."""

    raw: RawResult
    route: Route
    w: np.ndarray
    b: float
    alpha: np.ndarray
    cert: Certificate
    polished: bool

    @property
    def optimal(self) -> bool:
        """Whether the solver said optimal (the certificate decides all the same)."""
        return self.raw.status is Status.OPTIMAL


class _Attempts:
    """The routes one solve tries, and the point each answer maps to.

    The signed rows ``YZ`` (a copy of X) are formed once, and only for a route that hands X
    to a QP solver.
    """

    def __init__(self, problem: SVMProblem, tol: float, polish: bool) -> None:
        self.problem, self.tol, self.polish = problem, tol, polish
        self.YZ: Any = None

    def run(self, route: Route) -> tuple[RawResult, Route]:
        """``route``'s raw answer (and the route, to keep them together)."""
        p = self.problem
        if route.needs_signed_rows and self.YZ is None:
            self.YZ = signed_rows(p)
        logger.debug(
            "solve %s (n=%d, d'=%d): %s (%s), %s form",
            p.data.name,
            p.n,
            p.d + (p.intercept == "augmented"),
            route.solver,
            route.interface,
            route.form,
        )
        with solver_output():
            raw = route.run(p, self.YZ, self.polish)
        logger.debug("  %s: %s", route.solver, raw.describe())
        return raw, route

    def finish(self, answer: tuple[RawResult, Route]) -> _Point:
        """Map an answer to ``(w, b, alpha)``, clip alpha into its box, certify and polish."""
        raw, route = answer
        p = self.problem
        assert raw.x is not None
        if route.form == "dual":
            alpha = np.asarray(raw.x[: p.n], float)
            free = p.intercept == "free"
            b = float(raw.y_eq[-1]) if free and raw.y_eq is not None else None
            w, b = weights_from_alpha(p, self.YZ, alpha, b)
        else:
            w, b = primal_point(p, raw.x)
            alpha = np.asarray(raw.z_ineq, float).ravel()
        alpha = np.clip(alpha, 0.0, np.inf if p.hard or p.squared else p.costs)
        cert = certify(p, w, b, alpha, tol=self.tol)
        if self.polish:
            exact_bounds = route.backend is not None and route.backend.exact_bounds
            best = polish_point(p, self.YZ, w, b, alpha, cert, self.tol, from_alpha=exact_bounds)
            if best is None and not (p.hard or p.squared):  # every alpha_i at 0 or C
                best = polish_no_margin(p, self.YZ, alpha, cert, self.tol)
            if best is not None:
                return _Point(raw, route, *best, polished=True)
        return _Point(raw, route, w, b, alpha, cert, polished=False)


def _first_answer(attempts: _Attempts, route: Route) -> tuple[RawResult, Route]:
    """The first answer with a point: ``route``'s, its fallback's, or the separation LP's."""
    raw, route = attempts.run(route)
    # the squared hinge's dual is never unbounded (strongly concave): such a status failed
    usable: tuple[Status, ...] = (Status.OPTIMAL, Status.INACCURATE)
    if not attempts.problem.squared:
        usable += (Status.UNBOUNDED,)
    if route.fallbacks and raw.status not in usable:
        raw, route = attempts.run(route.other(route.fallbacks[0]))
    if attempts.problem.hard and raw.status.says_infeasible:
        raw, route = _separable_after_all(attempts, raw, route)
    if not raw.has_point:
        raise SolverError(
            f"{route.solver} ({route.interface}, {route.form} form) returned status "
            f"{raw.text!r}; no optimum was obtained. Try another solver (installed: "
            f"{', '.join(solvers.available_solvers())}) or the other form"
            f"{scale_hint(attempts.problem)}"
        )
    return raw, route


def _separable_after_all(
    attempts: _Attempts, raw: RawResult, route: Route
) -> tuple[RawResult, Route]:
    """Decide a hard margin a solver called infeasible (primal) or unbounded (dual).

    Not separable only by the LP's verdict, never by a status; separable after all: the
    other form, then the other direct solvers.
    """
    problem = attempts.problem
    if separation.separation_certificate(problem) is not None:
        _raise_not_separable(problem, raw.text)
    for retry in hard_margin_retries(route):
        raw2, _ = attempts.run(retry)
        if raw2.status is Status.OPTIMAL:
            return raw2, retry
    raise SolverError(
        f"the solver reported the hard-margin problem {raw.text}, but an LP finds "
        "the data separable (with a tiny margin, or badly scaled); standardise the "
        "features, or use a soft margin with a large C"
    )


def _refined(attempts: _Attempts, point: _Point) -> _Point:
    """Resume a backend that stops at a loose tolerance (DCD) at tighter ones, while imprecise."""
    backend = point.route.backend
    if backend is None or not backend.resumes or not attempts.polish or not point.optimal:
        return point
    for eps in backend.tighter(attempts.problem.n):
        cert = point.cert  # the precision the interior-point routes reach
        if cert.max_residual() <= 1e-9 and abs(cert.relative_gap) <= 1e-10:
            break
        raw2 = point.route.run(
            attempts.problem, attempts.YZ, True, eps=eps, start=(point.alpha, point.b)
        )
        point2 = attempts.finish((raw2, point.route))
        # the certificate decides, not the status: capped sweeps with a better point go on
        if point2.cert.max_residual() < point.cert.max_residual():
            point = point2
        elif not point2.optimal:
            break
    return point


def _fallback_if_uncertified(attempts: _Attempts, point: _Point) -> _Point:
    """Fall back from an uncertified default IPM or DCD to PIQP, if that certifies better."""
    cert = point.cert
    proved = cert.ok and (point.optimal or max(cert.max_residual(), abs(cert.relative_gap)) <= 1e-8)
    if proved or not point.route.fallbacks:
        return point
    raw2, route2 = attempts.run(point.route.other(point.route.fallbacks[0]))
    if not raw2.has_point:
        return point
    point2 = attempts.finish((raw2, route2))
    if (point2.optimal and point2.cert.ok) or point2.cert.max_residual() < cert.max_residual():
        return point2
    return point


def _accepted(problem: SVMProblem, point: _Point, t0: float) -> ExactSolution:
    """The solution, when the solver said optimal or the certificate proves it."""
    route = point.route
    if not point.optimal and not point.cert.ok:
        raise SolverError(
            f"{route.solver} ({route.interface}, {route.form} form) returned the "
            f"inaccurate status {point.raw.text!r} and the certificate does not confirm "
            f"optimality ({_cert_trouble(point.cert)}); try another solver or the other "
            f"form{scale_hint(problem)}"
        )
    status = "optimal" if point.optimal else "optimal_inaccurate"
    how = (status, route.solver, route.form, route.interface, point.polished)
    return _solution(problem, point.w, point.b, point.alpha, point.cert, how, t0)
