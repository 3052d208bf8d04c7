"""Reports: a result's markdown, its JSON and its figures written into one folder.

With the command line, the only importer of :mod:`maxmargin.plotting`: the computation
modules return results; this module turns them into files.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..evaluation.comparison import Comparison
from ..evaluation.path.exact import ExactPath
from ..evaluation.path.grid import RegularizationPath
from ..evaluation.path.learners import LearnerPathStudy
from ..exceptions import ParameterError
from ..io.files import atomic_write, make_dir
from ..io.json import dumps
from ..plotting import _mpl
from .comparison import markdown
from .path import exact_path_markdown, grid_path_markdown, learners_markdown

__all__ = ["write_report", "write_path_report", "write_exact_path_report"]


def _figures_section(figs: Sequence[Path]) -> str:
    lines = _mpl.markdown_figures(figs)
    return "\n## Figures\n\n" + "\n".join(lines) + "\n" if lines else ""


def write_report(
    comparison: Comparison,
    out_dir: str | Path,
    *,
    formats: Sequence[str] | str = ("png", "svg"),
    dpi: int = 150,
    figures: bool = True,
) -> list[Path]:
    """Write a comparison's report, JSON, table and figures into ``out_dir``.

    ``report.md``, ``report.json``, ``checkpoints.csv`` (:meth:`Comparison.to_csv`) and the
    figures.

    Parameters
    ----------
    comparison : Comparison
    out_dir : str or Path
        Created when missing.
    formats : sequence of str, or str
        Figure formats (matplotlib's names: ``png``, ``pdf``, ``svg``, ...; or
        ``"png,pdf"``).
    dpi : int
        Resolution of the raster figures.
    figures : bool
        Draw the figures. Without matplotlib (``pip install 'maxmargin[plot]'``) they
        are skipped with one warning, and the rest is written.

    Returns
    -------
    list of Path
        Every file written, report.md first.

    Raises
    ------
    OutputError
        ``out_dir`` is a file, or cannot be created or written.

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import compare, make_separable
    >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1,
    ...               epochs=2)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     names = [p.name for p in write_report(cmp, tmp, formats=("png",))]
    >>> names[:2], "suboptimality.png" in names
    (['report.md', 'report.json'], True)
    """
    if not isinstance(comparison, Comparison):
        raise ParameterError(
            f"write_report needs the Comparison of compare(), got {type(comparison).__name__}"
        )
    drawn = _mpl.to_draw(figures, formats)
    out = make_dir(out_dir)
    figs: list[Path] = []
    left_out = ""
    if drawn is not None:
        from ..plotting.comparison import figures_left_out, save_figures

        figs = save_figures(comparison, out, formats=drawn, dpi=dpi)
        skipped = figures_left_out(comparison)
        skipped.pop("boundary", None)  # a 2-D figure only: nothing missing elsewhere
        if skipped:
            left_out = (
                "\nFigures left out (nothing to show): "
                + "; ".join(f"{stem}: {why}" for stem, why in skipped.items())
                + ".\n"
            )
    md = markdown(comparison) + _figures_section(figs) + left_out
    report = atomic_write(out / "report.md", md)
    js = out / "report.json"
    comparison.to_json(js)
    table = out / "checkpoints.csv"  # one row per run and checkpoint (docs/formats.md)
    comparison.to_csv(table)
    return [report, js, table, *figs]


def write_path_report(
    path_result: RegularizationPath,
    out_dir: str | Path,
    *,
    study: LearnerPathStudy | None = None,
    formats: Sequence[str] | str = ("png", "svg"),
    dpi: int = 150,
    figures: bool = True,
    feature_names: Sequence[str] | None = None,
) -> list[Path]:
    """Write a path's report, JSON, table and figures into ``out_dir``.

    ``report.md``, ``report.json``, ``grid.csv`` (:meth:`RegularizationPath.to_csv`) and the
    path figures.

    Parameters
    ----------
    path_result : RegularizationPath
    out_dir : str or Path
        Created when missing.
    study : LearnerPathStudy, optional
        Adds the learners' tables and figure.
    formats : sequence of str, or str
        Figure formats (matplotlib's names: ``png``, ``pdf``, ``svg``, ...; or
        ``"png,pdf"``).
    dpi : int
        Resolution of the raster figures.
    figures : bool
        Draw the figures. Without matplotlib (``pip install 'maxmargin[plot]'``) they
        are skipped with one warning, and the rest is written.
    feature_names : sequence of str, optional
        Names of the coefficients in their figure (the data's ``feature_names``).

    Returns
    -------
    list of pathlib.Path
        Every file written, report.md and report.json first.

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import make_separable, regularization_path
    >>> p = regularization_path(make_separable(30, 2, seed=0), C="1e-2:1e2:4")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     names = [f.name for f in write_path_report(p, tmp, formats=("png",))]
    >>> names[:2], "path_width.png" in names
    (['report.md', 'report.json'], True)
    """
    if not isinstance(path_result, RegularizationPath):
        raise ParameterError(
            "write_path_report needs the RegularizationPath of regularization_path(), got "
            f"{type(path_result).__name__}"
        )
    drawn = _mpl.to_draw(figures, formats)
    out = make_dir(out_dir)
    figs: list[Path] = []
    if drawn is not None:
        from ..plotting.path import save_path_figures

        figs = save_path_figures(
            path_result, out, study=study, formats=drawn, dpi=dpi, feature_names=feature_names
        )
    md = grid_path_markdown(path_result)
    if study is not None:
        md += "\n" + learners_markdown(study)
    md += _figures_section(figs)
    md += (
        "\nHow to read these numbers and recompute them: see docs/path.md in the "
        "maxmargin repository.\n"
    )
    report = atomic_write(out / "report.md", md)
    d = path_result.to_dict()
    if study is not None:
        d["learners"] = study.to_dict()
    js = atomic_write(out / "report.json", dumps(d, indent=1))
    table = out / "grid.csv"  # one row per grid point (docs/formats.md)
    path_result.to_csv(table)
    return [report, js, table, *figs]


def write_exact_path_report(
    ep: ExactPath,
    out_dir: str | Path,
    *,
    formats: Sequence[str] | str = ("png", "svg"),
    C_range: tuple[float, float] | None = None,
    dpi: int = 150,
    figures: bool = True,
) -> list[Path]:
    """Write an exact path's report, JSON, table and figures into ``out_dir``.

    ``report.md``, ``report.json`` (with the segments), ``breakpoints.csv`` and the figures,
    each file written atomically.

    Parameters
    ----------
    ep : ExactPath
    out_dir : str or Path
        Created when missing.
    C_range : (float, float), optional
        The figures' C range (default: a decade around the breakpoints).
    formats : sequence of str, or str
        Figure formats (matplotlib's names: ``png``, ``pdf``, ``svg``, ...; or
        ``"png,pdf"``).
    dpi : int
        Resolution of the raster figures.
    figures : bool
        Draw the figures. Without matplotlib (``pip install 'maxmargin[plot]'``) they
        are skipped with one warning, and the rest is written.

    Returns
    -------
    list of pathlib.Path
        report.md, report.json, breakpoints.csv, then the figures.

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import make_separable, regularization_path
    >>> ep = regularization_path(make_separable(20, 2, seed=0), exact=True)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     names = [f.name for f in write_exact_path_report(ep, tmp, formats=("png",))]
    >>> names[:3]
    ['report.md', 'report.json', 'breakpoints.csv']
    """
    if not isinstance(ep, ExactPath):
        raise ParameterError(
            "write_exact_path_report needs the ExactPath of "
            f"regularization_path(exact=True), got {type(ep).__name__}"
        )
    drawn = _mpl.to_draw(figures, formats)
    if drawn is not None:
        from ..plotting.path import _range

        _range(ep, C_range)  # a range off the path fails before the folder exists
    out = make_dir(out_dir)
    figs: list[Path] = []
    if drawn is not None:
        from ..plotting.path import save_path_figures

        figs = save_path_figures(ep, out, formats=drawn, C_range=C_range, dpi=dpi)
    md = exact_path_markdown(ep) + _figures_section(figs)
    md += (
        "\nEvery breakpoint and event is in breakpoints.csv; report.json has the affine "
        "pieces between them. How to read and recompute them: docs/path.md in the "
        "maxmargin repository.\n"
    )
    report, js, cs = out / "report.md", out / "report.json", out / "breakpoints.csv"
    atomic_write(report, md)
    ep.to_json(js)
    ep.to_csv(cs)
    return [report, js, cs, *figs]
