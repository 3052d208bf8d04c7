"""Benchmark: the cost of evaluating a learner against the optimum vs the cost of learning.

Run: ``python bench/compare.py [--sizes 20000x50,100000x20] [--epochs 5] [--every 1000]``

For each size (overlapping Gaussians, lambda = 1e-4, intercept ``augmented``) it runs
Pegasos for ``--epochs`` passes and prints the wall time of

- learning: the compiled loop alone (the trace's ``learn_seconds``, default geometric
  checkpoints),
- naive evaluation: the full lambda objective ``F(w_t)`` on all ``n`` examples every
  ``--every`` steps, one ``F`` call per checkpoint (what a hand-written training loop
  with a "print the objective every 1000 steps" line costs),
- checkpointed evaluation (what :func:`maxmargin.compare.compare` does): ``F`` at the
  geometric checkpoints (about 10 per decade plus every epoch end), one vectorised
  ``(n, k)`` matrix product for all of them,
- the whole ``compare`` evaluation of one run (every quantity: both iterates, dual gap,
  cosine, margin, errors, regret),

and each as a ratio to the learning time.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from maxmargin import SVMProblem, make_gaussians
from maxmargin.evaluation.scoring import _evaluate
from maxmargin.exact import solve
from maxmargin.online import Pegasos, run


def timed(fn, *args, **kw):
    t = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20000x50,100000x20")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--every", type=int, default=1000)
    ap.add_argument("--lam", type=float, default=1e-4)
    args = ap.parse_args()
    print(
        f"{'n x d':>12} {'T':>9} {'learn s':>9} {'naive s':>9} {'ratio':>7} "
        f"{'ckpt F s':>9} {'ratio':>7} {'all s':>8} {'ratio':>7} {'k':>5}"
    )
    for size in args.sizes.split(","):
        n, d = (int(v) for v in size.lower().split("x"))
        data = make_gaussians(n, d, separation=1.0, seed=0)
        p = SVMProblem(data, lam=args.lam, intercept="augmented")
        learner = Pegasos(lam=args.lam, intercept="augmented")
        T = n * args.epochs
        run(learner, data.subset(np.arange(min(n, 100))), epochs=1)  # compile outside timing
        tr = run(learner, data, epochs=args.epochs, order="shuffle", record_dual=True)
        learn = tr.timings["learn_seconds"]
        # naive: F on the full data every `every` steps, one call per checkpoint
        every = np.arange(args.every, T + 1, args.every)
        tr_naive = run(learner, data, epochs=args.epochs, order="shuffle", checkpoints=every)

        def naive(tr_naive=tr_naive, p=p):
            return [p.lambda_objective(w, b) for w, b in zip(tr_naive.w, tr_naive.b, strict=True)]

        _, naive_s = timed(naive)
        _, ckpt_s = timed(p.lambda_objective, tr.w, tr.b)  # vectorised over checkpoints
        ref = solve(p)
        ws = p.to_augmented(ref.w, ref.b)
        Fs = p.lam * ref.primal_objective
        hs = p.hinge(ref.w, ref.b)
        res, all_s = timed(_evaluate, "pegasos", learner, tr, p, ws, Fs, hs, None, np.nan, p.R)
        print(
            f"{size:>12} {T:>9,} {learn:>9.3f} {naive_s:>9.3f} {naive_s / learn:>6.1f}x "
            f"{ckpt_s:>9.3f} {ckpt_s / learn:>6.2f}x {all_s:>8.3f} {all_s / learn:>6.2f}x "
            f"{len(tr.t):>5}"
        )


if __name__ == "__main__":
    main()
