"""The report folder of a KernelComparison, and ``maxmargin compare --kernel``.

Every number of report.json and checkpoints.csv against the KernelComparison's own arrays
(the median [min, max] recomputed here with numpy), the seeds' runs against one-seed
comparisons, and each refusal of the command line (one line, exit 2, before any solve).
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from maxmargin import Dataset, ParameterError
from maxmargin.cli import main
from maxmargin.evaluation.kernel_scoring import compare_kernel
from maxmargin.report import write_report

LEARNERS = ["dual_perceptron", "kernel_pegasos", "kernel_pa1"]


def xor(n: int = 40, seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    X = X[np.abs(X[:, 0] * X[:, 1]) > 0.05]
    return Dataset(X, np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0), name="xor")


DATA = xor()


@pytest.fixture(scope="module")
def kcmp():
    return compare_kernel(DATA, LEARNERS, gamma=2.0, C=10.0, epochs=4, seeds=[0, 1, 2])


def test_each_seed_is_the_one_seed_comparison(kcmp):
    assert kcmp.seeds == (0, 1, 2) and len(kcmp.scores) == 9
    one = compare_kernel(DATA, ["kernel_pa1"], gamma=2.0, C=10.0, epochs=4, seeds=[2])
    s = next(s for s in kcmp.scores if s.learner == "kernel_pa1" and s.seed == 2)
    for key in ("suboptimality", "distance", "regret", "mistakes"):
        np.testing.assert_array_equal(getattr(s, key), getattr(one.scores[0], key))
    # different seeds, different orders: the runs differ
    a, b = (s for s in kcmp.scores if s.learner == "kernel_pa1" and s.seed in (0, 1))
    assert not np.array_equal(a.distance, b.distance)


def test_rows_are_median_min_max_over_seeds(kcmp):
    for row in kcmp.rows:
        runs = [s for s in kcmp.scores if s.learner == row["learner"]]
        for key in ("suboptimality", "distance", "regret", "mistakes"):
            last = np.array([getattr(s, key)[-1] for s in runs])
            assert row[key] == np.median(last)
            assert row[f"{key}_range"] == [last.min(), last.max()]
        assert row["seeds"] == 3
        assert (row["novikoff"] is not None) == (row["learner"] == "dual_perceptron")
    assert kcmp.rows[0]["novikoff"] == kcmp.novikoff


def test_report_folder_files_and_numbers(kcmp, tmp_path):
    written = write_report(kcmp, tmp_path, formats=("png",))
    names = [p.name for p in written]
    assert names == [
        "report.md",
        "report.json",
        "checkpoints.csv",
        "table.tex",
        "suboptimality.png",
        "distance.png",
    ]
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["format"] == "maxmargin.kernel_comparison/1"
    assert doc["kernel"] == {"name": "rbf", "gamma": 2.0, "degree": None, "coef0": None}
    assert doc["novikoff"] == kcmp.novikoff and doc["margin"] == kcmp.margin
    assert doc["reference"]["objective"] == kcmp.objective
    assert doc["reference"]["certified"] is True
    assert doc["rows"] == json.loads(json.dumps(kcmp.rows))
    assert len(doc["runs"]) == len(kcmp.scores)
    for run, s in zip(doc["runs"], kcmp.scores, strict=True):
        assert (run["learner"], run["seed"]) == (s.learner, s.seed)
        for key in ("t", "suboptimality", "distance", "distance_low", "regret", "mistakes"):
            np.testing.assert_array_equal(np.array(run[key], float), getattr(s, key))
    with open(tmp_path / "checkpoints.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == sum(len(s.t) for s in kcmp.scores)
    s = kcmp.scores[4]
    mine = [r for r in rows if r["learner"] == s.learner and int(r["seed"]) == s.seed]
    np.testing.assert_array_equal([float(r["distance"]) for r in mine], s.distance)
    np.testing.assert_array_equal([float(r["regret"]) for r in mine], s.regret)
    md = (tmp_path / "report.md").read_text()
    assert "certified" in md and "NOT certified" not in md
    d = next(r for r in kcmp.rows if r["learner"] == "dual_perceptron")
    lo, hi = d["distance_range"]
    assert f"{d['distance']:.3g} [{lo:.3g}, {hi:.3g}]" in md
    assert "Novikoff for dual_perceptron" in md and "respected" in md
    tex = (tmp_path / "table.tex").read_text()
    assert r"\begin{tabular}" in tex and "kernel\\_pa1" in tex


def test_no_figures_and_a_bad_option(kcmp, tmp_path):
    names = [p.name for p in write_report(kcmp, tmp_path, figures=False)]
    assert names == ["report.md", "report.json", "checkpoints.csv", "table.tex"]
    with pytest.raises(ParameterError, match="not an option of the report of KernelComparison"):
        write_report(kcmp, tmp_path / "x", study=None)
    assert not (tmp_path / "x").exists()


def test_seeds_refused():
    for bad in ([], [-1], [0.5]):
        with pytest.raises(ParameterError, match="seeds must be integers >= 0"):
            compare_kernel(DATA, ["kernel_pa1"], gamma=2.0, seeds=bad)


# --- the command line -------------------------------------------------------------------


@pytest.fixture(scope="module")
def data_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("d") / "xor.csv"
    pairs = zip(DATA.X.tolist(), DATA.y, strict=True)
    rows = ["x1,x2,y"] + [f"{a!r},{b!r},{int(c)}" for (a, b), c in pairs]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_compare_kernel_writes_the_report(data_csv, tmp_path, capsys, kcmp):
    out = tmp_path / "rep"
    code, stdout, err = run_cli(
        capsys, "compare", data_csv, "--kernel", "rbf", "--gamma", "2", "--C", "10",
        "--epochs", "4", "--seeds", "3", "--learners", ",".join(LEARNERS),
        "--out", str(out), "--no-figures", "--json", str(tmp_path / "k.json"),
    )  # fmt: skip
    assert code == 0, err
    assert "kernel SVM" in stdout and "kernel_pegasos" in stdout
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "checkpoints.csv",
        "report.json",
        "report.md",
        "table.tex",
    ]
    doc = json.loads((out / "report.json").read_text())
    assert doc == json.loads((tmp_path / "k.json").read_text())
    # the same numbers as the comparison made in Python (the CSV's doubles, read back)
    assert doc["rows"] == json.loads(json.dumps(kcmp.rows))


def test_compare_kernel_defaults_to_every_kernel_learner(data_csv, capsys):
    code, stdout, err = run_cli(
        capsys, "compare", data_csv, "--kernel", "linear", "--epochs", "1", "--json", "-"
    )
    assert code == 0, err
    doc = json.loads(stdout)
    assert [r["learner"] for r in doc["rows"]] == [
        "budget_perceptron",
        "dual_perceptron",
        "kernel_pa",
        "kernel_pa1",
        "kernel_pegasos",
    ]


@pytest.mark.parametrize(
    "extra, msg",
    [
        (["--kernel", "rbf", "--learners", "pegasos"], "--learners pegasos: not a kernel learner"),
        (["--learners", "kernel_pa1"], "--learners kernel_pa1: a kernel learner; give --kernel"),
        (["--gamma", "2"], "--gamma needs --kernel (the linear comparison"),
        (["--kernel", "rbf", "--degree", "2"], "--degree does not apply to the rbf kernel"),
        (["--kernel", "rbf", "--gamma", "x"], "--gamma must be a float > 0"),
        (["--kernel", "rbf", "--lam", "0.1"], "--lam: the kernel comparison takes --C"),
        (["--kernel", "rbf", "--intercept", "augmented"], "--intercept augmented is the linear"),
        (["--kernel", "rbf", "--loss", "squared_hinge"], "--loss squared_hinge is the linear"),
        (["--kernel", "rbf", "--solver", "ipm"], "--solver is the linear comparison's"),
        (["--kernel", "rbf", "--order", "cyclic,shuffle"], "compare --kernel runs one order"),
        (["--kernel", "rbf", "--seeds", "0"], "'seeds' parameter must be an int >= 1"),
    ],
)
def test_compare_kernel_refusals(data_csv, tmp_path, capsys, extra, msg):
    out = tmp_path / "never"
    code, stdout, err = run_cli(capsys, "compare", data_csv, *extra, "--out", str(out))
    assert code == 2 and stdout == ""
    assert msg in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_figures_draw_the_median_and_the_band(kcmp):
    from maxmargin.plotting.kernel import plot_kernel

    ax = plot_kernel(kcmp, "distance")
    runs = [s for s in kcmp.scores if s.learner == "kernel_pa1"]
    V = np.stack([s.distance for s in runs])
    line = next(li for li in ax.lines if li.get_label() == "kernel_pa1")
    np.testing.assert_array_equal(line.get_ydata(), np.median(V, axis=0))
    assert ax.get_xscale() == ax.get_yscale() == "log"
    with pytest.raises(ParameterError, match="what must be one of"):
        plot_kernel(kcmp, "regret")


def test_summary_is_the_rows(kcmp):
    text = kcmp.summary()
    assert "medians over 3 seeds" in text
    assert len(text.splitlines()) == 2 + len(LEARNERS)
    pa1 = next(r for r in kcmp.rows if r["learner"] == "kernel_pa1")
    assert f"{pa1['distance']:.4g}" in next(li for li in text.splitlines() if "kernel_pa1" in li)


def test_compare_kernel_csv_to_stdout_is_checkpoints_csv(data_csv, tmp_path, capsys):
    out = tmp_path / "rep"
    argv = ["compare", data_csv, "--kernel", "poly", "--degree", "2", "--epochs", "1"]
    code, stdout, err = run_cli(capsys, *argv, "--learners", "kernel_pa", "--csv", "-")
    assert code == 0, err
    code, _, err = run_cli(capsys, *argv, "--learners", "kernel_pa", "--out", str(out), "-q")
    assert code == 0, err
    assert stdout == (out / "checkpoints.csv").read_text()
    assert stdout.splitlines()[0] == (
        "learner,seed,t,objective,suboptimality,distance,distance_low,distance_high,regret,mistakes"
    )
