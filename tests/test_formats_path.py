"""The path documents (docs/formats.md): grid and exact paths, their loaders, CSV exports.

to_json -> from_json -> to_json gives the same text; the tidy CSV / DataFrame exports hold
every number exactly; files of development layouts are refused in one line.
"""

import copy
import csv
import dataclasses
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from _formats import _same

import maxmargin as mm
from maxmargin import DataError, ParameterError, RegularizationPath
from maxmargin.certificate import Certificate

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
    d = json.loads(ep.to_json())
    assert d["format"] == "maxmargin.exact_path/1" and d["maxmargin_version"] == mm.__version__
    assert len(d["segments"]) == ep.n_segments and len(d["status_start"]) == ep.n
    assert d["certificates"]["rows"] and len(d["certificates"]["rows"]) == len(ep)
    assert d["certified"] is True and d["exact"] is True and d["n_breakpoints"] == len(ep)
    with pytest.raises(DataError, match="a maxmargin exact_path document.*ExactPath.from_json"):
        RegularizationPath.from_json(d)


#: The fields an exact path's file holds as rows (evaluation/path/layout.py).
_ROWS = [
    f.name
    for f in dataclasses.fields(mm.ExactPath)
    if f.name not in ("method", "snapshots", "certificates", "end_certificate")
    and f.type == "np.ndarray"
]


@pytest.mark.parametrize("data", ["separable", "named", "heart"])
def test_exact_path_round_trip_without_the_data(data, request, tmp_path):
    kw = {"C": 0.05} if data == "heart" else {}  # heart: 1 s of path, not 20
    ep = mm.regularization_path(request.getfixturevalue(data), exact=True, **kw)
    text = ep.to_json(tmp_path / "ep.json")
    saved = mm.ExactPath.from_json(tmp_path / "ep.json")
    assert type(saved) is mm.ExactPath and saved.data is None and saved.holdout is None
    assert len(saved) == len(ep) > 1 and saved.to_json() == text
    assert saved.to_csv() == ep.to_csv() and saved.feature_names == ep.feature_names
    for name in _ROWS:  # every array, to the bit and of the same kind
        a, b = getattr(saved, name), getattr(ep, name)
        assert _same(a, b) and a.dtype.kind == b.dtype.kind, name
    assert saved.method == ep.method and saved.certified == ep.certified
    assert np.array_equal(saved.certificates.ok, ep.certificates.ok)
    assert all(saved.events_at(j) == ep.events_at(j) for j in range(len(ep)))
    assert saved.end_certificate.relative_gap == ep.end_certificate.relative_gap
    for j in range(len(ep)):
        a, b = saved.certificates[j], ep.certificates[j]
        assert a.ok == b.ok and a.relative_gap == b.relative_gap and a.kkt == b.kkt
    # the sets of every segment, replayed from status_start and the events
    assert all((saved._status(k) == ep._status(k)).all() for k in range(ep.n_segments))
    # w(C), b(C), alpha(C) from the file: the path's numbers, to the bit
    lo, hi = ep.breakpoints[0] / 4, min(ep.C_end, 1e6)
    Cs = np.concatenate([ep.breakpoints[ep.breakpoints <= hi], np.geomspace(lo, hi, 17)])
    (w1, b1), (w2, b2) = saved.coefficients(Cs), ep.coefficients(Cs)
    assert np.array_equal(w1, w2) and np.array_equal(b1, b2)
    assert all(np.array_equal(saved.alpha_at(C), ep.alpha_at(C)) for C in Cs[::3])
    k = ep.n_segments // 2
    assert all(
        np.array_equal(np.asarray(u), np.asarray(v))
        for key in ("alpha", "w", "b")
        for u, v in zip(saved.lambda_form(k)[key], ep.lambda_form(k)[key], strict=True)
    )
    with pytest.raises(ParameterError, match="finite and > 0|beyond the end"):
        saved.coefficients(-1.0 if math.isinf(ep.C_end) else 2 * ep.C_end)
    # what needs the data says so, in one line
    for call in (lambda: saved.solution_at(hi), lambda: saved.errors([hi])):
        with pytest.raises(DataError, match="read from a file without them.*with_data"):
            call()
    assert saved.without_data().to_json() == text and ep.without_data().to_json() == text


