"""A study's report: ``report.md``, its figures (matplotlib, imported lazily), its table.

:func:`maxmargin.report.write_report` writes it through :func:`write` and :data:`TABLE`
(registered by :mod:`maxmargin.studies.runner`). It reads only the table, so it can be
redrawn without rerunning; what it shows: ``docs/study.md``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..conventions import summarize
from ..io import tables
from ..io.tables import Column, Table

__all__ = ["write", "final_rows", "TABLE"]


def _columns(table: Any) -> dict[str, np.ndarray]:
    return {
        name: np.asarray(table.column(name).to_pylist(), dtype=object)
        for name in table.column_names
    }


def _float(v: Any) -> np.ndarray:
    return np.array([np.nan if x is None else x for x in v], dtype=float)


def _runs(cols: dict, mask: np.ndarray) -> dict[tuple, dict]:
    """(learner, order) -> {"t": (k,), key: (seeds, k)} of the ok rows in ``mask``."""
    out: dict[tuple, dict] = {}
    idx = np.flatnonzero(mask & (cols["status"] == "ok"))
    cells = dict.fromkeys(cols["cell"][idx])
    for cell in cells:
        rows = idx[cols["cell"][idx] == cell]
        key = (cols["learner"][rows[0]], cols["order"][rows[0]])
        g = out.setdefault(key, {"t": None, "seeds": [], "rows": []})
        t = _float(cols["t"][rows])
        if g["t"] is None:
            g["t"] = t
        elif g["t"].shape != t.shape or not np.array_equal(g["t"], t):
            continue  # seeds stopped at other steps (mini-batches): left out of the band
        g["seeds"].append(cols["seed"][rows[0]])
        g["rows"].append(rows)
    return out


def _stack(cols: dict, g: dict, key: str) -> np.ndarray:
    return np.array([_float(cols[key][rows]) for rows in g["rows"]])


#: Columns of the final-numbers tables: (column, header, format).
_FINAL = (
    ("subopt", "F − F*", ".3e"),
    ("subopt_avg", "F(avg) − F*", ".3e"),
    ("dual_gap", "dual gap", ".3e"),
    ("distance", "dist", ".3f"),
    ("train_error", "train err", ".4f"),
    ("test_error", "test err", ".4f"),
    ("mistakes", "mistakes", ".1f"),
    ("regret", "regret", ".4g"),
)


def final_rows(table: Any) -> list[dict[str, Any]]:
    """Final-checkpoint numbers (arrays over seeds) per data set x grid value x learner x order."""
    cols = _columns(table)
    out = []
    for data in dict.fromkeys(cols["data"]):
        for value in dict.fromkeys(cols["value"][cols["data"] == data]):
            mask = (cols["data"] == data) & (cols["value"] == value)
            for (learner, order), g in _runs(cols, mask).items():
                row: dict[str, Any] = {
                    "data": data,
                    "value": value,
                    "learner": learner,
                    "order": order,
                    "seeds": len(g["rows"]),
                }
                for key, _, _ in _FINAL:
                    row[key] = _stack(cols, g, key)[:, -1]
                first = g["rows"][0][0]
                nov = cols["novikoff"][first]
                row["bound"] = (
                    float(nov)
                    if nov is not None and math.isfinite(nov)
                    else float(np.nanmean(_stack(cols, g, "general_bound")[:, -1]))
                    if cols["general_bound"][first] is not None
                    else math.nan
                )
                flags = [
                    cols[k][r[0]]
                    for r in g["rows"]
                    for k in ("novikoff_respected", "general_respected")
                    if cols[k][r[0]] is not None
                ]
                row["bound_respected"] = None if not flags else all(flags)
                out.append(row)
    return out


def _intercept(cols: dict, rows: np.ndarray) -> tuple[str, float] | None:
    """The intercept mode and ``s`` the rows' learners ran with (None: no learner says)."""
    for k in rows:
        try:
            params = json.loads(cols["learner_params"][k])
        except (TypeError, ValueError):
            continue
        if isinstance(params, dict) and params.get("intercept") in ("free", "augmented", "none"):
            return str(params["intercept"]), float(params.get("intercept_scaling", 1.0))
    return None


