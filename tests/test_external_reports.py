"""Traces from elsewhere in the reports, strict JSON, margin names, misplaced CLI options.

Strict JSON: null for N/A. Misplaced command-line options: one given before the command.
"""

import dataclasses
import io
import json
import math
import warnings

import numpy as np
import pytest

import maxmargin as mm
from maxmargin import Comparison, DataError, ExactSolution, SVMProblem, Trace, make_separable
from maxmargin.cli import main
from maxmargin.evaluation.path import regularization_path
from maxmargin.evaluation.path.grid import RegularizationPath
from maxmargin.evaluation.scoring import RunResult
from maxmargin.io.json import dumps, json_float, jsonable, loads_strict
from maxmargin.io.schema import series_fields
from maxmargin.report.comparison import markdown

#: A run's per-run numbers: ``null`` in the file is NaN (not available).
RUN_NUMBERS = (
    "regret_G",
    "novikoff",
    "rate",
    "rate_avg",
    "theory_slope",
    "learn_seconds",
    "eval_seconds",
)


def _refuse(name):
    raise ValueError(f"{name} in strict JSON")


def strict(text):
    """``text`` parsed by a strict reader (NaN, Infinity refused); also no "nan" string."""
    doc = json.loads(text, parse_constant=_refuse)
    assert '"nan"' not in text
    return doc


