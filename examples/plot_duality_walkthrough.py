"""
Duality in the open: from the primal to the support vectors
===========================================================

The lesson of the soft-margin SVM, computed step by step on 20 points in 2-D: write the
primal in cvxpy, solve it, read the multipliers of its margin constraints, build the
dual, solve it, and watch the multipliers become the dual's alpha. Then check strong
duality and every KKT condition with numpy, draw who is a support vector and why, and
let C grow to see points move between the three sets (alpha = 0, between, alpha = C).

Every number printed is recomputed here with numpy from ``X``, ``y`` and the solvers'
``w``, ``b``, ``alpha``; the solvers' own values are printed next to them. The theory
is in :doc:`/duality`.
"""

# %%
# The data and the problem
# ------------------------
# Two overlapping Gaussian classes; soft margin with ``C = 1`` and a free intercept:
#
# .. math:: \min_{w, b, \xi}\ \tfrac12\|w\|^2 + C\sum_i \xi_i \quad\text{s.t.}\quad
#           y_i(w^\top x_i + b) \ge 1 - \xi_i,\ \ \xi_i \ge 0 .

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from maxmargin import SVMProblem, make_gaussians, solve

ds = make_gaussians(20, 2, separation=2.4, seed=4)
X, y, n = ds.dense(), ds.y, ds.n
C = 1.0
problem = SVMProblem(ds, C=C)
SOLVER = "CLARABEL"  # an interior-point QP solver; cvxpy ships it
TOL = 1e-6  # what an interior-point solver's answer is good to (it stops near 1e-8)

# %%
# The primal in cvxpy, and its multipliers
# ----------------------------------------
# ``to_cvxpy("primal")`` is the textbook model: variables ``w``, ``b``, ``xi``; the n
# margin constraints are one vectorised constraint, ``constraints[0]``, and
# ``constraints[1]`` is ``xi >= 0``.

primal = problem.to_cvxpy("primal")
print(primal)
P_cvxpy = primal.solve(solver=SOLVER)
w = primal.var_dict["w"].value
b = float(primal.var_dict["b"].value)
xi_cvxpy = primal.var_dict["xi"].value
alpha_primal = primal.constraints[0].dual_value  # one multiplier per margin constraint
mu = primal.constraints[1].dual_value  # one per xi_i >= 0

f = X @ w + b  # decision values
r = y * f  # functional margins y_i f(x_i)
xi = np.maximum(0.0, 1.0 - r)  # the slacks, from the data
P = 0.5 * w @ w + C * xi.sum()
print(f"\nprimal:  P = {P:.10f} (numpy)   {P_cvxpy:.10f} (cvxpy)")
print(f"         w = {np.array2string(w, precision=6)}, b = {b:.6f}")
print(f"         max |xi - xi_cvxpy| = {np.abs(xi - xi_cvxpy).max():.1e}")

# %%
# The dual in cvxpy
# -----------------
# Setting the Lagrangian's gradient to zero gives ``w = sum_i alpha_i y_i x_i``,
# ``sum_i alpha_i y_i = 0`` and ``alpha_i + mu_i = C``; substituted back:
#
# .. math:: \max_\alpha\ \sum_i \alpha_i - \tfrac12\Bigl\|\sum_i \alpha_i y_i x_i\Bigr\|^2
#           \quad\text{s.t.}\quad 0 \le \alpha_i \le C,\ \ \sum_i \alpha_i y_i = 0 .
#
# Its variable is ``alpha``; the multiplier of the equality is the intercept ``b``.

dual = problem.to_cvxpy("dual")
print(dual)
D_cvxpy = dual.solve(solver=SOLVER)
alpha = dual.var_dict["alpha"].value
b_dual = float(dual.constraints[-1].dual_value)  # the multiplier of y @ alpha == 0

