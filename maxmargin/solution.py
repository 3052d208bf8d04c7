"""The certified optimum of an SVMProblem: ExactSolution, with or without its data.

Its file is ``maxmargin.solution/2`` (``docs/formats.md``); read with the data,
:meth:`ExactSolution.with_data` recomputes the certificate: a file is not a proof.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from . import io
from .certificate import Certificate, certify
from .data import Dataset
from .exceptions import ParameterError
from .problem import SVMProblem

__all__ = ["ExactSolution"]


def _decision(w: np.ndarray, b: float, X: Any) -> np.ndarray:
    """``X @ w + b`` for ``X`` of shape (n', d) (or one row, or a Dataset)."""
    if isinstance(X, Dataset):
        X = X.X
    if not sp.issparse(X):
        X = np.asarray(X, dtype=float)
        if X.ndim == 1:
            X = X.reshape(1, -1)
    if X.shape[-1] != w.shape[0]:
        raise ParameterError(f"X must have {w.shape[0]} columns, got {X.shape[-1]}")
    return np.asarray(X @ w).reshape(-1) + b


class CertifiedPoint:
    """The objectives of a certified solution (linear or kernel): its certificate's."""

    certificate: Certificate

    @property
    def primal_objective(self) -> float:
        """The primal objective ``P`` at the point, C form: the certificate's."""
        return self.certificate.primal_objective

    @property
    def dual_objective(self) -> float:
        """The dual objective ``D(alpha)``: the certificate's."""
        return self.certificate.dual_objective

    @property
    def duality_gap(self) -> float:
        """``P - D``: the certificate's."""
        return self.certificate.duality_gap


@dataclass(frozen=True, eq=False, kw_only=True)
class ExactSolution(CertifiedPoint, io.Persistent):
    """The certified optimum of an :class:`SVMProblem`.

    Attributes
    ----------
    w : ndarray of shape (d,)
        Weights on the original features.
    b : float
        Intercept (0 for ``none``; ``s * w~_{d+1}`` for ``augmented``).
    alpha : ndarray of shape (n,)
        Dual multipliers.
    support, margin_support, bound_support : ndarray of int
        ``alpha > 0``; on the margin (``0 < alpha < C``); at the bound (``alpha = C``; none
        for the hard margin and the squared hinge), to the accuracy the certificate proves.
    sv_tol : float
        ``tau max(alpha)``: alpha's threshold for a support vector (``docs/formulations.md``).
    primal_objective, dual_objective, duality_gap : float
        The certificate's, recomputed in numpy (C form).
    training_error : float
        Fraction of the training examples misclassified (``y_i f_i <= 0``).
    margin : float
        ``1 / ||w~||`` in the space the QP sees (``inf`` when ``w~ = 0``; see
        ``docs/formulations.md``, "Three margins").
    certificate : Certificate
        Recomputed from the data (read from a file without them: the file's word).
    status : str
        ``"optimal"``, ``"optimal_inaccurate"`` (the certificate proves what the solver
        doubted) or ``"uncertified"`` (with a warning).
    solver, interface, form : str
    solve_seconds : float
        Wall time of build + solve + polish + certificate.
    polished : bool
        Whether the active-set polish produced the reported point.
    problem : SVMProblem
        Without its data when read from a file without them.

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem, solve
    >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
    >>> round(sol.margin, 12), sol.support.tolist()
    (2.0, [0, 1])
    """

    FORMAT: ClassVar[str] = "solution"

    w: np.ndarray
    b: float
    alpha: np.ndarray = io.persist(io.Array(sparse=True))
    support: np.ndarray = io.persist(io.Array(int))
    margin_support: np.ndarray = io.persist(io.Array(int))
    bound_support: np.ndarray = io.persist(io.Array(int))
    sv_tol: float
    margin: float
    training_error: float
    certificate: Certificate = io.persist(io.Nested(Certificate), inline=True)
    status: str
    solver: str
    interface: str = "direct"
    form: str
    polished: bool
    solve_seconds: float
    problem: SVMProblem = io.persist(io.Nested(SVMProblem), inline=True)

    @property
    def geometric_margin(self) -> float:
        """``1/||w~||``, the margin in the QP's space (:attr:`margin` by its name)."""
        return self.margin

    @property
    def feature_margin(self) -> float:
        """``1/||w||``, the margin in the feature space ``x`` (the bias left out)."""
        nrm = float(np.linalg.norm(self.w))
        return 1.0 / nrm if nrm > 0 else math.inf

    @property
    def margin_width(self) -> float:
        """``2/||w||``, the lecture notes' width of the band between ``f = +1`` and ``f = -1``."""
        return 2.0 * self.feature_margin

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x) = w.x + b`` for the rows of ``X``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n', d), or Dataset
            One row of shape (d,) is accepted too.

        Returns
        -------
        ndarray of shape (n',)

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
        >>> sol.decision_function([[1.0]]).round(12).tolist()
        [0.5]
        """
        return _decision(self.w, self.b, X)

    def predict(self, X: Any) -> np.ndarray:
        """Labels ``sign(f(x))`` in {-1, +1} (``f = 0`` maps to +1).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n', d), or Dataset

        Returns
        -------
        ndarray of shape (n',)
            -1.0 or +1.0 per row.

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
        >>> sol.predict([[3.0], [-0.5]]).tolist()
        [1.0, -1.0]
        """
        return np.where(self.decision_function(X) >= 0, 1.0, -1.0)

    def with_data(self, data: Dataset, *, tol: float | None = None) -> ExactSolution:
        """The solution on ``data``, its certificate recomputed from them with numpy.

        Parameters
        ----------
        data : Dataset
            The data it was solved on, rows in the same order.
        tol : float, optional
            Tolerance of the recomputed certificate (default: the file's).

        Returns
        -------
        ExactSolution
            ``"uncertified"`` (and a RuntimeWarning) when it does not certify on ``data``.

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> data = Dataset([[2.0], [-2.0]], [1, -1])
        >>> saved = solve(SVMProblem(data, C=1.0)).without_data()
        >>> saved.predict([[3.0]]).tolist(), saved.with_data(data).certificate.ok
        ([1.0], True)
        """
        problem = self.problem.with_data(data)
        cert = certify(
            problem, self.w, self.b, self.alpha, tol=self.certificate.tol if tol is None else tol
        )
        status = recertified_status(self.status, cert, f"{data.name}: the solution")
        return dataclasses.replace(self, problem=problem, certificate=cert, status=status)

    @property
    def support_kinds(self) -> str:
        """The support vectors by kind, in words (the summary's and the reports').

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), C=1.0)).support_kinds
        'margin 2, bound 0'
        """
        if self.problem.squared:
            return "alpha > 0: inside the margin or on it, the squared hinge has no bound"
        return f"margin {len(self.margin_support)}, bound {len(self.bound_support)}"

    def summary(self) -> str:
        """A readable multi-line report (what ``maxmargin solve`` prints).

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
        >>> print(sol.summary().splitlines()[0])
        maxmargin exact solve: data (n=2, d=1), hard margin, intercept=free
        """
        p, c = self.problem, self.certificate
        reg = "hard margin" if p.hard else f"C={p.C:.6g} (lam={p.lam:.6g})"
        if p.weights is not None:
            reg += (
                f", weighted (C_i = C s_i, s_i in [{p.weights.min():.4g}, {p.weights.max():.4g}])"
            )
        if p.squared:
            reg += ", squared hinge"
        fl = c.floors
        kkt = "\n".join(
            f"    {k:<22s}{v:.3e}   (rounding bound {fl.get(k, 0.0):.1e})" for k, v in c.kkt.items()
        )
        verdict = "CERTIFIED OPTIMAL" if c.ok else "NOT CERTIFIED"
        if c.undecided:
            verdict += f" (double precision cannot decide: {c.undecided})"
        rounding = f"; rounding bound {fl.get('relative_gap', 0.0):.1e}"
        if self.duality_gap < 0 and c.gap_at_rounding:
            rounding += ": the gap is negative by rounding only, i.e. zero"
        return "\n".join(
            [
                f"maxmargin exact solve: {p.data_name} (n={p.n}, d={p.d}), {reg}, "
                f"intercept={p.intercept}",
                f"  solver            {self.solver} ({self.interface}), {self.form} form, "
                f"status {self.status}, polished={self.polished}",
                f"  primal objective  {self.primal_objective:.15g}",
                f"  dual objective    {self.dual_objective:.15g}",
                f"  duality gap       {self.duality_gap:.3e} (relative {c.relative_gap:.3e}"
                f"{rounding})",
                "  KKT residuals (scaled; see docs/certificates.md)",
                kkt,
                f"  certificate       {verdict} at tol {c.tol:.0e} (worst: {c.worst()[0]})",
                (
                    f"  margin 1/||w~||   {self.margin:.12g}"
                    if p.intercept == "augmented"
                    else f"  margin 1/||w||    {self.margin:.12g}"
                ),
                f"  b                 {self.b:.12g}",
                f"  support vectors   {len(self.support)} ({self.support_kinds}; "
                f"sv_tol {self.sv_tol:.1e})",
                f"  training error    {self.training_error:.4f}",
                f"  time              {self.solve_seconds:.3f} s",
            ]
        )

    def __repr__(self) -> str:
        return (
            f"ExactSolution(status={self.status!r}, P={self.primal_objective:.10g}, "
            f"gap={self.duality_gap:.2e}, certified={self.certificate.ok}, "
            f"n_sv={len(self.support)}, solver={self.solver!r}, form={self.form!r})"
        )


def recertified_status(status: str, cert: Any, what: str) -> str:
    """The status of a solution read from a file once ``cert`` is recomputed on its data.

    ``"uncertified"`` (with a warning) when it does not certify; ``"optimal_inaccurate"``
    when the file's was uncertified but the point certifies now; else the file's.
    """
    if not cert.ok:
        warnings.warn(
            f"{what} read from the file is NOT CERTIFIED on these data (relative gap "
            f"{cert.relative_gap:.2e}, worst KKT residual {cert.worst()[0]} = "
            f"{cert.worst()[1]:.2e}): are they the data it was solved on?",
            RuntimeWarning,
            stacklevel=3,
        )
        return "uncertified"
    return "optimal_inaccurate" if status == "uncertified" else status
