"""The registry of the built-in learners: name -> class, and :func:`make_learner`."""

from __future__ import annotations

import inspect
from typing import Any

from ..exceptions import ParameterError
from .base import OnlineLearner
from .pa import PA, PA1, PA2
from .pegasos import Pegasos
from .perceptron import (
    PLA,
    AveragedPerceptron,
    DualPerceptron,
    MarginPerceptron,
    Perceptron,
    VotedPerceptron,
)
from .pocket import Pocket
from .subgradient import OnlineSubgradient
from .winnow import Winnow

__all__ = ["LEARNERS", "make_learner", "learner_for", "objective_parameter"]

#: Registry: learner name -> class.
LEARNERS: dict[str, type[OnlineLearner]] = {
    cls.name: cls
    for cls in (Perceptron, AveragedPerceptron, VotedPerceptron, DualPerceptron, Pocket,
                Pegasos, OnlineSubgradient, PA, PA1, PA2, Winnow, MarginPerceptron, PLA)
}


def make_learner(name: str, **params: Any) -> OnlineLearner:
    """Build a learner by its registry name.

    Parameters
    ----------
    name : str
        One of ``LEARNERS`` (``perceptron``, ``averaged_perceptron``, ``voted_perceptron``,
        ``dual_perceptron``, ``pocket``, ``pegasos``, ``subgradient``, ``pa``, ``pa1``,
        ``pa2``, ``winnow``, ``margin_perceptron``, ``pla``).
    **params
        Keyword arguments of the learner's class.

    Returns
    -------
    OnlineLearner
        An instance of ``LEARNERS[name]`` (hyper-parameters only;
        :func:`~maxmargin.online.run` runs it).

    Examples
    --------
    >>> make_learner("pegasos", lam=0.01)
    Pegasos(lam=0.01, projection=None, batch_size=1, intercept='augmented', intercept_scaling=1.0)
    """
    if name not in LEARNERS:
        raise ParameterError(f"unknown learner {name!r}; choose from {', '.join(LEARNERS)}")
    cls = LEARNERS[name]
    accepted = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ParameterError(f"learner {name!r} has no parameter {', '.join(unknown)}; "
                             f"it accepts {', '.join(accepted)}")
    return cls(**params)


def learner_for(learner: str | type[OnlineLearner], problem: Any,
                **params: Any) -> OnlineLearner:
    """Build a learner to be measured against ``problem``'s optimum.

    The problem fixes what the learner must share with it: ``intercept`` and
    ``intercept_scaling``, and the parameter the class declares in ``problem_parameter``
    (``lam`` for Pegasos, ``C`` for PA-I); ``params`` give the others (and may set a
    ``problem_parameter`` that is not the objective's, e.g. PA-I's aggressiveness).

    Parameters
    ----------
    learner : str or OnlineLearner subclass
        A name of :data:`LEARNERS`, or a class.
    problem : SVMProblem
    **params
        Other keyword arguments of the class.

    Returns
    -------
    OnlineLearner

    Examples
    --------
    >>> from maxmargin import SVMProblem, make_separable
    >>> p = SVMProblem(make_separable(20, 2, seed=0), C=2.0, intercept="none")
    >>> learner_for("pa1", p)
    PA1(C=2.0, intercept='none', intercept_scaling=1.0)
    """
    if isinstance(learner, str):
        if learner not in LEARNERS:
            raise ParameterError(f"unknown learner {learner!r}; choose from "
                                 f"{', '.join(LEARNERS)}")
        cls = LEARNERS[learner]
    else:
        cls = learner
    if problem.intercept not in cls.supported_intercepts:
        raise ParameterError(
            f"learner {cls.name or cls.__name__!r} supports intercept "
            f"{' or '.join(cls.supported_intercepts)}, but the problem has "
            f"intercept={problem.intercept!r}; leave it out or change the problem")
    kw: dict[str, Any] = {"intercept": problem.intercept,
                          "intercept_scaling": problem.intercept_scaling}
    if cls.problem_parameter is not None:
        kw[cls.problem_parameter] = getattr(problem, cls.problem_parameter)
    kw.update(params)
    accepted = cls.param_names()
    unknown = sorted(set(kw) - set(accepted))
    if unknown:
        raise ParameterError(f"learner {cls.name or cls.__name__!r} has no parameter "
                             f"{', '.join(unknown)}; it accepts {', '.join(accepted)}")
    return cls(**kw)


def objective_parameter(learner: OnlineLearner) -> tuple[str, float] | None:
    """The parameter that fixes the objective a learner minimises, and its value.

    Parameters
    ----------
    learner : OnlineLearner

    Returns
    -------
    (str, float) or None
        ``("lam", learner.lam)`` for objective ``"lambda"``, ``("C", learner.C)`` for
        ``"C"``; None for a learner without an objective.

    Examples
    --------
    >>> from maxmargin.online import Pegasos, Perceptron
    >>> objective_parameter(Pegasos(lam=0.5)), objective_parameter(Perceptron())
    (('lam', 0.5), None)
    """
    if learner.objective is None:
        return None
    name = "lam" if learner.objective == "lambda" else "C"
    return name, float(getattr(learner, name))