def _scored_sentence(cols: dict, rows: np.ndarray) -> str:
    """The sentence that says which problem the rows (of one intercept mode) are scored on."""
    from ..conventions import describe_problem as scored_against

    j = rows[0]
    found = _intercept(cols, rows)
    if found is None:
        return (
            f"Every learner below is scored against the soft margin, C = {cols['C'][j]:.6g} "
            f"(lambda = {cols['lam'][j]:.6g}), with the study's intercept (no learner's "
            "parameters record it)."
        )
    what = scored_against(float(cols["C"][j]), float(cols["lam"][j]), *found)
    return f"Every learner below is scored against this problem: {what}."


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text)).strip("_") or "data"


def _value_tex(grid: str, value: float) -> str:
    return (r"$C = " if grid == "C" else r"$\lambda = ") + f"{value:.3g}$"


#: Inches of a panel, and of the legend column on the right of the figure.
_PANEL, _LEGEND = (3.6, 3.0), 2.8


def _figure(panels: int) -> tuple[Any, list]:
    # Fixed margins rather than constrained layout or a tight bbox: each costs a full
    # extra draw of every log-axis tick (seconds for a few panels).
    from ..plotting import _mpl

    cols = min(panels, 3)
    rows = math.ceil(panels / cols)
    width, height = _PANEL[0] * cols + _LEGEND, _PANEL[1] * rows + 0.5
    fig = _mpl.figure((width, height))
    fig.subplots_adjust(
        left=0.8 / width,
        right=1 - (_LEGEND + 0.1) / width,
        bottom=0.6 / height,
        top=1 - 0.65 / height,
        wspace=0.3,
        hspace=0.45,
    )
    axes = [fig.add_subplot(rows, cols, i + 1) for i in range(panels)]
    return fig, axes


def _band(ax: Any, t: np.ndarray, V: np.ndarray, label: str, style: dict[str, Any]) -> bool:
    """Median over seeds and a min-max band; only positive values (log axes)."""
    from ..plotting import _mpl

    return _mpl.band(ax, t, V, positive=True, label=label, **{"lw": 1.6, **style}) is not None


def _styles(labels: list[str]) -> dict[str, dict[str, Any]]:
    """Each learner's colour, marker and line style, the same in every panel and figure."""
    from ..plotting import _mpl

    styles = {}
    for i, lab in enumerate(labels):
        style = _mpl.series_style(i)
        styles[lab] = {**style, "markevery": _mpl.markevery(i), "markersize": 4}
    return styles


