"""Passive-aggressive learners PA, PA-I and PA-II (Crammer et al. 2006)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from .._validation import check_positive
from ..conventions import DEFAULT_INTERCEPT
from ._compiled import head, kernels
from .base import LearnerState, OnlineLearner, PackedData, Snapshot, _doc_intercept
from .claims import PERMUTATION, MistakeBound

_CRAMMER = "Crammer, Dekel, Keshet, Shalev-Shwartz & Singer (2006)"

__all__ = ["PassiveAggressive", "PA", "PA1", "PA2"]


@dataclass(eq=False)
class PAState(LearnerState):
    """The passive-aggressive learners' state: ``w~_t`` and the steps summed per example."""

    w: np.ndarray = field(default_factory=lambda: np.zeros(1))
    dual: np.ndarray = field(default_factory=lambda: np.zeros(0))


@_doc_intercept
class PassiveAggressive(OnlineLearner):
    r"""Passive-aggressive classification (base of :class:`PA`, :class:`PA1`, :class:`PA2`).

    With :math:`\ell_t = \max(0, 1 - y_t\, w_t\cdot z_t)`:

    .. math::

        w_{t+1} = w_t + \tau_t\, y_t z_t, \qquad
        \tau_t = \frac{\ell_t}{\|z_t\|^2}\ (\mathrm{PA}),\quad
        \min\Big(C, \frac{\ell_t}{\|z_t\|^2}\Big)\ (\mathrm{PA\text{-}I}),\quad
        \frac{\ell_t}{\|z_t\|^2 + \frac1{2C}}\ (\mathrm{PA\text{-}II}).

    ``tau = 0`` when ``z_t = 0``. Implied dual point: ``a_i`` = the ``tau``'s on ``i`` summed.

    Parameters
    ----------
    C : float > 0, default 1.0
        Aggressiveness bound (unused by :class:`PA`).
    {intercept_parameters}

    Examples
    --------
    >>> PassiveAggressive(C=0.5).C
    0.5
    """

    variant: ClassVar[int] = 0
    reference = _CRAMMER
    has_dual = True
    resumable = True

    def __init__(
        self, *, C: float = 1.0, intercept: str = DEFAULT_INTERCEPT, intercept_scaling: float = 1.0
    ) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.C = check_positive("C", C)

    def _setup(self, packed: PackedData) -> PAState:
        return PAState(
            w=np.zeros(packed.d + 1), dual=np.zeros(packed.n if packed.record_dual else 0)
        )

    def _advance(
        self, packed: PackedData, state: PAState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        args = (state.w, state.totals, state.dual, self.variant, self.C, packed.record_dual)
        free = self.intercept == "free"
        kernels.pa_steps(*head(packed, idx, lo, hi, t0), *args, packed.step_weights, free)

    def _snapshot(self, packed: PackedData, state: PAState, t: int) -> Snapshot:
        return Snapshot(
            *packed.split(state.w), dual=state.dual.copy() if packed.record_dual else None
        )


@_doc_intercept
class PA(PassiveAggressive):
    r"""PA: :math:`\tau_t = \ell_t / \|z_t\|^2` (no aggressiveness bound).

    Parameters
    ----------
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> run(PA(), make_separable(30, 2, seed=0), epochs=5).final_train_error
    0.0
    """

    name = "pa"
    variant = 0
    claims = (
        MistakeBound(form="pa", data="separable", reference=_CRAMMER + ", Thm 2"),
        PERMUTATION,
    )

    def __init__(
        self, *, intercept: str = DEFAULT_INTERCEPT, intercept_scaling: float = 1.0
    ) -> None:
        super().__init__(C=1.0, intercept=intercept, intercept_scaling=intercept_scaling)


@_doc_intercept
class PA1(PassiveAggressive):
    r"""PA-I: :math:`\tau_t = \min(C, \ell_t / \|z_t\|^2)`.

    Parameters
    ----------
    C : float > 0, default 1.0
        Aggressiveness bound: the largest step ``tau_t`` (the SVM's C).
    {intercept_parameters}

    Examples
    --------
    >>> PA1(C=0.5).C
    0.5
    """

    name = "pa1"
    variant = 1
    claims = (
        MistakeBound(form="pa1", data="separable", reference=_CRAMMER + ", Thm 4"),
        MistakeBound(form="pa1", data="any", reference=_CRAMMER + ", Thm 4"),
        PERMUTATION,
    )
    problem_parameter = "C"
    sample_weight_rule = "C_i = C s_i: the step tau = min(C s_i, loss / ||z||^2)"


@_doc_intercept
class PA2(PassiveAggressive):
    r"""PA-II: :math:`\tau_t = \ell_t / (\|z_t\|^2 + 1/(2C))`.

    Parameters
    ----------
    C : float > 0, default 1.0
        Aggressiveness: smaller C damps the steps more (the squared-hinge SVM's C).
    {intercept_parameters}

    Examples
    --------
    >>> PA2(C=2.0).get_params()["C"]
    2.0
    """

    name = "pa2"
    variant = 2
    claims = (
        MistakeBound(form="pa2", data="separable", reference=_CRAMMER + ", Thm 5"),
        MistakeBound(form="pa2", data="any", reference=_CRAMMER + ", Thm 5"),
        PERMUTATION,
    )
    problem_parameter = "C"
    sample_weight_rule = "C_i = C s_i: the step tau = loss / (||z||^2 + 1/(2 C s_i))"
