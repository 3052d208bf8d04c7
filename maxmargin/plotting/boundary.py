"""The figure of one solution on 2-D data: boundary, margins, support vectors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import ParameterError
from . import _mpl

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from ..problem import SVMProblem

__all__ = ["plot_boundary"]


def plot_boundary(
    problem: SVMProblem,
    solution: Any,
    ax: Axes | None = None,
    *,
    title: str | None = None,
    show_margins: bool = True,
    annotate: bool = True,
    legend: bool = True,
) -> Axes:
    """Draw 2-D data, the decision boundary, the margins and the support vectors.

    The boundary is ``w.x + b = 0``, the margins ``w.x + b = +-1``; margin SVs are ringed,
    bound SVs crossed. Equal scales; a new figure has the data's aspect ratio.

    Parameters
    ----------
    problem : SVMProblem
        With ``d = 2`` original features.
    solution : ExactSolution
        Or any object with ``w``, ``b``, ``margin_support``, ``bound_support``.
    ax : matplotlib.axes.Axes, optional
        Drawn into when given; otherwise a new figure.
    title : str, optional
    show_margins : bool
        Draw the two margin lines ``f = +-1``.
    annotate : bool
        Put the margin ``1/||w||`` and the support-vector counts in the legend.
    legend : bool
        Draw the legend (on the right of the axes).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import SVMProblem, make_separable
    >>> from maxmargin.exact import solve
    >>> p = SVMProblem(make_separable(20, 2, seed=0), hard=True)
    >>> ax = plot_boundary(p, solve(p))
    >>> len(ax.lines) >= 3
    True
    """
    if problem.d != 2:
        raise ParameterError(f"plot_boundary draws 2-D data; this problem has d = {problem.d}")
    X = problem.data.dense()
    y = problem.data.y
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.maximum(hi - lo, 1e-12 * max(1.0, float(np.abs(X).max())))
    lo, hi = lo - 0.05 * span, hi + 0.05 * span
    box = None
    if ax is None:
        box = _box(hi - lo)
        ax = _mpl.axes(None, box)
    w = np.asarray(solution.w, float)
    b = float(solution.b)
    for sign, marker, color in ((1, "o", "tab:blue"), (-1, "s", "tab:red")):
        m, y_label = y == sign, f"$y = {sign:+d}$"
        ax.scatter(
            X[m, 0], X[m, 1], c=color, s=16, marker=marker, label=y_label, zorder=2, alpha=0.8, lw=0
        )
    svs: tuple[tuple[str, str, dict[str, Any]], ...] = (
        ("margin_support", "margin", {"s": 110, "facecolors": "none", "edgecolors": "k"}),
        ("bound_support", "bound", {"s": 60, "marker": "x", "c": "k"}),
    )
    for attr, kind, kw in svs:
        idx = np.asarray(getattr(solution, attr, []), int)
        if idx.size:
            sv_label = f"{kind} SVs ({idx.size})"
            ax.scatter(X[idx, 0], X[idx, 1], linewidths=1.2, label=sv_label, zorder=3, **kw)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    levels: list[tuple[float, str, str | None]] = [(0.0, "-", "decision boundary")]
    if show_margins:
        levels += [(1.0, "--", "margins $f = \\pm 1$"), (-1.0, "--", None)]
    # 1/||w|| of the feature weights: the distance from the boundary to the dashed lines
    # drawn (solution.margin is 1/||w~|| on an augmented problem, a different number)
    norm = float(np.linalg.norm(w))
    gamma = 1.0 / norm if norm > 0 else None
    for level, style, label in levels:
        if annotate and level == 0.0 and gamma is not None and np.isfinite(gamma):
            label = f"{label} (margin $1/\\|w\\| = {gamma:.4g}$)"
        _line(ax, w, b - level, lo, hi, style, label)
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    # equal scales: a box of the data's aspect fits as it is, and a caller's axes shrink
    # to the data's aspect within their place; our box for data too flat for a page
    # widens the data limits instead (the figure was sized for it)
    fits = box is None or abs(box[0] / box[1] - (hi[0] - lo[0]) / (hi[1] - lo[1])) < 1e-9
    ax.set_aspect("equal", adjustable="box" if fits else "datalim")
    if title:
        ax.set_title(title, fontsize=10)
    if legend:
        _mpl.legend(ax)
    return ax


def _box(span: np.ndarray, height: float = 3.6) -> tuple[float, float]:
    """The axes box (inches) of a new figure: the data's aspect, width 2.2-6.5, height <= 3.6."""
    ratio = float(span[0] / span[1])
    width = min(max(height * ratio, 2.2), 6.5)
    return width, min(max(width / ratio, 1.8), height)


def _segment(w: np.ndarray, c: float, lo: np.ndarray, hi: np.ndarray) -> tuple[Any, Any]:
    """End points of the line ``w.x + c = 0`` across the box [lo, hi] (empty if w = 0)."""
    if abs(w[1]) >= abs(w[0]) and w[1] != 0:
        xs = np.array([lo[0], hi[0]])
        return xs, -(w[0] * xs + c) / w[1]
    if w[0] != 0:
        ys = np.array([lo[1], hi[1]])
        return -(w[1] * ys + c) / w[0], ys
    return [], []


def _line(
    ax: Any,
    w: np.ndarray,
    c: float,
    lo: np.ndarray,
    hi: np.ndarray,
    style: str,
    label: str | None,
    color: Any = "k",
) -> None:
    """Draw ``w.x + c = 0`` across the box [lo, hi] (always one line: an empty one if w = 0)."""
    ax.plot(*_segment(w, c, lo, hi), linestyle=style, color=color, lw=1.2, label=label)
