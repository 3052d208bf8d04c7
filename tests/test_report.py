r"""One writer for every report folder (maxmargin/report/__init__.py: write_report).

Each result kind goes through :func:`maxmargin.report.write_report`: its files are there,
``report.md`` names ``table.tex``, and ``table.tex`` is a booktabs ``tabular``
(``\toprule`` ... ``\midrule`` ... ``\bottomrule``, as many cells per row as columns)
whose numbers are the ones of the folder's CSV. A bad output folder or option is one
``MaxMarginError`` line, raised before anything is written.
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np
import pytest

import maxmargin as mm
from maxmargin.exceptions import OutputError, ParameterError
from maxmargin.report import write_report


def _latex(path: Path) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of a booktabs tabular, checked for its shape."""
    lines = path.read_text().splitlines()
    spec = re.fullmatch(r"\\begin\{tabular\}\{([lr]+)\}", lines[0])
    assert spec is not None and lines[-1] == r"\end{tabular}", lines[:1] + lines[-1:]
    assert (lines[1], lines[3], lines[-2]) == (r"\toprule", r"\midrule", r"\bottomrule")
    width = len(spec.group(1))
    cells = []
    for line in [lines[2], *lines[4:-2]]:
        assert line.endswith(r" \\"), line
        row = [c.strip() for c in re.split(r"(?<!\\)&", line.removesuffix(r"\\"))]
        assert len(row) == width, line
        assert line.count("$") % 2 == 0, line
        cells.append(row)
    return cells[0], cells[1:]


def _number(cell: str) -> float | None:
    r"""A LaTeX cell's number: ``$1.2\times10^{-3}$``, ``$\infty$``, ``0.25``; -- is None."""
    if cell == "--":
        return None
    m = re.fullmatch(r"\$(-?[0-9.]+)\\times10\^\{(-?[0-9]+)\}\$", cell)
    if m is not None:
        return float(f"{m.group(1)}e{m.group(2)}")
    if cell in (r"$\infty$", r"$-\infty$"):
        return math.inf if cell[1] != "-" else -math.inf
    return float(cell)


def _spread(cell: str) -> tuple[float, float, float]:
    """``median [min, max]`` (or the median alone) as three numbers."""
    m = re.fullmatch(r"(\S+) \[(\S+), (\S+)\]", cell)
    if m is None:
        v = _number(cell)
        assert v is not None
        return v, v, v
    a, b, c = (_number(x) for x in m.groups())
    assert a is not None and b is not None and c is not None
    return a, b, c


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


def _close(shown: float, value: float, digits: int) -> bool:
    """``shown`` is ``value`` written with ``digits`` significant digits."""
    return shown == float(f"{value:.{digits - 1}e}")


def _mentions_table(out: Path) -> None:
    assert "`table.tex`" in (out / "report.md").read_text()


def test_comparison_folder_and_its_table(tmp_path):
    data = mm.make_separable(30, 2, seed=0)
    cmp = mm.compare(data, learners=["pegasos", "perceptron"], lam=0.1, seeds=(0, 1, 2))
    files = write_report(cmp, tmp_path, figures=False)
    assert [f.name for f in files] == ["report.md", "report.json", "checkpoints.csv", "table.tex"]
    _mentions_table(tmp_path)
    head, rows = _latex(tmp_path / "table.tex")
    assert head[:3] == ["learner", "order", "seeds"] and r"$F - F^\star$" in head
    assert [r[0] for r in rows] == [row["label"] for row in cmp.rows]
    # the pegasos row's F - F*: median [min, max] of the final checkpoint over the seeds
    runs = [r for r in _csv(tmp_path / "checkpoints.csv") if r["label"] == "pegasos"]
    last = max(int(r["t"]) for r in runs)
    finals = sorted(float(r["subopt"]) for r in runs if int(r["t"]) == last)
    assert len(finals) == 3
    med, lo, hi = _spread(rows[0][head.index(r"$F - F^\star$")])
    assert _close(med, finals[1], 4) and _close(lo, finals[0], 4) and _close(hi, finals[2], 4)
    # the perceptron minimises no objective: N/A, written --
    assert rows[1][head.index(r"$F - F^\star$")] == "--"


