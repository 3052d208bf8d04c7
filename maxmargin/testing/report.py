"""The result of :func:`~maxmargin.testing.check_learner`: the verdicts and their table."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .. import io
from ..conventions import DEFAULT_LOSS
from .battery import BATTERIES, LAM, battery
from .verdict import Verdict

__all__ = ["CheckReport", "Curve"]

_COLUMNS = ("verdict", "claim", "problem", "time", "evidence")


def _time(seconds: float) -> str:
    return "-" if not math.isfinite(seconds) else f"{seconds:.2g} s"


def _row(v: Verdict) -> tuple[str, str, str, str, str]:
    return (
        v.outcome,
        v.claim + (" [constant]" if v.check == "constant" else ""),
        v.problem,
        _time(v.seconds),
        v.reason,
    )


@dataclass(frozen=True, eq=False)
class Curve:
    """One run of a check: its suboptimality against the steps and the time.

    Attributes
    ----------
    problem : str
    order : str
    seed : int
    t : ndarray of int64
    seconds : ndarray
        The learner's learning time at each checkpoint.
    subopt, subopt_avg : ndarray or None
        ``F(w_t) - F*`` of its iterate and of its average (None: no such output).

    Examples
    --------
    >>> from maxmargin.testing import check_learner
    >>> rep = check_learner("pegasos", battery="quick", problems=["gaussians/none"])
    >>> c = rep.curves[0]
    >>> (c.problem, c.order), c.t.shape == c.seconds.shape == c.subopt_avg.shape
    (('gaussians/none', 'cyclic'), True)
    """

    problem: str
    order: str
    seed: int
    t: np.ndarray
    seconds: np.ndarray
    subopt: np.ndarray | None = None
    subopt_avg: np.ndarray | None = None


def curve_of(problem: str, r: Any) -> Curve:
    """The :class:`Curve` of a scored run (a :class:`~maxmargin.RunResult`)."""
    seed = int(r.seed or 0)
    return Curve(problem, r.order, seed, r.t, r.trace.seconds, r.subopt, r.subopt_avg)


class _NotChecked(io.Codec):
    """``not_checked``: rows of three strings, written as lists."""

    def load(self, doc: Any) -> tuple[tuple[str, ...], ...]:
        return tuple(io.Strings().load(row) for row in io.Tuple().load(doc))


@dataclass(frozen=True)
class CheckReport(io.Persistent):
    """What :func:`~maxmargin.testing.check_learner` found (its document: all but the curves).

    Attributes
    ----------
    learner : str
    battery : str
    data_seed : int
    seeds : tuple of int
        The seeds of the ``shuffle`` and ``sample`` runs.
    epochs : int
    verdicts : tuple of Verdict
        One per claim and problem (a rate with a constant: two).
    not_checked : tuple of (str, str, str)
        ``(claim, problems, reason)`` (``"*"``: every claim on those problems).
    seconds : float
        Wall-clock time of the check.
    curves : tuple of Curve
        Every run's suboptimality (for :func:`~maxmargin.testing.plot_suboptimality`).
    lam : float
        The battery's lambda (before scaling).
    target : (str, str)
        An import line and an expression that name the learner in :meth:`reproduce`.
    loss : {"hinge", "squared_hinge"}
        The loss of the problems (the learner's).

    Examples
    --------
    >>> d = CheckReport("mine", "quick", 0, (0, 1, 2), 30, ()).to_dict()
    >>> d["passed"], d["counts"]["FAIL"]
    (False, 0)
    """

    COMPUTED: ClassVar[tuple[str, ...]] = ("passed", "counts")

    learner: str
    battery: str
    data_seed: int
    seeds: tuple
    epochs: int
    verdicts: tuple[Verdict, ...] = io.persist(io.Nested(Verdict, many=True))
    not_checked: tuple[tuple[str, str, str], ...] = io.persist(_NotChecked(), default=())
    seconds: float = 0.0
    curves: tuple[Curve, ...] = io.transient(default=(), compare=False)
    lam: float = LAM
    target: tuple[str, str] = io.persist(io.Strings(), default=("", "learner"))
    loss: str = DEFAULT_LOSS

    @property
    def failures(self) -> tuple[Verdict, ...]:
        """The FAIL verdicts."""
        return tuple(v for v in self.verdicts if v.outcome == "FAIL")

    @property
    def inconclusive(self) -> tuple[Verdict, ...]:
        """The INCONCLUSIVE verdicts."""
        return tuple(v for v in self.verdicts if v.outcome == "INCONCLUSIVE")

    @property
    def passed(self) -> bool:
        """No claim FAILs, and at least one PASSes (a learner that claims nothing does not)."""
        return not self.failures and any(v.outcome == "PASS" for v in self.verdicts)

    @property
    def outcome(self) -> str:
        """One word for a column: PASS (:attr:`passed`), FAIL, INCONCLUSIVE, or N/A (no verdict)."""
        if self.passed:
            return "PASS"
        if self.failures:
            return "FAIL"
        return "INCONCLUSIVE" if self.inconclusive else "N/A"

    def counts(self) -> dict[str, int]:
        """The number of verdicts of each outcome.

        Returns
        -------
        dict
            ``{"PASS": ..., "FAIL": ..., "INCONCLUSIVE": ...}``.

        Examples
        --------
        >>> CheckReport("mine", "quick", 0, (0, 1, 2), 30, ()).counts()
        {'PASS': 0, 'FAIL': 0, 'INCONCLUSIVE': 0}
        """
        return {
            o: sum(v.outcome == o for v in self.verdicts) for o in ("PASS", "FAIL", "INCONCLUSIVE")
        }

    def summary(self) -> str:
        """One line: the learner, the overall verdict and the counts.

        Returns
        -------
        str

        Examples
        --------
        >>> CheckReport("mine", "quick", 0, (0, 1, 2), 30, ()).summary()[:36]
        'mine: NOTHING PASSED (0 PASS, 0 FAIL'
        """
        c = self.counts()
        overall = "PASS" if self.passed else ("FAIL" if c["FAIL"] else "NOTHING PASSED")
        loss = "" if self.loss == DEFAULT_LOSS else f", loss {self.loss}"
        return (
            f"{self.learner}: {overall} ({c['PASS']} PASS, {c['FAIL']} FAIL, "
            f"{c['INCONCLUSIVE']} INCONCLUSIVE; {self.battery} battery{loss}, data seed "
            f"{self.data_seed}, seeds {', '.join(map(str, self.seeds))}, {self.epochs} epochs, "
            f"{self.seconds:.1f} s)"
        )

    def reproduce(self, verdict: Verdict) -> str:
        """Python that re-runs the run a verdict names, and the check that gives the verdict.

        Parameters
        ----------
        verdict : Verdict

        Returns
        -------
        str
            Lines of Python (a learner given as an object is ``learner``: define it).

        Examples
        --------
        >>> from maxmargin.testing import Verdict
        >>> v = Verdict("mistakes <= (R/gamma)^2", "mistakes", "bound", "separable/none",
        ...             "FAIL", "too many mistakes", order="cyclic", seed=0)
        >>> rep = CheckReport("mine", "quick", 0, (0, 1, 2), 30, (v,), target=("", "Mine"))
        >>> print(rep.reproduce(v).splitlines()[4])
        learner = cp.learner_for(Mine)  # as check_learner built it: lam = 0.05, intercept 'none'
        """
        order = verdict.order or "cyclic"
        seed = 0 if verdict.seed is None else verdict.seed
        if self.battery not in BATTERIES:  # comparison_verdicts: the comparison's own runs
            return (
                f"cmp.select(label={self.learner!r}, order={order!r}, seed={seed})  # the run "
                f"of the comparison; comparison_verdicts(cmp)[{self.learner!r}]: the verdicts"
            )
        imports, name = self.target
        lam = "" if self.lam == LAM else f", lam={self.lam!r}"
        loss = "" if self.loss == DEFAULT_LOSS else f", loss={self.loss!r}"
        bat = f"battery({self.battery!r}, data_seed={self.data_seed}{lam}{loss})"
        built = battery(self.battery, data_seed=self.data_seed, lam=self.lam, loss=self.loss)
        spec = built.problem(verdict.problem)
        lines = [
            *([imports] if imports else []),
            "from maxmargin.online import run",
            "from maxmargin.testing import battery, certified, check_learner",
            f"bat = {bat}",
            f"cp = certified(bat.problem({verdict.problem!r}))",
            f"learner = cp.learner_for({name})  # as check_learner built it: lam = "
            f"{spec.problem_lam:g}, intercept {spec.intercept!r}",
            f"trace = run(learner, cp.data, epochs={self.epochs}, order={order!r}, "
            f"seed={seed}, checkpoints=bat.checkpoints(cp.data.n), "
            "sample_weight=cp.sample_weight)",
            f"report = check_learner({name}, battery={self.battery!r}, "
            f"data_seed={self.data_seed}, seeds={list(self.seeds)!r}, "
            f"problems=[{verdict.problem!r}])  # its verdicts there",
        ]
        return "\n".join(lines)

    def to_text(self) -> str:
        """The verdict table as plain text (failures first), then what was not checked.

        Returns
        -------
        str

        Examples
        --------
        >>> CheckReport("mine", "quick", 0, (0, 1, 2), 30, ()).to_text().splitlines()[2].split()
        ['verdict', 'claim', 'problem', 'time', 'evidence']
        """
        order = {"FAIL": 0, "INCONCLUSIVE": 1, "PASS": 2}
        rows = [_row(v) for v in sorted(self.verdicts, key=lambda v: order[v.outcome])]
        widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(_COLUMNS[:4])]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
        lines = [self.summary(), "", *(fmt.format(*r) for r in [_COLUMNS, *rows])]
        if self.failures:
            lines += ["", "reproduce the first FAIL:"]
            lines += ["  " + x for x in self.reproduce(self.failures[0]).splitlines()]
        if self.not_checked:
            lines += ["", "not checked:"]
            lines += [f"  {claim} on {probs}: {why}" for claim, probs, why in self.not_checked]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()
