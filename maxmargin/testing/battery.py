"""The battery: certified problems a learner's claims are checked on.

Each problem is generated from a seed, solved once, re-certified from the data (one that
does not certify is refused) and cached in memory, and on disk when a cache folder is
given. ``docs/validating.md`` lists the problems of each battery.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import check_choice, check_int
from ..certificate import certify
from ..conventions import DEFAULT_LOSS, LOSSES
from ..data import Dataset, make_gaussians, make_separable
from ..exact import solve
from ..exceptions import CertificateError, DataError, ParameterError
from ..io.files import atomic_write
from ..io.json import dumps, format_header, read_document
from ..problem import SVMProblem
from ..separation import is_separable
from ..solution import ExactSolution
from .template import _Template

__all__ = ["ProblemSpec", "CertifiedProblem", "Battery", "battery", "certified"]

#: The batteries by name.
BATTERIES = ("quick", "default")

#: The orders every battery runs.
ORDERS = ("cyclic", "shuffle", "sample")

#: The batteries' lambda (before scaling), unless a learner's fixed lambda replaces it.
LAM = 0.05


@dataclass(frozen=True)
class ProblemSpec:
    """One problem of a battery, as parameters (its data are generated from them).

    Attributes
    ----------
    data : {"separable", "gaussians", "sparse", "disjunction"}
    n, d, seed : int
    intercept : {"none", "augmented", "free"}
    lam : float
        Before the scaling (the problem has ``lam * scale**2``).
    scale : float
        Every feature, and the bias feature ``s``, times ``scale``.
    duplicated, weighted : bool
        Every example twice; example weights in ``[0.5, 2]``.
    options : tuple of (str, float)
        The generator's parameters (``margin``, ``shift``, ``density``, ``k``, ...).
    loss : {"hinge", "squared_hinge"}
        The soft-margin problem's loss (the checked learner's).

    Examples
    --------
    >>> spec = ProblemSpec("gaussians", 50, 3, seed=1, intercept="free", lam=0.1, scale=1e6)
    >>> spec.name, spec.problem_lam
    ('gaussians x1e+06/free', 100000000000.0)
    """

    data: str
    n: int
    d: int
    seed: int
    intercept: str
    lam: float
    scale: float = 1.0
    duplicated: bool = False
    weighted: bool = False
    options: tuple[tuple[str, float], ...] = ()
    loss: str = DEFAULT_LOSS

    @property
    def name(self) -> str:
        """The problem's name in a verdict table, e.g. ``"gaussians x1e+06/augmented"``."""
        parts = [self.data]
        if self.data == "sparse":
            parts[0] += f" d={self.d}"
        if self.data == "disjunction":
            parts[0] += f" k={int(self.option('k'))}"
        if self.scale != 1.0:
            parts.append(f"x{self.scale:.0e}")
        if self.duplicated:
            parts.append("duplicated")
        if self.weighted:
            parts.append("weighted")
        return " ".join(parts) + "/" + self.intercept

    def option(self, key: str, default: float = 0.0) -> float:
        """A generator parameter.

        Parameters
        ----------
        key : str
        default : float

        Returns
        -------
        float

        Examples
        --------
        >>> battery("quick").problem("separable/free").option("margin")
        0.1
        """
        return float(dict(self.options).get(key, default))

    @property
    def problem_lam(self) -> float:
        """``lam * scale**2``: the lambda of the scaled problem."""
        return self.lam * self.scale * self.scale

    def key(self) -> str:
        """The spec as canonical JSON (the cache key).

        Returns
        -------
        str

        Examples
        --------
        >>> '"intercept": "none"' in battery("quick").specs[0].key()
        True
        """
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["options"] = sorted(self.options)
        if self.loss == DEFAULT_LOSS:
            del d["loss"]  # the hinge's keys, and so its cache names, as before the loss
        return json.dumps(d, sort_keys=True)

    def make_data(self) -> tuple[Dataset, np.ndarray | None, dict[str, Any]]:
        """Generate the data, the example weights and what the generator knows.

        Returns
        -------
        data : Dataset
        sample_weight : ndarray of shape (n,) or None
        meta : dict
            ``margin`` (``separable``'s exact margin), ``relevant`` (the disjunction's).

        Examples
        --------
        >>> data, sw, meta = battery("quick").problem("separable/none").make_data()
        >>> data.n, sw is None, meta["margin"]
        (100, True, 0.1)
        """
        meta: dict[str, Any] = {}
        rng = np.random.default_rng([self.seed, 23])
        if self.data == "separable":
            ds = make_separable(
                self.n,
                self.d,
                margin=self.option("margin", 0.1),
                seed=self.seed,
                offset=self.option("offset"),
            )
            X: Any = ds.X
            y = ds.y
            meta["margin"] = float(ds.meta["margin"])
        elif self.data == "gaussians":
            ds = make_gaussians(
                self.n, self.d, separation=self.option("separation", 2.0), seed=self.seed
            )
            shift = self.option("shift")
            X = ds.X + shift * np.asarray(ds.meta["direction"])[None, :]
            y = ds.y
        elif self.data == "sparse":
            X, y = _sparse(self.n, self.d, self.option("density", 0.01), rng)
        elif self.data == "disjunction":
            X, y, relevant = _disjunction(
                self.n, self.d, int(self.option("k", 2)), self.option("p", 0.25), rng
            )
            meta["relevant"] = relevant
        else:
            raise ParameterError(f"unknown battery data {self.data!r}")
        if self.scale != 1.0:
            X = X * self.scale
        if self.duplicated:
            X = sp.vstack([X, X], format="csr") if sp.issparse(X) else np.vstack([X, X])
            y = np.concatenate([y, y])
        sw = rng.uniform(0.5, 2.0, size=len(y)) if self.weighted else None
        return Dataset(X, y, name=self.name), sw, meta


