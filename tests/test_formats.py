"""The JSON documents maxmargin writes (docs/formats.md), their loaders and CSV exports.

Their format and version keys, their loaders (to_json -> from_json -> to_json gives the same
text), what the loaders refuse, files of maxmargin 0.1, and the tidy CSV / DataFrame exports.
"""

import csv
import io
import json
import math

import numpy as np
import pytest
import scipy.sparse as sp

import maxmargin as mm
from maxmargin import (
    Comparison,
    DataError,
    ExactSolution,
    ParameterError,
    RegularizationPath,
    SavedComparison,
    SavedSolution,
)
from maxmargin.io.json import format_header, read_document

VERSION = {"maxmargin_version": mm.__version__}


def _text(obj, **kw) -> io.StringIO:
    return io.StringIO(obj.to_json(**kw))


def _same(a, b) -> bool:
    """Arrays equal to the bit, nan where nan (None only where None)."""
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(
        np.all((a == b) | (np.isnan(a.astype(float)) & np.isnan(b.astype(float))))
    )


@pytest.fixture(scope="module")
def named():
    """Overlapping 3-D data with feature names (not separable: bound SVs too)."""
    ds = mm.make_gaussians(40, 3, separation=1.0, seed=4)
    return mm.Dataset(ds.X, ds.y, name="named", feature_names=["age", "dose", "w,eight"])


# --------------------------------------------------------------------------- every document


def test_every_document_starts_with_its_format_and_version(tmp_path, separable):
    sol = mm.solve(mm.SVMProblem(separable, C=1.0))
    p = mm.regularization_path(separable, C=[0.1, 1.0])
    ep = mm.exact_regularization_path(separable)
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
        assert d["format"] == f"maxmargin.{kind}/1" and d["maxmargin_version"] == mm.__version__
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
        match="maxmargin.path/7; maxmargin .* reads up to maxmargin.path/1: upgrade maxmargin",
    ):
        RegularizationPath.from_json({"format": "maxmargin.path/7", "maxmargin_version": "9"})
    with pytest.raises(DataError, match="format 'sklearn/1' is not maxmargin's"):
        Comparison.from_json({"format": "sklearn/1"})
    with pytest.raises(DataError, match='no "format" key: not a maxmargin solution .*lacks'):
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


def test_trace_load_names_a_newer_format(tmp_path, separable):
    npz, js = mm.run("perceptron", separable).save(tmp_path / "tr")
    meta = json.loads(js.read_text())
    js.write_text(json.dumps({**meta, "format": "maxmargin.trace/2"}))
    with pytest.raises(DataError, match="upgrade maxmargin"):
        mm.Trace.load(npz)


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
    assert isinstance(saved, SavedSolution) and saved.to_json() == text
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
    assert saved.certificate.kkt == sol.certificate.kkt and saved.certificate.ok
    assert saved.certificate.floors == sol.certificate.floors
    assert (saved.C, saved.lam, saved.hard) == (sol.problem.C, sol.problem.lam, sol.problem.hard)
    assert saved.feature_names == data.feature_names
    X = np.random.default_rng(0).standard_normal((7, data.d))
    assert np.array_equal(saved.predict(X), sol.predict(X))
    # with the data: the certificate recomputed from them, the same document again
    again = ExactSolution.from_json(io.StringIO(text), data)
    assert isinstance(again, ExactSolution) and again.problem.data is data
    assert again.certificate.ok and again.to_json() == text


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
        bad = saved.recertify(other)
    assert bad.status == "uncertified" and not bad.certificate.ok
    with pytest.raises(DataError, match="n=30, d=2; .* has n=29, d=2"):
        saved.recertify(separable.subset(np.arange(29)))
    # a file whose point is tampered with does not certify
    doc = sol.to_dict()
    doc["w"] = [v * 1.01 for v in doc["w"]]
    with pytest.warns(RuntimeWarning):
        assert not ExactSolution.from_json(doc, separable).certificate.ok


def test_recertify_checks_feature_names_and_keeps_sparse_data(named):
    sparse = mm.Dataset(sp.csr_matrix(named.X), named.y, feature_names=named.feature_names)
    sol = mm.solve(mm.SVMProblem(sparse, C=1.0))
    saved = ExactSolution.from_json(sol.to_dict())
    assert saved.recertify(sparse).certificate.ok
    assert saved.recertify(mm.Dataset(named.X, named.y)).certificate.ok  # no names: fine
    renamed = mm.Dataset(named.X, named.y, feature_names=["a", "b", "c"])
    with pytest.raises(DataError, match="features are"):
        saved.recertify(renamed)


