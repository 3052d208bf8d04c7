"""What every estimator shares: scikit-learn's own estimator checks, labels, parameters.

Run on all five estimators (maxmargin/estimators/_base.py and the contract of each):
``check_estimator``, binary targets, string labels, ``get_params``/``set_params``,
pipelines, grid search and pandas.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn", minversion="1.6")
from sklearn import datasets as skd  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.multiclass import OneVsRestClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from maxmargin.estimators import (  # noqa: E402
    AveragedPerceptronClassifier,
    ExactSVC,
    PAClassifier,
    PegasosClassifier,
    PerceptronClassifier,
)
from maxmargin.exceptions import DataError  # noqa: E402

ESTIMATORS = [
    ExactSVC(),
    PerceptronClassifier(),
    AveragedPerceptronClassifier(),
    PegasosClassifier(),
    PAClassifier(),
]


def _check_name(check) -> str:
    return getattr(check, "func", check).__name__


# --------------------------------------------------------------------- sklearn's checks

_ARRAY_API_SCRIPT = """
import json, sys, traceback
from sklearn.utils.estimator_checks import check_array_api_input
import maxmargin.estimators as E
out = {}
for name, kw in json.loads(sys.argv[1]).items():
    try:
        check_array_api_input(name, getattr(E, name)(), **kw)
        out[name] = ""
    except Exception:
        out[name] = traceback.format_exc()
print(json.dumps(out))
"""


@functools.cache
def _array_api_in_subprocess(jobs: str) -> dict:
    """Run check_array_api_input for every estimator in one interpreter with SCIPY_ARRAY_API=1.

    scipy reads it at import time, so it cannot be set here.
    """
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    out = subprocess.run(
        [sys.executable, "-c", _ARRAY_API_SCRIPT, jobs],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


# The one expected failure: an online learner's weighted fit is not the fit of repeated
# rows (a step of weight k is one step, not k steps; its trajectory depends on the order
# and the number of steps) -- scikit-learn marks its own Perceptron, SGDClassifier and
# PassiveAggressiveClassifier the same way. ExactSVC passes it: integer weights give the
# optimum of the repeated rows. One check is skipped by scikit-learn itself unless
# SCIPY_ARRAY_API=1 was set before scipy was imported (check_array_api_input, numpy
# namespace): then it runs in a fresh interpreter with the variable set, so every check
# really runs.
_NOT_REPEATED_ROWS = "a weighted online step is not k repeated steps"


def _expected_failures(est) -> dict:
    if isinstance(est, ExactSVC):
        return {}
    return {
        "check_sample_weight_equivalence_on_dense_data": _NOT_REPEATED_ROWS,
        "check_sample_weight_equivalence_on_sparse_data": _NOT_REPEATED_ROWS,
    }


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    if _check_name(check) == "check_array_api_input" and os.environ.get("SCIPY_ARRAY_API") != "1":
        kw = dict(getattr(check, "keywords", {}))
        jobs = json.dumps({type(e).__name__: kw for e in ESTIMATORS}, sort_keys=True)
        err = _array_api_in_subprocess(jobs)[type(estimator).__name__]
        assert not err, err
        return
    check(estimator)


def test_binary_only_tag_and_message():
    X, y = skd.load_iris(return_X_y=True)
    for est in ESTIMATORS:
        assert est.__sklearn_tags__().classifier_tags.multi_class is False
        with pytest.raises(DataError, match="OneVsRestClassifier"):
            clone(est).fit(X, y)
    # ... and the suggested remedy works
    ovr = OneVsRestClassifier(ExactSVC(C=1.0)).fit(StandardScaler().fit_transform(X), y)
    assert len(ovr.estimators_) == 3


def _wine2():
    X, y = skd.load_wine(return_X_y=True)
    keep = y < 2
    return StandardScaler().fit_transform(X[keep]), y[keep]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_string_labels_round_trip(est):
    X, y01 = _wine2()
    names = np.array(["cat", "dog"])
    est = clone(est)
    est.fit(X, names[y01])
    np.testing.assert_array_equal(est.classes_, ["cat", "dog"])
    pred = est.predict(X)
    assert pred.dtype.kind == "U" and set(pred) <= {"cat", "dog"}
    assert est.score(X, names[y01]) > 0.9
    # classes_[1] is +1: a positive score means "dog"
    np.testing.assert_array_equal(pred == "dog", est.decision_function(X) > 0)
    # renaming so that the order flips mirrors the solution
    flipped = clone(est).fit(X, np.array(["zebra", "ant"])[y01])
    np.testing.assert_array_equal(flipped.classes_, ["ant", "zebra"])
    np.testing.assert_array_equal(flipped.predict(X), np.where(pred == "dog", "ant", "zebra"))
    if isinstance(est, ExactSVC):
        np.testing.assert_allclose(flipped.coef_, -est.coef_, atol=1e-6)


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_get_set_params_round_trip(est):
    params = est.get_params()
    other = clone(est).set_params(**params)
    assert other.get_params() == params
    changed = {
        "ExactSVC": {"C": 3.0, "intercept": "none", "form": "primal"},
        "PegasosClassifier": {"lam": 0.01, "projection": "lazy", "batch_size": 4, "average": True},
        "PAClassifier": {"C": 0.5, "variant": "pa2"},
    }.get(type(est).__name__, {})
    changed = {**changed, **({"epochs": 3, "seed": 7} if "epochs" in params else {})}
    est2 = clone(est).set_params(**changed)
    for k, v in changed.items():
        assert est2.get_params()[k] == v
    assert clone(est2).get_params() == est2.get_params()
    assert repr(est2).startswith(type(est).__name__)


def test_pipeline_gridsearch_and_pandas():
    pd = pytest.importorskip("pandas")
    data = skd.load_breast_cancer(as_frame=True)
    X, y = data.data.iloc[::2, :8], data.target.iloc[::2].map({0: "malignant", 1: "benign"})
    assert isinstance(X, pd.DataFrame)

    pipe = make_pipeline(StandardScaler(), ExactSVC())
    grid = GridSearchCV(pipe, {"exactsvc__C": [0.01, 1.0]}, cv=3).fit(X, y)
    assert grid.best_params_["exactsvc__C"] in (0.01, 1.0)
    assert grid.score(X, y) > 0.85
    assert grid.best_estimator_[-1].certificate_.ok
    np.testing.assert_array_equal(grid.best_estimator_.feature_names_in_, X.columns)

    peg = make_pipeline(StandardScaler(), PegasosClassifier(epochs=3))
    g2 = GridSearchCV(peg, {"pegasosclassifier__lam": [1e-3, 1e-1]}, cv=3).fit(X, y)
    assert g2.score(X, y) > 0.85

    # a DataFrame straight into the estimator keeps the column names
    clf = ExactSVC(C=0.5).fit(X, y)
    np.testing.assert_array_equal(clf.feature_names_in_, X.columns)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pred = clf.predict(X)  # no feature-name warning for the same columns
    assert set(pred) == {"benign", "malignant"}
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(X[X.columns[::-1]])  # columns out of order are refused
    p = PerceptronClassifier().partial_fit(X, y, classes=["benign", "malignant"])
    np.testing.assert_array_equal(p.feature_names_in_, X.columns)


# --------------------------------------------------------------------- online: fit, partial_fit
