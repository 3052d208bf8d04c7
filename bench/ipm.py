"""maxmargin's dense interior-point route at scale, alone and beside busy processes.

Run: ``python bench/ipm.py [--sizes 1000000x20,2000x200] [--busy 0,1] [--repeat 3]``

For each size (overlapping Gaussians, C = 1, free intercept) and each number of busy
processes (``--busy``: pure-Python loops started beside the measurement, as other
users' jobs would be) it prints the best wall time of ``--repeat`` runs, each certified
by maxmargin's own numpy certificate, of:

- ``solve`` with its default route (the Woodbury IPM where it applies, polish,
  certificate), BLAS limited to one thread inside the IPM (the default);
- the same with BLAS on its default threads inside the IPM (as before threadpoolctl);
- ``solve(solver="PIQP")`` (polish and certificate included), the compiled peer;

and each time as a ratio to the first row of its block. The wall time of ``solve`` is
everything: building ``YZ``, the IPM, the polish, the certificate.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
import warnings

from maxmargin import SVMProblem, make_gaussians
from maxmargin.exact import solve
from maxmargin.solvers import ipm
from maxmargin.solvers._ipm_kernels import warm_up


def best_of(repeat: int, fn):
    out, best = None, float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best


@contextlib.contextmanager
def busy(k: int):
    """``k`` processes spinning in pure Python (one core each) while the block runs."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(k)]
    try:
        time.sleep(0.5 if k else 0.0)
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def routes(prob: SVMProblem):
    free = ipm.blas_threads

    def default_threads():
        ipm.blas_threads = lambda limit: contextlib.nullcontext()
        try:
            return solve(prob)
        finally:
            ipm.blas_threads = free

    return [
        ("solve, default route (BLAS 1 thread in the IPM)", lambda: solve(prob)),
        ("solve, default route, BLAS default threads", default_threads),
        ("solve(solver='PIQP')", lambda: solve(prob, solver="PIQP")),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000000x20,2000x200")
    ap.add_argument("--busy", default="0,1", help="numbers of busy processes, e.g. 0,1")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--skip-piqp-above",
        type=int,
        default=200_000,
        help="skip PIQP above this n (minutes at 10^6)",
    )
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    warm_up()  # the compiled kernels load once per process (~0.3 s): not in the timings
    solve(SVMProblem(make_gaussians(3000, 8, seed=0), C=1.0))
    print(
        f"{os.cpu_count()} CPUs; best of {args.repeat}; 1-minute load average before: "
        f"{os.getloadavg()[0]:.1f}"
    )
    for size in args.sizes.split(","):
        n, d = (int(t) for t in size.split("x"))
        prob = SVMProblem(make_gaussians(n, d, seed=0, separation=1.5), C=1.0)
        for k in (int(t) for t in args.busy.split(",")):
            rows = []
            with busy(k):
                for name, fn in routes(prob):
                    if "PIQP" in name and n > args.skip_piqp_above:
                        continue
                    sol, t = best_of(args.repeat, fn)
                    c = sol.certificate
                    rows.append(
                        (f"{name} [{sol.solver}]", t, c.relative_gap, c.max_residual(), c.ok)
                    )
            print(f"\n n = {n}, d = {d}, C = 1, {k} busy process(es)")
            print(f" {'route':<62s}{'time [s]':>9s}{'ratio':>7s}{'rel. gap':>10s}{'max res.':>10s}")
            for name, t, g, r, ok in rows:
                print(
                    f" {name:<62s}{t:>9.2f}{t / rows[0][1]:>7.2f}{g:>10.1e}{r:>10.1e}"
                    f"{'' if ok else '  NOT CERTIFIED'}"
                )


if __name__ == "__main__":
    main()
