"""Online learners run at every lambda of a path, scored against that lambda's optimum."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ... import io
from ..._progress import Progress
from ..._validation import check_choice, check_count, check_int, check_positive
from ...conventions import DEFAULT_INTERCEPT, DEFAULT_LOSS, LOSSES, sklearn_names
from ...data import Dataset
from ...exceptions import ParameterError
from ...online.base import OnlineLearner
from ...online.registry import LEARNERS, learner_class, resolve_all
from ...online.runner import CHECKPOINT_OVERHEAD, _geometric_count, check_steps
from ...problem import SVMProblem
from .grid import RegularizationPath, _problems

__all__ = [
    "LearnerPathStudy",
    "learners_along_path",
    "check_study_size",
    "PATH_LEARNERS",
    "SQUARED_PATH_LEARNERS",
    "MIN_POOL_STEPS",
]


#: Learners studied along the path by default (any that declares a ``problem_parameter``).
PATH_LEARNERS = ("pegasos", "subgradient", "pa1")
#: The squared hinge's: Pegasos needs its projection there (its gradient is unbounded).
SQUARED_PATH_LEARNERS = (("pegasos", {"projection": "greedy"}), "subgradient", "pa1")
#: :func:`learners_along_path` uses its worker pool only from this many examples seen in
#: all (runs x epochs x n): a worker costs ~1 s to start, a run ~50-100 ns per example.
MIN_POOL_STEPS = 50_000_000


#: Bytes one run's curve takes per checkpoint (two float64 arrays and their JSON text).
CURVE_BYTES = 80.0


def check_study_size(data: Dataset, k: int, n_learners: int, epochs: int, n_jobs: int) -> None:
    """Refuse, before the path is computed, a study whose runs or curves cannot fit.

    Parameters
    ----------
    data : Dataset
    k : int
        The grid's lambdas.
    n_learners : int
    epochs : int
    n_jobs : int
        Runs at a time (the worker processes).

    Raises
    ------
    ParameterError
        ``epochs * n`` beyond the steps a run can count, or more epochs than memory holds.

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> check_study_size(make_gaussians(40, 2, seed=0), 25, 3, 10, n_jobs=2)
    """
    n, runs = data.n, k * n_learners
    check_steps(None, n, epochs)
    trace = 32.0 * (data.d + 1) + CHECKPOINT_OVERHEAD  # one run's, per checkpoint
    # and 32 bytes per checkpoint while they are made (the epoch ends, sorted, merged)
    each = runs * CURVE_BYTES + 32.0 + min(n_jobs, runs) * trace
    check_count(
        "epochs",
        epochs,
        each,
        "epochs",
        detail=f"{n_learners} learner{'s' * (n_learners != 1)} x {k} lambda{'s' * (k != 1)}, "
        "a checkpoint at each epoch's end of every run",
        base=each * _geometric_count(n * epochs),
        hint="give fewer epochs",
    )


def _entry(entry: Any) -> tuple[Any, dict[str, Any]]:
    """``(target, params)`` of a learner entry: a target, or a pair (target, params)."""
    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], dict):
        return entry[0], dict(entry[1])
    return entry, {}


def _learners_at(
    targets: Sequence[Any],
    data: Dataset,
    lam: float,
    intercept: str,
    scaling: float,
    loss: str = DEFAULT_LOSS,
) -> list[OnlineLearner]:
    """The learners ``targets`` built for the problem at ``lam`` (each needs a lam or C)."""
    for entry in targets:
        target, _ = _entry(entry)
        if getattr(learner_class(target), "problem_parameter", None) is None:
            usable = [nm for nm, c in LEARNERS.items() if c.problem_parameter is not None]
            raise ParameterError(
                f"learner {_name(target)!r} has no lambda or C to match along "
                f"the path (it declares no problem_parameter); use some of "
                f"{', '.join(usable)}"
            )
    problem = SVMProblem(data, lam=lam, intercept=intercept, intercept_scaling=scaling, loss=loss)
    # the intercept named, not intercept_for's fallback: every run is scored against this
    # problem, so a learner that cannot take its intercept is refused (resolve says why)
    return resolve_all(list(targets), problem, intercept=intercept, intercept_scaling=scaling)


def _grid_size(exact: RegularizationPath | None, *grids: Any) -> int:
    """The lambdas the learners will run at, before the path is computed (at most)."""
    from .grids import DEFAULT_GRID, parse_grid

    if exact is not None:
        return int(exact.lam.size)
    grid = next((g for g in grids if g is not None), DEFAULT_GRID)
    return int(parse_grid(grid).size if isinstance(grid, str) else np.size(grid))


def _name(entry: Any) -> str:
    """A learner's name in the study: its registry name, or its class's ``name``."""
    target, _ = _entry(entry)
    if isinstance(target, str) and ":" not in target:
        return target
    cls = learner_class(target)
    return str(getattr(cls, "name", "") or cls.__name__)


def _idle_cores() -> int:
    """Cores not busy with other work: ``cpu_count`` minus the 1-minute load average."""
    import os

    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return cores
    return max(1, min(cores, int(cores - load + 0.5)))


def _learner_job(
    learner: OnlineLearner,
    seed: int,
    lam: float,
    data: Dataset,
    epochs: int,
    order: str,
    ckpts: np.ndarray,
    intercept: str,
    scaling: float,
    weights: np.ndarray | None,
    loss: str,
) -> tuple[np.ndarray, float]:
    """Run one learner at one lambda; its lambda objective at every checkpoint (in a worker)."""
    from ...online import run

    tr = run(
        learner,
        data,
        epochs=epochs,
        order=order,
        seed=seed,
        checkpoints=ckpts,
        sample_weight=weights,
    )
    prob = SVMProblem(
        data,
        lam=lam,
        intercept=intercept,
        intercept_scaling=scaling,
        sample_weight=weights,
        loss=loss,
    )
    F = np.asarray(prob.lambda_objective(tr.w, tr.b), float)
    return F, float(tr.timings.get("learn_seconds", math.nan))


def _write_curves(st: LearnerPathStudy) -> dict[str, Any]:
    """The curves by learner (and eps) name: the ``learners`` key of a path report."""
    num = io.Array().dump
    names = list(st.learners)
    return {
        "final_rel_subopt": {nm: num(st.final_rel_subopt[j]) for j, nm in enumerate(names)},
        "epochs_to_eps": {
            f"{e:g}": {nm: num(st.epochs_to_eps[q, j]) for j, nm in enumerate(names)}
            for q, e in enumerate(st.eps)
        },
        "rel_subopt": {nm: num(st.rel_subopt[j]) for j, nm in enumerate(names)},
    }


def _read_curves(doc: Any) -> dict[str, Any]:
    """The arrays :func:`_write_curves` wrote, by the document's learners and eps."""
    num = io.Array().load
    names, eps = doc["learners"], doc["eps"]
    by_eps = doc["epochs_to_eps"]
    k, m = len(doc["lam"]), len(doc["t"])
    rel = np.array([num(doc["rel_subopt"][nm]) for nm in names], dtype=float)
    ept = np.array([[num(by_eps[f"{e:g}"][nm]) for nm in names] for e in eps], dtype=float)
    return {
        "rel_subopt": rel.reshape(len(names), k, m),
        "epochs_to_eps": ept.reshape(len(eps), len(names), k),
    }


