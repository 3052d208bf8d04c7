"""scikit-learn's squared-hinge SGD as a learner, scored against the certified L2-loss SVM.

``SGDClassifier(loss="squared_hinge", penalty="l2", alpha)`` minimises
``alpha/2 ||w||^2 + mean max(0, 1 - y (w.x + b))^2`` with an unregularised intercept
(scikit-learn's ``_sgd_fast.pyx.tp``: ``SquaredHinge`` is ``z * z`` for ``z = 1 - y p > 0``,
``w`` shrunk by ``1 - eta alpha``, the intercept never): the lambda objective of
``SVMProblem(loss="squared_hinge")`` with ``lam = alpha`` and a free intercept.
"""

from __future__ import annotations

import numpy as np
import pytest

from maxmargin import compare
from maxmargin.exceptions import ParameterError

sk = pytest.importorskip("sklearn.linear_model")
LAM = 0.05


def _objective(data, w, b, lam):
    """The squared-hinge lambda objective, with numpy, from the data and the weights."""
    X = data.X.toarray() if hasattr(data.X, "toarray") else np.asarray(data.X)
    xi = np.maximum(0.0, 1.0 - data.y * (X @ w + b))
    return lam / 2 * float(w @ w) + float(np.mean(xi**2))


def test_squared_hinge_sgd_declares_the_l2_loss_objective():
    from maxmargin.online.adapters import SklearnLearner

    sgd = SklearnLearner(sk.SGDClassifier(loss="squared_hinge", alpha=LAM))
    assert (sgd.objective, sgd.loss, sgd.lam, sgd.intercept) == (
        "lambda",
        "squared_hinge",
        LAM,
        "free",
    )
    assert sgd.theory_rate is None and sgd.claims == ()  # an unbounded gradient: no rate
    hinge = SklearnLearner(sk.SGDClassifier(loss="hinge", alpha=LAM))
    assert hinge.loss == "hinge"
    other = SklearnLearner(sk.SGDClassifier(loss="squared_hinge", penalty="l1", alpha=LAM))
    assert other.objective is None  # not the L2-loss SVM: not scored on it


def test_squared_hinge_sgd_converges_to_the_certified_l2_loss_svm(heart):
    # eta0 / sqrt(t): scikit-learn's "optimal" steps start at 1/sqrt(sqrt(alpha)) (its
    # initial-step rule is made for a gradient bounded by 1) and diverge on this loss
    est = sk.SGDClassifier(
        loss="squared_hinge", alpha=LAM, learning_rate="invscaling", eta0=0.05, average=True
    )
    cmp = compare(heart, learners=[est], lam=LAM, loss="squared_hinge", epochs=20, seeds=0)
    assert cmp.problem.loss == "squared_hinge" and cmp.reference.certificate.ok
    (r,) = cmp.runs
    assert r.intercept == "free"
    # F is the squared-hinge objective of the run's own weights, recomputed with numpy
    F = _objective(heart, r.trace.w[-1], float(r.trace.b[-1]), LAM)
    assert np.isclose(r.objective[-1], F, rtol=1e-9)
    assert np.all(r.subopt > -1e-9 * cmp.F_star)  # never below the certified optimum
    sub = np.asarray(r.subopt_avg)
    assert sub[-1] < 0.05 * cmp.F_star and sub[-1] < 0.05 * sub[0]  # falls toward 0


def test_hinge_sgd_on_a_squared_hinge_problem_is_refused_in_one_line(heart):
    with pytest.raises(ParameterError, match="minimises the hinge objective") as e:
        compare(heart, learners=[sk.SGDClassifier(alpha=LAM)], lam=LAM, loss="squared_hinge")
    assert "\n" not in str(e.value)
    sq = sk.SGDClassifier(loss="squared_hinge", alpha=LAM)
    with pytest.raises(ParameterError, match="squared_hinge objective") as e:
        compare(heart, learners=[sq], lam=LAM)  # and the other way round
    assert "\n" not in str(e.value)
