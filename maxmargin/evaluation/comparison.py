r"""Online learners measured against the certified exact optimum.

:func:`compare` solves the reference once (the soft-margin problem; the hard margin too
when the data are separable, for :math:`\gamma^*`), re-certifies it from the data and
refuses an optimum whose certificate fails, runs every learner for every order and
seed, and evaluates the recorded checkpoints against the optimum, vectorised over the
checkpoints (one ``(n, k)`` matrix product per run; the learners' timing excludes it).

Everything lives in the space the learners see: ``z_i = x_i`` (intercept ``none``) or
``z_i = (x_i, s)`` (``augmented``), with weights :math:`\tilde w = (w, b/s)`, because
that is the vector the regularizer :math:`\frac\lambda2\|\tilde w\|^2` acts on, the
vector the learners update, and the space the mistake bounds are stated in
(:math:`R = \max_i\|z_i\|`). With ``F`` the lambda form and ``F*`` its optimum:

.. math::

    \text{suboptimality}_t &= F(\tilde w_t) - F^*, \qquad
    \text{relative} = (F(\tilde w_t) - F^*) / F^* \\
    \text{distance}_t &= \|\tilde w_t - \tilde w^*\| / \|\tilde w^*\|, \qquad
    \cos_t = \tilde w_t\cdot\tilde w^* / (\|\tilde w_t\|\,\|\tilde w^*\|) \\
    \text{regret}_t &= \sum_{s\le t} f_s(\tilde w_s) - \sum_{s\le t} f_s(\tilde w^*),
    \qquad f_s(w) = \tfrac\lambda2\|w\|^2 + \max(0, 1 - y_{i_s}\, w\cdot z_{i_s}) \\
    \text{dual gap}_t &= F(\tilde w_t) - \lambda\, D(\Pi(a_t)) \;\ge\; F(\tilde w_t) - F^*

where ``a_t`` is the learner's implied dual point (:math:`\tilde w_t = \sum_i a_i y_i
z_i`) and :math:`\Pi` makes it feasible (:func:`feasible_dual`). Mistake bounds, for the
perceptron family (zero start, update ``w += y z`` on ``y w.z <= 0``):

.. math::

    M_t \le (R/\gamma^*)^2 \ \text{(separable)}, \qquad
    M_t \le L_t + R\|u\|\sqrt{L_t} + R^2\|u\|^2, \quad
    L_t = \sum_{s\le t} \max(0, 1 - y_{i_s}\, u\cdot z_{i_s}),\ u = \tilde w^*.

See ``docs/compare.md`` for why each quantity is the right one.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from .._progress import Progress
from .._validation import (
    WIDE_HINT,
    check_count,
    check_int,
    check_memory,
    check_positive,
    renamed_attribute,
    resolve_alias,
    seed_from_random_state,
)
from ..certificate import certify
from ..data import Dataset, make_separable
from ..exact import solve
from ..exceptions import CertificateError, DataError, ParameterError
from ..io.files import atomic_write
from ..io.json import dumps, format_header, jsonable
from ..online import LEARNERS, ORDERS, OnlineLearner, run, schedule
from ..online.learner import SCORINGS, Declared, is_learner, prediction_errors, scoring
from ..online.protocol import as_learner
from ..online.registry import learner_for, objective_parameter
from ..online.runner import CHECKPOINT_OVERHEAD, _geometric_count, check_steps
from ..problem import SVMProblem
from ..separation import SeparationCertificate, is_separable, verify_separation
from ..solution import ExactSolution
from ..trace import Trace
from .saved import RUN_NUMBERS

if TYPE_CHECKING:
    from .saved import SavedComparison

__all__ = [
    "compare",
    "Comparison",
    "RunResult",
    "feasible_dual",
    "fit_rate",
    "quadratic_mistake_bound",
    "best_scale_mistake_bound",
    "score_trace",
    "demo_comparison",
]


# --------------------------------------------------------------------------- helpers


def feasible_dual(alpha: Any, problem: SVMProblem) -> np.ndarray:
    r"""Make dual points feasible for ``problem`` (C form), so that ``D`` bounds ``P*``.

    Clips into the box :math:`0 \le \alpha_i \le C_i` (``C_i = C s_i`` with weights);
    for intercept ``free`` it then
    restores :math:`\sum_i \alpha_i y_i = 0` by scaling down the class with the larger
    total (which stays in the box). Any feasible point gives weak duality
    :math:`D(\alpha) \le P^* \le P(w, b)`, so :math:`F(w) - \lambda D(\alpha) \ge
    F(w) - F^*`.

    Parameters
    ----------
    alpha : array-like of shape (n,) or (k, n)
    problem : SVMProblem
        A soft-margin problem.

    Returns
    -------
    ndarray of the same shape
        The feasible point(s); non-finite entries become 0.

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem
    >>> p = SVMProblem(Dataset([[1.0], [-1.0], [2.0]], [1, -1, 1]), C=1.0, intercept="free")
    >>> feasible_dual([3.0, 0.5, -1.0], p).tolist()
    [0.5, 0.5, 0.0]
    """
    a = np.nan_to_num(np.asarray(alpha, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    if problem.hard:
        raise ParameterError("feasible_dual needs a soft-margin problem (C or lam)")
    a = np.clip(a, 0.0, problem.C if problem.weights is None else problem.costs)
    if problem.intercept == "free":
        y = problem.data.y
        pos = (a * (y > 0)).sum(axis=-1, keepdims=True)
        neg = (a * (y < 0)).sum(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            fp = np.where(pos > neg, neg / pos, 1.0)
            fn = np.where(neg > pos, pos / neg, 1.0)
        a = np.where(y > 0, a * fp, a * fn)
    return a


def _rate_iterates(rows: Sequence[dict]) -> str:
    """Which iterate each row's rate was fitted on, e.g. ``"pegasos: average"``."""
    fitted = [f"{r['label']}: {r['rate_iterate']}" for r in rows if r.get("rate_iterate")]
    return "; ".join(fitted) or "no rate was fitted"


def fit_rate(t: Any, values: Any) -> float:
    r"""Slope of ``log(values)`` against ``log(t)`` over the second half of the run.

    "Second half" on the log-t axis (the axis the checkpoints are spaced on):
    :math:`t \ge \sqrt{T}`, ``T = max(t)``; non-positive or non-finite values are left
    out. An ordinary least-squares fit; ``nan`` with fewer than 3 usable points.

    Parameters
    ----------
    t : array-like of shape (k,)
        Steps (> 0).
    values : array-like of shape (k,)

    Returns
    -------
    float

    Examples
    --------
    >>> t = np.array([1, 10, 100, 1000, 10000])
    >>> round(fit_rate(t, 3.0 / t), 12)
    -1.0
    """
    t = np.asarray(t, dtype=float)
    v = np.asarray(values, dtype=float)
    if t.size == 0:
        return math.nan
    keep = (t >= math.sqrt(t.max())) & np.isfinite(v) & (v > 0) & (t > 0)
    if keep.sum() < 3:
        return math.nan
    lt, lv = np.log(t[keep]), np.log(v[keep])
    if np.ptp(lt) == 0:
        return math.nan
    return float(np.polyfit(lt, lv, 1)[0])


def quadratic_mistake_bound(L: Any, a: Any) -> np.ndarray:
    r"""The largest ``M`` with :math:`M \le L + a\sqrt M`: :math:`((a + \sqrt{a^2 + 4L})/2)^2`.

    The perceptron's analysis ends in :math:`M \le L + a\sqrt M` (``a = ||u|| R``, ``L``
    the hinge of ``u``, ``docs/compare.md``); this is its exact solution, equal to
    :math:`L + a^2/2 + a\sqrt{L + a^2/4} \le L + a\sqrt L + a^2` (the textbook's
    relaxation, :attr:`RunResult.general_bound`), and to Novikoff's :math:`a^2` when
    ``L = 0``.

    Parameters
    ----------
    L : array-like, >= 0
    a : array-like, >= 0
        Broadcast together.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> float(quadratic_mistake_bound(0.0, 3.0))
    9.0
    >>> float(quadratic_mistake_bound(2.0, 1.0))
    4.0
    """
    L = np.asarray(L, dtype=float)
    a = np.asarray(a, dtype=float)
    return ((a + np.sqrt(a * a + 4.0 * L)) / 2.0) ** 2


