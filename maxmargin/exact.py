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
from typing import Any

import numpy as np

from ._log import logger, solver_output
from ._validation import WIDE_HINT, check_choice, check_memory
from .certificate import DEFAULT_TOL, Certificate, _norm, _row_norms, certify
from .exceptions import NotSeparableError, ParameterError, SolverError
from .problem import SVMProblem
from .separation import _raise_not_separable, is_separable, separation_certificate
from .solution import ExactSolution
from .solvers import _DIRECT, _default_route, _direct_installed, _resolve_solver, available_solvers
from .solvers.clarabel import _run_clarabel
from .solvers.dcd import _DCD_EPS_UNPOLISHED, _DCD_REFINE_EPS, _dcd_eps, _run_dcd
from .solvers.ipm import _run_ipm
from .solvers.piqp import _run_piqp
from .solvers.polish import _polish
from .solvers.qp import _VECTORS_OF_D, _build_dual, _build_primal, _signed_Z, _wb_from_alpha
from .solvers.result import _Raw
from .solvers.scaling import _HUGE_LC, _scale_free_c, _scale_hint, _scaled_problem, _solver_scale
from .solvers.via_cvxpy import _run_cvxpy

__all__ = [
    "ExactSolution",
    "solve",
    "is_separable",
    "separation_certificate",
    "available_solvers",
    "FORMS",
]


FORMS = ("primal", "dual")


#: Set while _solve_rescaled runs its inner solves (which must not rescale again).
_INNER: contextvars.ContextVar[bool] = contextvars.ContextVar("maxmargin_inner_solve",
                                                              default=False)


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


def _cert_trouble(cert: Certificate) -> str:
    """What is wrong with a certificate that is not ok, in a few words."""
    if cert.undecided:
        return f"undecided: {cert.undecided}"
    k, v = cert.worst()
    return f"relative gap {cert.relative_gap:.2e}, worst KKT residual {k} = {v:.2e}"


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
