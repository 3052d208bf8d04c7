"""The one JSON sanitiser of maxmargin: what every ``to_dict`` and the command write.

JSON has no ``inf`` or ``nan`` and no numpy types: results say ``"inf"``, ``"-inf"`` and
``"nan"`` (strings, which every JSON reader accepts), and arrays become lists.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["jsonable", "json_number"]


def jsonable(obj: Any) -> Any:
    """``obj`` in plain JSON types, recursively.

    numpy arrays and tuples become lists, numpy scalars Python numbers, dict keys strings,
    non-finite floats the strings ``"inf"``, ``"-inf"``, ``"nan"``; ``None``, ``bool``,
    ``int`` and ``str`` are kept.

    Examples
    --------
    >>> jsonable({"a": np.array([1.0, np.inf]), 2: (np.int64(3), None, float("nan"))})
    {'a': [1.0, 'inf'], '2': [3, None, 'nan']}
    """
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return "inf" if obj > 0 else ("-inf" if obj < 0 else "nan")
    return obj


def json_number(x: Any) -> float | str:
    """``float(x)`` for JSON: a float, or ``"inf"`` / ``"-inf"`` / ``"nan"``.

    Examples
    --------
    >>> json_number(np.float64(2)), json_number(-np.inf)
    (2.0, '-inf')
    """
    return jsonable(float(x))
