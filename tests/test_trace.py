"""maxmargin.trace: a run's arrays and metadata, derived views, files without pickles."""

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from maxmargin import DataError, ParameterError
from maxmargin._version import __version__
from maxmargin.online import OnlineSubgradient, run
from maxmargin.trace import Trace

#: trace/1 pairs written by Trace.save before it went through maxmargin.io (tests/data/)
TRACE1 = Path(__file__).parent / "data" / "trace1"


@pytest.mark.parametrize("name", ["perceptron", "pegasos", "voted_perceptron", "pocket"])
def test_save_load_round_trip(tmp_path, heart, name):
    tr = run(name, heart, epochs=2, order="shuffle", seed=1, record_dual=True)
    npz, js = tr.save(tmp_path)
    assert npz.name == f"{name}.npz" and js.name == f"{name}.json"
    back = Trace.load(tmp_path / name)
    assert back == tr
    with np.load(npz, allow_pickle=False) as z:  # arrays only: no pickle needed
        assert {"t", "w", "b", "mistakes"} <= set(z.files)
        assert z["w"].shape == (len(tr.t), heart.d)
    meta = json.loads(js.read_text())
    assert meta["format"] == "maxmargin.trace/1" and meta["learner"] == name
    assert meta["summary"] == tr.summary()
    tr.save(tmp_path / "other" / "stem.npz")
    assert Trace.load(tmp_path / "other" / "stem.json") == tr


@pytest.mark.parametrize("stem", ["pegasos", "pegasos_paper", "pocket", "voted_perceptron", "mine"])
def test_a_trace1_pair_reads_as_stored_and_writes_back_the_same_bytes(tmp_path, stem):
    """The trace/1 files do not change: array names, dtypes and values, JSON text."""
    tr = Trace.load(TRACE1 / stem)
    with np.load(TRACE1 / f"{stem}.npz", allow_pickle=False) as z:
        stored = {k: z[k] for k in z.files}
    for key, a in stored.items():
        got = tr.extras[key[6:]] if key.startswith("extra_") else getattr(tr, key)
        assert got.dtype == a.dtype and np.array_equal(got, a, equal_nan=True), key
    text = (TRACE1 / f"{stem}.json").read_text()
    old = json.loads(text)["maxmargin_version"]
    npz, js = tr.save(tmp_path / stem)
    assert js.read_text() == text.replace(f'"{old}"', f'"{__version__}"', 1)
    with np.load(npz, allow_pickle=False) as z:
        assert sorted(z.files) == sorted(stored)
        for key, a in stored.items():
            assert z[key].dtype == a.dtype and np.array_equal(z[key], a, equal_nan=True)


def test_equality_compares_every_field(gauss):
    tr = run("pegasos", gauss, epochs=1, record_dual=True)
    assert tr == dataclasses.replace(tr, w=tr.w.copy())
    assert tr != dataclasses.replace(tr, w=tr.w + 1.0)
    assert tr != dataclasses.replace(tr, seed=tr.seed + 1)
    assert tr != dataclasses.replace(tr, extras={"more": np.zeros(1)})
    nan = dataclasses.replace(tr, final_train_error=math.nan)
    assert nan == dataclasses.replace(tr, final_train_error=math.nan)  # nan equals nan here
    with pytest.raises(TypeError):
        hash(tr)


def test_w_tilde_is_the_learner_space(gauss):
    aug = run(("perceptron", {"intercept": "augmented"}), gauss, epochs=1)
    s = 2.0
    learner = OnlineSubgradient(lam=0.1, intercept="augmented", intercept_scaling=s)
    scaled = run(learner, gauss, epochs=1)
    np.testing.assert_array_equal(aug.w_tilde(), np.column_stack([aug.w, aug.b]))
    np.testing.assert_allclose(scaled.w_tilde()[:, -1] * s, scaled.b, rtol=1e-15)
    none = run(OnlineSubgradient(lam=0.1, intercept="none"), gauss, epochs=1)
    assert none.w_tilde().shape == (len(none.t), gauss.d)
    assert (none.b == 0).all()
    np.testing.assert_array_equal(scaled.w_tilde(average=True)[:, :-1], scaled.w_avg)
    with pytest.raises(DataError, match="no averaged iterate"):
        aug.w_tilde(average=True)


def test_divergence_is_located_and_said(gauss):
    tr = run(OnlineSubgradient(lam=1e6, eta0=1e6), gauss, epochs=5)
    assert tr.diverged_at is not None
    k = int(np.searchsorted(tr.t, tr.diverged_at))
    assert tr.finite[:k].all() and not tr.finite[k]
    assert f"step {tr.diverged_at:,}" in tr.divergence()
    assert "DIVERGED" in tr.summary() and math.isnan(tr.final_train_error)
    fine = run("perceptron", gauss, epochs=1)
    assert fine.diverged_at is None and fine.divergence() == "" and fine.finite.all()