def test_grid_path_folder_and_its_table(tmp_path):
    """table.tex is report.md's grid table (report/tables.py GRID_PATH), grid.csv's numbers."""
    from maxmargin.io import tables
    from maxmargin.report.tables import GRID_PATH

    p = mm.regularization_path(mm.make_separable(30, 2, seed=0), C="1e-2:1e2:5")
    files = write_report(p, tmp_path, figures=False)
    assert [f.name for f in files] == ["report.md", "report.json", "grid.csv", "table.tex"]
    _mentions_table(tmp_path)
    md = _md_table((tmp_path / "report.md").read_text(), "| C | lambda |")
    assert md == tables.markdown(GRID_PATH, p).splitlines()
    head, rows = _latex(tmp_path / "table.tex")
    grid = _csv(tmp_path / "grid.csv")
    assert (
        head[:3] == ["C", r"$\lambda$", r"$\|w\|$"] and len(rows) == len(grid) == len(md) - 2 == 5
    )
    for row, line in zip(rows, grid, strict=True):
        assert _close(_number(row[0]), float(line["C"]), 4)
        assert _close(_number(row[2]), float(line["norm_w"]), 6)
        assert _close(_number(row[head.index("primal")]), float(line["primal"]), 10)
        assert (row[-1], int(row[4])) == (line["method"], int(line["n_margin_sv"]))


def test_exact_path_folder_and_its_table(tmp_path):
    ep = mm.regularization_path(mm.make_gaussians(20, 2, seed=1), exact=True)
    files = write_report(ep, tmp_path, figures=False)
    assert [f.name for f in files] == ["report.md", "report.json", "breakpoints.csv", "table.tex"]
    _mentions_table(tmp_path)
    head, rows = _latex(tmp_path / "table.tex")
    assert head[:3] == ["k", "C", r"$\lambda$"]
    events = _csv(tmp_path / "breakpoints.csv")  # one row per event
    by_k = {int(e["k"]): e for e in events}
    assert len(rows) == len(ep) == len(by_k) > 1
    for row in rows:
        e = by_k[int(row[0])]
        assert _close(_number(row[1]), float(e["C"]), 6)
        # breakpoints.csv rounds the residual itself: the same number to the shown digit
        assert math.isclose(_number(row[-1]), float(e["max_residual"]), rel_tol=0.05)
        assert row[3].count(r"-\textgreater{}") == sum(int(x["k"]) == int(row[0]) for x in events)


def test_check_folder_and_its_table(tmp_path):
    from maxmargin.testing import check_learner

    rep = check_learner("pegasos", battery="quick", problems=["gaussians/none"])
    files = write_report(rep, tmp_path, formats="png")
    names = [f.name for f in files]
    assert names == ["report.md", "report.json", "verdicts.csv", "table.tex", "suboptimality.png"]
    _mentions_table(tmp_path)
    assert rep.summary() in (tmp_path / "report.md").read_text()
    head, rows = _latex(tmp_path / "table.tex")
    verdicts = _csv(tmp_path / "verdicts.csv")
    assert head == ["verdict", "claim", "problem", "time (s)", "evidence"]
    assert len(rows) == len(verdicts) == len(rep.verdicts)
    assert [r[0] for r in rows] == [v["verdict"] for v in verdicts]
    for row, v in zip(rows, verdicts, strict=True):
        assert _close(_number(row[3]), float(v["seconds"]), 2)


