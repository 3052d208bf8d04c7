"""Small argument checks shared by every module (one message shape for all)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable

import numpy as np

from .exceptions import DataError, ParameterError


def _bad(name: str, what: str, value: object) -> ParameterError:
    """The error in scikit-learn's message shape: ``The 'C' parameter must be ...``."""
    return ParameterError(f"The {name!r} parameter must be {what}. Got {_short(value)} instead.")


def check_positive(name: str, value: object, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float > 0, or raise ParameterError in sklearn's message shape."""
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise _bad(name, "a positive float", value) from None
    if math.isnan(v) or v <= 0 or (math.isinf(v) and not allow_inf):
        raise _bad(name, f"a float in the range (0, inf{']' if allow_inf else ')'}", value)
    return v


def _short(value: object) -> str:
    """``repr(value)``, cut to one line of at most 80 characters (an array, say)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 80 else text[:77] + "..."


def as_floats(name: str, value: object) -> np.ndarray:
    """``value`` as a flat float array, or a DataError saying it holds no numbers."""
    try:
        return np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError, OverflowError):
        raise DataError(f"{name} must be an array of numbers, got {_short(value)}") from None


def check_finite(name: str, value: object) -> float:
    """Return ``value`` as a finite float, or raise ParameterError."""
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        v = math.nan
    if not math.isfinite(v):
        raise _bad(name, "a finite float", value)
    return v


def check_fraction(name: str, value: object) -> float:
    """Return ``value`` as a float in the open interval (0, 1), or raise ParameterError."""
    v = check_finite(name, value)
    if not 0.0 < v < 1.0:
        raise _bad(name, "a float in the range (0, 1)", value)
    return v


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ParameterError."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise _bad(name, f"one of {', '.join(map(repr, choices))}", value)
    return str(value)


def check_int(name: str, value: object, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an int in ``[minimum, maximum]``, or raise ParameterError.

    Python and numpy integers are ints; bools, floats and arrays are not.
    """
    import operator

    rng = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum:,}]"
    try:
        if isinstance(value, bool):
            raise TypeError
        v = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        v = None
    if v is None or v < minimum or (maximum is not None and v > maximum):
        raise _bad(name, f"an int {rng}", value)
    return v


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` as a bool (a Python or numpy bool), or raise ParameterError."""
    if not isinstance(value, (bool, np.bool_)):
        raise _bad(name, "True or False", value)
    return bool(value)


#: The largest scale whose square is a finite double (``intercept_scaling``).
MAX_SQUARABLE = math.sqrt(float.fromhex("0x1.fffffffffffffp+1023"))


def check_scale(name: str, value: object) -> float:
    """Return ``value`` as a float in ``(0, MAX_SQUARABLE]``: a scale whose square is finite."""
    v = check_positive(name, value)
    if v > MAX_SQUARABLE:
        raise ParameterError(
            f"The {name!r} parameter must be a float in the range (0, {MAX_SQUARABLE:.4g}] "
            f"(its square must be a finite double). Got {value!r} instead."
        )
    return v


#: Refuse work whose estimated memory exceeds this fraction of the available memory (the
#: estimates count the large arrays only).
MEMORY_MARGIN = 0.8


#: What to do about data too wide for memory (the usual cause: one huge feature index).
WIDE_HINT = (
    "d is the largest feature index; a LIBSVM file with one index of 3,000,000,000 "
    "has d = 3e9 and weight vectors of 24 GB: renumber the features, or drop the "
    "wide ones"
)


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _cgroup_headroom() -> int | None:
    """Bytes left under this process's cgroup memory limit (v2, then v1), if any."""
    for limit_f, usage_f in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        (
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "/sys/fs/cgroup/memory/memory.usage_in_bytes",
        ),
    ):
        try:
            with open(limit_f) as f:
                text = f.read().strip()
            if text == "max":
                return None
            limit = int(text)
            with open(usage_f) as f:
                usage = int(f.read().strip())
        except (OSError, ValueError):
            continue
        if limit >= 1 << 60:  # v1 writes "no limit" as a huge number
            return None
        return max(0, limit - usage)
    return None


def available_memory() -> int | None:
    """Bytes this process can still allocate (None: unknown): meminfo, cgroup, ``ulimit -v``."""
    found = [v for v in (_meminfo_available(), _cgroup_headroom()) if v is not None]
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/statm") as f:
                used = int(f.read().split()[0]) * int(os.sysconf("SC_PAGE_SIZE"))
            found.append(max(0, soft - used))
    except (ImportError, OSError, ValueError):
        pass
    return min(found) if found else None


def _gb(nbytes: float) -> str:
    if nbytes >= 2**28:
        return f"{nbytes / 2**30:,.1f} GiB"
    return f"{nbytes / 2**20:,.0f} MiB" if nbytes >= 2**20 else f"{nbytes / 2**10:,.0f} KiB"


def check_memory(nbytes: float, what: str, hint: str = "") -> None:
    """Refuse (DataError), before allocating, work of ``nbytes`` that cannot fit in memory."""
    avail = available_memory()
    if avail is None or nbytes <= MEMORY_MARGIN * avail:
        return
    raise DataError(
        f"{what} needs about {_gb(nbytes)} of memory, more than the "
        f"{_gb(MEMORY_MARGIN * avail)} this machine can give it "
        f"(80% of {_gb(avail)} available){'; ' + hint if hint else ''}"
    )


def check_count(
    name: str,
    value: int,
    each: float,
    unit: str,
    *,
    detail: str = "",
    base: float = 0.0,
    hint: str = "",
) -> None:
    """Refuse (ParameterError) a count of ``each`` bytes a unit that cannot fit; say what fits."""
    avail = available_memory()
    need = base + each * float(value)
    if avail is None or need <= MEMORY_MARGIN * avail:
        return
    fits = max(0, int((MEMORY_MARGIN * avail - base) // each)) if each > 0 else 0
    raise ParameterError(
        f"The {name!r} parameter gives too many {unit}: {value:,} {unit}"
        f"{' (' + detail + ')' if detail else ''} need about {_gb(need)} of memory, more "
        f"than the {_gb(MEMORY_MARGIN * avail)} this machine can give (80% of "
        f"{_gb(avail)} available); at most {fits:,} {unit} fit{'; ' + hint if hint else ''}"
    )


def reciprocal_form(name: str, value: float, n: int, other: str) -> float:
    """``1 / (value n)``: C from lam or lam from C, refused when it is not a finite double > 0."""

    def inverse(v: float) -> float:
        return math.inf if v * n == 0.0 else 1.0 / (v * n)

    derived = inverse(value)
    if 0.0 < derived < math.inf:
        return derived
    # the range where 1 / (value n) is a finite double > 0, to the last bit (the
    # estimates below are within an ulp or two of its ends)
    big = float.fromhex("0x1.fffffffffffffp+1023")
    lo, hi = 1.0 / big / n, big / n
    while not 0.0 < inverse(lo) < math.inf:
        lo = math.nextafter(lo, math.inf)
    while not 0.0 < inverse(hi) < math.inf:
        hi = math.nextafter(hi, 0.0)
    how = "overflows to inf" if derived == math.inf else "underflows to 0"
    raise ParameterError(
        f"The {name!r} parameter must be a float in the range [{lo:.3g}, {hi:.3g}] "
        f"with n = {n:,}: {other} = 1/({name} n) {how} in double precision. "
        f"Got {value!r} instead."
    )


def failure(e: BaseException) -> str:
    r"""What a user's code did, in one line: ``raised TYPE: message`` or ``called sys.exit(CODE)``.

    >>> failure(ValueError("my\nbug")), failure(SystemExit(3))
    ('raised ValueError: my', 'called sys.exit(3)')
    """
    if isinstance(e, SystemExit):
        return f"called sys.exit({'' if e.code is None else _shorten(repr(e.code))})"
    try:
        text = " ".join(str(e).split("\n", 1)[0].split())
    except Exception as bad:  # noqa: BLE001 -- the learner's __str__ is the learner's bug
        text = f"(its message cannot be printed: str() raised {type(bad).__name__})"
    return f"raised {type(e).__name__}" + (f": {_shorten(text)}" if text else "")


#: The most characters of a user's exception message a one-line error quotes.
MESSAGE_CHARS = 300


def _shorten(text: str) -> str:
    """``text``, its middle cut when it is longer than :data:`MESSAGE_CHARS`."""
    if len(text) <= MESSAGE_CHARS:
        return text
    half = MESSAGE_CHARS // 2
    return f"{text[:half]} ... ({len(text) - 2 * half:,} characters) ... {text[-half:]}"
