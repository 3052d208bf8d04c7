"""Nothing lost: an output never overwrites an input, another output or a user's folder.

Every case of docs/bad-input.md "Outputs" through the command line (one line, exit 2,
before the data are read), the marker that lets a rerun remove the previous run's files
(it never deletes a file maxmargin did not write), and report folders that an interrupt
leaves as they were (the old report, or the complete new one): interrupts are raised
from a patched function, never timed.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import maxmargin as mm
from maxmargin import OutputError, ParameterError
from maxmargin.cli import main
from maxmargin.io.files import (
    MARKER,
    OutputPlan,
    check_outputs,
    mark_output_dir,
    remove_temporaries,
)

HEART = str(mm.data.sources._PACKAGE_DATA / "heart_scale")
QUICK = ("--learners", "pegasos", "--epochs", "1", "--no-figures", "--quiet")


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, *argv, match=""):
    """Exit 2 with one line on stderr containing ``match``."""
    code, _, err = cli(capsys, *argv)
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    assert match in lines[0], (match, err)
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) with its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def work(tmp_path, monkeypatch):
    """The current folder, holding the inputs of the cases; nothing may be loaded."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(HEART, "heart_scale")
    shutil.copy(HEART, "hold.svm")
    Path("w.txt").write_text("1\n" * 270)
    ds = mm.make_separable(20, 2, seed=0)
    np.savez("ok.npz", X=ds.X, y=ds.y)
    mm.run("perceptron", ds).save(tmp_path / "tr")
    Path("mine.py").write_text("# a learner of one's own\n")
    os.symlink("heart_scale", "link")
    os.link("heart_scale", "hard")
    (tmp_path / "sub").mkdir()
    before = snapshot(tmp_path)

    def no_loading(*a, **k):
        raise AssertionError("data loaded before the outputs were checked")

    monkeypatch.setattr(mm.data, "load", no_loading)
    yield tmp_path
    assert snapshot(tmp_path) == before  # no input, no file of the user, was touched


# --------------------------------------------------------------------------- the check


@pytest.mark.parametrize(
    "argv, match",
    [
        # an output that is an input
        ("solve heart_scale --json heart_scale", "--json heart_scale: it is the DATA file"),
        ("solve heart_scale --liblinear-model heart_scale", "it is the DATA file"),
        ("solve heart_scale --json sub/../heart_scale", "it is the DATA file"),  # ..
        ("solve heart_scale --json ./heart_scale", "it is the DATA file"),  # .
        ("solve link --json heart_scale", "it is the DATA file"),  # a symbolic link
        ("solve heart_scale --json link", "it is the DATA file"),
        ("solve heart_scale --json hard", "it is the DATA file"),  # a hard link
        ("compare heart_scale --holdout hold.svm --json hold.svm", "the --holdout file"),
        ("path heart_scale --holdout hold.svm --csv hold.svm", "the --holdout file"),
        ("solve heart_scale --weights w.txt --json w.txt", "the --weights file"),
        ("compare heart_scale --weights w.txt --json w.txt", "the --weights file"),
        ("compare heart_scale --csv heart_scale", "--csv heart_scale: it is the DATA file"),
        ("path heart_scale --csv heart_scale", "--csv heart_scale: it is the DATA file"),
        ("path ok.npz --json ok.npz", "--json ok.npz: it is the DATA file"),
        ("compare ok.npz --trace tr.npz --json tr.npz", "the --trace file"),
        ("compare ok.npz --trace tr.npz --json tr.json", "the --trace file"),  # beside it
        ("compare ok.npz --learners mine.py:Mine --json mine.py", "the --learners file"),
        # two outputs naming one file
        ("compare heart_scale --json x --csv x", "--json x and --csv x name the same file"),
        ("path heart_scale --json x --csv ./x", "name the same file"),
        ("solve heart_scale --json m --liblinear-model m", "--liblinear-model m name the same"),
        ("compare heart_scale --json - --csv -", "both write to stdout"),
        ("path heart_scale --json - --csv -", "both write to stdout"),
        # a folder maxmargin did not write
        ("compare heart_scale --out .", "--out .: directory is not empty"),
        ("path heart_scale --out sub/..", "directory is not empty"),
        ("demo --out .", "--force to write into it"),
        ("run heart_scale --learner perceptron --out .", "--force to write into it"),
    ],
)
def test_an_output_that_would_lose_a_file_is_refused_first(work, capsys, argv, match):
    refused(capsys, *argv.split(), match=match)


