"""``maxmargin solve --kernel``: the kernel SVM on the command line.

The numbers against scikit-learn's ``SVC`` at a tight tolerance (its dual objective,
recomputed here from a Gram written out from the formula), the exit codes, and each
refusal (one line, exit 2, before any solving).
"""

import json

import numpy as np
import pytest

import maxmargin as mm
from maxmargin.cli import main

HEART = str(mm.data.sources._PACKAGE_DATA / "heart_scale")


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _printed(out, label):
    """The number printed after ``label`` in the summary."""
    line = next(li for li in out.splitlines() if li.strip().startswith(label))
    return float(line.split()[len(label.split())])


@pytest.fixture(scope="module")
def svc_rbf():
    """SVC(tol=1e-10) on heart_scale, RBF, gamma 'scale', C = 2: (dual objective, gamma)."""
    from sklearn.svm import SVC

    data = mm.load("builtin:heart_scale")
    X, y = data.X.toarray(), data.y
    gamma = 1.0 / (X.shape[1] * X.var())  # SVC's 'scale'
    clf = SVC(kernel="rbf", C=2.0, gamma=gamma, tol=1e-10).fit(X, y)
    c = np.zeros(len(y))
    c[clf.support_] = clf.dual_coef_[0]  # alpha_i y_i
    sq = (X * X).sum(1)
    K = np.exp(-gamma * np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0))
    dual = np.abs(c).sum() - 0.5 * c @ K @ c
    return dual, gamma, clf


def test_rbf_heart_scale_against_svc(tmp_path, capsys, svc_rbf):
    dual, gamma, clf = svc_rbf
    target = tmp_path / "k.json"
    code, out, err = run_cli(
        capsys, "solve", HEART, "--kernel", "rbf", "--C", "2", "--json", str(target)
    )
    assert code == 0, err
    assert "CERTIFIED OPTIMAL" in out and "rbf kernel" in out
    # the printed numbers (15 digits) and the document's
    assert _printed(out, "primal objective") == pytest.approx(dual, rel=1e-8)
    assert _printed(out, "dual objective") == pytest.approx(dual, rel=1e-8)
    js = json.loads(target.read_text())
    assert js["format"] == "maxmargin.kernel_solution/1"
    assert js["kernel"] == {"name": "rbf", "gamma": pytest.approx(gamma), "degree": None,
                            "coef0": None}  # fmt: skip
    assert js["dual_objective"] == pytest.approx(dual, rel=1e-8)
    assert js["primal_objective"] == pytest.approx(dual, rel=1e-8)
    assert js["certificate"]["certified"] is True and js["status"] == "optimal"
    # alpha sparse: its entries on the support, the same support vectors as SVC's
    a = js["alpha"]
    assert a["n"] == 270 and a["index"] == js["support"]
    assert set(js["support"]) == set(clf.support_.tolist())
    assert js["b"] == pytest.approx(clf.intercept_[0], abs=1e-6)
    y = mm.load("builtin:heart_scale").y
    np.testing.assert_allclose(js["dual_coef"], np.array(a["value"]) * y[a["index"]])
    assert set(js["free_support"]) | set(js["bound_support"]) == set(js["support"])


def test_json_to_stdout_is_the_document_alone(capsys):
    code, out, _ = run_cli(
        capsys, "solve", "builtin:gaussians", "--kernel", "poly", "--degree", "2",
        "--coef0", "1", "--gamma", "0.5", "--json", "-",
    )  # fmt: skip
    js = json.loads(out)
    assert code == 0 and js["kernel"] == {"name": "poly", "gamma": 0.5, "degree": 2,
                                          "coef0": 1.0}  # fmt: skip


def test_linear_kernel_equals_the_linear_solve(tmp_path, capsys):
    k, lin = tmp_path / "k.json", tmp_path / "l.json"
    assert run_cli(capsys, "solve", HEART, "--kernel", "linear", "--json", str(k))[0] == 0
    assert run_cli(capsys, "solve", HEART, "--json", str(lin))[0] == 0
    a, b = json.loads(k.read_text()), json.loads(lin.read_text())
    assert a["primal_objective"] == pytest.approx(b["primal_objective"], rel=1e-9)
    assert a["b"] == pytest.approx(b["b"], abs=1e-7)


