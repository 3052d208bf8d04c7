"""Separability: the LP that decides it, and the certificate that the data are not separable.

``z >= 0``, ``sum z = 1``, ``sum z_i y_i = 0`` (not for intercept ``none``) and ``sum z_i
y_i x_i = 0``: the classes' convex hulls (cones, for ``none``) meet (Farkas' lemma). See
``docs/certificates.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from . import io
from ._numerics import _norm, _pow2, _radius, _ratio
from ._validation import as_floats, check_choice, check_positive
from .conventions import DEFAULT_INTERCEPT
from .data import Dataset, scale_rows
from .exceptions import DataError, NotSeparableError, ParameterError, SolverError
from .problem import SVMProblem


@dataclass(frozen=True, kw_only=True)
class SeparationCertificate(io.Persistent):
    """Proof that no hyperplane separates the data (the hard-margin QP is infeasible).

    Read back from a file without the data it is the file's word; with them
    (``from_json(doc, data)``) ``z`` is verified anew.

    Attributes
    ----------
    z : ndarray of shape (n,)
        Convex weights with ``sum_i z_i y_i x_i = 0`` (and ``sum_i z_i y_i = 0`` but for
        ``none``).
    hull_point : ndarray of shape (d,) or None
        A point in both classes' convex hulls (None for intercept ``none``).
    intercept : str
    residuals : dict of str to float
        ``nonnegativity``, ``simplex``, ``balance`` (not for ``none``) and ``hull_distance``
        (``||sum z_i y_i x_i|| / max_i ||x_i||``: invariant to scaling X).
    tol : float
    verified : bool
        Every residual ``<= tol``, recomputed in numpy.
    support : ndarray of int
        The indices with ``z_i > 0``.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> ds = Dataset([[0.0], [0.0]], [1, -1])   # the same point with both labels
    >>> verify_separation(ds, [0.5, 0.5]).verified
    True
    """

    COMPUTED: ClassVar[tuple[str, ...]] = ("support",)

    z: np.ndarray
    hull_point: np.ndarray | None
    intercept: str
    residuals: dict = io.persist(io.Numbers())
    tol: float
    verified: bool

    @property
    def support(self) -> np.ndarray:
        """The examples the certificate combines: indices with ``z_i > 0``."""
        return np.flatnonzero(self.z > 0)

    def with_data(self, data: Any) -> SeparationCertificate:
        """The certificate's ``z`` verified anew on ``data`` (:func:`verify_separation`).

        Parameters
        ----------
        data : Dataset or SVMProblem

        Returns
        -------
        SeparationCertificate

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> ds = Dataset([[0.0], [0.0]], [1, -1])
        >>> doc = verify_separation(ds, [0.5, 0.5]).to_dict()
        >>> SeparationCertificate.from_json(doc, ds).verified
        True
        """
        return verify_separation(data, self.z, self.intercept, tol=self.tol)


def verify_separation(
    data: Any, z: Any, intercept: str = DEFAULT_INTERCEPT, *, tol: float = 1e-9
) -> SeparationCertificate:
    """Check a non-separability certificate ``z`` against the data (numpy only).

    Parameters
    ----------
    data : Dataset or SVMProblem
        An ``SVMProblem`` gives its data and intercept (``augmented`` checks as ``free``).
    z : array-like of shape (n,)
    intercept : {"free", "none", "augmented"}
    tol : float
        Tolerance on each residual.

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
        data, intercept = data.data, data.intercept
    if not isinstance(intercept, str) or intercept not in ("free", "none", "augmented"):
        raise ParameterError(f"unknown intercept {intercept!r}; use free, none or augmented")
    tol = check_positive("tol", tol)
    z = as_floats("z", z)
    if z.shape != (data.n,):
        raise DataError(f"z must have shape ({data.n},), got {z.shape}")
    y = data.y
    res: dict[str, float] = {}
    if not np.isfinite(z).all():
        res = {k: math.inf for k in ("nonnegativity", "simplex", "balance", "hull_distance")}
        if intercept == "none":
            res.pop("balance")
        return SeparationCertificate(
            z=z, hull_point=None, intercept=intercept, residuals=res, tol=tol, verified=False
        )
    res["nonnegativity"] = max(0.0, -float(z.min()))
    res["simplex"] = abs(float(z.sum()) - 1.0)
    if intercept != "none":
        res["balance"] = abs(float(z @ y))
    # sum_i z_i y_i x_i (a valid z has 0 <= z_i <= 1: no product overflows)
    u = np.asarray((z * y) @ data.X).reshape(-1)
    # relative to R (0 when every x_i = 0: then any balanced z is a certificate)
    res["hull_distance"] = _ratio(_norm(u), _radius(data))
    ok = all(math.isfinite(v) and v <= tol for v in res.values())
    pos = np.flatnonzero((y > 0) & (z > 0))
    hp = None
    if intercept != "none" and z[pos].sum() > 0:
        hp = np.asarray(data.X[pos].T @ z[pos]).reshape(-1) / z[pos].sum()
    return SeparationCertificate(
        z=z, hull_point=hp, intercept=intercept, residuals=res, tol=tol, verified=ok
    )


