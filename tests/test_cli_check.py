"""``maxmargin check``: the verdict table, the exit code, and bad input refused before any work."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from maxmargin.cli import main

BROKEN = Path(__file__).resolve().parent / "_broken_learners.py"
check_module = importlib.import_module("maxmargin.testing.check")


def cli(capsys, *argv):
    code = main(["check", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_builtin_passes(capsys, tmp_path):
    out_json = tmp_path / "verdicts.json"
    code, out, err = cli(capsys, "perceptron", "--quick", "--json", out_json)
    assert code == 0, out + err
    assert out.startswith("perceptron: PASS") and "FAIL " not in out
    assert "verdict" in out and "separable/none" in out and "evidence" in out
    doc = json.loads(out_json.read_text())
    assert doc["passed"] is True and doc["battery"] == "quick"
    assert {v["outcome"] for v in doc["verdicts"]} == {"PASS"}


def test_the_report_folder(capsys, tmp_path):
    """``--out DIR``: the check's report folder, written by maxmargin.write_report."""
    out = tmp_path / "rep"
    argv = ["pegasos", "--quick", "--problems", "gaussians/none", "-q"]
    code, _, err = cli(capsys, *argv, "--out", out)
    assert code == 0, err
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert names == [
        "report.json",
        "report.md",
        "suboptimality.png",
        "table.tex",
        "verdicts.csv",
    ]
    doc = json.loads((out / "report.json").read_text())
    assert doc["learner"] == "pegasos" and "`table.tex`" in (out / "report.md").read_text()
    code, _, err = cli(capsys, *argv, "--out", tmp_path / "bare", "--no-figures")
    assert code == 0, err
    assert not list((tmp_path / "bare").glob("*.png"))


def test_a_broken_learner_from_a_file_fails_naming_the_effect(capsys):
    code, out, err = cli(
        capsys, f"{BROKEN}:PerceptronSignError", "--quick", "--problems", "separable/none"
    )
    assert code == 1, out + err
    assert "PerceptronSignError: FAIL" in out and "too many mistakes" in out
    assert "reproduce the first FAIL" in out and err == ""


def test_the_printed_reproduce_lines_give_the_same_verdict(capsys, tmp_path):
    code, out, _ = cli(
        capsys,
        f"{BROKEN}:PerceptronSignError",
        "--quick",
        "--problems",
        "separable/none",
        "--json",
        tmp_path / "v.json",
    )
    first = json.loads((tmp_path / "v.json").read_text())
    first = next(v for v in first["verdicts"] if v["outcome"] == "FAIL")
    lines = out.split("reproduce the first FAIL:\n", 1)[1].split("\n\n")[0]
    ns: dict = {}
    exec("\n".join(x.strip() for x in lines.splitlines()), ns)  # noqa: S102 - as printed
    assert ns["learner"].intercept == "none"  # the problem's, not the class default
    again = [v.to_dict() for v in ns["report"].failures]
    assert any(
        {k: v for k, v in a.items() if k != "seconds"}
        == {k: v for k, v in first.items() if k != "seconds"}
        for a in again
    ), (first, again)


def test_the_reproduce_lines_of_a_class_given_options_run(capsys, tmp_path):
    # a class of the protocol built with --learner-param: the printed lines build it
    # with the same parameters (they named an undefined `learner`)
    code, out, _ = cli(
        capsys,
        f"{BROKEN}:PA1FlippedLabelScaled",
        "--quick",
        "--problems",
        "separable/none",
        "--learner-param",
        "scale=0.5",
        "--json",
        tmp_path / "v.json",
    )
    assert code == 1
    first = json.loads((tmp_path / "v.json").read_text())
    first = next(v for v in first["verdicts"] if v["outcome"] == "FAIL")
    lines = out.split("reproduce the first FAIL:\n", 1)[1].split("\n\n")[0]
    assert "'scale': 0.5" in lines
    ns: dict = {}
    exec("\n".join(x.strip() for x in lines.splitlines()), ns)  # noqa: S102 - as printed
    built = ns["learner"].learner
    assert built.scale == 0.5 and built.C == ns["cp"].problem.C  # C: the problem's
    assert ns["learner"].intercept == "none"
    again = [v.to_dict() for v in ns["report"].failures]
    assert any(
        {k: v for k, v in a.items() if k != "seconds"}
        == {k: v for k, v in first.items() if k != "seconds"}
        for a in again
    ), (first, again)


def test_a_squared_hinge_learner_is_checked_on_its_loss(capsys, tmp_path):
    # it was "NOTHING PASSED (0 PASS, 0 FAIL, 0 INCONCLUSIVE)": refused on every hinge problem
    params = ["--learner-param", "loss=squared_hinge", "--learner-param", "projection=greedy"]
    code, out, err = cli(capsys, "pegasos", "--quick", "--problems", "gaussians/none", *params)
    assert code == 0, out + err
    assert out.startswith("pegasos: PASS (5 PASS, 0 FAIL, 0 INCONCLUSIVE; quick battery, loss ")
    assert "not checked" not in out
    code, out, err = cli(
        capsys,
        f"{BROKEN}:SquaredPegasosDoubleGradient",
        "--quick",
        "--problems",
        "gaussians/none",
        "--json",
        tmp_path / "v.json",
    )
    assert code == 1, out + err
    assert "SquaredPegasosDoubleGradient: FAIL" in out and "more slowly than claimed" in out
    assert "battery('quick', data_seed=0, loss='squared_hinge')" in out  # reproduce lines
    assert json.loads((tmp_path / "v.json").read_text())["loss"] == "squared_hinge"


