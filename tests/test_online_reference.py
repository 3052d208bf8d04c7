"""Each online learner against a naive pure-Python loop over the same schedule."""

import numpy as np
import pytest
import scipy.sparse as sp

from maxmargin import Dataset
from maxmargin.online import (
    LEARNERS,
    DualPerceptron,
    Pegasos,
    Pocket,
    resolve,
    run,
    schedule,
    voted_decision_function,
)

EPOCHS = 3
ORDERS = ["cyclic", "shuffle", "sample"]
INTERCEPTS = ["none", "augmented"]


# the data set `gauss` is a fixture of conftest.py


def Z_of(ds, intercept, s=1.0):
    X = ds.dense()
    if intercept == "augmented":
        return np.hstack([X, np.full((ds.n, 1), s)])
    return np.hstack([X, np.zeros((ds.n, 1))])


def close(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(1.0, float(np.max(np.abs(b))))
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * scale)


def wt_of(tr, k=-1):
    return tr.w_tilde()[k] if tr.intercept == "augmented" else np.append(tr.w[k], 0.0)


# ------------------------------------------------------------------ naive loops


def ref_perceptron(Z, y, idx):
    w = np.zeros(Z.shape[1])
    ws, M, L, Q = [], 0, 0.0, 0.0
    for i in idx:
        m = y[i] * (w @ Z[i])
        L += max(0.0, 1 - m)
        Q += w @ w
        if m <= 0:
            M += 1
            w = w + y[i] * Z[i]
        ws.append(w.copy())
    return w, np.mean(ws, axis=0), M, L, Q


