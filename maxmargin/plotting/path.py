"""Figures of a regularization path (matplotlib imported lazily; Agg without a display).

Each function draws into ``ax`` when given (else a new figure) and returns the Axes;
:func:`save_path_figures` writes them all. The vertical guides are the analytical
thresholds of :mod:`maxmargin.evaluation.path.limits`: ``C_0`` (below it no margin SV) and,
on separable data, ``C*`` (above it the soft optimum is the hard one); with a held-out
set, a third guide marks the best held-out C (the smallest C with the least held-out
error), and a star marks it on the curves that have a value there.

The ``plot_exact_*`` functions draw an :class:`~maxmargin.evaluation.path.exact.ExactPath`:
every curve is evaluated exactly (at every breakpoint in view and on a fine log grid
between), and the breakpoints are marked by ticks along the x axis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import ParameterError
from . import _mpl

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from ..evaluation.path.exact import ExactPath
    from ..evaluation.path.grid import RegularizationPath
    from ..evaluation.path.learners import LearnerPathStudy

__all__ = [
    "plot_width",
    "plot_support_vectors",
    "plot_errors",
    "plot_coefficients",
    "plot_objective",
    "plot_tradeoff",
    "plot_learners_vs_lambda",
    "save_path_figures",
    "best_holdout_C",
    "plot_exact_coefficients",
    "plot_exact_width",
    "plot_exact_support_vectors",
    "plot_exact_errors",
    "plot_exact_objective",
    "plot_exact_tradeoff",
    "save_exact_path_figures",
]

#: The axes box of the path figures, in inches (legends and labels go to its right).
_SIZE = (4.8, 3.2)
_BEST = {"color": "C2", "ls": "-.", "lw": 1.0}


def best_holdout_C(C: np.ndarray, holdout_error: np.ndarray) -> int | None:
    """The index of the best held-out C, or None without held-out errors.

    The smallest C with the least held-out error (ties go to the most regularised model).

    Parameters
    ----------
    C : ndarray of shape (k,)
        Increasing.
    holdout_error : ndarray of shape (k,)
        nan where there is none.

    Returns
    -------
    int or None

    Examples
    --------
    >>> import numpy as np
    >>> best_holdout_C(np.array([0.1, 1.0, 10.0]), np.array([0.3, 0.2, 0.2]))
    1
    """
    err = np.asarray(holdout_error, float)
    if err.size == 0 or np.isnan(err).all():
        return None
    return int(np.nanargmin(err))


def _guides(ax: Any, p: Any) -> None:
    c0 = p.min_margin_sv_C
    if 0 < c0 < math.inf and p.C[0] <= c0 <= p.C[-1]:
        ax.axvline(c0, color="0.4", ls=":", lw=1, label=f"$C_0$ = {c0:.3g} (first margin SV)")
    h = p.hard_margin_limit
    if h is not None and h.separable and h.C_star <= p.C[-1]:
        ax.axvline(
            h.C_star,
            color="C3",
            ls="--",
            lw=1,
            label=f"$C^\\star$ = {h.C_star:.3g} (= hard margin above)",
        )
    best = best_holdout_C(p.C, p.holdout_error)
    if best is not None:
        ax.axvline(p.C[best], **_BEST, label=_best_label(p.C[best], p.holdout_error[best]))


def _best_label(C: float, err: float) -> str:
    return f"best held-out $C$ = {C:.3g} (error {err:.3g})"


def _star(ax: Any, x: float, y: float) -> None:
    """The best held-out C's point on a curve."""
    ax.plot(
        [x],
        [y],
        marker="*",
        ms=11,
        color=_BEST["color"],
        mec="k",
        mew=0.5,
        ls="none",
        zorder=5,
        label="_best",
    )


def _finish(ax: Any, title: str, xlabel: str = "$C$") -> None:
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    _mpl.legend(ax)


