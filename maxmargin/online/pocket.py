"""The pocket algorithm (Gallant 1990), on the schedule or on random current mistakes."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._validation import check_choice, check_int
from ..conventions import DEFAULT_INTERCEPT
from ._compiled import head, kernels
from .base import LearnerState, OnlineLearner, PackedData, Snapshot, _doc_intercept
from .claims import NOVIKOFF, PERCEPTRON_GENERAL, PERMUTATION, SCALING
from .orders import _check_seed

__all__ = ["Pocket"]

SELECTIONS = ("schedule", "random_mistake")


@dataclass(eq=False)
class PocketState(LearnerState):
    """The pocket's state: ``w~_t``, the pocket, ``Z w~_t`` through ``Z Z^T``, the rng.

    ``totals`` has two more slots than other learners' (``pocket_steps`` says which).
    """

    w: np.ndarray = field(default_factory=lambda: np.zeros(1))
    pocket: np.ndarray = field(default_factory=lambda: np.zeros(1))
    scores: np.ndarray = field(default_factory=lambda: np.zeros(0))
    gram: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    use_gram: bool = False
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    margins: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def pocket_errors(self) -> int:
        """Training errors of the pocket."""
        return int(self.totals[4])

    @property
    def pocket_step(self) -> int:
        """The step at which the pocket was last filled."""
        return int(self.totals[5])

    @property
    def halted_at(self) -> int:
        """The step after which no mistake was left (random mistakes; 0: never)."""
        return int(self.totals[8])


@_doc_intercept
class Pocket(OnlineLearner):
    r"""Perceptron that keeps in its pocket the weights with the fewest training errors.

    After each perceptron update, the new weights replace the pocket if they have fewer
    training errors:

    .. math::

        w_{t+1} = w_t + y_t z_t \mathbb{1}[y_t w_t\cdot z_t \le 0], \qquad
        \hat w \leftarrow w_{t+1} \text{ if }
        E(w_{t+1}) < E(\hat w),\quad E(w) = \#\{i : y_i\, w\cdot z_i \le 0\}.

    Which example step ``t`` corrects (``select``):

    - ``"schedule"``: the example the run's order visits (updating if it is a mistake);
    - ``"random_mistake"``: the lecture notes' pocket: the ``floor(u |E|)``-th current
      mistake (``u`` from ``numpy.random.default_rng(seed)``, one per step); with none left
      the run stops (``extras["halted_at"]``: the steps taken, 0 if it never stopped).

    Counting is O(n) per update through ``Z Z^T`` when ``n <= gram_max``, else O(nd);
    ``check_every = k`` counts after every k-th update only. The trace's ``w`` is the
    pocket, ``extras["pocket_errors"]`` its errors (``docs/learners.md``).

    Parameters
    ----------
    check_every : int >= 1
    gram_max : int
        Largest n whose (n, n) Gram is built.
    select : {"schedule", "random_mistake"}, default "schedule"
    seed : int >= 0, default 0
        Seed of the random choice of ``"random_mistake"``.
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> from maxmargin.online import run
    >>> tr = run(Pocket(), make_gaussians(60, 2, seed=0), epochs=3)
    >>> bool(tr.extras["pocket_errors"][-1] <= tr.extras["pocket_errors"][0])
    True
    >>> tr = run(Pocket(select="random_mistake"), make_gaussians(60, 2, seed=0), epochs=3)
    >>> int(tr.mistakes[-1]), int(tr.extras["halted_at"])  # every step corrects a mistake
    (180, 0)
    """

    name = "pocket"
    _no_steps = "after each update it counts the training errors on the whole data set"
    reference = "Gallant (1990); the lecture notes' pocket (a random current mistake)"
    mistake_driven = True
    claims = (NOVIKOFF, PERCEPTRON_GENERAL, PERMUTATION, SCALING)  # its running perceptron's

    def __init__(
        self,
        *,
        check_every: int = 1,
        gram_max: int = 4096,
        select: str = "schedule",
        seed: int = 0,
        intercept: str = DEFAULT_INTERCEPT,
        intercept_scaling: float = 1.0,
    ) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.check_every = check_int("check_every", check_every, minimum=1)
        self.gram_max = check_int("gram_max", gram_max, minimum=0)
        self.select = check_choice("select", select, SELECTIONS)
        self.seed = _check_seed(seed)
        # random mistakes: step t is not the order's example (no sums along the order)
        self.visits_schedule = self.select == "schedule"

    def _setup(self, packed: PackedData) -> PocketState:
        use_gram = packed.n <= self.gram_max
        if use_gram:
            X = packed.dataset.X
            G = X @ X.T
            G = np.ascontiguousarray(
                (G.toarray() if sp.issparse(G) else G) + packed.bias_feature**2
            )
        else:
            G = np.zeros((0, 0))
        state = PocketState(
            totals=np.zeros(10),
            w=np.zeros(packed.d + 1),
            pocket=np.zeros(packed.d + 1),
            scores=np.zeros(packed.n),
            gram=G,
            use_gram=use_gram,
            rng=np.random.default_rng(self.seed),
            margins=np.zeros(packed.n),
        )
        state.totals[4] = packed.n  # the zero vector misclassifies everything (0 is an error)
        return state

    def _advance(
        self, packed: PackedData, state: PocketState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        rand = self.select == "random_mistake"
        u = state.rng.random(hi - lo) if rand else state.margins[:0]
        args = (state.w, state.pocket, state.scores, state.gram, state.use_gram)
        rest = (float(self.check_every), state.totals, u, state.margins, rand)
        kernels.pocket_steps(*head(packed, idx, lo, hi, t0), *args, *rest, self.intercept == "free")

    def _halted(self, state: PocketState) -> bool:
        return state.halted_at > 0

    def _snapshot(self, packed: PackedData, state: PocketState, t: int) -> Snapshot:
        return Snapshot(
            *packed.split(state.pocket),
            extras={
                "pocket_errors": state.pocket_errors,
                "pocket_t": state.pocket_step,
                "w_last": state.w[:-1].copy(),
            },
        )

    def _final(self, packed: PackedData, state: PocketState) -> dict[str, np.ndarray]:
        if self.select == "schedule":
            return {}
        return {"halted_at": np.asarray(state.halted_at, np.int64)}
