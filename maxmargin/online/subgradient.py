"""Plain online subgradient descent on the lambda objective, or on the loss alone."""

from __future__ import annotations

from typing import Any

from .._validation import check_choice, check_positive
from ..conventions import DEFAULT_INTERCEPT, DEFAULT_LOSS, LOSSES
from ..exceptions import ParameterError
from ._compiled import kernels
from .base import OnlineLearner, _doc_intercept
from .claims import PERMUTATION, Average, Rate
from .pegasos import Pegasos
from .step_sizes import InverseSqrt, StepSize, as_step

__all__ = ["OnlineSubgradient"]


@_doc_intercept
class OnlineSubgradient(Pegasos):
    r"""Online subgradient descent with a step-size schedule (default :math:`\eta_0/\sqrt t`).

    On :math:`f_t(w) = \frac\lambda2\|w\|^2 + \max(0, 1 - y_t\, w\cdot z_t)`:

    .. math::

        w_1 = 0, \qquad
        w_{t+1} = w_t - \eta_t\big(\lambda w_t - y_t z_t\,
                  \mathbb{1}[y_t\, w_t\cdot z_t < 1]\big),
        \qquad \eta_t = \eta_0 / \sqrt{t}.

    Zinkevich (2003): regret :math:`O(\sqrt T)`, the average's suboptimality
    :math:`O(1/\sqrt T)`. Other schedules: ``step`` (``Constant(eta)``,
    ``PegasosStep``); ``lam=None`` drops the regulariser (SGD on the hinge risk). A
    ``free`` bias takes the same steps unshrunk; ``loss="squared_hinge"`` (no theory rate:
    its gradient is unbounded). See ``docs/learners.md``.

    Parameters
    ----------
    lam : float > 0 or None
        The regulariser's weight; None: the loss alone (0 is refused).
    eta0 : float > 0
        The step size of the default schedule (and of ``"constant"`` / ``"invsqrt"``).
    step : StepSize, str or dict, optional
        The schedule (:mod:`maxmargin.online.step_sizes`); default ``InverseSqrt(eta0)``.
    loss : {"hinge", "squared_hinge"}
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> from maxmargin.online import run
    >>> run(OnlineSubgradient(lam=0.01, eta0=0.5), make_gaussians(40, 2, seed=0)).w.shape[1]
    2
    >>> from maxmargin.online import Constant
    >>> run(OnlineSubgradient(lam=None, step=Constant(0.1)),
    ...     make_gaussians(40, 2, seed=0)).final_train_error < 0.5
    True
    """

    name = "subgradient"
    reference = "Zinkevich (2003); the lecture notes' online subgradient, O(1/sqrt T)"
    theory_rate: float | None = -0.5  # O(1/sqrt T) for the average
    claims = (  # eta0 has the units of w: not checked on rescaled data
        Rate(iterate="average", scale_free=False, reference="Zinkevich (2003), Thm 1"),
        Average(iterates="before", reference="Zinkevich (2003), Thm 1"),
        PERMUTATION,
    )

    def __init__(
        self,
        *,
        lam: float | None = 1e-4,
        eta0: float = 1.0,
        intercept: str = DEFAULT_INTERCEPT,
        intercept_scaling: float = 1.0,
        step: Any = None,
        loss: str = DEFAULT_LOSS,
    ) -> None:
        OnlineLearner.__init__(self, intercept=intercept, intercept_scaling=intercept_scaling)
        self.loss = check_choice("loss", loss, LOSSES)
        if lam is not None:
            try:
                lam = check_positive("lam", lam)
            except ParameterError as e:
                raise ParameterError(
                    f"{e}; for the loss alone (no regulariser) pass lam=None"
                ) from None
        self.lam = lam
        self.eta0 = check_positive("eta0", eta0)
        self.projection = None
        self.batch_size = 1
        self.step_size = None if step is None else as_step(step, eta0=self.eta0)
        if self.step_size is not None and lam is None:
            try:
                self.step_size.compiled(None)
            except ParameterError as e:
                raise ParameterError(f"lam=None: {e}") from None
        self.theory_rate = None if self.loss == "squared_hinge" else self._rate()
        if lam is None:  # the loss alone: not the problem's objective, nothing to set
            self.objective = self.problem_parameter = self.theory_rate = None

    def _step(self) -> StepSize:
        return self.step_size if self.step_size is not None else InverseSqrt(self.eta0)

    def regret_lipschitz(self, R: float) -> float | None:
        """None: steps ``eta0/sqrt(t)`` give an ``O(sqrt T)`` regret, not the logarithmic bound.

        Parameters
        ----------
        R : float
            ``max_i ||z_i||``.

        Returns
        -------
        None

        Examples
        --------
        >>> OnlineSubgradient(lam=0.1).regret_lipschitz(1.0) is None
        True
        """
        return None

    def _mode(self) -> tuple[int, int]:
        return kernels.MODE_SCALED, 0
