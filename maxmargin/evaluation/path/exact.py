r"""The exact regularization path of the linear SVM: every breakpoint in C, certified.

:class:`ExactPath` (``regularization_path(data, exact=True)``, traced by
:mod:`~maxmargin.evaluation.path.tracer`) holds the breakpoints, their events, the affine
pieces and each breakpoint's certificate. See ``docs/path.md`` and ``docs/formats.md``.
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
from .grid import _check_data, _errors
from .layout import CERT_COLUMNS, CSV, LAYOUT, Certificates, _replay
from .tracer import BreakpointCertificates, cert_row

__all__ = ["ExactPath", "PathPoint"]


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
        Margin SVs, bound SVs (``alpha_i = C``) and the rest, of the segment holding C.
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

    Segment ``k`` is ``bounds[k] < C <= bounds[k + 1]``; on it, with ``C_k = bounds[k]``,

    .. math::

        w(C) = w_k + (C - C_k) \dot w_k, \quad b(C) = b_k + (C - C_k) \dot b_k,
        \quad \alpha_i(C) = \begin{cases} C s_i & i \in L_k \\
        a_{ik} + (C - C_k) \dot a_{ik} & i \in E_k \\ 0 & i \in R_k \end{cases}

    See ``docs/path.md`` (the sets, the end reasons, what each certificate checks).

    Attributes
    ----------
    breakpoints : ndarray of shape (K,)
        The C values where a set changes, increasing.
    lam : ndarray of shape (K,)
        ``1 / (C n)`` of each breakpoint.
    bounds : ndarray of shape (K + 2,)
        ``[0 (or C_min), breakpoints..., C_end]``: the segments' ends.
    w_at, w_slope : ndarray of shape (K + 1, d)
        ``w`` at each segment's lower end and its derivative in C.
    b_at, b_slope : ndarray of shape (K + 1,)
    elbow_ptr : ndarray of shape (K + 2,)
        Segment k's elbow is ``elbow_index[elbow_ptr[k]:elbow_ptr[k + 1]]``.
    elbow_index, elbow_alpha_at, elbow_alpha_slope : ndarray
    n_elbow, n_left, n_right : ndarray of shape (K + 1,), int
        Set sizes per segment.
    event_ptr : ndarray of shape (K + 1,)
        Breakpoint j's events are ``event_index[event_ptr[j]:event_ptr[j + 1]]``.
    event_index, event_from, event_to : ndarray
        The examples and their sets before and after (codes into :data:`SET_NAMES`).
    method : tuple of str
        Per breakpoint: ``"event"`` (the event rule) or ``"solve"`` (fresh solves).
    certificates : BreakpointCertificates
        The certificate of the solution at each breakpoint.
    end_certificate : Certificate
        The last segment's certificate at ``C_end`` (when finite; else at its start).
    max_residual : ndarray of shape (K,)
        Each certificate's largest residual.
    end_reason : str
        ``"end"`` (exact for every larger C), ``"C_max"``, ``"precision"`` or
        ``"unsettled"``.
    C_end : float
        Where the path ends (``inf`` when ``end_reason == "end"``).
    C_star : float
        Smallest C from which the solution is the hard-margin one (``inf``: not
        separable; ``nan``: beyond ``C_max``).
    separable : bool
        Whether the data are separable (in the intercept's sense).
    min_margin_sv_C : float
        The first breakpoint when the first segment has no margin SV, else 0.
    n_solves : int
        Fresh certified solves used.
    n_merged : int
        Exact duplicates merged into one example.
    intercept : str
    intercept_scaling : float
    data, holdout : Dataset or None
        The data; None in a path read from a file without them.
    data_name : str
    n, d : int
    feature_names : tuple of str or None
    tol : float
        The certificates' tolerance.
    seconds : float
        Wall time of the whole computation.
    snapshots : dict of int to ndarray
        Stored status arrays of some segments; the others are replayed from the events.
    weights : ndarray of shape (n,) or None
        The example weights ``s_i`` (costs ``C_i = C s_i``); None without.
    C_star_failure : str or None
        Why ``C_star`` is ``nan`` on separable data after a stop for precision.

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
        k = np.atleast_1d(self.segment_of(C))
        t = np.asarray(C, float).ravel() - self.bounds[k]
        w = self.w_at[k] + t[:, None] * self.w_slope[k]
        b = self.b_at[k] + t * self.b_slope[k]
        if np.ndim(C) == 0:
            return w[0], float(b[0])
        return w, b

    def _status(self, k: int) -> np.ndarray:
        """Status array of segment k, replayed from the nearest stored one."""
        base = max(j for j in self.snapshots if j <= k)
        st = self.snapshots[base].copy()
        a, b = self.event_ptr[base], self.event_ptr[k]  # breakpoint j: segment j -> j + 1
        _replay(st, self.event_index[a:b], self.event_to[a:b])
        return st

    def alpha_at(self, C: float) -> np.ndarray:
        """The dual multipliers ``alpha(C)`` (exact; no solve), clipped to their box.

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
        r"""Segment k in Hastie et al.'s form: ``v / C = p + lambda q``, ``lambda = 1/C``.

        For ``v`` in ``alpha``, ``w``, ``b`` (``v(C) = v_k + (C - C_k) dv_k``),

        .. math:: p = \dot v_k, \qquad q = v_k - C_k \dot v_k.

        Parameters
        ----------
        k : int
            Segment index, ``0 <= k < n_segments``.

        Returns
        -------
        dict
            ``"alpha"``, ``"w"``, ``"b"``: their (p, q).

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

        Parameters
        ----------
        C : array-like of shape (k,)
        data : Dataset, optional
            Default: the training data.

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
        return _errors(data, *self.coefficients(np.atleast_1d(np.asarray(C, float))))

    def _need_data(self, what: str) -> Dataset:
        if self.data is None:
            raise DataError(
                f"{what} needs the data, and this exact path was read from a file without "
                "them: pass data= (ExactPath.from_json(file, data)) or call .with_data(data)"
            )
        return self.data

    def with_data(self, data: Dataset, *, holdout: Dataset | None = None) -> ExactPath:
        """The path on ``data``, every breakpoint's certificate recomputed with numpy.

        ``ExactPath.from_json(file, data)`` ends here: a file is not a proof.

        Parameters
        ----------
        data : Dataset
            The data the path was computed on (the same rows in the same order).
        holdout : Dataset, optional
            Held-out data.

        Returns
        -------
        ExactPath
            A RuntimeWarning names the breakpoints that do not certify on ``data``.

        Raises
        ------
        DataError
            ``data`` of another shape or feature names, or ``holdout`` of another d.

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> data = Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1])
        >>> saved = regularization_path(data, exact=True).without_data()
        >>> saved.data is None, saved.with_data(data).certified
        (True, True)
        """
        _check_data(self, data, holdout, "exact path")
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
