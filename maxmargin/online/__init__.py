"""Online learners run against the data, recording :class:`~maxmargin.trace.Trace` s.

:func:`run` drives a learner over a :func:`schedule` of examples; :func:`resolve` turns
what names a learner into one. See ``docs/learners.md``; a learner of your own needs only
``start``, ``step`` and ``weights`` (``docs/own-learner.md``).
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
