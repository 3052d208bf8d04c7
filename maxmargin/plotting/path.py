"""Figures of a regularization path (matplotlib imported lazily; Agg without a display).

Each function draws into ``ax`` when given (else a new figure) and returns the Axes;
:func:`save_path_figures` writes them all as PNG and SVG. The vertical guides are the
analytical thresholds of :mod:`maxmargin.path`: ``C_0`` (below it no margin SV) and,
on separable data, ``C*`` (above it the soft optimum is the hard one).

The ``plot_exact_*`` functions draw an :class:`~maxmargin.exact_path.ExactPath`: every
curve is evaluated exactly (at every breakpoint in view and on a fine log grid between),
and the breakpoints are marked by ticks along the x axis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import ParameterError
from . import _mpl

__all__ = [
    "plot_width",
    "plot_support_vectors",
    "plot_errors",
    "plot_coefficients",
    "plot_learners_vs_lambda",
    "save_path_figures",
    "plot_exact_coefficients",
    "plot_exact_width",
    "plot_exact_support_vectors",
    "plot_exact_errors",
    "save_exact_path_figures",
]


def _guides(ax: Any, p: Any) -> None:
    c0 = p.min_margin_sv_C
    if 0 < c0 < math.inf and p.C[0] <= c0 <= p.C[-1]:
        ax.axvline(c0, color="0.4", ls=":", lw=1, label=f"$C_0$ = {c0:.3g} (first margin SV)")
    h = p.hard_margin_limit
    if h is not None and h.separable and h.C_star <= p.C[-1]:
        ax.axvline(h.C_star, color="C3", ls="--", lw=1,
                   label=f"$C^*$ = {h.C_star:.3g} (= hard margin above)")


def plot_width(p: Any, ax: Any = None) -> Any:
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
    ax = _mpl.axes(ax, figsize=(6.4, 4.2))
    ax.loglog(p.C, p.width, "o-", ms=3, label="width $2/\\|w(C)\\|$")
    h = p.hard_margin_limit
    if h is not None and h.separable and h.w is not None:
        nw = float(np.linalg.norm(h.w))
        if nw > 0:
            ax.axhline(2.0 / nw, color="C3", lw=0.8, alpha=0.6, label="hard-margin width")
    _guides(ax, p)
    ax.set_xlabel("C")
    ax.set_ylabel("margin width")
    ax.set_title(f"Margin width along the path ({p.data_name})", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def plot_support_vectors(p: Any, ax: Any = None) -> Any:
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
    ax = _mpl.axes(ax, figsize=(6.4, 4.2))
    ax.semilogx(p.C, p.n_margin_sv, "o-", ms=3, label="margin SVs ($0<\\alpha_i<C$)")
    ax.semilogx(p.C, p.n_bound_sv, "s-", ms=3, label="bound SVs ($\\alpha_i=C$)")
    _guides(ax, p)
    ax.set_xlabel("C")
    ax.set_ylabel("count")
    ax.set_title(f"Support vectors along the path (n = {p.n})", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def plot_errors(p: Any, ax: Any = None) -> Any:
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
    ax = _mpl.axes(ax, figsize=(6.4, 4.2))
    ax.semilogx(p.C, p.train_error, "o-", ms=3, label="training error")
    if not np.isnan(p.holdout_error).all():
        ax.semilogx(p.C, p.holdout_error, "s-", ms=3, label="held-out error")
    _guides(ax, p)
    ax.set_xlabel("C")
    ax.set_ylabel("error rate ($y f(x) \\leq 0$)")
    ax.set_title("Error along the path", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def plot_coefficients(p: Any, ax: Any = None, max_features: int = 20,
                      feature_names: Sequence[str] | None = None) -> Any:
    """Coefficient paths ``w_j(C)`` (the ``max_features`` largest at the last point),
    labelled by ``feature_names`` (default ``p.feature_names`` if any, else ``w_j``).

    Parameters
    ----------
    p : RegularizationPath
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; a new figure when None.
    max_features : int
        How many coefficients to draw.
    feature_names : sequence of str, optional
        Legend labels of ``w_j``.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_gaussians, regularization_path
    >>> p = regularization_path(make_gaussians(30, 5, seed=0), C="1e-2:1e2:3")
    >>> labels = plot_coefficients(p, max_features=3).get_legend_handles_labels()[1]
    >>> sum(lab.startswith("$w_") for lab in labels)
    3
    """
    ax = _mpl.axes(ax, figsize=(6.4, 4.2))
    names = feature_names if feature_names is not None else getattr(p, "feature_names", None)
    top = np.argsort(-np.abs(p.w[-1]))[:max_features]
    for j in top:
        ax.semilogx(p.C, p.w[:, j], lw=1, label=f"$w_{{{j + 1}}}$" if names is None
                    else names[j].replace("$", r"\$"))
    ax.axhline(0, color="0.6", lw=0.5)
    _guides(ax, p)
    ax.set_xlabel("C")
    ax.set_ylabel("$w_j(C)$")
    shown = "" if top.size == p.d else f" ({top.size} largest of {p.d})"
    ax.set_title(f"Coefficient paths{shown}", fontsize=9)
    if top.size <= 10:
        ax.legend(fontsize=7, ncol=2)
    return ax


def plot_learners_vs_lambda(study: Any, ax: Any = None, eps: float | None = None) -> Any:
    """Epochs to reach relative suboptimality ``eps`` against lambda (log-log).

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
    >>> plot_learners_vs_lambda(st).get_xlabel()
    'lambda'
    """
    ax = _mpl.axes(ax, figsize=(6.4, 4.2))
    q = 0 if eps is None else int(np.argmin([abs(e - eps) for e in study.eps]))
    e = study.eps[q]
    for j, nm in enumerate(study.learners):
        ep = study.epochs_to_eps[q, j]
        ok = np.isfinite(ep)
        line, = ax.loglog(study.lam[ok], ep[ok], "o-", ms=4, label=nm)
        if (~ok).any():
            ax.loglog(study.lam[~ok], np.full((~ok).sum(), study.epochs), "o", ms=5,
                      mfc="none", color=line.get_color())
    finite = np.isfinite(study.epochs_to_eps[q])
    if finite.any():
        j, i = np.argwhere(finite)[0]
        ref = study.epochs_to_eps[q, j, i] * study.lam[i] / study.lam
        ax.loglog(study.lam, ref, color="0.5", ls="--", lw=0.8, label="slope -1 (1/lambda)")
    ax.axhline(study.epochs, color="0.7", lw=0.6)
    ax.set_xlabel("lambda")
    ax.set_ylabel(f"epochs to relative suboptimality {e:g}")
    ax.set_title(f"Learners along the path (budget {study.epochs} epochs; open: not "
                 "reached)", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def _plot_final_subopt(study: Any, ax: Any = None) -> Any:
    ax = _mpl.axes(ax, figsize=(6.4, 4.2))
    for j, nm in enumerate(study.learners):
        ax.loglog(study.lam, np.maximum(study.final_rel_subopt[j], 1e-16), "o-", ms=3,
                  label=nm)
    ax.set_xlabel("lambda")
    ax.set_ylabel("relative suboptimality after the budget")
    ax.set_title(f"(F(w_T) - F*)/F* after {study.epochs} epochs", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def save_path_figures(p: Any, out_dir: str | Path, *, study: Any = None,
                      formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Write every path figure (and the learners' figures with ``study``).

    Files: ``path_width``, ``path_support_vectors``, ``path_errors``,
    ``path_coefficients`` (+ ``path_learners_epochs``, ``path_learners_subopt``), one
    per format.

    Parameters
    ----------
    p : RegularizationPath
    out_dir : str or Path
        Created when missing.
    study : LearnerPathStudy, optional
        Adds the learners' two figures.
    formats : sequence of str
        matplotlib's format names.

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
    8
    """
    formats = _mpl.check_formats(formats)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figs = [("path_width", plot_width), ("path_support_vectors", plot_support_vectors),
            ("path_errors", plot_errors), ("path_coefficients", plot_coefficients)]
    items: list[tuple[str, Any, Any]] = [(nm, fn, p) for nm, fn in figs]
    if study is not None:
        items += [("path_learners_epochs", plot_learners_vs_lambda, study),
                  ("path_learners_subopt", _plot_final_subopt, study)]
    written = []
    for nm, fn, obj in items:
        written += _mpl.save(fn(obj), out, nm, formats)
    return written


