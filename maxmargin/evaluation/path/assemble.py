"""The exact path computed: the tracer run on the data, its segments assembled in user units.

:func:`exact_regularization_path` validates, merges duplicates and leaves out examples of
weight 0 (:class:`~maxmargin.evaluation.path.geometry._Geometry`), runs the tracer
(:mod:`~maxmargin.evaluation.path.tracer`) and assembles its internal segments into an
:class:`~maxmargin.evaluation.path.exact.ExactPath` in the data's units.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np

from ..._validation import check_choice, check_positive
from ...conventions import DEFAULT_INTERCEPT, INTERCEPTS
from ...data import Dataset
from ...exceptions import ParameterError
from ...problem import SVMProblem, combine_weights
from .exact import _SNAPSHOT_EVERY, ExactPath, _replay
from .geometry import _E, _L, _R, _Geometry
from .tracer import BreakpointCertificates

__all__ = ["exact_regularization_path"]


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


def _first_without_slack(
    geo: _Geometry,
    bounds: np.ndarray,
    w_at: np.ndarray,
    b_at: np.ndarray,
    last: np.ndarray,
    events: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> float:
    """C* of a separable path: the first breakpoint from which no example has slack.

    Usually the last breakpoint (the last bound SV reaches the margin). On degenerate data
    a bound SV can reach the margin with others and stay in L there, at margin 1 (a tie
    the event search may settle either way): the solution is the hard-margin one from
    that breakpoint on, and later breakpoints only move multipliers among tied examples.
    Walking back from the end, a segment's start counts while every left example's margin
    is 1 within 1e-9 (margin units) there.
    """
    ptr, index, frm = events
    problem = SVMProblem(
        geo.data, C=1.0, intercept=geo.intercept, intercept_scaling=geo.s, sample_weight=None
    )
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
    every = max(_SNAPSHOT_EVERY, n // 64)
    snaps = {0: st0}
    st = st0.copy()
    for k in range(every, S, every):
        _replay(
            st,
            event_index[event_ptr[k - every] : event_ptr[k]],
            event_to[event_ptr[k - every] : event_ptr[k]],
        )
        snaps[k] = st.copy()
    snaps[S - 1] = traced.last_status[geo.inv].astype(np.int8)
    rows = rec.cert[:K].copy()
    certs = BreakpointCertificates(rows, kw["tol"], dict(rec.full))
    method_list = ["event"] * K
    for j, how in rec.how.items():
        method_list[j] = how
    method = tuple(method_list)
    reason = traced.reason
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

            C_star = hard_margin_limit(
                data, geo.intercept, intercept_scaling=geo.s, sample_weight=geo.weights
            ).C_star
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
        **kw,
    )


def exact_regularization_path(
    data: Dataset,
    intercept: str = DEFAULT_INTERCEPT,
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
        breakpoint -- or to a breakpoint nothing settles: ``ExactPath.end_reason``).
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
        The first segment could not be found (a fresh solve's sets that start no valid
        segment), or the path makes no progress (more than ``200 n + 10000``
        breakpoints). A breakpoint that nothing settles ends the path instead
        (``end_reason``).

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
    from .events import _Tracer
    from .tracer import trace

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
