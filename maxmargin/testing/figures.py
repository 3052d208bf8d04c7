"""The figure of a check: suboptimality against the steps and against the time."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import ParameterError
from ..io.files import atomic_write
from ..plotting import _mpl
from .report import CheckReport

__all__ = ["plot_suboptimality"]


def plot_suboptimality(
    reports: CheckReport | Sequence[CheckReport],
    problem: str | None = None,
    *,
    average: bool | None = None,
    path: str | Path | None = None,
    dpi: int = 150,
) -> Any:
    r"""``F(w_t) - F*`` of every run on one problem, against the steps and the learning time.

    Parameters
    ----------
    reports : CheckReport or sequence of CheckReport
        One per learner (one colour each).
    problem : str, optional
        The battery problem; default: the first with a suboptimality.
    average : bool, optional
        The average's suboptimality (True) or the iterate's; default: the average if any.
    path : str or Path, optional
        Also write the figure there; its suffix is the format.
    dpi : int
        Resolution of a raster file.

    Returns
    -------
    matplotlib.figure.Figure
        Two log-log panels, one line per run.

    Examples
    --------
    >>> from maxmargin.testing import check_learner
    >>> rep = check_learner("pegasos", battery="quick", problems=["gaussians/none"])
    >>> fig = plot_suboptimality(rep)
    >>> [ax.get_xlabel() for ax in fig.axes]
    ['step t', 'learning time (s)']
    """
    if isinstance(reports, CheckReport):
        reports = [reports]
    fig = _mpl.figure((9.6, 3.8))
    by_steps, by_time = fig.subplots(1, 2, sharey=True)
    drawn = 0
    for i, report in enumerate(reports):
        drawable = [c for c in report.curves if c.subopt is not None or c.subopt_avg is not None]
        if problem is None and drawable:  # the first problem with a suboptimality
            problem = drawable[0].problem
        curves = [c for c in drawable if c.problem == problem]
        style = _mpl.series_style(i)
        for j, c in enumerate(curves):
            avg = c.subopt_avg is not None if average is None else average
            gap = c.subopt_avg if avg else c.subopt
            if gap is None:
                continue
            y = np.asarray(gap, float)
            keep = np.isfinite(y) & (y > 0)
            label = f"{report.learner} ({'average' if avg else 'iterate'})" if j == 0 else None
            line = {"color": style["color"], "alpha": 0.75, "linewidth": 1.0}
            by_steps.loglog(c.t[keep], y[keep], label=label, **line)
            keep &= c.seconds > 0  # the first checkpoints can take no measurable time
            by_time.loglog(c.seconds[keep], y[keep], **line)
            drawn += 1
    if not drawn:
        raise ParameterError(
            f"no run of {problem or 'any problem'} has a suboptimality to draw (a learner "
            "without an objective, or a problem it was not run on)"
        )
    by_steps.set_xlabel("step t")
    by_time.set_xlabel("learning time (s)")
    by_steps.set_ylabel(r"$F(w) - F^*$")
    by_steps.set_title(f"{problem}: against the steps", fontsize=9)
    by_time.set_title("against the time", fontsize=9)
    by_steps.legend(fontsize=8)
    fig.tight_layout()
    if path is not None:
        target = Path(path)
        (fmt,) = _mpl.check_formats(target.suffix.lstrip(".") or "a file name with no suffix")
        atomic_write(target, lambda fh: fig.savefig(fh, format=fmt, dpi=dpi))
    return fig
