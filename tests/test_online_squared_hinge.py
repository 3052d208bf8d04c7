"""The online learners on the squared hinge (issue 25): naive loops, declarations, refusals."""

import math

import numpy as np
import pytest

from maxmargin import io
from maxmargin.exceptions import ParameterError
from maxmargin.online import OnlineSubgradient, Pegasos, resolve, run, schedule
from maxmargin.online.learner import Declared, scoring

EPOCHS = 3


def Z_of(ds, intercept, s=1.0):
    X = ds.dense()
    last = np.full((ds.n, 1), s if intercept == "augmented" else 0.0)
    return np.hstack([X, last])


def close(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(1.0, float(np.max(np.abs(b))))
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * scale)


def wt_of(tr, k=-1):
    return tr.w_tilde()[k] if tr.intercept == "augmented" else np.append(tr.w[k], 0.0)


# ------------------------------------------------------------------ naive loops


def ref_osd_sq(X, y, idx, lam, eta0, free=False, s=1.0, sw=None):
    """w <- w - eta (lam w - 2 xi y z), the bias (free) without the shrink; eta0/sqrt(t)."""
    w, beta = np.zeros(X.shape[1]), 0.0
    L = 0.0
    ws = []
    for t, i in enumerate(idx, start=1):
        ws.append(np.append(w, beta))
        xi = max(0.0, 1.0 - y[i] * (w @ X[i] + s * beta))
        c = 1.0 if sw is None else sw[i]
        L += c * xi * xi
        eta = eta0 / np.sqrt(t)
        g = 2.0 * xi * y[i] * c
        w = w - eta * (lam * w - g * X[i])
        if free:
            beta = beta + eta * g * s
    return np.append(w, beta), np.mean(ws, axis=0), L


