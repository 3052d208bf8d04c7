"""The verdicts of a comparison: each learner's claims judged on the runs ``compare`` made.

Invariances and averages need runs of their own: they are left to ``check_learner``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from ..evaluation.comparison import Comparison, RunResult
from ..evaluation.reference import Reference
from ..exceptions import ParameterError
from ..online.claims import claims_of, resolve_claims
from ..online.registry import LEARNERS
from .battery import CertifiedProblem, ProblemSpec
from .report import CheckReport, curve_of
from .template import _source, _Template
from .verdict import Run, Verdict, judge_runs

__all__ = ["comparison_verdicts"]

#: Why an invariance or an average is not judged on a comparison's runs.
_OWN_RUNS = "it needs runs of its own (check_learner runs them)"


def _problem(ref: Reference) -> CertifiedProblem:
    """A reference's problem and certified optima, named as its data (``data/intercept``)."""
    p = ref.problem
    name = p.data.name or "data"
    spec = ProblemSpec(name, p.data.n, p.data.d, 0, p.intercept, float(p.lam), loss=p.loss)
    return CertifiedProblem(spec, p.data, p.weights, p, ref.solution, ref.hard_solution, meta={})


def _learner(
    label: str, runs: list[RunResult], given: Mapping[str, Any], cp: CertifiedProblem
) -> Any:
    """The learner of ``label`` built for its problem, or why its claims are not known."""
    if label in given:
        return _Template(given[label]).build(cp.problem)
    tr = runs[0].trace
    if runs[0].order == "external":
        return "a trace from elsewhere: its learner, and so its claims, are not known"
    cls = LEARNERS.get(tr.learner)
    if cls is None:
        return f"not a built-in learner: give learners={{{label!r}: <the learner compared>}}"
    return cls(**tr.params)


def comparison_verdicts(
    cmp: Comparison, learners: Mapping[str, Any] | None = None
) -> dict[str, CheckReport]:
    """Each learner's claims judged on the runs of a comparison.

    Parameters
    ----------
    cmp : Comparison
        What :func:`~maxmargin.compare` returned.
    learners : mapping of str to learner, optional
        A run's label to the learner compared, for learners that are not built-ins.

    Returns
    -------
    dict of str to CheckReport
        One per learner label (``battery`` is ``"comparison"``); a rate needs 3 runs in a
        random order to be judged.

    Examples
    --------
    >>> from maxmargin import compare, make_gaussians
    >>> cmp = compare(make_gaussians(100, 5, seed=1), learners=["pegasos", "perceptron"],
    ...               lam=0.05, intercept="none", epochs=20, seeds=range(3))
    >>> {k: r.outcome for k, r in comparison_verdicts(cmp).items()}
    {'pegasos': 'PASS', 'perceptron': 'PASS'}
    """
    given = dict(learners or {})
    unknown = sorted(set(given) - set(cmp.labels))
    if unknown:
        raise ParameterError(
            f"learners= names {', '.join(map(repr, unknown))}, which the comparison does not "
            f"have (its learners: {', '.join(cmp.labels)})"
        )
    problems = {ref.intercept: _problem(ref) for ref in cmp.references}
    out: dict[str, CheckReport] = {}
    for label in cmp.labels:
        results = cmp.select(label=label)
        cp = problems[results[0].intercept]  # the problem its runs are scored against
        learner = _learner(label, results, given, cp)
        verdicts: list[Verdict] = []
        skipped: list[tuple[str, str, str]] = []
        if isinstance(learner, str):
            skipped.append(("*", cp.name, learner))
        else:
            applies, na = resolve_claims(learner, claims_of(_source(learner)))
            skipped += [(c.label(), cp.name, why) for c, why in na]
            if not applies and not na:
                skipped.append(("*", cp.name, "it claims nothing"))
            runs = [Run(r.order, int(r.seed or 0), r.trace, r) for r in results]
            for claim in applies:
                got = judge_runs(claim, learner, cp, runs)
                if got is None or isinstance(got, str):
                    skipped.append((claim.label(), cp.name, got or _OWN_RUNS))
                else:
                    verdicts += [got] if isinstance(got, Verdict) else got
        seconds = float(np.median([r.trace.seconds[-1] for r in results]))
        out[label] = CheckReport(
            learner=label,
            battery="comparison",
            data_seed=0,
            seeds=tuple(int(s) for s in cmp.seeds),
            epochs=cmp.epochs,
            verdicts=tuple(replace(v, seconds=seconds) for v in verdicts),
            not_checked=tuple(skipped),
            curves=tuple(curve_of(cp.name, r) for r in results),
            loss=cp.problem.loss,
        )
    return out