def plot_width(p: RegularizationPath, ax: Axes | None = None) -> Axes:
    """Margin width ``2/||w(C)||`` against C (log-log); the hard-margin width dashed.

    Parameters
    ----------
    p : RegularizationPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_separable, regularization_path
    >>> ax = plot_width(regularization_path(make_separable(20, 2, seed=0), C="1e-2:1e2:4"))
    >>> ax.get_xscale(), ax.get_yscale(), len(ax.lines) >= 2
    ('log', 'log', True)
    """
    ax = _mpl.axes(ax, _SIZE)
    ax.loglog(p.C, p.width, "o-", ms=3, label="width $2/\\|w(C)\\|$")
    h = p.hard_margin_limit
    if h is not None and h.separable and h.w is not None:
        nw = float(np.linalg.norm(h.w))
        if nw > 0:
            ax.axhline(
                2.0 / nw,
                color="C3",
                lw=0.8,
                alpha=0.6,
                label="hard-margin width $2/\\|w^\\star\\|$",
            )
    _guides(ax, p)
    best = best_holdout_C(p.C, p.holdout_error)
    if best is not None and np.isfinite(p.width[best]):
        _star(ax, p.C[best], p.width[best])
    ax.set_ylabel("margin width $2/\\|w\\|$")
    _finish(ax, f"Margin width along the path ({p.data_name})")
    return ax


def plot_support_vectors(p: RegularizationPath, ax: Axes | None = None) -> Axes:
    """Number of margin SVs (``0 < alpha < C``) and bound SVs (``alpha = C``) against C.

    Parameters
    ----------
    p : RegularizationPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_separable, regularization_path
    >>> p = regularization_path(make_separable(20, 2, seed=0), C="1e-2:1e2:4")
    >>> [ln.get_ydata().tolist() == p.n_bound_sv.tolist()
    ...  for ln in plot_support_vectors(p).lines[:2]]
    [False, True]
    """
    ax = _mpl.axes(ax, _SIZE)
    ax.semilogx(p.C, p.n_margin_sv, "o-", ms=3, label="margin SVs ($0<\\alpha_i<C$)")
    ax.semilogx(p.C, p.n_bound_sv, "s--", ms=3, label="bound SVs ($\\alpha_i=C$)")
    _guides(ax, p)
    ax.set_ylabel("count")
    _finish(ax, f"Support vectors along the path ($n$ = {p.n})")
    return ax


def plot_errors(p: RegularizationPath, ax: Axes | None = None) -> Axes:
    """Training (and held-out) error against C.

    Parameters
    ----------
    p : RegularizationPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_gaussians, regularization_path
    >>> ax = plot_errors(regularization_path(make_gaussians(30, 2, seed=0), C="1e-2:1e2:3"))
    >>> ax.get_legend_handles_labels()[1][0], ax.get_xscale()
    ('training error', 'log')
    """
    ax = _mpl.axes(ax, _SIZE)
    ax.semilogx(p.C, p.train_error, "o-", ms=3, label="training error")
    if not np.isnan(p.holdout_error).all():
        ax.semilogx(p.C, p.holdout_error, "s--", ms=3, label="held-out error")
    _guides(ax, p)
    best = best_holdout_C(p.C, p.holdout_error)
    if best is not None:
        _star(ax, p.C[best], p.holdout_error[best])
    ax.set_ylabel("error rate ($y f(x) \\leq 0$)")
    _finish(ax, "Error along the path")
    return ax


def _feature_names(obj: Any, given: Sequence[str] | None) -> Sequence[str] | None:
    """``given``, else the result's ``feature_names``, else its data's, else None.

    An exact path keeps its Dataset, hence its data's names.
    """
    if given is not None:
        return given
    names = getattr(obj, "feature_names", None)
    if names is None:
        names = getattr(getattr(obj, "data", None), "feature_names", None)
    return names


def _coefficient_lines(
    ax: Any, Cs: np.ndarray, W: np.ndarray, max_features: int, names: Sequence[str] | None
) -> tuple[np.ndarray, list[str], list[str]]:
    """Draw the ``max_features`` largest ``w_j(C)``; return their indices, labels, colours.

    Largest by ``|w_j|`` at the right end; each is drawn in its own colour (and a dashed
    line past the tenth).
    """
    top = np.argsort(-np.abs(W[-1]), kind="stable")[:max_features]
    labels = [
        f"$w_{{{j + 1}}}$" if names is None else str(names[j]).replace("$", r"\$") for j in top
    ]
    colors = _mpl.colors(len(top))
    for k, (j, lab) in enumerate(zip(top, labels, strict=True)):
        ax.semilogx(Cs, W[:, j], lw=1.2, color=colors[k], ls="-" if k < 10 else "--", label=lab)
    ax.axhline(0, color="0.6", lw=0.5)
    return top, labels, colors


