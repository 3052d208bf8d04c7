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
    """The state of Pegasos and of online subgradient descent: ``w = sigma v``.

    Attributes
    ----------
    v : ndarray of shape (d + 1,)
        The scaled weights (``theta`` in the lazy mode).
    v_sum : ndarray of shape (d + 1,)
        Running sum for the average of the iterates, in ``v``'s units.
    dual, dual_sum : ndarray of shape (n,) or (0,)
        The implied dual point of ``v`` and its running sum (``record_dual``).
    batch_margins : ndarray of shape (batch_size,)
        Scratch for the margins of one mini-batch.
    mode, projection : int
        The kernel's update form (``kernels.MODE_THETA`` or ``MODE_SCALED``) and
        projection (0 none, 1 lazy, 2 greedy).
    free : bool
        Intercept ``free``: ``v[d]`` is the unregularised bias weight itself (not scaled
        by sigma) and ``v_sum[d]`` the sum of its values at the iterates.
    """

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

    i.e. subgradient steps ``w <- (1 - eta lam) w + eta y z 1[...]`` with
    ``eta_t = 1/(lam (t+1))`` (the notes' indexing). The Pegasos paper's
    ``eta_t = 1/(lam t)`` is ``step=PegasosStep(offset=0)`` (or ``"pegasos_paper"``):
    then :math:`w_{t+1} = \theta_t / (\lambda t)`, and the first step forgets ``w_1``.

    With ``intercept="free"`` the bias takes the same steps without the shrinkage (as
    scikit-learn's SGDClassifier): :math:`b_{t+1} = b_t + \eta_t\, y_t s^2\,
    \mathbb{1}[y_t (w_t\cdot x_t + b_t) < 1]`, never projected, and the run is scored
    against the problem with a free ``b`` (no theory rate or regret bound: the objective
    is not strongly convex in ``b``).

    Mini-batch ``k``: step ``t`` counts batches ``B_t`` of ``k`` consecutive examples
    (within an epoch; the last batch of an epoch may be smaller); all margins of a batch
    are taken at ``w_t`` and ``theta_t = theta_{t-1} + (1/|B_t|) sum_{i in B_t,
    y_i w_t.z_i < 1} y_i z_i``.

    ``loss="squared_hinge"``: :math:`f_t(w) = \frac\lambda2\|w\|^2 + \xi_t^2`,
    :math:`\xi_t = \max(0, 1 - y_t\, w\cdot z_t)`, whose gradient replaces
    :math:`y_t z_t \mathbb 1[\cdot]` by :math:`2\xi_t\, y_t z_t`: the learner minimises
    the lambda form of the L2-loss SVM (``SVMProblem(loss="squared_hinge")``) and is
    scored against that optimum only. Its projection radius is
    :math:`1/\sqrt{2\lambda}`: at the optimum :math:`\alpha_i = 2C\xi_i` and
    complementarity give :math:`\|w^*\|^2 = 2C\sum_i \xi_i(1 - \xi_i) \le Cn/2 =
    1/(2\lambda)` (weighted: :math:`\sqrt{\bar s/(2\lambda)}`). A projection is
    required: the gradient grows with :math:`\|w\|`, and the first steps
    :math:`1/(\lambda t)` overshoot without one (their iterates diverge).

    Projection onto the ball of radius :math:`1/\sqrt\lambda` (which contains the
    optimum; with example weights :math:`\sqrt{\bar s/\lambda}`, :math:`\bar s` their
    mean over the data of the call):

    - ``"lazy"`` (the notes' mirror projection, dual averaging):
      :math:`w_{t+1} = \Pi(\theta_t / (\lambda(t+1)))`, ``theta`` itself unprojected;
    - ``"greedy"`` (the Pegasos paper):
      :math:`w_{t+1} = \Pi((1 - \eta_t\lambda) w_t + \eta_t\, y z \mathbb 1[\cdot])`.

    The trace records ``w_{t+1}`` and the average :math:`\bar w_t = \frac1t \sum_{s\le t}
    w_s` of the iterates at which the losses were taken (the point the
    :math:`O(\log T / (\lambda T))` bound is about), and with ``record_dual=True`` the
    implied dual points ``a`` of both (``w~ = sum_i a_i y_i z_i``).

    Parameters
    ----------
    lam : float > 0
        lambda (scikit-learn's ``alpha``; ``lam = 1/(C n)``).
    projection : {None, "lazy", "greedy"}
    batch_size : int in [1, 2**62]
        Examples per step; a batch never crosses an epoch's end (larger than n: the
        whole epoch).
    step : PegasosStep or {"pegasos", "pegasos_paper"}, optional
        The step size :math:`1/(\lambda (t + \text{offset}))`: default (None) the notes'
        offset 1; ``PegasosStep(offset=0)`` the paper's. Its ``lam`` must be the
        learner's (or None); other schedules belong to
        :class:`~maxmargin.online.OnlineSubgradient`. Listed by :meth:`get_params` only
        when set.
    loss : {"hinge", "squared_hinge"}
        The loss of its objective (listed by :meth:`get_params` only when not the hinge).
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
        """The step schedule's rate; None for ``1/(lam t)`` steps with a free bias.

        Their rate needs a strongly convex objective, and the bias is not regularised.
        """
        rate = self._step().theory_rate
        return None if self.intercept == "free" and isinstance(self._step(), PegasosStep) else rate

    def get_params(self) -> dict[str, Any]:
        """The constructor's parameters (JSON types; ``step`` only when set, as a dict).

        Returns
        -------
        dict
            Parameter name to value; a default run records the same parameters as before
            ``step`` existed.

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

        ``2R`` without projection (``lam ||w_t|| <= R``), ``R + min(R, sqrt(lam))`` with
        the greedy one; None for mini-batches, the lazy projection or a free bias (not
        covered: the bias makes the losses not strongly convex). The squared hinge: only
        with the greedy projection, ``||w_t|| <= r = 1/sqrt(2 lam)``, where
        ``||lam w - 2 xi y z|| <= lam r + 2 (1 + r R) R``.

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
        step = (step_mode, float(a), float(b))
        sq = self.loss == "squared_hinge"
        # the squared hinge's optimum: ||w*||^2 = 2C sum s_i xi_i (1 - xi_i) <= mean(s)/(2 lam)
        lam_r = 2.0 * lam if sq else lam
        radius = math.inf if lam == 0.0 else 1.0 / math.sqrt(lam_r)
        if packed.step_weights is not None and lam != 0.0:
            # the weighted optimum lies in the ball of radius sqrt(mean(s) / lam): its dual
            # has 0 <= alpha_i <= s_i / n and lam ||w*||^2 <= sum_i alpha_i
            radius = math.sqrt(float(packed.step_weights.mean()) / lam_r)
        arrays = (state.v, state.v_sum, state.totals, state.dual, state.dual_sum)
        rule = (state.batch_margins, state.mode, state.projection, lam, *step, radius)
        rest = (min(self.batch_size, packed.n), packed.record_dual, packed.step_weights)
        kernels.sgd_steps(*head(packed, idx, lo, hi, t0), *arrays, *rule, *rest, state.free, sq)

    def _snapshot(self, packed: PackedData, state: PegasosState, t: int) -> Snapshot:
        w_avg, b_avg = packed.split(state.average())
        dual = dual_avg = None
        if packed.record_dual:
            dual = state.sigma * state.dual
            dual_avg = (state.sigma_sum * state.dual - state.dual_sum) / state.batches
        return Snapshot(
            *packed.split(state.weights()), w_avg=w_avg, b_avg=b_avg, dual=dual, dual_avg=dual_avg
        )