def test_solution_of_maxmargin_0_1_loads(separable):
    """Before the format key: no format, version, data, intercept_scaling, tol."""
    sol = mm.solve(mm.SVMProblem(separable, C=1.0))
    old = {
        k: v
        for k, v in sol.to_dict().items()
        if k not in ("format", "maxmargin_version", "data", "intercept_scaling", "tol")
    }
    saved = ExactSolution.from_json(old)
    assert saved.intercept_scaling == 1.0 and saved.certificate.tol == 1e-6
    assert saved.to_dict() == old
    assert saved.recertify(separable).certificate.ok


# --------------------------------------------------------------------------- paths


@pytest.mark.parametrize("include_alpha", [False, True])
def test_path_round_trip(named, include_alpha):
    holdout = mm.make_gaussians(20, 3, separation=1.0, seed=5)
    p = mm.regularization_path(named, C=[1e-3, 0.1, 10.0], holdout=holdout)
    text = p.to_json(include_alpha=include_alpha)
    q = RegularizationPath.from_json(io.StringIO(text))
    assert q.to_json(include_alpha=include_alpha) == text
    for name in (*RegularizationPath._ARRAYS, "w"):
        assert _same(getattr(q, name), getattr(p, name)), name
        assert getattr(q, name).dtype.kind == getattr(p, name).dtype.kind, name
    assert q.alpha.shape == ((3, 40) if include_alpha else (3, 0))
    if include_alpha:
        assert np.array_equal(q.alpha, p.alpha)
    else:
        with pytest.raises(ParameterError, match="without alpha"):
            q.to_dict(include_alpha=True)
    for a, b in zip(q.certificates, p.certificates, strict=True):
        assert (a.ok, a.kkt, a.floors, a.tol, a.undecided) == (
            b.ok,
            b.kkt,
            b.floors,
            b.tol,
            b.undecided,
        )
        assert a.relative_gap == b.relative_gap and a.primal_objective == b.primal_objective
    assert q.feature_names == ("age", "dose", "w,eight") and q.method == p.method
    assert q.to_csv() == p.to_csv() and q.certified == p.certified


def test_path_hard_limit_and_old_files(separable):
    p = mm.regularization_path(separable, C=[0.1, 1e3])
    q = RegularizationPath.from_json(p.to_dict())
    h, g = q.hard_margin_limit, p.hard_margin_limit
    assert h.separable and h.C_star == g.C_star and np.array_equal(h.w, g.w)
    assert h.alpha is None and h.last_equal == g.last_equal
    old = {
        k: v
        for k, v in p.to_dict().items()
        if k not in ("format", "maxmargin_version", "feature_names", "floors", "certificate_tol")
    }
    r = RegularizationPath.from_json(old)
    assert r.certified and r.feature_names is None and r.certificates[0].floors == {}
    new = r.to_dict()  # written again in today's format: the old keys unchanged
    assert new["format"] == "maxmargin.path/1" and {k: new[k] for k in old} == old
    with pytest.raises(DataError, match="the path has no 'w' key"):
        RegularizationPath.from_json({k: v for k, v in p.to_dict().items() if k != "w"})


def test_path_csv_holds_every_number_exactly(named):
    holdout = mm.make_gaussians(20, 3, separation=1.0, seed=5)
    p = mm.regularization_path(named, C=[1e-3, 0.1, 10.0], holdout=holdout)
    rows = list(csv.DictReader(io.StringIO(p.to_csv())))
    assert len(rows) == len(p)
    assert list(rows[0])[:6] == ["C", "lam", "b", "w[age]", "w[dose]", "w[w,eight]"]
    for i, row in enumerate(rows):
        assert float(row["C"]) == p.C[i] and float(row["b"]) == p.b[i]
        assert [float(row[f"w[{n}]"]) for n in named.feature_names] == p.w[i].tolist()
        assert int(row["n_bound_sv"]) == p.n_bound_sv[i]
        assert float(row["holdout_error"]) == p.holdout_error[i]
        assert row["certified"] == "True" and row["method"] == p.method[i]
    # recomputed from the data: the training error of each row's (w, b)
    err = [
        np.mean(
            named.y
            * (
                named.X @ np.array([float(r[f"w[{n}]"]) for n in named.feature_names])
                + float(r["b"])
            )
            <= 0
        )
        for r in rows
    ]
    assert err == [float(r["train_error"]) for r in rows]
    # without names: 0-based columns
    q = mm.regularization_path(mm.Dataset(named.X, named.y), C=[1.0])
    assert "w[0],w[1],w[2]" in q.to_csv().splitlines()[0]


