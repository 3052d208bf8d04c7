"""Online learners run against the data, recording :class:`~maxmargin.trace.Trace` s.

Every learner is the algorithm as written in the lecture notes and the literature, with
its compiled (numba) inner loop; :func:`run` drives it over a :func:`schedule` of
examples and records checkpoints, and :func:`resolve` is the one front door that turns
what names a learner (a registry name, ``module:Class``, a class, an instance) into one.
See ``docs/learners.md`` for every update rule. A learner of your own is a plain Python
object with ``start``, ``step`` and ``weights`` (:mod:`maxmargin.online.protocol`,
``docs/own-learner.md``).
"""

from .base import OnlineLearner
from .kernel_learners import BudgetPerceptron, KernelPA, KernelPA1, KernelPegasos
from .learner import Learner
from .orders import ORDERS, iter_schedule, schedule
from .pa import PA, PA1, PA2, PassiveAggressive
from .pegasos import Pegasos
from .perceptron import (
    PLA,
    AveragedPerceptron,
    DualPerceptron,
    MarginPerceptron,
    Perceptron,
    VotedPerceptron,
    voted_decision_function,
)
from .pocket import Pocket
from .protocol import LearnerError, PythonLearner
from .registry import LEARNERS, resolve
from .runner import OnlineState, default_checkpoints, run
from .step_sizes import Constant, InverseSqrt, PegasosStep, StepSize
from .subgradient import OnlineSubgradient
from .winnow import Winnow

__all__ = [
    "OnlineLearner",
    "Learner",
    "LearnerError",
    "PythonLearner",
    "Perceptron",
    "AveragedPerceptron",
    "VotedPerceptron",
    "DualPerceptron",
    "MarginPerceptron",
    "PLA",
    "voted_decision_function",
    "Pocket",
    "Pegasos",
    "OnlineSubgradient",
    "PassiveAggressive",
    "PA",
    "PA1",
    "PA2",
    "Winnow",
    "LEARNERS",
    "resolve",
    "run",
    "default_checkpoints",
    "ORDERS",
    "schedule",
    "iter_schedule",
    "OnlineState",
    "StepSize",
    "Constant",
    "InverseSqrt",
    "PegasosStep",
    "KernelPegasos",
    "KernelPA",
    "KernelPA1",
    "BudgetPerceptron",
]
