"""Certificates: optimality of a (w, b, alpha) triple, and non-separability of data.

Numpy only, so that anyone can check a solution that came from anywhere (maxmargin's
own solver, scikit-learn, an online learner) against the data alone. Nothing here
trusts a solver's status.

Optimality (DESIGN section 1). With ``z_i`` the features the QP sees (``x_i``, or
``(x_i, s)`` for the ``augmented`` intercept), ``w~`` the weights in that space,
``f_i = w.x_i + b``, ``r_i = y_i f_i`` and ``xi_i = max(0, 1 - r_i)``:

.. math::

    P &= \\tfrac12 \\|\\tilde w\\|^2 + C \\sum_i \\xi_i, \\qquad
    D = \\sum_i \\alpha_i - \\tfrac12 \\|\\textstyle\\sum_i \\alpha_i y_i z_i\\|^2 \\\\
    \\text{gap} &= P - D, \\qquad \\text{relative gap} = (P - D) / \\max(1, |P|)

and the KKT residuals (each the max-abs over its entries, then divided by a scale so a
single tolerance is meaningful whatever the units of the data):

=======================  =========================================  ======================
name                     entries                                    divided by
=======================  =========================================  ======================
``stationarity``         ``w~ - sum_i alpha_i y_i z_i``             ``max(1, ||w~||)``
``equality``             ``sum_i alpha_i y_i`` (free only)          ``max(1, max alpha)``
``dual_feasibility``     ``max(0, -alpha_i, alpha_i - C)``          ``max(1, C)`` (hard:
                                                                    ``max(1, max alpha)``)
``primal_feasibility``   ``max(0, 1 - r_i)`` (hard margin only)     1 (margin units)
``complementary_alpha``  ``alpha_i (r_i - 1 + xi_i)``               ``max(1, max alpha)``
``complementary_xi``     ``(C - alpha_i) xi_i`` (soft margin only)  ``max(1, C)``
=======================  =========================================  ======================

Why these scales: ``r_i`` and ``xi_i`` are already in margin units (1 is the margin),
so a complementarity product divided by the size of the multipliers is again in margin
units; stationarity compares two weight vectors, so it is relative to their size. The
``max(1, .)`` keeps tiny problems from dividing by nearly zero. Residuals that do not
apply to the problem (the equality for ``none``/``augmented``, ``complementary_xi`` for
hard margin, ...) are left out of the dict; a residual that cannot be computed (a
non-finite input) is ``inf``, never 0.

Non-separability (hard margin infeasible): a vector ``z`` with ``z >= 0``,
``sum z = 1``, ``sum z_i y_i = 0`` (not for intercept ``none``) and
``sum z_i y_i x_i = 0``: the two classes' convex hulls (cones, for ``none``) share a
point, so no hyperplane separates them (Farkas' lemma).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .exceptions import DataError, ParameterError
from .problem import SVMProblem

__all__ = [
    "Certificate",
    "SeparationCertificate",
    "certify",
    "verify_separation",
    "DEFAULT_TOL",
]

#: Default tolerance of :func:`certify` on the relative gap and every scaled KKT residual.
DEFAULT_TOL = 1e-6


def _jsonable(x: float) -> float | str:
    """Floats for JSON: non-finite values as the strings "inf"/"-inf"/"nan"."""
    x = float(x)
    return x if math.isfinite(x) else str(x)


@dataclass(frozen=True)
class Certificate:
    """A numpy-recomputed proof that ``(w, b, alpha)`` is (or is not) optimal.

    Attributes
    ----------
    primal_objective : float
        ``P(w, b)`` of the C form (hard margin: ``1/2 ||w~||^2``).
    dual_objective : float
        ``D(alpha)``.
    duality_gap : float
        ``P - D`` (>= 0 up to rounding for a feasible pair).
    relative_gap : float
        ``(P - D) / max(1, |P|)``.
    kkt : dict of str to float
        Scaled KKT residuals by name (see the module docstring).
    tol : float
        The tolerance ``ok`` was judged against.
    ok : bool
        ``|relative_gap| <= tol`` and every residual ``<= tol``.

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem
    >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), hard=True)
    >>> c = certify(p, [1.0], 0.0, [0.5, 0.5])
    >>> c.ok, c.duality_gap
    (True, 0.0)
    >>> c.worst()
    ('stationarity', 0.0)
    """

    primal_objective: float
    dual_objective: float
    duality_gap: float
    relative_gap: float
    kkt: dict = field(default_factory=dict)
    tol: float = DEFAULT_TOL
    ok: bool = False

    def is_optimal(self, eps: float | None = None) -> bool:
        """Whether the relative gap and every KKT residual are ``<= eps`` (default ``tol``).

        Parameters
        ----------
        eps : float, optional
            Tolerance (default: :attr:`tol`).

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
        if not math.isfinite(self.relative_gap) or abs(self.relative_gap) > eps:
            return False
        return all(math.isfinite(v) and v <= eps for v in self.kkt.values())

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

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict (JSON-ready; non-finite numbers as strings).

        Returns
        -------
        dict
            The fields by name; ``kkt`` a dict of str to float.

        Examples
        --------
        >>> sorted(Certificate(1.0, 1.0, 0.0, 0.0, {"stationarity": 0.0}).to_dict())
        ['dual_objective', 'duality_gap', 'kkt', 'ok', 'primal_objective', 'relative_gap', 'tol']
        """
        return {
            "primal_objective": _jsonable(self.primal_objective),
            "dual_objective": _jsonable(self.dual_objective),
            "duality_gap": _jsonable(self.duality_gap),
            "relative_gap": _jsonable(self.relative_gap),
            "kkt": {k: _jsonable(v) for k, v in self.kkt.items()},
            "tol": float(self.tol),
            "ok": bool(self.ok),
        }

    def __str__(self) -> str:
        kkt = ", ".join(f"{k}={v:.2e}" for k, v in self.kkt.items())
        return (f"Certificate(ok={self.ok}, P={self.primal_objective:.12g}, "
                f"D={self.dual_objective:.12g}, rel_gap={self.relative_gap:.2e}, {kkt})")


def _kkt_names(problem: SVMProblem) -> list[str]:
    names = ["stationarity"]
    if problem.intercept == "free":
        names.append("equality")
    names.append("dual_feasibility")
    if problem.hard:
        names.append("primal_feasibility")
    names.append("complementary_alpha")
    if not problem.hard:
        names.append("complementary_xi")
    return names


def certify(problem: SVMProblem, w: Any, b: Any, alpha: Any, *,
            tol: float | None = None) -> Certificate:
    """Certify ``(w, b, alpha)`` for ``problem`` from the data alone (numpy only).

    Parameters
    ----------
    problem : SVMProblem
    w : array-like of shape (d,)
        Weights on the original features.
    b : float
        Intercept (must be 0 for intercept ``none``; for ``augmented`` it is
        ``s * w~_{d+1}``).
    alpha : array-like of shape (n,)
        Dual multipliers, one per example (zeros for non-support vectors). For
        scikit-learn's ``SVC``: ``alpha[clf.support_] = abs(clf.dual_coef_[0])``.
    tol : float, optional
        Tolerance for ``ok`` (default :data:`DEFAULT_TOL` = 1e-6).

    Returns
    -------
    Certificate

    Notes
    -----
    .. math::

        P - D \\ge 0 \\text{ for any feasible pair; } P = D \\iff \\text{both optimal.}

    See the module docstring for each KKT residual and its scale.

    Examples
    --------
    The 2-point problem ``x = +-1``: ``w = 1, b = 0, alpha = (1/2, 1/2)`` is optimal.

    >>> from maxmargin import Dataset, SVMProblem
    >>> p = SVMProblem(Dataset([[1.0], [-1.0]], [1, -1]), C=10.0)
    >>> certify(p, [1.0], 0.0, [0.5, 0.5]).ok
    True
    >>> certify(p, [0.9], 0.0, [0.5, 0.5]).ok
    False
    """
    if not isinstance(problem, SVMProblem):
        raise ParameterError(f"certify needs an SVMProblem, got {type(problem).__name__}")
    tol = DEFAULT_TOL if tol is None else float(tol)
    if not (tol > 0 and math.isfinite(tol)):
        raise ParameterError(f"tol must be a finite float > 0, got {tol!r}")
    w = np.asarray(w, dtype=float).reshape(-1)
    alpha = np.asarray(alpha, dtype=float).reshape(-1)
    if w.shape != (problem.d,):
        raise DataError(f"w must have shape ({problem.d},), got {w.shape}")
    if alpha.shape != (problem.n,):
        raise DataError(f"alpha must have shape ({problem.n},), got {alpha.shape}")
    try:
        b = float(b if b is not None else 0.0)
    except (TypeError, ValueError):
        raise DataError(f"b must be a number, got {b!r}") from None
    if problem.intercept == "none" and b != 0.0:
        raise ParameterError(f"intercept='none' fixes b = 0; got b = {b!r}")

    names = _kkt_names(problem)
    if not (np.isfinite(w).all() and np.isfinite(alpha).all() and math.isfinite(b)):
        # Undefined, not zero: nothing can be certified from non-finite numbers.
        inf = math.inf
        return Certificate(inf, -inf, inf, inf, {k: inf for k in names}, tol, False)

    y = problem.data.y
    C = problem.C
    with np.errstate(over="ignore", invalid="ignore"):
        wt = problem.to_augmented(w, b)
        r = y * problem.decision_function(w, b)
        xi = np.maximum(0.0, 1.0 - r)
        v = problem.dual_weights(alpha)
        half = 0.5 * float(wt @ wt)
        P = half if problem.hard else half + C * float(xi.sum())
        D = float(alpha.sum()) - 0.5 * float(v @ v)
        gap = P - D
        rel = gap / max(1.0, abs(P))
        amax = max(1.0, float(np.abs(alpha).max()))
        kkt: dict[str, float] = {}
        kkt["stationarity"] = float(np.abs(wt - v).max()) / max(1.0, float(np.linalg.norm(wt)))
        if problem.intercept == "free":
            kkt["equality"] = abs(float(alpha @ y)) / amax
        lo = np.maximum(0.0, -alpha)
        if problem.hard:
            kkt["dual_feasibility"] = float(lo.max()) / amax
            kkt["primal_feasibility"] = float(xi.max())
        else:
            hi = np.maximum(0.0, alpha - C)
            kkt["dual_feasibility"] = float(np.maximum(lo, hi).max()) / max(1.0, C)
        # r - 1 + xi = max(0, r - 1): zero for points on or inside the margin.
        kkt["complementary_alpha"] = float(np.abs(alpha * (r - 1.0 + xi)).max()) / amax
        if not problem.hard:
            kkt["complementary_xi"] = float(np.abs((C - alpha) * xi).max()) / max(1.0, C)
    kkt = {k: (x if math.isfinite(x) else math.inf) for k, x in kkt.items()}
    vals = [rel, *kkt.values()]
    finite = all(math.isfinite(x) for x in vals)
    cert = Certificate(float(P), float(D), float(gap), float(rel), kkt, tol, False)
    return Certificate(float(P), float(D), float(gap), float(rel), kkt, tol,
                       finite and cert.is_optimal(tol))


# --------------------------------------------------------------------------- separation


@dataclass(frozen=True)
class SeparationCertificate:
    """Proof that no hyperplane separates the data (the hard-margin QP is infeasible).

    Attributes
    ----------
    z : ndarray of shape (n,)
        Convex weights with ``sum_i z_i y_i x_i = 0`` (and ``sum_i z_i y_i = 0`` unless the
        intercept is ``none``).
    hull_point : ndarray of shape (d,) or None
        ``sum_{y_i=+1} z_i x_i / sum_{y_i=+1} z_i``: a point in both classes' convex hulls
        (None for intercept ``none``, where the cones, not the hulls, meet).
    intercept : str
        The intercept mode the certificate is for.
    residuals : dict of str to float
        ``nonnegativity`` (``max(0, -min z)``), ``simplex`` (``|sum z - 1|``), ``balance``
        (``|sum z_i y_i|``; not for ``none``), ``hull_distance``
        (``||sum z_i y_i x_i|| / max(1, R)``).
    tol : float
    verified : bool
        Every residual ``<= tol``, recomputed in numpy.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> ds = Dataset([[0.0], [0.0]], [1, -1])   # the same point with both labels
    >>> verify_separation(ds, [0.5, 0.5]).verified
    True
    """

    z: np.ndarray
    hull_point: np.ndarray | None
    intercept: str
    residuals: dict
    tol: float
    verified: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``z``, ``support`` (indices with z > 0), residuals, verified."""
        return {
            "z": [float(t) for t in self.z],
            "support": [int(i) for i in np.flatnonzero(self.z > 0)],
            "hull_point": None if self.hull_point is None
            else [float(t) for t in self.hull_point],
            "intercept": self.intercept,
            "residuals": {k: _jsonable(v) for k, v in self.residuals.items()},
            "tol": float(self.tol),
            "verified": bool(self.verified),
        }


