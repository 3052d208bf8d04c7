"""Studies: spec validation, the table against compare and numpy, resume, faults, Dask.

Tiny data and few steps: the cost is starting worker processes, so one study is run
once per module and shared. The Dask tests start a LocalCluster (marked ``dask``:
``-m "not dask"`` deselects them; ``make test`` runs them).
"""

from __future__ import annotations

import dataclasses
import fcntl
import io
import json
import math
import os
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

import maxmargin as mm  # noqa: E402
from maxmargin.cli import main  # noqa: E402
from maxmargin.studies import SpecError, load_spec  # noqa: E402
from maxmargin.studies.cells import make_plan  # noqa: E402
from maxmargin.studies.table import TIMING_COLUMNS  # noqa: E402

#: A learner file for the fault tests: a Perceptron that fails its first attempt (by
#: raising, or by killing its process) when its marker file is missing, or always.
LEARNERS_PY = """
import os
from pathlib import Path

from maxmargin.online import Perceptron


class Flaky(Perceptron):
    def __init__(self, marker="", how="raise", intercept="augmented",
                 intercept_scaling=1.0):
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.marker = marker
        self.how = how

    def _setup(self, pk):
        if self.how == "always":
            raise RuntimeError("this learner always fails")
        try:  # one attempt creates the marker, even when two start at once
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return super()._setup(pk)
        os.write(fd, b"first attempt")
        os.close(fd)
        if self.how == "die":
            os._exit(3)
        raise RuntimeError("the first attempt fails")
"""


def _spec(tmp: Path, *, extra_learners=(), seeds=2, grid=(0.1, 10.0)) -> dict:
    return {
        "name": "tiny",
        "problem": {"C": list(grid), "intercept": "augmented"},
        "run": {"epochs": 2, "seeds": seeds, "orders": ["shuffle"], "checkpoints": 4},
        "data": [
            {"generator": "gaussians", "params": {"n": 40, "d": 3, "seed": 1}, "holdout": 0.25},
            {"generator": "separable", "params": {"n": 30, "d": 2}, "seeds": [0]},
        ],
        "learners": [
            "perceptron",
            {"name": "pegasos", "params": {"projection": "greedy"}},
            *extra_learners,
        ],
    }


def _flaky(tmp: Path, how: str, label: str) -> dict:
    path = tmp / "learners.py"
    if not path.exists():
        path.write_text(LEARNERS_PY)
    return {
        "class": f"{path}:Flaky",
        "label": label,
        "params": {"marker": str(tmp / f"{label}.marker"), "how": how},
    }


def _rows(table, **where) -> list[dict]:
    d = table.to_pylist()
    return [r for r in d if all(r[k] == v for k, v in where.items())]


