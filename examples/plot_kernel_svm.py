"""
Kernel SVMs in 2-D: circles and XOR
===================================

Two data sets no line separates, concentric circles and XOR, and the kernel SVM that
separates them. First the kernel dual written out in cvxpy, the Gram wrapped as
positive semi-definite (``cvxpy.psd_wrap``), against maxmargin's exact solve of the same
dual (dense interior point, active-set polish, certificate); then the decision boundary
``f(x) = sum_i alpha_i y_i k(x_i, x) + b = 0`` with both margins ``f = +-1``, every
point coloured by its ``alpha_i`` (0 outside the margin, ``C`` at the bound; circles are
the class +1, squares -1, the blue region ``f > 0``); last, the
same picture on XOR for growing ``gamma`` (the RBF kernel's width shrinks: the boundary
bends more) and growing ``C`` (fewer margin violations allowed).

Run: ``python examples/plot_kernel_svm.py [OUTPUT.png]`` (default:
``plot_kernel_svm.png`` in the current directory; the grid goes to
``plot_kernel_svm_grid.png`` beside it).
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import cvxpy as cp
import matplotlib.pyplot as plt
import numpy as np

from maxmargin import Dataset
from maxmargin.kernel_problem import KernelProblem
from maxmargin.solvers.kernel import solve_kernel_dual

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd() / "plot_kernel_svm.png"
rng = np.random.default_rng(0)

# %%
# The data: two circles (radius 1 and 0.45, a little noise) and XOR on the square.
n = 80
angle = rng.uniform(0, 2 * np.pi, n)
radius = np.where(np.arange(n) < n // 2, 1.0, 0.45) + rng.normal(0, 0.08, n)
circles = Dataset(
    np.column_stack([radius * np.cos(angle), radius * np.sin(angle)]),
    np.where(np.arange(n) < n // 2, -1.0, 1.0),
    name="circles",
)
Xx = rng.uniform(-1, 1, (n, 2))
xor = Dataset(Xx, np.where(Xx[:, 0] * Xx[:, 1] > 0, 1.0, -1.0), name="xor")

# %%
# The kernel dual in cvxpy: ``max 1'a - 1/2 a' Q a``, ``Q = (y y') * K``,
# ``0 <= a <= C``, ``y'a = 0``. ``Q`` is PSD because ``K`` is; cvxpy cannot prove it
# from the numbers (rounding makes the smallest eigenvalue of a rank-deficient Gram
# ``-1e-16``), so ``psd_wrap`` says it. Then maxmargin's exact solve of the same problem.
C, gamma = 10.0, 2.0


def rbf(A, B, g):
    return np.exp(-g * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


for data in (circles, xor):
    y = data.y
    K = rbf(data.X, data.X, gamma)
    a = cp.Variable(data.n)
    objective = cp.sum(a) - 0.5 * cp.quad_form(a, cp.psd_wrap(np.outer(y, y) * K))
    model = cp.Problem(cp.Maximize(objective), [a >= 0, a <= C, y @ a == 0])
    model.solve(solver=cp.CLARABEL)
    sol = solve_kernel_dual(KernelProblem(data, "rbf", C=C, gamma=gamma))
    cert = sol.certificate
    print(
        f"{data.name}: cvxpy dual {model.value:.10f}, maxmargin {cert.dual_objective:.10f} "
        f"(certified: {cert.ok}, relative gap {cert.relative_gap:.1e}); "
        f"max |alpha_cvxpy - alpha| = {np.max(np.abs(a.value - sol.alpha)):.1e}; "
        f"{len(sol.support)} support vectors, {len(sol.free_support)} on the margin"
    )


# %%
# The decision boundary, both margins, and every point's alpha.
def draw(ax, data, C, gamma, title, colorbar=False):
    sol = solve_kernel_dual(KernelProblem(data, "rbf", C=C, gamma=gamma))
    g = np.linspace(-1.4, 1.4, 160)
    G1, G2 = np.meshgrid(g, g)
    F = sol.decision_function(np.column_stack([G1.ravel(), G2.ravel()])).reshape(G1.shape)
    ax.contourf(G1, G2, F, levels=[-1e9, 0, 1e9], colors=["#f4d6d6", "#d6e2f4"], alpha=0.6)
    ax.contour(G1, G2, F, levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"])
    for label, marker in ((1.0, "o"), (-1.0, "s")):
        m = data.y == label
        sc = ax.scatter(
            data.X[m, 0],
            data.X[m, 1],
            c=sol.alpha[m] / C,
            cmap="viridis",
            vmin=0,
            vmax=1,
            marker=marker,
            s=28,
            edgecolors="k",
            linewidths=0.4,
        )
    ax.set(xlim=(-1.4, 1.4), ylim=(-1.4, 1.4), aspect="equal", xticks=[], yticks=[])
    ax.set_title(
        f"{title}\n{len(sol.support)} SVs, {len(sol.free_support)} on the margin", fontsize=9
    )
    if colorbar:
        plt.colorbar(sc, ax=ax, label="alpha_i / C", shrink=0.8)


fig, axes = plt.subplots(1, 2, figsize=(11, 5))
draw(axes[0], circles, C, gamma, f"circles, RBF gamma = {gamma:g}, C = {C:g}")
draw(axes[1], xor, C, gamma, f"XOR, RBF gamma = {gamma:g}, C = {C:g}", colorbar=True)
fig.tight_layout()
fig.savefig(out, dpi=110)
print(f"wrote {out}")

# %%
# Growing gamma (rows) and C (columns) on XOR: a small gamma is almost linear and
# cannot fit XOR; a large one fits each point's neighbourhood. A small C lets many
# points inside the margin (many support vectors at the bound, alpha = C).
gammas, Cs = (0.5, 2.0, 8.0), (0.1, 1.0, 100.0)
fig, axes = plt.subplots(3, 3, figsize=(10, 10))
for i, g in enumerate(gammas):
    for j, c in enumerate(Cs):
        draw(axes[i, j], xor, c, g, f"gamma = {g:g}, C = {c:g}")
fig.tight_layout()
grid = out.with_name(out.stem + "_grid.png")
fig.savefig(grid, dpi=90)
print(f"wrote {grid}")
