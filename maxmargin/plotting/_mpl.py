"""The one way maxmargin reaches matplotlib: a lazy import, new axes, the house style, saving.

Every ``plot_*`` takes ``ax=None`` and returns the Axes it drew into. The house style (a
fixed axes box with the legend to its right, series told apart by colour, marker and line
style, a median line with a min-max band over seeds, mathtext labels) is described in
``docs/compare.md``.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._deps import PLOT_EXTRA, require
from ..exceptions import DependencyError, ParameterError
from ..io.files import atomic_write

__all__ = [
    "matplotlib",
    "pyplot",
    "figure",
    "axes",
    "legend",
    "end_labels",
    "series_style",
    "colors",
    "markevery",
    "band",
    "kept",
    "PLOT_MAX",
    "fit_limits",
    "save",
    "check_formats",
    "to_draw",
    "markdown_figures",
    "FORMATS",
]

#: The figure formats maxmargin writes (matplotlib's names; jpg/tif/webp need Pillow).
FORMATS = ("png", "pdf", "svg", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp", "pgf")

#: Formats a markdown viewer shows inline (the others are linked).
_INLINE = ("png", "svg", "jpg", "jpeg", "webp")

#: Larger values are left out of the figures: matplotlib's log-axis ticks overflow beyond
#: about 1e250, and only a diverging learner gets there (the report says where).
PLOT_MAX = 1e200

#: Margins of a new figure around its axes box, in inches: left, bottom, right, top.
_MARGINS = (0.85, 0.62, 0.2, 0.42)
#: Between the axes and a legend on their right, in inches.
_GAP = 0.12

#: Colours of the series: matplotlib's qualitative tab10, then the dark shades of tab20b
#: (readable as text too, unlike tab20's light ones): 20 distinct colours.
_COLORS = tuple(
    "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf"
    " #393b79 #637939 #8c6d31 #843c39 #7b4173 #5254a3 #8ca252 #bd9e39 #ad494a #a55194".split()
)
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
_DASHES: tuple[Any, ...] = (
    "-",
    (0, (5, 2)),
    (0, (1.2, 1.2)),
    (0, (6, 2, 1.2, 2)),
    (0, (3, 1.5, 1, 1.5, 1, 1.5)),
)


def matplotlib(pillow: bool = False) -> Any:
    """``matplotlib`` (Agg without a display), or the DependencyError that says how to get it."""
    mpl = require("matplotlib", "drawing figures", pip=PLOT_EXTRA)
    if pillow:
        require("PIL", "writing a GIF", pip=PLOT_EXTRA)
    if (
        "MPLBACKEND" not in os.environ
        and not os.environ.get("DISPLAY")
        and "matplotlib.pyplot" not in sys.modules
    ):
        mpl.use("Agg")
    return mpl


def pyplot() -> Any:
    """``matplotlib.pyplot``, with the Agg backend where there is no display."""
    matplotlib()
    import matplotlib.pyplot as plt

    return plt


def figure(figsize: tuple[float, float]) -> Any:
    """A matplotlib ``Figure`` outside pyplot (nothing to close; for reports and GIFs)."""
    matplotlib()
    from matplotlib.figure import Figure

    return Figure(figsize=figsize)


def axes(ax: Any = None, size: tuple[float, float] = (4.8, 3.2)) -> Any:
    """``ax`` itself, or the Axes of a new figure whose axes box is ``size`` inches.

    The margins around the box are fixed and :func:`legend` widens the figure: every figure's
    plotting area has the same size.
    """
    if ax is not None:
        return ax
    left, bottom, right, top = _MARGINS
    fig = pyplot().figure(figsize=(left + size[0] + right, bottom + size[1] + top))
    fig._maxmargin_box = (left, bottom, size[0], size[1])  # read by legend(), end_labels()
    ax = fig.add_axes((0, 0, 1, 1))
    _place(fig, ax, extra_right=0.0)
    return ax


def _place(fig: Any, ax: Any, extra_right: float) -> None:
    left, bottom, w, h = fig._maxmargin_box
    _, _, right, top = _MARGINS
    width, height = left + w + right + extra_right, bottom + h + top
    fig.set_size_inches(width, height)
    ax.set_position((left / width, bottom / height, w / width, h / height))


def legend(ax: Any, *, fontsize: float = 8, after: float = 0.0, **kwargs: Any) -> Any:
    """A legend on the right of the axes, outside the data, where the figure can make room.

    In a panel of the caller's figure without constrained layout it goes inside the axes
    where it covers the least (outside, it would fall on the next panel). ``after``: inches
    left free for a column of :func:`end_labels`. None when nothing has a label.
    """
    if "handles" not in kwargs and not ax.get_legend_handles_labels()[0]:
        return None
    fig = ax.figure
    box = getattr(fig, "_maxmargin_box", None)
    if box is None and not _makes_room(fig):
        return ax.legend(loc="best", fontsize=fontsize, framealpha=0.85, **kwargs)
    outside = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0}
    leg = ax.legend(fontsize=fontsize, frameon=False, **outside, **kwargs)
    if box is not None and hasattr(fig.canvas, "get_renderer"):
        # the legend's own size needs no drawing of the axes: measure it, widen the figure
        width = leg.get_window_extent(fig.canvas.get_renderer()).width / fig.dpi
        start = after + _GAP
        leg.set_bbox_to_anchor((1.0 + start / box[2], 1.0))
        _place(fig, ax, extra_right=start + width)
    return leg


def _makes_room(fig: Any) -> bool:
    """Whether ``fig`` has constrained layout (it makes room for what sticks out of its axes)."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    get = getattr(fig, "get_layout_engine", None)
    return isinstance(get() if get is not None else None, ConstrainedLayoutEngine)


