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
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import maxmargin as mm
from maxmargin import DataError, OutputError, ParameterError
from maxmargin.cli import main
from maxmargin.evaluation.path import regularization_path as reg_path
from maxmargin.io.files import MARKER, atomic_write

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
        mm.load_csv(files["three.csv"], label=int(label))


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
        mm.map_labels(np.array([np.inf, -np.inf]))
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
        mm.parse_grid("1e-3:1e3:1e12")
    with pytest.raises(ParameterError, match=r"'epochs' parameter gives too many epochs"):
        mm.schedule(5, 10**30)
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
