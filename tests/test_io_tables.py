"""One table declaration, four renderings (maxmargin/io/tables.py): CSV, DataFrame, markdown, LaTeX.

The LaTeX is compared with a golden file (tests/golden/io_table.tex: escaping, N/A,
exponents, spread cells, a math header) and checked without a compiler: the booktabs
rules in order, as many cells per row as columns. The markdown parses as a table with
every cell; the CSV reads back to the same doubles, a spread column as three.
"""

from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

import numpy as np
import pytest
from markdown_it import MarkdownIt

from maxmargin.io.tables import Column, Table, latex, latex_text, markdown
from maxmargin.io.tables import csv as to_csv
from maxmargin.io.tables import frame as to_frame

GOLDEN = Path(__file__).resolve().parent / "golden" / "io_table.tex"

ROWS = [
    {
        "learner": "pa_1 & co",
        "order": "shuffle",
        "subopt": 1.2e-3,
        "subopt_range": [9.8e-4, 1.5e-3],
        "mistakes": 12,
        "gap": 0.25,
        "note": "50% {x}",
    },
    {
        "learner": "pegasos",
        "order": "cyclic",
        "subopt": None,
        "subopt_range": None,
        "mistakes": None,
        "gap": math.inf,
        "note": "a|b ~ ^",
    },
    {
        "learner": "w[x_1]",
        "order": "sample",
        "subopt": 3.0e5,
        "subopt_range": [2.0e5, 4.5e5],
        "mistakes": 0,
        "gap": math.nan,
        "note": "\\path",
    },
]
TABLE = Table(
    rows=lambda rows: rows,
    columns=[
        Column("learner", "learner"),
        Column("order", "order", shown=True),
        Column("subopt", "F - F*", ".2g", latex=r"$F - F^\star$", spread=True),
        Column("mistakes", "mistakes", "d"),
        Column("gap", "gap", ".3g"),
        Column("note", "note"),
        Column("hidden", "hidden", shown=False, csv="hidden_value"),
    ],
)


def test_latex_is_the_golden_file():
    assert latex(TABLE, ROWS) == GOLDEN.read_text()


def _latex_cells(line: str) -> list[str]:
    """A row's cells: split on every ``&`` not escaped by a backslash."""
    return re.split(r"(?<!\\)&", line.removesuffix(r"\\").strip())


def test_latex_compiles_in_shape():
    text = latex(TABLE, ROWS)
    lines = text.splitlines()
    spec = re.fullmatch(r"\\begin\{tabular\}\{([lr]+)\}", lines[0])
    assert spec is not None and lines[-1] == r"\end{tabular}"
    rules = [ln for ln in lines if ln in (r"\toprule", r"\midrule", r"\bottomrule")]
    assert rules == [r"\toprule", r"\midrule", r"\bottomrule"]
    assert lines.index(r"\toprule") == 1 and lines.index(r"\bottomrule") == len(lines) - 2
    body = [ln for ln in lines[2:-2] if ln != r"\midrule"]
    assert len(body) == 1 + len(ROWS)
    width = len(spec.group(1))
    assert width == 6  # the hidden column is not shown
    for ln in body:
        assert ln.endswith(r" \\") and len(_latex_cells(ln)) == width, ln
        assert ln.count("$") % 2 == 0, ln  # math opened and closed
        assert ln.count("{") - ln.count(r"\{") == ln.count("}") - ln.count(r"\}"), ln
    # numbers right, text left
    assert spec.group(1) == "llrrrl"


def test_latex_escapes_text_and_writes_exponents():
    assert latex_text(r"a_b & c% $d# {e} ~ ^ \ | <") == (
        r"a\_b \& c\% \$d\# \{e\} \textasciitilde{} \textasciicircum{} \textbackslash{} "
        r"\textbar{} \textless{}"
    )
    t = Table(lambda r: r, [Column("x", "x", ".1e")])
    assert r"$-2.5\times10^{-12}$" in latex(t, [{"x": -2.5e-12}])
    assert r"$1.0\times10^{300}$" in latex(t, [{"x": 1e300}])
    assert r"$-\infty$" in latex(t, [{"x": -math.inf}])


