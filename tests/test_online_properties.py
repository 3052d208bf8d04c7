"""Properties of the online learners: mistake bounds, convergence, determinism, files, errors."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxmargin import (
    DataError,
    Dataset,
    ParameterError,
    SVMProblem,
    load,
    make_gaussians,
    make_separable,
)
from maxmargin.online import (
    LEARNERS,
    Pegasos,
    Perceptron,
    Winnow,
    default_checkpoints,
    resolve,
    run,
    schedule,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data_seed=st.integers(0, 10_000),
    seed=st.integers(0, 2**31),
    order=st.sampled_from(["cyclic", "shuffle", "sample"]),
    margin=st.sampled_from([0.2, 0.5, 1.0]),
)
def test_novikoff_bound(data_seed, seed, order, margin):
    # intercept none with offset 0: gamma is exactly meta["margin"] for the raw features
    ds = make_separable(30, 3, margin=margin, seed=data_seed, offset=0.0)
    bound = (ds.R / ds.meta["margin"]) ** 2
    epochs = int(bound) + 2
    tr = run(Perceptron(intercept="none"), ds, epochs=epochs, order=order, seed=seed)
    assert tr.mistakes[-1] <= bound
    if order != "sample":  # a full pass without a mistake once converged
        assert tr.final_train_error == 0.0
        ends = tr.mistakes[np.isin(tr.t, np.arange(1, epochs + 1) * ds.n)]
        assert ends[-1] == ends[-2]


def test_pegasos_averaged_objective_decreases():
    ds = make_gaussians(200, 5, separation=2.0, seed=0)
    lam = 0.05
    problem = SVMProblem(ds, lam=lam, intercept="augmented")
    tr = run(Pegasos(lam=lam), ds, epochs=20, order="sample", seed=0)
    ends = np.isin(tr.t, np.arange(1, 21) * ds.n)
    F = problem.lambda_objective(tr.w_avg[ends], tr.b_avg[ends])
    assert np.all(np.diff(F) <= 1e-3 * F[0])  # decreasing epoch over epoch (up to noise)
    assert F[-1] < F[0]
    Fall = problem.lambda_objective(tr.w_avg, tr.b_avg)
    assert np.all(np.diff(Fall[1:]) <= 1e-3 * Fall[1:-1])  # and checkpoint over checkpoint
    assert Fall[-1] < 0.1 * Fall[1]


@pytest.mark.parametrize("proj", ["lazy", "greedy"])
def test_pegasos_projection_keeps_ball(proj):
    ds = make_gaussians(80, 4, seed=1)
    ds = Dataset(ds.X * 20, ds.y)  # big x: the unprojected iterate leaves the ball
    lam = 0.5
    r = 1 / np.sqrt(lam)
    free = run(Pegasos(lam=lam), ds, epochs=2, checkpoints=np.arange(1, 161))
    assert np.linalg.norm(free.w_tilde(), axis=1).max() > r
    tr = run(Pegasos(lam=lam, projection=proj), ds, epochs=2, checkpoints=np.arange(1, 161))
    assert np.linalg.norm(tr.w_tilde(), axis=1).max() <= r * (1 + 1e-12)
    assert np.linalg.norm(tr.w_tilde(average=True), axis=1).max() <= r * (1 + 1e-12)


@pytest.mark.parametrize("name", [n for n in LEARNERS if n != "winnow"])
def test_same_seed_same_trace(name):
    ds = make_gaussians(50, 3, seed=2)
    a = run(name, ds, epochs=2, order="sample", seed=3, record_dual=True)
    b = run(name, ds, epochs=2, order="sample", seed=3, record_dual=True)
    for f in ("t", "w", "b", "mistakes", "loss", "sqnorm", "w_avg", "dual", "dual_avg"):
        x, y = getattr(a, f), getattr(b, f)
        assert (x is None and y is None) or np.array_equal(x, y, equal_nan=True), f
    c = run(name, ds, epochs=2, order="sample", seed=4)
    assert not np.array_equal(schedule(50, 2, "sample", 3), schedule(50, 2, "sample", 4))
    assert c.t[-1] == a.t[-1]


def test_checkpoints_and_trace_fields():
    ds = make_gaussians(100, 3, seed=0)
    tr = run("pegasos", ds, epochs=3)
    assert set(np.arange(1, 4) * 100) <= set(tr.t.tolist())
    assert tr.t[0] == 1 and np.all(np.diff(tr.t) > 0)
    assert np.all(np.diff(tr.seconds) >= 0) and np.all(np.diff(tr.mistakes) >= 0)
    assert tr.epoch.tolist() == ((tr.t + 99) // 100).tolist()
    assert default_checkpoints(1000, 1).size < 40
    mb = run(Pegasos(batch_size=7), ds, epochs=2, checkpoints=[1, 50, 101])
    assert mb.t.tolist() == [7, 56, 107, 200]  # ends of batches within each epoch
    assert "ns/step" in tr.summary()


def test_sparse_heart_scale_runs():
    ds = load("builtin:heart_scale")
    assert ds.is_sparse
    for name in ("perceptron", "pegasos"):
        tr = run(name, ds, epochs=5, order="shuffle", seed=0)
        assert 0 <= tr.final_train_error < 0.5


def test_record_dual_ignored_without_dual():
    tr = run("pocket", make_gaussians(30, 2, seed=0), record_dual=True)
    assert tr.dual is None


def test_bad_inputs():
    ds = make_gaussians(20, 2, seed=0)
    for lam in (0, -1.0, float("nan")):
        with pytest.raises(ParameterError, match="lam"):
            Pegasos(lam=lam)
        with pytest.raises(ParameterError, match="lam"):
            resolve("subgradient", lam=lam)
    with pytest.raises(ParameterError, match="epochs"):
        run("perceptron", ds, epochs=0)
    with pytest.raises(ParameterError, match="order"):
        run("perceptron", ds, order="random")
    with pytest.raises(ParameterError, match="seed"):
        run("perceptron", ds, seed=-1)
    with pytest.raises(DataError, match=r"\{0, 1\}"):
        run(Winnow(), ds)
    with pytest.raises(ParameterError, match="'augmented' or 'free', not 'bias'"):
        Perceptron(intercept="bias")
    with pytest.raises(ParameterError, match="supports intercept 'none'"):
        Winnow(intercept="augmented")
    with pytest.raises(ParameterError, match="unknown learner"):
        resolve("svm")
    with pytest.raises(ParameterError, match="accepts"):
        resolve("perceptron", lam=1.0)
    with pytest.raises(ParameterError, match="checkpoints"):
        run("perceptron", ds, checkpoints=[0, 5])
    with pytest.raises(ParameterError, match="projection"):
        Pegasos(projection="ball")
    with pytest.raises(ParameterError, match="Dataset"):
        run("perceptron", np.zeros((3, 2)))
    with pytest.raises(ParameterError, match="max_n"):
        run(resolve("dual_perceptron", max_n=10), ds)
    ok = Dataset(sp.csr_matrix((ds.X > 0).astype(float)), ds.y)
    assert run(Winnow(), ok).w.shape[1] == 2  # binary sparse features are fine
