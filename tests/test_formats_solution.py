"""The JSON documents maxmargin writes (docs/formats.md): every document, the solution.

Their format and version keys, what the loaders refuse (files of development versions
included), the solution's loader (to_json -> from_json -> to_json gives the same text;
read without the data it is the same class, its data absent; with them, re-certified),
weighted documents.
"""

import io
import json

import numpy as np
import pytest
import scipy.sparse as sp
from _formats import _text

import maxmargin as mm
from maxmargin import Comparison, DataError, ExactSolution, RegularizationPath
from maxmargin.io.json import FORMATS, format_header, read_document

VERSION = {"maxmargin_version": mm.__version__}


# --------------------------------------------------------------------------- every document


def test_every_document_starts_with_its_format_and_version(tmp_path, separable):
    sol = mm.solve(mm.SVMProblem(separable, C=1.0))
    p = mm.regularization_path(separable, C=[0.1, 1.0])
    ep = mm.regularization_path(separable, exact=True)
    cmp = mm.compare(separable, learners=["pegasos"], lam=0.1, epochs=1)
    _, js = mm.run("perceptron", separable).save(tmp_path / "tr")
    from maxmargin.io.files import mark_output_dir

    (tmp_path / "o").mkdir()
    mark_output_dir(tmp_path / "o", "path", [])
    docs = {
        "solution": sol.to_dict(),
        "path": p.to_dict(),
        "exact_path": ep.to_dict(),
        "comparison": cmp.to_dict(),
        "trace": json.loads(js.read_text()),
        "output_dir": json.loads((tmp_path / "o" / ".maxmargin").read_text()),
    }
    for kind, d in docs.items():
        assert list(d)[:2] == ["format", "maxmargin_version"], kind
        assert d["format"] == f"maxmargin.{kind}/{FORMATS[kind][0]}", kind
        assert d["maxmargin_version"] == mm.__version__
        assert read_document(d, kind) == d


def test_read_document_refuses_with_one_clear_line(tmp_path):
    path_doc = {**format_header("path"), "C": []}
    with pytest.raises(
        DataError,
        match="a maxmargin path document .*not a solution; read "
        "it with RegularizationPath.from_json",
    ):
        ExactSolution.from_json(path_doc)
    with pytest.raises(DataError, match="a maxmargin solution document .*ExactSolution.from_json"):
        RegularizationPath.from_json({**format_header("solution")})
    with pytest.raises(
        DataError,
        match="maxmargin.path/7; maxmargin .* reads up to maxmargin.path/2: upgrade maxmargin",
    ):
        RegularizationPath.from_json({"format": "maxmargin.path/7", "maxmargin_version": "9"})
    with pytest.raises(DataError, match="format 'sklearn/1' is not maxmargin's"):
        Comparison.from_json({"format": "sklearn/1"})
    with pytest.raises(DataError, match='no "format" key: not a maxmargin solution document$'):
        ExactSolution.from_json({"w": [1.0]})
    f = tmp_path / "x.json"
    with pytest.raises(DataError, match="x.json: no such file"):
        ExactSolution.from_json(f)
    f.write_text("[1, 2]")
    with pytest.raises(DataError, match="a JSON list, not a maxmargin document"):
        ExactSolution.from_json(f)
    f.write_text("{oops")
    with pytest.raises(DataError, match="x.json: not valid JSON"):
        Comparison.from_json(str(f))
    with pytest.raises(DataError, match="a path or an open file"):
        ExactSolution.from_json(42)


# --------------------------------------------------------------------------- solutions


@pytest.mark.parametrize(
    "kw",
    [
        {"C": 0.5},
        {"hard": True},
        {"C": 2.0, "intercept": "augmented", "intercept_scaling": 3.0},
        {"C": 1.0, "intercept": "none"},
    ],
)
def test_solution_round_trip_with_and_without_the_data(separable, named, kw):
    data = separable if kw.get("hard") else named
    sol = mm.solve(mm.SVMProblem(data, **kw))
    text = sol.to_json()
    saved = ExactSolution.from_json(io.StringIO(text))
    assert type(saved) is ExactSolution and saved.to_json() == text
    assert saved.to_dict() == sol.to_dict()
    # the numbers and arrays, to the bit
    for name in ("w", "alpha", "support", "margin_support", "bound_support"):
        assert np.array_equal(getattr(saved, name), getattr(sol, name)), name
    for name in (
        "b",
        "primal_objective",
        "dual_objective",
        "duality_gap",
        "margin",
        "sv_tol",
        "training_error",
    ):
        assert getattr(saved, name) == getattr(sol, name), name
    assert saved.certificate == sol.certificate  # every field, kkt and floors included
    p, q = saved.problem, sol.problem
    assert (p.C, p.lam, p.hard, p.intercept, p.intercept_scaling) == (
        q.C,
        q.lam,
        q.hard,
        q.intercept,
        q.intercept_scaling,
    )
    assert (p.n, p.d, p.data_name, p.feature_names) == (
        data.n,
        data.d,
        data.name,
        data.feature_names,
    )
    X = np.random.default_rng(0).standard_normal((7, data.d))
    assert np.array_equal(saved.predict(X), sol.predict(X))
    # what needs the data says so, in one line
    for needs_data in (lambda: saved.problem.data, lambda: saved.problem.margins(sol.w, sol.b)):
        with pytest.raises(DataError, match=r"read from a file without its data; give them: "):
            needs_data()
    # with the data: the certificate recomputed from them, the same document again
    again = ExactSolution.from_json(io.StringIO(text), data)
    assert type(again) is ExactSolution and again.problem.data is data
    assert again.certificate.ok and again.to_json() == text