def best_scale_mistake_bound(
    margins: Any, counts: Any, r_u: float, *, scale: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    r"""The perceptron's mistake bound for the comparator ``c u``, at the best scale ``c > 0``.

    For every ``c > 0`` (``docs/compare.md``, section 6):

    .. math::

        M \le B(c) = \Big(\tfrac{a + \sqrt{a^2 + 4 L(c)}}{2}\Big)^2, \quad
        a = c\, R\|u\|, \quad L(c) = \sum_i k_i \max(0, 1 - c\, m_i),

    with ``m_i = y_i u.z_i`` and ``k_i`` the number of rounds on example ``i`` the sum
    runs over. :math:`L(c)` is piecewise linear in ``c`` (kinks at ``c = 1/m_i``): it is
    evaluated exactly by prefix sums over the sorted ``m``, on a log grid of ``c`` from
    ``1e-6 / max|m|`` to ``1e6 / max|m|`` (20 per decade: the scale of the data drops
    out), then refined by golden section around the best grid point, and compared with
    the limit ``c -> 0``, :math:`\sum_i k_i` (returned with ``c = 0``). Every ``c`` gives
    a valid bound, so the value returned is one whatever the search finds.

    Parameters
    ----------
    margins : array-like of shape (n,)
        ``y_i u.z_i`` of the comparator ``u``.
    counts : array-like of shape (n,) or (k, n)
        ``k_i`` per example, one row per checkpoint.
    r_u : float >= 0
        ``R ||u||`` (with ``R`` the radius the learner's analysis uses).
    scale : float > 0, optional
        Evaluate at this ``c`` instead of minimising.

    Returns
    -------
    bound, c : ndarray of shape (k,) (or scalars for 1-D ``counts``)

    Examples
    --------
    >>> m = np.array([2.0, 2.0])  # u classifies both points with margin 2
    >>> b, c = best_scale_mistake_bound(m, [1.0, 1.0], r_u=1.0)
    >>> round(float(b), 9), round(float(c), 6)  # c = 1/2: L = 0, bound (R||u||/2)^2
    (0.25, 0.5)
    """
    m = np.asarray(margins, dtype=float)
    K = np.asarray(counts, dtype=float)
    one = K.ndim == 1
    K = np.atleast_2d(K)
    order = np.argsort(m, kind="stable")
    ms = m[order]
    zero = np.zeros((K.shape[0], 1))
    Kc = np.concatenate([zero, np.cumsum(K[:, order], axis=1)], axis=1)  # (k, n+1)
    Sc = np.concatenate([zero, np.cumsum(K[:, order] * ms, axis=1)], axis=1)
    rows = np.arange(K.shape[0])

    def B(c: np.ndarray) -> np.ndarray:  # c of shape (k, g) -> bounds (k, g)
        J = np.searchsorted(ms, 1.0 / c, side="left")  # m_i < 1/c: the active hinges
        L = np.maximum(Kc[rows[:, None], J] - c * Sc[rows[:, None], J], 0.0)
        return quadratic_mistake_bound(L, c * r_u)

    if scale is not None:
        c = np.full((K.shape[0], 1), check_positive("scale", scale))
        b = B(c)[:, 0]
        c = c[:, 0]
    else:
        # the grid is relative to the margins' scale, so that scaling the data by k scales
        # the best c by 1/k and leaves the bound as it is
        top = float(np.max(np.abs(m), initial=0.0)) or float(r_u) or 1.0
        grid = np.geomspace(1e-6, 1e6, 241) / top
        vals = B(np.broadcast_to(grid, (K.shape[0], grid.size)))
        j = np.argmin(vals, axis=1)
        lo = grid[np.maximum(j - 1, 0)][:, None]
        hi = grid[np.minimum(j + 1, grid.size - 1)][:, None]
        g = (math.sqrt(5.0) - 1.0) / 2.0  # golden section on log c
        a, z = np.log(lo), np.log(hi)
        for _ in range(60):
            x1, x2 = z - g * (z - a), a + g * (z - a)
            left = B(np.exp(x1)) <= B(np.exp(x2))
            z = np.where(left, x2, z)
            a = np.where(left, a, x1)
        cand = np.concatenate([grid[j][:, None], np.exp((a + z) / 2.0)], axis=1)
        bc = B(cand)
        best = np.argmin(bc, axis=1)
        b, c = bc[rows, best], cand[rows, best]
        # c -> 0: every hinge tends to 1, a to 0, and B to the number of rounds, sum_i k_i
        # (the infimum when it lies there; reported with c = 0)
        rounds = K.sum(axis=1)
        low = rounds <= b
        b, c = np.where(low, rounds, b), np.where(low, 0.0, c)
    return (b[0], c[0]) if one else (b, c)


def _visit_counts(idx: np.ndarray, n: int, t: np.ndarray) -> np.ndarray:
    """``counts[k, i]`` = visits of example ``i`` among the first ``t[k]`` steps, (k, n)."""
    out = np.zeros((len(t), n))
    acc = np.zeros(n)
    prev = 0
    for k, tk in enumerate(t):
        acc += np.bincount(idx[prev:tk], minlength=n)
        out[k] = acc
        prev = int(tk)
    return out


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, eq=False)
class RunResult:
    r"""One learner run (one order, one seed) evaluated against the optimum.

    Every array has shape (k,), one entry per checkpoint ``t``; ``None`` means N/A for
    this learner (see :attr:`kind`). ``*_avg`` are of the averaged iterate
    :math:`\bar w_t` (learners that record one).

    Attributes
    ----------
    label, learner, order : str
        ``label`` is unique within a comparison (``learner`` plus ``-2``, ``-3`` for
        repeats).
    seed : int
    kind : {"objective", "linear", "mistakes"}
        What the run is scored on, from what its learner declares
        (:func:`maxmargin.online.learner.scoring`): ``objective`` learners minimise the
        problem's objective (Pegasos, subgradient) and get every quantity; ``linear``
        learners (perceptron family, PA) get mistakes, margin, angle, error, regret;
        ``mistakes`` (Winnow) mistakes and error only.
    trace : Trace
    t : ndarray of int64
    objective, subopt, rel_subopt, objective_avg, subopt_avg, rel_subopt_avg : ndarray
        :math:`F(\tilde w_t)`, :math:`F(\tilde w_t) - F^*`, relative to ``F*``.
    dual_gap, dual_gap_avg : ndarray
        :math:`F(\tilde w_t) - \lambda D(\Pi(a_t))` with ``a_t`` the implied dual point.
    distance, distance_avg : ndarray
        :math:`\|\tilde w_t - \tilde w^*\| / \|\tilde w^*\|`.
    cosine : ndarray
        Cosine between :math:`\tilde w_t` and :math:`\tilde w^*` (nan for ``w_t = 0``).
    margin : ndarray
        Geometric margin :math:`\min_i y_i \tilde w_t\cdot z_i / \|\tilde w_t\|` (negative
        when ``w_t`` does not separate; nan for ``w_t = 0``).
    train_error, test_error : ndarray
        Fraction with :math:`y f(x) \le 0` (Winnow: its own rule ``f > 0`` predicts +1);
        ``test_error`` on the holdout, ``None`` without one.
    mistakes : ndarray of int64
        Cumulative online mistakes (the trace's).
    regret : ndarray
        Against :math:`\tilde w^*`, from the trace's ``loss`` and ``sqnorm``.
    regret_bound : ndarray
        Pegasos without lazy projection and with batch 1:
        :math:`G^2 (1 + \ln t)/(2\lambda)`, ``G`` as in :attr:`regret_G`.
    regret_G : float
        ``2R`` (no projection: :math:`\lambda\|w_t\| \le R`) or
        ``R + min(R, sqrt(lam))`` (greedy projection on the :math:`1/\sqrt\lambda` ball).
    novikoff : float
        :math:`(R/\gamma^*)^2` (perceptron family on separable data), else nan; the
        margin perceptron's :math:`(R^2 + 2\tau/\eta)/\gamma^{*2}`.
    general_bound : ndarray
        :math:`L_t + R\|u\|\sqrt{L_t} + R^2\|u\|^2` with ``u`` the soft optimum and
        :math:`L_t` its hinge summed over every round (perceptron family): the textbook
        form, kept as it was.
    general_bound_best, general_scale : ndarray
        The same theorem solved exactly and at the best scale ``c u``:
        :func:`best_scale_mistake_bound` over every round, and the ``c`` it used.
    mistake_rounds_bound : ndarray
        The theorem with the hinge of ``u`` summed over the mistake rounds only, at
        ``c = 1`` (learners whose implied dual point counts their updates: perceptron,
        dual perceptron, PLA, margin perceptron). Over ``c`` its infimum is the number of
        mistakes itself, so ``c`` is not optimised (``docs/compare.md``, section 6).
    rate, rate_avg : float
        :func:`fit_rate` of ``subopt`` and ``subopt_avg``.
    learn_seconds, eval_seconds : float
        Compiled learning loop; evaluation against the optimum (this module).
    diverged_at : int or None
        The first checkpoint step whose weights are not finite (a learner's step size
        too large for the data, or weights from elsewhere that hold a NaN or an inf:
        ``trace.divergence()`` says which); every score from there on is nan
        (``mistakes`` too, as floats; ``null`` in the JSON),
        and the bounds are checked on the finite prefix. None: the run stayed finite.
    theory_slope : float
        The rate the learner's theory gives for its step schedule (its ``theory_rate``:
        -1 for ``1/(lam t)`` steps, -1/2 for ``eta0/sqrt(t)``), nan when none applies.
    not_available : dict of str -> str
        Quantities that would apply to this kind of learner but cannot be computed from
        what the trace holds, with the reason (a trace from
        :meth:`~maxmargin.Trace.from_weights` has no per-step losses, so no regret).

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
    >>> r = cmp.runs[0]
    >>> r.label, r.kind, r.t.shape == r.subopt.shape == r.mistakes.shape
    ('pegasos', 'objective', True)
    """

    label: str
    learner: str
    order: str
    seed: int | None
    kind: str
    trace: Trace
    t: np.ndarray
    mistakes: np.ndarray
    train_error: np.ndarray
    test_error: np.ndarray | None = None
    objective: np.ndarray | None = None
    subopt: np.ndarray | None = None
    rel_subopt: np.ndarray | None = None
    objective_avg: np.ndarray | None = None
    subopt_avg: np.ndarray | None = None
    rel_subopt_avg: np.ndarray | None = None
    dual_gap: np.ndarray | None = None
    dual_gap_avg: np.ndarray | None = None
    distance: np.ndarray | None = None
    distance_avg: np.ndarray | None = None
    cosine: np.ndarray | None = None
    margin: np.ndarray | None = None
    regret: np.ndarray | None = None
    regret_bound: np.ndarray | None = None
    regret_G: float = math.nan
    novikoff: float = math.nan
    general_bound: np.ndarray | None = None
    general_bound_best: np.ndarray | None = None
    general_scale: np.ndarray | None = None
    mistake_rounds_bound: np.ndarray | None = None
    rate: float = math.nan
    rate_avg: float = math.nan
    learn_seconds: float = 0.0
    eval_seconds: float = 0.0
    diverged_at: int | None = None
    not_available: dict = field(default_factory=dict)
    theory_slope: float = math.nan

    _ARRAYS = (
        "t",
        "mistakes",
        "train_error",
        "test_error",
        "objective",
        "subopt",
        "rel_subopt",
        "objective_avg",
        "subopt_avg",
        "rel_subopt_avg",
        "dual_gap",
        "dual_gap_avg",
        "distance",
        "distance_avg",
        "cosine",
        "margin",
        "regret",
        "regret_bound",
        "general_bound",
        "general_bound_best",
        "general_scale",
        "mistake_rounds_bound",
    )

    @property
    def attained_margin(self) -> np.ndarray | None:
        r"""The geometric margin the iterate attains on the data, in the learners' space.

        :math:`\min_i y_i \tilde w_t\cdot z_i / \|\tilde w_t\|`: the same as :attr:`margin`,
        named for what it is (``docs/numbers.md``).
        """
        return self.margin

    @property
    def _scored(self) -> np.ndarray:
        """The checkpoints before divergence (all of them when the run stayed finite)."""
        return np.ones(len(self.t), bool) if self.diverged_at is None else self.t < self.diverged_at

    @property
    def novikoff_respected(self) -> bool | None:
        """``mistakes <= (R/gamma*)^2`` at every (finite) checkpoint (None: N/A)."""
        if not math.isfinite(self.novikoff):
            return None
        m = self._scored
        return bool(np.all(self.mistakes[m] <= self.novikoff * (1 + 1e-12)))

    @property
    def general_respected(self) -> bool | None:
        """``mistakes <= L + R||u|| sqrt(L) + R^2 ||u||^2`` at every (finite) checkpoint.

        None: N/A.
        """
        if self.general_bound is None:
            return None
        m = self._scored
        return bool(np.all(self.mistakes[m] <= self.general_bound[m] * (1 + 1e-12)))

    @property
    def best_bound_respected(self) -> bool | None:
        """``mistakes <=`` the best-scale and mistake-rounds bounds at every finite checkpoint.

        :attr:`general_bound_best` and :attr:`mistake_rounds_bound`; None: N/A.
        """
        bounds = [b for b in (self.general_bound_best, self.mistake_rounds_bound) if b is not None]
        if not bounds:
            return None
        m = self._scored
        return bool(all(np.all(self.mistakes[m] <= b[m] * (1 + 1e-12)) for b in bounds))

    @property
    def regret_respected(self) -> bool | None:
        """``regret <= G^2 (1 + ln t)/(2 lam)`` at every (finite) checkpoint (None: N/A)."""
        if self.regret_bound is None or self.regret is None:
            return None
        m = self._scored
        return bool(np.all(self.regret[m] <= self.regret_bound[m] * (1 + 1e-9) + 1e-9))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the per-checkpoint arrays and the scalars.

        Returns
        -------
        dict
            ``label``, ``learner``, ``order``, ``seed``, ``kind``, ``params``, every
            per-checkpoint array, the rates, bounds and timings (N/A as null), and which
            bounds were respected (docs/formats.md).

        Examples
        --------
        >>> import maxmargin as mm
        >>> ds = mm.make_separable(30, 2, seed=0)
        >>> cmp = mm.compare(ds, C=1.0, learners=["perceptron"], epochs=2)
        >>> d = cmp.runs[0].to_dict()
        >>> d["learner"], len(d["t"]) == len(cmp.runs[0].t)
        ('perceptron', True)
        """
        out: dict[str, Any] = {
            "label": self.label,
            "learner": self.learner,
            "order": self.order,
            "seed": self.seed,
            "kind": self.kind,
            "params": self.trace.params,
        }
        for k in self._ARRAYS:
            out[k] = jsonable(getattr(self, k))
        for k in RUN_NUMBERS:
            out[k] = jsonable(getattr(self, k))
        out["novikoff_respected"] = self.novikoff_respected
        out["general_respected"] = self.general_respected
        out["best_bound_respected"] = self.best_bound_respected
        out["regret_respected"] = self.regret_respected
        out["not_available"] = dict(self.not_available)
        out["diverged_at"] = self.diverged_at
        out["divergence"] = self.trace.divergence() or None
        return out


#: Columns of the summary table: (key, header, format).
_COLUMNS = (
    ("label", "learner", "s"),
    ("order", "order", "s"),
    ("seeds", "seeds", "d"),
    ("subopt", "F - F*", ".3e"),
    ("subopt_avg", "F(avg) - F*", ".3e"),
    ("rel_subopt", "rel.", ".2e"),
    ("dual_gap", "dual gap", ".3e"),
    ("distance", "dist", ".3f"),
    ("cosine", "cos", ".4f"),
    ("margin", "margin", ".4f"),
    ("train_error", "train err", ".4f"),
    ("test_error", "test err", ".4f"),
    ("mistakes", "mistakes", ".1f"),
    ("mistake_bound", "bound", ".1f"),
    ("bound_respected", "ok", "s"),
    ("regret", "regret", ".4g"),
    ("regret_per_t", "regret/T", ".3e"),
    ("rate", "rate", ".2f"),
    ("theory_slope", "theory", ".2f"),
    ("learn_seconds", "learn s", ".3f"),
    ("eval_seconds", "eval s", ".3f"),
)


def _mean_last(runs: Sequence[RunResult], key: str) -> float | None:
    vals = [getattr(r, key) for r in runs]
    if any(v is None for v in vals):
        return None
    if any(r.diverged_at is not None for r in runs):
        return math.nan  # no final score: a seed diverged (see the row's "diverged")
    return float(np.mean([v[-1] for v in vals]))


def _summary_row(runs: Sequence[RunResult]) -> dict[str, Any]:
    r0 = runs[0]
    row: dict[str, Any] = {
        "label": r0.label,
        "learner": r0.learner,
        "order": r0.order,
        "seeds": len(runs),
        "kind": r0.kind,
        "steps": int(r0.t[-1]),
    }
    for key in (
        "subopt",
        "subopt_avg",
        "rel_subopt",
        "rel_subopt_avg",
        "dual_gap",
        "dual_gap_avg",
        "distance",
        "distance_avg",
        "cosine",
        "margin",
        "train_error",
        "test_error",
        "mistakes",
        "regret",
    ):
        row[key] = _mean_last(runs, key)
    row["regret_per_t"] = None if row["regret"] is None else row["regret"] / row["steps"]
    # Mistake bound: the tightest that applies (Novikoff, the general bound at its best
    # scale, the mistake-rounds form), mean final; the textbook general bound kept beside.
    nov = [r.novikoff_respected for r in runs]
    gen = [r.general_respected for r in runs]
    best = [r.best_bound_respected for r in runs]
    row["novikoff"] = r0.novikoff if math.isfinite(r0.novikoff) else None
    row["general_bound"] = _mean_last(runs, "general_bound")
    row["general_bound_best"] = _mean_last(runs, "general_bound_best")
    row["mistake_rounds_bound"] = _mean_last(runs, "mistake_rounds_bound")
    row["novikoff_respected"] = None if nov[0] is None else all(nov)
    row["general_respected"] = None if gen[0] is None else all(gen)
    row["best_bound_respected"] = None if best[0] is None else all(best)
    tight = {
        k: row[k]
        for k in ("novikoff", "general_bound_best", "mistake_rounds_bound", "general_bound")
        if row[k] is not None and not math.isnan(row[k])
    }
    row["mistake_bound_kind"] = min(tight, key=tight.__getitem__) if tight else None
    row["mistake_bound"] = (
        tight[row["mistake_bound_kind"]]
        if tight
        else (row["novikoff"] if row["novikoff"] is not None else row["general_bound"])
    )
    flags = [
        f
        for f in (row["novikoff_respected"], row["general_respected"], row["best_bound_respected"])
        if f is not None
    ]
    row["bound_respected"] = ("yes" if all(flags) else "NO") if flags else None
    reg = [r.regret_respected for r in runs]
    row["regret_bound_respected"] = None if reg[0] is None else all(reg)
    # Rate: fit on the mean-over-seeds curve of the iterate the theory is about.
    row["theory_slope"] = r0.theory_slope if math.isfinite(r0.theory_slope) else None
    row["rate"] = row["rate_last"] = None
    if r0.kind == "objective":
        key = "subopt_avg" if r0.subopt_avg is not None else "subopt"
        row["rate_iterate"] = "average" if key == "subopt_avg" else "last"
        row["rate"] = fit_rate(r0.t, np.mean([getattr(r, key) for r in runs], axis=0))
        row["rate_last"] = fit_rate(r0.t, np.mean([np.asarray(r.subopt) for r in runs], axis=0))
    row["learn_seconds"] = float(np.mean([r.learn_seconds for r in runs]))
    row["eval_seconds"] = float(np.mean([r.eval_seconds for r in runs]))
    gone = [r for r in runs if r.diverged_at is not None]
    row["diverged"] = (
        "; ".join(
            (f"seed {r.seed}: " if r.seed is not None else "") + r.trace.divergence() for r in gone
        )
        or None
    )
    if gone:
        row["rate"] = row["rate_last"] = math.nan
    return row


@dataclass(frozen=True, eq=False)
class Comparison:
    r"""Online learners measured against the certified optimum (what :func:`compare` returns).

    Attributes
    ----------
    problem : SVMProblem
        The soft-margin reference problem (any intercept): every run is scored against
        it (``rows[i]["scored_against"]`` says it in words).
    reference : ExactSolution
        Its certified optimum :math:`(\tilde w^*, \alpha^*)`.
    hard_solution : ExactSolution or None
        The certified hard-margin optimum when the data are separable (same intercept
        mode), giving :math:`\gamma^* = 1/\|\tilde w^*_{hard}\|` (``hard`` before 0.2).
    runs : tuple of RunResult
        One per learner x order x seed, then one per trace given.
    rows : tuple of dict
        One summary row per learner (or trace) x order (final values, mean over seeds);
        keys as in :meth:`to_markdown` (None = N/A).
    F_star : float
        :math:`F^* = \lambda P(\tilde w^*)` (lambda form).
    R : float
        :math:`\max_i \|z_i\|` in the learners' space (``z = (x, s)`` for ``augmented``
        and, the bias feature the learners update, ``free``).
    gamma : float
        :math:`\gamma^*` (nan when not separable): the hard-margin optimum's margin in
        the learners' space, what Novikoff's bound uses (for ``free``, of
        :math:`(w_h, b_h/s)`).
    holdout : Dataset or None
    epochs : int
    orders, seeds : tuple
    timings : dict
        ``solve_seconds``, ``learn_seconds``, ``eval_seconds``, ``total_seconds``.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> cmp = compare(make_separable(30, 2, seed=0), learners=["perceptron", "pegasos"],
    ...               lam=0.1, seeds=(0, 1))
    >>> len(cmp.runs), len(cmp.rows), cmp.w_star.shape, cmp.separable
    (4, 2, (3,), True)
    """

    problem: SVMProblem
    reference: ExactSolution
    hard_solution: ExactSolution | None
    runs: tuple
    rows: tuple
    F_star: float
    R: float
    gamma: float
    holdout: Dataset | None = None
    epochs: int = 1
    orders: tuple = ("shuffle",)
    seeds: tuple = (0,)
    timings: dict = field(default_factory=dict)

    @property
    def w_star(self) -> np.ndarray:
        r""":math:`\tilde w^*` in the learners' space, shape (d',)."""
        return self.problem.to_augmented(self.reference.w, self.reference.b)

    hard = renamed_attribute("hard", "hard_solution")

    @property
    def separable(self) -> bool:
        """Whether the data are separable (and ``hard_solution`` was solved)."""
        return self.hard_solution is not None

    @property
    def novikoff(self) -> float:
        r""":math:`(R/\gamma^*)^2`, nan when not separable."""
        return (self.R / self.gamma) ** 2 if self.separable else math.nan

    def select(
        self, label: str | None = None, order: str | None = None, seed: int | None = None
    ) -> list[RunResult]:
        """The runs matching the given label / order / seed (None matches any).

        Parameters
        ----------
        label, order : str, optional
        seed : int, optional

        Returns
        -------
        list of RunResult
            In the order of :attr:`runs`.

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1,
        ...               seeds=(0, 1))
        >>> [r.seed for r in cmp.select(label="pegasos", seed=1)]
        [1]
        """
        return [
            r
            for r in self.runs
            if (label is None or r.label == label)
            and (order is None or r.order == order)
            and (seed is None or r.seed == seed)
        ]

    @property
    def labels(self) -> list[str]:
        """The learners' labels, in the order given."""
        return list(dict.fromkeys(r.label for r in self.runs))

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON types (non-finite numbers as strings; N/A as null).

        Returns
        -------
        dict
            ``format`` ``"maxmargin.comparison/1"``, ``maxmargin_version``, the problem,
            ``reference`` / ``hard`` (solution documents), ``summary`` (the
            :attr:`rows`), ``runs``, ``timings`` (docs/formats.md). :meth:`from_json`
            reads it back.

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
        >>> d = cmp.to_dict()
        >>> d["format"], len(d["runs"]), len(d["w_star"])
        ('maxmargin.comparison/1', 1, 3)
        """
        p, ref = self.problem, self.reference
        return {
            **format_header("comparison"),
            "data": p.data.name,
            "n": p.n,
            "d": p.d,
            "intercept": p.intercept,
            "scored_against": _scored_against(p),
            "intercept_scaling": p.intercept_scaling,
            "C": p.C,
            "lam": p.lam,
            "weights": None if p.weights is None else jsonable(p.weights),
            "holdout": None if self.holdout is None else self.holdout.name,
            "epochs": self.epochs,
            "orders": list(self.orders),
            "seeds": list(self.seeds),
            "F_star": jsonable(self.F_star),
            "R": jsonable(self.R),
            "gamma": jsonable(self.gamma),
            "separable": self.separable,
            "novikoff": jsonable(self.novikoff),
            "w_star": jsonable(self.w_star),
            "reference": ref.to_dict(),
            "hard": None if self.hard_solution is None else self.hard_solution.to_dict(),
            "summary": [{k: jsonable(v) for k, v in row.items()} for row in self.rows],
            "runs": [r.to_dict() for r in self.runs],
            "timings": {k: jsonable(v) for k, v in self.timings.items()},
        }

    def to_json(
        self,
        file: str | Path | None = None,
        indent: int | None = 1,
        *,
        path: str | Path | None = None,
    ) -> str:
        """The JSON text of :meth:`to_dict`; also written to ``file`` when given.

        Parameters
        ----------
        file : str or Path, optional
            File to write the text to.
        indent : int or None, default 1
            As for :func:`json.dumps`.
        path : str or Path, optional
            Deprecated name of ``file`` (a DeprecationWarning).

        Returns
        -------
        str

        Examples
        --------
        >>> import json
        >>> from maxmargin import make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
        >>> json.loads(cmp.to_json())["n"]
        30
        """
        if path is not None:
            warnings.warn(
                "Comparison.to_json(path=...) is now to_json(file=...), as for "
                "every result (maxmargin 0.2.0)",
                DeprecationWarning,
                stacklevel=2,
            )
            file = path if file is None else file
        text = dumps(self.to_dict(), indent=indent) + "\n"
        if file is not None:
            atomic_write(file, text)
        return text

    @staticmethod
    def from_json(source: Any) -> SavedComparison:
        r"""Read a comparison written by :meth:`to_json`.

        What ``maxmargin compare --json`` and ``report.json`` hold.

        The file holds every number and array, but neither the data nor the traces: the
        result is a :class:`~maxmargin.evaluation.saved.SavedComparison` (the numbers,
        the runs' arrays, :meth:`to_csv`, ``to_json`` giving the file's text back). Its
        ``reference`` and ``hard_solution`` are :class:`~maxmargin.ExactSolution`\ s
        without their data: ``reference.with_data(data)`` recomputes their certificates
        from the data.

        Parameters
        ----------
        source : str, path-like, readable file, or dict
            The JSON file (or its parsed content).

        Returns
        -------
        SavedComparison

        Raises
        ------
        DataError
            Not a comparison file (the message names the right loader), a format newer
            than this maxmargin reads, or a key missing.

        Examples
        --------
        >>> import io
        >>> from maxmargin import make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
        >>> saved = Comparison.from_json(io.StringIO(cmp.to_json()))
        >>> saved.F_star == cmp.F_star, saved.to_json() == cmp.to_json()
        (True, True)
        """
        from .saved import read_comparison

        return read_comparison(source)

    def to_csv(self, file: str | Path | None = None) -> str:
        """One CSV row per run and checkpoint, every per-checkpoint quantity a column.

        The columns: ``label, learner, order, seed, kind, t`` and every per-checkpoint
        quantity of :class:`RunResult` (``mistakes``, ``train_error``, ``objective``,
        ``subopt``, ``dual_gap``, ``regret``, ...).

        A quantity that does not apply to a run's learner is an empty cell (N/A); floats
        are written exactly (``repr``), non-finite ones as ``nan`` / ``inf``.

        Parameters
        ----------
        file : str or Path, optional
            Written atomically when given.

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
        >>> cmp.to_csv().splitlines()[0].split(",")[:8]
        ['label', 'learner', 'order', 'seed', 'kind', 't', 'mistakes', 'train_error']
        """
        from ..io.tables import to_csv
        from .saved import runs_table

        return to_csv(*runs_table([r.to_dict() for r in self.runs]), file=file)

    def to_frame(self) -> Any:
        """The rows of :meth:`to_csv` as a pandas DataFrame (pandas is optional).

        Returns
        -------
        pandas.DataFrame
            One row per run and checkpoint; N/A as NaN.

        Raises
        ------
        ParameterError
            pandas is not installed.

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1,
        ...               seeds=(0, 1))
        >>> df = cmp.to_frame()
        >>> len(df) == 2 * len(cmp.runs[0].t), df["seed"].unique().tolist()
        (True, [0, 1])
        """
        from ..io.tables import to_frame
        from .saved import runs_table

        return to_frame(*runs_table([r.to_dict() for r in self.runs]))

    def _budget(self) -> str:
        """The learners' epochs, orders and seeds, in words (none when only traces ran)."""
        traces = sum(r.order == "external" for r in self.runs)
        if traces == len(self.runs):
            return f"{traces} trace(s) from elsewhere, no learner run"
        return (
            f"{self.epochs} epoch(s), orders {', '.join(self.orders)}, seeds "
            f"{', '.join(map(str, self.seeds))}"
            + (f"; and {traces} trace(s) from elsewhere" if traces else "")
        )

    def to_markdown(self) -> str:
        """A Markdown report: the reference, one row per learner x order, the notes.

        Returns
        -------
        str
            Markdown text (what :func:`write_report` writes to ``report.md``).

        Examples
        --------
        >>> from maxmargin import make_separable
        >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
        >>> cmp.to_markdown().startswith("#")
        True
        """
        p, ref = self.problem, self.reference
        cert = ref.certificate
        lines = [
            f"# {p.data.name}: online learners against the exact optimum",
            "",
            f"Problem: soft margin, C = {p.C:.6g} (lambda = {p.lam:.6g})"
            + (
                ""
                if p.weights is None
                else ", weighted (C_i = C s_i; the learners' steps take the weights)"
            )
            + f", intercept `{p.intercept}`, n = {p.n}, d = {p.d}; "
            + self._budget()
            + (f"; holdout {self.holdout.name}" if self.holdout is not None else "")
            + ".",
            "",
            f"Every learner and trace below is scored against this problem: "
            f"{_scored_against(p)}." + _space_note(p),
            "",
            "## Reference (certified)",
            "",
            f"- F* = {self.F_star:.12g} (lambda form; P* = {ref.primal_objective:.12g}), "
            f"duality gap {ref.duality_gap:.2e}, relative {cert.relative_gap:.2e}, worst KKT "
            f"residual {cert.worst()[0]} = {cert.worst()[1]:.2e} (tol {cert.tol:.0e}): "
            f"{'certified' if cert.ok else 'NOT certified'}"
            + (f" (undecided: {cert.undecided})" if cert.undecided else "")
            + f"; solver {ref.solver}.",
            f"- ||{'w' if p.intercept == 'free' else 'w~'}*|| = "
            f"{np.linalg.norm(self.w_star):.6g}, support vectors "
            f"{len(ref.support)} (margin {len(ref.margin_support)}, bound "
            f"{len(ref.bound_support)}), training error {ref.training_error:.4f}.",
            f"- R = max ||z_i|| = {self.R:.6g} (in the learners' space).",
        ]
        if self.separable:
            where = " in the learners' space, of (w_h, b_h/s)" if p.intercept == "free" else ""
            lines.append(
                f"- Separable: gamma* = {self.gamma:.6g} (certified hard margin"
                f"{where}), Novikoff bound (R/gamma*)^2 = {self.novikoff:.6g}."
            )
        else:
            lines.append(
                "- Not separable (intercept "
                f"`{p.intercept}`): Novikoff does not apply; the perceptron family "
                "is held to the general bound (the hinge of u = w~* summed along "
                "the run), at the best scale of u."
            )
        lines += ["", "## Learners (final checkpoint, mean over seeds)", ""]
        lines.append("| " + " | ".join(h for _, h, _ in _COLUMNS) + " |")
        lines.append("|" + "|".join("---" for _ in _COLUMNS) + "|")
        for row in self.rows:
            cells = []
            for key, _, fmt in _COLUMNS:
                v = row.get(key)
                if v is None or (isinstance(v, float) and math.isnan(v)):
                    cells.append("N/A")
                elif fmt == "s":
                    cells.append(str(v))
                else:
                    cells.append(format(v, fmt))
            lines.append("| " + " | ".join(cells) + " |")
        lines += [
            "",
            "N/A: the quantity does not apply to that learner. Objective gaps, distance "
            "and the rate are for learners that minimise this lambda objective (Pegasos, "
            "subgradient); mistake bounds for the perceptron family; Winnow is scored on "
            "mistakes and error only. `F - F*` is the last iterate, `F(avg) - F*` the "
            "average of the iterates; `rate` is the fitted slope of log(F - F*) against "
            "log t for t >= sqrt(T), on the average of the iterates when the learner "
            "keeps one, otherwise on the last iterate (" + _rate_iterates(self.rows) + "); "
            "`dist` is ||w~_t - w~*|| / ||w~*||; `dual gap` is F(w_t) - lambda D(clip(a_t)) "
            ">= F(w_t) - F*; `bound` is the tightest mistake bound that applies: "
            "Novikoff's (R/gamma*)^2 when separable, the general bound for c u (u = w~*, "
            "hinge over every round) at the best c, or the same theorem with the hinge over "
            "the mistake rounds at c = 1; `ok` says whether every checkpoint of every seed "
            "respected every one of them (docs/compare.md, section 6). `margin` is the "
            "geometric margin the iterate attains, min_i y_i w~_t.z_i / ||w~_t||.",
            "",
        ]
        for row in self.rows:
            if row.get("mistake_bound_kind"):
                kinds = {
                    "novikoff": "Novikoff",
                    "general_bound_best": "general, best scale",
                    "mistake_rounds_bound": "mistake rounds, c = 1",
                    "general_bound": "general, textbook",
                }
                extra = (
                    ""
                    if row.get("general_bound") is None
                    else f"; the textbook L + R||u|| sqrt(L) + R^2||u||^2 says "
                    f"{row['general_bound']:.6g}"
                )
                lines.append(
                    f"Mistake bound of {row['label']} ({row['order']}): "
                    f"{row['mistake_bound']:.6g} "
                    f"({kinds[row['mistake_bound_kind']]}){extra}."
                )
        na: dict[tuple[str, str], str] = {}
        for r in self.runs:
            for k, why in r.not_available.items():
                na.setdefault((r.label, k), why)
        if na:
            lines.append("")
            lines += [f"N/A for {label}: {k}: {why}." for (label, k), why in na.items()]
        if any(r.get("mistake_bound_kind") for r in self.rows) or na:
            lines.append("")
        for r in self.rows:
            if r.get("diverged"):
                # a learner's run diverged; weights from elsewhere are only not finite
                what = "NOT FINITE" if r["order"] == "external" else "DIVERGED"
                lines.append(
                    f"**{what}** {r['label']} ({r['order']}): {r['diverged']}. Its "
                    "scores stop at the last finite checkpoint (the final values "
                    "are N/A); the figures show the finite part."
                )
                lines.append("")
        reg = [r for r in self.rows if r.get("regret_bound_respected") is not None]
        if reg:
            lines.append(
                "Pegasos regret bound G^2 (1 + ln t)/(2 lambda): "
                + ", ".join(
                    f"{r['label']}/{r['order']}: "
                    f"{'respected' if r['regret_bound_respected'] else 'VIOLATED'}"
                    for r in reg
                )
                + "."
            )
            lines.append("")
        tm = self.timings
        lines.append(
            f"Time: exact solve {tm.get('solve_seconds', 0):.3f} s, learning "
            f"{tm.get('learn_seconds', 0):.3f} s, evaluation against the optimum "
            f"{tm.get('eval_seconds', 0):.3f} s, total {tm.get('total_seconds', 0):.3f} s."
        )
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return (
            f"Comparison({self.problem!r}, F*={self.F_star:.6g}, "
            f"learners={self.labels}, runs={len(self.runs)})"
        )


