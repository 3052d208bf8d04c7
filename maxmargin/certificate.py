r"""Certify the optimality of a (w, b, alpha) triple from the data alone: Certificate.

Numpy only, so that a solution from anywhere is checked against the data, never against a
solver's status: the relative duality gap and the scaled KKT residuals, each with a
rigorous bound on its rounding (:attr:`Certificate.floors`); a test passes when ``value +
floor <= tol`` and is undecided within its floor. See ``docs/certificates.md``.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import io
from ._numerics import (
    _ETA,
    _TINY,
    _U,
    _gamma,
    _maxabs,
    _norm,
    _pow2,
    _ratio,
    _row_norms,
    _row_norms_robust,
)
from ._validation import _short, as_floats, check_positive
from .data import Dataset
from .exceptions import DataError, ParameterError
from .problem import SVMProblem

__all__ = ["Certificate", "certify", "support_sets", "DEFAULT_TOL"]

#: Default tolerance of :func:`certify` on the relative gap and every scaled KKT residual.
DEFAULT_TOL = 1e-6

_COLUMN_SCALED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _column_scaled(data: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """``(c, rc)``: power-of-two column scales and the row norms of ``X / c`` (cached, padded)."""
    out = _COLUMN_SCALED.get(data)
    if out is None:
        X = data.X
        if sp.issparse(X):
            cmax = np.asarray(abs(X).max(axis=0).toarray()).ravel()
        else:
            cmax = np.max(np.abs(X), axis=0, initial=0.0)
        c = np.array([_pow2(float(m)) for m in cmax])
        Xc = X @ sp.diags(1.0 / c) if sp.issparse(X) else X / c
        rc = _row_norms_robust(Xc) + math.sqrt(X.shape[1]) * 2.0**-511
        out = (c, rc)
        _COLUMN_SCALED[data] = out
    return out


def _dot_bounds(data: Dataset, w: np.ndarray) -> np.ndarray:
    """A bound on ``sum_j |x_ij| |w_j|`` per row: ``min(||x_i|| ||w||, ||x_i / c|| ||c w||)``.

    The column-scaled bound is the tight one on badly scaled columns.
    """
    rn = _row_norms(data)
    c, rc = _column_scaled(data)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.minimum(rn * _norm(w), rc * _norm(c * w))


def _dot_bounds_z(problem: SVMProblem, u: np.ndarray) -> np.ndarray:
    """:func:`_dot_bounds` in the space ``z_i`` of the QP (``u`` of length d')."""
    if problem.intercept != "augmented":
        return _dot_bounds(problem.data, u)
    return _dot_bounds(problem.data, u[:-1]) + problem.intercept_scaling * abs(float(u[-1]))


@dataclass(frozen=True)
class Certificate(io.Persistent):
    """A numpy-recomputed proof that ``(w, b, alpha)`` is (or is not) optimal.

    In files its fields are written by name, ``ok`` under the key ``certified``.

    Attributes
    ----------
    primal_objective : float
        ``P(w, b)`` of the C form (hard margin: ``1/2 ||w~||^2``).
    dual_objective : float
    duality_gap : float
        ``P - D`` (>= 0 up to rounding for a feasible pair).
    relative_gap : float
        ``(P - D) / P`` (``inf`` when it is not finite).
    kkt : dict of str to float
        Scaled KKT residuals by name (``docs/certificates.md``).
    tol : float
    ok : bool
        Every test, its rounding floor included, is within ``tol``.
    floors : dict of str to float
        A rigorous bound on the rounding error of each test (``"relative_gap"`` too).
    undecided : str or None
        Why double precision cannot decide the certificate; None when decided.

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem
    >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), hard=True)
    >>> c = certify(p, [1.0], 0.0, [0.5, 0.5])
    >>> c.ok, c.duality_gap, c.undecided
    (True, 0.0, None)
    >>> c.worst()
    ('stationarity', 0.0)
    """

    primal_objective: float
    dual_objective: float
    duality_gap: float
    relative_gap: float
    kkt: dict = io.persist(io.Numbers(), default_factory=dict)
    tol: float = DEFAULT_TOL
    ok: bool = io.persist(key="certified", default=False)
    floors: dict = io.persist(io.Numbers(), default_factory=dict)
    undecided: str | None = None

    def _bounds(self) -> dict[str, tuple[float, float]]:
        """``(value, floor)`` of every test: the relative gap and each KKT residual."""
        out = {"relative_gap": (abs(self.relative_gap), self.floors.get("relative_gap", 0.0))}
        for k, v in self.kkt.items():
            out[k] = (v, self.floors.get(k, 0.0))
        return out

    def is_optimal(self, eps: float | None = None) -> bool:
        """Whether every test, rounding floor included, is ``<= eps`` (default ``tol``).

        Parameters
        ----------
        eps : float, optional

        Returns
        -------
        bool
            False when a value is not finite.

        Examples
        --------
        >>> Certificate(1.0, 1.0, 0.0, 0.0, {"stationarity": 1e-8}).is_optimal(1e-6)
        True
        """
        eps = self.tol if eps is None else float(eps)
        return all(
            math.isfinite(v) and math.isfinite(f) and v + f <= eps
            for v, f in self._bounds().values()
        )

    def worst(self) -> tuple[str, float]:
        """The largest scaled KKT residual as ``(name, value)`` (ties: first in order).

        Returns
        -------
        name : str
            ``""`` when there are no residuals.
        value : float

        Examples
        --------
        >>> Certificate(1.0, 1.0, 0.0, 0.0, {"a": 1e-9, "b": 1e-3}).worst()
        ('b', 0.001)
        """
        if not self.kkt:
            return ("", 0.0)
        name = max(self.kkt, key=lambda k: self.kkt[k])
        return (name, self.kkt[name])

    def max_residual(self) -> float:
        """The largest of ``|relative_gap|`` and the KKT residuals (one number to compare).

        Returns
        -------
        float
            ``inf`` when any of them is not finite.

        Examples
        --------
        >>> Certificate(1.0, 1.0, 0.0, 1e-9, {"stationarity": 1e-7}).max_residual()
        1e-07
        """
        vals = [abs(self.relative_gap), *self.kkt.values()]
        return float(max(vals)) if all(math.isfinite(v) for v in vals) else math.inf

    def accuracy(self) -> float:
        """What the certificate proves: the largest test's value plus its rounding floor.

        Returns
        -------
        float
            ``inf`` when any value or floor is not finite.

        Examples
        --------
        >>> c = Certificate(1.0, 1.0, 0.0, 1e-9, {"stationarity": 1e-7},
        ...                 floors={"relative_gap": 1e-15, "stationarity": 1e-9})
        >>> round(c.accuracy(), 15)
        1.01e-07
        """
        vals = [v + f for v, f in self._bounds().values()]
        return float(max(vals)) if all(math.isfinite(v) for v in vals) else math.inf

    @property
    def gap_at_rounding(self) -> bool:
        """Whether ``|P - D|`` is within its rounding floor (a negative gap is then rounding)."""
        return abs(self.relative_gap) <= self.floors.get("relative_gap", 0.0)

    def __str__(self) -> str:
        kkt = ", ".join(f"{k}={v:.2e}" for k, v in self.kkt.items())
        und = f", undecided: {self.undecided}" if self.undecided else ""
        return (
            f"Certificate(ok={self.ok}, P={self.primal_objective:.12g}, "
            f"D={self.dual_objective:.12g}, rel_gap={self.relative_gap:.2e}, {kkt}{und})"
        )


def _kkt_names(problem: Any, stationarity: bool = True) -> list[str]:
    """The residuals of ``problem`` (a kernel problem's have no ``stationarity``)."""
    names = ["stationarity"] if stationarity else []
    if problem.intercept == "free":
        names.append("equality")
    names.append("dual_feasibility")
    if problem.hard:
        names.append("primal_feasibility")
    names.append("complementary_alpha")
    if getattr(problem, "squared", False):
        names.append("slack")
    elif not problem.hard:
        names.append("complementary_xi")
    return names


def _box_violation(alpha: np.ndarray, lo: np.ndarray, costs: np.ndarray) -> float:
    """``max_i max(0, -alpha_i, alpha_i - C_i) / C_i`` (``alpha_i != 0`` in a box ``{0}``: inf)."""
    viol = np.maximum(lo, alpha - costs)
    zero = costs == 0
    if zero.any():
        if np.any(alpha[zero] != 0):
            return math.inf
        viol, costs = viol[~zero], costs[~zero]
    return _maxabs(viol / costs) if viol.size else 0.0


def _fraction_of_box(alpha: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """``|C_i - alpha_i| / C_i`` per example (0 where ``C_i = 0``)."""
    out = np.zeros(alpha.shape)
    pos = costs > 0
    out[pos] = np.abs(costs[pos] - alpha[pos]) / costs[pos]
    return out


def _verdict(
    values: dict[str, float], floors: dict[str, float], tol: float
) -> tuple[bool, str | None]:
    """``(ok, undecided)`` from each test's value and rounding floor."""
    undecided = None
    for k, v in values.items():
        f = floors[k]
        if v == math.inf and f == 0.0 and k == "dual_feasibility":
            return False, None
        if not (math.isfinite(v) and math.isfinite(f)):
            # overflow (or 0/0 that cannot be scaled): nothing can be decided
            undecided = undecided or (
                f"{k} is not representable in double precision (value {v:.3g}, rounding "
                f"bound {f:.3g}); rescale the data"
            )
            continue
        if v - f > tol:
            return False, None  # provably above tol: a decided NOT CERTIFIED
        if v + f > tol and undecided is None:
            undecided = (
                f"{k} = {v:.2e} is within its rounding bound {f:.1e} of tol "
                f"{tol:.0e}: double precision cannot decide it"
            )
    return undecided is None, undecided


def margins(problem: SVMProblem, w: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """The margins ``r_i = y_i f(x_i)`` as :func:`certify` computes them, and their rounding."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        pw = _pow2(_maxabs(w))
        f = pw * np.asarray(problem.data.X @ (w / pw)).reshape(-1) + b
        d = problem.d
        e = _gamma(d + 3) * (_dot_bounds(problem.data, w) + abs(b)) + (d + 3) * _TINY * pw
    return problem.data.y * f, e


def check_tol(tol: Any) -> float:
    """``tol`` of :func:`certify` (and of the solves that certify): a finite float > 0.

    Examples
    --------
    >>> check_tol(None) == DEFAULT_TOL, check_tol(1e-6)
    (True, 1e-06)
    """
    return DEFAULT_TOL if tol is None else check_positive("tol", tol)


def certify(
    problem: SVMProblem, w: Any, b: Any, alpha: Any, *, tol: float | None = None
) -> Certificate:
    """Certify ``(w, b, alpha)`` for ``problem`` from the data alone (numpy only).

    Parameters
    ----------
    problem : SVMProblem
    w : array-like of shape (d,)
        Weights on the original features.
    b : float
        Intercept (0 for intercept ``none``; ``s * w~_{d+1}`` for ``augmented``).
    alpha : array-like of shape (n,)
        Dual multipliers (scikit-learn's ``SVC``: ``alpha[clf.support_] =
        abs(clf.dual_coef_[0])``).
    tol : float, optional
        Tolerance for ``ok`` (default :data:`DEFAULT_TOL` = 1e-6).

    Returns
    -------
    Certificate
        ``ok`` only when every test is within ``tol`` including its rounding floor
        (the tests: ``docs/certificates.md``).

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem
    >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), C=10.0)
    >>> certify(p, [1.0], 0.0, [0.5, 0.5]).ok
    True
    >>> certify(p, [0.9], 0.0, [0.5, 0.5]).ok
    False
    """
    if not isinstance(problem, SVMProblem):
        raise ParameterError(f"certify needs an SVMProblem, got {type(problem).__name__}")
    tol = check_tol(tol)
    w = as_floats("w", w)
    alpha = as_floats("alpha", alpha)
    if w.shape != (problem.d,):
        raise DataError(f"w must have shape ({problem.d},), got {w.shape}")
    if alpha.shape != (problem.n,):
        raise DataError(f"alpha must have shape ({problem.n},), got {alpha.shape}")
    b = _check_b(problem, b)

    if not (np.isfinite(w).all() and np.isfinite(alpha).all() and math.isfinite(b)):
        return _non_finite(_kkt_names(problem), tol)

    y = problem.data.y
    C = problem.C
    n = problem.n
    hard = problem.hard
    with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
        wt = problem.to_augmented(w, b)
        dz = wt.size
        # ---- decision values, slacks, and their rounding bounds (margin units)
        rn = _row_norms(problem.data)
        zn = rn if problem.intercept != "augmented" else np.hypot(rn, problem.intercept_scaling)
        slacks = _slacks(*margins(problem, w, b))
        one_minus_r, xi, exi, hinge_near, margin_near = slacks
        # ---- v = sum alpha_i y_i z_i and its rounding bound (2-norm)
        pa = _pow2(_maxabs(alpha))
        v = pa * np.asarray(((alpha / pa) * y) @ problem.Z).reshape(-1)
        abs_alpha = np.abs(alpha)
        asum = float(abs_alpha.sum())
        ev = _gamma(n + 2) * float(abs_alpha @ zn) + n * _TINY * pa
        # ---- objectives
        nwt, nv = _norm(wt), _norm(v)
        H = 0.5 * nwt * nwt
        sw = problem.weights  # None: every s_i = 1 (and the sums as before, bit for bit)
        sq = problem.squared
        loss = xi * xi if sq else xi
        S = float(loss.sum()) if sw is None else float(sw @ loss)  # sum_i s_i loss_i
        P = H if hard else H + C * S
        V2 = nv * nv
        T, eT = _diagonal(problem.costs, alpha) if sq else (0.0, 0.0)
        D = float(alpha.sum()) - 0.5 * V2 - T
        gap = P - D
        eP = _gamma(dz + 4) * H + 8 * _ETA  # _ETA: the squares may be subnormal
        if not hard:
            ex = exi * (2 * xi + exi) if sq else exi  # |xi^2 - fl(xi)^2| or |xi - fl(xi)|
            ex = ex if sw is None else sw * ex
            eP += C * (_gamma(n + 3) * S + float(ex[hinge_near].sum())) + _U * P
        # ||fl(v)||^2 - ||v||^2 = 2 fl(v).e - ||e||^2 with e = fl(v) - v, |e_j| <= gamma_{n+2}
        # sum_i |alpha_i| |z_ij|: so |fl(v).e| <= gamma_{n+2} sum_i |alpha_i| (|z_i|.|v|),
        # far below ||v|| ||e|| when v is small on the large columns
        ve = _gamma(n + 2) * float(abs_alpha @ _dot_bounds_z(problem, v))
        ve += n * _TINY * pa * math.sqrt(dz) * nv
        eD = (
            _gamma(n + 1) * asum
            + min(nv * ev, ve)
            + 0.5 * ev * ev
            + _gamma(dz + 4) * V2
            + _U * abs(D)
            + 8 * _ETA
            + eT
        )
        egap = eP + eD + _U * abs(gap)
        rel = _ratio(gap, P) if gap >= 0 else -_ratio(-gap, P)
        # P's own error can shrink the denominator: (|gap| + egap) / (P - eP) - |rel|
        floors = {
            "relative_gap": (_ratio(abs(gap) + egap, P - eP) - abs(rel) if P > eP else math.inf)
        }
        kkt: dict[str, float] = {}
        # ---- stationarity: w~ - v in units of sqrt(2P) (the gap bounds ||w~ - w~*|| by
        # sqrt(2 (P - D)), so this is the unit in which the objective measures weights)
        num = _maxabs(wt - v)
        den = math.sqrt(2.0 * P) if P > 0 else 0.0
        kkt["stationarity"] = _ratio(num, den)
        den_lo = math.sqrt(2.0 * (P - eP)) if P > eP else 0.0
        floors["stationarity"] = (
            (_ratio(num * (1 + _U) + ev, den_lo) - kkt["stationarity"]) if (num or ev) else 0.0
        )
        _dual_residuals(kkt, floors, problem, alpha, b, slacks)
    return _certificate(P, D, gap, rel, kkt, floors, tol)


def _check_b(problem: Any, b: Any) -> float:
    """``b`` as a float (None: 0), 0 for intercept ``none``: else a MaxMarginError."""
    try:
        b = float(b if b is not None else 0.0)
    except (TypeError, ValueError, OverflowError):
        raise DataError(f"b must be a number, got {_short(b)}") from None
    if problem.intercept == "none" and b != 0.0:
        raise ParameterError(f"intercept='none' fixes b = 0; got b = {b!r}")
    return b


def _non_finite(names: list[str], tol: float) -> Certificate:
    """The certificate of a non-finite input: undefined, never zero."""
    inf = math.inf
    infs = {k: inf for k in ("relative_gap", *names)}
    return Certificate(inf, -inf, inf, inf, {k: inf for k in names}, tol, False, infs, None)


def _slacks(
    r: np.ndarray, ef: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(1 - r, xi, exi, hinge_near, margin_near)`` from the margins and their rounding."""
    one_minus_r = 1.0 - r
    exi = ef + _U * np.abs(one_minus_r)  # bound on |xi^ - xi| and on max(0, r - 1)
    # xi may be > 0 where hinge_near, r - 1 may be > 0 where margin_near
    return one_minus_r, np.maximum(0.0, one_minus_r), exi, one_minus_r > -exi, one_minus_r < exi


def _diagonal(costs: np.ndarray, alpha: np.ndarray) -> tuple[float, float]:
    """``sum_i alpha_i^2 / (4 C_i)`` (the squared hinge's dual term) and its rounding bound."""
    pos = costs > 0
    q = alpha[pos] / (2.0 * np.sqrt(costs[pos]))
    nq = _norm(q)
    T = nq * nq
    return T, _gamma(q.size + 8) * T + q.size * _ETA


def support_sets(
    problem: SVMProblem, alpha: np.ndarray, cert: Certificate, w: Any = None, b: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The support vectors of a certified point: ``(support, margin, bound, sv_tol)``.

    Read off ``alpha`` at ``tau = sqrt(kappa)``, ``kappa`` the proven accuracy clamped to
    ``[2^-52, 1e-6]``, relative to alpha's own size (``docs/formulations.md``, section 2).

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem
    >>> p = SVMProblem(Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1]), C=1e9)
    >>> alpha = np.array([0.5, 0.5, 0.0])
    >>> s, m, b, _ = support_sets(p, alpha, certify(p, [1.0], 0.0, alpha))
    >>> s.tolist(), m.tolist(), b.tolist()
    ([0, 1], [0, 1], [])
    """
    alpha = np.asarray(alpha, dtype=float)
    kappa = cert.accuracy()
    kappa = min(max(kappa, 2.0**-52), 1e-6) if math.isfinite(kappa) else 1e-6
    tau = math.sqrt(kappa)
    amax = float(alpha.max(initial=0.0))
    if problem.hard or problem.squared:  # no box: every support vector is free
        support = np.flatnonzero(alpha > tau * amax) if amax > 0 else np.empty(0, np.int64)
        return support, support, np.empty(0, np.int64), tau * amax
    costs = problem.costs
    pos = costs > 0
    bound_mask = pos & (alpha >= (1.0 - tau) * costs)
    support_mask = pos & (alpha > tau * np.minimum(amax, costs))
    if w is not None:
        r, _ = margins(problem, np.asarray(w, dtype=float), float(b))
        free = float(alpha[pos & ~bound_mask].max(initial=0.0))
        on_margin = np.abs(r - 1.0) <= tau
        support_mask |= pos & on_margin & (alpha > tau * free)
    support = np.flatnonzero(support_mask)
    return (
        support,
        np.flatnonzero(support_mask & ~bound_mask),
        np.flatnonzero(bound_mask),
        tau * amax,
    )


def _dual_residuals(
    kkt: dict[str, float],
    floors: dict[str, float],
    problem: Any,
    alpha: np.ndarray,
    b: float,
    slacks: tuple[np.ndarray, ...],
) -> None:
    """The dual side's residuals and floors into ``kkt``, ``floors``: linear and kernel alike."""
    one_minus_r, xi, exi, hinge_near, margin_near = slacks
    free, hard, C, sw = problem.intercept == "free", problem.hard, problem.C, problem.weights
    costs, y, squared = problem.costs, problem.data.y, getattr(problem, "squared", False)
    n = alpha.size
    abs_alpha = np.abs(alpha)
    asum = float(abs_alpha.sum())
    amax = _maxabs(alpha)
    if free:
        # weak duality with sum alpha_i y_i = e != 0 only gives D <= P* + |b*| |e|:
        # the imbalance as a fraction of sum |alpha| (<= 2P), times max(1, |b|)
        bw = max(1.0, abs(b))
        kkt["equality"] = _ratio(abs(float(alpha @ y)), asum) * bw
        floors["equality"] = _gamma(n + 2) * (bw + kkt["equality"])
    lo = np.maximum(0.0, -alpha)
    if squared:
        zero = costs == 0  # weight 0: the box {0}
        off = bool(np.any(alpha[zero] != 0))
        kkt["dual_feasibility"] = math.inf if off else _ratio(_maxabs(lo), amax)
    elif hard:
        kkt["dual_feasibility"] = _ratio(_maxabs(lo), amax)
        kkt["primal_feasibility"] = float(xi.max())
        hi = float((xi + exi)[hinge_near].max()) if hinge_near.any() else 0.0
        floors["primal_feasibility"] = max(0.0, hi - kkt["primal_feasibility"])
    elif sw is None:
        hi_c = np.maximum(0.0, alpha - C)
        kkt["dual_feasibility"] = _maxabs(np.maximum(lo, hi_c)) / C
    else:
        kkt["dual_feasibility"] = _box_violation(alpha, lo, costs)
    floors["dual_feasibility"] = 2 * _U * kkt["dual_feasibility"]
    if kkt["dual_feasibility"] == math.inf and (sw is not None or squared):
        floors["dual_feasibility"] = 0.0  # exactly infinite: see _box_violation
    # ---- complementarity: |alpha_i| max(0, r_i - 1) <= tol max|alpha|
    excess = np.maximum(0.0, -one_minus_r)
    kkt["complementary_alpha"] = _ratio(_maxabs(abs_alpha * excess), amax)
    hi = _maxabs((abs_alpha * (excess + exi))[margin_near]) if margin_near.any() else 0.0
    floors["complementary_alpha"] = max(
        0.0, _ratio(hi, amax) * (1 + 4 * _U) - kkt["complementary_alpha"]
    )
    if squared:
        # alpha_i = 2 C_i xi_i: the slack alpha_i implies against xi_i, in margin units
        pos = costs > 0
        q = alpha[pos] / costs[pos] / 2.0
        kkt["slack"] = _maxabs(xi[pos] - q)
        e = _maxabs(exi[pos] + 2 * _U * np.abs(q)) if q.size else 0.0
        floors["slack"] = e + 2 * _U * kkt["slack"] + 2 * _ETA
    elif not hard:
        # |C_i - alpha_i| / C_i: a fraction of the example's own box (weight 0 with
        # alpha_i = 0: the example does not count, 0)
        slack_w = np.abs(C - alpha) / C if sw is None else _fraction_of_box(alpha, costs)
        kkt["complementary_xi"] = _maxabs(slack_w * xi)
        hi = _maxabs((slack_w * (xi + exi))[hinge_near]) if hinge_near.any() else 0.0
        floors["complementary_xi"] = max(0.0, hi * (1 + 4 * _U) - kkt["complementary_xi"])


def _certificate(
    P: float,
    D: float,
    gap: float,
    rel: float,
    kkt: dict[str, float],
    floors: dict[str, float],
    tol: float,
) -> Certificate:
    """The verdict on the residuals against ``tol`` (non-finite residuals read as inf)."""
    kkt = {k: (x if math.isfinite(x) else math.inf) for k, x in kkt.items()}
    floors = {k: (x if math.isfinite(x) else math.inf) for k, x in floors.items()}
    values = {"relative_gap": abs(rel), **kkt}
    ok, undecided = _verdict(values, floors, tol)
    return Certificate(float(P), float(D), float(gap), float(rel), kkt, tol, ok, floors, undecided)