def test_json_to_stdout_alone(capsys):
    code, out, err = cli(
        capsys, "pa", "--quick", "--problems", "separable/none", "--seeds", "4,5", "--json", "-"
    )
    doc = json.loads(out)  # nothing else on stdout
    assert code == 0 and doc["passed"] and doc["seeds"] == [4, 5]


def test_learner_options_are_the_learners_settings(capsys):
    # the margin perceptron's bound (R_tau/gamma)^2, R_tau^2 = R^2 + 2 tau/eta, grows with tau
    bounds = []
    for tau in (0.5, 2.0):
        code, out, _ = cli(
            capsys,
            "margin_perceptron",
            "--quick",
            "--problems",
            "separable/none",
            "--learner-param",
            f"margin={tau}",
            "--json",
            "-",
        )
        doc = json.loads(out)
        assert code == 0 and doc["learner"] == "margin_perceptron"
        (v,) = [v for v in doc["verdicts"] if "(R/gamma)^2" in v["claim"]]
        bounds.append(float(v["reason"].split("(R/gamma)^2 = ")[1].split()[0]))
    assert bounds[0] < bounds[1], bounds


@pytest.mark.parametrize(
    "argv, match",
    [
        (["nosuch", "--quick"], "unknown learner 'nosuch'"),
        (["no/such/file.py:Mine", "--quick"], "cannot read no/such/file.py"),
        ([f"{BROKEN}:NoSuchClass"], "has no 'NoSuchClass'"),
        (["perceptron", "--seeds", "1"], "at least 2 seeds"),
        (["perceptron", "--seeds", "a,b"], "--seeds 'a,b'"),
        (["perceptron", "--seeds", "3,-1"], "at least 2 seeds >= 0"),
        (["perceptron", "--data-seed", "-1"], "data_seed"),
        (["perceptron", "--problems", "no such"], "no problem of the 'default' battery"),
        (["winnow", "--problems", "separable/free"], "it supports intercept none"),
        (["perceptron", "--problems", ","], "--problems needs at least one name"),
        (["perceptron", "--learner-param", "lam=0.1"], "no learner given takes 'lam'"),
        (["perceptron", "--learner-param", "nokey"], "is not KEY=VALUE"),
        (["perceptron", "--json", "no/such/dir/v.json"], "no/such/dir"),
        ([f"{BROKEN}:PyPA1", "--json", BROKEN], "input"),
        (["perceptron", "--out", BROKEN], "exists and is not a directory"),
        (["perceptron", "--out", "x", "--format", "gif"], "unknown figure format 'gif'"),
        (["perceptron", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_input_exits_2_before_any_work(capsys, monkeypatch, argv, match):
    def no_work(*a, **k):
        raise AssertionError("a problem was solved before the input was checked")

    monkeypatch.setattr(check_module, "certified", no_work)
    code, out, err = cli(capsys, *argv)
    lines = err.strip().splitlines()
    assert code == 2, (code, out, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("maxmargin") and match in lines[0], (match, err)
    assert out == ""


def test_the_command_is_listed(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "check" in capsys.readouterr().out


#: A learner that claims the perceptron's bounds and, once it starts, waits in C holding
#: the interpreter (as a compiled solver does): only the supervisor's kill can end it.
STUCK = textwrap.dedent(
    """\
    import ctypes, os
    from pathlib import Path
    import numpy as np


    class Stuck:
        mistake_driven = True

        def start(self, d):
            self.w = np.zeros(d)
            (Path(os.environ["MM_PIDS"]) / str(os.getpid())).write_text("")
            ctypes.PyDLL(None).pause()

        def step(self, x, y, t):
            pass

        def weights(self):
            return self.w
    """
)

HANG_GUARD_S = 300  # not an assertion on speed: only so that a hang fails


def _gone(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


@pytest.mark.skipif(
    not hasattr(os, "fork") or not Path("/proc/self/stat").exists(),
    reason="the supervising parent needs fork; watching processes needs /proc",
)
def test_ctrl_c_stops_the_check(tmp_path):
    (tmp_path / "stuck.py").write_text(STUCK)
    pids = tmp_path / "pids"
    pids.mkdir()
    exe = shutil.which("maxmargin", path=str(Path(sys.executable).parent)) or "maxmargin"
    argv = [exe, "check", "stuck.py:Stuck", "--quick", "--problems", "separable/none"]
    env = {**os.environ, "MM_PIDS": str(pids)}
    p = subprocess.Popen(
        argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    child = None
    try:
        end = time.monotonic() + HANG_GUARD_S
        while not list(pids.iterdir()):
            assert p.poll() is None, p.communicate()
            assert time.monotonic() < end, "the learner did not start"
            time.sleep(0.05)
        child = int(next(pids.iterdir()).name)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=HANG_GUARD_S)
        assert p.returncode == 130 and err.decode().strip() == "maxmargin: interrupted"
        while not _gone(child):  # the child stuck in C was killed by the supervisor
            assert time.monotonic() < end, f"the computing child {child} is still running"
            time.sleep(0.05)
    finally:
        p.kill()
        if child is not None and not _gone(child):
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
