"""The comparison's report in words: the reference, the learners' table, the notes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..conventions import STATISTIC
from ..evaluation.comparison import Comparison
from ..evaluation.reference import Reference
from ..exceptions import MaxMarginError
from ..io import tables
from ..problem import SVMProblem
from .tables import COMPARISON

__all__ = ["markdown"]


def _rate_iterates(rows: Sequence[dict]) -> str:
    """Which iterate each row's rate was fitted on, e.g. ``"pegasos: average"``."""
    fitted = [f"{r['label']}: {r['rate_iterate']}" for r in rows if r.get("rate_iterate")]
    return "; ".join(fitted) or "no rate was fitted"


def _space_note(problem: SVMProblem) -> str:
    """How the scores relate to the learners' space, for a free intercept."""
    if problem.intercept != "free":
        return ""
    return (
        " The learners update their bias b = s w~_(d+1) without shrinking it; F, its "
        "gaps and the errors are of (w, b), distance, cosine and margin of w; the "
        "mistake bounds live in the learners' space z = (x, s), s = "
        f"{problem.intercept_scaling:g}, with u = (w*, b*/s)."
    )


def _budget(cmp: Comparison) -> str:
    """The learners' epochs, orders and seeds, in words (none when only traces ran)."""
    traces = sum(r.order == "external" for r in cmp.runs)
    if traces == len(cmp.runs):
        return f"{traces} trace(s) from elsewhere, no learner run"
    return (
        f"{cmp.epochs} epoch(s), orders {', '.join(cmp.orders)}, seeds "
        f"{', '.join(map(str, cmp.seeds))}"
        + (f"; and {traces} trace(s) from elsewhere" if traces else "")
    )


def _scored_against(cmp: Comparison, p: SVMProblem) -> list[str]:
    """What the rows are scored against: the one problem, or each run's own (by intercept)."""
    if len(cmp.references) == 1:
        return [
            f"Every learner and trace below is scored against this problem: "
            f"{cmp.references[0].scored_against}." + _space_note(p),
            "",
        ]
    lines = [
        f"Each learner and trace below is scored against the problem of its own intercept "
        f"(the `scored against` column; a learner that cannot take `{p.intercept}` runs "
        "with the intercept it supports), each with its own certified optimum, so that "
        "F - F* is always against the run's own F*:",
        "",
    ]
    lines += [f"- `intercept {ref.intercept}`: {ref.scored_against}." for ref in cmp.references]
    note = "".join(_space_note(ref.problem) for ref in cmp.references).strip()
    return [*lines, "", *([note, ""] if note else [])]


def _reference(ref: Reference, title: str) -> list[str]:
    """The section on one certified reference: the optimum, its certificate, R, gamma*."""
    p, sol = ref.problem, ref.solution
    cert = sol.certificate
    lines = [
        f"## {title}",
        "",
        f"- F* = {ref.F_star:.12g} (lambda form; P* = {sol.primal_objective:.12g}), "
        f"duality gap {sol.duality_gap:.2e}, relative {cert.relative_gap:.2e}, worst KKT "
        f"residual {cert.worst()[0]} = {cert.worst()[1]:.2e} (tol {cert.tol:.0e}): "
        f"{'certified' if cert.ok else 'NOT certified'}"
        + (f" (undecided: {cert.undecided})" if cert.undecided else "")
        + f"; solver {sol.solver}.",
        f"- ||{'w' if p.intercept == 'free' else 'w~'}*|| = "
        f"{np.linalg.norm(ref.w_star):.6g}, support vectors "
        f"{len(sol.support)} ({sol.support_kinds}), training error {sol.training_error:.4f}.",
        f"- R = max ||z_i|| = {ref.R:.6g} (in the learners' space).",
    ]
    if ref.separable:
        where = " in the learners' space, of (w_h, b_h/s)" if p.intercept == "free" else ""
        lines.append(
            f"- Separable: gamma* = {ref.gamma:.6g} (certified hard margin"
            f"{where}), Novikoff bound (R/gamma*)^2 = {ref.novikoff:.6g}."
        )
    else:
        lines.append(
            "- Not separable (intercept "
            f"`{p.intercept}`): Novikoff does not apply; the perceptron family "
            "is held to the general bound (the hinge of u = w~* summed along "
            "the run), at the best scale of u."
        )
    return lines


def _verdicts(cmp: Comparison) -> list[str]:
    """Each learner's declared claims judged on the comparison's runs, as a table."""
    if any(r.trace is None for r in cmp.runs):
        return [
            "Verdicts on the learners' claims: not judged (a comparison read from its file "
            "has no traces; `maxmargin check` judges a learner on its own battery).",
            "",
        ]
    from ..testing import comparison_verdicts  # the verdicts' rules: imported when drawn

    try:
        reports = comparison_verdicts(cmp)
    except MaxMarginError as e:
        return [f"Verdicts on the learners' claims: not judged ({e}).", ""]
    mixed = len(cmp.references) > 1  # say which problem each learner is judged on
    lines = [
        "## Verdicts on the learners' claims",
        "",
        "| learner | "
        + ("scored against | " if mixed else "")
        + "verdict | PASS | FAIL | INCONCLUSIVE | evidence |",
        "|---|---|---|---|---|---|" + ("---|" if mixed else ""),
    ]
    for label, rep in reports.items():
        against = f"intercept {cmp.select(label=label)[0].intercept} | " if mixed else ""
        n = rep.counts()
        first = rep.failures or rep.inconclusive or rep.verdicts
        if first:
            evidence = f"{first[0].claim} ({first[0].problem}): {first[0].reason}"
        elif rep.not_checked:
            evidence = f"{rep.not_checked[0][0]}: {rep.not_checked[0][2]}"
        else:
            evidence = "it declares no claim"
        lines.append(
            f"| {label} | {against}{rep.outcome} | {n.get('PASS', 0)} | {n.get('FAIL', 0)} | "
            f"{n.get('INCONCLUSIVE', 0)} | {evidence.replace('|', '/')} |"
        )
    lines += [
        "",
        "The claims each learner declares (docs/validating.md), judged on these runs: "
        "`maxmargin check LEARNER` judges them on a whole battery of certified problems.",
        "",
    ]
    return lines


