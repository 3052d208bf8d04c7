r"""Kernel online learners scored against the exact kernel SVM (:func:`compare_kernel`).

At every checkpoint the function a learner holds, ``f_t = sum_j a_j y_j k(x_j, .) + b_t``,
is scored against the certified optimum ``f*``: primal suboptimality, RKHS distance (with
a rigorous rounding interval), regret, and mistakes against Novikoff's bound with the
exact kernel margin. See ``docs/kernels.md`` ("Kernel learners against the exact optimum").
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .. import io
from .._numerics import _U, _gamma, _pow2
from ..conventions import summarize
from ..data import Dataset
from ..exceptions import NotSeparableError, ParameterError, SolverError
from ..kernel_problem import KernelProblem
from ..kernels import Kernel, make_kernel
from ..online.kernel_learners import KernelLearner, learner_gram
from ..online.orders import schedule
from ..online.registry import LEARNERS
from ..online.runner import run
from ..solvers.kernel import DENSE_FALLBACK, KernelSolution, solve_kernel_dual
from ..trace import Trace

__all__ = ["KernelScore", "KernelComparison", "compare_kernel", "rkhs_distance"]


def rkhs_distance(problem: KernelProblem, c1: Any, c2: Any) -> tuple[float, float, float]:
    r"""``||f1 - f2||_H`` for ``f = sum_j c_j k(x_j, .)``, with a rounding interval.

    Parameters
    ----------
    problem : KernelProblem
        Its Gram (:class:`~maxmargin.kernels.GramOperator`, rounding bounds included).
    c1, c2 : array-like of shape (n,)
        Coefficients ``c = a * y``.

    Returns
    -------
    distance : float
        ``sqrt(max(0, e' K e))`` with ``e = c1 - c2`` as computed.
    low, high : float
        The exact distance (exact kernel, exact ``c1 - c2``) lies in ``[low, high]``.

    Notes
    -----
    With ``q = fl(K e)`` and its bound ``err``, ``e' q`` is off by at most ``|e|' err +
    gamma_{n+1} |e|' |q|``; the rounding of ``e = fl(c1 - c2)`` adds ``2 u |e|' (|q| +
    err)`` and ``u^2 trace(K) ||e||^2``.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> p = KernelProblem(Dataset([[1.0], [2.0]], [1, -1]), "linear", C=1.0)
    >>> d, lo, hi = rkhs_distance(p, [1.0, 0.0], [0.0, 0.0])
    >>> d, lo <= 1.0 <= hi
    (1.0, True)
    """
    e = np.asarray(c1, dtype=float) - np.asarray(c2, dtype=float)
    if not np.isfinite(e).all():
        return math.inf, math.inf, math.inf
    pe = _pow2(float(np.max(np.abs(e), initial=0.0)))
    es = e / pe
    q, err = problem.gram.matvec(es, cols=np.flatnonzero(es), bound=True)
    assert err is not None
    ae = np.abs(es)
    aq = np.abs(q)
    d2 = float(es @ q)
    n = es.size
    trace = (
        float(np.sum(np.abs(problem.gram.diag()))) * (1 + _gamma(n + 2))
        + problem.gram.psd_slack * n
    )
    bound = (
        float(ae @ err)
        + _gamma(n + 1) * float(ae @ aq)
        + 2.1 * _U * float(ae @ (aq + err))
        + _U * _U * 1.01 * trace * float(ae @ ae)
    ) * (1 + _gamma(n + 4))
    d = pe * math.sqrt(max(d2, 0.0))
    lo = pe * math.sqrt(max(d2 - bound, 0.0)) * (1 - 2 * _U)
    hi = pe * math.sqrt(max(d2 + bound, 0.0)) * (1 + 2 * _U)
    return d, lo, hi


def _primal(problem: KernelProblem, K: np.ndarray, C: np.ndarray, a: np.ndarray, b: float) -> float:
    """``P = 1/2 c' K c + sum_i C_i max(0, 1 - y_i ((K c)_i + b))``, ``c = a y``."""
    y = problem.data.y
    c = a * y
    q = K @ c
    return 0.5 * float(c @ q) + float(C @ np.maximum(0.0, 1.0 - y * (q + b)))


@dataclass(frozen=True, eq=False, kw_only=True)
class KernelScore(io.Persistent):
    """One learner's run, scored at each checkpoint against the exact kernel SVM.

    Attributes
    ----------
    learner : str
    seed : int
        The seed of its run's order.
    trace : Trace
        The run; None when read from a file.
    t : ndarray of shape (k,)
    objective, suboptimality : ndarray of shape (k,)
        ``P(f_t)``, the problem's primal, and ``P(f_t) - P(f*)``.
    distance, distance_low, distance_high : ndarray of shape (k,)
        ``||f_t - f*||_H`` and its rounding interval.
    regret, mistakes : ndarray of shape (k,)
        The regret against ``f*`` and the online mistakes so far.
    mistake_bound_applies : bool
        The learner is mistake-driven: Novikoff's bound holds for it.
    """

    learner: str
    seed: int
    mistake_bound_applies: bool
    trace: Trace | None = io.transient()
    t: np.ndarray = io.persist(io.Series(int))
    objective: np.ndarray = io.persist(io.Series())
    suboptimality: np.ndarray = io.persist(io.Series())
    distance: np.ndarray = io.persist(io.Series())
    distance_low: np.ndarray = io.persist(io.Series())
    distance_high: np.ndarray = io.persist(io.Series())
    regret: np.ndarray = io.persist(io.Series())
    mistakes: np.ndarray = io.persist(io.Series(None))


def _write_reference(cmp: KernelComparison) -> dict[str, Any]:
    """The file's ``reference``: the optimum's numbers at a glance, and the solution."""
    sol = cmp.optimum
    cert = sol.certificate
    return {
        "reference": {
            "objective": io.Number().dump(cmp.objective),
            "b": io.Number().dump(sol.b),
            "support": len(sol.support),
            "free_support": len(sol.free_support),
            "bound_support": len(sol.bound_support),
            "route": sol.route,
            "certified": bool(cert.ok),
            "duality_gap": io.Number().dump(cert.duality_gap),
            "relative_gap": io.Number().dump(cert.relative_gap),
            "certificate": cert.to_dict(),
            "solution": io.Nested(KernelSolution).dump(sol),
        }
    }


def _read_reference(doc: Mapping[str, Any]) -> dict[str, Any]:
    ref = doc["reference"]
    return {
        "objective": io.Number().load(ref["objective"]),
        "optimum": io.Nested(KernelSolution).load(ref["solution"]),
    }


@dataclass(frozen=True, eq=False, kw_only=True)
class KernelComparison(io.Persistent):
    """Kernel learners against the exact kernel SVM (:func:`compare_kernel`).

    ``from_json(file, data)`` re-certifies the optimum (:meth:`with_data`).

    Attributes
    ----------
    problem : KernelProblem
    optimum : KernelSolution
        The certified solve.
    objective : float
        ``P(f*)``, computed as the learners' objectives are.
    optimum_radius : float
        ``sqrt(2 gap)``: the computed ``f*`` lies within it of the true optimum.
    radius : float
        ``R = max_i sqrt(K_ii + s^2)``.
    margin : float or None
        The exact kernel margin ``gamma`` of the hard-margin SVM on ``(phi(x), s)``.
    novikoff : float or None
        ``(R / gamma)^2``.
    scores : tuple of KernelScore
        One per learner and seed, learner by learner.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> xor = Dataset([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [-1, -1, 1, 1])
    >>> cmp = compare_kernel(xor, ["kernel_pa1"], gamma=2.0, C=10.0, epochs=5)
    >>> len(cmp.scores), bool(cmp.optimum.certificate.ok)
    (1, True)
    """

    FORMAT: ClassVar[str] = "kernel_comparison"
    COMPUTED: ClassVar[tuple[str, ...]] = ("seeds", "rows")
    LAYOUT: ClassVar[io.Layout] = io.Layout(
        ("objective", "optimum"), _write_reference, _read_reference
    )

    problem: KernelProblem = io.persist(io.Nested(KernelProblem), inline=True)
    optimum: KernelSolution = io.persist(io.Nested(KernelSolution))  # LAYOUT: reference
    objective: float
    optimum_radius: float
    radius: float
    margin: float | None
    novikoff: float | None
    scores: tuple[KernelScore, ...] = io.persist(io.Nested(KernelScore, many=True), key="runs")

    def with_data(self, data: Dataset, *, tol: float | None = None) -> KernelComparison:
        """The comparison on ``data``: its optimum re-certified.

        Parameters
        ----------
        data : Dataset, the one compared on
        tol : float or None, default the file's

        Returns
        -------
        KernelComparison

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> xor = Dataset([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [-1, -1, 1, 1])
        >>> cmp = compare_kernel(xor, ["kernel_pa1"], gamma=2.0, C=10.0, epochs=5)
        >>> bool(cmp.without_data().with_data(xor).optimum.certificate.ok)
        True
        """
        optimum = self.optimum.with_data(data, tol=tol)
        return dataclasses.replace(self, problem=optimum.problem, optimum=optimum)

    def summary(self) -> str:
        """One line per learner at its last checkpoint (the median over the seeds).

        Returns
        -------
        str, a header of two lines, then one line per learner

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> xor = Dataset([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [-1, -1, 1, 1])
        >>> cmp = compare_kernel(xor, ["kernel_pa1"], gamma=2.0, C=10.0, epochs=5)
        >>> cmp.summary().splitlines()[1].split()[:2]
        ['learner', 'steps']
        """
        nov = "n/a" if self.novikoff is None else f"{self.novikoff:.4g}"
        k = len(self.seeds)
        lines = [
            f"kernel SVM {self.problem!r}: P* = {self.objective:.6g} "
            f"({self.optimum.certificate.ok and 'certified' or 'NOT certified'}), "
            f"Novikoff (R/gamma)^2 = {nov}" + (f"; medians over {k} seeds" if k > 1 else ""),
            f"{'learner':<20} {'steps':>7} {'P - P*':>11} {'||f - f*||_H':>13} "
            f"{'regret':>11} {'mistakes':>9}",
        ]
        for r in self.rows:
            lines.append(
                f"{r['learner']:<20} {r['steps']:>7} {r['suboptimality']:>11.4g} "
                f"{r['distance']:>13.4g} {r['regret']:>11.4g} {r['mistakes']:>9g}"
            )
        return "\n".join(lines)

    @property
    def seeds(self) -> tuple[int, ...]:
        """The seeds the learners ran with, in order."""
        return tuple(dict.fromkeys(s.seed for s in self.scores))

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One row per learner: its final checkpoint, median [min, max] over the seeds."""
        out = []
        for name in dict.fromkeys(s.learner for s in self.scores):
            runs = [s for s in self.scores if s.learner == name]
            row: dict[str, Any] = {
                "learner": name,
                "seeds": len(runs),
                "steps": int(runs[0].t[-1]),
            }
            for key in ("suboptimality", "distance", "regret", "mistakes"):
                mid, lo, hi = summarize([float(getattr(s, key)[-1]) for s in runs])
                row[key], row[f"{key}_range"] = mid, [lo, hi]
            row["novikoff"] = self.novikoff if runs[0].mistake_bound_applies else None
            out.append(row)
        return out


def _learner(
    item: Any, kernel: Kernel, problem: KernelProblem, intercept_scaling: float, args: dict
) -> KernelLearner:
    """A kernel learner for ``problem``: built from a name, or an instance checked."""
    C, n = problem.C, problem.n
    if isinstance(item, str):
        cls = LEARNERS.get(item)
        if cls is None or not issubclass(cls, KernelLearner):
            names = sorted(k for k, v in LEARNERS.items() if issubclass(v, KernelLearner))
            raise ParameterError(
                f"{item!r} is not a kernel learner; compare_kernel runs {', '.join(names)}"
            )
        extra: dict[str, Any] = {}
        if cls.problem_parameter == "lam":
            extra["lam"] = 1.0 / (C * n)
        elif cls.problem_parameter == "C":
            extra["C"] = C
        return cls(**args, intercept_scaling=intercept_scaling, **extra)
    if not isinstance(item, KernelLearner):
        raise ParameterError(
            f"compare_kernel runs kernel learners (names or KernelLearner instances), "
            f"not {type(item).__name__}"
        )
    spec = item.kernel_spec()
    X = problem.data.X
    same = (
        spec.name == kernel.name
        and spec.resolve_gamma(X) == kernel.resolve_gamma(X)
        and (spec.degree, spec.coef0) == (kernel.degree, kernel.coef0)
    )
    if not same:
        raise ParameterError(
            f"{item!r} has the kernel {spec!r}, the problem {kernel!r}: build the learner "
            "with the problem's kernel"
        )
    if item.intercept != problem.intercept or (
        item.intercept != "none" and item.intercept_scaling != intercept_scaling
    ):
        raise ParameterError(
            f"{item!r} has intercept {item.intercept!r} (scaling {item.intercept_scaling:g}), "
            f"the problem {problem.intercept!r} (scaling {intercept_scaling:g})"
        )
    lam = float(getattr(item, "lam", math.nan))
    if item.problem_parameter == "lam" and not math.isclose(lam, 1.0 / (C * n), rel_tol=1e-12):
        raise ParameterError(
            f"{item!r} minimises the lambda objective with lam = {lam:g}, the problem's "
            f"C = {C:g} is lam = 1/(C n) = {1.0 / (C * n):g}"
        )
    if item.problem_parameter == "C" and getattr(item, "C", None) != C:
        raise ParameterError(f"{item!r} has C = {getattr(item, 'C', None)}, the problem C = {C:g}")
    return item


def _margin(
    K: np.ndarray, y: np.ndarray, s2: float, tol: float | None
) -> tuple[float, float | None]:
    """``(R, gamma)`` of the perceptron's feature space ``K + s^2`` (gamma None: none)."""
    Ks = K + s2
    R = math.sqrt(max(float(np.max(np.diag(Ks), initial=0.0)), 0.0))
    if len(y) > DENSE_FALLBACK:
        return R, None
    hard = KernelProblem(Dataset(Ks, y, name="gram"), "precomputed", hard=True, intercept="none")
    try:
        sol = solve_kernel_dual(hard, route="dense", tol=tol)
    except (NotSeparableError, SolverError):
        return R, None
    c = sol.alpha * y
    w2 = float(c @ (Ks @ c))
    return R, (1.0 / math.sqrt(w2) if w2 > 0 else None)


def compare_kernel(
    data: Dataset,
    learners: Any = ("dual_perceptron", "kernel_pegasos", "kernel_pa1"),
    *,
    kernel: Any = "rbf",
    C: float = 1.0,
    gamma: float | str = "scale",
    degree: int = 3,
    coef0: float = 0.0,
    intercept: str = "free",
    intercept_scaling: float = 1.0,
    epochs: int = 10,
    order: str = "shuffle",
    seeds: Any = (0,),
    checkpoints: Any = None,
    tol: float | None = None,
    optimum: KernelSolution | None = None,
) -> KernelComparison:
    """Run kernel learners and score them against the certified kernel SVM.

    Parameters
    ----------
    data : Dataset
    learners : sequence of str or KernelLearner
        Names (built for the problem) or instances (checked to solve the same problem).
    kernel, gamma, degree, coef0
        The kernel (:mod:`maxmargin.kernels`), by name.
    C : float > 0
        The soft-margin parameter.
    intercept : {"free", "none"}
    intercept_scaling : float > 0
        The learners' ``s``.
    epochs, order, checkpoints
        As :func:`~maxmargin.online.run` takes them.
    seeds : sequence of int
        Each learner runs once per seed (the order's; default one run, seed 0).
    tol : float, optional
        The certificate's tolerance (default 1e-6).
    optimum : KernelSolution, optional
        A solve of this problem to reuse.

    Returns
    -------
    KernelComparison

    Raises
    ------
    ParameterError, DataError
        A bad parameter or learner, a kernel not PSD on the data: before any run.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> xor = Dataset([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [-1, -1, 1, 1])
    >>> cmp = compare_kernel(xor, ["dual_perceptron"], gamma=2.0, C=10.0, epochs=20)
    >>> s = cmp.scores[0]
    >>> bool(s.mistakes[-1] <= cmp.novikoff), bool(s.distance[-1] >= 0)
    (True, True)
    """
    if not isinstance(data, Dataset):
        raise ParameterError(f"compare_kernel needs a Dataset, got {type(data).__name__}")
    seeds = (seeds,) if isinstance(seeds, (int, np.integer)) else tuple(seeds)
    if not seeds or not all(isinstance(s, (int, np.integer)) and s >= 0 for s in seeds):
        raise ParameterError(f"seeds must be integers >= 0, at least one; got {seeds!r}")
    problem = KernelProblem(
        data, kernel, C=C, intercept=intercept, gamma=gamma, degree=degree, coef0=coef0
    )
    k = make_kernel(kernel, gamma=gamma, degree=degree, coef0=coef0)
    if isinstance(learners, (str, KernelLearner)):
        learners = [learners]
    args = dict(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, intercept=intercept)
    built = [_learner(x, k, problem, float(intercept_scaling), args) for x in learners]
    if not built:
        raise ParameterError("compare_kernel needs at least one learner")
    for lr in built:
        lr._check_data(data)
    if optimum is None:
        optimum = solve_kernel_dual(problem, tol=tol)
    elif optimum.problem is not problem and not (
        optimum.problem.data is data and optimum.problem.kernel == problem.kernel
    ):
        raise ParameterError("optimum is the solve of another problem")
    K = learner_gram(k, data)
    Cs = problem.costs
    y = data.y
    p_star = _primal(problem, K, Cs, optimum.alpha, optimum.b)
    c_star = optimum.alpha * y
    s2 = intercept_scaling**2 if intercept == "free" else 0.0
    R, margin = _margin(K, y, s2, tol)
    lam = 1.0 / (problem.C * data.n)
    loss_star = 0.5 * lam * float(c_star @ (K @ c_star))
    hinge = np.maximum(0.0, 1.0 - y * (K @ c_star + optimum.b))

    run_kw: dict[str, Any] = dict(epochs=epochs, order=order, checkpoints=checkpoints)

    def score(lr: KernelLearner, seed: int) -> KernelScore:
        """One run of ``lr`` (:func:`~maxmargin.online.run` resets it), scored."""
        tr = run(lr, data, seed=seed, record_dual=True, **run_kw)
        assert tr.dual is not None
        hinge_star = np.cumsum(hinge[schedule(data.n, epochs, order, seed)])
        obj = np.array(
            [_primal(problem, K, Cs, a, float(b)) for a, b in zip(tr.dual, tr.b, strict=True)]
        )
        dist = np.array([rkhs_distance(problem, a * y, c_star) for a in tr.dual])
        return KernelScore(
            learner=lr.name,
            seed=seed,
            trace=tr,
            t=tr.t,
            objective=obj,
            suboptimality=obj - p_star,
            distance=dist[:, 0],
            distance_low=dist[:, 1],
            distance_high=dist[:, 2],
            regret=0.5 * lam * tr.sqnorm + tr.loss - (tr.t * loss_star + hinge_star[tr.t - 1]),
            mistakes=np.asarray(tr.mistakes),
            mistake_bound_applies=bool(lr.mistake_driven),
        )

    scores = [score(lr, int(seed)) for lr in built for seed in seeds]
    gap = max(float(optimum.certificate.duality_gap), 0.0)
    return KernelComparison(
        problem=problem,
        optimum=optimum,
        objective=p_star,
        optimum_radius=math.sqrt(2.0 * gap),
        radius=R,
        margin=margin,
        novikoff=None if margin is None else (R / margin) ** 2,
        scores=tuple(scores),
    )
