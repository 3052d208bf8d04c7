"""The `maxmargin` command: outputs, JSON contract, exit codes."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

import maxmargin as mm
from maxmargin.cli import main
from maxmargin.cli.supervisor import EXIT_INTERNAL

HEART = str(mm.data.sources._PACKAGE_DATA / "heart_scale")


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_heart_scale_json_contract(tmp_path, capsys):
    target = tmp_path / "sol.json"
    code, out, _ = run_cli(capsys, "solve", HEART, "--C", "1", "--json", str(target))
    assert code == 0 and "CERTIFIED" in out
    js = json.loads(target.read_text())
    for key in (
        "w",
        "b",
        "alpha",
        "support",
        "margin_support",
        "bound_support",
        "primal_objective",
        "dual_objective",
        "duality_gap",
        "kkt",
        "margin",
        "status",
        "solver",
        "form",
        "intercept",
        "C",
        "lam",
        "solve_seconds",
    ):
        assert key in js, key
    # recompute the primal objective from the data with plain numpy
    data = mm.load("builtin:heart_scale")
    X, y = data.X.toarray(), data.y
    w, b = np.array(js["w"]), js["b"]
    P = 0.5 * w @ w + 1.0 * np.maximum(0, 1 - y * (X @ w + b)).sum()
    assert P == pytest.approx(js["primal_objective"], rel=1e-9)
    alpha = np.zeros(js["alpha"]["n"])  # by its non-zero entries
    alpha[js["alpha"]["index"]] = js["alpha"]["value"]
    D = alpha.sum() - 0.5 * np.sum((X.T @ (alpha * y)) ** 2)
    assert D == pytest.approx(js["dual_objective"], rel=1e-9)
    assert js["lam"] == pytest.approx(1 / 270)
    assert set(js["margin_support"]) | set(js["bound_support"]) == set(js["support"])


def test_solve_both_forms_agree(capsys):
    code, out, _ = run_cli(
        capsys, "solve", HEART, "--lam", "0.01", "--form", "both", "--intercept", "augmented"
    )
    assert code == 0 and "primal vs dual form" in out


def test_hard_margin_not_separable_exit_1_with_certificate(tmp_path, capsys):
    target = tmp_path / "h.json"
    code, out, _ = run_cli(capsys, "solve", HEART, "--hard", "--json", str(target))
    assert code == 1 and "not separable" in out
    js = json.loads(target.read_text())
    assert js["separable"] is False
    z = np.array(js["certificate"]["z"])
    data = mm.load("builtin:heart_scale")
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
    code, out, _ = run_cli(
        capsys,
        "run",
        HEART,
        "--learner",
        "perceptron,pegasos",
        "--epochs",
        "2",
        "--lam",
        "0.01",
        "--out",
        str(tmp_path),
    )
    assert code == 0 and "perceptron:" in out and "pegasos:" in out
    with np.load(tmp_path / "perceptron.npz", allow_pickle=False) as z:
        assert z["w"].shape[1] == 13 and z["t"][-1] == 540
        for key in ("t", "w", "b", "mistakes"):
            assert key in z.files
    meta = json.loads((tmp_path / "pegasos.json").read_text())
    assert meta["learner"] == "pegasos" and meta["seed"] == 0


def test_compare_writes_report(tmp_path, capsys):
    code, out, _ = run_cli(
        capsys,
        "compare",
        HEART,
        "--lam",
        "0.01",
        "--learners",
        "perceptron,pegasos",
        "--epochs",
        "3",
        "--out",
        str(tmp_path),
        "--quiet",
    )
    assert code == 0
    js = json.loads((tmp_path / "report.json").read_text())
    assert (tmp_path / "report.md").exists() and (tmp_path / "suboptimality.png").exists()
    assert js  # a non-empty report
    code, _, err = run_cli(capsys, "compare", HEART, "--learners", "", "--out", str(tmp_path))
    assert code == 2 and "at least one" in err


def test_compare_scores_a_free_intercept_and_says_so(capsys):
    code, out, _ = run_cli(
        capsys,
        "compare",
        HEART,
        "--intercept",
        "free",
        "--learners",
        "perceptron,subgradient",
        "--epochs",
        "2",
        "--json",
        "-",
        "-q",
    )
    js = json.loads(out)
    ref = js["references"][0]
    assert code == 0 and ref["intercept"] == "free"
    assert "intercept free (b unregularised)" in ref["scored_against"]
    assert all(row["scored_against"] == ref["scored_against"] for row in js["summary"])


_NONE_ONLY = """
import numpy as np

