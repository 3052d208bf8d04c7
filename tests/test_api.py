"""The public surface: ``maxmargin.__all__`` pinned, one name per concept, every other name at home.

``maxmargin.__all__`` holds one public function or class per concept (46 names, the
estimators and ``study`` loaded on first use); what left the top level stays importable
from its home package (``maxmargin.online``, ``maxmargin.data``, ...), never from two
places at the top. Every ``from maxmargin... import ...`` the docs, the README and the
examples show runs, and so does every ``maxmargin.X`` name the docs cite in backticks.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import maxmargin

ROOT = Path(__file__).resolve().parents[1]

#: The top level, in the order of ``maxmargin/__init__.py`` (docs/api: the same groups).
TOP = [
    "__version__",
    # data and problems
    "Dataset",
    "load",
    "make_separable",
    "make_gaussians",
    "SVMProblem",
    # the exact solve and its proofs
    "solve",
    "ExactSolution",
    "certify",
    "Certificate",
    "is_separable",
    "separation_certificate",
    "SeparationCertificate",
    "verify_separation",
    # online learners
    "Learner",
    "run",
    "Trace",
    # learners against the optimum
    "compare",
    "score_trace",
    "Comparison",
    "RunResult",
    # the C path
    "regularization_path",
    "RegularizationPath",
    "ExactPath",
    "PathPoint",
    "hard_margin_limit",
    "HardMarginLimit",
    "min_margin_sv_C",
    "learners_along_path",
    "LearnerPathStudy",
    # reports and studies
    "write_report",
    "study",
    "StudyResult",
    # scikit-learn estimators (loaded on first use)
    "ExactSVC",
    "PerceptronClassifier",
    "AveragedPerceptronClassifier",
    "PegasosClassifier",
    "PAClassifier",
    # errors
    "MaxMarginError",
    "DataError",
    "ParameterError",
    "SolverError",
    "NotSeparableError",
    "CertificateError",
    "OutputError",
    "DependencyError",
]

#: What left the top level (issue 22), and the home it is imported from.
HOMES = {
    "maxmargin.online": [
        "LEARNERS",
        "schedule",
        "Perceptron",
        "MarginPerceptron",
        "PLA",
        "AveragedPerceptron",
        "VotedPerceptron",
        "DualPerceptron",
        "Pocket",
        "Pegasos",
        "OnlineSubgradient",
        "PA",
        "PA1",
        "PA2",
        "Winnow",
    ],
    "maxmargin.data": ["load_csv", "load_libsvm", "load_npz", "map_labels"],
    "maxmargin.conventions": ["INTERCEPTS"],
    "maxmargin.solvers": ["available_solvers"],
    "maxmargin.evaluation": ["demo_comparison", "parse_grid"],
    "maxmargin.evaluation.comparison": ["demo_comparison"],
    "maxmargin.evaluation.path.grids": ["parse_grid"],
    "maxmargin.report": ["write_report"],
}

#: The faces of the subpackages: each name of their ``__all__`` resolves.
FACES = [
    "maxmargin.online",
    "maxmargin.data",
    "maxmargin.evaluation",
    "maxmargin.plotting",
    "maxmargin.report",
    "maxmargin.solvers",
    "maxmargin.estimators",
    "maxmargin.testing",
    "maxmargin.io",
]


def test_the_top_level_is_pinned():
    assert maxmargin.__all__ == TOP
    assert len(TOP) == len(set(TOP)) == 46


@pytest.mark.parametrize("name", TOP)
def test_each_top_level_name_resolves(name):
    pytest.importorskip("sklearn")  # the estimators load on first use
    pytest.importorskip("pyarrow")  # and so does study
    assert getattr(maxmargin, name) is not None


@pytest.mark.parametrize(
    "home, name", [(home, name) for home, names in HOMES.items() for name in names]
)
def test_what_left_the_top_level_stays_at_home(home, name):
    module = importlib.import_module(home)
    assert name in module.__all__ and getattr(module, name) is not None
    if name not in TOP:
        assert not hasattr(maxmargin, name), f"maxmargin.{name} is back at the top level"
        with pytest.raises(AttributeError, match=f"no attribute {name!r}"):
            getattr(maxmargin, name)


def test_the_top_level_names_are_their_homes_objects():
    """One object per concept: the face re-exports, it does not copy or wrap."""
    from maxmargin import evaluation, online, report

    assert maxmargin.run is online.run and maxmargin.Learner is online.Learner
    assert maxmargin.compare is evaluation.compare
    assert maxmargin.regularization_path is evaluation.regularization_path
    assert maxmargin.write_report is report.write_report


@pytest.mark.parametrize("face", FACES)
def test_each_face_exports_what_it_lists(face):
    module = importlib.import_module(face)
    names = module.__all__
    assert len(names) == len(set(names)), f"{face}.__all__ lists a name twice"
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f"{face}.__all__ lists {missing}, which it does not have"


def _imports(text: str) -> list[str]:
    """Every ``from maxmargin... import ...`` statement in ``text`` (one line or parenthesized)."""
    found = re.findall(
        r"^[ \t>.]*(from maxmargin[\w.]* import (?:\([^)]*\)|[^\n]+))", text, flags=re.M
    )
    return [re.sub(r"#[^\n]*", "", s).replace("\\", "") for s in found]


DOCUMENTED = sorted(
    [
        *ROOT.joinpath("docs").glob("*.md"),
        ROOT / "README.md",
        *ROOT.joinpath("examples").glob("*.py"),
        *ROOT.joinpath("bench").glob("*.py"),
    ]
)


@pytest.mark.parametrize("page", DOCUMENTED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_documented_import_works(page):
    pytest.importorskip("sklearn")
    pytest.importorskip("pyarrow")
    broken = []
    for statement in _imports(page.read_text()):
        tree = ast.parse(statement.strip())
        node = tree.body[0]
        assert isinstance(node, ast.ImportFrom) and node.module
        module = importlib.import_module(node.module)
        for alias in node.names:
            if not hasattr(module, alias.name):
                try:
                    importlib.import_module(f"{node.module}.{alias.name}")
                except ImportError:
                    broken.append(f"from {node.module} import {alias.name}")
    assert not broken, f"{page.name}: " + "; ".join(broken)


def _resolves(dotted: str) -> bool:
    """``maxmargin.a.b.C.d``: a module, then attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


@pytest.mark.parametrize("page", sorted(ROOT.joinpath("docs").glob("*.md")), ids=lambda p: p.name)
def test_every_name_the_docs_cite_resolves(page):
    """``maxmargin.X`` in backticks (or a ``{func}`~maxmargin.X``` role) names something."""
    pytest.importorskip("sklearn")
    pytest.importorskip("pyarrow")
    cited = re.findall(r"`~?(maxmargin(?:\.\w+)+)(?:\(\))?`", page.read_text())
    wrong = sorted({c for c in cited if not _resolves(c)})
    assert not wrong, f"{page.name} cites names that do not exist: {', '.join(wrong)}"


def test_the_api_page_lists_every_face():
    """docs/conf.py writes the API page from ``maxmargin.__all__`` and these modules."""
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text())
    extra = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", "") == "_EXTRA_MODULES" for t in node.targets)
    )
    for face in ("maxmargin.online", "maxmargin.data", "maxmargin.evaluation"):
        assert face in extra, face
    for name in extra:
        module = importlib.import_module(name)
        assert all(hasattr(module, n) for n in module.__all__), name