# --------------------------------------------------------------------------- compare


def _check_seq(name: str, value: Any) -> tuple:
    if isinstance(value, (str, int, np.integer)):
        value = (value,)
    try:
        out = tuple(value)
    except TypeError:
        raise ParameterError(f"{name} must be a sequence, got {value!r}") from None
    if not out:
        raise ParameterError(f"{name} is empty; give at least one")
    return out


def _labels() -> Any:
    """A labeller: the name, then ``name-2``, ``name-3`` for repeats."""
    seen: dict[str, int] = {}

    def label(name: str) -> str:
        seen[name] = seen.get(name, 0) + 1
        return name if seen[name] == 1 else f"{name}-{seen[name]}"

    return label


def _build_learners(
    learners: Any, problem: SVMProblem, label: Any
) -> list[tuple[str, OnlineLearner]]:
    """The learners to run, built for the problem.

    Names or ``module:Class`` targets and classes are built for the problem, built-in learners
    taken as given, learners of the public protocol wrapped.
    """
    if learners is None:
        return []
    if isinstance(learners, (str, type, OnlineLearner)) or is_learner(learners):
        learners = [learners]
    try:
        items = list(learners)
    except TypeError:
        raise ParameterError(
            f"learners must be a sequence of learners (names, classes or objects), got "
            f"{type(learners).__name__}"
        ) from None
    out: list[tuple[str, OnlineLearner]] = []
    for item in items:
        if isinstance(item, (str, type)):
            learner = learner_for(item, problem)
        elif isinstance(item, OnlineLearner):
            learner = item
        elif is_learner(item):
            learner = as_learner(
                item, intercept=problem.intercept, intercept_scaling=problem.intercept_scaling
            )
        else:
            raise ParameterError(
                f"learners must be names ({', '.join(LEARNERS)}, or module:Class), learner "
                f"classes, OnlineLearner objects or objects with start, step and weights "
                f"(docs/own-learner.md); got {type(item).__name__}"
            )
        _check_learner(learner, problem)
        out.append((label(learner.name), learner))
    return out


