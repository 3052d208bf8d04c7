"""Figures of a :class:`~maxmargin.Comparison` (matplotlib, imported lazily).

Each ``plot_*`` draws into ``ax`` (a new figure when None) and returns the Axes. A quantity
over seeds is its median line and min-max band; each learner keeps its colour and marker;
runs scored against several problems name theirs (``[intercept none]``). See
``docs/compare.md``.
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

    from ..evaluation.comparison import Comparison
    from ..evaluation.scoring import RunResult

__all__ = [
    "plot_suboptimality",
    "plot_gaps",
    "plot_regret",
    "plot_mistakes",
    "plot_boundaries",
    "save_figures",
    "figures_left_out",
    "FIGURES",
]

#: The figures :func:`save_figures` writes (file stem -> function name).
FIGURES = ("suboptimality", "suboptimality_time", "gaps", "regret", "mistakes", "boundary")

#: The axes box of the comparison figures, in inches (the legend goes to its right).
_SIZE = (5.0, 3.4)

_T_LABEL = r"step $t$ (examples seen)"
_TIME_LABEL = "learning time (s, median over seeds)"


def _groups(cmp: Comparison) -> Iterator[tuple[str, str, list[RunResult], dict[str, Any]]]:
    """(label, order, runs, style) of each learner x order and each trace, styled by position."""
    for i, (lab, order) in enumerate(dict.fromkeys((r.label, r.order) for r in cmp.runs)):
        style = {**_mpl.series_style(i), "markevery": _mpl.markevery(i), "markersize": 4.5}
        yield lab, order, cmp.select(label=lab, order=order), style


def _name(cmp: Comparison, lab: str, order: str) -> str:
    """The group's legend entry: its label, its order if several, its problem if several."""
    name = lab if len(cmp.orders) == 1 else f"{lab} ({order})"
    if len(cmp.references) == 1:
        return name
    return f"{name} [intercept {cmp.select(label=lab)[0].intercept}]"


def _t(runs: Sequence[Any]) -> np.ndarray:
    """The checkpoints every run of the group reached (their common prefix)."""
    return min((r.t for r in runs), key=len)


def _stack(runs: Sequence[Any], key: str) -> np.ndarray | None:
    """``key`` of every run on the common checkpoints, shape (seeds, k); None if N/A."""
    vals = [getattr(r, key) for r in runs]
    if any(v is None for v in vals):
        return None
    k = len(_t(runs))  # seeds of a learner that stops (the PLA) end at different steps
    return np.array([np.asarray(v, float)[:k] for v in vals])


def _drawable(runs: Sequence[Any], key: str, positive: bool = False) -> bool:
    """Whether ``key`` of the group has a point :func:`_mpl.band` would draw."""
    V = _stack(runs, key)
    return V is not None and bool(_mpl.kept(V, positive).any())


def figures_left_out(cmp: Comparison) -> dict[str, str]:
    """The figures of :data:`FIGURES` with nothing to show, each with the reason.

    A figure is drawn when some learner or trace has a finite point of its quantity
    (``docs/compare.md``); ``boundary`` needs 2-D data.

    Parameters
    ----------
    cmp : Comparison

    Returns
    -------
    dict of str to str
        Figure stem -> why it is left out, in the order of :data:`FIGURES`.

    Examples
    --------
    >>> from maxmargin import compare, make_gaussians
    >>> cmp = compare(make_gaussians(30, 3, seed=0), learners=["perceptron"], lam=0.1)
    >>> figures_left_out(cmp)["suboptimality"]
    'no learner or trace minimises this objective'
    """
    groups = [runs for _, _, runs, _ in _groups(cmp)]
    objective = [g for g in groups if g[0].kind == "objective"]
    dual = [g for g in objective if g[0].dual_gap is not None]
    out: dict[str, str] = {}
    if not objective:
        out["suboptimality"] = "no learner or trace minimises this objective"
    elif not any(_drawable(g, k, True) for g in objective for k in ("subopt", "subopt_avg")):
        out["suboptimality"] = "no finite F - F* > 0 to draw on its log scale"
    if "suboptimality" in out:
        out["suboptimality_time"] = out["suboptimality"]
    elif not any(g[0].seconds is not None for g in objective):
        out["suboptimality_time"] = "no run recorded its learning time (weights alone have none)"
    if not dual:
        out["gaps"] = (
            "no learner or trace that minimises this objective has implied dual points "
            "(multipliers)"
        )
    elif not any(_drawable(g, k, True) for g in dual for k in ("subopt", "dual_gap")):
        out["gaps"] = "no finite gap > 0 to draw on its log scale"
    if not any(_drawable(g, "regret") for g in groups):
        out["regret"] = (
            "no learner or trace with every step's loss and example recorded (weights "
            "alone have none)"
        )
    if not any(_drawable(g, "mistakes") for g in groups):
        out["mistakes"] = (
            "no learner or trace with its mistakes counted (weights alone have none: "
            "Trace.from_weights(mistakes=...))"
        )
    if cmp.problem.d != 2:
        out["boundary"] = f"the data are not 2-D (d = {cmp.problem.d})"
    return out


