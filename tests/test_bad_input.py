"""Every bad input of docs/bad-input.md: through the command line and through the API.

The command line must answer each with one line on stderr and exit code 2 (never a
traceback), before any long computation; the API with the exception type the table names.
"""

import importlib
import json
import math
import os
import re
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import maxmargin as mm
from maxmargin import DataError, OutputError, ParameterError
from maxmargin.cli import main
from maxmargin.data import load_csv, map_labels
from maxmargin.evaluation.path import regularization_path as reg_path
from maxmargin.evaluation.path.grids import parse_grid
from maxmargin.io.files import MARKER, atomic_write
from maxmargin.online import Pegasos, schedule

# the modules the command calls into (patched to prove nothing is computed too early)
MODULES = {
    m: importlib.import_module(f"maxmargin.{mod}")
    for m, mod in (
        ("data", "data"),
        ("exact", "exact"),
        ("compare", "evaluation.comparison"),
        ("reference", "evaluation.reference"),
        ("path", "evaluation.path"),
    )
}

HEART = str(mm.data.sources._PACKAGE_DATA / "heart_scale")
EXE = shutil.which("maxmargin", path=str(Path(sys.executable).parent)) or "maxmargin"


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, *argv, match=""):
    """The command exits 2 with exactly one line on stderr, containing ``match``."""
    code, out, err = cli(capsys, *argv)
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("maxmargin"), err
    assert match in lines[0], (match, err)
    return lines[0]


@pytest.fixture
def files(tmp_path):
    """The catalogue's bad (and fixed) data files."""
    f = {}

    def write(name, content):
        p = tmp_path / name
        (p.write_bytes if isinstance(content, bytes) else p.write_text)(content)
        f[name] = p

    write("strlab.csv", "1.0,2.0,cat\n2.0,1.0,dog\n3.0,1.5,cat\n0.5,2.5,dog\n")
    write("three.csv", "1.0,2.0,a\n2.0,1.0,b\n3.0,1.5,c\n0.5,2.5,a\n1,1,b\n")
    write("semi.csv", "x1;x2;y\n1.0;2.0;1\n2.0;1.0;-1\n3.0;1.5;1\n")
    write("spaces.csv", "1.0 2.0 1\n2.0 1.0 -1\n")
    write("binary.csv", bytes(range(256)) * 4)
    write("bom.csv", b"\xef\xbb\xbfa,b,y\n1,2,1\n2,1,-1\n")
    write("bom.svm", b"\xef\xbb\xbf+1 1:0.5\n-1 2:1\n")
    write("wide.svm", "+1 1:0.5\n-1 2:1\n+1 3000000000:1\n-1 1:2\n")
    write("huge.svm", "+1 1:0.5\n-1 2:1\n+1 3000000000000:1\n-1 1:2\n")
    write("garbage.npz", "hello world")
    np.save(tmp_path / "x.npy", np.eye(2))
    (tmp_path / "x.npy").rename(tmp_path / "npy.npz")
    f["npy.npz"] = tmp_path / "npy.npz"
    for name, X, y in [
        ("nanlab.npz", np.eye(3), np.array([1.0, np.nan, -1.0])),
        ("inflab.npz", np.eye(2), np.array([np.inf, -np.inf])),
        ("complex.npz", np.eye(2) * (1 + 2j), np.array([1, -1])),
    ]:
        np.savez(tmp_path / name, X=X, y=y)
        f[name] = tmp_path / name
    return f


# --------------------------------------------------------------------------- data files

# (file, what the command line says, the API's exception)
BAD_FILES = [
    ("three.csv", "exactly two values", DataError),
    ("spaces.csv", "one column only", DataError),
    ("binary.csv", "binary data, not a CSV", DataError),
    ("npy.npz", "a .npy file (one array)", DataError),
    ("garbage.npz", "not an .npz archive (not a zip file)", DataError),
    ("nanlab.npz", "NaN or infinite", DataError),
    ("inflab.npz", "NaN or infinite", DataError),
    ("complex.npz", "complex numbers", DataError),
]


@pytest.mark.parametrize("name, msg, exc", BAD_FILES)
def test_bad_data_file(capsys, files, name, msg, exc):
    refused(capsys, "solve", files[name], match=msg)
    with pytest.raises(exc, match=re.escape(msg)):
        mm.load(files[name])


def test_csv_string_labels_without_header_keep_every_row(capsys, files):
    ds = mm.load(files["strlab.csv"])
    assert ds.n == 4 and ds.classes == ("cat", "dog")
    assert ds.X[0].tolist() == [1.0, 2.0]  # the first row is data, not a header
    code, out, _ = cli(capsys, "solve", files["strlab.csv"])
    assert code == 0 and "n=4" in out


