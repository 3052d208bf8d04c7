"""maxmargin against scikit-learn's libsvm (SVC, kernel="linear", tol=1e-10).

libsvm solves the same C-form dual with a free intercept by SMO, an entirely different
algorithm, so agreement is an independent check. Objectives are recomputed here.
"""

from __future__ import annotations

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn import datasets as skd  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from maxmargin import Dataset, SVMProblem, load, make_gaussians  # noqa: E402
from maxmargin.certificate import certify  # noqa: E402
from maxmargin.exact import solve  # noqa: E402


def _iris():
    X, y = skd.load_iris(return_X_y=True)
    keep = y > 0  # versicolor vs virginica: overlapping classes
    return StandardScaler().fit_transform(X[keep]), np.where(y[keep] == 2, 1.0, -1.0)


def _wine():
    X, y = skd.load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)


def _cancer():
    X, y = skd.load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[::3, :10]  # a third of it keeps the test fast
    return X, np.where(y[::3] == 1, 1.0, -1.0)


def _gauss():
    ds = make_gaussians(200, 5, seed=3)
    return ds.X, ds.y


def _heart():
    ds = load("builtin:heart_scale")
    return ds.dense(), ds.y


CASES = {
    "iris": (_iris, 1.0),
    "wine": (_wine, 0.3),
    "cancer": (_cancer, 0.5),
    "gaussians": (_gauss, 2.0),
    "heart": (_heart, 1.0),
}


def primal(X, y, w, b, C):
    return 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y * (X @ w + b)).sum()


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_libsvm(name):
    make, C = CASES[name]
    X, y = make()
    clf = SVC(kernel="linear", C=C, tol=1e-10).fit(X, y)
    w_sk, b_sk = clf.coef_.ravel(), float(clf.intercept_[0])
    alpha_sk = np.zeros(len(y))
    alpha_sk[clf.support_] = np.abs(clf.dual_coef_.ravel())
    sol = solve(SVMProblem(Dataset(X, y), C=C))

    # Neither side trivially zero.
    assert np.linalg.norm(w_sk) > 1e-2 and np.linalg.norm(sol.w) > 1e-2
    assert len(clf.support_) > 0 and len(sol.support) > 0

    P_sk, P_mm = primal(X, y, w_sk, b_sk, C), primal(X, y, sol.w, sol.b, C)
    assert P_mm == pytest.approx(P_sk, rel=1e-7)
    assert P_mm <= P_sk * (1 + 1e-12)  # ours is never worse than libsvm's
    np.testing.assert_allclose(sol.w, w_sk, atol=1e-5 * max(1.0, np.linalg.norm(w_sk)))

    # Support sets agree away from the tolerance: drop indices where either side's
    # alpha is near a boundary (within 1e-4 C), where SMO's 1e-10 stopping rule can
    # legitimately differ.
    def clear(a):
        return (np.abs(a) > 1e-4 * C) & (np.abs(a - C) > 1e-4 * C) | (a == 0) | (a == C)

    ok = clear(alpha_sk) & clear(sol.alpha)
    assert ok.mean() > 0.9
    sup_sk = set(np.flatnonzero((alpha_sk > 1e-4 * C) & ok))
    sup_mm = set(np.flatnonzero((sol.alpha > 1e-4 * C) & ok))
    assert sup_sk == sup_mm
    bnd_sk = set(np.flatnonzero((alpha_sk >= C * (1 - 1e-4)) & ok))
    assert bnd_sk == set(sol.bound_support) & set(np.flatnonzero(ok))

    # libsvm's point, certified by our certificate: close but less exact than ours.
    c_sk = certify(SVMProblem(Dataset(X, y), C=C), w_sk, b_sk, alpha_sk)
    assert abs(c_sk.relative_gap) < 1e-5
    assert sol.certificate.max_residual() <= c_sk.max_residual() + 1e-15
