"""Figures of a regularization path (matplotlib imported lazily; Agg without a display).

Each function draws into ``ax`` when given (else a new figure) and returns the Axes;
:func:`save_path_figures` writes them all as PNG and SVG. The vertical guides are the
analytical thresholds of :mod:`maxmargin.path`: ``C_0`` (below it no margin SV) and,
on separable data, ``C*`` (above it the soft optimum is the hard one).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ._io import atomic_write
from .exceptions import ParameterError

__all__ = [
    "plot_width",
    "plot_support_vectors",
    "plot_errors",
    "plot_coefficients",
    "plot_learners_vs_lambda",
    "save_path_figures",
]


def _pyplot() -> Any:
    import os

    import matplotlib

    if "MPLBACKEND" not in os.environ and not os.environ.get("DISPLAY"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _ax(ax: Any) -> Any:
    if ax is None:
        _, ax = _pyplot().subplots(figsize=(6.4, 4.2))
    return ax


def _guides(ax: Any, p: Any) -> None:
    c0 = p.min_margin_sv_C
    if 0 < c0 < math.inf and p.C[0] <= c0 <= p.C[-1]:
        ax.axvline(c0, color="0.4", ls=":", lw=1, label=f"$C_0$ = {c0:.3g} (first margin SV)")
    h = p.hard
    if h is not None and h.separable and h.C_star <= p.C[-1]:
        ax.axvline(h.C_star, color="C3", ls="--", lw=1,
                   label=f"$C^*$ = {h.C_star:.3g} (= hard margin above)")


def plot_width(p: Any, ax: Any = None) -> Any:
    """Margin width ``2/||w(C)||`` against C (log-log); the hard-margin width dashed.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.path import path
    >>> ax = plot_width(path(make_separable(20, 2, seed=0), C="1e-2:1e2:4"))
    >>> ax.get_xscale()
    'log'
    """
    ax = _ax(ax)
    ax.loglog(p.C, p.width, "o-", ms=3, label="width $2/\\|w(C)\\|$")
    h = p.hard
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
    """Number of margin SVs (``0 < alpha < C``) and bound SVs (``alpha = C``) against C."""
    ax = _ax(ax)
    ax.semilogx(p.C, p.n_margin_sv, "o-", ms=3, label="margin SVs ($0<\\alpha_i<C$)")
    ax.semilogx(p.C, p.n_bound_sv, "s-", ms=3, label="bound SVs ($\\alpha_i=C$)")
    _guides(ax, p)
    ax.set_xlabel("C")
    ax.set_ylabel("count")
    ax.set_title(f"Support vectors along the path (n = {p.n})", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def plot_errors(p: Any, ax: Any = None) -> Any:
    """Training (and held-out) error against C."""
    ax = _ax(ax)
    ax.semilogx(p.C, p.train_error, "o-", ms=3, label="training error")
    if not np.isnan(p.holdout_error).all():
        ax.semilogx(p.C, p.holdout_error, "s-", ms=3, label="held-out error")
    _guides(ax, p)
    ax.set_xlabel("C")
    ax.set_ylabel("error rate ($y f(x) \\leq 0$)")
    ax.set_title("Error along the path", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def plot_coefficients(p: Any, ax: Any = None, max_features: int = 20) -> Any:
    """Coefficient paths ``w_j(C)`` (the ``max_features`` largest at the last point)."""
    ax = _ax(ax)
    top = np.argsort(-np.abs(p.w[-1]))[:max_features]
    for j in top:
        ax.semilogx(p.C, p.w[:, j], lw=1, label=f"$w_{{{j + 1}}}$")
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
    """
    ax = _ax(ax)
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
    ax = _ax(ax)
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

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import make_separable
    >>> from maxmargin.path import path
    >>> p = path(make_separable(20, 2, seed=0), C="1e-2:1e2:4")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     files = save_path_figures(p, tmp, formats=("png", "svg"))
    >>> len(files)
    8
    """
    formats = tuple(formats)
    if not formats:
        raise ParameterError("no figure format given; use e.g. formats=('png', 'svg')")
    plt = _pyplot()
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
        ax = fn(obj)
        fig = ax.figure
        fig.tight_layout()
        for fmt in formats:
            f = out / f"{nm}.{fmt}"
            atomic_write(f, lambda fh, fig=fig, fmt=fmt: fig.savefig(fh, format=fmt, dpi=120))
            written.append(f)
        plt.close(fig)
    return written
