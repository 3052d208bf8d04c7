"""Report folders: :func:`write_report`, the one writer of every result's folder.

It dispatches on the result's type to the :class:`Kind` :func:`register` recorded for it
(:mod:`maxmargin.studies` registers its own); the prose is in :mod:`.comparison`,
:mod:`.path`, :mod:`.kernel`, :mod:`.check`. Results are computed elsewhere; this package
turns them into files.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..evaluation.comparison import Comparison
from ..evaluation.kernel_scoring import KernelComparison
from ..evaluation.path.exact import ExactPath
from ..evaluation.path.grid import RegularizationPath
from ..evaluation.path.learners import LearnerPathStudy
from ..exceptions import ParameterError
from ..io import tables as io_tables
from ..io.files import atomic_write, make_dir
from ..io.json import dumps
from ..plotting import _mpl
from . import check, comparison, kernel, path
from .tables import CHECK, COMPARISON, EXACT_PATH, GRID_PATH

if TYPE_CHECKING:
    from ..testing.report import CheckReport

__all__ = ["write_report", "markdown", "register", "Kind"]

#: What a writer gives back: report.md's text, the files beside it, the figures.
Written = tuple[str, list[Path], list[Path]]


@dataclass(frozen=True)
class Kind:
    """How one type of result is written into its report folder.

    Parameters
    ----------
    table : Table
        The report's main table (``table.tex``).
    write : callable
        ``write(result, out, drawn, dpi, **options) -> (markdown, files, figures)``: all
        but ``report.md`` and ``table.tex`` (``drawn``: the figure formats, or None).
    what : str
        The main table in words.
    options : tuple of str
        The keyword options of ``write`` beyond the common ones.
    check : callable, optional
        ``check(result, drawn, **options)``: what must fail before the folder is made.
    """

    table: io_tables.Table
    write: Callable[..., Written]
    what: str
    options: tuple[str, ...] = ()
    check: Callable[..., None] | None = None


#: By the class's full name: a class need not be imported to be registered (the check's
#: report is written without ``import maxmargin`` importing :mod:`maxmargin.testing`).
_KINDS: dict[str, Kind] = {}


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def register(result_type: type | str, kind: Kind) -> None:
    """Record how results of type ``result_type`` (and its subclasses) are written.

    Parameters
    ----------
    result_type : type or str
        The class, or its full name (``"maxmargin.testing.report.CheckReport"``).
    kind : Kind
        How its folder is written.
    """
    _KINDS[result_type if isinstance(result_type, str) else _name(result_type)] = kind


def _kind(result: Any) -> Kind:
    for cls in type(result).__mro__:
        if _name(cls) in _KINDS:
            return _KINDS[_name(cls)]
    names = ", ".join(n.rpartition(".")[2] for n in _KINDS)
    raise ParameterError(f"write_report writes a {names}; got {type(result).__name__}")


def write_report(
    result: Any,
    out_dir: str | Path,
    *,
    formats: Sequence[str] | str = ("png", "svg"),
    dpi: int = 150,
    figures: bool = True,
    **options: Any,
) -> list[Path]:
    """Write a result's report folder: report.md, report.json, its tables, its figures.

    Every folder holds ``report.md`` and ``table.tex`` (the main table, a booktabs
    ``tabular``); ``docs/formats.md`` lists the other files of each kind of result.

    Parameters
    ----------
    result : Comparison, RegularizationPath, ExactPath, KernelComparison, CheckReport or StudyResult
    out_dir : str or Path
        Created when missing.
    formats : sequence of str, or str
        Figure formats (``png``, ``pdf``, ``svg``, ...; or ``"png,pdf"``).
    dpi : int
        Resolution of the raster figures.
    figures : bool
        Draw the figures (skipped with one warning without matplotlib).
    **options
        A grid path's ``study`` and ``feature_names``, an exact path's ``C_range``, a
        study's ``title``.

    Returns
    -------
    list of Path
        Every file written.

    Examples
    --------
    >>> import tempfile
    >>> from maxmargin import compare, make_separable
    >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1, epochs=2)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     names = [p.name for p in write_report(cmp, tmp, formats=("png",))]
    >>> names[:4], "suboptimality.png" in names
    (['report.md', 'report.json', 'checkpoints.csv', 'table.tex'], True)
    """
    kind = _kind(result)
    unknown = sorted(set(options) - set(kind.options))
    if unknown:
        takes = ", ".join(f"{o}=" for o in kind.options) or "none"
        raise ParameterError(
            f"write_report: {unknown[0]}= is not an option of the report of "
            f"{type(result).__name__} (its options: {takes})"
        )
    drawn = _mpl.to_draw(figures, formats)
    if kind.check is not None:
        kind.check(result, drawn, **options)
    out = make_dir(out_dir)
    md, files, figs = kind.write(result, out, drawn, dpi, **options)
    tex = atomic_write(out / "table.tex", io_tables.latex(kind.table, result))
    md += (
        f"\n`table.tex`: {kind.what} as a LaTeX table (a booktabs `tabular`: "
        "`\\usepackage{booktabs}`).\n"
    )
    report = atomic_write(out / "report.md", md)
    return [report, *files, tex, *figs]


def markdown(result: Any, **options: Any) -> str:
    """Any result's report text: the ``report.md`` of :func:`write_report`, without figures.

    Written by :func:`write_report` into a temporary folder, so that it is the file's text.

    Parameters
    ----------
    result : Comparison, RegularizationPath, ExactPath, CheckReport or StudyResult
    **options
        The options of its report.

    Returns
    -------
    str

    Examples
    --------
    >>> from maxmargin import make_separable, regularization_path
    >>> ep = regularization_path(make_separable(30, 2, seed=0), exact=True)
    >>> text = markdown(ep)
    >>> text.startswith("# Exact regularization path"), "| k | C | lambda |" in text
    (True, True)
    """
    with tempfile.TemporaryDirectory(prefix="maxmargin-report-") as tmp:
        report = write_report(result, tmp, figures=False, **options)[0]
        return report.read_text(encoding="utf-8")


def _figures_section(figs: Sequence[Path]) -> str:
    lines = _mpl.markdown_figures(figs)
    return "\n## Figures\n\n" + "\n".join(lines) + "\n" if lines else ""


def _write_comparison(cmp: Comparison, out: Path, drawn: Any, dpi: int) -> Written:
    """``report.json``, ``checkpoints.csv`` and the comparison's figures."""
    figs: list[Path] = []
    left_out = ""
    if drawn is not None:
        from ..plotting.comparison import figures_left_out, save_figures

        figs = save_figures(cmp, out, formats=drawn, dpi=dpi)
        skipped = figures_left_out(cmp)
        skipped.pop("boundary", None)  # a 2-D figure only: nothing missing elsewhere
        if skipped:
            left_out = (
                "\nFigures left out (nothing to show): "
                + "; ".join(f"{stem}: {why}" for stem, why in skipped.items())
                + ".\n"
            )
    md = comparison.markdown(cmp) + _figures_section(figs) + left_out
    js, table = out / "report.json", out / "checkpoints.csv"  # docs/formats.md
    cmp.to_json(js)
    cmp.to_csv(table)
    return md, [js, table], figs


