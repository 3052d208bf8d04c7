"""What a backend returns, before maxmargin maps, polishes and certifies it: RawResult."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

__all__ = ["Status", "RawResult"]


class Status(enum.Enum):
    """What a backend says of its answer: never proof (points are certified, LPs decide)."""

    OPTIMAL = "optimal"
    #: a point, but the solver did not reach its tolerance (iteration cap, numerics)
    INACCURATE = "inaccurate"
    #: primal infeasible (hard margin, primal form: the data may not be separable)
    INFEASIBLE = "infeasible"
    INFEASIBLE_INACCURATE = "infeasible_inaccurate"
    #: dual unbounded (hard margin, dual form: the data may not be separable)
    UNBOUNDED = "unbounded"
    #: no usable answer
    FAILED = "failed"

    @property
    def has_point(self) -> bool:
        """Whether the answer carries a point worth mapping and certifying."""
        return self in (Status.OPTIMAL, Status.INACCURATE)

    @property
    def says_infeasible(self) -> bool:
        """Whether the solver reports the hard margin infeasible (or gave up): the LP decides."""
        return self in (
            Status.INFEASIBLE,
            Status.INFEASIBLE_INACCURATE,
            Status.UNBOUNDED,
            Status.FAILED,
        )


@dataclass(frozen=True, eq=False)
class RawResult:
    """A backend's answer, in the variables of the QP it was given.

    ``x``: ``(alpha, u)`` or ``alpha`` (dual), ``(w~, b, xi)`` (primal); ``y_eq``: the
    equalities' multipliers (the last is ``b``, free intercept); ``z_ineq``: the
    inequalities' (``alpha``, primal).
    """

    status: Status
    text: str
    x: np.ndarray | None = None
    y_eq: np.ndarray | None = None
    z_ineq: np.ndarray | None = None

    @property
    def has_point(self) -> bool:
        """A point to map back: a usable status and ``x``."""
        return self.status.has_point and self.x is not None

    def describe(self) -> str:
        """The status and the solver's words, in one line."""
        value = self.status.value
        return self.text if self.text.startswith(value) else f"{value} ({self.text})"
