"""An online run on 2-D data as an animated GIF (``maxmargin run ... --animate out.gif``).

matplotlib and Pillow are imported on first use; no pyplot state is touched.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..data import Dataset
from ..exceptions import DataError, ParameterError
from ..io.files import atomic_write
from ..online.registry import LEARNERS
from . import _mpl
from .boundary import _segment

if TYPE_CHECKING:  # pragma: no cover
    from ..solution import ExactSolution
    from ..trace import Trace

__all__ = ["animate_run"]


def _check_target(data: Dataset, path: str | Path) -> Path:
    """The path, once matplotlib, Pillow, 2-D data and a .gif in an existing folder are checked."""
    _mpl.matplotlib(pillow=True)
    if data.d != 2:
        raise DataError(
            f"the animation draws 2-D data; {data.name} has d = {data.d} features "
            "(select two features first)"
        )
    path = Path(path)
    if path.suffix.lower() != ".gif":
        raise ParameterError(
            f"the animation is a GIF: give a file name ending in .gif, got {str(path)!r}"
        )
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ParameterError(
            f"cannot write {str(path)!r}: directory {str(parent)!r} does not exist"
        )
    if path.is_dir():
        raise ParameterError(f"cannot write {str(path)!r}: it is a directory")
    return path


def _hard(trace: Trace, data: Dataset) -> ExactSolution | None:
    """The hard-margin optimum in the learner's space, or None when not separable."""
    from ..exact import solve
    from ..problem import SVMProblem
    from ..separation import is_separable

    mode = _mode(trace)
    if not is_separable(data, mode["intercept"]):
        return None
    return solve(SVMProblem(data, hard=True, **mode))


def _reference(
    trace: Trace, data: Dataset, hard: ExactSolution | None
) -> tuple[ExactSolution, str]:
    """The exact optimum to draw and its label (see ``reference`` of :func:`animate_run`)."""
    from ..exact import solve
    from ..problem import SVMProblem

    cls = LEARNERS.get(trace.learner)
    lam = trace.params.get("lam") if cls is not None and cls.objective == "lambda" else None
    if lam is not None:
        return (
            solve(SVMProblem(data, lam=lam, **_mode(trace))),
            rf"exact optimum, $\lambda = {lam:g}$",
        )
    if hard is not None:
        return hard, "exact max-margin hyperplane"
    return solve(SVMProblem(data, C=1.0, **_mode(trace))), "exact soft margin, $C = 1$"


def _novikoff(trace: Trace, hard: ExactSolution | None) -> tuple[float, str]:
    """Novikoff's bound ``(R / gamma*)^2`` in the learner's space, or nan and why not."""
    cls = LEARNERS.get(trace.learner)
    if cls is None or not cls.mistake_driven:
        return math.nan, "Novikoff's bound is for the perceptron family"
    if hard is None:
        return math.nan, "not separable: Novikoff's bound does not apply"
    return (hard.problem.R / hard.margin) ** 2, ""


def _mode(trace: Trace) -> dict[str, Any]:
    """The intercept mode of the learner (Winnow's threshold is an augmented weight)."""
    intercept = trace.intercept if trace.intercept in ("none", "augmented") else "augmented"
    return {"intercept": intercept, "intercept_scaling": trace.intercept_scaling}


