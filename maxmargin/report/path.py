"""The path results in words: the markdown reports of a grid path, an exact path, learners."""

from __future__ import annotations

import math

import numpy as np

from ..evaluation.path.exact import ExactPath
from ..evaluation.path.grid import RegularizationPath
from ..evaluation.path.learners import LearnerPathStudy
from ..exceptions import ParameterError
from ..io import tables
from .tables import EXACT_PATH, GRID_PATH, LEARNERS_EPOCHS, LEARNERS_SUBOPT

__all__ = ["markdown", "grid_path_markdown", "exact_path_markdown", "learners_markdown"]


def markdown(result: RegularizationPath | ExactPath | LearnerPathStudy, max_rows: int = 200) -> str:
    """The markdown report of a path result: a grid path, an exact path, learners along one."""
    if isinstance(result, RegularizationPath):
        return grid_path_markdown(result)
    if isinstance(result, ExactPath):
        return exact_path_markdown(result, max_rows)
    if isinstance(result, LearnerPathStudy):
        return learners_markdown(result)
    raise ParameterError(
        "markdown needs a RegularizationPath, an ExactPath or a LearnerPathStudy, got "
        f"{type(result).__name__}"
    )


def grid_path_markdown(p: RegularizationPath) -> str:
    """A grid path's report: summary, limits, one table row per grid point."""
    L = [
        f"# Regularization path: {p.data_name} (n={p.n}, d={p.d}, intercept={p.intercept})",
        "",
    ]
    if p.loss == "squared_hinge":
        L.append(
            "- loss: the squared hinge, C sum_i xi_i^2 (the L2-loss SVM, LinearSVC's "
            "default); C_0 and the hard-margin limit are the hinge's: not computed"
        )
    ok = sum(c.ok for c in p.certificates)
    L.append(
        f"- {len(p)} grid points, C from {p.C[0]:.4g} to {p.C[-1]:.4g} "
        f"(lambda = 1/(C n) from {p.lam[0]:.4g} to {p.lam[-1]:.4g})"
    )
    und = sum(c.undecided is not None for c in p.certificates)
    L.append(
        f"- certified: {ok}/{len(p)} points (worst relative gap "
        f"{np.abs(p.relative_gap).max():.1e}, worst scaled KKT residual "
        f"{p.max_kkt.max():.1e})"
        + (f"; {und} not certified because double precision cannot decide them" if und else "")
    )
    words = {
        "warm": "warm-started on a working set (no full QP)",
        "newton": "by Newton steps from the previous point (no full QP)",
        "qp": f"solved by {p.solver} (maxmargin.solve's route)",
        "dpp": f"by the DPP-compiled cvxpy model ({p.solver}, compiled once in "
        f"{p.compile_seconds:.2f} s)",
    }
    how = [f"{n} {words[m]}" for m in words if (n := sum(x == m for x in p.method))]
    L.append(f"- points: {', '.join(how)}; path {p.total_seconds:.2f} s")
    c0 = p.min_margin_sv_C
    if not math.isnan(c0):
        L.append(
            f"- smallest C with a margin SV (analytical): C_0 = {c0:.6g}"
            + (" (margin SVs for every C > 0)" if c0 == 0 else "")
            + (": below it every example is a bound SV" if 0 < c0 < math.inf else "")
        )
    h = p.hard_margin_limit
    if h is not None:
        if not h.separable:
            L.append(
                "- hard-margin limit: the data are not separable (LP); the path "
                "never reaches a zero-slack solution"
            )
        elif h.failure is not None:
            L.append(f"- hard-margin limit: separable (LP), C* not determined: {h.failure}")
        else:
            L.append(
                f"- hard-margin limit: separable, hard margin 1/||w~|| = "
                f"{h.margin:.6g}; the soft optimum equals the hard one for every "
                f"C >= C* = {h.C_star:.6g} (max alpha_hard = "
                f"{h.max_alpha_hard:.6g})"
            )
            L.append(
                f"- last point C = {h.last_C:.4g}: relative distance to the hard "
                f"solution {h.last_rel_diff:.1e} -> "
                f"{'equal' if h.last_equal else 'not equal'}"
                + (
                    ""
                    if h.last_C >= h.C_star
                    else f" (the grid stops below C*; extend it past {h.C_star:.3g})"
                )
            )
    L += ["", tables.markdown(GRID_PATH, p)]  # the rows and columns of table.tex
    return "\n".join(L) + "\n"


