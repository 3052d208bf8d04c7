"""The study specification: read from TOML (or a dict), validated whole before anything runs.

Every error is a :class:`SpecError` naming the offending key (``data[1].holdout: ...``).
See ``docs/study.md`` for the format and ``examples/study.toml`` for a commented example.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._validation import check_count
from ..conventions import DEFAULT_INTERCEPT, INTERCEPTS, SKLEARN_NAMES
from ..exceptions import ParameterError
from ..online.runner import CHECKPOINT_OVERHEAD

__all__ = ["SpecError", "StudySpec", "DataSpec", "LearnerSpec", "load_spec", "GENERATORS"]

#: Data generators a ``[[data]]`` entry may name, with the function that makes them.
GENERATORS = ("separable", "gaussians")

_TOP = ("name", "problem", "run", "data", "learners")
_PROBLEM = ("C", "lam", "intercept", "intercept_scaling", "solver", "alpha")
_RUN = ("epochs", "seeds", "orders", "checkpoints", "holdout", "split_seed", "max_iter")
#: The scikit-learn names a section accepts, read as the key they stand for (so the spec's
#: hash is the same whichever name a spec uses).
_SKLEARN_KEYS = {"problem": ("alpha",), "run": ("max_iter",), "params": ("random_state",)}
_DATA = ("name", "source", "generator", "params", "seeds", "label", "holdout", "split_seed")
_LEARNER = ("name", "class", "params", "label")
_ORDERS = ("cyclic", "shuffle", "sample")


class SpecError(ParameterError):
    """A study specification that cannot run: the message names the key (one line)."""


#: A lower bound on the bytes one cell of a study takes: a spec whose cells cannot fit is refused.
CELL_BYTES = 2048.0

#: The largest count of seeds (``seeds = K``: 0 .. K-1), counted before it is listed.
MAX_SEEDS = 2**62

#: A lower bound on the bytes one epoch of a cell's run takes (a checkpoint at its end).
EPOCH_BYTES = CHECKPOINT_OVERHEAD + 128.0


@dataclass(frozen=True)
class DataSpec:
    """One data set of a study (a ``[[data]]`` entry, one per generator seed).

    ``label`` is its unique name (the table's ``data`` column), ``key`` where it came
    from in the spec (``data[1]``); ``source`` (a file or ``builtin:NAME``) or a
    ``generator`` with its ``params``; ``holdout``: a file or the fraction split off.
    """

    label: str
    key: str
    source: str | None = None
    generator: str | None = None
    params: dict = field(default_factory=dict)
    label_column: str | int | None = None
    holdout: str | float | None = None
    split_seed: int = 0


@dataclass(frozen=True)
class LearnerSpec:
    """One learner of a study (a ``[[learners]]`` entry).

    ``target`` is a registry name (``pegasos``) or ``module:Class`` / ``path/file.py:Class``
    (the path made absolute); ``params`` its constructor's keyword arguments.
    """

    label: str
    key: str
    target: str
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class StudySpec:
    """A validated study: data sets x grid x learners x seeds x orders.

    Attributes
    ----------
    name : str
    grid_parameter : {"C", "lam"}
    grid : tuple of float
    intercept : {"free", "none", "augmented"}
    intercept_scaling : float
    solver : str or None
    epochs : int
    seeds : tuple of int
    orders : tuple of str
    checkpoints : int or tuple of int
        Checkpoints per decade of ``t`` (plus every epoch end), or explicit steps.
    data : tuple of DataSpec
    learners : tuple of LearnerSpec
    source : str
        The spec file ("<dict>" when given as a mapping).
    raw : dict
        The normalised specification (defaults filled in, paths absolute).
    """

    name: str
    grid_parameter: str
    grid: tuple
    intercept: str
    intercept_scaling: float
    solver: str | None
    epochs: int
    seeds: tuple
    orders: tuple
    checkpoints: Any
    data: tuple
    learners: tuple
    source: str = "<dict>"
    raw: dict = field(default_factory=dict, repr=False)

    @property
    def hash(self) -> str:
        """SHA-256 (hex, 16 digits) of the normalised specification (the ``spec_hash``)."""
        text = json.dumps(self.raw, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


class _Checker:
    """Raise :class:`SpecError` with the file and the key in front of the message."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, message: str) -> SpecError:
        text = f"{self.source}: {key}: {message}" if key else f"{self.source}: {message}"
        return SpecError(" ".join(text.split()))

    def table(self, key: str, value: Any, allowed: tuple[str, ...]) -> dict:
        if not isinstance(value, Mapping):
            raise self.fail(key, f"must be a table, got {_type_name(value)}")
        unknown = [k for k in value if k not in allowed]
        if unknown:
            raise self.fail(
                f"{key}.{unknown[0]}" if key else unknown[0],
                f"unknown key; allowed here: {', '.join(allowed)}",
            )
        return dict(value)

    def params(self, key: str, value: Any) -> dict:
        if not isinstance(value, Mapping):
            raise self.fail(key, f"must be a table of keyword arguments, got {_type_name(value)}")
        return dict(value)

    def aliases(self, key: str, table: dict, section: str) -> dict:
        """``table`` with scikit-learn's names (``max_iter``) read as maxmargin's (``epochs``)."""
        out = dict(table)
        for alias in _SKLEARN_KEYS[section]:
            name = SKLEARN_NAMES[alias]
            if alias in out:
                if name in out:
                    raise self.fail(
                        f"{key}.{alias}",
                        f"give {name} or {alias}, not both "
                        f"({alias} is scikit-learn's name for {name})",
                    )
                out[name] = out.pop(alias)
        return out

    def count(self, key: str, value: int, each: float, unit: str, detail: str) -> None:
        """:func:`~maxmargin._validation.check_count` as a SpecError."""
        try:
            check_count(key, value, each, unit, detail=detail)
        except ParameterError as e:
            raise self.fail("", str(e)) from None

    def integer(self, key: str, value: Any, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(key, f"must be an integer >= {minimum}, got {value!r}")
        return value

    def string(self, key: str, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"must be a non-empty string, got {value!r}")
        return value.strip()

    def positive(self, key: str, value: Any) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not (math.isfinite(value) and value > 0)
        ):
            raise self.fail(key, f"must be a finite number > 0, got {value!r}")
        return float(value)


def _type_name(value: Any) -> str:
    return {
        dict: "a table",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
    }.get(type(value), type(value).__name__)


def _grid(ck: _Checker, key: str, value: Any) -> tuple:
    from ..evaluation.path.grids import parse_grid

    if isinstance(value, str):
        try:
            values = parse_grid(value).tolist()
        except ParameterError as e:
            raise ck.fail(key, str(e)) from None
    elif isinstance(value, list):
        values = value
    else:
        values = [value]
    if not values:
        raise ck.fail(key, "is empty; give at least one value")
    out = tuple(ck.positive(f"{key}[{i}]", v) for i, v in enumerate(values))
    if len(set(out)) != len(out):
        raise ck.fail(key, f"has duplicate values: {list(out)}")
    return out


def _seeds(ck: _Checker, key: str, value: Any) -> Sequence[int]:
    """The seeds: a count (a range, not listed until it is known to fit) or a list."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value > MAX_SEEDS:  # len(range) must be an int64; no machine lists more
            raise ck.fail(key, f"must be a count of at most {MAX_SEEDS:,} (2**62), got {value:,}")
        return range(ck.integer(key, value, 1))
    if not isinstance(value, list) or not value:
        raise ck.fail(
            key,
            f"must be a count (3 means 0, 1, 2) or a non-empty array of "
            f"integers >= 0, got {value!r}",
        )
    out = tuple(ck.integer(f"{key}[{i}]", s, 0) for i, s in enumerate(value))
    if len(set(out)) != len(out):
        raise ck.fail(key, f"has duplicate seeds: {list(out)}")
    return out


def _holdout(ck: _Checker, key: str, value: Any, base: Path) -> str | float | None:
    if value is None:
        return None
    if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)):
        if not 0 < value < 1:
            raise ck.fail(key, f"a fraction must lie in (0, 1), got {value!r}")
        return float(value)
    if isinstance(value, str) and value.strip():
        return _path(value.strip(), base)
    raise ck.fail(key, f"must be a file or a fraction in (0, 1), got {value!r}")


def _path(text: str, base: Path) -> str:
    if text.startswith("builtin:"):
        return text
    p = Path(text).expanduser()
    return str(p if p.is_absolute() else (base / p).resolve())


def _generator_params(ck: _Checker, key: str, generator: str, params: dict) -> None:
    from .. import data as mmdata

    accepted = list(inspect.signature(getattr(mmdata, f"make_{generator}")).parameters)
    for k, v in params.items():
        if k not in accepted:
            raise ck.fail(
                f"{key}.params.{k}",
                f"{generator} has no such parameter; it accepts {', '.join(accepted)}",
            )
        if isinstance(v, (dict, list)):
            raise ck.fail(f"{key}.params.{k}", f"must be a number, got {_type_name(v)}")


def _parse_data(
    ck: _Checker,
    i: int,
    entry: Any,
    base: Path,
    default_holdout: Any,
    default_split: int,
    cells_each: int,
) -> list[DataSpec]:
    """The data sets of ``[[data]]`` entry ``i``; ``cells_each``: the cells each brings."""
    key = f"data[{i}]"
    e = ck.table(key, entry, _DATA)
    if ("source" in e) == ("generator" in e):
        raise ck.fail(
            key,
            "give exactly one of source (a file or builtin:NAME) and "
            f"generator ({', '.join(GENERATORS)})",
        )
    params = ck.params(f"{key}.params", e.get("params", {}))
    if "generator" in e:
        params = ck.aliases(f"{key}.params", params, "params")
    holdout = _holdout(ck, f"{key}.holdout", e.get("holdout", default_holdout), base)
    split = ck.integer(f"{key}.split_seed", e.get("split_seed", default_split), 0)
    label_col = e.get("label")
    if label_col is not None and (
        isinstance(label_col, bool) or not isinstance(label_col, (str, int))
    ):
        raise ck.fail(f"{key}.label", f"must be a column name or index, got {label_col!r}")
    name = ck.string(f"{key}.name", e["name"]) if "name" in e else None
    make = functools.partial(DataSpec, key=key, holdout=holdout, split_seed=split)
    if "source" in e:
        if "seeds" in e or params:
            raise ck.fail(
                f"{key}.{'seeds' if 'seeds' in e else 'params'}",
                "only a generator takes seeds and params",
            )
        src = ck.string(f"{key}.source", e["source"])
        if src.startswith("builtin:"):
            from ..data import BUILTIN

            if src.split(":", 1)[1] not in BUILTIN:
                raise ck.fail(
                    f"{key}.source",
                    f"no built-in data set {src!r}; choose from "
                    f"{', '.join('builtin:' + b for b in BUILTIN)}",
                )
            default = src.split(":", 1)[1]
        else:
            default = Path(src).stem
        return [make(name or default, source=_path(src, base), label_column=label_col)]
    gen = ck.string(f"{key}.generator", e["generator"])
    if gen not in GENERATORS:
        raise ck.fail(
            f"{key}.generator", f"unknown generator {gen!r}; choose from {', '.join(GENERATORS)}"
        )
    if label_col is not None:
        raise ck.fail(f"{key}.label", "only a CSV source has a label column")
    _generator_params(ck, key, gen, params)
    if "seeds" in e:
        if "seed" in params:
            raise ck.fail(
                f"{key}.params.seed", "give seeds or params.seed (random_state), not both"
            )
        seeds = _seeds(ck, f"{key}.seeds", e["seeds"])
        ck.count(
            f"{key}.seeds",
            len(seeds),
            CELL_BYTES * cells_each,
            "seeds",
            f"one data set each, of {cells_each:,} cells",
        )
        return [
            make(f"{name or gen}-seed{s}", generator=gen, params={**params, "seed": s})
            for s in seeds
        ]
    return [make(name or gen, generator=gen, params=params)]


def _parse_learner(ck: _Checker, i: int, entry: Any, base: Path) -> LearnerSpec:
    from ..online import LEARNERS

    key = f"learners[{i}]"
    if isinstance(entry, str):
        entry = {"name": entry}
    e = ck.table(key, entry, _LEARNER)
    if ("name" in e) == ("class" in e):
        raise ck.fail(
            key,
            "give exactly one of name (a built-in learner) and class "
            "(module:Class or path/file.py:Class)",
        )
    params = ck.params(f"{key}.params", e.get("params", {}))
    if "name" in e:
        target = ck.string(f"{key}.name", e["name"])
        if target not in LEARNERS:
            raise ck.fail(
                f"{key}.name",
                f"unknown learner {target!r}; choose from "
                f"{', '.join(LEARNERS)} (or use class = ...)",
            )
        default = target
    else:
        text = ck.string(f"{key}.class", e["class"])
        mod, sep, cls = text.rpartition(":")
        if not sep or not mod or not cls.isidentifier():
            raise ck.fail(f"{key}.class", f"{text!r} is not module:Class or path/file.py:Class")
        target = f"{_path(mod, base)}:{cls}" if mod.endswith(".py") else text
        default = cls
    for k in ("intercept", "intercept_scaling"):
        if k in params:
            raise ck.fail(
                f"{key}.params.{k}",
                "is set by [problem] (every learner solves the study's problem); remove it here",
            )
    label = ck.string(f"{key}.label", e["label"]) if "label" in e else default
    return LearnerSpec(label=label, key=key, target=target, params=params)


def _read(spec: str | Path | Mapping) -> tuple[_Checker, dict, Path]:
    """The spec as a mapping, its checker and the folder relative paths start from."""
    if isinstance(spec, Mapping):
        return _Checker("<study>"), dict(spec), Path.cwd()
    path = Path(spec)
    ck = _Checker(str(path))
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ck.fail("", "no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ck.fail("", f"cannot read it ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ck.fail("", f"invalid TOML: {e}") from None
    return ck, raw, path.resolve().parent


def _parse_problem(ck: _Checker, value: Any) -> tuple[str, tuple, str, float, str | None]:
    """``[problem]``: the grid (its parameter and values), intercept, scaling, solver."""
    pr = ck.aliases("problem", ck.table("problem", value, _PROBLEM), "problem")
    if ("C" in pr) == ("lam" in pr):
        raise ck.fail(
            "problem", "give exactly one of C and lam (a number, an array, or a grid 'lo:hi:num')"
        )
    grid_parameter = "C" if "C" in pr else "lam"
    grid = _grid(ck, f"problem.{grid_parameter}", pr[grid_parameter])
    intercept = pr.get("intercept", DEFAULT_INTERCEPT)
    if intercept not in INTERCEPTS:
        raise ck.fail(
            "problem.intercept", f"must be 'free', 'none' or 'augmented', got {intercept!r}"
        )
    scaling = ck.positive("problem.intercept_scaling", pr.get("intercept_scaling", 1.0))
    solver = pr.get("solver")
    if solver is not None:
        from ..solvers import available_solvers

        names = available_solvers()
        if not isinstance(solver, str) or solver.upper() not in names:
            raise ck.fail(
                "problem.solver",
                f"unknown or not installed solver {solver!r}; installed: {', '.join(names)}",
            )
        solver = solver.upper()
    return grid_parameter, grid, intercept, scaling, solver


def _orders(ck: _Checker, orders: Any) -> list[str]:
    if isinstance(orders, str):
        orders = [orders]
    if not isinstance(orders, list) or not orders:
        raise ck.fail("run.orders", f"must be a non-empty array of {', '.join(_ORDERS)}")
    for i, o in enumerate(orders):
        if o not in _ORDERS:
            raise ck.fail(
                f"run.orders[{i}]", f"unknown order {o!r}; choose from {', '.join(_ORDERS)}"
            )
    if len(set(orders)) != len(orders):
        raise ck.fail("run.orders", f"has duplicates: {orders}")
    return orders


def _checkpoint_spec(ck: _Checker, cp: Any) -> Any:
    """``run.checkpoints``: steps (a sorted tuple) or a count per decade (an int)."""
    if not isinstance(cp, list):
        return ck.integer("run.checkpoints", cp, 1)
    if not cp:
        raise ck.fail("run.checkpoints", "is empty; give steps t >= 1 or a count per decade")
    return tuple(sorted({ck.integer(f"run.checkpoints[{i}]", t, 1) for i, t in enumerate(cp)}))


def load_spec(spec: str | Path | Mapping) -> StudySpec:
    """Read and validate a study specification (structure only; no data is loaded).

    Parameters
    ----------
    spec : str or Path or mapping
        A TOML file, or the parsed mapping (relative paths from the current directory).

    Returns
    -------
    StudySpec

    Raises
    ------
    SpecError
        Anything invalid; the message names the key.

    Examples
    --------
    >>> s = load_spec({"problem": {"C": "0.1:10:3"},
    ...                "data": [{"source": "builtin:separable"}],
    ...                "learners": ["perceptron", {"name": "pegasos"}]})
    >>> s.grid_parameter, s.grid, [l.label for l in s.learners]
    ('C', (0.1, 1.0, 10.0), ['perceptron', 'pegasos'])
    """
    ck, raw, base = _read(spec)
    top = ck.table("", raw, _TOP)
    for k, what in (("problem", "a [problem] table with C or lam"), ("data", ""), ("learners", "")):
        if k not in top:
            raise ck.fail(k, f"is missing ({what or f'at least one [[{k}]]'})")
    name = (
        ck.string("name", top["name"])
        if "name" in top
        else (Path(spec).stem if not isinstance(spec, Mapping) else "study")
    )
    grid_parameter, grid, intercept, scaling, solver = _parse_problem(ck, top["problem"])
    ru = ck.aliases("run", ck.table("run", top.get("run", {}), _RUN), "run")
    epochs = ck.integer("run.epochs", ru.get("epochs", 10), 1)
    seeds = _seeds(ck, "run.seeds", ru.get("seeds", 1))
    orders = _orders(ck, ru.get("orders", ["shuffle"]))
    # counts checked before anything is listed for them (the data are not loaded yet:
    # these are lower bounds, a checkpoint at each epoch's end and a few KB per cell)
    ck.count("run.epochs", epochs, EPOCH_BYTES, "epochs", "a checkpoint at each epoch's end")
    n_learners = len(top["learners"]) if isinstance(top["learners"], list) else 1
    n_data = len(top["data"]) if isinstance(top["data"], list) else 1
    cells_each = len(grid) * n_learners * len(orders)  # per data set and seed
    ck.count(
        "run.seeds",
        len(seeds),
        CELL_BYTES * cells_each * max(n_data, 1),
        "seeds",
        f"{cells_each * max(n_data, 1):,} cells each: data sets x grid values x learners x orders",
    )
    seeds = tuple(seeds)
    checkpoints = _checkpoint_spec(ck, ru.get("checkpoints", 10))
    if "holdout" in ru and isinstance(ru["holdout"], str):
        raise ck.fail(
            "run.holdout", "must be a fraction here (a holdout file belongs to a [[data]] entry)"
        )
    run_holdout = _holdout(ck, "run.holdout", ru.get("holdout"), base)
    run_split = ck.integer("run.split_seed", ru.get("split_seed", 0), 0)

    entries = top["data"]
    if not isinstance(entries, list) or not entries:
        raise ck.fail("data", "must be a non-empty array of tables ([[data]])")
    data: list[DataSpec] = []
    for i, entry in enumerate(entries):
        data += _parse_data(ck, i, entry, base, run_holdout, run_split, cells_each * len(seeds))
    learners_raw = top["learners"]
    if not isinstance(learners_raw, list) or not learners_raw:
        raise ck.fail("learners", "must be a non-empty array of tables ([[learners]])")
    learners = [_parse_learner(ck, i, e, base) for i, e in enumerate(learners_raw)]
    for what, items in (("data", data), ("learners", learners)):
        seen: dict[str, str] = {}
        for it in items:
            if it.label in seen:
                raise ck.fail(
                    f"{it.key}.name" if what == "data" else f"{it.key}.label",
                    f"{it.label!r} is already the name of {seen[it.label]}; "
                    "give each a distinct name",
                )
            seen[it.label] = it.key

    norm = {
        "name": name,
        "problem": {
            grid_parameter: list(grid),
            "intercept": intercept,
            "intercept_scaling": scaling,
            "solver": solver,
        },
        "run": {
            "epochs": epochs,
            "seeds": list(seeds),
            "orders": list(orders),
            "checkpoints": list(checkpoints) if isinstance(checkpoints, tuple) else checkpoints,
        },
        **{
            what: [{k: v for k, v in vars(it).items() if k != "key"} for it in items]
            for what, items in (("data", data), ("learners", learners))
        },
    }
    return StudySpec(
        name=name,
        grid_parameter=grid_parameter,
        grid=grid,
        intercept=intercept,
        intercept_scaling=scaling,
        solver=solver,
        epochs=epochs,
        seeds=seeds,
        orders=tuple(orders),
        checkpoints=checkpoints,
        data=tuple(data),
        learners=tuple(learners),
        source=ck.source,
        raw=norm,
    )
