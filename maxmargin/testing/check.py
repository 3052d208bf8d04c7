"""``check_learner``: run a learner through a battery and judge every claim it makes.

See ``docs/validating.md``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .._progress import Progress
from ..data import Dataset
from ..evaluation.scoring import score_trace
from ..exceptions import DataError, ParameterError
from ..online import OnlineLearner, run
from ..online.adapters import RiverLearner, SklearnLearner
from ..online.claims import Average, Claim, Invariance, Rate, claims_of, resolve_claims
from ..online.orders import schedule
from ..problem import SVMProblem
from ..trace import Trace
from .battery import LAM, Battery, CertifiedProblem, ProblemSpec, battery, certified
from .report import CheckReport, Curve, curve_of
from .template import _source, _Template
from .verdict import (
    RTOL,
    Run,
    Verdict,
    average_verdict,
    drift,
    invariance_verdict,
    judge_runs,
)

__all__ = ["check_learner", "assert_learner"]

_UNITS = "its settings have the units of the data (a step eta0): rescaled data need them rescaled"

#: Why a learner that claims nothing is not judged: what its author can do about it.
_NOTHING = "it claims nothing (docs/validating.md: declare claims)"

#: The same for an estimator, whose claims follow from its parameters.
_NOTHING_ESTIMATOR = (
    "it claims nothing with these parameters (an estimator's claims follow from them: "
    "docs/validating.md, section 8, lists which claim what)"
)

#: The scale of the examples in the scale-invariance check (a power of 2: exact).
SCALE = 2.0**10


def check_learner(
    learner: Any,
    *,
    battery: str | Battery = "default",
    seeds: int | Sequence[int] | None = None,
    data_seed: int = 0,
    claims: Sequence[Claim] | None = None,
    problems: Sequence[str] | None = None,
    cache: str | Path | None = None,
    progress: bool = False,
) -> CheckReport:
    """Run ``learner`` through a battery of certified problems and judge its claims.

    Parameters
    ----------
    learner : str, type or object
        A built-in name, ``module:Class``, ``path/file.py:Class``, a class, an instance
        (a built-in learner's or the public protocol's), or a pair ``(target, params)``;
        the problem sets ``intercept`` and its parameter, and has the ``loss`` it declares
        (``docs/validating.md``).
    battery : {"quick", "default"} or Battery
        ``"quick"`` runs in seconds (CI).
    seeds : int or sequence of int, optional
        The seeds of the ``shuffle`` and ``sample`` runs (an int: that many, from 0).
    data_seed : int >= 0
        The seed of the battery's data.
    claims : sequence of Claim, optional
        Judge these instead of the learner's own (:func:`~maxmargin.online.claims.claims_of`).
    problems : sequence of str, optional
        Only the problems whose name contains one of these strings.
    cache : str or Path, optional
        A folder that keeps the certified problems between processes.
    progress : bool
        A progress bar over the problems on stderr (drawn on a terminal only).

    Returns
    -------
    CheckReport

    Examples
    --------
    >>> rep = check_learner("perceptron", battery="quick", problems=["separable/none"])
    >>> rep.passed, sorted({v.outcome for v in rep.verdicts})
    (True, ['PASS'])
    """
    tic = time.perf_counter()
    template = _Template(learner)
    bat = _battery(battery, template, data_seed, seeds)
    specs = [
        spec
        for spec in bat.specs
        if (problems is None or any(p in spec.name for p in problems))
        and spec.intercept in template.supported
    ]
    if not specs:  # refused before any problem is solved or run
        raise ParameterError(
            f"no problem of the {bat.name!r} battery for {template.label!r} (it supports "
            f"intercept {', '.join(template.supported)}"
            + ("" if problems is None else f"; problems={list(problems)!r}")
            + ")"
        )
    verdicts: list[Verdict] = []
    skipped: list[tuple[str, str, str]] = []
    curves: list[Curve] = []
    with Progress(len(specs), f"check {template.label}", enabled=progress) as bar:
        for spec in specs:
            got = _check_problem(template, spec, bat, claims, cache)
            bar.update()
            if isinstance(got, str):
                skipped.append(("*", spec.name, got))
                continue
            v, s, c = got
            verdicts += v
            skipped += s
            curves += c
    return CheckReport(
        learner=template.label,
        battery=bat.name,
        data_seed=int(data_seed),
        lam=float(bat.specs[0].lam),
        loss=bat.specs[0].loss,
        target=template.code,
        seeds=bat.seeds,
        epochs=bat.epochs,
        verdicts=tuple(verdicts),
        not_checked=_merge(skipped),
        seconds=time.perf_counter() - tic,
        curves=tuple(curves),
    )


def _battery(
    given: str | Battery, template: _Template, data_seed: int, seeds: int | Sequence[int] | None
) -> Battery:
    if isinstance(given, Battery):
        bat = given
    else:
        lam = template.fixed_lam()
        lam = LAM if lam is None else lam  # a fixed lambda replaces the battery's
        bat = battery(given, data_seed=data_seed, lam=lam, loss=template.loss)
    if seeds is not None:
        ss = tuple(range(seeds)) if isinstance(seeds, (int, np.integer)) else tuple(seeds)
        if len(ss) < 2 or any(int(s) < 0 for s in ss):
            raise ParameterError(f"seeds must give at least 2 seeds >= 0, got {seeds!r}")
        bat = replace(bat, seeds=tuple(int(s) for s in ss))
    return bat


def _merge(skipped: list[tuple[str, str, str]]) -> tuple[tuple[str, str, str], ...]:
    """(claim, problems, reason): one row per claim and reason, the problems joined."""
    rows: dict[tuple[str, str], dict[str, None]] = {}  # the problems in order, each once
    for claim, problem, why in skipped:
        rows.setdefault((claim, why), {})[problem] = None
    return tuple((c, ", ".join(ps), why) for (c, why), ps in rows.items())


def _check_problem(
    template: _Template,
    spec: ProblemSpec,
    bat: Battery,
    claims: Sequence[Claim] | None,
    cache: str | Path | None,
) -> tuple[list[Verdict], list[tuple[str, str, str]], list[Curve]] | str:
    """The verdicts on one problem, what it leaves out, its runs' curves; or why none apply."""
    if template.fixed_lam() is not None and spec.scale != 1.0:
        return "its lam is fixed, and scaled data need lam times scale^2"
    cp = certified(spec, cache)
    try:
        learner = template.build(cp.problem)
        learner._check_data(cp.data)
    except (ParameterError, DataError) as e:
        return f"the learner refuses it: {e}"
    if not learner.has_weights:
        return "it has no weights on the features (a non-linear kernel) to measure"
    if cp.sample_weight is not None and learner.sample_weight_rule is None:
        return "it takes no example weights (no sample_weight_rule)"
    own = claims_of(_source(learner)) if claims is None else tuple(claims)
    if not own:
        estimator = isinstance(_source(learner), (SklearnLearner, RiverLearner))
        return _NOTHING_ESTIMATOR if estimator else _NOTHING
    applies, na = resolve_claims(learner, own)
    skipped = [(c.label(), cp.name, why) for c, why in na]
    if spec.scale != 1.0:
        units = [c for c in applies if isinstance(c, Rate) and not c.scale_free]
        skipped += [(c.label(), cp.name, _UNITS) for c in units]
        applies = tuple(c for c in applies if c not in units)
    if not applies:
        return [], skipped, []
    runs = [_run(learner, cp, bat, order, seed) for order, seed in bat.runs()]
    verdicts: list[Verdict] = []
    for claim in applies:
        got = _judge(claim, template, learner, cp, bat, runs)
        if isinstance(got, str):
            skipped.append((claim.label(), cp.name, got))
        elif isinstance(got, Verdict):
            verdicts.append(got)
        else:
            verdicts += got
    seconds = float(np.median([r.trace.seconds[-1] for r in runs]))
    curves = [curve_of(cp.name, r.result) for r in runs]
    return [replace(v, seconds=seconds) for v in verdicts], skipped, curves


