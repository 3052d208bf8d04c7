"""The conventions every output of maxmargin reads: one place for each dialect choice.

Intercept modes and losses, the problem in words, the names of features and weights, the
iterate styles, the statistic over seeds, scikit-learn's parameter names. Imports nothing
of maxmargin but its exceptions, so every room may read it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from .exceptions import ParameterError

__all__ = [
    "INTERCEPTS",
    "DEFAULT_INTERCEPT",
    "LOSSES",
    "DEFAULT_LOSS",
    "intercept_for",
    "describe_problem",
    "weight_names",
    "feature_names",
    "ITERATE_STYLES",
    "ITERATE_LABELS",
    "STATISTIC",
    "summarize",
    "SKLEARN_NAMES",
    "seed_of",
    "resolve_sklearn",
    "sklearn_names",
]

F = TypeVar("F", bound=Callable[..., Any])

# --------------------------------------------------------------------------- intercept

#: The intercept modes: ``"free"`` (an unregularised bias ``b``), ``"none"`` (no bias),
#: ``"augmented"`` (a constant feature, so the bias is regularised like ``w``).
INTERCEPTS = ("free", "none", "augmented")

#: The intercept of a problem when none is given: the textbook SVM's free bias.
DEFAULT_INTERCEPT = "free"

# --------------------------------------------------------------------------- loss

#: The soft-margin losses: ``"hinge"`` (``xi_i``) and ``"squared_hinge"`` (``xi_i^2``).
LOSSES = ("hinge", "squared_hinge")

#: The loss of a problem when none is given: the textbook SVM's hinge.
DEFAULT_LOSS = "hinge"


def intercept_for(supported: Sequence[str], requested: str | None = None) -> str:
    """The intercept mode a learner runs with: the one asked for, else the default's kin.

    ``requested`` if in ``supported``, else :data:`DEFAULT_INTERCEPT`, else ``"augmented"``
    (when supported), else ``supported[0]``.

    Parameters
    ----------
    supported : sequence of str
    requested : str or None, default None

    Returns
    -------
    str

    Examples
    --------
    >>> intercept_for(("none", "augmented", "free"))
    'free'
    >>> intercept_for(("none", "augmented")), intercept_for(("none",), "free")
    ('augmented', 'none')
    """
    for mode in (requested, DEFAULT_INTERCEPT, "augmented"):
        if mode is not None and mode in supported:
            return mode
    return supported[0]


def describe_problem(
    C: float, lam: float, intercept: str, intercept_scaling: float = 1.0, hard: bool = False
) -> str:
    """The problem in words: what a table or a JSON ``scored_against`` says it scores against.

    Parameters
    ----------
    C : float (inf when hard)
    lam : float, 1 / (n C)
    intercept : {"free", "augmented", "none"}
    intercept_scaling : float, default 1.0
    hard : bool, default False

    Returns
    -------
    str

    Examples
    --------
    >>> describe_problem(1.0, 0.01, "free")
    'soft margin, C = 1 (lambda = 0.01), intercept free (b unregularised)'
    >>> describe_problem(float("inf"), 0.0, "augmented", 2.0, hard=True)
    'hard margin, intercept augmented (b = s w~_(d+1) regularised, s = 2)'
    """
    how = {
        "free": "intercept free (b unregularised)",
        "augmented": f"intercept augmented (b = s w~_(d+1) regularised, s = {intercept_scaling:g})",
        "none": "intercept none (b = 0)",
    }[intercept]
    if hard:
        return f"hard margin, {how}"
    return f"soft margin, C = {C:.6g} (lambda = {lam:.6g}), {how}"


# --------------------------------------------------------------------------- names


def feature_names(names: Sequence[str] | None, d: int) -> list[str]:
    """The names of the features: the data's own, else ``x[j]`` (``j`` 0-based).

    Parameters
    ----------
    names : sequence of str or None
    d : int

    Returns
    -------
    list of str, length d

    Examples
    --------
    >>> feature_names(["age", "dose"], 2), feature_names(None, 2)
    (['age', 'dose'], ['x[0]', 'x[1]'])
    """
    return [f"x[{j}]" for j in range(d)] if names is None else [str(s) for s in names]


def weight_names(feature_names: Sequence[str] | None, d: int) -> list[str]:
    """The names of a weight vector's coordinates: ``w[<name>]``, or ``w[<j>]`` (0-based).

    Parameters
    ----------
    feature_names : sequence of str or None
    d : int

    Returns
    -------
    list of str, length d

    Examples
    --------
    >>> weight_names(["age", "dose"], 2), weight_names(None, 2)
    (['w[age]', 'w[dose]'], ['w[0]', 'w[1]'])
    """
    names = [str(j) for j in range(d)] if feature_names is None else list(feature_names)
    return [f"w[{name}]" for name in names]


# --------------------------------------------------------------------------- figures

#: How each iterate is drawn (``Axes.plot`` keywords); the learner gives the colour.
ITERATE_STYLES: Mapping[str, Mapping[str, Any]] = {
    "average": {"linestyle": "-", "linewidth": 1.8},
    "last": {"linestyle": "--", "linewidth": 1.1},
}

#: How each iterate is named in legends and tables.
ITERATE_LABELS: Mapping[str, str] = {"average": "average", "last": "last iterate"}

# --------------------------------------------------------------------------- over seeds

#: The statistic over seeds, as tables and figures name it.
STATISTIC = "median over seeds [min, max]"


def summarize(values: Any, axis: int = 0) -> tuple[Any, Any, Any]:
    """The summary over seeds: the median and the range ``[min, max]``.

    Order statistics: exact and robust with three to five seeds. A NaN among the values
    makes all three NaN (N/A).

    Parameters
    ----------
    values : array_like, one per seed along axis (curves: shape (seeds, t))
    axis : int, default 0

    Returns
    -------
    (center, lo, hi) : floats or arrays

    Examples
    --------
    >>> summarize([1.0, 2.0, 10.0])
    (2.0, 1.0, 10.0)
    >>> [float(v) for v in summarize([1.0, float("nan"), 10.0])]
    [nan, nan, nan]
    """
    v = np.asarray(values, dtype=float)
    center, lo, hi = np.median(v, axis=axis), np.min(v, axis=axis), np.max(v, axis=axis)
    if center.ndim == 0:
        return float(center), float(lo), float(hi)
    return center, lo, hi


# --------------------------------------------------------------------------- scikit-learn

#: scikit-learn's name of a parameter -> maxmargin's: accepted wherever the own one is.
SKLEARN_NAMES: Mapping[str, str] = {
    "random_state": "seed",
    "max_iter": "epochs",
    "alpha": "lam",
    "Cs": "C",
    "alphas": "lam",
}

_UNSET: Any = object()


def seed_of(random_state: Any) -> int | None:
    """The seed scikit-learn's ``random_state`` stands for.

    None keeps maxmargin's own seed: results stay reproducible, unlike scikit-learn's None.
    An int >= 0 is the seed; a RandomState or a Generator draws one, as ``SGDClassifier``.

    Parameters
    ----------
    random_state : None, int >= 0, numpy RandomState or Generator

    Returns
    -------
    int or None

    Examples
    --------
    >>> seed_of(None), seed_of(7)
    (None, 7)
    """
    if random_state is None:
        return None
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    if (
        isinstance(random_state, (bool, np.bool_))
        or not isinstance(random_state, (int, np.integer))
        or random_state < 0
    ):
        raise ParameterError(
            "The 'random_state' parameter must be None, an int >= 0, a numpy RandomState "
            f"or Generator. Got {random_state!r} instead."
        )
    return int(random_state)


def _agree(a: Any, b: Any) -> bool:
    """Whether two values of one parameter are the same (numbers, grids, seeds)."""
    a, b = (v[0] if isinstance(v, (list, tuple)) and len(v) == 1 else v for v in (a, b))
    try:  # seeds=[3] and random_state=3 say the same
        return bool(np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object)))
    except (TypeError, ValueError):  # pragma: no cover - objects numpy cannot hold
        return a is b


def resolve_sklearn(
    name: str, value: Any, alias: str, alias_value: Any, *, default: Any = _UNSET
) -> Any:
    """The value of parameter ``name`` when scikit-learn's ``alias`` may be given instead.

    A ``value`` equal to ``default`` counts as not given; both given and different: refused.

    Parameters
    ----------
    name : str, maxmargin's name
    value : object
    alias : str, scikit-learn's name
    alias_value : object (None: not given)
    default : object, optional

    Returns
    -------
    object

    Examples
    --------
    >>> resolve_sklearn("epochs", 10, "max_iter", 3, default=10)
    3
    >>> resolve_sklearn("seed", 0, "random_state", None)
    0
    >>> resolve_sklearn("epochs", 4, "max_iter", 3)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    maxmargin.exceptions.ParameterError: epochs=4 and max_iter=3 disagree: give one ...
    """
    if alias_value is None:
        return value
    own = alias_value
    if alias == "random_state":
        own = seed_of(alias_value)
        if name == "seeds":
            own = (own,)
    given = value is not None and (default is _UNSET or not _agree(value, default))
    if given and not _agree(value, own):
        raise ParameterError(
            f"{name}={value!r} and {alias}={alias_value!r} disagree: give one of them "
            f"({alias} is scikit-learn's name for {name})"
        )
    return own


def sklearn_names(**rename: str) -> Callable[[F], F]:
    """Accept scikit-learn's names of a function's parameters: ``@sklearn_names(alpha="lam")``.

    A given alias becomes the own parameter's value (:func:`resolve_sklearn`).

    Parameters
    ----------
    **rename : str, scikit-learn's name=maxmargin's name

    Returns
    -------
    callable, the decorator

    Examples
    --------
    >>> @sklearn_names(max_iter="epochs", random_state="seed")
    ... def run(data, epochs=1, seed=0):
    ...     return epochs, seed
    >>> run(None, max_iter=5, random_state=3), run(None, 2)
    ((5, 3), (2, 0))
    """
    unknown = sorted(set(rename) - set(SKLEARN_NAMES))
    if unknown:
        raise ValueError(f"not scikit-learn names that maxmargin accepts: {unknown}")

    def decorate(func: F) -> F:
        sig = inspect.signature(func)
        missing = [own for own in rename.values() if own not in sig.parameters]
        if missing:
            raise ValueError(f"{func.__name__} has no parameter {missing}")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            aliases = {a: kwargs.pop(a) for a in rename if a in kwargs}
            if not aliases:
                return func(*args, **kwargs)
            bound = sig.bind_partial(*args, **kwargs)
            for alias, alias_value in aliases.items():
                own = rename[alias]
                value = bound.arguments.get(own)
                bound.arguments[own] = resolve_sklearn(own, value, alias, alias_value)
            return func(*bound.args, **bound.kwargs)

        extra = [inspect.Parameter(a, inspect.Parameter.KEYWORD_ONLY, default=None) for a in rename]
        params = list(sig.parameters.values())
        var_kw = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
        params = [p for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD]
        wrapper.__signature__ = sig.replace(parameters=params + extra + var_kw)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