@dataclass(frozen=True, eq=False, kw_only=True)
class LearnerPathStudy(io.Persistent):
    """Online learners run at every lambda of a grid, scored against that lambda's optimum.

    See ``docs/path.md``.

    Attributes
    ----------
    lam : ndarray of shape (k,)
        Increasing.
    learners : tuple of str
    epochs : int
    order : str
    seed : int
        Run ``(i, j)`` (lambda i, learner j) used seed ``seed + 1009 i + j``.
    t : ndarray of shape (m,)
        Checkpoints (examples seen).
    n : int
    F_star : ndarray of shape (k,)
        ``F* = min F`` (lambda form), from the certified path.
    rel_subopt : ndarray of shape (L, k, m)
        ``(F(w_t) - F*) / F*`` of learner j at lambda i after t steps.
    eps : tuple of float
    epochs_to_eps : ndarray of shape (len(eps), L, k)
        Epochs (``t / n``) from which ``rel_subopt <= eps`` holds for good; inf if never.
    seconds : ndarray of shape (L, k)
        Learning time of each run.
    intercept : str
        The intercept of the problem every run is scored against (the exact path's).
    intercept_scaling : float
    loss : {"hinge", "squared_hinge"}
        The path's loss, which the learners minimise.

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> st = learners_along_path(make_gaussians(40, 2, seed=0), lam=[0.01, 0.1],
    ...                          learners=["pegasos"], epochs=1)
    >>> st.rel_subopt.shape[:2], st.epochs_to_eps.shape[1:]
    ((1, 2), (1, 2))

    Its document (the ``learners`` key of a path report) holds the curves by name:

    >>> doc = st.to_dict()
    >>> doc["lam"], len(doc["rel_subopt"]["pegasos"]), sorted(doc["epochs_to_eps"])
    ([0.01, 0.1], 2, ['0.01', '0.1'])
    """

    COMPUTED: ClassVar[tuple[str, ...]] = ("scored_against",)
    LAYOUT: ClassVar[io.Layout] = io.Layout(
        ("rel_subopt", "epochs_to_eps"), _write_curves, _read_curves
    )

    lam: np.ndarray
    learners: tuple
    epochs: int
    order: str
    seed: int
    t: np.ndarray = io.persist(io.Array(int))
    n: int
    F_star: np.ndarray
    rel_subopt: np.ndarray
    eps: tuple
    epochs_to_eps: np.ndarray
    seconds: np.ndarray
    intercept: str = "augmented"
    intercept_scaling: float = 1.0
    loss: str = DEFAULT_LOSS

    @property
    def scored_against(self) -> str:
        """The problem every run is scored against, in words."""
        how = {
            "free": "intercept free (b unregularised; the learners update b without shrinking it)",
            "augmented": f"intercept augmented (b = s w~_(d+1) regularised, s = "
            f"{self.intercept_scaling:g})",
            "none": "intercept none (b = 0)",
        }[self.intercept]
        loss = "squared hinge (L2-loss SVM)" if self.loss == "squared_hinge" else "hinge"
        return f"the soft-margin optimum ({loss}) at each lambda of the path, {how}"

    @property
    def final_rel_subopt(self) -> np.ndarray:
        """``rel_subopt`` at the last checkpoint, shape (L, k)."""
        return self.rel_subopt[:, :, -1]