v = X.T @ (alpha * y)  # sum_i alpha_i y_i x_i
D = alpha.sum() - 0.5 * v @ v
print(f"\ndual:    D = {D:.10f} (numpy)   {D_cvxpy:.10f} (cvxpy)")
print(
    f"primal multipliers = dual alpha:  max |alpha_primal - alpha| = "
    f"{np.abs(alpha_primal - alpha).max():.1e}"
)
print(f"b from the dual's equality multiplier: {b_dual:.6f}  (primal b {b:.6f})")

# %%
# Strong duality and the KKT conditions, with numpy
# -------------------------------------------------
# Weak duality says ``D <= P`` for any feasible pair; at the optimum they are equal.
# The gap is a sum of the complementary-slackness terms, one pair per example:
# ``P - D = sum_i alpha_i (y_i f_i - 1 + xi_i) + sum_i (C - alpha_i) xi_i``.
# Each KKT condition, as a residual that is zero exactly when it holds, for the cvxpy
# point (primal ``w, b`` with the dual's ``alpha``) and for ``solve``'s certified one:


def kkt_residuals(w, b, alpha):
    """Relative duality gap and one residual per KKT condition, from the data alone."""
    r = y * (X @ w + b)
    xi = np.maximum(0.0, 1.0 - r)
    v = X.T @ (alpha * y)
    P = 0.5 * w @ w + C * xi.sum()
    D = alpha.sum() - 0.5 * v @ v
    return {
        "strong duality   (P - D) / P": (P - D) / P,
        "primal feas.     max(0, 1 - xi - y f, -xi)": np.maximum(
            0, np.maximum(1 - xi - r, -xi)
        ).max(),
        "dual feas.       max(0, -alpha, alpha - C)": np.maximum(
            0, np.maximum(-alpha, alpha - C)
        ).max(),
        "stationarity     max |w - sum alpha y x|": np.abs(w - v).max(),
        "stationarity     |sum alpha y|": abs(alpha @ y),
        "compl. slackness max |alpha (y f - 1 + xi)|": np.abs(alpha * (r - 1 + xi)).max(),
        "compl. slackness max |(C - alpha) xi|": np.abs((C - alpha) * xi).max(),
    }


sol = solve(problem)
cvx, cert = kkt_residuals(w, b, alpha), kkt_residuals(sol.w, sol.b, sol.alpha)
print(f"{'condition':<46s}{'cvxpy':>10s}{'certified':>11s}")
for name in cvx:
    print(f"{name:<46s}{cvx[name]:10.1e}{cert[name]:11.1e}")
print(
    f"{'stationarity     max |alpha + mu - C| (cvxpy)':<46s}"
    f"{np.abs(alpha_primal + mu - C).max():10.1e}"
)
assert all(abs(value) <= TOL for value in cvx.values())
assert np.abs(alpha_primal + mu - C).max() <= TOL

# %%
# The certified optimum, and a negative gap
# -----------------------------------------
# ``solve`` reaches the same point and polishes it on its active set: the residuals
# drop from the interior-point solver's ~1e-9 to rounding level. Its duality gap may
# then come out *negative*: P and D are two numbers of size ~P, each computed with
# rounding, and the difference of two equal numbers is their rounding error, of either
# sign. A gap of a few ``eps * P`` is zero; a negative gap beyond rounding would come
# with an infeasible alpha or a broken ``w = sum alpha y x``, which the residuals show.

eps = np.finfo(float).eps
w_s, b_s, a_s = sol.w, sol.b, sol.alpha
r_s = y * (X @ w_s + b_s)
xi_s = np.maximum(0.0, 1.0 - r_s)
P_s = 0.5 * w_s @ w_s + C * xi_s.sum()
gap = cert["strong duality   (P - D) / P"] * P_s
print(f"certified: P = {P_s:.15f} (numpy), {sol.primal_objective:.15f} (solve)")
print(
    f"           P - D = {gap:.1e} = {gap / (eps * P_s):+.1f} eps * P   (solve: "
    f"{sol.duality_gap:.1e})"
)
print(
    f"           |w - w_cvxpy| = {np.abs(w_s - w).max():.1e}, |b - b_cvxpy| = "
    f"{abs(b_s - b):.1e}, |alpha - alpha_cvxpy| = {np.abs(a_s - alpha).max():.1e}"
)
assert abs(gap) <= 64 * eps * P_s and max(abs(v) for v in cert.values()) <= 1e-12

