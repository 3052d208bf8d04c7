"""``maxmargin solve``: the exact hard/soft-margin SVM with its certificate."""

from __future__ import annotations

import argparse

import numpy as np

from ..exceptions import NotSeparableError
from ..io.files import display
from ..io.json import format_header
from .options import (
    _add_data_args,
    _add_intercept_arg,
    _add_json_arg,
    _add_option,
    _add_penalty_args,
    _add_verbosity,
    _add_weight_args,
    _command,
    _load_data,
    _outputs,
    _Parser,
    _problem,
    _write_json,
)


def add(sub: argparse._SubParsersAction[_Parser]) -> None:
    """The ``solve`` command and its options."""
    p = _command(
        sub,
        "solve",
        "exact hard/soft-margin SVM with a certificate",
        "maxmargin solve builtin:heart_scale --C 0.5 --json solution.json",
        "cat train.csv | maxmargin solve - --label y --json - > solution.json",
    )
    _add_data_args(p)
    _add_penalty_args(p)
    _add_intercept_arg(p)
    _add_weight_args(p)
    p.add_argument(
        "--form",
        choices=("primal", "dual", "both"),
        default="dual",
        help="the QP the solver sees; both: solve each and say how far apart the answers are",
    )
    _add_option(
        p,
        "--solver",
        help="IPM, DCD (sparse high-dimensional data), PIQP, CLARABEL or a cvxpy "
        "QP solver (default: picked by measurement, see docs/benchmarks.md)",
    )
    _add_json_arg(p, "the result as JSON")
    p.add_argument(
        "--liblinear-model",
        dest="liblinear_model",
        metavar="FILE",
        default=None,
        help="write the solution as a LIBLINEAR model file, for LIBLINEAR's "
        "predict (integer labels; default: not written)",
    )
    _add_verbosity(p, "no summary on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Solve, print the summary, write what was asked; the exit code."""
    from ..exact import solve

    if args.liblinear_model == "-":
        from ..exceptions import ParameterError

        raise ParameterError(
            "--liblinear-model needs a file name (LIBLINEAR's predict reads a file)"
        )
    _outputs(args)
    data = _load_data(args)
    problem = _problem(args, data)
    if args.liblinear_model is not None:  # labels LIBLINEAR cannot store: say so now
        from ..liblinear_model import liblinear_labels

        liblinear_labels(data, "--liblinear-model")
    forms = ("primal", "dual") if args.form == "both" else (args.form,)
    try:
        solutions = [solve(problem, form=f, solver=args.solver) for f in forms]
    except NotSeparableError as e:
        cert = e.certificate
        payload = {
            **format_header("not_separable"),
            "separable": False,
            "message": str(e),
            "certificate": cert.to_dict() if cert is not None else None,
        }
        _write_json(payload, args.json)
        if args.json != "-":
            print(f"not separable: {e}")
        return 1
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
    _write_json(payload, args.json)
    if args.liblinear_model is not None:
        from ..liblinear_model import write_liblinear_model

        model = write_liblinear_model(main_sol, args.liblinear_model)
        if args.json != "-" and not args.quiet:
            print(f"wrote {display(model)} (LIBLINEAR model: predict TEST {display(model)} OUT)")
    return 0 if all(s.certificate.ok for s in solutions) else 1
