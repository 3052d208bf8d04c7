"""Online subgradient SoftSVM(lambda) in the OMD form of seed 002 ("Pegasos")."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from .._validation import check_int, check_positive
from ..exceptions import ParameterError
from . import _kernels as K
from .base import OnlineLearner, _doc_intercept, _Packed

__all__ = ["Pegasos"]

PROJECTIONS = (None, "lazy", "greedy")


@_doc_intercept
class Pegasos(OnlineLearner):
    r"""SoftSVM(lambda) by online subgradient, written in OMD form (seed 002).

    On the instantaneous objective
    :math:`f_t(w) = \frac\lambda2\|w\|^2 + \max(0, 1 - y_t\, w\cdot z_t)`:

    .. math::

        \theta_0 = 0,\quad w_1 = 0, \qquad
        \theta_t = \theta_{t-1} + y_t z_t\, \mathbb{1}[y_t\, w_t \cdot z_t < 1], \qquad
        w_{t+1} = \frac{1}{\lambda (t+1)}\, \theta_t ,

    i.e. subgradient steps ``w <- (1 - eta lam) w + eta y z 1[...]`` with
    ``eta_t = 1/(lam (t+1))`` (the seed's indexing; the Pegasos paper uses ``1/(lam t)``).

    Mini-batch ``k``: step ``t`` counts batches ``B_t`` of ``k`` consecutive examples
    (within an epoch; the last batch of an epoch may be smaller); all margins of a batch
    are taken at ``w_t`` and ``theta_t = theta_{t-1} + (1/|B_t|) sum_{i in B_t,
    y_i w_t.z_i < 1} y_i z_i``.

    Projection onto the ball of radius :math:`1/\sqrt\lambda` (which contains the
    optimum):

    - ``"lazy"`` (the seed's mirror projection, dual averaging):
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
                 "seed 002 (SoftSVM(lambda) in OMD form)")

    def __init__(self, *, lam: float = 1e-4, projection: str | None = None,
                 batch_size: int = 1, intercept: str = "augmented",
                 intercept_scaling: float = 1.0) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.lam = check_positive("lam", lam)
        if projection not in PROJECTIONS:
            raise ParameterError(f"The 'projection' parameter must be one of None, 'lazy', "
                                 f"'greedy'. Got {projection!r} instead.")
        self.projection = projection
        self.batch_size = check_int("batch_size", batch_size, minimum=1)

    def _align(self, ckpts, n, epochs):
        k = self.batch_size
        if k == 1:
            return ckpts
        e = (ckpts - 1) // n  # 0-based epoch of each checkpoint
        off = ckpts - e * n
        off = np.minimum(-(-off // k) * k, n)
        return np.unique(e * n + off)

    def _mode(self) -> tuple[int, int, bool]:
        if self.projection == "greedy":
            return K.MODE_SCALED, 2, True
        return K.MODE_THETA, (1 if self.projection == "lazy" else 0), True

    def _setup(self, pk: _Packed) -> SimpleNamespace:
        mode, proj, peg = self._mode()
        st = K.empty_state()
        st[4] = 1.0 / self.lam if mode == K.MODE_THETA else 1.0  # w_1 = sigma * 0
        nd = pk.n if pk.record_dual else 0
        return SimpleNamespace(v=np.zeros(pk.d + 1), A=np.zeros(pk.d + 1), st=st,
                               c=np.zeros(nd), cA=np.zeros(nd),
                               mbuf=np.zeros(self.batch_size), mode=mode, proj=proj, peg=peg)

    def _eta0(self) -> float:
        return 0.0

    def _advance(self, pk, st, idx, lo, hi, t0):
        K.sgd_steps(*pk.xargs, pk.y, pk.xn2, pk.s, idx, lo, hi, t0, st.v, st.A, st.st, st.c,
                    st.cA, st.mbuf, st.mode, st.proj, self.lam, self._eta0(), st.peg,
                    1.0 / math.sqrt(self.lam), self.batch_size, pk.record_dual)

    def _snapshot(self, pk, st, t):
        sigma, S, tau = st.st[4], st.st[5], st.st[6]
        out = {"wt": sigma * st.v, "wt_avg": (S * st.v - st.A) / tau}
        if pk.record_dual:
            out["dual"] = sigma * st.c
            out["dual_avg"] = (S * st.c - st.cA) / tau
        return out