def test_an_output_inside_the_report_folder_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("rep").mkdir()
    mark_output_dir("rep", "compare", [])  # a folder maxmargin wrote
    refused(
        capsys, "compare", HEART, "--out", "rep", "--json", "rep/report.json",
        match="--json rep/report.json: it is inside --out rep",
    )  # fmt: skip
    refused(capsys, "path", HEART, "--out", "rep", "--csv", "rep/x.csv", match="inside --out")
    # an input where the report goes
    shutil.copy(HEART, "rep/report.md")
    refused(
        capsys, "compare", "rep/report.md", "--out", "rep",
        match="--out rep: the command writes report.md there, which is the DATA file",
    )  # fmt: skip
    assert Path("rep/report.md").read_bytes() == Path(HEART).read_bytes()


def test_standard_output_is_not_a_file(tmp_path):
    plan = check_outputs("compare", {"--json": "-", "--csv": tmp_path / "t.csv"})
    assert plan.folder is None
    with pytest.raises(OutputError, match="--json - and --csv - both write to stdout"):
        check_outputs("compare", {"--json": "-", "--csv": "-"})


# --------------------------------------------------------------------------- study --out


STUDY = """\
[problem]
C = [1.0]
[run]
epochs = 1
seeds = [0]
[[data]]
source = "{source}"
[[learners]]
name = "perceptron"
"""


def test_study_refuses_a_folder_it_did_not_write(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("s.toml").write_text(STUDY.format(source="builtin:separable"))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "report.md").write_text("my notes\n")
    (mine / "results.csv").write_text("my,table\n")
    before = snapshot(tmp_path)
    refused(capsys, "study", "s.toml", "--out", mine, match="directory is not empty")
    refused(capsys, "study", "s.toml", "--out", ".", match="--out .: directory is not empty")
    refused(capsys, "study", "s.toml", "--out", "s.toml", match="exists and is not a directory")
    assert snapshot(tmp_path) == before
    # the data a spec names are inputs too
    shutil.copy(HEART, mine / "results.csv")
    Path("t.toml").write_text(STUDY.format(source="mine/results.csv"))
    refused(
        capsys, "study", "t.toml", "--out", mine, "--force",
        match="the command writes results.csv there, which is the data[0].source file",
    )  # fmt: skip
    with pytest.raises(OutputError, match="directory is not empty"):
        mm.study(tmp_path / "s.toml", mine)


def test_study_writes_into_its_own_folder_and_with_force(tmp_path, capsys, monkeypatch):
    pytest.importorskip("pyarrow")
    monkeypatch.chdir(tmp_path)
    Path("s.toml").write_text(STUDY.format(source="builtin:separable"))
    argv = ("study", "s.toml", "--jobs", "1", "--no-report", "--quiet")
    code, _, err = cli(capsys, *argv, "--out", "o")
    assert code == 0, err
    assert json.loads((tmp_path / "o" / MARKER).read_text())["written_by"] == "maxmargin study"
    code, _, err = cli(capsys, *argv, "--out", "o")  # its own folder: resumed
    assert code == 0, err
    code, _, err = cli(capsys, *argv, "--out", ".", "--force")  # the spec is not touched
    assert code == 0 and (tmp_path / "results.parquet").exists(), err
    assert Path("s.toml").read_text() == STUDY.format(source="builtin:separable")


# --------------------------------------------------------------------------- the marker


def _stat(p: Path) -> list[int]:
    st = os.lstat(p)
    return [st.st_size, st.st_mtime_ns]


