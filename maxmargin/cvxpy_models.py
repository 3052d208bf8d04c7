r"""The textbook primal and dual of an :class:`~maxmargin.problem.SVMProblem` in cvxpy.

Plain ``cvxpy.Problem`` models with named variables, for reading, solving and teaching
(the solve routes keep their own, faster models). cvxpy is imported here only, so that
objectives and certificates stay numpy-only. The formulas: ``docs/formulations.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._deps import require
from ._validation import check_choice
from .exceptions import ParameterError

if TYPE_CHECKING:  # the models read a problem's attributes: problem imports this module
    from .problem import SVMProblem

__all__ = ["primal_model", "dual_model", "OBJECTIVES"]

#: The two scalings of the soft-margin objective: ``"C"`` (P) and ``"lambda"`` (F = P/(Cn)).
OBJECTIVES = ("C", "lambda")


def _check(problem: Any, objective: str) -> str:
    if not callable(getattr(problem, "to_cvxpy", None)):  # SVMProblem, without importing it
        raise ParameterError(
            f"a cvxpy model needs a maxmargin.SVMProblem, got {type(problem).__name__}"
        )
    objective = check_choice("objective", objective, OBJECTIVES)
    if objective == "lambda" and problem.hard:
        raise ParameterError(
            "the lambda form exists for soft margin only (hard has lam = 0); use objective='C'"
        )
    return objective


def primal_model(problem: SVMProblem, objective: str = "C") -> Any:
    r"""The primal QP of ``problem`` as a textbook ``cvxpy.Problem``.

    .. math:: \min_{w, b, \xi}\ \tfrac12 \|\tilde w\|^2 + \textstyle\sum_i C_i \xi_i
              \quad\text{s.t.}\quad y_i (w \cdot x_i + b) \ge 1 - \xi_i,\quad
              \xi_i \ge 0

    (``xi_i^2`` for the squared hinge; the lambda form divides by ``C n``).

    Parameters
    ----------
    problem : SVMProblem
        Any margin and intercept; a sparse ``X`` is never densified.
    objective : {"C", "lambda"}
        The C form ``P``, or ``F = P / (C n)`` (soft margin only).

    Returns
    -------
    cvxpy.Problem
        Variables ``w``, ``b`` (not for ``none``), ``xi`` (soft margin) in ``var_dict``;
        ``constraints[0]`` is ``y * (X @ w + b) >= 1 - xi``, whose ``dual_value`` is
        ``alpha`` (``lam * alpha`` in the lambda form); ``constraints[1]`` is ``xi >= 0``,
        with multipliers ``C_i - alpha`` (``s_i/n - lam * alpha``; 0 for the squared hinge).

    Examples
    --------
    Two points ``x = +-1``: ``w = 1``, ``b = 0``, ``alpha = (1/2, 1/2)``.

    >>> from maxmargin import Dataset, SVMProblem
    >>> model = primal_model(SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), hard=True))
    >>> sorted(model.var_dict)
    ['b', 'w']
    >>> round(float(model.solve(solver="CLARABEL")), 6)
    0.5
    >>> model.constraints[0].dual_value.round(6).tolist()
    [0.5, 0.5]
    """
    cp = require("cvxpy", "a cvxpy model")

    objective = _check(problem, objective)
    data = problem.data
    n, d, y = data.n, data.d, data.y
    w = cp.Variable(d, name="w")
    f = data.X @ w
    reg = cp.sum_squares(w)
    if problem.intercept != "none":
        b = cp.Variable(name="b")
        f = f + b
        if problem.intercept == "augmented":
            reg = reg + cp.square(b / problem.intercept_scaling)
    if problem.hard:
        constraints = [cp.multiply(y, f) >= 1]
        obj = 0.5 * reg
    else:
        xi = cp.Variable(n, name="xi")
        constraints = [cp.multiply(y, f) >= 1 - xi, xi >= 0]
        sw = problem.weights
        loss = cp.square(xi) if problem.squared else xi
        if objective == "C":
            obj = 0.5 * reg + (problem.C * cp.sum(loss) if sw is None else problem.costs @ loss)
        else:
            obj = 0.5 * problem.lam * reg + (cp.sum(loss) if sw is None else sw @ loss) / n
    return cp.Problem(cp.Minimize(obj), constraints)


def dual_model(problem: SVMProblem, objective: str = "C", *, C_parameter: bool = False) -> Any:
    r"""The dual QP of ``problem`` as a textbook ``cvxpy.Problem``.

    .. math:: \max_\alpha\ \textstyle\sum_i \alpha_i
              - \tfrac12 \|\sum_i \alpha_i y_i z_i\|^2
              \quad\text{s.t.}\quad 0 \le \alpha_i \le C_i,\quad
              \textstyle\sum_i \alpha_i y_i = 0

    (no upper bound for the hard margin and the squared hinge, which adds
    ``- sum_i alpha_i^2 / (4 C_i)``; the equality for intercept ``free`` only; the lambda
    form's ``alpha`` is ``lam`` times the C form's, over ``0 <= alpha_i <= s_i/n``).

    Parameters
    ----------
    problem : SVMProblem
        Any margin and intercept; a sparse ``Z`` is never densified, no n x n matrix.
    objective : {"C", "lambda"}
        The dual of the C form (``D* = P*``) or of ``F = P/(C n)`` (``F* = lam P*``).
    C_parameter : bool, default False
        The hinge's box bound ``C`` as a ``cvxpy.Parameter`` (``param_dict["C"]``): a DPP
        model re-solved at any C (soft margin, C form).

    Returns
    -------
    cvxpy.Problem
        Variable ``alpha`` (``var_dict["alpha"]``); constraints ``alpha >= 0``, the box (or
        ``alpha_i == 0`` where ``C_i = 0``), ``y @ alpha == 0`` (its ``dual_value`` is ``b``).

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem
    >>> model = dual_model(SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), hard=True))
    >>> round(float(model.solve(solver="CLARABEL")), 6)
    0.5
    >>> model.var_dict["alpha"].value.round(6).tolist()
    [0.5, 0.5]
    """
    cp = require("cvxpy", "a cvxpy model")

    objective = _check(problem, objective)
    if C_parameter and (problem.hard or objective != "C"):
        raise ParameterError("C_parameter is for a soft margin in the C form")
    if C_parameter and problem.squared:
        raise ParameterError(
            "C_parameter is the hinge's box bound; the squared hinge's C enters as 1/(4 C)"
        )
    n, y, sw, lam = problem.n, problem.data.y, problem.weights, problem.lam
    alpha = cp.Variable(n, name="alpha")
    # w~ = sum_i alpha_i y_i z_i as Z^T (y * alpha): a d' vector, never an n x n matrix
    w_tilde = problem.Z.T @ cp.multiply(y, alpha)
    constraints = [alpha >= 0]
    if objective == "C":
        obj = cp.sum(alpha) - 0.5 * cp.sum_squares(w_tilde)
    else:
        # lam/2 ||w~/lam||^2: the same value as ||w~||^2 / (2 lam), which overflows first
        obj = cp.sum(alpha) - 0.5 * lam * cp.sum_squares(w_tilde / lam)
    if problem.squared:
        obj = obj - _diagonal(problem, objective, alpha, constraints)
    elif objective != "C":
        constraints.append(alpha <= (1.0 / n if sw is None else sw / n))
    elif not problem.hard:
        C = cp.Parameter(nonneg=True, name="C", value=problem.C) if C_parameter else problem.C
        # C s_i: a parameter times constants keeps the model DPP
        constraints.append(alpha <= (C if sw is None else C * sw))
    if problem.intercept == "free":
        constraints.append(y @ alpha == 0)
    return cp.Problem(cp.Maximize(obj), constraints)


def _diagonal(problem: SVMProblem, objective: str, alpha: Any, constraints: list[Any]) -> Any:
    """The squared hinge's ``sum_i alpha_i^2 / (4 C_i)`` (``n / (4 s_i)`` in the lambda form)."""
    cp = require("cvxpy", "a cvxpy model")
    n, sw = problem.n, problem.weights
    s = np.ones(n) if sw is None else sw
    pos = s > 0
    scale = 1.0 / (4.0 * problem.C) if objective == "C" else n / 4.0
    coef = np.where(pos, scale / np.where(pos, s, 1.0), 0.0)
    if not pos.all():
        constraints.append(alpha[np.flatnonzero(~pos)] == 0)  # weight 0: alpha_i = 0
    return cp.sum(cp.multiply(coef, cp.square(alpha)))
