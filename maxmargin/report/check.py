"""A check's report in words: the verdicts of :func:`~maxmargin.testing.check_learner`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..io import tables
from .tables import CHECK

if TYPE_CHECKING:
    from ..testing.report import CheckReport

__all__ = ["markdown"]


def markdown(rep: CheckReport) -> str:
    """The verdict table in markdown (failures first), then what was not checked.

    Parameters
    ----------
    rep : CheckReport

    Returns
    -------
    str

    Examples
    --------
    >>> from maxmargin.testing import CheckReport, Verdict
    >>> v = Verdict("mistakes <= (R/gamma)^2", "mistakes", "bound", "separable/none",
    ...             "FAIL", "too many mistakes", order="cyclic", seed=0)
    >>> rep = CheckReport("mine", "quick", 0, (0, 1, 2), 30, (v,))
    >>> markdown(rep).splitlines()[4]
    '| FAIL | mistakes <= (R/gamma)^2 | separable/none | N/A | too many mistakes |'
    """

    def cell(s: str) -> str:
        return s.replace("|", "\\|")

    lines = [f"**{rep.summary()}**", "", tables.markdown(CHECK, rep)]
    if rep.not_checked:
        lines += ["", "Not checked:", "", "| claim | problems | why |", "|---|---|---|"]
        for claim, probs, why in rep.not_checked:
            lines.append(f"| {cell(claim)} | {cell(probs)} | {cell(why)} |")
    return "\n".join(lines) + "\n"