def _check_learner(learner: OnlineLearner, problem: SVMProblem) -> None:
    """Refuse a learner that does not solve ``problem`` (see its declarations)."""
    s = problem.intercept_scaling
    if learner.intercept != problem.intercept or (
        learner.intercept != "none" and learner.intercept_scaling != s
    ):
        raise ParameterError(
            f"{learner!r} has intercept={learner.intercept!r} (scaling "
            f"{learner.intercept_scaling:g}) but the problem has "
            f"intercept={problem.intercept!r} (scaling {s:g}); the learner must solve the "
            "same problem: build it with the problem's intercept and intercept_scaling"
        )
    declared = objective_parameter(learner)
    if declared is not None:
        name, value = declared
        if not math.isclose(value, getattr(problem, name), rel_tol=1e-9):
            raise ParameterError(
                f"{learner!r} minimises the {learner.objective} objective with "
                f"{name}={value:g}, but the problem has lam={problem.lam:g} "
                f"(C={problem.C:g}); build it with {name}=problem.{name} or pass its name"
            )
    if not learner.has_weights:
        raise ParameterError(
            f"{learner!r} has no weight vector to measure against the linear optimum (a "
            "non-linear kernel); use kernel='linear'"
        )


def _declared_of(trace: Trace, kind: str | None = None) -> Declared:
    """What a trace is scored on.

    ``kind`` when given, else what its learner declared (recorded by
    :func:`~maxmargin.online.run`), else the objective.
    """
    if kind is not None:
        return Declared.of_kind(kind, trace.learner)
    if trace.declares:
        return Declared.from_dict(trace.declares)
    return Declared.of_kind("objective", trace.learner)


