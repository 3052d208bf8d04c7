"""The one JSON sanitiser of maxmargin, and the ``format`` header of every document.

JSON has no ``inf`` or ``nan``: results write ``"inf"`` / ``"-inf"`` and ``null`` (NaN:
not available); :func:`dumps` writes strict JSON. :func:`read_document` checks the header
(``docs/formats.md`` lists the kinds, their keys and their loaders).
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

import numpy as np

from .._version import __version__
from ..exceptions import DataError

__all__ = [
    "jsonable",
    "json_number",
    "json_float",
    "dumps",
    "loads_strict",
    "format_header",
    "read_document",
    "FORMATS",
]

#: The documents maxmargin writes: kind -> (version this maxmargin writes and reads, the
#: loader to name in messages). docs/formats.md describes each.
FORMATS: dict[str, tuple[int, str]] = {
    "solution": (2, "ExactSolution.from_json"),
    "not_separable": (1, "json.load; its certificate: SeparationCertificate.from_json"),
    "kernel_solution": (1, "KernelSolution.from_json"),
    "path": (2, "RegularizationPath.from_json"),
    "exact_path": (1, "ExactPath.from_json"),
    "comparison": (2, "Comparison.from_json"),
    "kernel_comparison": (1, "KernelComparison.from_json"),
    "trace": (1, "Trace.load"),
    "study": (1, "maxmargin.study (it resumes from the folder)"),
    "study_cell": (1, "maxmargin.study (it resumes from the folder)"),
    "study_ref": (1, "maxmargin.study (a cache in its refs/ folder)"),
    "output_dir": (1, "json.load (the files a command wrote into its folder)"),
    "battery_problem": (1, "maxmargin.testing.certified (its cache folder)"),
}

_FORMAT_RE = re.compile(r"maxmargin\.([a-z_]+)/(\d+)")


def jsonable(obj: Any) -> Any:
    """``obj`` in plain JSON types, recursively."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj


def json_number(x: Any) -> float | str | None:
    """``float(x)`` for JSON: a float, ``"inf"`` / ``"-inf"``, or ``None`` for NaN (N/A)."""
    return jsonable(float(x))


def json_float(x: Any) -> float:
    """The inverse of :func:`json_number`: a JSON number, ``"inf"`` / ``"-inf"`` or ``null``."""
    if x is None:
        return math.nan
    if isinstance(x, str):
        if x in ("inf", "-inf"):
            return float(x)
        raise DataError(f"expected a number, got the string {x!r}")
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise DataError(f"expected a number, got {x!r}")
    return float(x)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def dumps(obj: Any, indent: int | None = None, **kwargs: Any) -> str:
    """``obj`` as strict JSON text: :func:`jsonable`, then :func:`json.dumps`."""
    return json.dumps(jsonable(obj), indent=indent, allow_nan=False, **kwargs)


def loads_strict(text: str) -> Any:
    """Parse ``text`` as strict JSON: ``NaN``, ``Infinity`` and ``-Infinity`` are refused."""
    return json.loads(text, parse_constant=_refuse_constant)


def format_header(kind: str) -> dict[str, str]:
    """The first two keys of every JSON document maxmargin writes."""
    return {"format": f"maxmargin.{kind}/{FORMATS[kind][0]}", "maxmargin_version": __version__}


def _where(source: Any) -> str:
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "<JSON>"))


def _parse(source: Any) -> dict[str, Any]:
    """``source`` (a path, a readable text file or a dict) as a dict, or a DataError."""
    where = _where(source)
    if isinstance(source, dict):
        return dict(source)
    try:
        if isinstance(source, (str, os.PathLike)):
            with open(source, encoding="utf-8") as fh:
                doc = loads_strict(fh.read())
        elif hasattr(source, "read"):
            doc = loads_strict(source.read())
        else:
            raise DataError(
                f"expected a JSON file (a path or an open file) or a dict, got "
                f"{type(source).__name__}"
            )
    except FileNotFoundError:
        raise DataError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(f"{where}: cannot read it ({e})") from None
    except ValueError as e:
        raise DataError(f"{where}: not valid JSON ({e})") from None
    if not isinstance(doc, dict):
        raise DataError(
            f"{where}: a JSON {type(doc).__name__}, not a maxmargin document "
            '(an object with a "format" key)'
        )
    return doc


def read_document(source: Any, kind: str) -> dict[str, Any]:
    """Read a JSON document maxmargin wrote, checking that it is a ``kind``."""
    doc = _parse(source)
    where = _where(source)
    fmt = doc.get("format")
    if fmt is None:
        raise DataError(f'{where}: no "format" key: not a maxmargin {kind} document')
    m = _FORMAT_RE.fullmatch(fmt) if isinstance(fmt, str) else None
    if m is None:
        raise DataError(
            f"{where}: format {fmt!r} is not maxmargin's: not a maxmargin {kind} document"
        )
    found, version = m.group(1), int(m.group(2))
    if found != kind:
        how = FORMATS[found][1] if found in FORMATS else "a newer maxmargin"
        raise DataError(
            f"{where}: a maxmargin {found} document ({fmt}), not a {kind}; read it with {how}"
        )
    if version > FORMATS[kind][0]:
        raise DataError(
            f"{where}: written by maxmargin {doc.get('maxmargin_version', '?')} "
            f"in format {fmt}; maxmargin {__version__} reads up to "
            f"maxmargin.{kind}/{FORMATS[kind][0]}: upgrade maxmargin"
        )
    if version < FORMATS[kind][0]:  # nothing was released: no readers of old layouts
        raise DataError(
            f"{where}: written by a development version of maxmargin in {fmt}; this "
            f"maxmargin reads maxmargin.{kind}/{FORMATS[kind][0]}: compute it again"
        )
    return doc
