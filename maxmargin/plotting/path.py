r"""Figures of a C path, on a grid or exact (matplotlib imported lazily; Agg without a display).

A grid path is drawn at its points (markers), an exact path exactly at every breakpoint in
view and on a fine log grid between them, the breakpoints ticked. Each ``plot_*`` draws
into ``ax`` (a new figure when None), with the guides ``C_0``, ``C*`` and the best
held-out C; :func:`save_path_figures` writes them all. See ``docs/path.md``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..conventions import weight_names
from ..evaluation.path.exact import ExactPath
from ..exceptions import ParameterError
from ..problem import SVMProblem
from . import _mpl

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

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
]

#: The axes box of the path figures, in inches (legends and labels go to its right).
_SIZE = (4.8, 3.2)
_BEST = {"color": "C2", "ls": "-.", "lw": 1.0}


def _range(p: Any, C_range: Sequence[float] | None) -> tuple[float, float]:
    """The C range to draw: given, else a grid's, or an exact path's breakpoints +- a decade.

    Always clipped to the path's own range.
    """
    if isinstance(p, ExactPath):
        start, end = float(p.bounds[0]), p.C_end
        bps = p.breakpoints
        auto = (bps[0] / 10, bps[-1] * 10) if bps.size else (1e-3, 1e3)
    else:
        start, end = float(p.C[0]), float(p.C[-1])
        auto = (start, end)
    if C_range is not None:
        auto = (float(C_range[0]), float(C_range[1]))
        if not 0 < auto[0] < auto[1]:
            raise ParameterError(f"C_range must be 0 < lo < hi, got {C_range!r}")
    lo, hi = max(float(auto[0]), start), min(float(auto[1]), end)
    if hi < lo or (hi == lo and isinstance(p, ExactPath)):
        raise ParameterError(f"C_range {C_range!r} is outside this path's [{start:.6g}, {end:.6g}]")
    return lo, hi


class _Curves:
    """The x values ``C`` and each quantity (worked out once, when asked) of either kind of path."""

    def __init__(self, p: Any, C_range: Sequence[float] | None, holdout: Any = None) -> None:
        self.p, self.exact = p, isinstance(p, ExactPath)
        self.lo, self.hi = _range(p, C_range)
        self.kind = "exact path" if self.exact else "path"
        self.marker = None if self.exact else "o"
        if self.exact:
            bps = p.breakpoints[(p.breakpoints >= self.lo) & (p.breakpoints <= self.hi)]
            self.breakpoints = bps
            self.C = np.unique(np.concatenate([np.geomspace(self.lo, self.hi, 400), bps]))
            self.w, self.b = p.coefficients(self.C)
            self.holdout = p.holdout if holdout is None else holdout
            sep, c_star = p.separable, p.C_star
        else:
            keep = (p.C >= self.lo) & (p.C <= self.hi)
            self.breakpoints, self.C, self.w, self.b = None, p.C[keep], p.w[keep], p.b[keep]
            self._keep, self.holdout = keep, holdout
            h = p.hard_margin_limit
            sep, c_star = h is not None and h.separable, math.inf if h is None else h.C_star
        self.C_star = c_star if sep and math.isfinite(c_star) else None

    @cached_property
    def width(self) -> np.ndarray:
        if not self.exact:
            return self.p.width[self._keep]
        nw = np.linalg.norm(self.w, axis=1)
        with np.errstate(divide="ignore"):
            return np.where(nw > 0, 2.0 / np.where(nw > 0, nw, 1.0), np.inf)

    @cached_property
    def hard_width(self) -> float | None:
        """``2/||w*||`` of the hard-margin solution (None when not separable or unknown)."""
        if self.exact:
            if self.C_star is None:
                return None
            w = self.p.coefficients(self.C_star)[0]
        else:
            h = self.p.hard_margin_limit
            w = None if h is None or not h.separable else h.w
        nw = 0.0 if w is None else float(np.linalg.norm(w))
        return 2.0 / nw if nw > 0 else None

    @cached_property
    def train_error(self) -> np.ndarray:
        return self.p.errors(self.C) if self.exact else self.p.train_error[self._keep]

    @cached_property
    def holdout_error(self) -> np.ndarray | None:
        """The held-out error at each C (None without a held-out set)."""
        if self.holdout is not None:
            R = (np.asarray(self.holdout.X @ self.w.T) + self.b) * self.holdout.y[:, None]
            return (R <= 0).mean(axis=0)
        err = None if self.exact else self.p.holdout_error[self._keep]
        return None if err is None or np.isnan(err).all() else err

    @cached_property
    def best(self) -> int | None:
        """The index of the best held-out C: the smallest C with the least held-out error."""
        err = self.holdout_error
        return None if err is None or not err.size else int(np.nanargmin(err))

    @cached_property
    def objective_parts(self) -> tuple[np.ndarray, np.ndarray]:
        """``||w~(C)||^2`` and ``sum_i s_i xi_i(C)``.

        An exact path's slack is set to 0 on a segment with no bound SV: computed from
        w(C), b(C) it would be rounding noise (``C sum xi ~ 1e-6`` past C*).
        """
        p = self.p
        if not self.exact:
            return p.norm_reg[self._keep] ** 2, p.slack_sum[self._keep]
        prob = SVMProblem(
            p._need_data("the objective's figure"),
            C=1.0,
            intercept=p.intercept,
            intercept_scaling=p.intercept_scaling,
            sample_weight=p.weights,
        )
        xi = prob.hinge(self.w, self.b)
        slack = xi.sum(axis=0) if p.weights is None else p.weights @ xi
        k = np.atleast_1d(p.segment_of(self.C))
        right = np.minimum(k + 1, p.n_segments - 1)  # at a breakpoint, the segment after it
        at_bp = self.C == p.bounds[k + 1]
        slack[(p.n_left[k] == 0) | (at_bp & (p.n_left[right] == 0))] = 0.0
        return np.asarray(prob.regularizer(self.w, self.b)), slack

    def support_vectors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
        """``(C, margin SVs, bound SVs, drawstyle)``: a step per breakpoint on an exact path."""
        p = self.p
        if not self.exact:
            keep = self._keep
            return self.C, p.n_margin_sv[keep], p.n_bound_sv[keep], "default"
        k0, k1 = p.segment_of(self.lo), p.segment_of(self.hi)
        xs = np.concatenate([[self.lo], p.bounds[k0 + 1 : k1 + 1], [self.hi]])
        ne = np.concatenate([p.n_elbow[k0 : k1 + 1], [p.n_elbow[k1]]])
        nl = np.concatenate([p.n_left[k0 : k1 + 1], [p.n_left[k1]]])
        return xs, ne, nl, "steps-post"


def _guides(ax: Any, cv: _Curves) -> None:
    """The breakpoints' ticks (exact path), C_0, C* and the best held-out C, in view."""
    bps = cv.breakpoints
    if bps is not None and bps.size:
        label = f"breakpoints ({bps.size} in view)"
        ax.vlines(
            bps, 0.0, 0.035, transform=ax.get_xaxis_transform(), color="0.35", lw=0.6, label=label
        )
    c0 = cv.p.min_margin_sv_C
    if 0 < c0 < math.inf and cv.lo <= c0 <= cv.hi:
        ax.axvline(c0, color="0.4", ls=":", lw=1, label=f"$C_0$ = {c0:.3g} (first margin SV)")
    if cv.C_star is not None and cv.lo <= cv.C_star <= cv.hi:
        label = f"$C^\\star$ = {cv.C_star:.3g} (= hard margin above)"
        ax.axvline(cv.C_star, color="C3", ls="--", lw=1, label=label)
    if cv.best is not None:
        ax.axvline(cv.C[cv.best], **_BEST, label=_best_label(cv))


