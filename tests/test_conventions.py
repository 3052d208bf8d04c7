"""The conventions every output reads (maxmargin/conventions.py), and that they are read.

Each convention pinned: the default intercept and the intercept a learner gets, the
problem in words, the names of weights and features, the iterate styles, the statistic
over seeds, scikit-learn's parameter names. Then the entry points: every one defaults to
the free intercept; the rows of the work packages that have not switched yet are strict
xfails naming their owner (issue 22), so each package turns its own rows green.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import math
from pathlib import Path

import numpy as np
import pytest

import maxmargin as mm
from maxmargin import ParameterError
from maxmargin.conventions import (
    DEFAULT_INTERCEPT,
    INTERCEPTS,
    ITERATE_LABELS,
    ITERATE_STYLES,
    SKLEARN_NAMES,
    STATISTIC,
    describe_problem,
    feature_names,
    intercept_for,
    resolve_sklearn,
    seed_of,
    sklearn_names,
    summarize,
    weight_names,
)

PACKAGE = Path(mm.__file__).resolve().parent


def test_the_default_intercept_is_the_textbook_free_bias():
    assert DEFAULT_INTERCEPT == "free" and INTERCEPTS == ("free", "none", "augmented")


@pytest.mark.parametrize(
    "supported, requested, expected",
    [
        (("none", "augmented", "free"), None, "free"),
        (("none", "augmented", "free"), "none", "none"),
        (("none", "augmented"), None, "augmented"),
        (("none", "augmented"), "free", "augmented"),  # not supported: the default's kin
        (("none",), "free", "none"),  # Winnow
    ],
)
def test_intercept_for(supported, requested, expected):
    assert intercept_for(supported, requested) == expected


def test_describe_problem():
    assert describe_problem(2.0, 0.25, "none") == (
        "soft margin, C = 2 (lambda = 0.25), intercept none (b = 0)"
    )
    assert describe_problem(math.inf, 0.0, "free", hard=True) == (
        "hard margin, intercept free (b unregularised)"
    )
    assert "s = 3" in describe_problem(1.0, 0.1, "augmented", 3.0)


def test_names_of_weights_and_features():
    assert weight_names(None, 3) == ["w[0]", "w[1]", "w[2]"]  # the numpy index: 0-based
    assert weight_names(("age", "w,eight"), 2) == ["w[age]", "w[w,eight]"]
    assert feature_names(None, 2) == ["x[0]", "x[1]"]
    assert feature_names(("age", "dose"), 2) == ["age", "dose"]


def test_iterate_styles_average_solid_last_dashed():
    assert ITERATE_STYLES["average"]["linestyle"] == "-"
    assert ITERATE_STYLES["last"]["linestyle"] == "--"
    assert ITERATE_STYLES["average"]["linewidth"] > ITERATE_STYLES["last"]["linewidth"]
    assert set(ITERATE_LABELS) == set(ITERATE_STYLES)


def test_summary_over_seeds_is_the_median_and_the_range():
    assert STATISTIC == "median over seeds [min, max]"
    assert summarize([1.0, 2.0, 10.0]) == (2.0, 1.0, 10.0)  # the mean would be 4.33
    assert summarize([3.0, 1.0]) == (2.0, 1.0, 3.0)
    center, lo, hi = summarize([1.0, math.nan, 10.0])  # a diverged seed: N/A
    assert math.isnan(center) and math.isnan(lo) and math.isnan(hi)
    curves = np.array([[1.0, 4.0], [2.0, 8.0], [9.0, 5.0]])  # (seeds, t)
    c, lo, hi = summarize(curves)
    assert c.tolist() == [2.0, 5.0] and lo.tolist() == [1.0, 4.0] and hi.tolist() == [9.0, 8.0]


# --------------------------------------------------------------------------- scikit-learn


@sklearn_names(max_iter="epochs", random_state="seed", alpha="lam")
def _fit(data, epochs=10, *, seed=0, lam=None):
    return epochs, seed, lam


def test_sklearn_alias_alone_is_the_value():
    assert _fit(None, max_iter=3) == (3, 0, None)
    assert _fit(None, random_state=7, alpha=0.5) == (10, 7, 0.5)
    assert _fit(None, 4, seed=2) == (4, 2, None)


def test_sklearn_alias_and_own_both_given_and_equal():
    assert _fit(None, 5, max_iter=5) == (5, 0, None)  # the own one by position
    assert _fit(None, epochs=5, max_iter=5, seed=1, random_state=1) == (5, 1, None)


def test_sklearn_alias_and_own_both_given_and_different_is_one_line():
    with pytest.raises(ParameterError, match=r"^epochs=4 and max_iter=3 disagree: give one"):
        _fit(None, 4, max_iter=3)
    with pytest.raises(ParameterError, match="seed=1 and random_state=2 disagree"):
        _fit(None, seed=1, random_state=2)
    with pytest.raises(ParameterError, match="'random_state' parameter must be None, an int"):
        _fit(None, random_state=-1)


def test_sklearn_names_in_the_signature_and_resolved_once():
    params = inspect.signature(_fit).parameters
    assert params["max_iter"].default is None and params["epochs"].default == 10
    assert set(SKLEARN_NAMES) == {"random_state", "max_iter", "alpha", "Cs", "alphas"}
    with pytest.raises(ValueError, match="not scikit-learn names"):
        sklearn_names(gamma="lam")
    with pytest.raises(ValueError, match="no parameter"):
        sklearn_names(Cs="C")(_fit)


def test_random_state_objects_draw_a_seed():
    a = seed_of(np.random.RandomState(0))
    assert a == seed_of(np.random.RandomState(0)) and isinstance(a, int)
    assert isinstance(seed_of(np.random.default_rng(0)), int)
    assert resolve_sklearn("seeds", (0, 1, 2), "random_state", 5, default=(0, 1, 2)) == (5,)
    assert resolve_sklearn("seeds", [5], "random_state", 5) == (5,)
    assert resolve_sklearn("epochs", 10, "max_iter", 3, default=10) == 3
    with pytest.raises(ParameterError, match="lam=0.1 and alpha=0.2 disagree"):
        resolve_sklearn("lam", 0.1, "alpha", 0.2, default=1e-4)


# --------------------------------------------------------------------------- read by all


def _cli_default(command):
    from maxmargin.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command].get_default("intercept")


def _study_default():
    from maxmargin.studies.spec import load_spec

    spec = {
        "name": "s",
        "problem": {"C": [1.0]},
        "run": {"epochs": 1, "seeds": 1},
        "data": [{"generator": "separable", "params": {"n": 20, "d": 2}}],
        "learners": ["pegasos"],
    }
    return load_spec(spec).intercept


class _Mine:
    """A learner of the public protocol that says nothing about its intercept."""

    name = "mine"

    def start(self, d):
        self.w = np.zeros(d)

    def step(self, x, y, t):
        pass

    def weights(self):
        return self.w, 0.0


def _own_learner_default():
    from maxmargin.online import resolve

    return resolve(_Mine()).intercept


def test_an_own_learner_defaults_to_its_kin_of_free():
    # The protocol's default supported_intercepts are ("none", "augmented"): a learner of
    # one's own treats the bias feature as one more weight unless it says it can leave the
    # bias unregularised, so the adapter takes intercept_for's next choice.
    assert _own_learner_default() == "augmented"
    _Mine.supported_intercepts = ("none", "augmented", "free")
    try:
        assert _own_learner_default() == DEFAULT_INTERCEPT
    finally:
        del _Mine.supported_intercepts


def _pegasos():
    from maxmargin.online import Pegasos

    return Pegasos()


def _signature(func):
    return inspect.signature(func).parameters["intercept"].default


def _data():
    return mm.make_separable(20, 2, seed=0)


def _pending(owner, what):
    return pytest.mark.xfail(
        strict=True, raises=AssertionError, reason=f"{owner} switches {what} to 'free'"
    )


ENTRY_POINTS = [
    pytest.param(lambda: mm.SVMProblem(_data()).intercept, id="SVMProblem"),
    pytest.param(lambda: mm.solve(mm.SVMProblem(_data())).problem.intercept, id="solve"),
    pytest.param(lambda: _signature(mm.regularization_path), id="regularization_path"),
    pytest.param(
        lambda: mm.compare(_data(), learners=["pegasos"], epochs=1).problem.intercept,
        id="compare",
    ),
    pytest.param(
        lambda: mm.run("pegasos", _data()).intercept,
        id="run",
    ),
    pytest.param(
        lambda: _pegasos().intercept,
        id="OnlineLearner",
    ),
    pytest.param(
        lambda: _signature(mm.learners_along_path),
        id="learners_along_path",
    ),
    pytest.param(
        lambda: __import__("maxmargin.estimators", fromlist=["x"]).ExactSVC().intercept,
        id="ExactSVC",
    ),
    pytest.param(
        lambda: __import__("maxmargin.estimators", fromlist=["x"]).PegasosClassifier().intercept,
        id="PegasosClassifier",
    ),
    pytest.param(
        lambda: __import__("maxmargin.estimators", fromlist=["x"]).PerceptronClassifier().intercept,
        id="PerceptronClassifier",
    ),
    pytest.param(lambda: _cli_default("solve"), id="cli solve"),
    pytest.param(lambda: _cli_default("path"), id="cli path"),
    pytest.param(lambda: _cli_default("compare"), id="cli compare"),
    pytest.param(  # None: each learner's own default
        lambda: _cli_default("run") or _pegasos().intercept,
        id="cli run",
    ),
    pytest.param(_study_default, id="study spec"),
]


@pytest.mark.parametrize("default", ENTRY_POINTS)
def test_every_entry_point_defaults_to_free(default):
    assert default() == DEFAULT_INTERCEPT


def _literal(node):
    return isinstance(node, ast.Constant) and node.value in INTERCEPTS


def _intercept_defaults(path):
    """Where a module writes a default intercept of its own (a literal mode)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        hit = False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):  # def f(intercept="x")
            a = node.args
            named = a.args[len(a.args) - len(a.defaults) :] + a.kwonlyargs
            values = [*a.defaults, *a.kw_defaults]
            hit = any(
                arg.arg == "intercept" and _literal(v)
                for arg, v in zip(named[-len(values) :], values, strict=False)
            )
        elif isinstance(node, ast.AnnAssign):  # a class attribute: intercept: str = "x"
            hit = getattr(node.target, "id", "") == "intercept" and _literal(node.value)
        elif isinstance(node, ast.Call) and node.args:
            first = node.args[0]
            name = getattr(node.func, "attr", "")
            if name == "get" and len(node.args) > 1:  # spec.get("intercept", "x")
                hit = getattr(first, "value", None) == "intercept" and _literal(node.args[1])
            elif name == "add_argument":  # add_argument("--intercept", default="x")
                hit = getattr(first, "value", None) == "--intercept" and any(
                    k.arg == "default" and _literal(k.value) for k in node.keywords
                )
        if hit:
            out.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return out


@pytest.mark.parametrize(
    "where",
    [
        pytest.param(("problem.py", "exact.py", "separation.py", "data"), id="WP1/WP2"),
        pytest.param(("online",), id="WP3", marks=_pending("WP3", "the learners' defaults")),
        pytest.param(("evaluation/comparison.py",), id="WP4"),
        pytest.param(("evaluation/path",), id="WP5", marks=_pending("WP5", "the path's learners")),
        pytest.param(("estimators",), id="WP2"),
        pytest.param(("cli", "studies"), id="WP6"),
        pytest.param(
            ("kernel_problem.py",),
            id="kernels",
            marks=_pending("the lead (issue 25's module)", "KernelProblem's literal"),
        ),
    ],
)
def test_no_module_writes_its_own_default_intercept(where):
    """A default intercept is conventions.DEFAULT_INTERCEPT, never a literal of its own."""
    files = [
        f
        for w in where
        for f in ([PACKAGE / w] if (PACKAGE / w).is_file() else sorted((PACKAGE / w).rglob("*.py")))
    ]
    assert files
    found = [hit for f in files for hit in _intercept_defaults(f)]
    assert not found, "\n".join(found)
