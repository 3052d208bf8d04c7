"""
A verdict for your learner: a wrong step size FAILs
===================================================

``maxmargin.testing.check_learner`` runs a learner on problems whose optimum is
certified and judges what it claims (``docs/validating.md``). Here Pegasos written by
hand with the step ``1/(lam sqrt t)`` a researcher tried (the theory's is
``1/(lam t)``) claims the rate ``E[F(avg_t) - F*] = O(log t / t)``: its average's
suboptimality falls like ``t^-0.6`` over the seeds, above the allowance of the claim,
and the check says FAIL, with the run that shows it. The same learner with the right step
PASSes. The figure draws both against ``t``, each seed's curve and the fitted window,
beside the claim's slope. Seeded; runs in a few seconds; writes ``check_learner.png``.
"""

import math
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from maxmargin.evaluation.scoring import score_trace
from maxmargin.online import Learner, run
from maxmargin.online.claims import Rate
from maxmargin.testing import battery, certified, check_learner


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
# The evidence: the suboptimality of the average against ``t`` for every seed, the
# window the exponent is fitted on (``t >= sqrt(T)``), and the claim's ``log t / t``.

bat = battery("quick")
cp = certified(bat.problem(name))
fig = Figure(figsize=(6.4, 4.2))
ax = fig.add_subplot()
T = bat.epochs * cp.data.n
anchor = None  # the claim's line starts where the fixed learner's first curve enters the window
for cls, colour in ((MyPegasos, "tab:red"), (FixedPegasos, "tab:blue")):
    verdict = reports[cls].verdicts[0]
    learner = cls(lam=cp.problem.lam)
    for seed in bat.seeds:
        tr = run(
            learner,
            cp.data,
            epochs=bat.epochs,
            order="shuffle",
            seed=seed,
            checkpoints=bat.checkpoints(cp.data.n),
        )
        r = score_trace(tr, cp.soft)
        label = (
            f"{cls.__name__}: {verdict.outcome}, exponent {verdict.statistic:+.2f}"
            if seed == 0
            else None
        )
        ax.loglog(r.t, r.subopt_avg, color=colour, alpha=0.7, label=label)
        if cls is FixedPegasos and anchor is None:
            j = int(np.searchsorted(r.t, math.sqrt(T)))
            anchor = (r.t[j], r.subopt_avg[j])
t = np.geomspace(anchor[0], T, 20)
ax.loglog(
    t,
    anchor[1] * (np.log(t) / t) / (math.log(anchor[0]) / anchor[0]),
    "k--",
    label="the claim's log t / t",
)
ax.axvspan(math.sqrt(T), T, color="0.92", zorder=0, label="fitted window")
ax.set_xlabel("step t")
ax.set_ylabel(r"$F(\bar w_t) - F^*$")
ax.set_title("Pegasos by hand: the step 1/(lam sqrt t) against 1/(lam t)")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(Path("check_learner.png"), dpi=110)
assert not reports[MyPegasos].passed and reports[FixedPegasos].passed
