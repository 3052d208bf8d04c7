"""The perceptron family: perceptron, averaged, voted, margin, the PLA that stops, and the
dual (kernel) perceptron.

All start from ``w = 0`` and update on ``y w.z <= 0`` (a zero score is a mistake; the
margin perceptron on ``y w.z <= margin``), as in the lecture notes.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import check_choice, check_int, check_positive
from ..exceptions import ParameterError
from . import _kernels as K
from ._base import OnlineLearner, _doc_intercept, _Packed

__all__ = [
    "Perceptron",
    "AveragedPerceptron",
    "VotedPerceptron",
    "MarginPerceptron",
    "PLA",
    "DualPerceptron",
    "voted_decision_function",
]


@_doc_intercept
class Perceptron(OnlineLearner):
    r"""Rosenblatt's perceptron (zero init, update on a non-positive margin).

    With ``z_t = x_t`` (intercept ``none``) or ``z_t = (x_t, s)`` (``augmented``):

    .. math::

        w_1 = 0, \qquad
        w_{t+1} = w_t + y_t z_t \,\mathbb{1}[\,y_t\, w_t \cdot z_t \le 0\,].

    On data separable with margin :math:`\gamma` (of the z's) and
    :math:`R = \max_i \|z_i\|` it makes at most :math:`(R/\gamma)^2` mistakes
    (Novikoff 1962), in any order.

    Parameters
    ----------
    {intercept_parameters}

    Notes
    -----
    Implied dual point: ``w~_t = sum_i c_i y_i z_i`` with ``c_i`` the number of updates
    made on example ``i`` (``record_dual=True``).

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import Perceptron, run
    >>> tr = run(Perceptron(intercept="none"), make_separable(40, 2, seed=0), epochs=5)
    >>> tr.final_train_error
    0.0
    """

    name = "perceptron"
    has_dual = True
    reference = "Rosenblatt (1958); Novikoff (1962); the lecture notes' perceptron"
    _averaged = False
    _log_updates = False
    #: the update threshold and step (the margin perceptron's ``margin`` and ``eta``)
    _thr = 0.0
    _eta = 1.0
    #: the implied dual point is ``eta`` times the number of updates on each example (the
    #: mistake-rounds bound needs those counts; the averaged iterate's is another point)
    _dual_counts_updates = True

    def _setup(self, pk: _Packed) -> SimpleNamespace:
        d1 = pk.d + 1
        nd = pk.n if pk.record_dual else 0
        return SimpleNamespace(
            w=np.zeros(d1), u=np.zeros(d1 if self._averaged else 1), st=K.empty_state(),
            c=np.zeros(nd), ct=np.zeros(nd),
            upd=np.zeros(pk.n if self._log_updates else 0, np.int64),
            upd_t=[], upd_i=[])

    def _advance(self, pk, st, idx, lo, hi, t0):
        nup = K.perceptron_steps(*pk.xargs, pk.y, pk.xn2, pk.s, idx, lo, hi, t0, st.w, st.u,
                                 st.st, st.c, st.ct, st.upd, self._averaged, pk.record_dual,
                                 self._log_updates, float(self._thr), float(self._eta))
        if nup:
            ts = st.upd[:nup].copy()
            st.upd_t.append(ts)
            st.upd_i.append(idx[ts - t0 - 1 + lo])

    def _snapshot(self, pk, st, t):
        out: dict[str, Any] = {"wt": st.w.copy()}
        if pk.record_dual:
            out["dual"] = st.c.copy()
        return out


@_doc_intercept
class AveragedPerceptron(Perceptron):
    r"""Averaged perceptron: the perceptron's run, returning the mean of its iterates.

    .. math::

        \bar w_T = \frac1T \sum_{t=1}^{T} w_{t+1}
                 = w_{T+1} - \frac1T \sum_{t:\,\mathrm{update}} (t-1)\, y_t z_t,

    kept in O(d) per update (Daumé's trick). Mistakes, hinge loss and ``sqnorm`` in the
    trace are those of the predicting iterate ``w_t`` (the plain perceptron); the trace's
    ``w`` is :math:`\bar w_T` and ``extras["w_last"]`` holds ``w_{T+1}``.
    Implied dual point: :math:`a_i = c_i - \frac1T\sum_{\mathrm{updates\ on\ }i}(t-1)`.

    Parameters
    ----------
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> run(AveragedPerceptron(), make_separable(40, 2, seed=0), epochs=3).w.shape[1]
    2
    """

    name = "averaged_perceptron"
    has_dual = True
    reference = "Freund & Schapire (1999); Collins (2002); Daumé (2006)"
    _averaged = True
    _dual_counts_updates = False

    def _snapshot(self, pk, st, t):
        out: dict[str, Any] = {"wt": st.w - st.u / t, "extra": {"w_last": st.w[:-1].copy()}}
        if pk.record_dual:
            out["dual"] = st.c - st.ct / t
        return out


@_doc_intercept
class VotedPerceptron(Perceptron):
    r"""Voted perceptron (Freund & Schapire 1999).

    Runs the perceptron and keeps every intermediate vector ``v_k`` (the weights after
    the k-th update, made at step ``t_k``) with its survival count ``c_k``
    (``c_0 = t_1 - 1``, ``c_k = t_{k+1} - t_k``, ``c_M = T + 1 - t_M``); it predicts

    .. math:: \hat y(x) = \mathrm{sign}\Big(\sum_{k} c_k\, \mathrm{sign}(v_k \cdot z)\Big).

    The vote is not a linear classifier: the trace's ``w`` is the last perceptron
    iterate, ``w_avg`` is :math:`\sum_k c_k v_k / T` (equal to the averaged perceptron),
    and ``extras["update_t"], extras["update_i"]`` (step and example of every update)
    rebuild the vote: see :func:`voted_decision_function`. The final training error in
    the trace is the vote's (of ``w_avg`` when ``n * updates > 5e7``, the vote being
    O(n M d)).

    Parameters
    ----------
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> tr = run(VotedPerceptron(), make_separable(30, 2, seed=1), epochs=2)
    >>> int(tr.extras["update_t"].size) == int(tr.mistakes[-1])
    True
    """

    name = "voted_perceptron"
    has_dual = True
    has_average = True
    reference = "Freund & Schapire (1999)"
    _averaged = True
    _log_updates = True

    def _snapshot(self, pk, st, t):
        out = super()._snapshot(pk, st, t)
        out["wt_avg"] = st.w - st.u / t
        return out

    def _final(self, pk, st):
        def cat(a: list) -> np.ndarray:
            return np.concatenate(a) if a else np.zeros(0, np.int64)

        return {"update_t": cat(st.upd_t).astype(np.int64),
                "update_i": cat(st.upd_i).astype(np.int64)}

    def _decision(self, pk, st, w, b):
        f = self._final(pk, st)
        T = int(st.T)
        if pk.n * max(len(f["update_t"]), 1) > 50_000_000:
            # the exact vote costs O(n M d): use its averaged form sum_k c_k v_k / T
            wa = st.w - st.u / T
            return np.asarray(pk.data.X @ wa[:-1]).ravel() + pk.s * wa[-1]
        return _vote(pk.data, pk.s, f["update_t"], f["update_i"], T, pk.data.X)


def _vote(train, s, ts, ii, T, X) -> np.ndarray:
    M = len(ts)
    Xq = X
    m = X.shape[0]
    out = np.zeros(m)
    if M == 0:
        return out
    counts = np.diff(np.append(ts, T + 1)).astype(float)  # c_1..c_M (c_0 * sign(0) = 0)
    Zu = train.X[ii]
    yu = train.y[ii]
    chunk = max(1, int(4_000_000 // M))
    for a in range(0, m, chunk):
        Xa = Xq[a:a + chunk]
        G = Xa @ Zu.T
        G = G.toarray() if sp.issparse(G) else np.asarray(G)
        G = (G + s * s) * yu  # v_k.z = sum_{j<=k} y_j z_j.z
        Sc = np.cumsum(G, axis=1)
        out[a:a + chunk] = (np.sign(Sc) * counts).sum(axis=1)
    return out


def voted_decision_function(trace: Any, train: Any, X: Any) -> np.ndarray:
    """The voted perceptron's vote ``sum_k c_k sign(v_k . z)`` on new points.

    Parameters
    ----------
    trace : Trace
        A ``voted_perceptron`` trace (its ``extras`` hold the updates).
    train : Dataset
        The data the trace was run on.
    X : array-like or sparse of shape (m, d)

    Returns
    -------
    ndarray of shape (m,)
        Positive means +1; zero or negative means -1.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> ds = make_separable(30, 2, seed=1)
    >>> tr = run("voted_perceptron", ds, epochs=3)
    >>> bool(((voted_decision_function(tr, ds, ds.X) > 0) == (ds.y > 0)).mean() > 0.8)
    True
    """
    if trace.learner != "voted_perceptron":
        raise ParameterError(f"voted_decision_function needs a voted_perceptron trace, "
                             f"got {trace.learner!r}")
    if train.n != trace.n or train.d != trace.d:
        raise ParameterError(f"train has shape ({train.n}, {train.d}) but the trace was run on "
                             f"({trace.n}, {trace.d}); pass the same Dataset")
    s = trace.intercept_scaling if trace.intercept == "augmented" else 0.0
    if not sp.issparse(X):
        X = np.asarray(X, dtype=float)
    return _vote(train, s, trace.extras["update_t"], trace.extras["update_i"],
                 int(trace.t[-1]), X)


@_doc_intercept
class MarginPerceptron(Perceptron):
    r"""The perceptron with a margin: update whenever :math:`y\, w\cdot z \le \tau`.

    .. math::

        w_1 = 0, \qquad
        w_{t+1} = w_t + \eta\, y_t z_t \,\mathbb{1}[\,y_t\, w_t \cdot z_t \le \tau\,].

    ``margin = 0`` is Rosenblatt's perceptron with step ``eta`` (from zero the step only
    scales ``w``: the same mistakes, ``w`` times ``eta``); ``margin > 0`` also corrects
    examples classified right with too small a margin, so the ratio ``margin / eta``
    matters. The number of updates ``U`` obeys the perceptron's bounds with
    :math:`R^2` replaced by :math:`R^2 + 2\tau/\eta` (``docs/compare.md``): on data
    separable with margin :math:`\gamma`, :math:`U \le (R^2 + 2\tau/\eta)/\gamma^2`.
    The trace's ``mistakes`` count :math:`y\, w_t\cdot z_t \le 0` as for every
    learner; ``extras["updates"]`` counts the updates (:math:`\ge` mistakes).

    Parameters
    ----------
    margin : float >= 0, default 1.0
        The threshold :math:`\tau` on the functional margin ``y w.z``.
    eta : float > 0, default 1.0
        The constant step.
    {intercept_parameters}

    Notes
    -----
    Implied dual point: ``a_i = eta * (number of updates on i)``.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> tr = run(MarginPerceptron(margin=1.0), make_separable(40, 2, seed=0), epochs=20)
    >>> bool(tr.extras["updates"][-1] >= tr.mistakes[-1])
    True
    """

    name = "margin_perceptron"
    reference = ("Duda & Hart (1973), the perceptron with margin; Krauth & Mezard (1987); "
                 "Collobert & Bengio (2004)")

    def __init__(self, *, margin: float = 1.0, eta: float = 1.0, intercept: str = "augmented",
                 intercept_scaling: float = 1.0) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        margin = float(margin)
        if not (math.isfinite(margin) and margin >= 0.0):
            raise ParameterError(f"The 'margin' parameter must be a finite float >= 0. Got "
                                 f"{margin!r} instead.")
        self.margin = margin
        self.eta = check_positive("eta", eta)

    @property
    def _thr(self) -> float:  # type: ignore[override]
        return self.margin

    @property
    def _eta(self) -> float:  # type: ignore[override]
        return self.eta

    def _snapshot(self, pk, st, t):
        out = super()._snapshot(pk, st, t)
        out["extra"] = {"updates": int(st.st[4])}
        return out


@_doc_intercept
class PLA(Perceptron):
    r"""The perceptron learning algorithm that stops: cycle until a pass makes no mistake.

    The lecture notes' PLA: run the perceptron over the data in passes (the ``cyclic``
    order is their naive cycle, ``shuffle`` a new random cycle each pass) and stop at the
    end of the first pass without a mistake, i.e. as soon as ``w`` classifies every
    example right. ``epochs`` (of :func:`~maxmargin.online.run`) is the cap. Every epoch
    end is a checkpoint; the run stops there, so the trace's ``epochs`` is the number of
    passes made, and ``extras``: ``converged`` (True: no mistake left), ``halted_at`` (the
    step of that clean pass's end, 0 when the cap was reached first).

    On data separable with margin :math:`\gamma` it stops after at most
    :math:`(R/\gamma)^2` mistakes, hence at most :math:`(R/\gamma)^2 + 1` passes
    (Novikoff); on non-separable data it never does. With the ``sample`` order a pass may
    miss examples: an epoch without a mistake then ends the run only when a full count
    confirms ``w`` separates the data.

    Parameters
    ----------
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> tr = run(PLA(), make_separable(40, 2, seed=0), epochs=1000, order="cyclic")
    >>> bool(tr.extras["converged"]), tr.epochs < 1000, tr.final_train_error
    (True, True, 0.0)
    """

    name = "pla"
    reference = "Rosenblatt (1958); Novikoff (1962); the lecture notes' cyclic PLA"

    def _align(self, ckpts, n, epochs):
        return np.unique(np.concatenate([ckpts, n * np.arange(1, epochs + 1, dtype=np.int64)]))

    def _setup(self, pk: _Packed) -> SimpleNamespace:
        st = super()._setup(pk)
        st.updates_at_epoch_start = 0.0
        st.halted_at = 0
        return st

    def _advance(self, pk, st, idx, lo, hi, t0):
        if st.halted_at:
            return
        super()._advance(pk, st, idx, lo, hi, t0)
        t = t0 + hi - lo
        if hi > lo and t % pk.n == 0:  # an epoch (pass) ends
            clean = st.st[4] == st.updates_at_epoch_start
            st.updates_at_epoch_start = st.st[4]
            # a clean pass over every example (cyclic, shuffle) is the proof; a pass that
            # missed some (sample) needs the full count
            if clean and (np.bincount(idx, minlength=pk.n).min() > 0 or np.all(
                    pk.y * (np.asarray(pk.data.X @ st.w[:-1]).ravel() + pk.s * st.w[-1]) > 0)):
                st.halted_at = int(t)

    def _halted(self, st: SimpleNamespace) -> bool:
        return bool(st.halted_at)

    def _final(self, pk, st):
        return {"converged": np.asarray(bool(st.halted_at)),
                "halted_at": np.asarray(int(st.halted_at), np.int64)}


@_doc_intercept
class DualPerceptron(OnlineLearner):
    r"""The perceptron in dual (kernel) form, keeping the counts ``c`` (the lecture notes).

    With ``K~(x, x') = k(x, x') + s^2`` (``s = 0`` for intercept ``none``) and
    ``F_i = sum_j c_j y_j K~(x_j, x_i)``:

    .. math::

        c = 0, \qquad \text{if } y_t F_{i_t} \le 0:\ c_{i_t} \mathrel{+}= 1 .

    For the linear kernel this is exactly the primal :class:`Perceptron`
    (``w~ = sum_i c_i y_i z_i``); the notes' bias rule ``b += y R^2`` is intercept
    ``augmented`` with ``s = R``. ``F`` is updated through the precomputed kernel matrix
    in O(n) per mistake (so ``n <= max_n``). For non-linear kernels the trace's ``w`` is
    NaN (no weights on the original features exist); ``b = s^2 sum_i c_i y_i``.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf"}
        ``x.x'``, ``(gamma x.x' + coef0)^degree``, ``exp(-gamma ||x - x'||^2)``.
    degree : int
    gamma : float, optional
        Default ``1/d``.
    coef0 : float
    max_n : int
        Largest n for which the (n, n) kernel matrix is built.
    {intercept_parameters}

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> tr = run(DualPerceptron(intercept="none"), make_separable(30, 2, seed=0), epochs=3)
    >>> tr.dual.shape[1]
    30
    """

    name = "dual_perceptron"
    has_dual = True
    _dual_counts_updates = True
    reference = ("Aizerman et al. (1964); Cristianini & Shawe-Taylor (2000); the lecture "
                 "notes' dual perceptron")

    def __init__(self, *, kernel: str = "linear", degree: int = 3, gamma: float | None = None,
                 coef0: float = 1.0, max_n: int = 8192, intercept: str = "augmented",
                 intercept_scaling: float = 1.0) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.kernel = check_choice("kernel", kernel, ("linear", "poly", "rbf"))
        self.degree = check_int("degree", degree, minimum=1)
        self.gamma = None if gamma is None else check_positive("gamma", gamma)
        self.coef0 = float(coef0)
        self.max_n = check_int("max_n", max_n, minimum=1)

    def _kernel_matrix(self, pk: _Packed) -> np.ndarray:
        X = pk.data.X
        G = X @ X.T
        G = G.toarray() if sp.issparse(G) else np.asarray(G)
        if self.kernel == "poly":
            g = self.gamma if self.gamma is not None else 1.0 / pk.d
            G = (g * G + self.coef0) ** self.degree
        elif self.kernel == "rbf":
            g = self.gamma if self.gamma is not None else 1.0 / pk.d
            sq = np.diag(G).copy()
            G = np.exp(-g * np.maximum(sq[:, None] + sq[None, :] - 2 * G, 0.0))
        return np.ascontiguousarray(G + pk.s * pk.s)

    def _setup(self, pk):
        if pk.n > self.max_n:
            raise ParameterError(
                f"dual_perceptron builds an (n, n) kernel matrix and n = {pk.n} > max_n = "
                f"{self.max_n}; use 'perceptron' (identical for the linear kernel) or raise "
                "max_n if memory allows")
        return SimpleNamespace(K=self._kernel_matrix(pk), c=np.zeros(pk.n), F=np.zeros(pk.n),
                               st=K.empty_state())

    def _advance(self, pk, st, idx, lo, hi, t0):
        K.dual_perceptron_steps(pk.y, idx, lo, hi, st.K, st.c, st.F, st.st)

    def _snapshot(self, pk, st, t):
        cy = st.c * pk.y
        if self.kernel == "linear":
            wt = np.append(np.asarray(pk.data.X.T @ cy).ravel(), pk.s * cy.sum())
        else:
            wt = np.append(np.full(pk.d, np.nan), pk.s * cy.sum())
        return {"wt": wt, "dual": st.c.copy()}

    def _decision(self, pk, st, w, b):
        return st.F.copy()
