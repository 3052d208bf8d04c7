"""The `maxmargin` command: outputs, JSON contract, exit codes."""

import json

import numpy as np
import pytest

import maxmargin as mm
from maxmargin.cli import main

HEART = str(mm.data._PACKAGE_DATA / "heart_scale")


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_heart_scale_json_contract(tmp_path, capsys):
    target = tmp_path / "sol.json"
    code, out, _ = run_cli(capsys, "solve", HEART, "--C", "1", "--json", str(target))
    assert code == 0 and "CERTIFIED" in out
    js = json.loads(target.read_text())
    for key in ("w", "b", "alpha", "support", "margin_support", "bound_support",
                "primal_objective", "dual_objective", "duality_gap", "kkt", "margin",
                "status", "solver", "form", "intercept", "C", "lam", "solve_seconds"):
        assert key in js, key
    # recompute the primal objective from the data with plain numpy
    data = mm.load_heart_scale()
    X, y = data.X.toarray(), data.y
    w, b = np.array(js["w"]), js["b"]
    P = 0.5 * w @ w + 1.0 * np.maximum(0, 1 - y * (X @ w + b)).sum()
    assert P == pytest.approx(js["primal_objective"], rel=1e-9)
    alpha = np.array(js["alpha"])
    D = alpha.sum() - 0.5 * np.sum((X.T @ (alpha * y)) ** 2)
    assert D == pytest.approx(js["dual_objective"], rel=1e-9)
    assert js["lam"] == pytest.approx(1 / 270)
    assert set(js["margin_support"]) | set(js["bound_support"]) == set(js["support"])


def test_solve_both_forms_agree(capsys):
    code, out, _ = run_cli(capsys, "solve", HEART, "--lam", "0.01", "--form", "both",
                           "--intercept", "augmented")
    assert code == 0 and "primal vs dual form" in out


