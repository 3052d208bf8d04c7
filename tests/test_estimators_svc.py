"""ExactSVC: agreement with libsvm's SVC and liblinear's LinearSVC, modes, bad parameters.

ExactSVC is compared with ``SVC(kernel="linear", tol=1e-10)`` (libsvm's SMO: another
algorithm on the same problem).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn", minversion="1.6")
import scipy.sparse as sp  # noqa: E402
from sklearn import datasets as skd  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import SVC, LinearSVC  # noqa: E402

from maxmargin.estimators import ExactSVC  # noqa: E402
from maxmargin.exceptions import MaxMarginError, NotSeparableError  # noqa: E402


def _cancer():
    X, y = skd.load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _iris2():
    X, y = skd.load_iris(return_X_y=True)
    keep = y > 0  # versicolor vs virginica: overlapping classes
    return StandardScaler().fit_transform(X[keep]), np.array(["versicolor", "virginica"])[
        y[keep] - 1
    ]


def _wine2():
    X, y = skd.load_wine(return_X_y=True)
    keep = y < 2
    return StandardScaler().fit_transform(X[keep]), y[keep]


@pytest.mark.parametrize(
    "name,make,C",
    [
        ("cancer", _cancer, 0.1),
        ("cancer", _cancer, 1.0),
        ("iris2", _iris2, 1.0),
        ("iris2", _iris2, 10.0),
        ("wine2", _wine2, 0.05),
    ],
)
def test_exact_svc_matches_libsvm(name, make, C):
    X, y = make()
    sk = SVC(kernel="linear", C=C, tol=1e-10).fit(X, y)
    mm = ExactSVC(C=C).fit(X, y)

    # neither side trivially zero
    assert np.linalg.norm(sk.coef_) > 1e-2 and np.linalg.norm(mm.coef_) > 1e-2
    assert np.abs(sk.dual_coef_).max() > 1e-3 and np.abs(mm.dual_coef_).max() > 1e-3
    assert sk.n_support_.min() > 0

    np.testing.assert_array_equal(mm.classes_, sk.classes_)
    np.testing.assert_array_equal(mm.support_, sk.support_)  # same set, same order
    np.testing.assert_array_equal(mm.n_support_, sk.n_support_)
    assert mm.support_.dtype == sk.support_.dtype and mm.n_support_.dtype == sk.n_support_.dtype
    scale = max(1.0, np.abs(sk.dual_coef_).max())
    np.testing.assert_allclose(mm.dual_coef_, sk.dual_coef_, atol=1e-4 * scale)
    np.testing.assert_allclose(mm.coef_, sk.coef_, atol=1e-5 * max(1.0, np.abs(sk.coef_).max()))
    np.testing.assert_allclose(mm.intercept_, sk.intercept_, atol=1e-5)
    np.testing.assert_allclose(mm.support_vectors_, sk.support_vectors_)
    # sklearn's meaning of the attributes: coef_ = dual_coef_ @ support_vectors_
    np.testing.assert_allclose(mm.dual_coef_ @ mm.support_vectors_, mm.coef_, atol=1e-8)
    np.testing.assert_array_equal(mm.predict(X), sk.predict(X))
    assert mm.certificate_.ok
    assert mm.margin_ == pytest.approx(1 / np.linalg.norm(mm.coef_))


def test_exact_svc_augmented_matches_liblinear():
    X, y = _iris2()
    C = 1.0
    lin = LinearSVC(
        C=C, loss="hinge", intercept_scaling=2.0, tol=1e-10, max_iter=100_000, dual=True
    ).fit(X, y)
    mm = ExactSVC(C=C, intercept="augmented", intercept_scaling=2.0).fit(X, y)
    assert np.linalg.norm(mm.coef_) > 1e-2
    np.testing.assert_allclose(mm.coef_, lin.coef_, atol=1e-7)
    np.testing.assert_allclose(mm.intercept_, lin.intercept_, atol=1e-7)
    # the bias is a regularised weight: coef_ and intercept_ from the dual map
    w_aug = mm.dual_coef_ @ np.hstack([mm.support_vectors_, np.full((len(mm.support_), 1), 2.0)])
    np.testing.assert_allclose(w_aug[0, :-1], mm.coef_[0], atol=1e-8)
    np.testing.assert_allclose(2.0 * w_aug[0, -1], mm.intercept_[0], atol=1e-8)


def test_exact_svc_modes_sparse_hard():
    X, y = _wine2()
    none = ExactSVC(C=0.1, intercept="none").fit(X, y)
    assert none.intercept_.tolist() == [0.0]
    dense = ExactSVC(C=0.1, form="primal").fit(X, y)
    sparse = ExactSVC(C=0.1).fit(sp.csr_matrix(X), y)
    assert sp.issparse(sparse.support_vectors_)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-6)
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))

    hard = ExactSVC(hard=True).fit(X, y)  # wine classes 0/1 are separable
    assert hard.certificate_.ok and hard.solution_.problem.hard
    assert hard.margin_ == pytest.approx(1 / np.linalg.norm(hard.coef_))
    assert np.all(hard.decision_function(X) * np.where(y == 1, 1, -1) >= 1 - 1e-6)
    Xi, yi = _iris2()
    with pytest.raises(NotSeparableError) as err:
        ExactSVC(hard=True).fit(Xi, yi)
    assert err.value.certificate is not None


def test_exact_svc_bad_parameters_say_what_to_do():
    X, y = _wine2()
    for params, match in [
        ({"C": -1.0}, "'C'"),
        ({"intercept": "bias"}, "'intercept'"),
        ({"form": "both"}, "'form'"),
        ({"hard": "yes"}, "'hard'"),
        ({"solver": 3}, "'solver'"),
        ({"solver": "NOPE"}, "NOPE"),
    ]:
        with pytest.raises(MaxMarginError, match=match):
            ExactSVC(**params).fit(X, y)
    ExactSVC(C=-1.0, hard=True).fit(X, y)  # C is ignored by the hard margin
