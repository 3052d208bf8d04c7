"""The kernel solution on io: ``maxmargin.kernel_solution/1`` keeps its keys and values.

``_legacy`` is the document ``solve --kernel --json`` wrote by hand before the solution was
declared on io (frozen here): the declared document must equal it key for key.
"""

import json

import numpy as np
import pytest

import maxmargin as mm
from maxmargin.cli import main
from maxmargin.io.json import dumps, format_header
from maxmargin.kernel_problem import KernelProblem
from maxmargin.solvers.kernel import KernelSolution, solve_kernel_dual

HEART = str(mm.data.sources._PACKAGE_DATA / "heart_scale")


def _legacy(sol):
    p, k, c = sol.problem, sol.problem.kernel, sol.certificate
    doc = {
        **format_header("kernel_solution"),
        "data": p.data.name,
        "n": p.n,
        "d": p.data.d,
        "kernel": {
            "name": k.name,
            "gamma": p.gram.gamma if k.name != "linear" else None,
            "degree": k.degree if k.name == "poly" else None,
            "coef0": k.coef0 if k.name in ("poly", "sigmoid") else None,
        },
        "C": p.C,
        "hard": p.hard,
        "intercept": p.intercept,
        "weights": p.weights,
        "b": sol.b,
        "alpha": {"n": p.n, "index": sol.support, "value": sol.alpha[sol.support]},
        "support": sol.support,
        "dual_coef": sol.dual_coef,
        "free_support": sol.free_support,
        "bound_support": sol.bound_support,
        "primal_objective": c.primal_objective,
        "dual_objective": c.dual_objective,
        "duality_gap": c.duality_gap,
        "relative_gap": c.relative_gap,
        "status": sol.status,
        "route": sol.route,
        "iterations": sol.iterations,
        "polished": sol.polished,
        "solve_seconds": sol.solve_seconds,
        "certificate": c.to_dict(),
    }
    return json.loads(dumps(doc))


def _data(seed=0, n=24):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    return mm.Dataset(X, y, name="xor")


PROBLEMS = {
    "rbf-weighted": lambda d: KernelProblem(d, "rbf", C=3.0, sample_weight=np.linspace(1, 2, d.n)),
    "poly-none": lambda d: KernelProblem(d, "poly", C=0.5, intercept="none", degree=2, coef0=1.0),
    "sigmoid": lambda d: KernelProblem(d, "sigmoid", C=0.1, gamma=0.05, coef0=-0.5, check=False),
    "linear": lambda d: KernelProblem(d, "linear", C=1.0),
    "rbf-hard": lambda d: KernelProblem(d, "rbf", hard=True, gamma=2.0),
}


def _written(sol):
    """The document ``solve --kernel --json`` writes for ``sol``."""
    return json.loads(sol.to_json())


@pytest.mark.parametrize("name", PROBLEMS)
def test_document_keys_and_values_unchanged(name):
    sol = solve_kernel_dual(PROBLEMS[name](_data()))
    assert _written(sol) == _legacy(sol)


def test_cli_document_has_the_legacy_keys(tmp_path, capsys):
    target = tmp_path / "k.json"
    argv = ["solve", HEART, "--kernel", "rbf", "--C", "2", "--json", str(target)]
    assert main(argv) == 0
    capsys.readouterr()
    doc = json.loads(target.read_text())
    data = mm.data.load_libsvm(HEART)
    sol = solve_kernel_dual(KernelProblem(data, "rbf", C=2.0))
    legacy = _legacy(sol)
    assert sorted(doc) == sorted(legacy)
    assert doc["kernel"] == legacy["kernel"]
    assert doc["alpha"]["index"] == legacy["alpha"]["index"]


def _rbf(A, B, gamma):
    sq = (A**2).sum(1)[:, None] + (B**2).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-gamma * sq)


