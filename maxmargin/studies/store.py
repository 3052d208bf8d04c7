"""The study's output folder: ``cells/<key>.json``, ``refs/<key>.npz``, atomic writes.

Nothing read back can run code (plain arrays, strict JSON, references re-certified on
their data); a file that does not parse or fit, or is not a regular file, counts as
missing: the task runs again. The layout: ``docs/study.md``.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import stat
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import scipy.sparse as sp

from ..exceptions import OutputError
from ..io.files import atomic_write, clear_dead_temporaries, make_dir
from ..io.json import FORMATS, dumps, loads_strict

__all__ = ["Store", "Separability", "Reference", "read_ref", "data_digest"]

#: The most bytes a cell record is read to (2 million checkpoints or more); a larger file
#: counts as missing.
RECORD_BYTES = 2**30


def _open_regular(path: Path) -> BinaryIO | None:
    """``path`` opened for reading when it is a regular file, not a link (nor a FIFO); else None."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    f = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        f.close()
        return None
    return f


def _unplant(path: Path) -> None:
    """Remove what is at ``path`` unless it is a regular file (never write through a link)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            path.unlink()
    except OSError:  # nothing there (or a folder: atomic_write says so)
        pass


@dataclass(frozen=True, eq=False)
class Separability:
    """A data set with what decides its separability (``hard``: solution, certificate or None)."""

    data: Any
    holdout: Any
    hard: Any
    seconds: float


@dataclass(frozen=True, eq=False)
class Reference:
    """The certified soft-margin optimum of one data set and grid value, with its data."""

    soft: Any
    hard: Any
    holdout: Any
    seconds: float


def _array_digest(h: Any, a: np.ndarray) -> None:
    a = np.ascontiguousarray(a)
    h.update(f"{a.dtype.str}{a.shape}".encode())
    h.update(a.tobytes())


def data_digest(*datasets: Any) -> str:
    """SHA-256 of the examples and labels of ``datasets`` (None entries allowed).

    Examples
    --------
    >>> from maxmargin import make_separable
    >>> data_digest(make_separable(10, seed=1)) == data_digest(make_separable(10, seed=1))
    True
    """
    h = hashlib.sha256()
    for ds in datasets:
        if ds is None:
            h.update(b"none")
            continue
        X = ds.X
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            X.sort_indices()
            h.update(b"csr")
            for part in (X.indptr, X.indices, X.data, np.asarray(X.shape)):
                _array_digest(h, part)
        else:
            _array_digest(h, np.asarray(X, dtype=float))
        _array_digest(h, ds.y)
    return h.hexdigest()


_REF_FORMAT = f"maxmargin.study_ref/{FORMATS['study_ref'][0]}"


def _data_arrays(prefix: str, ds: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A Dataset as plain arrays (CSR as its three parts) and the JSON of its names."""
    arrays: dict[str, np.ndarray] = {f"{prefix}.y": np.asarray(ds.y, dtype=float)}
    if sp.issparse(ds.X):
        X = sp.csr_matrix(ds.X)
        for part in ("data", "indices", "indptr"):
            arrays[f"{prefix}.X.{part}"] = getattr(X, part)
        arrays[f"{prefix}.X.shape"] = np.asarray(X.shape, dtype=np.int64)
    else:
        arrays[f"{prefix}.X"] = np.asarray(ds.X, dtype=float)
    classes = [c if isinstance(c, (str, int, float)) else str(c) for c in ds.classes]
    names = None if ds.feature_names is None else list(ds.feature_names)
    return arrays, {"name": ds.name, "classes": classes, "feature_names": names}


def _dataset(prefix: str, arrays: Any, doc: dict[str, Any]) -> Any:
    from ..data import Dataset

    if f"{prefix}.X.shape" in arrays:
        shape = tuple(int(v) for v in arrays[f"{prefix}.X.shape"])
        parts = (arrays[f"{prefix}.X.{p}"] for p in ("data", "indices", "indptr"))
        X: Any = sp.csr_matrix(tuple(parts), shape=shape)
    else:
        X = arrays[f"{prefix}.X"]
    names = doc["feature_names"]
    return Dataset(
        X,
        arrays[f"{prefix}.y"],
        name=str(doc["name"]),
        classes=tuple(doc["classes"]),
        feature_names=None if names is None else tuple(names),
    )


def _hard_doc(hard: Any) -> dict[str, Any] | None:
    from ..separation import SeparationCertificate

    if hard is None:
        return None
    if isinstance(hard, SeparationCertificate):
        return {"separation": {"z": hard.z, "intercept": hard.intercept, "tol": hard.tol}}
    return {"solution": hard.to_dict()}