def _same_tables(a, b, skip=()) -> None:
    cols = [c for c in a.column_names if c not in TIMING_COLUMNS + tuple(skip)]
    assert a.num_rows == b.num_rows
    for c in cols:
        x, y = a.column(c).to_pylist(), b.column(c).to_pylist()
        same = [
            u == v
            or (isinstance(u, float) and isinstance(v, float) and math.isnan(u) and math.isnan(v))
            for u, v in zip(x, y, strict=True)
        ]
        assert all(same), (c, [(u, v) for u, v, s in zip(x, y, same, strict=True) if not s][:3])


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """One local study with a learner that raises once and one whose worker dies once.

    Computed once per test session: the first pytest-xdist worker runs it into a folder
    the workers share (under a lock); every other worker copies the finished folder into
    its own and runs the study there, finding every cell finished. No process writes
    into a folder that another one's tests read (a re-run in place would rewrite the
    report's figures while the other worker's tests look for half-written files).
    """
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # this session's folder, shared by its xdist workers
    tmp = root / "study-base"
    tmp.mkdir(exist_ok=True)
    with open(tmp / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        spec = _spec(
            tmp, extra_learners=[_flaky(tmp, "raise", "flaky"), _flaky(tmp, "die", "dying")]
        )
        if not (tmp / "done").exists():
            res = mm.study(spec, tmp / "out", n_jobs=2)
            (tmp / "done").touch()
            return tmp, spec, res
        out = tmp_path_factory.mktemp("study-base-copy") / "out"
        shutil.copytree(tmp / "out", out)
    return tmp, spec, mm.study(spec, out, n_jobs=2)


# --------------------------------------------------------------------------- spec


@pytest.mark.parametrize(
    "change, key",
    [
        (lambda s: s.pop("problem"), "problem: is missing"),
        (lambda s: s["problem"].update(lam=0.1), "problem: give exactly one of C and lam"),
        (lambda s: s["problem"].update(C="1:0:3"), "problem.C"),
        (lambda s: s["problem"].update(C=[1.0, -2.0]), "problem.C[1]"),
        (lambda s: s["problem"].update(C=[1.0, 1.0]), "problem.C: has duplicate"),
        (lambda s: s["problem"].update(intercept="bias"), "problem.intercept"),
        (lambda s: s["problem"].update(solver="NOPE"), "problem.solver"),
        (lambda s: s["run"].update(epochs=0), "run.epochs"),
        (lambda s: s["run"].update(seeds=[0, -1]), "run.seeds[1]"),
        (lambda s: s["run"].update(orders=["random"]), "run.orders[0]"),
        (lambda s: s["run"].update(checkpoints=[1, 10**6]), "run.checkpoints"),
        (lambda s: s["run"].update(epoch=3), "run.epoch: unknown key"),
        (lambda s: s.update(learner=[]), "learner: unknown key"),
        (lambda s: s["data"][0].update(source="x.csv"), "data[0]: give exactly one"),
        (lambda s: s["data"][0].update(generator="moons"), "data[0].generator"),
        (lambda s: s["data"][0]["params"].update(size=3), "data[0].params.size"),
        (lambda s: s["data"][0].update(holdout=1.5), "data[0].holdout"),
        (lambda s: s["data"].append({"source": "/nonexistent/x.svm"}), "data[2].source"),
        (lambda s: s["data"].append({"source": "builtin:nope"}), "data[2].source"),
        (
            lambda s: (
                s["data"][1].update(name="gaussians", seeds=None) or s["data"][1].pop("seeds")
            ),
            "data[1].name",
        ),
        (lambda s: s["learners"].append("percepton"), "learners[2].name"),
        (lambda s: s["learners"].append({"name": "pegasos"}), "learners[2].label"),
        (
            lambda s: s["learners"].append(
                {"name": "pegasos", "label": "p2", "params": {"lam": 3.0}}
            ),
            "learners[2].params.lam",
        ),
        (
            lambda s: s["learners"].append(
                {"name": "pa1", "label": "p", "params": {"intercept": "none"}}
            ),
            "learners[2].params.intercept",
        ),
        (
            lambda s: s["learners"].append(
                {"name": "pegasos", "label": "p", "params": {"batchsize": 2}}
            ),
            "learners[2]: ",
        ),
        (lambda s: s["learners"].append({"class": "no_such_module:X"}), "learners[2]: "),
        (lambda s: s["learners"].append({"class": "maxmargin.data:Dataset"}), "learners[2]: "),
        (lambda s: s["learners"].append({"class": "nocolon"}), "learners[2].class"),
    ],
)
def test_spec_errors_name_the_key(tmp_path, change, key):
    spec = _spec(tmp_path)
    change(spec)
    with pytest.raises(SpecError) as err:
        make_plan(load_spec(spec))
    msg = str(err.value)
    assert key in msg and "\n" not in msg


def test_a_learner_of_another_intercept_is_scored_against_its_own_problem(tmp_path):
    """Winnow cannot leave the intercept free: its cells are scored as compare scores it."""
    X = np.random.default_rng(4).integers(0, 2, size=(60, 6))  # Winnow's {0, 1} features
    y = np.where(X[:, :3].sum(axis=1) >= 2, 1, -1)
    (tmp_path / "bits.csv").write_text(
        "a,b,c,d,e,f,y\n"
        + "".join(",".join(map(str, [*r, t])) + "\n" for r, t in zip(X, y, strict=True))
    )
    spec = {
        "problem": {"lam": [0.05]},  # the default intercept: free
        "run": {"epochs": 2, "seeds": 1, "orders": ["cyclic"], "checkpoints": 3},
        "data": [{"source": str(tmp_path / "bits.csv"), "label": "y"}],
        "learners": ["winnow", "pegasos"],
    }
    assert load_spec(spec).intercept == "free"
    plan = make_plan(load_spec(spec))
    assert sorted(r.intercept for r in plan.refs.values()) == ["free", "none"]
    res = mm.study(spec, tmp_path / "out", n_jobs=1, report=True)
    assert res.failed == 0
    rows = {r["learner"]: r for r in res.table.to_pylist() if r["t"] == 120}
    assert (rows["winnow"]["intercept"], rows["pegasos"]["intercept"]) == ("none", "free")
    data = plan.data["bits"].train
    cmp = mm.compare(
        data,
        learners=["winnow", "pegasos"],
        lam=0.05,
        epochs=2,
        seeds=(0,),
        orders=("cyclic",),
        checkpoints=list(plan.data["bits"].checkpoints),
    )
    for run in cmp.runs:  # each learner against the problem of its own intercept
        row = rows[run.learner]
        assert row["F_star"] == pytest.approx(cmp.reference_of(run).F_star, rel=1e-9)
        assert row["mistakes"] == run.mistakes[-1]
        if run.subopt is None:  # winnow: no objective of its own
            assert row["subopt"] is None
        else:
            assert row["subopt"] == pytest.approx(run.subopt[-1], rel=1e-9)
    assert rows["winnow"]["F_star"] != pytest.approx(rows["pegasos"]["F_star"], rel=1e-6)
    md = (res.out / "report.md").read_text()
    assert (
        "Reference (intercept none: winnow)" in md and "Reference (intercept free: pegasos)" in md
    )
    assert "intercept none: R = " in md  # the spaces differ: R, separability, gamma*


def test_cells_of_an_own_learner_are_keyed_on_its_source(tmp_path):
    """A learner is resolved and digested by the registry: editing its file reruns it."""
    (tmp_path / "mine.py").write_text(LEARNERS_PY)
    entry = {"class": f"{tmp_path / 'mine.py'}:Flaky", "label": "mine", "params": {"how": "x"}}
    spec = _spec(tmp_path, extra_learners=[entry])
    first = make_plan(load_spec(spec))
    digest = mm.online.registry.digest(entry["class"])
    assert len(digest) == 64
    with (tmp_path / "mine.py").open("a") as f:
        f.write("# edited\n")
    assert mm.online.registry.digest(entry["class"]) != digest
    second = make_plan(load_spec(spec))
    keys = [{c.key for c in plan.cells if c.learner == "mine"} for plan in (first, second)]
    others = [{c.key for c in plan.cells if c.learner != "mine"} for plan in (first, second)]
    assert keys[0] and others[0]
    assert keys[0].isdisjoint(keys[1]) and others[0] == others[1]


def test_cli_bad_spec_one_line_exit_2(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text(
        '[problem]\nC = 1\n[[data]]\nsource = "builtin:separable"\n'
        '[[learners]]\nname = "pegasos"\n[run]\nseeds = "many"\n'
    )
    assert main(["study", str(f), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "run.seeds" in err
    f.write_text("[problem\n")
    assert main(["study", str(f)]) == 2
    assert "invalid TOML" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # validated before anything was written


def test_missing_extra_is_one_line(tmp_path, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a)
    )
    f = tmp_path / "s.toml"
    f.write_text("")
    assert main(["study", str(f)]) == 2
    err = capsys.readouterr().err
    assert "maxmargin[study]" in err and err.count("\n") == 1


def test_cli_runs_a_toml_with_relative_paths(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(40) > 0, "yes", "no")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.csv").write_text(
        "a,b,c,label\n" + "".join(f"{r[0]},{r[1]},{r[2]},{t}\n" for r, t in zip(X, y, strict=True))
    )
    (tmp_path / "mine.py").write_text(LEARNERS_PY)
    (tmp_path / "s.toml").write_text(
        textwrap.dedent("""\
        [problem]
        lam = [0.01]
        intercept = "none"
        [run]
        epochs = 2
        seeds = [4]
        orders = ["cyclic", "sample"]
        [[data]]
        source = "data/train.csv"
        label = "label"
        holdout = 0.25
        [[learners]]
        name = "pa1"
        [[learners]]
        class = "mine.py:Flaky"
        params = { how = "always" }
        """)
    )
    rc = main(
        [
            "study",
            str(tmp_path / "s.toml"),
            "--out",
            str(tmp_path / "o"),
            "--jobs",
            "1",
            "--no-report",
        ]
    )
    assert rc == 1  # the always-failing learner
    out = capsys.readouterr().out
    assert "4 cells, 4 run now, 0 already done, 2 failed" in out
    import pyarrow.parquet as pq

    t = pq.read_table(tmp_path / "o" / "results.parquet").to_pylist()
    ok = [r for r in t if r["status"] == "ok"]
    assert {r["order"] for r in ok} == {"cyclic", "sample"} and ok[0]["data"] == "train"
    assert ok[0]["lam"] == 0.01 and ok[0]["n"] == 30 and ok[0]["test_error"] is not None
    assert not (tmp_path / "o" / "report.md").exists()


def test_progress_counts_cells_with_an_eta():
    from maxmargin.studies.executors import StudyProgress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        with StudyProgress(4, "study x", stream=stream) as bar:
            bar.update(1)
            bar._last = 0.0
            bar.update(1)
    assert "2/4 cells" in tty.getvalue() and "ETA" in tty.getvalue()
    assert pipe.getvalue() == ""


def test_example_spec_validates():
    spec = load_spec(Path(__file__).parents[1] / "examples" / "study.toml")
    plan = make_plan(spec)
    assert len(plan.cells) == (
        len(spec.data) * len(spec.grid) * len(spec.learners) * len(spec.seeds) * len(spec.orders)
    )


# --------------------------------------------------------------------------- results


def test_table_equals_compare_and_numpy(base):
    tmp, spec, res = base
    table = res.table
    assert res.failed == 0 and res.cells == 2 * 2 * 4 * 2
    assert set(table.column("status").to_pylist()) == {"ok"}
    s = res.spec
    data = res.plan.data["gaussians"]
    cmp = mm.compare(
        data.train,
        learners=[
            mm.online.resolve(
                "pegasos",
                projection="greedy",
                lam=1 / (10.0 * data.train.n),
                intercept=s.intercept,
            )
        ],
        C=10.0,
        intercept=s.intercept,
        epochs=2,
        seeds=(1,),
        holdout=data.holdout,
        checkpoints=list(data.checkpoints),
    )
    r = cmp.runs[0]
    rows = _rows(table, data="gaussians", value=10.0, learner="pegasos", seed=1)
    assert [x["t"] for x in rows] == r.t.tolist()
    for key in (
        "subopt",
        "subopt_avg",
        "dual_gap",
        "distance",
        "train_error",
        "test_error",
        "regret",
        "mistakes",
    ):
        np.testing.assert_allclose(
            [x[key] for x in rows], getattr(r, key), rtol=1e-9, atol=1e-15, err_msg=key
        )
    assert rows[0]["F_star"] == pytest.approx(cmp.F_star, rel=1e-9)
    assert rows[0]["ref_certified"] and rows[0]["spec_hash"] == s.hash
    assert rows[0]["numpy_version"] == np.__version__

    # numpy from the data: replay Pegasos and evaluate F(w_t) - F* at each checkpoint
    lam = rows[0]["lam"]
    tr = mm.run(
        mm.online.resolve("pegasos", projection="greedy", lam=lam, intercept=s.intercept),
        data.train,
        epochs=2,
        order="shuffle",
        seed=1,
        checkpoints=list(data.checkpoints),
    )
    assert s.intercept == "augmented"  # the replay below regularises the bias
    Z = np.hstack([data.train.X, np.ones((data.train.n, 1))])
    W = np.hstack([tr.w, tr.b[:, None]])
    F = 0.5 * lam * (W * W).sum(1) + np.maximum(0, 1 - data.train.y[:, None] * (Z @ W.T)).mean(0)
    np.testing.assert_allclose(
        [x["subopt"] for x in rows], F - rows[0]["F_star"], rtol=1e-8, atol=1e-12
    )
    Xh, yh = data.holdout.X, data.holdout.y
    np.testing.assert_allclose(
        [x["test_error"] for x in rows], ((Xh @ tr.w.T + tr.b) * yh[:, None] <= 0).mean(0)
    )
    # the reference: F* = lam * P(w*) recomputed from the certified solution
    sol = mm.solve(mm.SVMProblem(data.train, C=10.0, intercept="augmented"))
    w = np.append(sol.w, sol.b)
    P = 0.5 * w @ w + 10.0 * np.maximum(0, 1 - data.train.y * (Z @ w)).sum()
    assert rows[0]["F_star"] == pytest.approx(lam * P, rel=1e-7)

    # the perceptron family: Novikoff on the separable set, N/A objective numbers
    perc = _rows(table, data="separable-seed0", learner="perceptron", seed=0, value=0.1)
    assert perc[0]["separable"] and perc[0]["subopt"] is None
    assert perc[-1]["mistakes"] <= perc[0]["novikoff"]
    assert perc[0]["novikoff"] == pytest.approx((perc[0]["R"] / perc[0]["gamma"]) ** 2)


def test_faults_retried_once_and_recorded(base):
    tmp, spec, res = base
    table = res.table
    for label in ("flaky", "dying"):
        rows = _rows(table, learner=label)
        assert {r["status"] for r in rows} == {"ok"}
        # the retry computed the plain perceptron's numbers
        plain = _rows(table, learner="perceptron")
        assert [r["mistakes"] for r in rows] == [r["mistakes"] for r in plain]
    # the marker made exactly one cell of each fail its first attempt
    assert max(r["attempts"] for r in _rows(table, learner="flaky")) == 2
    recs = [json.loads(p.read_text()) for p in (res.out / "cells").glob("*.json")]
    assert {r["format"] for r in recs} == {"maxmargin.study_cell/1"}
    assert sum(1 for r in recs if any("first attempt" in e for e in r["errors"])) == 1
    assert any("worker died" in e for r in recs for e in r["errors"])
    assert not list(res.out.rglob("*maxmargin-tmp"))  # no half-written file left behind


def test_always_failing_cell_is_recorded_and_others_finish(tmp_path):
    spec = _spec(tmp_path, seeds=1, grid=(1.0,))
    spec["data"] = spec["data"][1:]
    spec["learners"] = ["perceptron", _flaky(tmp_path, "always", "broken")]
    res = mm.study(spec, tmp_path / "out", n_jobs=2, report=True)
    assert res.failed == 1 and res.executions == 1 + 2
    bad = _rows(res.table, learner="broken")
    assert len(bad) == 1 and bad[0]["status"] == "failed" and bad[0]["attempts"] == 2
    assert "always fails" in bad[0]["error"] and bad[0]["t"] is None
    assert {r["status"] for r in _rows(res.table, learner="perceptron")} == {"ok"}
    assert "Failed cells" in (res.out / "report.md").read_text()
    # a re-run tries the failed cell again, and only it
    again = mm.study(spec, tmp_path / "out", n_jobs=2, report=False)
    assert again.skipped == 1 and again.executions == 2


def test_resume_skips_finished_and_reruns_only_changes(base, tmp_path):
    tmp, spec, first = base
    out = tmp_path / "out"
    shutil.copytree(first.out, out)
    again = mm.study(spec, out, n_jobs=2, report=False)
    assert again.ran == 0 and again.skipped == first.cells
    _same_tables(first.table, again.table)
    # one more seed and one more C: only the new cells run
    more = json.loads(json.dumps(spec))
    more["run"]["seeds"] = 3
    res = mm.study(more, out, n_jobs=2, report=False)
    assert res.cells == 2 * 2 * 4 * 3 and res.ran == 2 * 2 * 4 * 1 == res.executions
    # a learner's parameter changed: only that learner's cells run
    more["learners"][1]["params"]["projection"] = "lazy"
    res = mm.study(more, out, n_jobs=2, report=False)
    assert res.ran == 2 * 2 * 3
    # a half-written or corrupt cell file counts as missing (the newest file is one of
    # this spec's cells: files of the cells the change replaced stay on disk)
    victim = max((out / "cells").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    victim.write_text('{"key": "trunc')
    res = mm.study(more, out, n_jobs=2, report=False)
    assert res.ran == 1


def test_report_and_files(base):
    tmp, spec, res = base
    names = {p.name for p in res.paths}
    assert {"results.parquet", "results.csv", "study.json", "report.md"} <= names
    head = json.loads((res.out / "study.json").read_text())
    assert (head["format"], head["maxmargin_version"]) == ("maxmargin.study/1", mm.__version__)
    md = (res.out / "report.md").read_text()
    assert "## gaussians" in md and "figures/gaussians-suboptimality.png" in md
    assert "median [min, max] over seeds" in md and "±" not in md
    # every grid value's table says which problem its learners are scored against
    said = md.count("Every learner below is scored against this problem: soft margin, C = ")
    assert said == md.count("### C = ") > 0
    assert "intercept augmented (b = s w~_(d+1) regularised, s = 1)" in md
    assert (res.out / "figures" / "separable-seed0-mistakes.png").stat().st_size > 1000
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    assert pq.read_table(res.out / "results.parquet").num_rows == res.table.num_rows
    assert pacsv.read_csv(res.out / "results.csv").num_rows == res.table.num_rows


def test_compare_hard_reference_is_rechecked():
    ds = mm.make_separable(30, 2, seed=3)
    hard = mm.solve(mm.SVMProblem(ds, hard=True))  # compare's default intercept: free
    a = mm.compare(ds, learners=["perceptron"], C=1.0, epochs=2)
    b = mm.compare(ds, learners=["perceptron"], C=1.0, epochs=2, hard_reference=hard)
    assert a.gamma == b.gamma and a.runs[0].novikoff == b.runs[0].novikoff
    other = mm.make_gaussians(30, 2, seed=0, separation=0.5)
    cert = mm.separation_certificate(other, "free")
    c = mm.compare(other, learners=["perceptron"], C=1.0, epochs=2, hard_reference=cert)
    assert not c.separable
    with pytest.raises(mm.ParameterError, match="does not verify"):
        mm.compare(
            ds,
            learners=["perceptron"],
            C=1.0,
            hard_reference=dataclasses.replace(cert, z=np.full(30, 1 / 30)),
        )
    with pytest.raises(mm.ParameterError, match="hard_reference must be"):
        mm.compare(other, learners=["perceptron"], C=1.0, hard_reference=hard)


# --------------------------------------------------------------------------- Dask


@pytest.mark.dask
def test_dask_local_cluster_same_table_and_survives_a_dying_worker(base, tmp_path):
    pytest.importorskip("distributed")
    _, spec, res = base
    # the same study, with fresh marker files: the same cells fail their first attempt
    spec = json.loads(json.dumps(spec))
    for lr in spec["learners"][2:]:
        lr["params"]["marker"] = str(tmp_path / Path(lr["params"]["marker"]).name)
    dres = mm.study(spec, tmp_path / "out", scheduler="local:2", report=False)
    assert dres.failed == 0 and dres.ran == res.cells
    assert (tmp_path / "dying.marker").exists() and (tmp_path / "flaky.marker").exists()
    # the marker path is a learner parameter: it changes the cell keys, nothing else
    _same_tables(res.table, dres.table, skip=("cell", "spec_hash", "learner_params"))


def test_cli_jobs_2_leaves_no_raw_warning(tmp_path):
    """The loky pool is shut down by the study, not at exit: no "leaked semlock" warning."""
    import subprocess
    import sys

    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 2))
    y = np.where(X[:, 0] > 0, "a", "b")
    (tmp_path / "d.csv").write_text(
        "u,v,label\n" + "".join(f"{r[0]},{r[1]},{t}\n" for r, t in zip(X, y, strict=True))
    )
    (tmp_path / "s.toml").write_text(
        textwrap.dedent("""\
        [problem]
        lam = [0.1]
        intercept = "none"
        [run]
        epochs = 1
        seeds = [0, 1]
        [[data]]
        source = "d.csv"
        label = "label"
        [[learners]]
        name = "pa1"
        """)
    )
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from maxmargin.cli import main; sys.exit(main(sys.argv[1:]))",
            "study",
            str(tmp_path / "s.toml"),
            "--out",
            str(tmp_path / "o"),
            "--jobs",
            "2",
            "--no-report",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONWARNINGS": "default"},
    )
    assert r.returncode == 0, r.stderr
    assert "Warning" not in r.stderr and "leaked" not in r.stderr, r.stderr