def test_from_json_without_data_is_the_files_word(tmp_path, capsys):
    target = tmp_path / "k.json"
    argv = ["solve", HEART, "--kernel", "rbf", "--C", "2", "--json", str(target)]
    assert main(argv) == 0
    capsys.readouterr()
    saved = KernelSolution.from_json(target)
    doc = json.loads(target.read_text())
    assert type(saved) is KernelSolution and saved.problem._data is None
    assert saved.b == doc["b"] and saved.problem.kernel.gamma == doc["kernel"]["gamma"]
    assert saved.problem.weights is None and saved.problem.n == doc["n"]
    for what in (lambda: saved.margin, lambda: saved.decision_function([[0.0] * 13])):
        with pytest.raises(mm.DataError, match="read from a file without its data") as e:
            what()
        assert "\n" not in str(e.value)


def test_with_data_recertifies_against_numpy(tmp_path, capsys):
    target = tmp_path / "k.json"
    argv = ["solve", HEART, "--kernel", "rbf", "--C", "2", "--json", str(target)]
    assert main(argv) == 0
    capsys.readouterr()
    data = mm.data.load_libsvm(HEART)
    sol = KernelSolution.from_json(target, data)
    assert sol.certificate.ok and sol.status == "optimal"
    # independently: the dual objective and f(x) from the file's alpha, b with numpy
    doc = json.loads(target.read_text())
    X = data.X.toarray() if hasattr(data.X, "toarray") else np.asarray(data.X)
    alpha = np.zeros(doc["n"])
    alpha[doc["alpha"]["index"]] = doc["alpha"]["value"]
    c = alpha * data.y
    K = _rbf(X, X, doc["kernel"]["gamma"])
    dual = alpha.sum() - 0.5 * c @ K @ c
    assert sol.certificate.dual_objective == pytest.approx(dual, rel=1e-12)
    f = K @ c + doc["b"]
    np.testing.assert_allclose(sol.decision_function(X[:7]), f[:7], rtol=1e-10, atol=1e-12)
    assert sol.margin == pytest.approx(1 / np.sqrt(c @ K @ c), rel=1e-12)


def test_with_data_of_other_data_is_uncertified_or_refused():
    data = _data()
    saved = solve_kernel_dual(PROBLEMS["rbf-weighted"](data)).without_data()
    other = _data(seed=5)
    with pytest.warns(RuntimeWarning, match="NOT CERTIFIED"):
        assert saved.with_data(other).status == "uncertified"
    with pytest.raises(mm.DataError, match="n=24, d=2; xor has n=10, d=2"):
        saved.with_data(_data(n=10))


@pytest.mark.parametrize("name", PROBLEMS)
def test_round_trip_with_data_keeps_the_point(name):
    data = _data()
    sol = solve_kernel_dual(PROBLEMS[name](data))
    doc = json.loads(sol.to_json())
    if name == "sigmoid":  # solved with check=False: the Gram is checked again, and fails
        with pytest.raises(mm.ParameterError, match="not positive semi-definite on these data"):
            KernelSolution.from_json(doc, data)
        return
    back = KernelSolution.from_json(doc, data)
    assert back.to_json() == sol.to_json()
    assert back.problem.gram.gamma == sol.problem.gram.gamma


def test_callable_kernel_is_refused_when_read():
    data = _data()
    sol = solve_kernel_dual(KernelProblem(data, lambda A, B: A @ B.T, C=1.0))
    doc = json.loads(sol.to_json())
    assert doc["kernel"] == {"name": "callable", "gamma": 0.0, "degree": None, "coef0": None}
    with pytest.raises(mm.DataError, match="a Python function, which no file holds"):
        KernelSolution.from_json(doc)


# --------------------------------------------------------------- the kernel comparison

SERIES = ("t", "objective", "suboptimality", "distance", "distance_low", "distance_high")