class NoBias:
    mistake_driven = True
    supported_intercepts = ("none",)

    def start(self, d):
        self.w = np.zeros(d)

    def step(self, x, y, t):
        if y * (self.w @ x) <= 0:
            self.w += y * x

    def weights(self):
        return self.w
"""


def test_compare_learners_without_the_default_intercept_need_no_option(tmp_path, capsys):
    """Winnow and a learner of one's own supporting only none, beside Pegasos (free)."""
    (tmp_path / "nobias.py").write_text(_NONE_ONLY)
    X = np.random.default_rng(4).integers(0, 2, size=(40, 5))  # Winnow's features: 0 or 1
    y = np.where(X[:, :3].sum(axis=1) >= 2, 1, -1)
    np.savetxt(tmp_path / "bits.csv", np.column_stack([X, y]), fmt="%d", delimiter=",")
    learners = f"pegasos,winnow,{tmp_path / 'nobias.py'}:NoBias"
    data = str(tmp_path / "bits.csv")
    argv = ("compare", data, "--learners", learners, "--epochs", "2", "--lam", "0.01")
    code, out, err = run_cli(capsys, *argv, "--out", str(tmp_path / "r"))
    assert code == 0, err
    # the output says both problems, and which each row is scored against
    assert "## Reference, intercept `free` (certified)" in out
    assert "## Reference, intercept `none` (certified)" in out
    assert "| pegasos | shuffle | intercept free |" in out
    assert "| winnow | shuffle | intercept none |" in out
    assert "| NoBias | shuffle | intercept none |" in out
    js = json.loads((tmp_path / "r" / "report.json").read_text())
    assert [r["intercept"] for r in js["references"]] == ["free", "none"]
    assert [row["intercept"] for row in js["summary"]] == ["free", "none", "none"]
    rows = (tmp_path / "r" / "checkpoints.csv").read_text().splitlines()
    assert rows[0].startswith("label,learner,order,seed,intercept,kind,t,")
    assert {line.split(",")[4] for line in rows[1:]} == {"free", "none"}


def test_demo_end_to_end(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "demo", "--out", str(tmp_path / "demo"))
    assert code == 0 and "CERTIFIED" in out and "report.md" in out
    for name in (
        "report.md",
        "report.json",
        "suboptimality.png",
        "boundary.png",
        "mistakes.png",
        "regret.png",
        "gaps.png",
    ):
        assert (tmp_path / "demo" / name).stat().st_size > 0, name


def test_path_heart_scale(tmp_path, capsys):
    code, out, _ = run_cli(
        capsys, "path", HEART, "--C-grid", "1e-2:1e2:5", "--out", str(tmp_path), "--quiet"
    )
    assert code == 0
    js = json.loads((tmp_path / "report.json").read_text())
    assert (tmp_path / "path_width.png").exists()
    assert js["certified"] and len(js["C"]) == 5
    # recompute every reported number of every point from w, b and the data with numpy
    data = mm.load("builtin:heart_scale")
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
    assert js["primal"][k] == pytest.approx(
        mm.solve(mm.SVMProblem(data, C=1.0)).primal_objective, rel=1e-9
    )


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
    code, _, _ = run_cli(
        capsys,
        "path",
        "builtin:separable",
        "--C-grid",
        "1e-1:1e3:5",
        "--out",
        str(tmp_path / "p"),
        "--quiet",
    )
    assert code == 0
    last = json.loads((tmp_path / "p" / "report.json").read_text())
    assert 2 / last["width"][-1] == pytest.approx(1 / 0.3, rel=1e-8)  # ||w|| = 1/gamma
    code, _, err = run_cli(capsys, "solve", "builtin:nope")
    assert code == 2 and "heart_scale, separable, gaussians" in err


# --------------------------------------------------------------------------- input / output
# DATA from stdin, --json -, -q/-v, --help (defaults, examples), usage errors.


class _Stdin:
    """A piped standard input holding ``data``."""

    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)
        self.closed = False

    def isatty(self) -> bool:
        return False


