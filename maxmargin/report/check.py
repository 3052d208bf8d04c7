"""A check's report in words: the verdicts of :func:`~maxmargin.testing.check_learner`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..io import tables
from .tables import CHECK, NOT_CHECKED

if TYPE_CHECKING:
    from ..testing.report import CheckReport

__all__ = ["markdown"]


def markdown(rep: CheckReport) -> str:
    """The verdict table in markdown (failures first), then what was not checked."""
    lines = [f"**{rep.summary()}**", "", tables.markdown(CHECK, rep)]
    if rep.not_checked:
        lines += ["", "Not checked:", "", tables.markdown(NOT_CHECKED, rep)]
    return "\n".join(lines) + "\n"
