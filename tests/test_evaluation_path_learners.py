"""Tests of maxmargin.evaluation.path.learners: learners run along a path, and its worker pool.

The pool gives the same numbers as serial, and needs no guard.

A script that calls it without ``if __name__ == "__main__":`` used to die with
BrokenProcessPool (spawned workers re-ran the script); joblib's loky workers do not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import maxmargin as mm
import maxmargin.evaluation.path.learners as mpath
from maxmargin import ParameterError, learners_along_path, make_gaussians

SCRIPT = """\
import json, sys
import maxmargin as mm
import maxmargin.evaluation.path.learners as mpath
from maxmargin import make_gaussians
mpath.MIN_POOL_STEPS = 0  # force the pool on this small study, on a busy machine too
mpath._idle_cores = lambda: 2
st = mpath.learners_along_path(make_gaussians(60, 2, seed=3), lam=[1e-2, 1e-1],
                               learners=["pegasos", "pa1"], epochs=4, seed=5, n_jobs=2)
json.dump(st.rel_subopt.tolist(), sys.stdout)
"""


def test_pool_equals_serial_and_needs_no_main_guard(tmp_path, monkeypatch):
    ds = make_gaussians(60, 2, seed=3)
    kw = dict(lam=[1e-2, 1e-1], learners=["pegasos", "pa1"], epochs=4, seed=5)
    serial = learners_along_path(ds, n_jobs=1, **kw)
    monkeypatch.setattr(mpath, "MIN_POOL_STEPS", 0)
    monkeypatch.setattr(mpath, "_idle_cores", lambda: 2)
    pooled = learners_along_path(ds, n_jobs=2, **kw)
    np.testing.assert_array_equal(pooled.rel_subopt, serial.rel_subopt)
    np.testing.assert_array_equal(pooled.epochs_to_eps, serial.epochs_to_eps)
    # a script file without the guard, run as `python script.py`
    script = tmp_path / "noguard.py"
    script.write_text(SCRIPT)
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-2000:]
    np.testing.assert_array_equal(np.array(json.loads(out.stdout)), serial.rel_subopt)


def test_small_studies_and_busy_machines_skip_the_pool(monkeypatch):
    # below MIN_POOL_STEPS, or with no idle core, the runs stay in this process
    def boom(*a, **k):
        raise AssertionError("pool started")

    import joblib

    monkeypatch.setattr(joblib, "Parallel", boom)
    monkeypatch.setattr(mpath, "_idle_cores", lambda: 2)
    kw = dict(lam=[0.1, 1.0], learners=["pa1"], epochs=2, n_jobs=2)
    st = learners_along_path(make_gaussians(40, 2, seed=0), **kw)
    assert st.rel_subopt.shape[:2] == (1, 2)
    monkeypatch.setattr(mpath, "MIN_POOL_STEPS", 0)
    monkeypatch.setattr(mpath, "_idle_cores", lambda: 1)
    learners_along_path(make_gaussians(40, 2, seed=0), **kw)


def test_idle_cores_between_one_and_all():
    assert 1 <= mpath._idle_cores() <= (os.cpu_count() or 1)


def test_learners_along_path_deterministic_and_parallel():
    ds = make_gaussians(60, 2, seed=3)
    kw = dict(lam=[1e-2, 1e-1], learners=["pegasos", "pa1"], epochs=4, seed=5)
    a = learners_along_path(ds, n_jobs=1, **kw)
    b = learners_along_path(ds, n_jobs=2, **kw)
    np.testing.assert_array_equal(a.rel_subopt, b.rel_subopt)
    assert a.rel_subopt.shape[:2] == (2, 2)
    assert np.nanmin(a.rel_subopt) >= -1e-9  # nobody beats the certified optimum
    assert a.epochs_to_eps.shape == (2, 2, 2)
    with pytest.raises(ParameterError):
        learners_along_path(ds, lam=[0.1], learners=["perceptron"])


def test_an_exact_path_is_refused_with_the_reason():
    """The learners run at a grid's lambdas: an ExactPath is refused (was AttributeError)."""
    ds = make_gaussians(40, 2, seed=0)
    ep = mm.regularization_path(ds, 10.0, exact=True)
    with pytest.raises(ParameterError, match="RegularizationPath"):
        learners_along_path(ds, exact=ep, learners=["pegasos"], epochs=1)


def test_study_document_keys_and_read_back():
    st = learners_along_path(
        make_gaussians(30, 2, seed=0), lam=[0.01, 0.1], learners=["pegasos"], epochs=1
    )
    doc = json.loads(st.to_json())
    # the keys of the report's "learners" before the io mechanism, and the times
    assert set(doc) == {
        "lam", "learners", "intercept", "intercept_scaling", "scored_against", "epochs",
        "order", "seed", "t", "n", "F_star", "eps", "final_rel_subopt", "epochs_to_eps",
        "rel_subopt", "seconds", "loss",
    }  # fmt: skip
    final = np.array(doc["final_rel_subopt"]["pegasos"], dtype=float)  # "inf": inf
    assert np.array_equal(final, st.final_rel_subopt[0])
    ept = np.array(doc["epochs_to_eps"]["0.01"]["pegasos"], dtype=float)
    assert np.array_equal(ept, st.epochs_to_eps[1, 0])
    back = mpath.LearnerPathStudy.from_json(doc)
    assert type(back) is type(st) and back.to_json() == st.to_json()
    assert np.array_equal(back.rel_subopt, st.rel_subopt, equal_nan=True)
