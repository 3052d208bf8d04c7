"""Every result's file (maxmargin/io/document.py): written, read back, refused when malformed.

One parametrized round trip over every ``io.Persistent`` subclass of maxmargin (a class
without an example here fails :func:`test_every_result_has_an_example`): ``to_json`` ->
``from_json`` -> ``to_json`` gives the same text and the same class, ``without_data()``
keeps every declared field. Then malformed documents (a key missing, a value of the wrong
kind, a newer and an older version, not JSON) are refused in one line, what needs the data
says so in one line, and a pair of files (``.npz`` + ``.json``) round-trips.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import io as _io
import json
import math
import pkgutil
import re
from dataclasses import dataclass

import numpy as np
import pytest

import maxmargin as mm
from maxmargin import DataError, ParameterError, io
from maxmargin.certificate import Certificate, certify
from maxmargin.evaluation.kernel_scoring import KernelComparison, KernelScore, compare_kernel
from maxmargin.evaluation.path.learners import LearnerPathStudy, learners_along_path
from maxmargin.evaluation.path.limits import HardMarginLimit, hard_margin_limit
from maxmargin.evaluation.path.tracer import BreakpointCertificates
from maxmargin.evaluation.reference import Reference
from maxmargin.io.json import FORMATS
from maxmargin.io.schema import specs
from maxmargin.kernel_problem import KernelProblem
from maxmargin.online import Perceptron, run
from maxmargin.online.claims import (
    NOVIKOFF,
    SCALING,
    Average,
    Claim,
    Invariance,
    MistakeBound,
    Rate,
    RegretBound,
)
from maxmargin.online.learner import Declared
from maxmargin.online.step_sizes import Constant, InverseSqrt, PegasosStep, StepSize
from maxmargin.separation import SeparationCertificate, verify_separation
from maxmargin.solvers.kernel import KernelSolution, solve_kernel_dual
from maxmargin.testing import CheckReport, Verdict


def _results():
    """Every ``io.Persistent`` subclass in maxmargin (each module imported first)."""
    for m in pkgutil.walk_packages(mm.__path__, "maxmargin."):
        importlib.import_module(m.name)
    out, todo = [], [io.Persistent]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("maxmargin."):
                out.append(sub)
    return out


def _data():
    ds = mm.make_gaussians(24, 3, separation=1.0, seed=2)
    return mm.Dataset(ds.X, ds.y, name="g", feature_names=("a", "b_c", "d"))


def _problem():
    return mm.SVMProblem(_data(), C=0.7, sample_weight=np.linspace(0.0, 2.0, 24))


def _solution():
    return mm.solve(mm.SVMProblem(_data(), C=2.0, intercept="augmented", intercept_scaling=3.0))


def _hard_solution():
    return mm.solve(mm.SVMProblem(mm.make_separable(20, 2, seed=3), hard=True))


def _kernel_problem():
    return KernelProblem(_data(), "poly", C=0.7, degree=2, sample_weight=np.linspace(0, 2, 24))


def _kernel_solution():
    return solve_kernel_dual(KernelProblem(_data(), "rbf", C=2.0))


def _kernel_hard_solution():
    """Hard margin (C inf), intercept none, the linear kernel (gamma null)."""
    data = mm.make_separable(20, 2, seed=3)
    return solve_kernel_dual(KernelProblem(data, "linear", hard=True, intercept="none"))


@functools.cache
def _kernel_comparison():
    """Two learners, two seeds; the data separable in the kernel's space (a margin)."""
    data = mm.make_separable(16, 2, seed=3)
    return compare_kernel(
        data, ["dual_perceptron", "kernel_pa1"], gamma=1.0, epochs=2, seeds=[0, 1]
    )


def _kernel_comparison_not_separable():
    """Not separated by the linear kernel: margin and Novikoff None (null)."""
    return compare_kernel(_data(), ["kernel_pegasos"], kernel="linear", C=0.5, epochs=1)


def _certificate():
    p = mm.SVMProblem(_data(), C=1.0)
    return certify(p, [np.inf, 0.0, 0.0], 0.0, np.zeros(24))  # every residual inf


def _undecided():
    e = math.ldexp
    p = mm.SVMProblem(mm.Dataset([[e(1.0, 530)], [-e(1.0, 530)]], [1, -1]), hard=True)
    return certify(p, [e(1.0, -530)], 0.0, [e(1.0, -1061)] * 2)


