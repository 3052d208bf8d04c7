"""Benchmark: a 25-point C path at 10000 x 50, three ways (one run each, ratios printed).

0. ``maxmargin.path`` as used by default: a working-set warm start from the previous
   point, and ``exact.solve``'s measured route (IPM / PIQP) where it fails.
1. ``path(..., solver=SOLVER)``: the dual QP compiled once in cvxpy (C a DPP parameter),
   with the same warm start (the compiled full QP only where it fails).
2. The same compiled model without the warm start (``warm_start=False``): DPP alone.
3. 25 fresh solves: ``maxmargin.exact.solve`` through cvxpy (model built and compiled
   every time, same solver), and through the direct PIQP interface (the package default).
4. A loop of scikit-learn ``SVC(kernel="linear")`` fits, stopped once it has used
   ``--svc-budget`` seconds (libsvm slows down sharply at large C; the rest is skipped).

Every path point is checked against the fresh cvxpy solve at the same C (relative
primal objective difference).

Run: ``python bench/path.py [--n 10000] [--d 50] [--points 25] [--svc-budget 180]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings

from maxmargin import SVMProblem, make_gaussians
from maxmargin.exact import solve
from maxmargin.path import log_grid, path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
    data = make_gaussians(args.n, args.d, separation=1.0, seed=0)
    grid = log_grid(args.lo, args.hi, args.points)
    print(f"data {data.name}; grid {args.lo:g}:{args.hi:g}:{args.points}; solver "
          f"{args.solver}; {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}")
    rows = []

    t = time.perf_counter()
    default = path(data, C=grid, hard_limit=False)
    rows.append(("path (default): working-set warm start + exact.solve's route",
                 time.perf_counter() - t,
                 f"{default.method.count('warm')} points without the full QP; "
                 f"certified {default.certified}"))
    print(rows[-1], flush=True)

    t = time.perf_counter()
    warm = path(data, C=grid, solver=args.solver, hard_limit=False)
    t_warm = time.perf_counter() - t
    n_cont = warm.method.count("warm")
    rows.append(("path: DPP + working-set warm start", t_warm,
                 f"{n_cont} points without the full QP; compile {warm.compile_seconds:.2f} s; "
                 f"certified {warm.certified}"))
    print(rows[-1], flush=True)

    t = time.perf_counter()
    dpp = path(data, C=grid, solver=args.solver, hard_limit=False, warm_start=False)
    t_dpp = time.perf_counter() - t
    rows.append(("path: DPP only (warm_start=False)", t_dpp,
                 f"compile {dpp.compile_seconds:.2f} s; certified {dpp.certified}"))
    print(rows[-1], flush=True)

    t = time.perf_counter()
    fresh = [solve(SVMProblem(data, C=c), solver=args.solver, interface="cvxpy") for c in grid]
    t_fresh = time.perf_counter() - t
    rel = max(abs(p - f.primal_objective) / abs(f.primal_objective)
              for p, f in zip(warm.primal, fresh, strict=True))
    rows.append((f"25 fresh solves (exact.solve, cvxpy, {args.solver})", t_fresh,
                 f"max rel objective diff vs path {rel:.1e}"))
    print(rows[-1], flush=True)

    t_direct = None
    if not args.skip_fresh_direct:
        t = time.perf_counter()
        direct = [solve(SVMProblem(data, C=c)) for c in grid]
        t_direct = time.perf_counter() - t
        rel2 = max(abs(p - f.primal_objective) / abs(f.primal_objective)
                   for p, f in zip(warm.primal, direct, strict=True))
        rows.append((f"25 fresh solves (exact.solve, direct {direct[0].solver})", t_direct,
                     f"max rel objective diff vs path {rel2:.1e}"))
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
    note = (f"all {len(grid)} fits" if done == len(grid) else
            f"stopped after {done}/{len(grid)} fits (C up to {grid[done - 1]:.3g}) at the "
            f"{args.svc_budget:g} s budget; the rest skipped")
    rows.append(("sklearn SVC(kernel='linear') loop", t_svc, note))
    print(rows[-1], flush=True)

    print()
    print("| method | seconds | vs warm path | note |")
    print("|---|---|---|---|")
    for name, sec, note in rows:
        print(f"| {name} | {sec:.2f} | {sec / t_warm:.2f}x | {note} |")
    print()
    print(f"fresh cvxpy solves / warm path = {t_fresh / t_warm:.2f}x (target >= 3x)")
    print(f"DPP only / warm path = {t_dpp / t_warm:.2f}x; fresh cvxpy / DPP only = "
          f"{t_fresh / t_dpp:.2f}x")
    t_default = rows[0][1]
    if t_direct is not None:
        print(f"fresh direct solves / warm path = {t_direct / t_warm:.2f}x; "
              f"fresh default-route solves / default path = {t_direct / t_default:.2f}x")


if __name__ == "__main__":
    main()