def test_path_frame(named):
    pd = pytest.importorskip("pandas")
    p = mm.regularization_path(named, C=[1e-3, 10.0])
    df = p.to_frame()
    assert list(df.columns) == next(csv.reader(io.StringIO(p.to_csv())))
    assert df["w[dose]"].tolist() == p.w[:, 1].tolist()
    assert df["n_margin_sv"].dtype.kind == "i" and df["holdout_error"].isna().all()
    pd.testing.assert_frame_equal(df, pd.read_csv(io.StringIO(p.to_csv())), check_dtype=False)


def test_exact_path_document(separable):
    ep = mm.exact_regularization_path(separable)
    d = json.loads(ep.to_json(include_segments=True))
    assert d["format"] == "maxmargin.exact_path/1" and d["maxmargin_version"] == mm.__version__
    with pytest.raises(DataError, match="a maxmargin exact_path document.*ExactPath.from_json"):
        RegularizationPath.from_json(d)


@pytest.mark.parametrize("data", ["separable", "named"])
def test_exact_path_round_trip(data, request, tmp_path):
    ep = mm.exact_regularization_path(request.getfixturevalue(data))
    ep.to_json(tmp_path / "ep.json", include_segments=True)
    saved = mm.ExactPath.from_json(tmp_path / "ep.json")
    assert isinstance(saved, mm.SavedExactPath) and len(saved) == len(ep) > 1
    assert saved.to_json() == (tmp_path / "ep.json").read_text()
    assert saved.to_csv() == ep.to_csv()
    assert saved.breakpoints.tolist() == ep.breakpoints.tolist()
    assert saved.method == tuple(ep.method) and saved.certified == ep.certified
    assert all(saved.events_at(j) == ep.events_at(j) for j in range(len(ep)))
    # w(C), b(C) from the file's segments: the path's numbers, to the bit
    lo, hi = ep.breakpoints[0] / 4, min(ep.C_end, 1e6)
    Cs = np.concatenate([ep.breakpoints[ep.breakpoints <= hi], np.geomspace(lo, hi, 17)])
    (w1, b1), (w2, b2) = saved.coefficients(Cs), ep.coefficients(Cs)
    assert np.array_equal(w1, w2) and np.array_equal(b1, b2)
    w, b = saved.coefficients(float(Cs[3]))
    assert np.array_equal(w, w2[3]) and b == b2[3]
    with pytest.raises(ParameterError, match="path's range"):
        saved.coefficients(-1.0)
    bare = mm.ExactPath.from_json(_text(ep))  # without segments: the events only
    assert bare.bounds is None and bare.to_csv() == ep.to_csv()
    with pytest.raises(DataError, match="no segments"):
        bare.coefficients(hi)
    with pytest.raises(DataError, match="a maxmargin path document.*RegularizationPath"):
        mm.ExactPath.from_json(mm.regularization_path(ep.data, C=[1.0]).to_dict())
    with pytest.raises(DataError, match="exact path document: missing"):
        mm.ExactPath.from_json(
            {**d_without(ep.to_dict(), "breakpoints"), "format": "maxmargin.exact_path/1"}
        )


def d_without(d, key):
    return {k: v for k, v in d.items() if k != key}


# --------------------------------------------------------------------------- comparisons


@pytest.fixture(scope="module")
def cmp(separable):
    holdout = mm.make_separable(10, 2, margin=0.3, seed=2)
    return mm.compare(
        separable,
        learners=["perceptron", "pegasos", "pa1"],
        lam=0.05,
        epochs=2,
        seeds=(0, 1),
        holdout=holdout,
    )


def test_comparison_round_trip(cmp, tmp_path):
    f = tmp_path / "c.json"
    cmp.to_json(f)
    saved = Comparison.from_json(f)
    assert isinstance(saved, SavedComparison)
    assert saved.to_json() == f.read_text() and saved.to_dict() == cmp.to_dict()
    assert (saved.F_star, saved.R, saved.gamma, saved.C, saved.lam, saved.epochs) == (
        cmp.F_star,
        cmp.R,
        cmp.gamma,
        cmp.problem.C,
        cmp.problem.lam,
        cmp.epochs,
    )
    assert saved.seeds == cmp.seeds and saved.labels == cmp.labels and saved.separable
    assert np.array_equal(saved.w_star, cmp.w_star)
    for a, b in zip(saved.runs, cmp.runs, strict=True):
        assert (a.label, a.order, a.seed, a.kind) == (b.label, b.order, b.seed, b.kind)
        for name in type(b)._ARRAYS:
            assert _same(getattr(a, name), getattr(b, name)), (b.label, name)
        assert _same(a.rate, b.rate) and a.novikoff_respected == b.novikoff_respected
    assert len(saved.select(label="pegasos")) == 2
    for a, b in zip(saved.rows, cmp.rows, strict=True):
        assert a.keys() == b.keys()
        for k in a:
            assert a[k] == b[k] or (
                isinstance(b[k], float) and math.isnan(b[k]) and math.isnan(a[k])
            ), k