def _separation():
    ds = mm.Dataset([[0.0], [1.0], [0.5]], [1, 1, -1])
    return verify_separation(ds, [0.25, 0.25, 0.5])


def _separation_none():
    ds = mm.Dataset([[1.0], [1.0]], [1, -1])  # one point, both labels: no w.x separates
    return verify_separation(ds, [0.5, 0.5], "none")


@functools.cache
def _comparison():
    return mm.compare(_data(), learners=["perceptron", "pegasos"], lam=0.1, epochs=1)


@functools.cache
def _comparison_separable():
    """Separable (a hard-margin reference), a holdout, and a trace from elsewhere (N/A)."""
    sep = mm.make_separable(40, 2, seed=3)
    train, hold = sep.subset(np.arange(30)), sep.subset(np.arange(30, 40))
    ref = mm.solve(mm.SVMProblem(train, lam=0.1, intercept="none"))
    tr = mm.Trace.from_weights([30, 60], [ref.w * 0.5, ref.w], name="mine", data=train)
    return mm.compare(
        train, learners=["pa1"], lam=0.1, intercept="none", epochs=2, holdout=hold, traces=[tr]
    )


def _grid_path():
    sep = mm.make_separable(20, 2, seed=3)  # the hard-margin limit nested, intercept "none"
    return mm.regularization_path(sep, C=[0.01, 1e3], intercept="none", hard_limit=True)


def _weighted_grid_path():
    w = np.linspace(0.5, 2.0, 24)
    return mm.regularization_path(_data(), C=[0.1, 10.0], sample_weight=w, hard_limit=False)


def _hard_limit():
    return _grid_path().hard_margin_limit


def _hard_limit_not_separable():
    return hard_margin_limit(_data())


def _learners_study():
    ds = mm.make_gaussians(30, 2, seed=0)
    return learners_along_path(ds, lam=[0.01, 0.1], learners=["pegasos", "subgradient"], epochs=1)


def _exact_path():
    w = np.linspace(0.0, 2.0, 24)  # a weight 0: an example out of the path
    return mm.regularization_path(_data(), exact=True, intercept="augmented", sample_weight=w)


def _exact_path_to_C_max():
    return mm.regularization_path(mm.make_separable(20, 2, seed=3), 0.5, exact=True)


def _path_point():
    return mm.regularization_path(_data(), exact=True).solution_at(0.5)


def _trace_from_weights():
    """Mistakes not recorded (NaN), a NaN training error, the declarations of a kind."""
    return mm.Trace.from_weights([3, 6], [[1.0, 0.0], [1.0, 0.5]], name="mine", n=3, d=2)


def _verdict():
    """A FAIL with its run, and (below) an N/A statistic beside an infinite interval end."""
    return Verdict(
        "mistakes", "mistakes", "bound", "p", "FAIL", "x", 1.5, None, 1.0, 7, "cyclic", 0, 30
    )


def _verdict_na():
    return Verdict("rate", "rate", "exponent", "p", "INCONCLUSIVE", "y", interval=(-1.2, math.inf))


def _check_report():
    return CheckReport(
        "mine", "quick", 0, (0, 1, 2), 30, (_verdict(), _verdict_na()),
        not_checked=(("regret", "*", "no lam"),), seconds=1.5, lam=0.1, target=("import m", "m.L"),
    )  # fmt: skip