def markdown(cmp: Comparison) -> str:
    """A Markdown report: the reference, one row per learner x order, the notes."""
    p = cmp.problem
    others = [f"`{ref.intercept}`" for ref in cmp.references[1:]]
    lines = [
        f"# {p.data_name}: online learners against the exact optimum",
        "",
        f"Problem: soft margin, C = {p.C:.6g} (lambda = {p.lam:.6g})"
        + (
            ""
            if p.weights is None
            else ", weighted (C_i = C s_i; the learners' steps take the weights)"
        )
        + f", intercept `{p.intercept}`"
        + (f" (and {' and '.join(others)} for the runs with another intercept)" if others else "")
        + f", n = {p.n}, d = {p.d}; "
        + _budget(cmp)
        + (f"; holdout {cmp.holdout_name}" if cmp.holdout_name is not None else "")
        + ".",
        "",
        *_scored_against(cmp, p),
    ]
    for ref in cmp.references:
        title = f"Reference, intercept `{ref.intercept}` (certified)" if others else None
        lines += [*_reference(ref, title or "Reference (certified)"), ""]
    lines.pop()
    lines += ["", f"## Learners (final checkpoint, {STATISTIC})", ""]
    lines.append(tables.markdown(COMPARISON, cmp))  # the rows and columns of table.tex
    lines += [
        "",
        "N/A: the quantity does not apply to that learner. Objective gaps, distance "
        "and the rate are for learners that minimise this lambda objective (Pegasos, "
        "subgradient); mistake bounds for the perceptron family; Winnow is scored on "
        "mistakes and error only. `F - F*` is the last iterate, `F(avg) - F*` the "
        "average of the iterates; `rate` is the fitted slope of log(F - F*) against "
        "log t for t >= sqrt(T), on the average of the iterates when the learner "
        "keeps one, otherwise on the last iterate (" + _rate_iterates(cmp.rows) + "); "
        "`dist` is ||w~_t - w~*|| / ||w~*||; `dual gap` is F(w_t) - lambda D(clip(a_t)) "
        ">= F(w_t) - F*; `bound` is the tightest mistake bound that applies: "
        "Novikoff's (R/gamma*)^2 when separable, the general bound for c u (u = w~*, "
        "hinge over every round) at the best c, or the same theorem with the hinge over "
        "the mistake rounds at c = 1; `ok` says whether every checkpoint of every seed "
        "respected every one of them (docs/compare.md, section 6). `margin` is the "
        "geometric margin the iterate attains, min_i y_i w~_t.z_i / ||w~_t||.",
        "",
    ]
    for row in cmp.rows:
        if row.get("mistake_bound_kind"):
            kinds = {
                "novikoff": "Novikoff",
                "general_bound_best": "general, best scale",
                "mistake_rounds_bound": "mistake rounds, c = 1",
                "general_bound": "general, textbook",
            }
            extra = (
                ""
                if row.get("general_bound") is None
                else f"; the textbook L + R||u|| sqrt(L) + R^2||u||^2 says "
                f"{row['general_bound']:.6g}"
            )
            lines.append(
                f"Mistake bound of {row['label']} ({row['order']}): "
                f"{row['mistake_bound']:.6g} "
                f"({kinds[row['mistake_bound_kind']]}){extra}."
            )
    na: dict[tuple[str, str], str] = {}
    for r in cmp.runs:
        for k, why in r.not_available.items():
            na.setdefault((r.label, k), why)
    if na:
        lines.append("")
        lines += [f"N/A for {label}: {k}: {why}." for (label, k), why in na.items()]
    if any(r.get("mistake_bound_kind") for r in cmp.rows) or na:
        lines.append("")
    for r in cmp.rows:
        if r.get("diverged"):
            # a learner's run diverged; weights from elsewhere are only not finite
            what = "NOT FINITE" if r["order"] == "external" else "DIVERGED"
            lines.append(
                f"**{what}** {r['label']} ({r['order']}): {r['diverged']}. Its "
                "scores stop at the last finite checkpoint (the final values "
                "are N/A); the figures show the finite part."
            )
            lines.append("")
    reg = [r for r in cmp.rows if r.get("regret_bound_respected") is not None]
    if reg:
        lines.append(
            "Pegasos regret bound G^2 (1 + ln t)/(2 lambda): "
            + ", ".join(
                f"{r['label']}/{r['order']}: "
                f"{'respected' if r['regret_bound_respected'] else 'VIOLATED'}"
                for r in reg
            )
            + "."
        )
        lines.append("")
    lines += _verdicts(cmp)
    tm = cmp.timings
    lines.append(
        f"Time: exact solve {tm.get('solve_seconds', 0):.3f} s, learning "
        f"{tm.get('learn_seconds', 0):.3f} s, evaluation against the optimum "
        f"{tm.get('eval_seconds', 0):.3f} s, total {tm.get('total_seconds', 0):.3f} s."
    )
    return "\n".join(lines) + "\n"
