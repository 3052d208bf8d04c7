"""
Hard and soft margin in 2-D
===========================

Solve the exact hard-margin SVM on separable 2-D data whose margin is known (0.4), and
a soft-margin SVM (C = 1) on overlapping Gaussians; draw each decision boundary, both
margins, and the support vectors (margin SVs ringed, bound SVs crossed).

Run: ``python examples/plot_hard_margin_2d.py [OUTPUT.png]`` (default:
``plot_hard_margin_2d.png`` in the current directory).
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from maxmargin import SVMProblem, make_gaussians, make_separable
from maxmargin.exact import solve
from maxmargin.plotting.boundary import plot_boundary

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd() / "plot_hard_margin_2d.png"

hard = SVMProblem(make_separable(40, 2, margin=0.4, seed=3), hard=True)
soft = SVMProblem(make_gaussians(80, 2, separation=2.5, seed=1), C=1.0)
sol_hard, sol_soft = solve(hard), solve(soft)
for sol in (sol_hard, sol_soft):
    print(sol.summary(), end="\n\n")

fig, axes = plt.subplots(1, 2, figsize=(12, 5))
plot_boundary(
    hard, sol_hard, ax=axes[0], title=f"hard margin: gamma = {sol_hard.margin:.6f} (true 0.4)"
)
plot_boundary(soft, sol_soft, ax=axes[1], title="soft margin, C = 1")
fig.tight_layout()
fig.savefig(out, dpi=120)
print(f"wrote {out}")
