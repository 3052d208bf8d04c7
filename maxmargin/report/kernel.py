"""The report folder of a :class:`~maxmargin.evaluation.KernelComparison` (``docs/kernels.md``)."""

from __future__ import annotations

from typing import Any

from ..conventions import STATISTIC
from ..evaluation.kernel_scoring import KernelComparison
from ..io.tables import Column, Table, markdown

__all__ = ["KERNEL_COMPARISON", "CHECKPOINTS", "report_markdown"]

#: The learners' table: the final checkpoint, median [min, max] over seeds.
KERNEL_COMPARISON = Table(
    lambda cmp: cmp.rows,
    [
        Column("learner", "learner"),
        Column("seeds", "seeds", "d"),
        Column("steps", "steps", "d"),
        Column("suboptimality", "P - P*", ".3g", latex=r"$P - P^\star$", spread=True),
        Column("distance", "||f - f*||_H", ".3g", latex=r"$\|f - f^\star\|_H$", spread=True),
        Column("regret", "regret", ".3g", spread=True),
        Column("mistakes", "mistakes", "g", spread=True),
        Column("novikoff", "Novikoff (R/gamma)^2", ".4g", latex=r"$(R/\gamma)^2$"),
    ],
)

#: The keys of a score's series, in ``checkpoints.csv`` and ``report.json``.
SERIES = (
    "t",
    "objective",
    "suboptimality",
    "distance",
    "distance_low",
    "distance_high",
    "regret",
    "mistakes",
)


def _checkpoint_rows(cmp: KernelComparison) -> list[dict[str, Any]]:
    return [
        {"learner": s.learner, "seed": s.seed, **{k: getattr(s, k)[j] for k in SERIES}}
        for s in cmp.scores
        for j in range(len(s.t))
    ]


#: ``checkpoints.csv``: one row per learner, seed and checkpoint.
CHECKPOINTS = Table(
    _checkpoint_rows,
    [Column("learner", "learner"), Column("seed", "seed", "d")]
    + [Column(k, k, ".6g") for k in SERIES],
)


def _words(cmp: KernelComparison) -> str:
    """The kernel with its parameters, resolved."""
    k = cmp.problem.to_dict()["kernel"]  # as the file writes it: gamma resolved
    params = ", ".join(f"{n} = {v:.6g}" for n, v in k.items() if n != "name" and v is not None)
    return f"{k['name']} kernel" + (f" ({params})" if params else "")


def report_markdown(cmp: KernelComparison) -> str:
    """``report.md``'s text: the certified reference, the learners' table, Novikoff."""
    p, sol = cmp.problem, cmp.optimum
    cert = sol.certificate
    verdict = "certified" if cert.ok else "NOT certified"
    if cert.undecided:
        verdict += f" (undecided: {cert.undecided})"
    if cmp.novikoff is None:
        nov = (
            "- Novikoff: does not apply (the kernel does not separate the data, or n is "
            "above the dense route's limit)."
        )
    else:
        nov = (
            f"- Novikoff: R = {cmp.radius:.6g}, exact kernel margin gamma = "
            f"{cmp.margin:.6g} (the hard-margin SVM on (phi(x), s), certified), "
            f"(R/gamma)^2 = {cmp.novikoff:.6g}: the mistake-driven learners' bound."
        )
    lines = [
        f"# {p.data.name}: kernel learners against the exact kernel SVM",
        "",
        f"Problem: {_words(cmp)}, C = {p.C:.6g} (lambda = 1/(C n) = {1.0 / (p.C * p.n):.6g}), "
        f"intercept `{p.intercept}`, n = {p.n}, d = {p.data.d}; seeds "
        f"{', '.join(map(str, cmp.seeds))}.",
        "",
        "## Reference (the kernel SVM, solved exactly)",
        "",
        f"- P* = {cmp.objective:.12g}, duality gap {cert.duality_gap:.2e}, relative "
        f"{cert.relative_gap:.2e}, worst KKT residual {cert.worst()[0]} = "
        f"{cert.worst()[1]:.2e} (tol {cert.tol:.0e}): {verdict}; route {sol.route}.",
        f"- Support vectors {len(sol.support)} (free {len(sol.free_support)}, bound "
        f"{len(sol.bound_support)}), b = {sol.b:.12g}; the computed f* is within "
        f"sqrt(2 gap) = {cmp.optimum_radius:.3g} of the true optimum in ||.||_H.",
        nov,
        "",
        f"## Learners (final checkpoint, {STATISTIC})",
        "",
        markdown(KERNEL_COMPARISON, cmp).rstrip("\n"),
        "",
        "`P - P*`: the primal P(f_t) = 1/2 c'Kc + sum_i C_i max(0, 1 - y_i f_t(x_i)) "
        "(c = a y) above the optimum's; `||f - f*||_H`: the RKHS distance computed "
        "through K (the bias apart; its rounding interval is in checkpoints.csv); "
        "`regret`: against f* along the schedule, with l_s(f) = lam/2 ||f||_H^2 + hinge; "
        "`mistakes`: online mistakes so far; `Novikoff`: (R/gamma)^2 for the "
        "mistake-driven learners, N/A for the others. How to recompute every number: "
        "docs/kernels.md in the maxmargin repository.",
        "",
    ]
    for row in cmp.rows:
        if row["novikoff"] is not None:
            worst = row["mistakes_range"][1]
            ok = "respected" if worst <= row["novikoff"] else "VIOLATED"
            lines.append(
                f"Novikoff for {row['learner']}: at most {worst:g} mistakes over the seeds, "
                f"bound {row['novikoff']:.6g}: {ok}."
            )
    return "\n".join(lines) + "\n"
