"""scikit-learn's names (random_state, max_iter, alpha) beside maxmargin's own.

Also feature names through the estimators and the coefficient figure.
"""

import re

import numpy as np
import pytest

import maxmargin as mm
from maxmargin import ParameterError

pytest.importorskip("sklearn")
from maxmargin.estimators import (  # noqa: E402
    AveragedPerceptronClassifier,
    ExactSVC,
    PAClassifier,
    PegasosClassifier,
    PerceptronClassifier,
)

ONLINE = [PerceptronClassifier, AveragedPerceptronClassifier, PegasosClassifier, PAClassifier]


def _data():
    ds = mm.make_gaussians(60, 3, seed=2)
    return ds.X, ds.y


@pytest.mark.parametrize("cls", ONLINE)
def test_random_state_and_max_iter_are_seed_and_epochs(cls):
    X, y = _data()
    ref = cls(epochs=3, seed=5).fit(X, y)
    for est in (cls(max_iter=3, random_state=5), cls(epochs=3, max_iter=3, seed=5, random_state=5)):
        est.fit(X, y)
        assert np.array_equal(est.coef_, ref.coef_) and est.t_ == ref.t_ == 180
        assert est.n_iter_ == 3
    # the defaults (10 epochs, seed 0) when the aliases are None
    assert cls().fit(X, y).n_iter_ == 10
    assert np.array_equal(cls(random_state=0).fit(X, y).coef_, cls().fit(X, y).coef_)
    # a RandomState draws a seed: two equal states give the same weights
    a = cls(random_state=np.random.RandomState(1)).fit(X, y).coef_
    b = cls(random_state=np.random.RandomState(1)).fit(X, y).coef_
    assert np.array_equal(a, b)
    assert cls().partial_fit(X, y).n_iter_ == 1


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"epochs": 3, "max_iter": 4}, "epochs=3 and max_iter=4 disagree"),
        ({"seed": 1, "random_state": 2}, "seed=1 and random_state=2 disagree"),
        ({"random_state": -1}, "'random_state' parameter"),
        ({"random_state": "x"}, "'random_state' parameter"),
        ({"max_iter": 0}, "'max_iter' parameter must be an int >= 1"),
    ],
)
def test_alias_conflicts_are_parameter_errors_at_fit(kw, msg):
    X, y = _data()
    est = PerceptronClassifier(**kw)  # __init__ only stores (scikit-learn's rule)
    with pytest.raises(ParameterError, match=msg):
        est.fit(X, y)


def test_pegasos_alpha_is_lambda():
    X, y = _data()
    ref = PegasosClassifier(lam=0.05, epochs=2).fit(X, y)
    got = PegasosClassifier(alpha=0.05, max_iter=2).fit(X, y)
    assert np.array_equal(got.coef_, ref.coef_)
    assert "alpha" in PegasosClassifier().get_params()
    with pytest.raises(ParameterError, match="lam=0.1 and alpha=0.05 disagree"):
        PegasosClassifier(lam=0.1, alpha=0.05).fit(X, y)
    # the same lambda as scikit-learn's SGDClassifier(alpha): a GridSearchCV grid over
    # "alpha" works as it would for SGDClassifier
    from sklearn.model_selection import GridSearchCV

    search = GridSearchCV(PegasosClassifier(max_iter=2), {"alpha": [1e-3, 1e-1]}, cv=2)
    assert search.fit(X, y).best_params_["alpha"] in (1e-3, 1e-1)


def test_run_compare_and_split_take_random_state():
    ds = mm.make_gaussians(40, 2, seed=0)
    a = mm.run("pegasos", ds, epochs=2, order="shuffle", seed=4)
    b = mm.run("pegasos", ds, epochs=2, order="shuffle", random_state=4)
    assert np.array_equal(a.w, b.w)
    with pytest.raises(ParameterError, match="disagree"):
        mm.run("pegasos", ds, seed=1, random_state=2)
    c1 = mm.compare(ds, learners=["pegasos"], lam=0.1, epochs=2, seeds=(3,))
    c2 = mm.compare(ds, learners=["pegasos"], lam=0.1, epochs=2, random_state=3)
    assert c2.seeds == (3,) and c1.rows[0]["subopt"] == c2.rows[0]["subopt"]
    with pytest.raises(ParameterError, match="seeds=.* and random_state=3 disagree"):
        mm.compare(ds, learners=["pegasos"], lam=0.1, seeds=(0, 1), random_state=3)
    tr1, _ = ds.split(0.25, seed=7)
    tr2, _ = ds.split(0.25, random_state=7)
    assert np.array_equal(tr1.X, tr2.X)


def test_exact_svc_keeps_dataframe_names_in_its_solution():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    df = pd.DataFrame(X, columns=["age", "dose", "weight"])
    clf = ExactSVC(C=1.0).fit(df, y)
    assert clf.feature_names_in_.tolist() == ["age", "dose", "weight"]
    assert clf.solution_.to_dict()["feature_names"] == ["age", "dose", "weight"]
    assert ExactSVC().fit(X, y).solution_.to_dict()["feature_names"] is None
    import pickle

    again = pickle.loads(pickle.dumps(clf))
    assert again.recertify(df, y).ok
    assert again.solution_.to_dict()["feature_names"] == ["age", "dose", "weight"]


