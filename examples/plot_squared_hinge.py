"""
The squared hinge: online subgradient against the exact L2-loss SVM
===================================================================

scikit-learn's default linear SVM, ``LinearSVC()``, minimises the *squared* hinge
``1/2 ||w~||^2 + C sum_i max(0, 1 - y_i f(x_i))^2`` (the L2-loss SVM). Here maxmargin
solves that problem exactly and certifies it, runs the online subgradient method and
Pegasos (greedy projection) on the same objective, and plots their suboptimality
``F(w_t) - F*`` over the steps; LinearSVC's answer at its default tolerance and at
``tol=1e-10`` is scored on the same axis (a horizontal line: it has no steps).

Seeded; runs in a few seconds; writes ``squared_hinge.png``.
"""

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from sklearn.svm import LinearSVC

from maxmargin import Trace, compare, make_gaussians
from maxmargin.evaluation.scoring import score_trace

data = make_gaussians(400, 2, separation=1.5, seed=0)
lam = 1e-2
cmp = compare(
    data,
    learners=["subgradient", ("pegasos", {"projection": "greedy"})],
    lam=lam,
    intercept="augmented",  # LinearSVC's intercept is regularised: fit_intercept, scaling 1
    loss="squared_hinge",
    epochs=30,
)
ref = cmp.references[0]
print(f"reference: {ref.scored_against}; F* = {cmp.F_star:.10g}")

fig = Figure(figsize=(7, 4.4))
ax = fig.subplots()
for r in cmp.runs:
    ax.loglog(r.t, np.maximum(r.subopt_avg, 1e-16), label=f"{r.label} (average)")
    print(f"{r.label:>12}: F(avg) - F* = {r.subopt_avg[-1]:.2e} after {r.t[-1]} steps")

C = 1.0 / (lam * data.n)
for tol, style in ((1e-4, "--"), (1e-10, ":")):
    svc = LinearSVC(C=C, loss="squared_hinge", tol=tol, max_iter=100_000).fit(data.X, data.y)
    tr = Trace.from_weights(
        [1], svc.coef_, svc.intercept_, name="LinearSVC", data=data, intercept="augmented"
    )
    gap = float(score_trace(tr, ref.solution).subopt[0])
    print(f"LinearSVC(tol={tol:g}): F - F* = {gap:.2e}")
    ax.axhline(max(gap, 1e-16), ls=style, color="k", label=f"LinearSVC, tol={tol:g}")

ax.set_xlabel("steps t")
ax.set_ylabel("F(w) - F*  (squared hinge, lambda form)")
ax.set_title("Learners on the squared hinge against its certified optimum")
ax.legend(fontsize=8)
fig.subplots_adjust(left=0.13, right=0.97, bottom=0.12, top=0.92)
out = Path("squared_hinge.png")
fig.savefig(out, dpi=110)
print(f"wrote {out}")
