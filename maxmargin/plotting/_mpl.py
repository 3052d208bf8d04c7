"""The one way maxmargin reaches matplotlib: a lazy pyplot, new axes, saved figures.

Every ``plot_*`` function takes ``ax=None`` and returns the Axes it drew into: given an
Axes it draws there (a panel of the caller's figure), else it makes a new figure through
:func:`axes`. Importing maxmargin never imports matplotlib; the first figure does.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._io import atomic_write
from ..exceptions import ParameterError

__all__ = ["pyplot", "axes", "save"]


def pyplot() -> Any:
    """``matplotlib.pyplot``, with the non-interactive Agg backend where no display is.

    Returns
    -------
    module
        ``matplotlib.pyplot``.
    """
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - matplotlib is a dependency
        raise ParameterError("plotting needs matplotlib: pip install matplotlib") from None
    if "MPLBACKEND" not in os.environ and not os.environ.get("DISPLAY"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def axes(ax: Any = None, figsize: tuple[float, float] = (6.4, 4.4)) -> Any:
    """``ax`` itself, or the Axes of a new figure of ``figsize`` inches.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
    figsize : (float, float)

    Returns
    -------
    matplotlib.axes.Axes
    """
    if ax is not None:
        return ax
    _, ax = pyplot().subplots(figsize=figsize)
    return ax


def save(ax: Any, out_dir: Path, stem: str, formats: Sequence[str], dpi: int = 120,
         tight: bool = True) -> list[Path]:
    """Write the figure of ``ax`` as ``out_dir/stem.<format>`` (atomically), then close it.

    Parameters
    ----------
    ax : matplotlib.axes.Axes or matplotlib.figure.Figure
    out_dir : Path
        An existing directory.
    stem : str
    formats : sequence of str
        matplotlib's names (``"png"``, ``"svg"``, ``"pdf"``).
    dpi : int
    tight : bool
        Apply ``tight_layout`` first.

    Returns
    -------
    list of Path
        One file per format.
    """
    fig = getattr(ax, "figure", ax)
    if tight:
        fig.tight_layout()
    written = []
    for fmt in formats:
        path = Path(out_dir) / f"{stem}.{fmt}"

        def draw(fh: Any, fmt: str = fmt) -> None:
            fig.savefig(fh, format=fmt, dpi=dpi)

        atomic_write(path, draw)
        written.append(path)
    pyplot().close(fig)
    return written


def check_formats(formats: Sequence[str]) -> tuple[str, ...]:
    """The figure formats as a tuple; an empty one is an error.

    Parameters
    ----------
    formats : sequence of str

    Returns
    -------
    tuple of str
    """
    formats = tuple(formats)
    if not formats:
        raise ParameterError("no figure format given; use e.g. formats=('png', 'svg')")
    return formats