def _best_label(cv: _Curves) -> str:
    k = cv.best
    assert k is not None and cv.holdout_error is not None
    return f"best held-out $C$ = {cv.C[k]:.3g} (error {cv.holdout_error[k]:.3g})"


def _star(ax: Any, x: float, y: float, label: str = "_best") -> None:
    """The best held-out C's point on a curve."""
    style = {"ms": 11, "color": _BEST["color"], "mec": "k", "mew": 0.5, "zorder": 5}
    ax.plot([x], [y], marker="*", ls="none", label=label, **style)


def _finish(ax: Any, ylabel: str, title: str, xlabel: str = "$C$") -> Axes:
    ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    _mpl.legend(ax)
    return ax


def plot_width(
    p: RegularizationPath | ExactPath,
    ax: Axes | None = None,
    C_range: Sequence[float] | None = None,
) -> Axes:
    """Margin width ``2/||w(C)||`` against C (log-log); the hard-margin width a line.

    Parameters
    ----------
    p : RegularizationPath or ExactPath
    ax : matplotlib.axes.Axes, optional
    C_range : (float, float), optional
        The C range drawn (default: a grid path's points; an exact path's breakpoints
        with a decade on each side).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_separable, regularization_path
    >>> ax = plot_width(regularization_path(make_separable(20, 2, seed=0), C="1e-2:1e2:4"))
    >>> ax.get_xscale(), ax.get_yscale(), len(ax.lines) >= 2
    ('log', 'log', True)
    >>> ax = plot_width(regularization_path(make_separable(20, 2, seed=0), exact=True))
    >>> ax.get_yscale()
    'log'
    """
    ax = _mpl.axes(ax, _SIZE)
    cv = _Curves(p, C_range)
    ax.loglog(cv.C, cv.width, marker=cv.marker, ms=3, label="width $2/\\|w(C)\\|$")
    if cv.hard_width is not None:
        label = "hard-margin width $2/\\|w^\\star\\|$"
        ax.axhline(cv.hard_width, color="C3", lw=0.8, alpha=0.6, label=label)
    _guides(ax, cv)
    if cv.best is not None and np.isfinite(cv.width[cv.best]):
        _star(ax, cv.C[cv.best], cv.width[cv.best])
    return _finish(
        ax, "margin width $2/\\|w\\|$", f"Margin width along the {cv.kind} ({p.data_name})"
    )


