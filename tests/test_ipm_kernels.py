"""The compiled passes of the IPM (maxmargin.solvers._ipm_kernels) against numpy one-liners.

Each kernel fuses a few numpy operations into one loop; the reference is those numpy
operations, written out. Sizes cover the 4-row unrolling's remainder (n mod 4), d' = 1,
and the BLAS route of the Gram above ``NUMBA_GRAM_D``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from threadpoolctl import threadpool_info

from maxmargin.solvers import _ipm_kernels as k
from maxmargin.solvers import ipm as _ipm


def close(a, b, rtol=1e-12):
    a, b = np.asarray(a, float), np.asarray(b, float)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * max(1.0, float(np.abs(b).max())))


@pytest.fixture(
    params=[(1, 1), (7, 3), (64, 20), (203, 5), (301, 130)], ids=lambda s: f"{s[0]}x{s[1]}"
)
def data(request):
    n, d = request.param
    rng = np.random.default_rng(n * 1000 + d)
    V = rng.standard_normal((n, d))
    return V, rng.random(n) + 0.1, rng.standard_normal(n), rng.standard_normal(n)


def test_products_with_V(data):
    V, w, c1, c2 = data
    rows = _ipm._Rows(V)
    G, p1, p2 = rows.gram(w, c1, c2)
    close(G, (V * w[:, None]).T @ V)
    assert np.array_equal(G, G.T)
    close(p1, V.T @ (w * c1))
    close(p2, V.T @ (w * c2))
    u1, u2 = np.linspace(0.5, 2.0, V.shape[1]), np.linspace(-1.0, 1.0, V.shape[1])
    close(rows.rmatvec(w, c1), V.T @ (w * c1))
    close(rows.backsub(w, c1, u1), w * (c1 - V @ u1))
    x1, x2 = rows.backsub2(w, c1, u1, c2, u2)
    close(x1, w * (c1 - V @ u1))
    close(x2, w * (c2 - V @ u2))
    D = 1.0 / w
    res, p, size = rows.residual(D, w, c1, 0.3, c2, c2 * 2)
    ref = c2 * 2 - (V @ (V.T @ c1) + D * c1 + 0.3 * c2)
    close(res, ref, 1e-10)
    close(p, V.T @ (w * ref), 1e-10)
    assert size == pytest.approx(np.abs(ref).max(), rel=1e-10)


def test_sparse_rows_agree_with_dense():
    rng = np.random.default_rng(0)
    S = sp.random(50, 8, density=0.3, random_state=1, format="csr")
    Vd = S.toarray()
    w, c = rng.random(50) + 0.1, rng.standard_normal(50)
    u = rng.standard_normal(8)
    a, b = _ipm._Rows(S), _ipm._Rows(Vd)
    for x, y in zip(a.gram(w, c, c), b.gram(w, c, c), strict=True):
        close(x, y)
    close(a.rmatvec(w, c), b.rmatvec(w, c))
    close(a.backsub(w, c, u), b.backsub(w, c, u))
    close(a.Qx(c), b.Qx(c))
    for x, y in zip(
        a.residual(1 / w, w, c, 0.5, c, c), b.residual(1 / w, w, c, 0.5, c, c), strict=True
    ):
        close(x, y, 1e-10)


def _ratio_test(v, dv):
    """The plain ratio test: largest t <= 1 with v + t dv >= 0."""
    with np.errstate(divide="ignore"):
        r = np.where(dv < 0, v / -dv, np.inf)
    return min(1.0, float(r.min(initial=np.inf)))


@pytest.mark.parametrize("hard", [False, True])
def test_elementwise_steps(hard):
    rng = np.random.default_rng(1 + hard)
    n = 257
    C = np.full(n, 2.0) if hard else rng.uniform(2.0, 3.0, n)  # per-example boxes C_i
    a = rng.uniform(0.01, 1.99, n)
    zl, zu = rng.random(n) + 1e-3, (np.zeros(n) if hard else rng.random(n) + 1e-3)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    Qa, dx, rd = rng.standard_normal(n), rng.standard_normal(n), rng.standard_normal(n)
    su = np.full(n, np.inf) if hard else C - a
    Cf = np.zeros(n) if hard else C

    out = np.empty(n)
    comp, aqa, asum, rdmax, qmax, amax, ya = k.residuals(Qa, a, zl, zu, y, 0.7, Cf, hard, out)
    ref_rd = Qa - 1 - zl + (0 if hard else zu) + 0.7 * y
    close(out, ref_rd)
    close(
        [comp, aqa, asum, rdmax, qmax, amax, ya],
        [
            a @ zl + (0 if hard else su @ zu),
            a @ Qa,
            a.sum(),
            np.abs(ref_rd).max(),
            np.abs(Qa).max(),
            a.max(),
            y @ a,
        ],
    )

    D, Dinv, ra, rs, rzl, rzu = (np.empty(n) for _ in range(6))
    k.scaling(a, zl, zu, Cf, hard, D, Dinv, ra, rs, rzl, rzu)
    close(D, zl / a + (0 if hard else zu / su))
    close(Dinv, 1 / D)

    k.predictor_rhs(rd, zl, zu, hard, out)
    close(out, -rd - zl + (0 if hard else zu))

    dzl = -zl - zl * dx / a
    dzu = np.zeros(n) if hard else -zu + zu * dx / su
    t = min(_ratio_test(a, dx), _ratio_test(zl, dzl))
    if not hard:
        t = min(t, _ratio_test(su, -dx), _ratio_test(zu, dzu))
    t2, comp_aff = k.affine_step(a, zl, zu, dx, ra, rs, Cf, hard)
    assert t2 == pytest.approx(t, rel=1e-12) and t < 1
    ref = (a + t * dx) @ (zl + t * dzl) + (0 if hard else (su - t * dx) @ (zu + t * dzu))
    assert comp_aff == pytest.approx(ref, rel=1e-9, abs=1e-12)

    rl, ru = np.empty(n), np.empty(n)
    k.corrector_rhs(a, zl, zu, dx, rd, 0.01, ra, rs, Cf, hard, rl, ru, out)
    ref_rl = 0.01 - a * zl - dx * dzl
    close(rl, ref_rl)
    ref_out = -rd + ref_rl / a
    if not hard:
        ref_ru = 0.01 - su * zu + dx * dzu
        close(ru, ref_ru)
        ref_out -= ref_ru / su
    close(out, ref_out)

    dx2 = 0.1 * rng.standard_normal(n)
    dzl2 = (rl - zl * dx2) / a
    dzu2 = np.zeros(n) if hard else (ru + zu * dx2) / su
    t = min(_ratio_test(a, dx2), _ratio_test(zl, dzl2))
    if not hard:
        t = min(t, _ratio_test(su, -dx2), _ratio_test(zu, dzu2))
    t3, finite = k.corrector_step(a, zl, zu, dx2, rl, ru, ra, rs, rzl, rzu, hard)
    assert finite and t3 == pytest.approx(t, rel=1e-12)
    bad = dx2.copy()
    bad[3] = np.nan
    assert not k.corrector_step(a, zl, zu, bad, rl, ru, ra, rs, rzl, rzu, hard)[1]

    a2, zl2, zu2 = a.copy(), zl.copy(), zu.copy()
    k.update(a2, zl2, zu2, dx2, rl, ru, ra, rs, 0.5 * t, Cf, hard)
    close(a2, a + 0.5 * t * dx2)
    close(zl2, zl + 0.5 * t * dzl2)
    close(zu2, zu + 0.5 * t * dzu2)
    assert (a2 > 0).all() and (zl2 > 0).all() and (hard or (a2 < C).all())


def test_blas_threads_limit_inside_the_ipm(monkeypatch):
    seen = []
    gram = k.gram

    def spy(*args):
        seen.append([lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"])
        return gram(*args)

    # on the IPM's handle of the kernels (loaded at first use, each name kept once read)
    monkeypatch.setattr(_ipm.kernels, "gram", spy)
    rng = np.random.default_rng(0)
    V = rng.standard_normal((200, 4))
    r = _ipm.solve_dual(V, np.where(rng.random(200) < 0.5, -1.0, 1.0), 1.0, True)
    assert r.state == "optimal"
    assert seen and all(t == [1] * len(t) for t in seen)