def test_data_from_stdin_gzip_and_csv(tmp_path, capsys, monkeypatch):
    import gzip

    ref = mm.solve(mm.SVMProblem(mm.load("builtin:heart_scale"), C=1.0)).primal_objective
    raw = (mm.data.sources._PACKAGE_DATA / "heart_scale").read_bytes()
    monkeypatch.setattr("sys.stdin", _Stdin(gzip.compress(raw)))
    code, out, _ = run_cli(capsys, "solve", "-", "--json", "-")
    js = json.loads(out)  # nothing but the JSON on stdout
    assert code == 0 and js["primal_objective"] == pytest.approx(ref, rel=1e-9)
    data = mm.load("builtin:heart_scale")
    rows = ["f1,f2,y"] + [
        f"{a},{b},{'pos' if t > 0 else 'neg'}"
        for (a, b), t in zip(data.dense()[:, :2], data.y, strict=True)
    ]
    monkeypatch.setattr("sys.stdin", _Stdin("\n".join(rows).encode()))
    code, out, _ = run_cli(capsys, "solve", "-", "--label", "y", "--json", "-")
    js = json.loads(out)
    assert code == 0 and js["feature_names"] == ["f1", "f2"] and js["d"] == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "builtin:separable", "--learners", "pegasos", "--epochs", "2", "--lam", "0.1"],
        ["path", "builtin:separable", "--C-grid", "0.1,1"],
        ["path", "builtin:separable", "--C-grid", "0.1:1:2", "--exact"],
    ],
)
def test_json_to_stdout_and_no_report_folder(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(capsys, *argv, "--json", "-")
    js = json.loads(out)

    def n(js):  # a comparison/2 holds n in its reference's solution
        return (js["references"][0]["solution"] if argv[0] == "compare" else js)["n"]

    assert code == 0 and n(js) == 200 and list(tmp_path.iterdir()) == []
    # --json FILE with --out: both written, the same JSON
    code, out, _ = run_cli(capsys, *argv, "--json", "r.json", "--out", "rep", "--quiet")
    assert code == 0 and out == ""
    file_js = json.loads((tmp_path / "r.json").read_text())
    dir_js = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert file_js.keys() == dir_js.keys() and n(file_js) == n(dir_js) == 200


def _subparsers():
    from maxmargin.cli.main import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if a.choices and "solve" in a.choices)
    return parser, action.choices


def test_help_of_every_command_shows_defaults_and_an_example(capsys):
    import shlex

    parser, subs = _subparsers()
    for name, sub in subs.items():
        fmt = sub._get_formatter()
        for action in sub._actions:
            if not action.option_strings or action.dest == "help":
                continue
            text = fmt._get_help_string(action)
            assert action.help, (name, action.dest)
            flag = action.nargs == 0
            assert flag or action.required or "default" in text, (name, action.dest, text)
        help_text = sub.format_help()
        assert "example:\n  maxmargin " + name in help_text, name
        examples = help_text.split("example:\n", 1)[1].strip().splitlines()
        for line in examples:
            argv = shlex.split(line.split(" > ")[0].split("| ")[-1])[1:]
            parsed = parser.parse_args(argv)  # every example parses
            assert parsed.command == name
        assert "-q, --quiet" in help_text and "-v, --verbose" in help_text
        flat = " ".join(help_text.split())
        intercept = sub.get_default("intercept")
        assert intercept is None or f"(default: {intercept}" in flat, name


@pytest.mark.parametrize(
    "argv, prog",
    [
        (["solve", HEART, "--C", "x"], "maxmargin solve"),
        (["path", HEART, "--C-grid", "1", "--lam-grid", "1"], "maxmargin path"),
        (["run", HEART], "maxmargin run"),
        (["compare", HEART, "-q", "-v"], "maxmargin compare"),
        (["frobnicate"], "maxmargin"),
        (["path", HEART, "--bogus"], "maxmargin path"),  # unknown options: the command's help
        (["solve", HEART, "extra", "--C", "1"], "maxmargin solve"),
    ],
)
def test_usage_errors_name_the_commands_help(capsys, argv, prog):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith(f"{prog}: error: ") and err.strip().endswith(f"see '{prog} --help'")


def test_quiet_and_verbose_on_every_command():
    parser, subs = _subparsers()
    for name, sub in subs.items():
        opts = {s for a in sub._actions for s in a.option_strings}
        assert {"-q", "--quiet", "-v", "--verbose"} <= opts, name


def test_verbose_shows_decisions_and_solver_log_on_stderr_only(tmp_path, capfd):
    pytest.importorskip("piqp")
    code = main(["solve", HEART, "--solver", "PIQP", "-v", "--json", "-"])
    out, err = capfd.readouterr()
    assert code == 0 and json.loads(out)["solver"] == "PIQP"
    assert "heart_scale: read as LIBSVM, 270 rows x 13 features, 1-based indices" in err
    assert "PIQP (direct), dual form" in err
    assert "iter" in err and "prim_obj" in err  # PIQP's own table, moved to stderr
    code = main(["solve", HEART, "--solver", "PIQP", "--json", "-"])  # and silent without -v
    out, err = capfd.readouterr()
    assert code == 0 and err == "" and json.loads(out)["solver"] == "PIQP"