def end_labels(
    ax: Any,
    x: float,
    ys: Sequence[float],
    labels: Sequence[str],
    colors: Sequence[Any],
    *,
    fontsize: float = 7,
) -> float:
    """Name curves at their right end, just outside the axes, moved apart where they overlap.

    Call it once the y limits are final. Returns the width of the column of labels (inches).
    """
    from matplotlib.text import Text
    from matplotlib.transforms import blended_transform_factory

    if not len(ys):
        return 0.0
    lo, hi = ax.get_ylim()
    fig = ax.figure
    height = ax.get_position().height * fig.get_size_inches()[1]
    step = (hi - lo) * 1.35 * fontsize / 72.0 / max(height, 1e-9)  # one line of text
    order = np.argsort(ys)
    pos = np.array(ys, float)[order]
    pos = np.clip(pos, lo + step / 2, hi - step / 2)
    for i in range(1, pos.size):  # push up what overlaps the label below ...
        pos[i] = max(pos[i], pos[i - 1] + step)
    pos[-1] = min(pos[-1], hi - step / 2)
    for i in range(pos.size - 2, -1, -1):  # ... and down from the top, if pushed out
        pos[i] = min(pos[i], pos[i + 1] - step)
    where = blended_transform_factory(ax.transAxes, ax.transData)
    thin = {"alpha": 0.6, "shrinkA": 1, "shrinkB": 1}
    texts = []
    for k, j in enumerate(order):
        texts.append(
            ax.annotate(
                labels[j],
                xy=(x, ys[j]),
                xycoords="data",
                xytext=(1.03, pos[k]),
                textcoords=where,
                va="center",
                ha="left",
                fontsize=fontsize,
                color=colors[j],
                annotation_clip=False,
                arrowprops={"arrowstyle": "-", "color": colors[j], "lw": 0.5, **thin},
            )
        )
    if not hasattr(fig.canvas, "get_renderer"):
        return 0.0
    renderer = fig.canvas.get_renderer()
    box = getattr(fig, "_maxmargin_box", None)
    axes_w = box[2] if box is not None else ax.get_position().width * fig.get_size_inches()[0]
    width = 0.03 * axes_w + max(Text.get_window_extent(t, renderer).width for t in texts) / fig.dpi
    if box is not None:
        _place(fig, ax, extra_right=width + _GAP)
    return width


def series_style(i: int) -> dict[str, Any]:
    """Colour, marker and line style of the ``i``-th series (all three differ between neighbours).

    >>> series_style(0)["marker"] != series_style(1)["marker"]
    True
    """
    return {
        "color": _COLORS[i % len(_COLORS)],
        "marker": _MARKERS[i % len(_MARKERS)],
        "linestyle": _DASHES[i % len(_DASHES)],
    }


def colors(k: int) -> list[str]:
    """``k`` distinct colours (at most 20; more repeat), the strongest first."""
    return [_COLORS[i % len(_COLORS)] for i in range(k)]


def markevery(i: int) -> tuple[float, float]:
    """``markevery`` spaced evenly in display space, shifted per series (no two on one spot)."""
    return (0.02 + 0.023 * (i % 5), 0.12)


def kept(V: np.ndarray, positive: bool = False, limit: float = PLOT_MAX) -> np.ndarray:
    """The points (columns of ``V``, shape (runs, k)) that :func:`band` draws."""
    with np.errstate(invalid="ignore"):
        keep = np.isfinite(V).all(axis=0) & (np.abs(V) <= limit).all(axis=0)
        if positive:
            keep &= (V > 0).all(axis=0)
    return np.asarray(keep)


