"""The study's output folder: one file per finished cell, cached references, atomic writes.

Layout of ``DIR``::

    cells/<key>.json     one per cell that finished (ok or failed), written atomically
    refs/<key>.pkl       exact solutions shared by cells (a cache: safe to delete)
    results.parquet      the table, assembled from the cell files of the current spec
    results.csv
    study.json           the normalised spec, its hash, the versions

Every file is written to a temporary name in the same folder and renamed over the
target (``os.replace``, atomic on POSIX and Windows), so a crash leaves either the old
file or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path
from typing import Any

from .._io import atomic_write
from ..exceptions import ParameterError

__all__ = ["Store", "read_pickle"]


def read_pickle(path: Path) -> Any:
    """Load a pickle written by :class:`Store` (a reference, read by a worker)."""
    with open(path, "rb") as f:
        return pickle.load(f)


class Store:
    """The output folder of a study (created on first use).

    Parameters
    ----------
    root : str or Path

    Raises
    ------
    ParameterError
        The folder cannot be created or written (checked before anything runs).
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.cells = self.root / "cells"
        self.refs = self.root / "refs"
        try:
            for d in (self.root, self.cells, self.refs):
                d.mkdir(parents=True, exist_ok=True)
            probe = self.root / f".write-test-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as e:
            raise ParameterError(
                f"cannot write the study's output folder {self.root}: {e.strerror or e}"
            ) from None

    # ---------------------------------------------------------------- cells

    def cell_path(self, key: str) -> Path:
        """Where the record of cell ``key`` lives."""
        return self.cells / f"{key}.json"

    def read_cell(self, key: str) -> dict | None:
        """The record of a finished cell, or None (missing or unreadable: run it again)."""
        try:
            record = json.loads(self.cell_path(key).read_text())
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) and record.get("key") == key else None

    def finished(self, key: str) -> bool:
        """Whether cell ``key`` finished successfully (failed cells run again)."""
        rec = self.read_cell(key)
        return rec is not None and rec.get("status") == "ok"

    def write_cell(self, key: str, record: dict) -> None:
        """Write the record of a finished cell (atomically; NaN and inf kept)."""
        # No fsync (it cost 5 ms a cell, as much as a small cell): a process crash cannot
        # tear the file (rename), and a power cut at worst leaves a file that does not
        # read, which counts as missing: the cell runs again.
        atomic_write(
            self.cell_path(key), json.dumps({**record, "key": key}).encode(), durable=False
        )

    # ---------------------------------------------------------------- references

    def ref_path(self, key: str) -> Path:
        """Where the pickle of task ``key`` (separability or reference) lives."""
        return self.refs / f"{key}.pkl"

    def load_ref(self, key: str) -> Any:
        """The cached object of ``key``, or None (missing or unreadable)."""
        try:
            return read_pickle(self.ref_path(key))
        except Exception:
            return None

    def save_ref(self, key: str, obj: Any) -> Path:
        """Cache ``obj`` under ``key`` (atomically); return its path."""
        path = self.ref_path(key)
        atomic_write(path, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
        return path

    def write_text(self, name: str, text: str) -> Path:
        """Write ``DIR/name`` atomically; return its path."""
        path = self.root / name
        atomic_write(path, text.encode())
        return path
