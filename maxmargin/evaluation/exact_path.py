r"""The exact regularization path of the linear SVM: every breakpoint in C, certified.

For fixed sets (the *elbow* ``E`` of margin SVs, ``y_i f_i = 1``; the *left* set ``L``
with ``alpha_i = C c_i``; the *right* set ``R`` with ``alpha_i = 0``) the KKT conditions
of the soft-margin SVM are linear in ``(alpha_E, b)`` with a right-hand side affine in
C, so ``alpha(C)``, ``w(C)`` and ``b(C)`` are affine in C (equivalently, in the scaled
parametrisation of Hastie, Rosset, Tibshirani & Zhu (JMLR 2004), ``alpha / C``,
``w / C`` and ``b / C`` are affine in ``lambda = 1/C``). With ``G`` the rows
``y_i z_i`` and ``g_L = sum_{i in L} c_i y_i z_i``:

.. math::

    \begin{bmatrix} G_E G_E^T & y_E \\ y_E^T & 0 \end{bmatrix}
    \begin{bmatrix} \alpha_E \\ b \end{bmatrix}
    = \begin{bmatrix} 1 \\ 0 \end{bmatrix}
    - C \begin{bmatrix} G_E g_L \\ y_L^T c_L \end{bmatrix},
    \qquad \tilde w = G_E^T \alpha_E + C g_L

(``free``; ``none`` and ``augmented`` drop the last row and column). The sets stay
optimal while ``0 <= alpha_E <= C c_E``, ``y_i f_i <= 1`` on L and ``>= 1`` on R; the
first C where one of these affine constraints becomes tight is the next *breakpoint*,
and the point that hit its bound changes set (E->L, E->R, L->E or R->E).

Every segment is computed from its sets afresh (no incremental updates of the
multipliers, so nothing accumulates), and every breakpoint is certified by
:func:`maxmargin.certificate.certify`. Degenerate events are settled in two stages:
first a small search (several points at once: all the moves, all but one, one at a time;
a singular elbow system: its nonsingular bases, by a ratio test along its null space),
accepted only when the next segment starts where the path is and holds for a positive
length; else -- or when a breakpoint's certificate degrades -- a fresh certified solve
(:func:`maxmargin.exact.solve`) just past the breakpoint, whose active sets the path
continues from. See ``docs/path.md``.

``c`` is a per-example cost vector (``C_i = C c_i``): the example weights ``s_i``
(:attr:`SVMProblem.weights`; 1 without), and exact duplicates merged into one example with
their summed cost, which removes the commonest singular elbow system. Examples of weight
0 never enter the path (their ``alpha_i`` is 0 everywhere, in the right set).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from .._io import atomic_write
from .._json import dumps, format_header, json_number
from .._progress import Progress
from .._validation import check_choice, check_positive
from ..certificate import Certificate, certify
from ..data import Dataset
from ..exceptions import ParameterError, SolverError
from ..problem import INTERCEPTS, SVMProblem, combine_weights
from .saved import SavedExactPath, breakpoints_csv

__all__ = ["ExactPath", "PathPoint", "exact_regularization_path"]

#: Set codes of the status arrays: right (alpha = 0), elbow (margin), left (alpha = C c).
_R, _E, _L = 0, 1, 2
SET_NAMES = ("R", "E", "L")

#: Sets whose constraints are violated by more than this at a segment's start are not
#: optimal there (margin units; alpha relative to C c).
TIE_TOL = 1e-9
#: The path stops where the margins are known to less than this in double precision
#: (their rounding level grows like ``eps C sqrt(|L|)`` on non-separable data).
PRECISION_LIMIT = 1e-7
#: A breakpoint whose certificate's largest residual exceeds this is re-anchored by a
#: fresh certified solve.
REANCHOR_TOL = 1e-9
#: Every this many segments the status array is stored (the rest is replayed from events).
_SNAPSHOT_EVERY = 64
#: Keep the normalised features dense up to this many entries (faster matvecs).
_DENSE_LIMIT = 10_000_000


# --------------------------------------------------------------------------- geometry


class _Geometry:
    """The data as the path sees it: ``G = (y_i z_i) / sigma``, merged duplicates.

    Scale: with ``sigma = max_i ||z_i||`` the path runs on ``z / sigma`` and
    ``C' = C sigma^2`` (then ``alpha' = alpha sigma^2``, ``w~' = sigma w~``, b unchanged),
    so every tolerance below is in units that do not depend on the data's scale.
    """

    def __init__(
        self, data: Dataset, intercept: str, s: float, weights: np.ndarray | None = None
    ) -> None:
        from ..solvers.qp import signed_rows

        self.data = data
        # positive weights (the caller leaves out the zeros) or None; the path runs on
        # s_i / ws (ws a power of two near the largest) and C ws: costs, and every
        # tolerance below, independent of the weights' own scale
        self.weights = weights
        self.ws = (
            1.0 if weights is None else math.ldexp(1.0, math.frexp(float(weights.max()))[1] - 1)
        )
        self.unit_w = None if weights is None else weights / self.ws
        self.intercept = intercept
        self.s = s
        self.free = intercept == "free"
        problem = SVMProblem(data, C=1.0, intercept=intercept, intercept_scaling=s)
        self.unit = problem  # C = 1: its from_augmented splits a vector into (w, b)
        YZ = signed_rows(problem)
        if sp.issparse(YZ):
            YZ = sp.csr_matrix(YZ)
            if YZ.shape[0] * YZ.shape[1] <= _DENSE_LIMIT:
                YZ = YZ.toarray()
        norms = (
            np.sqrt(np.asarray(YZ.multiply(YZ).sum(axis=1)).ravel())
            if sp.issparse(YZ)
            else np.linalg.norm(YZ, axis=1)
        )
        sigma = float(norms.max())
        if not (sigma > 0 and math.isfinite(sigma)):
            raise ParameterError(
                "every example is the zero vector: the path is constant "
                "(w = 0) and has no breakpoint"
            )
        self.sigma2 = sigma * sigma
        self.cscale = self.sigma2 * self.ws  # internal C = user C * cscale
        y = np.asarray(data.y, float)
        # the same signed row is the same example to the QP, except that the free
        # intercept's y_i b tells the labels apart
        rep, inv = _duplicate_groups(YZ, y if self.free else np.zeros_like(y))
        self.inv = inv  # original index -> group
        self.n_orig = y.size
        self.y = y[rep]
        if self.unit_w is None:
            self.c = np.bincount(inv, minlength=rep.size).astype(float)  # unit costs, summed
        else:
            self.c = np.bincount(inv, weights=self.unit_w, minlength=rep.size)
        G = YZ[rep] / sigma
        self.G = sp.csr_matrix(G) if sp.issparse(G) else np.ascontiguousarray(G)
        self.m = rep.size
        self.dz = YZ.shape[1]
        self.gl_updates = 0
        self._scaled: Dataset | None = None
        order = np.argsort(inv, kind="stable")
        bounds = np.searchsorted(inv[order], np.arange(rep.size + 1))
        self._members_order, self._members_bounds = order, bounds

    def members(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Original indices of the groups ``g``, and for each the position of its group.

        The position is in ``g``; groups come in the order given, members in increasing
        index.
        """
        g = np.asarray(g, np.int64)
        if self.m == self.n_orig:  # no duplicates: group k is example k
            return g.copy(), np.arange(g.size)
        lo, hi = self._members_bounds[g], self._members_bounds[g + 1]
        owner = np.repeat(np.arange(g.size), hi - lo)
        starts = np.repeat(lo - np.concatenate([[0], np.cumsum(hi - lo)[:-1]]), hi - lo)
        return self._members_order[np.arange(owner.size) + starts], owner

    def rows(self, idx: np.ndarray) -> np.ndarray:
        R = self.G[idx]
        return R.toarray() if sp.issparse(R) else R

    def Gt(self, v: np.ndarray) -> np.ndarray:
        """``G^T v``."""
        return np.asarray(v @ self.G).ravel()

    def Gdot(self, W: np.ndarray) -> np.ndarray:
        """``G W`` for W of shape (d', k)."""
        return np.asarray(self.G @ W)

    # user <-> internal units
    def C_user(self, C: float) -> float:
        return C / self.cscale

    def user_point(
        self, alpha_g: np.ndarray, w_int: np.ndarray, b: float
    ) -> tuple[np.ndarray, float, np.ndarray]:
        """(w, b, alpha) in the user's units from the internal group values."""
        share = alpha_g / self.c  # every member's share (unit costs)
        if self.unit_w is None:
            alpha = share[self.inv] / self.sigma2
        else:  # in proportion to the members' costs
            alpha = share[self.inv] * self.unit_w / self.sigma2
        wt = w_int / math.sqrt(self.sigma2)
        if self.intercept == "augmented":
            w, b_aug = self.unit.from_augmented(wt)
            return w.copy(), float(b_aug), alpha
        return wt, (float(b) if self.free else 0.0), alpha

    def problem(self, C_int: float) -> SVMProblem:
        """The user's problem at internal C (for the certificates)."""
        return SVMProblem(
            self.data,
            C=self.C_user(C_int),
            intercept=self.intercept,
            intercept_scaling=self.s,
            sample_weight=self.weights,
        )

    def scaled_problem(self, C_int: float) -> SVMProblem:
        """The same problem on ``z / sigma`` at ``C sigma^2``.

        The probes solve it, since a solver's absolute tolerances are not scale-invariant
        while the sets are.
        """
        if self._scaled is None:
            sig = math.sqrt(self.sigma2)
            X = self.data.X
            Xs = X.multiply(1.0 / sig).tocsr() if sp.issparse(X) else X / sig
            self._scaled = Dataset(Xs, self.data.y, name=self.data.name)
        return SVMProblem(
            self._scaled,
            C=C_int,
            intercept=self.intercept,
            intercept_scaling=self.s / math.sqrt(self.sigma2),
            sample_weight=self.unit_w,
        )


