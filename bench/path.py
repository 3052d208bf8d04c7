"""Benchmark: the exact regularization path against grid paths (ratios printed).

Default (``--mode scale``): the whole exact path (C -> 0 to its end, every breakpoint
certified) beside one certified solve and the default 25-point grid path, in one process,
on heart_scale (270 x 13), breast_cancer (569 x 30, scikit-learn's, standardised) and
Gaussians (``make_gaussians(n, d, seed=0)``) 1000 x 10 and 5000 x 20 (``--big``: and
50000 x 20): breakpoints, seconds (wall and CPU: other jobs share the machine, so the
ratios are the numbers to read), path / one solve, and the scaling column, microseconds
per breakpoint against n.

``--mode exact``: the exact path against the grid path at equal accuracy, on heart_scale,
breast_cancer and Gaussians 10000 x 50:

* accuracy of a grid: ``w`` linearly interpolated in C between the points of a log grid
  of k points over [1e-3, 1e3], against the exact ``w(C)``; the largest relative error
  ``||w_grid(C) - w(C)|| / ||w(C)||`` over the range (it is reached at a breakpoint of the
  exact path, since both are piecewise linear in C, so it is computed exactly from the
  breakpoints and the two grid points around each -- no grid is materialised);
* the smallest k with that error below 1e-2, 1e-4 and 1e-6 (doubling, then bisection);
* the time of the exact path over the same range (``C=[1e-3, 1e3], exact=True``: it starts
  from a fresh solve's active sets at 1e-3; best of ``--repeat`` runs) and of the grid
  path with k points: measured on 3 x ``--sample`` consecutive points of the k-point grid (around
  C = 1e-2, 1 and 1e2; warm-started as ``regularization_path`` does), scaled to k points (a grid of
  millions of points is not run in full).

``--mode grid``: the earlier comparison of grid-path methods (a 25-point C path at
10000 x 50: warm start, DPP model, fresh solves, scikit-learn SVC loop).

Run: ``python bench/path.py [--mode scale|exact|grid] [--big] [--repeat 3] [--sample 30]``.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
import warnings

import numpy as np

from maxmargin import Dataset, SVMProblem, load, make_gaussians
from maxmargin.evaluation.path import regularization_path
from maxmargin.evaluation.path.grids import log_grid
from maxmargin.exact import solve

LO, HI = 1e-3, 1e3


def interpolation_error(ep, k: int, lo: float = LO, hi: float = HI) -> float:
    """Largest relative error of w interpolated on a k-point log grid, against the exact path.

    w is linearly interpolated between the k points of a log grid over [lo, hi]; the
    error is evaluated at every breakpoint inside.
    """
    bps = ep.breakpoints[(ep.breakpoints > lo) & (ep.breakpoints < hi)]
    if bps.size == 0:
        return 0.0
    span = math.log(hi / lo)
    j = np.clip(np.floor((k - 1) * np.log(bps / lo) / span).astype(np.int64), 0, k - 2)
    g0 = lo * np.exp(span * j / (k - 1))
    g1 = lo * np.exp(span * (j + 1) / (k - 1))
    W0, W1, W = ep.coefficients(g0)[0], ep.coefficients(g1)[0], ep.coefficients(bps)[0]
    t = ((bps - g0) / (g1 - g0))[:, None]
    err = np.linalg.norm((1 - t) * W0 + t * W1 - W, axis=1)
    return float((err / np.maximum(np.linalg.norm(W, axis=1), 1e-300)).max())


def points_needed(ep, tol: float) -> int:
    """Smallest k (doubling, then bisection) whose interpolation error is <= tol."""
    k = 25
    while interpolation_error(ep, k) > tol:
        k *= 2
        if k > 1 << 40:
            return -1
    lo, hi = max(2, k // 2), k
    while hi - lo > max(1, lo // 1000):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if interpolation_error(ep, mid) <= tol else (mid, hi)
    return hi


def grid_seconds_per_point(data: Dataset, k: int, sample: int) -> float:
    """Per-point time of the warm-started grid path at the spacing of a k-point log grid.

    Measured on ``sample`` consecutive points around C = 1e-2, 1 and 1e2 (the first point of
    each run is a cold solve and is not counted).
    """
    span = math.log(HI / LO)
    total, count = 0.0, 0
    for center in (1e-2, 1.0, 1e2):
        j0 = int((k - 1) * math.log(center / LO) / span)
        j = np.arange(j0, min(j0 + sample + 1, k))
        grid = LO * np.exp(span * j / (k - 1))
        p = regularization_path(data, C=grid, hard_limit=False)
        assert p.certified
        total += float(p.seconds[1:].sum())
        count += grid.size - 1
    return total / count


def breast_cancer() -> Dataset:
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)  # scikit-learn's StandardScaler
    return Dataset(X, np.where(y == 1, 1.0, -1.0), name="breast_cancer (standardised)")


def _timed(fn, *args, **kw):  # type: ignore[no-untyped-def]
    """(result, wall seconds, CPU seconds) of ``fn(*args, **kw)``."""
    t, c = time.perf_counter(), time.process_time()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t, time.process_time() - c


def scaling(args: argparse.Namespace) -> None:
    """The whole exact path beside one certified solve and the 25-point grid path."""
    sets = [
        load("builtin:heart_scale"),
        breast_cancer(),
        make_gaussians(1000, 10, seed=0),
        make_gaussians(5000, 20, seed=0),
    ]
    if args.big:
        sets.append(make_gaussians(50000, 20, seed=0))
    avg = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    print(
        f"{os.cpu_count()} CPUs, {platform.processor() or platform.machine()}; load "
        f"average {avg[0]:.1f} {avg[1]:.1f} {avg[2]:.1f}; the first path of the process "
        "(compiled code loaded) is not timed",
        flush=True,
    )
    regularization_path(make_gaussians(400, 5, seed=1), exact=True)  # load the compiled loop
    rows = []
    for data in sets:
        solves = [_timed(solve, SVMProblem(data, C=1.0)) for _ in range(3)]
        assert all(s[0].certificate.ok for s in solves)
        ts, cs = min(s[1] for s in solves), min(s[2] for s in solves)
        ep, te, ce = _timed(regularization_path, data, exact=True)
        assert ep.certified
        grid, tg, cg = _timed(regularization_path, data, hard_limit=False)
        assert grid.certified
        rows.append((data, ep, ts, cs, te, ce, tg, cg))
        print(
            f"{data.name} ({data.n} x {data.d}): {len(ep)} breakpoints to {ep.end_reason} "
            f"(C* = {ep.C_star:.6g}), worst residual {ep.max_residual.max():.1e}; one "
            f"solve {ts:.4f} s (CPU {cs:.4f}); exact path {te:.2f} s (CPU {ce:.2f}) = "
            f"{te / ts:.0f}x one solve (CPU {ce / cs:.0f}x), {1e6 * te / len(ep):.0f} us "
            f"per breakpoint; 25-point grid path {tg:.2f} s",
            flush=True,
        )
    print(
        "\n| data | n x d | breakpoints | end | one solve (s) | exact path (s) "
        "| path / one solve | us per breakpoint | 25-point grid path (s) | exact / grid |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for data, ep, ts, cs, te, ce, tg, cg in rows:
        print(
            f"| {data.name} | {data.n} x {data.d} | {len(ep)} | {ep.end_reason} | "
            f"{ts:.4f} (CPU {cs:.4f}) | {te:.2f} (CPU {ce:.2f}) | {te / ts:.0f}x (CPU "
            f"{ce / cs:.0f}x) | {1e6 * te / len(ep):.0f} (CPU {1e6 * ce / len(ep):.0f}) | "
            f"{tg:.2f} (CPU {cg:.2f}) | {te / tg:.2f}x |"
        )


def exact_vs_grid(args: argparse.Namespace) -> None:
    sets = [
        load("builtin:heart_scale"),
        breast_cancer(),
        make_gaussians(10000, 50, separation=1.0, seed=0),
    ]
    avg = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    print(
        f"{os.cpu_count()} CPUs, {platform.processor() or platform.machine()}; load "
        f"average {avg[0]:.1f} {avg[1]:.1f} {avg[2]:.1f} (other jobs share the "
        "machine: every time is the best of the repeats)",
        flush=True,
    )
    rows = []
    for data in sets:
        best, ep = math.inf, None
        for _ in range(args.repeat if data.n < 5000 else 1):
            t = time.perf_counter()
            ep = regularization_path(data, [LO, HI], exact=True)
            best = min(best, time.perf_counter() - t)
        assert ep is not None and ep.certified
        e25 = interpolation_error(ep, 25)
        print(
            f"\n{data.name} ({data.n} x {data.d}): exact path on [{LO:g}, {HI:g}] "
            f"{best:.2f} s, {len(ep)} breakpoints, worst certificate residual "
            f"{ep.max_residual.max():.1e}, {ep.n_solves} fresh solves; the default "
            f"25-point grid's interpolation is off by {100 * e25:.1f}%",
            flush=True,
        )
        per = {}
        for tol in (1e-2, 1e-4, 1e-6):
            k = points_needed(ep, tol)
            if k not in per:
                per[k] = grid_seconds_per_point(data, k, args.sample)
            est = k * per[k]
            rows.append((data.name, data.n, data.d, best, len(ep), tol, k, per[k], est))
            print(
                f"  interpolation within {tol:g}: {k} grid points, {1e3 * per[k]:.2f} ms "
                f"per point -> {est:.3g} s; grid / exact = {est / best:.3g}x",
                flush=True,
            )
    print(
        "\n| data | n x d | exact path (s) | breakpoints | grid accuracy | grid points "
        "| grid s/point | grid path (s, est.) | grid / exact |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, n, d, te, nb, tol, k, pp, est in rows:
        print(
            f"| {name} | {n} x {d} | {te:.2f} | {nb} | {tol:g} | {k} | {1e3 * pp:.2f} ms "
            f"| {est:.3g} | {est / te:.3g}x |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=("scale", "exact", "grid"), default="scale")
    ap.add_argument("--big", action="store_true", help="scale: also 50000 x 20")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--d", type=int, default=50)
    ap.add_argument("--points", type=int, default=25)
    ap.add_argument("--lo", type=float, default=1e-3)
    ap.add_argument("--hi", type=float, default=1e3)
    ap.add_argument("--solver", default="CLARABEL")
    ap.add_argument("--svc-budget", type=float, default=180.0)
    ap.add_argument("--skip-fresh-direct", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.mode == "scale":
        scaling(args)
        return
    if args.mode == "exact":
        exact_vs_grid(args)
        return
    data = make_gaussians(args.n, args.d, separation=1.0, seed=0)
    grid = log_grid(args.lo, args.hi, args.points)
    print(
        f"data {data.name}; grid {args.lo:g}:{args.hi:g}:{args.points}; solver "
        f"{args.solver}; {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}"
    )
    rows = []

    t = time.perf_counter()
    default = regularization_path(data, C=grid, hard_limit=False)
    rows.append(
        (
            "path (default): working-set warm start + exact.solve's route",
            time.perf_counter() - t,
            f"{default.method.count('warm')} points without the full QP; "
            f"certified {default.certified}",
        )
    )
    print(rows[-1], flush=True)

    t = time.perf_counter()
    warm = regularization_path(data, C=grid, solver=args.solver, hard_limit=False)
    t_warm = time.perf_counter() - t
    n_cont = warm.method.count("warm")
    rows.append(
        (
            "path: DPP + working-set warm start",
            t_warm,
            f"{n_cont} points without the full QP; compile {warm.compile_seconds:.2f} s; "
            f"certified {warm.certified}",
        )
    )
    print(rows[-1], flush=True)

    t = time.perf_counter()
    dpp = regularization_path(data, C=grid, solver=args.solver, hard_limit=False, warm_start=False)
    t_dpp = time.perf_counter() - t
    rows.append(
        (
            "path: DPP only (warm_start=False)",
            t_dpp,
            f"compile {dpp.compile_seconds:.2f} s; certified {dpp.certified}",
        )
    )
    print(rows[-1], flush=True)

    t = time.perf_counter()
    fresh = [solve(SVMProblem(data, C=c), solver=args.solver, interface="cvxpy") for c in grid]
    t_fresh = time.perf_counter() - t
    rel = max(
        abs(p - f.primal_objective) / abs(f.primal_objective)
        for p, f in zip(warm.primal, fresh, strict=True)
    )
    rows.append(
        (
            f"25 fresh solves (exact.solve, cvxpy, {args.solver})",
            t_fresh,
            f"max rel objective diff vs path {rel:.1e}",
        )
    )
    print(rows[-1], flush=True)

    t_direct = None
    if not args.skip_fresh_direct:
        t = time.perf_counter()
        direct = [solve(SVMProblem(data, C=c)) for c in grid]
        t_direct = time.perf_counter() - t
        rel2 = max(
            abs(p - f.primal_objective) / abs(f.primal_objective)
            for p, f in zip(warm.primal, direct, strict=True)
        )
        rows.append(
            (
                f"25 fresh solves (exact.solve, direct {direct[0].solver})",
                t_direct,
                f"max rel objective diff vs path {rel2:.1e}",
            )
        )
        print(rows[-1], flush=True)

    from sklearn.svm import SVC

    t = time.perf_counter()
    done = 0
    X, y = data.X, data.y
    for c in grid:
        if time.perf_counter() - t > args.svc_budget:
            break
        SVC(kernel="linear", C=float(c), tol=1e-3).fit(X, y)
        done += 1
    t_svc = time.perf_counter() - t
    note = (
        f"all {len(grid)} fits"
        if done == len(grid)
        else f"stopped after {done}/{len(grid)} fits (C up to {grid[done - 1]:.3g}) at the "
        f"{args.svc_budget:g} s budget; the rest skipped"
    )
    rows.append(("sklearn SVC(kernel='linear') loop", t_svc, note))
    print(rows[-1], flush=True)

    print()
    print("| method | seconds | vs warm path | note |")
    print("|---|---|---|---|")
    for name, sec, note in rows:
        print(f"| {name} | {sec:.2f} | {sec / t_warm:.2f}x | {note} |")
    print()
    print(f"fresh cvxpy solves / warm path = {t_fresh / t_warm:.2f}x (target >= 3x)")
    print(
        f"DPP only / warm path = {t_dpp / t_warm:.2f}x; fresh cvxpy / DPP only = "
        f"{t_fresh / t_dpp:.2f}x"
    )
    t_default = rows[0][1]
    if t_direct is not None:
        print(
            f"fresh direct solves / warm path = {t_direct / t_warm:.2f}x; "
            f"fresh default-route solves / default path = {t_direct / t_default:.2f}x"
        )


if __name__ == "__main__":
    main()