def test_csv_header_from_the_feature_columns_or_forced(tmp_path):
    f = tmp_path / "h.csv"
    f.write_text("f1,f2,label\n1,2,a\n2,1,b\n")
    assert mm.load(f).n == 2  # text above numbers in the feature columns: a header
    g = tmp_path / "n.csv"
    g.write_text("1,2,1\n2,1,-1\n3,3,1\n")
    assert mm.load(g).n == 3
    assert mm.load(g, header=True).n == 2  # forced: the first row is names
    with pytest.raises(DataError, match="not a number"):
        mm.load(f, header=False)


def test_three_classes_need_a_positive_label(capsys, files):
    err = refused(capsys, "solve", files["three.csv"], match="got 3")
    assert "--positive" in err
    ds = mm.load(files["three.csv"], positive="a")
    assert ds.y.tolist() == [1, -1, -1, 1, -1] and ds.classes == (("b", "c"), "a")
    code, _, _ = cli(capsys, "solve", files["three.csv"], "--positive", "a", "--quiet")
    assert code == 0
    with pytest.raises(DataError, match="positive label 'z' is not one of"):
        mm.load(files["three.csv"], positive="z")


@pytest.mark.parametrize("label", ["4", "3", "-4"])
def test_csv_label_column_out_of_range(capsys, files, label):
    refused(capsys, "solve", files["three.csv"], "--label", label, match="out of range")
    with pytest.raises(DataError, match="out of range: the file has 3 columns"):
        load_csv(files["three.csv"], label=int(label))


def test_csv_label_by_name_needs_a_header(capsys, files):
    refused(
        capsys, "solve", files["strlab.csv"], "--label", "cls", "--no-header", match="no header row"
    )
    refused(capsys, "solve", files["semi.csv"], "--label", "nope", match="no column named")


def test_semicolon_separator_is_detected(capsys, files):
    ds = mm.load(files["semi.csv"])
    assert ds.X.tolist() == [[1.0, 2.0], [2.0, 1.0], [3.0, 1.5]]
    assert mm.load(files["semi.csv"], label="y").n == 3
    code, _, _ = cli(capsys, "solve", files["semi.csv"], "--quiet")
    assert code == 0


def test_utf8_bom_accepted_in_csv_and_libsvm(capsys, files):
    ds = mm.load(files["bom.csv"], label="a")  # the first name is "a", not "\ufeffa"
    assert ds.X.tolist() == [[2.0, 1.0], [1.0, -1.0]]
    assert mm.load(files["bom.svm"]).y.tolist() == [1.0, -1.0]
    for name in ("bom.csv", "bom.svm"):
        code, _, _ = cli(capsys, "solve", files[name], "--quiet")
        assert code == 0, name


def test_label_option_is_for_csv_only(capsys):
    refused(capsys, "solve", HEART, "--label", "3", match="for CSV files")
    with pytest.raises(ParameterError, match="for CSV files"):
        mm.load(HEART, label=3)


def test_bad_labels_and_features_in_arrays():
    X = np.eye(2)
    with pytest.raises(DataError, match="NaN or infinite"):
        mm.Dataset(np.eye(3), [1.0, np.nan, -1.0])
    with pytest.raises(DataError, match="NaN or infinite"):
        map_labels(np.array([np.inf, -np.inf]))
    with pytest.raises(DataError, match="complex numbers"):
        mm.Dataset(X * 1j, [1, -1])
    with pytest.raises(DataError, match="complex numbers"):
        mm.Dataset(sp.csr_matrix(X * 1j), [1, -1])
    with pytest.raises(DataError, match="NaN or infinite"):
        mm.Dataset.from_labels(X, [np.nan, 1.0])


# --------------------------------------------------------------------------- wide data


def test_wide_libsvm_loads_sparse(files):
    ds = mm.load(files["wide.svm"])
    assert ds.is_sparse and ds.d == 3_000_000_000 and ds.X.nnz == 4
    assert ds.R == pytest.approx(2.0)


@pytest.fixture
def eight_gib(monkeypatch):
    """A machine with 8 GiB available, whatever this one has."""
    import maxmargin._validation as v

    monkeypatch.setattr(v, "available_memory", lambda: 8 * 2**30)


@pytest.mark.parametrize(
    "argv",
    [
        ["solve"],
        ["solve", "--solver", "PIQP"],
        ["run", "--learner", "perceptron"],
        ["compare", "--learners", "pegasos"],
        ["path", "--C-grid", "0.1,1"],
    ],
)
def test_wide_data_refused_before_allocating(capsys, files, tmp_path, eight_gib, argv):
    extra = ["--out", tmp_path / "out"] if argv[0] in ("compare", "path") else []
    refused(
        capsys, argv[0], files["wide.svm"], *argv[1:], *extra, match="d = 3,000,000,000 features"
    )


def test_wide_data_refused_by_the_api(files, eight_gib):
    ds = mm.load(files["wide.svm"])
    for call in (
        lambda: mm.solve(mm.SVMProblem(ds, C=1.0)),
        lambda: mm.run("perceptron", ds),
        lambda: mm.compare(ds, learners=["pegasos"], C=1.0),
        lambda: reg_path(ds, C=[0.1, 1.0]),
    ):
        with pytest.raises(DataError, match=r"needs about .* GiB of memory"):
            call()