def test_latex_written_atomically(tmp_path):
    f = tmp_path / "table.tex"
    assert latex(TABLE, ROWS, f) == f.read_text()


def test_markdown_shows_na_and_spread_and_escapes_pipes():
    text = markdown(TABLE, ROWS)
    lines = text.splitlines()
    assert lines[0] == "| learner | order | F - F* | mistakes | gap | note |"
    assert lines[2] == "| pa_1 & co | shuffle | 0.0012 [0.00098, 0.0015] | 12 | 0.25 | 50% {x} |"
    assert lines[3] == r"| pegasos | cyclic | N/A | N/A | inf | a\|b ~ ^ |"
    assert lines[4].split(" | ")[4] == "N/A"  # NaN is N/A
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    cells = [t for t in tokens if t.type in ("th_open", "td_open")]
    assert len(cells) == 6 * (1 + len(ROWS))


def test_csv_holds_every_column_and_reads_back_the_same_doubles():
    text = to_csv(TABLE, ROWS)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == [
        "learner",
        "order",
        "subopt",
        "subopt_min",
        "subopt_max",
        "mistakes",
        "gap",
        "note",
        "hidden_value",
    ]
    assert float(rows[0]["subopt"]) == 1.2e-3 and float(rows[0]["subopt_max"]) == 1.5e-3
    assert rows[1]["subopt"] == rows[1]["subopt_min"] == rows[1]["mistakes"] == ""
    assert rows[1]["gap"] == "inf" and rows[2]["gap"] == "nan" and rows[0]["hidden_value"] == ""
    assert rows[1]["note"] == "a|b ~ ^"


def test_frame_has_the_csv_columns():
    pytest.importorskip("pandas")
    df = to_frame(TABLE, ROWS)
    assert list(df.columns) == list(next(csv.reader(io.StringIO(to_csv(TABLE, ROWS)))))
    assert df["subopt_min"].iloc[0] == 9.8e-4 and math.isnan(df["mistakes"].iloc[1])


def test_columns_may_depend_on_the_result():
    t = Table(lambda r: r["rows"], lambda r: [Column(k, k, ".3g") for k in r["names"]])
    result = {"names": ["w[0]", "w[1]"], "rows": [{"w[0]": 1.0, "w[1]": 2.0}]}
    assert markdown(t, result).splitlines()[2] == "| 1 | 2 |"


def test_numpy_scalars_render_as_the_numbers_they_hold():
    t = Table(lambda r: r, [Column("x", "x", ".1%"), Column("k", "k", "d")])
    rows = [{"x": np.float64(0.125), "k": np.int64(3)}]
    assert to_csv(t, rows).splitlines()[1] == "0.125,3"
    assert markdown(t, rows).splitlines()[2] == "| 12.5% | 3 |"
    lines = latex(t, rows).splitlines()
    assert lines[0] == r"\begin{tabular}{rr}" and lines[4] == r"12.5\% & 3 \\"


def test_a_spread_with_one_value_shows_the_median_alone():
    """min = max (one seed, or every seed alike): no range after the median (as in figures)."""
    t = Table(lambda r: r, [Column("x", "x", ".2g", spread=True)])
    rows = [{"x": 0.5, "x_range": [0.5, 0.5]}, {"x": 0.5, "x_range": [0.25, 1.0]}]
    assert markdown(t, rows).splitlines()[2:] == ["| 0.5 |", "| 0.5 [0.25, 1] |"]
    assert latex(t, rows).splitlines()[4:6] == [r"0.5 \\", r"0.5 [0.25, 1] \\"]
    assert to_csv(t, rows).splitlines()[1] == "0.5,0.5,0.5"  # the CSV keeps all three