# --------------------------------------------------------------------------- exact path


def _exact_range(ep: Any, C_range: Sequence[float] | None) -> tuple[float, float]:
    """The C range to draw: given, else from a decade below the first breakpoint to a
    decade past the last (or C_end)."""
    if C_range is not None:
        lo, hi = (float(C_range[0]), float(C_range[1]))
        if not (0 < lo < hi):
            raise ParameterError(f"C_range must be 0 < lo < hi, got {C_range!r}")
        return lo, min(hi, ep.C_end)
    bps = ep.breakpoints
    lo = float(bps[0]) / 10 if bps.size else 1e-3
    hi = float(bps[-1]) * 10 if bps.size else 1e3
    return lo, min(hi, ep.C_end)


def _exact_Cs(ep: Any, lo: float, hi: float, num: int = 400) -> np.ndarray:
    """A fine log grid plus every breakpoint in [lo, hi]: exact polylines in C."""
    bps = ep.breakpoints[(ep.breakpoints >= lo) & (ep.breakpoints <= hi)]
    return np.unique(np.concatenate([np.geomspace(lo, hi, num), bps]))


def _mark_breakpoints(ax: Any, ep: Any, lo: float, hi: float) -> None:
    bps = ep.breakpoints[(ep.breakpoints >= lo) & (ep.breakpoints <= hi)]
    if bps.size:
        ax.vlines(bps, 0.0, 0.035, transform=ax.get_xaxis_transform(), color="0.35",
                  lw=0.6, label=f"breakpoints ({bps.size} in view)")
    c0 = ep.min_margin_sv_C
    if 0 < c0 < math.inf and lo <= c0 <= hi:
        ax.axvline(c0, color="0.4", ls=":", lw=1, label=f"$C_0$ = {c0:.3g} (first margin SV)")
    if ep.separable and math.isfinite(ep.C_star) and lo <= ep.C_star <= hi:
        ax.axvline(ep.C_star, color="C3", ls="--", lw=1,
                   label=f"$C^*$ = {ep.C_star:.3g} (= hard margin above)")