def test_wider_than_any_machine_refused(capsys, files):
    # no monkeypatch: 3e12 features need 24 TB per weight vector anywhere
    refused(capsys, "run", files["huge.svm"], "--learner", "pegasos", match="of memory")


# --------------------------------------------------------------------------- counts and sizes


@pytest.fixture
def never(monkeypatch):
    """Nothing may be solved or run: a count is refused before."""

    def fail(*a, **k):
        raise AssertionError("computed despite a count too large")

    monkeypatch.setattr(MODULES["reference"], "solve", fail)
    monkeypatch.setattr(MODULES["compare"], "run", fail)


@pytest.mark.parametrize(
    "argv, match",
    [
        (["compare", "--seeds", "1000000000"], r"'seeds' parameter gives too many seeds: 1,000,0"),
        (["compare", "--seeds", "1000000"], r"at most [\d,]+ seeds fit"),
        (["compare", "--epochs", "1000000000000"], r"'epochs' parameter gives too many epochs"),
        (["run", "--learner", "perceptron", "--epochs", "1000000000000"], r"at most [\d,]+ epochs"),
        (["run", "--learner", "pegasos", "--epochs", str(10**20)], r"epochs \* n = "),
        (["path", "--C-grid", "1e-3:1e3:1000000000000"], r"'num' parameter gives too many grid"),
        (["path", "--C-grid", "1e-3:1e3:100000000"], r"'C' parameter gives too many grid points"),
    ],
)
def test_counts_refused_before_allocating(capsys, tmp_path, eight_gib, never, argv, match):
    line = refused(capsys, argv[0], HEART, *argv[1:], "--out", tmp_path / "o", match="")
    assert re.search(match, line), line
    assert "8.0 GiB available" in line or "2**62" in line


def test_counts_refused_by_the_api(tmp_path, eight_gib, never):
    ds = mm.load("builtin:heart_scale")
    with pytest.raises(ParameterError, match=r"'seeds' parameter gives too many seeds: 1,000,000"):
        mm.compare(ds, learners=["pegasos"], seeds=range(10**9))  # never listed
    with pytest.raises(ParameterError, match=r"'epochs' parameter gives too many epochs"):
        mm.compare(ds, learners=["pegasos"], epochs=10**12)
    with pytest.raises(ParameterError, match=r"'epochs' parameter gives too many epochs"):
        mm.run("perceptron", ds, epochs=10**12)
    with pytest.raises(ParameterError, match=r"'num' parameter gives too many grid points"):
        parse_grid("1e-3:1e3:1e12")
    with pytest.raises(ParameterError, match=r"'epochs' parameter gives too many epochs"):
        schedule(5, 10**30)
    with pytest.raises(ParameterError, match=r"'n' parameter gives too many examples"):
        mm.make_separable(10**12)
    with pytest.raises(ParameterError, match=r"'d' parameter gives too many features"):
        mm.make_gaussians(10, 10**12)


def test_study_counts_refused_before_listing(tmp_path, eight_gib):
    from maxmargin.studies import SpecError, load_spec

    spec = {
        "problem": {"C": [0.1, 1.0]},
        "data": [{"source": "builtin:separable"}],
        "learners": ["perceptron"],
    }
    for run, data, match in [
        ({"seeds": 10**9}, {}, r"'run.seeds' parameter gives too many seeds: 1,000,000,000"),
        ({"epochs": 10**12}, {}, r"'run.epochs' parameter gives too many epochs"),
        ({}, {"generator": "separable", "seeds": 10**9}, r"'data\[0\].seeds' parameter"),
    ]:
        data = data or spec["data"][0]
        with pytest.raises(SpecError, match=match):
            load_spec({**spec, "run": run, "data": [data]})
    assert load_spec({**spec, "run": {"seeds": 1000}}).seeds == tuple(range(1000))


def test_the_largest_count_that_fits_is_named_exactly(monkeypatch):
    from maxmargin import _validation as v

    monkeypatch.setattr(v, "available_memory", lambda: 1000)  # 800 bytes for the work
    v.check_count("seeds", 7, 100.0, "seeds", base=100.0)  # 800 bytes: fits
    with pytest.raises(ParameterError, match=r"8 seeds need .*; at most 7 seeds fit$"):
        v.check_count("seeds", 8, 100.0, "seeds", base=100.0)
    monkeypatch.setattr(v, "available_memory", lambda: None)  # unknown: not refused
    v.check_count("seeds", 10**30, 100.0, "seeds")


# --------------------------------------------------------------------------- C and lambda


