"""Online subgradient SoftSVM(lambda) in the OMD form of the lecture notes ("Pegasos")."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .._validation import check_choice, check_int, check_positive
from ..conventions import DEFAULT_INTERCEPT, DEFAULT_LOSS, LOSSES
from ..exceptions import ParameterError
from ._compiled import head, kernels
from .base import LearnerState, OnlineLearner, PackedData, Snapshot, _doc_intercept
from .claims import PERMUTATION, Average, Claim, Rate, RegretBound
from .step_sizes import PegasosStep, StepSize, as_step

__all__ = ["Pegasos"]

PROJECTIONS = (None, "lazy", "greedy")


@dataclass(eq=False)
class PegasosState(LearnerState):
    """The state of Pegasos and of online subgradient descent: ``w = sigma v`` (``sgd_steps``)."""

    v: np.ndarray = field(default_factory=lambda: np.zeros(1))
    v_sum: np.ndarray = field(default_factory=lambda: np.zeros(1))
    dual: np.ndarray = field(default_factory=lambda: np.zeros(0))
    dual_sum: np.ndarray = field(default_factory=lambda: np.zeros(0))
    batch_margins: np.ndarray = field(default_factory=lambda: np.zeros(1))
    mode: int = 0
    projection: int = 0
    free: bool = False

    @property
    def sigma(self) -> float:
        """The scale: ``w_t = sigma v``."""
        return float(self.totals[4])

    @property
    def sigma_sum(self) -> float:
        """Sum of the sigmas of the iterates whose losses were taken (v's units)."""
        return float(self.totals[5])

    @property
    def batches(self) -> float:
        """Steps (mini-batches) taken: ``tau``."""
        return float(self.totals[6])

    def weights(self) -> np.ndarray:
        """``w~_{t+1} = sigma v`` (a free bias weight: ``v[d]`` itself)."""
        w = self.sigma * self.v
        if self.free:
            w[-1] = self.v[-1]
        return w

    def average(self) -> np.ndarray:
        """The average of the iterates the losses were taken at."""
        avg = (self.sigma_sum * self.v - self.v_sum) / self.batches
        if self.free:
            avg[-1] = self.v_sum[-1] / self.batches
        return avg


@_doc_intercept
class Pegasos(OnlineLearner):
    r"""SoftSVM(lambda) by online subgradient, written in OMD form (the lecture notes).

    On the instantaneous objective
    :math:`f_t(w) = \frac\lambda2\|w\|^2 + \max(0, 1 - y_t\, w\cdot z_t)`:

    .. math::

        \theta_0 = 0,\quad w_1 = 0, \qquad
        \theta_t = \theta_{t-1} + y_t z_t\, \mathbb{1}[y_t\, w_t \cdot z_t < 1], \qquad
        w_{t+1} = \frac{1}{\lambda (t+1)}\, \theta_t ,

    i.e. steps ``eta_t = 1/(lam (t+1))``; ``step=PegasosStep(offset=0)`` is the paper's
    ``1/(lam t)``. A ``free`` bias takes the same steps unshrunk and unprojected. Mini-batch
    ``k``: ``t`` counts batches of ``k`` consecutive examples within an epoch, their margins
    taken at ``w_t``. ``loss="squared_hinge"`` minimises the lambda form of the L2-loss SVM
    and needs a projection (radius :math:`1/\sqrt{2\lambda}`). Projection on the ball of
    radius :math:`1/\sqrt\lambda`: ``"lazy"`` :math:`w_{t+1} = \Pi(\theta_t /
    (\lambda(t+1)))`, ``"greedy"`` :math:`\Pi((1 - \eta_t\lambda) w_t + \eta_t\, y z
    \mathbb 1[\cdot])`. The trace records ``w_{t+1}`` and the average of the iterates the
    losses were taken at. See ``docs/learners.md``.

    Parameters
    ----------
    lam : float > 0
        lambda (scikit-learn's ``alpha``; ``lam = 1/(C n)``).
    projection : {None, "lazy", "greedy"}
    batch_size : int in [1, 2**62]
        Examples per step; a batch never crosses an epoch's end.
    step : PegasosStep or {"pegasos", "pegasos_paper"}, optional
        :math:`1/(\lambda (t + \text{offset}))`, offset 1 by default; its ``lam`` must be
        the learner's or None.
    loss : {"hinge", "squared_hinge"}
        The loss of its objective.
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> from maxmargin.online import run
    >>> tr = run(Pegasos(lam=0.1, projection="lazy"), make_gaussians(50, 3, seed=0))
    >>> bool((np.linalg.norm(tr.w_tilde(), axis=1) <= 1 / np.sqrt(0.1) + 1e-12).all())
    True
    """

    name = "pegasos"
    reference = (
        "Shalev-Shwartz, Singer, Srebro & Cotter (2011), Pegasos; the lecture "
        "notes (SoftSVM(lambda) in OMD form)"
    )
    objective: str | None = "lambda"
    problem_parameter: str | None = "lam"
    theory_rate: float | None = -1.0  # O(log T / (lam T)), the average (the step's rate)
    claims: ClassVar[tuple[Claim, ...] | None] = (  # exponent, G: theory_rate, regret_lipschitz
        Rate(iterate="average", bound="regret/t", reference="Shalev-Shwartz et al. (2011), Cor. 1"),
        RegretBound(reference="Shalev-Shwartz et al. (2011), Lemma 1; Hazan et al. (2007)"),
        Average(iterates="before", reference="Shalev-Shwartz et al. (2011), Thm 1"),
        PERMUTATION,
    )
    has_dual = True
    has_average = True
    resumable = True
    sample_weight_rule = (
        "the hinge term times the example's weight, f_t = lam/2 ||w||^2 "
        "+ s_i hinge (scikit-learn's SGDClassifier): it minimises "
        "lam/2 ||w~||^2 + (1/n) sum_i s_i hinge_i"
    )

    def __init__(
        self,
        *,
        lam: float = 1e-4,
        projection: str | None = None,
        batch_size: int = 1,
        intercept: str = DEFAULT_INTERCEPT,
        intercept_scaling: float = 1.0,
        step: Any = None,
        loss: str = DEFAULT_LOSS,
    ) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.loss = check_choice("loss", loss, LOSSES)
        self.lam: float | None = check_positive("lam", lam)  # None: OnlineSubgradient's hinge
        if not (projection is None or isinstance(projection, str)) or projection not in PROJECTIONS:
            raise ParameterError(
                f"The 'projection' parameter must be one of None, 'lazy', "
                f"'greedy'. Got {projection!r} instead."
            )
        self.projection = projection
        if self.loss == "squared_hinge" and projection is None:
            raise ParameterError(
                "Pegasos(loss='squared_hinge') needs projection='greedy' or 'lazy': the "
                "gradient 2 xi y z grows with ||w||, and unprojected 1/(lam t) steps diverge "
                "(OnlineSubgradient(loss='squared_hinge') takes smaller steps)"
            )
        # no run takes more steps than 2**62 (runner.MAX_STEPS); a batch larger than the
        # data is the whole epoch (a batch never crosses an epoch's end)
        self.batch_size = check_int("batch_size", batch_size, minimum=1, maximum=2**62)
        self.step_size = None if step is None else as_step(step)
        if self.step_size is not None and not (
            isinstance(self.step_size, PegasosStep) and self.step_size.lam in (None, self.lam)
        ):
            raise ParameterError(
                f"Pegasos takes the step 1/(lam (t + offset)) with its own lam: "
                f"PegasosStep(offset=1 or 0), 'pegasos' or 'pegasos_paper'; got {step!r}. "
                "Other schedules: OnlineSubgradient(step=...)"
            )
        self.theory_rate = self._rate()
        if self.batch_size != 1:
            self._no_steps = (
                f"its steps average the hinge's subgradient over batches of "
                f"{self.batch_size} examples (batch_size=1 steps one at a time)"
            )

    def _rate(self) -> float | None:
        """The schedule's rate; None for ``1/(lam t)`` steps with a free (unregularised) bias."""
        rate = self._step().theory_rate
        return None if self.intercept == "free" and isinstance(self._step(), PegasosStep) else rate

    def get_params(self) -> dict[str, Any]:
        """The constructor's parameters (JSON types; ``step`` only when set, as a dict).

        Returns
        -------
        dict
            Parameter name to value.

        Examples
        --------
        >>> Pegasos(lam=0.5, step="pegasos_paper").get_params()["step"]
        {'schedule': 'pegasos', 'lam': None, 'offset': 0}
        """
        out = super().get_params()
        out.pop("step", None)  # the protocol's step method; the schedule is step_size
        if out.get("loss") == DEFAULT_LOSS:
            del out["loss"]  # a hinge run records the parameters it recorded before loss=
        step = self.step_size
        if step is not None:
            out["step"] = step.to_dict()
        return out

    def _step(self) -> StepSize:
        return self.step_size if self.step_size is not None else PegasosStep()

    def regret_lipschitz(self, R: float) -> float | None:
        """``G`` of the regret bound: ``2R`` or ``R + min(R, sqrt(lam))``, or None.

        None for mini-batches, the lazy projection or a free bias; the squared hinge:
        ``lam r + 2 (1 + r R) R``, ``r = 1/sqrt(2 lam)``, greedy projection only.

        Parameters
        ----------
        R : float
            ``max_i ||z_i||``.

        Returns
        -------
        float or None

        Examples
        --------
        >>> Pegasos(lam=0.01, projection="greedy", intercept="none").regret_lipschitz(2.0)
        2.1
        """
        if (
            self.batch_size != 1
            or self.projection == "lazy"
            or self.lam is None
            or self.intercept == "free"
        ):
            return None
        if self.loss == "squared_hinge":
            if self.projection != "greedy":
                return None
            r = 1.0 / math.sqrt(2.0 * self.lam)
            return self.lam * r + 2.0 * (1.0 + r * R) * R
        return 2 * R if self.projection is None else R + min(R, math.sqrt(self.lam))

    def _align(self, checkpoints: np.ndarray, n: int, epochs: int) -> np.ndarray:
        k = min(self.batch_size, n)
        if k == 1:
            return checkpoints
        e = (checkpoints - 1) // n  # 0-based epoch of each checkpoint
        off = checkpoints - e * n
        off = np.minimum(-(-off // k) * k, n)
        return np.unique(e * n + off)

    def _mode(self) -> tuple[int, int]:
        if self.projection == "greedy":
            return kernels.MODE_SCALED, 2
        return kernels.MODE_THETA, (1 if self.projection == "lazy" else 0)

    def _setup(self, packed: PackedData) -> PegasosState:
        mode, projection = self._mode()
        state = PegasosState(
            v=np.zeros(packed.d + 1),
            v_sum=np.zeros(packed.d + 1),
            dual=np.zeros(packed.n if packed.record_dual else 0),
            dual_sum=np.zeros(packed.n if packed.record_dual else 0),
            batch_margins=np.zeros(min(self.batch_size, packed.n)),
            mode=mode,
            projection=projection,
            free=self.intercept == "free",
        )
        # sigma: w_1 = sigma * 0
        theta_form = mode == kernels.MODE_THETA and self.lam is not None
        state.totals[4] = 1.0 / self.lam if theta_form and self.lam else 1.0
        return state

    def _advance(
        self, packed: PackedData, state: PegasosState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        lam = 0.0 if self.lam is None else self.lam
        step_mode, a, b = self._step().compiled(self.lam)
        sq = self.loss == "squared_hinge"
        # the squared hinge's optimum: ||w*||^2 = 2C sum s_i xi_i (1 - xi_i) <= mean(s)/(2 lam)
        lam_r = 2.0 * lam if sq else lam
        radius = math.inf if lam == 0.0 else 1.0 / math.sqrt(lam_r)
        if packed.step_weights is not None and lam != 0.0:
            # the weighted optimum lies in the ball of radius sqrt(mean(s) / lam): its dual
            # has 0 <= alpha_i <= s_i / n and lam ||w*||^2 <= sum_i alpha_i
            radius = math.sqrt(float(packed.step_weights.mean()) / lam_r)
        arrays = (state.v, state.v_sum, state.totals, state.dual, state.dual_sum)
        step = (step_mode, float(a), float(b), radius, min(self.batch_size, packed.n))
        rule = (state.mode, state.projection, lam, *step, packed.record_dual)
        tail = (packed.step_weights, state.free, sq)
        kernels.sgd_steps(*head(packed, idx, lo, hi, t0), *arrays, state.batch_margins, rule, *tail)

    def _snapshot(self, packed: PackedData, state: PegasosState, t: int) -> Snapshot:
        w_avg, b_avg = packed.split(state.average())
        dual = dual_avg = None
        if packed.record_dual:
            dual = state.sigma * state.dual
            dual_avg = (state.sigma_sum * state.dual - state.dual_sum) / state.batches
        return Snapshot(
            *packed.split(state.weights()), w_avg=w_avg, b_avg=b_avg, dual=dual, dual_avg=dual_avg
        )
