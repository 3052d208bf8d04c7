"""The lecture notes' variants against naive loops written from their pseudo-code.

Each reference below is the pseudo-code of docs/learners.md ("The lecture notes'
variants") transcribed line by line into Python, on dense ``Z``; the learners run on the
same data dense and CSR and must agree to 1e-12.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from maxmargin import Dataset, ParameterError, make_gaussians, make_separable
from maxmargin.online import (
    PLA,
    Constant,
    InverseSqrt,
    MarginPerceptron,
    OnlineSubgradient,
    Pegasos,
    PegasosStep,
    Perceptron,
    Pocket,
    resolve,
    run,
    schedule,
)
from maxmargin.online.step_sizes import as_step

EPOCHS = 3


@pytest.fixture(scope="module")
def gauss():
    return make_gaussians(37, 4, separation=1.5, seed=3)


def both(ds):
    """The data set dense and as CSR (the learners must not care)."""
    return [ds, Dataset(sp.csr_matrix(ds.X), ds.y, name="csr")]


def Z_of(ds, intercept, s=1.0):
    X = ds.dense()
    col = np.full((ds.n, 1), s if intercept == "augmented" else 0.0)
    return np.hstack([X, col])


def close(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(1.0, float(np.max(np.abs(b))))
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * scale)


def wt_of(tr, k=-1, average=False):
    if tr.intercept == "augmented":
        return tr.w_tilde(average=average)[k]
    return np.append((tr.w_avg if average else tr.w)[k], 0.0)


# ------------------------------------------------------------- online subgradient


def ref_sgd(Z, y, idx, lam, eta):
    """Lecture: ``w^{t+1} = w^t - eta_t g_t``.

    g_t is a subgradient of ``lam/2 ||w||^2 + max(0, 1 - y w.z)`` at w^t (lam = 0: the
    hinge alone).
    """
    w = np.zeros(Z.shape[1])
    iterates = []
    for t, i in enumerate(idx, start=1):
        iterates.append(w.copy())
        g = lam * w - (y[i] * Z[i] if y[i] * (w @ Z[i]) < 1 else 0.0)
        w = w - eta(t) * g
    return w, np.mean(iterates, axis=0)


STEPS = {
    "constant": (Constant(0.05), lambda t: 0.05),
    "invsqrt": (InverseSqrt(0.3), lambda t: 0.3 / np.sqrt(t)),
}


@pytest.mark.parametrize("step", list(STEPS))
@pytest.mark.parametrize("lam", [None, 0.05])
@pytest.mark.parametrize("intercept", ["none", "augmented"])
def test_subgradient_schedules(gauss, step, lam, intercept):
    obj, eta = STEPS[step]
    Z, y = Z_of(gauss, intercept), gauss.y
    idx = schedule(gauss.n, EPOCHS, "shuffle", seed=9)
    w, wbar = ref_sgd(Z, y, idx, lam or 0.0, eta)
    for ds in both(gauss):
        tr = run(
            OnlineSubgradient(lam=lam, step=obj, intercept=intercept),
            ds,
            epochs=EPOCHS,
            order="shuffle",
            seed=9,
            record_dual=True,
        )
        close(wt_of(tr), w)
        close(wt_of(tr, average=True), wbar)
        close(Z.T @ (tr.dual[-1] * y), w)


def test_subgradient_step_by_name(gauss):
    kw = dict(epochs=2, order="shuffle", seed=1)
    a = run(OnlineSubgradient(lam=0.05, eta0=0.2, step="constant"), gauss, **kw)
    b = run(OnlineSubgradient(lam=0.05, step=Constant(0.2)), gauss, **kw)
    c = run(
        resolve("subgradient", lam=0.05, step={"schedule": "constant", "eta": 0.2}),
        gauss,
        **kw,
    )
    assert np.array_equal(a.w, b.w) and np.array_equal(a.w, c.w)
    # the default schedule, named, is the default bit for bit
    d = run(OnlineSubgradient(lam=0.05, eta0=0.2, step="invsqrt"), gauss, **kw)
    e = run(OnlineSubgradient(lam=0.05, eta0=0.2), gauss, **kw)
    assert np.array_equal(d.w, e.w) and np.array_equal(d.w_avg, e.w_avg)


def ref_delta(X, y, idx, Delta, gamma):
    """The notes' online steepest descent on ``1/2 a.a + gamma sum_mu z_mu``.

    ``a <- a - Delta a`` if ``y (x.a) > 1``, else ``a - Delta a + Delta gamma y x``.
    """
    a = np.zeros(X.shape[1])
    for i in idx:
        if y[i] * (X[i] @ a) > 1:
            a = a - Delta * a
        else:
            a = a - Delta * a + Delta * gamma * y[i] * X[i]
    return a


@pytest.mark.parametrize("Delta,gamma", [(0.01, 2.0), (0.1, 0.5)])
def test_lecture_delta_step(gauss, Delta, gamma):
    idx = schedule(gauss.n, EPOCHS, "cyclic")
    a = ref_delta(gauss.dense(), gauss.y, idx, Delta, gamma)
    for ds in both(gauss):
        tr = run(
            OnlineSubgradient(lam=1 / gamma, step=Constant(Delta * gamma), intercept="none"),
            ds,
            epochs=EPOCHS,
            order="cyclic",
        )
        close(tr.w[-1], a)


# ------------------------------------------------------------------------- Pegasos


def ref_pegasos(Z, y, idx, lam, proj, offset):
    """Pegasos, greedy or lazy projection, with ``eta_t = 1/(lam (t + offset))``.

    ``w <- (1 - eta lam) w + eta y z 1[...]`` then the projection on the 1/sqrt(lam) ball
    (greedy), or ``w = Pi(theta_t / (lam (t + offset)))`` with theta unprojected (lazy).
    """
    w = np.zeros(Z.shape[1])
    theta = np.zeros_like(w)
    r = 1 / np.sqrt(lam)
    iterates = []
    for t, i in enumerate(idx, start=1):
        iterates.append(w.copy())
        g = y[i] * Z[i] if y[i] * (w @ Z[i]) < 1 else np.zeros_like(w)
        eta = 1 / (lam * (t + offset))
        if proj == "lazy":
            theta = theta + g
            w = theta / (lam * (t + offset))
        else:
            w = (1 - eta * lam) * w + eta * g
        if proj and np.linalg.norm(w) > r:
            w = w * r / np.linalg.norm(w)
    return w, np.mean(iterates, axis=0)


@pytest.mark.parametrize("proj", [None, "lazy", "greedy"])
@pytest.mark.parametrize("offset", [0, 1])
@pytest.mark.parametrize("intercept", ["none", "augmented"])
def test_pegasos_paper_and_notes_steps(gauss, proj, offset, intercept):
    lam = 0.05
    Z, y = Z_of(gauss, intercept), gauss.y
    idx = schedule(gauss.n, EPOCHS, "sample", seed=7)
    w, wbar = ref_pegasos(Z, y, idx, lam, proj, offset)
    for ds in both(gauss):
        tr = run(
            Pegasos(lam=lam, projection=proj, step=PegasosStep(offset=offset), intercept=intercept),
            ds,
            epochs=EPOCHS,
            order="sample",
            seed=7,
            record_dual=True,
        )
        close(wt_of(tr), w)
        close(wt_of(tr, average=True), wbar)
        close(Z.T @ (tr.dual[-1] * y), w)
        if proj is None:  # the same method as online subgradient with that schedule
            sg = run(
                OnlineSubgradient(lam=lam, step=PegasosStep(offset=offset), intercept=intercept),
                ds,
                epochs=EPOCHS,
                order="sample",
                seed=7,
            )
            close(wt_of(sg), w)


def test_pegasos_default_step_is_the_notes():
    ds = make_gaussians(40, 3, seed=0)
    kw = dict(epochs=2, order="shuffle", seed=3, record_dual=True)
    for proj in (None, "lazy", "greedy"):
        a = run(Pegasos(lam=0.1, projection=proj), ds, **kw)
        b = run(Pegasos(lam=0.1, projection=proj, step="pegasos"), ds, **kw)
        assert np.array_equal(a.w, b.w) and np.array_equal(a.dual_avg, b.dual_avg)
    assert "step" not in Pegasos(lam=0.1).get_params()  # default runs record what they did
    assert a.params == Pegasos(lam=0.1, projection="greedy").get_params()


# ------------------------------------------------------------------ perceptron family


def ref_margin_perceptron(Z, y, idx, tau, eta):
    """``if y w.z <= tau: w += eta y z`` (tau = 0: the perceptron with step eta)."""
    w = np.zeros(Z.shape[1])
    M = U = 0
    c = np.zeros(len(y))
    for i in idx:
        m = y[i] * (w @ Z[i])
        M += m <= 0
        if m <= tau:
            U += 1
            c[i] += eta
            w = w + eta * y[i] * Z[i]
    return w, M, U, c


@pytest.mark.parametrize("tau,eta", [(0.0, 0.25), (1.0, 1.0), (0.5, 3.0)])
@pytest.mark.parametrize("intercept", ["none", "augmented"])
def test_margin_perceptron(gauss, tau, eta, intercept):
    Z, y = Z_of(gauss, intercept), gauss.y
    idx = schedule(gauss.n, EPOCHS, "shuffle", seed=4)
    w, M, U, c = ref_margin_perceptron(Z, y, idx, tau, eta)
    for ds in both(gauss):
        tr = run(
            MarginPerceptron(margin=tau, eta=eta, intercept=intercept),
            ds,
            epochs=EPOCHS,
            order="shuffle",
            seed=4,
            record_dual=True,
        )
        close(wt_of(tr), w)
        assert tr.mistakes[-1] == M and tr.extras["updates"][-1] == U
        close(tr.dual[-1], c)
    if tau == 0.0:  # from zero the step only scales w: the perceptron's mistakes
        p = run(Perceptron(intercept=intercept), gauss, epochs=EPOCHS, order="shuffle", seed=4)
        assert np.array_equal(p.mistakes, tr.mistakes)
        close(eta * wt_of(p), wt_of(tr))


def ref_pla(Z, y, epochs_idx, cap):
    """The cyclic PLA: cycle over the data until a cycle makes no mistake (or the cap)."""
    w = np.zeros(Z.shape[1])
    M = 0
    for e in range(cap):
        clean = True
        for i in epochs_idx[e]:
            if y[i] * (w @ Z[i]) <= 0:
                w = w + y[i] * Z[i]
                M += 1
                clean = False
        if clean and np.all(y * (Z @ w) > 0):
            return w, M, e + 1, True
    return w, M, cap, False


@pytest.mark.parametrize("order", ["cyclic", "shuffle", "sample"])
@pytest.mark.parametrize("intercept", ["none", "augmented"])
def test_pla_until_no_mistakes(order, intercept):
    ds0 = make_separable(40, 3, margin=0.3, seed=2, offset=0.0)
    Z, y = Z_of(ds0, intercept), ds0.y
    cap = 200
    idx = schedule(ds0.n, cap, order, seed=6).reshape(cap, ds0.n)
    w, M, epochs, converged = ref_pla(Z, y, idx, cap)
    assert converged  # separable through the origin: Novikoff, for either intercept
    for ds in both(ds0):
        tr = run(PLA(intercept=intercept), ds, epochs=cap, order=order, seed=6)
        close(wt_of(tr), w)
        assert tr.mistakes[-1] == M and tr.epochs == epochs < cap
        assert tr.t[-1] == epochs * ds.n and bool(tr.extras["converged"])
        assert int(tr.extras["halted_at"]) == epochs * ds.n
        assert tr.final_train_error == 0.0
        assert set(np.arange(1, epochs + 1) * ds.n) <= set(tr.t.tolist())


def test_pla_cap_reached_on_non_separable():
    ds = make_gaussians(40, 2, separation=0.5, seed=0)
    tr = run(PLA(), ds, epochs=7, order="cyclic")
    assert tr.epochs == 7 and not bool(tr.extras["converged"])
    assert int(tr.extras["halted_at"]) == 0
    p = run(Perceptron(), ds, epochs=7, order="cyclic")
    assert np.array_equal(p.w[-1], tr.w[-1]) and p.mistakes[-1] == tr.mistakes[-1]


def ref_random_pocket(Z, y, T, seed, check_every=1):
    """The notes' pocket algorithm.

    Find a (random) mistake of w_t, correct it, keep w_{t+1} in the pocket if it makes
    fewer mistakes than the pocket; stop when no mistake is left.
    """
    rng = np.random.default_rng(seed)
    w = np.zeros(Z.shape[1])
    pocket, best = w.copy(), len(y)
    for t in range(1, T + 1):
        E = np.flatnonzero(y * (Z @ w) <= 0)
        if E.size == 0:
            if best > 0:
                pocket, best = w.copy(), 0
            return pocket, best, t - 1, t - 1
        u = rng.random()
        i = E[min(int(u * E.size), E.size - 1)]
        w = w + y[i] * Z[i]
        if t % check_every == 0:
            err = int(np.sum(y * (Z @ w) <= 0))
            if err < best:
                pocket, best = w.copy(), err
    return pocket, best, T, 0


@pytest.mark.parametrize("gram_max", [0, 4096])
@pytest.mark.parametrize("check_every", [1, 3])
@pytest.mark.parametrize("intercept", ["none", "augmented"])
def test_pocket_random_mistake(gauss, gram_max, check_every, intercept):
    Z, y = Z_of(gauss, intercept), gauss.y
    pocket, best, steps, halted = ref_random_pocket(
        Z, y, EPOCHS * gauss.n, seed=8, check_every=check_every
    )
    for ds in both(gauss):
        tr = run(
            Pocket(
                select="random_mistake",
                seed=8,
                gram_max=gram_max,
                check_every=check_every,
                intercept=intercept,
            ),
            ds,
            epochs=EPOCHS,
            order="shuffle",
            seed=123,
        )  # the run's order is not used
        close(wt_of(tr), pocket)
        assert tr.extras["pocket_errors"][-1] == best
        assert tr.mistakes[-1] == steps and int(tr.extras["halted_at"]) == halted


def test_pocket_random_mistake_stops_on_separable():
    ds = make_separable(30, 2, margin=0.4, seed=1, offset=0.0)
    Z, y = Z_of(ds, "none"), ds.y
    pocket, best, steps, halted = ref_random_pocket(Z, y, 50 * ds.n, seed=0)
    assert halted > 0 and best == 0
    tr = run(Pocket(select="random_mistake", intercept="none"), ds, epochs=50)
    close(tr.w[-1], pocket[:-1])
    assert int(tr.extras["halted_at"]) == halted == tr.mistakes[-1]
    assert tr.epochs == -(-halted // ds.n)  # the run ends with the epoch it stopped in
    assert tr.final_train_error == 0.0


# ------------------------------------------------------------------------ parameters


def test_step_parameters_are_checked():
    with pytest.raises(ParameterError, match="lam=None"):
        OnlineSubgradient(lam=0.0)
    with pytest.raises(ParameterError, match="PegasosStep needs a lambda"):
        OnlineSubgradient(lam=None, step="pegasos")
    with pytest.raises(ParameterError, match="OnlineSubgradient"):
        Pegasos(lam=0.1, step=Constant(0.1))
    with pytest.raises(ParameterError, match="own lam"):
        Pegasos(lam=0.1, step=PegasosStep(lam=0.2))
    with pytest.raises(ParameterError, match="unknown step"):
        OnlineSubgradient(step="adagrad")
    with pytest.raises(ParameterError, match="offset"):
        PegasosStep(offset=2)
    with pytest.raises(ParameterError, match="eta"):
        Constant(-1.0)
    with pytest.raises(ParameterError, match="margin"):
        MarginPerceptron(margin=-1.0)
    with pytest.raises(ParameterError, match="select"):
        Pocket(select="best")
    for step in (Constant(0.5), InverseSqrt(2.0), PegasosStep(0.1, 0)):
        assert as_step(step.to_dict()) == step
        assert step.at(3, lam=0.1) > 0
