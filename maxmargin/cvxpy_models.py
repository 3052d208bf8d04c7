r"""The textbook primal and dual of an :class:`~maxmargin.problem.SVMProblem` in cvxpy.

These models are for reading, solving and teaching: each is a plain ``cvxpy.Problem``
written as a textbook writes it, with named variables (``w``, ``b``, ``xi`` in the
primal; ``alpha`` in the dual, all in ``problem.var_dict``) and the margin constraints
as one vectorised constraint whose ``dual_value`` is the dual's ``alpha``. The solve
routes of :func:`maxmargin.exact.solve` keep their own, faster models.

cvxpy is imported here and nowhere in :mod:`maxmargin.problem`, so that evaluating
objectives and certificates stays numpy-only.

The models, with ``f(x) = w.x + b`` and ``z_i``, ``w~`` as in
:mod:`maxmargin.problem` (intercept ``free``: ``b`` free; ``none``: no ``b``;
``augmented``: ``b`` is regularised as the weight ``b/s`` of the constant feature ``s``):

.. math::

    \text{primal (C form):}\quad & \min_{w, b, \xi}\ \tfrac12 \|\tilde w\|^2
        + C \textstyle\sum_i \xi_i
        \quad\text{s.t.}\quad y_i f(x_i) \ge 1 - \xi_i,\ \xi_i \ge 0 \\
    \text{dual (C form):}\quad & \max_\alpha\ \textstyle\sum_i \alpha_i
        - \tfrac12 \|\sum_i \alpha_i y_i z_i\|^2
        \quad\text{s.t.}\quad 0 \le \alpha_i \le C,\ \textstyle\sum_i \alpha_i y_i = 0

The hard margin drops ``xi`` (and the upper bound ``C``); the equality exists for the
``free`` intercept only. With weights, ``C`` becomes the per-example cost ``C_i = C s_i``
(``C sum_i xi_i`` becomes ``sum_i C_i xi_i``, the box ``alpha_i <= C_i``). The lambda
form is the C form divided by ``C n`` (``lam = 1/(C n)``): objective
``F = lam/2 ||w~||^2 + (1/n) sum_i s_i xi_i = P/(C n)``; its multipliers are
``alpha_lam = lam * alpha`` (box ``[0, s_i/n]``, ``[0, 1/n]`` without weights) and its
dual is
``max sum_i alpha_i - lam/2 ||w(alpha)||^2`` with ``w(alpha) = (1/lam) sum_i alpha_i y_i
z_i``, and optimal value ``F* = lam P*``.

The squared hinge (``loss="squared_hinge"``) squares the slacks, ``sum_i C_i xi_i^2``
(``xi >= 0`` stays, inactive at the optimum: its multipliers are 0), and its dual has no
upper bound and one more term, ``- sum_i alpha_i^2 / (4 C_i)``; in the lambda form
(``alpha_lam = lam * alpha``, ``lam C_i = s_i / n``) that term is
``- (n/4) sum_i alpha_i^2 / s_i``. An example of weight 0 has ``alpha_i = 0`` as a
constraint (its term would be 0/0).
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

    (``C_i = C s_i``, ``C`` without weights; ``objective="lambda"``:
    ``lam/2 ||w~||^2 + (1/n) sum_i s_i xi_i``, the same problem divided by ``C n``; the
    squared hinge: ``xi_i^2`` in place of ``xi_i``).

    Parameters
    ----------
    problem : SVMProblem
        Hard or soft margin, any intercept mode; dense or sparse data (a sparse ``X``
        enters the model as a sparse matrix, never densified).
    objective : {"C", "lambda"}
        Which objective the model minimises: ``"C"``, the C form ``P`` (hard margin:
        ``1/2 ||w~||^2``); ``"lambda"``, ``F = P / (C n)`` (soft margin only).

    Returns
    -------
    cvxpy.Problem
        Variables ``w`` (shape (d,)), ``b`` (scalar; intercept ``free`` and
        ``augmented``, absent for ``none``) and ``xi`` (shape (n,); soft margin only),
        reachable as ``model.var_dict["w"]`` etc. ``model.constraints[0]`` is the
        vectorised margin constraint ``y * (X @ w + b) >= 1 - xi``: after a solve, its
        ``dual_value`` (shape (n,)) is ``alpha`` (``lam * alpha`` in the lambda form).
        ``model.constraints[1]`` (soft margin) is ``xi >= 0``, with multipliers
        ``mu = C_i - alpha`` (``s_i/n - lam * alpha``; 0 for the squared hinge).

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

    (``C_i = C s_i``; hard margin: no upper bound; the equality for intercept ``free``
    only; ``objective="lambda"``: ``max sum_i alpha_i - lam/2 ||w(alpha)||^2`` with
    ``w(alpha) = (1/lam) sum_i alpha_i y_i z_i``, over ``0 <= alpha_i <= s_i/n``, whose
    ``alpha`` is ``lam`` times the C form's; the squared hinge: no upper bound and
    ``- sum_i alpha_i^2 / (4 C_i)`` added, ``- (n/4) sum_i alpha_i^2 / s_i`` in the lambda
    form).

    Parameters
    ----------
    problem : SVMProblem
        Hard or soft margin, any intercept mode; dense or sparse data (a sparse ``Z``
        enters the model as a sparse matrix, never densified; there is never an n x n
        matrix).
    objective : {"C", "lambda"}
        ``"C"``: the dual of the C form, optimal value ``D* = P*``; ``"lambda"``: the
        dual of ``F = P/(C n)``, optimal value ``F* = lam P*`` (soft margin only).
    C_parameter : bool, default False
        The box bound ``C`` as a ``cvxpy.Parameter`` (``model.param_dict["C"]``, soft
        margin in the C form): the model is DPP, compiled once and re-solved at any C by
        setting the parameter's value (the grid path does so). The hinge's only: the
        squared hinge's ``C`` enters as ``1/(4 C)``, which no DPP parameter of ``C``
        gives.

    Returns
    -------
    cvxpy.Problem
        One variable ``alpha`` of shape (n,) (``model.var_dict["alpha"]``). Constraints,
        in order: ``alpha >= 0``; ``alpha <= C_i`` (the hinge's soft margin; ``s_i/n`` in
        the lambda form) or ``alpha_i == 0`` where ``C_i = 0`` (the squared hinge, with
        weights of 0); ``y @ alpha == 0`` (intercept ``free``), whose ``dual_value`` is
        ``b``.
        ``w~ = sum_i alpha_i y_i z_i`` (divided by ``lam`` in the lambda form) maps the
        optimum back to the primal: :meth:`SVMProblem.weights_from_dual`.

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
    n, y = problem.n, problem.data.y
    alpha = cp.Variable(n, name="alpha")
    # w~ = sum_i alpha_i y_i z_i as Z^T (y * alpha): a d' vector, never an n x n matrix
    w_tilde = problem.Z.T @ cp.multiply(y, alpha)
    constraints = [alpha >= 0]
    if C_parameter and (problem.hard or objective != "C"):
        raise ParameterError("C_parameter is for a soft margin in the C form")
    if C_parameter and problem.squared:
        raise ParameterError(
            "C_parameter is the hinge's box bound; the squared hinge's C enters as 1/(4 C)"
        )
    sw = problem.weights
    if problem.squared:
        return _squared_dual(problem, objective, alpha, w_tilde, constraints)
    if objective == "C":
        if not problem.hard:
            C = cp.Parameter(nonneg=True, name="C", value=problem.C) if C_parameter else problem.C
            # C s_i: a parameter times constants keeps the model DPP
            constraints.append(alpha <= (C if sw is None else C * sw))
        obj = cp.sum(alpha) - 0.5 * cp.sum_squares(w_tilde)
    else:
        # lam/2 ||w(alpha)||^2 with w(alpha) = w~/lam, the weights' own size: the same
        # value as ||w~||^2 / (2 lam), which overflows first when lam is large
        constraints.append(alpha <= (1.0 / n if sw is None else sw / n))
        obj = cp.sum(alpha) - 0.5 * problem.lam * cp.sum_squares(w_tilde / problem.lam)
    if problem.intercept == "free":
        constraints.append(y @ alpha == 0)
    return cp.Problem(cp.Maximize(obj), constraints)


def _squared_dual(
    problem: SVMProblem, objective: str, alpha: Any, w_tilde: Any, constraints: list[Any]
) -> Any:
    """The squared hinge's dual: no upper bound, ``- sum_i alpha_i^2 / (4 C_i)`` added."""
    cp = require("cvxpy", "a cvxpy model")
    n, y, sw = problem.n, problem.data.y, problem.weights
    lam = problem.lam
    # the diagonal's coefficient 1/(4 C_i), or n/(4 s_i) in the lambda form (lam C_i = s_i/n)
    s = np.ones(n) if sw is None else sw
    pos = s > 0
    scale = 1.0 / (4.0 * problem.C) if objective == "C" else n / 4.0
    coef = np.where(pos, scale / np.where(pos, s, 1.0), 0.0)
    if not pos.all():
        constraints.append(alpha[np.flatnonzero(~pos)] == 0)  # weight 0: alpha_i = 0
    diagonal = cp.sum(cp.multiply(coef, cp.square(alpha)))
    if objective == "C":
        obj = cp.sum(alpha) - 0.5 * cp.sum_squares(w_tilde) - diagonal
    else:
        obj = cp.sum(alpha) - 0.5 * lam * cp.sum_squares(w_tilde / lam) - diagonal
    if problem.intercept == "free":
        constraints.append(y @ alpha == 0)
    return cp.Problem(cp.Maximize(obj), constraints)