def _check_trace(trace: Any, problem: SVMProblem, decl: Declared) -> None:
    """Refuse a trace not recorded on ``problem``'s data and intercept, or of another objective."""
    if not isinstance(trace, Trace):
        raise ParameterError(
            f"traces must be maxmargin.Trace objects (Trace.from_weights, "
            f"Trace.load, run); got {type(trace).__name__}"
        )
    if (trace.n, trace.d) != (problem.n, problem.d):
        raise DataError(
            f"the trace {trace.learner!r} was recorded on (n, d) = ({trace.n}, "
            f"{trace.d}) but the problem's data {problem.data.name} has "
            f"({problem.n}, {problem.d})"
        )
    if trace.intercept != problem.intercept or (
        problem.intercept == "augmented" and trace.intercept_scaling != problem.intercept_scaling
    ):
        raise ParameterError(
            f"the trace {trace.learner!r} has intercept={trace.intercept!r} (scaling "
            f"{trace.intercept_scaling:g}) but the problem has "
            f"intercept={problem.intercept!r} (scaling {problem.intercept_scaling:g}): score "
            "a trace against the problem its learner solves"
        )
    if decl.objective is not None:
        name = "lam" if decl.objective == "lambda" else "C"
        value = trace.params.get(name)
        if isinstance(value, (int, float)) and not math.isclose(
            float(value), getattr(problem, name), rel_tol=1e-9
        ):
            raise ParameterError(
                f"the trace {trace.learner!r} minimised the {decl.objective} objective with "
                f"{name}={value:g}, but the problem has lam={problem.lam:g} (C={problem.C:g})"
            )


def _certified(sol: ExactSolution, what: str) -> ExactSolution:
    """Re-certify from the data; refuse a reference the certificate does not confirm."""
    cert = certify(sol.problem, sol.w, sol.b, sol.alpha)
    if not cert.ok:
        k, v = cert.worst()
        why = (
            f"double precision cannot decide: {cert.undecided}"
            if cert.undecided
            else f"relative gap {cert.relative_gap:.2e}, worst KKT residual {k} = {v:.2e} > "
            f"tol {cert.tol:.0e}"
        )
        raise CertificateError(
            f"{sol.problem.data.name}: the {what} optimum is not certified ({why}); "
            "refusing to measure learners against it. Try another "
            "solver= (PIQP, CLARABEL), standardise the features, or a smaller C"
        )
    return sol


def _weighted_hinge(problem: SVMProblem, reference: ExactSolution) -> np.ndarray:
    """The optimum's loss on each example, ``s_i hinge_i``.

    The trace's ``loss`` sums the same with the learner's iterates: the regret compares the two.
    """
    hinge = problem.hinge(reference.w, reference.b)
    return hinge if problem.weights is None else problem.weights * hinge