def same(a, b):
    """Equal, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


@pytest.fixture(scope="module")
def setup():
    data = make_separable(60, 3, seed=0)
    problem = SVMProblem(data, C=1.0, intercept="free")
    sol = mm.solve(problem)
    t = np.array([1, 10, 30, 60])
    W = np.vstack([sol.w * 0.5, sol.w * 0.9, sol.w * 0.95, sol.w])
    b = np.array([0.0, sol.b, sol.b, sol.b])
    good = Trace.from_weights(t, W, b, name="mine", data=data)
    Wn = W.copy()
    Wn[2, 0] = np.nan
    bad = Trace.from_weights(t, Wn, b, name="nanny", data=data)
    return data, problem, sol, good, bad, (t, W, b, Wn)


@pytest.fixture(scope="module")
def traces_only(setup):
    data, problem, _, good, bad, _ = setup
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mm.compare(data, problem=problem, traces=[good, bad])


def _write_svm(path, data):
    with open(path, "w") as fh:
        for x, y in zip(data.dense(), data.y, strict=True):
            feats = " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(x))
            fh.write(f"{int(y)} {feats}\n")


# ----------------------------------------------------------------- 1. figures


def test_traces_only_draw_only_figures_with_something_to_show(traces_only, tmp_path):
    from maxmargin.plotting.comparison import figures_left_out

    left = figures_left_out(traces_only)
    # boundary: d = 3; the time figure: weights alone have no learning time
    assert set(left) == {"suboptimality_time", "gaps", "regret", "mistakes", "boundary"}
    assert "weights alone" in left["regret"] and "mistakes=" in left["mistakes"]
    paths = mm.write_report(traces_only, tmp_path, formats=("png",))
    names = sorted(p.name for p in paths)
    assert names == [
        "checkpoints.csv",
        "report.json",
        "report.md",
        "suboptimality.png",
        "table.tex",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    md = (tmp_path / "report.md").read_text()
    lines = [ln for ln in md.splitlines() if ln.startswith("Figures left out")]
    assert len(lines) == 1 and all(f"{k}: " in lines[0] for k in ("gaps", "regret", "mistakes"))


def test_learners_figures_unchanged(setup, tmp_path):
    data, problem, *_ = setup
    cmp = mm.compare(data, problem=problem, learners=["pegasos"], epochs=2)
    from maxmargin.plotting.comparison import figures_left_out

    assert set(figures_left_out(cmp)) == {"boundary"}
    names = {p.name for p in mm.write_report(cmp, tmp_path, formats=("png",))}
    assert {"suboptimality.png", "gaps.png", "regret.png", "mistakes.png"} <= names
    assert "Figures left out" not in (tmp_path / "report.md").read_text()


def test_cli_trace_file_writes_no_empty_figure(setup, tmp_path, capsys):
    data, _, _, _, _, (t, W, b, _) = setup
    _write_svm(tmp_path / "d.svm", data)
    np.savez(tmp_path / "sgd.npz", t=t, W=W, b=b)
    out = tmp_path / "out"
    code = main(
        [
            "compare",
            str(tmp_path / "d.svm"),
            "--trace",
            str(tmp_path / "sgd.npz"),
            "--intercept",
            "free",
            "--out",
            str(out),
            "--format",
            "png",
            "-q",
        ]
    )
    capsys.readouterr()
    assert code == 0
    assert not {"regret.png", "mistakes.png", "gaps.png"} & {p.name for p in out.iterdir()}
    assert (out / "suboptimality.png").stat().st_size > 1000
    assert (
        "Figures left out (nothing to show): suboptimality_time: "
        in (out / "report.md").read_text()
    )
    assert "gaps: " in (out / "report.md").read_text()


# ----------------------------------------------------------------- 2. JSON


def test_json_helpers_write_null_for_nan():
    assert jsonable([np.nan, np.inf, -np.inf, 1.5]) == [None, "inf", "-inf", 1.5]
    assert dumps({"a": float("nan")}) == '{"a": null}'
    assert json_float(None) != json_float(None)  # NaN
    with pytest.raises(DataError, match="expected a number, got the string 'nan'"):
        json_float("nan")  # what development versions wrote is not read (nothing released)
    with pytest.raises(ValueError, match="NaN"):
        loads_strict('{"a": NaN}')


def test_comparison_json_strict_and_round_trip(traces_only, setup):
    data, problem, *_ = setup
    cmp = mm.compare(data, problem=problem, learners=["pegasos", "perceptron"], epochs=2)
    for c in (traces_only, cmp):
        text = c.to_json()
        doc = strict(text)
        saved = Comparison.from_json(io.StringIO(text))
        assert saved.to_json() == text
        assert type(saved) is Comparison and (saved.problem.C, saved.problem.lam) == (
            c.problem.C,
            c.problem.lam,
        )
        for key in ("F_star", "R", "gamma", "novikoff"):
            assert same(float(getattr(saved, key)), float(getattr(c, key))), key
        for run, back, raw in zip(c.runs, saved.runs, doc["runs"], strict=True):
            assert back.trace is None
            for key in series_fields(RunResult):
                a = getattr(run, key)
                if a is None:
                    assert getattr(back, key) is None and raw[key] is None
                else:
                    np.testing.assert_array_equal(getattr(back, key), a, err_msg=key)
            for key in RUN_NUMBERS:
                assert same(getattr(back, key), float(getattr(run, key))), key
                if math.isnan(getattr(run, key)):
                    assert raw[key] is None
    mine = doc_run = strict(traces_only.to_json())["runs"][0]
    assert mine["mistakes"] == [None] * 4 and doc_run["learn_seconds"] is None
    # the CSV still says nan for a NaN inside a quantity, and nothing for N/A
    assert traces_only.to_csv() == Comparison.from_json(traces_only.to_dict()).to_csv()


def test_solution_path_trace_json_strict_and_round_trip(setup, tmp_path):
    data, problem, sol, _, bad, _ = setup
    odd = dataclasses.replace(sol, solve_seconds=math.nan)
    text = odd.to_json()
    assert strict(text)["solve_seconds"] is None
    back = ExactSolution.from_json(io.StringIO(text))
    assert math.isnan(back.solve_seconds) and back.to_json() == text
    again = ExactSolution.from_json(io.StringIO(text), data)
    assert again.certificate.ok and np.array_equal(again.w, sol.w)

    p = regularization_path(data, C=[0.5, 2.0], intercept="free", hard_limit=False)
    p = dataclasses.replace(p, min_margin_sv_C=math.nan)
    text = p.to_json()
    assert strict(text)["min_margin_sv_C"] is None
    q = RegularizationPath.from_json(io.StringIO(text))
    assert math.isnan(q.min_margin_sv_C) and q.to_json() == text

    npz, js = bad.save(tmp_path / "bad")
    meta = strict(js.read_text())
    loaded = Trace.load(npz)
    np.testing.assert_array_equal(loaded.w, bad.w)
    np.testing.assert_array_equal(loaded.mistakes, bad.mistakes)
    assert same(loaded.final_train_error, bad.final_train_error)
    assert all(same(loaded.timings[k], v) for k, v in bad.timings.items())
    assert "NaN" not in json.dumps(meta)


def test_cli_json_is_strict(setup, tmp_path, capsys):
    data, _, _, _, _, (t, _, b, Wn) = setup
    _write_svm(tmp_path / "d.svm", data)
    np.savez(tmp_path / "broken.npz", t=t, W=Wn, b=b)
    argv = ["compare", str(tmp_path / "d.svm"), "--trace", str(tmp_path / "broken.npz")]
    code = main([*argv, "--intercept", "free", "--json", "-", "-q"])
    out, _ = capsys.readouterr()
    assert code == 0
    doc = strict(out)
    assert doc["runs"][0]["objective"][-1] is None


# ----------------------------------------------------------------- 3. not finite


def test_non_finite_trace_says_what_is_true(traces_only):
    row = next(r for r in traces_only.rows if r["label"] == "nanny")
    msg = row["diverged"]
    assert "seed None" not in msg and "step size" not in msg and "overflow" not in msg
    assert msg.startswith("the weights are not finite from checkpoint 3 of 4 on (step 30")
    assert "finite up to step 10" in msg
    md = markdown(traces_only)
    assert "n = 60, d = 3; 2 trace(s) from elsewhere, no learner run." in md  # no epochs
    assert "**NOT FINITE** nanny (external): the weights are not finite" in md
    assert "DIVERGED" not in md


def test_step_size_learner_keeps_its_hint():
    ds = mm.Dataset(np.array([[1e3, 0.0], [-1e3, 1.0]] * 10), np.array([1, -1] * 10))
    from maxmargin.online import OnlineSubgradient, run

    tr = run(OnlineSubgradient(lam=1e3, eta0=10.0), ds, epochs=50)
    assert tr.diverged_at is not None
    assert "a step size too large for the data? eta0 = 10.0" in tr.divergence()
    assert run("perceptron", ds).divergence() == ""


def test_cli_warning_for_a_trace_file_names_it(setup, tmp_path, capsys):
    data, _, _, _, _, (t, _, b, Wn) = setup
    _write_svm(tmp_path / "d.svm", data)
    np.savez(tmp_path / "broken.npz", t=t, W=Wn, b=b)
    argv = ["compare", str(tmp_path / "d.svm"), "--trace", str(tmp_path / "broken.npz")]
    code = main([*argv, "--intercept", "free", "--no-figures", "--out", str(tmp_path / "o")])
    _, err = capsys.readouterr()
    assert code == 0
    warns = [ln for ln in err.splitlines() if "warning" in ln]
    assert warns == [
        "maxmargin: warning: broken (external): the weights are not finite from checkpoint 3 "
        "of 4 on (step 30 of 60); finite up to step 10"
    ]


# ----------------------------------------------------------------- 4. margins


def test_margin_names_mean_the_same_on_solution_and_path():
    ds = make_separable(30, 2, margin=0.3, seed=1, offset=0.5)
    s = 2.0
    for intercept in ("augmented", "free", "none"):
        kw = {"intercept": intercept, "intercept_scaling": s}
        sol = mm.solve(SVMProblem(ds, C=1.0, **kw))
        p = regularization_path(ds, C=[1.0], hard_limit=False, **kw)
        wt = np.append(sol.w, sol.b / s) if intercept == "augmented" else sol.w
        assert sol.geometric_margin == pytest.approx(1 / np.linalg.norm(wt), rel=1e-12)
        assert sol.feature_margin == pytest.approx(1 / np.linalg.norm(sol.w), rel=1e-12)
        assert sol.margin_width == 2 * sol.feature_margin
        for name in ("geometric_margin", "feature_margin", "margin_width"):
            assert getattr(p, name)[0] == pytest.approx(getattr(sol, name), rel=1e-6), name
        if intercept != "augmented":
            assert sol.feature_margin == pytest.approx(sol.geometric_margin, rel=1e-12)


# ----------------------------------------------------------------- 5. usage


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["--bogus", "solve"],
            "maxmargin: error: unrecognized arguments: --bogus; see 'maxmargin --help'",
        ),
        (["--bogus", "solve", "x.svm"], "see 'maxmargin --help'"),
        (
            ["--C", "1", "solve", "x.svm"],
            "--C is an option of 'maxmargin solve', given "
            "before the command: write 'maxmargin solve --C ...'; see 'maxmargin solve --help'",
        ),
        (
            ["solve", "--bogus", "x.svm"],
            "maxmargin solve: error: unrecognized arguments: --bogus; see 'maxmargin solve --help'",
        ),
        (["compare", "x.svm", "--bogus"], "see 'maxmargin compare --help'"),
    ],
)
def test_misplaced_option_names_the_right_help(capsys, argv, expected):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and expected in err