def _judge(
    claim: Claim,
    template: _Template,
    learner: OnlineLearner,
    cp: CertifiedProblem,
    bat: Battery,
    runs: list[Run],
) -> Verdict | list[Verdict] | str:
    """One claim on one problem: its verdict(s), or why it does not apply there."""
    if isinstance(claim, Invariance):
        return _invariance(claim, template, cp, bat, runs)
    if isinstance(claim, Average):
        return _average(claim, learner, cp, bat)
    got = judge_runs(claim, learner, cp, runs)
    if got is None:
        raise ParameterError(f"unknown claim {claim!r}")
    return got


def _trace(
    learner: OnlineLearner, data: Dataset, cp: CertifiedProblem, bat: Battery, order: str, seed: int
) -> Trace:
    marks, sw = bat.checkpoints(cp.data.n), cp.sample_weight
    return run(learner, data, bat.epochs, order, seed, marks, sample_weight=sw)


def _run(learner: OnlineLearner, cp: CertifiedProblem, bat: Battery, order: str, seed: int) -> Run:
    tr = _trace(learner, cp.data, cp, bat, order, seed)
    return Run(order, seed, tr, score_trace(tr, cp.soft, hard_reference=cp.hard))


def _invariance(
    claim: Invariance, template: _Template, cp: CertifiedProblem, bat: Battery, runs: list[Run]
) -> Verdict | str:
    d = cp.data.d
    perm: np.ndarray | None = None
    c = 1.0
    X = cp.data.X
    if claim.transform == "permute_features":
        if d < 2:
            return "one feature: nothing to permute"
        perm = np.random.default_rng(d).permutation(d)
        if np.all(perm == np.arange(d)):
            perm = perm[::-1].copy()
        X2: Any = X[:, perm]
    else:
        c = SCALE
        X2 = X * c
    data2 = Dataset(X2, cp.data.y, name=cp.name + " (transformed)")
    p = cp.problem
    problem2 = SVMProblem(
        data2,
        lam=p.lam,
        intercept=p.intercept,
        intercept_scaling=p.intercept_scaling * c,
        sample_weight=cp.sample_weight,
        loss=p.loss,
    )
    learner2 = template.build(problem2)
    picked = [r for o in ("cyclic", "shuffle") for r in [x for x in runs if x.order == o][:1]]
    pairs = [(r, _trace(learner2, data2, cp, bat, r.order, r.seed), perm, c) for r in picked]
    verdict = invariance_verdict(claim, cp, pairs)
    if verdict.outcome == "FAIL" and verdict.t is not None and verdict.order is not None:
        tie = _tie(learner2, template.build(cp.problem), cp, data2, perm, c, bat, verdict)
        if tie is not None:
            return replace(verdict, outcome="INCONCLUSIVE", reason=tie)
    return verdict