# --------------------------------------------------------------------------- safe resume

#: Two data sets (one separable: a hard-margin reference; one not, with a holdout: a
#: separation certificate), two C: four cached references, two separability results.
MINI = {
    "name": "mini",
    "problem": {"C": [0.5, 2.0], "intercept": "augmented"},
    "run": {"epochs": 1, "seeds": 1, "checkpoints": 3},
    "data": [
        {"generator": "separable", "params": {"n": 20, "d": 2, "seed": 1}},
        {
            "generator": "gaussians",
            "params": {"n": 24, "d": 2, "seed": 0, "separation": 0.5},
            "holdout": 0.25,
        },
    ],
    "learners": ["perceptron", "pa1"],
}


@pytest.fixture
def mini(tmp_path, monkeypatch):
    """A finished mini study, and a counter of the exact solves each later run makes."""
    from maxmargin.studies import executors

    res = mm.study(MINI, tmp_path / "out", n_jobs=1, report=False)
    solves = []
    real = executors.reference_task
    monkeypatch.setattr(
        executors, "reference_task", lambda *a: solves.append(1) or real(*a), raising=True
    )
    return res, solves


def test_cached_references_round_trip_without_pickle(mini):
    from maxmargin.studies.store import Reference, Separability, read_ref

    res, _ = mini
    plan = res.plan
    assert not list((res.out / "refs").glob("*.pkl"))
    kinds = set()
    for key, job in plan.refs.items():
        ref = read_ref(res.out / "refs" / f"{key}.npz", key, plan.data[job.data].digest)
        assert isinstance(ref, Reference) and ref.soft.certificate.ok
        kinds.add(type(ref.hard).__name__)
        assert ref.soft.problem.data.n == plan.data[job.data].train.n
        assert (ref.holdout is None) == (plan.data[job.data].holdout is None)
        again = mm.solve(ref.soft.problem)
        assert again.primal_objective == pytest.approx(ref.soft.primal_objective, rel=1e-9)
    assert kinds == {"ExactSolution", "SeparationCertificate"}
    for item in plan.data.values():
        sep = read_ref(res.out / "refs" / f"{item.sep_key}.npz", item.sep_key, item.digest)
        assert isinstance(sep, Separability)
        assert np.array_equal(sep.data.y, item.train.y) and sep.data.name == item.train.name
        # the key and the data are checked: another task's file, or other data, do not load
        assert read_ref(res.out / "refs" / f"{item.sep_key}.npz", "other", item.digest) is None
        assert read_ref(res.out / "refs" / f"{item.sep_key}.npz", item.sep_key, "0" * 64) is None