def _solid(style: dict[str, Any], **more: Any) -> dict[str, Any]:
    """The learner's colour and marker on a solid line (the line style names the quantity)."""
    return {**style, "linestyle": "-", **more}


def _finish(
    ax: Any, ylabel: str, title: str, *, empty: str | None = None, log: bool = True
) -> Axes:
    """Labels, title and grid; log-log axes and the legend, or the text ``empty`` alone."""
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if empty is not None:
        ax.text(0.5, 0.5, empty, ha="center", va="center", transform=ax.transAxes, fontsize=9)
    else:
        if log:
            ax.set_xscale("log")
            ax.set_yscale("log")
        _mpl.legend(ax)
    ax.grid(True, which="major", alpha=0.3)
    return ax


def plot_suboptimality(cmp: Comparison, ax: Any = None, *, x: str = "steps") -> Axes:
    r"""Suboptimality :math:`F(w_t) - F^*` against ``t`` or time (log-log).

    Solid: the averaged iterate; dashed: the last iterate; dotted grey (against steps): a
    line of the theoretical slope through the final point.

    Parameters
    ----------
    cmp : Comparison
    ax : matplotlib.axes.Axes, optional
    x : {"steps", "time"}
        The step ``t``, or the learning time at each checkpoint (the median over the
        seeds); runs without recorded times are left out of the time figure.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import compare, make_gaussians
    >>> cmp = compare(make_gaussians(40, 2, seed=0), learners=["pegasos"], lam=0.1, epochs=2)
    >>> plot_suboptimality(cmp).get_xscale()
    'log'
    """
    if x not in ("steps", "time"):
        raise ParameterError(f"x must be 'steps' or 'time', got {x!r}")
    ax = _mpl.axes(ax, _SIZE)
    any_curve = False
    for lab, order, runs, style in _groups(cmp):
        if runs[0].kind != "objective":
            continue
        t = _t(runs)
        if x == "time":
            times = [r.seconds for r in runs]
            if any(s is None for s in times):
                continue
            t = np.median(np.stack([s[: t.size] for s in times if s is not None]), axis=0)
        name, solid, dashed = _name(cmp, lab, order), _solid(style), _solid(style, linestyle="--")
        avg, last = _stack(runs, "subopt_avg"), _stack(runs, "subopt")
        main = _mpl.band(ax, t, avg, positive=True, lw=1.8, label=f"{name}: average", **solid)
        line = _mpl.band(
            ax, t, last, positive=True, lw=1.1, label=f"{name}: last iterate", **dashed
        )
        main = main if main is not None else line
        slope = runs[0].theory_slope
        if main is not None and math.isfinite(slope) and x == "steps":
            tt, vv = main.get_data()
            ref = vv[-1] * (t / tt[-1]) ** slope
            keep = t >= math.sqrt(t[-1])
            label = f"theory slope ${slope:g}$"
            ax.plot(t[keep], ref[keep], color=style["color"], lw=1, ls=":", label=label)
        any_curve = True
    ax.set_xlabel(_T_LABEL if x == "steps" else _TIME_LABEL)
    title = (
        "Suboptimality against the certified optimum"
        if len(cmp.references) == 1
        else "Suboptimality, each run against its own problem's certified optimum"
    )
    return _finish(
        ax,
        r"$F(\tilde w_t) - F^\star$ ($\lambda$ form)",
        title + ("" if x == "steps" else ", against time"),
        empty=None if any_curve else "no learner minimises this objective",
    )


