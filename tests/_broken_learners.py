"""Learners of the public protocol, correct and deliberately broken, for check_learner's tests.

Each correct learner is a built-in's rule in plain numpy (Pegasos in the notes' form and on
the squared hinge, the perceptron, PA-I) declaring the built-in's claims; each broken one
changes one line of it, as a bug would. ``BROKEN`` maps every broken variant to the
effect its verdict must name; ``HARMLESS`` lists variants that must still pass.
"""

from __future__ import annotations

import math

import numpy as np

from maxmargin.online import Learner
from maxmargin.online.claims import (
    NOVIKOFF,
    PERCEPTRON_GENERAL,
    PERMUTATION,
    SCALING,
    Average,
    MistakeBound,
    Rate,
    RegretBound,
)

# --------------------------------------------------------------------------- Pegasos


class PyPegasos(Learner):
    """Pegasos (the notes' step 1/(lam (t + 1))), its average of w_1..w_t."""

    objective = "lambda"
    problem_parameter = "lam"
    theory_rate = -1.0
    has_average = True
    claims = (
        Rate(iterate="average", bound="regret/t"),
        RegretBound(),
        Average(iterates="before"),
        PERMUTATION,
    )

    def __init__(self, lam=0.1):
        self.lam = lam

    def start(self, d):
        self.w = np.zeros(d)
        self.total = np.zeros(d)
        self.k = 0

    def eta(self, t):
        return 1.0 / (self.lam * (t + 1))

    def shrink(self, eta):
        return 1.0 - eta * self.lam

    def step(self, x, y, t):
        self.total += self.w
        self.k += 1
        eta = self.eta(t)
        active = y * (self.w @ x) < 1.0
        self.w = self.shrink(eta) * self.w
        if active:
            self.w += (eta * y) * x
        self.project()

    def project(self):
        pass

    def weights(self):
        return self.w

    def average(self):
        return self.total / self.k if self.k else self.w.copy()

    def regret_lipschitz(self, R):
        return 2.0 * R  # lam ||w_t|| <= R: every subgradient is at most 2R


class PegasosPaperStep(PyPegasos):
    """Harmless: the Pegasos paper's 1/(lam t) for the notes' 1/(lam (t + 1))."""

    def eta(self, t):
        return 1.0 / (self.lam * t)


class PegasosSqrtStep(PyPegasos):
    """Bug: the step exponent, 1/(lam sqrt t)."""

    def eta(self, t):
        return 1.0 / (self.lam * math.sqrt(t))


class PegasosNoShrink(PyPegasos):
    """Bug: the lambda shrink is missing (it descends on the hinge alone)."""

    def shrink(self, eta):
        return 1.0


class PegasosDoubleShrink(PyPegasos):
    """Bug: the regulariser's gradient taken twice (it minimises the 2 lam objective)."""

    def shrink(self, eta):
        return 1.0 - 2.0 * eta * self.lam


class PegasosWrongRadius(PyPegasos):
    """Bug: the greedy projection onto the ball of radius sqrt(lam), not 1/sqrt(lam)."""

    def project(self):
        r = math.sqrt(self.lam)
        nrm = float(np.linalg.norm(self.w))
        if nrm > r:
            self.w *= r / nrm

    def regret_lipschitz(self, R):
        return R + min(R, math.sqrt(self.lam))  # the greedy projection's G


class PegasosAverageOffByEpoch(PyPegasos):
    """Bug: the average divides the sum of the t iterates by t + n (one epoch too many).

    It declares ``has_dual`` to be started with ``n`` (and gives the implied dual point).
    """

    has_dual = True

    def start(self, d, n):
        super().start(d)
        self.n = n
        self.counts = np.zeros(n)

    def step(self, x, y, t, i):
        if y * (self.w @ x) < 1.0:
            self.counts[i] += 1.0
        super().step(x, y, t)

    def average(self):
        return self.total / (self.k + self.n)

    def dual(self):
        return self.counts / (self.lam * (self.k + 1))


class PySquaredPegasos(PyPegasos):
    """Pegasos on the squared hinge: the gradient ``2 xi``, projected on ``1/sqrt(2 lam)``."""

    loss = "squared_hinge"

    def slope(self, xi):
        return 2.0 * xi  # d/dm of (1 - m)^2 is -2 (1 - m)

    def step(self, x, y, t):
        self.total += self.w
        self.k += 1
        eta = self.eta(t)
        xi = 1.0 - y * float(self.w @ x)
        self.w = self.shrink(eta) * self.w
        if xi > 0.0:
            self.w += (eta * self.slope(xi) * y) * x
        r = 1.0 / math.sqrt(2.0 * self.lam)
        nrm = float(np.linalg.norm(self.w))
        if nrm > r:
            self.w *= r / nrm

    def regret_lipschitz(self, R):
        r = 1.0 / math.sqrt(2.0 * self.lam)
        return self.lam * r + 2.0 * (1.0 + r * R) * R  # Pegasos(loss="squared_hinge")'s G


class SquaredPegasosDoubleGradient(PySquaredPegasos):
    """Bug: the squared hinge's gradient off by a factor 2, 4 xi (it minimises 2 xi^2)."""

    def slope(self, xi):
        return 4.0 * xi


# --------------------------------------------------------------------------- perceptron