# %%
# Who is a support vector, and why
# --------------------------------
# Complementary slackness sorts the points: ``alpha_i = 0`` needs ``y_i f_i >= 1``;
# ``0 < alpha_i < C`` puts the point exactly on its margin (``xi_i = 0``);
# ``alpha_i = C`` lets it inside the margin or across the boundary (``xi_i > 0``).
# The sets are read from the certified alpha (exactly 0 or C off the margin); the
# cvxpy alpha gives the same sets at the solver's tolerance.


def sets(a, C, tol):
    """Indices with alpha = 0, 0 < alpha < C, alpha = C (up to tol * C)."""
    zero = np.flatnonzero(a <= tol * C)
    bound = np.flatnonzero(a >= C - tol * C)
    return zero, np.setdiff1d(np.arange(len(a)), np.union1d(zero, bound)), bound


zero, between, bound = sets(a_s, C, 1e-8)
cvxpy_sets = sets(alpha, C, TOL)
assert all(
    np.array_equal(s1, s2) for s1, s2 in zip(cvxpy_sets, (zero, between, bound), strict=True)
)
print(f"alpha = 0: {len(zero)} points (all with y f >= 1: {bool(np.all(r_s[zero] >= 1 - 1e-9))})")
print(
    f"0 < alpha < C: {len(between)} margin SVs, |y f - 1| <= {np.abs(r_s[between] - 1).max():.1e}"
)
print(f"alpha = C: {len(bound)} bound SVs, slacks {np.array2string(xi_s[bound], precision=3)}")

SET_STYLE = {  # how the support vectors are marked, in every figure
    "between": dict(s=150, facecolors="none", edgecolors="k", linewidths=1.5),
    "bound": dict(s=90, marker="x", c="k", linewidths=1.5),
}
CLASS_STYLE = {+1: dict(c="tab:blue", marker="o"), -1: dict(c="tab:red", marker="s")}
lo, hi = X.min(axis=0) - 0.6, X.max(axis=0) + 0.6  # the drawing box, for every figure


def draw(ax, w, b, a, C, *, annotate=False, legend=False):
    """Points by class, boundary f = 0, margins f = +-1, support vectors marked."""
    zero, between, bound = sets(a, C, 1e-8)
    for label, style in CLASS_STYLE.items():
        m = y == label
        ax.scatter(X[m, 0], X[m, 1], s=26, zorder=2, label=f"$y_i = {label:+d}$", **style)
    ax.scatter(
        X[between, 0],
        X[between, 1],
        zorder=3,
        label=r"margin SV, $0 < \alpha_i < C$",
        **SET_STYLE["between"],
    )
    ax.scatter(
        X[bound, 0], X[bound, 1], zorder=3, label=r"bound SV, $\alpha_i = C$", **SET_STYLE["bound"]
    )
    xs = np.array([lo[0], hi[0]])
    for level, style, label in (
        (0, "-", r"boundary $w^\top x + b = 0$"),
        (1, "--", r"margins $w^\top x + b = \pm 1$"),
        (-1, "--", None),
    ):
        ax.plot(xs, (level - b - w[0] * xs) / w[1], style, c="k", lw=1.1, label=label)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal", adjustable="box")
    if legend:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    if annotate:
        xi_a = np.maximum(0.0, 1.0 - y * (X @ w + b))
        texts = [
            (
                r"$\alpha$=0"
                if i in zero
                else r"$\alpha$=C"
                if i in bound
                else rf"$\alpha$={a[i]:.2f}"
            )
            + ("" if xi_a[i] <= 1e-9 else rf", $\xi$={xi_a[i]:.2f}")
            for i in range(n)
        ]
        place_labels(ax, X, texts)


