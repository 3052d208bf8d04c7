"""Speed of maxmargin's online learners against sklearn and the memory-bandwidth floor.

Prints ns/step for every learner (one epoch, cyclic and shuffled order, and their
ratio), sklearn's SGDClassifier(hinge) (partial_fit, one epoch) and Perceptron (fit,
max_iter=1), the bandwidth floor (bytes of X per step / stream bandwidth of a numpy sum
over X), the random-read floor (ns per row to copy X's rows in a shuffled order into a
1 MB buffer, a compiled loop: what any shuffled pass pays before it computes anything;
docs/benchmarks.md, "Shuffled order") and the overhead of checkpoint recording (default
checkpoints vs only the last step).

    python bench/online.py            # n = 1e6 x d = 100 and 1e5 x 1000
    python bench/online.py --scale 0.1
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from numba import njit

from maxmargin import Dataset
from maxmargin.online import resolve, run

LEARNERS = [
    ("perceptron", {}),
    ("averaged_perceptron", {}),
    ("voted_perceptron", {}),
    ("pocket", {"check_every": 1000}),
    ("pegasos", {"lam": 1e-4}),
    ("pegasos", {"lam": 1e-4, "projection": "greedy"}),
    ("subgradient", {"lam": 1e-4}),
    ("pa", {}),
    ("pa1", {}),
    ("pa2", {}),
]


def best(f, repeat=3):
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return min(out)


@njit(cache=False)
def copy_rows(X, idx, buf):
    """``buf[p % len(buf)] = X[idx[p]]`` for every p: X's rows read in the order idx."""
    rows, d = buf.shape
    for p in range(idx.size):
        i, r = idx[p], p % rows
        for j in range(d):
            buf[r, j] = X[i, j]


def bench(n: int, d: int) -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    ds = Dataset(X, y, name=f"bench({n}x{d})")
    bw = X.nbytes / best(lambda: X.sum())
    floor = 8 * d / bw * 1e9
    perm = rng.permutation(n)
    rows = max(1, 2**20 // (8 * d))
    buf = np.empty((rows, d))
    copy_rows(X, perm[:10], buf)  # compile outside timing
    rfloor = best(lambda: copy_rows(X, perm, buf)) / n * 1e9
    print(
        f"\n## n = {n:,} x d = {d}: stream bandwidth {bw / 1e9:.1f} GB/s, "
        f"floor {floor:.0f} ns/step (8 d bytes / bandwidth); random-read floor "
        f"{rfloor:.0f} ns/row\n"
    )
    print(
        "| learner | cyclic ns/step | x floor | shuffle ns/step | shuffle / cyclic | "
        "recording overhead |"
    )
    print("|---|---|---|---|---|---|")
    for name, kw in LEARNERS:
        lab = name + ("(" + ",".join(f"{k}={v}" for k, v in kw.items()) + ")" if kw else "")
        run(resolve(name, **kw), ds.subset(np.arange(100)))  # compile outside timing
        cyc = min(run(resolve(name, **kw), ds, checkpoints=[n]).ns_per_step for _ in range(2))
        rec = min(run(resolve(name, **kw), ds).ns_per_step for _ in range(2))
        shf = min(
            run(resolve(name, **kw), ds, order="shuffle", checkpoints=[n]).ns_per_step
            for _ in range(2)
        )
        print(
            f"| {lab} | {cyc:.0f} | {cyc / floor:.2f} | {shf:.0f} | {shf / cyc:.2f} | "
            f"{100 * (rec - cyc) / cyc:+.0f}% |"
        )
    from sklearn.linear_model import Perceptron, SGDClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sgd = SGDClassifier(loss="hinge", alpha=1e-4, shuffle=False, random_state=0)
        t_pf = best(lambda: sgd.partial_fit(X, y, classes=[-1.0, 1.0]), 2) / n * 1e9
        sgd2 = SGDClassifier(loss="hinge", alpha=1e-4, max_iter=1, tol=None, random_state=0)
        t_fit = best(lambda: sgd2.fit(X, y), 2) / n * 1e9
        per = Perceptron(max_iter=1, tol=None, random_state=0, shuffle=False)
        t_per = best(lambda: per.fit(X, y), 2) / n * 1e9
    print(
        f"| sklearn SGDClassifier(hinge).partial_fit (1 epoch) | {t_pf:.0f} | "
        f"{t_pf / floor:.2f} | | | |"
    )
    print(f"| sklearn SGDClassifier(hinge).fit(max_iter=1, shuffle) | | | {t_fit:.0f} | | |")
    print(f"| sklearn Perceptron.fit(max_iter=1) | {t_per:.0f} | {t_per / floor:.2f} | | | |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply both n by this")
    a = ap.parse_args()
    bench(int(1_000_000 * a.scale), 100)
    bench(int(100_000 * a.scale), 1000)


if __name__ == "__main__":
    main()
