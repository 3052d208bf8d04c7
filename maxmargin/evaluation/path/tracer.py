"""The exact path's tracer: every breakpoint in C, from C -> 0 (or ``C_min``) to the end.

Generic breakpoints (one event, a well-conditioned elbow) run in the compiled loop of
:mod:`~maxmargin.evaluation.path._loop`, certified on the spot; everything else goes to
:mod:`~maxmargin.evaluation.path.events`. The method is in ``docs/path.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..._progress import Progress
from ...certificate import Certificate
from ...exceptions import SolverError
from . import events as ev

#: Every this many generic breakpoints ``g_L``, the elbow's factor and the margins are
#: recomputed from the data (the *refresh*) ...
REFRESH_EVERY = 64
#: ... and every this many refreshes the breakpoint is also certified by ``certify``.
CERTIFY_EVERY = 4
#: Row products per call of the compiled loop (~0.1 s: Ctrl-C is seen only between calls).
_BUDGET = 200_000_000


def _kernels() -> Any:
    """The compiled loop (numba is imported on first use); it has the kernels' names too."""
    from . import _loop as _path_loop

    return _path_loop


class _Recorder:
    """The traced path in internal units, in arrays that grow by doubling.

    Segment k: ``seg_f[k] = (C, b, b')`` at its lower end, ``w~``, ``w~'`` there, its
    elbow ``e_idx[seg_ep[k]:seg_ep[k + 1]]``. Breakpoint j: ``bp_f[j] = (C, residual)``,
    ``bp_ev[j] = (group, from, to)`` (several: ``multi``), ``cert[j]`` (``CERT_COLS``).
    """

    def __init__(self, dz: int) -> None:
        K = self.K = _kernels()
        cap = 256
        self.ist = np.zeros(K.NI, np.int64)  # shared with the compiled loop
        self.seg_f = np.zeros((cap, 3))
        self.seg_w = np.zeros((cap, dz))
        self.seg_wd = np.zeros((cap, dz))
        self.seg_ep = np.zeros(cap + 1, np.int64)
        self.e_idx = np.zeros(8 * cap, np.int64)
        self.e_a = np.zeros(8 * cap)
        self.e_ad = np.zeros(8 * cap)
        self.bp_f = np.zeros((cap, 2))
        self.bp_ev = np.zeros((cap, 3), np.int64)
        self.cert = np.zeros((cap, K.NC))
        self.multi: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.how: dict[int, str] = {}
        self.full: dict[int, Certificate] = {}
        self.initial = np.zeros(0, np.int8)

    @property
    def nseg(self) -> int:
        return int(self.ist[self.K.NSEG])

    @property
    def nbp(self) -> int:
        return int(self.ist[self.K.NBP])

    def reserve(self, m: int) -> None:
        """Room for at least one more segment (elbow of up to ``m``) and breakpoint."""
        K = self.K
        if self.nseg + 2 >= self.seg_f.shape[0]:
            for name in ("seg_f", "seg_w", "seg_wd", "bp_f", "bp_ev", "cert"):
                a = getattr(self, name)
                setattr(self, name, np.concatenate([a, np.zeros_like(a)]))
            self.seg_ep = np.concatenate([self.seg_ep, np.zeros(self.seg_ep.size - 1, np.int64)])
        need = int(self.ist[K.NE]) + 2 * m + 2
        if need > self.e_idx.size:
            grow = max(need, 2 * self.e_idx.size)
            for name in ("e_idx", "e_a", "e_ad"):
                a = getattr(self, name)
                setattr(self, name, np.concatenate([a, np.zeros(grow - a.size, a.dtype)]))

    def add_segment(self, seg: ev._Seg, lo: float) -> None:
        """Segment ``seg`` from ``lo`` on (its values there, its slopes, its elbow)."""
        K = self.K
        self.reserve(seg.E.size)
        k, ne, m = self.nseg, int(self.ist[K.NE]), seg.E.size
        self.seg_f[k] = (lo, seg.b(lo), seg.b1)
        self.seg_w[k], self.seg_wd[k] = seg.w(lo), seg.w1
        self.e_idx[ne : ne + m] = seg.E
        self.e_a[ne : ne + m] = seg.aE0 + (lo - seg.C0) * seg.aE1
        self.e_ad[ne : ne + m] = seg.aE1
        self.seg_ep[k + 1] = ne + m
        self.ist[K.NSEG], self.ist[K.NE] = k + 1, ne + m

    def add_breakpoint(
        self,
        C: float,
        how: str,
        cert: Certificate,
        changed: np.ndarray,
        before: np.ndarray,
        after: np.ndarray,
    ) -> None:
        """Breakpoint at ``C`` with its events, how it was found and its certificate."""
        K = self.K
        self.reserve(0)
        j = self.nbp
        self.bp_f[j] = (C, cert.max_residual())
        self.set_events(j, changed, before, after)
        if how != "event":
            self.how[j] = how
        self.set_certificate(j, cert)
        self.ist[K.NBP] = j + 1

    def set_events(
        self, j: int, changed: np.ndarray, before: np.ndarray, after: np.ndarray
    ) -> None:
        """Breakpoint j's events (several: in ``multi``)."""
        if changed.size == 1:
            self.bp_ev[j] = (changed[0], before[0], after[0])
        else:
            self.bp_ev[j] = (-1, -1, -1)
            self.multi[j] = (changed.copy(), before.copy(), after.copy())

    def set_certificate(self, j: int, cert: Certificate) -> None:
        """Breakpoint j's certificate: ``certify``'s own, kept, and its row."""
        self.full[j] = cert
        self.cert[j] = cert_row(cert)
        self.bp_f[j, 1] = cert.max_residual()

    def pop(self) -> tuple[int, int]:
        """Drop the last breakpoint and the segment after it; returns its (group, from)."""
        K = self.K
        j, k = self.nbp - 1, self.nseg - 1
        self.ist[K.NBP], self.ist[K.NSEG], self.ist[K.NE] = j, k, self.seg_ep[k]
        self.full.pop(j, None)
        return int(self.bp_ev[j, 0]), int(self.bp_ev[j, 1])

    def seg(self, k: int, st: np.ndarray) -> ev._Seg:
        """Segment k as a :class:`events._Seg` anchored at its lower end (no margins)."""
        seg = ev._Seg()
        a, b = self.seg_ep[k], self.seg_ep[k + 1]
        seg.st, seg.C0, seg.E = st, float(self.seg_f[k, 0]), self.e_idx[a:b].copy()
        seg.aE0, seg.aE1 = self.e_a[a:b].copy(), self.e_ad[a:b].copy()
        seg.w0, seg.w1 = self.seg_w[k].copy(), self.seg_wd[k].copy()
        seg.b0, seg.b1 = float(self.seg_f[k, 1]), float(self.seg_f[k, 2])
        seg.singular, seg.rcond, seg.gL, seg.prec, seg.scans = False, 1.0, None, None, {}
        return seg


