"""
Your own learner against the certified optimum
==============================================

A learner written in plain Python (three methods: ``start``, ``step``, ``weights``; see
``docs/own-learner.md``) is measured like a built-in one: here a Pegasos variant of
your own that halves the lecture notes' step, the built-in Pegasos, and scikit-learn's
``SGDClassifier`` scored epoch by epoch from its weights (``Trace.from_weights``), all on
the SVM with a free (unregularised) intercept, against its certified optimum.

The learner declares what it is scored on (it minimises the lambda objective, its
parameter is ``lam``); the report says which problem every learner is scored against,
and what a trace from elsewhere lacks (its per-step losses: no regret) is N/A with the
reason. Seeded; runs in a few seconds; writes ``own_learner.png``.
"""

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from sklearn.linear_model import SGDClassifier

from maxmargin import SVMProblem, Trace, compare, make_gaussians
from maxmargin.plotting.comparison import plot_regret, plot_suboptimality


class HalfStepPegasos:
    """Pegasos' step ``1/(lam (t + 1))``, halved, with a free bias ``b``."""

    objective = "lambda"  # it minimises F(w, b) = lam/2 ||w||^2 + mean hinge
    problem_parameter = "lam"  # compare builds it with the problem's lam
    supported_intercepts = ("free",)  # x has the d features; weights() returns (w, b)

    def __init__(self, lam=1e-4):
        self.lam = lam

    def start(self, d):
        self.w, self.b = np.zeros(d), 0.0

    def step(self, x, y, t):
        eta = 0.5 / (self.lam * (t + 1))
        active = y * (self.w @ x + self.b) < 1
        self.w *= 1.0 - eta * self.lam
        if active:
            self.w += eta * y * x
            self.b += eta * y

    def weights(self):
        return self.w, self.b


data = make_gaussians(400, 5, separation=1.5, seed=0)
lam, epochs = 1e-2, 20
problem = SVMProblem(data, lam=lam, intercept="free")

clf = SGDClassifier(loss="hinge", alpha=lam, learning_rate="optimal", shuffle=False, random_state=0)
t, W, b = [], [], []
for epoch in range(1, epochs + 1):
    clf.partial_fit(data.dense(), data.y, classes=[-1.0, 1.0])
    t.append(epoch * data.n)
    W.append(clf.coef_.ravel().copy())
    b.append(float(clf.intercept_[0]))
sgd = Trace.from_weights(
    t,
    np.array(W),
    np.array(b),
    name="SGDClassifier",
    data=data,
    intercept="free",
    params={"lam": lam},
)

cmp = compare(
    data,
    problem,
    learners=["pegasos", HalfStepPegasos],
    traces=[sgd],
    epochs=epochs,
    orders=("cyclic",),
    seeds=(0,),
)
print(f"every run is scored against: {cmp.rows[0]['scored_against']}")
for r in cmp.runs:
    regret = "N/A" if r.regret is None else f"{r.regret[-1]:.3g}"
    print(f"{r.label:>16}: F - F* = {r.subopt[-1]:.2e} after {epochs} epochs, regret {regret}")
print(f"SGDClassifier regret: N/A, {cmp.runs[-1].not_available['regret']}")

fig = Figure(figsize=(12, 4.4))
left, right = fig.subplots(1, 2)
plot_suboptimality(cmp, ax=left)
plot_regret(cmp, ax=right)
fig.subplots_adjust(left=0.07, right=0.98, bottom=0.12, top=0.92, wspace=0.25)
out = Path("own_learner.png")
fig.savefig(out, dpi=110)
print(f"wrote {out}")
