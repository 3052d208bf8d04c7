"""The study's tidy table: one row per cell and checkpoint, assembled from the cell files.

Its columns (:data:`SCHEMA`) and what each holds: ``docs/study.md``. ``None`` (null): the
quantity does not apply, as in :class:`maxmargin.RunResult`; a failed cell has one row.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from .cells import ARRAYS, REF_SCALARS, RUN_SCALARS, Plan
from .store import Store

__all__ = ["SCHEMA", "assemble", "read_record", "write_table", "TIMING_COLUMNS"]

_STR, _INT, _FLOAT, _BOOL = "string", "int64", "float64", "bool_"


def _columns(kind: str, names: str) -> tuple[tuple[str, str], ...]:
    return tuple((name, kind) for name in names.split())


#: (column, type) of the table, in order (``docs/study.md`` says what each holds).
SCHEMA: tuple[tuple[str, str], ...] = (
    *_columns(_STR, "study spec_hash cell status"),
    *_columns(_INT, "attempts"),
    *_columns(_STR, "error data grid"),
    *_columns(_FLOAT, "value"),
    *_columns(_STR, "learner target"),
    *_columns(_INT, "seed"),
    *_columns(_STR, "order"),
    *_columns(_INT, "epochs n d"),
    *_columns(_FLOAT, "C lam F_star P_star ref_duality_gap ref_relative_gap"),
    *_columns(_BOOL, "ref_certified"),
    *_columns(_STR, "ref_solver"),
    *_columns(_INT, "n_support"),
    *_columns(_FLOAT, "R gamma"),
    *_columns(_BOOL, "separable"),
    *_columns(_INT, "t"),
    *_columns(_FLOAT, "epoch"),
    *_columns(_INT, "mistakes"),
    *((k, _FLOAT) for k in ARRAYS if k not in ("t", "mistakes")),
    *_columns(_STR, "kind learner_name learner_class learner_params intercept"),
    *_columns(_FLOAT, "regret_G novikoff rate rate_avg theory_slope"),
    *_columns(_BOOL, "novikoff_respected general_respected regret_respected"),
    *_columns(_FLOAT, "learn_seconds eval_seconds cell_seconds solve_seconds"),
    *_columns(_STR, "worker maxmargin_version numpy_version numba_version python_version"),
)

#: Columns that differ between two runs of the same cells (machine, timing, attempts).
TIMING_COLUMNS = tuple(
    "learn_seconds eval_seconds cell_seconds solve_seconds worker attempts".split()
)


#: The JSON values of each column type; None (null) fits every column.
_TYPES: dict[str, tuple[type, ...]] = {
    _STR: (str,),
    _INT: (int,),
    _FLOAT: (int, float),
    _BOOL: (bool,),
}


def _fits(value: Any, kind: str) -> bool:
    if value is None:
        return True
    if isinstance(value, bool) and kind != _BOOL:
        return False
    if isinstance(value, int) and kind in (_INT, _FLOAT) and abs(value) >= 2**63:
        return False
    return isinstance(value, _TYPES[kind])


def _usable(record: dict) -> bool:
    """Whether a cell record holds what the table needs, each of its type and length.

    Anything else (a damaged or hand-edited file) counts as missing: the cell runs again.
    """
    types = dict(SCHEMA)
    status = record.get("status")
    head = {"attempts": _INT, "error": _STR, "cell_seconds": _FLOAT, "worker": _STR}
    versions = record.get("versions", {})
    arrays, scalars = record.get("arrays"), record.get("scalars", {})
    if (
        status not in ("ok", "failed")
        or not all(_fits(record.get(k), kind) for k, kind in head.items())
        or not isinstance(versions, dict)
        or not all(_fits(v, _STR) for v in versions.values())
        or not isinstance(scalars, dict)
        or not all(_fits(scalars.get(k), types[k]) for k in (*RUN_SCALARS, *REF_SCALARS))
    ):
        return False
    if status == "failed":
        return arrays in (None, {})
    if not isinstance(arrays, dict) or not isinstance(arrays.get("t"), list) or not arrays["t"]:
        return False
    if not all(k in scalars for k in (*RUN_SCALARS, *REF_SCALARS)):
        return False
    k = len(arrays["t"])
    return all(
        (v is None and name != "t")
        or (isinstance(v, list) and len(v) == k and all(_fits(x, types[name]) for x in v))
        for name in ARRAYS
        for v in [arrays.get(name, "missing")]
    )


def read_record(store: Store, key: str) -> dict | None:
    """The record of cell ``key`` when it holds what the table needs, else None."""
    record = store.read_cell(key)
    return record if record is not None and _usable(record) else None


def _rows(plan: Plan, store: Store) -> dict[str, list]:
    spec = plan.spec
    cols: dict[str, list] = {name: [] for name, _ in SCHEMA}
    for cell in plan.cells:
        rec = read_record(store, cell.key)
        if rec is None:
            continue
        ok = rec.get("status") == "ok"
        arrays = rec.get("arrays") or {}
        k = len(arrays.get("t") or []) if ok else 1
        scalars = rec.get("scalars") or {}
        vers = rec.get("versions") or {}
        fixed = {
            "study": spec.name,
            "spec_hash": spec.hash,
            "cell": cell.key,
            "grid": spec.grid_parameter,
            "error": None if ok else rec.get("error"),
            **{k: rec.get(k) for k in ("status", "attempts", "cell_seconds", "worker")},
            **{k: getattr(cell, k) for k in "data value learner target seed order epochs".split()},
            **{f"{k}_version": vers.get(k) for k in ("maxmargin", "numpy", "numba", "python")},
        }
        n = scalars.get("n")
        for name, _ in SCHEMA:
            if name in fixed:
                cols[name] += [fixed[name]] * k
            elif name == "epoch":
                cols[name] += [t / n for t in arrays["t"]] if ok and n else [None] * k
            elif name in arrays:
                v = arrays[name]
                cols[name] += v if v is not None else [None] * k
            else:
                cols[name] += [scalars.get(name)] * k
    return cols


def assemble(plan: Plan, store: Store) -> Any:
    """The pyarrow table of every finished cell of ``plan``, in the plan's order, then ``t``."""
    import pyarrow as pa

    cols = _rows(plan, store)
    schema = pa.schema([(name, getattr(pa, typ)()) for name, typ in SCHEMA])
    return pa.Table.from_pydict(cols, schema=schema)


def write_table(table: Any, root: Path) -> list:
    """Write ``root/results.parquet`` and ``root/results.csv`` atomically; return their paths."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from ..io.files import atomic_write

    paths = []
    for name, write in (("results.parquet", pq.write_table), ("results.csv", pacsv.write_csv)):
        buf = io.BytesIO()
        write(table, buf)
        atomic_write(root / name, buf.getvalue())
        paths.append(root / name)
    return paths