def plot_gaps(cmp: Comparison, ax: Any = None) -> Axes:
    r"""True gap :math:`F(w_t) - F^*` next to the implied-dual gap :math:`F(w_t) - \lambda D(a_t)`.

    Parameters
    ----------
    cmp : Comparison
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import compare, make_gaussians
    >>> cmp = compare(make_gaussians(40, 2, seed=0), learners=["pegasos"], lam=0.1, epochs=2)
    >>> len(plot_gaps(cmp).lines) >= 2
    True
    """
    ax = _mpl.axes(ax, _SIZE)
    any_curve = False
    for lab, order, runs, style in _groups(cmp):
        if runs[0].kind != "objective" or runs[0].dual_gap is None:
            continue
        t, name, dashed = _t(runs), _name(cmp, lab, order), _solid(style, linestyle="--")
        true = f"{name}: true gap $F - F^\\star$"
        dual = f"{name}: implied-dual gap $F - \\lambda D(\\mathrm{{clip}}\\,a)$"
        _mpl.band(ax, t, _stack(runs, "subopt"), positive=True, lw=1.8, label=true, **_solid(style))
        _mpl.band(ax, t, _stack(runs, "dual_gap"), positive=True, lw=1.1, label=dual, **dashed)
        any_curve = True
    ax.set_xlabel(_T_LABEL)
    why = "no learner with an implied dual point minimises this objective"
    return _finish(
        ax,
        r"gap ($\lambda$ form)",
        "True gap and the learner's own duality gap (an upper bound)",
        empty=None if any_curve else why,
    )


def plot_regret(cmp: Comparison, ax: Any = None) -> Axes:
    """Regret against ``w*`` against ``t`` (log x, symlog y); Pegasos' bound dotted.

    Parameters
    ----------
    cmp : Comparison
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import compare, make_gaussians
    >>> cmp = compare(make_gaussians(40, 2, seed=0), learners=["pegasos"], lam=0.1, epochs=2)
    >>> plot_regret(cmp).get_yscale()
    'symlog'
    """
    ax = _mpl.axes(ax, _SIZE)
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1.0)
    drawn: list[np.ndarray] = []
    for lab, order, runs, style in _groups(cmp):
        reg = _stack(runs, "regret")
        if reg is None:
            continue
        t = _t(runs)
        name = _name(cmp, lab, order)
        if _mpl.band(ax, t, reg, lw=1.6, label=name, **style) is None:
            continue
        drawn.append(reg[:, np.abs(reg).max(axis=0) <= _mpl.PLOT_MAX])
        label = f"{name}: $G^2(1 + \\ln t)/(2\\lambda)$"
        regret_bound = _stack(runs, "regret_bound")
        bound = _mpl.band(ax, t, regret_bound, color=style["color"], lw=1, ls=":", label=label)
        if bound is not None:
            drawn.append(bound.get_ydata())
    _mpl.fit_limits(ax, drawn)
    ax.set_xlabel(_T_LABEL)
    ylabel = r"${\sum}_{s \leq t} f_s(w_s) - {\sum}_{s \leq t} f_s(w^\star)$"
    return _finish(ax, ylabel, "Regret against the exact optimum", log=False)


def plot_mistakes(cmp: Comparison, ax: Any = None) -> Axes:
    r"""Cumulative mistakes against ``t``, with the mistake bounds.

    Novikoff's :math:`(R/\gamma^*)^2` (separable data) and the general bound :math:`L +
    R\|u\|\sqrt L + R^2\|u\|^2` (perceptron family).

    Parameters
    ----------
    cmp : Comparison
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import compare, make_separable
    >>> cmp = compare(make_separable(40, 2, seed=0), learners=["perceptron"], lam=0.1,
    ...               epochs=2)
    >>> plot_mistakes(cmp).get_yscale()
    'log'
    """
    ax = _mpl.axes(ax, _SIZE)
    bound = None  # the first learner's general bound, drawn after the learners (legend)
    for lab, order, runs, style in _groups(cmp):
        t = _t(runs)
        mistakes = _stack(runs, "mistakes")
        if mistakes is None:  # pragma: no cover - every run counts its mistakes
            continue
        label = _name(cmp, lab, order)
        _mpl.band(ax, t, np.maximum(mistakes, 0.5), lw=1.6, label=label, **style)
        gb = _stack(runs, "general_bound")
        if gb is not None and bound is None:
            bound = t, gb
    if bound is not None:
        label = r"general bound $L + R\|u\|\sqrt{L} + R^2\|u\|^2$"
        _mpl.band(ax, *bound, color="0.4", lw=1, ls="--", label=label)
    for i, ref in enumerate(r for r in cmp.references if r.separable):  # each problem's
        which = "" if len(cmp.references) == 1 else f" [intercept {ref.intercept}]"
        ax.axhline(
            ref.novikoff,
            color="k",
            lw=1,
            ls=(":", "-.", (0, (1, 3)))[i],
            label=f"Novikoff $(R/\\gamma^\\star)^2 = {ref.novikoff:.4g}${which}",
        )
    ax.set_xlabel(_T_LABEL)
    return _finish(ax, r"cumulative mistakes $M_t$", "Mistakes against the mistake bounds")