@sklearn_names(alphas="lam", Cs="C", max_iter="epochs", random_state="seed")
def learners_along_path(
    data: Dataset,
    lam: Any = None,
    *,
    C: Any = None,
    learners: Sequence[Any] | None = None,
    epochs: int = 10,
    order: str = "shuffle",
    seed: int = 0,
    eps: Sequence[float] = (1e-1, 1e-2),
    n_jobs: int | None = 1,
    exact: RegularizationPath | None = None,
    progress: bool = False,
    intercept: str = DEFAULT_INTERCEPT,
    loss: str | None = None,
) -> LearnerPathStudy:
    """Run learners at each lambda for a fixed budget; suboptimality against the optimum.

    Parameters
    ----------
    data : Dataset
    lam, C : grid, optional
        As for :func:`~maxmargin.regularization_path` (default: the lambdas of ``exact``).
    learners : sequence of str, class or (str or class, dict)
        Learners whose class declares ``problem_parameter`` (lam or C), by name, target or
        class, or a pair ``(target, params)``. Default :data:`PATH_LEARNERS` (the squared
        hinge: :data:`SQUARED_PATH_LEARNERS`).
    epochs : int
        The budget, in passes over the data.
    order : {"shuffle", "cyclic", "sample"}
    seed : int
    eps : sequence of float
        Relative suboptimality levels for ``epochs_to_eps``.
    n_jobs : int or None
        Worker processes (``None`` or ``-1``: all cores; 1: no pool); same result for all.
    exact : RegularizationPath, optional
        The path on the same grid, whose intercept, weights and optima the learners take;
        computed when not given.
    progress : bool
    intercept : {"free", "none", "augmented"}
        The intercept of the path computed here (when ``exact`` is not given).
    loss : {"hinge", "squared_hinge"}, optional
        The loss of the path computed here (default the hinge); with ``exact``, its loss.
    alphas, Cs : grid, optional
        scikit-learn's names of ``lam`` and ``C``.
    max_iter : int, optional
        scikit-learn's name for ``epochs``.
    random_state : int >= 0 or numpy RandomState, optional
        scikit-learn's name for ``seed``.

    Returns
    -------
    LearnerPathStudy

    Examples
    --------
    >>> from maxmargin import make_gaussians
    >>> st = learners_along_path(make_gaussians(60, 2, seed=0), lam=[0.01, 0.1],
    ...                          learners=["pegasos"], epochs=3)
    >>> st.rel_subopt.shape[:2], bool((st.final_rel_subopt >= -1e-9).all())
    ((1, 2), True)
    """
    import os

    from ...online import default_checkpoints

    epochs = check_int("epochs", epochs, minimum=1)
    if loss is not None:
        loss = check_choice("loss", loss, LOSSES)
    if isinstance(exact, RegularizationPath):
        if loss not in (None, exact.loss):
            raise ParameterError(f"loss={loss!r} but the exact path has loss={exact.loss!r}")
        loss = exact.loss
    loss = DEFAULT_LOSS if loss is None else loss
    if learners is None:
        learners = SQUARED_PATH_LEARNERS if loss == "squared_hinge" else PATH_LEARNERS
    targets = tuple(learners)
    if not targets:
        raise ParameterError("no learners given; use e.g. learners=['pegasos', 'pa1']")
    if exact is not None and not isinstance(exact, RegularizationPath):
        raise ParameterError(
            "exact= is the RegularizationPath whose grid of lambdas the learners run at "
            f"(regularization_path(data, lam=grid)), got {type(exact).__name__}"
        )
    mode = exact.intercept if exact is not None else intercept
    # refuse a learner that cannot run before the path is computed
    _learners_at(targets, data, 1.0, mode, 1.0 if exact is None else exact.intercept_scaling, loss)
    names = tuple(_name(target) for target in targets)
    workers = (os.cpu_count() or 1) if n_jobs in (None, -1) else check_int("n_jobs", n_jobs)
    check_study_size(data, _grid_size(exact, lam, C), len(targets), epochs, workers)
    if exact is None:
        from . import regularization_path

        exact = regularization_path(
            data, C, lam, intercept=intercept, hard_limit=False,
            progress=progress, loss=loss,
        )  # fmt: skip
    elif lam is not None or C is not None:
        raise ParameterError("give either a grid or exact=, not both")
    order_idx = np.argsort(exact.lam)
    lams = exact.lam[order_idx]
    n, s = data.n, exact.intercept_scaling
    weights = exact.weights  # the path's example weights: the learners' steps take them
    problems = _problems(data, exact.C[order_idx], mode, s, weights, loss)
    F_star = np.array(
        [
            float(p.lambda_objective(exact.w[i], exact.b[i]))
            for p, i in zip(problems, order_idx, strict=True)
        ]
    )
    ckpts = default_checkpoints(n, epochs)
    built = [_learners_at(targets, data, float(lam_), mode, s, loss) for lam_ in lams]
    jobs = [
        (learner, seed + 1009 * i + j, float(lam_))
        for i, lam_ in enumerate(lams)
        for j, learner in enumerate(built[i])
    ]
    common = (data, epochs, order, ckpts, mode, s, weights, loss)
    if len(jobs) * epochs * n < MIN_POOL_STEPS:
        workers = 1  # starting the workers would cost more than the runs
    # a worker beside a busy core makes the pool slower than one process (measured)
    results = _run_jobs(jobs, common, min(workers, _idle_cores()), progress)
    k, Lk = len(lams), len(names)
    rel = np.full((Lk, k, len(ckpts)), np.nan)
    secs = np.zeros((Lk, k))
    for q, (F, s_) in enumerate(results):
        i, j = divmod(q, Lk)
        rel[j, i, : F.size] = (F - F_star[i]) / F_star[i]
        secs[j, i] = s_
    eps_t = tuple(float(check_positive("eps", e)) for e in eps)
    ep = _epochs_to_eps(rel, ckpts, n, eps_t)
    return LearnerPathStudy(
        lam=lams,
        learners=names,
        epochs=epochs,
        order=order,
        seed=int(seed),
        t=ckpts,
        n=n,
        F_star=F_star,
        rel_subopt=rel,
        eps=eps_t,
        epochs_to_eps=ep,
        seconds=secs,
        intercept=mode,
        intercept_scaling=float(s),
        loss=loss,
    )