def test_holdout_is_read_with_the_index_base_of_data(tmp_path, capsys):
    from maxmargin.cli.main import build_parser
    from maxmargin.cli.options import _load_data

    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    train.write_text("1 0:1 1:2\n-1 1:1 2:3\n")  # 0-based (an index 0)
    test.write_text("1 1:2\n-1 2:5\n")  # no index 0: alone, "auto" would read it 1-based
    args = build_parser().parse_args(["compare", str(train), "--holdout", str(test)])
    data = _load_data(args)
    holdout = _load_data(args, args.holdout, like=data)
    assert holdout.X.toarray().tolist() == [[0, 2, 0], [0, 0, 5]] and holdout.d == data.d
    assert mm.load(test).d == 2  # what reading it on its own gives
    code, _, err = run_cli(capsys, "compare", "-", "--holdout", "-", "--out", str(tmp_path / "o"))
    assert code == 2 and "both read standard input" in err


# --------------------------------------------------------------------------- interop
# --csv, the report's CSV tables, --liblinear-model, and an internal error in the child.


def _untimed(text):
    """A grid CSV without its last column (``seconds``: the wall time of each point)."""
    return [line.rsplit(",", 1)[0] for line in text.splitlines()]


def test_path_csv_and_the_reports_grid_csv(tmp_path, capsys):
    js, table = tmp_path / "p.json", tmp_path / "p.csv"
    code, out, _ = run_cli(
        capsys,
        "path",
        HEART,
        "--C-grid",
        "1e-2:1:3",
        "--json",
        str(js),
        "--csv",
        str(table),
        "--quiet",
    )
    assert code == 0 and out == ""
    assert not (tmp_path / "maxmargin-path").exists()  # --csv replaces the default folder
    assert table.read_text() == mm.RegularizationPath.from_json(js).to_csv()
    rows = table.read_text().splitlines()
    assert len(rows) == 4 and rows[0].startswith("C,lam,b,w[0],")
    code, out, _ = run_cli(capsys, "path", HEART, "--C-grid", "1e-2:1:3", "--csv", "-")
    assert code == 0 and _untimed(out) == _untimed(table.read_text())  # nothing else
    code, _, _ = run_cli(
        capsys, "path", HEART, "--C-grid", "1e-2:1:3", "--out", str(tmp_path / "rep"), "--quiet"
    )
    assert _untimed((tmp_path / "rep" / "grid.csv").read_text()) == _untimed(table.read_text())
    code, out, _ = run_cli(capsys, "path", "builtin:separable", "--exact", "--csv", "-")
    assert code == 0 and out.startswith("k,C,lam,index,from,to,method,certified")
    code, js_out, _ = run_cli(capsys, "path", "builtin:separable", "--exact", "--json", "-")
    saved = mm.ExactPath.from_json(json.loads(js_out))  # --json - is the document alone
    assert code == 0 and saved.to_csv() == out and type(saved) is mm.ExactPath


def test_compare_csv_and_the_reports_checkpoints_csv(tmp_path, capsys):
    argv = [
        "compare",
        HEART,
        "--lam",
        "0.01",
        "--learners",
        "perceptron,pegasos",
        "--epochs",
        "2",
        "--seeds",
        "2",
    ]
    code, out, _ = run_cli(capsys, *argv, "--csv", "-", "--out", str(tmp_path / "rep"))
    assert code == 0
    saved = mm.Comparison.from_json(tmp_path / "rep" / "report.json")
    assert out == saved.to_csv() == (tmp_path / "rep" / "checkpoints.csv").read_text()
    assert out.count("\npegasos,") == 2 * len(saved.runs[0].t)
    code, _, err = run_cli(capsys, *argv, "--csv", "-", "--json", "-")
    assert code == 2 and "both write to stdout" in err and len(err.splitlines()) == 1


def test_solve_writes_a_liblinear_model(tmp_path, capsys):
    from maxmargin.liblinear_model import liblinear_model_text

    model = tmp_path / "heart.model"
    code, out, _ = run_cli(
        capsys,
        "solve",
        HEART,
        "--C",
        "0.5",
        "--intercept",
        "augmented",
        "--liblinear-model",
        str(model),
        "--json",
        str(tmp_path / "s.json"),
    )
    assert code == 0 and "LIBLINEAR model" in out
    sol = mm.ExactSolution.from_json(tmp_path / "s.json", mm.load("builtin:heart_scale"))
    assert model.read_text() == liblinear_model_text(sol)
    lines = model.read_text().splitlines()
    assert lines[:5] == [
        "solver_type L2R_L1LOSS_SVC_DUAL",
        "nr_class 2",
        "label 1 -1",
        "nr_feature 13",
        "bias 1",
    ]
    # LIBLINEAR's predict from the file: sign(w.x + w_14 * bias) gives the solution's labels
    w = np.array([float(v) for v in lines[6:]])
    X = mm.load("builtin:heart_scale").dense()
    assert np.array_equal(np.where(X @ w[:13] + w[13] > 0, 1.0, -1.0), sol.predict(X))


