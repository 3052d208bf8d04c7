"""
A verdict for your learner: a wrong step size FAILs
===================================================

``maxmargin.testing.check_learner`` runs a learner on problems whose optimum is
certified and judges what it claims (``docs/validating.md``). Here Pegasos written by
hand with the step ``1/(lam sqrt t)`` a researcher tried (the theory's is
``1/(lam t)``) claims the rate ``E[F(avg_t) - F*] = O(log t / t)``: its average's
suboptimality falls like ``t^-0.6`` over the seeds, above the allowance of the claim,
and the check says FAIL, with the run that shows it. The same learner with the right step
PASSes. The figure draws both, every run, against the steps and against the learning
time. Seeded; runs in a few seconds; writes ``check_learner.png``.
"""

import math
from pathlib import Path

import numpy as np

from maxmargin.online import Learner
from maxmargin.online.claims import Rate
from maxmargin.testing import check_learner, plot_suboptimality


class MyPegasos(Learner):
    """Pegasos by hand; the step ``1/(lam sqrt t)`` is the bug."""

    objective = "lambda"  # it minimises F(w) = lam/2 ||w||^2 + mean hinge
    problem_parameter = "lam"  # each problem of the battery sets lam
    theory_rate = -1.0  # the claim's exponent
    has_average = True
    claims = (Rate(iterate="average", reference="Shalev-Shwartz et al. (2011)"),)

    def __init__(self, lam=0.1):
        self.lam = lam

    def start(self, d):
        self.w, self.total, self.k = np.zeros(d), np.zeros(d), 0

    def step_size(self, t):
        return 1.0 / (self.lam * math.sqrt(t))

    def step(self, x, y, t):
        self.total += self.w
        self.k += 1
        eta = self.step_size(t)
        active = y * (self.w @ x) < 1
        self.w *= 1.0 - eta * self.lam
        if active:
            self.w += eta * y * x

    def weights(self):
        return self.w

    def average(self):
        return self.total / max(self.k, 1)


class FixedPegasos(MyPegasos):
    def step_size(self, t):
        return 1.0 / (self.lam * t)


# %%
# The verdicts: one problem of the quick battery (shifted, overlapping Gaussians with an
# augmented bias), 3 seeds in two random orders.

name = "gaussians/augmented"
reports = {
    cls: check_learner(cls, battery="quick", problems=[name]) for cls in (MyPegasos, FixedPegasos)
}
for report in reports.values():
    print(report.to_text())

# %%
# The evidence: the suboptimality of the average of every run (``cyclic``, and each seed
# of ``shuffle`` and ``sample``), against the steps (what the claim is about) and against
# the learner's learning time (what it costs), straight from the two reports.

fig = plot_suboptimality([reports[MyPegasos], reports[FixedPegasos]], name)
fig.savefig(Path("check_learner.png"), dpi=110)
assert not reports[MyPegasos].passed and reports[FixedPegasos].passed
