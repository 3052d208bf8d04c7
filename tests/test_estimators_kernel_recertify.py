"""ExactSVC(kernel=...): ``recertify(X, y)`` after a pickle, and ``margin_ = 1/||f||_H``.

The margin against a Gram written out here from the formula; re-certifying against a
fresh ``certify_kernel`` of the same point, on the training data and on other data.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from sklearn import datasets as skd
from sklearn.preprocessing import StandardScaler

from maxmargin.estimators import ExactSVC
from maxmargin.exceptions import DataError


def _moons(n=60, seed=0):
    X, y = skd.make_moons(n, noise=0.25, random_state=seed)
    return StandardScaler().fit_transform(X), np.array(["a", "b"])[y]


def _rbf(X, Z, gamma):
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d2)


@pytest.mark.parametrize("hard", [False, True])
def test_margin_is_one_over_the_rkhs_norm(hard):
    X, y = _moons(40, seed=7)
    kw = {"hard": True} if hard else {"C": 3.0}
    clf = ExactSVC(kernel="rbf", gamma=2.0, **kw).fit(X, y)
    sv, c = X[clf.support_], clf.dual_coef_[0]
    norm = math.sqrt(c @ _rbf(sv, sv, 2.0) @ c)
    assert clf.margin_ == pytest.approx(1.0 / norm, rel=1e-10)
    if hard:  # the support vectors lie on the margin: |f| = 1 there
        np.testing.assert_allclose(np.abs(clf.decision_function(sv)), 1.0, atol=1e-7)
    again = pickle.loads(pickle.dumps(clf))
    assert again.margin_ == clf.margin_


def test_linear_kernel_margin_unchanged():
    X, y = _moons()
    lin = ExactSVC(C=2.0).fit(X, y)
    assert lin.margin_ == pytest.approx(1.0 / np.linalg.norm(lin.coef_), rel=1e-9)


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "rbf", "C": 2.0, "class_weight": {"a": 3.0}},
        {"kernel": "poly", "degree": 2, "coef0": 1.0, "C": 3.0, "intercept": "none"},
        {"kernel": "rbf", "gamma": 3.0, "hard": True},
    ],
    ids=str,
)
def test_recertify_after_a_pickle(params):
    X, y = _moons(50, seed=2)
    sw = None if params.get("hard") else np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    clf = ExactSVC(**params).fit(X, y, sample_weight=sw)
    back = pickle.loads(pickle.dumps(clf))
    assert not hasattr(back, "solution_")
    cert = back.recertify(X, y)
    assert cert.ok and back.solution_.certificate is cert and back.solution_.status == "optimal"
    assert cert.relative_gap == pytest.approx(clf.certificate_.relative_gap, rel=1e-9, abs=1e-15)
    s, t = back.solution_, clf.solution_
    np.testing.assert_array_equal(s.alpha, t.alpha)
    for name in ("support", "free_support", "bound_support", "dual_coef"):
        np.testing.assert_array_equal(getattr(s, name), getattr(t, name))
    assert (s.b, s.route, s.polished) == (t.b, t.route, t.polished)
    np.testing.assert_array_equal(s.decision_function(X), t.decision_function(X))
    if sw is not None:  # the weights fit was given are the problem's again
        np.testing.assert_array_equal(s.problem.costs, t.problem.costs)
    # in memory (no pickle) too, at another tolerance
    assert clf.recertify(X, y, tol=1e-3).tol == 1e-3


def test_recertify_on_other_data_warns_or_refuses():
    X, y = _moons(50, seed=2)
    clf = pickle.loads(pickle.dumps(ExactSVC(kernel="rbf", gamma=1.0, C=5.0).fit(X, y)))
    with pytest.raises(DataError, match="rows"):
        clf.recertify(X[:-1], y[:-1])
    moved = X.copy()
    moved[clf.support_[0]] += 1.0
    with pytest.raises(DataError, match="not the training data"):
        clf.recertify(moved, y)
    flipped = y.copy()
    off = np.setdiff1d(np.arange(len(y)), clf.support_)[0]  # outside the margin: alpha 0
    flipped[off] = "a" if y[off] == "b" else "b"  # now on the wrong side, with alpha 0
    with pytest.warns(RuntimeWarning, match="NOT CERTIFIED"):
        cert = clf.recertify(X, flipped)
    assert not cert.ok and clf.solution_.status == "uncertified"


def test_recertify_a_precomputed_gram():
    X, y = _moons(40, seed=3)
    K = _rbf(X, X, 1.5)
    clf = pickle.loads(pickle.dumps(ExactSVC(kernel="precomputed", C=2.0).fit(K, y)))
    assert clf.recertify(K, y).ok
    named = ExactSVC(kernel="rbf", gamma=1.5, C=2.0).fit(X, y)
    assert clf.margin_ == pytest.approx(named.margin_, rel=1e-8)