#: A small instance of every result, several where a field may be None or infinite.
EXAMPLES = {
    mm.SVMProblem: [_problem, lambda: mm.SVMProblem(_data(), hard=True)],
    Certificate: [_certificate, _undecided],
    SeparationCertificate: [_separation, _separation_none],
    mm.ExactSolution: [_solution, _hard_solution],
    KernelProblem: [
        _kernel_problem,
        lambda: KernelProblem(_data(), "sigmoid", hard=True, check=False),
    ],
    KernelSolution: [_kernel_solution, _kernel_hard_solution],
    KernelComparison: [_kernel_comparison, _kernel_comparison_not_separable],
    KernelScore: [lambda: _kernel_comparison().scores[0], lambda: _kernel_comparison().scores[3]],
    mm.Comparison: [_comparison, _comparison_separable],
    Reference: [lambda: _comparison().references[0], lambda: _comparison_separable().references[0]],
    mm.RunResult: [lambda: _comparison().runs[1], lambda: _comparison_separable().runs[1]],
    mm.RegularizationPath: [_grid_path, _weighted_grid_path],
    HardMarginLimit: [_hard_limit, _hard_limit_not_separable],
    LearnerPathStudy: [_learners_study],
    mm.PathPoint: [_path_point],
    mm.Trace: [
        lambda: run("pegasos", _data(), epochs=1, order="shuffle", seed=1, record_dual=True),
        lambda: run("pocket", _data(), epochs=1),  # extras of ints and floats
        _trace_from_weights,
    ],
    Declared: [lambda: Declared.of(Perceptron(), R=2.0), lambda: Declared.of_kind("mistakes")],
    StepSize: [StepSize],
    Constant: [lambda: Constant(0.5)],
    InverseSqrt: [lambda: InverseSqrt(2.0)],
    PegasosStep: [PegasosStep, lambda: PegasosStep(lam=0.1, offset=0)],
    mm.ExactPath: [_exact_path, _exact_path_to_C_max],
    Claim: [Claim],
    Rate: [Rate, lambda: Rate(iterate="last", exponent=-0.5, log_power=0, orders=("sample",))],
    MistakeBound: [lambda: NOVIKOFF, lambda: MistakeBound(form="pa1", data="any")],
    RegretBound: [RegretBound],
    Invariance: [lambda: SCALING],
    Average: [lambda: Average(iterates="after")],
    Verdict: [_verdict, _verdict_na],
    CheckReport: [_check_report, lambda: CheckReport("mine", "quick", 0, (), 1, ())],
}
CASES = [
    pytest.param(cls, make, id=f"{cls.__name__}-{i}")
    for cls, makers in EXAMPLES.items()
    for i, make in enumerate(makers)
]


def test_every_result_has_an_example():
    missing = sorted(c.__qualname__ for c in _results() if c not in EXAMPLES)
    assert not missing, f"add an example of each to EXAMPLES: {missing}"


def _same(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b, equal_nan=True) and np.asarray(a).dtype == np.asarray(b).dtype
    if isinstance(a, io.Persistent):
        return io.equal(a, b)
    if dataclasses.is_dataclass(a):  # a value a codec writes whole (a Kernel)
        return type(b) is type(a) and a == b
    if isinstance(a, BreakpointCertificates):  # its rows (what its codec writes)
        return type(b) is type(a) and _same(a._rows, b._rows) and a._tol == b._tol
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("cls, make", CASES)
def test_round_trip_of_every_result(cls, make):
    obj = make()
    assert type(obj) is cls
    text = obj.to_json()
    back = cls.from_json(_io.StringIO(text))
    assert type(back) is cls and back.to_json() == text
    json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in {cls.__name__}'s JSON"))
    if cls.FORMAT:
        assert json.loads(text)["format"] == f"maxmargin.{cls.FORMAT}/{FORMATS[cls.FORMAT][0]}"
    kept = obj.without_data()
    assert type(kept) is cls and io.equal(kept, obj)
    for f, s in specs(cls):
        if s.transient:
            assert getattr(kept, f.name) is None and getattr(back, f.name) is None, f.name
        else:
            assert _same(getattr(kept, f.name), getattr(obj, f.name)), f.name
            assert _same(getattr(back, f.name), getattr(obj, f.name)), f.name


# --------------------------------------------------------------------------- malformed


@pytest.fixture(scope="module")
def solution_doc():
    return _solution().to_dict()


def _edit(doc, key, value):
    out = json.loads(json.dumps(doc))
    if value is KeyError:
        del out[key]
    else:
        out[key] = value
    return out


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("w", KeyError, r"no 'w' key"),
        ("primal_objective", KeyError, r"no 'primal_objective' key"),
        ("data", KeyError, r"no 'data' key"),
        ("b", "x", r"'b': expected a number, got the string 'x'"),
        ("b", [1.0], r"'b': expected a number"),
        ("support", [1.5], r"'support': expected integers"),
        ("alpha", [0.0, 1.0], r"'alpha': expected an object"),
        ("alpha", {"n": 2, "index": [7], "value": [1.0]}, r"'alpha': index 7 is out of bounds"),
        ("certified", "yes", r"'certified': expected true or false"),
        ("kkt", [1e-9], r"'kkt': expected an object"),
        ("feature_names", "abc", r"'feature_names': expected a list"),
        ("n", 24.0, r"'n': expected an integer"),
        ("w", [[1.0], [2.0, 3.0]], r"'w': "),
        ("status", None, r"'status': expected a string"),
    ],
)
def test_malformed_solution_is_refused_in_one_line(solution_doc, key, value, message):
    with pytest.raises(DataError) as e:
        mm.ExactSolution.from_json(_edit(solution_doc, key, value))
    text = str(e.value)
    assert "\n" not in text and text.startswith(
        "<JSON>: not a readable maxmargin solution document: "
    ), text
    assert re.search(message, text), text