def test_the_solution_document_keeps_alpha_sparse_and_C_infinite(separable):
    sol = mm.solve(mm.SVMProblem(separable, hard=True))
    doc = sol.to_dict()
    nz = np.flatnonzero(sol.alpha)
    assert doc["alpha"] == {"n": separable.n, "index": nz.tolist(), "value": sol.alpha[nz].tolist()}
    assert doc["C"] == "inf" and doc["hard"] is True and doc["lam"] == 0.0
    assert doc["certified"] is True and "ok" not in doc  # the certificate's keys, inline
    assert sol.without_data().to_dict() == doc


def test_recertify_recomputes_from_the_data(separable, tmp_path):
    sol = mm.solve(mm.SVMProblem(separable, C=1.0))
    f = tmp_path / "s.json"
    sol.to_json(f)
    saved = ExactSolution.from_json(f)
    # an independent check of what the file says: P from the data with plain numpy
    w, b = saved.w, saved.b
    X, y = separable.X, separable.y
    P = 0.5 * w @ w + np.maximum(0, 1 - y * (X @ w + b)).sum()
    assert P == pytest.approx(saved.primal_objective, rel=1e-12)
    # the same shape, other data: not certified, and said so
    other = mm.Dataset(X[::-1].copy(), y[::-1].copy())
    with pytest.warns(RuntimeWarning, match="NOT CERTIFIED on these data"):
        bad = saved.with_data(other)
    assert bad.status == "uncertified" and not bad.certificate.ok
    with pytest.raises(DataError, match="n=30, d=2; .* has n=29, d=2"):
        saved.with_data(separable.subset(np.arange(29)))
    # a file whose point is tampered with does not certify
    doc = sol.to_dict()
    doc["w"] = [v * 1.01 for v in doc["w"]]
    with pytest.warns(RuntimeWarning):
        assert not ExactSolution.from_json(doc, separable).certificate.ok


def test_recertify_checks_feature_names_and_keeps_sparse_data(named):
    sparse = mm.Dataset(sp.csr_matrix(named.X), named.y, feature_names=named.feature_names)
    sol = mm.solve(mm.SVMProblem(sparse, C=1.0))
    saved = ExactSolution.from_json(sol.to_dict())
    assert saved.with_data(sparse).certificate.ok
    assert saved.with_data(mm.Dataset(named.X, named.y)).certificate.ok  # no names: fine
    renamed = mm.Dataset(named.X, named.y, feature_names=["a", "b", "c"])
    with pytest.raises(DataError, match="features are"):
        saved.with_data(renamed)


def test_a_lam_problem_comes_back_with_its_lam_to_the_bit(gauss):
    """``lam`` given: C = 1/(lam n) and back may round; the file's lam is kept."""
    sol = mm.solve(mm.SVMProblem(gauss, lam=0.037))
    again = ExactSolution.from_json(sol.to_dict(), gauss)
    assert again.problem.lam == 0.037 and again.to_json() == sol.to_json()


def test_files_of_development_versions_are_refused_with_one_line(separable):
    """Nothing was released: a solution/1 file or one without a format is not read."""
    doc = mm.solve(mm.SVMProblem(separable, C=1.0)).to_dict()
    old = {**doc, "format": "maxmargin.solution/1", "alpha": [0.0] * separable.n}
    with pytest.raises(
        DataError,
        match=r"^<JSON>: written by a development version of maxmargin in "
        r"maxmargin.solution/1; this maxmargin reads maxmargin.solution/2: compute it again$",
    ):
        ExactSolution.from_json(old)
    older = {k: v for k, v in doc.items() if k not in ("format", "maxmargin_version")}
    with pytest.raises(DataError, match='no "format" key'):
        ExactSolution.from_json(older)


def test_weighted_documents_round_trip(named):
    """The weights travel in the file: re-certifying uses them (C_i = C s_i)."""
    s = np.linspace(0.0, 3.0, named.n)  # one weight 0, others on both sides of 1
    sol = mm.solve(mm.SVMProblem(named, C=0.7, sample_weight=s))
    saved = ExactSolution.from_json(_text(sol))
    assert np.array_equal(saved.problem.weights, sol.problem.weights)
    again = ExactSolution.from_json(_text(sol), named)
    assert again.certificate.ok and again.to_json() == sol.to_json()
    assert np.array_equal(again.problem.weights, sol.problem.weights)
    p = mm.regularization_path(named, C=[0.1, 1.0], sample_weight=s)
    q = RegularizationPath.from_json(_text(p))
    assert np.array_equal(q.weights, p.weights) and q.to_json() == p.to_json()
    ep = mm.regularization_path(named, exact=True, sample_weight=s)
    assert mm.ExactPath.from_json(_text(ep)).to_csv() == ep.to_csv()
