"""Benchmark of the exact solve against other routes to the same optimum.

Run: ``python bench/exact.py [--sizes 1000x10,10000x50,100000x20] [--svc-limit 60]
[--sparse 5000x20000,20000x100000] [--ccat]``

**Dense** (``--sizes``; overlapping Gaussians, C = 1, free intercept): the wall time
and the relative duality gap -- every point certified by maxmargin's own numpy
``certify`` -- of:

- maxmargin ``solve`` (dual and primal form with the default solver -- the Woodbury IPM
  for the dual, PIQP for the primal -- and the dual with ``solver="PIQP"``, the
  default before the IPM; polish on),
- scikit-learn ``SVC(kernel="linear", tol=1e-8)`` (libsvm SMO), skipped at sizes where
  a previous size predicts more than ``--svc-limit`` seconds,
- a naive cvxpy dual with the dense n x n matrix Q = (YX)(YX)^T (smallest size only),
- ``LinearSVC(loss="hinge", tol=1e-10)`` certified on the ``augmented`` problem it
  really solves (liblinear regularises the bias),
- PIQP and Clarabel called directly (no cvxpy, no polish) on the dual QP,

and each time as a ratio to maxmargin's dual solve.

**Sparse** (``--sparse``; Zipf-sparse text-like data, :func:`make_zipf_sparse`: 50
stored entries per row, rows l2-normalised, C = 1): maxmargin's default route (dual
coordinate descent + polish + certificate, :mod:`maxmargin.solvers.dcd`) for the free and the
augmented intercept against ``LinearSVC(loss="hinge", tol=1e-8)`` (liblinear's DCD, on
the augmented problem with ``intercept_scaling=1``: it has no free intercept; a large
``intercept_scaling`` approaches the free one but slows liblinear down 20-100x, see
docs/benchmarks.md). Each route runs in its own process (best wall and CPU time of
``--repeat`` runs, after a warm-up that loads the compiled kernels) and reports its peak
memory above the data already loaded (``VmHWM`` after resetting it through
``/proc/self/clear_refs``; Linux only) as a multiple of the size of X.

``--ccat`` adds the size of the Pegasos paper's CCAT (800000 x 47000, 60 entries per
row; ~2.5 GB of memory, a few minutes on 2 cores; not run by default), maxmargin only
plus one LinearSVC run. ``--sparse ""`` or ``--sizes ""`` skips a section.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import scipy.sparse as sp

from maxmargin import Dataset, SVMProblem, make_gaussians
from maxmargin.certificate import certify
from maxmargin.exact import solve


def timed(fn, *args, **kw):
    t = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t


def direct_piqp(X, y, C):
    import piqp

    n, d = X.shape
    YX = X * y[:, None]
    P = sp.block_diag([sp.csc_matrix((n, n)), sp.identity(d)], format="csc")
    c = np.concatenate([-np.ones(n), np.zeros(d)])
    A = sp.vstack(
        [
            sp.hstack([-sp.csc_matrix(YX.T), sp.identity(d)]),
            sp.hstack([sp.csc_matrix(y[None, :]), sp.csc_matrix((1, d))]),
        ],
        format="csc",
    )
    s = piqp.SparseSolver()
    s.settings.eps_abs, s.settings.eps_rel = 1e-9, 1e-10
    s.setup(
        P,
        c,
        A,
        np.zeros(d + 1),
        None,
        None,
        None,
        np.concatenate([np.zeros(n), np.full(d, -np.inf)]),
        np.concatenate([np.full(n, C), np.full(d, np.inf)]),
    )
    s.solve()
    alpha = np.array(s.result.x[:n])
    return YX.T @ alpha, float(s.result.y[-1]), alpha


def direct_clarabel(X, y, C):
    import clarabel

    n, d = X.shape
    YX = X * y[:, None]
    P = sp.block_diag([sp.csc_matrix((n, n)), sp.identity(d)], format="csc")
    q = np.concatenate([-np.ones(n), np.zeros(d)])
    I = sp.identity(n, format="csc")
    Z = sp.csc_matrix((n, d))
    A = sp.vstack(
        [
            sp.hstack([-sp.csc_matrix(YX.T), sp.identity(d)]),
            sp.hstack([sp.csc_matrix(y[None, :]), sp.csc_matrix((1, d))]),
            sp.hstack([-I, Z]),
            sp.hstack([I, Z]),
        ],
        format="csc",
    )
    b = np.concatenate([np.zeros(d + 1), np.zeros(n), np.full(n, C)])
    st = clarabel.DefaultSettings()
    st.verbose = False
    sol = clarabel.DefaultSolver(
        sp.triu(P, format="csc"),
        q,
        A,
        b,
        [clarabel.ZeroConeT(d + 1), clarabel.NonnegativeConeT(2 * n)],
        st,
    ).solve()
    alpha = np.array(sol.x[:n])
    return YX.T @ alpha, float(sol.z[d]), alpha


def naive_cvxpy_dense(X, y, C):
    import cvxpy as cp

    YX = X * y[:, None]
    Q = YX @ YX.T + 1e-12 * np.eye(len(y))  # PSD up to rounding
    a = cp.Variable(len(y))
    prob = cp.Problem(
        cp.Maximize(cp.sum(a) - 0.5 * cp.quad_form(a, cp.psd_wrap(Q))), [a >= 0, a <= C, y @ a == 0]
    )
    prob.solve(solver="CLARABEL")
    alpha = np.asarray(a.value)
    eq = prob.constraints[2].dual_value
    return YX.T @ alpha, float(eq), alpha


def svc(X, y, C, tol):
    from sklearn.svm import SVC

    clf = SVC(kernel="linear", C=C, tol=tol).fit(X, y)
    alpha = np.zeros(len(y))
    alpha[clf.support_] = np.abs(clf.dual_coef_.ravel())
    return clf.coef_.ravel(), float(clf.intercept_[0]), alpha


def linearsvc_aug(X, y, C):
    from sklearn.svm import LinearSVC

    clf = LinearSVC(
        loss="hinge", C=C, tol=1e-10, max_iter=100_000, dual=True, intercept_scaling=1.0
    ).fit(X, y)
    # liblinear's dual variables are not exposed; certify with alpha recovered from the
    # margins (alpha = C inside the margin, 0 outside, and the margin SVs by least
    # squares) -- the gap then measures how far (w, b) is from the optimum.
    return clf.coef_.ravel(), float(clf.intercept_[0])


def alpha_for(problem, w, b):
    """A dual point for (w, b): the best alpha consistent with its active set (lstsq)."""
    Z = problem.Z if not sp.issparse(problem.Z) else problem.Z.toarray()
    y = problem.data.y
    r = y * problem.decision_function(w, b)
    alpha = np.where(r < 1 - 1e-6, problem.C, 0.0)
    M = np.flatnonzero(np.abs(r - 1) <= 1e-6)
    wt = problem.to_augmented(w, b)
    if M.size:
        G = Z[M] * y[M, None]
        rest = wt - Z.T @ (alpha * y)
        alpha[M] = np.clip(np.linalg.lstsq(G.T, rest, rcond=None)[0], 0, problem.C)
    return alpha


# --------------------------------------------------------------------------- sparse


def make_zipf_sparse(n, d, nnz_per_row=50, *, seed=0, zipf_a=1.0, flip=0.05, block=50_000):
    """Text-like data: feature j in a row with probability ~ 1/(j+1)^zipf_a.

    Each row holds ``nnz_per_row`` distinct features (drawn with replacement from the
    Zipf law until that many are distinct; the head features are in almost every row,
    like stop words), exponential(1) + 0.1 values, l2-normalised. Labels: the sign of
    ``x.w0`` (w0 standard normal) about its median, then a fraction ``flip`` flipped.
    Built in blocks of rows so that the temporaries stay small next to X.
    """
    rng = np.random.default_rng(seed)
    cdf = np.cumsum(1.0 / np.arange(1, d + 1) ** zipf_a)
    cdf /= cdf[-1]
    k = int(1.6 * nnz_per_row) + 8
    indices, counts = [], []
    for lo in range(0, n, block):
        m = min(block, n - lo)
        cols = np.minimum(np.searchsorted(cdf, rng.random((m, k))), d - 1).astype(np.int32)
        cols.sort(axis=1)
        keep = np.ones(cols.shape, bool)
        keep[:, 1:] = cols[:, 1:] != cols[:, :-1]
        keep &= np.cumsum(keep, axis=1) <= nnz_per_row
        indices.append(cols[keep])
        counts.append(keep.sum(axis=1))
    indices = np.concatenate(indices)
    indptr = np.concatenate([[0], np.cumsum(np.concatenate(counts))]).astype(np.int64)
    vals = rng.exponential(1.0, indices.size) + 0.1
    sq = np.add.reduceat(vals * vals, indptr[:-1])
    vals /= np.repeat(np.sqrt(sq), np.diff(indptr))
    X = sp.csr_matrix((vals, indices, indptr), shape=(n, d))
    f = X @ rng.standard_normal(d)
    y = np.where(f > np.median(f), 1.0, -1.0)
    flipped = rng.random(n) < flip
    y[flipped] = -y[flipped]
    return X, y


def sparse_alpha_for(problem, w, b):
    """A dual point for a primal (w, b) on sparse data.

    C inside the margin, 0 outside, the margin SVs by sparse least squares (LSQR) on
    ``w~ - w_B`` (never densified).
    """
    from scipy.sparse.linalg import lsqr

    y, C = problem.data.y, problem.C
    Z = problem.Z
    r = y * problem.decision_function(w, b)
    alpha = np.where(r < 1 - 1e-6, C, 0.0)
    M = np.flatnonzero(np.abs(r - 1) <= 1e-6)
    if M.size:
        rest = problem.to_augmented(w, b) - np.asarray((alpha * y) @ Z).ravel()
        GT = sp.csr_matrix(Z[M].T.multiply(y[M][None, :]))
        alpha[M] = np.clip(lsqr(GT, rest, atol=1e-14, btol=1e-14, iter_lim=5000)[0], 0, C)
    return alpha


def _hwm_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def worker(route, path, repeat):
    """One route in this process: warm up, reset the peak RSS, time ``repeat`` runs."""
    warnings.simplefilter("ignore")
    npz = np.load(path)
    X = sp.csr_matrix((npz["data"], npz["indices"], npz["indptr"]), shape=tuple(npz["shape"]))
    y = npz["y"]
    ds = Dataset(X, y)
    intercept = "augmented" if route in ("dcd-augmented", "liblinear") else "free"
    prob = SVMProblem(ds, C=1.0, intercept=intercept)
    if route == "liblinear":
        from sklearn.svm import LinearSVC

        def run():
            clf = LinearSVC(
                loss="hinge", C=1.0, tol=1e-8, max_iter=1_000_000, intercept_scaling=1.0
            ).fit(X, y)
            return clf.coef_.ravel(), float(clf.intercept_[0]), None, "liblinear", clf.n_iter_

        LinearSVC(loss="hinge").fit(X[:100], y[:100])
    else:

        def run():
            # a fresh problem each time: nothing cached from the previous run
            sol = solve(SVMProblem(ds, C=1.0, intercept=intercept))
            return sol.w, sol.b, sol.certificate, sol.solver, sol.status

        small = Dataset(X[:200], y[:200], require_both_classes=False)
        if len(np.unique(small.y)) == 2:
            solve(SVMProblem(small, C=1.0, intercept=intercept))
    peak = 0.0
    walls, cpus = [], []
    out = None
    for _ in range(repeat):
        out = None  # the previous run's result is not part of this run's peak
        base = _rss_mb()
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            pass
        c, t = time.process_time(), time.perf_counter()
        out = run()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
        peak = max(peak, _hwm_mb() - base)
    w, b, cert, solver, status = out
    if cert is None:
        cert = certify(prob, w, b, sparse_alpha_for(prob, w, b))
    print(
        json.dumps(
            {
                "wall": min(walls),
                "cpu": min(cpus),
                "peak_mb": peak,
                "gap": cert.relative_gap,
                "kkt": max(cert.kkt.values()),
                "certified": bool(cert.ok),
                "solver": solver,
                "status": str(status),
            }
        )
    )


def _x_mb(X):
    return (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20


def sparse_rows(size, nnz, repeat, routes, tmp):
    n, d = size
    X, y = make_zipf_sparse(n, d, nnz)
    path = os.path.join(tmp, f"zipf_{n}x{d}.npz")
    np.savez(path, data=X.data, indices=X.indices, indptr=X.indptr, shape=X.shape, y=y)
    out = []
    for route in routes:
        proc = subprocess.run(
            [sys.executable, __file__, "--worker", route, path, str(repeat)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            print(proc.stderr[-2000:], file=sys.stderr)
            out.append((route, None))
            continue
        out.append((route, json.loads(proc.stdout.strip().splitlines()[-1])))
    os.remove(path)
    return (n, d, X.nnz, _x_mb(X)), out


SPARSE_NAMES = {
    "dcd-free": "maxmargin solve, free intercept",
    "dcd-augmented": "maxmargin solve, augmented (s = 1)",
    "liblinear": "LinearSVC hinge tol=1e-8 (augmented, s = 1)",
}


def print_sparse(table):
    (n, d, nnz, xmb), res = table
    ref = dict(res).get("liblinear")
    print(f"\n Zipf-sparse n = {n}, d = {d}, {nnz} stored entries (X: {xmb:.1f} MB), C = 1")
    print(
        f" {'route':<45s}{'wall [s]':>9s}{'cpu [s]':>9s}{'ratio':>7s}{'peak MB':>9s}"
        f"{'x X':>6s}{'rel. gap':>10s}{'max KKT':>9s}  status"
    )
    for route, r in res:
        if r is None:
            print(f" {SPARSE_NAMES[route]:<45s} failed")
            continue
        ratio = r["wall"] / ref["wall"] if ref else float("nan")
        print(
            f" {SPARSE_NAMES[route]:<45s}{r['wall']:>9.3f}{r['cpu']:>9.3f}{ratio:>7.2f}"
            f"{r['peak_mb']:>9.1f}{r['peak_mb'] / xmb:>6.2f}{r['gap']:>10.1e}"
            f"{r['kkt']:>9.1e}  {r['solver']} {r['status']}"
        )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000x10,10000x50,100000x20")
    ap.add_argument("--svc-limit", type=float, default=150.0)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument(
        "--sparse",
        default="5000x20000,20000x100000",
        help="Zipf-sparse sizes n x d (50 entries per row)",
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs per sparse route (best of)")
    ap.add_argument(
        "--ccat", action="store_true", help="add 800000 x 47000 with 60 entries per row (minutes)"
    )
    args = ap.parse_args()
    if args.sparse or args.ccat:
        sizes = [tuple(int(t) for t in s_.split("x")) for s_ in args.sparse.split(",") if s_]
        with tempfile.TemporaryDirectory() as tmp:
            for size in sizes:
                print_sparse(
                    sparse_rows(
                        size, 50, args.repeat, ("dcd-free", "dcd-augmented", "liblinear"), tmp
                    )
                )
            if args.ccat:
                print_sparse(sparse_rows((800_000, 47_000), 60, 1, ("dcd-free", "liblinear"), tmp))
    if args.sizes:
        dense(args)


def dense(args) -> None:
    sizes = [tuple(int(t) for t in s.split("x")) for s in args.sizes.split(",")]
    C = args.C
    warnings.simplefilter("ignore")
    # Warm up imports and JIT-free solver start-up so the first row is not penalised.
    solve(SVMProblem(make_gaussians(50, 3), C=1.0))
    direct_piqp(make_gaussians(50, 3).X, make_gaussians(50, 3).y, 1.0)
    rows = []
    svc_last = None  # (n, seconds) of the last SVC run: SMO time grows ~ n^2
    for n, d in sizes:
        ds = make_gaussians(n, d, seed=0, separation=1.5)
        X, y = ds.X, ds.y
        prob = SVMProblem(ds, C=C)
        aug = SVMProblem(ds, C=C, intercept="augmented")
        res = []
        for form, solver in (("dual", None), ("primal", None), ("dual", "PIQP")):
            sol, t = timed(solve, prob, form=form, solver=solver)
            how = "default " if solver is None else "solver="
            res.append(
                (
                    f"maxmargin {form} ({how}{sol.solver}{', polished' if sol.polished else ''})",
                    t,
                    sol.certificate.relative_gap,
                    max(sol.certificate.kkt.values()),
                )
            )
        for name, fn in (
            ("PIQP dual, direct (no polish)", direct_piqp),
            ("Clarabel dual, direct (no polish)", direct_clarabel),
        ):
            (w, b, a), t = timed(fn, X, y, C)
            c = certify(prob, w, b, np.clip(a, 0, C))
            res.append((name, t, c.relative_gap, max(c.kkt.values())))
        if n <= 2000:
            (w, b, a), t = timed(naive_cvxpy_dense, X, y, C)
            c = certify(prob, w, b, np.clip(a, 0, C))
            res.append(("cvxpy dense-Q dual (naive)", t, c.relative_gap, max(c.kkt.values())))
        predicted = None if svc_last is None else svc_last[1] * (n / svc_last[0]) ** 2
        if predicted is None or predicted <= args.svc_limit:
            (w, b, a), t = timed(svc, X, y, C, 1e-8)
            svc_last = (n, t)
            c = certify(prob, w, b, a)
            res.append(("sklearn SVC linear tol=1e-8", t, c.relative_gap, max(c.kkt.values())))
        else:
            res.append(
                (
                    f"sklearn SVC linear (skipped: ~{predicted:.0f} s predicted)",
                    float("nan"),
                    float("nan"),
                    float("nan"),
                )
            )
        (w, b), t = timed(linearsvc_aug, X, y, C)
        c = certify(aug, w, b, alpha_for(aug, w, b))
        res.append(
            ("LinearSVC hinge tol=1e-10 (augmented)", t, c.relative_gap, max(c.kkt.values()))
        )
        rows.append(((n, d), res))

    for (n, d), res in rows:
        base = res[0][1]
        print(f"\n n = {n}, d = {d}, C = {C}  (relative gap and worst KKT from maxmargin.certify)")
        print(f" {'route':<46s}{'time [s]':>10s}{'ratio':>8s}{'rel. gap':>11s}{'max KKT':>10s}")
        for name, t, g, k in res:
            ratio = t / base if np.isfinite(t) else float("nan")
            print(f" {name:<46s}{t:>10.3f}{ratio:>8.2f}{g:>11.1e}{k:>10.1e}")


if __name__ == "__main__":
    main()