def plot_exact_coefficients(ep: Any, ax: Any = None, max_features: int = 10,
                            C_range: Sequence[float] | None = None,
                            feature_names: Sequence[str] | None = None) -> Any:
    """Coefficient paths ``w_j(C)`` and ``b(C)`` of an exact path, breakpoints marked.

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
        Legend labels of ``w_j`` (default ``ep.feature_names`` if any, else ``w_j``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin import exact_regularization_path
    >>> ax = plot_exact_coefficients(exact_regularization_path(make_separable(20, 2)))
    >>> ax.get_xscale()
    'log'
    """
    ax = _mpl.axes(ax, figsize=(6.4, 4.2))
    lo, hi = _exact_range(ep, C_range)
    Cs = _exact_Cs(ep, lo, hi)
    W, B = ep.coefficients(Cs)
    names = feature_names if feature_names is not None else getattr(ep, "feature_names", None)
    top = np.argsort(-np.abs(W[-1]))[:max_features]
    for j in top:
        ax.semilogx(Cs, W[:, j], lw=1, label=f"$w_{{{j + 1}}}$" if names is None
                    else names[j].replace("$", r"\$"))
    if ep.intercept != "none":
        ax.semilogx(Cs, B, lw=1, ls="--", color="k", label="$b$")
    ax.axhline(0, color="0.6", lw=0.5)
    _mark_breakpoints(ax, ep, lo, hi)
    ax.set_xlabel("C")
    ax.set_ylabel("$w_j(C)$, $b(C)$")
    shown = "" if top.size == ep.d else f" ({top.size} largest of {ep.d})"
    ax.set_title(f"Exact coefficient paths{shown}: affine in C between breakpoints",
                 fontsize=9)
    if top.size <= 10:
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return ax


