"""A learner of your own (the public protocol) against the built-in compiled kernels.

The same rules three ways: the built-in learner (numba kernel), the learner written in
plain Python against the protocol (docs/own-learner.md), and that learner with its step
opted into numba (``compiled_step``). Prints ns per step (one shuffled epoch after a
warm-up run, best of 3) and the ratios to the built-in. Every run is checked to give the
built-in's final weights.

    python bench/own_learner.py            # n = 20,000 x d = 20 and 10,000 x 200
    python bench/own_learner.py --scale 0.1
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from maxmargin import Dataset
from maxmargin.online import Pegasos, Perceptron, run


class PyPerceptron:
    mistake_driven = True

    def start(self, d):
        self.w = np.zeros(d)

    def step(self, x, y, t):
        if y * (self.w @ x) <= 0:
            self.w += y * x

    def weights(self):
        return self.w


class PyPegasos:
    objective = "lambda"
    problem_parameter = "lam"

    def __init__(self, lam=1e-4):
        self.lam = lam

    def start(self, d):
        self.theta, self.w = np.zeros(d), np.zeros(d)

    def step(self, x, y, t):
        if y * (self.w @ x) < 1:
            self.theta += y * x
        self.w = self.theta / (self.lam * (t + 1))

    def weights(self):
        return self.w


@njit
def _perceptron_step(x, y, t, w):
    m = 0.0
    for j in range(x.shape[0]):
        m += w[j] * x[j]
    if y * m <= 0.0:
        for j in range(x.shape[0]):
            w[j] += y * x[j]


class NumbaPerceptron(PyPerceptron):
    compiled_step = staticmethod(_perceptron_step)

    def state(self):
        return (self.w,)


def best(f, repeat=3):
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        tr = f()
        out.append(time.perf_counter() - t)
    return min(out), tr


def bench(n: int, d: int) -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    data = Dataset(X, y, name=f"gauss{n}x{d}")
    cases = [
        (
            "perceptron",
            Perceptron(),
            [("python", PyPerceptron()), ("python + compiled_step", NumbaPerceptron())],
        ),
        ("pegasos(lam=1e-4)", Pegasos(lam=1e-4), [("python", PyPegasos(1e-4))]),
    ]
    print(f"n = {n:,} x d = {d}, one shuffled epoch, ns/step (best of 3)")
    print("| learner | built-in | python | python + compiled_step |")
    print("|---|---|---|---|")

    def go(lr):
        return run(lr, data, epochs=1, order="shuffle", seed=0, checkpoints=[n])

    for name, builtin, mine in cases:
        go(builtin)  # compile
        t0, ref = best(lambda builtin=builtin: go(builtin))
        cells = [f"{t0 / n * 1e9:,.0f}"]
        for label, lr in mine:
            go(lr)
            t1, tr = best(lambda lr=lr: go(lr))
            err = float(np.abs(tr.w - ref.w).max() / max(1.0, np.abs(ref.w).max()))
            assert err <= 1e-9, (name, label, err)
            cells.append(f"{t1 / n * 1e9:,.0f} ({t1 / t0:.0f}x)")
        cells += [""] * (3 - len(cells))
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0)
    a = ap.parse_args()
    bench(int(20_000 * a.scale), 20)
    bench(int(10_000 * a.scale), 200)


if __name__ == "__main__":
    main()
