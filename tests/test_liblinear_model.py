"""LIBLINEAR model files: written as save_model does, read back as load_model does.

The format of LIBLINEAR's save_model, read back the way its load_model / predict do, and (when
the liblinear-official bindings are installed) by LIBLINEAR itself.
"""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest
import scipy.sparse as sp

from maxmargin import Dataset, SVMProblem, make_gaussians, make_separable, solve
from maxmargin.exceptions import DataError, OutputError, ParameterError
from maxmargin.liblinear_model import liblinear_model_text, write_liblinear_model


def load_like_liblinear(text: str) -> dict:
    """LIBLINEAR's load_model (linear.cpp): keyword lines until ``w``, then the weights.

    An independent reader for the tests: whitespace-separated tokens, the same keywords,
    ``nr_feature + 1`` weights when ``bias >= 0``.
    """
    tok = text.split()
    model: dict = {}
    i = 0
    while True:
        cmd = tok[i]
        i += 1
        if cmd == "w":
            break
        if cmd == "solver_type":
            model["solver_type"], i = tok[i], i + 1
        elif cmd in ("nr_class", "nr_feature"):
            model[cmd], i = int(tok[i]), i + 1
        elif cmd == "bias":
            model["bias"], i = float(tok[i]), i + 1
        elif cmd == "label":
            model["label"] = [int(t) for t in tok[i : i + model["nr_class"]]]
            i += model["nr_class"]
        else:
            raise AssertionError(f"LIBLINEAR would reject the model: unknown text {cmd!r}")
    n = model["nr_feature"] + (1 if model["bias"] >= 0 else 0)
    model["w"] = np.array([float(t) for t in tok[i : i + n]])
    assert len(tok) == i + n, "trailing text after the weights"
    return model