def animate_run(
    trace: Trace,
    data: Dataset,
    path: str | Path,
    *,
    reference: ExactSolution | None = None,
    fps: float = 4.0,
    dpi: int = 100,
    progress: bool = False,
) -> Path:
    """Write an animated GIF of an online run on 2-D data, one frame per checkpoint.

    Left: the data, the learner's hyperplane at the checkpoint, the points it misclassifies
    then, and the exact optimum's hyperplane with its margins. Right: the cumulative mistakes
    against Novikoff's bound ``(R / gamma*)^2`` (perceptron family on separable data).

    Parameters
    ----------
    trace : Trace
        The run, as :func:`maxmargin.online.run` returns it, on ``data``.
    data : Dataset
        The 2-D data the learner saw.
    path : str or Path
        A ``.gif`` file in an existing directory; written atomically.
    reference : ExactSolution, optional
        The optimum to draw (default: the learner's lambda-optimum if it has a ``lam``,
        else the hard margin if separable, else C = 1; in the learner's intercept mode).
    fps : float
        Frames per second.
    dpi : int
        Resolution of the frames (the figure is 9.4 x 4.8 inches).
    progress : bool
        Draw a progress bar on stderr (on a terminal only).

    Returns
    -------
    Path
        The GIF written, with ``len(trace.t)`` frames.

    Raises
    ------
    DataError
        When the data are not 2-D, or not the data of the trace.
    ParameterError
        When ``path`` is not a ``.gif`` in an existing directory.
    DependencyError
        matplotlib or Pillow is not installed (``pip install 'maxmargin[plot]'``).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from PIL import Image
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> data = make_separable(30, 2, seed=0)
    >>> trace = run("perceptron", data, epochs=2, checkpoints=[5, 10, 30])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     gif = animate_run(trace, data, Path(tmp) / "perceptron.gif", dpi=40)
    ...     Image.open(gif).n_frames
    4
    """
    from .._progress import Progress

    _mpl.matplotlib(pillow=True)
    from matplotlib.animation import PillowWriter
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.ticker import FuncFormatter, NullFormatter

    path = _check_target(data, path)
    if (trace.n, trace.d) != (data.n, data.d):
        raise DataError(
            f"the trace ran on n = {trace.n}, d = {trace.d} but {data.name} has "
            f"n = {data.n}, d = {data.d}; pass the data the learner saw"
        )
    hard = _hard(trace, data)
    ref, ref_label = (
        _reference(trace, data, hard) if reference is None else (reference, "exact optimum")
    )
    novikoff, why_not = _novikoff(trace, hard)
    X, y = data.dense(), data.y
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.08 * np.maximum(hi - lo, 1e-12)
    lo, hi = lo - pad, hi + pad
    t, mistakes = trace.t, trace.mistakes
    wrong = (np.asarray(X @ trace.w.T) + trace.b) * y[:, None] <= 0  # (n, k)

    fig = _mpl.figure((9.4, 4.8))
    # one canvas for all frames: its renderer keeps the typeset labels (mathtext) cached;
    # a canvas-less figure gets a new renderer, and retypesets everything, at each frame
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(
        1, 2, width_ratios=(1.0, 1.2), left=0.07, right=0.97, bottom=0.25, top=0.89, wspace=0.25
    )
    ax, axm = fig.add_subplot(grid[0]), fig.add_subplot(grid[1])
    for label, colour, marker in ((+1, "tab:blue", "o"), (-1, "tab:red", "s")):
        m = y == label
        ax.scatter(
            X[m, 0], X[m, 1], s=16, c=colour, marker=marker, zorder=2, label=f"$y_i = {label:+d}$"
        )
    ring = {"s": 90, "facecolors": "none", "edgecolors": "tab:orange", "linewidths": 1.5}
    missed = ax.scatter([], [], zorder=3, label=r"misclassified by $w_t$ now", **ring)
    w_ref, b_ref = np.asarray(ref.w, float), float(ref.b)
    ax.plot(*_segment(w_ref, b_ref, lo, hi), "-", c="0.35", lw=1.4, label=ref_label)
    for level in (1.0, -1.0):
        ax.plot(
            *_segment(w_ref, b_ref - level, lo, hi),
            ":",
            c="0.35",
            lw=1.0,
            label="its margins $f = \\pm 1$" if level > 0 else None,
        )
    (learner_line,) = ax.plot(
        [], [], "-", c="tab:green", lw=2.0, label=rf"{trace.learner}: $w_t^\top x + b_t = 0$"
    )
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")

    axm.plot(t, mistakes, drawstyle="steps-post", c="tab:green", alpha=0.2, lw=1.0)
    (mistakes_line,) = axm.plot(
        [], [], drawstyle="steps-post", c="tab:green", lw=1.8, label=r"mistakes so far $M_t$"
    )
    (now,) = axm.plot([], [], "o", c="tab:green", ms=5)
    top = max(float(mistakes[-1]), 1.0)
    if math.isfinite(novikoff):
        bound = rf"Novikoff bound $(R/\gamma^*)^2 = {novikoff:.4g}$"
        axm.axhline(novikoff, c="k", ls="--", lw=1.2, label=bound)
        top = max(top, novikoff)
    else:
        axm.text(0.03, 0.95, why_not, transform=axm.transAxes, va="top", fontsize=8, color="0.3")
    axm.set_xscale("log")
    axm.set_yscale("symlog", linthresh=1.0)  # the bound and a few mistakes, both visible
    # plain tick labels: mathtext ones (10^k) are re-typeset at every frame, a third of
    # the drawing time
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    for axis in (axm.xaxis, axm.yaxis):
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(NullFormatter())
    axm.set_xlim(max(t[0] * 0.8, 0.8), t[-1] * 1.25)
    axm.set_ylim(0, 1.5 * top)
    axm.set_xlabel("step $t$ (examples seen)")
    axm.set_ylabel("cumulative mistakes (symlog scale)")
    (h1, l1), (h2, l2) = ax.get_legend_handles_labels(), axm.get_legend_handles_labels()
    fig.legend(h1 + h2, l1 + l2, loc="lower center", ncol=4, fontsize=8, frameon=False)
    title = fig.suptitle("", fontsize=11)

    def draw(k: int) -> None:
        learner_line.set_data(*_segment(trace.w[k], float(trace.b[k]), lo, hi))
        missed.set_offsets(X[wrong[:, k]] if wrong[:, k].any() else np.empty((0, 2)))
        mistakes_line.set_data(t[: k + 1], mistakes[: k + 1])
        now.set_data([t[k]], [mistakes[k]])
        title.set_text(
            f"{trace.learner} on {data.name}: step t = {t[k]} (epoch "
            f"{trace.epoch[k]}), {mistakes[k]} mistakes, "
            f"{wrong[:, k].sum()} misclassified now"
        )

    with tempfile.TemporaryDirectory() as scratch:
        # PillowWriter writes to a file name: render there, then install atomically
        gif = Path(scratch) / "run.gif"
        # setup / finish by hand, not writer.saving(): that one finishes (writes) even
        # when a frame fails, and an empty writer then hides the error (or the Ctrl-C)
        writer = PillowWriter(fps=fps)  # type: ignore[arg-type]  # any fps > 0: 1000/fps ms a frame
        writer.setup(fig, gif, dpi)
        with Progress(len(t), "animate", enabled=progress) as bar:
            for k in range(len(t)):
                draw(k)
                writer.grab_frame()
                bar.update(1)
        writer.finish()
        atomic_write(path, gif.read_bytes())
    return path
