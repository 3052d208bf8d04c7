"""``maxmargin solve``: the exact hard/soft-margin SVM with its certificate."""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from .._validation import check_positive, reciprocal_form
from ..exceptions import NotSeparableError, ParameterError
from ..io.files import display
from ..io.json import format_header
from ..kernel_certificate import decision_values
from ..solvers.kernel import DENSE_MAX, KernelSolution, solve_kernel_dual
from . import options as opt

#: The dense route's interior-point solvers (``--solver`` with ``--kernel``).
KERNEL_SOLVERS = ("piqp", "clarabel")


def add(sub: argparse._SubParsersAction[opt._Parser]) -> None:
    """The ``solve`` command and its options."""
    p = opt._command(
        sub,
        "solve",
        "exact hard/soft-margin SVM with a certificate",
        "maxmargin solve builtin:heart_scale --C 0.5 --json solution.json",
        "cat train.csv | maxmargin solve - --label y --json - > solution.json",
    )
    opt._add_data_args(p)
    opt._add_penalty_args(p)
    opt._add_intercept_arg(p)
    opt._add_weight_args(p)
    opt._add_loss_arg(p, "linear only")
    p.add_argument(
        "--form",
        choices=("primal", "dual", "both"),
        default="dual",
        help="the QP the solver sees; both: solve each and say how far apart the answers are",
    )
    opt._add_option(
        p,
        "--solver",
        help="IPM, DCD (sparse high-dimensional data), PIQP, CLARABEL or a cvxpy "
        "QP solver (default: picked by measurement, see docs/benchmarks.md)",
    )
    opt._add_json_arg(p, "the result as JSON")
    p.add_argument(
        "--liblinear-model",
        dest="liblinear_model",
        metavar="FILE",
        help="write the solution as a LIBLINEAR model file, for LIBLINEAR's "
        "predict (integer labels; default: not written)",
    )
    opt._add_kernel_args(
        p,
        "solve the kernel dual with this kernel (intercept free or none; default: the "
        "linear solve, without a kernel)",
    )
    opt._add_verbosity(p, "no summary on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Solve, print the summary, write what was asked; the exit code."""
    from ..exact import solve

    if args.kernel is not None or opt._kernel_options(args):
        return run_kernel(args)
    if args.liblinear_model == "-":
        from ..exceptions import ParameterError

        raise ParameterError(
            "--liblinear-model needs a file name (LIBLINEAR's predict reads a file)"
        )
    opt._outputs(args)
    data = opt._load_data(args)
    problem = opt._problem(args, data)
    if args.liblinear_model is not None:  # labels LIBLINEAR cannot store: say so now
        from ..liblinear_model import liblinear_labels

        liblinear_labels(data, "--liblinear-model")
    forms = ("primal", "dual") if args.form == "both" else (args.form,)
    try:
        solutions = [solve(problem, form=f, solver=args.solver) for f in forms]
    except NotSeparableError as e:
        return _not_separable(e, args)
    main_sol = solutions[-1]
    if args.json != "-" and not args.quiet:
        for sol in solutions:
            print(sol.summary())
        if len(solutions) == 2:
            a, b = solutions
            diff = abs(a.primal_objective - b.primal_objective) / max(
                abs(a.primal_objective), np.finfo(float).tiny
            )
            print(
                f"primal vs dual form: relative objective difference {diff:.2e}, "
                f"||w_primal - w_dual|| = {np.linalg.norm(a.w - b.w):.2e}"
            )
    payload = main_sol.to_dict()
    if len(solutions) == 2:
        payload["forms"] = {s.form: s.to_dict() for s in solutions}
    opt._write_json(payload, args.json)
    if args.liblinear_model is not None:
        from ..liblinear_model import write_liblinear_model

        model = write_liblinear_model(main_sol, args.liblinear_model)
        if args.json != "-" and not args.quiet:
            print(f"wrote {display(model)} (LIBLINEAR model: predict TEST {display(model)} OUT)")
    return 0 if all(s.certificate.ok for s in solutions) else 1


def _not_separable(e: NotSeparableError, args: argparse.Namespace) -> int:
    """Say that the data are not separable (``--json``: with the certificate); exit code 1."""
    cert = e.certificate.to_dict() if e.certificate is not None else None
    head = format_header("not_separable")
    opt._write_json({**head, "separable": False, "message": str(e), "certificate": cert}, args.json)
    if args.json != "-":
        print(f"not separable: {e}")
    return 1


def _kernel_refusals(args: argparse.Namespace) -> str | None:
    """Why the options cannot solve a kernel SVM (None: they can); before any work."""
    refusal = opt._kernel_param_refusal(args, "the linear solve", "the linear solver's")
    if refusal is not None:
        return refusal
    if args.liblinear_model is not None:
        return "--liblinear-model writes a linear model; a kernel SVM has none (use --json)"
    if args.form != "dual":
        return f"--form {args.form}: a kernel SVM is solved in its dual form only"
    if args.solver is not None and args.solver.lower() not in KERNEL_SOLVERS:
        return (
            f"--solver {args.solver}: the kernel dual's solvers are "
            f"{', '.join(KERNEL_SOLVERS)} (its dense route; SMO above {DENSE_MAX} points)"
        )
    return None


def run_kernel(args: argparse.Namespace) -> int:
    """``solve --kernel``: the kernel dual, certified; the exit code."""
    from ..kernel_problem import KernelProblem

    refusal = _kernel_refusals(args)
    if refusal is not None:
        raise ParameterError(refusal)
    kernel = opt._kernel(args)
    opt._outputs(args)
    data = opt._load_data(args)
    kw: dict[str, Any] = {"intercept": args.intercept, **opt._weights(args, data)}
    if args.hard:
        kw["hard"] = True
    elif args.lam is not None:
        kw["C"] = reciprocal_form("lam", check_positive("lam", args.lam), data.n, "C")
    else:
        kw["C"] = 1.0 if args.C is None else args.C
    problem = KernelProblem(data, kernel, **kw)
    solver = "piqp" if args.solver is None else args.solver.lower()
    try:
        sol = solve_kernel_dual(problem, solver=solver)
    except NotSeparableError as e:
        return _not_separable(e, args)
    if args.json != "-" and not args.quiet:
        print(kernel_summary(sol))
    opt._write_json(sol.to_dict(), args.json)
    return 0 if sol.certificate.ok else 1


def _norm_f(sol: KernelSolution) -> float:
    """``||f||_H = sqrt(c' K c)``, ``c = alpha * y`` (0 without support vectors)."""
    c = sol.alpha * sol.problem.data.y
    q, _ = sol.problem.gram.matvec(c)
    return math.sqrt(max(float(c @ q), 0.0))


def _kernel_words(sol: KernelSolution) -> str:
    k, g = sol.problem.kernel, sol.problem.gram
    params = {
        "rbf": f"gamma={g.gamma:.6g}",
        "poly": f"gamma={g.gamma:.6g}, degree={k.degree}, coef0={k.coef0:g}",
        "sigmoid": f"gamma={g.gamma:.6g}, coef0={k.coef0:g}",
    }.get(k.name)
    return f"{k.name} kernel" + (f" ({params})" if params else "")


def kernel_summary(sol: KernelSolution) -> str:
    """What ``solve --kernel`` prints: the linear solve's summary, where it applies."""
    p, c = sol.problem, sol.certificate
    reg = "hard margin" if p.hard else f"C={p.C:.6g}"
    if p.weights is not None:
        reg += f", weighted (C_i = C s_i, s_i in [{p.weights.min():.4g}, {p.weights.max():.4g}])"
    fl = c.floors
    kkt = "\n".join(
        f"    {k:<22s}{v:.3e}   (rounding bound {fl.get(k, 0.0):.1e})" for k, v in c.kkt.items()
    )
    verdict = "CERTIFIED OPTIMAL" if c.ok else "NOT CERTIFIED"
    if c.undecided:
        verdict += f" (double precision cannot decide: {c.undecided})"
    rounding = f"; rounding bound {fl.get('relative_gap', 0.0):.1e}"
    if c.duality_gap < 0 and c.gap_at_rounding:
        rounding += ": the gap is negative by rounding only, i.e. zero"
    f, _ = decision_values(p, sol.alpha, sol.b)
    error = float(np.mean(p.data.y * f <= 0))
    norm = _norm_f(sol)
    margin = f"{1.0 / norm:.12g}" if norm > 0 else "inf"
    return "\n".join(
        [
            f"maxmargin exact solve: {p.data.name} (n={p.n}, d={p.data.d}), "
            f"{_kernel_words(sol)}, {reg}, intercept={p.intercept}",
            f"  solver            {sol.route}, dual form, status {sol.status}, "
            f"polished={sol.polished}, iterations {sol.iterations}",
            f"  primal objective  {c.primal_objective:.15g}",
            f"  dual objective    {c.dual_objective:.15g}",
            f"  duality gap       {c.duality_gap:.3e} (relative {c.relative_gap:.3e}{rounding})",
            "  KKT residuals (scaled; see docs/kernels.md)",
            kkt,
            f"  certificate       {verdict} at tol {c.tol:.0e} (worst: {c.worst()[0]})",
            f"  margin 1/||f||_H  {margin}",
            f"  b                 {sol.b:.12g}",
            f"  support vectors   {len(sol.support)} "
            f"(margin {len(sol.free_support)}, bound {len(sol.bound_support)})",
            f"  training error    {error:.4f}",
            f"  time              {sol.solve_seconds:.3f} s",
        ]
    )
