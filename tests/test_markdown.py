r"""Every Markdown table the project writes or ships renders as a table, with no cell lost.

Rendered with a CommonMark + tables parser (markdown-it-py, the parser under myst-parser
and close to GitHub's): a ``|`` inside a cell, even inside backticks, ends the cell unless
escaped as ``\|``, and the parser then silently drops the extra cells; a header row with
more cells than the delimiter row is no table at all. Both are caught here: every row
must split into as many cells as its header (counted independently of the parser), and
every line that starts with ``|`` outside a code block must belong to a parsed table.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from markdown_it import MarkdownIt  # the test extra has it (myst-parser's parser)

from maxmargin import Dataset, compare, make_gaussians, make_separable
from maxmargin.evaluation.path import regularization_path
from maxmargin.evaluation.path.learners import learners_along_path
from maxmargin.report.comparison import markdown as comparison_markdown
from maxmargin.report.path import markdown

ROOT = Path(__file__).resolve().parents[1]
MD = MarkdownIt("commonmark").enable("table")


def _cells(line: str) -> list[str]:
    r"""Split a table row the GFM way: on every ``|`` not escaped by a backslash.

    Pipes inside backticks split too (GFM spec, example 200): write ``\|`` there.
    """
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return re.split(r"(?<!\\)\|", s)


def table_problems(text: str) -> tuple[int, list[str]]:
    """The number of tables markdown-it parses in ``text``, and what is wrong with them.

    Returns
    -------
    n_tables : int
    problems : list of str
        One line per row whose cell count differs from its header's, and per
        ``|``-line that no table took (a table the parser did not recognise).
    """
    lines = text.splitlines()
    covered: set[int] = set()
    problems = []
    n_tables = 0
    for tok in MD.parse(text):
        if tok.map is None:
            continue
        start, end = tok.map
        if tok.type in ("fence", "code_block", "html_block"):
            covered.update(range(start, end))
        elif tok.type == "table_open":
            n_tables += 1
            covered.update(range(start, end))
            n_head = len(_cells(lines[start]))
            for i in range(start + 1, end):
                n = len(_cells(lines[i]))
                if n != n_head:
                    problems.append(
                        f"line {i + 1}: {n} cells, header has {n_head}: {lines[i].strip()[:100]}"
                    )
    for i, line in enumerate(lines):
        if line.lstrip().startswith("|") and i not in covered:
            problems.append(f"line {i + 1}: not part of any table: {line.strip()[:100]}")
    return n_tables, problems


def _pipe_blocks(text: str) -> int:
    """Runs of consecutive lines starting with ``|`` outside fenced code (candidate tables)."""
    n, prev, fence = 0, False, None
    for line in text.splitlines():
        s = line.lstrip()
        m = re.match(r"(`{3,}|~{3,})", s)
        if m and (fence is None or s.startswith(fence)):
            fence = None if fence else m.group(1)[:3]
            prev = False
            continue
        is_row = fence is None and s.startswith("|")
        n += is_row and not prev
        prev = is_row
    return n


def check(text: str, min_tables: int = 1) -> None:
    n_tables, problems = table_problems(text)
    assert not problems, "\n".join(problems)
    assert n_tables == _pipe_blocks(text), "a block of |-lines did not parse as a table"
    assert n_tables >= min_tables


# --------------------------------------------------------------------------- the checker


def test_checker_catches_a_cut_row_and_a_lost_table():
    good = "| a | b |\n|---|---|\n| `x\\|y` | $\\lVert w\\rVert$ |\n"
    check(good)
    cut = "| a | b |\n|---|---|\n| `||w||` | z |\n"  # the parser keeps 2 cells of 6
    n, problems = table_problems(cut)
    assert n == 1 and len(problems) == 1 and "6 cells, header has 2" in problems[0]
    lost = "| a | b | c |\n|---|---|\n| 1 | 2 | 3 |\n"  # 3 header cells, 2 delimiters
    n, problems = table_problems(lost)
    assert n == 0 and len(problems) == 3
    fenced = "```\n| not | a table\n```\n"
    assert table_problems(fenced) == (0, []) and _pipe_blocks(fenced) == 0


# --------------------------------------------------------------------------- shipped pages

PAGES = sorted(ROOT.glob("docs/*.md")) + [ROOT / "README.md"]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_docs_tables_render(page):
    check(page.read_text(encoding="utf-8"), min_tables=0)


# --------------------------------------------------------------------------- generated reports


def test_path_report_renders():
    train = make_gaussians(40, 2, seed=1)
    hold = make_gaussians(20, 2, seed=2)
    p = regularization_path(train, C=[0.01, 1.0, 100.0], holdout=hold)
    check(markdown(p))
    sep = regularization_path(
        make_separable(30, 2, seed=0), C=[0.1, 10.0]
    )  # the hard-margin limit lines
    check(markdown(sep))
    assert "|" in markdown(sep).splitlines()[-1]


def test_compare_report_renders():
    data = make_separable(40, 2, seed=0)
    cmp = compare(
        data,
        learners=["perceptron", "pegasos", "pa1"],
        lam=0.1,
        epochs=2,
        holdout=make_separable(20, 2, seed=1),
    )
    check(comparison_markdown(cmp))


def test_compare_report_of_several_intercepts_renders():
    """The extra `scored against` column, in the learners' and the verdicts' tables."""
    X = np.random.default_rng(0).integers(0, 2, size=(40, 4)).astype(float)
    data = Dataset(X, np.where(X[:, :3].sum(axis=1) >= 2, 1, -1))
    text = comparison_markdown(compare(data, learners=["pegasos", "winnow"], lam=0.1, epochs=2))
    assert text.count("| scored against |") == 2
    check(text)


def test_learner_path_study_renders():
    study = learners_along_path(
        make_gaussians(40, 2, seed=3), lam=[1e-2, 1e-1], learners=["pegasos", "pa1"], epochs=2
    )
    check(markdown(study), min_tables=3)  # final suboptimality + one per eps


def test_checker_reads_a_dataset_name_with_a_pipe():
    # the report's title holds the data name, outside any table: no false alarm
    data = Dataset([[1.0], [-1.0], [2.0], [-2.0]], [1, -1, 1, -1], name="a|b")
    check(markdown(regularization_path(data, C=[1.0])))