def band(
    ax: Any,
    t: np.ndarray,
    V: np.ndarray | None,
    *,
    label: str,
    positive: bool = False,
    limit: float = PLOT_MAX,
    **style: Any,
) -> Any:
    """The median over runs ``V`` (runs, k) as a line, and the min-max band around it.

    Only the :func:`kept` points are drawn (finite, at most ``limit`` in absolute value, and
    with ``positive`` positive). Returns the median line, or None when nothing is drawn.
    """
    if V is None:
        return None
    V = np.atleast_2d(np.asarray(V, float))
    keep = kept(V, positive, limit)
    if not keep.any():
        return None
    t, V = np.asarray(t)[keep], V[:, keep]
    (line,) = ax.plot(t, np.median(V, axis=0), label=label, **style)
    if V.shape[0] > 1:
        ax.fill_between(
            t,
            V.min(axis=0),
            V.max(axis=0),
            color=line.get_color(),
            alpha=0.16,
            lw=0,
            label=f"_band {label}",
            zorder=line.get_zorder() - 0.5,
        )
    return line


def fit_limits(ax: Any, values: Sequence[np.ndarray], *, pad: float = 0.04) -> None:
    """Set the y limits to the range of ``values`` in the axis' own scale, padded."""
    finite = [np.asarray(v, float)[np.isfinite(v)] for v in values]
    allv = np.concatenate([v for v in finite if v.size] or [np.zeros(0)])
    if not allv.size:
        return
    tr = ax.yaxis.get_transform()
    lo, hi = float(allv.min()), float(allv.max())
    lo_t, hi_t = tr.transform([[lo], [hi]])[:, 0] if ax.get_yscale() != "linear" else (lo, hi)
    span = hi_t - lo_t if hi_t > lo_t else 1.0
    inv = tr.inverted()
    new_lo, new_hi = (
        (lo_t - pad * span, hi_t + pad * span)
        if ax.get_yscale() == "linear"
        else inv.transform([[lo_t - pad * span], [hi_t + pad * span]])[:, 0]
    )
    if lo >= 0 and ax.get_yscale() == "symlog":
        new_lo = 0.0  # nothing negative: no negative half
    ax.set_ylim(float(new_lo), float(new_hi))


def save(
    ax: Any, out_dir: Path, stem: str, formats: Sequence[str], dpi: int = 150, tight: bool = False
) -> list[Path]:
    """Write the figure of ``ax`` as ``out_dir/stem.<format>`` (atomically), close it; the paths."""
    fig = getattr(ax, "figure", ax)
    fig = getattr(fig, "figure", fig)  # a SubFigure's parent
    if tight:
        fig.tight_layout()
    written = []
    for fmt in formats:
        path = Path(out_dir) / f"{stem}.{fmt}"

        def draw(fh: Any, fmt: str = fmt) -> None:
            fig.savefig(fh, format=fmt, dpi=dpi)

        atomic_write(path, draw)
        written.append(path)
    if "matplotlib.pyplot" in sys.modules:  # a figure of pyplot's: forget it
        pyplot().close(fig)
    return written


def to_draw(figures: bool, formats: Sequence[str] | str) -> tuple[str, ...] | None:
    """The checked figure formats a report writes, or None (not asked; no matplotlib: a warning)."""
    formats = check_formats(formats)
    if not figures:
        return None
    try:
        matplotlib()
    except DependencyError as e:
        warnings.warn(f"figures skipped: {e}", stacklevel=3)
        return None
    return formats


def check_formats(formats: Sequence[str] | str) -> tuple[str, ...]:
    """The figure formats as a tuple of known names; an empty or unknown one is a ParameterError.

    >>> check_formats("png, PDF")
    ('png', 'pdf')
    """
    if isinstance(formats, str):
        formats = formats.split(",")
    out = tuple(dict.fromkeys(str(f).strip().lower().lstrip(".") for f in formats))
    out = tuple(f for f in out if f)
    if not out:
        raise ParameterError("no figure format given; use e.g. formats=('png', 'svg')")
    unknown = [f for f in out if f not in FORMATS]
    if unknown:
        raise ParameterError(
            f"unknown figure format {', '.join(map(repr, unknown))}; "
            f"choose from {', '.join(FORMATS)}"
        )
    return out


def markdown_figures(files: Sequence[Path], prefix: str = "") -> list[str]:
    """Markdown lines for the figures: inline in the first format a viewer shows, else linked.

    >>> markdown_figures([Path("a.pdf"), Path("a.png"), Path("b.pdf")])
    ['![a](a.png)', '[b](b.pdf) (pdf)']
    """
    by_stem: dict[str, list[Path]] = {}
    for f in files:
        by_stem.setdefault(Path(f).stem, []).append(Path(f))
    lines = []
    for stem, group in by_stem.items():
        inline = [f for f in group if f.suffix.lstrip(".") in _INLINE]
        if inline:
            lines.append(f"![{stem}]({prefix}{inline[0].name})")
        else:
            kinds = ", ".join(f.suffix.lstrip(".") for f in group)
            lines.append(f"[{stem}]({prefix}{group[0].name}) ({kinds})")
    return lines
