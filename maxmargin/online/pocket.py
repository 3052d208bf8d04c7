"""The pocket algorithm (Gallant 1990; seed 003)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from .._validation import check_int
from . import _kernels as K
from .base import OnlineLearner, _doc_intercept, _Packed

__all__ = ["Pocket"]


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
    reference = "Gallant (1990); seed 003"

    def __init__(self, *, check_every: int = 1, gram_max: int = 4096,
                 intercept: str = "augmented", intercept_scaling: float = 1.0) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.check_every = check_int("check_every", check_every, minimum=1)
        self.gram_max = check_int("gram_max", gram_max, minimum=0)

    def _setup(self, pk: _Packed) -> SimpleNamespace:
        use_gram = pk.n <= self.gram_max
        if use_gram:
            X = pk.data.X
            G = X @ X.T
            G = np.ascontiguousarray((G.toarray() if sp.issparse(G) else G) + pk.s * pk.s)
        else:
            G = np.zeros((0, 0))
        st = K.empty_state()
        st[4] = pk.n  # the zero vector misclassifies everything (0 counts as an error)
        return SimpleNamespace(w=np.zeros(pk.d + 1), pw=np.zeros(pk.d + 1), F=np.zeros(pk.n),
                               G=G, use_gram=use_gram, st=st)

    def _advance(self, pk, st, idx, lo, hi, t0):
        K.pocket_steps(*pk.xargs, pk.y, pk.xn2, pk.s, idx, lo, hi, t0, st.w, st.pw, st.F,
                       st.G, st.use_gram, float(self.check_every), st.st)

    def _snapshot(self, pk, st, t):
        return {"wt": st.pw.copy(),
                "extra": {"pocket_errors": int(st.st[4]), "pocket_t": int(st.st[5]),
                          "w_last": st.w[:-1].copy()}}