def test_liblinear_model_refused_before_solving(tmp_path, capsys, monkeypatch):
    import maxmargin.exact

    def never(*a, **k):
        raise AssertionError("solved before checking --liblinear-model")

    monkeypatch.setattr(maxmargin.exact, "solve", never)
    f = tmp_path / "d.csv"
    f.write_text("x,y\n0,no\n1,yes\n2,yes\n")
    for args, msg in [
        (
            (str(f), "--liblinear-model", str(tmp_path / "m")),
            "LIBLINEAR labels are integers; the data's labels are 'yes' (+1)",
        ),
        ((HEART, "--liblinear-model", str(tmp_path / "no" / "m")), "does not exist"),
        ((HEART, "--liblinear-model", "-"), "needs a file name"),
    ]:
        code, _, err = run_cli(capsys, "solve", *args)
        assert code == 2 and msg in err and len(err.strip().splitlines()) == 1, err
    assert list(tmp_path.iterdir()) == [f]


def test_not_separable_document_has_a_format(tmp_path, capsys):
    target = tmp_path / "h.json"
    run_cli(capsys, "solve", HEART, "--hard", "--json", str(target))
    js = json.loads(target.read_text())
    assert js["format"] == "maxmargin.not_separable/1" and not js["separable"]
    with pytest.raises(mm.DataError, match="not_separable document .*not a solution"):
        mm.ExactSolution.from_json(target)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="the child needs fork")
@pytest.mark.parametrize("verbose", [False, True])
def test_internal_error_in_the_child_is_one_line(verbose):
    import subprocess
    import sys

    argv = ["maxmargin", "solve", "builtin:separable", *(["-v"] if verbose else [])]
    script = (
        "import sys, maxmargin.cli as cli, maxmargin.cli.solve as solve\n"
        "def boom(args):\n"
        "    raise KeyError('no such\\nthing')\n"
        "solve.run = boom\n"
        f"sys.argv = {argv!r}\n"
        "cli.main()\n"
    )
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert p.returncode == EXIT_INTERNAL == 70 and p.stdout == ""
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "maxmargin: internal error: KeyError: 'no such\\nthing' (please report it"
    )
    if verbose:
        assert "Traceback (most recent call last)" in p.stderr and "in boom" in p.stderr
    else:
        assert p.stderr.strip() == last and "-v shows the traceback" in last


def test_internal_error_in_process_is_one_line_and_its_own_code(capsys, monkeypatch):
    import maxmargin.cli.path as cli_path

    def boom(args):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(cli_path, "run", boom)
    code, out, err = run_cli(capsys, "path", "builtin:separable")
    assert code == EXIT_INTERNAL and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("maxmargin: internal error: ZeroDivisionError: float division")
    code, _, err = run_cli(capsys, "path", "builtin:separable", "-v")
    assert code == EXIT_INTERNAL and "Traceback" in err and "in boom" in err


# ------------------------------------------------- learners of your own, saved traces

MY_LEARNERS = """
import numpy as np


class MyPegasos:
    objective = "lambda"
    problem_parameter = "lam"
    theory_rate = -1.0

    def __init__(self, lam=1e-4):
        self.lam = lam

    def start(self, d):
        self.theta, self.w = np.zeros(d), np.zeros(d)

    def step(self, x, y, t):
        if y * (self.w @ x) < 1:
            self.theta += y * x
        self.w = self.theta / (self.lam * (t + 1))

    def weights(self):
        return self.w
"""


@pytest.fixture
def learner_file(tmp_path):
    f = tmp_path / "my_learners.py"
    f.write_text(MY_LEARNERS)
    return f


