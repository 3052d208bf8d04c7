"""Benchmark: the certified kernel SVM against scikit-learn's SVC, side by side.

Run: ``python bench/kernel.py [--sizes 2000,5000,10000] [--large 50000] [--repeat 2]``

Data: ``make_classification(n, 20 features, random_state=0)``, RBF kernel, C = 1,
``gamma="scale"``, free intercept. For each n, in one process (the machine may be
shared: the ratios are what compare):

- maxmargin's kernel engine, ``solve_kernel_dual(route="smo", tol=1e-10)``: SMO
  (second-order working sets, shrinking, a kernel-row cache), the active-set polish and
  the numpy certificate, relative gap and every KKT residual <= 1e-10 with their
  rounding floors;
- ``SVC(kernel="rbf", C=1, gamma="scale", tol=1e-8)`` (LIBSVM, its default 200 MB
  cache), whose point is then certified the same way (it is not certified at 1e-10: its
  worst residual is printed);

each ``--repeat`` times, alternating, best wall time (and its CPU time) of each, and the
ratio maxmargin / SVC. Peak memory of maxmargin's solve: numpy's allocations traced
(``tracemalloc``) in a separate first run, and the process's peak resident memory above
what it held before (``VmHWM`` after a reset through ``/proc/self/clear_refs``; Linux).
The first call compiles the SMO kernels (numba, cached on disk); a warm-up on 200 points
keeps that out of the timings. ``--large`` sizes run the same way, once each
(``--repeat 1``).

``--pegasos N`` (default 2000; 0 skips): kernelized Pegasos (``KernelPegasos``, RBF,
lam = 1e-4, 5 shuffled epochs) on ``make_classification(N)``, its compiled loop against
a straightforward numpy implementation of the paper's pseudo-code (each step's score
``(alpha * y) @ K[i] / (lam t)``, one O(n) product per step), both on the same Gram:
wall time per step and the ratio numpy / compiled (above 1: the compiled loop is
faster), and a check that the counts agree exactly.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc

import numpy as np
from sklearn.datasets import make_classification
from sklearn.svm import SVC

from maxmargin import Dataset
from maxmargin.kernel_certificate import certify_kernel
from maxmargin.kernel_problem import KernelProblem
from maxmargin.online import KernelPegasos, schedule
from maxmargin.online.kernel_learners import learner_gram, loops
from maxmargin.solvers.kernel import solve_kernel_dual

TOL = 1e-10


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def _status_kb(key):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def peak_memory(fn):
    """``(traced numpy peak, resident peak above the start)`` in MiB of one call."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current resident size
    except OSError:
        pass
    rss0 = _status_kb("VmRSS:")
    tracemalloc.start()
    fn()
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    hwm = _status_kb("VmHWM:")
    resident = (hwm - rss0) / 1024 if hwm is not None and rss0 is not None else float("nan")
    return traced / 2**20, resident


def run(n, repeat):
    X, y01 = make_classification(n_samples=n, n_features=20, random_state=0)
    y = 2.0 * y01 - 1.0
    problem = KernelProblem(Dataset(X, y, name=f"make_classification({n})"), "rbf", C=1.0)

    def ours():
        return solve_kernel_dual(problem, route="smo", tol=TOL)

    def svc():
        return SVC(kernel="rbf", C=1.0, gamma="scale", tol=1e-8).fit(X, y)

    traced, resident = peak_memory(ours)
    best = {"ours": (np.inf, 0.0, None), "svc": (np.inf, 0.0, None)}
    for _ in range(repeat):
        for name, fn in (("svc", svc), ("ours", ours)):
            out, wall, cpu = timed(fn)
            if wall < best[name][0]:
                best[name] = (wall, cpu, out)
    sol = best["ours"][2]
    clf = best["svc"][2]
    a = np.zeros(n)
    a[clf.support_] = np.abs(clf.dual_coef_[0])
    svc_cert = certify_kernel(problem, a, clf.intercept_[0], tol=TOL)
    c = sol.certificate
    worst = max(abs(c.relative_gap), *c.kkt.values())
    print(
        f"{n:>6}  {best['svc'][0]:8.2f} {best['svc'][1]:7.2f}  {best['ours'][0]:8.2f} "
        f"{best['ours'][1]:7.2f}  {best['ours'][0] / best['svc'][0]:6.2f} "
        f"{best['ours'][1] / max(best['svc'][1], 1e-9):6.2f}  {len(clf.support_):>6} "
        f"{len(sol.support):>6} {len(sol.free_support):>5}  "
        f"{'CERTIFIED' if c.ok else 'NOT CERTIFIED':>13} {worst:8.1e}  "
        f"{svc_cert.max_residual():8.1e}  {traced:7.0f} {resident:7.0f}",
        flush=True,
    )


def numpy_pegasos(K, y, idx, lam):
    """The paper's pseudo-code in numpy: the counts ``alpha`` after the steps ``idx``."""
    alpha = np.zeros(len(y))
    for t, i in enumerate(idx, 1):
        if y[i] * ((alpha * y) @ K[i]) / (lam * t) < 1.0:
            alpha[i] += 1.0
    return alpha


def pegasos(n, lam=1e-4, epochs=5):
    X, y01 = make_classification(n_samples=n, n_features=20, random_state=0)
    data = Dataset(X, 2.0 * y01 - 1.0, name=f"make_classification({n})")
    learner = KernelPegasos(lam=lam, kernel="rbf", intercept="none")
    K = learner_gram(learner.kernel_spec(), data)
    idx = schedule(n, epochs, "shuffle", 0)
    T = idx.size

    def compiled():
        alpha, F, st = np.zeros(n), np.zeros(n), np.zeros(8)
        loops.pegasos_steps(data.y, idx, 0, T, 0, K, alpha, F, st, lam, 0.0)
        return alpha

    compiled()  # compile (or load from numba's cache) outside the timing
    ours, w_ours, _ = timed(compiled)
    ref, w_np, _ = timed(lambda: numpy_pegasos(K, data.y, idx, lam))
    same = "counts equal" if np.array_equal(ours, ref) else "COUNTS DIFFER"
    print(
        f"kernelized Pegasos, n = {n}, T = {T} steps: compiled {1e6 * w_ours / T:.3f} us/step, "
        f"numpy {1e6 * w_np / T:.3f} us/step, ratio numpy/compiled {w_np / w_ours:.1f} ({same})",
        flush=True,
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2000,5000,10000")
    ap.add_argument("--large", default="", help="sizes run once each, e.g. 50000")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--pegasos", type=int, default=2000, help="n of the Pegasos timing (0: skip)")
    args = ap.parse_args(argv)
    if args.pegasos:
        pegasos(args.pegasos)
    Xw, yw = make_classification(n_samples=200, n_features=20, random_state=1)
    solve_kernel_dual(KernelProblem(Dataset(Xw, 2.0 * yw - 1), "rbf"), route="smo")
    print(
        f"RBF, C = 1, gamma='scale', 20 features; maxmargin certified at {TOL:.0e} vs "
        f"SVC(tol=1e-8); pid {os.getpid()}, {os.cpu_count()} CPUs, load "
        f"{os.getloadavg()[0]:.1f}"
    )
    print(
        "     n  SVC wall     cpu    ours wall     cpu   ratio  (cpu)  SVC SV  our SV  "
        "free         status    worst  SVC worst  tracedMB residentMB"
    )
    for s in [int(v) for v in args.sizes.split(",") if v]:
        run(s, args.repeat)
    for s in [int(v) for v in args.large.split(",") if v]:
        run(s, 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