def place_labels(ax, points, texts):
    """Put each label at the candidate offset that overlaps least with the points and
    the labels placed before it (a greedy placement, in display coordinates).
    """
    fig = ax.figure
    fig.tight_layout()  # place in the final layout
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    pts = ax.transData.transform(points)
    taken = []  # bounding boxes (x0, y0, x1, y1) of the labels placed so far
    near_offsets = [
        (5, 3, "left", "bottom"),
        (5, -3, "left", "top"),
        (-5, 3, "right", "bottom"),
        (-5, -3, "right", "top"),
        (0, 7, "center", "bottom"),
        (0, -7, "center", "top"),
    ]
    # then the same directions farther out, for crowded spots (a small penalty each)
    offsets = [
        (dx * k, dy * k, ha, va, 20.0 * (k > 1))
        for k in (1, 2.5)
        for dx, dy, ha, va in near_offsets
    ]
    for i in np.argsort(points[:, 0]):
        best = None
        for dx, dy, ha, va, penalty in offsets:
            t = ax.annotate(
                texts[i],
                points[i],
                xytext=(dx, dy),
                textcoords="offset points",
                ha=ha,
                va=va,
                fontsize=7,
                color="0.2",
            )
            bb = t.get_window_extent(renderer).expanded(1.05, 1.1)
            box = np.array([bb.x0, bb.y0, bb.x1, bb.y1])
            cost = penalty + sum(_overlap(box, o) for o in taken)
            near = (
                (pts[:, 0] > box[0] - 4)
                & (pts[:, 0] < box[2] + 4)
                & (pts[:, 1] > box[1] - 4)
                & (pts[:, 1] < box[3] + 4)
            )
            cost += 200.0 * near.sum()
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, t, box)
            else:
                t.remove()
            if cost == penalty == 0:
                break
        taken.append(best[2])