def test_learner_of_your_own_on_run_compare_and_path(tmp_path, capsys, learner_file, monkeypatch):
    target = f"{learner_file}:MyPegasos"
    code, out, _ = run_cli(
        capsys,
        "run",
        HEART,
        "--learner",
        f"pegasos,{target}",
        "--lam",
        "0.01",
        "--intercept",
        "augmented",
        "--epochs",
        "2",
        "--out",
        str(tmp_path / "runs"),
    )
    assert code == 0 and "MyPegasos:" in out
    with (
        np.load(tmp_path / "runs" / "pegasos.npz") as a,
        np.load(tmp_path / "runs" / "MyPegasos.npz") as b,
    ):
        assert np.abs(a["w"] - b["w"]).max() <= 1e-12 and np.abs(a["b"] - b["b"]).max() <= 1e-12
    monkeypatch.syspath_prepend(str(tmp_path))  # the importable module:Class form
    code, out, _ = run_cli(
        capsys,
        "compare",
        HEART,
        "--lam",
        "0.01",
        "--learners",
        "pegasos,my_learners:MyPegasos",
        "--intercept",
        "augmented",  # MyPegasos keeps no free bias
        "--epochs",
        "2",
        "--json",
        "-",
        "-q",
    )
    rows = json.loads(out)["summary"]
    assert code == 0 and [r["label"] for r in rows] == ["pegasos", "MyPegasos"]
    assert rows[1]["subopt"] == pytest.approx(rows[0]["subopt"], rel=1e-9)
    assert rows[1]["theory_slope"] == -1.0
    code, out, err = run_cli(
        capsys,
        "path",
        HEART,
        "--C-grid",
        "1e-1:1e1:3",
        "--learners",
        target,
        "--intercept",
        "free",
        "--epochs",
        "1",
        "--json",
        "-",
    )
    assert code == 2 and "MyPegasos supports intercept 'none' or 'augmented', not 'free'" in err
    assert not out  # refused before the path is computed
    studies = []
    for learners in (target, "pegasos"):  # the same seeds: the same runs
        code, out, _ = run_cli(
            capsys,
            "path",
            HEART,
            "--C-grid",
            "1e-1:1e1:3",
            "--learners",
            learners,
            "--intercept",
            "augmented",
            "--epochs",
            "1",
            "--json",
            "-",
            "-q",
            "--jobs",
            "1",
        )
        assert code == 0
        studies.append(json.loads(out)["learners"])
    assert studies[0]["learners"] == ["MyPegasos"]
    assert "intercept augmented" in studies[0]["scored_against"]
    np.testing.assert_allclose(
        studies[0]["rel_subopt"]["MyPegasos"], studies[1]["rel_subopt"]["pegasos"], rtol=1e-9
    )


def test_compare_scores_saved_traces(tmp_path, capsys):
    code, _, _ = run_cli(
        capsys,
        "run",
        HEART,
        "--learner",
        "pegasos",
        "--lam",
        "0.01",
        "--intercept",
        "augmented",
        "--epochs",
        "2",
        "--out",
        str(tmp_path / "runs"),
        "-q",
    )
    saved = tmp_path / "runs" / "pegasos.npz"
    with np.load(saved) as z:
        np.savez(tmp_path / "plain.npz", t=z["t"], W=z["w"], b=z["b"])
        np.savez(tmp_path / "flipped.npz", t=z["t"], W=z["w"].T, b=z["b"])
    code, out, _ = run_cli(
        capsys,
        "compare",
        HEART,
        "--lam",
        "0.01",
        "--intercept",
        "augmented",  # the run's
        "--learners",
        "pegasos",
        "--epochs",
        "2",
        "--trace",
        str(saved),
        "--trace",
        str(tmp_path / "plain.npz"),
        "--json",
        "-",
        "-q",
    )
    js = json.loads(out)
    rows = {r["label"]: r for r in js["summary"]}
    assert code == 0 and set(rows) == {"pegasos", "pegasos-2", "plain"}
    # the run's own file is scored as its learner declared: the same numbers as the run
    for key in ("subopt", "subopt_avg", "regret", "regret_bound_respected", "mistakes"):
        assert rows["pegasos-2"][key] == pytest.approx(rows["pegasos"][key], rel=1e-12), key
    saved_run = next(r for r in js["runs"] if r["label"] == "pegasos-2")
    assert rows["pegasos-2"]["dual_gap"] is None  # run --out does not record dual points
    assert "did not record" in saved_run["not_available"]["dual_gap"]
    # plain weights: the same suboptimality, recomputed with numpy; no regret, and why
    data = mm.load("builtin:heart_scale")
    X, y, lam = data.X.toarray(), data.y, 0.01
    ref = mm.solve(mm.SVMProblem(data, lam=lam, intercept="augmented"))
    with np.load(tmp_path / "plain.npz") as z:
        w, b = z["W"][-1], z["b"][-1]

    def F(w, b):
        return lam / 2 * (w @ w + b * b) + np.maximum(0, 1 - y * (X @ w + b)).mean()

    assert rows["plain"]["subopt"] == pytest.approx(F(w, b) - F(ref.w, ref.b), rel=1e-7)
    assert rows["plain"]["regret"] is None
    plain = next(r for r in js["runs"] if r["label"] == "plain")
    assert "Trace.from_weights" in plain["not_available"]["regret"]
    code, _, err = run_cli(
        capsys, "compare", HEART, "--lam", "0.01", "--trace", str(tmp_path / "flipped.npz")
    )
    assert code == 2 and "transposed" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["run", HEART, "--learner", "/no/such/file.py:X"], "cannot read"),
        (["run", HEART, "--learner", "maxmargin:NoSuchLearner"], "has no 'NoSuchLearner'"),
        (["run", HEART, "--learner", "json:JSONDecoder"], "neither"),
        (["run", HEART, "--learner", "no_such_module_xyz:A"], "cannot import module"),
        (
            ["compare", HEART, "--learners", "pegasos", "--learner-param", "bogus=1"],
            "no learner given takes 'bogus'",
        ),
        (["path", HEART, "--learners", "perceptron"], "no lambda or C"),
        (["compare", HEART, "--trace", "/no/such/trace.npz"], "no such file"),
        (["compare", HEART, "--trace", HEART], "give a .npz file"),
    ],
)
def test_bad_learners_and_traces_exit_2(capsys, argv, msg):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert msg in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_learner_files_and_trace_files_exit_2(tmp_path, capsys):
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('half written')\n")
    code, _, err = run_cli(capsys, "run", HEART, "--learner", f"{broken}:X")
    assert code == 2 and "importing" in err and "half written" in err
    np.savez(tmp_path / "no_w.npz", t=np.arange(1, 4))
    code, _, err = run_cli(capsys, "compare", HEART, "--trace", str(tmp_path / "no_w.npz"))
    assert code == 2 and "lacks W" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    code, _, err = run_cli(capsys, "compare", HEART, "--trace", str(tmp_path / "junk.npz"))
    assert code == 2 and "not a readable .npz" in err


