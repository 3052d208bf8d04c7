"""Validating a learner: its claims checked on a battery of certified problems.

``check_learner(learner)`` judges each claim PASS, FAIL or INCONCLUSIVE, with the
evidence; ``assert_learner`` raises in a test suite. See ``docs/validating.md``.
"""

from .battery import Battery, CertifiedProblem, ProblemSpec, battery, certified
from .check import assert_learner, check_learner
from .compared import comparison_verdicts
from .figures import plot_suboptimality
from .report import CheckReport, Curve
from .verdict import Verdict

__all__ = [
    "check_learner",
    "assert_learner",
    "comparison_verdicts",
    "CheckReport",
    "Curve",
    "Verdict",
    "plot_suboptimality",
    "Battery",
    "ProblemSpec",
    "CertifiedProblem",
    "battery",
    "certified",
]
