"""Every exception a caller can cause through the public API is a MaxMarginError.

A table of wrong-typed and out-of-range arguments (strings, None, lists, negatives, NaN,
inf, huge numbers, objects) is driven through the public functions: each call either
works or raises a :class:`maxmargin.MaxMarginError` with a one-line message, never a
``TypeError`` or ``ValueError`` from numpy or Python underneath (docs/bad-input.md).
"""

import math
import warnings

import numpy as np
import pytest

import maxmargin as mm
from maxmargin.data import load_csv, load_libsvm, load_npz, map_labels
from maxmargin.evaluation.path.grids import parse_grid
from maxmargin.online import PA1, OnlineSubgradient, Pegasos, Perceptron, schedule

#: The wrong arguments, each tried in every place of the table.
BAD = {
    "str": "x",
    "empty str": "",
    "None": None,
    "list": [1, 2],
    "nested list": [[1, "a"]],
    "negative": -1,
    "negative float": -0.5,
    "zero": 0,
    "nan": math.nan,
    "inf": math.inf,
    "huge float": 1e308,
    "tiny float": 1e-320,
    "huge int": 10**30,
    "dict": {"a": 1},
    "object": object(),
    "bool": True,
    "str array": np.array(["a", "b"]),
    "complex": 1 + 2j,
}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Small valid arguments every call starts from."""
    tmp = tmp_path_factory.mktemp("api")
    ds = mm.Dataset(
        [[2.0, 0.0], [0.0, 2.0], [-2.0, 0.0], [0.0, -1.5], [1.0, 1.0]], [1, 1, -1, -1, 1]
    )
    p = mm.SVMProblem(ds, C=1.0)
    sol = mm.solve(p)
    csv = tmp / "d.csv"
    csv.write_text("a,b,y\n1,2,1\n2,1,-1\n3,1,1\n")
    svm = tmp / "d.svm"
    svm.write_text("+1 1:1 2:2\n-1 1:2\n+1 2:3\n")
    trace = mm.run("perceptron", ds, epochs=2)
    return {"ds": ds, "p": p, "sol": sol, "csv": csv, "svm": svm, "trace": trace}


def _calls(w):
    """(place, call taking the argument) for every public argument in the table."""
    ds, p, sol = w["ds"], w["p"], w["sol"]
    a, b, al = sol.w, sol.b, sol.alpha
    small = {"epochs": 2, "learners": ["perceptron"]}
    return {
        "solve(problem)": lambda v: mm.solve(v),
        "solve(form)": lambda v: mm.solve(p, form=v),
        "solve(solver)": lambda v: mm.solve(p, solver=v),
        "solve(polish)": lambda v: mm.solve(p, polish=v),
        "solve(interface)": lambda v: mm.solve(p, interface=v),
        "solve(tol)": lambda v: mm.solve(p, tol=v),
        "certify(problem)": lambda v: mm.certify(v, a, b, al),
        "certify(w)": lambda v: mm.certify(p, v, b, al),
        "certify(b)": lambda v: mm.certify(p, a, v, al),
        "certify(alpha)": lambda v: mm.certify(p, a, b, v),
        "certify(tol)": lambda v: mm.certify(p, a, b, al, tol=v),
        "run(learner)": lambda v: mm.run(v, ds),
        "run(data)": lambda v: mm.run("perceptron", v),
        "run(epochs)": lambda v: mm.run("perceptron", ds, epochs=v),
        "run(order)": lambda v: mm.run("perceptron", ds, order=v),
        "run(seed)": lambda v: mm.run("perceptron", ds, seed=v),
        "run(checkpoints)": lambda v: mm.run("perceptron", ds, checkpoints=v),
        "run(record_dual)": lambda v: mm.run("perceptron", ds, record_dual=v),
        "run(random_state)": lambda v: mm.run("perceptron", ds, random_state=v),
        "run(max_iter)": lambda v: mm.run("perceptron", ds, max_iter=v),
        "run(sample_weight)": lambda v: mm.run("perceptron", ds, sample_weight=v),
        "compare(data)": lambda v: mm.compare(v, **small),
        "compare(problem)": lambda v: mm.compare(ds, v, **small),
        "compare(learners)": lambda v: mm.compare(ds, learners=v, epochs=2),
        "compare(C)": lambda v: mm.compare(ds, C=v, **small),
        "compare(lam)": lambda v: mm.compare(ds, lam=v, **small),
        "compare(intercept)": lambda v: mm.compare(ds, intercept=v, **small),
        "compare(intercept_scaling)": lambda v: mm.compare(ds, intercept_scaling=v, **small),
        "compare(epochs)": lambda v: mm.compare(ds, epochs=v, learners=["perceptron"]),
        "compare(orders)": lambda v: mm.compare(ds, orders=v, **small),
        "compare(seeds)": lambda v: mm.compare(ds, seeds=v, **small),
        "compare(holdout)": lambda v: mm.compare(ds, holdout=v, **small),
        "compare(checkpoints)": lambda v: mm.compare(ds, checkpoints=v, **small),
        "compare(reference)": lambda v: mm.compare(ds, reference=v, **small),
        "compare(solver)": lambda v: mm.compare(ds, solver=v, **small),
        "compare(hard_reference)": lambda v: mm.compare(ds, hard_reference=v, **small),
        "compare(random_state)": lambda v: mm.compare(ds, random_state=v, **small),
        "compare(alpha)": lambda v: mm.compare(ds, alpha=v, **small),
        "compare(max_iter)": lambda v: mm.compare(ds, max_iter=v, learners=["perceptron"]),
        "compare(traces)": lambda v: mm.compare(ds, traces=v, epochs=2),
        "path(data)": lambda v: mm.regularization_path(v, C="0.1:10:3"),
        "path(C)": lambda v: mm.regularization_path(ds, C=v),
        "path(lam)": lambda v: mm.regularization_path(ds, lam=v),
        "path(intercept)": lambda v: mm.regularization_path(ds, C=1.0, intercept=v),
        "path(holdout)": lambda v: mm.regularization_path(ds, C=1.0, holdout=v),
        "path(solver)": lambda v: mm.regularization_path(ds, C=1.0, solver=v),
        "path(intercept_scaling)": lambda v: mm.regularization_path(
            ds, C=1.0, intercept="augmented", intercept_scaling=v
        ),
        "path(warm_start)": lambda v: mm.regularization_path(ds, C=1.0, warm_start=v),
        "path(hard_limit)": lambda v: mm.regularization_path(ds, C=1.0, hard_limit=v),
        "path(tol)": lambda v: mm.regularization_path(ds, C=1.0, tol=v),
        "path(Cs)": lambda v: mm.regularization_path(ds, Cs=v),
        "path(exact)": lambda v: mm.regularization_path(ds, C="0.1:1:2", exact=v),
        "path(sample_weight)": lambda v: mm.regularization_path(ds, C=1.0, sample_weight=v),
        "path(class_weight)": lambda v: mm.regularization_path(ds, C=1.0, class_weight=v),
        "SVMProblem(data)": lambda v: mm.SVMProblem(v),
        "SVMProblem(C)": lambda v: mm.SVMProblem(ds, C=v),
        "SVMProblem(lam)": lambda v: mm.SVMProblem(ds, lam=v),
        "SVMProblem(hard)": lambda v: mm.SVMProblem(ds, hard=v),
        "SVMProblem(intercept)": lambda v: mm.SVMProblem(ds, intercept=v),
        "SVMProblem(intercept_scaling)": lambda v: mm.SVMProblem(ds, intercept_scaling=v),
        "SVMProblem(sample_weight)": lambda v: mm.SVMProblem(ds, sample_weight=v),
        "SVMProblem(class_weight)": lambda v: mm.SVMProblem(ds, class_weight=v),
        "Dataset(X)": lambda v: mm.Dataset(v, [1, -1]),
        "Dataset(y)": lambda v: mm.Dataset([[1.0], [2.0]], v),
        "Dataset(name)": lambda v: mm.Dataset([[1.0], [2.0]], [1, -1], name=v),
        "Dataset(classes)": lambda v: mm.Dataset([[1.0], [2.0]], [1, -1], classes=v),
        "Dataset(meta)": lambda v: mm.Dataset([[1.0], [2.0]], [1, -1], meta=v),
        "Dataset(feature_names)": lambda v: mm.Dataset([[1.0], [2.0]], [1, -1], feature_names=v),
        "load(path)": lambda v: mm.load(v),
        "load(label)": lambda v: mm.load(w["csv"], label=v),
        "load(header)": lambda v: mm.load(w["csv"], header=v),
        "load(positive)": lambda v: mm.load(w["csv"], positive=v),
        "load(zero_based)": lambda v: mm.load(w["svm"], zero_based=v),
        "load_libsvm(n_features)": lambda v: load_libsvm(w["svm"], v),
        "load_csv(label)": lambda v: load_csv(w["csv"], v),
        "load_npz(path)": lambda v: load_npz(v),
        "Dataset.split(test_fraction)": lambda v: ds.split(v),
        "Dataset.split(seed)": lambda v: ds.split(0.4, v),
        "Dataset.subset(index)": lambda v: ds.subset(v),
        "Dataset.from_labels(labels)": lambda v: mm.Dataset.from_labels([[1.0], [2.0]], v),
        "map_labels(y)": lambda v: map_labels(v),
        "make_separable(n)": lambda v: mm.make_separable(v),
        "make_separable(d)": lambda v: mm.make_separable(10, v),
        "make_separable(margin)": lambda v: mm.make_separable(10, margin=v),
        "make_separable(seed)": lambda v: mm.make_separable(10, seed=v),
        "make_gaussians(n)": lambda v: mm.make_gaussians(v),
        "make_gaussians(separation)": lambda v: mm.make_gaussians(10, separation=v),
        "make_gaussians(positive_fraction)": lambda v: mm.make_gaussians(10, positive_fraction=v),
        "is_separable(data)": lambda v: mm.is_separable(v),
        "is_separable(intercept)": lambda v: mm.is_separable(ds, v),
        "separation_certificate(tol)": lambda v: mm.separation_certificate(ds, tol=v),
        "verify_separation(z)": lambda v: mm.verify_separation(ds, v),
        "verify_separation(tol)": lambda v: mm.verify_separation(ds, [0.5, 0, 0.5, 0, 0], tol=v),
        "schedule(n)": lambda v: schedule(v),
        "schedule(epochs)": lambda v: schedule(5, v),
        "schedule(order)": lambda v: schedule(5, 1, v),
        "Pegasos(lam)": lambda v: Pegasos(lam=v),
        "Pegasos(projection)": lambda v: Pegasos(projection=v),
        "Pegasos(batch_size)": lambda v: Pegasos(batch_size=v),
        "Pegasos(intercept_scaling)": lambda v: Pegasos(intercept_scaling=v),
        "Pegasos(step)": lambda v: Pegasos(step=v),
        "OnlineSubgradient(eta0)": lambda v: OnlineSubgradient(eta0=v),
        "PA1(C)": lambda v: PA1(C=v),
        "Perceptron(intercept)": lambda v: Perceptron(intercept=v),
        "parse_grid(text)": lambda v: parse_grid(v),
        "path(exact, C)": lambda v: mm.regularization_path(ds, v, exact=True),
        "path(exact, C range)": lambda v: mm.regularization_path(ds, [v, 10.0], exact=True),
        "min_margin_sv_C(data)": lambda v: mm.min_margin_sv_C(v),
        "score_trace(trace)": lambda v: mm.score_trace(v, sol),
        "score_trace(reference)": lambda v: mm.score_trace(w["trace"], v),
        "Trace.from_weights(t)": lambda v: mm.Trace.from_weights(v, [[1.0, 2.0]], name="t"),
        "Trace.from_weights(W)": lambda v: mm.Trace.from_weights([1], v, name="t"),
        "Trace.from_weights(name)": lambda v: mm.Trace.from_weights([1], [[1.0, 2.0]], name=v),
        "Trace.load(path)": lambda v: mm.Trace.load(v),
        "ExactSolution.from_json(source)": lambda v: mm.ExactSolution.from_json(v),
        "ExactSVC(C).fit": lambda v: mm.ExactSVC(C=v).fit(ds.X, ds.y),
    }


def test_every_bad_argument_is_a_maxmargin_error_of_one_line(world):
    wrong = []
    for place, call in _calls(world).items():
        for what, value in BAD.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    call(value)
                except mm.MaxMarginError as e:
                    msg = str(e)
                    if not msg.strip() or "\n" in msg:
                        wrong.append(
                            f"{place} = {what}: a message of {msg.count(chr(10)) + 1} lines"
                        )
                except Exception as e:  # noqa: BLE001 -- what this test looks for
                    wrong.append(f"{place} = {what}: {type(e).__name__}: {e}")
    assert not wrong, "\n".join(wrong)