def test_exact_path_refuses_what_is_not_its_file(separable):
    ep = mm.regularization_path(separable, exact=True)
    with pytest.raises(DataError, match="a maxmargin path document.*RegularizationPath"):
        mm.ExactPath.from_json(mm.regularization_path(ep.data, C=[1.0]).to_dict())
    d = ep.to_dict()
    for key, value, match in [
        ("breakpoints", None, "'breakpoints'"),
        ("segments", d["segments"][:-1], "segments"),
        ("status_start", d["status_start"][:-1], "sets"),
        ("status_start", "X" + d["status_start"][1:], "X"),
        ("certificates", {"rows": []}, "columns"),
    ]:
        bad = {k: v for k, v in d.items() if k != key}
        if value is not None:
            bad[key] = value
        with pytest.raises(DataError, match=match) as e:
            mm.ExactPath.from_json(bad)
        assert "\n" not in str(e.value)
    for edit, match in [
        (lambda b: b["segments"][1]["elbow"].append(ep.n), r"elbow_index: .*\[0, 30\)"),
        (lambda b: b["breakpoints"][0]["events"][0].update({"to": "Q"}), "a set other than"),
        (lambda b: b["segments"][0].update({"n_left": 0}), "do not hold n = 30"),
    ]:
        bad = copy.deepcopy(d)
        edit(bad)
        with pytest.raises(DataError, match=match):
            mm.ExactPath.from_json(bad)
    bad = copy.deepcopy(d)
    bad["breakpoints"][1]["events"][0]["index"] = "seven"
    with pytest.raises(DataError, match="row 1, 'events': row 0, 'index'"):
        mm.ExactPath.from_json(bad)


def test_exact_path_with_data_recertifies_every_breakpoint(named):
    holdout = mm.make_gaussians(20, 3, separation=1.0, seed=5)
    ep = mm.regularization_path(named, exact=True, holdout=holdout)
    text = ep.to_json()
    again = mm.ExactPath.from_json(io.StringIO(text), named, holdout=holdout)
    assert again.certified and again.data is named and again.holdout is holdout
    assert np.array_equal(again.certificates.ok, ep.certificates.ok)  # residuals: rounding
    np.testing.assert_allclose(again.max_residual, ep.max_residual, rtol=0, atol=1e-12)
    pt, ref = again.solution_at(ep.breakpoints[2]), ep.solution_at(ep.breakpoints[2])
    assert np.array_equal(pt.alpha, ref.alpha) and pt.certificate.ok
    assert np.array_equal(again.errors(ep.breakpoints), ep.errors(ep.breakpoints))
    # a file whose segments are not these data's path: not certified, said in a warning
    doc = json.loads(text)
    doc["segments"][2]["w_at"][0] += 0.5
    with pytest.warns(RuntimeWarning, match="NOT CERTIFIED on these data"):
        bad = mm.ExactPath.from_json(doc, named)
    assert not bad.certified and not bad.certificates.ok.all()
    assert mm.ExactPath.from_json(doc).certified  # the file's word, without data
    other = mm.make_gaussians(41, 3, separation=1.0, seed=4)
    with pytest.raises(DataError, match="n=40, d=3.*n=41"):
        mm.ExactPath.from_json(io.StringIO(text), other)
    with pytest.raises(DataError, match="holdout has d=2"):
        mm.ExactPath.from_json(io.StringIO(text), named, holdout=mm.make_gaussians(9, 2))


