"""ExactSVC(kernel=...): agreement with libsvm's SVC, the linear kernel, check_estimator.

The kernel fits are compared with ``SVC(kernel=..., tol=1e-10)`` (libsvm's SMO: another
algorithm on the same problem); the linear kernel must stay today's ExactSVC.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pytest.importorskip("sklearn", minversion="1.6")
from sklearn import datasets as skd  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.metrics.pairwise import pairwise_kernels  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import SVC  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from maxmargin.estimators import ExactSVC  # noqa: E402
from maxmargin.exceptions import MaxMarginError  # noqa: E402


def _moons(n=60, seed=0):
    X, y = skd.make_moons(n, noise=0.25, random_state=seed)
    return StandardScaler().fit_transform(X), np.array(["a", "b"])[y]


def _agree(mm, sk, X, Xnew):
    # neither side trivially zero; the same support set, in SVC's order
    assert np.abs(sk.dual_coef_).max() > 1e-3 and sk.n_support_.min() > 0
    np.testing.assert_array_equal(mm.classes_, sk.classes_)
    np.testing.assert_array_equal(mm.support_, sk.support_)
    np.testing.assert_array_equal(mm.n_support_, sk.n_support_)
    assert mm.support_.dtype == sk.support_.dtype and mm.n_support_.dtype == sk.n_support_.dtype
    scale = max(1.0, np.abs(sk.dual_coef_).max())
    np.testing.assert_allclose(mm.dual_coef_, sk.dual_coef_, atol=1e-4 * scale)
    np.testing.assert_allclose(mm.intercept_, sk.intercept_, atol=1e-4)
    f = sk.decision_function(Xnew)
    assert np.abs(f).max() > 0.1
    np.testing.assert_allclose(mm.decision_function(Xnew), f, atol=1e-4 * max(1.0, np.abs(f).max()))
    np.testing.assert_array_equal(mm.predict(X), sk.predict(X))
    assert mm.score(X, sk.predict(X)) == 1.0
    assert mm.certificate_.ok and mm.solution_.status == "optimal"


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "rbf", "C": 1.0},
        {"kernel": "rbf", "C": 10.0, "gamma": 2.0},
        {"kernel": "rbf", "C": 0.5, "gamma": "auto"},
        {"kernel": "poly", "C": 1.0, "degree": 3, "coef0": 1.0},
        {"kernel": "poly", "C": 5.0, "degree": 2, "gamma": 0.5, "coef0": 0.5},
    ],
    ids=str,
)
def test_kernel_svc_matches_libsvm(params):
    X, y = _moons()
    Xnew = np.random.default_rng(1).normal(size=(25, 2))
    sk = SVC(tol=1e-10, **params).fit(X, y)
    mm = ExactSVC(**params).fit(X, y)
    _agree(mm, sk, X, Xnew)
    np.testing.assert_allclose(mm.support_vectors_, X[mm.support_])
    # the decision values are k(X, SV) dual_coef_ + b, with scikit-learn's kernel and gamma
    kw = {k: params[k] for k in ("degree", "coef0") if k in params}
    K = pairwise_kernels(Xnew, mm.support_vectors_, metric=params["kernel"], gamma=sk._gamma, **kw)
    np.testing.assert_allclose(
        mm.decision_function(Xnew), K @ mm.dual_coef_[0] + mm.intercept_[0], atol=1e-12
    )


def test_precomputed_gram_matches_libsvm_and_the_named_kernel():
    X, y = _moons()
    Xnew = np.random.default_rng(2).normal(size=(20, 2))
    gamma = 0.7
    K = np.exp(-gamma * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    Knew = np.exp(-gamma * ((Xnew[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    sk = SVC(kernel="precomputed", C=2.0, tol=1e-10).fit(K, y)
    mm = ExactSVC(kernel="precomputed", C=2.0).fit(K, y)
    _agree(mm, sk, K, Knew)
    assert mm.support_vectors_.shape == sk.support_vectors_.shape == (0, 0)
    named = ExactSVC(kernel="rbf", gamma=gamma, C=2.0).fit(X, y)
    np.testing.assert_array_equal(named.support_, mm.support_)
    np.testing.assert_allclose(named.decision_function(Xnew), mm.decision_function(Knew), atol=1e-7)


def test_linear_kernel_is_todays_exact_svc():
    X, y = _moons(80, seed=3)
    today = ExactSVC(C=1.0).fit(X, y)
    linear = ExactSVC(C=1.0, kernel="linear").fit(X, y)
    np.testing.assert_array_equal(linear.coef_, today.coef_)
    np.testing.assert_array_equal(linear.intercept_, today.intercept_)
    np.testing.assert_array_equal(linear.dual_coef_, today.dual_coef_)
    assert type(linear.solution_).__name__ == "ExactSolution"
    # a callable linear kernel goes the kernel route to the same decision values
    call = ExactSVC(C=1.0, kernel=lambda A, B: A @ B.T).fit(X, y)
    assert type(call.solution_).__name__ == "KernelSolution"
    np.testing.assert_allclose(call.decision_function(X), today.decision_function(X), atol=1e-7)
    with pytest.raises(AttributeError, match="only available when using a linear kernel"):
        _ = call.coef_


def test_refit_with_another_kernel_drops_coef():
    X, y = _moons()
    clf = ExactSVC().fit(X, y)
    assert clf.coef_.shape == (1, 2)
    clf.set_params(kernel="rbf").fit(X, y)
    with pytest.raises(AttributeError, match="linear kernel"):
        _ = clf.coef_
    rbf_margin = clf.margin_  # 1/||f||_H of the rbf fit, not the linear one's
    clf.set_params(kernel="linear").fit(X, y)
    assert clf.margin_ != rbf_margin
    assert clf.coef_.shape == (1, 2) and not hasattr(clf, "_gamma")


def test_kernel_pickle_round_trip():
    X, y = _moons()
    clf = ExactSVC(kernel="poly", degree=2, coef0=1.0, C=3.0).fit(X, y)
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.decision_function(X), clf.decision_function(X))
    np.testing.assert_array_equal(back.alpha_, clf.alpha_)
    np.testing.assert_array_equal(back.support_, clf.support_)
    assert back.certificate_.ok
    with pytest.raises(AttributeError, match=r"call recertify\(X, y\) with the training data"):
        _ = back.solution_


def test_kernel_bad_input_one_line():
    X, y = _moons()
    for params, match in [
        ({"kernel": "cosine"}, "'kernel'"),
        ({"kernel": "rbf", "gamma": -1.0}, "'gamma'"),
        ({"kernel": "poly", "degree": 1.5}, "'degree'"),
        ({"kernel": "rbf", "intercept": "augmented"}, "'intercept'"),
        ({"kernel": "rbf", "solver": "PIQP"}, "'solver'"),
        ({"kernel": "sigmoid", "gamma": 0.1}, "smallest eigenvalue"),
    ]:
        with pytest.raises(MaxMarginError, match=match) as err:
            ExactSVC(**params).fit(X, y)
        assert "\n" not in str(err.value)
    clf = ExactSVC(kernel="precomputed").fit(X @ X.T + 1.0, y)
    with pytest.raises(ValueError, match="features"):
        clf.decision_function(np.ones((3, 5)))


# gamma="scale" is 1 / (d X.var()) of the rows fit sees, and repeated rows change X.var():
# the weighted fit is then another kernel's (scikit-learn marks SVC the same way). With a
# fixed gamma integer weights are exactly the repeated rows: the second estimator checks it.
_GAMMA_SCALE = "gamma='scale' reads X.var(), which repeated rows change"


def _expected_failures(est) -> dict:
    if est.gamma != "scale":
        return {}
    return {
        "check_sample_weight_equivalence_on_dense_data": _GAMMA_SCALE,
        "check_sample_weight_equivalence_on_sparse_data": _GAMMA_SCALE,
    }


@parametrize_with_checks(
    [ExactSVC(kernel="rbf"), ExactSVC(kernel="rbf", gamma=0.5)],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_estimator_checks_rbf(estimator, check):
    if estimator.gamma != "scale" and "sample_weight_equivalence" not in str(check):
        pytest.skip("the fixed-gamma estimator is here for the weight checks only")
    check(clone(estimator))


def test_kernel_weights_match_libsvm():
    X, y = _moons(70, seed=4)
    sw = np.random.default_rng(5).uniform(0.2, 3.0, size=len(y))
    params = {"kernel": "rbf", "C": 2.0, "class_weight": {"a": 2.0}}
    sk = SVC(tol=1e-10, **params).fit(X, y, sample_weight=sw)
    mm = ExactSVC(**params).fit(X, y, sample_weight=sw)
    _agree(mm, sk, X, np.random.default_rng(6).normal(size=(15, 2)))
    assert mm.alpha_.max() > 2.0 * 1.0  # some example's cost is weighted above C


def test_kernel_hard_margin_and_no_intercept():
    X, y = _moons(40, seed=7)
    hard = ExactSVC(kernel="rbf", gamma=3.0, hard=True).fit(X, y)
    assert hard.certificate_.ok and hard.solution_.problem.hard
    ypm = np.where(y == hard.classes_[1], 1.0, -1.0)
    f = hard.decision_function(X)
    assert np.all(ypm * f >= 1 - 1e-7)
    np.testing.assert_allclose(np.abs(f[hard.support_]), 1.0, atol=1e-7)  # on the margin
    none = ExactSVC(kernel="rbf", C=1.0, intercept="none").fit(X, y)
    assert none.intercept_.tolist() == [0.0] and none.certificate_.ok
    # without an intercept the dual has no equality y'alpha = 0: it is not forced
    assert abs(float(none.alpha_ @ ypm)) > 1e-6