def plot_exact_width(ep: Any, ax: Any = None, C_range: Sequence[float] | None = None) -> Any:
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
    >>> from maxmargin import exact_regularization_path
    >>> ax = plot_exact_width(exact_regularization_path(make_separable(20, 2)))
    >>> ax.get_yscale()
    'log'
    """
    ax = _mpl.axes(ax, figsize=(6.4, 4.2))
    lo, hi = _exact_range(ep, C_range)
    Cs = _exact_Cs(ep, lo, hi)
    W, _ = ep.coefficients(Cs)
    nw = np.linalg.norm(W, axis=1)
    with np.errstate(divide="ignore"):
        width = np.where(nw > 0, 2.0 / np.where(nw > 0, nw, 1.0), np.inf)
    ax.loglog(Cs, width, lw=1.2, label="width $2/\\|w(C)\\|$")
    _mark_breakpoints(ax, ep, lo, hi)
    ax.set_xlabel("C")
    ax.set_ylabel("margin width")
    ax.set_title(f"Margin width along the exact path ({ep.data_name})", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def plot_exact_support_vectors(ep: Any, ax: Any = None,
                               C_range: Sequence[float] | None = None) -> Any:
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
    >>> from maxmargin import exact_regularization_path
    >>> ax = plot_exact_support_vectors(exact_regularization_path(make_separable(20, 2)))
    >>> len(ax.get_lines()) >= 2
    True
    """
    ax = _mpl.axes(ax, figsize=(6.4, 4.2))
    lo, hi = _exact_range(ep, C_range)
    k0 = ep.segment_of(lo)
    k1 = ep.segment_of(hi)
    xs = np.concatenate([[lo], ep.bounds[k0 + 1:k1 + 1], [hi]])
    ne = np.concatenate([ep.n_elbow[k0:k1 + 1], [ep.n_elbow[k1]]])
    nl = np.concatenate([ep.n_left[k0:k1 + 1], [ep.n_left[k1]]])
    ax.step(xs, ne, where="post", lw=1, label="margin SVs (elbow, $0<\\alpha_i<C$)")
    ax.step(xs, nl, where="post", lw=1, label="bound SVs ($\\alpha_i=C$)")
    ax.set_xscale("log")
    _mark_breakpoints(ax, ep, lo, hi)
    ax.set_xlabel("C")
    ax.set_ylabel("count")
    ax.set_title(f"Support vectors along the exact path (n = {ep.n})", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def plot_exact_errors(ep: Any, ax: Any = None, holdout: Any = None,
                      C_range: Sequence[float] | None = None) -> Any:
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
    >>> from maxmargin import exact_regularization_path
    >>> ax = plot_exact_errors(exact_regularization_path(make_gaussians(30, 2), C_max=10))
    >>> ax.get_xscale()
    'log'
    """
    ax = _mpl.axes(ax, figsize=(6.4, 4.2))
    lo, hi = _exact_range(ep, C_range)
    Cs = _exact_Cs(ep, lo, hi)
    ax.semilogx(Cs, ep.errors(Cs), lw=1, label="training error")
    holdout = ep.holdout if holdout is None else holdout
    if holdout is not None:
        ax.semilogx(Cs, ep.errors(Cs, holdout), lw=1, label="held-out error")
    _mark_breakpoints(ax, ep, lo, hi)
    ax.set_xlabel("C")
    ax.set_ylabel("error rate ($y f(x) \\leq 0$)")
    ax.set_title("Error along the exact path", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def save_exact_path_figures(ep: Any, out_dir: str | Path, *,
                            formats: Sequence[str] = ("png", "svg"),
                            C_range: Sequence[float] | None = None) -> list[Path]:
    """Write the exact path's figures: ``exact_path_coefficients``, ``exact_path_width``,
    ``exact_path_support_vectors``, ``exact_path_errors``, one file per format.

    Parameters
    ----------
    ep : ExactPath
    out_dir : str or Path
        Created when missing.
    formats : sequence of str
    C_range : (float, float), optional

    Returns
    -------
    list of pathlib.Path

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import make_separable
    >>> from maxmargin import exact_regularization_path
    >>> ep = exact_regularization_path(make_separable(20, 2, seed=0))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     files = save_exact_path_figures(ep, tmp, formats=("png",))
    >>> [f.name for f in files][:2]
    ['exact_path_coefficients.png', 'exact_path_width.png']
    """
    formats = _mpl.check_formats(formats)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figs: list[tuple[str, Any]] = [("exact_path_coefficients", plot_exact_coefficients),
            ("exact_path_width", plot_exact_width),
            ("exact_path_support_vectors", plot_exact_support_vectors),
            ("exact_path_errors", plot_exact_errors)]
    written = []
    for nm, fn in figs:
        written += _mpl.save(fn(ep, C_range=C_range), out, nm, formats)
    return written
