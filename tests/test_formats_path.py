"""The path documents (docs/formats.md): grid and exact paths, their loaders, CSV exports.

to_json -> from_json -> to_json gives the same text; the tidy CSV / DataFrame exports hold
every number exactly; files of development layouts are refused in one line.
"""

import csv
import dataclasses
import io
import json
from pathlib import Path

import numpy as np
import pytest
from _formats import _same, _text

import maxmargin as mm
from maxmargin import DataError, ParameterError, RegularizationPath
from maxmargin.certificate import Certificate
from maxmargin.evaluation.path.saved import SavedExactPath

# --------------------------------------------------------------------------- paths


def test_path_round_trip(named, tmp_path):
    holdout = mm.make_gaussians(20, 3, separation=1.0, seed=5)
    p = mm.regularization_path(named, C=[1e-3, 0.1, 10.0], holdout=holdout)
    text = p.to_json(tmp_path / "path.json")
    doc = json.loads(text)
    assert doc["format"] == "maxmargin.path/2"
    assert len(doc["alpha"]) == 3 and set(doc["alpha"][0]) == {"n", "index", "value"}
    assert [c["certified"] for c in doc["certificates"]] == [True] * 3
    assert doc["primal"] == p.primal.tolist() and doc["certified"] is True
    q = RegularizationPath.from_json(tmp_path / "path.json")
    assert type(q) is RegularizationPath and q.to_json() == text
    for f in dataclasses.fields(RegularizationPath):
        a, b = getattr(q, f.name), getattr(p, f.name)
        if isinstance(a, np.ndarray):
            assert _same(a, b) and a.dtype.kind == b.dtype.kind, f.name
    assert np.array_equal(q.alpha, p.alpha) and q.alpha.shape == (3, 40)
    for a, b in zip(q.certificates, p.certificates, strict=True):
        assert a.to_dict() == b.to_dict()
    for name in ("primal", "dual", "relative_gap", "max_kkt"):
        assert np.array_equal(getattr(q, name), getattr(p, name)), name
    assert q.feature_names == ("age", "dose", "w,eight") and q.method == p.method
    assert q.to_csv() == p.to_csv() and q.certified == p.certified


def test_path_with_data_recertifies_every_point(named):
    holdout = mm.make_gaussians(20, 3, separation=1.0, seed=5)
    p = mm.regularization_path(named, C=[1e-3, 0.1, 10.0], holdout=holdout)
    text = p.to_json()
    q = RegularizationPath.from_json(io.StringIO(text), named, holdout=holdout)
    assert q.certified and np.array_equal(q.holdout_error, p.holdout_error)
    for a, b in zip(q.certificates, p.certificates, strict=True):
        assert a.relative_gap == b.relative_gap and a.kkt == b.kkt
    # a file whose points are not these data's optima: not certified, said in a warning
    doc = json.loads(text)
    doc["w"][1][0] += 0.5
    with pytest.warns(RuntimeWarning, match="1 point.*NOT CERTIFIED"):
        r = RegularizationPath.from_json(doc, named)
    assert not r.certified and [c.ok for c in r.certificates] == [True, False, True]
    assert RegularizationPath.from_json(doc).certified  # the file's word, without data
    other = mm.make_gaussians(41, 3, separation=1.0, seed=4)
    with pytest.raises(DataError, match="n=40, d=3.*n=41"):
        RegularizationPath.from_json(io.StringIO(text), other)


def test_path_csv_is_the_csv_written_before_the_io_mechanism():
    """tests/golden/path_grid.csv: written by the hand-written to_csv (path/1)."""
    golden = (Path(__file__).parent / "golden" / "path_grid.csv").read_text()
    rows = list(csv.DictReader(io.StringIO(golden)))
    col = {
        k: np.array([float(r[k]) for r in rows])
        for k in rows[0]
        if k not in ("method", "certified")
    }
    names = ("age", "dose", "w,eight")
    certs = tuple(
        Certificate(
            primal_objective=col["primal"][i],
            dual_objective=col["dual"][i],
            duality_gap=col["primal"][i] - col["dual"][i],
            relative_gap=col["relative_gap"][i],
            kkt={"stationarity": col["max_kkt"][i], "primal": 0.0},
            ok=rows[i]["certified"] == "True",
        )
        for i in range(len(rows))
    )
    p = RegularizationPath(
        **{k: col[k] for k in ("C", "lam", "b", "norm_w", "norm_reg", "margin", "width")},
        w=np.column_stack([col[f"w[{n}]"] for n in names]),
        alpha=np.zeros((3, 40)),
        n_margin_sv=col["n_margin_sv"].astype(np.int64),
        n_bound_sv=col["n_bound_sv"].astype(np.int64),
        **{k: col[k] for k in ("train_error", "holdout_error", "slack_sum", "seconds")},
        certificates=certs,
        method=tuple(r["method"] for r in rows),
        intercept="free",
        intercept_scaling=1.0,
        data_name="named",
        n=40,
        d=3,
        solver="IPM",
        feature_names=names,
    )
    assert p.to_csv() == golden
    assert RegularizationPath.from_json(io.StringIO(p.to_json())).to_csv() == golden


def test_path_hard_limit_and_old_files(separable):
    p = mm.regularization_path(separable, C=[0.1, 1e3])
    q = RegularizationPath.from_json(p.to_dict())
    h, g = q.hard_margin_limit, p.hard_margin_limit
    assert type(h) is type(g) and h.separable and h.C_star == g.C_star
    assert np.array_equal(h.w, g.w) and h.alpha is None and g.alpha is not None
    assert h.last_equal == g.last_equal and "alpha" not in p.to_dict()["hard"]
    old = {**p.to_dict(), "format": "maxmargin.path/1"}
    with pytest.raises(DataError, match="development version.*path/1.*path/2"):
        RegularizationPath.from_json(old)
    with pytest.raises(DataError, match="not a readable maxmargin path document: no 'w' key"):
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
    ep = mm.regularization_path(separable, exact=True)
    d = json.loads(ep.to_json(include_segments=True))
    assert d["format"] == "maxmargin.exact_path/1" and d["maxmargin_version"] == mm.__version__
    with pytest.raises(DataError, match="a maxmargin exact_path document.*ExactPath.from_json"):
        RegularizationPath.from_json(d)


@pytest.mark.parametrize("data", ["separable", "named"])
def test_exact_path_round_trip(data, request, tmp_path):
    ep = mm.regularization_path(request.getfixturevalue(data), exact=True)
    ep.to_json(tmp_path / "ep.json", include_segments=True)
    saved = mm.ExactPath.from_json(tmp_path / "ep.json")
    assert isinstance(saved, SavedExactPath) and len(saved) == len(ep) > 1
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
