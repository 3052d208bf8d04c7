"""Step-size schedules ``eta_t``: a parameter of the learners that take a step.

The compiled loops get each schedule as a mode code and two constants
(:meth:`StepSize.compiled`) and evaluate the formula of :meth:`StepSize.at`. A schedule may
be named by a string or by its ``to_dict()`` (:func:`as_step`). See ``docs/learners.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .. import io
from .._validation import check_positive
from ..exceptions import ParameterError

__all__ = ["StepSize", "Constant", "InverseSqrt", "PegasosStep", "as_step", "STEP_NAMES"]

# Mode codes of the compiled loops (``_kernels.sgd_steps``).
STEP_INVSQRT = 0
STEP_CONSTANT = 1
STEP_INVLAM = 2


@dataclass(frozen=True)
class StepSize(io.Persistent):
    """Base class of the step-size schedules; ``to_dict()`` writes ``schedule``, then the fields.

    Examples
    --------
    >>> Constant(0.5).to_dict()
    {'schedule': 'constant', 'eta': 0.5}
    """

    #: the name of the schedule (the first key of its dict; set by each subclass)
    schedule: str = field(default="", init=False, repr=False)
    #: the slope of log(F - F*) against log t for the average (None: no rate)
    theory_rate: ClassVar[float | None] = None

    def at(self, t: int, lam: float | None = None) -> float:
        """The step size of step ``t``, in Python.

        Parameters
        ----------
        t : int, 1-based
        lam : float or None, the learner's lambda

        Returns
        -------
        float

        Examples
        --------
        >>> Constant(0.5).at(3)
        0.5
        """
        raise NotImplementedError

    def compiled(self, lam: float | None) -> tuple[int, float, float]:
        """``(mode, a, b)``: the code and constants the compiled loops evaluate.

        Parameters
        ----------
        lam : float or None, the learner's lambda

        Returns
        -------
        (mode, a, b) : int, float, float

        Examples
        --------
        >>> InverseSqrt(2.0).compiled(None)
        (0, 2.0, 0.0)
        """
        raise NotImplementedError


@dataclass(frozen=True)
class Constant(StepSize):
    r"""A constant step: :math:`\eta_t = \eta` (the lecture notes' ``Delta``).

    Parameters
    ----------
    eta : float > 0

    Examples
    --------
    >>> Constant(0.1).at(1000)
    0.1
    """

    schedule: str = field(default="constant", init=False, repr=False)
    eta: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "eta", check_positive("eta", self.eta))

    def at(self, t: int, lam: float | None = None) -> float:
        """The step size of step ``t``: ``eta``, the same at every step.

        Parameters
        ----------
        t : int, 1-based
        lam : float or None, the learner's lambda

        Returns
        -------
        float

        Examples
        --------
        >>> Constant(0.1).at(1000)
        0.1
        """
        return self.eta

    def compiled(self, lam: float | None) -> tuple[int, float, float]:
        """``(mode, a, b)`` of the constant step: its code, ``eta`` and 0.

        Parameters
        ----------
        lam : float or None, the learner's lambda

        Returns
        -------
        (mode, a, b) : int, float, float

        Examples
        --------
        >>> Constant(0.1).compiled(None)
        (1, 0.1, 0.0)
        """
        return STEP_CONSTANT, self.eta, 0.0


@dataclass(frozen=True)
class InverseSqrt(StepSize):
    r""":math:`\eta_t = \eta_0/\sqrt t`: the generic online subgradient step (Zinkevich 2003).

    Parameters
    ----------
    eta0 : float > 0

    Examples
    --------
    >>> InverseSqrt(2.0).at(4)
    1.0
    """

    schedule: str = field(default="invsqrt", init=False, repr=False)
    theory_rate: ClassVar[float | None] = -0.5  # O(1/sqrt T)
    eta0: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "eta0", check_positive("eta0", self.eta0))

    def at(self, t: int, lam: float | None = None) -> float:
        """The step size of step ``t``: ``eta0 / sqrt(t)``.

        Parameters
        ----------
        t : int, 1-based
        lam : float or None, the learner's lambda

        Returns
        -------
        float

        Examples
        --------
        >>> InverseSqrt(2.0).at(4)
        1.0
        """
        return self.eta0 / math.sqrt(t)

    def compiled(self, lam: float | None) -> tuple[int, float, float]:
        """``(mode, a, b)`` of the ``eta0/sqrt(t)`` step: its code, ``eta0`` and 0.

        Parameters
        ----------
        lam : float or None, the learner's lambda

        Returns
        -------
        (mode, a, b) : int, float, float

        Examples
        --------
        >>> InverseSqrt(2.0).compiled(None)
        (0, 2.0, 0.0)
        """
        return STEP_INVSQRT, self.eta0, 0.0


@dataclass(frozen=True)
class PegasosStep(StepSize):
    r""":math:`\eta_t = 1/(\lambda\,(t + \text{offset}))`: the strongly convex step.

    Parameters
    ----------
    lam : float > 0 or None, default None (the learner's)
    offset : {1, 0}, default 1 (the lecture notes' SoftSVM(lambda); 0: the Pegasos paper's)

    Examples
    --------
    >>> PegasosStep(offset=0).at(4, lam=0.5)
    0.5
    >>> PegasosStep(lam=0.5).at(4)
    0.4
    """

    schedule: str = field(default="pegasos", init=False, repr=False)
    theory_rate: ClassVar[float | None] = -1.0  # O(log T / (lam T))
    lam: float | None = None
    offset: int = 1

    def __post_init__(self) -> None:
        if self.lam is not None:
            object.__setattr__(self, "lam", check_positive("lam", self.lam))
        if isinstance(self.offset, bool) or self.offset not in (0, 1):
            raise ParameterError(
                "PegasosStep offset must be 1 (the lecture notes' 1/(lam (t+1))) or 0 "
                f"(the paper's 1/(lam t)); got {self.offset!r}"
            )
        object.__setattr__(self, "offset", int(self.offset))

    def _lam(self, lam: float | None) -> float:
        out = self.lam if self.lam is not None else lam
        if out is None:
            raise ParameterError(
                "PegasosStep needs a lambda: the learner has none "
                "(lam=None); give PegasosStep(lam=...)"
            )
        return float(out)

    def at(self, t: int, lam: float | None = None) -> float:
        """The step size of step ``t``: ``1 / (lam (t + offset))``.

        Parameters
        ----------
        t : int, 1-based
        lam : float or None, the learner's lambda

        Returns
        -------
        float

        Examples
        --------
        >>> PegasosStep(offset=0).at(4, lam=0.5)
        0.5
        """
        return 1.0 / (self._lam(lam) * (t + float(self.offset)))

    def compiled(self, lam: float | None) -> tuple[int, float, float]:
        """``(mode, a, b)`` of the strongly convex step: its code, lambda and ``offset``.

        Parameters
        ----------
        lam : float or None, the learner's lambda

        Returns
        -------
        (mode, a, b) : int, float, float

        Examples
        --------
        >>> PegasosStep(lam=0.5).compiled(None)
        (2, 0.5, 1.0)
        """
        return STEP_INVLAM, self._lam(lam), float(self.offset)


#: The string names :func:`as_step` accepts.
STEP_NAMES = ("constant", "invsqrt", "pegasos", "pegasos_paper")

_KINDS: dict[str, type[StepSize]] = {c.schedule: c for c in (Constant, InverseSqrt, PegasosStep)}


def as_step(value: Any, *, eta0: float | None = None) -> StepSize:
    """Turn a schedule given as an object, a name or a dict into a :class:`StepSize`.

    A name of :data:`STEP_NAMES` takes its size from the learner's ``eta0``; a dict is
    what ``step.to_dict()`` writes.

    Examples
    --------
    >>> as_step("constant", eta0=0.25)
    Constant(eta=0.25)
    >>> as_step({"schedule": "pegasos", "lam": None, "offset": 0})
    PegasosStep(lam=None, offset=0)
    """
    if isinstance(value, StepSize):
        return value
    if isinstance(value, str):
        if value in ("constant", "invsqrt"):
            if eta0 is None:
                raise ParameterError(
                    f"step={value!r} takes its size from eta0, which this "
                    "learner does not have; give a StepSize object"
                )
            return Constant(eta0) if value == "constant" else InverseSqrt(eta0)
        if value in ("pegasos", "pegasos_paper"):
            return PegasosStep(offset=1 if value == "pegasos" else 0)
        raise ParameterError(
            f"unknown step {value!r}; choose from {', '.join(STEP_NAMES)} "
            "or give a StepSize object (Constant, InverseSqrt, PegasosStep)"
        )
    if isinstance(value, dict):
        fields = dict(value)
        kind = fields.pop("schedule", None)
        if kind not in _KINDS:
            raise ParameterError(
                f"a step dict needs 'schedule' in {', '.join(_KINDS)}; got {value!r}"
            )
        try:
            return _KINDS[kind](**fields)
        except TypeError as e:
            raise ParameterError(f"step {value!r}: {e}") from None
    raise ParameterError(
        f"step must be a StepSize (Constant, InverseSqrt, PegasosStep), one "
        f"of {', '.join(STEP_NAMES)} or a dict; got {type(value).__name__}"
    )