#: How close to a threshold (relative) a margin is a tie that rounding decides.
TIE = 1e-10


def _tie(
    learner2: OnlineLearner,
    learner: OnlineLearner,
    cp: CertifiedProblem,
    data2: Dataset,
    perm: np.ndarray | None,
    c: float,
    bat: Battery,
    v: Verdict,
) -> str | None:
    """Why the first difference of two runs is a tie that rounding decided, or None.

    On data with exact ties another summation order may put a margin at a threshold on
    the other side: not the learner's fault. Both runs are replayed step by step.
    """
    n = cp.data.n
    marks = bat.checkpoints(n)
    t1 = int(v.t)  # type: ignore[arg-type]
    t0 = int(marks[marks < t1].max(initial=0))
    steps = np.arange(max(t0, 1), t1 + 1)
    epochs = math.ceil(t1 / n)
    order, seed, sw = str(v.order), int(v.seed or 0), cp.sample_weight
    a = run(learner, cp.data, epochs, order, seed, steps, sample_weight=sw)
    b = run(learner2, data2, epochs, order, seed, steps, sample_weight=sw)
    k = len(steps)
    apart = (drift(a, b, perm, c)[:k] > RTOL) | (a.mistakes[:k] != b.mistakes[:k])
    if not apart.any():
        return None
    j = int(np.argmax(apart))
    s = int(steps[j])  # the first step after which the runs differ
    if j == 0 and s > 1:
        return None  # they differ already where they agreed: not a single decision
    w, bias = (a.w[j - 1], float(a.b[j - 1])) if j > 0 else (np.zeros(cp.data.d), 0.0)
    i = int(schedule(n, epochs, order, seed)[s - 1])
    x = cp.data.X[i]
    x = np.asarray(x.toarray() if hasattr(x, "toarray") else x, dtype=float).ravel()
    m = float(cp.data.y[i] * (w @ x + bias))
    size = float(np.abs(w).sum() * np.abs(x).max(initial=0.0) + abs(bias)) or 1.0
    for theta in sorted({0.0, 1.0, float(learner.update_margin)}):
        if abs(m - theta) <= TIE * max(size, abs(theta)):
            return (
                f"a tie that rounding decides: at step {s} ({v.order}, seed {v.seed}) the margin "
                f"y (w.x + b) = {m!r} is the threshold {theta:g} up to rounding, and the "
                f"transformed run's summation order put it on the other side; the runs agree "
                f"up to there (invariance holds in exact arithmetic)"
            )
    return None


#: The steps of the run whose every iterate is recorded for the :class:`Average` claim.
AVERAGE_STEPS = 300


def _average(
    claim: Average, learner: OnlineLearner, cp: CertifiedProblem, bat: Battery
) -> Verdict | str:
    """A run recording every iterate (its first steps), for :func:`average_verdict`."""
    n = cp.data.n
    epochs = max(1, math.ceil(AVERAGE_STEPS / n))
    steps = np.arange(1, min(n * epochs, AVERAGE_STEPS) + 1)
    tr = run(
        learner, cp.data, epochs, "shuffle", bat.seeds[0], steps, sample_weight=cp.sample_weight
    )
    return average_verdict(claim, cp, tr, len(steps))


def assert_learner(learner: Any, **kwargs: Any) -> CheckReport:
    """:func:`check_learner`, raising ``AssertionError`` with the verdict table unless it passed.

    Parameters
    ----------
    learner : str, type or object
        As :func:`check_learner`.
    **kwargs
        :func:`check_learner`'s keyword arguments.

    Returns
    -------
    CheckReport

    Examples
    --------
    >>> assert_learner("pa", battery="quick", problems=["separable/none"]).passed
    True
    """
    report = check_learner(learner, **kwargs)
    if not report.passed:
        raise AssertionError("\n" + report.to_text())
    return report