def _close(a, b, key=""):
    """JSON values equal: floats to 1e-9 (another BLAS may round differently), else exactly."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() <= b.keys(), key
        for k in a:
            _close(a[k], b[k], f"{key}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), key
        for i, (u, v) in enumerate(zip(a, b, strict=True)):
            _close(u, v, f"{key}[{i}]")
    elif isinstance(a, float) and not isinstance(b, bool):
        assert isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), key
    else:
        assert a == b and type(a) is type(b), key


def _golden_small():
    g = mm.make_gaussians(24, 2, seed=3)  # two duplicates, a weight 0, weights, augmented
    data = mm.Dataset(
        np.vstack([g.X, g.X[:2]]), np.concatenate([g.y, g.y[:2]]), name="gaussians_dup"
    )
    w = np.linspace(0.5, 2.0, data.n)
    w[5] = 0.0
    return mm.regularization_path(data, exact=True, intercept="augmented", sample_weight=w)


@pytest.mark.parametrize("name", ["heart", "small"])
def test_exact_path_files_are_those_written_before_the_io_mechanism(name, heart):
    """tests/golden/exact_path_*: written by the hand-written to_json / to_csv (before io).

    heart: ``regularization_path(heart, 0.0033, exact=True)`` (28 breakpoints, to C_max);
    small: :func:`_golden_small`; ``to_json(include_segments=True)`` and ``to_csv()``.
    """
    ep = mm.regularization_path(heart, 0.0033, exact=True) if name == "heart" else _golden_small()
    golden = Path(__file__).parent / "golden"
    old = json.loads((golden / f"exact_path_{name}.json").read_text())
    new = ep.to_dict()
    assert set(new) - set(old) == {
        "certificates",
        "end_certificate",
        "status_start",
        "feature_names",
    }
    old.pop("seconds")
    _close(old, json.loads(ep.to_json()))  # every key of before, with its value
    rows = [r.split(",") for r in (golden / f"exact_path_{name}.csv").read_text().splitlines()]
    now = [r.split(",") for r in ep.to_csv().splitlines()]
    assert now[0] == rows[0] == "k,C,lam,index,from,to,method,certified,max_residual".split(",")
    assert len(now) == len(rows) > 1
    for r, q in zip(rows[1:], now[1:], strict=True):
        assert r[3:8] == q[3:8] and r[0] == q[0]
        assert all(math.isclose(float(r[i]), float(q[i]), rel_tol=1e-9) for i in (1, 2))
        assert math.isclose(float(r[8]), float(q[8]), rel_tol=1e-2, abs_tol=1e-12)
    assert mm.ExactPath.from_json(ep.to_dict()).to_csv() == ep.to_csv()


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


def test_exact_path_report_from_its_file(separable, tmp_path):
    from maxmargin.report import write_report
    from maxmargin.report.path import markdown

    ep = mm.regularization_path(separable, exact=True)
    saved = mm.ExactPath.from_json(io.StringIO(ep.to_json()))
    assert markdown(saved) == markdown(ep)  # the file holds every number the report says
    files = write_report(saved, tmp_path / "rep", formats=("png",))
    assert [f.name for f in files] == [
        "report.md", "report.json", "breakpoints.csv", "table.tex",
        "path_width.png", "path_support_vectors.png", "path_coefficients.png",
    ]  # fmt: skip
    assert (tmp_path / "rep" / "report.json").read_text() == ep.to_json()
    assert (tmp_path / "rep" / "breakpoints.csv").read_text() == ep.to_csv()


def test_exact_path_frame_holds_the_csv_columns_as_numbers(named):
    pytest.importorskip("pandas")
    ep = mm.regularization_path(named, exact=True)
    df = ep.to_frame()
    assert list(df.columns) == ep.to_csv().splitlines()[0].split(",")
    assert len(df) == ep.event_index.size and df["max_residual"].dtype.kind == "f"
    per_event = np.repeat(ep.max_residual, np.diff(ep.event_ptr))
    assert df["max_residual"].tolist() == per_event.tolist()  # the CSV rounds, not the frame
    assert df["C"].tolist() == np.repeat(ep.breakpoints, np.diff(ep.event_ptr)).tolist()