@pytest.mark.parametrize(
    "argv, match",
    [
        # each used to end in an internal error (exit 70) or name the other option
        (["solve", "--lam", "1e308"], "The 'lam' parameter must be a float in the range"),
        (["solve", "--C", "1e-320"], "The 'C' parameter must be a float in the range"),
        (["run", "--learner", "pegasos", "--lam", "1e308"], "The 'lam' parameter is too large"),
        (["compare", "--C", "1e-320"], "The 'C' parameter must be a float in the range"),
        (["compare", "--lam", "1e-320"], "The 'lam' parameter must be a float in the range"),
        (["compare", "--lam", "1e308"], "The 'lam' parameter must be a float in the range"),
        (["compare", "--C", "1e-309", "--learners", "pegasos"], "The 'C' parameter is too small"),
        (
            ["compare", "--lam", "1e305", "--learners", "pegasos"],
            "The 'lam' parameter is too large",
        ),
        (["path", "--lam-grid", "1e308"], "The 'lam' parameter must be a float in the range"),
        (["path", "--C-grid", "1e-320,1"], "The 'C' parameter must be a float in the range"),
    ],
)
def test_c_and_lam_whose_other_form_overflows_name_the_option(capsys, tmp_path, never, argv, match):
    extra = ["--out", tmp_path / "o"] if argv[0] in ("run", "compare", "path") else []
    line = refused(capsys, argv[0], HEART, *argv[1:], *extra, match=match)
    assert "internal error" not in line


def test_the_range_of_c_and_lam_is_exact():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=60, deadline=None)
    @given(n=st.integers(2, 10**6), name=st.sampled_from(["C", "lam"]))
    def check(n, name):
        ds = mm.Dataset(sp.csr_matrix((n, 1)), np.resize([1.0, -1.0], n))
        with pytest.raises(ParameterError, match=rf"The '{name}' parameter") as e:
            mm.SVMProblem(ds, **{name: 1e-323})
        lo, hi = map(float, re.search(r"\[(\S+), (\S+)\]", str(e.value)).groups())
        for value in (lo * 1.005, hi / 1.005):  # inside the range printed to 3 digits
            p = mm.SVMProblem(ds, **{name: value})
            assert 0 < p.C < math.inf and 0 < p.lam < math.inf
        for value in (lo / 1.01, hi * 1.01):
            with pytest.raises(ParameterError, match=rf"'{name}'"):
                mm.SVMProblem(ds, **{name: value})

    check()


# --------------------------------------------------------------------------- defaults


def test_zero_is_not_the_default(capsys, tmp_path, monkeypatch):
    def never(*a, **k):
        raise AssertionError("computed despite a bad option")

    refused(capsys, "compare", HEART, "--C", "0", "--out", tmp_path / "c", match="'C'")
    with pytest.raises(ParameterError, match="'C'"):
        mm.compare(mm.load("builtin:heart_scale"), learners=["pegasos"], C=0)
    monkeypatch.setattr(MODULES["compare"], "compare", never)
    monkeypatch.setattr(MODULES["path"], "regularization_path", never)
    refused(
        capsys,
        "path",
        HEART,
        "--learners",
        "pegasos",
        "--jobs",
        "0",
        "--out",
        tmp_path / "p",
        match="'jobs'",
    )
    refused(
        capsys,
        "path",
        HEART,
        "--learners",
        "pegasos",
        "--epochs",
        "0",
        "--out",
        tmp_path / "p",
        match="'epochs'",
    )
    refused(capsys, "compare", HEART, "--seeds", "0", "--out", tmp_path / "c", match="'seeds'")


def test_compare_epochs_checked_before_the_solve(monkeypatch):
    monkeypatch.setattr(MODULES["reference"], "solve", lambda *a, **k: 1 / 0)
    with pytest.raises(ParameterError, match="'epochs'"):
        mm.compare(mm.load("builtin:heart_scale"), learners=["pegasos"], epochs=0)


def test_duplicate_learner_in_run(capsys):
    refused(capsys, "run", HEART, "--learner", "pegasos,pegasos", match="given twice")


# --------------------------------------------------------------------------- outputs


@pytest.fixture
def no_compute(monkeypatch):
    """Fail the test if anything is loaded or solved: outputs are checked first."""

    def never(*a, **k):
        raise AssertionError("computed before checking the outputs")

    for mod, name in (
        ("data", "load"),
        ("exact", "solve"),
        ("compare", "compare"),
        ("path", "regularization_path"),
        ("compare", "demo_comparison"),
    ):
        monkeypatch.setattr(MODULES[mod], name, never)


