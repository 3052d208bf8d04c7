r"""Scoring a run against a certified reference: suboptimality, gaps, distances, bounds.

:func:`score_trace` (and :func:`~maxmargin.compare`, for every run) evaluates a
:class:`~maxmargin.Trace`'s checkpoints against the certified optimum into a
:class:`RunResult`. The quantities and why each is the right one: ``docs/compare.md``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .. import io
from ..certificate import certify
from ..conventions import DEFAULT_LOSS, summarize
from ..data import Dataset
from ..exceptions import CertificateError, DataError, ParameterError
from ..online import ORDERS, schedule
from ..online.learner import SCORINGS, Declared, prediction_errors, scoring
from ..problem import SVMProblem
from ..solution import ExactSolution
from ..trace import Trace
from .bounds import _mistake_bounds, _theory_slope, feasible_dual, fit_rate

__all__ = ["RunResult", "score_trace"]


class _Counts(io.Series):
    """Mistake counts: ints, floats (NaN from there on) once a run diverged."""

    def load(self, doc: Any) -> np.ndarray:  # noqa: D102
        if isinstance(doc, list) and all(type(v) is int for v in doc):
            return np.asarray(doc, dtype=np.int64)
        return super().load(doc)


@dataclass(frozen=True, eq=False, kw_only=True)
class RunResult(io.Persistent):
    r"""One learner run (one order, one seed) evaluated against the optimum.

    Every array has shape (k,), one entry per checkpoint ``t``; ``None`` means N/A for
    this learner (see :attr:`kind`); ``*_avg`` are of the averaged iterate
    :math:`\bar w_t`. Each quantity is defined in ``docs/compare.md``.

    Attributes
    ----------
    label, learner, order : str
        ``label`` is unique within a comparison (``learner-2`` for a repeat).
    seed : int
    intercept : {"free", "none", "augmented"}
        The intercept mode of the problem the run is scored against (its learner's).
    kind : {"objective", "linear", "mistakes"}
        What the run is scored on, from what its learner declares
        (:func:`maxmargin.online.learner.scoring`).
    trace : Trace or None
        The run's trace; None for a run read from a file.
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
        Fraction with :math:`y f(x) \le 0`; ``test_error`` None without a holdout.
    mistakes : ndarray of int64
        Cumulative online mistakes (the trace's).
    regret : ndarray
        Against :math:`\tilde w^*` of :math:`f_s = \frac\lambda2\|w\|^2 + \ell_s`.
    regret_bound : ndarray
        :math:`G^2 (1 + \ln t)/(2\lambda)`, ``G`` as in :attr:`regret_G`.
    regret_G : float
        The Lipschitz constant of the regret bound (N/A: nan).
    novikoff : float
        :math:`(R/\gamma^*)^2` (perceptron family on separable data), else nan.
    general_bound : ndarray
        :math:`L_t + R\|u\|\sqrt{L_t} + R^2\|u\|^2`, ``u`` the soft optimum.
    general_bound_best, general_scale : ndarray
        :func:`best_scale_mistake_bound` over every round, and the ``c`` it used.
    mistake_rounds_bound : ndarray
        The bound with the hinge of ``u`` summed over the mistake rounds, at ``c = 1``.
    seconds : ndarray or None
        The learning time at each checkpoint (the trace's ``seconds``).
    rate, rate_avg : float
        :func:`fit_rate` of ``subopt`` and ``subopt_avg``.
    learn_seconds, eval_seconds : float
        Compiled learning loop; evaluation against the optimum.
    diverged_at : int or None
        The first checkpoint whose weights are not finite: every score from there is nan.
    theory_slope : float
        The rate the learner's theory gives (its ``theory_rate``), nan when none applies.
    not_available : dict of str -> str
        Quantities that apply but cannot be computed from the trace, with the reason.
    params : dict
        The learner's parameters (the trace's).
    divergence : str or None
        Where and why the run's weights stopped being finite (``trace.divergence()``).

    Examples
    --------
    >>> from maxmargin import compare, make_separable
    >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
    >>> r = cmp.runs[0]
    >>> r.label, r.kind, r.t.shape == r.subopt.shape == r.mistakes.shape
    ('pegasos', 'objective', True)
    """

    label: str
    learner: str
    order: str
    seed: int | None
    intercept: str
    kind: str
    trace: Trace = io.transient()
    t: np.ndarray = io.persist(io.Series(int))
    mistakes: np.ndarray = io.persist(_Counts())
    train_error: np.ndarray = io.persist(io.Series())
    test_error: np.ndarray | None = io.persist(io.Series(), default=None)
    objective: np.ndarray | None = io.persist(io.Series(), default=None)
    subopt: np.ndarray | None = io.persist(io.Series(), default=None)
    rel_subopt: np.ndarray | None = io.persist(io.Series(), default=None)
    objective_avg: np.ndarray | None = io.persist(io.Series(), default=None)
    subopt_avg: np.ndarray | None = io.persist(io.Series(), default=None)
    rel_subopt_avg: np.ndarray | None = io.persist(io.Series(), default=None)
    dual_gap: np.ndarray | None = io.persist(io.Series(), default=None)
    dual_gap_avg: np.ndarray | None = io.persist(io.Series(), default=None)
    distance: np.ndarray | None = io.persist(io.Series(), default=None)
    distance_avg: np.ndarray | None = io.persist(io.Series(), default=None)
    cosine: np.ndarray | None = io.persist(io.Series(), default=None)
    margin: np.ndarray | None = io.persist(io.Series(), default=None)
    regret: np.ndarray | None = io.persist(io.Series(), default=None)
    regret_bound: np.ndarray | None = io.persist(io.Series(), default=None)
    regret_G: float = math.nan
    novikoff: float = math.nan
    general_bound: np.ndarray | None = io.persist(io.Series(), default=None)
    general_bound_best: np.ndarray | None = io.persist(io.Series(), default=None)
    general_scale: np.ndarray | None = io.persist(io.Series(), default=None)
    mistake_rounds_bound: np.ndarray | None = io.persist(io.Series(), default=None)
    seconds: np.ndarray | None = io.persist(io.Series(), default=None)
    rate: float = math.nan
    rate_avg: float = math.nan
    learn_seconds: float = 0.0
    eval_seconds: float = 0.0
    diverged_at: int | None = None
    not_available: dict = field(default_factory=dict)
    theory_slope: float = math.nan
    params: dict = field(default_factory=dict)
    divergence: str | None = None

    COMPUTED: ClassVar[tuple[str, ...]] = (
        "novikoff_respected",
        "general_respected",
        "best_bound_respected",
        "regret_respected",
    )

    @property
    def attained_margin(self) -> np.ndarray | None:
        """:attr:`margin`, named for what it is (``docs/numbers.md``)."""
        return self.margin

    @property
    def _scored(self) -> np.ndarray:
        """The checkpoints before divergence (all of them when the run stayed finite)."""
        return np.ones(len(self.t), bool) if self.diverged_at is None else self.t < self.diverged_at

    def _held(self, values: Any, *bounds: Any, rtol: float = 1e-12, atol: float = 0.0) -> bool:
        """``values <= bound`` (relatively ``rtol``) for each bound at every finite checkpoint."""
        m, v = self._scored, values[self._scored]
        return all(
            bool(np.all(v <= np.broadcast_to(b, m.shape)[m] * (1 + rtol) + atol)) for b in bounds
        )

    @property
    def novikoff_respected(self) -> bool | None:
        """``mistakes <= (R/gamma*)^2`` at every (finite) checkpoint (None: N/A)."""
        return self._held(self.mistakes, self.novikoff) if math.isfinite(self.novikoff) else None

    @property
    def general_respected(self) -> bool | None:
        """``mistakes <= general_bound`` at every (finite) checkpoint (None: N/A)."""
        return None if self.general_bound is None else self._held(self.mistakes, self.general_bound)

    @property
    def best_bound_respected(self) -> bool | None:
        """``mistakes <=`` the best-scale and mistake-rounds bounds at every finite checkpoint."""
        bounds = [b for b in (self.general_bound_best, self.mistake_rounds_bound) if b is not None]
        return self._held(self.mistakes, *bounds) if bounds else None

    @property
    def regret_respected(self) -> bool | None:
        """``regret <= G^2 (1 + ln t)/(2 lam)`` at every (finite) checkpoint (None: N/A)."""
        if self.regret_bound is None or self.regret is None:
            return None
        return self._held(self.regret, self.regret_bound, rtol=1e-9, atol=1e-9)


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


def _final(row: dict[str, Any], runs: Sequence[RunResult], key: str) -> float | None:
    """``row[key]``: the median over seeds of the final values (NaN: a seed diverged)."""
    vals = [getattr(r, key) for r in runs]
    row[key] = row[f"{key}_range"] = None
    if any(v is None for v in vals):
        return None
    if any(r.diverged_at is not None for r in runs):
        row[key] = math.nan
        return math.nan
    mid, lo, hi = summarize([v[-1] for v in vals])
    row[key], row[f"{key}_range"] = mid, [lo, hi]
    return mid


def _all(runs: Sequence[RunResult], flag: str) -> bool | None:
    """Whether every run's ``flag`` holds (None: N/A)."""
    flags = [getattr(r, flag) for r in runs]
    return None if flags[0] is None else all(flags)


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
        "subopt subopt_avg rel_subopt rel_subopt_avg dual_gap dual_gap_avg distance "
        "distance_avg cosine margin train_error test_error mistakes regret"
    ).split():
        _final(row, runs, key)
    row["regret_per_t"] = None if row["regret"] is None else row["regret"] / row["steps"]
    # the mistake bound: the tightest that applies; the textbook general bound kept beside
    row["novikoff"] = r0.novikoff if math.isfinite(r0.novikoff) else None
    for key in ("general_bound", "general_bound_best", "mistake_rounds_bound"):
        _final(row, runs, key)
    for key in ("novikoff_respected", "general_respected", "best_bound_respected"):
        row[key] = _all(runs, key)
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
    row["regret_bound_respected"] = _all(runs, "regret_respected")
    # Rate: fit on the median-over-seeds curve of the iterate the theory is about.
    row["theory_slope"] = r0.theory_slope if math.isfinite(r0.theory_slope) else None
    row["rate"] = row["rate_last"] = None
    if r0.kind == "objective":
        key = "subopt_avg" if r0.subopt_avg is not None else "subopt"
        row["rate_iterate"] = "average" if key == "subopt_avg" else "last"
        row["rate"] = fit_rate(r0.t, summarize([getattr(r, key) for r in runs])[0])
        row["rate_last"] = fit_rate(r0.t, summarize([np.asarray(r.subopt) for r in runs])[0])
    row["learn_seconds"] = summarize([r.learn_seconds for r in runs])[0]
    row["eval_seconds"] = summarize([r.eval_seconds for r in runs])[0]
    gone = [r for r in runs if r.diverged_at is not None]
    row["diverged"] = (
        "; ".join(
            (f"seed {r.seed}: " if r.seed is not None else "") + str(r.divergence) for r in gone
        )
        or None
    )
    if gone:
        row["rate"] = row["rate_last"] = math.nan
    return row


def _declared_of(trace: Trace, kind: str | None = None, loss: str = DEFAULT_LOSS) -> Declared:
    """What a trace is scored on: ``kind``, else its learner's declarations, else the objective."""
    if trace.declares:
        own = io.from_dict(Declared, trace.declares)
        if "loss" not in trace.declares and "loss" in trace.missing:
            own = replace(own, loss=loss)
        if kind is None:
            return own
        return replace(Declared.of_kind(kind, trace.learner), loss=own.loss)
    return replace(Declared.of_kind(kind or "objective", trace.learner), loss=loss)


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
    if decl.objective is not None and decl.loss != problem.loss:
        raise ParameterError(
            f"the trace {trace.learner!r} minimised the {decl.loss} objective but the problem "
            f"has loss={problem.loss!r}: score it against the problem with its loss"
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


def _weighted_losses(losses: np.ndarray, problem: SVMProblem) -> np.ndarray:
    """``s_i loss_i`` (unweighted: the losses): the per-example terms of ``F``'s sum."""
    return losses if problem.weights is None else problem.weights * losses


def _losses(margins: np.ndarray, loss: str) -> np.ndarray:
    """The per-example ``loss`` at the functional margins: ``xi`` or ``xi^2``."""
    xi = np.maximum(0.0, 1.0 - margins)
    return xi * xi if loss == "squared_hinge" else xi


def _prefix_at(values: np.ndarray, idx: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``sum_{s <= t} values[idx[s-1]]`` at each checkpoint ``t``."""
    c = np.cumsum(values[idx])
    return c[t - 1]


def _dual_objective(problem: SVMProblem, alpha: np.ndarray) -> np.ndarray:
    """``D(alpha)`` for alpha of shape (k, n), as ``SVMProblem.dual_objective``.

    ``(alpha * y) @ Z``, one BLAS call: ``Z.T @ (alpha * y).T`` measured 40x slower.
    """
    ay = alpha * problem.data.y
    Z = problem.Z
    v = np.asarray(Z.T @ ay.T).T if sp.issparse(Z) else ay @ Z
    D = alpha.sum(axis=-1) - 0.5 * np.einsum("kj,kj->k", v, v)
    if problem.loss == "squared_hinge":
        costs = problem.C if problem.weights is None else problem.costs
        D = D - (alpha * alpha / (4.0 * costs)).sum(axis=-1)
    return D


class _Optimum:
    """The certified optimum and what the scoring reads of it."""

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
        margins = problem.margins(solution.w, solution.b)
        self.hinge_star = _weighted_losses(_losses(margins, "hinge"), problem)
        self.loss_star = _weighted_losses(_losses(margins, problem.loss), problem)

    def space(self, s: float) -> tuple[float, float, np.ndarray, float]:
        """``(R, ||u||, m_i = y_i u.z_i, gamma)`` in the learners' space (free: ``z = (x, s)``)."""
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
    """Score one trace; ``decl`` is its learner or what the learner declared."""
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
        intercept=opt.problem.intercept,
        kind=kind,
        trace=tr,
        t=tr.t,
        mistakes=mistakes,
        train_error=train,
        diverged_at=at,
        seconds=None if "seconds" in tr.missing else np.asarray(tr.seconds, float),
        learn_seconds=float(tr.timings.get("learn_seconds", tr.seconds[-1])),
        eval_seconds=time.perf_counter() - tic,
        theory_slope=_theory_slope(decl, kind),
        params=dict(tr.params),
        divergence=tr.divergence() or None,
        **res,
    )


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
            idx = schedule(tr.n, tr.epochs, tr.order, int(tr.seed or 0))
            own = getattr(decl, "loss", DEFAULT_LOSS)  # the loss the trace's loss sums
            star = opt.loss_star if own == problem.loss else opt.hinge_star
            L = _prefix_at(star, idx, t)
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
    """Suboptimality, distance, rate, dual gaps and regret bound of an objective learner."""
    problem, w_star, F_star = opt.problem, opt.w_star, opt.F_star
    lam, t = problem.lam, tr.t
    res: dict[str, Any] = {}

    sw = problem.weights

    def objective(W: np.ndarray, M: np.ndarray) -> np.ndarray:
        losses = _losses(M, problem.loss)
        loss = losses.mean(0) if sw is None else sw @ losses / problem.n  # F's (1/n) sum s_i
        return 0.5 * lam * np.einsum("kj,kj->k", W, W) + loss

    def score(suffix: str, W: np.ndarray, M: np.ndarray, dual: np.ndarray | None) -> None:
        F = objective(W, M)
        res[f"objective{suffix}"], res[f"subopt{suffix}"] = F, F - F_star
        res[f"rel_subopt{suffix}"] = (F - F_star) / F_star
        res[f"distance{suffix}"] = np.linalg.norm(W - w_star, axis=1) / np.linalg.norm(w_star)
        res[f"rate{suffix}"] = fit_rate(t, F - F_star)
        if dual is not None:
            res[f"dual_gap{suffix}"] = F - lam * _dual_objective(
                problem, feasible_dual(dual, problem)
            )

    score("", Wt, Mg, tr.dual)
    if tr.w_avg is not None:
        score("_avg", tr.w_tilde(average=True), problem.margins(tr.w_avg, tr.b_avg), tr.dual_avg)
    G = None if sw is not None else decl.regret_lipschitz(R)
    if G is not None:
        res["regret_G"] = G
        res["regret_bound"] = G * G * (1 + np.log(t)) / (2 * lam)
    return res


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

    What the trace lacks (:attr:`~maxmargin.Trace.missing`) is N/A, with the reason in
    :attr:`RunResult.not_available` (``docs/compare.md``).

    Parameters
    ----------
    trace : Trace
        On the reference's data and with its intercept mode (and scaling).
    reference : ExactSolution
        A soft-margin optimum, any intercept; re-certified here, never trusted. With
        ``free``, ``F`` leaves ``b`` unregularised, and distance and cosine are of ``w``.
    kind : {"objective", "linear", "mistakes"}, optional
        Overrides what the trace declares (default: its declarations, else objective):
        every quantity; a linear classifier's (margin, cosine, errors); errors only.
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
    decl = _declared_of(trace, kind, problem.loss)
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
