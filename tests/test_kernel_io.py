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
from maxmargin.solvers.kernel import solve_kernel_dual

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
    from maxmargin.cli.solve import kernel_document

    return json.loads(dumps(kernel_document(sol)))


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
