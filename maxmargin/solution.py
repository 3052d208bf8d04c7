"""The certified optimum of an SVMProblem: ExactSolution."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._json import json_number
from .certificate import Certificate
from .data import Dataset
from .exceptions import ParameterError
from .problem import SVMProblem


@dataclass(frozen=True, eq=False)
class ExactSolution:
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
        Indices with ``alpha > sv_tol``; ``sv_tol < alpha < C - sv_tol`` (on the margin,
        ``y f = 1``); ``alpha >= C - sv_tol`` (inside the margin or misclassified;
        always empty for hard margin). With weights, example i is judged against its
        own box: ``sv_tol s_i`` and ``C_i = C s_i`` in place of ``sv_tol`` and ``C``.
    sv_tol : float
        The support tolerance: ``1e-8 C`` after a successful polish, else ``1e-6 C``
        (hard margin: ``max alpha`` in place of C): relative, like the certificate.
    primal_objective, dual_objective, duality_gap : float
        Recomputed in numpy by the certificate (C form).
    margin : float
        ``1 / ||w~||``: the geometric margin in the space the QP sees (for
        ``augmented`` that includes the bias coordinate ``b/s``; for free/none it is
        ``1/||w||``). ``inf`` when ``w~ = 0``. Also :attr:`geometric_margin` (the name
        that says which margin it is; ``docs/numbers.md``).
    certificate : Certificate
    status : str
        ``"optimal"`` (solver converged and certificate ok), ``"optimal_inaccurate"``
        (the solver reported trouble but the certificate proves optimality), or
        ``"uncertified"`` (the certificate failed, or double precision cannot decide
        it: see ``certificate.undecided``; a warning was issued).
    solver, interface, form : str
    solve_seconds : float
        Wall time of build + solve + polish + certificate.
    polished : bool
        Whether the active-set polish produced the reported point.
    problem : SVMProblem

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem, solve
    >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
    >>> round(sol.margin, 12), sol.support.tolist()
    (2.0, [0, 1])
    """

    w: np.ndarray
    b: float
    alpha: np.ndarray
    support: np.ndarray
    margin_support: np.ndarray
    bound_support: np.ndarray
    sv_tol: float
    primal_objective: float
    dual_objective: float
    duality_gap: float
    margin: float
    certificate: Certificate
    status: str
    solver: str
    form: str
    solve_seconds: float
    polished: bool
    problem: SVMProblem
    interface: str = "direct"

    @property
    def geometric_margin(self) -> float:
        """``1/||w~||`` in the QP's space (:attr:`margin` by its name; ``docs/numbers.md``).

        The distance from the decision hyperplane to the hyperplanes ``f = +-1`` in the
        space the regulariser measures: ``(x, s)`` for ``augmented``, ``x`` otherwise.
        """
        return self.margin

    @property
    def margin_width(self) -> float:
        """``2/||w~||``: the distance between the hyperplanes ``f = +1`` and ``f = -1`` (the
        lecture notes' ``M = 2/||w||``), in the QP's space."""
        return 2.0 * self.margin

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
        if isinstance(X, Dataset):
            X = X.X
        if not sp.issparse(X):
            X = np.asarray(X, dtype=float)
            if X.ndim == 1:
                X = X.reshape(1, -1)
        if X.shape[-1] != self.w.shape[0]:
            raise ParameterError(f"X must have {self.w.shape[0]} columns, got {X.shape[-1]}")
        return np.asarray(X @ self.w).reshape(-1) + self.b

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

    @property
    def training_error(self) -> float:
        """Fraction of training examples misclassified (``y_i f_i <= 0``)."""
        r = self.problem.margins(self.w, self.b)
        return float(np.mean(r <= 0))

    def to_dict(self) -> dict[str, Any]:
        """The JSON ``maxmargin solve --json`` writes, as plain Python types (docs/cli.md,
        "maxmargin solve", lists every key).

        Hard margin has no C: ``"C"`` is ``null`` (and ``"hard": true``, ``"lam": 0.0``).
        Other non-finite numbers (``margin`` when ``w = 0``) are the strings
        ``"inf"``/``"nan"``.

        Returns
        -------
        dict
            ``w`` (and ``feature_names``, the data's names of its entries, or None),
            ``b``, ``alpha``, the support sets, objectives, gap, ``kkt``, ``margin``,
            ``status``, ``solver``, ``form``, ``intercept``, ``C``, ``lam``,
            ``solve_seconds`` and more (see docs/cli.md).

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> d = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), C=1.0)).to_dict()
        >>> d["support"], d["intercept"], d["C"]
        ([0, 1], 'free', 1.0)
        """
        p = self.problem
        num = json_number
        return {
            "w": [float(t) for t in self.w],
            "feature_names": None if p.data.feature_names is None else list(p.data.feature_names),
            "b": float(self.b),
            "alpha": [float(t) for t in self.alpha],
            "support": [int(i) for i in self.support],
            "margin_support": [int(i) for i in self.margin_support],
            "bound_support": [int(i) for i in self.bound_support],
            "sv_tol": float(self.sv_tol),
            "primal_objective": num(self.primal_objective),
            "dual_objective": num(self.dual_objective),
            "duality_gap": num(self.duality_gap),
            "relative_gap": num(self.certificate.relative_gap),
            "kkt": {k: num(v) for k, v in self.certificate.kkt.items()},
            "floors": {k: num(v) for k, v in self.certificate.floors.items()},
            "certified": bool(self.certificate.ok),
            "undecided": self.certificate.undecided,
            "margin": num(self.margin),
            "status": self.status,
            "solver": self.solver,
            "interface": self.interface,
            "form": self.form,
            "polished": bool(self.polished),
            "intercept": p.intercept,
            "hard": bool(p.hard),
            "C": None if p.hard else float(p.C),
            "lam": float(p.lam),
            "weights": None if p.weights is None else [float(t) for t in p.weights],
            "n": int(p.n),
            "d": int(p.d),
            "training_error": self.training_error,
            "solve_seconds": float(self.solve_seconds),
        }

    def summary(self) -> str:
        """A readable multi-line report (what ``maxmargin solve`` prints).

        Returns
        -------
        str
            Objectives, gap, KKT residuals, certificate verdict, margin, support vectors,
            training error and time, one per line.

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
            reg += (f", weighted (C_i = C s_i, s_i in [{p.weights.min():.4g}, "
                    f"{p.weights.max():.4g}])")
        fl = c.floors
        kkt = "\n".join(f"    {k:<22s}{v:.3e}   (rounding bound {fl.get(k, 0.0):.1e})"
                        for k, v in c.kkt.items())
        verdict = "CERTIFIED OPTIMAL" if c.ok else "NOT CERTIFIED"
        if c.undecided:
            verdict += f" (double precision cannot decide: {c.undecided})"
        rounding = f"; rounding bound {fl.get('relative_gap', 0.0):.1e}"
        if self.duality_gap < 0 and c.gap_at_rounding:
            rounding += ": the gap is negative by rounding only, i.e. zero"
        return "\n".join([
            f"maxmargin exact solve: {p.data.name} (n={p.n}, d={p.d}), {reg}, "
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
            (f"  margin 1/||w~||   {self.margin:.12g}" if p.intercept == "augmented"
             else f"  margin 1/||w||    {self.margin:.12g}"),
            f"  b                 {self.b:.12g}",
            f"  support vectors   {len(self.support)} "
            f"(margin {len(self.margin_support)}, bound {len(self.bound_support)}; "
            f"sv_tol {self.sv_tol:.1e})",
            f"  training error    {self.training_error:.4f}",
            f"  time              {self.solve_seconds:.3f} s",
        ])

    def __repr__(self) -> str:
        return (f"ExactSolution(status={self.status!r}, P={self.primal_objective:.10g}, "
                f"gap={self.duality_gap:.2e}, certified={self.certificate.ok}, "
                f"n_sv={len(self.support)}, solver={self.solver!r}, form={self.form!r})")
