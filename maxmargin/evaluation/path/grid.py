"""The C path on a grid: :class:`RegularizationPath`, the certified optimum at every point.

Each point after the first is warm-started by shrinking from the previous one, polished
and certified in numpy; the squared hinge takes Newton steps
(:mod:`~maxmargin.evaluation.path.squared`). The method and the theorems used are in
``docs/path.md``.
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ... import io
from ..._progress import Progress
from ...certificate import Certificate, certify, support_sets
from ...conventions import DEFAULT_LOSS, weight_names
from ...data import Dataset
from ...exceptions import DataError, ParameterError
from ...problem import SVMProblem
from ...solvers.qp import signed_rows
from .limits import HardMarginLimit, hard_margin_limit, min_margin_sv_C
from .points import ACCEPT_TOL, _DualModel, _solve_point
from .squared import newton_point

__all__ = ["RegularizationPath"]


class _SparseRows(io.Codec):
    """A (k, n) array as k sparse rows ``{"n", "index", "value"}``: O(support vectors)."""

    def dump(self, value: Any) -> Any:  # noqa: D102
        return [_SPARSE.dump(row) for row in np.asarray(value)]

    def load(self, doc: Any) -> np.ndarray:  # noqa: D102
        if not isinstance(doc, list):
            raise TypeError(f"expected a list of sparse rows, got {doc!r:.60}")
        rows = [_SPARSE.load(r) for r in doc]
        if len({r.size for r in rows}) > 1:
            raise ValueError("the rows of alpha have different lengths")
        return np.array(rows, dtype=float).reshape(len(rows), -1)


_SPARSE = io.Array(sparse=True)


def _rows(p: RegularizationPath) -> list[dict[str, Any]]:
    """One row per grid point: the columns of :meth:`RegularizationPath.to_csv`."""
    names = weight_names(p.feature_names, p.d)
    out = []
    for i in range(len(p)):
        row: dict[str, Any] = {"C": float(p.C[i]), "lam": float(p.lam[i]), "b": float(p.b[i])}
        row.update(zip(names, map(float, p.w[i]), strict=True))
        for a in _PER_POINT:
            v = getattr(p, a)[i]
            row[a] = int(v) if a.startswith("n_") else float(v)
        row.update(certified=bool(p.certificates[i].ok), method=p.method[i])
        row["seconds"] = float(p.seconds[i])
        out.append(row)
    return out


#: The per-point columns after ``w``, in the CSV's order.
_PER_POINT = tuple(
    "norm_w norm_reg margin width n_margin_sv n_bound_sv train_error holdout_error slack_sum "
    "primal dual relative_gap max_kkt".split()
)


def _columns(p: RegularizationPath) -> list[io.Column]:
    keys = ("C", "lam", "b", *weight_names(p.feature_names, p.d), *_PER_POINT)
    return [io.Column(k, k) for k in (*keys, "certified", "method", "seconds")]


@dataclass(frozen=True, eq=False, kw_only=True)
class RegularizationPath(io.Persistent):
    """The certified soft-margin optimum at each point of a C (lambda) grid.

    Per-point arrays have the grid's length ``k`` first; points in increasing C.
    :meth:`with_data` re-certifies a path read from its file.

    Attributes
    ----------
    C, lam : ndarray of shape (k,)
        ``lam = 1 / (C n)``.
    w : ndarray of shape (k, d)
        Weights on the original features.
    b : ndarray of shape (k,)
    alpha : ndarray of shape (k, n)
        Dual multipliers (written sparse).
    norm_w : ndarray of shape (k,)
        ``||w||`` (original features).
    norm_reg : ndarray of shape (k,)
        ``||w~||``, the regularized norm (includes ``b/s`` for ``augmented``).
    margin, width : ndarray of shape (k,)
        ``1/||w||`` and ``2/||w||`` in x-space (inf when ``w = 0``; ``docs/numbers.md``).
    n_margin_sv, n_bound_sv : ndarray of shape (k,), int
        As :func:`maxmargin.certificate.support_sets` reads them off ``alpha``.
    train_error, holdout_error : ndarray of shape (k,)
        Fraction with ``y f(x) <= 0`` (holdout: nan without one); unweighted.
    slack_sum : ndarray of shape (k,)
        ``sum_i s_i xi_i`` (``xi_i^2`` for the squared hinge).
    certificates : tuple of Certificate
        Each point's numpy certificate (C form).
    method : tuple of str
        What solved each point: ``"warm"``, ``"qp"``, ``"dpp"`` or ``"newton"``.
    seconds : ndarray of shape (k,)
        Wall time of each point (solve + polish + certificate).
    intercept : str
    intercept_scaling : float
    loss : {"hinge", "squared_hinge"}
    data_name : str
    n, d : int
    solver : str
        The solver(s) of the full solves, joined by ``+``.
    min_margin_sv_C : float
        :func:`min_margin_sv_C` of the data (nan when not computed).
    hard_margin_limit : HardMarginLimit or None
        The hard-margin comparison (None when not computed; key ``hard`` in the file).
    compile_seconds, total_seconds : float
        Building the DPP model (0 without one) and the whole path.
    feature_names : tuple of str or None
    weights : ndarray of shape (n,) or None
        The example weights ``s_i``, None without.

    Examples
    --------
    >>> from maxmargin import Dataset, regularization_path
    >>> p = regularization_path(Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1]), C=[0.1, 10.0])
    >>> len(p), p.w.shape, p.alpha.shape, p.certified
    (2, (2, 1), (2, 3), True)

    The CSV (:meth:`to_csv`, :meth:`to_frame`; ``docs/formats.md``), one row per point:

    >>> print(p.to_csv().splitlines()[0][:40])
    C,lam,b,w[0],norm_w,norm_reg,margin,widt
    """

    FORMAT: ClassVar[str] = "path"
    COMPUTED: ClassVar[tuple[str, ...]] = ("certified", "primal", "dual", "relative_gap", "max_kkt")
    TABLE: ClassVar[io.Table] = io.Table(_rows, _columns)

    C: np.ndarray
    lam: np.ndarray
    w: np.ndarray
    b: np.ndarray
    alpha: np.ndarray = io.persist(_SparseRows())
    norm_w: np.ndarray
    norm_reg: np.ndarray
    margin: np.ndarray
    width: np.ndarray
    n_margin_sv: np.ndarray = io.persist(io.Array(int))
    n_bound_sv: np.ndarray = io.persist(io.Array(int))
    train_error: np.ndarray
    holdout_error: np.ndarray
    slack_sum: np.ndarray
    certificates: tuple = io.persist(io.Nested(Certificate, many=True))
    method: tuple
    seconds: np.ndarray
    intercept: str
    intercept_scaling: float
    loss: str = DEFAULT_LOSS
    data_name: str = io.persist(key="data")
    n: int
    d: int
    solver: str
    min_margin_sv_C: float = math.nan
    hard_margin_limit: HardMarginLimit | None = io.persist(
        io.Nested(HardMarginLimit), key="hard", default=None
    )
    compile_seconds: float = 0.0
    total_seconds: float = 0.0
    feature_names: tuple[str, ...] | None = None
    weights: np.ndarray | None = dataclasses.field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.C.size)

    def _of_certificates(self, name: str) -> np.ndarray:
        return np.array([getattr(c, name) for c in self.certificates], dtype=float)

    @property
    def primal(self) -> np.ndarray:
        """``P(w, b)`` of each point, C form (its certificate's), shape (k,)."""
        return self._of_certificates("primal_objective")

    @property
    def dual(self) -> np.ndarray:
        """``D(alpha)`` of each point, C form (its certificate's), shape (k,)."""
        return self._of_certificates("dual_objective")

    @property
    def relative_gap(self) -> np.ndarray:
        """The relative duality gap of each point (its certificate's), shape (k,)."""
        return self._of_certificates("relative_gap")

    @property
    def max_kkt(self) -> np.ndarray:
        """The largest scaled KKT residual of each point (its certificate's), shape (k,)."""
        return np.array([max(c.kkt.values(), default=math.nan) for c in self.certificates])

    @property
    def feature_margin(self) -> np.ndarray:
        """``1/||w||`` at each point (:attr:`margin`), the margin in ``x``, shape (k,)."""
        return self.margin

    @property
    def margin_width(self) -> np.ndarray:
        """``2/||w||`` at each point (:attr:`width`), the band ``|f| <= 1``, shape (k,)."""
        return self.width

    @property
    def geometric_margin(self) -> np.ndarray:
        """``1/||w~||`` at each point, the margin in the QP's space, shape (k,)."""
        return _inverse(self.norm_reg)

    @property
    def certified(self) -> bool:
        """Whether every point's certificate is ok."""
        return all(c.ok for c in self.certificates)

    def with_data(
        self, data: Dataset, *, holdout: Dataset | None = None, tol: float | None = None
    ) -> RegularizationPath:
        """The path on ``data``, every point's certificate recomputed with numpy.

        ``RegularizationPath.from_json(file, data)`` ends here: a file is not a proof.

        Parameters
        ----------
        data : Dataset
            The data the path was computed on (the same rows in the same order).
        holdout : Dataset, optional
            Held-out data: their error at each point.
        tol : float, optional
            Tolerance of the certificates (default: each point's in the file).

        Returns
        -------
        RegularizationPath
            A RuntimeWarning names the points that do not certify on ``data``.

        Raises
        ------
        DataError
            ``data`` of another shape or feature names, or ``holdout`` of another d.

        Examples
        --------
        >>> from maxmargin import Dataset, regularization_path
        >>> data = Dataset([[1.0], [-1.0], [3.0]], [1, -1, 1])
        >>> saved = regularization_path(data, C=[0.1, 10.0]).without_data()
        >>> saved.with_data(data).certified
        True
        """
        _check_data(self, data, holdout, "path")
        certs = []
        for i, pr in enumerate(
            _problems(data, self.C, self.intercept, self.intercept_scaling, self.weights, self.loss)
        ):
            t = self.certificates[i].tol if tol is None else tol
            certs.append(certify(pr, self.w[i], float(self.b[i]), self.alpha[i], tol=t))
        bad = [float(c) for c, cert in zip(self.C, certs, strict=True) if not cert.ok]
        if bad:
            warnings.warn(
                f"{data.name}: {len(bad)} point(s) of the path read from the file are NOT "
                f"CERTIFIED on these data (C = {bad[:3]}...): are they the data it was "
                "computed on?",
                RuntimeWarning,
                stacklevel=2,
            )
        hold = self.holdout_error
        if holdout is not None:
            hold = _errors(holdout, self.w, self.b)
        return dataclasses.replace(self, certificates=tuple(certs), holdout_error=hold)


def _check_data(path: Any, data: Dataset, holdout: Dataset | None, what: str) -> None:
    """Refuse ``data`` or ``holdout`` that ``path`` (grid or exact) was not computed on."""
    if not isinstance(data, Dataset):
        raise ParameterError(f"data must be a maxmargin.Dataset, got {type(data).__name__}")
    names, mine = data.feature_names, path.feature_names
    if (data.n, data.d) != (path.n, path.d) or (None not in (names, mine) and names != mine):
        raise DataError(
            f"the {what} is of data with n={path.n}, d={path.d}, features "
            f"{mine}; {data.name} has n={data.n}, d={data.d}, features "
            f"{names}: give the data it was computed on"
        )
    if holdout is not None and holdout.d != path.d:
        raise DataError(f"the holdout has d={holdout.d}; the path has d={path.d}")


def _inverse(norm: np.ndarray) -> np.ndarray:
    """``1 / norm``, inf where it is 0."""
    return np.where(norm > 0, 1.0 / np.where(norm > 0, norm, 1.0), np.inf)


def _errors(data: Dataset, W: np.ndarray, B: Any) -> np.ndarray:
    """Error rate ``mean(y f(x) <= 0)`` on ``data`` of each row of ``W`` (and ``B``)."""
    return ((np.asarray(data.X @ W.T) + B) * data.y[:, None] <= 0).mean(axis=0)


def _problems(
    data: Dataset, Cs: np.ndarray, intercept: str, scaling: float, weights: Any, loss: str
) -> list[SVMProblem]:
    """The problem at each C of ``Cs``."""
    return [
        SVMProblem(
            data,
            C=float(c),
            intercept=intercept,
            intercept_scaling=scaling,
            sample_weight=weights,
            loss=loss,
        )
        for c in Cs
    ]


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
    loss: str = DEFAULT_LOSS,
) -> RegularizationPath:
    """The certified optimum at every C of ``Cs`` (increasing), warm-started point to point."""
    problems = _problems(data, Cs, intercept, intercept_scaling, weights, loss)
    squared = loss == "squared_hinge"
    YZ = signed_rows(problems[0])
    if sp.issparse(YZ):
        YZ = sp.csr_matrix(YZ)
    # A named cvxpy solver gets the DPP model, compiled once; by default the full solves
    # take exact.solve's measured route, which is faster than any cvxpy re-solve here
    # (bench/path.py: the compiled model saves ~8% of a fresh cvxpy solve, the IPM ~85%).
    model = None
    if solver is not None and not squared:  # the compiled model is the hinge's dual
        model = _DualModel(problems[0], str(solver).strip().upper())
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
            start = prev if warm_start else None
            if squared:
                first = (np.zeros(d), 0.0) if warm_start else None
                w, b, a, cert, how, who = _squared_point(pr, start or first, solver, tol)
            else:
                w, b, a, cert, how, who = _solve_point(pr, YZ, model, start, tol)
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
    slack = slack * slack if squared else slack
    slack = slack.sum(axis=0) if weights is None else weights @ slack
    hold_err = np.full(k, np.nan) if holdout is None else _errors(holdout, W, B)
    norm_w = np.linalg.norm(W, axis=1)
    norm_reg = np.linalg.norm(problems[0].to_augmented(W, B), axis=1)
    margin = _inverse(norm_w)
    c0 = math.nan
    if not squared:  # both ends are the hinge path's
        c0 = min_margin_sv_C(data, intercept, intercept_scaling, sample_weight=weights)
    if hard_limit is None:
        hard_limit = n * d <= 2_000_000 and not squared
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
        certificates=tuple(certs),
        method=tuple(methods),
        seconds=secs,
        intercept=intercept,
        intercept_scaling=float(intercept_scaling),
        loss=loss,
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


def _squared_point(
    problem: SVMProblem, start: tuple | None, solver: str | None, tol: float
) -> tuple[np.ndarray, float, np.ndarray, Certificate, str, str]:
    """One squared-hinge point: Newton steps from ``start`` if they certify, else a solve."""
    if start is not None:
        got = newton_point(problem, start[0], start[1])
        if got is not None:
            w, b, a = got
            cert = certify(problem, w, b, a, tol=tol)
            if cert.ok and cert.max_residual() <= ACCEPT_TOL:
                return w, b, a, cert, "newton", ""
    from ...exact import solve

    sol = solve(problem, solver=solver, tol=tol)
    w, b, a = np.asarray(sol.w, float), float(sol.b), np.asarray(sol.alpha, float)
    return w, b, a, sol.certificate, "qp", sol.solver