def test_a_crafted_pickle_in_the_cache_runs_nothing(mini, tmp_path):
    import pickle

    res, solves = mini
    pwned = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.mkdir, (str(pwned),))

    refs = res.out / "refs"
    for key in [*res.plan.refs, *(it.sep_key for it in res.plan.data.values())]:
        (refs / f"{key}.pkl").write_bytes(pickle.dumps(Evil()))  # where maxmargin 0.2 read
        np.savez(refs / f"{key}.npz", meta=np.array([Evil()], dtype=object))
    shutil.rmtree(res.out / "cells")
    again = mm.study(MINI, res.out, n_jobs=1, report=False)
    assert not pwned.exists()
    assert again.ran == res.cells and len(solves) == len(res.plan.refs)
    _same_tables(res.table, again.table)


def _damage(path: Path, how: str) -> None:
    rec = json.loads(path.read_text())
    if how == "unequal arrays":
        rec["arrays"]["train_error"] = rec["arrays"]["train_error"][:-1]
    elif how == "missing scalar":
        del rec["scalars"]["n"]
    elif how == "missing array":
        del rec["arrays"]["t"]
    elif how == "wrong type":
        rec["arrays"]["t"] = [str(t) for t in rec["arrays"]["t"]]
    elif how == "huge int":
        rec["scalars"]["n"] = 2**70
    elif how == "arrays not a dict":
        rec["arrays"] = [1, 2]
    elif how == "failed with arrays":
        rec["status"] = "failed"
    path.write_text(json.dumps(rec))
    if how == "deeply nested":
        path.write_text("[" * 100_000)