@pytest.mark.parametrize(
    "fmt, message",
    [
        ("maxmargin.solution/3", r"reads up to maxmargin.solution/2: upgrade maxmargin$"),
        ("maxmargin.solution/1", r"development version .*solution/1.*: compute it again$"),
        ("maxmargin.path/1", r"a maxmargin path document .*read it with RegularizationPath"),
        ("sklearn/1", r"format 'sklearn/1' is not maxmargin's"),
    ],
)
def test_other_versions_and_kinds_are_refused_in_one_line(solution_doc, fmt, message):
    with pytest.raises(DataError, match=message) as e:
        mm.ExactSolution.from_json({**solution_doc, "format": fmt})
    assert "\n" not in str(e.value)


def test_not_json_and_not_a_document_are_refused_in_one_line(tmp_path):
    f = tmp_path / "s.json"
    for text, message in (
        ("{oops", r"s.json: not valid JSON"),
        ("[1, 2]", r"s.json: a JSON list, not a maxmargin document"),
        ('{"w": 1}', r'no "format" key: not a maxmargin solution document'),
        ('{"format": "maxmargin.solution/2", "b": NaN}', r"not valid JSON"),
    ):
        f.write_text(text)
        with pytest.raises(DataError, match=message) as e:
            mm.ExactSolution.from_json(f)
        assert "\n" not in str(e.value)
    with pytest.raises(DataError, match="no such file"):
        mm.ExactSolution.from_json(tmp_path / "none.json")
    doc = {k: v for k, v in _certificate().to_dict().items() if k != "primal_objective"}
    with pytest.raises(DataError, match=r"^<JSON>: not a readable Certificate: no 'primal_ob"):
        Certificate.from_json(doc)


# --------------------------------------------------------------------------- the data


NEEDS_DATA = {
    "data": lambda p: p.data,
    "Z": lambda p: p.Z,
    "R": lambda p: p.R,
    "decision_function": lambda p: p.decision_function(np.zeros(3)),
    "margins": lambda p: p.margins(np.zeros(3)),
    "hinge": lambda p: p.hinge(np.zeros(3)),
    "primal_objective": lambda p: p.primal_objective(np.zeros(3)),
    "lambda_objective": lambda p: p.lambda_objective(np.zeros(3)),
    "dual_weights": lambda p: p.dual_weights(np.zeros(24)),
    "dual_objective": lambda p: p.dual_objective(np.zeros(24)),
    "weights_from_dual": lambda p: p.weights_from_dual(np.zeros(24)),
    "certify": lambda p: certify(p, np.zeros(3), 0.0, np.zeros(24)),
}


@pytest.mark.parametrize("what", NEEDS_DATA)
def test_what_needs_the_data_says_so_in_one_line(what):
    p = mm.SVMProblem.from_json(_problem().to_dict())
    with pytest.raises(DataError) as e:
        NEEDS_DATA[what](p)
    assert str(e.value) == (
        "g: this problem was read from a file without its data; give them: "
        "from_json(file, data), or .with_data(data)"
    )


def test_what_needs_no_data_works_without_them():
    sol = mm.ExactSolution.from_json(_io.StringIO(_solution().to_json()))
    assert sol.problem.n == 24 and sol.problem.costs.shape == (24,)
    assert sol.predict(np.zeros((2, 3))).shape == (2,) and "g (n=24, d=3)" in sol.summary()
    assert sol.problem.regularizer(np.ones(3), 3.0) == 4.0  # augmented: 3 + (3/3)^2
    assert repr(sol.problem) == "SVMProblem('g', C=2, lam=0.0208333, intercept='augmented')"