def test_comparison_solutions_recertify_from_the_data(cmp, separable):
    saved = Comparison.from_json(cmp.to_dict())
    ref = saved.reference.recertify(separable)
    assert ref.certificate.ok and np.array_equal(ref.alpha, cmp.reference.alpha)
    assert ref.primal_objective == cmp.reference.primal_objective
    hard = saved.hard_solution.recertify(separable)
    assert hard.problem.hard and hard.certificate.ok
    assert hard.margin == cmp.hard_solution.margin
    # the reference's alpha is written by its non-zero entries only
    nz = cmp.to_dict()["reference"]["alpha_nonzero"]
    assert nz["index"] == np.flatnonzero(cmp.reference.alpha).tolist()


def test_comparison_of_maxmargin_0_1_loads(cmp, separable):
    old = cmp.to_dict()
    for key in ("maxmargin_version",):
        old.pop(key)
    old["format"] = "maxmargin.comparison/1"
    for sol in (old["reference"], old["hard"]):
        for key in (
            "alpha_nonzero",
            "format",
            "maxmargin_version",
            "intercept_scaling",
            "data",
            "tol",
        ):
            sol.pop(key)
    saved = Comparison.from_json(old)
    assert saved.to_dict() == old and saved.reference.alpha is None
    with pytest.raises(DataError, match="no alpha"):
        saved.reference.recertify(separable)


def test_comparison_csv_one_row_per_run_and_checkpoint(cmp):
    text = cmp.to_csv()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == sum(len(r.t) for r in cmp.runs)
    cols = list(rows[0])
    assert cols[:6] == ["label", "learner", "order", "seed", "kind", "t"]
    i = 0
    for r in cmp.runs:
        for j, t in enumerate(r.t):
            row = rows[i]
            assert (row["label"], int(row["seed"]), int(row["t"])) == (r.label, r.seed, t)
            assert int(row["mistakes"]) == r.mistakes[j]
            assert float(row["train_error"]) == r.train_error[j]
            assert float(row["test_error"]) == r.test_error[j]
            if r.subopt is None:
                assert row["subopt"] == ""  # N/A: the perceptron, PA-I
            else:
                assert float(row["subopt"]) == r.subopt[j]
            i += 1
    assert Comparison.from_json(cmp.to_dict()).to_csv() == text


def test_comparison_frame(cmp):
    pytest.importorskip("pandas")
    df = cmp.to_frame()
    assert len(df) == sum(len(r.t) for r in cmp.runs)
    peg = df[(df.label == "pegasos") & (df.seed == 1)]
    assert peg["subopt"].tolist() == cmp.select(label="pegasos", seed=1)[0].subopt.tolist()
    assert df[df.label == "perceptron"]["subopt"].isna().all()
    assert Comparison.from_json(cmp.to_dict()).to_frame().equals(df)


def test_to_frame_without_pandas_says_how(monkeypatch, separable):
    import builtins

    real = builtins.__import__

    def no_pandas(name, *a, **k):
        if name == "pandas":
            raise ImportError("no pandas")
        return real(name, *a, **k)

    p = mm.regularization_path(separable, C=[1.0])
    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(ParameterError, match="pip install pandas"):
        p.to_frame()


def test_weighted_documents_round_trip(named):
    """The weights travel in the file: re-certifying uses them (C_i = C s_i)."""
    s = np.linspace(0.0, 3.0, named.n)  # one weight 0, others on both sides of 1
    sol = mm.solve(mm.SVMProblem(named, C=0.7, sample_weight=s))
    saved = ExactSolution.from_json(_text(sol))
    assert np.array_equal(saved.weights, sol.problem.weights)
    again = ExactSolution.from_json(_text(sol), named)
    assert again.certificate.ok and again.to_json() == sol.to_json()
    assert np.array_equal(again.problem.weights, sol.problem.weights)
    p = mm.regularization_path(named, C=[0.1, 1.0], sample_weight=s)
    q = RegularizationPath.from_json(_text(p))
    assert np.array_equal(q.weights, p.weights) and q.to_json() == p.to_json()
    ep = mm.exact_regularization_path(named, sample_weight=s)
    assert mm.ExactPath.from_json(_text(ep)).to_csv() == ep.to_csv()