DAMAGES = (
    "unequal arrays",
    "missing scalar",
    "missing array",
    "wrong type",
    "huge int",
    "arrays not a dict",
    "failed with arrays",
    "deeply nested",
)


def test_inconsistent_cell_records_and_caches_are_recomputed(mini):
    res, solves = mini
    cells = sorted((res.out / "cells").glob("*.json"))
    assert len(cells) == res.cells == 8
    for path, how in zip(cells, DAMAGES, strict=True):
        _damage(path, how)
    again = mm.study(MINI, res.out, n_jobs=1, report=False)
    assert again.ran == len(cells) and again.failed == 0 and solves == []
    _same_tables(res.table, again.table)
    # damaged caches: truncated, not a zip, tampered numbers or data, another format
    refs = sorted((res.out / "refs").glob("*.npz"))
    ref_keys = set(res.plan.refs)
    damaged = [p for p in refs if p.stem in ref_keys]
    z = dict(np.load(damaged[0], allow_pickle=False))
    damaged[0].write_bytes(damaged[0].read_bytes()[:200])
    damaged[1].write_text("not a zip")
    meta = json.loads(str(z["meta"]))
    alpha = meta["soft"]["alpha"]  # by its non-zero entries
    alpha["value"] = [a * 3 + 1 for a in alpha["value"]]  # no longer optimal
    np.savez(damaged[2], **{**z, "meta": np.array(json.dumps(meta))})
    z3 = dict(np.load(damaged[3], allow_pickle=False))
    z3["data.y"] = -z3["data.y"]  # other data than the key's
    np.savez(damaged[3], **z3)
    shutil.rmtree(res.out / "cells")
    again = mm.study(MINI, res.out, n_jobs=1, report=False)
    assert again.ran == res.cells and len(solves) == 4
    _same_tables(res.table, again.table)


