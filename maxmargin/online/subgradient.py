"""Plain online subgradient descent on the lambda objective (the lecture notes)."""

from __future__ import annotations

from .._validation import check_positive
from . import _kernels as kernels
from .base import _doc_intercept
from .pegasos import Pegasos

__all__ = ["OnlineSubgradient"]


@_doc_intercept
class OnlineSubgradient(Pegasos):
    r"""Online subgradient descent with step :math:`\eta_t = \eta_0/\sqrt t` (lecture notes).

    On :math:`f_t(w) = \frac\lambda2\|w\|^2 + \max(0, 1 - y_t\, w\cdot z_t)`:

    .. math::

        w_1 = 0, \qquad
        w_{t+1} = w_t - \eta_t\big(\lambda w_t - y_t z_t\,
                  \mathbb{1}[y_t\, w_t\cdot z_t < 1]\big),
        \qquad \eta_t = \eta_0 / \sqrt{t}.

    The generic :math:`O(1/\sqrt T)` method (Zinkevich 2003): regret
    :math:`O(\sqrt T)`, and the average :math:`\bar w_T` of ``w_1..w_T`` has
    suboptimality :math:`O(1/\sqrt T)`. Kept as ``w = sigma v`` so a step costs
    O(nnz(z)); if ``eta_t lam = 1`` the scale is reset exactly.

    Parameters
    ----------
    lam : float > 0
    eta0 : float > 0
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> from maxmargin.online import run
    >>> run(OnlineSubgradient(lam=0.01, eta0=0.5), make_gaussians(40, 2, seed=0)).w.shape[1]
    2
    """

    name = "subgradient"
    reference = "Zinkevich (2003); the lecture notes (online subgradient, O(1/sqrt T))"
    theory_rate = -0.5  # O(1/sqrt T) for the average

    def __init__(self, *, lam: float = 1e-4, eta0: float = 1.0, intercept: str = "augmented",
                 intercept_scaling: float = 1.0) -> None:
        super().__init__(lam=lam, intercept=intercept, intercept_scaling=intercept_scaling)
        self.eta0 = check_positive("eta0", eta0)

    def regret_lipschitz(self, R: float) -> float | None:
        """None: steps ``eta0/sqrt(t)`` give an ``O(sqrt T)`` regret, not the logarithmic
        bound.

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

    def _mode(self) -> tuple[int, int, bool]:
        return kernels.MODE_SCALED, 0, False

    def _eta0(self) -> float:
        return self.eta0
