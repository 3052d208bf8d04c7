"""Online subgradient SoftSVM(lambda) in the lecture notes' OMD form ("Pegasos")."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np

from .._validation import check_int, check_positive
from ..exceptions import ParameterError
from . import _kernels as K
from ._base import OnlineLearner, _doc_intercept, _Packed
from .steps import PegasosStep, StepSize, as_step

__all__ = ["Pegasos"]

PROJECTIONS = (None, "lazy", "greedy")


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

    Mini-batch ``k``: step ``t`` counts batches ``B_t`` of ``k`` consecutive examples
    (within an epoch; the last batch of an epoch may be smaller); all margins of a batch
    are taken at ``w_t`` and ``theta_t = theta_{t-1} + (1/|B_t|) sum_{i in B_t,
    y_i w_t.z_i < 1} y_i z_i``.

    Projection onto the ball of radius :math:`1/\sqrt\lambda` (which contains the
    optimum):

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
    batch_size : int >= 1
    step : PegasosStep or {"pegasos", "pegasos_paper"}, optional
        The step size :math:`1/(\lambda (t + \text{offset}))`: default (None) the notes'
        offset 1; ``PegasosStep(offset=0)`` the paper's. Its ``lam`` must be the
        learner's (or None); other schedules belong to
        :class:`~maxmargin.online.OnlineSubgradient`. Listed by :meth:`get_params` only
        when set.
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
    has_dual = True
    has_average = True
    reference = ("Shalev-Shwartz, Singer, Srebro & Cotter (2011), Pegasos; "
                 "the lecture notes' SoftSVM(lambda) in OMD form")

    def __init__(self, *, lam: float = 1e-4, projection: str | None = None,
                 batch_size: int = 1, intercept: str = "augmented",
                 intercept_scaling: float = 1.0, step: Any = None) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.lam = check_positive("lam", lam)
        if projection not in PROJECTIONS:
            raise ParameterError(f"The 'projection' parameter must be one of None, 'lazy', "
                                 f"'greedy'. Got {projection!r} instead.")
        self.projection = projection
        self.batch_size = check_int("batch_size", batch_size, minimum=1)
        self.step = None if step is None else as_step(step)
        if self.step is not None and not (
                isinstance(self.step, PegasosStep) and self.step.lam in (None, self.lam)):
            raise ParameterError(
                f"Pegasos takes the step 1/(lam (t + offset)) with its own lam: "
                f"PegasosStep(offset=1 or 0), 'pegasos' or 'pegasos_paper'; got {step!r}. "
                "Other schedules: OnlineSubgradient(step=...)")

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
        step = out.pop("step", None)
        if step is not None:
            out["step"] = step.to_dict()
        return out

    def _step(self) -> StepSize:
        return self.step if self.step is not None else PegasosStep()

    def _align(self, ckpts, n, epochs):
        k = self.batch_size
        if k == 1:
            return ckpts
        e = (ckpts - 1) // n  # 0-based epoch of each checkpoint
        off = ckpts - e * n
        off = np.minimum(-(-off // k) * k, n)
        return np.unique(e * n + off)

    def _mode(self) -> tuple[int, int]:
        if self.projection == "greedy":
            return K.MODE_SCALED, 2
        return K.MODE_THETA, (1 if self.projection == "lazy" else 0)

    def _setup(self, pk: _Packed) -> SimpleNamespace:
        mode, proj = self._mode()
        st = K.empty_state()
        st[4] = 1.0 / self.lam if mode == K.MODE_THETA else 1.0  # w_1 = sigma * 0
        nd = pk.n if pk.record_dual else 0
        return SimpleNamespace(v=np.zeros(pk.d + 1), A=np.zeros(pk.d + 1), st=st,
                               c=np.zeros(nd), cA=np.zeros(nd),
                               mbuf=np.zeros(self.batch_size), mode=mode, proj=proj)

    def _advance(self, pk, st, idx, lo, hi, t0):
        lam = 0.0 if self.lam is None else self.lam
        mode, a, b = self._step().compiled(self.lam)
        radius = math.inf if lam == 0.0 else 1.0 / math.sqrt(lam)
        K.sgd_steps(*pk.xargs, pk.y, pk.xn2, pk.s, idx, lo, hi, t0, st.v, st.A, st.st, st.c,
                    st.cA, st.mbuf, st.mode, st.proj, lam, mode, float(a), float(b), radius,
                    self.batch_size, pk.record_dual)

    def _snapshot(self, pk, st, t):
        sigma, S, tau = st.st[4], st.st[5], st.st[6]
        out = {"wt": sigma * st.v, "wt_avg": (S * st.v - st.A) / tau}
        if pk.record_dual:
            out["dual"] = sigma * st.c
            out["dual_avg"] = (S * st.c - st.cA) / tau
        return out
