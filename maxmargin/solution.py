"""The certified optimum of an SVMProblem: ExactSolution; and SavedSolution.

SavedSolution: one read back from its JSON without the data.
"""

from __future__ import annotations

import copy
import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

import numpy as np
import scipy.sparse as sp

from ._numerics import _norm
from .certificate import DEFAULT_TOL, Certificate, certify
from .data import Dataset
from .exceptions import DataError, ParameterError
from .io.files import atomic_write
from .io.json import dumps, format_header, json_float, json_number, read_document
from .problem import SVMProblem

__all__ = ["ExactSolution", "SavedSolution"]

#: What makes a JSON without a "format" key (maxmargin 0.1) a solution.
_LEGACY_KEYS = ("w", "b", "alpha", "support", "status", "intercept", "hard", "C", "n", "d")


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
        The support vectors ``alpha > 0``; those on the margin (``0 < alpha < C``,
        ``y f = 1``); those at the bound (``alpha = C``: inside the margin or
        misclassified; always empty for hard margin), read off alpha to the accuracy
        the certificate proves (:func:`maxmargin.certificate.support_sets`).
    sv_tol : float
        ``tau max(alpha)``: alpha's threshold for a support vector, ``tau`` the square
        root of the certificate's accuracy (between 1.5e-8 and 1e-3); a bound SV has
        ``alpha_i >= (1 - tau) C_i``. Relative to alpha's own size, never to C alone.
    primal_objective, dual_objective, duality_gap : float
        Recomputed in numpy by the certificate (C form).
    margin : float
        ``1 / ||w~||``: the geometric margin in the space the QP sees (for
        ``augmented`` that includes the bias coordinate ``b/s``; for free/none it is
        ``1/||w||``). ``inf`` when ``w~ = 0``. Also :attr:`geometric_margin` (the name
        that says which margin it is); :attr:`feature_margin` ``1/||w||`` and
        :attr:`margin_width` ``2/||w||`` are the feature space's (docs/formulations.md,
        "Three margins").
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
        """``1/||w~||``, the margin in the QP's space (:attr:`margin` by its name).

        The distance from the decision hyperplane to the hyperplanes ``f = +-1`` in the
        space the regulariser measures, with ``w~ = (w, b/s)`` for ``augmented`` (the
        space ``z = (x, s)``) and ``w~ = w`` otherwise; ``inf`` when ``w~ = 0``. The
        same quantity as :attr:`RegularizationPath.geometric_margin
        <maxmargin.RegularizationPath.geometric_margin>` (docs/formulations.md, "Three
        margins").
        """
        return self.margin

    @property
    def feature_margin(self) -> float:
        """``1/||w||``, the margin in the feature space ``x`` (the bias left out).

        The distance from the decision boundary ``w.x + b = 0`` to the lines ``f = +-1``
        drawn in ``x``; equal to :attr:`geometric_margin` unless ``augmented``, where it
        is larger (``||w|| <= ||w~||``); ``inf`` when ``w = 0``. The same quantity as
        :attr:`RegularizationPath.feature_margin
        <maxmargin.RegularizationPath.feature_margin>`.
        """
        nrm = float(np.linalg.norm(self.w))
        return 1.0 / nrm if nrm > 0 else math.inf

    @property
    def margin_width(self) -> float:
        """``2/||w||``, the width of the band between ``f = +1`` and ``f = -1`` in ``x``.

        The lecture notes' ``M = 2/||w||``: twice :attr:`feature_margin`, in the feature
        space (the bias left out), as :attr:`RegularizationPath.margin_width
        <maxmargin.RegularizationPath.margin_width>`. In the QP's space the width is
        ``2 * geometric_margin`` (the same unless ``augmented``).
        """
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

    @property
    def training_error(self) -> float:
        """Fraction of training examples misclassified (``y_i f_i <= 0``)."""
        r = self.problem.margins(self.w, self.b)
        return float(np.mean(r <= 0))

    def to_dict(self) -> dict[str, Any]:
        """The JSON ``maxmargin solve --json`` writes, as plain Python types.

        docs/cli.md, "maxmargin solve", lists every key.

        Hard margin has no C: ``"C"`` is ``null`` (and ``"hard": true``, ``"lam": 0.0``).
        Infinite numbers (``margin`` when ``w = 0``) are the strings ``"inf"`` /
        ``"-inf"``; a NaN (a number not available) is ``null`` (docs/formats.md).

        Returns
        -------
        dict
            ``format`` (``"maxmargin.solution/1"``), ``maxmargin_version``, ``data`` (its
            name), ``w`` (and ``feature_names``, the data's names of its entries, or
            None), ``b``, ``alpha``, the support sets, objectives, gap, ``kkt``,
            ``margin``, ``status``, ``solver``, ``form``, ``intercept``, ``C``, ``lam``,
            ``solve_seconds``, ``intercept_scaling``, ``tol`` and more (docs/formats.md).
            :meth:`from_json` reads it back.

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> d = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), C=1.0)).to_dict()
        >>> d["format"], d["support"], d["intercept"], d["C"]
        ('maxmargin.solution/1', [0, 1], 'free', 1.0)
        """
        p = self.problem
        num = json_number
        out = {
            **format_header("solution"),
            "data": p.data.name,
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
        # what re-certifying from the file needs besides the data (docs/formats.md)
        out.update(intercept_scaling=float(p.intercept_scaling), tol=float(self.certificate.tol))
        return out

    def to_json(self, file: str | Path | None = None) -> str:
        """The :meth:`to_dict` as JSON text (what ``maxmargin solve --json`` writes).

        Parameters
        ----------
        file : str or Path, optional
            Written atomically when given.

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
        >>> sol.to_json().splitlines()[1]
        '  "format": "maxmargin.solution/1",'
        """
        text = dumps(self.to_dict(), indent=2) + "\n"
        if file is not None:
            atomic_write(file, text)
        return text

    @overload
    @classmethod
    def from_json(
        cls, source: Any, data: None = ..., *, tol: float | None = ...
    ) -> SavedSolution: ...

    @overload
    @classmethod
    def from_json(cls, source: Any, data: Dataset, *, tol: float | None = ...) -> ExactSolution: ...

    @classmethod
    def from_json(
        cls, source: Any, data: Dataset | None = None, *, tol: float | None = None
    ) -> ExactSolution | SavedSolution:
        """Read a solution written by :meth:`to_json` (or ``maxmargin solve --json``).

        A file is not a proof: with the data, the certificate is recomputed from them
        with numpy, as :func:`maxmargin.certify` does, and the result is an
        :class:`ExactSolution` again; without them, a :class:`SavedSolution` (the
        file's numbers, ``predict``, and :meth:`SavedSolution.recertify` for later).

        Parameters
        ----------
        source : str, path-like, readable file, or dict
            The JSON file (or its parsed content).
        data : Dataset, optional
            The data it was solved on (same rows, same order).
        tol : float, optional
            Tolerance of the recomputed certificate (default: the file's ``tol``).

        Returns
        -------
        ExactSolution or SavedSolution
            An ExactSolution when ``data`` is given, else a SavedSolution.

        Raises
        ------
        DataError
            Not a solution file (the message names the right loader), a format newer than
            this maxmargin reads, or ``data`` of another shape.

        Examples
        --------
        >>> import io
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> data = Dataset([[2.0], [-2.0]], [1, -1])
        >>> text = solve(SVMProblem(data, C=1.0)).to_json()
        >>> saved = ExactSolution.from_json(io.StringIO(text))
        >>> type(saved).__name__, saved.predict([[3.0]]).tolist()
        ('SavedSolution', [1.0])
        >>> again = ExactSolution.from_json(io.StringIO(text), data)
        >>> again.certificate.ok, again.to_json() == text
        (True, True)
        """
        saved = SavedSolution.from_dict(read_document(source, "solution", _LEGACY_KEYS))
        return saved if data is None else saved.recertify(data, tol=tol)

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
            reg += (
                f", weighted (C_i = C s_i, s_i in [{p.weights.min():.4g}, {p.weights.max():.4g}])"
            )
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
                (
                    f"  margin 1/||w~||   {self.margin:.12g}"
                    if p.intercept == "augmented"
                    else f"  margin 1/||w||    {self.margin:.12g}"
                ),
                f"  b                 {self.b:.12g}",
                f"  support vectors   {len(self.support)} "
                f"(margin {len(self.margin_support)}, bound {len(self.bound_support)}; "
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


def _ints(values: Any) -> np.ndarray:
    return np.asarray(values if values is not None else [], dtype=np.int64).reshape(-1)


def _alpha_of(doc: dict[str, Any], n: int) -> np.ndarray | None:
    """``alpha`` in full, or from its non-zero entries (a comparison's reference)."""
    if doc.get("alpha") is not None:
        return np.array([json_float(a) for a in doc["alpha"]], dtype=float)
    nz = doc.get("alpha_nonzero")
    if nz is None:
        return None
    alpha = np.zeros(n)
    alpha[_ints(nz["index"])] = [json_float(a) for a in nz["value"]]
    return alpha


def _certificate_of(doc: dict[str, Any]) -> Certificate:
    """The certificate as the document states it.

    A comparison's reference holds it whole under ``certificate``; a solution flat, beside the
    point.
    """
    c = doc.get("certificate") or {
        "primal_objective": doc.get("primal_objective"),
        "dual_objective": doc.get("dual_objective"),
        "duality_gap": doc.get("duality_gap"),
        "relative_gap": doc.get("relative_gap"),
        "kkt": doc.get("kkt") or {},
        "floors": doc.get("floors") or {},
        "ok": doc.get("certified", False),
        "undecided": doc.get("undecided"),
        "tol": doc.get("tol", DEFAULT_TOL),
    }
    return Certificate(
        json_float(c["primal_objective"]),
        json_float(c["dual_objective"]),
        json_float(c["duality_gap"]),
        json_float(c["relative_gap"]),
        {str(k): json_float(v) for k, v in (c.get("kkt") or {}).items()},
        json_float(c.get("tol", DEFAULT_TOL)),
        bool(c.get("ok")),
        {str(k): json_float(v) for k, v in (c.get("floors") or {}).items()},
        c.get("undecided"),
    )


@dataclass(frozen=True, eq=False)
class SavedSolution:
    """A solution read from its JSON without the data (:meth:`ExactSolution.from_json`).

    The file's numbers and arrays, as written; enough to predict (``w``, ``b``) and to
    re-certify once the data are at hand (:meth:`recertify`, which gives back the
    :class:`ExactSolution`). Its :attr:`certificate` is the file's word, not a proof:
    nothing here was recomputed.

    Attributes
    ----------
    w : ndarray of shape (d,)
    b : float
    alpha : ndarray of shape (n,) or None
        None where the file has none (a comparison written by maxmargin 0.1).
    support, margin_support, bound_support : ndarray of int
    sv_tol, margin, training_error, solve_seconds : float
    primal_objective, dual_objective, duality_gap : float
    certificate : Certificate
        As the file states it (``ok`` is the file's ``certified``).
    status, solver, interface, form : str
    polished : bool
    intercept : str
    intercept_scaling : float
        1.0 where the file does not say (maxmargin 0.1).
    hard : bool
    C, lam : float
        ``C = inf``, ``lam = 0`` for hard margin.
    n, d : int
    data_name : str or None
    feature_names : tuple of str or None
    weights : ndarray of shape (n,) or None
        The example weights ``s_i`` of the problem (costs ``C_i = C s_i``), None without.
    document : dict
        The file's content as read; :meth:`to_dict` returns a copy of it.

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem, solve
    >>> data = Dataset([[2.0], [-2.0]], [1, -1])
    >>> saved = SavedSolution.from_dict(solve(SVMProblem(data, hard=True)).to_dict())
    >>> saved.margin, saved.predict([[1.0], [-3.0]]).tolist()
    (2.0, [1.0, -1.0])
    >>> saved.recertify(data).certificate.ok
    True
    """

    w: np.ndarray
    b: float
    alpha: np.ndarray | None
    support: np.ndarray
    margin_support: np.ndarray
    bound_support: np.ndarray
    sv_tol: float
    primal_objective: float
    dual_objective: float
    duality_gap: float
    margin: float
    training_error: float
    certificate: Certificate
    status: str
    solver: str
    interface: str
    form: str
    polished: bool
    solve_seconds: float
    intercept: str
    intercept_scaling: float
    hard: bool
    C: float
    lam: float
    n: int
    d: int
    data_name: str | None
    feature_names: tuple[str, ...] | None
    weights: np.ndarray | None
    document: dict

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> SavedSolution:
        """Build from :meth:`ExactSolution.to_dict` (or a comparison's ``reference``).

        Parameters
        ----------
        doc : dict

        Returns
        -------
        SavedSolution

        Raises
        ------
        DataError
            A key is missing or holds something else than it should.

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> d = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), C=1.0)).to_dict()
        >>> SavedSolution.from_dict(d).to_dict() == d
        True
        """
        try:
            n, d = int(doc["n"]), int(doc["d"])
            hard = bool(doc["hard"])
            names = doc.get("feature_names")
            return cls(
                w=np.array([json_float(v) for v in doc["w"]], dtype=float),
                b=json_float(doc["b"]),
                alpha=_alpha_of(doc, n),
                support=_ints(doc["support"]),
                margin_support=_ints(doc.get("margin_support")),
                bound_support=_ints(doc.get("bound_support")),
                sv_tol=json_float(doc.get("sv_tol")),
                primal_objective=json_float(doc["primal_objective"]),
                dual_objective=json_float(doc["dual_objective"]),
                duality_gap=json_float(doc["duality_gap"]),
                margin=json_float(doc["margin"]),
                training_error=json_float(doc.get("training_error")),
                certificate=_certificate_of(doc),
                status=str(doc["status"]),
                solver=str(doc.get("solver")),
                interface=str(doc.get("interface", "direct")),
                form=str(doc.get("form")),
                polished=bool(doc.get("polished")),
                solve_seconds=json_float(doc.get("solve_seconds")),
                intercept=str(doc["intercept"]),
                intercept_scaling=json_float(doc.get("intercept_scaling", 1.0)),
                hard=hard,
                C=math.inf if hard else json_float(doc["C"]),
                lam=json_float(doc["lam"]),
                n=n,
                d=d,
                data_name=doc.get("data"),
                feature_names=None if names is None else tuple(map(str, names)),
                weights=None
                if doc.get("weights") is None
                else np.array([json_float(v) for v in doc["weights"]], dtype=float),
                document=copy.deepcopy(doc),
            )
        except KeyError as e:
            raise DataError(f"the solution has no {e.args[0]!r} key") from None
        except (TypeError, ValueError) as e:
            if isinstance(e, DataError):
                raise
            raise DataError(f"the solution holds a value of the wrong type ({e})") from None

    def to_dict(self) -> dict[str, Any]:
        """The document as read (a copy): what :meth:`ExactSolution.to_dict` wrote.

        Returns
        -------
        dict

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> d = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), C=1.0)).to_dict()
        >>> SavedSolution.from_dict(d).to_dict()["format"]
        'maxmargin.solution/1'
        """
        return copy.deepcopy(self.document)

    def to_json(self, file: str | Path | None = None) -> str:
        """The JSON text of :meth:`to_dict`, as :meth:`ExactSolution.to_json` writes it.

        Parameters
        ----------
        file : str or Path, optional
            Written atomically when given.

        Returns
        -------
        str

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), C=1.0))
        >>> SavedSolution.from_dict(sol.to_dict()).to_json() == sol.to_json()
        True
        """
        text = dumps(self.document, indent=2) + "\n"
        if file is not None:
            atomic_write(file, text)
        return text

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x) = w.x + b`` for the rows of ``X`` (as :meth:`ExactSolution.decision_function`).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n', d), or Dataset

        Returns
        -------
        ndarray of shape (n',)

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
        >>> SavedSolution.from_dict(sol.to_dict()).decision_function([[1.0]]).tolist()
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

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
        >>> SavedSolution.from_dict(sol.to_dict()).predict([[-1.0]]).tolist()
        [-1.0]
        """
        return np.where(self.decision_function(X) >= 0, 1.0, -1.0)

    def problem(self, data: Dataset) -> SVMProblem:
        """The problem the file states, on ``data`` (checked: same n and d, same names).

        Parameters
        ----------
        data : Dataset

        Returns
        -------
        SVMProblem

        Raises
        ------
        DataError
            ``data`` has another number of rows or columns, or other feature names.

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> data = Dataset([[2.0], [-2.0]], [1, -1])
        >>> SavedSolution.from_dict(solve(SVMProblem(data, C=2.0)).to_dict()).problem(data).C
        2.0
        """
        if not isinstance(data, Dataset):
            raise ParameterError(f"data must be a maxmargin.Dataset, got {type(data).__name__}")
        if (data.n, data.d) != (self.n, self.d):
            raise DataError(
                f"the solution is of data with n={self.n}, d={self.d}; "
                f"{data.name} has n={data.n}, d={data.d}: give the data it was "
                "solved on"
            )
        if (
            None not in (self.feature_names, data.feature_names)
            and tuple(data.feature_names or ()) != self.feature_names
        ):
            raise DataError(
                f"the solution's features are {list(self.feature_names or ())[:5]}"
                f"...; {data.name} has {list(data.feature_names or ())[:5]}..."
            )
        kw: dict[str, Any] = {"hard": True} if self.hard else {"C": self.C}
        return SVMProblem(
            data,
            intercept=self.intercept,
            intercept_scaling=self.intercept_scaling,
            sample_weight=self.weights,
            **kw,
        )

    def recertify(self, data: Dataset, *, tol: float | None = None) -> ExactSolution:
        """The :class:`ExactSolution` on ``data``, its certificate recomputed with numpy.

        Parameters
        ----------
        data : Dataset
            The data the file's solution was solved on (same rows, same order).
        tol : float, optional
            Tolerance of the certificate (default: the file's).

        Returns
        -------
        ExactSolution
            With the file's point ``(w, b, alpha)``, support sets and solver fields, the
            recomputed certificate and objectives; ``status`` ``"uncertified"`` (and a
            RuntimeWarning) when the certificate fails on ``data``.

        Raises
        ------
        DataError
            ``data`` of another shape, or a file without ``alpha``.

        Examples
        --------
        >>> from maxmargin import Dataset, SVMProblem, solve
        >>> data = Dataset([[2.0], [-2.0]], [1, -1])
        >>> saved = SavedSolution.from_dict(solve(SVMProblem(data, C=1.0)).to_dict())
        >>> sol = saved.recertify(data)
        >>> sol.certificate.ok, sol.primal_objective == saved.primal_objective
        (True, True)
        """
        problem = self.problem(data)
        if self.alpha is None:
            raise DataError(
                "the file has no alpha (a comparison written by maxmargin 0.1): "
                "it cannot be re-certified; solve the problem again"
            )
        cert = certify(
            problem, self.w, self.b, self.alpha, tol=self.certificate.tol if tol is None else tol
        )
        status = self.status
        if not cert.ok:
            status = "uncertified"
            warnings.warn(
                f"{data.name}: the solution read from the file is NOT CERTIFIED on "
                f"these data (relative gap {cert.relative_gap:.2e}, worst KKT "
                f"residual {cert.worst()[0]} = {cert.worst()[1]:.2e}): are they the "
                "data it was solved on?",
                RuntimeWarning,
                stacklevel=2,
            )
        elif status == "uncertified":
            status = "optimal_inaccurate"  # the file's solve was not certified; this is
        nrm = _norm(problem.to_augmented(self.w, self.b))  # as exact.solve computes it
        return ExactSolution(
            w=self.w.copy(),
            b=self.b,
            alpha=self.alpha.copy(),
            support=self.support.copy(),
            margin_support=self.margin_support.copy(),
            bound_support=self.bound_support.copy(),
            sv_tol=self.sv_tol,
            primal_objective=cert.primal_objective,
            dual_objective=cert.dual_objective,
            duality_gap=cert.duality_gap,
            margin=1.0 / nrm if nrm > 0 else math.inf,
            certificate=cert,
            status=status,
            solver=self.solver,
            form=self.form,
            solve_seconds=self.solve_seconds,
            polished=self.polished,
            problem=problem,
            interface=self.interface,
        )

    def __repr__(self) -> str:
        return (
            f"SavedSolution(status={self.status!r}, P={self.primal_objective:.10g}, "
            f"certified (as the file says)={self.certificate.ok}, n_sv={len(self.support)}, "
            f"n={self.n}, d={self.d})"
        )