def exact_path_markdown(ep: ExactPath, max_rows: int = 200) -> str:
    """An exact path's report: summary, then at most ``max_rows`` breakpoints and events."""
    K = len(ep)
    L = [
        f"# Exact regularization path: {ep.data_name} (n={ep.n}, d={ep.d}, "
        f"intercept={ep.intercept})",
        "",
    ]
    ok = int(ep.certificates.ok.sum())
    L.append(
        f"- {K} breakpoints, {ep.n_segments} affine segments in C; every "
        "set change (E = margin SVs, L = alpha at C, R = alpha at 0) listed below"
    )
    worst = float(ep.max_residual.max()) if K else 0.0
    L.append(
        f"- certified: {ok}/{K} breakpoints (numpy certificate at tol "
        f"{ep.tol:.0e}; worst residual {worst:.1e})"
    )
    n_solve = sum(m == "solve" for m in ep.method)
    L.append(
        f"- {n_solve} breakpoints settled by a fresh certified solve (degenerate "
        f"events); {ep.n_solves} solves in all; {ep.n_merged} exact duplicates "
        f"merged; {ep.seconds:.2f} s"
    )
    if ep.bounds[0] > 0:
        L.append(
            f"- starts at C_min = {ep.bounds[0]:.6g}, from the active sets of a "
            "fresh certified solve"
            + (
                f"; first margin SV at C_0 = {ep.min_margin_sv_C:.6g}"
                if math.isfinite(ep.min_margin_sv_C)
                else ""
            )
        )
    elif ep.min_margin_sv_C > 0:
        L.append(
            f"- first margin SV at C_0 = {ep.min_margin_sv_C:.6g}: below it "
            "every example is at its bound"
        )
    else:
        L.append("- margin SVs for every C > 0 (C_0 = 0: free intercept, unequal classes)")
    if ep.end_reason == "end":
        if ep.separable:
            L.append(
                f"- separable: the solution is the hard-margin one for every "
                f"C >= C* = {ep.C_star:.6g} (last breakpoint)"
            )
        else:
            L.append(
                "- complete: after the last breakpoint the sets never change "
                "(the last segment is exact for every larger C)"
            )
    elif ep.end_reason == "C_max":
        L.append(
            f"- stopped at C_max = {ep.C_end:.6g}"
            + (" (separable: C* lies beyond)" if ep.separable else " (not separable)")
        )
    else:
        beyond = (
            f"separable: the hard-margin solution holds from C* = {ep.C_star:.6g} on "
            "(hard_margin_limit, a certified solve); the stretch in between is not traced"
            if ep.separable and ep.C_star_failure is None
            else f"separable, C* not determined: {ep.C_star_failure}"
            if ep.separable
            else "not separable"
        )
        why = (
            "the next breakpoint's certificate cannot be decided in double precision, "
            "and fresh solves could not settle it"
            if ep.end_reason == "precision"
            else "neither the event rule nor fresh solves could settle the next "
            "breakpoint (an ill-conditioned elbow system)"
        )
        L.append(
            f"- stopped at C = {ep.C_end:.6g}: {why} ({beyond}); rescaling the "
            "features to comparable ranges (e.g. standardising them) gets further"
        )
    table = tables.markdown(EXACT_PATH, ep).splitlines()  # the rows of table.tex
    head, rows = table[:2], table[2:]
    if K > max_rows:
        more = f"| ... | | | {K - 2 * (max_rows // 2)} more (see breakpoints.csv) | | | | | |"
        rows = rows[: max_rows // 2] + [more] + rows[K - max_rows // 2 :]
    L += ["", *head, *rows]
    return "\n".join(L) + "\n"


def learners_markdown(study: LearnerPathStudy) -> str:
    """Tables of the learners along a path: final relative suboptimality, epochs to each eps."""
    L = [
        f"## Learners along the path ({study.epochs} epochs, order {study.order}, "
        f"seed {study.seed})",
        "",
        f"Every run is scored against {study.scored_against}.",
        "",
        "Relative suboptimality `(F(w_T) - F*) / F*` after the budget:",
        "",
        tables.markdown(LEARNERS_SUBOPT, (study, study.final_rel_subopt)),
    ]
    for q, e in enumerate(study.eps):
        L += [
            "",
            f"Epochs to reach relative suboptimality {e:g} (inf: not within the budget):",
            "",
            tables.markdown(LEARNERS_EPOCHS, (study, study.epochs_to_eps[q])),
        ]
    return "\n".join(L) + "\n"
