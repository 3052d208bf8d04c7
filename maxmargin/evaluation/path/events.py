"""Degenerate breakpoints of the exact path, settled from the sets or by fresh solves.

Candidate segments solved afresh from their sets (:func:`_segment`), their constraints
scanned (:func:`_scan`), a small search over the moves and the elbow's bases
(:meth:`_Tracer.settle`), else fresh certified solves (:meth:`_Tracer.resolve`).
See ``docs/path.md``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla

from ...certificate import Certificate, certify
from ...exceptions import SolverError
from .geometry import _E, _L, _R, _Geometry

#: Sets whose constraints are violated by more than this at a segment's start are not
#: optimal there (margin units; alpha relative to C c).
TIE_TOL = 1e-9
#: A breakpoint whose certificate's largest residual exceeds this is re-anchored by a
#: fresh certified solve.
REANCHOR_TOL = 1e-9


@dataclass(slots=True, init=False, eq=False, repr=False)
class _Seg:
    """One piece of the path in internal units: ``v(C) = v0 + (C - C0) v1``, fixed sets."""

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
    """Solve ``M X = R`` (X, singular, rcond); min-norm least squares when M is singular.

    LAPACK is called directly: the generic wrappers cost milliseconds on a loaded machine.
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
    """``g_L = sum_{i in L} c_i y_i z_i``, updated from ``base`` while few rows changed."""
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
    """The affine solution for the sets ``st`` anchored at ``C0``; None if there is none."""
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
    """``(b0, b1)`` for a free intercept with an empty elbow; None: no feasible b.

    The feasible interval of b is concave in C, so the chord from the anchor's b to where
    it collapses (the next breakpoint) stays inside.
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

    ``w~`` sums terms much larger than itself at large C: ``16 eps sqrt(sum t_k^2)``.
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
    """The next event in ``direction``: each constraint as ``h0 + u s``, ``u = |C - C0|``.

    Tolerances as in ``docs/path.md``; a tied constraint moving the wrong way is an
    *immediate* event.
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
    invalid = bool((h0 < -max(TIE_TOL, prec_r)).any())
    u = _distances(h0, s, noise_r, max(1e-12, prec_r))
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
        uE = _distances(hE, sE, noise_a, tie_a)
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


def _distances(h: np.ndarray, s: np.ndarray, noise: float, tie: float) -> np.ndarray:
    """Where each constraint ``h + u s >= 0`` moving down (``s < -noise``) reaches 0 (0: tied)."""
    u = np.full(h.size, np.inf)
    moving = s < -noise
    far = moving & (h > tie)
    u[far] = h[far] / -s[far]
    u[moving & (h <= tie)] = 0.0
    return u


def _bases(
    geo: _Geometry, st: np.ndarray, a: np.ndarray, C: float, limit: int = 8, depth: int = 0
) -> list[np.ndarray]:
    """Up to ``limit`` nonsingular elbows for a singular one (ratio tests, ``docs/path.md``)."""
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

    def probe(self, C: float) -> tuple[np.ndarray, float, np.ndarray]:
        """Sets, b and the group multipliers read off a fresh certified solve at C."""
        from ...exact import solve

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
        """Segments for the sets ``st`` at C, not invalid there (a singular elbow's bases first)."""
        geo = self.geo
        kw: dict[str, Any] = dict(direction=direction, b_anchor=b_anchor, ref=ref, base=base)
        seg = _segment(geo, st, C, **kw)
        segs = []
        if seg is not None and seg.singular and a_at is not None:
            for st2 in _bases(geo, st, a_at, C):
                s2 = _segment(geo, st2, C, **kw)
                if s2 is not None and not s2.singular:
                    segs.append(s2)
        if seg is not None:
            segs.append(seg)
        return [g for g in segs if not _scan(geo, g, direction, ref).invalid]

    def start_at(self, C: float) -> tuple[list[_Seg], float]:
        """The segment leaving C upward, from the sets of a fresh certified solve at C."""
        geo = self.geo
        st, bp, ag = self.probe(C)
        segs = self.candidates(st, C, 1, bp, C, ag, None)
        for seg in segs:
            sc = _scan(geo, seg, 1, C)
            if not sc.immediate and self.certify_at(seg, C).ok:
                return [seg], C
        for seg in segs:  # C is (numerically) a breakpoint: settle its events
            sc = _scan(geo, seg, 1, C)
            nxt = _settle(self, seg, sc, C)
            if nxt is not None and self.certify_at(nxt, C).ok:
                return [nxt], C
        raise SolverError(
            f"exact path: the active sets of the solve at C_min = "
            f"{geo.C_user(C):.6g} do not start a valid segment; try another "
            "C_min"
        )

    def first(self) -> tuple[list[_Seg], float]:
        """The first segments, from C -> 0+ up to a probe's segment, and the probe's C."""
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
        moved: frozenset[int] = frozenset(),
        visited: set[bytes] | None = None,
        depth: int = 0,
    ) -> _Seg | None:
        """The segment leaving the breakpoint ``Cb`` in ``direction``, or None.

        Searches subsets of the moves, the largest first, then the immediate events of the
        resulting sets to a small depth; a point never moves twice (``docs/path.md``).
        """
        geo = self.geo
        visited = set() if visited is None else visited
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
                out = self.settle(
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
        """Segments from ``Cb`` upward (increasing C), read off fresh solves just above ``Cb``."""
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
        """From a probe's segment, the segments down to ``Cb`` (increasing C), or None."""
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
            nxt = _settle(self, seg, sc, Cl, -1)
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


def _settle(tracer: _Tracer, seg: _Seg, sc: _Scan, Cb: float, direction: int = 1) -> _Seg | None:
    """The event rule's segment after the breakpoint ``Cb`` of ``seg`` (None: unsettled)."""
    a_at = seg.alpha(tracer.geo, Cb)
    return tracer.settle(
        seg.st, sc.groups, sc.moves, Cb, seg.b(Cb), seg.w(Cb), a_at, direction, base=seg
    )


def _next_pieces(
    tracer: _Tracer, seg: _Seg, Cb: float, lo: float, nxt: _Seg | None
) -> tuple[list[_Seg], str, Certificate | None]:
    """The segment(s) after ``Cb``, ``"event"`` or ``"solve"``, and the first's certificate.

    ``nxt`` (the event rule's) is taken when its certificate is within REANCHOR_TOL.
    """
    b_at, w_at = seg.b(Cb), seg.w(Cb)
    cert = None
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