def predict_like_liblinear(model: dict, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LIBLINEAR's predict: the bias feature appended, label[0] when the score is > 0."""
    d = model["nr_feature"]
    Z = X[:, :d]
    if model["bias"] >= 0:
        Z = np.hstack([Z, np.full((X.shape[0], 1), model["bias"])])
    dec = Z @ model["w"]
    return np.where(dec > 0, model["label"][0], model["label"][1]), dec


@pytest.mark.parametrize("intercept", ["free", "augmented", "none"])
def test_the_file_gives_the_same_decision_function(intercept, tmp_path):
    ds = make_gaussians(200, 5, seed=1)
    sol = solve(SVMProblem(ds, C=0.7, intercept=intercept, intercept_scaling=3.0))
    out = write_liblinear_model(sol, tmp_path / "model")
    model = load_like_liblinear(out.read_text())
    assert model["solver_type"] == "L2R_L1LOSS_SVC_DUAL" and model["nr_class"] == 2
    assert model["label"] == [1, -1] and model["nr_feature"] == 5
    assert model["bias"] == {"free": 1.0, "augmented": 3.0, "none": -1.0}[intercept]
    np.testing.assert_array_equal(model["w"][:5], sol.w)  # 17 digits read back exactly
    if intercept == "free":
        assert model["w"][5] == sol.b
    labels, dec = predict_like_liblinear(model, ds.X)
    f = sol.decision_function(ds)
    np.testing.assert_allclose(dec, f, rtol=0, atol=1e-12 * (1 + np.abs(f).max()))
    np.testing.assert_array_equal(labels, np.where(f > 0, 1, -1))


def test_original_labels_and_header_order(tmp_path):
    base = make_separable(60, 3, seed=2)
    ds = Dataset.from_labels(base.X, np.where(base.y > 0, 7, 0), positive=7)
    sol = solve(SVMProblem(ds, C=1.0))
    text = liblinear_model_text(sol)
    # LIBLINEAR's save_model order: solver_type, nr_class, label, nr_feature, bias, w
    assert [ln.split()[0] for ln in text.splitlines()[:6]] == [
        "solver_type",
        "nr_class",
        "label",
        "nr_feature",
        "bias",
        "w",
    ]
    model = load_like_liblinear(text)
    assert model["label"] == [7, 0]
    labels, _ = predict_like_liblinear(model, ds.X)
    np.testing.assert_array_equal(labels, np.where(base.y > 0, 7, 0))  # separable: all right
    assert load_like_liblinear(liblinear_model_text(sol, labels=(2, 1)))["label"] == [2, 1]


def test_a_fitted_estimator(tmp_path):
    pytest.importorskip("sklearn")
    from maxmargin.estimators import ExactSVC, PegasosClassifier

    ds = make_gaussians(150, 4, seed=3)
    y = np.where(ds.y > 0, 2, 1)
    X = sp.csr_matrix(ds.X)
    for clf in (
        ExactSVC(C=2.0, intercept="augmented", intercept_scaling=0.5).fit(X, y),
        PegasosClassifier(lam=0.01, epochs=3).fit(X, y),
    ):
        model = load_like_liblinear(write_liblinear_model(clf, tmp_path / "m").read_text())
        assert model["label"] == [2, 1]
        labels, dec = predict_like_liblinear(model, ds.X)
        np.testing.assert_allclose(dec, clf.decision_function(X), atol=1e-12)
        np.testing.assert_array_equal(labels, clf.predict(X))
    strings = ExactSVC().fit(ds.X, np.where(ds.y > 0, "yes", "no"))
    with pytest.raises(ParameterError, match="integers"):
        liblinear_model_text(strings)
    assert load_like_liblinear(liblinear_model_text(strings, labels=(1, 0)))["label"] == [1, 0]


def test_bad_input_is_refused_and_the_old_file_kept(tmp_path):
    sol = solve(SVMProblem(make_separable(20, 2, seed=4), C=1.0))
    out = tmp_path / "model"
    out.write_text("old content\n")
    for bad in [
        dict(labels=(1, 1)),
        dict(labels=(1.5, 0)),
        dict(labels=("a", "b")),
        dict(labels=(True, False)),
        dict(labels=(1,)),
    ]:
        with pytest.raises(ParameterError):
            write_liblinear_model(sol, out, **bad)
    with pytest.raises(ParameterError, match="ExactSolution"):
        write_liblinear_model(object(), out)
    broken = sol.__class__(**{**sol.__dict__, "w": np.array([np.nan, 1.0])})
    with pytest.raises(DataError, match="non-finite"):
        write_liblinear_model(broken, out)
    with pytest.raises(OutputError, match="cannot write"):
        write_liblinear_model(sol, tmp_path / "missing" / "model")
    with pytest.raises(OutputError, match="directory"):
        write_liblinear_model(sol, tmp_path)
    assert out.read_text() == "old content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]  # no temporary left
    write_liblinear_model(sol, out)
    assert out.read_text().startswith("solver_type") and os.listdir(tmp_path) == ["model"]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


# --------------------------------------------------------------------------- LIBLINEAR


def _liblinear():
    return pytest.importorskip(
        "liblinear.liblinearutil",
        reason="LIBLINEAR's Python bindings (pip install liblinear-official; an sdist, "
        "built with a C++ compiler) are not installed",
    )


@pytest.mark.parametrize("intercept", ["free", "augmented", "none"])
def test_liblinear_loads_and_predicts_the_same(intercept, tmp_path):
    ll = _liblinear()
    ds = make_gaussians(300, 6, seed=5)
    X = sp.csr_matrix(ds.X)
    sol = solve(SVMProblem(ds, C=0.3, intercept=intercept, intercept_scaling=2.0))
    model = ll.load_model(str(write_liblinear_model(sol, tmp_path / "model")))
    assert model is not None
    labels, _, values = ll.predict(ds.y, X, model, "-q")
    f = sol.decision_function(ds)
    np.testing.assert_allclose(np.asarray(values).ravel(), f, atol=1e-12 * (1 + abs(f).max()))
    np.testing.assert_array_equal(np.asarray(labels), np.where(f > 0, 1.0, -1.0))


def test_liblinear_trains_the_augmented_solution(tmp_path):
    # train -s 3 -B s -c C solves the augmented problem: its saved model has our header,
    # and its weights agree with the certified optimum to LIBLINEAR's accuracy
    ll = _liblinear()
    ds = make_gaussians(300, 4, seed=0)
    sol = solve(SVMProblem(ds, C=0.5, intercept="augmented", intercept_scaling=2.0))
    theirs = ll.train(ds.y, sp.csr_matrix(ds.X), "-s 3 -c 0.5 -B 2 -e 1e-8 -q")
    ll.save_model(str(tmp_path / "theirs"), theirs)
    ours = write_liblinear_model(sol, tmp_path / "ours").read_text()
    their_text = (tmp_path / "theirs").read_text()
    assert their_text.splitlines()[:6] == ours.splitlines()[:6]
    w_theirs = load_like_liblinear(their_text)["w"]
    np.testing.assert_allclose(w_theirs, load_like_liblinear(ours)["w"], atol=1e-5)