def plot_support_vectors(
    p: RegularizationPath | ExactPath,
    ax: Axes | None = None,
    C_range: Sequence[float] | None = None,
) -> Axes:
    """Number of margin SVs (``0 < alpha < C``) and bound SVs (``alpha = C``) against C.

    On an exact path, a step at each breakpoint (the sizes of the elbow and left sets).

    Parameters
    ----------
    p : RegularizationPath or ExactPath
    ax : matplotlib.axes.Axes, optional
    C_range : (float, float), optional

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
    cv = _Curves(p, C_range)
    xs, margin, bound, steps = cv.support_vectors()
    style: dict[str, Any] = {"ms": 3, "drawstyle": steps}
    ax.plot(xs, margin, marker=cv.marker, label="margin SVs ($0<\\alpha_i<C$)", **style)
    ax.plot(xs, bound, "--", marker=cv.marker and "s", label="bound SVs ($\\alpha_i=C$)", **style)
    ax.set_xscale("log")
    _guides(ax, cv)
    return _finish(ax, "count", f"Support vectors along the {cv.kind} ($n$ = {p.n})")


def plot_errors(
    p: RegularizationPath | ExactPath,
    ax: Axes | None = None,
    C_range: Sequence[float] | None = None,
    holdout: Any = None,
) -> Axes:
    """Training (and held-out) error against C.

    Parameters
    ----------
    p : RegularizationPath or ExactPath
    ax : matplotlib.axes.Axes, optional
    C_range : (float, float), optional
    holdout : Dataset, optional
        Held-out examples (default: the path's own held-out set, if any).

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
    cv = _Curves(p, C_range, holdout)
    ax.semilogx(cv.C, cv.train_error, marker=cv.marker, ms=3, label="training error")
    if cv.holdout_error is not None:
        marker = cv.marker and "s"
        ax.semilogx(cv.C, cv.holdout_error, "--", marker=marker, ms=3, label="held-out error")
    _guides(ax, cv)
    if cv.best is not None and cv.holdout_error is not None:
        _star(ax, cv.C[cv.best], cv.holdout_error[cv.best])
    return _finish(ax, "error rate ($y f(x) \\leq 0$)", f"Error along the {cv.kind}")


def plot_coefficients(
    p: RegularizationPath | ExactPath,
    ax: Axes | None = None,
    max_features: int = 15,
    C_range: Sequence[float] | None = None,
    feature_names: Sequence[str] | None = None,
) -> Axes:
    """Coefficient paths ``w_j(C)`` (and ``b(C)`` dashed black), each named at its right end.

    The ``max_features`` largest ``|w_j|`` at the right end, named as in ``grid.csv``:
    ``w[<name>]``, else ``w[j]`` (0-based).

    Parameters
    ----------
    p : RegularizationPath or ExactPath
    ax : matplotlib.axes.Axes, optional
    max_features : int
        How many coefficients to draw.
    C_range : (float, float), optional
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
    >>> ep = regularization_path(make_gaussians(30, 2, seed=0), 10.0, exact=True)
    >>> sorted(t.get_text() for t in plot_coefficients(ep).texts)
    ['w[0]', 'w[1]']
    """
    ax = _mpl.axes(ax, _SIZE)
    cv = _Curves(p, C_range)
    if feature_names is None:  # the path's names (its data's)
        feature_names = p.feature_names
    names = [n.replace("$", r"\$") for n in weight_names(feature_names, p.d)]
    top = np.argsort(-np.abs(cv.w[-1]), kind="stable")[:max_features]
    labels = [names[j] for j in top]
    colors = _mpl.colors(len(top))
    for k, (j, lab) in enumerate(zip(top, labels, strict=True)):
        ls = "-" if k < 10 else "--"
        ax.semilogx(cv.C, cv.w[:, j], lw=1.2, color=colors[k], ls=ls, label=lab)
    ax.axhline(0, color="0.6", lw=0.5)
    if p.intercept != "none":
        ax.semilogx(cv.C, cv.b, lw=1.2, ls="--", color="k", label="intercept $b$")
    _guides(ax, cv)
    ax.set_xlabel("$C$")
    ax.set_ylabel("$w_j(C)$" + (", $b(C)$" if p.intercept != "none" else ""))
    shown = "" if top.size == p.d else f" ({top.size} largest of {p.d})"
    ax.set_title(f"Coefficients along the {cv.kind}{shown}", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    # each name at its line's right end (the limits fixed first); the guides' legend after
    ax.set_xlim(ax.get_xlim())
    width = _mpl.end_labels(ax, float(cv.C[-1]), cv.w[-1, top].tolist(), labels, colors)
    handles, texts = ax.get_legend_handles_labels()
    guides = [(h, t) for h, t in zip(handles, texts, strict=True) if t not in labels]
    if guides:
        _mpl.legend(ax, after=width, handles=[h for h, _ in guides], labels=[t for _, t in guides])
    return ax


def plot_objective(
    p: RegularizationPath | ExactPath,
    ax: Axes | None = None,
    C_range: Sequence[float] | None = None,
) -> Axes:
    r"""The optimal objective :math:`P(C)` against C, with its two parts (log-log).

    :math:`P(C) = \tfrac12\|\tilde w\|^2 + C{\sum}_i s_i \xi_i` (``s_i`` the example
    weights); each part drawn where positive (log axes).

    Parameters
    ----------
    p : RegularizationPath or ExactPath
    ax : matplotlib.axes.Axes, optional
    C_range : (float, float), optional

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
    cv = _Curves(p, C_range)
    reg, slack = cv.objective_parts
    half, paid = 0.5 * np.asarray(reg, float), cv.C * np.asarray(slack, float)
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
        ax.loglog(cv.C[keep], values[keep], label=label, **style)
    _guides(ax, cv)
    return _finish(
        ax, "objective ($C$ form)", f"The optimal objective along the {cv.kind}, and its two parts"
    )


def plot_tradeoff(
    p: RegularizationPath | ExactPath,
    ax: Axes | None = None,
    C_range: Sequence[float] | None = None,
) -> Axes:
    r"""The trade-off the path walks: total slack against squared norm, one point per C.

    The total slack :math:`{\sum}_i s_i \xi_i` against :math:`\|\tilde w\|^2` (C grows to
    the right); on an exact path a dot at each breakpoint in view.

    Parameters
    ----------
    p : RegularizationPath or ExactPath
    ax : matplotlib.axes.Axes, optional
    C_range : (float, float), optional

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
    cv = _Curves(p, C_range)
    reg, slack = cv.objective_parts
    label = r"$(\|\tilde w(C)\|^2, {\sum}_i \xi_i(C))$"
    ax.plot(reg, slack, marker=cv.marker, ms=3, lw=1.4, color="k", label=label)
    ax.set_xscale("log")
    # the ends (slack falls as the norm grows): each label on the outer side of its point
    ax.margins(x=0.04, y=0.1)
    for k, offset, ha, va in ((0, (4, 4), "left", "bottom"), (-1, (-4, -4), "right", "top")):
        ax.annotate(
            f"$C$ = {cv.C[k]:.3g}",
            (reg[k], slack[k]),
            xytext=offset,
            ha=ha,
            va=va,
            textcoords="offset points",
            fontsize=7,
            color="0.3",
        )
    if cv.breakpoints is not None:
        at = np.isin(cv.C, cv.breakpoints)
        if at.any():
            label = f"breakpoints ({int(at.sum())} in view)"
            ax.plot(reg[at], slack[at], "o", ms=3, color="0.35", label=label)
    if cv.best is not None:
        _star(ax, reg[cv.best], slack[cv.best], _best_label(cv))
    return _finish(
        ax,
        r"total slack ${\sum}_i \xi_i$",
        f"Slack against norm along the {cv.kind}",
        xlabel=r"$\|\tilde w\|^2$",
    )


def plot_learners_vs_lambda(
    study: LearnerPathStudy, ax: Axes | None = None, eps: float | None = None
) -> Axes:
    r"""Epochs to reach relative suboptimality ``eps`` against lambda (log-log).

    A slope -1 guide shows Pegasos' ``1/(lambda T)`` rate; open markers at the budget: not
    reached.

    Parameters
    ----------
    study : LearnerPathStudy
    ax : matplotlib.axes.Axes, optional
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
    return _finish(
        ax,
        f"epochs to relative suboptimality ${e:g}$",
        "Learners along the path (open: not reached)",
        xlabel=r"$\lambda$",
    )


def _plot_final_subopt(study: Any, ax: Any = None) -> Any:
    ax = _mpl.axes(ax, _SIZE)
    for j, nm in enumerate(study.learners):
        subopt = np.maximum(study.final_rel_subopt[j], 1e-16)
        ax.loglog(study.lam, subopt, ms=3, label=nm, **_mpl.series_style(j))
    return _finish(
        ax,
        r"$(F(\tilde w_T) - F^\star)/F^\star$",
        f"Relative suboptimality after {study.epochs} epochs",
        xlabel=r"$\lambda$",
    )


def save_path_figures(
    p: RegularizationPath | ExactPath,
    out_dir: str | Path,
    *,
    study: LearnerPathStudy | None = None,
    formats: Sequence[str] = ("png", "svg"),
    C_range: Sequence[float] | None = None,
    dpi: int = 150,
    feature_names: Sequence[str] | None = None,
) -> list[Path]:
    """Write every figure of a path, ``path_<quantity>.<format>`` (+ the learners' with ``study``).

    An exact path read without its data gives the three that need none: width, support
    vectors, coefficients.

    Parameters
    ----------
    p : RegularizationPath or ExactPath
    out_dir : str or Path
        Created when missing.
    study : LearnerPathStudy, optional
        Adds the learners' two figures.
    formats : sequence of str
        matplotlib's format names.
    C_range : (float, float), optional
    dpi : int
        Resolution of the raster formats.
    feature_names : sequence of str, optional
        Names of the coefficients (default: the path's own or its data's, if any).

    Returns
    -------
    list of pathlib.Path
        Every file written.

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import make_separable, regularization_path
    >>> p = regularization_path(make_separable(20, 2, seed=0), C="1e-2:1e2:4")
    >>> ep = regularization_path(make_separable(20, 2, seed=0), exact=True)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     files = save_path_figures(p, tmp, formats=("png", "svg"))
    ...     exact = save_path_figures(ep, tmp, formats=("png",))
    >>> len(files), [f.name for f in exact][:2]
    (12, ['path_width.png', 'path_support_vectors.png'])
    """
    formats = _mpl.check_formats(formats)
    _range(p, C_range)  # a range off the path fails before anything is written
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figs: dict[str, Any] = {
        "path_width": plot_width,
        "path_support_vectors": plot_support_vectors,
        "path_errors": plot_errors,
        "path_coefficients": functools.partial(plot_coefficients, feature_names=feature_names),
        "path_objective": plot_objective,
        "path_tradeoff": plot_tradeoff,
    }
    if isinstance(p, ExactPath) and p.data is None:  # errors, objective: from the data
        figs = {k: figs[k] for k in ("path_width", "path_support_vectors", "path_coefficients")}
    written = []
    for nm, fn in figs.items():
        written += _mpl.save(fn(p, C_range=C_range), out, nm, formats, dpi=dpi)
    if study is not None:
        for nm, fn in (
            ("path_learners_epochs", plot_learners_vs_lambda),
            ("path_learners_subopt", _plot_final_subopt),
        ):
            written += _mpl.save(fn(study), out, nm, formats, dpi=dpi)
    return written