def _legacy_comparison(cmp):
    """``report.json`` as ``report/kernel.py`` wrote it by hand (frozen here)."""
    p, sol = cmp.problem, cmp.optimum
    cert, k = sol.certificate, p.kernel
    doc = {
        **format_header("kernel_comparison"),
        "data": p.data.name,
        "n": p.n,
        "d": p.data.d,
        "kernel": {
            "name": k.name,
            "gamma": p.gram.gamma if k.name != "linear" else None,
            "degree": k.degree if k.name == "poly" else None,
            "coef0": k.coef0 if k.name in ("poly", "sigmoid") else None,
        },
        "C": p.C,
        "intercept": p.intercept,
        "reference": {
            "objective": cmp.objective,
            "b": sol.b,
            "support": len(sol.support),
            "free_support": len(sol.free_support),
            "bound_support": len(sol.bound_support),
            "route": sol.route,
            "certified": bool(cert.ok),
            "duality_gap": cert.duality_gap,
            "relative_gap": cert.relative_gap,
            "certificate": cert.to_dict(),
        },
        "optimum_radius": cmp.optimum_radius,
        "radius": cmp.radius,
        "margin": cmp.margin,
        "novikoff": cmp.novikoff,
        "seeds": list(cmp.seeds),
        "rows": cmp.rows,
        "runs": [
            {
                "learner": s.learner,
                "seed": s.seed,
                "mistake_bound_applies": s.mistake_bound_applies,
                **{k: getattr(s, k) for k in (*SERIES, "regret", "mistakes")},
            }
            for s in cmp.scores
        ],
    }
    return json.loads(dumps(doc))


@pytest.fixture(scope="module")
def kcmp():
    from maxmargin.evaluation.kernel_scoring import compare_kernel

    return compare_kernel(_data(n=30), gamma=2.0, C=10.0, epochs=2, seeds=[0, 1])


def _comparison_written(cmp, tmp_path):
    from maxmargin.report import write_report

    write_report(cmp, tmp_path, figures=False)
    return json.loads((tmp_path / "report.json").read_text())


def test_comparison_document_keeps_its_keys_and_values(kcmp, tmp_path):
    doc, legacy = _comparison_written(kcmp, tmp_path), _legacy_comparison(kcmp)
    for key, value in legacy.items():
        if key == "reference":
            assert {k: doc[key][k] for k in value} == value
        else:
            assert doc[key] == value, key


def test_comparison_read_back_and_recertified(kcmp, tmp_path):
    from maxmargin.evaluation.kernel_scoring import KernelComparison

    _comparison_written(kcmp, tmp_path)
    saved = KernelComparison.from_json(tmp_path / "report.json")
    assert saved.problem._data is None and saved.scores[0].trace is None
    assert saved.rows == kcmp.rows and saved.novikoff == kcmp.novikoff
    np.testing.assert_array_equal(saved.optimum.alpha, kcmp.optimum.alpha)
    back = KernelComparison.from_json(tmp_path / "report.json", _data(n=30))
    assert back.optimum.certificate.ok
    # the re-certified dual objective, recomputed here from the file's alpha with numpy
    X, y = _data(n=30).X, _data(n=30).y
    c = back.optimum.alpha * y
    K = _rbf(X, X, 2.0)
    dual = back.optimum.alpha.sum() - 0.5 * c @ K @ c
    assert back.optimum.certificate.dual_objective == pytest.approx(dual, rel=1e-12)
    with pytest.warns(RuntimeWarning, match="NOT CERTIFIED"):
        assert KernelComparison.from_json(
            tmp_path / "report.json", _data(7, 30)
        ).optimum.status == ("uncertified")


def test_alpha_is_written_whole_not_cut_to_the_support():
    """An unpolished point keeps its tiny multipliers in the file.

    The hand writer cut them off: the file then held another point than the one its
    certificate is of.
    """
    import dataclasses

    sol = solve_kernel_dual(PROBLEMS["rbf-weighted"](_data()))
    off = np.setdiff1d(np.arange(sol.problem.n), sol.support)[0]
    alpha = sol.alpha.copy()
    alpha[off] = 1e-12
    odd = dataclasses.replace(sol, alpha=alpha, polished=False)
    doc = json.loads(odd.to_json())
    assert off in doc["alpha"]["index"] and off not in doc["support"]
    back = KernelSolution.from_json(doc)
    np.testing.assert_array_equal(back.alpha, alpha)