def _plot(cols: dict, data: str, values: list, grid: str, what: str) -> Any | None:
    """One figure for ``data``: a panel per grid value; ``what`` is subopt or mistakes."""
    fig, axes = _figure(len(values))
    styles = _styles(list(dict.fromkeys(cols["learner"][cols["data"] == data])))
    drawn = False
    handles: dict[str, Any] = {}
    for ax, value in zip(axes, values, strict=True):
        mask = (cols["data"] == data) & (cols["value"] == value)
        groups = _runs(cols, mask)
        orders = {o for _, o in groups}
        bounds: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # per order: one sequence
        for (learner, order), g in groups.items():
            name = learner if len(orders) == 1 else f"{learner} ({order})"
            first = g["rows"][0][0]
            style = styles[learner]
            if what == "subopt" and cols["kind"][first] == "objective":
                for key, which, ls in (("subopt", "last", "-"), ("subopt_avg", "average", "--")):
                    if cols[key][first] is not None:  # an objective learner has a last iterate
                        V, label = _stack(cols, g, key), f"{name}: {which}"
                        drawn |= _band(ax, g["t"], V, label, {**style, "linestyle": ls})
            elif what == "mistakes" and cols["general_bound"][first] is not None:
                drawn |= _band(ax, g["t"], _stack(cols, g, "mistakes"), name, style)
                nov = cols["novikoff"][first]
                if nov is not None and math.isfinite(nov):
                    ax.axhline(nov, color="k", ls=":", lw=1, label=r"Novikoff $(R/\gamma^\star)^2$")
                else:  # the bound of the order's sequence, the same for every learner
                    bounds.setdefault(order, (g["t"], _stack(cols, g, "general_bound")))
        for order, (t, V) in bounds.items():
            suffix = "" if len(orders) == 1 else f" ({order})"
            _band(
                ax,
                t,
                V,
                r"general bound $L + R\|u\|\sqrt{L} + R^2\|u\|^2$" + suffix,
                {"color": "0.4", "linestyle": "--", "lw": 1.0},
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(_value_tex(grid, value), fontsize=10)
        ax.set_xlabel(r"step $t$")
        ax.grid(True, which="major", alpha=0.3)
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    if not drawn:
        return None
    axes[0].set_ylabel(r"$F(\tilde w_t) - F^\star$" if what == "subopt" else r"mistakes $M_t$")
    right = fig.subplotpars.right
    fig.legend(
        list(handles.values()),
        list(handles),
        loc="center left",
        fontsize=8,
        frameon=False,
        bbox_to_anchor=(right + 0.01, 0.5),
    )
    subject = {"subopt": "suboptimality against the certified optimum"}.get(
        what, "mistakes against their bound"
    )
    fig.suptitle(f"{data}: {subject} (median over seeds, band: min to max)", fontsize=10)
    return fig


def _summary_rows(table: Any) -> list[dict[str, Any]]:
    """:func:`final_rows` as table rows: each quantity's median, its ``_range`` [min, max]."""
    out = []
    for r in final_rows(table):
        row = {k: r[k] for k in ("data", "value", "learner", "order", "seeds")}
        for key, _, _ in _FINAL:
            v = r[key][np.isfinite(r[key])]  # the seeds that have the value
            center, lo, hi = summarize(v) if v.size else (None, None, None)
            row[key], row[f"{key}_range"] = center, None if lo is None else [lo, hi]
        row["bound"] = r["bound"] if math.isfinite(r["bound"]) else None
        row["held"] = {None: "N/A", True: "yes", False: "NO"}[r["bound_respected"]]
        out.append(row)
    return out


#: The learners' columns of the final-numbers tables (markdown and LaTeX).
_LEARNER_COLUMNS = [
    Column("learner", "learner"),
    Column("order", "order"),
    Column("seeds", "seeds", "d"),
    *(Column(key, header, fmt, spread=True) for key, header, fmt in _FINAL),
    Column("bound", "mistake bound", ".1f"),
    Column("held", "held"),
]


#: The final-numbers table of one data set and grid value (the rows given as the result).
_ROWS = Table(lambda rows: rows, _LEARNER_COLUMNS)


def _table_columns(result: Any) -> list[Column]:
    grid = result.table.column("grid")[0].as_py() if result.table.num_rows else "C"
    head = Column("value", grid if grid == "C" else "lambda", ".6g")
    return [Column("data", "data"), head, *_LEARNER_COLUMNS]


#: A study's final numbers: one row per data set x grid value x learner x order, median
#: [min, max] over seeds (``table.tex``; report.md shows them per data set and grid value).
TABLE = Table(lambda result: _summary_rows(result.table), _table_columns)


def write(
    result: Any, out: Path, drawn: tuple[str, ...] | None, dpi: int, title: str | None = None
) -> tuple[str, list[Path], list[Path]]:
    """The text of ``report.md`` of a StudyResult, no other file, its figures (``out/figures``).

    ``drawn``: the figure formats (None: no figures).
    """
    from ..io.files import make_dir
    from ..plotting import _mpl

    table = result.table
    title = result.spec.name if title is None else title
    figdir = out / "figures"
    cols = _columns(table)
    n_cells = len(dict.fromkeys(cols["cell"]))
    failed = cols["status"] == "failed"
    grid = cols["grid"][0] if len(cols["grid"]) else "C"
    lines = [f"# Study {title}", ""]
    if len(cols["cell"]):
        lines += [
            f"Spec hash `{cols['spec_hash'][0]}`; {n_cells} cells, "
            f"{int(failed.sum())} failed; maxmargin {cols['maxmargin_version'][0]}, "
            f"numpy {cols['numpy_version'][0]}, numba {cols['numba_version'][0]}.",
            "",
        ]
    finals = _summary_rows(table)
    paths: list[Path] = []
    for data in dict.fromkeys(cols["data"]):
        m = (cols["data"] == data) & (cols["status"] == "ok")
        if not m.any():
            continue
        i = np.flatnonzero(m)[0]
        # R and the separability are of the space of an intercept mode: one line each
        modes = list(dict.fromkeys(cols["intercept"][m]))
        spaces = []
        for mode in modes:
            k = np.flatnonzero(m & (cols["intercept"] == mode))[0]
            sep = cols["separable"][k]
            text = f"R = {cols['R'][k]:.6g}, " + (
                f"separable (gamma* = {cols['gamma'][k]:.6g})" if sep else "not separable"
            )
            spaces.append(text if len(modes) == 1 else f"intercept {mode}: {text}")
        lines += [
            f"## {data}",
            "",
            f"n = {cols['n'][i]}, d = {cols['d'][i]}, {'; '.join(spaces)}.",
            "",
        ]
        values = list(dict.fromkeys(cols["value"][m]))
        for what in ("subopt", "mistakes"):
            if drawn is None or (fig := _plot(cols, data, values, grid, what)) is None:
                continue
            stem = f"{_slug(data)}-{'suboptimality' if what == 'subopt' else 'mistakes'}"
            make_dir(figdir)
            files = _mpl.save(fig, figdir, stem, drawn, dpi=dpi)
            paths += files
            lines += [*_mpl.markdown_figures(files, "figures/"), ""]
        for value in values:
            lines += [f"### {grid} = {value:.6g}", ""]
            at = m & (cols["value"] == value)
            modes = list(dict.fromkeys(cols["intercept"][at]))
            for mode in modes:  # one reference per intercept mode the learners ran with
                rows = np.flatnonzero(at & (cols["intercept"] == mode))
                j = rows[0]
                cert = "certified" if cols["ref_certified"][j] else "NOT certified"
                mine = set(cols["learner"][rows])
                here = [
                    r
                    for r in finals
                    if r["data"] == data and r["value"] == value and r["learner"] in mine
                ]
                which = f" (intercept {mode}: {', '.join(sorted(mine))})" if len(modes) > 1 else ""
                lines += [
                    f"Reference{which}: F* = {cols['F_star'][j]:.12g} (C = {cols['C'][j]:.6g}, "
                    f"lambda = {cols['lam'][j]:.6g}), duality gap "
                    f"{cols['ref_duality_gap'][j]:.2e} (relative "
                    f"{cols['ref_relative_gap'][j]:.2e}), {cert} ({cols['ref_solver'][j]}).",
                    "",
                    _scored_sentence(cols, rows),
                    "",
                    tables.markdown(_ROWS, here),
                    "",
                ]
    lines += [
        "Final checkpoint, median [min, max] over seeds (as in compare's report); N/A "
        "where a quantity "
        "does not apply (objective gaps for learners that minimise this objective, "
        "mistake bounds for the perceptron family: Novikoff's (R/gamma*)^2 when "
        "separable, else L + R||u|| sqrt(L) + R^2 ||u||^2 with u the soft optimum). "
        "`held` says whether every checkpoint of every seed respected the bound.",
        "",
    ]
    if failed.any():
        lines += ["## Failed cells", ""]
        for k in np.flatnonzero(failed):
            lines.append(
                f"- {cols['data'][k]}, {grid} = {cols['value'][k]:.6g}, "
                f"{cols['learner'][k]}, seed {cols['seed'][k]}, {cols['order'][k]} "
                f"({cols['attempts'][k]} attempts): {cols['error'][k]}"
            )
        lines.append("")
    return "\n".join(lines), [], paths
