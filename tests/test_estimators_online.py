"""The online estimators: fit reproduces maxmargin.run, partial_fit streams, scikit-learn's steps.

They must reproduce :func:`maxmargin.run` step for step.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn", minversion="1.6")
from sklearn.base import clone  # noqa: E402

from maxmargin import Dataset, run  # noqa: E402
from maxmargin.estimators import (  # noqa: E402
    AveragedPerceptronClassifier,
    PAClassifier,
    PegasosClassifier,
    PerceptronClassifier,
)
from maxmargin.exceptions import DataError, ParameterError  # noqa: E402
from maxmargin.online import AveragedPerceptron, Pegasos, Perceptron  # noqa: E402
from maxmargin.online.pa import PA1, PA2  # noqa: E402

ONLINE = [PerceptronClassifier, AveragedPerceptronClassifier, PegasosClassifier, PAClassifier]


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
                lam=0.05, batch_size=4, projection="greedy", epochs=3, seed=2, intercept="augmented"
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
        # the defaults: the learners' free bias (conventions.DEFAULT_INTERCEPT)
        (lambda: PegasosClassifier(lam=0.05, epochs=2, seed=1), Pegasos(lam=0.05), False),
        (lambda: PAClassifier(C=0.3, epochs=2, seed=3), PA1(C=0.3), False),
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


@pytest.mark.parametrize("intercept", ["none", "free", "augmented"])
def test_perceptron_and_pa_match_sklearn_step_for_step(intercept):
    """Independent implementations of the same updates, cyclic order, zero start.

    scikit-learn's perceptron updates its unregularised intercept by ``y`` on a mistake,
    which is the free bias's rule and the augmented ``w0 += y s`` rule with ``s = 1``.
    Its PA steps leave the intercept out of ``||x||^2``, so PA is compared without an
    intercept only.
    """
    from sklearn.linear_model import Perceptron as SkPerceptron
    from sklearn.linear_model import SGDClassifier

    X, y = _gauss()
    fit_intercept = intercept != "none"
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