def _write_kernel(cmp: KernelComparison, out: Path, drawn: Any, dpi: int) -> Written:
    """``report.json``, ``checkpoints.csv`` and the kernel comparison's figures."""
    figs: list[Path] = []
    if drawn is not None:
        from ..plotting.kernel import save_kernel_figures

        figs = save_kernel_figures(cmp, out, formats=drawn, dpi=dpi)
    js, cs = out / "report.json", out / "checkpoints.csv"
    cmp.to_json(js)
    io_tables.csv(kernel.CHECKPOINTS, cmp, cs)
    return kernel.report_markdown(cmp) + _figures_section(figs), [js, cs], figs


def _write_grid_path(
    p: RegularizationPath,
    out: Path,
    drawn: Any,
    dpi: int,
    study: LearnerPathStudy | None = None,
    feature_names: Sequence[str] | None = None,
) -> Written:
    """``report.json`` (with the learners along the path), ``grid.csv``, the figures."""
    figs: list[Path] = []
    if drawn is not None:
        from ..plotting.path import save_path_figures

        figs = save_path_figures(
            p, out, study=study, formats=drawn, dpi=dpi, feature_names=feature_names
        )
    md = path.grid_path_markdown(p)
    if study is not None:
        md += "\n" + path.learners_markdown(study)
    md += _figures_section(figs)
    md += (
        "\nHow to read these numbers and recompute them: see docs/path.md in the "
        "maxmargin repository.\n"
    )
    d = p.to_dict()
    if study is not None:
        d["learners"] = study.to_dict()
    js = atomic_write(out / "report.json", dumps(d, indent=1))
    table = out / "grid.csv"  # one row per grid point (docs/formats.md)
    p.to_csv(table)
    return md, [js, table], figs


