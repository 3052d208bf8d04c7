"""The animation of an online run (``animate_run``, ``maxmargin run --animate``).

One frame per checkpoint (counted with Pillow), Novikoff's bound as ``compare`` computes
it, refusals before any computation, and atomic writing.
"""

from __future__ import annotations

import math
import os
import stat

import numpy as np
import pytest

from maxmargin import compare, load, make_gaussians, make_separable
from maxmargin.cli import main
from maxmargin.exceptions import DataError, ParameterError
from maxmargin.online import run
from maxmargin.plotting.animation import _hard, _novikoff, _reference, animate_run

Image = pytest.importorskip("PIL.Image")


# the data set `separable` is a fixture of conftest.py


def test_one_frame_per_checkpoint(separable, tmp_path):
    trace = run(
        "perceptron",
        separable,
        epochs=3,
        order="shuffle",
        seed=2,
        checkpoints=[1, 2, 5, 10, 30, 60],
    )
    gif = animate_run(trace, separable, tmp_path / "perceptron.gif", dpi=40)
    assert gif == tmp_path / "perceptron.gif"
    with Image.open(gif) as im:
        assert im.format == "GIF"
        assert im.n_frames == len(trace.t) == 7  # the last step (90) is always recorded
    assert [p.name for p in tmp_path.iterdir()] == ["perceptron.gif"]  # no temp file left
    assert stat.S_IMODE(gif.stat().st_mode) != 0o600  # not mkstemp's private mode


def test_novikoff_bound_is_the_one_compare_reports(separable):
    trace = run("perceptron", separable, epochs=1)
    bound, _ = _novikoff(trace, _hard(trace, separable))
    cmp = compare(separable, learners=["perceptron"], lam=0.1, epochs=1)
    assert bound == pytest.approx(cmp.novikoff, rel=1e-9)
    assert trace.mistakes[-1] <= bound


def test_novikoff_does_not_apply_and_says_why(separable):
    trace = run("pegasos", separable)
    bound, why = _novikoff(trace, _hard(trace, separable))
    assert math.isnan(bound) and "perceptron family" in why
    noisy = make_gaussians(40, 2, separation=0.5, seed=0)
    trace = run("perceptron", noisy)
    assert _hard(trace, noisy) is None
    bound, why = _novikoff(trace, None)
    assert math.isnan(bound) and "not separable" in why


def test_reference_is_the_learners_own_optimum(separable):
    def reference(name, data):
        trace = run(name, data, epochs=1)
        return _reference(trace, data, _hard(trace, data))

    sol, label = reference("pegasos", separable)
    assert sol.problem.lam == pytest.approx(1e-4) and "lambda" in label
    sol, label = reference("perceptron", separable)
    assert sol.problem.hard and sol.problem.intercept == "augmented"
    noisy = make_gaussians(40, 2, separation=0.5, seed=0)
    sol, label = reference("perceptron", noisy)
    assert not sol.problem.hard and sol.problem.C == 1.0


def test_bad_targets_are_refused(separable, tmp_path):
    trace = run("perceptron", separable)
    with pytest.raises(ParameterError, match="ending in .gif"):
        animate_run(trace, separable, tmp_path / "a.png")
    with pytest.raises(ParameterError, match="does not exist"):
        animate_run(trace, separable, tmp_path / "missing" / "a.gif")
    three = make_separable(30, 3, seed=0)
    with pytest.raises(DataError, match="2-D"):
        animate_run(run("perceptron", three), three, tmp_path / "a.gif")
    with pytest.raises(DataError, match="the data the learner saw"):
        animate_run(trace, make_separable(31, 2, seed=0), tmp_path / "a.gif")
    assert not list(tmp_path.iterdir())


def test_a_failed_write_leaves_the_old_file_whole(separable, tmp_path, monkeypatch):
    import matplotlib.animation

    target = tmp_path / "old.gif"
    target.write_bytes(b"the user's file")
    trace = run("perceptron", separable, checkpoints=[1, 30])

    def broken(self, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(matplotlib.animation.PillowWriter, "grab_frame", broken)
    with pytest.raises(KeyboardInterrupt):
        animate_run(trace, separable, target, dpi=40)
    assert target.read_bytes() == b"the user's file"
    assert [p.name for p in tmp_path.iterdir()] == ["old.gif"]


def test_cli_run_animate_writes_one_frame_per_checkpoint(separable, tmp_path, capsys):
    data_file = tmp_path / "sep.npz"
    np.savez(data_file, X=separable.dense(), y=separable.y)
    gif = tmp_path / "run.gif"
    code = main(
        ["run", str(data_file), "--learner", "perceptron", "--epochs", "1", "--animate", str(gif)]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    trace = run("perceptron", load(str(data_file)), epochs=1, order="shuffle", seed=0)
    assert f"wrote {gif} ({len(trace.t)} frames" in out
    with Image.open(gif) as im:
        assert im.n_frames == len(trace.t)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--learner", "perceptron"], "2-D data; heart_scale has d = 13"),
        (["--learner", "perceptron,pegasos"], "one learner; got 2"),
    ],
)
def test_cli_refuses_before_computing(argv, message, tmp_path, capsys):
    out_dir = tmp_path / "traces"
    data = "builtin:heart_scale" if "2-D" in message else "builtin:separable"
    code = main(["run", data, *argv, "--out", str(out_dir), "--animate", str(tmp_path / "a.gif")])
    out, err = capsys.readouterr()
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out_dir.exists() and not (tmp_path / "a.gif").exists()  # nothing computed


def test_gif_mode_follows_the_umask(separable, tmp_path):
    old = os.umask(0o022)
    try:
        gif = animate_run(
            run("perceptron", separable, checkpoints=[30]), separable, tmp_path / "m.gif", dpi=30
        )
    finally:
        os.umask(old)
    assert stat.S_IMODE(gif.stat().st_mode) == 0o644