def test_hard_margin_not_separable_exit_1_with_certificate(tmp_path, capsys):
    target = tmp_path / "h.json"
    code, out, _ = run_cli(capsys, "solve", HEART, "--hard", "--json", str(target))
    assert code == 1 and "not separable" in out
    js = json.loads(target.read_text())
    assert js["separable"] is False
    z = np.array(js["certificate"]["z"])
    data = mm.load_heart_scale()
    X, y = data.X.toarray(), data.y
    # z is a point in both convex hulls: z >= 0, sums to 1, balanced, and sum z y x ~ 0
    assert z.min() >= 0 and z.sum() == pytest.approx(1)
    assert abs(z @ y) < 1e-8 and np.linalg.norm(X.T @ (z * y)) < 1e-7


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["solve", "/no/such/file"], "no such file"),
        (["solve", HEART, "--C", "-1"], "'C' parameter"),
        (["solve", HEART, "--C", "1", "--lam", "1"], "not allowed with"),
        (["solve", HEART, "--intercept", "bias"], "invalid choice"),
        (["solve", HEART, "--solver", "NOPE"], "NOPE"),
        (["run", HEART, "--learner", "foo"], "unknown learner 'foo'"),
        (["run", HEART, "--learner", "pegasos", "--epochs", "0"], "'epochs'"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(capsys, argv, msg):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert msg in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_data_file_exit_2(tmp_path, capsys):
    f = tmp_path / "bad.svm"
    f.write_text("+1 1:0.5\n-1 1:x\n")
    code, _, err = run_cli(capsys, "solve", str(f))
    assert code == 2 and "bad.svm:2:" in err


def test_run_writes_traces(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "run", HEART, "--learner", "perceptron,pegasos",
                           "--epochs", "2", "--lam", "0.01", "--out", str(tmp_path))
    assert code == 0 and "perceptron:" in out and "pegasos:" in out
    with np.load(tmp_path / "perceptron.npz", allow_pickle=False) as z:
        assert z["w"].shape[1] == 13 and z["t"][-1] == 540
        for key in ("t", "w", "b", "mistakes"):
            assert key in z.files
    meta = json.loads((tmp_path / "pegasos.json").read_text())
    assert meta["learner"] == "pegasos" and meta["seed"] == 0


def test_compare_writes_report(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "compare", HEART, "--lam", "0.01", "--learners",
                           "perceptron,pegasos", "--epochs", "3", "--out", str(tmp_path),
                           "--quiet")
    assert code == 0
    js = json.loads((tmp_path / "report.json").read_text())
    assert (tmp_path / "report.md").exists() and (tmp_path / "suboptimality.png").exists()
    assert js  # a non-empty report
    code, _, err = run_cli(capsys, "compare", HEART, "--learners", "", "--out", str(tmp_path))
    assert code == 2 and "at least one" in err


def test_compare_rejects_free_intercept_usage(capsys):
    code, _, err = run_cli(capsys, "compare", HEART, "--intercept", "free")
    assert code == 2 and "invalid choice" in err


def test_demo_end_to_end(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "demo", "--out", str(tmp_path / "demo"))
    assert code == 0 and "CERTIFIED" in out and "report.md" in out
    for name in ("report.md", "report.json", "suboptimality.png", "boundary.png",
                 "mistakes.png", "regret.png", "gaps.png"):
        assert (tmp_path / "demo" / name).stat().st_size > 0, name


def test_path_heart_scale(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "path", HEART, "--C-grid", "1e-2:1e2:5", "--out",
                           str(tmp_path), "--quiet")
    assert code == 0
    js = json.loads((tmp_path / "report.json").read_text())
    assert (tmp_path / "path_width.png").exists()
    assert js["certified"] and len(js["C"]) == 5
    # recompute every reported number of every point from w, b and the data with numpy
    data = mm.load_heart_scale()
    X, y = data.X.toarray(), data.y
    for k, C in enumerate(js["C"]):
        w, b = np.array(js["w"][k]), js["b"][k]
        xi = np.maximum(0, 1 - y * (X @ w + b))
        assert js["primal"][k] == pytest.approx(0.5 * w @ w + C * xi.sum(), rel=1e-9)
        assert js["slack_sum"][k] == pytest.approx(xi.sum(), rel=1e-9, abs=1e-9)
        assert js["norm_w"][k] == pytest.approx(np.linalg.norm(w), rel=1e-12)
        assert js["width"][k] == pytest.approx(2 / np.linalg.norm(w), rel=1e-12)
        assert js["train_error"][k] == pytest.approx(np.mean(np.sign(X @ w + b) != y))
        assert js["lam"][k] == pytest.approx(1 / (C * data.n))
    # and the point at C = 1 is the independent exact solve's
    k = js["C"].index(1.0)
    assert js["primal"][k] == pytest.approx(mm.solve(mm.SVMProblem(data, C=1.0)).primal_objective,
                                            rel=1e-9)


@pytest.mark.parametrize("grid, msg", [("", "grid"), ("1:0:5", ""), ("-1,2", "")])
def test_path_bad_grid_exit_2(tmp_path, capsys, grid, msg):
    code, _, err = run_cli(capsys, "path", HEART, "--C-grid", grid, "--out", str(tmp_path))
    assert code == 2 and msg in err and len(err.strip().splitlines()) == 1


def test_builtin_data_sets(tmp_path, capsys):
    # the built-in separable set has the exact hard margin 0.3 by construction
    target = tmp_path / "s.json"
    code, _, _ = run_cli(capsys, "solve", "builtin:separable", "--hard", "--json", str(target))
    js = json.loads(target.read_text())
    assert code == 0 and js["margin"] == pytest.approx(0.3, rel=1e-9)
    code, _, _ = run_cli(capsys, "path", "builtin:separable", "--C-grid", "1e-1:1e3:5",
                         "--out", str(tmp_path / "p"), "--quiet")
    assert code == 0
    last = json.loads((tmp_path / "p" / "report.json").read_text())
    assert 2 / last["width"][-1] == pytest.approx(1 / 0.3, rel=1e-8)  # ||w|| = 1/gamma
    code, _, err = run_cli(capsys, "solve", "builtin:nope")
    assert code == 2 and "heart_scale, separable, gaussians" in err
