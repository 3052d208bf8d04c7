"""The main table of each report (``table.tex``), declared once (:class:`~maxmargin.io.Table`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..evaluation.comparison import Comparison
from ..evaluation.path.exact import ExactPath
from ..evaluation.scoring import _COLUMNS
from ..io.tables import Column, Table

if TYPE_CHECKING:
    from ..testing.report import CheckReport

__all__ = ["COMPARISON", "EXACT_PATH", "CHECK"]

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
