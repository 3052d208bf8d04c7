"""The pocket algorithm (Gallant 1990), on the schedule or on random current mistakes."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from .._validation import check_choice, check_int
from . import _kernels as K
from ._base import OnlineLearner, _doc_intercept, _Packed
from .schedule import _check_seed

__all__ = ["Pocket"]

SELECTIONS = ("schedule", "random_mistake")


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

    Which example step ``t`` corrects (``select``):

    - ``"schedule"``: the example the run's order visits (updating only if it is a
      mistake);
    - ``"random_mistake"``: the lecture notes' pocket: a mistake of ``w_t`` drawn
      uniformly among all current mistakes (``numpy.random.default_rng(seed)``, one
      ``random()`` per step, the ``floor(u |E|)``-th mistake in index order), so every
      step is an update. When no mistake is left ``w`` separates the data and the
      algorithm stops (the run ends at that epoch's end; ``extras["halted_at"]`` = the
      number of steps taken, 0 when it never stopped). The run's order is not used, so
      quantities summed along the order (regret, the all-rounds mistake bound) do not
      apply.

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
    reference = "Gallant (1990); the lecture notes' pocket (a random current mistake)"

    def __init__(self, *, check_every: int = 1, gram_max: int = 4096,
                 select: str = "schedule", seed: int = 0,
                 intercept: str = "augmented", intercept_scaling: float = 1.0) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.check_every = check_int("check_every", check_every, minimum=1)
        self.gram_max = check_int("gram_max", gram_max, minimum=0)
        self.select = check_choice("select", select, SELECTIONS)
        self.seed = _check_seed(seed)

    @property
    def visits_schedule(self) -> bool:
        """Whether step ``t`` sees the example the run's order gives (not for
        ``select="random_mistake"``)."""
        return self.select == "schedule"

    def _setup(self, pk: _Packed) -> SimpleNamespace:
        use_gram = pk.n <= self.gram_max
        if use_gram:
            X = pk.data.X
            G = X @ X.T
            G = np.ascontiguousarray((G.toarray() if sp.issparse(G) else G) + pk.s * pk.s)
        else:
            G = np.zeros((0, 0))
        st = np.zeros(10)  # the 8 slots of K.empty_state(), + halted_at, margins-fresh
        st[4] = pk.n  # the zero vector misclassifies everything (0 counts as an error)
        return SimpleNamespace(w=np.zeros(pk.d + 1), pw=np.zeros(pk.d + 1), F=np.zeros(pk.n),
                               G=G, use_gram=use_gram, st=st,
                               rng=np.random.default_rng(self.seed),
                               mg=np.zeros(pk.n if self.select == "random_mistake" else 0))

    def _advance(self, pk, st, idx, lo, hi, t0):
        if self.select == "schedule":
            K.pocket_steps(*pk.xargs, pk.y, pk.xn2, pk.s, idx, lo, hi, t0, st.w, st.pw, st.F,
                           st.G, st.use_gram, float(self.check_every), st.st)
        else:
            u = st.rng.random(hi - lo)
            K.pocket_random_steps(*pk.xargs, pk.y, pk.xn2, pk.s, lo, hi, t0, st.w, st.pw,
                                  st.F, st.G, st.use_gram, float(self.check_every), st.st,
                                  u, st.mg)

    def _halted(self, st: SimpleNamespace) -> bool:
        return bool(st.st[8] > 0)

    def _snapshot(self, pk, st, t):
        return {"wt": st.pw.copy(),
                "extra": {"pocket_errors": int(st.st[4]), "pocket_t": int(st.st[5]),
                          "w_last": st.w[:-1].copy()}}

    def _final(self, pk, st):
        if self.select == "schedule":
            return {}
        return {"halted_at": np.asarray(int(st.st[8]), np.int64)}