def cert_row(cert: Certificate) -> np.ndarray:
    """A :class:`Certificate` as a row of ``layout.CERT_COLUMNS``."""
    K = _kernels()
    row = np.full(K.NC, np.nan)
    row[:4] = (cert.primal_objective, cert.dual_objective, cert.duality_gap, cert.relative_gap)
    for k, name in enumerate(_TESTS):
        row[4 + k] = cert.kkt.get(name, np.nan)
        if name in cert.kkt:
            row[10 + k] = cert.floors.get(name, 0.0)
    row[9] = cert.floors.get("relative_gap", 0.0)
    row[15], row[16] = float(cert.ok), float(cert.undecided is not None)
    return row


_TESTS = ("stationarity", "equality", "dual_feasibility", "complementary_alpha", "complementary_xi")


def cert_from_row(row: np.ndarray, tol: float) -> Certificate:
    """The :class:`Certificate` of a row of ``layout.CERT_COLUMNS``."""
    kkt, floors = {}, {"relative_gap": float(row[9])}
    for k, name in enumerate(_TESTS):
        if not math.isnan(row[4 + k]):
            kkt[name], floors[name] = float(row[4 + k]), float(row[10 + k])
    undecided = (
        "a test is within its rounding bound of tol: double precision cannot decide it"
        if row[16]
        else None
    )
    return Certificate(
        float(row[0]), float(row[1]), float(row[2]), float(row[3]), kkt, tol, bool(row[15]),
        floors, undecided,
    )  # fmt: skip


