"""The certified optima a comparison scores its runs against (:class:`Reference`).

One per intercept mode: the soft-margin optimum, the hard margin when the data are
separable, and ``R`` and ``gamma*`` in the learners' space; solved here or given and
re-certified, never trusted.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .. import io
from ..conventions import DEFAULT_LOSS, describe_problem
from ..data import Dataset
from ..exact import solve
from ..exceptions import ParameterError
from ..problem import SVMProblem
from ..separation import SeparationCertificate, is_separable, verify_separation
from ..solution import ExactSolution
from .scoring import _certified, _Optimum

__all__ = ["Reference", "problem_for"]


@dataclass(frozen=True, eq=False, kw_only=True)
class Reference(io.Persistent):
    r"""The certified optimum runs are scored against, and what the bounds read of it.

    Attributes
    ----------
    solution : ExactSolution
        The certified soft-margin optimum of the problem (``solution.problem``).
    hard_solution : ExactSolution or None
        The certified hard-margin optimum when the data are separable, else None.
    F_star : float
        :math:`F^* = \lambda P(\tilde w^*)` (lambda form).
    R : float
        :math:`\max_i \|z_i\|` in the learners' space.
    gamma : float
        :math:`\gamma^*` in the learners' space (nan when not separable).

    Examples
    --------
    >>> from maxmargin import compare, make_separable
    >>> cmp = compare(make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1)
    >>> ref = cmp.references[0]
    >>> ref.intercept, ref.separable, ref.w_star.shape
    ('free', True, (2,))
    """

    COMPUTED: ClassVar[tuple[str, ...]] = (
        "intercept",
        "w_star",
        "separable",
        "novikoff",
        "scored_against",
    )

    solution: ExactSolution = io.persist(io.Nested(ExactSolution))
    hard_solution: ExactSolution | None = io.persist(io.Nested(ExactSolution), default=None)
    F_star: float
    R: float
    gamma: float

    @property
    def problem(self) -> SVMProblem:
        """The soft-margin problem every run is scored against."""
        return self.solution.problem

    @property
    def intercept(self) -> str:
        """The problem's intercept mode."""
        return self.problem.intercept

    @property
    def w_star(self) -> np.ndarray:
        r""":math:`\tilde w^*` in the problem's regularised space, shape (d',)."""
        return self.problem.to_augmented(self.solution.w, self.solution.b)

    @property
    def separable(self) -> bool:
        """Whether the data are separable (and ``hard_solution`` was solved)."""
        return self.hard_solution is not None

    @property
    def novikoff(self) -> float:
        r""":math:`(R/\gamma^*)^2`, nan when not separable."""
        if not self.separable:
            return math.nan
        return (self.R / self.gamma) ** 2 if self.gamma > 0 else math.inf

    @property
    def scored_against(self) -> str:
        """The problem in words (:func:`~maxmargin.conventions.describe_problem`)."""
        p = self.problem
        what = describe_problem(p.C, p.lam, p.intercept, p.intercept_scaling)
        return what if p.loss == "hinge" else f"{what}, squared hinge (the L2-loss SVM)"

    def with_data(self, data: Dataset) -> Reference:
        """Both optima on ``data``, their certificates recomputed with numpy.

        Examples
        --------
        >>> from maxmargin import compare, make_separable
        >>> data = make_separable(30, 2, seed=0)
        >>> ref = compare(data, learners=["pegasos"], lam=0.1).references[0].without_data()
        >>> ref.with_data(data).solution.certificate.ok
        True
        """
        hard = self.hard_solution
        return dataclasses.replace(
            self,
            solution=self.solution.with_data(data),
            hard_solution=None if hard is None else hard.with_data(data),
        )


def _problem_of(
    data: Any,
    problem: SVMProblem | None,
    C: float | None,
    lam: float | None,
    intercept: str,
    intercept_scaling: float,
    loss: str | None = None,
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
        if loss not in (None, problem.loss):
            raise ParameterError(f"loss={loss!r} but the problem has loss={problem.loss!r}")
    else:
        if C is not None and lam is not None:
            raise ParameterError(
                f"give only one of C and lam (got C={C!r}, lam={lam!r}); lam = 1/(C n)"
            )
        problem = SVMProblem(
            data,
            C=C,
            lam=lam,
            intercept=intercept,
            intercept_scaling=intercept_scaling,
            loss=DEFAULT_LOSS if loss is None else loss,
        )
    if problem.hard:
        raise ParameterError(
            "compare measures learners against a soft-margin optimum; give "
            "C or lam (the hard margin is solved as well when the data are "
            "separable)"
        )
    return problem


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
            or reference.problem.loss != problem.loss
            or not math.isclose(reference.problem.C, problem.C, rel_tol=1e-12)
        )
    ):
        raise ParameterError(
            "reference must be the ExactSolution of this very problem (same data, C, "
            "intercept and loss)"
        )
    return _certified(reference, "soft-margin")


def _hard_solution(
    problem: SVMProblem, hard_reference: Any, solver: str | None
) -> ExactSolution | None:
    """The certified hard-margin optimum (None: not separable), given or decided here."""
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


def problem_for(problem: SVMProblem, intercept: str) -> SVMProblem:
    """``problem`` with another intercept mode (itself when it has it): same data, C, weights.

    Examples
    --------
    >>> from maxmargin import SVMProblem, make_separable
    >>> p = SVMProblem(make_separable(20, 2, seed=0), C=2.0)
    >>> q = problem_for(p, "none")
    >>> (q.intercept, q.C, q.data is p.data), problem_for(p, "free") is p
    (('none', 2.0, True), True)
    """
    if intercept == problem.intercept:
        return problem
    return SVMProblem(
        problem.data,
        problem.C,
        intercept=intercept,
        intercept_scaling=problem.intercept_scaling,
        sample_weight=problem.weights,
        loss=problem.loss,
    )


def _references(
    problem: SVMProblem,
    intercepts: list[str],
    reference: ExactSolution | None,
    hard_reference: Any,
    solver: str | None,
    holdout: Dataset | None,
) -> dict[str, tuple[Reference, _Optimum]]:
    """One certified reference per intercept mode, and what the scoring reads of it."""
    out = {}
    for mode in intercepts:
        p, mine = problem_for(problem, mode), mode == problem.intercept
        soft = _soft_reference(p, reference if mine else None, solver)
        hard = _hard_solution(p, hard_reference if mine else None, solver)
        opt = _Optimum(p, soft, hard, holdout)
        R, _, _, gamma = opt.space(p.intercept_scaling)
        ref = Reference(solution=soft, hard_solution=hard, F_star=opt.F_star, R=R, gamma=gamma)
        out[mode] = ref, opt
    return out
