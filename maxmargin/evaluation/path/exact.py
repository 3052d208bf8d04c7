r"""The exact regularization path of the linear SVM: every breakpoint in C, certified.

An :class:`ExactPath` (what ``regularization_path(data, exact=True)`` returns; traced by
:mod:`~maxmargin.evaluation.path.tracer` after Hastie, Rosset, Tibshirani & Zhu, JMLR
2004, in the C form) holds the breakpoints, the event at each (an example moving between
the elbow E of margin SVs, the left set L with ``alpha_i = C s_i`` and the right set R
with ``alpha_i = 0``), the affine pieces between them, and each breakpoint's
certificate. :meth:`ExactPath.solution_at` reads the exact solution at any C off them and
certifies it. See ``docs/path.md``.

Its file is declared on :mod:`maxmargin.io` (``to_json``, ``from_json(source, data=None)``,
``to_csv``; the rows of the document in :mod:`~maxmargin.evaluation.path.layout`): read
without the data, it is an ExactPath whose ``data`` is None (the breakpoints, the
segments, the sets and the certificates are the file's); ``with_data(data)`` re-attaches
them and certifies every breakpoint anew.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from ... import io
from ...certificate import Certificate, certify
from ...data import Dataset
from ...exceptions import DataError, ParameterError
from ...problem import SVMProblem
from .geometry import _E, _L, _R, SET_NAMES
from .layout import CERT_COLUMNS, CSV, LAYOUT, Certificates, _replay
from .tracer import BreakpointCertificates, cert_row

__all__ = ["ExactPath", "PathPoint"]

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


@dataclass(frozen=True, eq=False, kw_only=True)
class ExactPath(io.Persistent):
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
    data, holdout : Dataset or None
        The data (kept by reference, for :meth:`solution_at` and the errors); None in a
        path read from a file without them (:meth:`with_data` gives them back).
    data_name : str
    n, d : int
    feature_names : tuple of str or None
        The data's feature names (None: the data have none).
    tol : float
        The certificates' tolerance.
    seconds : float
        Wall time of the whole computation.
    snapshots : dict of int to ndarray
        The status array (codes of :data:`SET_NAMES`, shape (n,)) of every
        ``max(64, n // 64)``-th segment and of the last (memory ``O(K + n)`` per 64
        snapshots, never ``K n``); the others are replayed from the events. A file keeps
        the first (``status_start``).
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

    Its file (``docs/formats.md``), read back without and with the data:

    >>> import io
    >>> saved = ExactPath.from_json(io.StringIO(ep.to_json()))
    >>> saved.data is None, saved.coefficients(1.0)[1] == ep.coefficients(1.0)[1]
    (True, True)
    >>> ExactPath.from_json(io.StringIO(ep.to_json()), ep.data).certified
    True
    >>> print(ep.to_csv().splitlines()[0])
    k,C,lam,index,from,to,method,certified,max_residual
    """

    FORMAT: ClassVar[str] = "exact_path"
    COMPUTED: ClassVar[tuple[str, ...]] = ("exact", "certified", "n_breakpoints")
    LAYOUT: ClassVar[io.Layout] = LAYOUT
    CSV: ClassVar[io.Table] = CSV

    data_name: str = io.persist(key="data")
    n: int
    d: int
    feature_names: tuple[str, ...] | None = None
    intercept: str
    intercept_scaling: float
    end_reason: str
    C_end: float
    C_star: float
    C_star_failure: str | None = None
    separable: bool
    min_margin_sv_C: float
    n_solves: int
    n_merged: int
    tol: float = 1e-6
    seconds: float = 0.0
    weights: np.ndarray | None = field(default=None, repr=False)
    certificates: BreakpointCertificates = io.persist(Certificates())
    end_certificate: Certificate = io.persist(io.Nested(Certificate))
    # the breakpoint and segment rows of the file (LAYOUT)
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
    max_residual: np.ndarray
    snapshots: dict = field(default_factory=dict, repr=False)
    # what needs the data: None when read from a file without them
    data: Dataset | None = io.transient()
    holdout: Dataset | None = io.transient()

    def __post_init__(self) -> None:
        if self.feature_names is None and self.data is not None:  # the data's, kept
            object.__setattr__(self, "feature_names", self.data.feature_names)

    # ------------------------------------------------------------------ basics

    def __len__(self) -> int:
        return int(self.breakpoints.size)

    @property
    def certified(self) -> bool:
        """Whether every breakpoint's certificate, and the end's, is ok."""
        return bool(self.end_certificate.ok and self.certificates.ok.all())

    @property
    def exact(self) -> bool:
        """True: the path holds every breakpoint (the ``exact`` key of its document)."""
        return True

    @property
    def n_breakpoints(self) -> int:
        """Number of breakpoints (``len(self)``)."""
        return len(self)

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
            self._need_data("solution_at"),
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
        data = self._need_data("errors on the training data") if data is None else data
        w, b = self.coefficients(np.atleast_1d(np.asarray(C, float)))
        R = (np.asarray(data.X @ w.T) + b) * data.y[:, None]
        return (R <= 0).mean(axis=0)

    # ------------------------------------------------------------------ the data

    def _need_data(self, what: str) -> Dataset:
        if self.data is None:
            raise DataError(
                f"{what} needs the data, and this exact path was read from a file without "
                "them: pass data= (ExactPath.from_json(file, data)) or call .with_data(data)"
            )
        return self.data

    def with_data(self, data: Dataset, *, holdout: Dataset | None = None) -> ExactPath:
        """The path on ``data``, every breakpoint's certificate recomputed with numpy.

        A file is not a proof: ``ExactPath.from_json(file, data)`` ends here. The solution
        at each breakpoint, read off the file's segments (:meth:`solution_at`), is
        certified anew by :func:`maxmargin.certify` on ``data``, and so is the last
        segment's (at ``C_end``, or where it starts when the path is complete): one
        :func:`~maxmargin.certify` per breakpoint, ``O(K n d)`` in all.

        Parameters
        ----------
        data : Dataset
            The data the path was computed on (the same rows in the same order).
        holdout : Dataset, optional
            Held-out data, for the figures' held-out error.

        Returns
        -------
        ExactPath
            A RuntimeWarning names the breakpoints that do not certify on ``data``.

        Raises
        ------
        DataError
            ``data`` of another shape or with other feature names, or ``holdout`` of
            another number of features.

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> data = Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1])
        >>> saved = regularization_path(data, exact=True).without_data()
        >>> saved.data is None, saved.with_data(data).certified
        (True, True)
        """
        if not isinstance(data, Dataset):
            raise ParameterError(f"data must be a maxmargin.Dataset, got {type(data).__name__}")
        names = data.feature_names
        if (data.n, data.d) != (self.n, self.d) or (
            None not in (names, self.feature_names) and names != self.feature_names
        ):
            raise DataError(
                f"the exact path is of data with n={self.n}, d={self.d}, features "
                f"{self.feature_names}; {data.name} has n={data.n}, d={data.d}, features "
                f"{names}: give the data it was computed on"
            )
        if holdout is not None and holdout.d != self.d:
            raise DataError(f"the holdout has d={holdout.d}; the path has d={self.d}")
        ep = replace(self, data=data, holdout=holdout)
        rows = np.array([cert_row(ep.solution_at(float(C)).certificate) for C in ep.breakpoints])
        certs = BreakpointCertificates(
            rows.reshape(len(self), len(CERT_COLUMNS)), self.tol, {}
        )  # O(K) memory
        top = float(self.bounds[-2]) if self.bounds[-2] > 0 else 1.0  # the last segment
        end = ep.solution_at(self.C_end if math.isfinite(self.C_end) else top).certificate
        bad = [float(C) for C, ok in zip(self.breakpoints, certs.ok, strict=True) if not ok]
        if bad or not end.ok:
            warnings.warn(
                f"{data.name}: the exact path read from the file is NOT CERTIFIED on these "
                f"data ({len(bad)} breakpoint(s), C = {bad[:3]}...; at the end: {end.ok}): "
                "are they the data it was computed on?",
                RuntimeWarning,
                stacklevel=2,
            )
        return replace(
            ep, certificates=certs, end_certificate=end, max_residual=certs.max_residual()
        )
