r"""The C path on a grid: :class:`RegularizationPath`, the certified optimum at every point.

The *path* is the certified optimum of the soft-margin SVM (docs/formulations.md) at every
point of a grid of ``C`` (equivalently ``lam = 1/(C n)``):

.. math::

    (w(C), b(C)) = \arg\min_{w, b}\ \tfrac12 \|\tilde w\|^2
                   + C \textstyle\sum_i s_i \max(0, 1 - y_i (w \cdot x_i + b))

(``s_i`` the example weights, 1 without). How each point is computed
(:func:`~maxmargin.evaluation.path.regularization_path` checks the arguments, then
:func:`_grid_path`):

1. **Warm start by shrinking** (every point after the first): the previous point's
   margins ``y_i f_i`` fix the examples far outside the margin at ``alpha = 0`` and those
   deep inside at ``alpha = C``; a small dual QP is solved (PIQP, directly) on the
   working set in between, every fixed example's KKT condition is checked at the new
   point, violators join the set, and so on. The result always goes through the exact
   module's active-set polish (reduced KKT solve; with no margin SV, the ``{0, C}``
   rounding), even when it already certifies: a small residual does not mean the
   right support sets. When it certifies to 1e-9 (``points.ACCEPT_TOL``) the point is
   done (method ``warm``).
2. Otherwise (and at the first point) a full solve: :func:`maxmargin.solve`'s measured
   route (method ``qp``) or, with ``solver=`` naming a cvxpy solver, the dual QP compiled
   **once** in cvxpy with ``C`` a ``cp.Parameter`` (DPP: re-solving only re-maps the
   parameter; method ``dpp``).
3. Every point is certified in numpy by :func:`maxmargin.certificate.certify`.

Theorems used (proofs in ``docs/path.md``):

* **Monotonicity.** For ``C1 < C2`` and any optima: ``sum xi(C2) <= sum xi(C1)`` and
  ``||w~(C2)|| >= ||w~(C1)||`` (add the two optimality inequalities).
* **Hard-margin limit.** On separable data, ``w(C) = w_hard`` for every
  ``C >= C* = min { max_i alpha_i : alpha an optimal hard-margin dual point }``; when the
  hard dual optimum is unique, ``C* = max_i alpha_i^hard``
  (:func:`~maxmargin.evaluation.path.limits.hard_margin_limit`).
* **Smallest C with a margin SV.** For ``C <= C_0`` every example is a bound SV
  (``alpha = C``); :func:`~maxmargin.evaluation.path.limits.min_margin_sv_C` gives
  ``C_0`` in closed form.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..._progress import Progress
from ...certificate import DEFAULT_TOL, Certificate, support_sets
from ...conventions import weight_names
from ...data import Dataset
from ...exceptions import DataError, ParameterError
from ...io import tables as _table
from ...io.files import atomic_write
from ...io.json import dumps, format_header, json_float, json_number, read_document
from ...problem import SVMProblem
from ...solvers.qp import signed_rows
from .limits import HardMarginLimit, hard_margin_limit, min_margin_sv_C
from .markdown import grid_path_markdown
from .points import _DualModel, _solve_point

__all__ = ["RegularizationPath"]

# --------------------------------------------------------------------------- the path


@dataclass(frozen=True, eq=False)
class RegularizationPath:
    """The certified soft-margin optimum at each point of a C (lambda) grid.

    Every per-point array has the grid's length ``k`` as its first axis; points are in
    increasing C (decreasing lambda).

    Attributes
    ----------
    C, lam : ndarray of shape (k,)
        ``lam = 1 / (C n)``.
    w : ndarray of shape (k, d)
        Weights on the original features.
    b : ndarray of shape (k,)
    alpha : ndarray of shape (k, n)
        Dual multipliers.
    norm_w : ndarray of shape (k,)
        ``||w||`` (original features).
    norm_reg : ndarray of shape (k,)
        ``||w~||``, the regularized norm (``= norm_w`` except for ``augmented``, where it
        includes ``b/s``); non-decreasing in C (a theorem).
    margin, width : ndarray of shape (k,)
        ``1/||w||`` and ``2/||w||`` (geometric, in x-space, the bias left out; inf when
        ``w = 0``); also :attr:`feature_margin` and :attr:`margin_width`, the names that
        say which margin they are. For ``augmented`` they differ from
        :attr:`geometric_margin` ``= 1/||w~||`` of the QP's space (``docs/numbers.md``).
    n_margin_sv, n_bound_sv : ndarray of shape (k,), int
        The margin and bound SVs of each point, as
        :func:`maxmargin.certificate.support_sets` reads them off ``alpha`` (the same
        rule as ``ExactSolution``: relative to ``max alpha`` and the certificate's
        accuracy, never to C alone).
    train_error, holdout_error : ndarray of shape (k,)
        Fraction with ``y f(x) <= 0`` (holdout: nan when no holdout set); unweighted.
    slack_sum : ndarray of shape (k,)
        ``sum_i s_i xi_i`` (``sum_i xi_i`` without weights: the loss term of
        ``P = 1/2 ||w~||^2 + C slack_sum``); non-increasing in C (a theorem).
    primal, dual, relative_gap, max_kkt : ndarray of shape (k,)
        From the numpy certificate (C form); ``max_kkt`` is the largest scaled KKT
        residual.
    certificates : tuple of Certificate
    method : tuple of str
        What solved each point: ``"warm"`` (working-set warm start, certified to 1e-9,
        no full QP), ``"qp"`` (a full solve by :func:`maxmargin.solve`'s route) or
        ``"dpp"`` (the DPP-compiled cvxpy model of ``solver=``).
    seconds : ndarray of shape (k,)
        Wall time of each point (solve + polish + certificate).
    intercept : str
    intercept_scaling : float
    data_name : str
    n, d : int
    solver : str
        The solver of the full solves: the cvxpy solver named by ``solver=``, else the
        one(s) :func:`maxmargin.solve` chose (``"IPM"``, ``"PIQP"``; joined by ``+``).
    min_margin_sv_C : float
        :func:`min_margin_sv_C` of the data (nan when not computed).
    hard_margin_limit : HardMarginLimit or None
        The hard-margin comparison (None when not computed; ``hard`` before 0.2).
    compile_seconds, total_seconds : float
        Building the DPP model (once; 0 without one) and the whole path.
    extras : dict
        Free-form additions by callers (empty from ``regularization_path``); not serialised.
    feature_names : tuple of str or None
        The data's names of the entries of ``w`` (``Dataset.feature_names``): the
        ``w[<name>]`` columns of :meth:`to_csv`.
    weights : ndarray of shape (n,) or None
        The example weights ``s_i`` (sample weight times class weight), None without.

    Examples
    --------
    >>> from maxmargin import Dataset, regularization_path
    >>> p = regularization_path(Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1]), C=[0.1, 10.0])
    >>> len(p), p.w.shape, p.alpha.shape, p.certified
    (2, (2, 1), (2, 3), True)
    """

    C: np.ndarray
    lam: np.ndarray
    w: np.ndarray
    b: np.ndarray
    alpha: np.ndarray
    norm_w: np.ndarray
    norm_reg: np.ndarray
    margin: np.ndarray
    width: np.ndarray
    n_margin_sv: np.ndarray
    n_bound_sv: np.ndarray
    train_error: np.ndarray
    holdout_error: np.ndarray
    slack_sum: np.ndarray
    primal: np.ndarray
    dual: np.ndarray
    relative_gap: np.ndarray
    max_kkt: np.ndarray
    certificates: tuple
    method: tuple
    seconds: np.ndarray
    intercept: str
    intercept_scaling: float
    data_name: str
    n: int
    d: int
    solver: str
    min_margin_sv_C: float = math.nan
    hard_margin_limit: HardMarginLimit | None = None
    compile_seconds: float = 0.0
    total_seconds: float = 0.0
    extras: dict = field(default_factory=dict)
    feature_names: tuple[str, ...] | None = None
    weights: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.C.size)

    @property
    def feature_margin(self) -> np.ndarray:
        """``1/||w||`` at each point, the margin in the feature space ``x``, shape (k,).

        From the decision boundary to the lines ``f = +-1`` in ``x`` (the bias left
        out); :attr:`margin` by its name, and the same quantity as
        :attr:`ExactSolution.feature_margin <maxmargin.ExactSolution.feature_margin>`
        (docs/formulations.md, "Three margins").
        """
        return self.margin

    @property
    def margin_width(self) -> np.ndarray:
        """``2/||w||`` at each point, the width of the band ``|f| <= 1`` in ``x``, shape (k,).

        Between the hyperplanes ``f = +1`` and ``f = -1`` in the feature space (the
        lecture notes' ``M = 2/||w||``); :attr:`width` by its name, and the same
        quantity as :attr:`ExactSolution.margin_width
        <maxmargin.ExactSolution.margin_width>`.
        """
        return self.width

    @property
    def geometric_margin(self) -> np.ndarray:
        """``1/||w~||`` at each point, the margin in the QP's space, shape (k,).

        ``w~ = (w, b/s)`` for ``augmented``, ``w`` otherwise (so it equals
        :attr:`feature_margin` unless ``augmented``); the same quantity as
        :attr:`ExactSolution.geometric_margin <maxmargin.ExactSolution.geometric_margin>`.
        """
        with np.errstate(divide="ignore"):
            return np.where(
                self.norm_reg > 0, 1.0 / np.where(self.norm_reg > 0, self.norm_reg, 1.0), np.inf
            )

    @property
    def certified(self) -> bool:
        """Whether every point's certificate is ok."""
        return all(c.ok for c in self.certificates)

    def to_markdown(self) -> str:
        """A readable report: summary, limits, one table row per grid point.

        Returns
        -------
        str
            Markdown text.

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> p = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), C=[0.1, 1.0])
        >>> print(p.to_markdown().splitlines()[0])
        # Regularization path: data (n=2, d=1, intercept=free)
        """
        return grid_path_markdown(self)

    # ------------------------------------------------------------------ export

    _ARRAYS = (
        "C",
        "lam",
        "b",
        "norm_w",
        "norm_reg",
        "margin",
        "width",
        "n_margin_sv",
        "n_bound_sv",
        "train_error",
        "holdout_error",
        "slack_sum",
        "primal",
        "dual",
        "relative_gap",
        "max_kkt",
        "seconds",
    )

    def to_dict(self, include_alpha: bool = False) -> dict[str, Any]:
        """Plain-Python dict (JSON-ready; non-finite numbers as strings).

        Parameters
        ----------
        include_alpha : bool, default False
            Add ``alpha`` as k lists of n floats.

        Returns
        -------
        dict
            ``format`` (``"maxmargin.path/1"``), ``maxmargin_version``, the per-point
            arrays as lists of length k, ``w`` as k lists of d floats, ``kkt``,
            ``certificate_ok``, ``floors`` and ``certificate_tol`` per point, ``hard`` (the
            hard-margin limit), ``feature_names`` and the scalars (docs/formats.md).
            :meth:`from_json` reads it back.

        Raises
        ------
        ParameterError
            ``include_alpha`` for a path read from a file without alpha.

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> p = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), C=[0.1, 1.0])
        >>> d = p.to_dict()
        >>> d["format"], d["C"], d["n_margin_sv"]
        ('maxmargin.path/1', [0.1, 1.0], [0, 2])
        """
        out: dict[str, Any] = {
            **format_header("path"),
            "data": self.data_name,
            "n": self.n,
            "d": self.d,
            "intercept": self.intercept,
            "intercept_scaling": self.intercept_scaling,
            "solver": self.solver,
            "certified": self.certified,
            "min_margin_sv_C": json_number(self.min_margin_sv_C),
            "compile_seconds": self.compile_seconds,
            "total_seconds": self.total_seconds,
        }
        for k in self._ARRAYS:
            a = getattr(self, k)
            out[k] = [int(v) for v in a] if a.dtype.kind == "i" else [json_number(v) for v in a]
        out["w"] = [[float(v) for v in row] for row in self.w]
        out["method"] = list(self.method)
        out["kkt"] = [{k: json_number(v) for k, v in c.kkt.items()} for c in self.certificates]
        out["certificate_ok"] = [bool(c.ok) for c in self.certificates]
        out["certificate_undecided"] = [c.undecided for c in self.certificates]
        limit = self.hard_margin_limit
        out["hard"] = None if limit is None else limit.to_dict()
        out["feature_names"] = None if self.feature_names is None else list(self.feature_names)
        out["floors"] = [
            {k: json_number(v) for k, v in c.floors.items()} for c in self.certificates
        ]
        out["certificate_tol"] = [float(c.tol) for c in self.certificates]
        if include_alpha:
            if self.alpha.shape[1] != self.n:
                raise ParameterError(
                    "this path was read from a file without alpha: include_alpha is not possible"
                )
            out["alpha"] = [[float(v) for v in row] for row in self.alpha]
        out["weights"] = None if self.weights is None else [float(v) for v in self.weights]
        return out

    @classmethod
    def from_json(cls, source: Any) -> RegularizationPath:
        """Read a path written by :meth:`to_json` (or ``maxmargin path --json``).

        Everything the file holds comes back: the arrays, the certificates (each point's
        objectives, residuals, rounding floors and verdict, as the file states them),
        the hard-margin limit; ``alpha`` when the file has it (``to_json(include_alpha=
        True)``), else an array of shape (k, 0). Not restored: :attr:`extras`, and the
        learners a ``--learners`` run adds to the file. ``to_json`` of the result gives
        the file's text back.

        Parameters
        ----------
        source : str, path-like, readable file, or dict
            The JSON file (or its parsed content).

        Returns
        -------
        RegularizationPath

        Raises
        ------
        DataError
            Not a path file (the message names the right loader), a format newer than
            this maxmargin reads, or a key missing.

        Examples
        --------
        >>> import io
        >>> from maxmargin import Dataset, regularization_path
        >>> p = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), C=[0.1, 1.0])
        >>> q = RegularizationPath.from_json(io.StringIO(p.to_json()))
        >>> q.to_json() == p.to_json(), q.w.tolist() == p.w.tolist()
        (True, True)
        """
        doc = read_document(source, "path", ("C", "lam", "w", "certificate_ok", "kkt"))
        try:
            return cls._from_document(doc)
        except KeyError as e:
            raise DataError(f"the path has no {e.args[0]!r} key") from None
        except (TypeError, ValueError, IndexError) as e:
            if isinstance(e, DataError):
                raise
            raise DataError(f"the path holds a value of the wrong type ({e})") from None

    @classmethod
    def _from_document(cls, doc: dict[str, Any]) -> RegularizationPath:
        k, n, d = len(doc["C"]), int(doc["n"]), int(doc["d"])
        arrays: dict[str, Any] = {}
        for name in cls._ARRAYS:
            vals = doc[name]
            ints = all(isinstance(v, int) and not isinstance(v, bool) for v in vals)
            arrays[name] = (
                np.array(vals, dtype=np.int64)
                if ints and vals
                else np.array([json_float(v) for v in vals], dtype=float)
            )
        floors = doc.get("floors") or [{}] * k
        tols = doc.get("certificate_tol") or [DEFAULT_TOL] * k
        certs = tuple(
            Certificate(
                float(arrays["primal"][i]),
                float(arrays["dual"][i]),
                float(arrays["primal"][i] - arrays["dual"][i]),
                float(arrays["relative_gap"][i]),
                {str(a): json_float(v) for a, v in doc["kkt"][i].items()},
                json_float(tols[i]),
                bool(doc["certificate_ok"][i]),
                {str(a): json_float(v) for a, v in floors[i].items()},
                (doc.get("certificate_undecided") or [None] * k)[i],
            )
            for i in range(k)
        )
        alpha = doc.get("alpha")
        limit = doc.get("hard")
        names = doc.get("feature_names")
        return cls(
            w=np.array([[json_float(v) for v in row] for row in doc["w"]], dtype=float).reshape(
                k, d
            ),
            alpha=(
                np.array([[json_float(v) for v in row] for row in alpha], dtype=float).reshape(k, n)
                if alpha is not None
                else np.zeros((k, 0))
            ),
            certificates=certs,
            method=tuple(doc["method"]),
            intercept=str(doc["intercept"]),
            intercept_scaling=json_float(doc.get("intercept_scaling", 1.0)),
            data_name=str(doc.get("data", "data")),
            n=n,
            d=d,
            solver=str(doc.get("solver")),
            min_margin_sv_C=json_float(doc.get("min_margin_sv_C")),
            hard_margin_limit=None if limit is None else HardMarginLimit.from_dict(limit),
            compile_seconds=json_float(doc.get("compile_seconds", 0.0)),
            total_seconds=json_float(doc.get("total_seconds", 0.0)),
            feature_names=None if names is None else tuple(map(str, names)),
            weights=None
            if doc.get("weights") is None
            else np.array([json_float(v) for v in doc["weights"]], dtype=float),
            **arrays,
        )

    def _table(self) -> tuple[list[str], list[list[Any]]]:
        """One row per grid point (the columns of :meth:`to_csv`)."""
        per_point = self._ARRAYS[3:-1]  # norm_w ... max_kkt, as stored
        cols = [
            "C",
            "lam",
            "b",
            *weight_names(self.feature_names, self.d),
            *per_point,
            "certified",
            "method",
            "seconds",
        ]
        rows = []
        for i in range(len(self)):
            values = [getattr(self, a)[i] for a in per_point]
            rows.append(
                [
                    float(self.C[i]),
                    float(self.lam[i]),
                    float(self.b[i]),
                    *map(float, self.w[i]),
                    *(
                        int(v) if a.startswith("n_") else float(v)
                        for a, v in zip(per_point, values, strict=True)
                    ),
                    bool(self.certificates[i].ok),
                    self.method[i],
                    float(self.seconds[i]),
                ]
            )
        return cols, rows

    def to_csv(self, file: str | Path | None = None) -> str:
        """One CSV row per grid point.

        The columns: ``C, lam, b, w[<name>]..., norm_w, norm_reg, margin, width,
        n_margin_sv, n_bound_sv, train_error, holdout_error, slack_sum, primal, dual,
        relative_gap, max_kkt, certified, method, seconds``.

        ``w[<name>]`` uses the data's feature names (:attr:`feature_names`), ``w[0]``,
        ``w[1]``, ... (0-based columns) without them. Floats are written exactly
        (``repr``); ``holdout_error`` is ``nan`` without a holdout.

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
        >>> data = Dataset([[1.0], [-1.0]], [1, -1], feature_names=["age"])
        >>> p = regularization_path(data, C=[0.1, 1.0])
        >>> print(p.to_csv().splitlines()[0][:40])
        C,lam,b,w[age],norm_w,norm_reg,margin,wi
        """
        return _table.to_csv(*self._table(), file=file)

    def to_frame(self) -> Any:
        """The rows of :meth:`to_csv` as a pandas DataFrame (pandas is optional).

        Returns
        -------
        pandas.DataFrame
            One row per grid point.

        Raises
        ------
        ParameterError
            pandas is not installed.

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> p = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), C=[0.1, 1.0])
        >>> p.to_frame()[["C", "w[0]", "n_margin_sv"]].round(6).to_numpy().tolist()
        [[0.1, 0.2, 0.0], [1.0, 1.0, 2.0]]
        """
        return _table.to_frame(*self._table())

    def to_json(self, file: str | Path | None = None, include_alpha: bool = False) -> str:
        """The :meth:`to_dict` as JSON text; written to ``file`` when given.

        Parameters
        ----------
        file : str or Path, optional
            File to write the text to.
        include_alpha : bool, default False
            Add ``alpha`` (shape (k, n)).

        Returns
        -------
        str

        Examples
        --------
        >>> import json
        >>> from maxmargin import Dataset, regularization_path
        >>> p = regularization_path(Dataset([[1.0], [-1.0]], [1, -1]), C=[0.1, 1.0])
        >>> alpha = json.loads(p.to_json(include_alpha=True))["alpha"]
        >>> len(alpha), len(alpha[0])    # (k, n)
        (2, 2)
        """
        text = dumps(self.to_dict(include_alpha), indent=1)
        if file is not None:
            atomic_write(file, text)
        return text


def _grid_path(
    data: Dataset,
    Cs: np.ndarray,
    intercept: str,
    intercept_scaling: float,
    weights: np.ndarray | None,
    *,
    holdout: Dataset | None,
    solver: str | None,
    progress: bool,
    warm_start: bool,
    hard_limit: bool | None,
    tol: float,
    t_start: float,
) -> RegularizationPath:
    """The certified optimum at every C of ``Cs`` (increasing), warm-started point to point.

    On the arguments :func:`~maxmargin.evaluation.path.regularization_path` checked.
    """
    problems = [
        SVMProblem(
            data,
            C=float(c),
            intercept=intercept,
            intercept_scaling=intercept_scaling,
            sample_weight=weights,
        )
        for c in Cs
    ]
    YZ = signed_rows(problems[0])
    if sp.issparse(YZ):
        YZ = sp.csr_matrix(YZ)
    # A named cvxpy solver gets the DPP model, compiled once; by default the full solves
    # take exact.solve's measured route, which is faster than any cvxpy re-solve here
    # (bench/path.py: the compiled model saves ~8% of a fresh cvxpy solve, the IPM ~85%).
    model = None if solver is None else _DualModel(problems[0], str(solver).strip().upper())
    k, n, d = len(Cs), data.n, data.d
    W = np.zeros((k, d))
    B = np.zeros(k)
    A = np.zeros((k, n))
    certs: list[Certificate] = []
    methods: list[str] = []
    by: set[str] = set()  # the solvers of the full solves
    secs = np.zeros(k)
    nm = np.zeros(k, np.int64)
    nb = np.zeros(k, np.int64)
    prev = None
    with Progress(k, "path", enabled=progress) as bar:
        for i, pr in enumerate(problems):
            t0 = time.perf_counter()
            w, b, a, cert, how, who = _solve_point(pr, YZ, model, prev if warm_start else None, tol)
            by.add(who)
            W[i], B[i], A[i] = w, b, a
            certs.append(cert)
            methods.append(how)
            _, margin_sv, bound_sv, _ = support_sets(pr, a, cert, w, b)
            nm[i], nb[i] = margin_sv.size, bound_sv.size
            prev = (w, b, a, pr.C)
            secs[i] = time.perf_counter() - t0
            bar.update(1)
    compile_s = 0.0 if model is None else model.seconds
    y = data.y
    F = np.asarray(data.X @ W.T)  # (n, k)
    R = (F + B) * y[:, None]
    train_err = (R <= 0).mean(axis=0)
    slack = np.maximum(0.0, 1.0 - R)
    slack = slack.sum(axis=0) if weights is None else weights @ slack
    hold_err = np.full(k, np.nan)
    if holdout is not None:
        Rh = (np.asarray(holdout.X @ W.T) + B) * holdout.y[:, None]
        hold_err = (Rh <= 0).mean(axis=0)
    norm_w = np.linalg.norm(W, axis=1)
    norm_reg = np.linalg.norm(problems[0].to_augmented(W, B), axis=1)
    with np.errstate(divide="ignore"):
        margin = np.where(norm_w > 0, 1.0 / np.where(norm_w > 0, norm_w, 1.0), np.inf)
    c0 = min_margin_sv_C(data, intercept, intercept_scaling, sample_weight=weights)
    if hard_limit is None:
        hard_limit = n * d <= 2_000_000
    limit = None
    if hard_limit:
        limit = hard_margin_limit(
            data,
            intercept,
            intercept_scaling=intercept_scaling,
            last=(float(Cs[-1]), W[-1], float(B[-1])),
            sample_weight=weights,
        )
    return RegularizationPath(
        C=Cs,
        lam=1.0 / (Cs * n),
        w=W,
        b=B,
        alpha=A,
        norm_w=norm_w,
        norm_reg=norm_reg,
        margin=margin,
        width=2.0 * margin,
        n_margin_sv=nm,
        n_bound_sv=nb,
        train_error=train_err,
        holdout_error=hold_err,
        slack_sum=slack,
        primal=np.array([c.primal_objective for c in certs]),
        dual=np.array([c.dual_objective for c in certs]),
        relative_gap=np.array([c.relative_gap for c in certs]),
        max_kkt=np.array([max(c.kkt.values()) for c in certs]),
        certificates=tuple(certs),
        method=tuple(methods),
        seconds=secs,
        intercept=intercept,
        intercept_scaling=float(intercept_scaling),
        data_name=data.name,
        n=n,
        d=d,
        solver="+".join(sorted(by - {""})),
        min_margin_sv_C=c0,
        hard_margin_limit=limit,
        compile_seconds=float(compile_s),
        total_seconds=time.perf_counter() - t_start,
        feature_names=data.feature_names,
        weights=weights,
    )