def _run_jobs(
    jobs: list[tuple], common: tuple, workers: int, progress: bool
) -> list[tuple[np.ndarray, float]]:
    """Every job's ``(F at the checkpoints, learning seconds)``, in order."""
    with Progress(len(jobs), "learners", enabled=progress) as bar:
        if workers > 1 and len(jobs) > 1:
            # joblib's loky workers: no `if __name__ == "__main__"` guard needed in the
            # caller's script, reused across calls, arrays of `data` memory-mapped once
            # instead of pickled per run, BLAS limited to cores / workers threads each.
            from joblib import Parallel, delayed

            par = Parallel(n_jobs=min(workers, len(jobs)), return_as="generator")
            runs = par(delayed(_learner_job)(*job, *common) for job in jobs)
        else:
            runs = (_learner_job(*job, *common) for job in jobs)
        results = []
        for res in runs:
            results.append(res)
            bar.update(1)
        return results


def _epochs_to_eps(
    rel: np.ndarray, ckpts: np.ndarray, n: int, eps: tuple[float, ...]
) -> np.ndarray:
    """For each eps, learner and lambda: the epoch from which ``rel <= eps`` stays true."""
    m = rel.shape[2]
    ep = np.full((len(eps), *rel.shape[:2]), np.inf)
    for q, e in enumerate(eps):
        above = ~(rel <= e)  # reached *and stayed* below eps: after the last one above
        first = np.where(above.any(axis=2), m - np.argmax(above[:, :, ::-1], axis=2), 0)
        ep[q] = np.where(first < m, ckpts[np.minimum(first, m - 1)] / n, np.inf)
    return ep
