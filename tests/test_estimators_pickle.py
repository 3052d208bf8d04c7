"""Pickles of ExactSVC: size, predictions after a round trip, and re-certification.

O(#SV) in size, exact predictions after a round trip, and a re-certification on the
training data (``recertify``) that passes, and fails on other data.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("sklearn")

from maxmargin import make_gaussians, make_separable  # noqa: E402
from maxmargin.estimators import ExactSVC  # noqa: E402
from maxmargin.exceptions import DataError  # noqa: E402


@pytest.fixture(scope="module")
def big():
    """20000 x 20 (3.2 MB of features), few support vectors."""
    ds = make_gaussians(20000, 20, separation=6.0, seed=0)
    labels = np.where(ds.y > 0, "yes", "no")
    return ds.X, labels, ExactSVC(C=1.0).fit(ds.X, labels)


def test_pickle_size_is_of_the_support_vectors_not_the_data(big):
    X, y, clf = big
    n, d = X.shape
    n_sv = clf.support_.size
    assert 0 < n_sv < 200
    blob = pickle.dumps(clf)
    # per SV: its row, alpha (value + index), dual_coef_, support_ and the solution's
    # support sets; plus w, the certificate and a few KB of names
    assert len(blob) <= 8 * n_sv * (d + 8) + 16 * d + 20_000
    assert len(blob) < X.nbytes / 50
    full = pickle.dumps(clf.__dict__)  # what pickle stored before: the whole Dataset
    assert len(full) > X.nbytes


def test_round_trip_predicts_identically(big):
    X, y, clf = big
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.decision_function(X), clf.decision_function(X))
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))
    for name in (
        "coef_",
        "intercept_",
        "alpha_",
        "support_",
        "dual_coef_",
        "n_support_",
        "classes_",
    ):
        np.testing.assert_array_equal(getattr(back, name), getattr(clf, name))
    np.testing.assert_array_equal(back.support_vectors_, clf.support_vectors_)
    assert back.certificate_ == clf.certificate_ and back.margin_ == clf.margin_
    assert back.get_params() == clf.get_params()
    assert hasattr(clf, "solution_")  # pickling leaves the fitted estimator whole


def test_recertify_after_unpickling(big):
    X, y, clf = big
    back = pickle.loads(pickle.dumps(clf))
    assert not hasattr(back, "solution_")
    with pytest.raises(AttributeError, match="recertify"):
        back.solution_  # noqa: B018
    cert = back.recertify(X, y)
    assert cert.ok and cert == clf.certificate_  # the same numpy sums, the same numbers
    sol = back.solution_
    assert sol.problem.n == X.shape[0] and sol.certificate == clf.certificate_
    d0, d1 = clf.solution_.to_dict(), sol.to_dict()
    assert d0 == d1
    again = pickle.loads(pickle.dumps(back))  # a re-certified estimator pickles as slim
    assert not hasattr(again, "solution_") and again.recertify(X, y).ok


def test_recertify_rejects_other_data(big):
    X, y, clf = big
    back = pickle.loads(pickle.dumps(clf))
    perm = np.random.default_rng(0).permutation(X.shape[0])
    with pytest.raises(DataError, match="not the training data"):
        back.recertify(X[perm], y[perm])
    with pytest.raises(DataError, match="rows"):
        back.recertify(X[:-1], y[:-1])
    with pytest.raises(DataError, match="classes_"):
        back.recertify(X, np.where(y == "yes", "maybe", y))
    flipped = y.copy()
    flipped[clf.support_[0]] = "yes" if y[clf.support_[0]] == "no" else "no"
    with pytest.raises(DataError, match="not the training data"):
        back.recertify(X, flipped)
    # a changed row that is no support vector passes the cheap check; the certificate fails
    far = np.setdiff1d(np.arange(X.shape[0]), clf.support_)[0]
    X2 = X.copy()
    X2[far] = -X2[far] * 10.0  # now deep on the wrong side
    with pytest.warns(RuntimeWarning, match="NOT CERTIFIED"):
        assert not back.recertify(X2, y).ok
    assert back.solution_.status == "uncertified"


def test_alpha_round_trip_is_lossless_when_dense():
    # an unpolished solve leaves tiny non-zero alphas everywhere: still stored exactly
    ds = make_separable(50, 2, seed=1)
    clf = ExactSVC(C=1.0).fit(ds.X, ds.y)
    clf.alpha_ = np.random.default_rng(0).random(ds.n) * 1e-12
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(clf)).alpha_, clf.alpha_)


@pytest.mark.parametrize(
    "kw",
    [
        dict(hard=True),
        dict(intercept="augmented", intercept_scaling=2.0),
        dict(intercept="none", C=0.1),
    ],
)
def test_recertify_every_problem_kind_and_sparse(kw):
    ds = make_separable(80, 3, seed=2)
    X = sp.csr_matrix(ds.X)
    clf = ExactSVC(**kw).fit(X, ds.y)
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))
    assert back.recertify(X, ds.y).ok
    assert back.recertify(ds.X, ds.y).ok  # dense rows equal to the sparse ones
    assert back.solution_.problem.hard == bool(kw.get("hard", False))


def test_copies_keep_the_solution():
    ds = make_separable(30, 2, seed=3)
    clf = ExactSVC().fit(ds.X, ds.y)
    assert copy.copy(clf).solution_ is clf.solution_
    deep = copy.deepcopy(clf)
    assert deep.solution_ is not clf.solution_
    np.testing.assert_array_equal(deep.solution_.problem.data.X, ds.X)


def test_refit_after_unpickling_forgets_the_pickled_solution():
    a, b = make_separable(40, 2, seed=5), make_separable(60, 2, seed=6)
    back = pickle.loads(pickle.dumps(ExactSVC().fit(a.X, a.y)))
    back.fit(b.X, b.y)
    assert back.recertify(b.X, b.y).ok and back.solution_.problem.n == 60
    assert "_solution" not in back.__dict__