def ref_pegasos_sq(Z, y, idx, lam, proj, n, k=1):
    """Pegasos on lam/2 ||w||^2 + xi^2: g = batch mean of 2 xi y z; radius 1/sqrt(2 lam)."""
    w = np.zeros(Z.shape[1])
    theta = np.zeros_like(w)
    r = 1 / np.sqrt(2 * lam)
    iterates, L, Q = [], 0.0, 0.0
    batches = [
        idx[e * n : (e + 1) * n][j : j + k] for e in range(len(idx) // n) for j in range(0, n, k)
    ]
    for t, B in enumerate(batches, start=1):
        iterates.append(w.copy())
        g = np.zeros_like(w)
        for i in B:
            xi = max(0.0, 1 - y[i] * (w @ Z[i]))
            L += xi * xi
            Q += w @ w
            g += 2 * xi * y[i] * Z[i] / len(B)
        if proj == "greedy":
            eta = 1 / (lam * (t + 1))
            w = (1 - eta * lam) * w + eta * g
        else:
            theta = theta + g
            w = theta / (lam * (t + 1))
        if np.linalg.norm(w) > r:
            w = w * r / np.linalg.norm(w)
    return w, np.mean(iterates, axis=0), L, Q


# ------------------------------------------------------------------ against the loops


@pytest.mark.parametrize("eta0,lam", [(0.1, 0.05), (0.5, 2.0), (0.05, 0.1)])
@pytest.mark.parametrize("intercept", ["none", "augmented", "free"])
def test_subgradient_matches_the_naive_loop(gauss, intercept, eta0, lam):
    # (0.5, 2): eta_1 lam = 1 resets the scale
    y = gauss.y
    idx = schedule(gauss.n, EPOCHS, "shuffle", seed=9)
    free = intercept == "free"
    X = gauss.dense() if free else Z_of(gauss, intercept)
    w, wbar, L = ref_osd_sq(X, y, idx, lam, eta0, free=free)
    if not free:  # the loop's bias slot stays 0: the bias is the last entry of z
        w, wbar = w[:-1], wbar[:-1]
    tr = run(
        resolve("subgradient", lam=lam, eta0=eta0, intercept=intercept, loss="squared_hinge"),
        gauss,
        epochs=EPOCHS,
        order="shuffle",
        seed=9,
        record_dual=True,
    )
    if free:
        close(np.append(tr.w[-1], tr.b[-1]), w)
        close(np.append(tr.w_avg[-1], tr.b_avg[-1]), wbar)
        close(gauss.dense().T @ (tr.dual[-1] * y), w[:-1])
    else:
        close(wt_of(tr), w)
        close(
            tr.w_tilde(average=True)[-1]
            if intercept == "augmented"
            else np.append(tr.w_avg[-1], 0),
            wbar,
        )
        close(X.T @ (tr.dual[-1] * y), w)
    close(tr.loss[-1], L)


def test_subgradient_weighted_matches_the_naive_loop(gauss):
    sw = np.linspace(0.0, 2.0, gauss.n)  # a zero weight too: that step changes nothing
    idx = schedule(gauss.n, EPOCHS, "cyclic", seed=0)
    X = Z_of(gauss, "augmented")
    w, _, L = ref_osd_sq(X, gauss.y, idx, 0.1, 0.2, sw=sw)
    tr = run(
        OnlineSubgradient(lam=0.1, eta0=0.2, intercept="augmented", loss="squared_hinge"),
        gauss,
        epochs=EPOCHS,
        order="cyclic",
        sample_weight=sw,
    )
    close(tr.w_tilde()[-1], w[:-1])
    close(tr.loss[-1], L)


@pytest.mark.parametrize("proj", ["lazy", "greedy"])
@pytest.mark.parametrize("k", [1, 4])
@pytest.mark.parametrize("intercept", ["none", "augmented"])
def test_pegasos_matches_the_naive_loop(gauss, proj, k, intercept):
    lam = 0.05
    Z, y = Z_of(gauss, intercept), gauss.y
    idx = schedule(gauss.n, EPOCHS, "shuffle", seed=7)
    w, wbar, L, Q = ref_pegasos_sq(Z, y, idx, lam, proj, gauss.n, k=k)
    tr = run(
        Pegasos(lam=lam, projection=proj, batch_size=k, intercept=intercept, loss="squared_hinge"),
        gauss,
        epochs=EPOCHS,
        order="shuffle",
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
    # the projection keeps every iterate in the ball that holds the L2-loss optimum
    assert np.all(np.linalg.norm(tr.w_tilde(), axis=1) <= 1 / math.sqrt(2 * lam) * (1 + 1e-12))


def test_the_hinge_is_the_default_and_unchanged(gauss):
    # loss="hinge" given is the default, bit for bit
    kw = dict(epochs=2, order="shuffle", seed=1, record_dual=True)
    a = run(Pegasos(lam=0.1, projection="greedy"), gauss, **kw)
    b = run(Pegasos(lam=0.1, projection="greedy", loss="hinge"), gauss, **kw)
    np.testing.assert_array_equal(a.w, b.w)
    np.testing.assert_array_equal(a.loss, b.loss)
    c = run(OnlineSubgradient(lam=0.1, loss="squared_hinge"), gauss, **kw)
    assert not np.array_equal(a.loss, c.loss)


# ------------------------------------------------------------------ declarations


def test_declarations_say_the_loss(gauss):
    sub = OnlineSubgradient(lam=0.1, loss="squared_hinge")
    peg = Pegasos(lam=0.1, projection="greedy", loss="squared_hinge", intercept="none")
    assert sub.loss == peg.loss == "squared_hinge"
    assert Pegasos(lam=0.1).loss == "hinge"
    # the objective is still the lambda form, of the squared-hinge problem
    assert scoring(sub) == scoring(peg) == "objective"
    d = Declared.of(peg, R=2.0)
    assert d.loss == "squared_hinge" and io.from_dict(Declared, d.to_dict()) == d
    assert io.from_dict(Declared, {"name": "old", "objective": "lambda"}).loss == "hinge"
    tr = run(sub, gauss, epochs=1)
    assert tr.declares["loss"] == "squared_hinge"
    # a hinge learner records the parameters it recorded before loss= existed
    assert "loss" not in Pegasos(lam=0.1).get_params()
    assert sub.get_params()["loss"] == "squared_hinge"
    assert resolve(("subgradient", {"loss": "squared_hinge"})).loss == "squared_hinge"


def test_rates_and_regret_constants():
    lam, R = 0.02, 3.0
    # no bounded gradient without a projection: no rate, no regret bound
    sub = OnlineSubgradient(lam=lam, loss="squared_hinge", intercept="none")
    assert sub.theory_rate is None and sub.regret_lipschitz(R) is None
    greedy = Pegasos(lam=lam, projection="greedy", loss="squared_hinge", intercept="none")
    r = 1 / math.sqrt(2 * lam)
    assert greedy.regret_lipschitz(R) == pytest.approx(lam * r + 2 * (1 + r * R) * R, rel=1e-15)
    assert greedy.theory_rate == -1.0
    lazy = Pegasos(lam=lam, projection="lazy", loss="squared_hinge", intercept="none")
    assert lazy.regret_lipschitz(R) is None
    free = Pegasos(lam=lam, projection="greedy", loss="squared_hinge", intercept="free")
    assert free.regret_lipschitz(R) is None and free.theory_rate is None


def test_refusals():
    with pytest.raises(ParameterError, match="needs projection='greedy' or 'lazy'"):
        Pegasos(lam=0.1, loss="squared_hinge")
    for cls in (Pegasos, OnlineSubgradient):
        with pytest.raises(ParameterError, match="'loss' parameter must be one of"):
            cls(lam=0.1, loss="log")


# ------------------------------------------------------------------ a learner of your own


class _MySquaredOSD:
    """Subgradient steps on lam/2 ||w||^2 + xi^2 in plain Python, constant step eta."""

    objective = "lambda"
    loss = "squared_hinge"
    problem_parameter = "lam"

    def __init__(self, lam=0.1, eta=0.05):
        self.lam, self.eta = lam, eta

    def start(self, d):
        self.w = np.zeros(d)

    def step(self, x, y, t):
        xi = max(0.0, 1.0 - y * (self.w @ x))
        self.w = self.w - self.eta * (self.lam * self.w - 2.0 * xi * y * x)

    def weights(self):
        return self.w

    def state(self):
        return (self.w,)


def _compiled_sq_step():
    numba = pytest.importorskip("numba")

    @numba.njit
    def step(x, y, t, w):
        f = 0.0
        for j in range(w.shape[0]):
            f += w[j] * x[j]
        xi = max(0.0, 1.0 - y * f)
        for j in range(w.shape[0]):
            w[j] = w[j] - 0.05 * (0.1 * w[j] - 2.0 * xi * y * x[j])

    return step


@pytest.mark.parametrize("compiled", [False, True], ids=["python", "compiled_step"])
def test_your_learner_declaring_the_squared_hinge_sums_it(gauss, compiled):
    # the adapter measures the loss the learner declares: its trace's loss is sum xi^2
    cls = _MySquaredOSD
    if compiled:
        cls = type(
            "Compiled", (_MySquaredOSD,), {"compiled_step": staticmethod(_compiled_sq_step())}
        )
    kw = dict(epochs=2, order="shuffle", seed=3)
    mine = run(resolve(cls(), intercept="none"), gauss, **kw)
    X, y = Z_of(gauss, "none")[:, :-1], gauss.y
    w, L = np.zeros(gauss.d), 0.0
    for i in schedule(gauss.n, 2, "shuffle", seed=3):
        xi = max(0.0, 1.0 - y[i] * (w @ X[i]))
        L += xi * xi
        w = w - 0.05 * (0.1 * w - 2.0 * xi * y[i] * X[i])
    close(mine.w[-1], w)
    close(mine.loss[-1], L)
    assert mine.declares["loss"] == "squared_hinge"
    # the same steps as the built-in learner with a constant step
    from maxmargin.online import Constant

    built = run(OnlineSubgradient(lam=0.1, step=Constant(0.05), intercept="none",
                                  loss="squared_hinge"), gauss, **kw)  # fmt: skip
    close(built.w[-1], w)
    close(built.loss[-1], L)


@pytest.mark.parametrize("intercept", ["none", "augmented", "free"])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_projection_ball_holds_the_l2_svm_optimum(gauss, intercept, weighted):
    # ||w~*||^2 = 2C sum_i s_i xi_i (1 - xi_i) <= mean(s) / (2 lam): the radius Pegasos uses
    from maxmargin.evaluation.path import regularization_path

    sw = np.linspace(0.2, 3.0, gauss.n) if weighted else None
    lams = np.geomspace(1e-4, 10.0, 6)
    p = regularization_path(
        gauss, lam=lams, intercept=intercept, loss="squared_hinge", sample_weight=sw
    )
    assert p.certified
    mean_s = 1.0 if sw is None else sw.mean()
    bound = np.sqrt(mean_s / (2 * p.lam))
    assert np.all(p.norm_reg <= bound * (1 + 1e-12))
    # and the identity itself, term by term
    X, y = gauss.dense(), gauss.y
    s = np.ones(gauss.n) if sw is None else sw
    for k in range(len(p)):
        xi = np.maximum(0.0, 1 - y * (X @ p.w[k] + p.b[k]))
        identity = 2 * p.C[k] * np.sum(s * xi * (1 - xi))
        assert p.norm_reg[k] ** 2 == pytest.approx(identity, rel=1e-9)
