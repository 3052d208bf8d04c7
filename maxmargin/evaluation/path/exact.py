r"""The exact regularization path of the linear SVM: every breakpoint in C, certified.

An :class:`ExactPath` (what ``regularization_path(data, exact=True)`` returns; traced by
:mod:`~maxmargin.evaluation.path.tracer` after Hastie, Rosset, Tibshirani & Zhu, JMLR
2004, in the C form) holds the breakpoints, the event at each (an example moving between
the elbow E of margin SVs, the left set L with ``alpha_i = C s_i`` and the right set R
with ``alpha_i = 0``), the affine pieces between them, and each breakpoint's
certificate. :meth:`ExactPath.solution_at` reads the exact solution at any C off them and
certifies it. See ``docs/path.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ... import io
from ...certificate import Certificate, certify
from ...data import Dataset
from ...exceptions import ParameterError
from ...io.files import atomic_write
from ...io.json import dumps, format_header, json_number
from ...problem import SVMProblem
from .geometry import _E, _L, _R, SET_NAMES
from .saved import SavedExactPath, breakpoints_csv
from .tracer import BreakpointCertificates

__all__ = ["ExactPath", "PathPoint"]

#: Every this many segments the status array is stored (at least; the rest is replayed).
_SNAPSHOT_EVERY = 64


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, eq=False, kw_only=True)
class PathPoint(io.Persistent):
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
    >>> from maxmargin import Dataset, regularization_path
    >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
    >>> pt = ep.solution_at(0.1)
    >>> pt.w.tolist(), pt.alpha.tolist(), pt.certificate.ok
    ([0.2], [0.1, 0.1], True)
    >>> pt.to_dict()["left"]
    [0, 1]
    """

    C: float
    lam: float
    w: np.ndarray
    b: float
    alpha: np.ndarray
    elbow: np.ndarray = io.persist(io.Array(int))
    left: np.ndarray = io.persist(io.Array(int))
    right: np.ndarray = io.persist(io.Array(int))
    segment: int
    certificate: Certificate = io.persist(io.Nested(Certificate))


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
    certificates : BreakpointCertificates
        The certificate of the solution at each breakpoint (a sequence of
        :class:`~maxmargin.certificate.Certificate`; ``docs/path.md`` says what is
        checked at each breakpoint and what at the refresh cadence).
    end_certificate : Certificate
        The last segment's certificate at ``C_end`` (when finite; else at its start).
    max_residual : ndarray of shape (K,)
        Each certificate's largest residual (relative gap or scaled KKT).
    end_reason : str
        ``"end"``: no constraint binds again, the last segment is exact for every larger
        C (on separable data from ``C_star`` on, the hard-margin solution); ``"C_max"``:
        stopped at the user's ``C_max``; ``"precision"`` / ``"unsettled"``: stopped at a
        breakpoint that neither the event rule nor fresh solves could settle, whose
        certificate double precision cannot decide / can (typically features on very
        different scales; ``docs/path.md``). Then the path up to ``C_end`` is certified,
        and on separable data ``C_star`` is
        :func:`~maxmargin.evaluation.path.limits.hard_margin_limit`'s.
    C_end : float
        Where the path ends (``inf`` when ``end_reason == "end"``).
    C_star : float
        Smallest C from which the solution is the hard-margin one (``inf`` when the data
        are not separable; ``nan`` when separable but beyond a ``C_max``; from
        :func:`~maxmargin.evaluation.path.limits.hard_margin_limit` when the path stopped for
        precision).
    separable : bool
        Whether the data are separable (in the intercept's sense).
    min_margin_sv_C : float
        The first breakpoint when the first segment has no margin SV (``C_0`` of
        :func:`maxmargin.evaluation.path.limits.min_margin_sv_C`), else 0 (nan when the
        path starts at a ``C_min`` with margin SVs: C_0 is below it).
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
        The status array (codes of :data:`SET_NAMES`, shape (n,)) of every
        ``max(64, n // 64)``-th segment and of the last (memory ``O(K + n)`` per 64
        snapshots, never ``K n``); the others are replayed from the events.
    weights : ndarray of shape (n,) or None
        The example weights ``s_i`` (costs ``C_i = C s_i``); None without. Examples of
        weight 0 stay in the right set (``alpha_i = 0``) along the whole path.
    C_star_failure : str or None
        Why ``C_star`` is ``nan`` on separable data when the path stopped for precision:
        the hard-margin solve that would give it failed
        (:attr:`~maxmargin.evaluation.path.limits.HardMarginLimit.failure`); None
        otherwise.

    Examples
    --------
    >>> from maxmargin import make_separable, regularization_path
    >>> ep = regularization_path(make_separable(30, 2, seed=0), exact=True)
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
    certificates: BreakpointCertificates
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
    C_star_failure: str | None = None

    # ------------------------------------------------------------------ basics

    def __len__(self) -> int:
        return int(self.breakpoints.size)

    @property
    def certified(self) -> bool:
        """Whether every breakpoint's certificate, and the end's, is ok."""
        return bool(self.end_certificate.ok and self.certificates.ok.all())

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
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
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
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
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
        a, b = self.event_ptr[base], self.event_ptr[k]  # breakpoint j: segment j -> j + 1
        _replay(st, self.event_index[a:b], self.event_to[a:b])
        return st

    def alpha_at(self, C: float) -> np.ndarray:
        """The dual multipliers ``alpha(C)`` (exact; no solve).

        An elbow multiplier within rounding of a bound (a degenerate margin SV whose
        ``alpha_i`` is 0 or ``C s_i`` up to a few ulps) is reported at the bound: the box
        ``0 <= alpha_i <= C s_i`` holds exactly.

        Parameters
        ----------
        C : float > 0

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
        >>> ep.alpha_at(1.0).tolist()
        [0.5, 0.5]
        """
        k = self.segment_of(float(C))
        st = self._status(k)
        cap = np.full(self.n, float(C)) if self.weights is None else C * self.weights
        a = np.where(st == _L, cap, 0.0)
        i0, i1 = self.elbow_ptr[k], self.elbow_ptr[k + 1]
        t = float(C) - self.bounds[k]
        E = self.elbow_index[i0:i1]
        aE = self.elbow_alpha_at[i0:i1] + t * self.elbow_alpha_slope[i0:i1]
        a[E] = np.clip(aE, 0.0, cap[E])
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
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1]), exact=True)
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
            C=C,
            lam=1.0 / (C * self.n),
            w=np.asarray(w, float),
            b=float(b),
            alpha=alpha,
            elbow=np.flatnonzero(st == _E),
            left=np.flatnonzero(st == _L),
            right=np.flatnonzero(st == _R),
            segment=k,
            certificate=cert,
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
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
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
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
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
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0], [-0.5]], [1, -1, 1]), exact=True)
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
                    "certified": bool(self.certificates.ok[j]),
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
        >>> from maxmargin import Dataset, regularization_path
        >>> d = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True).to_dict()
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
            "C_star_failure": self.C_star_failure,
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
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
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
        :class:`~maxmargin.evaluation.path.saved.SavedExactPath` (its numbers, the events, and
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
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
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
        >>> from maxmargin import Dataset, regularization_path
        >>> ep = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), exact=True)
        >>> print(ep.to_csv().splitlines()[1])
        0,0.5,1.0,0,L,E,event,True,0
        """
        return breakpoints_csv(self._breakpoint_rows(), file)


# --------------------------------------------------------------------------- events


def _replay(st: np.ndarray, index: np.ndarray, to: np.ndarray) -> None:
    """Apply events in order to the status array ``st`` (the last one of each example wins)."""
    if index.size:
        last, first = np.unique(index[::-1], return_index=True)
        st[last] = to[::-1][first]