def test_output_targets_checked_before_computing(capsys, tmp_path, no_compute):
    (tmp_path / "afile").write_text("x")
    cases = [
        (["solve", HEART, "--json", tmp_path], "is a directory"),
        (["solve", HEART, "--json", tmp_path / "missing" / "dir" / "x.json"], "does not exist"),
        (["solve", HEART, "--json", "/dev/full"], "not a regular file"),
        (["solve", HEART, "--json", tmp_path / "afile" / "x.json"], "is not a directory"),
        (["compare", HEART, "--out", tmp_path / "afile"], "not a directory"),
        (["path", HEART, "--out", tmp_path / "afile"], "not a directory"),
        (["run", HEART, "--learner", "pegasos", "--out", tmp_path / "afile"], "not a directory"),
        (["demo", "--out", tmp_path / "afile" / "sub"], "is not a directory"),
        (["path", HEART, "--csv", tmp_path / "missing" / "x.csv"], "does not exist"),
        (["compare", HEART, "--csv", tmp_path], "is a directory"),
        (["solve", HEART, "--liblinear-model", tmp_path / "afile" / "m"], "is not a directory"),
    ]
    for argv, msg in cases:
        refused(capsys, *argv, match=msg)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_unwritable_directory(capsys, tmp_path, no_compute):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        refused(capsys, "solve", HEART, "--json", ro / "x.json", match="cannot write")
        refused(capsys, "compare", HEART, "--out", ro / "out", match="cannot write")
    finally:
        ro.chmod(0o700)


def test_api_outputs_raise_output_error(tmp_path):
    p = reg_path(mm.make_separable(20, 2, seed=0), C=[0.1, 1.0])
    with pytest.raises(OutputError, match="cannot write into"):
        p.to_json(tmp_path / "missing" / "p.json")
    with pytest.raises(OSError):  # OutputError is an OSError too
        p.to_json(tmp_path)
    with pytest.raises(OutputError, match="not a regular file"):
        atomic_write("/dev/full", "x")


def test_out_dir_of_the_user_is_not_overwritten(capsys, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "report.md").write_text("my own notes\n")
    argv = [
        "compare",
        "builtin:separable",
        "--learners",
        "pegasos",
        "--epochs",
        "1",
        "--quiet",
        "--out",
        out,
    ]
    refused(capsys, *argv, match="--force")
    assert (out / "report.md").read_text() == "my own notes\n"
    code, _, _ = cli(capsys, *argv, "--force")
    assert code == 0 and "my own notes" not in (out / "report.md").read_text()
    assert (out / MARKER).exists() and (out / "boundary.png").exists()
    # a directory maxmargin wrote takes a rerun; a 13-feature rerun has no boundary
    # figure, and the 2-D run's must not stay behind
    code, _, _ = cli(
        capsys, "compare", HEART, "--learners", "pegasos", "--epochs", "1", "--quiet", "--out", out
    )
    assert code == 0 and not (out / "boundary.png").exists()
    names = json.loads((out / MARKER).read_text())["files"]
    assert sorted(p.name for p in out.iterdir() if p.name != MARKER) == names


def test_atomic_write_keeps_the_old_file_on_failure(tmp_path):
    target = tmp_path / "report.json"
    target.write_text("old")

    def crash(fh):
        fh.write(b"half of the new")
        raise OSError(28, "No space left on device")

    with pytest.raises(OutputError, match="No space left on device"):
        atomic_write(target, crash)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary left

    def interrupt(fh):
        fh.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, interrupt)
    assert target.read_text() == "old" and len(list(tmp_path.iterdir())) == 1


# --------------------------------------------------------------------------- divergence


def test_diverging_learner_is_a_finding(capsys, tmp_path):
    out = tmp_path / "c"
    code, stdout, err = cli(
        capsys,
        "compare",
        HEART,
        "--C",
        "1e-6",
        "--learners",
        "subgradient,pegasos",
        "--epochs",
        "2",
        "--out",
        out,
    )
    assert code == 0 and "Traceback" not in err
    assert err.strip().splitlines() == [
        line
        for line in err.strip().splitlines()
        if line.startswith("maxmargin: warning: subgradient")
    ]
    assert "DIVERGED" in stdout and "DIVERGED" in (out / "report.md").read_text()
    for fig in ("suboptimality.png", "gaps.png", "regret.png", "mistakes.png"):
        assert (out / fig).stat().st_size > 0
    js = json.loads((out / "report.json").read_text())
    sub = next(r for r in js["runs"] if r["learner"] == "subgradient")
    at = sub["diverged_at"]
    assert isinstance(at, int) and "not finite" in sub["divergence"]
    k = sub["t"].index(at)
    assert any(isinstance(v, float) for v in sub["objective"][:k])  # the finite prefix
    assert all(v is None for v in sub["objective"][k:] + sub["train_error"][k:])  # NaN: null
    row = next(r for r in js["summary"] if r["label"] == "subgradient")
    assert row["diverged"] and row["subopt"] is None
    peg = next(r for r in js["runs"] if r["learner"] == "pegasos")
    assert peg["diverged_at"] is None