def test_a_planted_marker_never_deletes_a_file_maxmargin_did_not_write(tmp_path, capsys):
    out, elsewhere = tmp_path / "rep", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (tmp_path / "x").write_text("outside")
    (elsewhere / "a.png").write_text("a figure of mine")
    (out / "notes.md").write_text("my notes")
    (out / "copy.md").write_text("my copy")
    (out / "link.png").symlink_to(tmp_path / "x")
    (out / "figs").symlink_to(elsewhere)
    listed = {  # each with the size and time the file has now
        "notes.md": [1, 2],  # not the file's: a user's file of that name
        "../x": _stat(tmp_path / "x"),
        str(tmp_path / "x"): _stat(tmp_path / "x"),
        "link.png": _stat(out / "link.png"),
        "figs/a.png": _stat(elsewhere / "a.png"),
        "./copy.md": _stat(out / "copy.md"),
        "figs/../copy.md": _stat(out / "copy.md"),
        MARKER: _stat(out / "notes.md"),
    }
    doc = {"format": "maxmargin.output_dir/1", "files": [*listed, "copy.md"], "stats": listed}
    (out / MARKER).write_text(json.dumps(doc))
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p.name != MARKER}
    code, _, err = cli(capsys, "compare", "builtin:separable", *QUICK, "--out", out)
    assert code == 0, err
    for p, content in before.items():
        assert p.read_bytes() == content, p
    assert (out / "link.png").is_symlink() and (out / "figs").is_symlink()
    # the new marker lists what this run wrote, each with its size and time
    doc = json.loads((out / MARKER).read_text())
    assert doc["files"] == ["checkpoints.csv", "report.json", "report.md", "table.tex"]
    assert doc["stats"] == {n: _stat(out / n) for n in doc["files"]}


def test_the_marker_removes_the_previous_runs_files_only_while_unchanged(tmp_path, capsys):
    out = tmp_path / "rep"
    argv = ("compare", "builtin:separable", "--learners", "pegasos", "--epochs", "1", "-q")
    assert cli(capsys, *argv, "--format", "png,svg", "--out", out)[0] == 0
    (out / "gaps.svg").write_text("edited by me")  # no longer the file maxmargin wrote
    assert cli(capsys, *argv, "--format", "png", "--out", out)[0] == 0
    assert (out / "gaps.svg").read_text() == "edited by me"
    assert not (out / "suboptimality.svg").exists() and (out / "suboptimality.png").exists()


# --------------------------------------------------------------------------- interrupts


