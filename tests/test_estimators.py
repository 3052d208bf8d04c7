"""scikit-learn estimators: sklearn's own estimator checks, SVC agreement, the API contract.

ExactSVC is compared with ``SVC(kernel="linear", tol=1e-10)`` (libsvm's SMO: another
algorithm on the same problem); the online estimators with :func:`maxmargin.run`, which
they must reproduce step for step.
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
import scipy.sparse as sp  # noqa: E402
from sklearn import datasets as skd  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.multiclass import OneVsRestClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import SVC, LinearSVC  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from maxmargin import Dataset, run  # noqa: E402
from maxmargin.estimators import (  # noqa: E402
    AveragedPerceptronClassifier,
    ExactSVC,
    PAClassifier,
    PegasosClassifier,
    PerceptronClassifier,
)
from maxmargin.exceptions import (  # noqa: E402
    DataError,
    MaxMarginError,
    NotSeparableError,
    ParameterError,
)
from maxmargin.online import AveragedPerceptron, Pegasos, Perceptron  # noqa: E402
from maxmargin.online.pa import PA2  # noqa: E402

ESTIMATORS = [
    ExactSVC(),
    PerceptronClassifier(),
    AveragedPerceptronClassifier(),
    PegasosClassifier(),
    PAClassifier(),
]
ONLINE = [PerceptronClassifier, AveragedPerceptronClassifier, PegasosClassifier, PAClassifier]


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


# --------------------------------------------------------------------- ExactSVC vs SVC


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


# --------------------------------------------------------------------- labels, params


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


def _gauss():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-1, 1, (60, 3)), rng.normal(1, 1, (60, 3))])
    y = np.repeat([0, 1], 60)
    return X, y


@pytest.mark.parametrize(
    "make_est,learner,use_avg",
    [
        (lambda: PerceptronClassifier(epochs=3, order="shuffle", seed=5), Perceptron(), False),
        (
            lambda: AveragedPerceptronClassifier(epochs=2, order="sample", seed=1),
            AveragedPerceptron(),
            False,
        ),
        (
            lambda: PegasosClassifier(
                lam=0.05, batch_size=4, projection="greedy", epochs=3, seed=2
            ),
            Pegasos(lam=0.05, batch_size=4, projection="greedy", intercept="augmented"),
            False,
        ),
        (
            lambda: PegasosClassifier(lam=0.05, average=True, epochs=2, intercept="none"),
            Pegasos(lam=0.05, intercept="none"),
            True,
        ),
        (lambda: PAClassifier(C=0.3, variant="pa2", epochs=2, seed=3), PA2(C=0.3), False),
    ],
)
def test_fit_reproduces_run(make_est, learner, use_avg):
    X, y = _gauss()
    est = make_est().fit(X, y)
    tr = run(
        learner,
        Dataset(X, np.where(y == 1, 1.0, -1.0)),
        epochs=est.epochs,
        order=est.order,
        seed=est.seed,
    )
    w, b = (tr.w_avg[-1], tr.b_avg[-1]) if use_avg else (tr.w[-1], tr.b[-1])
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-12, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(b, rel=1e-12, abs=1e-12)
    assert est.t_ == tr.steps and est.n_mistakes_ == int(tr.mistakes[-1])


@pytest.mark.parametrize("cls", ONLINE)
def test_partial_fit_streams_like_one_cyclic_pass(cls):
    X, y = _gauss()
    full = cls(epochs=1, order="cyclic").fit(X, y)
    stream = cls()
    for lo in range(0, len(y), 40):  # 3 batches; the middle one holds both classes
        stream.partial_fit(X[lo : lo + 40], y[lo : lo + 40], classes=[0, 1])
    np.testing.assert_allclose(stream.coef_, full.coef_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(stream.intercept_, full.intercept_, rtol=1e-12, atol=1e-12)
    assert stream.t_ == len(y)
    # partial_fit after fit continues: two cyclic epochs = fit + one more pass
    two = cls(epochs=2, order="cyclic").fit(X, y)
    more = cls(epochs=1, order="cyclic").fit(X, y).partial_fit(X, y)
    np.testing.assert_allclose(more.coef_, two.coef_, rtol=1e-12, atol=1e-12)
    # fit starts again from zero
    again = clone(more).set_params(epochs=1).fit(X, y)
    np.testing.assert_allclose(again.coef_, full.coef_, rtol=1e-12, atol=1e-12)


def test_partial_fit_errors_say_what_to_do():
    X, y = _gauss()
    with pytest.raises(DataError, match="classes=") as err:
        PerceptronClassifier().partial_fit(X[:10], y[:10])  # one class, no `classes`
    assert "one class" in str(err.value)
    p = PerceptronClassifier().partial_fit(X[:10], y[:10], classes=[0, 1])
    assert p.t_ == 10 and list(p.classes_) == [0, 1]
    with pytest.raises(DataError, match="differs"):
        p.partial_fit(X, y, classes=[0, 2])
    with pytest.raises(DataError, match="not among"):
        p.partial_fit(X[:3], [0, 1, 2])
    with pytest.raises(ValueError, match="features"):
        p.partial_fit(X[:, :2], y)
    with pytest.raises(ParameterError, match="'lam'"):
        PegasosClassifier(lam=0.0).fit(X, y)
    with pytest.raises(ParameterError, match="'variant'"):
        PAClassifier(variant="pa3").fit(X, y)
    with pytest.raises(ParameterError, match="'order'"):
        PerceptronClassifier(order="random").fit(X, y)
    with pytest.raises(ParameterError, match="intercept"):
        PerceptronClassifier(intercept="bias").fit(X, y)


@pytest.mark.parametrize("intercept", ["none", "augmented"])
def test_perceptron_and_pa_match_sklearn_step_for_step(intercept):
    """Independent implementations of the same updates, cyclic order, zero start.

    scikit-learn's perceptron updates its unregularised intercept by ``y`` on a mistake,
    which is the augmented ``w0 += y s`` rule with ``s = 1``. Its PA steps leave the
    intercept out of ``||x||^2``, so PA is compared without an intercept only.
    """
    from sklearn.linear_model import Perceptron as SkPerceptron
    from sklearn.linear_model import SGDClassifier

    X, y = _gauss()
    fit_intercept = intercept == "augmented"
    sk = SkPerceptron(fit_intercept=fit_intercept, shuffle=False, max_iter=3, tol=None)
    mm = PerceptronClassifier(intercept=intercept, order="cyclic", epochs=3)
    sk.fit(X, y)
    mm.fit(X, y)
    assert np.abs(sk.coef_).max() > 0.1
    np.testing.assert_allclose(mm.coef_, sk.coef_, rtol=1e-12)
    np.testing.assert_allclose(mm.intercept_, sk.intercept_, atol=1e-12)
    if intercept == "none":
        for variant in ("pa1", "pa2"):
            sk = SGDClassifier(
                loss="hinge",
                penalty=None,
                learning_rate=variant,
                eta0=0.3,
                fit_intercept=False,
                shuffle=False,
                max_iter=3,
                tol=None,
            )
            mm = PAClassifier(C=0.3, variant=variant, intercept="none", order="cyclic", epochs=3)
            np.testing.assert_allclose(mm.fit(X, y).coef_, sk.fit(X, y).coef_, rtol=1e-10)
