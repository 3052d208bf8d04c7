"""The squared hinge from scikit-learn and the command line: ExactSVC(loss=), solve --loss.

``ExactSVC(loss="squared_hinge", intercept="augmented")`` is ``LinearSVC()``'s problem
(its default loss, its regularized intercept): the coefficients agree with LinearSVC's
at tol 1e-12; scikit-learn's estimator checks pass; ``maxmargin solve --loss`` writes
the loss into its JSON and refuses it (one line, exit 2) with a kernel.
"""

from __future__ import annotations

import json
import pickle
import warnings

import numpy as np
import pytest

import maxmargin as mm
from maxmargin.cli import main
from maxmargin.estimators import ExactSVC
from maxmargin.exceptions import ParameterError

pytest.importorskip("sklearn", minversion="1.6")
from sklearn.svm import LinearSVC  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

SQ = "squared_hinge"
HEART = str(mm.data.sources._PACKAGE_DATA / "heart_scale")


def test_exact_svc_is_linear_svc(heart) -> None:
    X, y = heart.X, heart.y
    clf = ExactSVC(C=0.5, loss=SQ, intercept="augmented").fit(X, y)
    assert clf.certificate_.ok and clf.get_params()["loss"] == SQ
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = LinearSVC(C=0.5, tol=1e-12, max_iter=10**6, random_state=0).fit(X, y)
    scale = np.abs(clf.coef_).max()
    np.testing.assert_allclose(clf.coef_, ref.coef_, atol=1e-6 * scale)
    np.testing.assert_allclose(clf.intercept_, ref.intercept_, atol=1e-6 * scale)
    np.testing.assert_array_equal(clf.predict(X), ref.predict(X))
    # the hinge's ExactSVC is another problem
    hinge = ExactSVC(C=0.5, intercept="augmented").fit(X, y)
    assert np.abs(hinge.coef_ - clf.coef_).max() > 1e-3
    # SVC's attributes: alpha_ is not boxed, dual_coef_ = y_i alpha_i on the SVs
    assert clf.alpha_.max() > 0.5
    coef = clf.dual_coef_ @ clf.support_vectors_
    np.testing.assert_allclose(np.asarray(coef).ravel(), clf.coef_.ravel(), atol=1e-12)


def test_pickle_and_recertify(heart) -> None:
    clf = ExactSVC(C=2.0, loss=SQ).fit(heart.X, heart.y)
    back = pickle.loads(pickle.dumps(clf))
    back.recertify(heart.X, heart.y)
    assert back.solution_.problem.loss == SQ and back.certificate_.ok
    np.testing.assert_array_equal(back.coef_, clf.coef_)


def test_bad_loss_and_kernel_refused() -> None:
    X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]
    with pytest.raises(ParameterError, match="loss"):
        ExactSVC(loss="log").fit(X, y)
    with pytest.raises(ParameterError, match="kernel problem solves the hinge"):
        ExactSVC(loss=SQ, kernel="rbf").fit(X, y)
    # the hard margin is the same problem under either loss
    a = ExactSVC(hard=True, loss=SQ).fit(X, y)
    b = ExactSVC(hard=True).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


@parametrize_with_checks([ExactSVC(loss=SQ)])
def test_sklearn_estimator_checks(estimator, check) -> None:
    name = getattr(check, "func", check).__name__
    if name == "check_array_api_input":
        pytest.skip("run for ExactSVC() in test_estimators_base (needs SCIPY_ARRAY_API=1)")
    check(estimator)


# --------------------------------------------------------------------------- command line


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_loss_writes_and_certifies(tmp_path, capsys, heart) -> None:
    target = tmp_path / "s.json"
    code, out, err = run_cli(
        capsys, "solve", HEART, "--C", "0.5", "--loss", SQ, "--json", str(target)
    )
    assert code == 0, err
    assert "squared hinge" in out and "CERTIFIED OPTIMAL" in out
    doc = json.loads(target.read_text())
    assert doc["loss"] == SQ and doc["certified"] is True and doc["bound_support"] == []
    sol = mm.solve(mm.SVMProblem(heart, C=0.5, loss=SQ))
    np.testing.assert_allclose(doc["w"], sol.w, atol=1e-12)
    # read back with the data: the same problem, certified again
    back = mm.ExactSolution.from_json(target, heart)
    assert back.problem.loss == SQ and back.certificate.ok


def test_solve_loss_refusals(capsys) -> None:
    code, out, err = run_cli(capsys, "solve", HEART, "--loss", SQ, "--kernel", "rbf")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--loss squared_hinge" in err
    code, out, err = run_cli(capsys, "solve", HEART, "--loss", "squared")
    assert code == 2 and out == "" and "invalid choice" in err


def test_liblinear_model_names_the_l2_loss(heart) -> None:
    from maxmargin.liblinear_model import liblinear_model_text

    sol = mm.solve(mm.SVMProblem(heart, C=0.5, loss=SQ, intercept="augmented"))
    assert liblinear_model_text(sol).startswith("solver_type L2R_L2LOSS_SVC_DUAL\n")
    clf = ExactSVC(C=0.5, loss=SQ, intercept="augmented").fit(heart.X, heart.y)
    assert liblinear_model_text(clf).startswith("solver_type L2R_L2LOSS_SVC_DUAL\n")
    hinge = ExactSVC(C=0.5, intercept="augmented").fit(heart.X, heart.y)
    assert liblinear_model_text(hinge).startswith("solver_type L2R_L1LOSS_SVC_DUAL\n")
    hard = mm.solve(mm.SVMProblem(mm.Dataset([[1.0], [-1.0]], [1, -1]), hard=True, loss=SQ))
    assert liblinear_model_text(hard).startswith("solver_type L2R_L1LOSS_SVC_DUAL\n")