def plot_boundaries(cmp: Comparison, ax: Any = None) -> Axes:
    """For 2-D data: the exact boundary, margins and SVs, and the learners' final boundaries.

    The learners' boundaries are those of seed ``cmp.seeds[0]`` and the first order.

    Parameters
    ----------
    cmp : Comparison
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ParameterError
        When the data are not 2-D.

    Examples
    --------
    >>> from maxmargin import compare, make_separable
    >>> cmp = compare(make_separable(40, 2, seed=0), learners=["perceptron"], lam=0.1)
    >>> len(plot_boundaries(cmp).lines) >= 4
    True
    """
    from .boundary import _line, plot_boundary

    p = cmp.problem
    if p.d != 2:
        raise ParameterError(f"the boundary figure needs 2-D data, got d = {p.d}")
    ax = plot_boundary(p, cmp.reference, ax, annotate=True, legend=False)
    lo = np.array([ax.get_xlim()[0], ax.get_ylim()[0]])
    hi = np.array([ax.get_xlim()[1], ax.get_ylim()[1]])
    if cmp.hard_solution is not None:
        hard = cmp.hard_solution
        _line(ax, hard.w, hard.b, lo, hi, "-.", "exact hard-margin boundary", color="0.5")
    for lab, order, runs, style in _groups(cmp):
        if order != cmp.orders[0]:
            continue
        run = next((r for r in runs if r.seed == cmp.seeds[0]), None)
        if run is None or run.kind == "mistakes" or run.diverged_at is not None:
            continue  # no boundary in x-space, or no final one
        tr = run.trace
        _line(
            ax,
            tr.w[-1],
            float(tr.b[-1]),
            lo,
            hi,
            style["linestyle"],
            f"{lab} (final)",
            color=style["color"],
        )
    ax.set_title("Exact boundary and margins, and the learners' final boundaries", fontsize=10)
    _mpl.legend(ax)
    return ax


def save_figures(
    cmp: Comparison, out_dir: str | Path, formats: Sequence[str] = ("png", "svg"), dpi: int = 150
) -> list[Path]:
    """Write every figure of :data:`FIGURES` that has something to show (no empty figure).

    Parameters
    ----------
    cmp : Comparison
    out_dir : str or Path
    formats : sequence of str
        matplotlib's format names.
    dpi : int
        Resolution of the raster formats.

    Returns
    -------
    list of Path

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import compare, make_gaussians
    >>> cmp = compare(make_gaussians(30, 3, seed=0), learners=["pegasos"], lam=0.1)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     sorted(p.name for p in save_figures(cmp, tmp, formats=("svg",)))
    ['gaps.svg', 'mistakes.svg', 'regret.svg', 'suboptimality.svg', 'suboptimality_time.svg']
    """
    formats = _mpl.check_formats(formats)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    makers = {
        "suboptimality": plot_suboptimality,
        "suboptimality_time": lambda c: plot_suboptimality(c, x="time"),
        "gaps": plot_gaps,
        "regret": plot_regret,
        "mistakes": plot_mistakes,
        "boundary": plot_boundaries,
    }
    skip = figures_left_out(cmp)
    paths = []
    for stem, make in makers.items():
        if stem not in skip:
            paths += _mpl.save(make(cmp), out, stem, formats, dpi=dpi)
    return paths