def _prefix_at(values: np.ndarray, idx: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``sum_{s <= t} values[idx[s-1]]`` at each checkpoint ``t``."""
    c = np.cumsum(values[idx])
    return c[t - 1]


def _dual_objective(problem: SVMProblem, alpha: np.ndarray) -> np.ndarray:
    """``D(alpha)`` for alpha of shape (k, n), as ``SVMProblem.dual_objective``.

    Computed as ``(alpha * y) @ Z`` (one BLAS call on C-ordered operands): the
    ``Z.T @ (alpha * y).T`` of ``SVMProblem.dual_weights`` measured 40x slower here
    (20000 x 51 dense, k = 52: 0.9 s against 0.02 s).
    """
    ay = alpha * problem.data.y
    Z = problem.Z
    v = np.asarray(Z.T @ ay.T).T if sp.issparse(Z) else ay @ Z
    return alpha.sum(axis=-1) - 0.5 * np.einsum("kj,kj->k", v, v)


class _Optimum:
    """The certified optimum and what the scoring reads of it.

    Attributes
    ----------
    problem : SVMProblem
    solution : ExactSolution
    hard : ExactSolution or None
        The certified hard margin (separable data).
    holdout : Dataset or None
    w_star : ndarray of shape (d',)
        The optimum in the problem's regularised space (``w~*``; ``w*`` for ``free``).
    F_star : float
    hinge_star : ndarray of shape (n,)
    """

    def __init__(
        self,
        problem: SVMProblem,
        solution: ExactSolution,
        hard: ExactSolution | None,
        holdout: Dataset | None,
    ) -> None:
        self.problem, self.solution, self.hard, self.holdout = problem, solution, hard, holdout
        self.w_star = problem.to_augmented(solution.w, solution.b)
        self.F_star = float(problem.lam * solution.certificate.primal_objective)
        self.hinge_star = _weighted_hinge(problem, solution)

    def space(self, s: float) -> tuple[float, float, np.ndarray, float]:
        r"""``(R, ||u||, m, gamma)`` in the learners' space, where the mistake bounds live.

        ``R = max ||z_i||``, ``u`` the optimum in that space, ``m_i = y_i u.z_i`` and
        ``gamma`` the margin of the hard-margin optimum there (nan: not separable). The
        learners' space is the problem's for ``none`` and ``augmented``; with a free
        intercept the learners see ``z = (x, s)`` (their bias feature ``s``) and the
        optimum is :math:`u = (w^*, b^*/s)`, the comparator the perceptron's analysis
        takes in that space.
        """
        p = self.problem
        if p.intercept != "free":
            m = p.data.y * np.asarray(p.Z @ self.w_star).ravel()
            gamma = math.nan if self.hard is None else float(self.hard.margin)
            return float(p.R), float(np.linalg.norm(self.w_star)), m, gamma
        R = math.sqrt(float(np.max(p.data.row_norms() ** 2, initial=0.0)) + s * s)
        u = np.append(self.solution.w, self.solution.b / s)
        gamma = (
            math.nan
            if self.hard is None
            else 1.0 / float(np.linalg.norm(np.append(self.hard.w, self.hard.b / s)))
        )
        return R, float(np.linalg.norm(u)), p.margins(self.solution.w, self.solution.b), gamma


def _evaluate(label: str, decl: Any, tr: Trace, opt: _Optimum) -> RunResult:
    """Score one trace.

    ``decl`` is its learner, or what the learner declared
    (:class:`~maxmargin.online.learner.Declared`).
    """
    tic = time.perf_counter()
    kind = scoring(decl)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        res = _scores(decl, tr, opt, kind)
    train, at = res.pop("train_error"), tr.diverged_at
    mistakes = tr.mistakes
    if at is not None:  # score the finite prefix only: nan from the first bad checkpoint on
        j = int(np.searchsorted(tr.t, at))
        mistakes = mistakes.astype(float)
        for arr in [train, mistakes, *(v for v in res.values() if isinstance(v, np.ndarray))]:
            arr[j:] = np.nan
        for key in ("rate", "rate_avg"):
            res.pop(key, None)
    return RunResult(
        label=label,
        learner=tr.learner,
        order=tr.order,
        seed=tr.seed,
        kind=kind,
        trace=tr,
        t=tr.t,
        mistakes=mistakes,
        train_error=train,
        diverged_at=at,
        learn_seconds=float(tr.timings.get("learn_seconds", tr.seconds[-1])),
        eval_seconds=time.perf_counter() - tic,
        theory_slope=_theory_slope(decl, kind),
        **res,
    )


def _theory_slope(decl: Any, kind: str) -> float:
    """The rate the learner declares for the objective it minimises (nan: none)."""
    rate = None if kind != "objective" else decl.theory_rate
    return math.nan if rate is None else float(rate)


def _scores(decl: Any, tr: Trace, opt: _Optimum, kind: str) -> dict[str, Any]:
    problem, w_star = opt.problem, opt.w_star
    lam = problem.lam
    na: dict[str, str] = {}  # quantity -> why it is N/A
    if "loss" in tr.missing:
        na["regret"] = "needs every step's loss and example; " + tr.missing["loss"]
    if "mistakes" in tr.missing:
        na["mistakes"] = tr.missing["mistakes"]
    if tr.dual is None and kind == "objective" and decl.has_dual:
        na["dual_gap"] = (
            "needs the implied dual points of the iterates, which the run did "
            "not record (run(..., record_dual=True) does)"
        )
    elif tr.dual is None and kind == "objective" and tr.missing:
        na["dual_gap"] = "needs the implied dual points (multipliers) of the iterates"
    y = problem.data.y
    t = tr.t
    Wt = tr.w_tilde()  # (k, d')
    Mg = problem.margins(tr.w, tr.b)  # (n, k): y_i f_t(x_i), one matrix product
    svm_space = kind != "mistakes"  # Winnow's rule: f > 0 predicts +1, a zero score -1
    if svm_space:
        train = np.mean(Mg <= 0, axis=0)
    else:
        f = problem.decision_function(tr.w, tr.b)
        train = np.mean(prediction_errors(f, y, svm_space=False), axis=0)
    test = None
    if opt.holdout is not None:
        fh = np.asarray(opt.holdout.X @ tr.w.T) + tr.b
        test = np.mean(prediction_errors(fh, opt.holdout.y, svm_space), axis=0)
    res: dict[str, Any] = {"test_error": test}
    R, u_norm, u_margins, gamma = opt.space(tr.intercept_scaling)
    # which example every step saw: the run's schedule, unless the learner picks its own
    on_schedule = decl.visits_schedule and "loss" not in tr.missing and tr.order in ORDERS
    weighted = problem.weights is not None
    if weighted and decl.mistake_driven:
        na["novikoff"] = na["general_bound"] = na["mistake_rounds_bound"] = (
            "weighted steps: the mistake bounds are for unit steps"
        )
    if not decl.visits_schedule and "regret" not in na:
        na["regret"] = na["general_bound"] = (
            f"{decl.name} chooses its own examples (a random current mistake), not the "
            "run's order: sums along the order do not apply"
        )
    if kind != "mistakes":
        nrm = np.linalg.norm(Wt, axis=1)
        ns = float(np.linalg.norm(w_star))
        with np.errstate(invalid="ignore", divide="ignore"):
            res["cosine"] = np.where(nrm > 0, Wt @ w_star / (nrm * ns), np.nan)
            res["margin"] = np.where(nrm > 0, Mg.min(axis=0) / nrm, np.nan)
        if on_schedule:
            # regret against w*: sum_s f_s(w_s) - sum_s f_s(w*)
            idx = schedule(tr.n, tr.epochs, tr.order, int(tr.seed or 0))
            L = _prefix_at(opt.hinge_star, idx, t)
            res["regret"] = 0.5 * lam * tr.sqnorm + tr.loss - (L + 0.5 * lam * t * ns * ns)
        if decl.mistake_driven and not weighted:
            res.update(
                _mistake_bounds(
                    decl, tr, (R, u_norm, u_margins, gamma), (idx, L) if on_schedule else None
                )
            )
    if kind == "objective":
        res.update(_objective_scores(decl, tr, opt, Wt, Mg, R))
    for key in list(na):  # a quantity computed anyway (e.g. from another field) stays
        if res.get(key) is not None:
            del na[key]
    res["not_available"] = na
    res["train_error"] = train
    return res


def _objective_scores(
    decl: Any, tr: Trace, opt: _Optimum, Wt: np.ndarray, Mg: np.ndarray, R: float
) -> dict[str, Any]:
    """What a learner that minimises the problem's objective is scored on.

    Suboptimality, distance, rate, implied-dual gap (of the iterate and of the average), regret
    bound.
    """
    problem, w_star, F_star = opt.problem, opt.w_star, opt.F_star
    lam, t = problem.lam, tr.t
    res: dict[str, Any] = {}

    sw = problem.weights

    def objective(W: np.ndarray, M: np.ndarray) -> np.ndarray:
        hinge = np.maximum(0.0, 1 - M)
        loss = hinge.mean(0) if sw is None else sw @ hinge / problem.n  # F's (1/n) sum s_i
        return 0.5 * lam * np.einsum("kj,kj->k", W, W) + loss

    F = objective(Wt, Mg)
    res.update(
        objective=F,
        subopt=F - F_star,
        rel_subopt=(F - F_star) / F_star,
        distance=np.linalg.norm(Wt - w_star, axis=1) / np.linalg.norm(w_star),
    )
    res["rate"] = fit_rate(t, F - F_star)
    if tr.w_avg is not None:
        Wa = tr.w_tilde(average=True)
        Fa = objective(Wa, problem.margins(tr.w_avg, tr.b_avg))
        res.update(
            objective_avg=Fa,
            subopt_avg=Fa - F_star,
            rel_subopt_avg=(Fa - F_star) / F_star,
            distance_avg=np.linalg.norm(Wa - w_star, axis=1) / np.linalg.norm(w_star),
        )
        res["rate_avg"] = fit_rate(t, Fa - F_star)
    if tr.dual is not None:
        res["dual_gap"] = F - lam * _dual_objective(problem, feasible_dual(tr.dual, problem))
    if tr.dual_avg is not None and tr.w_avg is not None:
        res["dual_gap_avg"] = res["objective_avg"] - lam * _dual_objective(
            problem, feasible_dual(tr.dual_avg, problem)
        )
    G = None if sw is not None else decl.regret_lipschitz(R)
    if G is not None:
        res["regret_G"] = G
        res["regret_bound"] = G * G * (1 + np.log(t)) / (2 * lam)
    return res


def _mistake_bounds(
    decl: Any,
    tr: Trace,
    space: tuple[float, float, np.ndarray, float],
    visited: tuple[np.ndarray, np.ndarray] | None,
) -> dict[str, Any]:
    """Novikoff's and the general mistake bounds for a learner of the perceptron family.

    The bounds of ``docs/compare.md`` (section 6), in the learner's space (``space`` = ``(R,
    ||u||, m, gamma)``, see :meth:`_Optimum.space`); ``visited`` = (the examples seen, the
    prefix sums of ``u``'s hinge at the checkpoints), None when the learner does not follow the
    schedule.
    """
    R, ns, m, gamma = space
    # the margin perceptron (update on y w.z <= tau, step eta): R^2 -> R^2 + 2 tau / eta
    tau, eta = float(decl.update_margin), float(decl.update_step)
    Rt = R if tau == 0.0 else math.sqrt(R * R + 2.0 * tau / eta)
    out: dict[str, Any] = {}
    if math.isfinite(gamma):
        out["novikoff"] = (Rt / gamma) ** 2
    if visited is not None:
        idx, L = visited
        out["general_bound"] = L + Rt * ns * np.sqrt(L) + (Rt * ns) ** 2  # textbook form
        counts = _visit_counts(idx, tr.n, tr.t)
        out["general_bound_best"], out["general_scale"] = best_scale_mistake_bound(
            m, counts, Rt * ns
        )
    if tr.dual is not None and decl.dual_counts_updates:
        out["mistake_rounds_bound"], _ = best_scale_mistake_bound(
            m, tr.dual / eta, Rt * ns, scale=1.0
        )
    return out


def score_trace(
    trace: Trace,
    reference: ExactSolution,
    *,
    kind: str | None = None,
    label: str | None = None,
    holdout: Dataset | None = None,
    hard_reference: ExactSolution | None = None,
) -> RunResult:
    r"""Score one trace against a certified optimum, exactly as :func:`compare` scores a run.

    The trace may come from :func:`maxmargin.online.run` (it records what its learner
    declared, :attr:`~maxmargin.Trace.declares`, so it is scored as its run was) or from
    elsewhere (:meth:`~maxmargin.Trace.from_weights`, whose ``kind`` says what applies).
    What the trace lacks (:attr:`~maxmargin.Trace.missing`) is N/A, with the reason in
    :attr:`RunResult.not_available`. ``compare(..., traces=[...])`` scores its traces so.

    Parameters
    ----------
    trace : Trace
        On the reference's data (same ``n``, ``d``) and with its intercept mode (for an
        ``augmented`` problem, the same ``intercept_scaling``).
    reference : ExactSolution
        A soft-margin optimum; re-certified here, never trusted. Any intercept, ``free``
        included (then ``F`` leaves ``b`` unregularised, and distance and cosine are of
        ``w``).
    kind : {"objective", "linear", "mistakes"}, optional
        Overrides what the trace declares: ``objective``, the trace minimises the
        reference's lambda objective (every quantity); ``linear``, another linear
        classifier (margin, cosine, errors); ``mistakes``, errors only. Default: the
        trace's declarations (``objective`` for a trace that has none).
    label : str, optional
        Default: the trace's learner name.
    holdout : Dataset, optional
        For the test error.
    hard_reference : ExactSolution, optional
        The certified hard-margin optimum (for ``gamma*``), when separable.

    Returns
    -------
    RunResult

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem, Trace, make_gaussians, solve
    >>> ds = make_gaussians(40, 2, seed=0)
    >>> ref = solve(SVMProblem(ds, lam=0.1, intercept="none"))
    >>> tr = Trace.from_weights([40, 80], [ref.w * 0.5, ref.w], name="mine", data=ds)
    >>> r = score_trace(tr, ref)
    >>> bool(r.subopt[0] > 0), abs(float(r.subopt[-1])) < 1e-9, r.regret is None
    (True, True, True)
    """
    if not isinstance(trace, Trace):
        raise ParameterError(f"trace must be a maxmargin.Trace, got {type(trace).__name__}")
    if not isinstance(reference, ExactSolution) or reference.problem.hard:
        raise ParameterError(
            "reference must be the soft-margin ExactSolution (maxmargin.solve "
            "of an SVMProblem with C or lam) the trace is scored against"
        )
    if kind is not None and kind not in SCORINGS:
        raise ParameterError(f"kind must be one of {', '.join(SCORINGS)}, got {kind!r}")
    problem = reference.problem
    decl = _declared_of(trace, kind)
    _check_trace(trace, problem, decl)
    if holdout is not None and (not isinstance(holdout, Dataset) or holdout.d != problem.d):
        raise DataError(f"holdout must be a Dataset with d = {problem.d} features")
    reference = _certified(reference, "soft-margin")
    hard = None
    if hard_reference is not None:
        hp = getattr(hard_reference, "problem", None)
        if (
            not isinstance(hard_reference, ExactSolution)
            or hp is None
            or (hp.data is not problem.data or not hp.hard or hp.intercept != problem.intercept)
        ):
            raise ParameterError(
                "hard_reference must be the hard-margin ExactSolution of the "
                "same data and intercept"
            )
        hard = _certified(hard_reference, "hard-margin")
    return _evaluate(
        label or trace.learner, decl, trace, _Optimum(problem, reference, hard, holdout)
    )


def compare(
    data: Dataset,
    problem: SVMProblem | None = None,
    learners: Any = None,
    *,
    C: float | None = None,
    lam: float | None = None,
    intercept: str = "augmented",
    intercept_scaling: float = 1.0,
    epochs: int = 10,
    orders: Sequence[str] | str = ("shuffle",),
    seeds: Sequence[int] | int = (0,),
    holdout: Dataset | None = None,
    checkpoints: Any = None,
    reference: ExactSolution | None = None,
    solver: str | None = None,
    progress: bool = False,
    hard_reference: ExactSolution | SeparationCertificate | None = None,
    random_state: Any = None,
    alpha: float | None = None,
    max_iter: int | None = None,
    traces: Any = None,
) -> Comparison:
    r"""Run online learners and measure them against the certified exact optimum.

    Parameters
    ----------
    data : Dataset
        The training data.
    problem : SVMProblem, optional
        A soft-margin problem on ``data``, any intercept: ``augmented`` and ``none`` as
        the learners see them, ``free`` with the learners updating an unregularised bias.
        Give either ``problem`` or ``C`` / ``lam`` (default ``C = 1``).
    learners : sequence, optional
        Each a name of :data:`maxmargin.online.LEARNERS` or ``module:Class`` /
        ``path/file.py:Class``, or a learner class (built with the problem's intercept,
        ``lam`` for ``pegasos``/``subgradient``, ``C`` for ``pa1``/``pa2``: the
        parameter the class declares), or a learner object: an
        :class:`~maxmargin.online.OnlineLearner`, which must match the problem's
        intercept (and ``lam``), or an object with ``start``, ``step`` and ``weights``
        (docs/own-learner.md), run with the problem's intercept.
    C, lam : float, optional
        The soft-margin parameter, one of them (when ``problem`` is not given).
    intercept : {"augmented", "none", "free"}
        Intercept mode of the problem built from ``C`` / ``lam``.
    intercept_scaling : float
        ``s`` of the bias feature the learners see (``augmented``, ``free``).
    epochs : int
    orders : sequence of {"cyclic", "shuffle", "sample"}
    seeds : sequence of int
    holdout : Dataset, optional
        Held-out data (same ``d``) for the test error.
    checkpoints : sequence of int, optional
        Passed to :func:`maxmargin.online.run` (default geometric + epoch ends).
    reference : ExactSolution, optional
        A precomputed optimum of ``problem`` (re-certified here, never trusted).
    solver : str, optional
        QP solver for the exact solves.
    progress : bool
        A progress bar on a terminal.
    hard_reference : ExactSolution or SeparationCertificate, optional
        What decides separability, precomputed (re-checked here, never trusted): the
        hard-margin optimum of ``data`` with the problem's intercept (re-certified), or a
        certificate that the data are not separable (re-verified with
        :func:`~maxmargin.verify_separation`). Default: solve the separation LP (and the
        hard margin when separable) here.
    random_state : int >= 0 or numpy RandomState, optional
        scikit-learn's name for one seed: ``random_state=s`` is ``seeds=(s,)``.
    alpha : float > 0, optional
        scikit-learn's name for ``lam`` (SGDClassifier's ``alpha`` is this lambda).
    max_iter : int >= 1, optional
        scikit-learn's name for ``epochs`` (SGDClassifier's: passes over the data).
    traces : sequence of Trace, optional
        Trajectories recorded elsewhere (:meth:`~maxmargin.Trace.from_weights`,
        :meth:`~maxmargin.Trace.load`), scored as :func:`score_trace` scores them, beside
        or instead of the learners: one run each, with their own order; what a trace
        lacks is N/A with the reason.

    Returns
    -------
    Comparison

    Raises
    ------
    ParameterError
        Neither learners nor traces, unknown learners, both ``C`` and ``lam`` (or with
        ``problem``), a hard-margin problem, a learner or trace whose intercept or
        ``lam`` differs.
    DataError
        A holdout or trace whose ``d`` differs.
    CertificateError
        The optimum's certificate fails.

    Notes
    -----
    ``F*`` is :math:`\lambda P(\tilde w^*)` of the certified optimum. The implied dual
    gap uses :func:`feasible_dual`; by weak duality

    .. math:: F(\tilde w_t) - \lambda D(\Pi(a_t)) \ge F(\tilde w_t) - F^* \ge 0 .

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> cmp = compare(make_separable(40, 2, seed=0), learners=["perceptron", "pegasos"],
    ...               lam=0.05, intercept="none", epochs=3)
    >>> [row["label"] for row in cmp.rows]
    ['perceptron', 'pegasos']
    >>> bool(cmp.rows[0]["novikoff_respected"]), cmp.rows[0]["subopt"] is None
    (True, True)
    """
    tic_all = time.perf_counter()
    lam = resolve_alias("lam", lam, None, "alpha", alpha)  # scikit-learn's names
    epochs = resolve_alias("epochs", epochs, 10, "max_iter", max_iter)
    problem = _problem_of(data, problem, C, lam, intercept, intercept_scaling)
    label = _labels()
    built = _build_learners(learners, problem, label)
    given = _given_traces(traces, problem, label)
    if not built and not given:
        empty = (
            "the learners list is empty and no traces were given"
            if learners is not None
            else "no learners and no traces"
        )
        raise ParameterError(
            f"{empty}: give learners (names such as "
            f"{', '.join(list(LEARNERS)[:3])}, module:Class, classes or "
            "learner objects) or traces (Trace objects), or both"
        )
    orders = _check_orders(orders)
    if random_state is not None:  # scikit-learn's name for one seed
        given_seeds = tuple(seeds) if isinstance(seeds, (list, tuple)) else (seeds,)
        seeds = (
            seed_from_random_state(
                random_state, given_seeds[0] if len(given_seeds) == 1 else given_seeds, name="seeds"
            ),
        )
    epochs = check_int("epochs", epochs, minimum=1)
    seeds = _check_seeds(seeds, built, orders, data, epochs, checkpoints)
    n_runs = len(built) * len(orders) * len(seeds)
    gave = "lam" if lam is not None else "C" if C is not None else None
    for _, learner in built:
        _check_steps(learner, problem, data.n, epochs, gave)
    _check_holdout(holdout, data)

    tic = time.perf_counter()
    reference = _soft_reference(problem, reference, solver)
    hard_solution = _hard_solution(problem, hard_reference, solver)
    solve_s = time.perf_counter() - tic
    opt = _Optimum(problem, reference, hard_solution, holdout)
    R, _, _, gamma = opt.space(problem.intercept_scaling)

    runs: list[RunResult] = []
    with Progress(n_runs * data.n * epochs, "compare", enabled=progress) as bar:
        for (name, learner), order, seed in itertools.product(built, orders, seeds):
            tr = run(
                learner,
                data,
                epochs=epochs,
                order=order,
                seed=seed,
                checkpoints=checkpoints,
                record_dual=True,
                sample_weight=problem.weights,
            )
            runs.append(_evaluate(name, learner, tr, opt))
            bar.update(data.n * epochs)
    runs += [_evaluate(name, decl, tr, opt) for name, decl, tr in given]
    keys = list(dict.fromkeys((r.label, r.order) for r in runs))
    rows = [_summary_row([r for r in runs if (r.label, r.order) == key]) for key in keys]
    for row in rows:
        row["scored_against"] = _scored_against(problem)
    timings = {
        "solve_seconds": solve_s,
        "learn_seconds": float(
            sum(r.learn_seconds for r in runs if math.isfinite(r.learn_seconds))
        ),
        "eval_seconds": float(sum(r.eval_seconds for r in runs)),
        "total_seconds": time.perf_counter() - tic_all,
    }
    return Comparison(
        problem=problem,
        reference=reference,
        hard_solution=hard_solution,
        runs=tuple(runs),
        rows=tuple(rows),
        F_star=opt.F_star,
        R=R,
        gamma=gamma,
        holdout=holdout,
        epochs=int(epochs),
        orders=orders,
        seeds=seeds,
        timings=timings,
    )


def _given_traces(
    traces: Any, problem: SVMProblem, label: Any
) -> list[tuple[str, Declared, Trace]]:
    """The traces to score, checked, with their labels and declarations."""
    if traces is None:
        return []
    if isinstance(traces, Trace):
        traces = [traces]
    try:
        items = list(traces)
    except TypeError:
        raise ParameterError(
            f"traces must be a sequence of Trace objects, got {type(traces).__name__}"
        ) from None
    out = []
    for tr in items:
        decl = _declared_of(tr) if isinstance(tr, Trace) else Declared()
        _check_trace(tr, problem, decl)
        out.append((label(tr.learner), decl, tr))
    return out


def _space_note(problem: SVMProblem) -> str:
    """How the scores relate to the learners' space, for a free intercept."""
    if problem.intercept != "free":
        return ""
    return (
        " The learners update their bias b = s w~_(d+1) without shrinking it; F, its "
        "gaps and the errors are of (w, b), distance, cosine and margin of w; the "
        "mistake bounds live in the learners' space z = (x, s), s = "
        f"{problem.intercept_scaling:g}, with u = (w*, b*/s)."
    )