def verify_separation(data: Any, z: Any, intercept: str = "free", *,
                      tol: float = 1e-9) -> SeparationCertificate:
    """Check a non-separability certificate ``z`` against the data (numpy only).

    Parameters
    ----------
    data : Dataset or SVMProblem
        For an ``SVMProblem`` its data and intercept mode are used. For ``augmented``
        the conditions are those of ``free`` (the bias column forces
        ``sum z_i y_i = 0``).
    z : array-like of shape (n,)
    intercept : {"free", "none", "augmented"}
    tol : float
        Tolerance on each residual (``hull_distance`` is relative to ``max(1, R)``).

    Returns
    -------
    SeparationCertificate

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> ds = Dataset([[0.0], [1.0], [0.5]], [1, 1, -1])
    >>> verify_separation(ds, [0.25, 0.25, 0.5]).verified
    True
    >>> verify_separation(ds, [0.5, 0.0, 0.5]).verified
    False
    """
    if isinstance(data, SVMProblem):
        intercept = data.intercept
        data = data.data
    if intercept not in ("free", "none", "augmented"):
        raise ParameterError(f"unknown intercept {intercept!r}; use free, none or augmented")
    z = np.asarray(z, dtype=float).reshape(-1)
    if z.shape != (data.n,):
        raise DataError(f"z must have shape ({data.n},), got {z.shape}")
    y = data.y
    res: dict[str, float] = {}
    if not np.isfinite(z).all():
        res = {k: math.inf for k in ("nonnegativity", "simplex", "balance", "hull_distance")}
        if intercept == "none":
            res.pop("balance")
        return SeparationCertificate(z, None, intercept, res, tol, False)
    res["nonnegativity"] = max(0.0, -float(z.min()))
    res["simplex"] = abs(float(z.sum()) - 1.0)
    if intercept != "none":
        res["balance"] = abs(float(z @ y))
    u = np.asarray(data.X.T @ (z * y)).reshape(-1)
    res["hull_distance"] = float(np.linalg.norm(u)) / max(1.0, data.R)
    ok = all(math.isfinite(v) and v <= tol for v in res.values())
    pos = np.flatnonzero((y > 0) & (z > 0))
    hp = None
    if intercept != "none" and z[pos].sum() > 0:
        hp = np.asarray(data.X[pos].T @ z[pos]).reshape(-1) / z[pos].sum()
    return SeparationCertificate(z, hp, intercept, res, tol, ok)