def test_trace_given_a_report_json_says_what_is_expected(tmp_path, capsys):
    report = tmp_path / "report.json"
    report.write_text("{}")
    code, _, err = run_cli(capsys, "compare", HEART, "--trace", str(report))
    assert code == 2 and "no such file" not in err and "report.npz does not exist" in err
    assert "trajectory .npz" in err and len(err.strip().splitlines()) == 1


def test_animate_into_a_directory_suggests_a_gif(tmp_path, capsys):
    code, _, err = run_cli(
        capsys, "run", HEART, "--learner", "perceptron", "--animate", str(tmp_path)
    )
    assert code == 2 and "animation.gif" in err and "result.json" not in err


def test_verbose_label_column_is_0_based(tmp_path, capsys, caplog):
    import logging

    from maxmargin.data import load_csv

    csv = tmp_path / "d.csv"
    csv.write_text("1,2,1\n2,1,-1\n3,3,1\n0,1,-1\n")
    with caplog.at_level(logging.DEBUG, logger="maxmargin"):
        load_csv(str(csv))
    assert "label column 2 (0-based)" in caplog.text


@pytest.mark.parametrize(
    "command", [["run"], ["compare", "--lam", "0.01", "--intercept", "augmented"]]
)
def test_a_learners_own_bug_is_one_line_exit_2(tmp_path, capsys, command):
    mine = tmp_path / "ml.py"
    mine.write_text(
        "import numpy as np\n"
        "class MyPegasos:\n"
        "    def start(self, d): self.w = np.zeros(d)\n"
        "    def step(self, x, y, t):\n"
        "        if t == 17: raise ValueError('my bug')\n"
        "    def weights(self): return self.w\n"
    )
    flag = "--learner" if command[0] == "run" else "--learners"
    code, _, err = run_cli(
        capsys,
        command[0],
        HEART,
        *command[1:],
        flag,
        f"{mine}:MyPegasos",
        "--out",
        str(tmp_path / "o"),
    )
    assert code == 2 and "internal error" not in err and len(err.strip().splitlines()) == 1
    assert "learner 'MyPegasos' raised ValueError in step() at step 17: my bug" in err


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["--learner", "subgradient", "--C", "1e-6"], "--C applies to none of the learners given"),
        (["--learner", "perceptron", "--lam", "0.5"], "it is for pegasos, subgradient"),
    ],
)
def test_run_refuses_options_no_learner_takes(capsys, argv, msg):
    code, out, err = run_cli(capsys, "run", HEART, *argv)
    assert code == 2 and msg in err and len(err.strip().splitlines()) == 1 and out == ""


def test_run_options_go_to_the_learners_that_take_them(capsys):
    code, out, _ = run_cli(
        capsys,
        "run",
        HEART,
        "--learner",
        "pegasos,pa1",
        "--lam",
        "0.01",
        "--C",
        "2",
        "--epochs",
        "1",
    )
    assert code == 0 and "pegasos" in out and "pa1" in out


