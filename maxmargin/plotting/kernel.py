"""Figures of a :class:`~maxmargin.evaluation.KernelComparison` (matplotlib, lazily).

``P(f_t) - P(f*)`` and ``||f_t - f*||_H`` against the step, as the linear comparison's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import ParameterError
from . import _mpl

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from ..evaluation.kernel_scoring import KernelComparison

__all__ = ["plot_kernel", "save_kernel_figures", "KERNEL_FIGURES"]

#: The figures :func:`save_kernel_figures` writes (their file stems), and what they show.
KERNEL_FIGURES = {
    "suboptimality": (
        "suboptimality",
        r"$P(f_t) - P(f^\star)$",
        "Suboptimality against the certified kernel SVM",
    ),
    "distance": ("distance", r"$\|f_t - f^\star\|_H$", "RKHS distance to the certified optimum"),
}

_SIZE = (5.0, 3.4)


def plot_kernel(cmp: KernelComparison, what: str = "suboptimality", ax: Any = None) -> Axes:
    r"""The suboptimality or the RKHS distance against the step (log-log).

    Parameters
    ----------
    cmp : KernelComparison
    what : {"suboptimality", "distance"}
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> from maxmargin.evaluation import compare_kernel
    >>> xor = Dataset([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [-1, -1, 1, 1])
    >>> cmp = compare_kernel(xor, ["kernel_pa1"], gamma=2.0, epochs=5, seeds=[0, 1])
    >>> plot_kernel(cmp, "distance").get_yscale()
    'log'
    """
    if what not in KERNEL_FIGURES:
        raise ParameterError(f"what must be one of {', '.join(KERNEL_FIGURES)}, got {what!r}")
    key, ylabel, title = KERNEL_FIGURES[what]
    ax = _mpl.axes(ax, _SIZE)
    names = list(dict.fromkeys(s.learner for s in cmp.scores))
    drawn = False
    for i, name in enumerate(names):
        runs = [s for s in cmp.scores if s.learner == name]
        k = min(len(s.t) for s in runs)
        V = np.stack([getattr(s, key)[:k] for s in runs])
        style = {**_mpl.series_style(i), "markevery": _mpl.markevery(i), "markersize": 4.5}
        line = _mpl.band(ax, runs[0].t[:k], V, positive=True, label=name, lw=1.4, **style)
        drawn = drawn or line is not None
    ax.set_xlabel(r"step $t$ (examples seen)")
    ax.set_ylabel(ylabel)
    seeds = len(cmp.seeds)
    ax.set_title(
        title + (f"\n(median, min-max band over {seeds} seeds)" if seeds > 1 else ""),
        fontsize=10,
    )
    if drawn:
        ax.set_xscale("log")
        ax.set_yscale("log")
        _mpl.legend(ax)
    else:
        ax.text(
            0.5, 0.5, "nothing positive to draw", ha="center", va="center", transform=ax.transAxes
        )
    ax.grid(True, which="major", alpha=0.3)
    return ax


def save_kernel_figures(
    cmp: KernelComparison, out_dir: str | Path, *, formats: Sequence[str] = ("png",), dpi: int = 150
) -> list[Path]:
    """Write ``suboptimality.<fmt>`` and ``distance.<fmt>`` into the folder ``out_dir``."""
    written: list[Path] = []
    for what, (stem, _, _) in KERNEL_FIGURES.items():
        written += _mpl.save(plot_kernel(cmp, what), Path(out_dir), stem, formats, dpi=dpi)
    return written
