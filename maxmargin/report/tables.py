"""Every table of the reports, declared once (:class:`~maxmargin.io.Table`): markdown, table.tex."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..evaluation.comparison import Comparison
from ..evaluation.path.exact import ExactPath
from ..evaluation.path.grid import RegularizationPath
from ..evaluation.path.learners import LearnerPathStudy
from ..evaluation.scoring import _COLUMNS
from ..io.tables import Column, Table

if TYPE_CHECKING:
    from ..testing.report import CheckReport

__all__ = [
    "COMPARISON",
    "GRID_PATH",
    "EXACT_PATH",
    "LEARNERS_SUBOPT",
    "LEARNERS_EPOCHS",
    "CHECK",
    "NOT_CHECKED",
]

#: LaTeX headers where the markdown one is plain text.
_MATH = {
    "subopt": r"$F - F^\star$",
    "subopt_avg": r"$F(\bar w) - F^\star$",
    "mistake_bound": "bound",
}


def _comparison_columns(cmp: Comparison) -> list[Column]:
    # A number over seeds is a spread cell: its row holds "<key>_range" ([min, max]).
    columns = [
        Column(
            key,
            header,
            "" if fmt == "s" else fmt,
            latex=_MATH.get(key),
            spread=fmt not in ("s", "d"),
        )
        for key, header, fmt in _COLUMNS
    ]
    # rows scored against different problems (one per intercept mode) say which, per
    # row, as the markdown table does
    if len({row.get("intercept") for row in cmp.rows}) > 1:
        columns.insert(2, Column("scored", "scored against"))
    return columns


def _comparison_rows(cmp: Comparison) -> Iterator[dict[str, Any]]:
    for row in cmp.rows:
        yield {**row, "scored": f"intercept {row['intercept']}"} if "intercept" in row else row


#: A comparison's learners: the final checkpoint, median [min, max] over seeds.
COMPARISON = Table(_comparison_rows, _comparison_columns)


def _grid_columns(p: RegularizationPath) -> list[Column]:
    hold = not np.isnan(p.holdout_error).all()
    return [
        Column("C", "C", ".4g"),
        Column("lam", "lambda", ".4g", latex=r"$\lambda$"),
        Column("norm_w", "||w||", ".6g", latex=r"$\|w\|$"),
        Column("width", "width 2/||w||", ".6g", latex=r"width $2/\|w\|$"),
        Column("n_margin_sv", "margin SV", "d"),
        Column("n_bound_sv", "bound SV", "d"),
        Column("train_error", "train err", ".4f"),
        *([Column("holdout_error", "holdout err", ".4f")] if hold else []),
        Column("slack_sum", "sum xi", ".6g", latex=r"$\sum \xi$"),
        Column("primal", "primal", ".10g"),
        Column("relative_gap", "rel gap", ".1e"),
        Column("max_kkt", "max KKT", ".1e"),
        Column("method", "method"),
    ]


#: A grid path's points (the rows of ``grid.csv``, the columns its report shows).
GRID_PATH = Table(RegularizationPath.TABLE.rows, _grid_columns)


def _breakpoint_rows(ep: ExactPath) -> Iterator[dict[str, Any]]:
    for j in range(len(ep)):
        yield {
            "k": j,
            "C": float(ep.breakpoints[j]),
            "lam": float(ep.lam[j]),
            "events": ", ".join(f"{i}: {f}->{t}" for i, f, t in ep.events_at(j)),
            "E": int(ep.n_elbow[j + 1]),
            "L": int(ep.n_left[j + 1]),
            "R": int(ep.n_right[j + 1]),
            "method": str(ep.method[j]),
            "max_residual": float(ep.max_residual[j]),
        }


#: An exact path's breakpoints (every one; the markdown report elides a long path's).
EXACT_PATH = Table(
    _breakpoint_rows,
    [
        Column("k", "k", "d"),
        Column("C", "C", ".6g"),
        Column("lam", "lambda", ".4g", latex=r"$\lambda$"),
        Column("events", "events"),
        Column("E", "E", "d", latex=r"$|E|$"),
        Column("L", "L", "d", latex=r"$|L|$"),
        Column("R", "R", "d", latex=r"$|R|$"),
        Column("method", "method"),
        Column("max_residual", "max residual", ".1e"),
    ],
)


def _learners(fmt: str) -> Table:
    """A row per lambda, a column per learner: ``result`` is (study, values of shape (L, k))."""

    def rows(sv: tuple[LearnerPathStudy, np.ndarray]) -> Iterator[dict[str, Any]]:
        for i, lam in enumerate(sv[0].lam):
            yield {"lam": lam, **{str(j): v for j, v in enumerate(sv[1][:, i])}}

    def columns(sv: tuple[LearnerPathStudy, np.ndarray]) -> list[Column]:
        named = [Column(str(j), name, fmt) for j, name in enumerate(sv[0].learners)]
        return [Column("lam", "lambda", ".3g", latex=r"$\lambda$"), *named]

    return Table(rows, columns)


#: The learners along a path: relative suboptimality after the budget; epochs to each eps.
LEARNERS_SUBOPT, LEARNERS_EPOCHS = _learners(".2e"), _learners(".3g")


def _verdict_rows(rep: CheckReport) -> Iterator[dict[str, Any]]:
    order = {"FAIL": 0, "INCONCLUSIVE": 1, "PASS": 2}
    for v in sorted(rep.verdicts, key=lambda v: order[v.outcome]):
        yield {
            "verdict": v.outcome,
            "claim": v.claim + (" [constant]" if v.check == "constant" else ""),
            "problem": v.problem,
            "seconds": v.seconds,
            "evidence": v.reason,
        }


#: A check's verdicts, failures first (the table of ``maxmargin check``).
CHECK = Table(
    _verdict_rows,
    [
        Column("verdict", "verdict"),
        Column("claim", "claim"),
        Column("problem", "problem"),
        Column("seconds", "time (s)", ".2g"),
        Column("evidence", "evidence"),
    ],
)

#: What a check could not judge, and why.
NOT_CHECKED = Table(
    lambda rep: (
        dict(zip(("claim", "problems", "why"), row, strict=True)) for row in rep.not_checked
    ),
    [Column("claim", "claim"), Column("problems", "problems"), Column("why", "why")],
)
