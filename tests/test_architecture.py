"""The import graph of maxmargin: no cycles, and every module imports only from above.

The graph is read from the source (``ast``), with the imports inside functions (lazy
imports are dependencies too) and without those under ``if TYPE_CHECKING:`` (annotations
only). docs/architecture.md draws the same rooms.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "maxmargin"

#: The rooms, top to bottom: a module may import from its own room and the rooms above.
#: By package prefix (docs/architecture.md draws them); a module not written yet is harmless.
ROOMS: list[tuple[str, ...]] = [
    # no maxmargin imports but exceptions
    ("maxmargin._version", "maxmargin.exceptions", "maxmargin.conventions", "maxmargin._startup"),
    # checks, progress, logging, optional packages, robust numerics, the row kernels
    (
        "maxmargin._validation",
        "maxmargin._progress",
        "maxmargin._log",
        "maxmargin._deps",
        "maxmargin._numerics",
        "maxmargin._rows",
    ),
    ("maxmargin.io",),  # JSON, declarations, tables, files
    ("maxmargin.data",),  # Dataset, loaders per format, generators
    ("maxmargin.cvxpy_models",),  # the textbook models, from a problem's attributes
    ("maxmargin.problem", "maxmargin.kernels", "maxmargin.kernel_problem"),
    (
        "maxmargin.certificate",
        "maxmargin.separation",
        "maxmargin.solution",
        "maxmargin.kernel_certificate",
    ),
    ("maxmargin.solvers",),
    ("maxmargin.exact",),
    ("maxmargin.trace",),
    ("maxmargin.online",),
    ("maxmargin.evaluation",),  # bounds, scoring, comparison, path/
    ("maxmargin.plotting",),
    ("maxmargin.testing",),  # the verdicts; a comparison's report shows them
    ("maxmargin.report",),
    ("maxmargin.studies",),
    ("maxmargin.estimators", "maxmargin.liblinear_model"),
    # the command line: what the commands share, the supervisor, one module per command,
    # then main (which assembles them) and the face
    ("maxmargin.cli.options", "maxmargin.cli.learners"),
    ("maxmargin.cli.supervisor",),
    tuple(
        f"maxmargin.cli.{c}" for c in ("solve", "run", "compare", "path", "study", "check", "demo")
    ),
    ("maxmargin.cli",),
    # the package's public surface, and the old module paths kept as re-exports
    ("maxmargin",),
]

#: Imports against the direction (or back into the module's own room), each a thin
#: facade that delegates, lazily.
FACADES = {}


def _modules() -> dict[str, Path]:
    out = {}
    for f in PACKAGE.rglob("*.py"):
        parts = f.with_suffix("").relative_to(PACKAGE.parent).parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = f
    return out


MODULES = _modules()


def _imports(name: str) -> set[str]:
    """The maxmargin modules ``name`` imports (at any depth, TYPE_CHECKING excluded)."""
    path = MODULES[name]
    tree = ast.parse(path.read_text())
    typing_only = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("maxmargin")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("maxmargin"):
                continue
            subs = {f"{target}.{a.name}" for a in node.names} & set(MODULES)
            found |= subs or {target}
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: _imports(name) for name in MODULES}


def _room(name: str) -> int:
    best = None
    for i, room in enumerate(ROOMS):
        for prefix in room:
            if name == prefix or name.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (i, len(prefix))
    assert best is not None, f"{name} is in no room of tests/test_architecture.py"
    return best[0]


def test_every_module_has_a_room():
    for name in MODULES:
        _room(name)


def test_imports_go_only_upward():
    wrong = sorted(
        f"{a} -> {b}"
        for a, deps in GRAPH.items()
        for b in deps
        if _room(b) > _room(a) and (a, b) not in FACADES
    )
    assert not wrong, "imports against the direction of docs/architecture.md:\n" + "\n".join(wrong)


def test_facades_are_lazy_and_still_needed():
    for (a, b), what in FACADES.items():
        assert b in GRAPH[a], f"facade {what} ({a} -> {b}) is gone: remove it from FACADES"
        tree = ast.parse(MODULES[a].read_text())
        top_level = {n.module for n in tree.body if isinstance(n, ast.ImportFrom)}
        assert not any(m and b.endswith(m.lstrip(".")) for m in top_level), (
            f"{a} imports {b} at import time; the facade {what} must import it lazily"
        )


def test_no_cycles():
    edges = {a: {b for b in deps if (a, b) not in FACADES} for a, deps in GRAPH.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name)


def test_computation_never_draws_or_writes_reports():
    computing = [m for m in MODULES if _room(m) <= _room("maxmargin.evaluation")]
    for name in computing:
        bad = {d for d in GRAPH[name] if d.startswith(("maxmargin.plotting", "maxmargin.report"))}
        assert not bad, f"{name} imports {bad}"
        text = MODULES[name].read_text()
        assert "import matplotlib" not in text and "from matplotlib" not in text, name


def test_exact_holds_solve_only():
    """One import path per name: ``maxmargin.exact`` re-exports nothing of its neighbours."""
    import maxmargin
    import maxmargin.exact

    assert maxmargin.exact.__all__ == ["solve"] and maxmargin.exact.solve is maxmargin.solve
    for name in (
        "ExactSolution",
        "available_solvers",
        "is_separable",
        "separation_certificate",
        "FORMS",
    ):
        assert not hasattr(maxmargin.exact, name), name


#: Modules over 800 lines today, each to be split by its work package (issue 22). The list
#: may only shrink: a module leaves it when it is cut to 800 lines or less.
OVERSIZED = {}
MAX_LINES = 800


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_no_module_over_800_lines():
    long = {
        f"{path.relative_to(PACKAGE.parent).as_posix()} ({_lines(path)} lines)"
        for path in MODULES.values()
        if _lines(path) > MAX_LINES and path.relative_to(PACKAGE.parent).as_posix() not in OVERSIZED
    }
    assert not long, f"modules over {MAX_LINES} lines (one job each):\n" + "\n".join(sorted(long))


def test_oversized_modules_are_still_oversized():
    for name in sorted(OVERSIZED):
        path = PACKAGE.parent / name
        assert path.is_file() and _lines(path) > MAX_LINES, (
            f"{name} is gone or within {MAX_LINES} lines: remove it from OVERSIZED"
        )


def test_the_architecture_page_has_a_line_for_every_module():
    """docs/architecture.md names each module (a bare name takes the folder before it)."""
    import re

    named = set()
    page = PACKAGE.parent / "docs" / "architecture.md"
    for line in page.read_text().splitlines():
        folder = ""
        for token in re.findall(r"`([\w/]+\.py)`", line):
            if "/" in token:
                folder = token.rpartition("/")[0] + "/"
                named.add(token)
            else:
                named.add(folder + token)
    files = {str(p.relative_to(PACKAGE)) for p in MODULES.values()}
    missing = sorted(files - named)
    assert not missing, f"docs/architecture.md has no line for {', '.join(missing)}"
