"""Benchmark: a study's cells per second on 2 local workers vs the same cells in one loop.

Also the per-cell overhead of each route (in-process loop, loky processes, Dask).

Run: ``python bench/study.py [--n 20000] [--d 50] [--epochs 100] [--seeds 8] [--repeat 3]``

1. Throughput on cells of >= 0.5 s: Pegasos on overlapping Gaussians (n x d, dense), two
   values of C, ``--seeds`` seeds each. The exact solves are computed once beforehand and
   copied into every output folder, so only the cells are timed; the loky pool is
   started beforehand (workers importing maxmargin is a one-off cost, printed apart).
   Serial is ``study(..., n_jobs=1)``: the same task functions in a plain loop in this
   process. Target: >= 1.7x on 2 cores.
2. Overhead per cell: tiny cells (a perceptron, 1 epoch on 200 x 5) at two study sizes,
   per route; the slope (seconds per extra cell) is the overhead plus the tiny cell's
   own work, the intercept the fixed cost (for Dask ``local:2``, starting the cluster).

Every timing is the best of ``--repeat`` runs. On a loaded machine the ratios are
pessimistic: a parallel route needs two idle cores.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import maxmargin as mm


def spec(
    n: int,
    d: int,
    epochs: int,
    seeds: list[int],
    learner: str = "pegasos",
    grid: tuple = (0.1, 1.0),
    separation: float = 1.0,
) -> dict:
    return {
        "name": "bench",
        "problem": {"C": list(grid)},
        "run": {"epochs": epochs, "seeds": seeds},
        "data": [
            {
                "generator": "gaussians",
                "name": "g",
                "params": {"n": n, "d": d, "separation": separation, "seed": 0},
            }
        ],
        "learners": [learner],
    }


def timed_study(s: dict, refs: Path | None, **kw) -> tuple[float, mm.StudyResult]:
    out = Path(tempfile.mkdtemp(prefix="mm-bench-"))
    try:
        if refs is not None:
            shutil.copytree(refs, out / "refs")
        tic = time.perf_counter()
        res = mm.study(s, out, report=False, **kw)
        return time.perf_counter() - tic, res
    finally:
        shutil.rmtree(out, ignore_errors=True)


def best(repeat: int, s: dict, refs: Path | None, **kw) -> tuple[float, mm.StudyResult]:
    runs = [timed_study(s, refs, **kw) for _ in range(repeat)]
    return min(runs, key=lambda r: r[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--d", type=int, default=50)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    from maxmargin.studies.executors import usable_cpus

    blas = {
        k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS") if k in os.environ
    }
    print(
        f"{usable_cpus()} usable CPUs (of {os.cpu_count()}); load average "
        f"{os.getloadavg()[0]:.1f} at start; BLAS threads {blas or 'default'}"
    )

    # ---- 1. throughput on cells >= 0.5 s
    prime = Path(tempfile.mkdtemp(prefix="mm-bench-prime-"))
    tic = time.perf_counter()
    mm.study(spec(args.n, args.d, 1, [10**6]), prime, n_jobs=1, report=False)
    print(
        f"exact solves (separation LP + 2 soft-margin QPs, {args.n} x {args.d}): "
        f"{time.perf_counter() - tic:.2f} s, once, cached for every route below"
    )
    tic = time.perf_counter()
    mm.study(spec(200, 5, 1, [0, 1, 2, 3]), prime / "warm", n_jobs=2, report=False)
    print(
        f"starting 2 loky workers (imports, compiled kernels): "
        f"{time.perf_counter() - tic:.2f} s, once per process"
    )
    s = spec(args.n, args.d, args.epochs, list(range(args.seeds)))
    serial, res = best(args.repeat, s, prime / "refs", n_jobs=1)
    cells = res.cells
    cell_s = res.table.to_pandas().drop_duplicates("cell")["cell_seconds"]
    par, _ = best(args.repeat, s, prime / "refs", n_jobs=2)
    print(
        f"\n{cells} cells of Pegasos, {args.epochs} epochs on {args.n} x {args.d}: "
        f"{cell_s.min():.2f}-{cell_s.max():.2f} s each (median {cell_s.median():.2f} s)"
    )
    print(f"{'route':>26} {'wall s':>8} {'cells/s':>8} {'speed-up':>9}")
    print(f"{'serial loop (n_jobs=1)':>26} {serial:>8.2f} {cells / serial:>8.2f} {1:>8.2f}x")
    print(f"{'2 loky workers':>26} {par:>8.2f} {cells / par:>8.2f} {serial / par:>8.2f}x")
    if not args.no_dask:
        dask, _ = best(args.repeat, s, prime / "refs", scheduler="local:2")
        print(
            f"{'Dask local:2 (with start)':>26} {dask:>8.2f} {cells / dask:>8.2f} "
            f"{serial / dask:>8.2f}x"
        )
    shutil.rmtree(prime, ignore_errors=True)

    # ---- 2. overhead per cell: tiny cells, two study sizes, slope and intercept
    print(
        "\nper-cell cost of tiny cells (perceptron, 1 epoch, 200 x 5): "
        "slope = seconds per extra cell, intercept = fixed cost"
    )
    print(f"{'route':>26} {'20 cells s':>11} {'120 cells s':>12} {'s/cell':>9} {'fixed s':>8}")
    routes = [("in-process (n_jobs=1)", {"n_jobs": 1}), ("2 loky workers", {"n_jobs": 2})]
    if not args.no_dask:
        routes.append(("Dask local:2", {"scheduler": "local:2"}))
    for name, kw in routes:
        small, _ = best(args.repeat, spec(200, 5, 1, list(range(10)), "perceptron"), None, **kw)
        large, _ = best(args.repeat, spec(200, 5, 1, list(range(60)), "perceptron"), None, **kw)
        slope = (large - small) / 100
        print(
            f"{name:>26} {small:>11.2f} {large:>12.2f} {slope * 1e3:>7.1f}ms "
            f"{small - 20 * slope:>8.2f}"
        )
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