def test_diverging_run_api_and_trace_files(capsys, tmp_path):
    tr = mm.run(mm.online.resolve("subgradient", lam=1e3), mm.load("builtin:heart_scale"))
    assert tr.diverged_at is not None and "DIVERGED" in tr.summary()
    assert np.isfinite(tr.w[tr.t < tr.diverged_at]).all()
    code, out, err = cli(
        capsys, "run", HEART, "--learner", "subgradient", "--lam", "1e3", "--out", tmp_path / "r"
    )
    assert code == 0 and "DIVERGED" in out and "nan%" not in out
    assert (
        err.startswith("maxmargin: warning: subgradient diverged")
        and len(err.strip().splitlines()) == 1
    )
    meta = json.loads((tmp_path / "r" / "subgradient.json").read_text())
    assert meta["diverged_at"] == tr.diverged_at


# --------------------------------------------------------------------------- the rest


def test_warnings_are_one_line(capsys, tmp_path):
    code, _, err = cli(
        capsys,
        "path",
        "builtin:separable",
        "--C-grid",
        "1,0.1,10,1",
        "--quiet",
        "--out",
        tmp_path / "p",
    )
    assert code == 0
    lines = err.strip().splitlines()
    assert lines and all(line.startswith("maxmargin: warning: ") for line in lines), err


def test_non_utf8_file_names(capsys, tmp_path):
    # capsys's stdout is strict UTF-8, as a terminal's: a raw name would not print
    data = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9.svm"))
    shutil.copy(HEART, data)
    out = Path(os.fsdecode(os.fsencode(tmp_path) + b"/out\xe9"))
    code, stdout, err = cli(
        capsys, "compare", data, "--learners", "pegasos", "--epochs", "1", "--out", out
    )
    assert code == 0, err
    assert "caf\ufffd.svm" in stdout and "out\ufffd" in stdout
    (out / "report.md").read_text(encoding="utf-8")  # valid UTF-8


def test_non_utf8_file_names_path(capsys, tmp_path):
    data = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9.svm"))
    shutil.copy(HEART, data)
    out = Path(os.fsdecode(os.fsencode(tmp_path) + b"/p\xe9"))
    code, stdout, _ = cli(capsys, "path", data, "--C-grid", "0.1,1", "--out", out)
    assert code == 0 and "caf\ufffd.svm" in stdout
    (out / "report.md").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- reading back (WP1)


@pytest.fixture(scope="module")
def heart_solution_doc():
    return mm.solve(mm.SVMProblem(mm.load(HEART), C=1.0)).to_dict()


@pytest.mark.parametrize(
    "edit, message",
    [
        ({"format": "maxmargin.solution/1"}, "development version .* compute it again$"),
        ({"format": None}, 'no "format" key: not a maxmargin solution document$'),
        ({"w": None}, r"not a readable maxmargin solution document: 'w': expected a list"),
        ({"support": [0.5]}, r"'support': expected integers, got float64 values$"),
    ],
)
def test_malformed_result_files_are_one_line(tmp_path, heart_solution_doc, edit, message):
    doc = {**heart_solution_doc, **edit}
    if doc["format"] is None:
        del doc["format"]
    f = tmp_path / "s.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(mm.DataError, match=message) as e:
        mm.ExactSolution.from_json(f)
    assert "\n" not in str(e.value)
    f.write_text('{"format": "maxmargin.solution/2", "b": NaN}')
    with pytest.raises(mm.DataError, match=r"s.json: not valid JSON \(NaN is not JSON\)"):
        mm.ExactSolution.from_json(f)


def test_what_needs_the_data_on_a_result_read_without_them(heart_solution_doc):
    sol = mm.ExactSolution.from_json(heart_solution_doc)
    with pytest.raises(mm.DataError, match="^heart_scale: this problem was read from a file"):
        sol.problem.margins(sol.w, sol.b)
    data = mm.load(HEART)
    with pytest.raises(mm.DataError, match="n=270, d=13; .* has n=269, d=13: give the data"):
        sol.with_data(data.subset(np.arange(269)))


# --------------------------------------------------------------------------- audit: accepted
# input that crashed (exit 70, a plain Python exception, or memory without bound)


@pytest.fixture
def no_path(monkeypatch):
    """The C path may not be computed: a count is refused before."""

    def fail(*a, **k):
        raise AssertionError("the path was computed despite a count too large")

    monkeypatch.setattr(MODULES["path"], "regularization_path", fail)


def test_path_learners_epochs_beyond_int64_refused_before_the_path(capsys, tmp_path, no_path):
    refused(
        capsys, "path", HEART, "--learners", "pa1", "--epochs", 10**19, "--out", tmp_path / "o",
        match="'epochs' parameter must be at most",
    )  # fmt: skip


def test_path_learners_epochs_sized_before_the_path(capsys, tmp_path, eight_gib, no_path):
    line = refused(
        capsys, "path", HEART, "--learners", "pa1,pegasos", "--epochs", 10**8,
        "--out", tmp_path / "o", match="'epochs' parameter gives too many epochs: 100,000,000",
    )  # fmt: skip
    assert "8.0 GiB available" in line and "2 learners x 25 lambdas" in line
    ds = mm.load("builtin:heart_scale")
    with pytest.raises(ParameterError, match="'epochs' parameter gives too many epochs"):
        mm.learners_along_path(ds, C=[0.1, 1.0], learners=["pa1"], epochs=10**8)


