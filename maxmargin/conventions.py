"""The conventions every output of maxmargin reads: intercept modes, weight names.

One place for each: the intercept modes a problem may have and the default one, the
intercept a learner gets, and the names of a weight vector's coordinates (in CSV files,
DataFrames and tables). Imports nothing of maxmargin, so every room may read it.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["INTERCEPTS", "DEFAULT_INTERCEPT", "intercept_for", "weight_names"]

#: The intercept modes: ``"free"`` (an unregularised bias ``b``), ``"none"`` (no bias),
#: ``"augmented"`` (a constant feature, so the bias is regularised like ``w``).
INTERCEPTS = ("free", "none", "augmented")

#: The intercept of a problem when none is given: the textbook SVM's free bias.
DEFAULT_INTERCEPT = "free"


def intercept_for(supported: Sequence[str], requested: str | None = None) -> str:
    """The intercept mode a learner runs with: the one asked for, else the default's kin.

    Parameters
    ----------
    supported : sequence of str
        The modes the learner supports, in its order of preference.
    requested : str or None
        The mode asked for, if any (returned when the learner supports it).

    Returns
    -------
    str
        ``requested`` if supported, else :data:`DEFAULT_INTERCEPT` if supported, else
        ``"augmented"`` if supported, else the learner's first mode.

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


def weight_names(feature_names: Sequence[str] | None, d: int) -> list[str]:
    """The names of a weight vector's coordinates: ``w[<name>]``, or ``w[<j>]`` (0-based).

    Parameters
    ----------
    feature_names : sequence of str or None
    d : int

    Returns
    -------
    list of str

    Examples
    --------
    >>> weight_names(["age", "dose"], 2), weight_names(None, 2)
    (['w[age]', 'w[dose]'], ['w[0]', 'w[1]'])
    """
    names = [str(j) for j in range(d)] if feature_names is None else list(feature_names)
    return [f"w[{name}]" for name in names]