def _xor(tmp_path, duplicate=False):
    rows = ["1,1,1", "-1,-1,1", "1,-1,-1", "-1,1,-1"]
    if duplicate:  # the same point under both labels: no function separates them
        rows += ["0,0,1", "0,0,-1"]
    f = tmp_path / "xor.csv"
    f.write_text("a,b,y\n" + "\n".join(rows) + "\n")
    return str(f)


def test_hard_margin_rbf_separates_xor(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "solve", _xor(tmp_path), "--kernel", "rbf", "--hard")
    assert code == 0 and "CERTIFIED OPTIMAL" in out and "hard margin" in out


def test_hard_margin_infeasible_exit_1(capsys, tmp_path):
    target = tmp_path / "ns.json"
    code, out, _ = run_cli(
        capsys, "solve", _xor(tmp_path, duplicate=True), "--kernel", "rbf", "--hard",
        "--json", str(target),
    )  # fmt: skip
    assert code == 1 and "not separable" in out
    js = json.loads(target.read_text())
    assert js["format"] == "maxmargin.not_separable/1" and js["separable"] is False


def test_not_certified_exit_1(capsys, monkeypatch):
    from dataclasses import replace

    import maxmargin.cli.solve as cli_solve

    real = cli_solve.solve_kernel_dual

    def uncertified(problem, **kw):
        sol = real(problem, **kw)
        cert = replace(sol.certificate, ok=False)
        return replace(sol, certificate=cert, status="uncertified")

    monkeypatch.setattr(cli_solve, "solve_kernel_dual", uncertified)
    code, out, _ = run_cli(capsys, "solve", "builtin:gaussians", "--kernel", "rbf")
    assert code == 1 and "NOT CERTIFIED" in out and "CERTIFIED OPTIMAL" not in out


@pytest.mark.parametrize(
    "extra, msg",
    [
        (["--kernel", "rbf", "--liblinear-model", "m.txt"], "--liblinear-model"),
        (["--kernel", "rbf", "--intercept", "augmented"], "--intercept augmented"),
        (["--kernel", "rbf", "--solver", "DCD"], "--solver DCD"),
        (["--kernel", "rbf", "--solver", "IPM"], "--solver IPM"),
        (["--kernel", "rbf", "--form", "both"], "--form both"),
        (["--kernel", "rbf", "--gamma", "-1"], "gamma"),
        (["--kernel", "rbf", "--gamma", "0"], "gamma"),
        (["--kernel", "rbf", "--gamma", "nan"], "gamma"),
        (["--kernel", "rbf", "--gamma", "wide"], "--gamma"),
        (["--kernel", "poly", "--degree", "-1"], "degree"),
        (["--kernel", "sigmoid", "--coef0", "inf"], "coef0"),
        (["--kernel", "poly", "--degree", "2.5"], "--degree"),
        (["--kernel", "rbf", "--degree", "2"], "--degree does not apply to the rbf kernel"),
        (["--kernel", "linear", "--gamma", "1"], "--gamma does not apply to the linear"),
        (["--gamma", "1"], "--gamma needs --kernel"),
        (["--kernel", "linear", "--gamma", "1", "--coef0", "1"], "--gamma, --coef0 do not apply"),
        (["--kernel", "rbf", "--hard", "--weights", "w.txt"], "weight"),
    ],
)
def test_refusals_one_line_exit_2_before_solving(capsys, tmp_path, monkeypatch, extra, msg):
    import maxmargin.cli.solve as cli_solve

    def never(*a, **k):  # pragma: no cover - a refusal that reaches the solver fails here
        raise AssertionError("solved before refusing")

    monkeypatch.setattr(cli_solve, "solve_kernel_dual", never)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.txt").write_text("1\n" * 270)
    code, out, err = run_cli(capsys, "solve", HEART, *extra)
    assert code == 2 and out == ""
    assert msg in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "m.txt").exists()


def test_lam_is_c_over_n(capsys, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    lam = 1.0 / (0.5 * 270)  # C = 0.5 on heart_scale's 270 rows
    assert run_cli(capsys, "solve", HEART, "--kernel", "rbf", "--lam", repr(lam),
                   "--json", str(a))[0] == 0  # fmt: skip
    assert run_cli(capsys, "solve", HEART, "--kernel", "rbf", "--C", "0.5",
                   "--json", str(b))[0] == 0  # fmt: skip
    ja, jb = json.loads(a.read_text()), json.loads(b.read_text())
    assert ja["C"] == pytest.approx(0.5, rel=1e-15)
    assert ja["dual_objective"] == pytest.approx(jb["dual_objective"], rel=1e-12)
