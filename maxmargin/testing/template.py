"""How :func:`~maxmargin.testing.check_learner` builds the learner it was given for a problem.

One place, so that a check and its reproduce lines (``CertifiedProblem.learner_for``) agree.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from ..conventions import DEFAULT_LOSS
from ..exceptions import ParameterError
from ..online import OnlineLearner
from ..online.adapters import adapt
from ..online.learner import is_learner
from ..online.protocol import PythonLearner
from ..online.registry import LEARNERS, learner_class, resolve
from ..problem import SVMProblem


class _Template:
    """What the caller gave, and how to build it for a problem."""

    def __init__(self, learner: Any) -> None:
        self.cls: Any = None
        self.params: dict[str, Any] = {}
        self.obj: Any = None
        self.code = _code(learner)
        learner = adapt(learner)  # scikit-learn and river estimators
        if _is_pair(learner):  # (target, params): built with them for each problem
            self.cls = learner_class(learner[0])
            # the problem sets these, as for a built-in instance
            skip = {"intercept", "intercept_scaling", getattr(self.cls, "problem_parameter", None)}
            self.params = {k: v for k, v in learner[1].items() if k not in skip}
        elif isinstance(learner, (str, type)):
            self.cls = learner_class(learner)
        elif isinstance(learner, PythonLearner):
            self.obj = learner.learner
        elif isinstance(learner, OnlineLearner):
            self.cls = type(learner)
            skip = {"intercept", "intercept_scaling", learner.problem_parameter}
            self.params = {k: v for k, v in learner.get_params().items() if k not in skip}
        elif is_learner(learner):
            self.obj = learner
        else:
            raise ParameterError(
                "check_learner takes a learner: a built-in name, a class, or an instance "
                "(a built-in learner or an object with start(d), step(x, y, t) and "
                f"weights(), docs/own-learner.md); got {type(learner).__name__}"
            )
        source = self.cls if self.obj is None else self.obj
        self.label = (
            str(getattr(source, "name", "") or getattr(source, "__name__", ""))
            or type(source).__name__
        )
        self.supported = tuple(getattr(source, "supported_intercepts", ("none", "augmented")))
        # the loss of the problems it is checked on: the one it declares (a built-in given
        # by name or class takes the problem's, the hinge)
        self.loss = str(self.params.get("loss", getattr(source, "loss", DEFAULT_LOSS)))
        pp = getattr(source, "problem_parameter", None)
        self.fixed = None
        if self.obj is not None and pp is None and getattr(self.obj, "objective", None):
            self.fixed = "lam" if self.obj.objective == "lambda" else "C"

    def fixed_lam(self) -> float | None:
        """The lambda the learner's objective fixes (it has no problem_parameter), or None."""
        return float(self.obj.lam) if self.fixed == "lam" else None

    def build(self, problem: SVMProblem) -> OnlineLearner:
        """The learner for ``problem`` (ParameterError: it cannot be)."""
        if problem.intercept not in self.supported:
            raise ParameterError(f"it does not support intercept {problem.intercept!r}")
        if self.obj is None:
            return resolve(self.cls, problem, **self.params)
        if self.fixed == "C":
            raise ParameterError(
                "it minimises the C objective with a fixed C: declare "
                "problem_parameter = 'C' so that each problem can set it"
            )
        if self.fixed == "lam" and not math.isclose(self.obj.lam, problem.lam, rel_tol=1e-9):
            raise ParameterError(
                f"its lam = {self.obj.lam:g} is fixed and the problem has lam = "
                f"{problem.lam:g}: declare problem_parameter = 'lam' so that each problem can "
                "set it"
            )
        obj = copy.deepcopy(self.obj)
        pp = getattr(obj, "problem_parameter", None)
        if pp is not None:
            setattr(obj, pp, getattr(problem, pp))
        return resolve(obj, problem, intercept=problem.intercept)


def _is_pair(learner: Any) -> bool:
    """Whether ``learner`` is a ``(target, params)`` pair (:func:`~maxmargin.online.resolve`'s)."""
    return isinstance(learner, tuple) and len(learner) == 2 and isinstance(learner[1], dict)


def _code(learner: Any) -> tuple[str, str]:
    """Python that names ``learner`` in the reproduce lines: ``(import line, expression)``."""
    if _is_pair(learner):
        imports, target = _code(learner[0])
        return imports, f"({target}, {learner[1]!r})"
    if isinstance(learner, str):
        return "", repr(learner)
    if isinstance(learner, type):
        name = str(getattr(learner, "name", ""))
        return "", repr(name) if LEARNERS.get(name) is learner else learner.__name__
    if isinstance(learner, OnlineLearner) and type(learner) in LEARNERS.values():
        return f"from maxmargin.online import {type(learner).__name__}", repr(learner)
    return "", "learner"


def _source(learner: OnlineLearner) -> Any:
    return learner.learner if isinstance(learner, PythonLearner) else learner