def test_study_folder_and_its_table(tmp_path):
    pytest.importorskip("pyarrow")
    spec = {
        "problem": {"lam": [0.1, 0.5]},
        "run": {"epochs": 1, "seeds": [0, 1, 2]},
        "data": [{"source": "builtin:separable"}],
        "learners": ["pegasos"],
    }
    res = mm.study(spec, tmp_path / "out", n_jobs=1, figures=False)
    assert {"report.md", "table.tex"} <= {p.name for p in res.paths}
    _mentions_table(res.out)
    head, rows = _latex(res.out / "table.tex")
    assert head[:5] == ["data", "lambda", "learner", "order", "seeds"] and len(rows) == 2
    table = _csv(res.out / "results.csv")
    col = head.index("F − F*")  # noqa: RUF001 (the report's header)
    for row in rows:
        lam = _number(row[1])
        cells = [r for r in table if float(r["value"]) == lam]
        last = max(int(r["t"]) for r in cells)
        finals = np.sort([float(r["subopt"]) for r in cells if int(r["t"]) == last])
        assert finals.size == 3
        med, lo, hi = _spread(row[col])
        assert _close(med, finals[1], 4) and _close(lo, finals[0], 4) and _close(hi, finals[2], 4)
    # the same result through the one writer again, elsewhere: the same table
    again = write_report(res, tmp_path / "again", figures=False)
    assert [f.name for f in again] == ["report.md", "table.tex"]
    assert (tmp_path / "again" / "table.tex").read_text() == (res.out / "table.tex").read_text()


def _results(tmp_path: Path) -> list:
    data = mm.make_separable(20, 2, seed=0)
    return [
        mm.compare(data, learners=["pegasos"], lam=0.1),
        mm.regularization_path(data, C=[0.1, 1.0]),
        mm.regularization_path(data, exact=True),
    ]


def test_bad_output_folder_is_one_line_and_writes_nothing(tmp_path):
    f = tmp_path / "file"
    f.write_text("mine")
    for result in _results(tmp_path):
        with pytest.raises(OutputError, match="exists and is not a directory") as e:
            write_report(result, f, figures=False)
        assert "\n" not in str(e.value)
        assert f.read_text() == "mine"


def test_bad_result_and_option_are_one_line_before_the_folder(tmp_path):
    out = tmp_path / "never"
    with pytest.raises(ParameterError, match="write_report writes a Comparison.*got str") as e:
        write_report("report", out)
    assert "\n" not in str(e.value)
    cmp, grid, exact = _results(tmp_path)
    with pytest.raises(ParameterError, match=r"C_range= is not an option of the report of Comp"):
        write_report(cmp, out, C_range=(1.0, 2.0))
    with pytest.raises(ParameterError, match=r"study= is not an option of the report of ExactPath"):
        write_report(exact, out, study=None)
    with pytest.raises(ParameterError, match="study= takes the LearnerPathStudy"):
        write_report(grid, out, study=cmp)
    with pytest.raises(ParameterError, match="format"):
        write_report(grid, out, formats="docx")
    assert not out.exists()


def test_comparison_table_names_the_problem_when_rows_differ():
    """Rows of different intercept modes get a "scored against" column, else none."""
    from maxmargin.io.tables import latex
    from maxmargin.report.tables import COMPARISON

    class Rows:  # what the table reads of a comparison: its rows
        def __init__(self, *problems):
            self.rows = tuple(
                {"label": f"l{i}", "order": "shuffle", "intercept": p}
                for i, p in enumerate(problems)
            )

    one = latex(COMPARISON, Rows("free", "free"))
    two = latex(COMPARISON, Rows("free", "none"))
    assert "scored against" not in one
    assert two.splitlines()[2].startswith("learner & order & scored against &")
    assert "l1 & shuffle & intercept none &" in two


def _md_table(md: str, head: str) -> list[str]:
    """The lines of the markdown table in ``md`` whose header line starts with ``head``."""
    lines = md.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith(head))
    j = next((j for j in range(i, len(lines)) if not lines[j].startswith("|")), len(lines))
    return lines[i:j]


def test_the_learners_table_of_report_md_is_the_one_of_table_tex(tmp_path):
    """One declaration (report/tables.py COMPARISON) gives both: they cannot disagree."""
    from maxmargin.io import tables
    from maxmargin.report.tables import COMPARISON

    g = mm.make_gaussians(40, 3, separation=1.0, seed=2)
    binary = mm.Dataset((g.X > 0).astype(float), g.y, name="binary")
    tr = mm.Trace.from_weights([40], [[1.0, 0.0, 0.0]], name="mine|yours", data=binary)
    # winnow cannot take the free intercept: rows scored against two problems
    cmp = mm.compare(
        binary, learners=["pegasos", "winnow"], lam=0.1, epochs=1, seeds=(0, 1), traces=[tr]
    )
    assert len(cmp.references) == 2
    write_report(cmp, tmp_path, figures=False)
    md = _md_table((tmp_path / "report.md").read_text(), "| learner | order |")
    assert md == tables.markdown(COMPARISON, cmp).splitlines()
    assert md[0].startswith("| learner | order | scored against | seeds |")
    assert md[-1].startswith(r"| mine\|yours | external | intercept none |")  # a | escaped
    _, rows = _latex(tmp_path / "table.tex")
    assert [r[0] for r in rows] == ["pegasos", "winnow", r"mine\textbar{}yours"]
    assert len(md) == 2 + len(rows)