class BreakpointCertificates(Sequence[Certificate]):
    """The breakpoints' certificates: a sequence of :class:`Certificate`, one per breakpoint.

    Kept as one row of numbers each, the :class:`Certificate` built when asked for;
    ``ok`` is the verdicts, one bool per breakpoint.

    Examples
    --------
    >>> from maxmargin import Dataset, regularization_path
    >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
    >>> len(ep.certificates), ep.certificates[0].ok, ep.certificates.ok.tolist()
    (1, True, [True])
    """

    def __init__(self, rows: np.ndarray, tol: float, full: dict[int, Certificate]) -> None:
        self._rows, self._tol, self._full = rows, tol, full
        self.ok = rows[:, 15].astype(bool) if rows.size else np.zeros(0, bool)

    def __len__(self) -> int:
        return int(self._rows.shape[0])

    def __getitem__(self, j: Any) -> Any:
        if isinstance(j, slice):
            return [self[k] for k in range(*j.indices(len(self)))]
        j = range(len(self))[j]
        if j in self._full:
            return self._full[j]
        return cert_from_row(self._rows[j], self._tol)

    def __iter__(self) -> Iterator[Certificate]:
        return (self[j] for j in range(len(self)))

    def max_residual(self) -> np.ndarray:
        """Each certificate's largest residual (:meth:`Certificate.max_residual`)."""
        if not len(self):
            return np.zeros(0)
        vals = np.abs(self._rows[:, 3:9])
        bad = ~np.isfinite(np.where(np.isnan(vals), 0.0, vals)).all(axis=1)
        return np.where(bad, np.inf, np.nanmax(vals, axis=1))


