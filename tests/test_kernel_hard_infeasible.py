"""An infeasible hard kernel margin past the dense route's n: NotSeparableError, proven.

The SMO route (n > 300) meets a dual that rises without bound; it must end as the dense
route does (``NotSeparableError``, exit 1), from a proof (the same point with both
labels, or the separation LP), and never say "not separable" of separable data.
"""

from __future__ import annotations

import numpy as np
import pytest

from maxmargin import Dataset, NotSeparableError, SolverError
from maxmargin.cli import main
from maxmargin.kernel_problem import KernelProblem
from maxmargin.solvers import smo as smo_module
from maxmargin.solvers.kernel import solve_kernel_dual

N = 400  # above the dense route's 300


def _overlapping(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _duplicated(n=N):
    X, y = _overlapping(n)
    X[-1], y[-1] = X[0], -y[0]  # the same point with the other label
    return X, y


@pytest.mark.parametrize("intercept", ["free", "none"])
@pytest.mark.parametrize("route", ["auto", "smo", "dense"])
def test_a_point_with_both_labels_is_not_separable_at_any_n(intercept, route):
    X, y = _duplicated()
    p = KernelProblem(Dataset(X, y), "rbf", hard=True, gamma=1.0, intercept=intercept)
    with pytest.raises(NotSeparableError, match=f"examples 0 and {N - 1} are the same point"):
        solve_kernel_dual(p, route=route)


def test_a_precomputed_gram_with_two_equal_rows_and_both_labels():
    X, y = _duplicated()
    K = X @ X.T + 1.0
    p = KernelProblem(Dataset(K, y), "precomputed", hard=True)
    with pytest.raises(NotSeparableError, match="same row of the precomputed kernel"):
        solve_kernel_dual(p)


@pytest.mark.parametrize("intercept", ["free", "none"])
def test_overlapping_classes_of_a_low_degree_kernel_on_the_smo_route(intercept):
    # degree 1: a linear function of (x, 1); the classes overlap. SMO's dual rises
    # linearly and never converges: the separation LP decides after 100 n steps
    X, y = _overlapping()
    p = KernelProblem(
        Dataset(X, y), "poly", hard=True, degree=1, gamma=1.0, coef0=1.0, intercept=intercept
    )
    with pytest.raises(NotSeparableError, match="separation LP is infeasible"):
        solve_kernel_dual(p, route="smo")


def test_separable_data_on_the_smo_route_are_still_certified():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(N // 2, 2)) + 2.5, rng.normal(size=(N // 2, 2)) - 2.5])
    y = np.r_[np.ones(N // 2), -np.ones(N // 2)]
    sol = solve_kernel_dual(KernelProblem(Dataset(X, y), "rbf", hard=True, gamma=0.5))
    assert sol.route == "smo" and sol.certificate.ok


def test_a_dual_past_what_can_be_certified_on_separable_data_is_a_solver_error(monkeypatch):
    # the bound 1 / (n u R^2) made tiny: separable data pass it at once; the LP finds a
    # separating function, so the answer is "cannot certify" (SolverError, with the
    # margin bound weak duality gives), not NotSeparable, and no dense fallback
    monkeypatch.setattr(smo_module, "_U", 1.0)
    X, y = _overlapping()
    p = KernelProblem(Dataset(X, y), "rbf", hard=True, gamma=1.0)
    with pytest.raises(SolverError, match="separable by the rbf kernel .*margin is at most"):
        solve_kernel_dual(p)


def test_the_command_line_exits_1(capsys, tmp_path):
    X, y = _duplicated()
    f = tmp_path / "dup.csv"
    np.savetxt(f, np.column_stack([X, y]), delimiter=",", header="a,b,y", comments="")
    code = main(["solve", str(f), "--kernel", "rbf", "--gamma", "1", "--hard"])
    out, err = capsys.readouterr()
    assert code == 1 and "not separable" in out and "same point" in out, out + err