def _scored_against(problem: SVMProblem) -> str:
    """The problem every run is scored against, in words (report and JSON)."""
    return scored_against(problem.C, problem.lam, problem.intercept, problem.intercept_scaling)


def scored_against(C: float, lam: float, intercept: str, intercept_scaling: float) -> str:
    """The soft-margin problem runs are scored against, in words (the reports and JSON).

    Parameters
    ----------
    C, lam : float
        The problem's parameters (``lam = 1/(C n)``).
    intercept : {"free", "augmented", "none"}
    intercept_scaling : float
        ``s`` of ``augmented``.

    Returns
    -------
    str

    Examples
    --------
    >>> scored_against(1.0, 0.01, "free", 1.0)
    'soft margin, C = 1 (lambda = 0.01), intercept free (b unregularised)'
    """
    how = {
        "free": "intercept free (b unregularised)",
        "augmented": f"intercept augmented (b = s w~_(d+1) regularised, s = {intercept_scaling:g})",
        "none": "intercept none (b = 0)",
    }[intercept]
    return f"soft margin, C = {C:.6g} (lambda = {lam:.6g}), {how}"


def _problem_of(
    data: Any,
    problem: SVMProblem | None,
    C: float | None,
    lam: float | None,
    intercept: str,
    intercept_scaling: float,
) -> SVMProblem:
    """The soft-margin problem the learners are measured on, given or built from C / lam."""
    if not isinstance(data, Dataset):
        raise ParameterError(
            f"data must be a maxmargin.Dataset, got {type(data).__name__}; "
            "wrap arrays with Dataset(X, y)"
        )
    if problem is not None:
        if C is not None or lam is not None:
            raise ParameterError(
                "give either problem= or C=/lam=, not both (the problem already fixes C and lam)"
            )
        if not isinstance(problem, SVMProblem):
            raise ParameterError(f"problem must be an SVMProblem, got {type(problem).__name__}")
        if problem.data is not data:
            raise ParameterError(
                "problem was built on another Dataset than data; pass the "
                "problem's own data, or C=/lam= instead of problem"
            )
    else:
        if C is not None and lam is not None:
            raise ParameterError(
                f"give only one of C and lam (got C={C!r}, lam={lam!r}); lam = 1/(C n)"
            )
        problem = SVMProblem(
            data, C=C, lam=lam, intercept=intercept, intercept_scaling=intercept_scaling
        )
    if problem.hard:
        raise ParameterError(
            "compare measures learners against a soft-margin optimum; give "
            "C or lam (the hard margin is solved as well when the data are "
            "separable)"
        )
    return problem