def test_coefficient_path_names_its_lines_by_feature_names():
    from maxmargin.plotting.path import plot_coefficients

    ds = mm.Dataset([[1.0, 0.0], [-1.0, 0.5], [2.0, 1.0], [-2.0, -1.0]], [1, -1, 1, -1])
    p = mm.regularization_path(ds, C=[0.1, 1.0])
    # each line is named at its right end (the axes' texts), the names escaped for mathtext
    texts = {t.get_text() for t in plot_coefficients(p, feature_names=["age", "dose $"]).texts}
    assert texts == {"w[age]", "w[dose \\$]"}
    named = mm.Dataset(ds.X, ds.y, feature_names=["age", "dose"])  # by default: the data's
    grid = mm.regularization_path(named, C=[0.1, 1.0])
    assert {t.get_text() for t in plot_coefficients(grid).texts} == {"w[age]", "w[dose]"}
    exact = mm.regularization_path(named, 10.0, exact=True)
    assert {t.get_text() for t in plot_coefficients(exact).texts} == {"w[age]", "w[dose]"}
    assert {t.get_text() for t in plot_coefficients(p).texts} == {"w[0]", "w[1]"}


def test_generators_take_random_state():
    for make in (mm.make_separable, mm.make_gaussians):
        a, b = make(30, 3, seed=6), make(30, 3, random_state=6)
        assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y) and a.name == b.name
        c = make(30, 3, random_state=np.random.RandomState(2))
        assert np.array_equal(c.X, make(30, 3, random_state=np.random.RandomState(2)).X)
        with pytest.raises(ParameterError, match="seed=1 and random_state=2 disagree"):
            make(30, 3, seed=1, random_state=2)


def test_path_grids_take_cs_and_alphas():
    ds = mm.make_gaussians(40, 2, seed=1)
    ref = mm.regularization_path(ds, lam=[0.01, 0.1])
    got = mm.regularization_path(ds, alphas=[0.01, 0.1])
    assert np.array_equal(got.C, ref.C) and np.array_equal(got.w, ref.w)
    assert np.array_equal(mm.regularization_path(ds, Cs=[0.5, 2.0]).C, [0.5, 2.0])
    with pytest.raises(ParameterError, match="not both lam and alphas"):
        mm.regularization_path(ds, lam=[0.1], alphas=[0.1])
    with pytest.raises(ParameterError, match="not both C and Cs"):
        mm.regularization_path(ds, C=[1.0], Cs=[1.0])
    with pytest.raises(ParameterError, match="not both"):  # the C grid and the lam grid
        mm.regularization_path(ds, Cs=[1.0], alphas=[0.1])


def test_learners_along_path_take_sklearn_names():
    ds = mm.make_gaussians(40, 2, seed=1)
    kw = {"learners": ["pegasos"], "order": "shuffle"}
    a = mm.learners_along_path(ds, lam=[0.01, 0.1], epochs=2, seed=3, **kw)
    b = mm.learners_along_path(ds, alphas=[0.01, 0.1], max_iter=2, random_state=3, **kw)
    assert np.array_equal(a.rel_subopt, b.rel_subopt) and b.epochs == 2 and b.seed == 3
    with pytest.raises(ParameterError, match="epochs=3 and max_iter=2 disagree"):
        mm.learners_along_path(ds, lam=[0.1], epochs=3, max_iter=2, **kw)


def test_study_spec_takes_sklearn_names():
    pytest.importorskip("pyarrow")
    from maxmargin.studies import SpecError, load_spec

    def spec(problem, run, params):
        return {
            "problem": problem,
            "run": run,
            "learners": ["pegasos"],
            "data": [{"generator": "gaussians", "params": {"n": 20, **params}}],
        }

    ours = load_spec(spec({"lam": [0.1]}, {"epochs": 3}, {"seed": 4}))
    theirs = load_spec(spec({"alpha": [0.1]}, {"max_iter": 3}, {"random_state": 4}))
    # read as maxmargin's names: the same normalised spec, so the same cells (resume works)
    assert theirs.hash == ours.hash and theirs.raw == ours.raw
    assert theirs.epochs == 3 and theirs.grid_parameter == "lam"
    assert theirs.data[0].params == {"n": 20, "seed": 4}
    for bad, key in [
        (spec({"lam": [0.1], "alpha": [0.1]}, {}, {}), "problem.alpha"),
        (spec({"C": [1.0]}, {"epochs": 2, "max_iter": 2}, {}), "run.max_iter"),
        (spec({"C": [1.0]}, {}, {"seed": 1, "random_state": 1}), "data[0].params.random_state"),
    ]:
        with pytest.raises(SpecError, match=re.escape(key) + ": give .* not both"):
            load_spec(bad)


def test_run_and_compare_take_max_iter_and_alpha():
    ds = mm.make_separable(30, 2, seed=3)
    a = mm.run("pegasos", ds, epochs=3, order="shuffle", seed=2)
    b = mm.run("pegasos", ds, max_iter=3, order="shuffle", random_state=2)
    assert a.steps == b.steps == 90 and np.array_equal(a.w, b.w)
    with pytest.raises(ParameterError, match="epochs=2 and max_iter=3 disagree"):
        mm.run("pegasos", ds, epochs=2, max_iter=3)
    kw = {"learners": ["pegasos"], "intercept": "none"}
    ours = mm.compare(ds, lam=0.05, epochs=2, seeds=(1,), **kw)
    theirs = mm.compare(ds, alpha=0.05, max_iter=2, random_state=1, **kw)
    assert theirs.problem.lam == ours.problem.lam and theirs.epochs == 2
    assert np.array_equal(theirs.runs[0].subopt, ours.runs[0].subopt)
    with pytest.raises(ParameterError, match="lam=0.1 and alpha=0.05 disagree"):
        mm.compare(ds, lam=0.1, alpha=0.05, **kw)