def test_path_learners_sizing_counts_what_a_study_holds(monkeypatch):
    from maxmargin.evaluation.path import learners as lp

    ds = mm.make_gaussians(30, 2, seed=0)
    held = []
    monkeypatch.setattr(lp, "check_count", lambda *a, **k: held.append((a, k)))
    lp.check_study_size(ds, 4, 3, 5, n_jobs=1)
    (name, epochs, each, unit), kw = held[0]
    assert (name, epochs, unit) == ("epochs", 5, "epochs")
    # per checkpoint: the 12 runs' curves, the checkpoints while they are made, and one
    # run's trace of d + 1 weights at a time
    assert each == 12 * lp.CURVE_BYTES + 32.0 + 1 * (32.0 * 3 + lp.CHECKPOINT_OVERHEAD)
    assert kw["base"] == each * lp._geometric_count(30 * 5)


@pytest.mark.parametrize(
    "argv",
    [
        ["--batch-size", 10**19],
        ["--learner-param", f"batch_size={10**19}"],
    ],
)
def test_batch_size_beyond_any_run_refused(capsys, argv):
    refused(
        capsys, "run", HEART, "--learner", "pegasos", "--epochs", 1, *argv,
        match="'batch_size' parameter must be an int in [1, 4,611,686,018,427,387,904]",
    )  # fmt: skip
    with pytest.raises(ParameterError, match="'batch_size' parameter"):
        Pegasos(batch_size=10**19)


def test_a_batch_larger_than_the_data_is_the_whole_epoch():
    ds = mm.make_gaussians(40, 2, seed=0)
    whole = mm.run(Pegasos(lam=0.1, batch_size=40), ds, epochs=3, seed=1)
    huge = mm.run(Pegasos(lam=0.1, batch_size=2**62), ds, epochs=3, seed=1)
    assert np.array_equal(whole.t, huge.t) and np.array_equal(whole.w, huge.w)


@pytest.mark.parametrize("learner", ["pocket", "dual_perceptron", "pegasos"])
def test_intercept_scaling_whose_square_overflows_refused(capsys, learner):
    refused(
        capsys, "run", HEART, "--learner", learner, "--epochs", 1,
        "--learner-param", "intercept_scaling=1e200", match="'intercept_scaling' parameter",
    )  # fmt: skip
    with pytest.raises(ParameterError, match="its square must be a finite double"):
        mm.online.resolve((learner, {"intercept_scaling": 1e200}))


def test_study_seeds_beyond_any_count_refused(capsys, tmp_path):
    from maxmargin.studies import SpecError, load_spec

    spec = {
        "problem": {"C": 1.0},
        "run": {"epochs": 1, "seeds": 10**24},
        "data": [{"source": HEART}],
        "learners": ["pa1"],
    }
    with pytest.raises(SpecError, match="run.seeds"):
        load_spec(spec)
    gen = {"generator": "separable", "seeds": 10**24}
    with pytest.raises(SpecError, match=r"data\[0\].seeds"):
        load_spec({**spec, "run": {"epochs": 1}, "data": [gen]})
    toml = tmp_path / "big.toml"
    toml.write_text(
        f'[problem]\nC=1.0\n[run]\nepochs=1\nseeds={10**24}\n[[data]]\nsource="{HEART}"\n'
        '[[learners]]\nname="pa1"\n'
    )
    refused(capsys, "study", toml, "--out", tmp_path / "s", match="run.seeds")


BAD_STR = """
import numpy as np
from maxmargin.online import Learner

class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("str fails")

class Loud(Learner):
    def start(self, d):
        self.w = np.zeros(d)
    def step(self, x, y, t):
        raise ValueError("x" * 1_000_000)
    def weights(self):
        return self.w

class Mute(Loud):
    def step(self, x, y, t):
        raise Unprintable()

class Base(Loud):
    def step(self, x, y, t):
        raise BaseException("x")

class Gen(Loud):
    def step(self, x, y, t):
        raise GeneratorExit()
"""


@pytest.mark.parametrize(
    "cls, match",
    [
        ("Mute", "raised Unprintable in step() at step 1: (its message cannot be printed: "),
        ("Loud", "raised ValueError in step() at step 1: xxxxx"),
        ("Base", "raised BaseException in step() at step 1: x (-v"),
        ("Gen", "raised GeneratorExit in step() at step 1 (-v"),
    ],
)
def test_a_learner_exception_is_one_short_line(capsys, tmp_path, cls, match):
    f = tmp_path / "bad.py"
    f.write_text(BAD_STR)
    line = refused(capsys, "run", HEART, "--learner", f"{f}:{cls}", "--epochs", 1, match=match)
    assert len(line) < 1000, len(line)
    ds = mm.load(HEART)
    with pytest.raises(mm.online.protocol.LearnerError, match=re.escape(match)):
        mm.run(f"{f}:{cls}", ds, epochs=1)


