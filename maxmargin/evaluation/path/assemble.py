"""The exact path computed: the tracer run on the data, its segments assembled in user units."""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np

from ...data import Dataset
from .exact import ExactPath
from .geometry import _E, _L, _R, _Geometry
from .layout import _snapshots
from .tracer import BreakpointCertificates


def _single_blas_thread() -> Any:
    """Limit BLAS to one thread while tracing (small products: ~100x faster when busy)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a declared dependency
        from contextlib import nullcontext

        return nullcontext()
    return threadpool_limits(1, user_api="blas")


def _first_without_slack(
    geo: _Geometry,
    bounds: np.ndarray,
    w_at: np.ndarray,
    b_at: np.ndarray,
    last: np.ndarray,
    events: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> float:
    """C* of a separable path: the first breakpoint from which no example has slack.

    Not always the last: on degenerate data a bound SV can stay in L at margin 1.
    """
    ptr, index, frm = events
    problem = geo.unit  # C = 1, unweighted: only its margins are read
    st = last.copy()
    k = bounds.size - 2  # the last segment (no left example) starts at bounds[k]
    while k >= 1:
        st[index[ptr[k - 1] : ptr[k]]] = frm[ptr[k - 1] : ptr[k]]  # segment k - 1's sets
        left = np.flatnonzero(st == _L)
        r = problem.margins(w_at[k - 1], b_at[k - 1])[left]  # where segment k - 1 starts
        if left.size and (1.0 - r).max() > 1e-9:
            break
        k -= 1
    return float(bounds[k])


def _assemble(geo: _Geometry, traced: Any, **kw: Any) -> ExactPath:
    """The user-unit :class:`ExactPath` from the traced (internal) segments."""
    rec = traced.rec
    sig = math.sqrt(geo.sigma2)
    S, K = rec.nseg, rec.nbp
    n, data = geo.n_orig, geo.data
    seg_lo = rec.seg_f[:S, 0]
    bounds = np.concatenate([seg_lo, [traced.end]]) / geo.cscale
    Wl = rec.seg_w[:S] / sig
    Ws = rec.seg_wd[:S] * (sig * geo.ws)
    if geo.intercept == "augmented":
        (w_at, b_at), (w_slope, b_slope) = geo.unit.from_augmented(Wl), geo.unit.from_augmented(Ws)
    else:
        w_at, w_slope = Wl, Ws
        if geo.free:
            b_at, b_slope = rec.seg_f[:S, 1].copy(), rec.seg_f[:S, 2] * geo.cscale
        else:
            b_at, b_slope = np.zeros(S), np.zeros(S)
    # elbows, in original indices (every member of a merged group gets its share)
    sizes = np.diff(geo._members_bounds)  # examples per group
    E_all = rec.e_idx[: rec.seg_ep[S]]
    e_idx, own = geo.members(E_all)
    cE = geo.c[E_all][own]
    e_at = rec.e_a[: E_all.size][own] / (cE * geo.sigma2)
    e_sl = rec.e_ad[: E_all.size][own] / cE
    if geo.unit_w is not None:  # each member's share, in proportion to its cost
        e_at = e_at * geo.unit_w[e_idx]
        e_sl = e_sl * geo.weights[e_idx]  # type: ignore[index]
    csum = np.concatenate([[0], np.cumsum(sizes[E_all])])
    e_ptr = csum[rec.seg_ep[: S + 1]]
    # events, in original indices
    counts = np.ones(K, np.int64)
    for j, (ch, _, _) in rec.multi.items():
        counts[j] = ch.size
    gptr = np.concatenate([[0], np.cumsum(counts)])
    ev_g = np.repeat(rec.bp_ev[:K, 0], counts)
    ev_f = np.repeat(rec.bp_ev[:K, 1], counts).astype(np.int8)
    ev_t = np.repeat(rec.bp_ev[:K, 2], counts).astype(np.int8)
    for j, (ch, before, after) in rec.multi.items():
        ev_g[gptr[j] : gptr[j + 1]], ev_f[gptr[j] : gptr[j + 1]] = ch, before
        ev_t[gptr[j] : gptr[j + 1]] = after
    event_index, own = geo.members(ev_g.astype(np.int64))
    event_from, event_to = ev_f[own], ev_t[own]
    event_ptr = np.concatenate([[0], np.cumsum(sizes[ev_g])[gptr[1:] - 1]]).astype(np.int64)
    if K == 0:
        event_ptr = np.zeros(1, np.int64)
    # set sizes per segment, and the status of every few segments
    st0 = rec.initial[geo.inv].astype(np.int8)
    per_bp = np.repeat(np.arange(K), np.diff(event_ptr))
    delta = np.zeros((K + 1, 3), np.int64)
    np.add.at(delta, (per_bp + 1, event_from), -1)
    np.add.at(delta, (per_bp + 1, event_to), 1)
    delta[0] = np.bincount(st0, minlength=3)
    set_counts = np.cumsum(delta, axis=0)
    snaps = _snapshots(st0, event_ptr, event_index, event_to, S)
    snaps[S - 1] = traced.last_status[geo.inv].astype(np.int8)
    certs = BreakpointCertificates(rec.cert[:K].copy(), kw["tol"], dict(rec.full))
    method = tuple(rec.how.get(j, "event") for j in range(K))
    reason = traced.reason
    failure = None
    if reason == "end":
        separable = bool(set_counts[-1, _L] == 0)
        C_star = float(bounds[-2]) if separable and K else (0.0 if separable else math.inf)
        if separable and K > 1:
            C_star = _first_without_slack(
                geo, bounds, np.asarray(w_at), np.asarray(b_at), snaps[S - 1],
                (event_ptr, event_index, event_from),
            )  # fmt: skip
    else:
        from ...separation import is_separable

        separable = bool(is_separable(data, geo.intercept))  # (weight 0: left out before)
        C_star = math.nan if separable else math.inf
        if separable and reason in ("precision", "unsettled"):
            from .limits import hard_margin_limit

            # a failed hard-margin solve leaves C* undetermined (nan, with a warning and
            # its reason), never the traced path lost
            limit = hard_margin_limit(
                data, geo.intercept, intercept_scaling=geo.s, sample_weight=geo.weights
            )
            C_star, failure = limit.C_star, limit.failure
    first_E = rec.seg_ep[1] - rec.seg_ep[0]
    c0 = float(bounds[1]) if (first_E == 0 and K) else (math.inf if first_E == 0 else 0.0)
    if bounds[0] > 0 and first_E:
        c0 = math.nan  # the path starts past C_0 (or margin SVs exist from C = 0 on)
    bps = bounds[1:-1].copy()
    return ExactPath(
        breakpoints=bps,
        lam=1.0 / (bps * n),
        bounds=bounds,
        w_at=np.asarray(w_at, float),
        w_slope=np.asarray(w_slope, float),
        b_at=np.asarray(b_at, float),
        b_slope=np.asarray(b_slope, float),
        elbow_ptr=np.asarray(e_ptr, np.int64),
        elbow_index=e_idx,
        elbow_alpha_at=np.asarray(e_at, float),
        elbow_alpha_slope=np.asarray(e_sl, float),
        n_elbow=set_counts[:, _E],
        n_left=set_counts[:, _L],
        n_right=set_counts[:, _R],
        event_ptr=event_ptr,
        event_index=event_index,
        event_from=event_from,
        event_to=event_to,
        method=method,
        certificates=certs,
        max_residual=certs.max_residual(),
        end_reason=reason,
        end_certificate=traced.end_certificate,
        C_end=float(bounds[-1]),
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
        C_star_failure=failure,
        **kw,
    )


def _exact_path(
    data: Dataset,
    intercept: str,
    s: float,
    weights: np.ndarray | None,
    *,
    C_min: float | None,
    C_max: float | None,
    holdout: Dataset | None,
    solver: str | None,
    tol: float,
    progress: bool,
    t0: float,
) -> ExactPath:
    """Trace the exact path from ``C_min`` (None: C -> 0) to ``C_max`` (None: its end)."""
    from .events import _Tracer
    from .tracer import trace

    keep = None if weights is None or weights.all() else np.flatnonzero(weights > 0)
    with _single_blas_thread():
        if keep is None:
            geo = _Geometry(data, intercept, s, weights)
        else:  # weight 0: not in the path at all
            geo = _Geometry(data.subset(keep), intercept, s, weights[keep])  # type: ignore[index]
        tracer = _Tracer(geo, solver, tol)
        cmax = math.inf if C_max is None else float(C_max) * geo.cscale
        cmin = 0.0 if C_min is None else float(C_min) * geo.cscale
        traced = trace(tracer, cmax, progress, cmin)
        ep = _assemble(
            geo,
            traced,
            holdout=holdout,
            tol=tol,
            n_solves=tracer.n_solves,
            seconds=time.perf_counter() - t0,
        )
    if keep is not None:
        ep = _widen(ep, data, weights, keep)  # type: ignore[arg-type]
    return ep


def _widen(ep: ExactPath, data: Dataset, weights: np.ndarray, keep: np.ndarray) -> ExactPath:
    """The path traced without the examples of weight 0, on all of ``data`` (in R).

    The certificates carry over: such an example adds exactly 0 to every test.
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
