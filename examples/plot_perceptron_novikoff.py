"""
Perceptron mistakes against the Novikoff bound
==============================================

On data separable with a known margin gamma (``make_separable``, intercept ``none`` and
no offset, so gamma is exact for the raw features), the perceptron makes at most
``(R / gamma)^2`` mistakes in any order (Novikoff 1962). We run it in several random
orders and plot the cumulative mistakes against the number of steps, with the bound.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from maxmargin import make_separable
from maxmargin.online import Perceptron, run

ds = make_separable(200, 5, margin=0.4, seed=0, offset=0.0)
gamma = ds.meta["margin"]
bound = (ds.R / gamma) ** 2
epochs = 20

fig, ax = plt.subplots(figsize=(6, 4))
for seed in range(8):
    tr = run(
        Perceptron(intercept="none"),
        ds,
        epochs=epochs,
        order="shuffle",
        seed=seed,
        checkpoints=np.arange(1, epochs * ds.n + 1),
    )
    assert tr.mistakes[-1] <= bound
    ax.step(
        tr.t,
        tr.mistakes,
        where="post",
        lw=1,
        alpha=0.8,
        label="shuffle, 8 seeds" if seed == 0 else None,
    )
ax.axhline(bound, color="k", ls="--", label=f"Novikoff bound (R/gamma)^2 = {bound:.0f}")
ax.set_xscale("log")
ax.set_xlabel("step t")
ax.set_ylabel("cumulative mistakes")
ax.set_title(f"Perceptron on separable data (n={ds.n}, d={ds.d}, gamma={gamma})")
ax.legend(loc="lower right")
fig.tight_layout()
fig.savefig("perceptron_novikoff.png", dpi=120)
print(f"bound {bound:.1f}; wrote perceptron_novikoff.png")