def _sparse(n: int, d: int, density: float, rng: np.random.Generator) -> tuple[Any, np.ndarray]:
    """CSR data labelled by a sparse linear rule (separable when ``d`` > ``n``)."""
    X = sp.random(n, d, density=density, format="csr", random_state=rng, dtype=float)
    X.data = rng.standard_normal(X.data.size)
    u = rng.standard_normal(d)
    f = np.asarray(X @ u).ravel()
    y = np.where(f > np.median(f), 1.0, -1.0)
    return X, y


def _disjunction(
    n: int, d: int, k: int, p: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Boolean rows with ``P(x_j = 1) = p``; ``y = +1`` iff one of ``k`` features is on."""
    X = (rng.random((n, d)) < p).astype(float)
    relevant = tuple(int(j) for j in np.sort(rng.choice(d, size=k, replace=False)))
    y = np.where(X[:, list(relevant)].sum(axis=1) > 0, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0  # both classes, whatever the draw
    X[0, relevant[0]] = 1.0
    X[1, list(relevant)] = 0.0
    return X, y, relevant


@dataclass(frozen=True, eq=False)
class CertifiedProblem:
    """A battery problem with its certified optimum (and hard margin when separable).

    Attributes
    ----------
    spec : ProblemSpec
    data : Dataset
    sample_weight : ndarray of shape (n,) or None
    problem : SVMProblem
    soft : ExactSolution
        The certified soft-margin optimum.
    hard : ExactSolution or None
        The certified hard margin (None: not separable in this intercept mode).
    meta : dict

    Examples
    --------
    >>> cp = certified(battery("quick").problem("gaussians/none"))
    >>> cp.separable, cp.soft.certificate.ok, cp.problem.lam
    (False, True, 0.05)
    """

    spec: ProblemSpec
    data: Dataset
    sample_weight: np.ndarray | None
    problem: SVMProblem
    soft: ExactSolution
    hard: ExactSolution | None
    meta: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The spec's name."""
        return self.spec.name

    @property
    def separable(self) -> bool:
        """Whether the data are separable (with a positive margin) in the learner's space."""
        return self.hard is not None

    def learner_space(self) -> tuple[float, np.ndarray, np.ndarray, float]:
        """``(R, u, m, gamma)`` in the space ``z = (x, s)`` the learners see.

        ``R = max ||z_i||``, ``u`` the soft optimum there, ``m_i = y_i u.z_i``, ``gamma``
        the hard margin there (nan when not separable), as ``compare`` measures them.

        Returns
        -------
        tuple

        Examples
        --------
        >>> cp = certified(battery("quick").problem("separable/none"))
        >>> R, u, m, gamma = cp.learner_space()
        >>> round(gamma, 12), bool(R > gamma)
        (0.1, True)
        """
        p, s = self.problem, self.problem.intercept_scaling
        bias = p.intercept != "none"

        def z(sol: ExactSolution) -> np.ndarray:
            return np.append(sol.w, sol.b / s) if bias else np.array(sol.w, dtype=float)

        sq = float((self.data.row_norms() ** 2).max(initial=0.0))
        R = math.sqrt(sq + s * s if bias else sq)
        gamma = math.nan if self.hard is None else 1.0 / float(np.linalg.norm(z(self.hard)))
        m = p.margins(self.soft.w, self.soft.b)
        return R, z(self.soft), np.asarray(m, dtype=float).ravel(), gamma

    def learner_for(self, learner: Any) -> Any:
        """``learner`` built for this problem as :func:`~maxmargin.testing.check_learner` builds it.

        Parameters
        ----------
        learner : str, type or object
            As :func:`~maxmargin.testing.check_learner` takes it.

        Returns
        -------
        OnlineLearner

        Examples
        --------
        >>> cp = certified(battery("quick").problem("gaussians/none"))
        >>> lr = cp.learner_for("pegasos")
        >>> lr.lam == cp.problem.lam, lr.intercept
        (True, 'none')
        """
        return _Template(learner).build(self.problem)

    def resolution(self) -> float:
        """The suboptimality below which ``F - F*`` is not known: ``10 max(lam |P - D|, 1e-12 F*)``.

        Returns
        -------
        float

        Examples
        --------
        >>> cp = certified(battery("quick").problem("gaussians/none"))
        >>> bool(0 < cp.resolution() < 1e-9)
        True
        """
        c = self.soft.certificate
        lam = self.problem.lam
        F = lam * float(c.primal_objective)
        return 10.0 * max(lam * abs(float(c.primal_objective - c.dual_objective)), 1e-12 * abs(F))


@dataclass(frozen=True)
class Battery:
    """A battery: problems, orders, seeds, epochs.

    Attributes
    ----------
    name : str
    specs : tuple of ProblemSpec
    orders : tuple of str
    seeds : tuple of int
        The seeds of the ``shuffle`` and ``sample`` runs (``cyclic`` runs once, seed 0).
    epochs, checkpoints_per_decade : int

    Examples
    --------
    >>> b = battery("quick")
    >>> b.name, b.epochs, len(b.seeds) >= 3
    ('quick', 30, True)
    """

    name: str
    specs: tuple[ProblemSpec, ...]
    orders: tuple[str, ...] = ORDERS
    seeds: tuple[int, ...] = (0, 1, 2)
    epochs: int = 20
    checkpoints_per_decade: int = 10

    def checkpoints(self, n: int) -> np.ndarray:
        """Geometric checkpoints in ``1..n*epochs`` (``checkpoints_per_decade`` a decade).

        Parameters
        ----------
        n : int

        Returns
        -------
        ndarray of int64

        Examples
        --------
        >>> battery("quick").checkpoints(100)[[0, -1]].tolist()
        [1, 3000]
        """
        T = n * self.epochs
        k = max(2, int(math.ceil(self.checkpoints_per_decade * math.log10(max(T, 2)))) + 1)
        return np.unique(np.round(np.geomspace(1, T, k)).astype(np.int64))

    def problem(self, name: str) -> ProblemSpec:
        """The problem named ``name`` (as a verdict names it).

        Parameters
        ----------
        name : str

        Returns
        -------
        ProblemSpec

        Examples
        --------
        >>> battery("quick").problem("gaussians/free").intercept
        'free'
        """
        for s in self.specs:
            if s.name == name:
                return s
        names = ", ".join(s.name for s in self.specs)
        raise ParameterError(f"the {self.name!r} battery has no problem {name!r}; it has {names}")

    def runs(self) -> list[tuple[str, int]]:
        """The ``(order, seed)`` of every run on a problem.

        Returns
        -------
        list of (str, int)

        Examples
        --------
        >>> battery("quick").runs()[:3]
        [('cyclic', 0), ('shuffle', 0), ('shuffle', 1)]
        """
        return [(o, s) for o in self.orders for s in ((0,) if o == "cyclic" else self.seeds)]


def _specs(kind: str, data_seed: int, lam: float, loss: str) -> tuple[ProblemSpec, ...]:
    quick = kind == "quick"
    n, d = (100, 5) if quick else (200, 10)

    def spec(data: str, seed: int, intercept: str, *opts: Any, dim: int = d) -> ProblemSpec:
        return ProblemSpec(data, n, dim, data_seed + seed, intercept, lam, options=opts, loss=loss)

    out: list[ProblemSpec] = []
    for intercept in ("none", "augmented", "free"):
        shift = 0.0 if intercept == "none" else 1.0  # the bias can follow; through 0 for none
        out.append(spec("separable", 0, intercept, ("margin", 0.1), ("offset", 0.5 * shift)))
        out.append(spec("gaussians", 1, intercept, ("separation", 2.0), ("shift", 1.5 * shift)))
    base_sep, base_gauss = out[2], out[3]  # augmented
    for c in (1e-6, 1e6):
        out.append(replace(base_gauss, scale=c))
        if not quick:
            out.append(replace(base_sep, scale=c))
    if not quick:
        out.append(spec("sparse", 2, "augmented", ("density", 0.01), dim=2000))
        out.append(replace(base_sep, n=n // 2, duplicated=True))
        out.append(replace(base_gauss, weighted=True))
    k = 2.0 if quick else 3.0
    for intercept in ("none",) if quick else ("none", "augmented"):
        out.append(spec("disjunction", 3, intercept, ("k", k), ("p", 0.25), dim=2 * d))
    return tuple(out)


def battery(
    name: str = "default", *, data_seed: int = 0, lam: float = LAM, loss: str = DEFAULT_LOSS
) -> Battery:
    """The battery ``name``: ``"quick"`` (seconds, for CI) or ``"default"``.

    Parameters
    ----------
    name : {"quick", "default"}
    data_seed : int >= 0
        The generators' seed.
    lam : float > 0
        lambda of the problems (before scaling).
    loss : {"hinge", "squared_hinge"}
        The loss of the soft-margin problems (a learner's declared ``loss``).

    Returns
    -------
    Battery

    Examples
    --------
    >>> [s.name for s in battery("quick").specs][:3]
    ['separable/none', 'gaussians/none', 'separable/augmented']
    """
    if name not in BATTERIES:
        raise ParameterError(f"battery must be one of {', '.join(BATTERIES)}, got {name!r}")
    data_seed = check_int("data_seed", data_seed, minimum=0)
    specs = _specs(name, data_seed, float(lam), check_choice("loss", loss, LOSSES))
    if name == "quick":
        return Battery("quick", specs, seeds=(0, 1, 2), epochs=30)
    return Battery("default", specs, seeds=(0, 1, 2, 3, 4), epochs=50)


_MEMORY: dict[str, CertifiedProblem] = {}


def certified(spec: ProblemSpec, cache: str | Path | None = None) -> CertifiedProblem:
    """``spec`` generated, solved and certified (once per process; once per cache folder).

    Parameters
    ----------
    spec : ProblemSpec
    cache : str or Path, optional
        A folder for ``<key>.npz`` + ``<key>.json``, re-certified when read back.

    Returns
    -------
    CertifiedProblem

    Examples
    --------
    >>> cp = certified(battery("quick").specs[0])
    >>> cp.separable, cp.soft.certificate.ok
    (True, True)
    """
    key = spec.key()
    if key in _MEMORY:
        return _MEMORY[key]
    cp = None
    path = None
    if cache is not None:
        folder = Path(cache)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / hashlib.sha256(key.encode()).hexdigest()[:20]
        cp = _read(spec, path)
    if cp is None:
        cp = _solve(spec)
        if path is not None:
            _write(cp, path)
    _MEMORY[key] = cp
    return cp


def _problem(spec: ProblemSpec, data: Dataset, sw: np.ndarray | None) -> SVMProblem:
    p = spec.problem_lam
    return SVMProblem(
        data,
        lam=p,
        intercept=spec.intercept,
        intercept_scaling=spec.scale,
        sample_weight=sw,
        loss=spec.loss,
    )


def _solve(spec: ProblemSpec) -> CertifiedProblem:
    data, sw, meta = spec.make_data()
    problem = _problem(spec, data, sw)
    soft = _checked(solve(problem), "soft-margin")
    hard = None
    if is_separable(data, intercept=spec.intercept):
        hp = SVMProblem(data, hard=True, intercept=spec.intercept, intercept_scaling=spec.scale)
        hard = _checked(solve(hp), "hard-margin")
        known = meta.get("margin")
        if known is not None and spec.intercept in ("none", "free"):
            # two routes to one number: the generator's exact margin and the certified solve
            gamma = hard.margin
            if not math.isclose(gamma, known * spec.scale, rel_tol=1e-6):
                raise CertificateError(
                    f"{spec.name}: the certified hard margin {gamma!r} is not the "
                    f"generator's exact {known * spec.scale!r}"
                )
    return CertifiedProblem(spec, data, sw, problem, soft, hard, meta)


def _checked(sol: ExactSolution, what: str) -> ExactSolution:
    cert = certify(sol.problem, sol.w, sol.b, sol.alpha)
    if not cert.ok:
        raise CertificateError(
            f"{sol.problem.data.name}: the {what} optimum of this battery problem does not "
            f"certify (relative gap {cert.relative_gap:.2e}); it cannot be used"
        )
    return sol


def _write(cp: CertifiedProblem, path: Path) -> None:
    X = cp.data.X
    arrays: dict[str, np.ndarray] = {"y": cp.data.y}
    if sp.issparse(X):
        arrays.update(indptr=X.indptr, indices=X.indices, values=X.data, shape=np.array(X.shape))
    else:
        arrays["X"] = np.asarray(X)
    if cp.sample_weight is not None:
        arrays["sample_weight"] = cp.sample_weight

    doc = {
        **format_header("battery_problem"),
        "spec": json.loads(cp.spec.key()),
        "meta": {k: list(v) if isinstance(v, tuple) else v for k, v in cp.meta.items()},
        "soft": cp.soft.to_dict(),
        "hard": None if cp.hard is None else cp.hard.to_dict(),
    }
    npz = path.with_suffix(".npz")
    atomic_write(npz, lambda fh: np.savez(fh, **arrays), durable=False)  # type: ignore[arg-type]
    atomic_write(path.with_suffix(".json"), dumps(doc, indent=1), durable=False)


def _read(spec: ProblemSpec, path: Path) -> CertifiedProblem | None:
    """The cached problem, re-certified; None when absent, stale or not certified."""
    npz, js = path.with_suffix(".npz"), path.with_suffix(".json")
    if not (npz.is_file() and js.is_file()):
        return None
    try:
        doc = read_document(js, "battery_problem")
        if json.dumps(doc["spec"], sort_keys=True) != spec.key():
            return None
        with np.load(io.BytesIO(npz.read_bytes()), allow_pickle=False) as z:
            if "X" in z:
                X: Any = z["X"]
            else:
                X = sp.csr_matrix((z["values"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
            y = z["y"]
            sw = z["sample_weight"] if "sample_weight" in z else None
        data = Dataset(X, y, name=spec.name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # judged below, not warned
            soft = ExactSolution.from_json(doc["soft"], data)
            hard = None if doc["hard"] is None else ExactSolution.from_json(doc["hard"], data)
    except (DataError, KeyError, ValueError, OSError):
        return None
    if not soft.certificate.ok or (hard is not None and not hard.certificate.ok):
        return None
    meta = dict(doc.get("meta") or {})
    if "relevant" in meta:
        meta["relevant"] = tuple(meta["relevant"])
    problem = _problem(spec, data, sw)
    soft = replace(soft, problem=problem)
    return CertifiedProblem(spec, data, sw, problem, soft, hard, meta)