def _check_grid_path(
    p: RegularizationPath, drawn: Any, study: Any = None, feature_names: Any = None
) -> None:
    if study is not None and not isinstance(study, LearnerPathStudy):
        raise ParameterError(
            "write_report: study= takes the LearnerPathStudy of learners_along_path(), got "
            f"{type(study).__name__}"
        )


def _check_exact_path(
    ep: ExactPath, drawn: Any, C_range: tuple[float, float] | None = None
) -> None:
    if drawn is not None:
        from ..plotting.path import _range

        _range(ep, C_range)  # a range off the path fails before the folder exists


def _write_exact_path(
    ep: ExactPath,
    out: Path,
    drawn: Any,
    dpi: int,
    C_range: tuple[float, float] | None = None,
) -> Written:
    """``report.json`` (with the segments), ``breakpoints.csv``, the figures."""
    figs: list[Path] = []
    if drawn is not None:
        from ..plotting.path import save_path_figures

        figs = save_path_figures(ep, out, formats=drawn, C_range=C_range, dpi=dpi)
    md = path.exact_path_markdown(ep) + _figures_section(figs)
    md += (
        "\nEvery breakpoint and event is in breakpoints.csv; report.json has the affine "
        "pieces between them. How to read and recompute them: docs/path.md in the "
        "maxmargin repository.\n"
    )
    js, cs = out / "report.json", out / "breakpoints.csv"
    ep.to_json(js)
    ep.to_csv(cs)
    return md, [js, cs], figs


def _write_check(rep: CheckReport, out: Path, drawn: Any, dpi: int) -> Written:
    """``report.json``, ``verdicts.csv`` and the suboptimality of the first problem."""
    figs: list[Path] = []
    note = ""
    if drawn is not None:
        if any(c.subopt is not None or c.subopt_avg is not None for c in rep.curves):
            from ..testing.figures import plot_suboptimality

            figs = _mpl.save(plot_suboptimality(rep), out, "suboptimality", drawn, dpi=dpi)
        else:
            note = "\nNo figure: no run has a suboptimality (a learner without an objective).\n"
    md = check.markdown(rep) + _figures_section(figs) + note
    js = atomic_write(out / "report.json", dumps(rep.to_dict(), indent=1))
    cs = out / "verdicts.csv"
    io_tables.csv(CHECK, rep, cs)
    return md, [js, cs], figs


register(Comparison, Kind(COMPARISON, _write_comparison, "the learners' table"))
register(
    RegularizationPath,
    Kind(
        GRID_PATH,
        _write_grid_path,
        "the grid's table",
        ("study", "feature_names"),
        _check_grid_path,
    ),
)
register(
    ExactPath,
    Kind(
        EXACT_PATH,
        _write_exact_path,
        "every breakpoint and its events",
        ("C_range",),
        _check_exact_path,
    ),
)
register(
    KernelComparison,
    Kind(kernel.KERNEL_COMPARISON, _write_kernel, "the learners' table (median [min, max])"),
)
register("maxmargin.testing.report.CheckReport", Kind(CHECK, _write_check, "the verdicts"))