def test_kernel_whose_rounding_overflows_refused():
    from maxmargin.kernel_problem import KernelProblem

    X, y = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [-1.0, 0.5]]), np.array([1, -1, 1, -1])
    ds = mm.Dataset(X, y)
    with pytest.raises(ParameterError, match="'gamma' parameter is too large for these data"):
        KernelProblem(ds, "rbf", C=1.0, gamma=1e300)
    KernelProblem(ds, "rbf", C=1.0, gamma=1e10)  # far from it: accepted
    with pytest.raises(ParameterError, match="not finite"):
        KernelProblem(ds, "poly", C=1.0, degree=10**6, coef0=1.0)


@pytest.mark.parametrize(
    "raised, match",
    [
        (ZeroDivisionError("division by zero"), "raised ZeroDivisionError: division by zero"),
        (SystemExit(3), "called sys.exit(3)"),
        (RuntimeError, "raised RuntimeError"),
    ],
)
def test_a_kernel_callable_that_raises(raised, match):
    from maxmargin.kernel_problem import KernelProblem

    def kernel(A, B):
        raise raised

    ds = mm.Dataset(np.array([[0.0], [1.0]]), np.array([1, -1]))
    with pytest.raises(ParameterError, match=re.escape(match)) as e:
        KernelProblem(ds, kernel, C=1.0)
    assert "\n" not in str(e.value)


def test_solve_at_a_c_whose_rescaled_form_overflows_names_the_given_c(capsys):
    line = refused(capsys, "solve", HEART, "--C", "1e305", match="C = 1e+305")
    assert "1.6e+306" not in line and "underflows" not in line
    with pytest.raises(mm.SolverError, match=r"C = 1e\+305"):
        mm.solve(mm.SVMProblem(mm.load(HEART), C=1e305))


def test_a_kernel_callable_that_returns_complex_values():
    from maxmargin.kernel_problem import KernelProblem

    ds = mm.Dataset(np.array([[0.0], [1.0], [2.0]]), np.array([1, -1, 1]))
    with warnings.catch_warnings(record=True) as caught:  # not numpy's ComplexWarning
        warnings.simplefilter("always")
        with pytest.raises(ParameterError, match="returned complex values; a kernel is real"):
            KernelProblem(ds, lambda A, B: (A @ B.T) * (1 + 1j), C=1.0)
    assert not caught, [str(w.message) for w in caught]


@pytest.mark.parametrize("num", ["1000000000000000000000000", "1e24", "1.0E+24"])
def test_a_grid_count_is_named_as_given(eight_gib, num):
    with pytest.raises(ParameterError, match="1,000,000,000,000,000,000,000,000 grid points"):
        parse_grid(f"1e-3:1e3:{num}")
    for bad in ("2.5", "nan", "inf", "-3"):
        with pytest.raises(ParameterError, match="must be an int >= 1"):
            parse_grid(f"1e-3:1e3:{bad}")


@pytest.mark.parametrize(
    "source, match",
    [
        ('raise BaseException("x")\n', "failed: BaseException: x"),
        (
            "class B:\n    def __init__(self):\n        raise GeneratorExit()\n"
            "    def start(self, d): pass\n    def step(self, x, y, t): pass\n"
            "    def weights(self): return [0.0]\n",
            "b.py:B' failed: GeneratorExit",
        ),
    ],
)
def test_a_learner_module_or_constructor_raising_a_base_exception(capsys, tmp_path, source, match):
    f = tmp_path / "b.py"
    f.write_text(source)
    refused(capsys, "run", HEART, "--learner", f"{f}:B", match=match)


# --------------------------------------------------------------------------- WP4: compare's seeds


@pytest.mark.parametrize("seeds", [range(10**30), range(0, 10**40, 7), range(10**21, -1, -1)])
def test_compare_seeds_past_any_memory_refused_before_listing_them(seeds):
    """A count of seeds is sized before one is listed (audit #5): one ParameterError."""
    data = mm.make_separable(20, 2, seed=0)
    with pytest.raises(mm.ParameterError, match="'seeds' parameter gives too many seeds") as e:
        mm.compare(data, learners=["pa1"], C=1.0, epochs=1, seeds=seeds)
    assert "\n" not in str(e.value)


def test_compare_seeds_of_traces_only_sized_too():
    """Without learners the seeds run nothing, but a list of 1e30 of them is refused too."""
    data = mm.make_separable(20, 2, seed=0)
    tr = mm.run("perceptron", data, epochs=1)
    with pytest.raises(mm.ParameterError, match="'seeds'"):
        mm.compare(data, traces=[tr], seeds=range(10**30))


def test_cli_compare_seeds_1e21_refused_in_one_line(capsys):
    refused(capsys, "compare", HEART, "--seeds", str(10**21), match="'seeds'")