class _Fast:
    """The compiled loop's state, and the hand-over to and from the degenerate side."""

    def __init__(self, tracer: ev._Tracer, rec: _Recorder, C_max: float, ref: float) -> None:
        K = self.K = _kernels()
        geo = self.geo = tracer.geo
        self.tracer, self.rec = tracer, rec
        G: Any = geo.G
        if sp.issparse(G):
            rows = (np.zeros((1, 1)), G.indptr.astype(np.int64), G.indices.astype(np.int64),
                    np.asarray(G.data, float))  # fmt: skip
        else:
            rows = (np.ascontiguousarray(G, float), np.zeros(1, np.int64),
                    np.zeros(1, np.int64), np.zeros(1))  # fmt: skip
        self.data = (*rows, geo.y, geo.c, geo.share)
        n, dz = geo.m, geo.dz
        self.mmax = dz + (1 if geo.free else 0)
        mm = self.mmax
        self.st, self.pos = np.zeros(n, np.int8), np.full(n, -1, np.int64)
        self.E = np.zeros(mm, np.int64)
        self.aE, self.ad, self.R = np.zeros(mm), np.zeros(mm), np.zeros((mm, mm))
        self.r, self.rd, self.ue = np.zeros(n), np.zeros(n), np.zeros(2 * mm)
        self.w, self.wd, self.gL, self.v = (np.zeros(dz) for _ in range(4))
        near, h, gLf = np.zeros(n, np.int64), np.zeros(n), np.zeros(dz)  # near and far rows
        self.state = (self.st, self.pos, self.E, self.aE, self.ad, self.R, self.r, self.rd,
                      self.ue, self.w, self.wd, self.gL, self.v, near, h, gLf)  # fmt: skip
        self.fs = np.zeros(K.NF)
        self.fs[K.TOL], self.fs[K.REANCHOR] = tracer.tol, ev.REANCHOR_TOL
        self.fs[K.CMAX], self.fs[K.REF] = C_max, ref
        ist = rec.ist
        ist[K.EVERY], ist[K.FREE], ist[K.SPARSE] = REFRESH_EVERY, geo.free, sp.issparse(G)
        ist[K.KNEAR] = min(n, max(64, n // 32))
        self.on_progress: Any = None
        self.n_fast = self.refreshes = 0
        self.budget = int(min(4096, max(16, _BUDGET // (n * dz))))  # breakpoints a call

    def fastable(self, seg: ev._Seg) -> bool:
        """Whether the compiled loop can follow ``seg`` (it needs a nonsingular elbow)."""
        m = seg.E.size
        return not seg.singular and m <= self.mmax and (m > 0 or not self.geo.free)

    def enter(self, seg: ev._Seg, lo: float, events: tuple[np.ndarray, ...] | None = None) -> int:
        """Follow the path from ``seg`` at ``lo`` with the compiled loop; its status.

        ``events``: ``lo`` is a breakpoint with these ``(changed, before, after)``.
        """
        K, rec = self.K, self.rec
        m = seg.E.size
        self.st[:] = seg.st
        self.pos[:] = -1
        self.E[:m], self.pos[seg.E] = seg.E, np.arange(m)
        self.aE[:m] = seg.aE0 + (lo - seg.C0) * seg.aE1
        self.w[:] = seg.w(lo)
        self.fs[K.B], self.fs[K.C] = seg.b(lo), lo
        rec.ist[K.M] = m
        j = rec.nbp
        status = self._run(K.START if events is None else K.START_AT_BREAKPOINT)
        if events is not None and status != K.NOFAST:
            rec.set_events(j, *events)
        return int(status)

    def _run(self, how: int) -> int:
        K, rec, geo = self.K, self.rec, self.geo
        while True:
            rec.reserve(self.mmax)
            nb0 = rec.nbp
            arrays = (rec.seg_f, rec.seg_w, rec.seg_wd, rec.seg_ep, rec.e_idx, rec.e_a,
                      rec.e_ad, rec.bp_f, rec.bp_ev, rec.cert)  # fmt: skip
            status = K.run(self.data, self.state, self.fs, rec.ist, arrays, how, self.budget)
            rec.cert[nb0 : rec.nbp, :3] /= geo.sigma2  # P, D, gap in the user's units
            self.n_fast += rec.nbp - nb0
            how = K.CONTINUE
            if self.on_progress is not None and rec.nbp > nb0:
                self.on_progress(float(rec.bp_f[rec.nbp - 1, 0]))
            if status in (K.FULL, K.BUDGET):
                continue
            if status == K.CADENCE:
                if self._cadence():
                    continue
                j, frm = rec.pop()  # certify disagrees: settle this breakpoint afresh
                rec.ist[K.AP_J], rec.ist[K.AP_FROM] = j, frm
                return int(K.REDO)
            return int(status)

    def _cadence(self) -> bool:
        """``certify`` on every CERTIFY_EVERY-th breakpoint refreshed; False: re-settle it."""
        rec = self.rec
        self.refreshes += 1
        if self.refreshes % CERTIFY_EVERY:
            return True
        j, k = rec.nbp - 1, rec.nseg - 1
        C = float(rec.seg_f[k, 0])
        cert = self.tracer.certify_at(rec.seg(k, self.st), C)
        rec.set_certificate(j, cert)
        return cert.ok and cert.max_residual() <= ev.REANCHOR_TOL

    def after(self, status: int) -> tuple[ev._Seg, float]:
        """Where the degenerate side takes over after DEGEN or REDO: (segment, its start)."""
        K, rec, fs = self.K, self.rec, self.fs
        st = self.st.copy()
        if status == K.REDO:
            st[rec.ist[K.AP_J]] = rec.ist[K.AP_FROM]
        seg = rec.seg(rec.nseg - 1, st)
        margins = np.empty((2, self.geo.m))
        for row, (w, b) in enumerate(((seg.w0, seg.b0), (seg.w1, seg.b1))):
            K.margins(self.data, int(rec.ist[K.SPARSE]), w, b, margins[row])
        seg.r0, seg.r1 = margins
        if status == K.DEGEN:  # the compiled loop's own slopes and their rounding level
            eps = np.finfo(float).eps
            seg.rcond, seg.gL = float(fs[K.RCOND]), self.gL.copy()
            seg.prec = (
                16 * eps * (float(np.linalg.norm(seg.w0)) + abs(seg.b0) + 1.0),
                float(fs[K.NOISE]),
            )
        return seg, seg.C0


@dataclass
class Traced:
    """What :func:`trace` found: the recorder and how the path ends (internal units)."""

    rec: _Recorder
    reason: str
    end: float
    end_certificate: Certificate
    last_status: np.ndarray
    n_fast: int = 0
    drift: float = 0.0


def trace(tracer: ev._Tracer, C_max: float, progress: bool, C_min: float = 0.0) -> Traced:
    """Follow the path from ``C_min`` (0: C -> 0+) up to ``C_max`` (internal units)."""
    return _Trace(tracer, C_max, C_min).run(progress)


class _Trace:
    """One trace: the compiled loop while it can, the degenerate side in between."""

    def __init__(self, tracer: ev._Tracer, C_max: float, C_min: float) -> None:
        geo = tracer.geo
        firsts, self.first_ref = tracer.start_at(C_min) if C_min > 0 else tracer.first()
        self.tracer, self.C_max = tracer, C_max
        self.rec = rec = _Recorder(geo.dz)
        self.fast = _Fast(tracer, rec, C_max, self.first_ref)
        seg, lo = firsts[0], C_min
        rec.initial = seg.st.copy()
        for p in firsts[1:]:  # found walking down from the first probe
            changed = np.flatnonzero(seg.st != p.st)
            rec.add_segment(seg, lo)
            cert = tracer.certify_at(p, p.C0)
            rec.add_breakpoint(p.C0, "event", cert, changed, seg.st[changed], p.st[changed])
            seg, lo = p, p.C0
        self.seg, self.lo = seg, lo
        self.recorded = False  # whether the segment from lo on is in the recorder
        self.status = self.fast.K.NOFAST
        self.max_breaks = 200 * geo.m + 10_000

    def run(self, progress: bool) -> Traced:
        K, fast = self.fast.K, self.fast
        log_lo = math.log10(self.first_ref)
        span = math.log10(self.C_max) - log_lo if math.isfinite(self.C_max) else 0.0
        with Progress(100.0, "exact path", enabled=progress) as bar:

            def report(C: float) -> None:
                if span > 0 and C > 0:
                    bar.update(100.0 * max(0.0, math.log10(C) - log_lo) / span - bar.done)

            fast.on_progress = report
            while True:
                if not self.recorded and fast.fastable(self.seg):
                    self.status = fast.enter(self.seg, self.lo)
                if self.status in (K.END, K.CMAX_):  # the last segment is the loop's
                    k, reason = self.rec.nseg - 1, "end" if self.status == K.END else "C_max"
                    seg = self.rec.seg(k, fast.st)
                    return self._end(reason, seg, float(self.rec.seg_f[k, 0]), fast.st.copy())
                if self.status in (K.DEGEN, K.REDO):
                    (self.seg, self.lo), self.recorded = fast.after(self.status), True
                self.status = K.NOFAST
                done = self._degenerate()
                if done is not None:
                    return done
                report(self.lo)

    def _degenerate(self) -> Traced | None:
        """One breakpoint on the degenerate side; the end of the path when it is one."""
        tracer, rec, fast, seg = self.tracer, self.rec, self.fast, self.seg
        sc = ev._scan(tracer.geo, seg, 1, seg.C0 if seg.C0 > 0 else self.first_ref)
        Cb = seg.C0 + sc.u
        if not math.isfinite(Cb) or Cb >= self.C_max:
            self._record_current()
            return self._end("C_max" if math.isfinite(Cb) else "end", seg, self.lo, seg.st)
        if rec.nbp > self.max_breaks:
            raise SolverError(
                f"exact path: more than {self.max_breaks} breakpoints; the "
                "path is not making progress (degenerate data?)"
            )
        nxt = ev._settle(tracer, seg, sc, Cb)
        if nxt is not None and fast.fastable(nxt):
            # certified by the compiled loop as it takes over (cheap); else as below
            self._record_current()
            changed = np.flatnonzero(seg.st != nxt.st)
            self.status = fast.enter(nxt, Cb, (changed, seg.st[changed], nxt.st[changed]))
            if self.status != fast.K.NOFAST:
                return None  # (the loop takes the status: self.seg is stale until then)
        try:
            pieces, how, cert = ev._next_pieces(tracer, seg, Cb, self.lo, nxt)
        except SolverError:
            # neither the event rule nor fresh solves settle Cb: stop there, and say why
            # (the path up to Cb is certified; an undecidable certificate is precision)
            self._record_current()
            end_cert = tracer.certify_at(seg, Cb)
            why = "precision" if end_cert.undecided is not None else "unsettled"
            return self._traced(why, Cb, end_cert, seg.st)
        prev, prev_lo = seg, self.lo
        for i, p in enumerate(pieces):
            Cs = Cb if i == 0 else p.C0
            changed = np.flatnonzero(prev.st != p.st)
            if changed.size:
                self.seg, self.lo = prev, prev_lo
                self._record_current()
                self.recorded = False
                pc = cert if (i == 0 and cert is not None) else tracer.certify_at(p, Cs)
                rec.add_breakpoint(Cs, how, pc, changed, prev.st[changed], p.st[changed])
                prev_lo = Cs
            prev = p
        self.seg, self.lo = prev, prev_lo
        return None

    def _record_current(self) -> None:
        if not self.recorded:
            self.rec.add_segment(self.seg, self.lo)
            self.recorded = True

    def _end(self, reason: str, seg: ev._Seg, lo: float, st: np.ndarray) -> Traced:
        """The path ending in ``seg`` (from ``lo``): ``"end"`` or ``"C_max"``."""
        end = math.inf if reason == "end" else self.C_max
        C_cert = (lo if lo > 0 else self.first_ref) if reason == "end" else end
        return self._traced(reason, end, self.tracer.certify_at(seg, C_cert), st)

    def _traced(self, reason: str, end: float, cert: Certificate, st: np.ndarray) -> Traced:
        fast = self.fast
        return Traced(self.rec, reason, end, cert, st, fast.n_fast, float(fast.fs[fast.K.DRIFT]))
