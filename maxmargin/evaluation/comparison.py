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

from .._progress import Progress
from .._validation import (
    WIDE_HINT,
    check_count,
    check_int,
    check_memory,
    renamed_attribute,
    resolve_alias,
    seed_from_random_state,
)
from ..data import Dataset, make_separable
from ..exact import solve
from ..exceptions import DataError, ParameterError
from ..io.files import atomic_write
from ..io.json import dumps, format_header, jsonable
from ..online import LEARNERS, ORDERS, OnlineLearner, run
from ..online.learner import Declared, is_learner
from ..online.protocol import as_learner
from ..online.registry import learner_for, objective_parameter
from ..online.runner import CHECKPOINT_OVERHEAD, _geometric_count, check_steps
from ..problem import SVMProblem
from ..separation import SeparationCertificate, is_separable, verify_separation
from ..solution import ExactSolution
from ..trace import Trace
from .scoring import (
    _COLUMNS,
    RunResult,
    _certified,
    _check_trace,
    _declared_of,
    _evaluate,
    _Optimum,
    _summary_row,
)

if TYPE_CHECKING:
    from .saved import SavedComparison

__all__ = ["compare", "Comparison", "demo_comparison"]


# --------------------------------------------------------------------------- helpers


def _rate_iterates(rows: Sequence[dict]) -> str:
    """Which iterate each row's rate was fitted on, e.g. ``"pegasos: average"``."""
    fitted = [f"{r['label']}: {r['rate_iterate']}" for r in rows if r.get("rate_iterate")]
    return "; ".join(fitted) or "no rate was fitted"


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