class PyPerceptron(Learner):
    """Rosenblatt's perceptron (``free``: a subclass with ``free = True``)."""

    mistake_driven = True
    claims = (NOVIKOFF, PERCEPTRON_GENERAL, PERMUTATION, SCALING)
    free = False

    def start(self, d):
        self.w = np.zeros(d)
        self.b = 0.0

    def score(self, x):
        return float(self.w @ x) + (self.b if self.free else 0.0)

    def wrong(self, x, y):
        return y * self.score(x) <= 0.0

    def update(self, x, y):
        self.w += y * x
        self.b += y

    def step(self, x, y, t):
        if self.wrong(x, y):
            self.update(x, y)

    def weights(self):
        return (self.w, self.b) if self.free else self.w


class PerceptronReversed(PyPerceptron):
    """Harmless: it keeps its weights in the reversed feature order."""

    def score(self, x):
        return float(self.w @ x[::-1]) + (self.b if self.free else 0.0)

    def update(self, x, y):
        self.w += y * x[::-1]
        self.b += y

    def weights(self):
        w = self.w[::-1].copy()
        return (w, self.b) if self.free else w


class PerceptronSignError(PyPerceptron):
    """Bug: a sign error in the update, w -= y x."""

    def update(self, x, y):
        self.w -= y * x
        self.b -= y


class PerceptronUpdatesWhenRight(PyPerceptron):
    """Bug: the test inverted, it updates on correct predictions (y w.x >= 0)."""

    def wrong(self, x, y):
        return y * self.score(x) >= 0.0


class PerceptronStrictTest(PyPerceptron):
    """Bug: y w.x < 0 for <= 0, so from w = 0 it never updates."""

    def wrong(self, x, y):
        return y * self.score(x) < 0.0


class PyFreePerceptron(PyPerceptron):
    """The perceptron with a free bias, b += y (the notes' w0 += y: s = 1 only, so not scaled)."""

    supported_intercepts = ("free",)
    free = True
    claims = (NOVIKOFF, PERCEPTRON_GENERAL, PERMUTATION)


class PerceptronFrozenBias(PyFreePerceptron):
    """Bug: the free bias is never updated."""

    def update(self, x, y):
        self.w += y * x


class PerceptronPreviousLabel(PyPerceptron):
    """Bug: it learns from the previous example's label."""

    def start(self, d):
        super().start(d)
        self.last = 1.0

    def step(self, x, y, t):
        label, self.last = self.last, y
        if self.wrong(x, label):
            self.update(x, label)


class PerceptronAbsoluteTolerance(PyPerceptron):
    """Bug: a hard-coded tolerance, it updates when y w.x <= 1e-3 (not scale invariant)."""

    def wrong(self, x, y):
        return y * self.score(x) <= 1e-3


# --------------------------------------------------------------------------- PA-I


class PyPA1(Learner):
    """PA-I: tau = min(C, loss / ||x||^2)."""

    problem_parameter = "C"
    claims = (
        MistakeBound(form="pa1", data="separable"),
        MistakeBound(form="pa1", data="any"),
        PERMUTATION,
    )

    def __init__(self, C=1.0):
        self.C = C

    def start(self, d):
        self.w = np.zeros(d)

    def tau(self, loss, x):
        q = float(x @ x)
        return min(self.C, loss / q) if q > 0 else 0.0

    def label(self, y):
        return y

    def step(self, x, y, t):
        y = self.label(y)
        loss = 1.0 - y * float(self.w @ x)
        if loss > 0.0:
            self.w += (self.tau(loss, x) * y) * x

    def weights(self):
        return self.w


class PA1NormNotSquared(PyPA1):
    """Bug: tau = min(C, loss / ||x||), the norm not squared."""

    def tau(self, loss, x):
        q = float(np.linalg.norm(x))
        return min(self.C, loss / q) if q > 0 else 0.0


class PA1FlippedLabel(PyPA1):
    """Bug: learning from the wrong label, -y."""

    def label(self, y):
        return -y


class PA1FlippedLabelScaled(PA1FlippedLabel):
    """PA1FlippedLabel with a constructor option (its steps times ``scale``): for the CLI."""

    def __init__(self, C=1.0, scale=1.0):
        super().__init__(C)
        self.scale = scale

    def tau(self, loss, x):
        return self.scale * super().tau(loss, x)


#: Every broken variant, the problems that show it (a substring of the battery's names),
#: and the words its FAIL verdict must say.
BROKEN = {
    PegasosSqrtStep: ("gaussians/augmented", "converges more slowly than claimed"),
    PegasosNoShrink: ("separable/none", "not the optimum"),
    PegasosDoubleShrink: ("separable/none", "converges more slowly than claimed"),
    PegasosWrongRadius: ("separable/none", "not the optimum"),
    PegasosAverageOffByEpoch: ("separable/none", "not the mean of its iterates"),
    SquaredPegasosDoubleGradient: ("gaussians/none", "converges more slowly than claimed"),
    PerceptronSignError: ("separable/none", "too many mistakes"),
    PerceptronUpdatesWhenRight: ("gaussians/augmented", "too many mistakes"),
    PerceptronStrictTest: ("separable/none", "too many mistakes"),
    PerceptronFrozenBias: ("gaussians/free", "too many mistakes"),
    PerceptronPreviousLabel: ("separable/none", "too many mistakes"),
    PerceptronAbsoluteTolerance: ("gaussians/none", "not invariant to scale_examples"),
    PA1NormNotSquared: ("gaussians/augmented", "rounding errors grow"),
    PA1FlippedLabel: ("separable/none", "too many mistakes"),
}

#: Variants that differ from their reference in a way the theory allows.
HARMLESS = (PegasosPaperStep, PerceptronReversed)

#: The correct references.
CORRECT = (PyPegasos, PySquaredPegasos, PyPerceptron, PyFreePerceptron, PyPA1)