def separation_certificate(
    data: Dataset | SVMProblem, intercept: str = DEFAULT_INTERCEPT, *, tol: float = 1e-9
) -> SeparationCertificate | None:
    """Find and verify ``z`` proving the data are not separable, or None if they are (an LP).

    Parameters
    ----------
    data : Dataset or SVMProblem
    intercept : {"free", "none", "augmented"}
        Ignored for an SVMProblem (its own mode is used).
    tol : float
        Verification tolerance.

    Returns
    -------
    SeparationCertificate or None

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> ds = Dataset([[0.0], [1.0], [0.5]], [1, 1, -1])
    >>> cert = separation_certificate(ds)
    >>> cert.verified, cert.z.round(6).tolist()
    (True, [0.25, 0.25, 0.5])
    """
    from scipy.optimize import linprog

    if isinstance(data, SVMProblem):
        intercept = data.intercept
        data = data.data
    if not isinstance(data, Dataset):
        raise ParameterError(f"expected a Dataset or SVMProblem, got {type(data).__name__}")
    check_choice("intercept", intercept, ("free", "none", "augmented"))
    y = data.y
    # R a power of two (exact): separable data scaled by 1e-12 must not look non-separable
    scale = _pow2(_radius(data))
    X = data.X / scale if scale != 1.0 else data.X
    YX = scale_rows(X, y) if data.is_sparse else X * y[:, None]
    rows = [sp.csr_matrix(YX.T)]
    if intercept != "none":
        rows.append(sp.csr_matrix(y[None, :]))
    rows.append(sp.csr_matrix(np.ones((1, data.n))))
    A = sp.vstack(rows, format="csr")
    rhs = np.zeros(A.shape[0])
    rhs[-1] = 1.0
    res = linprog(np.zeros(data.n), A_eq=A, b_eq=rhs, bounds=(0, None), method="highs")
    if res.status == 2:  # infeasible LP: the classes are separable
        return None
    if res.status != 0 or res.x is None:
        raise SolverError(
            f"separation LP failed ({res.message}); the data may be "
            "badly scaled: standardise the features and retry"
        )
    z = np.maximum(res.x, 0.0)
    cert = verify_separation(data, z, intercept, tol=tol)
    S = np.flatnonzero(z > 0)
    if S.size:
        # Clean HiGHS's 1e-9-level feasibility error: exact solve on the vertex's support.
        AS = A[:, S].toarray()
        zS = np.linalg.lstsq(AS, rhs, rcond=None)[0]
        if (zS >= 0).all():
            z2 = np.zeros(data.n)
            z2[S] = zS
            cert2 = verify_separation(data, z2, intercept, tol=tol)
            if max(cert2.residuals.values()) <= max(cert.residuals.values()):
                cert = cert2
    return cert


def is_separable(data: Dataset | SVMProblem, intercept: str = DEFAULT_INTERCEPT) -> bool:
    """Whether some hyperplane separates the classes (the LP of :func:`separation_certificate`).

    Parameters
    ----------
    data : Dataset or SVMProblem
        The examples (an SVMProblem's data and intercept mode are used).
    intercept : {"free", "none", "augmented"}
        Separable by ``w.x + b`` (free, augmented) or by ``w.x`` through the origin (none).

    Returns
    -------
    bool

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> is_separable(Dataset([[0.0], [1.0]], [-1, 1]))
    True
    >>> is_separable(Dataset([[0.0], [1.0], [0.5]], [1, 1, -1]))
    False
    """
    return separation_certificate(data, intercept) is None


def _raise_not_separable(problem: SVMProblem, how: str) -> None:
    cert = separation_certificate(problem)
    if cert is None:  # pragma: no cover - callers check first
        raise SolverError(f"hard margin reported {how} but the data are separable")
    pos = np.flatnonzero(cert.z > 0)
    msg = (
        f"{problem.data.name}: the classes are not linearly separable "
        f"(intercept={problem.intercept}): a convex combination of {pos.size} examples "
        f"lies in both classes' hulls (certificate verified={cert.verified}); "
        "use a soft margin (C or lam) instead of hard=True"
    )
    raise NotSeparableError(msg, cert)