def _overlap(a, b):
    """Area of the intersection of two boxes (x0, y0, x1, y1)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


fig, ax = plt.subplots(figsize=(8.2, 5.4))
ax.set_xlabel("$x_1$")
ax.set_ylabel("$x_2$")
ax.set_title(
    rf"Soft margin, $C = {C:g}$: $P = D = {P_s:.4f}$; "
    rf"{len(between)} margin SVs, {len(bound)} bound SVs"
)
ax.text(
    1.02,
    0.02,
    "labels: $\\alpha_i$ and slack $\\xi_i$\n(no $\\xi$: $\\xi_i = 0$)",
    transform=ax.transAxes,
    fontsize=8,
    va="bottom",
)
draw(ax, w_s, b_s, a_s, C, annotate=True, legend=True)
fig.tight_layout()
fig.savefig("duality_walkthrough.png", dpi=150)

# %%
# As C grows
# ----------
# Small C makes slack cheap: many points sit at ``alpha = C``, the margin is wide.
# As C grows, points leave the bound set for the margin, and the margin ones drop to
# ``alpha = 0`` as the margin narrows. For each C: the set sizes, the margin width
# ``2 / ||w||``, and which points changed sets since the previous C (all from alpha and
# the data, with numpy).

Cs = [0.02, 0.1, 0.5, 2.0, 10.0, 100.0]
solutions = [solve(SVMProblem(ds, C=c)) for c in Cs]
assert all(s.certificate.ok for s in solutions)
NAMES = ("0", "between", "C")
previous = None
print(
    f"\n{'C':>7s} {'alpha=0':>8s} {'between':>8s} {'alpha=C':>8s} {'2/||w||':>9s} "
    f"{'|gap|/P':>8s}  moved"
)
for c, s in zip(Cs, solutions, strict=True):
    groups = sets(s.alpha, c, 1e-8)
    label = np.empty(n, dtype=object)
    for name, idx in zip(NAMES, groups, strict=True):
        label[idx] = name
    r_c = y * (X @ s.w + s.b)
    xi_c = np.maximum(0.0, 1.0 - r_c)
    v_c = X.T @ (s.alpha * y)
    P_c = 0.5 * s.w @ s.w + c * xi_c.sum()
    gap = abs(P_c - (s.alpha.sum() - 0.5 * v_c @ v_c)) / P_c
    moved = (
        ""
        if previous is None
        else ", ".join(f"{i}: {previous[i]}->{label[i]}" for i in np.flatnonzero(label != previous))
    )
    print(
        f"{c:7g} {len(groups[0]):8d} {len(groups[1]):8d} {len(groups[2]):8d} "
        f"{2 / np.linalg.norm(s.w):9.4f} {gap:8.1e}  {moved}"
    )
    previous = label

fig, axes = plt.subplots(2, 3, figsize=(11, 7.4), sharex=True, sharey=True)
for ax, c, s in zip(axes.flat, Cs, solutions, strict=True):
    draw(ax, s.w, s.b, s.alpha, c)
    groups = sets(s.alpha, c, 1e-8)
    ax.set_title(
        rf"$C = {c:g}$" + "\n" + f"{len(groups[0])} not SV, {len(groups[1])} margin, "
        f"{len(groups[2])} bound",
        fontsize=10,
    )
for ax in axes[-1]:
    ax.set_xlabel("$x_1$")
for ax in axes[:, 0]:
    ax.set_ylabel("$x_2$")
fig.legend(
    *axes.flat[0].get_legend_handles_labels(), loc="lower center", ncol=6, fontsize=9, frameon=False
)
fig.tight_layout(rect=(0, 0.05, 1, 1))
fig.savefig("duality_walkthrough_C.png", dpi=150)

# %%
# Each alpha along C
# ------------------
# ``alpha_i / C`` for every point on a fine grid of C (each optimum certified). A point
# starts at the bound (1), crosses the band ``(0, 1)`` while it sits on the margin, and
# drops to 0 once the narrowing margin has passed it; the points the hard margin needs
# stay positive. The paths need not be monotone: where the boundary turns (here between
# C = 10 and C = 100, see the panels above) a point can come back into the margin.

grid = np.geomspace(0.01, 100, 81)
path = [solve(SVMProblem(ds, C=c)) for c in grid]
assert all(s.certificate.ok for s in path)
ratios = np.array([s.alpha / c for s, c in zip(path, grid, strict=True)])  # (81, n)
fig, ax = plt.subplots(figsize=(7.5, 4.2))
for i in range(n):
    ax.plot(grid, ratios[:, i], lw=1.1, c=CLASS_STYLE[y[i]]["c"], alpha=0.75)
ax.plot([], [], c="tab:blue", label="$y_i = +1$")
ax.plot([], [], c="tab:red", label="$y_i = -1$")
ax.set_xscale("log")
ax.set_xlim(grid[0], grid[-1])
ax.set_xlabel("$C$")
ax.set_ylabel(r"$\alpha_i / C$")
ax.set_ylim(-0.04, 1.04)
ax.axhspan(0, 1, color="0.94", zorder=0)
for level, text in (
    (1, r"bound SV, $\alpha_i = C$"),
    (0.5, r"margin SV, $0 < \alpha_i < C$"),
    (0, r"not an SV, $\alpha_i = 0$"),
):
    ax.annotate(
        text,
        (1, level),
        xycoords=("axes fraction", "data"),
        xytext=(8, 0),
        textcoords="offset points",
        va="center",
        fontsize=9,
    )
ax.set_title(r"Each point's $\alpha_i / C$ along $C$ (each optimum certified)", fontsize=10)
ax.legend(loc="lower left", bbox_to_anchor=(1.0, 0.62), frameon=False, fontsize=9)
fig.tight_layout()
fig.savefig("duality_walkthrough_alpha.png", dpi=150)
print("\nwrote duality_walkthrough.png, duality_walkthrough_C.png, duality_walkthrough_alpha.png")