def ref_pegasos(Z, y, idx, lam, proj, n, k=1):
    w = np.zeros(Z.shape[1])
    theta = np.zeros_like(w)
    r = 1 / np.sqrt(lam)
    iterates, L, Q = [], 0.0, 0.0
    batches = [
        idx[e * n : (e + 1) * n][j : j + k] for e in range(len(idx) // n) for j in range(0, n, k)
    ]
    for t, B in enumerate(batches, start=1):
        iterates.append(w.copy())
        g = np.zeros_like(w)
        for i in B:
            m = y[i] * (w @ Z[i])
            L += max(0.0, 1 - m)
            Q += w @ w
            if m < 1:
                g += y[i] * Z[i] / len(B)
        if proj == "greedy":
            eta = 1 / (lam * (t + 1))
            w = (1 - eta * lam) * w + eta * g
        else:
            theta = theta + g
            w = theta / (lam * (t + 1))
        if proj and np.linalg.norm(w) > r:
            w = w * r / np.linalg.norm(w)
    return w, np.mean(iterates, axis=0), L, Q


def ref_osd(Z, y, idx, lam, eta0):
    w = np.zeros(Z.shape[1])
    iterates = []
    for t, i in enumerate(idx, start=1):
        iterates.append(w.copy())
        eta = eta0 / np.sqrt(t)
        g = lam * w - (y[i] * Z[i] if y[i] * (w @ Z[i]) < 1 else 0)
        w = w - eta * g
    return w, np.mean(iterates, axis=0)


def ref_pa(Z, y, idx, variant, C):
    w = np.zeros(Z.shape[1])
    for i in idx:
        ell = max(0.0, 1 - y[i] * (w @ Z[i]))
        q = Z[i] @ Z[i]
        tau = {"pa": ell / q, "pa1": min(C, ell / q), "pa2": ell / (q + 1 / (2 * C))}[variant]
        w = w + tau * y[i] * Z[i]
    return w


# ------------------------------------------------------------------ tests


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_perceptron_family(gauss, order, intercept):
    Z, y = Z_of(gauss, intercept), gauss.y
    idx = schedule(gauss.n, EPOCHS, order, seed=5)
    w, wbar, M, L, Q = ref_perceptron(Z, y, idx)
    kw = dict(epochs=EPOCHS, order=order, seed=5, record_dual=True)
    tr = run(resolve("perceptron", intercept=intercept), gauss, **kw)
    close(wt_of(tr), w)
    assert tr.mistakes[-1] == M
    close(tr.loss[-1], L)
    close(tr.sqnorm[-1], Q)
    close(Z.T @ (tr.dual[-1] * y), w)  # implied dual point
    av = run(resolve("averaged_perceptron", intercept=intercept), gauss, **kw)
    close(wt_of(av), wbar)
    close(Z.T @ (av.dual[-1] * y), wbar)
    vo = run(resolve("voted_perceptron", intercept=intercept), gauss, **kw)
    close(
        vo.w_tilde(average=True)[-1] if intercept == "augmented" else np.append(vo.w_avg[-1], 0),
        wbar,
    )
    du = run(DualPerceptron(intercept=intercept), gauss, **kw)
    close(wt_of(du), w)
    np.testing.assert_array_equal(du.dual[-1], tr.dual[-1])


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_voted_vote_matches_naive(gauss, intercept):
    Z, y = Z_of(gauss, intercept), gauss.y
    idx = schedule(gauss.n, 2, "shuffle", 2)
    w, vs, cs = np.zeros(Z.shape[1]), [np.zeros(Z.shape[1])], [0]
    for i in idx:
        if y[i] * (w @ Z[i]) <= 0:
            w = w + y[i] * Z[i]
            vs.append(w.copy())
            cs.append(1)
        else:
            cs[-1] += 1
    vote = sum(c * np.sign(Z @ v) for v, c in zip(vs, cs, strict=True))
    tr = run(
        resolve("voted_perceptron", intercept=intercept),
        gauss,
        epochs=2,
        order="shuffle",
        seed=2,
    )
    close(voted_decision_function(tr, gauss, gauss.X), vote)
    assert tr.final_train_error == np.mean(y * vote <= 0)


def test_dual_perceptron_rbf(gauss):
    X, y = gauss.dense(), gauss.y
    sq = (X * X).sum(1)
    K = np.exp(-0.5 * (sq[:, None] + sq[None] - 2 * X @ X.T)) + 1.0
    c = np.zeros(gauss.n)
    for i in schedule(gauss.n, EPOCHS, "shuffle", 1):
        if y[i] * (K[i] @ (c * y)) <= 0:
            c[i] += 1
    tr = run(DualPerceptron(kernel="rbf", gamma=0.5), gauss, epochs=EPOCHS, order="shuffle", seed=1)
    np.testing.assert_array_equal(tr.dual[-1], c)
    assert np.isnan(tr.w).all()
    close(tr.b[-1], (c * y).sum())


@pytest.mark.parametrize("gram_max", [0, 4096])
@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_pocket(gauss, intercept, gram_max):
    Z, y = Z_of(gauss, intercept), gauss.y
    w, best, best_err = np.zeros(Z.shape[1]), np.zeros(Z.shape[1]), gauss.n
    for i in schedule(gauss.n, EPOCHS, "sample", 4):
        if y[i] * (w @ Z[i]) <= 0:
            w = w + y[i] * Z[i]
            err = int(np.sum(y * (Z @ w) <= 0))
            if err < best_err:
                best, best_err = w.copy(), err
    tr = run(
        Pocket(intercept=intercept, gram_max=gram_max), gauss, epochs=EPOCHS, order="sample", seed=4
    )
    close(wt_of(tr), best)
    assert tr.extras["pocket_errors"][-1] == best_err
    assert tr.final_train_error == best_err / gauss.n


@pytest.mark.parametrize("proj", [None, "lazy", "greedy"])
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_pegasos(gauss, proj, order, intercept):
    lam = 0.05
    Z, y = Z_of(gauss, intercept), gauss.y
    idx = schedule(gauss.n, EPOCHS, order, seed=7)
    w, wbar, L, Q = ref_pegasos(Z, y, idx, lam, proj, gauss.n)
    tr = run(
        Pegasos(lam=lam, projection=proj, intercept=intercept),
        gauss,
        epochs=EPOCHS,
        order=order,
        seed=7,
        record_dual=True,
    )
    close(wt_of(tr), w)
    close(
        tr.w_tilde(average=True)[-1] if intercept == "augmented" else np.append(tr.w_avg[-1], 0),
        wbar,
    )
    close(tr.loss[-1], L)
    close(tr.sqnorm[-1], Q)
    close(Z.T @ (tr.dual[-1] * y), w)
    close(Z.T @ (tr.dual_avg[-1] * y), wbar)


@pytest.mark.parametrize("proj", [None, "lazy", "greedy"])
@pytest.mark.parametrize("k", [2, 5])
def test_pegasos_minibatch(gauss, proj, k):
    lam = 0.05
    Z, y = Z_of(gauss, "augmented"), gauss.y
    idx = schedule(gauss.n, EPOCHS, "shuffle", seed=3)
    w, wbar, L, Q = ref_pegasos(Z, y, idx, lam, proj, gauss.n, k=k)
    tr = run(
        Pegasos(lam=lam, projection=proj, batch_size=k, intercept="augmented"),
        gauss,
        epochs=EPOCHS,
        order="shuffle",
        seed=3,
        record_dual=True,
    )
    close(tr.w_tilde()[-1], w)
    close(tr.w_tilde(average=True)[-1], wbar)
    close(tr.loss[-1], L)
    close(Z.T @ (tr.dual[-1] * y), w)


@pytest.mark.parametrize("eta0,lam", [(0.3, 0.05), (1.0, 1.0), (2.0, 0.1)])
@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_subgradient(gauss, intercept, eta0, lam):
    # (1, 1): eta_1 lam = 1 resets the scale; (2, 0.1): eta_1 lam > 0 still
    Z, y = Z_of(gauss, intercept), gauss.y
    idx = schedule(gauss.n, EPOCHS, "shuffle", seed=9)
    w, wbar = ref_osd(Z, y, idx, lam, eta0)
    tr = run(
        resolve("subgradient", lam=lam, eta0=eta0, intercept=intercept),
        gauss,
        epochs=EPOCHS,
        order="shuffle",
        seed=9,
        record_dual=True,
    )
    close(wt_of(tr), w)
    close(
        tr.w_tilde(average=True)[-1] if intercept == "augmented" else np.append(tr.w_avg[-1], 0),
        wbar,
    )
    close(Z.T @ (tr.dual[-1] * y), w)


@pytest.mark.parametrize("variant", ["pa", "pa1", "pa2"])
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_pa(gauss, variant, order, intercept):
    Z, y = Z_of(gauss, intercept), gauss.y
    idx = schedule(gauss.n, EPOCHS, order, seed=11)
    C = 0.2
    w = ref_pa(Z, y, idx, variant, C)
    params = {} if variant == "pa" else {"C": C}
    tr = run(
        resolve(variant, intercept=intercept, **params),
        gauss,
        epochs=EPOCHS,
        order=order,
        seed=11,
        record_dual=True,
    )
    close(wt_of(tr), w)
    close(Z.T @ (tr.dual[-1] * y), w)


@pytest.mark.parametrize("variant", ["winnow1", "winnow2"])
@pytest.mark.parametrize("sparse", [False, True])
def test_winnow(variant, sparse):
    rng = np.random.default_rng(0)
    X = (rng.random((60, 12)) < 0.3).astype(float)
    y = np.where(X[:, 1] + X[:, 5] > 0, 1.0, -1.0)
    w, M = np.ones(12), 0
    for i in schedule(60, 4, "shuffle", 0):
        pred = 1.0 if w @ X[i] > 12 else -1.0
        if pred != y[i]:
            M += 1
            fac = 2.0 if y[i] > 0 else (0.0 if variant == "winnow1" else 0.5)
            w = np.where(X[i] == 1, w * fac, w)
    ds = Dataset(sp.csr_matrix(X) if sparse else X, y)
    tr = run(resolve("winnow", variant=variant), ds, epochs=4, order="shuffle", seed=0)
    close(tr.w[-1], w)
    assert tr.mistakes[-1] == M and tr.b[-1] == -12


@pytest.mark.parametrize("name", [n for n in LEARNERS if n != "winnow"])
def test_sparse_equals_dense(gauss, name):
    sparse = Dataset(sp.csr_matrix(gauss.X), gauss.y, name="sparse")
    kw = dict(epochs=2, order="shuffle", seed=1)
    a = run(name, gauss, **kw)
    b = run(name, sparse, **kw)
    close(a.w, b.w)
    assert np.array_equal(a.mistakes, b.mistakes)


def test_intermediate_checkpoints_match_reference(gauss):
    Z, y = Z_of(gauss, "augmented"), gauss.y
    idx = schedule(gauss.n, EPOCHS, "shuffle", 5)
    tr = run(
        resolve("perceptron", intercept="augmented"),
        gauss,
        epochs=EPOCHS,
        order="shuffle",
        seed=5,
        checkpoints=[1, 5, 50, 74],
    )
    assert tr.t.tolist() == [1, 5, 50, 74, EPOCHS * gauss.n]
    for k, t in enumerate(tr.t):
        w, _, M, _, _ = ref_perceptron(Z, y, idx[:t])
        close(tr.w_tilde()[k], w)
        assert tr.mistakes[k] == M