def _label_coefficients(
    ax: Any, Cs: np.ndarray, W: np.ndarray, top: np.ndarray, labels: list[str], colors: list[str]
) -> None:
    """Name each drawn coefficient at its right end; the guides' legend goes after."""
    ax.set_xlim(ax.get_xlim())  # the labels must not move the limits
    width = _mpl.end_labels(ax, float(Cs[-1]), W[-1, top].tolist(), labels, colors)
    handles, names = ax.get_legend_handles_labels()
    guides = [(h, n) for h, n in zip(handles, names, strict=True) if n not in labels]
    if guides:
        _mpl.legend(ax, after=width, handles=[h for h, _ in guides], labels=[n for _, n in guides])


def plot_coefficients(
    p: RegularizationPath,
    ax: Axes | None = None,
    max_features: int = 15,
    feature_names: Sequence[str] | None = None,
) -> Axes:
    """Coefficient paths ``w_j(C)``, each named at its right end.

    The ``max_features`` largest at the last point are drawn, each named by
    ``feature_names`` (default the path's ``feature_names``, its data's, if any, else
    ``w_j``).

    Each drawn coefficient has its own colour (a qualitative palette of 20; past the
    tenth, the line is dashed too); the guides' legend is to the right of the names.

    Parameters
    ----------
    p : RegularizationPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.
    max_features : int
        How many coefficients to draw.
    feature_names : sequence of str, optional
        The names of the ``d`` features.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_gaussians, regularization_path
    >>> p = regularization_path(make_gaussians(30, 5, seed=0), C="1e-2:1e2:3")
    >>> ax = plot_coefficients(p, max_features=3, feature_names=list("abcde"))
    >>> sorted(t.get_text() for t in ax.texts) == sorted(ln.get_label() for ln in ax.lines[:3])
    True
    """
    ax = _mpl.axes(ax, _SIZE)
    names = _feature_names(p, feature_names)
    top, labels, colors = _coefficient_lines(ax, p.C, p.w, max_features, names)
    _guides(ax, p)
    ax.set_ylabel("$w_j(C)$")
    shown = "" if top.size == p.d else f" ({top.size} largest of {p.d})"
    ax.set_xlabel("$C$")
    ax.set_title(f"Coefficient paths{shown}", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    _label_coefficients(ax, p.C, p.w, top, labels, colors)
    return ax


def _objective_lines(ax: Any, Cs: np.ndarray, reg: np.ndarray, slack: np.ndarray) -> None:
    """``P(C) = 1/2 ||w~||^2 + C sum xi`` and its two parts, on log-log axes."""
    half = 0.5 * np.asarray(reg, float)
    paid = Cs * np.asarray(slack, float)
    for values, style, label in (
        (
            half + paid,
            {"lw": 1.8, "ls": "-", "color": "k"},
            r"$P(C) = \frac{1}{2}\|\tilde w\|^2 + C {\sum}_i \xi_i$",
        ),
        (half, {"lw": 1.2, "ls": "--", "color": "C0"}, r"$\frac{1}{2}\|\tilde w\|^2$"),
        (paid, {"lw": 1.2, "ls": ":", "color": "C1"}, r"$C {\sum}_i \xi_i$"),
    ):
        keep = values > 0  # a zero part (no slack past C*) has no place on a log axis
        ax.loglog(Cs[keep], values[keep], label=label, **style)


def plot_objective(p: RegularizationPath, ax: Axes | None = None) -> Axes:
    r"""The optimal objective :math:`P(C)` against C, with its two parts (log-log).

    :math:`P(C) = \tfrac12\|\tilde w\|^2 + C{\sum}_i \xi_i`.

    The regularizer grows with C and the slack term trades against it; on separable
    data the slack term vanishes from ``C*`` on and ``P`` is the hard-margin
    :math:`\tfrac12\|\tilde w^*\|^2` (drawn only where positive: log axes).

    Parameters
    ----------
    p : RegularizationPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import numpy as np
    >>> from maxmargin import make_gaussians, regularization_path
    >>> p = regularization_path(make_gaussians(30, 2, seed=0), C="1e-2:1e2:3")
    >>> bool(np.allclose(plot_objective(p).lines[0].get_ydata(), p.primal))
    True
    """
    ax = _mpl.axes(ax, _SIZE)
    _objective_lines(ax, p.C, p.norm_reg**2, p.slack_sum)
    _guides(ax, p)
    ax.set_ylabel("objective ($C$ form)")
    _finish(ax, "The optimal objective and its two parts")
    return ax


def _tradeoff_line(
    ax: Any, Cs: np.ndarray, reg: np.ndarray, slack: np.ndarray, marker: str | None
) -> None:
    ax.plot(
        reg,
        slack,
        marker=marker,
        ms=3,
        lw=1.4,
        color="k",
        label=r"$(\|\tilde w(C)\|^2, {\sum}_i \xi_i(C))$",
    )
    ax.set_xscale("log")
    # the ends (slack falls as the norm grows): each label on the outer side of its point
    ax.margins(x=0.04, y=0.1)
    for k, offset, ha, va in (
        (0, (4, 4), "left", "bottom"),
        (Cs.size - 1, (-4, -4), "right", "top"),
    ):
        ax.annotate(
            f"$C$ = {Cs[k]:.3g}",
            (reg[k], slack[k]),
            xytext=offset,
            ha=ha,
            va=va,
            textcoords="offset points",
            fontsize=7,
            color="0.3",
        )


def plot_tradeoff(p: RegularizationPath, ax: Axes | None = None) -> Axes:
    r"""The trade-off the path walks: total slack against squared norm, one point per C.

    The total slack :math:`{\sum}_i \xi_i` against :math:`\|\tilde w\|^2`, one point per
    C (C grows to the right: the norm is non-decreasing and the slack non-increasing in
    C, both theorems).

    Parameters
    ----------
    p : RegularizationPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import numpy as np
    >>> from maxmargin import make_gaussians, regularization_path
    >>> p = regularization_path(make_gaussians(30, 2, seed=0), C="1e-2:1e2:3")
    >>> x, y = plot_tradeoff(p).lines[0].get_data()
    >>> bool(np.allclose(x, p.norm_reg ** 2) and np.allclose(y, p.slack_sum))
    True
    """
    ax = _mpl.axes(ax, _SIZE)
    reg = np.asarray(p.norm_reg, float) ** 2
    _tradeoff_line(ax, p.C, reg, p.slack_sum, "o")
    best = best_holdout_C(p.C, p.holdout_error)
    if best is not None:
        ax.plot(
            [reg[best]],
            [p.slack_sum[best]],
            marker="*",
            ms=11,
            color=_BEST["color"],
            mec="k",
            mew=0.5,
            ls="none",
            zorder=5,
            label=_best_label(p.C[best], p.holdout_error[best]),
        )
    ax.set_ylabel(r"total slack ${\sum}_i \xi_i$")
    _finish(ax, "Slack against norm along the path", xlabel=r"$\|\tilde w\|^2$")
    return ax


def plot_learners_vs_lambda(
    study: LearnerPathStudy, ax: Axes | None = None, eps: float | None = None
) -> Axes:
    r"""Epochs to reach relative suboptimality ``eps`` against lambda (log-log).

    A slope -1 guide shows the ``1/(lambda T)`` rate of Pegasos; runs that never reached
    ``eps`` within the budget are drawn as open markers at the budget.

    Parameters
    ----------
    study : LearnerPathStudy
        What :func:`~maxmargin.learners_along_path` returned.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.
    eps : float, optional
        The level of ``study.eps`` to show (the nearest one; default the first).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import learners_along_path, make_gaussians
    >>> st = learners_along_path(make_gaussians(40, 2, seed=0), lam=[0.01, 0.1],
    ...                          learners=["pegasos"], epochs=2)
    >>> print(plot_learners_vs_lambda(st).get_xlabel())
    $\lambda$
    """
    ax = _mpl.axes(ax, _SIZE)
    q = 0 if eps is None else int(np.argmin([abs(e - eps) for e in study.eps]))
    e = study.eps[q]
    for j, nm in enumerate(study.learners):
        style = _mpl.series_style(j)
        ep = study.epochs_to_eps[q, j]
        ok = np.isfinite(ep)
        ax.loglog(study.lam[ok], ep[ok], ms=4, label=nm, **style)
        if (~ok).any():
            ax.loglog(
                study.lam[~ok],
                np.full((~ok).sum(), study.epochs),
                ls="none",
                marker=style["marker"],
                ms=5,
                mfc="none",
                color=style["color"],
                label=f"_{nm} not reached",
            )
    finite = np.isfinite(study.epochs_to_eps[q])
    if finite.any():
        j, i = np.argwhere(finite)[0]
        ref = study.epochs_to_eps[q, j, i] * study.lam[i] / study.lam
        ax.loglog(study.lam, ref, color="0.5", ls=":", lw=0.8, label=r"slope $-1$ ($1/\lambda$)")
    ax.axhline(study.epochs, color="0.7", lw=0.6, label=f"budget ({study.epochs} epochs)")
    ax.set_ylabel(f"epochs to relative suboptimality ${e:g}$")
    _finish(ax, "Learners along the path (open: not reached)", xlabel=r"$\lambda$")
    return ax


def _plot_final_subopt(study: Any, ax: Any = None) -> Any:
    ax = _mpl.axes(ax, _SIZE)
    for j, nm in enumerate(study.learners):
        ax.loglog(
            study.lam,
            np.maximum(study.final_rel_subopt[j], 1e-16),
            ms=3,
            label=nm,
            **_mpl.series_style(j),
        )
    ax.set_ylabel(r"$(F(\tilde w_T) - F^\star)/F^\star$")
    _finish(ax, f"Relative suboptimality after {study.epochs} epochs", xlabel=r"$\lambda$")
    return ax


def save_path_figures(
    p: RegularizationPath,
    out_dir: str | Path,
    *,
    study: LearnerPathStudy | None = None,
    formats: Sequence[str] = ("png", "svg"),
    dpi: int = 150,
    feature_names: Sequence[str] | None = None,
) -> list[Path]:
    """Write every path figure (and the learners' figures with ``study``).

    Files: ``path_width``, ``path_support_vectors``, ``path_errors``,
    ``path_coefficients``, ``path_objective``, ``path_tradeoff`` (+
    ``path_learners_epochs``, ``path_learners_subopt``), one per format.

    Parameters
    ----------
    p : RegularizationPath
    out_dir : str or Path
        Created when missing.
    study : LearnerPathStudy, optional
        Adds the learners' two figures.
    formats : sequence of str
        matplotlib's format names.
    dpi : int
        Resolution of the raster formats.
    feature_names : sequence of str, optional
        Names of the coefficients (default: the path's own, if any).

    Returns
    -------
    list of pathlib.Path
        Every file written.

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import make_separable, regularization_path
    >>> p = regularization_path(make_separable(20, 2, seed=0), C="1e-2:1e2:4")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     files = save_path_figures(p, tmp, formats=("png", "svg"))
    >>> len(files)
    12
    """
    formats = _mpl.check_formats(formats)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figs: list[tuple[str, Any]] = [
        ("path_width", plot_width),
        ("path_support_vectors", plot_support_vectors),
        ("path_errors", plot_errors),
        ("path_coefficients", lambda q: plot_coefficients(q, feature_names=feature_names)),
        ("path_objective", plot_objective),
        ("path_tradeoff", plot_tradeoff),
    ]
    items: list[tuple[str, Any, Any]] = [(nm, fn, p) for nm, fn in figs]
    if study is not None:
        items += [
            ("path_learners_epochs", plot_learners_vs_lambda, study),
            ("path_learners_subopt", _plot_final_subopt, study),
        ]
    written = []
    for nm, fn, obj in items:
        written += _mpl.save(fn(obj), out, nm, formats, dpi=dpi)
    return written


# --------------------------------------------------------------------------- exact path


def _exact_range(ep: Any, C_range: Sequence[float] | None) -> tuple[float, float]:
    """The C range to draw, inside the path's own ``[bounds[0], C_end]``.

    Given, else from a decade below the first breakpoint to a decade past the last; a
    path that starts at a ``C_min`` (a grid's range) is drawn from there.
    """
    start = float(ep.bounds[0])
    if C_range is not None:
        lo, hi = (float(C_range[0]), float(C_range[1]))
        if not (0 < lo < hi):
            raise ParameterError(f"C_range must be 0 < lo < hi, got {C_range!r}")
    else:
        bps = ep.breakpoints
        lo = float(bps[0]) / 10 if bps.size else 1e-3
        hi = float(bps[-1]) * 10 if bps.size else 1e3
    lo, hi = max(lo, start), min(hi, ep.C_end)
    if not lo < hi:
        raise ParameterError(
            f"C_range {C_range!r} is outside this path's [{start:.6g}, {ep.C_end:.6g}]"
        )
    return lo, hi


def _exact_Cs(ep: Any, lo: float, hi: float, num: int = 400) -> np.ndarray:
    """A fine log grid plus every breakpoint in [lo, hi]: exact polylines in C."""
    bps = ep.breakpoints[(ep.breakpoints >= lo) & (ep.breakpoints <= hi)]
    return np.unique(np.concatenate([np.geomspace(lo, hi, num), bps]))


def _mark_breakpoints(ax: Any, ep: Any, lo: float, hi: float) -> None:
    bps = ep.breakpoints[(ep.breakpoints >= lo) & (ep.breakpoints <= hi)]
    if bps.size:
        ax.vlines(
            bps,
            0.0,
            0.035,
            transform=ax.get_xaxis_transform(),
            color="0.35",
            lw=0.6,
            label=f"breakpoints ({bps.size} in view)",
        )
    c0 = ep.min_margin_sv_C
    if 0 < c0 < math.inf and lo <= c0 <= hi:
        ax.axvline(c0, color="0.4", ls=":", lw=1, label=f"$C_0$ = {c0:.3g} (first margin SV)")
    if ep.separable and math.isfinite(ep.C_star) and lo <= ep.C_star <= hi:
        ax.axvline(
            ep.C_star,
            color="C3",
            ls="--",
            lw=1,
            label=f"$C^\\star$ = {ep.C_star:.3g} (= hard margin above)",
        )
    best = _exact_best(ep, lo, hi)
    if best is not None:
        ax.axvline(best[0], **_BEST, label=_best_label(*best))


def _exact_best(ep: Any, lo: float, hi: float, holdout: Any = None) -> tuple[float, float] | None:
    """The best held-out C in [lo, hi] and its error, or None without a held-out set.

    Searched on the fine grid (with every breakpoint).
    """
    holdout = ep.holdout if holdout is None else holdout
    if holdout is None:
        return None
    Cs = _exact_Cs(ep, lo, hi)
    err = ep.errors(Cs, holdout)
    k = best_holdout_C(Cs, err)
    return None if k is None else (float(Cs[k]), float(err[k]))


def plot_exact_coefficients(
    ep: ExactPath,
    ax: Axes | None = None,
    max_features: int = 15,
    C_range: Sequence[float] | None = None,
    feature_names: Sequence[str] | None = None,
) -> Axes:
    """Coefficient paths ``w_j(C)`` and ``b(C)`` of an exact path, breakpoints marked.

    Each coefficient is named at its right end (see :func:`plot_coefficients`).

    Parameters
    ----------
    ep : ExactPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.
    max_features : int
        Draw the largest ``|w_j|`` at the right end of the range.
    C_range : (float, float), optional
        Default: a decade around the breakpoints.
    feature_names : sequence of str, optional
        Names of ``w_j`` (default: the path's data's ``feature_names`` if any, else
        ``w_j``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin import regularization_path
    >>> ax = plot_exact_coefficients(regularization_path(make_separable(20, 2), exact=True))
    >>> ax.get_xscale()
    'log'
    """
    ax = _mpl.axes(ax, _SIZE)
    lo, hi = _exact_range(ep, C_range)
    Cs = _exact_Cs(ep, lo, hi)
    W, B = ep.coefficients(Cs)
    top, labels, colors = _coefficient_lines(
        ax, Cs, W, max_features, _feature_names(ep, feature_names)
    )
    if ep.intercept != "none":
        ax.semilogx(Cs, B, lw=1.2, ls="--", color="k", label="intercept $b$")
    _mark_breakpoints(ax, ep, lo, hi)
    ax.set_xlabel("$C$")
    ax.set_ylabel("$w_j(C)$, $b(C)$")
    shown = "" if top.size == ep.d else f" ({top.size} largest of {ep.d})"
    ax.set_title(f"Exact coefficient paths{shown}", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    _label_coefficients(ax, Cs, W, top, labels, colors)
    return ax


def plot_exact_width(
    ep: ExactPath, ax: Axes | None = None, C_range: Sequence[float] | None = None
) -> Axes:
    """Margin width ``2/||w(C)||`` of an exact path (log-log), breakpoints marked.

    Parameters
    ----------
    ep : ExactPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.
    C_range : (float, float), optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin import regularization_path
    >>> ax = plot_exact_width(regularization_path(make_separable(20, 2), exact=True))
    >>> ax.get_yscale()
    'log'
    """
    ax = _mpl.axes(ax, _SIZE)
    lo, hi = _exact_range(ep, C_range)
    Cs = _exact_Cs(ep, lo, hi)
    W, _ = ep.coefficients(Cs)
    nw = np.linalg.norm(W, axis=1)
    with np.errstate(divide="ignore"):
        width = np.where(nw > 0, 2.0 / np.where(nw > 0, nw, 1.0), np.inf)
    ax.loglog(Cs, width, lw=1.4, label="width $2/\\|w(C)\\|$")
    _mark_breakpoints(ax, ep, lo, hi)
    ax.set_ylabel("margin width $2/\\|w\\|$")
    _finish(ax, f"Margin width along the exact path ({ep.data_name})")
    return ax


def plot_exact_support_vectors(
    ep: ExactPath, ax: Axes | None = None, C_range: Sequence[float] | None = None
) -> Axes:
    """Set sizes of an exact path: margin SVs (elbow) and bound SVs, a step per breakpoint.

    Parameters
    ----------
    ep : ExactPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.
    C_range : (float, float), optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin import regularization_path
    >>> ax = plot_exact_support_vectors(regularization_path(make_separable(20, 2), exact=True))
    >>> len(ax.get_lines()) >= 2
    True
    """
    ax = _mpl.axes(ax, _SIZE)
    lo, hi = _exact_range(ep, C_range)
    k0 = ep.segment_of(lo)
    k1 = ep.segment_of(hi)
    xs = np.concatenate([[lo], ep.bounds[k0 + 1 : k1 + 1], [hi]])
    ne = np.concatenate([ep.n_elbow[k0 : k1 + 1], [ep.n_elbow[k1]]])
    nl = np.concatenate([ep.n_left[k0 : k1 + 1], [ep.n_left[k1]]])
    ax.step(xs, ne, where="post", lw=1.2, label="margin SVs (elbow, $0<\\alpha_i<C$)")
    ax.step(xs, nl, where="post", lw=1.2, ls="--", label="bound SVs ($\\alpha_i=C$)")
    ax.set_xscale("log")
    _mark_breakpoints(ax, ep, lo, hi)
    ax.set_ylabel("count")
    _finish(ax, f"Support vectors along the exact path ($n$ = {ep.n})")
    return ax


def plot_exact_errors(
    ep: ExactPath,
    ax: Axes | None = None,
    holdout: Any = None,
    C_range: Sequence[float] | None = None,
) -> Axes:
    """Training (and held-out) error of an exact path, evaluated exactly on a fine grid.

    Parameters
    ----------
    ep : ExactPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.
    holdout : Dataset, optional
        Default: the path's own holdout set, if any.
    C_range : (float, float), optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> from maxmargin import regularization_path
    >>> ax = plot_exact_errors(regularization_path(make_gaussians(30, 2), 10.0, exact=True))
    >>> ax.get_xscale()
    'log'
    """
    ax = _mpl.axes(ax, _SIZE)
    lo, hi = _exact_range(ep, C_range)
    Cs = _exact_Cs(ep, lo, hi)
    ax.semilogx(Cs, ep.errors(Cs), lw=1.2, label="training error")
    holdout = ep.holdout if holdout is None else holdout
    if holdout is not None:
        ax.semilogx(Cs, ep.errors(Cs, holdout), lw=1.2, ls="--", label="held-out error")
    _mark_breakpoints(ax, ep, lo, hi)
    best = _exact_best(ep, lo, hi, holdout)
    if best is not None:
        _star(ax, *best)
    ax.set_ylabel("error rate ($y f(x) \\leq 0$)")
    _finish(ax, "Error along the exact path")
    return ax


def _exact_objective_parts(ep: Any, Cs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``||w~(C)||^2`` and ``sum_i xi_i(C)`` on the grid ``Cs``, from the exact pieces.

    The slack is exactly 0 on a segment with no bound SV (every margin is >= 1 there):
    computed from w(C), b(C) it would be rounding noise (``C sum xi ~ 1e-6`` past C*).
    """
    from ..problem import SVMProblem

    W, B = ep.coefficients(Cs)
    prob = SVMProblem(
        ep.data, C=1.0, intercept=ep.intercept, intercept_scaling=ep.intercept_scaling
    )
    slack = prob.hinge(W, B).sum(axis=0)
    k = np.atleast_1d(ep.segment_of(Cs))
    right = np.minimum(k + 1, ep.n_segments - 1)  # at a breakpoint, the segment after it
    at_bp = Cs == ep.bounds[k + 1]
    slack[(ep.n_left[k] == 0) | (at_bp & (ep.n_left[right] == 0))] = 0.0
    return np.asarray(prob.regularizer(W, B)), slack


def plot_exact_objective(
    ep: ExactPath, ax: Axes | None = None, C_range: Sequence[float] | None = None
) -> Axes:
    r"""The optimal objective :math:`P(C)` of an exact path and its two parts.

    As :func:`plot_objective`, evaluated exactly on a fine grid, breakpoints marked.

    Parameters
    ----------
    ep : ExactPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.
    C_range : (float, float), optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> from maxmargin import regularization_path
    >>> ax = plot_exact_objective(regularization_path(make_gaussians(30, 2), 10.0, exact=True))
    >>> ax.get_yscale()
    'log'
    """
    ax = _mpl.axes(ax, _SIZE)
    lo, hi = _exact_range(ep, C_range)
    Cs = _exact_Cs(ep, lo, hi)
    _objective_lines(ax, Cs, *_exact_objective_parts(ep, Cs))
    _mark_breakpoints(ax, ep, lo, hi)
    ax.set_ylabel("objective ($C$ form)")
    _finish(ax, "The optimal objective and its two parts (exact path)")
    return ax


def plot_exact_tradeoff(
    ep: ExactPath, ax: Axes | None = None, C_range: Sequence[float] | None = None
) -> Axes:
    r"""Total slack against squared norm along an exact path; a dot at each breakpoint.

    :math:`{\sum}_i \xi_i` against :math:`\|\tilde w\|^2` (:func:`plot_tradeoff`); a dot
    at each breakpoint in view.

    Parameters
    ----------
    ep : ExactPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.
    C_range : (float, float), optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> from maxmargin import regularization_path
    >>> ax = plot_exact_tradeoff(regularization_path(make_gaussians(30, 2), 10.0, exact=True))
    >>> ax.get_xscale()
    'log'
    """
    ax = _mpl.axes(ax, _SIZE)
    lo, hi = _exact_range(ep, C_range)
    Cs = _exact_Cs(ep, lo, hi)
    reg, slack = _exact_objective_parts(ep, Cs)
    _tradeoff_line(ax, Cs, reg, slack, None)
    at = np.isin(Cs, ep.breakpoints)
    if at.any():
        ax.plot(
            reg[at],
            slack[at],
            "o",
            ms=3,
            color="0.35",
            label=f"breakpoints ({int(at.sum())} in view)",
        )
    best = _exact_best(ep, lo, hi)
    if best is not None:
        k = int(np.searchsorted(Cs, best[0]))
        ax.plot(
            [reg[k]],
            [slack[k]],
            marker="*",
            ms=11,
            color=_BEST["color"],
            mec="k",
            mew=0.5,
            ls="none",
            zorder=5,
            label=_best_label(*best),
        )
    ax.set_ylabel(r"total slack ${\sum}_i \xi_i$")
    _finish(ax, "Slack against norm along the exact path", xlabel=r"$\|\tilde w\|^2$")
    return ax


def save_exact_path_figures(
    ep: ExactPath,
    out_dir: str | Path,
    *,
    formats: Sequence[str] = ("png", "svg"),
    C_range: Sequence[float] | None = None,
    dpi: int = 150,
    feature_names: Sequence[str] | None = None,
) -> list[Path]:
    """Write the exact path's figures, one file per format.

    ``exact_path_coefficients``, ``exact_path_width``, ``exact_path_support_vectors``,
    ``exact_path_errors``, ``exact_path_objective``, ``exact_path_tradeoff``.

    Parameters
    ----------
    ep : ExactPath
    out_dir : str or Path
        Created when missing.
    formats : sequence of str
    C_range : (float, float), optional
    dpi : int
        Resolution of the raster formats.
    feature_names : sequence of str, optional
        Names of the coefficients (default: the data's, if any).

    Returns
    -------
    list of pathlib.Path

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import make_separable
    >>> from maxmargin import regularization_path
    >>> ep = regularization_path(make_separable(20, 2, seed=0), exact=True)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     files = save_exact_path_figures(ep, tmp, formats=("png",))
    >>> [f.name for f in files][:2]
    ['exact_path_coefficients.png', 'exact_path_width.png']
    """
    formats = _mpl.check_formats(formats)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figs: list[tuple[str, Any]] = [
        (
            "exact_path_coefficients",
            lambda e, **kw: plot_exact_coefficients(e, feature_names=feature_names, **kw),
        ),
        ("exact_path_width", plot_exact_width),
        ("exact_path_support_vectors", plot_exact_support_vectors),
        ("exact_path_errors", plot_exact_errors),
        ("exact_path_objective", plot_exact_objective),
        ("exact_path_tradeoff", plot_exact_tradeoff),
    ]
    written = []
    for nm, fn in figs:
        written += _mpl.save(fn(ep, C_range=C_range), out, nm, formats, dpi=dpi)
    return written
