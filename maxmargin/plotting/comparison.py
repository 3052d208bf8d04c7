"""Figures of a :class:`~maxmargin.Comparison` (matplotlib, imported lazily).

Every ``plot_*`` function draws into ``ax`` (a new figure when None) and returns the
Axes; :func:`save_figures` writes each figure as PNG and SVG. Curves are the mean over
seeds.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import ParameterError
from . import _mpl

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from ..evaluation.comparison import Comparison, RunResult

__all__ = [
    "plot_suboptimality",
    "plot_gaps",
    "plot_regret",
    "plot_mistakes",
    "plot_boundaries",
    "save_figures",
    "FIGURES",
]

#: The figures :func:`save_figures` writes (file stem -> function name).
FIGURES = ("suboptimality", "gaps", "regret", "mistakes", "boundary")


def _new_axes(ax: Any, figsize: tuple[float, float] = (6.4, 4.4),
              right: float = 0.97) -> Any:
    """``ax``, or the Axes of a new figure laid out for these plots."""
    if ax is not None:
        return ax
    ax = _mpl.axes(None, figsize)
    ax.figure.subplots_adjust(left=0.13 if right > 0.9 else 0.08, right=right, bottom=0.12,
                              top=0.92 if right > 0.9 else 0.9)
    return ax


def _colors(cmp: Comparison) -> dict[str, Any]:
    cycle = ["C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9"]
    return {lab: cycle[i % len(cycle)] for i, lab in enumerate(cmp.labels)}


def _groups(cmp: Comparison) -> Iterator[tuple[str, str, list[RunResult]]]:
    """(label, order, runs) for each learner x order, and each trace (its own order)."""
    for lab, order in dict.fromkeys((r.label, r.order) for r in cmp.runs):
        yield lab, order, cmp.select(label=lab, order=order)


def _name(cmp: Comparison, lab: str, order: str) -> str:
    return lab if len(cmp.orders) == 1 else f"{lab} ({order})"


def _mean(runs: Sequence[Any], key: str) -> np.ndarray | None:
    vals = [getattr(r, key) for r in runs]
    if any(v is None for v in vals):
        return None
    k = len(_t(runs))  # seeds of a learner that stops (the PLA) end at different steps
    return np.mean([v[:k] for v in vals], axis=0)


def _t(runs: Sequence[Any]) -> np.ndarray:
    """The checkpoints every run of the group reached (their common prefix)."""
    return min((r.t for r in runs), key=len)


#: Larger values are left out of the figures: matplotlib's log-axis ticks overflow beyond
#: about 1e250, and only a diverging learner gets there (the report says where).
_PLOT_MAX = 1e200


def _finite(t: np.ndarray, v: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    if v is None:  # N/A for this learner
        return t[:0], np.zeros(0)
    keep = np.isfinite(v) & (np.abs(v) <= _PLOT_MAX)
    return t[keep], v[keep]


def _positive(t: np.ndarray, v: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    if v is None:  # N/A for this learner
        return t[:0], np.zeros(0)
    keep = np.isfinite(v) & (v > 0) & (v <= _PLOT_MAX)
    return t[keep], v[keep]


def plot_suboptimality(cmp: Comparison, ax: Any = None) -> Axes:
    r"""Suboptimality :math:`F(w_t) - F^*` against ``t`` (log-log), with the theory slope.

    Solid: the averaged iterate (where the theory is about the average); dashed: the
    last iterate; dotted grey: a line of the theoretical slope through the final point.

    Parameters
    ----------
    cmp : Comparison
        What :func:`~maxmargin.compare` returned.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn into.

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> from maxmargin import compare
    >>> cmp = compare(make_gaussians(40, 2, seed=0), learners=["pegasos"], lam=0.1, epochs=2)
    >>> plot_suboptimality(cmp).get_xscale()
    'log'
    """
    ax = _new_axes(ax)
    col = _colors(cmp)
    any_curve = False
    for lab, order, runs in _groups(cmp):
        if runs[0].kind != "objective":
            continue
        t = _t(runs)
        avg, last = _mean(runs, "subopt_avg"), _mean(runs, "subopt")
        name = _name(cmp, lab, order)
        main = avg if avg is not None else last
        if avg is not None:
            ax.loglog(*_positive(t, avg), color=col[lab], lw=2, label=f"{name}: average")
        ax.loglog(*_positive(t, last), color=col[lab], lw=1.2, ls="--",
                  label=f"{name}: last iterate")
        slope = runs[0].theory_slope
        tt, vv = _positive(t, main)
        if math.isfinite(slope) and tt.size:
            ref = vv[-1] * (t / tt[-1]) ** slope
            keep = t >= math.sqrt(t[-1])
            ax.loglog(t[keep], ref[keep], color=col[lab], lw=1, ls=":",
                      label=f"theory slope {slope:g}")
        any_curve = True
    ax.set_xlabel("t (examples seen)")
    ax.set_ylabel("F(w_t) - F*  (lambda form)")
    ax.set_title("Suboptimality against the certified optimum")
    if not any_curve:
        _empty(ax, "no learner minimises this objective")
    else:
        ax.legend(fontsize=7, loc="lower left")
    ax.grid(True, which="major", alpha=0.3)
    return ax


def plot_gaps(cmp: Comparison, ax: Any = None) -> Axes:
    r"""True gap :math:`F(w_t) - F^*` next to the implied-dual gap :math:`F(w_t) - \lambda D(a_t)`.

    Parameters
    ----------
    cmp : Comparison
        What :func:`~maxmargin.compare` returned.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn into.

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> from maxmargin import compare
    >>> cmp = compare(make_gaussians(40, 2, seed=0), learners=["pegasos"], lam=0.1, epochs=2)
    >>> len(plot_gaps(cmp).lines) >= 2
    True
    """
    ax = _new_axes(ax)
    col = _colors(cmp)
    any_curve = False
    for lab, order, runs in _groups(cmp):
        if runs[0].kind != "objective" or runs[0].dual_gap is None:
            continue
        t = _t(runs)
        name = _name(cmp, lab, order)
        ax.loglog(*_positive(t, _mean(runs, "subopt")), color=col[lab], lw=2,
                  label=f"{name}: true gap F - F*")
        ax.loglog(*_positive(t, _mean(runs, "dual_gap")), color=col[lab], lw=1.2, ls="--",
                  label=f"{name}: implied-dual gap F - lam D(clip a)")
        any_curve = True
    ax.set_xlabel("t (examples seen)")
    ax.set_ylabel("gap (lambda form)")
    ax.set_title("True gap vs the learner's own duality gap (an upper bound)")
    if not any_curve:
        _empty(ax, "no learner with an implied dual point minimises this objective")
    else:
        ax.legend(fontsize=7, loc="lower left")
    ax.grid(True, which="major", alpha=0.3)
    return ax


def plot_regret(cmp: Comparison, ax: Any = None) -> Axes:
    """Regret against ``w*`` against ``t`` (log x, symlog y); Pegasos' bound dotted.

    Parameters
    ----------
    cmp : Comparison
        What :func:`~maxmargin.compare` returned.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn into.

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> from maxmargin import compare
    >>> cmp = compare(make_gaussians(40, 2, seed=0), learners=["pegasos"], lam=0.1, epochs=2)
    >>> plot_regret(cmp).get_yscale()
    'symlog'
    """
    ax = _new_axes(ax)
    col = _colors(cmp)
    for lab, order, runs in _groups(cmp):
        reg = _mean(runs, "regret")
        if reg is None:
            continue
        t = _t(runs)
        ax.plot(*_finite(t, reg), color=col[lab], lw=2, label=_name(cmp, lab, order))
        bound = _mean(runs, "regret_bound")
        if bound is not None:
            ax.plot(*_finite(t, bound), color=col[lab], lw=1, ls=":",
                    label=f"{_name(cmp, lab, order)}: G^2(1+ln t)/(2 lam)")
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_xlabel("t (examples seen)")
    ax.set_ylabel("sum_s f_s(w_s) - sum_s f_s(w*)")
    ax.set_title("Regret against the exact optimum")
    if ax.lines:
        ax.legend(fontsize=7, loc="lower left")
    ax.grid(True, which="major", alpha=0.3)
    return ax


def plot_mistakes(cmp: Comparison, ax: Any = None) -> Axes:
    r"""Cumulative mistakes against ``t``, with Novikoff's :math:`(R/\gamma^*)^2` (separable
    data) and the general bound :math:`L + R\|u\|\sqrt L + R^2\|u\|^2` (perceptron family).

    Parameters
    ----------
    cmp : Comparison
        What :func:`~maxmargin.compare` returned.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn into.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin import compare
    >>> cmp = compare(make_separable(40, 2, seed=0), learners=["perceptron"], lam=0.1,
    ...               epochs=2)
    >>> plot_mistakes(cmp).get_yscale()
    'log'
    """
    ax = _new_axes(ax)
    col = _colors(cmp)
    bound_drawn = False
    for lab, order, runs in _groups(cmp):
        t = _t(runs)
        name = _name(cmp, lab, order)
        mistakes = _mean(runs, "mistakes")
        if mistakes is None:  # pragma: no cover - every run counts its mistakes
            continue
        ax.plot(*_finite(t, np.maximum(mistakes, 0.5)), color=col[lab], lw=2, label=name)
        gb = _mean(runs, "general_bound")
        if gb is not None and not bound_drawn:
            ax.plot(*_finite(t, gb), color="0.4", lw=1, ls="--",
                    label="general bound L + R|u| sqrt(L) + R^2 |u|^2")
            bound_drawn = True
    if cmp.separable:
        ax.axhline(cmp.novikoff, color="k", lw=1, ls=":",
                   label=f"Novikoff (R/gamma*)^2 = {cmp.novikoff:.4g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("t (examples seen)")
    ax.set_ylabel("cumulative mistakes")
    ax.set_title("Mistakes against the mistake bounds")
    ax.legend(fontsize=7, loc="lower left")
    ax.grid(True, which="major", alpha=0.3)
    return ax


def plot_boundaries(cmp: Comparison, ax: Any = None) -> Axes:
    """For 2-D data: the exact boundary with its margins and SVs, and the learners' final
    boundaries (seed ``cmp.seeds[0]``, first order).

    Parameters
    ----------
    cmp : Comparison
        What :func:`~maxmargin.compare` returned.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn into.

    Raises
    ------
    ParameterError
        When the data are not 2-D.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin import compare
    >>> cmp = compare(make_separable(40, 2, seed=0), learners=["perceptron"], lam=0.1)
    >>> len(plot_boundaries(cmp).lines) >= 4
    True
    """
    from .boundary import _line, plot_boundary

    p = cmp.problem
    if p.d != 2:
        raise ParameterError(f"the boundary figure needs 2-D data, got d = {p.d}")
    ax = _new_axes(ax, (9.6, 4.8), right=0.66)
    plot_boundary(p, cmp.reference, ax)
    lo = np.array([ax.get_xlim()[0], ax.get_ylim()[0]])
    hi = np.array([ax.get_xlim()[1], ax.get_ylim()[1]])
    if cmp.hard_solution is not None:
        hard = cmp.hard_solution
        _line(ax, hard.w, hard.b, lo, hi, "-.", "exact hard-margin boundary",
              color="0.5")
    col = _colors(cmp)
    for lab in cmp.labels:
        runs = cmp.select(label=lab, order=cmp.orders[0], seed=cmp.seeds[0])
        if not runs or runs[0].kind == "mistakes":
            continue
        tr = runs[0].trace
        if runs[0].diverged_at is not None:  # no final boundary to draw
            continue
        _line(ax, tr.w[-1], float(tr.b[-1]), lo, hi, "-", f"{lab} (final)", color=col[lab])
    ax.set_xlabel("x1")
    ax.set_ylabel("x2")
    ax.set_title("Exact boundary and margins vs the learners' final boundaries", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    return ax


def _empty(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, fontsize=9)
    ax.set_xscale("linear")
    ax.set_yscale("linear")


def save_figures(cmp: Comparison, out_dir: str | Path,
                 formats: Sequence[str] = ("png", "svg"), dpi: int = 120) -> list[Path]:
    """Write every figure of :data:`FIGURES` that applies (``boundary`` for 2-D only).

    Parameters
    ----------
    cmp : Comparison
    out_dir : str or Path
    formats : sequence of str
    dpi : int

    Returns
    -------
    list of Path

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import make_gaussians
    >>> from maxmargin import compare
    >>> cmp = compare(make_gaussians(30, 3, seed=0), learners=["pegasos"], lam=0.1)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     sorted(p.name for p in save_figures(cmp, tmp, formats=("svg",)))
    ['gaps.svg', 'mistakes.svg', 'regret.svg', 'suboptimality.svg']
    """
    formats = _mpl.check_formats(formats)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    makers = {"suboptimality": plot_suboptimality, "gaps": plot_gaps,
              "regret": plot_regret, "mistakes": plot_mistakes}
    if cmp.problem.d == 2:
        makers["boundary"] = plot_boundaries
    paths = []
    for stem, make in makers.items():
        paths += _mpl.save(make(cmp), out, stem, formats, dpi=dpi, tight=False)
    return paths