def _duplicate_groups(YZ: Any, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact duplicates of the rows ``(y_i z_i, key_i)``.

    Returns the representatives (first occurrence) and, for each example, its group.
    """
    n = key.size
    if sp.issparse(YZ):
        A = sp.csr_matrix(YZ)
        A.sum_duplicates()
        A.sort_indices()
        keys: dict[bytes, int] = {}
        inv = np.empty(n, np.int64)
        rep: list[int] = []
        for i in range(n):
            a, b = A.indptr[i], A.indptr[i + 1]
            k = A.indices[a:b].tobytes() + b"|" + A.data[a:b].tobytes() + key[i].tobytes()
            g = keys.get(k)
            if g is None:
                g = keys[k] = len(rep)
                rep.append(i)
            inv[i] = g
        return np.asarray(rep, np.int64), inv
    rows = np.column_stack([np.asarray(YZ), key])
    _, first, inv = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    inv = np.asarray(inv).ravel()
    # renumber groups by first occurrence, so group order follows the data
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return np.sort(first), rank[inv]


# --------------------------------------------------------------------------- segments


class _Seg:
    """One piece of the path in internal units: fixed sets, values affine in C.

    ``v(C) = v0 + (C - C0) v1`` for ``alpha_E``, ``w~`` and ``b``; ``r0, r1`` the margins
    ``y_i f_i`` likewise (kept only while the segment is the current one).
    """

    __slots__ = (
        "st",
        "C0",
        "E",
        "aE0",
        "aE1",
        "w0",
        "w1",
        "b0",
        "b1",
        "r0",
        "r1",
        "singular",
        "rcond",
        "gL",
        "prec",
        "scans",
    )
    st: np.ndarray  # set code (R, E, L) of every group
    C0: float  # where the affine pieces are anchored
    E: np.ndarray  # the elbow (margin) groups
    aE0: np.ndarray
    aE1: np.ndarray
    w0: np.ndarray
    w1: np.ndarray
    b0: float
    b1: float
    r0: np.ndarray
    r1: np.ndarray
    singular: bool  # the KKT matrix was singular (min-norm solve)
    rcond: float
    gL: np.ndarray | None  # sum over the left set of the signed rows
    prec: tuple[float, float] | None
    scans: dict

    def alpha(self, geo: _Geometry, C: float) -> np.ndarray:
        a = np.where(self.st == _L, C * geo.c, 0.0)
        a[self.E] = self.aE0 + (C - self.C0) * self.aE1
        return a

    def w(self, C: float) -> np.ndarray:
        return self.w0 + (C - self.C0) * self.w1

    def b(self, C: float) -> float:
        return float(self.b0 + (C - self.C0) * self.b1)


def _solve_kkt(M: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, bool, float]:
    """Solve ``M X = R``; min-norm least squares (flagged singular) when M is singular.

    Returns X, the flag and the reciprocal condition number (of the part solved).

    LAPACK's ``gesv`` and ``gecon`` are called directly: on a small system the generic
    wrappers cost milliseconds when BLAS threads compete for a loaded machine.
    """
    lu, _piv, X, info = sla.lapack.dgesv(M, R)
    if info == 0 and np.isfinite(X).all():
        rcond, info2 = sla.lapack.dgecon(lu, float(np.abs(M).sum(axis=0).max()), norm="1")
        if info2 == 0 and rcond > 1e-13:
            return X, False, float(rcond)
    X, _res, rank, sv = np.linalg.lstsq(M, R, rcond=1e-12)
    rc = float(sv[rank - 1] / sv[0]) if rank and sv[0] > 0 else 1.0
    return X, True, rc


def _left_sum(geo: _Geometry, st: np.ndarray, base: _Seg | None) -> np.ndarray:
    """``g_L = sum_{i in L} c_i y_i z_i``, updated from ``base`` where that is cheap.

    Updated by the examples whose membership of L changed (a few rows, not a product
    with all of G); recomputed from scratch when many changed, so rounding cannot
    accumulate for long.
    """
    if not (st == _L).any():
        return np.zeros(geo.dz)  # exactly: the hard-margin end has constant w
    if base is not None and base.gL is not None and geo.gl_updates < 256:
        diff = np.flatnonzero((st == _L) != (base.st == _L))
        if diff.size <= 8:
            geo.gl_updates += 1
            sign = np.where(st[diff] == _L, 1.0, -1.0) * geo.c[diff]
            return base.gL + sign @ geo.rows(diff) if diff.size else base.gL
    geo.gl_updates = 0
    return geo.Gt(np.where(st == _L, geo.c, 0.0))


def _segment(
    geo: _Geometry,
    st: np.ndarray,
    C0: float,
    *,
    direction: int = 1,
    b_anchor: float | None = None,
    ref: float,
    base: _Seg | None = None,
) -> _Seg | None:
    """The affine solution for the sets ``st`` anchored at ``C0``; None if there is none.

    None when the sets admit no solution (an inconsistent singular system, or an empty
    intercept interval). ``base``: a neighbouring segment whose ``g_L`` can be updated.
    """
    seg = _Seg()
    seg.st, seg.C0, seg.prec, seg.scans = st, C0, None, {}
    E = np.flatnonzero(st == _E)
    gL = _left_sum(geo, st, base)
    seg.gL = gL
    yL = float(geo.y @ np.where(st == _L, geo.c, 0.0))
    m = E.size
    seg.E, seg.singular, seg.rcond = E, False, 1.0
    if m:
        GE = geo.rows(E)
        u = GE @ gL
        K = GE @ GE.T
        if geo.free:
            yE = geo.y[E]
            M = np.zeros((m + 1, m + 1))
            M[:m, :m] = K
            M[:m, m] = yE
            M[m, :m] = yE
            R = np.empty((m + 1, 2))
            R[:m, 0] = 1.0 - C0 * u
            R[m, 0] = -C0 * yL
            R[:m, 1] = -u
            R[m, 1] = -yL
        else:
            M = K
            R = np.column_stack([1.0 - C0 * u, -u])
        X, seg.singular, seg.rcond = _solve_kkt(M, R)
        seg.aE0, seg.aE1 = X[:m, 0].copy(), X[:m, 1].copy()
        seg.b0, seg.b1 = (float(X[m, 0]), float(X[m, 1])) if geo.free else (0.0, 0.0)
        seg.w0 = GE.T @ seg.aE0 + C0 * gL
        seg.w1 = GE.T @ seg.aE1 + gL
    else:
        if geo.free and abs(yL) > 1e-9 * max(1.0, float(geo.c.sum())):
            return None  # alpha in {0, C c} cannot satisfy y' alpha = 0
        seg.aE0 = seg.aE1 = np.empty(0)
        seg.w0, seg.w1 = C0 * gL, gL.copy()
        seg.b0 = seg.b1 = 0.0
    Q = geo.Gdot(np.column_stack([seg.w0, seg.w1]))
    seg.r0 = Q[:, 0] + geo.y * seg.b0
    seg.r1 = Q[:, 1] + geo.y * seg.b1
    if m:
        # the elbow equations must hold (a singular system may be inconsistent)
        # (the residual of a backward-stable solve is a few eps times the magnitudes;
        # an inconsistent least-squares split misses by far more)
        prec, noise = _margin_precision(geo, seg)
        if np.abs(seg.r0[E] - 1.0).max() > max(1e-12, 1e4 * prec) or np.abs(seg.r1[E]).max() > max(
            1e-12 / max(ref, 1e-300), 1e4 * noise
        ):
            return None
    elif geo.free:
        out = _empty_elbow_intercept(geo, st, seg.r0, seg.r1, C0, direction, b_anchor, ref)
        if out is None:
            return None
        seg.b0, seg.b1 = out
        seg.r0 = seg.r0 + geo.y * seg.b0
        seg.r1 = seg.r1 + geo.y * seg.b1
    return seg


def _empty_elbow_intercept(
    geo: _Geometry,
    st: np.ndarray,
    q0: np.ndarray,
    q1: np.ndarray,
    C0: float,
    direction: int,
    b_anchor: float | None,
    ref: float,
) -> tuple[float, float] | None:
    """``b(C)`` for a free intercept with an empty elbow (alpha in {0, C c}).

    Each example bounds b: with ``v_i = y_i (1 - q_i)`` (``q_i = y_i x_i.w``), L examples
    of class -1 and R examples of class +1 need ``b >= v_i``, the others ``b <= v_i``. The
    interval ``[max lo, min hi]`` is concave in C (a max of affine functions below, a min
    above), so the chord from the anchor's b to the point where the interval collapses
    (where two examples reach the margin together: the next breakpoint) stays inside.
    Returns ``(b0, b1)`` with ``b(C) = b0 + (C - C0) b1``, or None if the interval is empty.
    """
    y = geo.y
    v0 = y * (1.0 - q0)
    v1 = -y * q1 * direction  # slope per unit of u = |C - C0| in the direction
    lo = (st == _L) == (y < 0)
    hi = ~lo
    if not lo.any() or not hi.any():  # pragma: no cover - excluded by y' alpha = 0
        return None
    v0lo, v0hi, v1lo, v1hi = v0[lo], v0[hi], v1[lo], v1[hi]

    def gap(u: float) -> float:
        return float((v0hi + u * v1hi).min() - (v0lo + u * v1lo).max())

    lo0, hi0 = float(v0lo.max()), float(v0hi.min())
    if lo0 > hi0 + TIE_TOL:
        return None
    b_start = 0.5 * (lo0 + hi0) if b_anchor is None else min(max(b_anchor, lo0), hi0)
    s_inf = float(v1hi.min() - v1lo.max())
    if s_inf >= 0:
        # the interval never closes: keep the midpoint's asymptotic slope
        m_slope = 0.5 * (float(v1hi.min()) + float(v1lo.max()))
        return b_start, direction * m_slope
    u = max(ref, 1e-300)
    for _ in range(400):
        if gap(u) < 0:
            break
        u *= 4.0
    else:  # pragma: no cover - s_inf < 0 makes the gap negative eventually
        return b_start, 0.0
    # Newton from the right on the concave piecewise-linear gap: each tangent lies above
    # the gap, so its root stays right of the collapse point, and the iteration stops on
    # the collapse piece after finitely many steps.
    for _ in range(200):
        vl = v0lo + u * v1lo
        vh = v0hi + u * v1hi
        top, bot = vl.max(), vh.min()
        tl = vl >= top - 1e-13 * (1.0 + abs(top))
        th = vh <= bot + 1e-13 * (1.0 + abs(bot))
        sl = v1lo[tl].min()  # just left of u the smallest slope is the max
        sh = v1hi[th].max()
        g = bot - top
        if g >= -1e-13 * (1.0 + abs(top)) or sh - sl >= 0:
            break
        u_new = u - g / (sh - sl)
        if not (u_new < u):
            break
        u = max(u_new, 0.0)
    vl = v0lo + u * v1lo
    vh = v0hi + u * v1hi
    b_end = 0.5 * (float(vl.max()) + float(vh.min()))
    if u <= 0:
        return b_start, 0.0
    return b_start, direction * (b_end - b_start) / u


# --------------------------------------------------------------------------- events


@dataclass
class _Scan:
    """The constraints of a segment seen in one direction."""

    invalid: bool  # a constraint is violated at the anchor
    u: float  # distance (in C) to the next event; inf if none
    groups: np.ndarray  # groups whose constraint binds at u
    moves: np.ndarray  # their new sets
    immediate: bool  # u == 0: a tied constraint moves the wrong way at once


def _margin_precision(geo: _Geometry, seg: _Seg) -> tuple[float, float]:
    """Rounding level of the margins ``y_i f_i`` at the anchor and of their slopes.

    ``w~ = G_E^T alpha_E + C g_L`` sums terms much larger than ``w~`` itself once C is
    large on non-separable data (alpha_L = C c grows, alpha_E compensates): the error of a
    sum of terms of size ``t_k`` is about ``eps sqrt(sum t_k^2)`` (rows of G have norm
    <= 1), times a safety factor 16.
    """
    if seg.prec is None:
        eps = np.finfo(float).eps
        cL = geo.c[seg.st == _L]
        cL2 = float(cL @ cL)
        t0 = math.sqrt(float(seg.aE0 @ seg.aE0) + seg.C0 * seg.C0 * cL2)
        t1 = math.sqrt(float(seg.aE1 @ seg.aE1) + cL2)
        seg.prec = (
            16 * eps * (float(np.linalg.norm(seg.w0)) + abs(seg.b0) + 1.0 + t0),
            16 * eps * (float(np.linalg.norm(seg.w1)) + abs(seg.b1) + t1),
        )
    return seg.prec


def _scan(geo: _Geometry, seg: _Seg, direction: int, ref: float) -> _Scan:
    """Every constraint of the sets as an affine function ``h0 + u s``.

    ``u = |C - C0|`` is the distance in ``direction``: the next event is the smallest
    ``u`` where one of them reaches zero.

    Tolerances: a constraint is *tied* within what double precision knows of it (margins:
    see :func:`_margin_precision`, at least 1e-12; alpha: 1e-12 of its bound); a slope
    below its own rounding level is zero; a constraint below ``-TIE_TOL`` makes the sets
    invalid. A tied constraint moving the wrong way is an *immediate* event.
    """
    key = (direction, ref)
    if key in seg.scans:
        return seg.scans[key]
    eps = np.finfo(float).eps
    st, C0, E = seg.st, seg.C0, seg.E
    prec_r, noise_r = _margin_precision(geo, seg)
    # margins of L (1 - r >= 0) and R (r - 1 >= 0); the elbow's are equalities
    sgn = np.where(st == _L, -1.0, 1.0)
    h0 = sgn * (seg.r0 - 1.0)
    s = direction * sgn * seg.r1
    inE = st == _E
    h0[inE] = np.inf
    s[inE] = 0.0
    tie_r = max(1e-12, prec_r)
    invalid = bool((h0 < -max(TIE_TOL, prec_r)).any())
    u = np.full(h0.size, np.inf)
    moving = s < -noise_r
    far = moving & (h0 > tie_r)
    u[far] = h0[far] / -s[far]
    u[moving & (h0 <= tie_r)] = 0.0
    # the elbow's alpha in [0, C c] (relative to c): both bounds
    if E.size:
        # alpha_E comes from the elbow system: known to about eps / rcond (relative)
        cs = max(C0, ref)
        kappa = 16 * eps / max(seg.rcond, 1e-300)
        a0 = seg.aE0 / geo.c[E]
        a1 = seg.aE1 / geo.c[E]
        noise_a = kappa * (1.0 + float(np.abs(a1).max()))
        tie_a = max(1e-12, kappa) * cs
        hE = np.concatenate([a0, C0 - a0])
        sE = direction * np.concatenate([a1, 1.0 - a1])
        invalid = invalid or bool((hE < -max(TIE_TOL, kappa) * cs).any())
        uE = np.full(hE.size, np.inf)
        mv = sE < -noise_a
        farE = mv & (hE > tie_a)
        uE[farE] = hE[farE] / -sE[farE]
        uE[mv & (hE <= tie_a)] = 0.0
    else:
        uE = np.empty(0)
    ustar = min(float(u.min()) if u.size else math.inf, float(uE.min()) if uE.size else math.inf)
    if not math.isfinite(ustar):
        out = _Scan(invalid, math.inf, np.empty(0, int), np.empty(0, np.int8), False)
    else:
        window = 1e-11 * max(C0 + direction * ustar, ref) if ustar > 0 else 0.0
        hit = np.flatnonzero(u <= ustar + window)
        hitE = np.flatnonzero(uE <= ustar + window)
        m = E.size
        groups = np.concatenate([hit, E[hitE % m] if m else hitE]).astype(np.int64)
        moves = np.concatenate([np.full(hit.size, _E), np.where(hitE < m, _R, _L)]).astype(np.int8)
        out = _Scan(invalid, ustar, groups, moves, ustar == 0.0)
    seg.scans[key] = out
    return out


# --------------------------------------------------------------------------- tracing


@dataclass
class _Record:
    """A finished segment, normalised to start at ``lo`` (internal units)."""

    lo: float
    hi: float
    E: np.ndarray
    a_lo: np.ndarray
    a_slope: np.ndarray
    w_lo: np.ndarray
    w_slope: np.ndarray
    b_lo: float
    b_slope: float
    singular: bool


def _record(seg: _Seg, lo: float, hi: float) -> _Record:
    return _Record(
        lo,
        hi,
        seg.E,
        seg.aE0 + (lo - seg.C0) * seg.aE1,
        seg.aE1.copy(),
        seg.w(lo),
        seg.w1.copy(),
        seg.b(lo),
        float(seg.b1),
        seg.singular,
    )


def _bases(
    geo: _Geometry, st: np.ndarray, a: np.ndarray, C: float, limit: int = 8, depth: int = 0
) -> list[np.ndarray]:
    """Nonsingular elbows for a singular one (more margin SVs than the system can pin).

    The null space of ``[G_E^T; y_E^T]`` changes alpha_E without changing w or b. From the
    current multipliers ``a`` (valid at C), move along a null direction, either way, until
    the first alpha_j reaches 0 or ``C c_j`` (the simplex method's ratio test); j then
    leaves the elbow for R or L at its bound. Repeated until the system is nonsingular.
    Returns up to ``limit`` status arrays, each a candidate the caller validates.
    """
    E = np.flatnonzero(st == _E)
    if E.size == 0 or depth > 64:
        return [st]
    GE = geo.rows(E)
    A = np.vstack([GE.T, geo.y[E]]) if geo.free else GE.T
    _, S, Vt = np.linalg.svd(A, full_matrices=True)
    rank = int((S > 1e-10 * S[0]).sum()) if S.size and S[0] > 0 else 0
    if rank >= E.size:
        return [st]
    n = Vt[rank]
    cap = C * geo.c[E]
    aE = np.clip(a[E], 0.0, cap)
    out: list[np.ndarray] = []
    for sgn in (1.0, -1.0):
        d = sgn * n
        with np.errstate(divide="ignore", invalid="ignore"):
            to0 = np.where(d < -1e-12, aE / -d, np.inf)
            toC = np.where(d > 1e-12, (cap - aE) / d, np.inf)
        step = np.minimum(to0, toC)
        j = int(np.argmin(step))
        if not math.isfinite(step[j]):
            continue
        a2 = a.copy()
        a2[E] = np.clip(aE + step[j] * d, 0.0, cap)
        st2 = st.copy()
        if to0[j] <= toC[j]:
            st2[E[j]], a2[E[j]] = _R, 0.0
        else:
            st2[E[j]], a2[E[j]] = _L, cap[j]
        out += _bases(geo, st2, a2, C, limit - len(out), depth + 1)
        if len(out) >= limit:
            break
    return out[:limit]


class _Tracer:
    def __init__(self, geo: _Geometry, solver: str | None, tol: float) -> None:
        self.geo = geo
        self.solver = solver
        self.tol = tol
        self.n_solves = 0

    # ----------------------------------------------------------------- probes

    def probe(self, C: float) -> tuple[np.ndarray, float, np.ndarray]:
        """Sets, b and the group multipliers read off a fresh certified solve at C."""
        from ..exact import solve

        geo = self.geo
        sol = solve(geo.scaled_problem(C), solver=self.solver, tol=self.tol)
        self.n_solves += 1
        ag = np.bincount(geo.inv, weights=sol.alpha, minlength=geo.m)
        a = ag / geo.c
        t = (1e-9 if sol.polished else 1e-6) * C
        st = np.where(a <= t, _R, np.where(a >= C - t, _L, _E)).astype(np.int8)
        if not sol.polished:
            # an interior-point alpha is only approximately at its bounds; the margins
            # tell L (r < 1) and R (r > 1) apart more reliably
            w, b = sol.w, sol.b
            r = sol.problem.margins(w, b)
            rg = np.zeros(geo.m)
            rg[geo.inv] = r
            st[rg < 1 - 1e-6] = _L
            st[rg > 1 + 1e-6] = _R
        return st, float(sol.b), ag

    def candidates(
        self,
        st: np.ndarray,
        C: float,
        direction: int,
        b_anchor: float | None,
        ref: float,
        a_at: np.ndarray | None,
        base: _Seg | None,
    ) -> list[_Seg]:
        """Segments for the sets ``st`` at C, not invalid there.

        A singular elbow is replaced by its nonsingular bases (:func:`_bases`), the
        min-norm split last.
        """
        geo = self.geo
        seg = _segment(geo, st, C, direction=direction, b_anchor=b_anchor, ref=ref, base=base)
        segs = []
        if seg is not None and seg.singular and a_at is not None:
            for st2 in _bases(geo, st, a_at, C):
                s2 = _segment(
                    geo, st2, C, direction=direction, b_anchor=b_anchor, ref=ref, base=base
                )
                if s2 is not None and not s2.singular:
                    segs.append(s2)
        if seg is not None:
            segs.append(seg)
        return [g for g in segs if not _scan(geo, g, direction, ref).invalid]

    def start_at(self, C: float) -> tuple[list[_Seg], float]:
        """The segment leaving C upward, from the active sets of a fresh certified solve.

        The solve is at C (a path that starts at a user's ``C_min``).
        """
        geo = self.geo
        st, bp, ag = self.probe(C)
        segs = self.candidates(st, C, 1, bp, C, ag, None)
        for seg in segs:
            sc = _scan(geo, seg, 1, C)
            if not sc.immediate and self.certify_at(seg, C).ok:
                return [seg], C
        for seg in segs:  # C is (numerically) a breakpoint: settle its events
            sc = _scan(geo, seg, 1, C)
            nxt = self.settle(
                seg.st, sc.groups, sc.moves, C, seg.b0, seg.w0, seg.alpha(geo, C), 1, base=seg
            )
            if nxt is not None and self.certify_at(nxt, C).ok:
                return [nxt], C
        raise SolverError(
            f"exact path: the active sets of the solve at C_min = "
            f"{geo.C_user(C):.6g} do not start a valid segment; try another "
            "C_min"
        )

    def first(self) -> tuple[list[_Seg], float]:
        """The first segments, from C -> 0+ up to a probe's segment, and the probe's C.

        The segments are anchored at their lower ends; the last one is the current
        segment.
        """
        from .limits import min_margin_sv_C

        geo = self.geo
        scaled = geo.scaled_problem(1.0).data  # the normalised data set
        c0 = min_margin_sv_C(
            scaled, geo.intercept, geo.s / math.sqrt(geo.sigma2), sample_weight=geo.unit_w
        )
        if c0 > 1e12:  # 1 / (rounding of a zero sum): no margin SV ever
            c0 = math.inf
        if 0 < c0 < math.inf:
            tries = [0.5 * c0, 0.05 * c0]  # below C_0 the elbow is empty: a clean probe
        elif c0 == math.inf:
            tries = [1.0]
        else:
            tries = [1e-2 / geo.m, 1.0 / geo.m, 1e-4 / geo.m, 1.0]
        for Cs in tries:
            st, bp, ag = self.probe(Cs)
            for segp in self.candidates(st, Cs, -1, bp, Cs, ag, None):
                down = _scan(geo, segp, -1, Cs)
                if down.u >= Cs * (1 - 1e-9):
                    # valid down to 0+: re-anchor at C = 0
                    seg0 = _segment(geo, segp.st, 0.0, ref=Cs, base=segp)
                    if seg0 is not None:
                        sc = _scan(geo, seg0, 1, Cs)
                        if not sc.invalid and not sc.immediate and self.certify_at(seg0, Cs).ok:
                            return [seg0], Cs
                    continue
                walk = self.walk_down(segp, down, 0.0, None, np.zeros(geo.dz))
                if (
                    walk is not None
                    and self.certify_at(walk[0], min(Cs, walk[-1].C0) if len(walk) > 1 else Cs).ok
                ):
                    return walk, Cs
        raise SolverError(
            "exact path: could not find the sets of the first segment "
            "(C -> 0); the data may be degenerate beyond repair"
        )

    def certify_at(self, seg: _Seg, C: float) -> Certificate:
        """The numpy certificate of the segment's point at internal C."""
        geo = self.geo
        w, b, alpha = geo.user_point(seg.alpha(geo, C), seg.w(C), seg.b(C))
        return certify(geo.problem(C), w, b, alpha, tol=self.tol)

    # ----------------------------------------------------------------- one step

    def settle(
        self,
        st_prev: np.ndarray,
        groups: np.ndarray,
        moves: np.ndarray,
        Cb: float,
        b_at: float,
        w_at: np.ndarray,
        a_at: np.ndarray,
        direction: int,
        base: _Seg | None = None,
    ) -> _Seg | None:
        """The segment leaving the breakpoint ``Cb`` in ``direction``, or None.

        Its sets are the sets before it (``st_prev``) changed by the binding constraints'
        moves (``a_at``: the multipliers at Cb). None when no choice settles it (then a
        probe decides).

        Simultaneous events are not always all real: a point can reach its bound exactly
        when another event makes it stay (on lattice data, ties by construction, several
        sets of moves can even continue the same w(C)). So the moves are searched: every
        subset, the largest first (all, all but one, ... for more than 10 events); and
        the same for the *immediate* events of the resulting sets (a tied constraint that
        the new segment would violate at once), to a small depth. A point never moves
        twice; the first choice whose segment starts where the last one ended, with no
        immediate event, is taken.
        """
        visited: set[bytes] = set()
        return self._search(
            st_prev, groups, moves, Cb, b_at, w_at, a_at, direction, base, set(), visited, 0
        )

    def _search(
        self,
        st_prev: np.ndarray,
        groups: np.ndarray,
        moves: np.ndarray,
        Cb: float,
        b_at: float,
        w_at: np.ndarray,
        a_at: np.ndarray,
        direction: int,
        base: _Seg | None,
        moved: set[int],
        visited: set[bytes],
        depth: int,
    ) -> _Seg | None:
        geo = self.geo
        k = len(groups)
        if k <= 10:  # every subset, the largest first
            subsets = [
                np.array(c) for r in range(k, 0, -1) for c in itertools.combinations(range(k), r)
            ]
        else:
            subsets = [
                np.arange(k),
                *(np.delete(np.arange(k), i) for i in range(k)),
                *(np.array([i]) for i in range(k)),
            ]
        for sub in subsets:
            g_sub = [int(g) for g in groups[sub]]
            if not g_sub or any(g in moved for g in g_sub):
                continue
            st = st_prev.copy()
            st[groups[sub]] = moves[sub]
            key = st.tobytes()
            if key in visited:
                continue
            visited.add(key)
            segs = self.candidates(st, Cb, direction, b_at, Cb, a_at, base)
            segs = [g for g in segs if _continuous(g.w0, w_at)]
            for g in segs:
                if not _scan(geo, g, direction, Cb).immediate:
                    return g
            if segs and depth < 3 and len(visited) < 64:
                g = segs[0]
                sc = _scan(geo, g, direction, Cb)
                out = self._search(
                    g.st,
                    sc.groups,
                    sc.moves,
                    Cb,
                    b_at,
                    w_at,
                    a_at,
                    direction,
                    g,
                    moved | set(g_sub),
                    visited,
                    depth + 1,
                )
                if out is not None:
                    return out
        return None

    def resolve(
        self, Cb: float, b_at: float, w_at: np.ndarray, spacing: float, depth: int = 0
    ) -> list[_Seg]:
        """Segments from ``Cb`` upward, read off fresh solves just above ``Cb``.

        ``spacing`` is the relative length of the previous segment (the probe stays well
        inside the next one). Returns the segments covering ``(Cb, Cb + ...)`` in
        increasing C, each anchored at its lower end; the last is the current segment.
        """
        geo = self.geo
        for delta in (min(1e-6, 0.25 * spacing), 1e-9):
            Cp = Cb * (1.0 + delta)
            st, bp, ag = self.probe(Cp)
            for segp in self.candidates(st, Cp, -1, bp, Cp, ag, None):
                down = _scan(geo, segp, -1, Cp)
                if Cp - down.u <= Cb + 1e-10 * Cb:
                    # valid down to Cb: re-anchor there
                    seg = _segment(geo, segp.st, Cb, direction=1, b_anchor=b_at, ref=Cb, base=segp)
                    if seg is None or seg.singular and not _continuous(seg.w0, w_at):
                        continue
                    up = _scan(geo, seg, 1, Cb)
                    if up.invalid or up.immediate or not _continuous(seg.w0, w_at):
                        continue
                    return [seg]
                # breakpoints between Cb and Cp: walk down to Cb from the probe
                if depth < 2:
                    walk = self.walk_down(segp, down, Cb, b_at, w_at)
                    if walk is not None:
                        return walk
        raise SolverError(
            f"exact path: a degenerate breakpoint at C = "
            f"{geo.C_user(Cb):.6g} could not be resolved by fresh solves"
        )

    def walk_down(
        self, segp: _Seg, down: _Scan, Cb: float, b_at: float | None, w_at: np.ndarray
    ) -> list[_Seg] | None:
        """From a probe's segment, follow the path downward to ``Cb``.

        Returns the segments in increasing C (re-anchored at their lower ends), or None.
        """
        geo = self.geo
        pieces = []
        seg, sc = segp, down
        for _ in range(1000):
            Cl = seg.C0 - sc.u
            if Cl <= Cb + 1e-10 * Cb:
                low = _segment(
                    geo,
                    seg.st,
                    Cb,
                    direction=1,
                    b_anchor=b_at,
                    ref=Cb if Cb > 0 else seg.C0,
                    base=seg,
                )
                if low is None or not _continuous(low.w0, w_at):
                    return None
                pieces.append(low)
                break
            anchor = _segment(geo, seg.st, Cl, direction=1, ref=Cl, b_anchor=seg.b(Cl), base=seg)
            if anchor is None:
                return None
            pieces.append(anchor)
            nxt = self.settle(
                seg.st,
                sc.groups,
                sc.moves,
                Cl,
                seg.b(Cl),
                seg.w(Cl),
                seg.alpha(geo, Cl),
                -1,
                base=seg,
            )
            if nxt is None:
                return None
            seg = nxt
            sc = _scan(geo, seg, -1, Cl)
            if sc.invalid:
                return None
        else:  # pragma: no cover
            return None
        return pieces[::-1]


def _continuous(w_new: np.ndarray, w_old: np.ndarray) -> bool:
    """The new segment starts where the old one ended (internal units)."""
    return bool(np.abs(w_new - w_old).max() <= 1e-8 * max(1.0, float(np.abs(w_old).max())))


@dataclass
class _Break:
    C: float
    how: str
    cert: Certificate
    changed: np.ndarray  # groups whose set changed
    before: np.ndarray  # their old sets
    after: np.ndarray  # their new sets


def _precision_end(geo: _Geometry, seg: _Seg) -> float:
    """The C where the margins of the segment are known to less than PRECISION_LIMIT."""
    prec, noise = _margin_precision(geo, seg)
    if prec >= PRECISION_LIMIT:
        return seg.C0
    return seg.C0 + (PRECISION_LIMIT - prec) / noise if noise > 0 else math.inf


def _trace(
    tracer: _Tracer, C_max: float, progress: bool, C_min: float = 0.0
) -> tuple[list[_Record], list[_Break], str, dict[int, np.ndarray], Certificate]:
    """Follow the path from ``C_min`` up to ``C_max``.

    ``C_min`` 0 means C -> 0+; ``C_max`` is in internal units (inf: to the end).

    Returns the segments, the breakpoints between them, why the path stops, and the
    status arrays of every ``_SNAPSHOT_EVERY``-th segment (and the last), and the
    certificate of the last segment at its end (at the first probe when the path is one
    segment without end). Why it stops:
    ``"end"`` (no constraint ever binds again: the last segment is exact for every
    larger C), ``"C_max"``, or ``"precision"`` (beyond, double precision cannot decide
    the margins; on non-separable data ``||w||`` grows without bound).
    """
    geo = tracer.geo
    firsts, first_ref = tracer.start_at(C_min) if C_min > 0 else tracer.first()
    seg = firsts[0]
    records: list[_Record] = []
    breaks: list[_Break] = []
    snapshots = {0: seg.st.copy()}
    lo = C_min
    for p in firsts[1:]:  # found walking down from the first probe
        changed = np.flatnonzero(seg.st != p.st)
        records.append(_record(seg, lo, p.C0))
        breaks.append(
            _Break(
                p.C0, "event", tracer.certify_at(p, p.C0), changed, seg.st[changed], p.st[changed]
            )
        )
        if len(records) % _SNAPSHOT_EVERY == 0:
            snapshots[len(records)] = p.st.copy()
        seg, lo = p, p.C0
    max_breaks = 200 * geo.m + 10_000
    log_lo = math.log10(first_ref)
    log_span = math.log10(C_max) - log_lo if math.isfinite(C_max) else 0.0
    with Progress(100.0, "exact path", enabled=progress) as bar:
        while True:
            ref = seg.C0 if seg.C0 > 0 else first_ref
            sc = _scan(geo, seg, 1, ref)
            Cb = seg.C0 + sc.u
            C_prec = _precision_end(geo, seg)
            if not math.isfinite(Cb) or Cb >= min(C_max, C_prec):
                if not math.isfinite(Cb):  # no event ever again: exact for every C, C_max or not
                    reason, end = "end", math.inf
                elif C_max <= C_prec:
                    reason, end = "C_max", C_max
                else:
                    reason, end = "precision", max(C_prec, lo)
                records.append(_record(seg, lo, end))
                snapshots[len(records) - 1] = seg.st.copy()
                C_cert = end if math.isfinite(end) else (lo if lo > 0 else first_ref)
                end_cert = tracer.certify_at(seg, C_cert)
                break
            if len(breaks) > max_breaks:
                raise SolverError(
                    f"exact path: more than {max_breaks} breakpoints; the "
                    "path is not making progress (degenerate data?)"
                )
            pieces, how, cert = _next_pieces(tracer, seg, sc, Cb, lo)
            prev, prev_lo = seg, lo
            for i, p in enumerate(pieces):
                Cs = Cb if i == 0 else p.C0
                changed = np.flatnonzero(prev.st != p.st)
                if changed.size:
                    records.append(_record(prev, prev_lo, Cs))
                    if len(records) % _SNAPSHOT_EVERY == 0:
                        snapshots[len(records)] = p.st.copy()
                    pc = cert if (i == 0 and cert is not None) else tracer.certify_at(p, Cs)
                    breaks.append(_Break(Cs, how, pc, changed, prev.st[changed], p.st[changed]))
                    prev_lo = Cs
                prev = p
            seg, lo = prev, prev_lo
            if log_span > 0:
                bar.update(100.0 * max(0.0, math.log10(Cb) - log_lo) / log_span - bar.done)
    return records, breaks, reason, snapshots, end_cert


def _next_pieces(
    tracer: _Tracer, seg: _Seg, sc: _Scan, Cb: float, lo: float
) -> tuple[list[_Seg], str, Certificate | None]:
    """The segment(s) after the breakpoint ``Cb`` of ``seg``, how found, and a certificate.

    How they were found: ``"event"`` (the event rule, certified) or ``"solve"`` (fresh
    solves); the certificate is the first one's at ``Cb`` (None: to be computed).
    """
    b_at, w_at = seg.b(Cb), seg.w(Cb)
    cert = None
    nxt = tracer.settle(
        seg.st, sc.groups, sc.moves, Cb, b_at, w_at, seg.alpha(tracer.geo, Cb), 1, base=seg
    )
    if nxt is not None:
        cert = tracer.certify_at(nxt, Cb)
        if cert.max_residual() <= REANCHOR_TOL:
            return [nxt], "event", cert
    try:
        return tracer.resolve(Cb, b_at, w_at, (Cb - lo) / Cb if lo > 0 else 1.0), "solve", None
    except SolverError:
        # fresh solves could not do better than the event rule's segment, whose
        # certificate is degraded but within the tolerance: keep it
        if nxt is None or cert is None or not cert.ok:
            raise
        return [nxt], "event", cert


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, eq=False)
class PathPoint:
    """The soft-margin optimum at one C, read off an :class:`ExactPath`.

    Attributes
    ----------
    C, lam : float
        The point (``lam = 1/(C n)``).
    w : ndarray of shape (d,)
    b : float
    alpha : ndarray of shape (n,)
    elbow, left, right : ndarray of int
        The sets of the segment holding C: margin SVs (``0 < alpha_i < C``,
        ``y_i f_i = 1``), bound SVs (``alpha_i = C``) and the rest (``alpha_i = 0``). At a
        breakpoint, the sets of the segment to its left.
    segment : int
        Index of that segment (``ExactPath.bounds[segment] < C <= bounds[segment + 1]``).
    certificate : Certificate
        :func:`maxmargin.certificate.certify` of ``(w, b, alpha)`` at this C.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
    >>> pt = ep.solution_at(0.1)
    >>> pt.w.tolist(), pt.alpha.tolist(), pt.certificate.ok
    ([0.2], [0.1, 0.1], True)
    """

    C: float
    lam: float
    w: np.ndarray
    b: float
    alpha: np.ndarray
    elbow: np.ndarray
    left: np.ndarray
    right: np.ndarray
    segment: int
    certificate: Certificate

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every field (the certificate as its own dict).

        Returns
        -------
        dict

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
        >>> ep.solution_at(0.1).to_dict()["left"]
        [0, 1]
        """
        return {
            "C": float(self.C),
            "lam": float(self.lam),
            "w": [float(t) for t in self.w],
            "b": float(self.b),
            "alpha": [float(t) for t in self.alpha],
            "elbow": [int(i) for i in self.elbow],
            "left": [int(i) for i in self.left],
            "right": [int(i) for i in self.right],
            "segment": int(self.segment),
            "certificate": self.certificate.to_dict(),
        }


@dataclass(frozen=True, eq=False)
class ExactPath:
    r"""The entire soft-margin path: every breakpoint in C, its events, the affine pieces.

    Segment ``k`` is ``bounds[k] < C <= bounds[k + 1]`` (``bounds[0] = 0``, or the
    ``C_min`` the path started at; the last bound is ``C_end``, ``inf`` for a complete
    path). On it

    .. math::

        w(C) = w_k + (C - C_k) \dot w_k, \quad b(C) = b_k + (C - C_k) \dot b_k,
        \quad \alpha_i(C) = \begin{cases} C s_i & i \in L_k \\
        a_{ik} + (C - C_k) \dot a_{ik} & i \in E_k \\ 0 & i \in R_k \end{cases}

    with ``C_k = bounds[k]`` (``s_i`` the example weights, 1 without); equivalently
    ``alpha / C``, ``w / C``, ``b / C`` are affine in ``lambda = 1/C`` (Hastie et al.'s
    scaled parametrisation).

    Attributes
    ----------
    breakpoints : ndarray of shape (K,)
        The C values where a set changes, increasing.
    lam : ndarray of shape (K,)
        ``1 / (C n)`` of each breakpoint (the lambda form).
    bounds : ndarray of shape (K + 2,)
        ``[0 (or C_min), breakpoints..., C_end]``: the segments' ends.
    w_at, w_slope : ndarray of shape (K + 1, d)
        ``w`` at each segment's lower end and its derivative in C.
    b_at, b_slope : ndarray of shape (K + 1,)
    elbow_ptr : ndarray of shape (K + 2,)
        Segment k's elbow is ``elbow_index[elbow_ptr[k]:elbow_ptr[k + 1]]``, with
        ``alpha`` at the lower end ``elbow_alpha_at[...]`` and slope ``elbow_alpha_slope``.
    elbow_index, elbow_alpha_at, elbow_alpha_slope : ndarray
    n_elbow, n_left, n_right : ndarray of shape (K + 1,), int
        Set sizes per segment.
    event_ptr : ndarray of shape (K + 1,)
        Breakpoint j's events are ``event_index[event_ptr[j]:event_ptr[j + 1]]`` (the
        examples), moving from ``event_from`` to ``event_to`` (codes into
        :data:`SET_NAMES`: 0 = R, 1 = E, 2 = L).
    event_index, event_from, event_to : ndarray
    method : tuple of str
        Per breakpoint: ``"event"`` (the sets followed from the binding constraint) or
        ``"solve"`` (settled by a fresh certified solve just past it: a degenerate event
        or a degraded certificate).
    certificates : tuple of Certificate
        :func:`maxmargin.certificate.certify` of the solution at each breakpoint.
    end_certificate : Certificate
        The last segment's certificate at ``C_end`` (when finite; else at its start).
    max_residual : ndarray of shape (K,)
        Each certificate's largest residual (relative gap or scaled KKT).
    end_reason : str
        ``"end"``: no constraint binds again, the last segment is exact for every larger
        C (on separable data from ``C_star`` on, the hard-margin solution); ``"C_max"``:
        stopped at the user's ``C_max``; ``"precision"``: stopped where double precision
        no longer resolves the margins (``||w||`` grows without bound on non-separable
        data).
    C_end : float
        Where the path ends (``inf`` when ``end_reason == "end"``).
    C_star : float
        Smallest C from which the solution is the hard-margin one (``inf`` when the data
        are not separable; ``nan`` when separable but beyond ``C_end``).
    separable : bool
        Whether the data are separable (in the intercept's sense).
    min_margin_sv_C : float
        The first breakpoint when the first segment has no margin SV (``C_0`` of
        :func:`maxmargin.path.min_margin_sv_C`), else 0 (nan when the path starts at a
        ``C_min`` with margin SVs: C_0 is below it).
    n_solves : int
        Fresh certified solves used (the first segment's probe included).
    n_merged : int
        Exact duplicates merged into one example (their costs summed).
    intercept : str
    intercept_scaling : float
    data, holdout : Dataset
        The data (kept by reference, for :meth:`solution_at` and the errors).
    data_name : str
    n, d : int
    tol : float
        The certificates' tolerance.
    seconds : float
        Wall time of the whole computation.
    snapshots : dict of int to ndarray
        The status array (codes of :data:`SET_NAMES`, shape (n,)) of every 64th segment
        and of the last; the others are replayed from the events.
    weights : ndarray of shape (n,) or None
        The example weights ``s_i`` (costs ``C_i = C s_i``); None without. Examples of
        weight 0 stay in the right set (``alpha_i = 0``) along the whole path.

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> ep = exact_regularization_path(make_separable(30, 2, seed=0))
    >>> ep.certified, ep.end_reason, ep.separable
    (True, 'end', True)
    >>> bool(ep.solution_at(ep.C_star * 2).certificate.ok)
    True
    """

    breakpoints: np.ndarray
    lam: np.ndarray
    bounds: np.ndarray
    w_at: np.ndarray
    w_slope: np.ndarray
    b_at: np.ndarray
    b_slope: np.ndarray
    elbow_ptr: np.ndarray
    elbow_index: np.ndarray
    elbow_alpha_at: np.ndarray
    elbow_alpha_slope: np.ndarray
    n_elbow: np.ndarray
    n_left: np.ndarray
    n_right: np.ndarray
    event_ptr: np.ndarray
    event_index: np.ndarray
    event_from: np.ndarray
    event_to: np.ndarray
    method: tuple
    certificates: tuple
    max_residual: np.ndarray
    end_reason: str
    end_certificate: Certificate
    C_end: float
    C_star: float
    separable: bool
    min_margin_sv_C: float
    n_solves: int
    n_merged: int
    intercept: str
    intercept_scaling: float
    data: Dataset = field(repr=False)
    holdout: Dataset | None = field(default=None, repr=False)
    data_name: str = "data"
    n: int = 0
    d: int = 0
    tol: float = 1e-6
    seconds: float = 0.0
    snapshots: dict = field(default_factory=dict, repr=False)
    weights: np.ndarray | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ basics

    def __len__(self) -> int:
        return int(self.breakpoints.size)

    @property
    def certified(self) -> bool:
        """Whether every breakpoint's certificate, and the end's, is ok."""
        return self.end_certificate.ok and all(c.ok for c in self.certificates)

    @property
    def complete(self) -> bool:
        """Whether the path covers every C > 0 (``end_reason == "end"``)."""
        return self.end_reason == "end"

    @property
    def n_segments(self) -> int:
        """Number of affine pieces (``len(self) + 1``)."""
        return int(self.w_at.shape[0])

    def _check_C(self, C: Any) -> np.ndarray:
        Cs = np.asarray(C, dtype=float)
        if Cs.size == 0 or not np.isfinite(Cs).all() or (Cs <= 0).any():
            raise ParameterError(f"C must be finite and > 0, got {C!r}")
        if (Cs < self.bounds[0] * (1 - 1e-12)).any():
            raise ParameterError(
                f"C = {float(Cs.min()):.6g} is below the start of this path (C_min = "
                f"{self.bounds[0]:.6g}); compute it with a smaller C_min"
            )
        if (Cs > self.C_end * (1 + 1e-12)).any():
            raise ParameterError(
                f"C = {float(Cs.max()):.6g} is beyond the end of this path (C_end = "
                f"{self.C_end:.6g}, {self.end_reason}); compute it with a larger C_max"
            )
        return Cs

    def segment_of(self, C: Any) -> Any:
        """Index of the segment holding C (``bounds[k] < C <= bounds[k + 1]``).

        Parameters
        ----------
        C : float or array-like of float > 0

        Returns
        -------
        int or ndarray of int

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
        >>> ep.breakpoints.tolist(), ep.segment_of([0.1, 0.5, 1.0]).tolist()
        ([0.5], [0, 0, 1])
        """
        Cs = self._check_C(C)
        k = np.searchsorted(self.bounds, Cs, side="left") - 1
        k = np.clip(k, 0, self.n_segments - 1)
        return int(k) if np.ndim(C) == 0 else k

    def coefficients(self, C: Any) -> tuple[np.ndarray, Any]:
        """``w(C)`` and ``b(C)`` for one or many C (exact; no solve).

        Parameters
        ----------
        C : float or array-like of shape (k,)

        Returns
        -------
        w : ndarray of shape (d,) or (k, d)
        b : float or ndarray of shape (k,)

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
        >>> w, b = ep.coefficients([0.1, 1.0])
        >>> w.ravel().tolist(), b.tolist()
        ([0.2, 1.0], [0.0, 0.0])
        """
        Cs = self._check_C(C)
        k = np.clip(
            np.searchsorted(self.bounds, Cs.ravel(), side="left") - 1, 0, self.n_segments - 1
        )
        t = Cs.ravel() - self.bounds[k]
        w = self.w_at[k] + t[:, None] * self.w_slope[k]
        b = self.b_at[k] + t * self.b_slope[k]
        if np.ndim(C) == 0:
            return w[0], float(b[0])
        return w, b

    def _status(self, k: int) -> np.ndarray:
        """Status array (codes of :data:`SET_NAMES`) of segment k.

        Replayed from the nearest stored one.
        """
        base = max(j for j in self.snapshots if j <= k)
        st = self.snapshots[base].copy()
        for j in range(base, k):  # breakpoint j leads from segment j to j + 1
            a, b = self.event_ptr[j], self.event_ptr[j + 1]
            st[self.event_index[a:b]] = self.event_to[a:b]
        return st

    def alpha_at(self, C: float) -> np.ndarray:
        """The dual multipliers ``alpha(C)`` (exact; no solve).

        Parameters
        ----------
        C : float > 0

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
        >>> ep.alpha_at(1.0).tolist()
        [0.5, 0.5]
        """
        k = self.segment_of(float(C))
        st = self._status(k)
        a = np.where(st == _L, float(C) if self.weights is None else C * self.weights, 0.0)
        i0, i1 = self.elbow_ptr[k], self.elbow_ptr[k + 1]
        t = float(C) - self.bounds[k]
        a[self.elbow_index[i0:i1]] = self.elbow_alpha_at[i0:i1] + t * self.elbow_alpha_slope[i0:i1]
        return a

    def solution_at(self, C: float) -> PathPoint:
        """The exact solution at any ``0 < C <= C_end``, with its numpy certificate.

        Parameters
        ----------
        C : float > 0

        Returns
        -------
        PathPoint

        Raises
        ------
        ParameterError
            C not finite and > 0, or beyond ``C_end``.

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1]))
        >>> pt = ep.solution_at(2.0)
        >>> pt.w.round(12).tolist(), round(pt.b, 12), pt.certificate.ok
        ([1.0], 0.0, True)
        """
        C = float(self._check_C(float(C)))
        k = self.segment_of(C)
        st = self._status(k)
        w, b = self.coefficients(C)
        alpha = self.alpha_at(C)
        problem = SVMProblem(
            self.data,
            C=C,
            intercept=self.intercept,
            intercept_scaling=self.intercept_scaling,
            sample_weight=self.weights,
        )
        cert = certify(problem, w, b, alpha, tol=self.tol)
        return PathPoint(
            C,
            1.0 / (C * self.n),
            np.asarray(w, float),
            float(b),
            alpha,
            np.flatnonzero(st == _E),
            np.flatnonzero(st == _L),
            np.flatnonzero(st == _R),
            k,
            cert,
        )

    def lambda_form(self, k: int) -> dict[str, tuple[Any, Any]]:
        r"""Segment k in the scaled parametrisation of Hastie et al.: ``lambda = 1/C``.

        On the segment, ``alpha / C``, ``w / C`` and ``b / C`` are affine in lambda:
        ``v / C = p + lambda q`` with, for ``v(C) = v_k + (C - C_k) dv_k``,

        .. math:: p = \dot v_k, \qquad q = v_k - C_k \dot v_k.

        Parameters
        ----------
        k : int
            Segment index, ``0 <= k < n_segments``.

        Returns
        -------
        dict
            ``"alpha"``: (p, q) of shape (n,) each (``s_i``, 0 on the left set -- 1, 0
            without weights; 0, 0 on the right set), ``"w"``: (p, q) of shape (d,),
            ``"b"``: (p, q) floats.

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
        >>> f = ep.lambda_form(1)        # C >= 1/2: w = 1, so w / C = 0 + lambda * 1
        >>> f["w"][0].tolist(), f["w"][1].tolist(), f["alpha"][1].tolist()
        ([0.0], [1.0], [0.5, 0.5])
        """
        if not 0 <= k < self.n_segments:
            raise ParameterError(f"segment index must be in [0, {self.n_segments}), got {k}")
        Ck = float(self.bounds[k])
        st = self._status(k)
        ap = np.where(st == _L, 1.0 if self.weights is None else self.weights, 0.0)
        aq = np.zeros(self.n)
        i0, i1 = self.elbow_ptr[k], self.elbow_ptr[k + 1]
        E = self.elbow_index[i0:i1]
        ap[E] = self.elbow_alpha_slope[i0:i1]
        aq[E] = self.elbow_alpha_at[i0:i1] - Ck * self.elbow_alpha_slope[i0:i1]
        return {
            "alpha": (ap, aq),
            "w": (self.w_slope[k].copy(), self.w_at[k] - Ck * self.w_slope[k]),
            "b": (float(self.b_slope[k]), float(self.b_at[k] - Ck * self.b_slope[k])),
        }

    def __repr__(self) -> str:
        return (
            f"ExactPath({self.data_name!r}, intercept={self.intercept!r}, "
            f"{len(self)} breakpoints, C in [{self.bounds[0]:.4g}, {self.C_end:.4g}] "
            f"({self.end_reason}), certified={self.certified})"
        )

    def events_at(self, j: int) -> list[tuple[int, str, str]]:
        """The events of breakpoint ``j``: ``(example, from set, to set)``.

        Parameters
        ----------
        j : int
            ``0 <= j < len(self)``.

        Returns
        -------
        list of (int, str, str)
            Sets are ``"E"`` (elbow, margin SV), ``"L"`` (alpha = C), ``"R"`` (alpha = 0).

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
        >>> ep.events_at(0)
        [(0, 'L', 'E'), (1, 'L', 'E')]
        """
        if not 0 <= j < len(self):
            raise ParameterError(f"breakpoint index must be in [0, {len(self)}), got {j}")
        a, b = self.event_ptr[j], self.event_ptr[j + 1]
        return [
            (int(i), SET_NAMES[f], SET_NAMES[t])
            for i, f, t in zip(
                self.event_index[a:b], self.event_from[a:b], self.event_to[a:b], strict=True
            )
        ]

    def errors(self, C: Any, data: Dataset | None = None) -> np.ndarray:
        """Error rates ``mean(y f(x) <= 0)`` of ``w(C), b(C)`` on ``data``.

        ``data`` defaults to the training data.

        Parameters
        ----------
        C : array-like of shape (k,)
        data : Dataset, optional

        Returns
        -------
        ndarray of shape (k,)

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0], [-0.5]], [1, -1, 1]))
        >>> ep.errors([0.01, 10.0]).round(4).tolist()   # separable: 0 at large C
        [0.3333, 0.0]
        """
        data = self.data if data is None else data
        w, b = self.coefficients(np.atleast_1d(np.asarray(C, float)))
        R = (np.asarray(data.X @ w.T) + b) * data.y[:, None]
        return (R <= 0).mean(axis=0)

    # ------------------------------------------------------------------ export

    def _breakpoint_rows(self) -> list[dict[str, Any]]:
        w, b = (
            self.coefficients(self.breakpoints)
            if len(self)
            else (np.zeros((0, self.d)), np.zeros(0))
        )
        rows = []
        for j in range(len(self)):
            rows.append(
                {
                    "k": j,
                    "C": float(self.breakpoints[j]),
                    "lam": float(self.lam[j]),
                    "events": [{"index": i, "from": f, "to": t} for i, f, t in self.events_at(j)],
                    "method": self.method[j],
                    "certified": bool(self.certificates[j].ok),
                    "max_residual": json_number(self.max_residual[j]),
                    "n_elbow": int(self.n_elbow[j + 1]),
                    "n_left": int(self.n_left[j + 1]),
                    "n_right": int(self.n_right[j + 1]),
                    "norm_w": float(np.linalg.norm(w[j])),
                    "b": float(b[j]),
                }
            )
        return rows

    def to_dict(self, include_segments: bool = False) -> dict[str, Any]:
        """Plain-Python dict (JSON-ready; non-finite numbers as strings).

        Parameters
        ----------
        include_segments : bool, default False
            Add ``segments``: per segment its bounds, ``w`` and ``b`` at the lower end
            with their slopes, and the elbow with ``alpha`` and slope.

        Returns
        -------
        dict
            ``format`` (``"maxmargin.exact_path/1"``), ``maxmargin_version``, the
            summary, and ``breakpoints``: one dict per breakpoint with ``C``, ``lam``,
            ``events`` (``index``, ``from``, ``to``), ``method``, ``certified``,
            ``max_residual``, set sizes after it, ``norm_w`` and ``b``.

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> d = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1])).to_dict()
        >>> d["breakpoints"][0]["C"], d["breakpoints"][0]["events"][0]
        (0.5, {'index': 0, 'from': 'L', 'to': 'E'})
        """
        out: dict[str, Any] = {
            **format_header("exact_path"),
            "data": self.data_name,
            "n": self.n,
            "d": self.d,
            "intercept": self.intercept,
            "intercept_scaling": self.intercept_scaling,
            "exact": True,
            "certified": self.certified,
            "n_breakpoints": len(self),
            "end_reason": self.end_reason,
            "C_end": json_number(self.C_end),
            "C_star": json_number(self.C_star),
            "separable": bool(self.separable),
            "min_margin_sv_C": json_number(self.min_margin_sv_C),
            "n_solves": self.n_solves,
            "n_merged": self.n_merged,
            "tol": self.tol,
            "seconds": self.seconds,
            "breakpoints": self._breakpoint_rows(),
            "weights": None if self.weights is None else [float(t) for t in self.weights],
        }
        if include_segments:
            segs = []
            for k in range(self.n_segments):
                i0, i1 = self.elbow_ptr[k], self.elbow_ptr[k + 1]
                segs.append(
                    {
                        "C_lo": json_number(self.bounds[k]),
                        "C_hi": json_number(self.bounds[k + 1]),
                        "w_at": [float(t) for t in self.w_at[k]],
                        "w_slope": [float(t) for t in self.w_slope[k]],
                        "b_at": float(self.b_at[k]),
                        "b_slope": float(self.b_slope[k]),
                        "elbow": [int(i) for i in self.elbow_index[i0:i1]],
                        "alpha_at": [float(t) for t in self.elbow_alpha_at[i0:i1]],
                        "alpha_slope": [float(t) for t in self.elbow_alpha_slope[i0:i1]],
                        "n_left": int(self.n_left[k]),
                        "n_right": int(self.n_right[k]),
                    }
                )
            out["segments"] = segs
        return out

    def to_json(self, file: str | Path | None = None, include_segments: bool = False) -> str:
        """The :meth:`to_dict` as JSON text; written (atomically) to ``file`` when given.

        Parameters
        ----------
        file : str or Path, optional
        include_segments : bool, default False

        Returns
        -------
        str

        Examples
        --------
        >>> import json
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
        >>> json.loads(ep.to_json())["n_breakpoints"]
        1
        """
        text = dumps(self.to_dict(include_segments), indent=1)
        if file is not None:
            atomic_write(file, text)
        return text

    @staticmethod
    def from_json(source: Any) -> SavedExactPath:
        """Read an exact path written by :meth:`to_json`.

        Such as ``maxmargin path --exact --json`` and ``report.json`` write.

        The file holds the breakpoints and their events, not the data nor the
        certificates' arrays: the result is a
        :class:`~maxmargin.evaluation.saved.SavedExactPath` (its numbers, the events, and
        with the segments, which ``--json`` and ``report.json`` write, ``coefficients(C)``
        exactly as the path gives them; ``to_json`` gives the file's text back).

        Parameters
        ----------
        source : str, path-like, readable file, or dict
            The JSON file (or its parsed content).

        Returns
        -------
        SavedExactPath

        Raises
        ------
        DataError
            Not an exact path's file (the message names the right loader), a format
            newer than this maxmargin reads, or a key missing.

        Examples
        --------
        >>> import io
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
        >>> saved = ExactPath.from_json(io.StringIO(ep.to_json(include_segments=True)))
        >>> saved.coefficients(0.1)[0].tolist(), saved.to_csv() == ep.to_csv()
        ([0.2], True)
        """
        return SavedExactPath.from_json(source)

    def to_csv(self, file: str | Path | None = None) -> str:
        """One CSV row per event (a breakpoint with several events has several rows).

        The columns: ``k, C, lam, index, from, to, method, certified, max_residual``.

        Parameters
        ----------
        file : str or Path, optional
            Written atomically when given.

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
        >>> print(ep.to_csv().splitlines()[1])
        0,0.5,1.0,0,L,E,event,True,0
        """
        return breakpoints_csv(self._breakpoint_rows(), file)

    def to_markdown(self, max_rows: int = 200) -> str:
        """A readable report: summary, then a table of the breakpoints and their events.

        Parameters
        ----------
        max_rows : int, default 200
            At most this many breakpoints in the table (the first and the last ones;
            every one is in :meth:`to_csv`).

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
        >>> print(ep.to_markdown().splitlines()[0])
        # Exact regularization path: data (n=2, d=1, intercept=free)
        """
        K = len(self)
        L = [
            f"# Exact regularization path: {self.data_name} (n={self.n}, d={self.d}, "
            f"intercept={self.intercept})",
            "",
        ]
        ok = sum(c.ok for c in self.certificates)
        L.append(
            f"- {K} breakpoints, {self.n_segments} affine segments in C; every "
            "set change (E = margin SVs, L = alpha at C, R = alpha at 0) listed below"
        )
        worst = float(self.max_residual.max()) if K else 0.0
        L.append(
            f"- certified: {ok}/{K} breakpoints (numpy certificate at tol "
            f"{self.tol:.0e}; worst residual {worst:.1e})"
        )
        n_solve = sum(m == "solve" for m in self.method)
        L.append(
            f"- {n_solve} breakpoints settled by a fresh certified solve (degenerate "
            f"events); {self.n_solves} solves in all; {self.n_merged} exact duplicates "
            f"merged; {self.seconds:.2f} s"
        )
        if self.bounds[0] > 0:
            L.append(
                f"- starts at C_min = {self.bounds[0]:.6g}, from the active sets of a "
                "fresh certified solve"
                + (
                    f"; first margin SV at C_0 = {self.min_margin_sv_C:.6g}"
                    if math.isfinite(self.min_margin_sv_C)
                    else ""
                )
            )
        elif self.min_margin_sv_C > 0:
            L.append(
                f"- first margin SV at C_0 = {self.min_margin_sv_C:.6g}: below it "
                "every example is at its bound"
            )
        else:
            L.append("- margin SVs for every C > 0 (C_0 = 0: free intercept, unequal classes)")
        if self.end_reason == "end":
            if self.separable:
                L.append(
                    f"- separable: the solution is the hard-margin one for every "
                    f"C >= C* = {self.C_star:.6g} (last breakpoint)"
                )
            else:
                L.append(
                    "- complete: after the last breakpoint the sets never change "
                    "(the last segment is exact for every larger C)"
                )
        elif self.end_reason == "C_max":
            L.append(
                f"- stopped at C_max = {self.C_end:.6g}"
                + (" (separable: C* lies beyond)" if self.separable else " (not separable)")
            )
        else:
            L.append(
                f"- stopped at C = {self.C_end:.6g}: beyond, double precision no "
                "longer resolves the margins (not separable: ||w|| grows with C)"
            )
        L += [
            "",
            "| k | C | lambda | events | E | L | R | method | max residual |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        idx = list(range(K))
        if K > max_rows:
            idx = idx[: max_rows // 2] + [-1] + idx[K - max_rows // 2 :]
        for j in idx:
            if j < 0:
                L.append(
                    f"| ... | | | {K - 2 * (max_rows // 2)} more (see breakpoints.csv) | | | | | |"
                )
                continue
            ev = ", ".join(f"{i}: {f}->{t}" for i, f, t in self.events_at(j))
            L.append(
                f"| {j} | {self.breakpoints[j]:.6g} | {self.lam[j]:.4g} | {ev} | "
                f"{self.n_elbow[j + 1]} | {self.n_left[j + 1]} | {self.n_right[j + 1]} | "
                f"{self.method[j]} | {self.max_residual[j]:.1e} |"
            )
        return "\n".join(L) + "\n"


# --------------------------------------------------------------------------- entry


def _single_blas_thread() -> Any:
    """Limit BLAS to one thread while tracing.

    The path is a long sequence of small products, and multi-threaded gemv on a busy
    machine is ~100x slower (docs/benchmarks.md).
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a declared dependency
        from contextlib import nullcontext

        return nullcontext()
    return threadpool_limits(1, user_api="blas")


def _assemble(
    geo: _Geometry,
    records: list[_Record],
    breaks: list[_Break],
    reason: str,
    snapshots: dict[int, np.ndarray],
    **kw: Any,
) -> ExactPath:
    """The user-unit :class:`ExactPath` from the traced (internal) segments."""
    sig = math.sqrt(geo.sigma2)
    S, K = len(records), len(breaks)
    n, data = geo.n_orig, geo.data
    bounds = np.array([records[0].lo] + [b.C for b in breaks] + [records[-1].hi]) / geo.cscale
    Wl = np.array([r.w_lo for r in records]) / sig
    Ws = np.array([r.w_slope for r in records]) * sig
    if geo.ws != 1.0:
        Ws = Ws * geo.ws
    if geo.intercept == "augmented":
        (w_at, b_at), (w_slope, b_slope) = geo.unit.from_augmented(Wl), geo.unit.from_augmented(Ws)
    else:
        w_at, w_slope = Wl, Ws
        if geo.free:
            b_at = np.array([r.b_lo for r in records])
            b_slope = np.array([r.b_slope for r in records]) * geo.cscale
        else:
            b_at, b_slope = np.zeros(S), np.zeros(S)
    # elbows, in original indices (every member of a merged group gets an equal share)
    E_all = np.concatenate([r.E for r in records]).astype(np.int64)
    e_idx, own = geo.members(E_all)
    cE = geo.c[E_all][own]
    e_at = np.concatenate([r.a_lo for r in records])[own] / (cE * geo.sigma2)
    e_sl = np.concatenate([r.a_slope for r in records])[own] / cE
    if geo.unit_w is not None:  # each member's share, in proportion to its cost
        e_at = e_at * geo.unit_w[e_idx]
        e_sl = e_sl * geo.weights[e_idx]  # type: ignore[index]
    sizes = np.diff(geo._members_bounds)  # examples per group
    e_ptr = np.concatenate([[0], np.cumsum([int(sizes[r.E].sum()) for r in records])])
    # events, in original indices
    if breaks:
        ch = np.concatenate([b.changed for b in breaks]).astype(np.int64)
        event_index, own = geo.members(ch)
        event_from = np.concatenate([b.before for b in breaks]).astype(np.int8)[own]
        event_to = np.concatenate([b.after for b in breaks]).astype(np.int8)[own]
        event_ptr = np.concatenate(
            [[0], np.cumsum([int(sizes[b.changed].sum()) for b in breaks])]
        ).astype(np.int64)
    else:
        event_index = np.empty(0, np.int64)
        event_from = event_to = np.empty(0, np.int8)
        event_ptr = np.zeros(1, np.int64)
    # status snapshots and set sizes per segment, in original indices
    snaps = {k: st[geo.inv].astype(np.int8) for k, st in snapshots.items()}
    counts = np.zeros((S, 3), np.int64)
    st = snaps[0].copy()
    counts[0] = np.bincount(st, minlength=3)
    for j in range(K):
        a, b = event_ptr[j], event_ptr[j + 1]
        st[event_index[a:b]] = event_to[a:b]
        counts[j + 1] = np.bincount(st, minlength=3)
    last_L = counts[-1, _L]
    certs = tuple(b.cert for b in breaks)
    C_end = float(bounds[-1])
    if reason == "end":
        separable = bool(last_L == 0)
        C_star = float(bounds[-2]) if separable and K else (0.0 if separable else math.inf)
    else:
        from ..separation import is_separable

        separable = bool(is_separable(data, geo.intercept))  # (weight 0: left out before)
        C_star = math.nan if separable else math.inf
    first_E = records[0].E.size
    c0 = float(bounds[1]) if (first_E == 0 and K) else (math.inf if first_E == 0 else 0.0)
    if bounds[0] > 0 and first_E:
        c0 = math.nan  # the path starts past C_0 (or margin SVs exist from C = 0 on)
    bps = bounds[1:-1].copy()
    return ExactPath(
        breakpoints=bps,
        lam=1.0 / (bps * n),
        bounds=bounds,
        w_at=w_at,
        w_slope=w_slope,
        b_at=np.asarray(b_at, float),
        b_slope=np.asarray(b_slope, float),
        elbow_ptr=np.asarray(e_ptr, np.int64),
        elbow_index=e_idx,
        elbow_alpha_at=np.asarray(e_at, float),
        elbow_alpha_slope=np.asarray(e_sl, float),
        n_elbow=counts[:, _E],
        n_left=counts[:, _L],
        n_right=counts[:, _R],
        event_ptr=event_ptr,
        event_index=event_index,
        event_from=event_from,
        event_to=event_to,
        method=tuple(b.how for b in breaks),
        certificates=certs,
        max_residual=np.array([c.max_residual() for c in certs]),
        end_reason=reason,
        C_end=C_end,
        C_star=C_star,
        separable=separable,
        min_margin_sv_C=c0,
        n_merged=int(n - geo.m),
        intercept=geo.intercept,
        intercept_scaling=geo.s,
        data=data,
        data_name=data.name,
        n=n,
        d=data.d,
        snapshots=snaps,
        weights=geo.weights,
        **kw,
    )


def exact_regularization_path(
    data: Dataset,
    intercept: str = "free",
    *,
    C_max: float | None = None,
    C_min: float | None = None,
    holdout: Dataset | None = None,
    solver: str | None = None,
    intercept_scaling: float = 1.0,
    tol: float | None = None,
    progress: bool = False,
    sample_weight: Any = None,
    class_weight: Any = None,
) -> ExactPath:
    """Every breakpoint of the soft-margin path in C, with its events, certified.

    Parameters
    ----------
    data : Dataset
    intercept : {"free", "none", "augmented"}
    C_max : float > 0, optional
        Stop at this C (default: follow the path to its end -- on separable data the
        hard-margin solution, reached at ``C*``; on non-separable data the last
        breakpoint, or where double precision stops resolving the margins).
    C_min : float > 0, optional
        Start here, from the active sets of a fresh certified solve at ``C_min``, instead
        of at C -> 0 (the path is then defined on ``[C_min, C_end]``).
    holdout : Dataset, optional
        Kept for the held-out error of the figures and reports (same d).
    solver : str, optional
        Solver of the fresh solves (:func:`maxmargin.exact.solve`).
    intercept_scaling : float
        ``s`` of the augmented mode.
    tol : float, optional
        Tolerance of the breakpoints' certificates (default 1e-6; they typically reach
        1e-13).
    progress : bool
        Progress bar on a terminal (needs a finite ``C_max``).
    sample_weight : array-like of shape (n,), optional
        Example weights: costs ``C_i = C s_i`` (:class:`~maxmargin.SVMProblem`); the
        left set's ``alpha_i`` is ``C s_i``. Examples of weight 0 are left out of the
        computation and stay in the right set.
    class_weight : dict or "balanced", optional
        Weights by class, multiplied into ``sample_weight``.

    Returns
    -------
    ExactPath

    Raises
    ------
    ParameterError
        Not a Dataset; an unknown intercept; ``C_max`` not > 0; a holdout with other d.
    SolverError
        A degenerate breakpoint that fresh solves could not settle (never seen in the
        tests; the message names the C).

    Notes
    -----
    The algorithm (Hastie, Rosset, Tibshirani & Zhu, JMLR 5, 2004, in the C form, with
    every segment solved afresh from its sets and every breakpoint certified) is in the
    module docstring and ``docs/path.md``.

    Examples
    --------
    Two points ``x = +-1`` (hand-solved): below ``C = 1/2`` both are bound SVs
    (``alpha = C``, ``w = 2C``, margins ``2C < 1``); at ``C = 1/2`` both reach the margin
    and stay there with ``alpha = 1/2``, ``w = 1``: the hard-margin solution.

    >>> from maxmargin import Dataset
    >>> ep = exact_regularization_path(Dataset([[1.0], [-1.0]], [1, -1]))
    >>> ep.breakpoints.tolist(), ep.events_at(0), ep.C_star
    ([0.5], [(0, 'L', 'E'), (1, 'L', 'E')], 0.5)
    >>> ep.coefficients(0.1)[0].tolist(), ep.coefficients(7.0)[0].tolist()
    ([0.2], [1.0])
    """
    t0 = time.perf_counter()
    if not isinstance(data, Dataset):
        raise ParameterError(f"the exact path needs a maxmargin.Dataset, got {type(data).__name__}")
    intercept = check_choice("intercept", intercept, INTERCEPTS)
    s = check_positive("intercept_scaling", intercept_scaling)
    for name, v in (("C_max", C_max), ("C_min", C_min)):
        if v is not None and not (isinstance(v, int | float) and 0 < v < math.inf):
            raise ParameterError(
                f"{name} must be a finite number > 0 (or None: the whole path), got {v!r}"
            )
    if C_min is not None and C_max is not None and not C_min < C_max:
        raise ParameterError(f"C_min must be < C_max, got {C_min!r} and {C_max!r}")
    if holdout is not None:
        if not isinstance(holdout, Dataset):
            raise ParameterError(f"holdout must be a Dataset, got {type(holdout).__name__}")
        if holdout.d != data.d:
            raise ParameterError(
                f"holdout has {holdout.d} features, the data {data.d}; they must match"
            )
    tol = 1e-6 if tol is None else check_positive("tol", tol)
    weights, _ = combine_weights(data, sample_weight, class_weight)
    keep = None if weights is None or weights.all() else np.flatnonzero(weights > 0)
    with _single_blas_thread():
        if keep is None:
            geo = _Geometry(data, intercept, s, weights)
        else:  # weight 0: not in the path at all
            geo = _Geometry(data.subset(keep), intercept, s, weights[keep])  # type: ignore[index]
        tracer = _Tracer(geo, solver, tol)
        cmax = math.inf if C_max is None else float(C_max) * geo.cscale
        cmin = 0.0 if C_min is None else float(C_min) * geo.cscale
        records, breaks, reason, snaps, end_cert = _trace(tracer, cmax, progress, cmin)
        ep = _assemble(
            geo,
            records,
            breaks,
            reason,
            snaps,
            holdout=holdout,
            tol=tol,
            end_certificate=end_cert,
            n_solves=tracer.n_solves,
            seconds=time.perf_counter() - t0,
        )
    if keep is not None:
        ep = _widen(ep, data, weights, keep)  # type: ignore[arg-type]
    return ep


def _widen(ep: ExactPath, data: Dataset, weights: np.ndarray, keep: np.ndarray) -> ExactPath:
    """The path traced without the examples of weight 0, on all of ``data``.

    Those examples stay in the right set (``alpha_i = 0``). The certificates carry over as
    they are: an example with ``alpha_i = 0`` and ``C_i = 0`` adds exactly 0 to every
    test.
    """
    n = data.n
    snaps = {}
    for k, st in ep.snapshots.items():
        full = np.full(n, _R, np.int8)
        full[keep] = st
        snaps[k] = full
    return dataclasses.replace(
        ep,
        elbow_index=keep[ep.elbow_index],
        event_index=keep[ep.event_index],
        n_right=ep.n_right + (n - keep.size),
        snapshots=snaps,
        data=data,
        data_name=data.name,
        n=n,
        lam=1.0 / (ep.breakpoints * n),
        weights=weights,
    )