def test_the_breakpoints_table_of_report_md_is_the_one_of_table_tex(tmp_path):
    from maxmargin.io import tables
    from maxmargin.report.path import exact_path_markdown
    from maxmargin.report.tables import EXACT_PATH

    ep = mm.regularization_path(mm.make_gaussians(20, 2, seed=1), exact=True)
    write_report(ep, tmp_path, figures=False)
    md = _md_table((tmp_path / "report.md").read_text(), "| k | C |")
    declared = tables.markdown(EXACT_PATH, ep).splitlines()
    assert md == declared and len(md) == 2 + len(ep) > 6
    # a long path: the first and the last rows, the rest counted
    short = _md_table(exact_path_markdown(ep, max_rows=4), "| k | C |")
    more = f"| ... | | | {len(ep) - 4} more (see breakpoints.csv) | | | | | |"
    assert short == [*declared[:4], more, *declared[-2:]]


def test_markdown_is_the_text_of_report_md(tmp_path):
    """``report.markdown(result)``: report.md's text, for every kind, with its options."""
    from maxmargin.evaluation.path.learners import learners_along_path
    from maxmargin.report import markdown
    from maxmargin.testing import check_learner

    data = mm.make_separable(20, 2, seed=0)
    grid = mm.regularization_path(data, C=[0.1, 1.0])
    study = learners_along_path(data, lam=[0.1], learners=["pegasos"], epochs=1)
    check = check_learner("perceptron", battery="quick", problems=["separable/none"])
    cases = [(r, {}) for r in _results(tmp_path)] + [(grid, {"study": study}), (check, {})]
    for i, (result, options) in enumerate(cases):
        out = tmp_path / str(i)
        write_report(result, out, figures=False, **options)
        text = markdown(result, **options)
        assert text == (out / "report.md").read_text(), type(result).__name__
    learners = "## Learners along the path"
    assert learners in markdown(grid, study=study) and learners not in markdown(grid)
    with pytest.raises(ParameterError, match="got str"):
        markdown("cmp")
    with pytest.raises(ParameterError, match="C_range= is not an option"):
        markdown(grid, C_range=(1.0, 2.0))


def test_the_learners_and_not_checked_tables_are_their_declarations():
    """report/tables.py LEARNERS_SUBOPT, LEARNERS_EPOCHS and NOT_CHECKED give report.md's."""
    import dataclasses

    from maxmargin.evaluation.path.learners import learners_along_path
    from maxmargin.io import tables
    from maxmargin.report import check, path
    from maxmargin.report.tables import LEARNERS_EPOCHS, LEARNERS_SUBOPT, NOT_CHECKED
    from maxmargin.testing import check_learner

    data = mm.make_separable(20, 2, seed=0)
    study = learners_along_path(data, lam=[0.1, 0.01], learners=["pegasos", "pa1"], epochs=1)
    md = path.learners_markdown(study)
    sub = tables.markdown(LEARNERS_SUBOPT, (study, study.final_rel_subopt))
    assert sub.splitlines()[:2] == ["| lambda | pegasos | pa1 |", "|---|---|---|"] and sub in md
    for q in range(len(study.eps)):
        assert tables.markdown(LEARNERS_EPOCHS, (study, study.epochs_to_eps[q])) in md
    rep = check_learner("perceptron", battery="quick", problems=["separable/none"])
    rep = dataclasses.replace(rep, not_checked=(("a|b", "all", "no theorem"),))
    text = check.markdown(rep)
    assert tables.markdown(NOT_CHECKED, rep) in text
    assert "| claim | problems | why |\n|---|---|---|\n| a\\|b | all | no theorem |" in text
