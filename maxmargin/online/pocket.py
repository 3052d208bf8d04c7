"""The pocket algorithm (Gallant 1990; the lecture notes)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._validation import check_int
from . import _kernels as kernels
from .base import LearnerState, OnlineLearner, PackedData, Snapshot, _doc_intercept

__all__ = ["Pocket"]


@dataclass(eq=False)
class PocketState(LearnerState):
    """The pocket algorithm's state.

    Attributes
    ----------
    w : ndarray of shape (d + 1,)
        The running perceptron ``w~_t``.
    pocket : ndarray of shape (d + 1,)
        The weights with the fewest training errors so far.
    scores : ndarray of shape (n,)
        ``Z w~_t``, kept up to date through ``gram`` (when used).
    gram : ndarray of shape (n, n) or (0, 0)
        ``Z Z^T`` (``n <= gram_max``).
    use_gram : bool
    """

    w: np.ndarray = field(default_factory=lambda: np.zeros(1))
    pocket: np.ndarray = field(default_factory=lambda: np.zeros(1))
    scores: np.ndarray = field(default_factory=lambda: np.zeros(0))
    gram: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    use_gram: bool = False

    @property
    def pocket_errors(self) -> int:
        """Training errors of the pocket."""
        return int(self.totals[4])

    @property
    def pocket_step(self) -> int:
        """The step at which the pocket was last filled."""
        return int(self.totals[5])


@_doc_intercept
class Pocket(OnlineLearner):
    r"""Perceptron that keeps in its pocket the weights with the fewest training errors.

    The perceptron runs as usual (:class:`~maxmargin.online.Perceptron`); after an update
    the new weights' training errors are counted and, if fewer than the pocket's, they
    replace it:

    .. math::

        w_{t+1} = w_t + y_t z_t \mathbb{1}[y_t w_t\cdot z_t \le 0], \qquad
        \hat w \leftarrow w_{t+1} \text{ if }
        E(w_{t+1}) < E(\hat w),\quad E(w) = \#\{i : y_i\, w\cdot z_i \le 0\}.

    The pocket starts at ``w = 0`` (``E = n``). Counting is O(n) per update through the
    Gram matrix ``Z Z^T`` when ``n <= gram_max`` (scores kept up to date), else an O(nd)
    rescan; ``check_every = k`` counts only after every k-th update (k = 1 is the
    algorithm as written; larger k trades exactness for speed on big n).

    The trace's ``w`` is the pocket; mistakes / loss are those of the running
    perceptron; ``extras["pocket_errors"]`` is ``E(pocket)`` at each checkpoint.

    Parameters
    ----------
    check_every : int >= 1
    gram_max : int
        Largest n for which the (n, n) Gram matrix is built.
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> from maxmargin.online import run
    >>> tr = run(Pocket(), make_gaussians(60, 2, seed=0), epochs=3)
    >>> bool(tr.extras["pocket_errors"][-1] <= tr.extras["pocket_errors"][0])
    True
    """

    name = "pocket"
    reference = "Gallant (1990); the lecture notes"
    mistake_driven = True

    def __init__(self, *, check_every: int = 1, gram_max: int = 4096,
                 intercept: str = "augmented", intercept_scaling: float = 1.0) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.check_every = check_int("check_every", check_every, minimum=1)
        self.gram_max = check_int("gram_max", gram_max, minimum=0)

    def _setup(self, packed: PackedData) -> PocketState:
        use_gram = packed.n <= self.gram_max
        if use_gram:
            X = packed.dataset.X
            G = X @ X.T
            G = np.ascontiguousarray((G.toarray() if sp.issparse(G) else G)
                                     + packed.bias_feature ** 2)
        else:
            G = np.zeros((0, 0))
        state = PocketState(w=np.zeros(packed.d + 1), pocket=np.zeros(packed.d + 1),
                            scores=np.zeros(packed.n), gram=G, use_gram=use_gram)
        state.totals[4] = packed.n  # the zero vector misclassifies everything (0 is an error)
        return state

    def _advance(self, packed: PackedData, state: PocketState, idx: np.ndarray, lo: int,
                 hi: int, t0: int) -> None:
        kernels.pocket_steps(*packed.xargs, packed.y, packed.z_sqnorms, packed.bias_feature,
                             idx, lo, hi, t0, state.w, state.pocket, state.scores, state.gram,
                             state.use_gram, float(self.check_every), state.totals)

    def _snapshot(self, packed: PackedData, state: PocketState, t: int) -> Snapshot:
        return Snapshot(*packed.split(state.pocket),
                        extras={"pocket_errors": state.pocket_errors,
                                "pocket_t": state.pocket_step, "w_last": state.w[:-1].copy()})
