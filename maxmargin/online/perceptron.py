"""The perceptron family: perceptron, averaged, voted, margin, PLA, kernel perceptron.

All start from ``w = 0`` and update on ``y w.z <= 0`` (a zero score is a mistake). See
``docs/learners.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .._validation import check_positive
from ..conventions import DEFAULT_INTERCEPT
from ..exceptions import ParameterError
from ._compiled import head, kernels
from .base import LearnerState, OnlineLearner, PackedData, Snapshot, _doc_intercept
from .claims import NOVIKOFF, PERCEPTRON_GENERAL, PERMUTATION, SCALING, Average, Claim
from .kernel_learners import KernelLearner, KernelState, _doc_kernel, learner_gram

__all__ = [
    "Perceptron",
    "AveragedPerceptron",
    "VotedPerceptron",
    "MarginPerceptron",
    "PLA",
    "DualPerceptron",
    "voted_decision_function",
]


@dataclass(eq=False)
class PerceptronState(LearnerState):
    """The perceptron's state: ``w~_t``, the averaging sums, the dual, the voted's updates."""

    w: np.ndarray = field(default_factory=lambda: np.zeros(1))
    w_sum: np.ndarray = field(default_factory=lambda: np.zeros(1))
    dual: np.ndarray = field(default_factory=lambda: np.zeros(0))
    dual_sum: np.ndarray = field(default_factory=lambda: np.zeros(0))
    update_buffer: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    update_steps: list = field(default_factory=list)
    update_examples: list = field(default_factory=list)


@_doc_intercept
class Perceptron(OnlineLearner):
    r"""Rosenblatt's perceptron (zero init, update on a non-positive margin).

    With ``z_t = x_t`` (intercept ``none``) or ``z_t = (x_t, s)`` (``augmented``):

    .. math::

        w_1 = 0, \qquad
        w_{t+1} = w_t + y_t z_t \,\mathbb{1}[\,y_t\, w_t \cdot z_t \le 0\,].

    At most :math:`(R/\gamma)^2` mistakes on data separable with margin :math:`\gamma`
    (Novikoff 1962).

    Parameters
    ----------
    {intercept_parameters}

    Notes
    -----
    Implied dual point: ``w~_t = sum_i c_i y_i z_i`` with ``c_i`` the number of updates
    made on example ``i`` (``record_dual=True``).

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import Perceptron, run
    >>> tr = run(Perceptron(intercept="none"), make_separable(40, 2, seed=0), epochs=5)
    >>> tr.final_train_error
    0.0
    """

    name = "perceptron"
    reference = "Rosenblatt (1958); Novikoff (1962); the lecture notes' perceptron"
    claims: ClassVar[tuple[Claim, ...] | None] = (
        NOVIKOFF,
        PERCEPTRON_GENERAL,
        PERMUTATION,
        SCALING,
    )
    mistake_driven = True
    has_dual = True
    dual_counts_updates = True
    resumable = True
    sample_weight_rule: ClassVar[str | None] = (
        "the update scaled by the example's weight, w += s_i eta y z "
        "(scikit-learn's Perceptron); weight 0 never updates"
    )
    _averaged = False
    _log_updates = False

    def _setup(self, packed: PackedData) -> PerceptronState:
        d1 = packed.d + 1
        nd = packed.n if packed.record_dual else 0
        return PerceptronState(
            w=np.zeros(d1),
            w_sum=np.zeros(d1 if self._averaged else 1),
            dual=np.zeros(nd),
            dual_sum=np.zeros(nd),
            update_buffer=np.zeros(packed.n if self._log_updates else 0, np.int64),
        )

    def _advance(
        self, packed: PackedData, state: PerceptronState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        arrays = (state.w, state.w_sum, state.totals, state.dual, state.dual_sum)
        flags = (self._averaged, packed.record_dual, self._log_updates)
        rule = (*flags, float(self.update_margin), float(self.update_step))
        tail = (packed.step_weights, self.intercept == "free")
        nup = kernels.perceptron_steps(
            *head(packed, idx, lo, hi, t0), *arrays, state.update_buffer, rule, *tail
        )
        if nup:
            ts = state.update_buffer[:nup].copy()
            state.update_steps.append(ts)
            state.update_examples.append(idx[ts - t0 - 1 + lo])

    def _snapshot(self, packed: PackedData, state: PerceptronState, t: int) -> Snapshot:
        return Snapshot(
            *packed.split(state.w), dual=state.dual.copy() if packed.record_dual else None
        )


@_doc_intercept
class AveragedPerceptron(Perceptron):
    r"""Averaged perceptron: the perceptron's run, returning the mean of its iterates.

    .. math::

        \bar w_T = \frac1T \sum_{t=1}^{T} w_{t+1}
                 = w_{T+1} - \frac1T \sum_{t:\,\mathrm{update}} (t-1)\, y_t z_t,

    in O(d) per update (Daumé's trick). Mistakes and losses are the predicting ``w_t``'s;
    the trace's ``w`` is :math:`\bar w_T`, ``extras["w_last"]`` is ``w_{T+1}``.

    Parameters
    ----------
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> run(AveragedPerceptron(), make_separable(40, 2, seed=0), epochs=3).w.shape[1]
    2
    """

    name = "averaged_perceptron"
    reference = "Freund & Schapire (1999); Collins (2002); Daumé (2006)"
    claims = (
        NOVIKOFF,
        PERCEPTRON_GENERAL,
        PERMUTATION,
        SCALING,
        Average(iterates="after", reference="Collins (2002)"),
    )
    dual_counts_updates = False  # its implied dual point is the average's
    _averaged = True

    def _snapshot(self, packed: PackedData, state: PerceptronState, t: int) -> Snapshot:
        return Snapshot(
            *packed.split(state.w - state.w_sum / t),
            dual=state.dual - state.dual_sum / t if packed.record_dual else None,
            extras={"w_last": state.w[:-1].copy()},
        )


@_doc_intercept
class VotedPerceptron(Perceptron):
    r"""Voted perceptron (Freund & Schapire 1999).

    Keeps every perceptron iterate ``v_k`` with its survival count ``c_k`` and predicts

    .. math:: \hat y(x) = \mathrm{sign}\Big(\sum_{k} c_k\, \mathrm{sign}(v_k \cdot z)\Big).

    The trace's ``w`` is the last iterate, ``w_avg`` :math:`\sum_k c_k v_k / T`, and
    ``extras["update_t"], extras["update_i"]`` rebuild the vote
    (:func:`voted_decision_function`). The final training error is the vote's (``w_avg``'s
    when ``n * updates > 5e7``).

    Parameters
    ----------
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> tr = run(VotedPerceptron(), make_separable(30, 2, seed=1), epochs=2)
    >>> int(tr.extras["update_t"].size) == int(tr.mistakes[-1])
    True
    """

    name = "voted_perceptron"
    reference = "Freund & Schapire (1999)"
    claims = AveragedPerceptron.claims
    has_average = True
    resumable = False  # the vote keeps indices into the data
    sample_weight_rule = None  # the vote is rebuilt from unit updates
    _averaged = True
    _log_updates = True

    def _snapshot(self, packed: PackedData, state: PerceptronState, t: int) -> Snapshot:
        w_avg, b_avg = packed.split(state.w - state.w_sum / t)
        return Snapshot(
            *packed.split(state.w),
            w_avg=w_avg,
            b_avg=b_avg,
            dual=state.dual.copy() if packed.record_dual else None,
        )

    def _final(self, packed: PackedData, state: PerceptronState) -> dict[str, np.ndarray]:
        def cat(a: list) -> np.ndarray:
            return np.concatenate(a) if a else np.zeros(0, np.int64)

        return {
            "update_t": cat(state.update_steps).astype(np.int64),
            "update_i": cat(state.update_examples).astype(np.int64),
        }

    def _decision(
        self, packed: PackedData, state: PerceptronState, w: np.ndarray, b: float
    ) -> np.ndarray:
        f = self._final(packed, state)
        T = state.steps
        X = packed.dataset.X
        if packed.n * max(len(f["update_t"]), 1) > 50_000_000:
            # the exact vote costs O(n M d): use its averaged form sum_k c_k v_k / T
            w_avg, b_avg = packed.split(state.w - state.w_sum / T)
            return np.asarray(X @ w_avg).ravel() + b_avg
        return _vote(packed.dataset, packed.bias_feature, f["update_t"], f["update_i"], T, X)


def _vote(train: Any, s: float, ts: np.ndarray, ii: np.ndarray, T: int, X: Any) -> np.ndarray:
    M = len(ts)
    m = X.shape[0]
    out = np.zeros(m)
    if M == 0:
        return out
    counts = np.diff(np.append(ts, T + 1)).astype(float)  # c_1..c_M (c_0 * sign(0) = 0)
    Zu = train.X[ii]
    yu = train.y[ii]
    chunk = max(1, int(4_000_000 // M))
    for a in range(0, m, chunk):
        Xa = X[a : a + chunk]
        G = Xa @ Zu.T
        G = G.toarray() if sp.issparse(G) else np.asarray(G)
        G = (G + s * s) * yu  # v_k.z = sum_{j<=k} y_j z_j.z
        Sc = np.cumsum(G, axis=1)
        out[a : a + chunk] = (np.sign(Sc) * counts).sum(axis=1)
    return out


def voted_decision_function(trace: Any, train: Any, X: Any) -> np.ndarray:
    """The voted perceptron's vote ``sum_k c_k sign(<v_k, z>)`` on new points.

    Parameters
    ----------
    trace : Trace
        A ``voted_perceptron`` trace (its ``extras`` hold the updates).
    train : Dataset
        The data the trace was run on.
    X : array-like or sparse of shape (m, d)

    Returns
    -------
    ndarray of shape (m,)
        Positive means +1; zero or negative means -1.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> ds = make_separable(30, 2, seed=1)
    >>> tr = run("voted_perceptron", ds, epochs=3)
    >>> bool(((voted_decision_function(tr, ds, ds.X) > 0) == (ds.y > 0)).mean() > 0.8)
    True
    """
    if trace.learner != "voted_perceptron":
        raise ParameterError(
            f"voted_decision_function needs a voted_perceptron trace, got {trace.learner!r}"
        )
    if train.n != trace.n or train.d != trace.d:
        raise ParameterError(
            f"train has shape ({train.n}, {train.d}) but the trace was run on "
            f"({trace.n}, {trace.d}); pass the same Dataset"
        )
    s = trace.intercept_scaling if trace.intercept == "augmented" else 0.0
    if not sp.issparse(X):
        X = np.asarray(X, dtype=float)
    return _vote(train, s, trace.extras["update_t"], trace.extras["update_i"], int(trace.t[-1]), X)


@_doc_intercept
class MarginPerceptron(Perceptron):
    r"""The perceptron with a margin: update whenever :math:`y\, w\cdot z \le \tau`.

    .. math::

        w_1 = 0, \qquad
        w_{t+1} = w_t + \eta\, y_t z_t \,\mathbb{1}[\,y_t\, w_t \cdot z_t \le \tau\,].

    ``margin = 0`` is Rosenblatt's perceptron (``eta`` only scales ``w``). The updates obey
    the perceptron's bounds with :math:`R^2 + 2\tau/\eta` for :math:`R^2`
    (``docs/compare.md``); ``extras["updates"]`` counts them (:math:`\ge` mistakes).

    Parameters
    ----------
    margin : float >= 0, default 1.0
        The threshold :math:`\tau` on the functional margin ``y w.z``.
    eta : float > 0, default 1.0
        The constant step.
    {intercept_parameters}

    Notes
    -----
    Implied dual point: ``a_i = eta * (number of updates on i)``.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> tr = run(MarginPerceptron(margin=1.0), make_separable(40, 2, seed=0), epochs=20)
    >>> bool(tr.extras["updates"][-1] >= tr.mistakes[-1])
    True
    """

    name = "margin_perceptron"
    reference = (
        "Duda & Hart (1973), the perceptron with margin; Krauth & Mezard (1987); "
        "Collobert & Bengio (2004)"
    )
    claims = (NOVIKOFF, PERCEPTRON_GENERAL, PERMUTATION)  # tau is not scaled with the data
    resumable = True

    def __init__(
        self,
        *,
        margin: float = 1.0,
        eta: float = 1.0,
        intercept: str = DEFAULT_INTERCEPT,
        intercept_scaling: float = 1.0,
    ) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        margin = float(margin)
        if not (math.isfinite(margin) and margin >= 0.0):
            raise ParameterError(
                f"The 'margin' parameter must be a finite float >= 0. Got {margin!r} instead."
            )
        self.margin = margin
        self.eta = check_positive("eta", eta)
        self.update_margin, self.update_step = self.margin, self.eta

    def _snapshot(self, packed: PackedData, state: PerceptronState, t: int) -> Snapshot:
        return Snapshot(
            *packed.split(state.w),
            dual=state.dual.copy() if packed.record_dual else None,
            extras={"updates": int(state.totals[4])},
        )


@_doc_intercept
class PLA(Perceptron):
    r"""The perceptron learning algorithm that stops: cycle until a pass makes no mistake.

    The lecture notes' PLA (``docs/learners.md``): ``epochs`` is the cap; the trace's
    ``epochs`` counts the passes made, ``extras["converged"]`` and ``extras["halted_at"]``
    (the step of the clean pass's end, 0 at the cap). A ``sample`` pass that may miss
    examples ends the run only when a full count confirms ``w`` separates the data.

    Parameters
    ----------
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> tr = run(PLA(), make_separable(40, 2, seed=0), epochs=1000, order="cyclic")
    >>> bool(tr.extras["converged"]), tr.epochs < 1000, tr.final_train_error
    (True, True, 0.0)
    """

    name = "pla"
    _no_steps = "it stops itself after a pass without a mistake, which a step cannot see"
    reference = "Rosenblatt (1958); Novikoff (1962); the lecture notes' cyclic PLA"
    resumable = False  # it stops on a clean pass over the whole data set

    def _align(self, checkpoints: np.ndarray, n: int, epochs: int) -> np.ndarray:
        ends = n * np.arange(1, epochs + 1, dtype=np.int64)
        return np.unique(np.concatenate([checkpoints, ends]))

    def _setup(self, packed: PackedData) -> PLAState:
        return PLAState(**vars(super()._setup(packed)))

    def _advance(
        self, packed: PackedData, state: PerceptronState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        assert isinstance(state, PLAState)
        if state.halted_at:
            return
        super()._advance(packed, state, idx, lo, hi, t0)
        t = t0 + hi - lo
        if hi > lo and t % packed.n == 0:  # an epoch (pass) ends
            clean = state.totals[4] == state.updates_at_epoch_start
            state.updates_at_epoch_start = float(state.totals[4])
            # a clean pass over every example (cyclic, shuffle) is the proof; a pass that
            # missed some (sample) needs the full count
            if clean and (
                np.bincount(idx, minlength=packed.n).min() > 0
                or np.all(self._decision(packed, state, *packed.split(state.w)) * packed.y > 0)
            ):
                state.halted_at = int(t)

    def _halted(self, state: PLAState) -> bool:
        return bool(state.halted_at)

    def _final(self, packed: PackedData, state: PLAState) -> dict[str, np.ndarray]:
        return {
            "converged": np.asarray(bool(state.halted_at)),
            "halted_at": np.asarray(int(state.halted_at), np.int64),
        }


@dataclass(eq=False)
class PLAState(PerceptronState):
    """The PLA's state: the updates before the current pass, the step it stopped at (or 0)."""

    updates_at_epoch_start: float = 0.0
    halted_at: int = 0


@_doc_kernel
class DualPerceptron(KernelLearner):
    r"""The perceptron in dual (kernel) form, keeping the counts ``c`` (the lecture notes).

    With ``K~(x, x') = k(x, x') + s^2`` (``s = 0`` for intercept ``none``) and
    ``F_i = sum_j c_j y_j K~(x_j, x_i)``:

    .. math::

        c = 0, \qquad \text{if } y_t F_{i_t} \le 0:\ c_{i_t} \mathrel{+}= 1 .

    The linear kernel gives the primal :class:`Perceptron` (``w~ = sum_i c_i y_i z_i``);
    the trace's ``dual`` is ``c``, with ``f = sum_j c_j y_j k(x_j, .) + s^2 sum_j c_j y_j``.

    Parameters
    ----------
    {kernel_parameters}

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> tr = run(DualPerceptron(intercept="none"), make_separable(30, 2, seed=0), epochs=3)
    >>> tr.dual.shape[1]
    30
    """

    name = "dual_perceptron"
    supported_intercepts = ("none", "augmented", "free")
    _no_steps = (
        "it keeps the (n, n) kernel matrix of the whole data set (with the linear kernel, "
        "step a Perceptron: the same rule)"
    )
    reference = (
        "Aizerman et al. (1964); Cristianini & Shawe-Taylor (2000); the lecture "
        "notes' dual perceptron"
    )
    mistake_driven = True
    dual_counts_updates = True
    claims = (NOVIKOFF, PERCEPTRON_GENERAL, PERMUTATION, SCALING)  # the linear kernel's

    def _setup(self, packed: PackedData) -> KernelState:
        K = learner_gram(self.kernel_spec(), packed.dataset)
        K += packed.bias_feature**2
        return KernelState(gram=K, coef=np.zeros(packed.n), scores=np.zeros(packed.n))

    def _advance(
        self, packed: PackedData, state: KernelState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        free_s2 = packed.bias_feature**2 if self.intercept == "free" else 0.0
        args = (state.gram, state.coef, state.scores, state.totals, free_s2)
        kernels.dual_perceptron_steps(packed.y, idx, lo, hi, *args)
        state.t = t0 + hi - lo

    def _snapshot(self, packed: PackedData, state: KernelState, t: int) -> Snapshot:
        cy = state.coef * packed.y
        b = packed.bias_feature**2 * float(cy.sum())
        if self.has_weights:
            w = np.asarray(packed.dataset.X.T @ cy, dtype=float).ravel()
        else:
            w = np.full(packed.d, np.nan)
        return Snapshot(w, b, dual=state.coef.copy())

    def _decision(
        self, packed: PackedData, state: KernelState, w: np.ndarray, b: float
    ) -> np.ndarray:
        return state.scores.copy()