def _solution(doc: Any, data: Any) -> Any:
    """The solution ``doc`` re-certified on ``data``; ValueError when the verdict changed."""
    from ..solution import ExactSolution

    saved = ExactSolution.from_json(doc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an uncertified reference was said so when solved
        sol = saved.with_data(data)
    if sol.certificate.ok != saved.certificate.ok:
        raise ValueError("the certificate does not say what the cache says")
    return sol


def _hard(doc: Any, data: Any) -> Any:
    from ..separation import verify_separation

    if doc is None:
        return None
    if "separation" in doc:
        s = doc["separation"]
        cert = verify_separation(data, s["z"], s["intercept"], tol=float(s["tol"]))
        if not cert.verified:
            raise ValueError("the separation certificate does not verify")
        return cert
    return _solution(doc["solution"], data)


def write_ref(path: Path, key: str, obj: Separability | Reference) -> None:
    """Write a separability or reference result (of task ``key``) as arrays and strict JSON."""
    data = obj.data if isinstance(obj, Separability) else obj.soft.problem.data
    arrays, data_doc = _data_arrays("data", data)
    doc: dict[str, Any] = {
        "format": _REF_FORMAT,
        "key": key,
        "kind": type(obj).__name__.lower(),
        "digest": data_digest(data, obj.holdout),
        "seconds": obj.seconds,
        "data": data_doc,
        "holdout": None,
        "hard": _hard_doc(obj.hard),
        "soft": obj.soft.to_dict() if isinstance(obj, Reference) else None,
    }
    if obj.holdout is not None:
        more, doc["holdout"] = _data_arrays("holdout", obj.holdout)
        arrays.update(more)
    buf = io.BytesIO()
    members: dict[str, Any] = {"meta": np.array(dumps(doc)), **arrays}
    np.savez(buf, **members)  # stored, not compressed: read back no larger than the file
    atomic_write(path, buf.getvalue(), durable=False)


def _read_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` maxmargin wrote: plain arrays only, as large as the file."""
    f = _open_regular(path)
    if f is None:
        raise ValueError("not a regular file")
    with f:
        size = os.fstat(f.fileno()).st_size
        with zipfile.ZipFile(f) as z:
            if sum(i.file_size for i in z.infolist()) > size:  # compressed: not ours
                raise ValueError("a compressed archive")
        f.seek(0)
        with np.load(f, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}


def read_ref(path: Path, key: str, digest: str | None = None) -> Separability | Reference | None:
    """The result of task ``key`` cached in ``path`` (re-certified), or None when it does not fit.

    ``digest``: the :func:`data_digest` its data must have.
    """
    try:
        arrays = _read_arrays(path)
        meta = arrays.pop("meta")
        if meta.dtype.kind != "U" or meta.ndim != 0:
            return None
        doc = loads_strict(str(meta))
        if doc.get("format") != _REF_FORMAT or doc.get("key") != key:
            return None
        data = _dataset("data", arrays, doc["data"])
        holdout = None if doc["holdout"] is None else _dataset("holdout", arrays, doc["holdout"])
        found = data_digest(data, holdout)
        if found != doc["digest"] or (digest is not None and found != digest):
            return None
        seconds = float(doc["seconds"])
        if not math.isfinite(seconds):
            return None
        hard = _hard(doc["hard"], data)
        if doc["kind"] == "separability":
            return Separability(data, holdout, hard, seconds)
        if doc["kind"] == "reference":
            return Reference(_solution(doc["soft"], data), hard, holdout, seconds)
    except Exception:  # whatever a damaged or crafted file makes the readers raise
        return None
    return None


class Store:
    """The output folder of a study (created on first use; OutputError: not writable)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.cells = self.root / "cells"
        self.refs = self.root / "refs"
        for d in (self.root, self.cells, self.refs):
            make_dir(d)
            clear_dead_temporaries(d)  # what a killed study left half-written
        try:
            probe = self.root / f".write-test-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as e:
            raise OutputError(
                f"cannot write the study's output folder {self.root}: {e.strerror or e}"
            ) from None

    def cell_path(self, key: str) -> Path:
        """Where the record of cell ``key`` lives."""
        return self.cells / f"{key}.json"

    def read_cell(self, key: str) -> dict | None:
        """The record of a finished cell, or None (missing or unreadable: run it again)."""
        f = _open_regular(self.cell_path(key))
        if f is None:
            return None
        try:
            with f:
                text = f.read(RECORD_BYTES + 1)
            if len(text) > RECORD_BYTES:
                return None
            record = json.loads(text)
        except (OSError, ValueError, RecursionError):
            return None
        return record if isinstance(record, dict) and record.get("key") == key else None

    def write_cell(self, key: str, record: dict) -> None:
        """Write the record of a finished cell (atomically; NaN and inf kept)."""
        # No fsync (5 ms a cell): a power cut at worst leaves a file that does not read,
        # which counts as missing (the cell runs again).
        _unplant(self.cell_path(key))
        atomic_write(
            self.cell_path(key), json.dumps({**record, "key": key}).encode(), durable=False
        )

    def ref_path(self, key: str) -> Path:
        """Where the result of task ``key`` (separability or reference) is cached."""
        return self.refs / f"{key}.npz"

    def load_ref(self, key: str, digest: str) -> Any:
        """The cached result of ``key`` on data of ``digest``, or None (see :func:`read_ref`)."""
        return read_ref(self.ref_path(key), key, digest)

    def save_ref(self, key: str, obj: Separability | Reference) -> Path:
        """Cache ``obj`` under ``key`` (atomically); return its path."""
        path = self.ref_path(key)
        _unplant(path)
        write_ref(path, key, obj)
        return path

    def write_text(self, name: str, text: str) -> Path:
        """Write ``DIR/name`` atomically; return its path."""
        path = self.root / name
        atomic_write(path, text.encode())
        return path