def _check_orders(orders: Any) -> tuple:
    orders = _check_seq("orders", orders)
    for o in orders:
        if o not in ORDERS:
            raise ParameterError(f"unknown order {o!r}; choose from {', '.join(ORDERS)}")
    return orders


def _check_seeds(
    seeds: Any, built: list, orders: tuple, data: Dataset, epochs: int, checkpoints: Any
) -> tuple[int, ...]:
    """The seeds, checked; refused before they are listed when the runs cannot fit.

    Every run's trace is kept: (k, d) weights and (k, n) dual points for k checkpoints.
    """
    per_seed = len(built) * len(orders)  # runs
    T = data.n * epochs
    if checkpoints is None:
        k = _geometric_count(T) + epochs
    else:
        try:
            k = len(np.atleast_1d(checkpoints)) + 1
        except (TypeError, ValueError):
            k = 2  # run() says what is wrong with them
    each = 8.0 * (2 * (data.d + 1) + 3 * data.n) + CHECKPOINT_OVERHEAD  # per checkpoint

    def check(k: int, runs: int) -> None:  # the data's width is the question
        check_memory(
            each * k * runs,
            f"comparing {runs} runs on {data.name} (d = {data.d:,} features)",
            WIDE_HINT,
        )

    check(_geometric_count(T) + 1, per_seed)  # one seed, a checkpoint at one epoch's end
    if checkpoints is None and per_seed:  # a checkpoint at each epoch's end of each run
        check_count(
            "epochs",
            epochs,
            each * per_seed,
            "epochs",
            detail=f"a checkpoint at each epoch's end of {per_seed} run(s) per seed",
            base=each * per_seed * _geometric_count(T),
        )
    if isinstance(seeds, range):  # count it before listing it (the command's 0..K-1)
        if len(seeds) and (seeds.start < 0 or seeds[-1] < 0):
            raise ParameterError(f"seeds must be ints >= 0, got {seeds!r}")
        n_seeds = len(seeds)
    else:
        seeds = _check_seq("seeds", seeds)
        n_seeds = len(seeds)
    if n_seeds == 0:
        raise ParameterError("seeds is empty; give at least one")
    check_count(
        "seeds",
        n_seeds,
        each * k * per_seed,
        "seeds",
        detail=f"{per_seed} run(s) per seed of {k:,} checkpoints, every trace kept",
    )
    check(k, per_seed * n_seeds)
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ParameterError(f"seeds must be ints >= 0, got {s!r}")
    return tuple(int(s) for s in seeds)


def _check_steps(
    learner: OnlineLearner, problem: SVMProblem, n: int, epochs: int, given: str | None
) -> None:
    """:func:`~maxmargin.online.runner.check_steps`, naming the parameter given.

    ``given``: ``"lam"``, ``"C"`` (lam came from it) or None (``problem=``).
    """
    try:
        check_steps(learner, n, epochs)
    except ParameterError as e:
        if given == "lam" or "'lam'" not in str(e):
            raise
        c_min = (n * epochs + 1.0) / 2.0**1023 / n
        head = (
            "The 'C' parameter is too small"
            if given == "C"
            else f"The problem's C = {problem.C!r} is too small"
        )
        raise ParameterError(
            f"{head} for {n * epochs:,} steps of {learner.name}: its lam = 1/(C n) = "
            f"{problem.lam:.3g}, and lam * t must stay below 2**1023 (9e307) for every "
            f"step t; C >= {c_min:.3g} here. Got C = {problem.C!r}."
        ) from None


def _check_holdout(holdout: Any, data: Dataset) -> None:
    if holdout is None:
        return
    if not isinstance(holdout, Dataset):
        raise ParameterError(f"holdout must be a maxmargin.Dataset, got {type(holdout).__name__}")
    if holdout.d != data.d:
        raise DataError(
            f"holdout {holdout.name} has d = {holdout.d} features but the "
            f"training data {data.name} has d = {data.d}; they must match"
        )


def _soft_reference(
    problem: SVMProblem, reference: ExactSolution | None, solver: str | None
) -> ExactSolution:
    """The certified optimum of ``problem``: solved here, or given and re-certified."""
    data = problem.data
    if reference is None:
        reference = solve(problem, solver=solver)
    elif (
        not isinstance(reference, ExactSolution)
        or reference.problem.data is not data
        or (
            reference.problem.hard
            or reference.problem.intercept != problem.intercept
            or not math.isclose(reference.problem.C, problem.C, rel_tol=1e-12)
        )
    ):
        raise ParameterError(
            "reference must be the ExactSolution of this very problem (same data, C and intercept)"
        )
    return _certified(reference, "soft-margin")


def _hard_solution(
    problem: SVMProblem, hard_reference: Any, solver: str | None
) -> ExactSolution | None:
    """The certified hard-margin optimum (None: not separable).

    From ``hard_reference`` (re-checked, never trusted) or decided here by the LP and a solve.
    """
    data = problem.data
    if isinstance(hard_reference, SeparationCertificate):
        if not verify_separation(
            data, hard_reference.z, problem.intercept, tol=hard_reference.tol
        ).verified:
            raise ParameterError(
                "hard_reference: the non-separability certificate does not "
                "verify on these data (intercept "
                f"{problem.intercept!r}); pass None to decide here"
            )
        return None
    if hard_reference is not None:
        hp = getattr(hard_reference, "problem", None)
        if (
            not isinstance(hard_reference, ExactSolution)
            or hp is None
            or hp.data is not data
            or (
                not hp.hard
                or hp.intercept != problem.intercept
                or hp.intercept_scaling != problem.intercept_scaling
            )
        ):
            raise ParameterError(
                "hard_reference must be the hard-margin ExactSolution of "
                "this data (same intercept and scaling) or a "
                "SeparationCertificate"
            )
        return _certified(hard_reference, "hard-margin")
    if not is_separable(data, problem.intercept):
        return None
    hp = SVMProblem(
        data, hard=True, intercept=problem.intercept, intercept_scaling=problem.intercept_scaling
    )
    return _certified(solve(hp, solver=solver), "hard-margin")


# --------------------------------------------------------------------------- demo


def demo_comparison(progress: bool = False) -> Comparison:
    """The built-in demo: generated 2-D data, soft margin, five learners, three seeds.

    ``make_separable(300, 2, margin=0.15, seed=7, offset=0.4)`` (separable, so Novikoff
    applies; the soft margin with ``C = 0.5`` has bound support vectors, so soft and
    hard optima differ), intercept ``augmented``, learners perceptron,
    averaged_perceptron, pegasos, subgradient and pa1, 30 epochs of ``shuffle``, seeds 0
    to 2, a holdout of 300 more points from the same distribution.

    Parameters
    ----------
    progress : bool, default False
        Show a progress bar per run (on stderr).

    Returns
    -------
    Comparison
        15 runs (5 learners x 1 order x 3 seeds) against the certified optimum.

    Examples
    --------
    >>> cmp = demo_comparison()
    >>> len(cmp.runs), cmp.separable
    (15, True)

    ``write_report(cmp, "maxmargin-demo")`` writes the report, its JSON and figures.
    """
    full = make_separable(600, 2, margin=0.15, seed=7, offset=0.4)
    train = full.subset(np.arange(300), name="demo: separable 2-D (n=300)")
    test = full.subset(np.arange(300, 600), name="demo holdout (n=300)")
    return compare(
        train,
        learners=["perceptron", "averaged_perceptron", "pegasos", "subgradient", "pa1"],
        C=0.5,
        intercept="augmented",
        epochs=30,
        orders=("shuffle",),
        seeds=(0, 1, 2),
        holdout=test,
        progress=progress,
    )