def test_what_a_killed_study_left_is_cleared(mini):
    res, _ = mini
    pid = os.fork()
    if pid == 0:  # pragma: no cover - a process that is gone by the time the study runs
        os._exit(0)
    os.waitpid(pid, 0)
    left = [
        res.out / "cells" / f".x.json.{pid}.abc123.maxmargin-tmp",
        res.out / "refs" / f".y.npz.{pid}.abc123.maxmargin-tmp",
        res.out / f".stage.{pid}.abc123.maxmargin-tmp" / "figures" / "a.png",
    ]
    for p in left:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("half")
    again = mm.study(MINI, res.out, n_jobs=1, report=False)
    assert again.ran == 0
    assert not [p for p in res.out.rglob("*") if "maxmargin-tmp" in p.name]


def test_cell_records_that_are_not_regular_files_count_as_missing(mini, monkeypatch):
    """A FIFO (it would block), a link to /dev/zero (endless), or a file too large to parse."""
    from maxmargin.studies import store

    res, solves = mini
    cells = sorted((res.out / "cells").glob("*.json"))
    fifo, zero, link, big = cells[:4]
    for p in (fifo, zero, link):
        p.unlink()
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    link.symlink_to(cells[4])  # a link, even to a record: not the cell's own file
    limit = 2 * max(p.stat().st_size for p in cells)  # records differ in their timings
    big.write_text(big.read_text() + " " * limit)  # still valid JSON, but over the limit
    monkeypatch.setattr(store, "RECORD_BYTES", limit)
    again = mm.study(MINI, res.out, n_jobs=1, report=False)
    assert again.ran == 4 and again.failed == 0 and solves == []
    _same_tables(res.table, again.table)
    assert all(p.is_file() and not p.is_symlink() for p in (fifo, zero, link))


def test_cached_references_that_are_not_regular_files_are_recomputed(mini):
    res, solves = mini
    refs = sorted(p for p in (res.out / "refs").glob("*.npz") if p.stem in res.plan.refs)
    refs[0].unlink()
    os.mkfifo(refs[0])
    refs[1].unlink()
    refs[1].symlink_to("/dev/zero")
    shutil.rmtree(res.out / "cells")
    again = mm.study(MINI, res.out, n_jobs=1, report=False)
    assert again.ran == res.cells and len(solves) == 2
    _same_tables(res.table, again.table)
