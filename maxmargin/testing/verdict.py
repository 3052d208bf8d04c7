"""Verdicts: each claim judged on each problem, PASS, FAIL or INCONCLUSIVE, with the evidence.

Deterministic claims (mistake and regret bounds, invariances, averages) FAIL at the first
checkpoint past the bound; rates are judged by a one-sided Student-t interval of the fitted
exponents over the runs. ``docs/validating.md`` states the rules and their false-FAIL rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from scipy import stats

from .. import io
from ..evaluation.bounds import best_scale_mistake_bound
from ..evaluation.scoring import RunResult
from ..online.claims import Average, Claim, Invariance, MistakeBound, Rate, RegretBound
from ..online.orders import schedule
from ..trace import Trace
from .battery import CertifiedProblem

__all__ = ["Verdict", "Run", "ALPHA", "SLACK"]

#: One-sided level of the rate's interval.
ALPHA = 0.01

#: The margin a fitted exponent may exceed the claimed one by (beyond the log factor).
SLACK = 0.15

#: Checkpoints above the resolution a run needs in the fitted window, and runs a rate needs.
MIN_POINTS, MIN_RUNS = 4, 3

#: Relative tolerance of the deterministic bounds (the rounding of counts and sums).
RTOL = 1e-9


class _Interval(io.Codec):
    """A ``(lo, hi)`` pair of numbers, written as a list (``"inf"``, ``null`` for NaN)."""

    def load(self, doc: Any) -> tuple[float, float]:
        lo, hi = (io.Number().load(x) for x in io.Tuple().load(doc))
        return lo, hi


@dataclass(frozen=True)
class Verdict(io.Persistent):
    """One claim judged on one problem.

    Attributes
    ----------
    claim : str
        The claim's label (:meth:`~maxmargin.online.claims.Claim.label`).
    kind : {"rate", "mistakes", "regret", "invariance", "average"}
    check : str
        ``"exponent"``, ``"constant"``, ``"bound"``, ``"invariance"`` or ``"average"``.
    problem : str
    outcome : {"PASS", "FAIL", "INCONCLUSIVE"}
    reason : str
        One line: what the evidence shows (for a FAIL, the effect).
    statistic : float
        The fitted exponent's mean over the runs (rate), or the worst ratio to the bound.
    interval : (float, float) or None
        The exponent's interval (rate).
    threshold : float
        What the statistic is compared with (the exponent's allowance, or 1 for a ratio).
    runs : int
        The runs the verdict rests on.
    order, seed : str and int, or None
        The run that shows the FAIL (or the worst one).
    t : int or None
    reference : str
        The theorem.
    seconds : float
        The median learning time of one run (a measurement: not compared).

    Examples
    --------
    >>> v = Verdict("c", "rate", "exponent", "p", "PASS", "ok", interval=(-1.2, -1.1))
    >>> v.to_dict()["outcome"], v.to_dict()["interval"]
    ('PASS', [-1.2, -1.1])
    """

    claim: str
    kind: str
    check: str
    problem: str
    outcome: str
    reason: str
    statistic: float = math.nan
    interval: tuple[float, float] | None = io.persist(_Interval(), default=None)
    threshold: float = math.nan
    runs: int = 0
    order: str | None = None
    seed: int | None = None
    t: int | None = None
    reference: str = ""
    seconds: float = field(default=math.nan, compare=False)


@dataclass(frozen=True, eq=False)
class Run:
    """One run of the learner on a battery problem, scored against its optimum."""

    order: str
    seed: int
    trace: Trace
    result: RunResult


def _make(
    claim: Claim, check: str, cp: CertifiedProblem, outcome: str, reason: str, **kw: Any
) -> Verdict:
    """A verdict; ``at=`` (a run or a trace) names the run that shows it."""
    at = kw.pop("at", None)
    if at is not None:
        kw.update(order=at.order, seed=at.seed)
    label, kind, ref = claim.label(), claim.kind, claim.reference
    return Verdict(label, kind, check, cp.name, outcome, reason, reference=ref, **kw)


def _diverged(claim: Claim, check: str, cp: CertifiedProblem, runs: list[Run]) -> Verdict | None:
    for r in runs:
        at = r.trace.diverged_at
        if at is not None:
            why = (
                f"the weights are not finite from step {at} ({r.order}, seed {r.seed}): it diverges"
            )
            return _make(claim, check, cp, "FAIL", why, runs=len(runs), at=r, t=int(at))
    return None


def _slope(t: np.ndarray, gap: np.ndarray, floor: float) -> tuple[float, float] | None:
    """``(slope, log t_mid)`` of ``log gap`` on ``log t`` over ``t >= sqrt(T)``, or None."""
    keep = (t >= math.sqrt(float(t[-1]))) & np.isfinite(gap) & (gap > floor)
    if keep.sum() < MIN_POINTS:
        return None
    lt, lg = np.log(t[keep].astype(float)), np.log(gap[keep])
    if np.ptp(lt) == 0:
        return None
    return float(np.polyfit(lt, lg, 1)[0]), float(lt.mean())


def rate_verdicts(claim: Rate, cp: CertifiedProblem, runs: list[Run]) -> list[Verdict]:
    """The verdicts of a resolved :class:`Rate` on one problem."""
    runs = [r for r in runs if r.order in claim.orders]
    if not runs:
        return []
    bad = _diverged(claim, "exponent", cp, runs)
    if bad is not None:
        return [bad]
    out = [_exponent(claim, cp, runs)]
    if claim.bound == "regret/t":
        const = _constant(claim, cp, [r for r in runs if r.order == "sample"])
        if const is not None:
            out.append(const)
    return out


def _exponent(claim: Rate, cp: CertifiedProblem, runs: list[Run]) -> Verdict:
    make = partial(_make, claim, "exponent", cp)
    key = "subopt_avg" if claim.iterate == "average" else "subopt"
    floor = cp.resolution()
    fits: list[tuple[float, float, Run]] = []
    for r in runs:
        gap = getattr(r.result, key)
        got = None if gap is None else _slope(r.result.t, np.asarray(gap, float), floor)
        if got is not None:
            fits.append((got[0], got[1], r))
    if len(fits) < MIN_RUNS:
        return make(
            "INCONCLUSIVE",
            f"{len(fits)} of {len(runs)} runs have {MIN_POINTS} checkpoints with F - F* above "
            f"the optimum's resolution {floor:.1e} in the fitted window (t >= sqrt(T)): the "
            "learner is at the optimum already, or the run is too short",
            runs=len(runs),
        )
    a, k = float(claim.exponent or 0.0), int(claim.log_power or 0)
    slopes = np.array([f[0] for f in fits])
    t_mid = math.exp(float(np.mean([f[1] for f in fits])))
    threshold = a + k / math.log(t_mid) + SLACK
    S = len(slopes)
    mean = float(slopes.mean())
    se = float(slopes.std(ddof=1)) / math.sqrt(S)
    q = float(stats.t.ppf(1.0 - ALPHA, S - 1))
    lo, hi = mean - q * se, mean + q * se
    slow = max(fits, key=lambda f: f[0])
    claimed = f"t^{a:g}" + (" log t" if k == 1 else (f" log^{k} t" if k else ""))
    where = f"{S} runs, t from {int(math.sqrt(runs[0].result.t[-1]))} to {runs[0].result.t[-1]}"
    make = partial(make, statistic=mean, interval=(lo, hi), threshold=threshold, runs=S, at=slow[2])
    if lo > threshold:
        effect = (
            "F - F* stops falling: it converges to a point that is not the optimum"
            if mean > -0.1
            else "it converges more slowly than claimed"
        )
        return make(
            "FAIL",
            f"{effect}: fitted exponent {mean:+.2f} (interval [{lo:+.2f}, {hi:+.2f}], {where}) "
            f"above the allowance {threshold:+.2f} of {claimed}; slowest: {slow[2].order} "
            f"seed {slow[2].seed} ({slow[0]:+.2f})",
        )
    if hi <= threshold:
        return make(
            "PASS",
            f"fitted exponent {mean:+.2f} (interval [{lo:+.2f}, {hi:+.2f}], {where}) within the "
            f"allowance {threshold:+.2f} of {claimed}",
        )
    return make(
        "INCONCLUSIVE",
        f"fitted exponent {mean:+.2f}: its interval [{lo:+.2f}, {hi:+.2f}] ({where}) contains the "
        f"allowance {threshold:+.2f} of {claimed}; more seeds or steps would decide",
    )


def _constant(claim: Rate, cp: CertifiedProblem, runs: list[Run]) -> Verdict | None:
    make = partial(_make, claim, "constant", cp)
    G = [r.result.regret_G for r in runs]
    if len(runs) < 2 or not all(math.isfinite(g) for g in G):
        return None  # no G here (weights, a projection without one): nothing to check
    t = runs[0].result.t
    V = np.array([np.asarray(r.result.subopt_avg, float) for r in runs])  # (S, k)
    bound = max(G) ** 2 * (1.0 + np.log(t)) / (2.0 * cp.problem.lam * t)
    S, K = V.shape
    mean = V.mean(axis=0)
    se = V.std(axis=0, ddof=1) / math.sqrt(S)
    q = float(stats.t.ppf(1.0 - ALPHA / K, S - 1))  # Bonferroni over the checkpoints
    ratio = mean / bound
    j = int(np.argmax(ratio))
    common = {"statistic": float(ratio[j]), "threshold": 1.0, "runs": S, "t": int(t[j])}
    over = np.nonzero(mean - q * se > bound)[0]
    if over.size:
        i = int(over[0])
        return make(
            "FAIL",
            f"E[F(average) - F*] exceeds the online-to-batch bound G^2 (1 + ln t)/(2 lam t): "
            f"mean {mean[i]:.3e} over {S} sample runs at t = {t[i]} against {bound[i]:.3e}",
            **{**common, "t": int(t[i])},
        )
    return make(
        "PASS",
        f"mean F(average) - F* at most {ratio[j]:.2g} of G^2 (1 + ln t)/(2 lam t) "
        f"({S} sample runs; worst at t = {t[j]})",
        **common,
    )


def _counts(trace: Trace) -> np.ndarray:
    """``counts[k, i]``: the visits of example ``i`` among the first ``t[k]`` steps."""
    idx = schedule(trace.n, trace.epochs, trace.order, int(trace.seed or 0))
    out = np.zeros((len(trace.t), trace.n))
    acc = np.zeros(trace.n)
    prev = 0
    for k, tk in enumerate(trace.t):
        acc += np.bincount(idx[prev:tk], minlength=trace.n)
        out[k] = acc
        prev = int(tk)
    return out


def _pa_bound(
    form: str, C: float, R2: float, counts: np.ndarray, m: np.ndarray, un: float
) -> np.ndarray:
    """Crammer et al.'s PA-I / PA-II bound at the best scale ``c`` of ``u``, (k,)."""
    top = float(np.max(np.abs(m), initial=0.0)) or 1.0
    grid = np.geomspace(1e-6, 1e6, 241) / top
    H = np.maximum(0.0, 1.0 - np.outer(m, grid))  # (n, g)
    loss = counts @ H if form == "pa1" else counts @ (H * H)
    return (R2 * ((grid * un) ** 2 + 2.0 * C * loss)).min(axis=1)


def _mistake_bound(
    claim: MistakeBound, learner: Any, cp: CertifiedProblem, run: Run
) -> tuple[np.ndarray, str] | str:
    """The bound at every checkpoint of ``run`` and its name, or why it does not apply."""
    R, u, m, gamma = cp.learner_space()
    tr = run.trace
    k = len(tr.t)
    if claim.form == "winnow":
        relevant = cp.meta.get("relevant")
        if relevant is None:
            return "not a disjunction of the features"
        alpha = float(learner.alpha)
        d = cp.data.d
        theta = float(getattr(learner, "threshold", None) or d)
        if theta < 1.0 / alpha:
            return f"Littlestone's bound needs threshold >= 1/alpha, and it has {theta:g}"
        kk = len(relevant)
        logt = 1.0 + math.log(theta) / math.log(alpha)
        if learner.variant == "winnow1":
            b = d / theta + alpha * kk * logt
        else:
            b = alpha * d / ((alpha - 1.0) * theta) + (alpha + 1.0) * kk * logt
        return np.full(k, b), f"Littlestone's {b:.4g}"
    if claim.data == "separable" and not cp.separable:
        return "the data are not separable in this intercept mode"
    if claim.form == "perceptron":
        tau, eta = float(learner.update_margin), float(learner.update_step)
        Rt = R if tau == 0.0 else math.sqrt(R * R + 2.0 * tau / eta)
        if claim.data == "separable":
            b = (Rt / gamma) ** 2
            return np.full(k, b), f"(R/gamma)^2 = {b:.4g}"
        if not learner.visits_schedule:
            return "it picks its own examples: the bound sums the hinge along the run's order"
        bound = run.result.general_bound_best  # score_trace's, for a mistake-driven learner
        if bound is None:
            bound, _ = best_scale_mistake_bound(m, _counts(tr), Rt * float(np.linalg.norm(u)))
        return np.asarray(bound, float), "the general bound"
    C = float(getattr(learner, "C", math.nan))
    if claim.form != "pa":  # PA-I's and PA-II's R^2
        R2 = max(R * R, 1.0 / C) if claim.form == "pa1" else R * R + 0.5 / C
    if claim.form == "pa" or claim.data == "separable":
        b = (R / gamma) ** 2 if claim.form == "pa" else R2 / gamma**2
        return np.full(k, b), f"Crammer et al.'s {b:.4g}"
    bound = _pa_bound(claim.form, C, R2, _counts(tr), m, float(np.linalg.norm(u)))
    if cp.separable:
        bound = np.minimum(bound, R2 / gamma**2)
    return bound, "Crammer et al.'s bound"


def mistake_verdict(
    claim: MistakeBound, learner: Any, cp: CertifiedProblem, runs: list[Run]
) -> Verdict | str:
    """The verdict of a :class:`MistakeBound` on one problem, or why it does not apply."""
    make = partial(_make, claim, "bound", cp, threshold=1.0, runs=len(runs))
    if cp.sample_weight is not None:
        return "weighted steps: the mistake bounds are for unit steps"
    bad = _diverged(claim, "bound", cp, runs)
    if bad is not None:
        return bad
    worst: tuple[float, Run, int, float, float, str] | None = None
    for r in runs:
        got = _mistake_bound(claim, learner, cp, r)
        if isinstance(got, str):
            return got
        bound, what = got
        M = r.trace.mistakes.astype(float)
        over = np.nonzero(M > bound * (1.0 + RTOL) + RTOL)[0]
        if over.size:
            j = int(over[0])
            return make(
                "FAIL",
                f"too many mistakes: {int(M[j])} by step {r.trace.t[j]} exceed {what} "
                f"({r.order}, seed {r.seed})",
                statistic=float(M[j] / bound[j]),
                at=r,
                t=int(r.trace.t[j]),
            )
        # the headline is the final checkpoint's ratio (at t = 1 every bound that sums over
        # the rounds is 1 for the first, unavoidable, mistake)
        final = float(M[-1] / bound[-1]) if bound[-1] > 0 else 0.0
        if worst is None or final > worst[0]:
            worst = (final, r, len(M) - 1, float(M[-1]), float(bound[-1]), what)
    assert worst is not None
    ratio, r, j, Mj, B, what = worst
    return make(
        "PASS",
        f"final mistakes at most {ratio:.2g} of {what} (worst: {int(Mj)} of {B:.4g} by step "
        f"{r.trace.t[j]}, {r.order}, seed {r.seed}; {len(runs)} runs)",
        statistic=ratio,
        at=r,
        t=int(r.trace.t[j]),
    )


def regret_verdict(claim: RegretBound, cp: CertifiedProblem, runs: list[Run]) -> Verdict | str:
    """The verdict of a :class:`RegretBound` on one problem, or why it does not apply."""
    make = partial(_make, claim, "bound", cp, threshold=1.0, runs=len(runs))
    if cp.sample_weight is not None:
        return "example weights: the bound is for the unweighted losses"
    bad = _diverged(claim, "bound", cp, runs)
    if bad is not None:
        return bad
    worst: tuple[float, Run, int] | None = None
    for r in runs:
        reg, bound = r.result.regret, r.result.regret_bound
        if reg is None or bound is None:
            why = r.result.not_available.get("regret", "regret_lipschitz(R) gives no G here")
            return str(why)
        over = np.nonzero(reg > bound * (1.0 + RTOL) + RTOL)[0]
        if over.size:
            j = int(over[0])
            return make(
                "FAIL",
                f"regret against the optimum {reg[j]:.4g} by step {r.trace.t[j]} exceeds "
                f"G^2 (1 + ln t)/(2 lam) = {bound[j]:.4g} (G = {r.result.regret_G:.4g}; "
                f"{r.order}, seed {r.seed})",
                statistic=float(reg[j] / bound[j]),
                at=r,
                t=int(r.trace.t[j]),
            )
        ratio = reg / bound
        j = int(np.argmax(ratio))
        if worst is None or ratio[j] > worst[0]:
            worst = (float(ratio[j]), r, j)
    assert worst is not None
    ratio, r, j = worst
    return make(
        "PASS",
        f"regret at most {ratio:.2g} of G^2 (1 + ln t)/(2 lam) (worst: step {r.trace.t[j]}, "
        f"{r.order}, seed {r.seed}; {len(runs)} runs)",
        statistic=ratio,
        at=r,
        t=int(r.trace.t[j]),
    )


def judge_runs(
    claim: Claim, learner: Any, cp: CertifiedProblem, runs: list[Run]
) -> Verdict | list[Verdict] | str | None:
    """A rate, mistake or regret claim judged on ``runs``; None: it needs runs of its own."""
    if isinstance(claim, Rate):
        return rate_verdicts(claim, cp, runs)
    if isinstance(claim, MistakeBound):
        return mistake_verdict(claim, learner, cp, runs)
    if isinstance(claim, RegretBound):
        return regret_verdict(claim, cp, runs)
    return None


def drift(a: Trace, b: Trace, perm: np.ndarray | None, c: float) -> np.ndarray:
    """Per checkpoint, how far (relative) ``b``, on transformed data, mapped back, is from ``a``."""
    w = b.w / c if perm is None else (b.w / c)[:, np.argsort(perm)]
    with np.errstate(invalid="ignore", over="ignore"):  # a diverged run's tail is masked
        scale = np.maximum(np.abs(a.w).max(axis=1), np.abs(a.b))
        err = np.maximum(np.abs(w - a.w).max(axis=1), np.abs(b.b / (c * c) - a.b))
        return err / np.where(scale > 0, scale, 1.0)


def invariance_verdict(
    claim: Invariance,
    cp: CertifiedProblem,
    pairs: list[tuple[Run, Trace, np.ndarray | None, float]],
) -> Verdict:
    """The verdict of an :class:`Invariance` from runs on the data and on their transform."""
    make = partial(_make, claim, "invariance", cp, runs=len(pairs))
    worst = 0.0
    for run, other, perm, c in pairs:
        a, b = run.trace, other
        if a.diverged_at != b.diverged_at:
            return make(
                "FAIL",
                f"not invariant to {claim.transform}: the weights stop being finite at step "
                f"{a.diverged_at} on the data, at {b.diverged_at} on the transformed data "
                f"({run.order}, seed {run.seed})",
                at=run,
            )
        finite = a.t < (a.diverged_at or a.t[-1] + 1)  # both diverge alike: their finite prefix
        err = np.where(finite, drift(a, b, perm, c), 0.0)
        drifts = np.nonzero(err > RTOL)[0]
        diff = np.nonzero((a.mistakes != b.mistakes) & finite)[0]
        if not (diff.size or drifts.size):
            worst = max(worst, float(err.max(initial=0.0)))
            continue
        k = int(min(diff[:1].tolist() + drifts[:1].tolist()))  # the first sign of either
        where = f"({run.order}, seed {run.seed})"
        if drifts.size and (not diff.size or drifts[0] < diff[0]):
            j = int(drifts[0])
            why = (
                f"rounding errors grow along the run: the weights drift apart from the "
                f"transformed run's (mapped back) from step {a.t[j]} ({err[j]:.1e} relative, "
                f"{float(err.max()):.1e} at worst)"
            )
            if diff.size:
                i = int(diff[0])  # where the counts first differ (k is the drift's step)
                why += (
                    f", and the mistakes from step {a.t[i]} ({int(a.mistakes[i])} against "
                    f"{int(b.mistakes[i])})"
                )
        else:
            why = (
                f"{int(a.mistakes[k])} mistakes by step {a.t[k]} on the data, "
                f"{int(b.mistakes[k])} on the transformed data"
            )
        return make(
            "FAIL",
            f"not invariant to {claim.transform}: {why} {where}",
            statistic=float(err.max()),
            threshold=RTOL,
            at=run,
            t=int(a.t[k]),
        )
    return make(
        "PASS",
        f"the same mistakes and weights to {worst:.1e} (relative) on the transformed data "
        f"({len(pairs)} runs)",
        statistic=worst,
        threshold=RTOL,
    )


def average_verdict(
    claim: Average, cp: CertifiedProblem, trace: Trace, steps: int
) -> Verdict | str:
    """The verdict of an :class:`Average` from a run that recorded every iterate."""
    make = partial(_make, claim, "average", cp, threshold=RTOL, runs=1, at=trace)
    t = trace.t[:steps].astype(float)
    if trace.w_avg is not None and trace.b_avg is not None:
        W = np.column_stack([trace.w, trace.b])[:steps]
        avg = np.column_stack([trace.w_avg, trace.b_avg])[:steps]
    elif "w_last" in trace.extras:  # the output is the average; the iterates' w only
        W = np.asarray(trace.extras["w_last"], float)[:steps]
        avg = np.asarray(trace.w, float)[:steps]
    else:
        return "its trace has no averaged iterate (w_avg) beside its iterates"
    with np.errstate(invalid="ignore", over="ignore"):  # a diverged run: masked below
        after = np.cumsum(W, axis=0) / t[:, None]
        before = np.vstack([np.zeros(W.shape[1]), np.cumsum(W, axis=0)[:-1]]) / t[:, None]
    means = {"before": before, "after": after}
    finite = t < (trace.diverged_at or t[-1] + 1)  # a diverged run: its finite prefix

    def err(m: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            scale = np.abs(m).max(axis=1)
            e = np.abs(avg - m).max(axis=1) / np.where(scale > 0, scale, 1.0)
        return np.where(finite, e, 0.0)

    e = err(means[claim.iterates])
    j = int(np.argmax(e))
    where = f"{trace.order}, seed {trace.seed}"
    if not e[j] <= RTOL:
        other = "after" if claim.iterates == "before" else "before"
        hint = ""
        if np.all(err(means[other]) <= RTOL):
            hint = "; it is the mean of " + Average(iterates=other).label().rpartition(" ")[2]
        return make(
            "FAIL",
            f"its average is not the mean of its iterates: off by {e[j]:.2e} (relative) at step "
            f"{int(t[j])} ({where}){hint}",
            statistic=float(e[j]),
            t=int(t[j]),
        )
    return make(
        "PASS",
        f"the mean of its iterates to {e[j]:.1e} (relative) at each of the first {steps} steps "
        f"({where})",
        statistic=float(e[j]),
    )
