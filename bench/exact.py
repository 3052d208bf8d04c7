"""Benchmark of the exact solve against other routes to the same optimum.

Run: ``python bench/exact.py [--sizes 1000x10,10000x50,100000x20] [--svc-limit 60]``

For each size (overlapping Gaussians, C = 1, free intercept) it prints the wall time
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
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp

from maxmargin import SVMProblem, make_gaussians
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
    A = sp.vstack([sp.hstack([-sp.csc_matrix(YX.T), sp.identity(d)]),
                   sp.hstack([sp.csc_matrix(y[None, :]), sp.csc_matrix((1, d))])],
                  format="csc")
    s = piqp.SparseSolver()
    s.settings.eps_abs, s.settings.eps_rel = 1e-9, 1e-10
    s.setup(P, c, A, np.zeros(d + 1), None, None, None,
            np.concatenate([np.zeros(n), np.full(d, -np.inf)]),
            np.concatenate([np.full(n, C), np.full(d, np.inf)]))
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
    A = sp.vstack([sp.hstack([-sp.csc_matrix(YX.T), sp.identity(d)]),
                   sp.hstack([sp.csc_matrix(y[None, :]), sp.csc_matrix((1, d))]),
                   sp.hstack([-I, Z]), sp.hstack([I, Z])], format="csc")
    b = np.concatenate([np.zeros(d + 1), np.zeros(n), np.full(n, C)])
    st = clarabel.DefaultSettings()
    st.verbose = False
    sol = clarabel.DefaultSolver(sp.triu(P, format="csc"), q, A, b,
                                 [clarabel.ZeroConeT(d + 1), clarabel.NonnegativeConeT(2 * n)],
                                 st).solve()
    alpha = np.array(sol.x[:n])
    return YX.T @ alpha, float(sol.z[d]), alpha


def naive_cvxpy_dense(X, y, C):
    import cvxpy as cp

    YX = X * y[:, None]
    Q = YX @ YX.T + 1e-12 * np.eye(len(y))  # PSD up to rounding
    a = cp.Variable(len(y))
    prob = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.quad_form(a, cp.psd_wrap(Q))),
                      [a >= 0, a <= C, y @ a == 0])
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

    clf = LinearSVC(loss="hinge", C=C, tol=1e-10, max_iter=100_000, dual=True,
                    intercept_scaling=1.0).fit(X, y)
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000x10,10000x50,100000x20")
    ap.add_argument("--svc-limit", type=float, default=150.0)
    ap.add_argument("--C", type=float, default=1.0)
    args = ap.parse_args()
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
            res.append((f"maxmargin {form} ({how}{sol.solver}"
                        f"{', polished' if sol.polished else ''})",
                        t, sol.certificate.relative_gap, max(sol.certificate.kkt.values())))
        for name, fn in (("PIQP dual, direct (no polish)", direct_piqp),
                         ("Clarabel dual, direct (no polish)", direct_clarabel)):
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
            res.append((f"sklearn SVC linear (skipped: ~{predicted:.0f} s predicted)",
                        float("nan"), float("nan"), float("nan")))
        (w, b), t = timed(linearsvc_aug, X, y, C)
        c = certify(aug, w, b, alpha_for(aug, w, b))
        res.append(("LinearSVC hinge tol=1e-10 (augmented)", t, c.relative_gap,
                    max(c.kkt.values())))
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