def test_derived_fields(gauss):
    tr = run("perceptron", gauss, epochs=3)
    assert tr.steps == 3 * gauss.n == tr.t[-1]
    assert tr.epoch.tolist() == ((tr.t + gauss.n - 1) // gauss.n).tolist()
    assert tr.ns_per_step == pytest.approx(tr.seconds[-1] / tr.steps * 1e9)
    assert set(tr.timings) >= {
        "learn_seconds",
        "setup_seconds",
        "record_seconds",
        "compile_seconds",
        "ns_per_step",
    }


def test_load_refuses_what_is_not_a_trace(tmp_path, gauss):
    with pytest.raises(DataError, match="no such file"):
        Trace.load(tmp_path / "missing")
    npz, js = run("perceptron", gauss).save(tmp_path / "t")
    js.write_text("{not json")
    with pytest.raises(DataError, match="not valid JSON"):
        Trace.load(npz)
    js.write_text(json.dumps({"format": "something/9"}))
    with pytest.raises(DataError, match="not a maxmargin trace"):
        Trace.load(npz)
    tr = run("perceptron", gauss)
    odd = dataclasses.replace(tr, extras={"objects": np.array([object()], dtype=object)})
    with pytest.raises(DataError, match="without pickle"):
        odd.save(tmp_path / "odd")


def test_load_reads_a_plain_npz_of_weights_through_from_weights(tmp_path, gauss):
    tr = run(("pegasos", {"intercept": "free"}), gauss, epochs=2)
    np.savez(
        tmp_path / "mine.npz",
        t=tr.t,
        W=tr.w,
        b=tr.b,
        w_avg=tr.w_avg,
        b_avg=tr.b_avg,
        mistakes=tr.mistakes,
        kind="linear",
    )
    back = Trace.load(tmp_path / "mine.npz", gauss, "free")
    want = Trace.from_weights(
        tr.t,
        tr.w,
        tr.b,
        name="mine",
        data=gauss,
        intercept="free",
        w_avg=tr.w_avg,
        b_avg=tr.b_avg,
        mistakes=tr.mistakes,
        kind="linear",
    )
    assert back == want and back.declares["objective"] is None
    np.testing.assert_array_equal(back.w, tr.w)
    # without b, without intercept: from_weights' rule (no intercept)
    np.savez(tmp_path / "bare.npz", t=tr.t, W=tr.w)
    bare = Trace.load(tmp_path / "bare", gauss)
    assert bare.intercept == "none" and (bare.b == 0).all() and bare.learner == "bare"


def test_load_of_a_pair_is_checked_against_the_data(tmp_path, gauss, heart):
    npz, js = run("perceptron", gauss).save(tmp_path / "p")
    assert Trace.load(js, gauss, "augmented") == Trace.load(npz)  # a pair keeps its own
    with pytest.raises(DataError, match=r"recorded on \(n, d\)"):
        Trace.load(npz, heart)


def _one_line(excinfo):
    return "\n" not in str(excinfo.value)


@pytest.mark.parametrize(
    "name, write, error, msg",
    [
        ("none.npz", None, DataError, "no such file"),
        ("table.csv", b"t,W\n", DataError, "give a .npz file"),
        ("report.json", b"{}", DataError, "report.npz does not exist"),
        ("junk.npz", b"not a zip", DataError, "not a readable .npz"),
        ("no_w.npz", {"t": np.arange(1, 4)}, DataError, "it lacks W"),
        ("no_t_w.npz", {"x": np.arange(1, 4)}, DataError, "it lacks t, W"),
        ("flipped.npz", "flipped", ParameterError, "transposed"),
        ("zero_t.npz", {"t": np.array([0, 1]), "W": np.ones((2, 2))}, ParameterError, "t must"),
    ],
)
def test_load_refuses_each_bad_file_in_one_line(tmp_path, gauss, name, write, error, msg):
    path = tmp_path / name
    if isinstance(write, bytes):
        path.write_bytes(write)
    elif isinstance(write, dict):
        np.savez(path, **write)
    elif write == "flipped":
        tr = run("perceptron", gauss, epochs=2)
        np.savez(path, t=tr.t, W=tr.w.T)
    with pytest.raises(error, match=msg) as excinfo:
        Trace.load(path, gauss)
    assert _one_line(excinfo) and name in str(excinfo.value)


def test_load_of_a_broken_pair_names_what_is_missing_in_one_line(tmp_path, gauss):
    """docs/bad-input.md, "Trace files": the array or key a pair lacks, by name."""
    npz, js = run("perceptron", gauss).save(tmp_path / "p")
    with np.load(npz) as z:
        np.savez(npz, **{k: z[k] for k in z.files if k != "t"})
    with pytest.raises(DataError, match=r"p\.npz: no array 't'$") as e:
        Trace.load(npz)
    assert _one_line(e)
    npz, js = run("perceptron", gauss).save(tmp_path / "q")
    doc = json.loads(js.read_text())
    js.write_text(json.dumps({k: v for k, v in doc.items() if k != "learner"}))
    with pytest.raises(DataError, match="q.json: not a readable maxmargin trace file pair: no 'l"):
        Trace.load(npz)
    js.write_text(json.dumps({**doc, "n": "x"}))
    with pytest.raises(DataError, match="'n': expected an integer, got 'x'") as e:
        Trace.load(npz)
    assert _one_line(e)


def test_load_of_a_plain_npz_needs_the_data(tmp_path, gauss):
    np.savez(tmp_path / "w.npz", t=np.array([1, 2]), W=np.ones((2, gauss.d)))
    with pytest.raises(ParameterError, match="data="):
        Trace.load(tmp_path / "w.npz")
