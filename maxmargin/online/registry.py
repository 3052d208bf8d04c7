"""The registry of the built-in learners: name -> class, and :func:`make_learner`."""

from __future__ import annotations

import inspect
from typing import Any

from ..exceptions import ParameterError
from .base import OnlineLearner
from .pa import PA, PA1, PA2
from .pegasos import Pegasos
from .perceptron import AveragedPerceptron, DualPerceptron, Perceptron, VotedPerceptron
from .pocket import Pocket
from .subgradient import OnlineSubgradient
from .winnow import Winnow

__all__ = ["LEARNERS", "make_learner"]

#: Registry: learner name -> class.
LEARNERS: dict[str, type[OnlineLearner]] = {
    cls.name: cls
    for cls in (Perceptron, AveragedPerceptron, VotedPerceptron, DualPerceptron, Pocket,
                Pegasos, OnlineSubgradient, PA, PA1, PA2, Winnow)
}


def make_learner(name: str, **params: Any) -> OnlineLearner:
    """Build a learner by its registry name.

    Parameters
    ----------
    name : str
        One of ``LEARNERS`` (``perceptron``, ``averaged_perceptron``, ``voted_perceptron``,
        ``dual_perceptron``, ``pocket``, ``pegasos``, ``subgradient``, ``pa``, ``pa1``,
        ``pa2``, ``winnow``).
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
