"""The figure of one solution on 2-D data: boundary, margins, support vectors."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import ParameterError
from . import _mpl

__all__ = ["plot_boundary"]


def plot_boundary(problem: Any, solution: Any, ax: Any = None, *, title: str | None = None,
                  show_margins: bool = True, annotate: bool = True) -> Any:
    """Draw 2-D data, the decision boundary ``w.x + b = 0``, the margins ``w.x + b = +-1``
    and the support vectors (margin SVs ringed, bound SVs crossed).

    Parameters
    ----------
    problem : SVMProblem
        With ``d = 2`` original features.
    solution : ExactSolution (or any object with ``w``, ``b``, ``margin_support``,
        ``bound_support``)
    ax : matplotlib Axes, optional
        Drawn into when given; otherwise a new figure is created.
    title : str, optional
    show_margins : bool
        Draw the two margin lines ``f = +-1``.
    annotate : bool
        Put the margin ``1/||w||`` and the support-vector counts in the legend.

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
    ax = _mpl.axes(ax, figsize=(6, 5))
    X = problem.data.dense()
    y = problem.data.y
    w = np.asarray(solution.w, float)
    b = float(solution.b)
    ax.scatter(X[y > 0, 0], X[y > 0, 1], c="tab:blue", s=18, label="y = +1", zorder=2)
    ax.scatter(X[y < 0, 0], X[y < 0, 1], c="tab:red", s=18, marker="s", label="y = -1",
               zorder=2)
    ms = np.asarray(getattr(solution, "margin_support", []), int)
    bs = np.asarray(getattr(solution, "bound_support", []), int)
    if ms.size:
        ax.scatter(X[ms, 0], X[ms, 1], s=140, facecolors="none", edgecolors="k",
                   linewidths=1.4, label=f"margin SVs ({ms.size})", zorder=3)
    if bs.size:
        ax.scatter(X[bs, 0], X[bs, 1], s=90, marker="x", c="k", linewidths=1.4,
                   label=f"bound SVs ({bs.size})", zorder=3)
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.08 * np.maximum(hi - lo, 1e-12)
    lo, hi = lo - pad, hi + pad
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    levels: list[tuple[float, str, str | None]] = [(0.0, "-", "decision boundary")]
    if show_margins:
        levels += [(1.0, "--", "margins f = +-1"), (-1.0, "--", None)]
    gamma = getattr(solution, "margin", None)
    for level, style, label in levels:
        if annotate and level == 0.0 and gamma is not None and np.isfinite(gamma):
            label = f"{label} (margin 1/||w|| = {gamma:.4g})"
        _line(ax, w, b - level, lo, hi, style, label)
    ax.set_xlabel("x1")
    ax.set_ylabel("x2")
    ax.set_aspect("equal", adjustable="box")
    if title:
        ax.set_title(title)
    ax.legend(loc="best", fontsize=8, framealpha=0.85)
    return ax


def _line(ax: Any, w: np.ndarray, c: float, lo: np.ndarray, hi: np.ndarray, style: str,
          label: str | None, color: Any = "k") -> None:
    """Draw ``w.x + c = 0`` across the box [lo, hi] (always adds one line)."""
    if abs(w[1]) >= abs(w[0]) and w[1] != 0:
        xs = np.array([lo[0], hi[0]])
        ys = -(w[0] * xs + c) / w[1]
    elif w[0] != 0:
        ys = np.array([lo[1], hi[1]])
        xs = -(w[1] * ys + c) / w[0]
    else:  # w = 0: no boundary; an empty line keeps the legend honest
        xs = ys = np.array([])
    ax.plot(xs, ys, style, color=color, lw=1.2, label=label)
