"""Small argument checks shared by every module (one message shape for all)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from .exceptions import ParameterError


def check_positive(name: str, value: object, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float > 0, or raise ParameterError in sklearn's message shape."""
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParameterError(
            f"The {name!r} parameter must be a positive float. Got {value!r} instead."
        ) from None
    if math.isnan(v) or v <= 0 or (math.isinf(v) and not allow_inf):
        rng = "(0, inf]" if allow_inf else "(0, inf)"
        raise ParameterError(
            f"The {name!r} parameter must be a float in the range {rng}. Got {value!r} instead."
        )
    return v


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ParameterError."""
    choices = tuple(choices)
    if value not in choices:
        raise ParameterError(
            f"The {name!r} parameter must be one of {', '.join(map(repr, choices))}. "
            f"Got {value!r} instead."
        )
    return str(value)


def check_int(name: str, value: object, *, minimum: int = 1) -> int:
    """Return ``value`` as an int >= ``minimum``, or raise ParameterError."""
    if isinstance(value, bool) or not isinstance(value, (int,)) and not (
        hasattr(value, "__index__")
    ):
        raise ParameterError(
            f"The {name!r} parameter must be an int >= {minimum}. Got {value!r} instead."
        )
    v = int(value)  # type: ignore[arg-type]
    if v < minimum:
        raise ParameterError(
            f"The {name!r} parameter must be an int >= {minimum}. Got {value!r} instead."
        )
    return v