def test_with_data_recomputes_and_checks_the_data():
    data = _data()
    sol = _solution()
    again = mm.ExactSolution.from_json(_io.StringIO(sol.to_json()), data)
    assert again.problem.data is data and again.certificate == sol.certificate
    assert mm.SVMProblem.from_json(_problem().to_dict(), data).with_data(data).n == 24
    sep = SeparationCertificate.from_json(_separation().to_dict(), _separation_data())
    assert sep.verified and sep.support.tolist() == [0, 1, 2]
    with pytest.raises(ParameterError, match="Certificate has nothing to recompute from data"):
        Certificate.from_json(_certificate().to_dict(), data)
    with pytest.raises(DataError, match="n=24, d=3; .* has n=20, d=2"):
        sol.with_data(mm.make_separable(20, 2, seed=0))


def _separation_data():
    return mm.Dataset([[0.0], [1.0], [0.5]], [1, 1, -1])


# --------------------------------------------------------------------------- file pairs


@dataclass(frozen=True, eq=False)
class _Pair(io.Persistent):
    FORMAT = "test_pair"

    learner: str
    w: np.ndarray
    t: np.ndarray = io.persist(io.Array(int))
    dual: np.ndarray | None
    extras: dict = io.persist(io.Arrays(), key="extra")
    seconds: float = math.nan


def test_a_pair_keeps_its_arrays_in_npz_and_the_rest_in_json(tmp_path, monkeypatch):
    monkeypatch.setitem(FORMATS, "test_pair", (1, "io.load_pair"))
    obj = _Pair(
        "pegasos", np.arange(6.0).reshape(3, 2), np.array([1, 2, 3]), None, {"g": np.ones(3)}
    )
    npz, js = io.save_pair(obj, tmp_path / "run")
    assert (npz.name, js.name) == ("run.npz", "run.json")
    doc = json.loads(js.read_text())
    assert doc["arrays"] == ["extra_g", "t", "w"] and "w" not in doc and doc["seconds"] is None
    back = io.load_pair(_Pair, tmp_path / "run")
    assert io.equal(back, obj) and back.dual is None and back.t.dtype == np.int64
    with pytest.raises(DataError, match="no such file"):
        io.load_pair(_Pair, tmp_path / "other")
    bad = _Pair("x", np.array([object()]), np.array([1]), None, {})
    with pytest.raises(DataError, match="dtype object"):
        io.save_pair(bad, tmp_path / "bad")


@dataclass(frozen=True, eq=False)
class _Counted(io.Persistent):
    FORMAT = "test_pair"
    COMPUTED = ("summary",)

    t: np.ndarray = io.persist(io.Array(int))
    errors: np.ndarray  # int32 here: the .npz keeps any dtype
    extras: dict = io.persist(io.Arrays(), key="extra")

    def summary(self) -> str:
        return f"{self.t.size} checkpoints"


def test_a_pair_keeps_dtypes_and_its_json_layout(tmp_path, monkeypatch):
    monkeypatch.setitem(FORMATS, "test_pair", (1, "io.load_pair"))
    obj = _Counted(
        np.array([1, 2]),
        np.array([0.0, 1.0], dtype=np.float32),
        {"n": np.array([3, 4], dtype=np.int32)},
    )
    npz, js = io.save_pair(obj, tmp_path / "c")
    text = js.read_text()
    assert list(json.loads(text)) == ["format", "maxmargin_version", "arrays", "summary"]
    assert text.startswith('{\n  "format"')  # indented by 2
    back = io.load_pair(_Counted, tmp_path / "c")
    assert back.errors.dtype == np.float32 and back.extras["n"].dtype == np.int32
    assert io.equal(back, obj)


def test_a_pair_without_an_array_or_with_a_broken_npz_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setitem(FORMATS, "test_pair", (1, "io.load_pair"))
    npz, js = io.save_pair(_Counted(np.array([1]), np.zeros(1), {}), tmp_path / "c")
    np.savez(npz, errors=np.zeros(1))
    with pytest.raises(DataError, match=r"c\.npz: no array 't'$"):
        io.load_pair(_Counted, tmp_path / "c")
    npz.write_bytes(b"not a zip")
    with pytest.raises(DataError, match="not a readable .npz") as e:
        io.load_pair(_Counted, tmp_path / "c")
    assert "\n" not in str(e.value)
