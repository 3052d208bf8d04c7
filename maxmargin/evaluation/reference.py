r"""The certified optimum a comparison scores its runs against (:class:`Reference`).

The soft-margin optimum of the problem, the hard-margin optimum when the data are
separable (for :math:`\gamma^*`), and what the bounds read of them in the learners'
space (``R``, :math:`\gamma^*`); solved here or given and re-certified, never trusted.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .. import io
from ..conventions import describe_problem
from ..data import Dataset
from ..exact import solve
from ..exceptions import ParameterError
from ..problem import SVMProblem
from ..separation import SeparationCertificate, is_separable, verify_separation
from ..solution import ExactSolution
from .scoring import _certified

__all__ = ["Reference"]


@dataclass(frozen=True, eq=False, kw_only=True)
class Reference(io.Persistent):
    r"""The certified optimum runs are scored against, and what the bounds read of it.

    Attributes
    ----------
    solution : ExactSolution
        The certified soft-margin optimum :math:`(\tilde w^*, \alpha^*)` of the problem
        (``solution.problem``).
    hard_solution : ExactSolution or None
        The certified hard-margin optimum (same intercept mode) when the data are
        separable, giving :math:`\gamma^*`; None otherwise.
    F_star : float
        :math:`F^* = \lambda P(\tilde w^*)` (lambda form).
    R : float
        :math:`\max_i \|z_i\|` in the learners' space (``z = (x, s)`` for ``augmented``
        and, the bias feature the learners update, ``free``).
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

        Parameters
        ----------
        data : Dataset
            The data the comparison ran on.

        Returns
        -------
        Reference

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