@pytest.fixture
def interrupt_second_figure(monkeypatch):
    """Ctrl-C while the second figure of a report is written (after one is on disk)."""
    from maxmargin.plotting import _mpl

    real, calls = _mpl.save, []

    def save(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    def arm():
        calls.clear()
        monkeypatch.setattr(_mpl, "save", save)

    def disarm():
        monkeypatch.setattr(_mpl, "save", real)

    return arm, disarm


def test_interrupted_compare_leaves_the_old_report(tmp_path, capsys, interrupt_second_figure):
    arm, disarm = interrupt_second_figure
    out = tmp_path / "rep"
    base = ("compare", "builtin:separable", "--learners", "pegasos", "--epochs", "1", "-q")
    assert cli(capsys, *base, "--format", "png", "--out", out)[0] == 0
    old = snapshot(out)
    arm()
    code, _, err = cli(capsys, *base, "--seeds", "2", "--format", "png", "--out", out)
    assert code == 130 and "interrupted" in err
    assert snapshot(out) == old  # not one new figure beside the old report
    disarm()
    code, _, err = cli(capsys, *base, "--seeds", "2", "--format", "png", "--out", out)
    assert code == 0, err
    new = snapshot(out)
    assert new != old and set(new) == set(old)
    assert not list(out.rglob("*maxmargin-tmp*"))


def test_interrupted_path_learners_leaves_no_folder(tmp_path, capsys, interrupt_second_figure):
    arm, disarm = interrupt_second_figure
    out = tmp_path / "new" / "rep"
    argv = (
        "path", "builtin:separable", "--C-grid", "0.1,1", "--learners", "pegasos",
        "--epochs", "1", "--jobs", "1", "-q", "--format", "png", "--out", out,
    )  # fmt: skip
    arm()
    assert cli(capsys, *argv)[0] == 130
    assert not (tmp_path / "new").exists()  # nothing the next run would refuse
    disarm()
    code, _, err = cli(capsys, *argv)
    assert code == 0 and (out / "report.md").exists() and (out / MARKER).exists(), err


def test_interrupted_run_out_keeps_the_previous_traces(tmp_path, capsys, monkeypatch):
    out = tmp_path / "t"
    argv = ("run", HEART, "--learner", "perceptron,pegasos", "-q", "--out", out)
    assert cli(capsys, *argv)[0] == 0
    old = snapshot(out)
    from maxmargin.trace import Trace

    real = Trace.save

    def save(self, path):
        if self.learner == "pegasos":
            raise KeyboardInterrupt
        return real(self, path)

    monkeypatch.setattr(Trace, "save", save)
    assert cli(capsys, *argv[:-2], "--seed", "3", "--out", out)[0] == 130
    assert snapshot(out) == old


def _commit_in_child(plan: OutputPlan, files: dict[str, str], die_after: int | None) -> int:
    """Fork a process that writes ``files`` as a staged report and dies (SIGKILL-like).

    It dies after ``die_after`` files were moved into place (None: before the commit).
    Returns its (dead) pid.
    """
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            real, moved = os.replace, []

            def replace(src, dst):  # the moves out of the commit folder, counted
                if ".commit." in str(src):
                    if len(moved) == die_after:
                        os._exit(9)
                    moved.append(1)
                real(src, dst)

            os.replace = replace
            with plan.staged() as stage:
                for name, text in files.items():
                    (stage.path / name).parent.mkdir(parents=True, exist_ok=True)
                    (stage.path / name).write_text(text)
                if die_after is None:
                    os._exit(9)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 9
    return pid


@pytest.mark.parametrize("die_after", [None, 0, 1, 2, 3])
def test_a_killed_commit_is_finished_or_undone(tmp_path, die_after):
    out = tmp_path / "rep"
    plan = check_outputs("compare", folder=out)
    with plan.staged() as stage:
        for name in ("report.md", "old.png", "figures/a.png"):
            (stage.path / name).parent.mkdir(exist_ok=True)
            (stage.path / name).write_text("old " + name)
    old = snapshot(out)
    new = {"report.md": "new report", "figures/a.png": "new a", "figures/b.png": "new b"}
    pid = _commit_in_child(plan, new, die_after)
    remove_temporaries([out], pid)  # what the supervising process does after a kill
    now = snapshot(out)
    if die_after is None:
        assert now == old  # killed before the commit: the old report
    else:  # killed during it: finished, the complete new report (old.png removed)
        assert {k: v for k, v in now.items() if k != MARKER} == {
            k: v.encode() for k, v in new.items()
        }
    # the next run finds the folder clean (a dead process's leftovers also go there)
    pid = _commit_in_child(plan, new, 1)
    assert check_outputs("compare", folder=out).folder == out
    assert not [p for p in out.rglob("*") if "maxmargin-tmp" in p.name]
    assert (out / "figures" / "b.png").read_text() == "new b"


# --------------------------------------------------------------------------- the API


def test_api_errors_are_maxmargin_errors(tmp_path):
    cmp = mm.compare(mm.make_separable(20, 2, seed=0), learners=["pegasos"], lam=0.1, epochs=1)
    f = tmp_path / "file"
    f.write_text("mine")
    with pytest.raises(OutputError, match="exists and is not a directory"):
        mm.write_report(cmp, f, figures=False)
    with pytest.raises(OutputError):
        mm.write_report(cmp, f / "below", figures=False)
    assert f.read_text() == "mine"
    with pytest.raises(ParameterError, match="write_report writes a Comparison.*got str"):
        mm.write_report("cmp", tmp_path / "r")
    pytest.importorskip("pyarrow")
    with pytest.raises(ParameterError, match="spec must be a TOML file"):
        mm.study(5, tmp_path / "s")
    spec = {"problem": {"C": 1.0}, "data": [{"source": "builtin:separable"}], "learners": ["pa1"]}
    with pytest.raises(ParameterError, match="out must be a folder"):
        mm.study(spec, 5)