CLOSER = """
import os
import numpy as np
from maxmargin.online import Learner

class Closer(Learner):
    def start(self, d):
        self.w = np.zeros(d)
    def step(self, x, y, t):
        os.close(1)
        os.close(2)
        raise ValueError("after closing")
    def weights(self):
        return self.w
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="the child needs fork")
def test_a_learner_that_closes_stdout_and_stderr_still_gets_its_line(tmp_path):
    import subprocess
    import sys

    f = tmp_path / "closer.py"
    f.write_text(CLOSER)
    argv = ["maxmargin", "run", HEART, "--learner", f"{f}:Closer", "--epochs", "1"]
    script = f"import sys, maxmargin.cli as cli\nsys.argv = {argv!r}\ncli.main()\n"
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == "", (p.returncode, p.stderr)
    assert p.stderr.strip() == (
        "maxmargin: error: learner 'Closer' raised ValueError in step() at step 1: "
        "after closing (-v shows the traceback)"
    )


#: The installed command, run as the console script does, with ``SIG`` sent to itself as
#: Python is about to import numpy: a SIGTERM while the command starts up.
STARTUP_STOP = """\
import os, runpy, signal, sys

class Stop:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), getattr(signal, SIG))
        return None

sys.meta_path.insert(0, Stop())
sys.argv = [EXE, "solve", "builtin:separable"]
runpy.run_path(EXE, run_name="__main__")
"""


@pytest.mark.parametrize("sig, code", [("SIGTERM", 143), ("SIGHUP", 129)])
def test_sigterm_while_the_command_imports_is_one_line(sig, code):
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    exe = shutil.which("maxmargin", path=str(Path(sys.executable).parent))
    if exe is None or not hasattr(__import__("signal"), sig):
        pytest.skip("needs the installed maxmargin command and the signal")
    script = f"SIG, EXE = {sig!r}, {exe!r}\n" + STARTUP_STOP
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert (p.returncode, p.stdout, p.stderr) == (code, "", f"maxmargin: stopped by {sig}\n")


STUDY_TOML = """name = "tiny"
[problem]
C = [1.0]
[run]
epochs = 2
seeds = 1
[[data]]
generator = "separable"
params = {n = 20, d = 2}
[[learners]]
name = "pegasos"
"""


def _no_figures_help(command):
    from maxmargin.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command" or a.choices)
    parser = sub.choices[command]
    return next(a.help for a in parser._actions if "--no-figures" in a.option_strings)


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "builtin:separable", "--learners", "pegasos,perceptron", "--epochs", "2"],
        ["path", "builtin:separable", "--C-grid", "1e-1:1e1:3", "--learners", "pegasos"],
        ["path", "builtin:separable", "--exact"],
        ["study", "{spec}", "--jobs", "1"],
        ["demo"],
    ],
    ids=["compare", "path", "exact path", "study", "demo"],
)
def test_no_figures_help_says_what_is_drawn_and_what_is_written(tmp_path, capsys, argv):
    """Each file ``--no-figures`` promises is written, and each figure it skips is named."""
    pytest.importorskip("matplotlib")
    if argv[0] == "study":
        pytest.importorskip("pyarrow")
        (tmp_path / "s.toml").write_text(STUDY_TOML)
    argv = [a.replace("{spec}", str(tmp_path / "s.toml")) for a in argv]
    said = _no_figures_help(argv[0])
    promised = set(re.findall(r"[\w.-]+\.(?:md|json|csv|parquet)\b|\w+/(?=[,)])", said))
    if "--exact" not in argv:  # breakpoints.csv: the exact path's table only
        promised.discard("breakpoints.csv")
    else:
        promised.discard("grid.csv")
    for figures, out in ((False, tmp_path / "bare"), (True, tmp_path / "drawn")):
        flags = [] if figures else ["--no-figures"]
        code, _, err = run_cli(capsys, *argv, "--out", str(out), "-q", *flags)
        assert code == 0, err
        written = {p.relative_to(out) for p in out.rglob("*")}
        pictures = {p for p in written if p.suffix in (".png", ".svg")}
        if not figures:
            assert promised and not pictures
            assert all(Path(name) in written for name in promised), (promised, written)
        else:  # every figure drawn is named in the help (a data set's name as DATA)
            assert pictures
            for p in pictures:
                stem = re.sub(r"^figures/[^/]*-", "figures/DATA-", str(p.with_suffix("")))
                assert stem in said or p.stem in said, (p, said)
