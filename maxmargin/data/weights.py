"""Example weights: from a text file (:func:`load_weights`), by class, combined."""

from __future__ import annotations

import math
from array import array
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import check_int
from ..exceptions import DataError, ParameterError
from ._text import TextSource, _source
from .dataset import Dataset


def load_weights(path: str | Path, n: int | None = None) -> np.ndarray:
    r"""Example weights from a text file: one number per line, in the order of the data.

    Blank lines and ``#`` lines are skipped; a first line that is not a number is a header.

    Parameters
    ----------
    path : str or Path
    n : int, optional
        The number of examples the weights are for (checked).

    Returns
    -------
    ndarray of shape (n,)
        Finite and ``>= 0`` (:class:`~maxmargin.SVMProblem` checks the rest).

    Raises
    ------
    DataError
        A line that is not a number, a weight negative or not finite, or not ``n`` of them.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     f = os.path.join(tmp, "w.txt")
    ...     _ = open(f, "w").write("weight\n1\n2.5\n# a comment\n0\n")
    ...     load_weights(f, n=3).tolist()
    [1.0, 2.5, 0.0]
    """
    file, shown, _ = _source(path)
    if file is None:
        raise DataError("the weights cannot be read from standard input ('-'); give a file")
    if n is not None:
        n = check_int("n", n, minimum=1)
    values = array("d")
    count = 0  # the weights (beyond n, counted and not kept)
    first = True
    with TextSource(file, shown, "weights") as source:
        for lineno, line in enumerate(source.lines(lambda: 8.0 * len(values)), 1):
            item = line.strip().strip(",").strip()
            if not item or item.startswith("#"):
                continue
            try:
                v = float(item)
            except ValueError:
                if first:  # a header
                    first = False
                    continue
                raise DataError(
                    f"{shown} line {lineno}: {item[:40]!r} is not a number (one weight per line)"
                ) from None
            first = False
            if not (math.isfinite(v) and v >= 0):
                raise DataError(
                    f"{shown} line {lineno}: weight {item[:40]!r}; weights must be finite and >= 0"
                )
            count += 1
            if n is None or count <= n:
                values.append(v)
    if n is not None and count != n:
        raise DataError(
            f"{shown} has {count} weights, but the data have {n} examples "
            "(one weight per example, in the data's order)"
        )
    return np.frombuffer(values, float).copy() if values else np.zeros(0)


def combine_weights(
    data: Dataset, sample_weight: Any = None, class_weight: Any = None
) -> tuple[np.ndarray | None, dict | None]:
    """The example weights ``s_i = sample_weight_i * class_weight[y_i]``, checked.

    Parameters
    ----------
    data : Dataset
    sample_weight : array-like of shape (n,), optional
        Finite, ``>= 0``.
    class_weight : dict or "balanced", optional
        ``{label: weight}`` by original label (or -1/+1; a missing label weighs 1), or
        ``"balanced"``: ``n / (2 n_c)`` (scikit-learn's rule).

    Returns
    -------
    weights : ndarray of shape (n,) or None
        None when neither is given or every weight is 1 (the unweighted computation).
    class_weight : dict or None
        The weight of each original label (negative class first).

    Raises
    ------
    DataError
        A weight negative or not finite, the wrong length, or a class without weight.
    ParameterError
        A ``class_weight`` not a dict or ``"balanced"``, or naming a label not in the data.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> ds = Dataset([[0.0], [1.0], [2.0]], [-1, 1, 1])
    >>> w, cw = combine_weights(ds, class_weight="balanced")
    >>> w.tolist(), cw
    ([1.5, 0.75, 0.75], {-1: 1.5, 1: 0.75})
    >>> combine_weights(ds, [2.0, 1.0, 0.0], {1: 3.0})[0].tolist()
    [2.0, 3.0, 0.0]
    """
    if sample_weight is None and class_weight is None:
        return None, None
    y = data.y
    n = data.n
    if sample_weight is None:
        s = np.ones(n)
    else:
        try:
            s = np.array(sample_weight, dtype=float)
        except (TypeError, ValueError):
            raise DataError("sample_weight must be an array of numbers") from None
        if s.shape != (n,):
            raise DataError(
                f"sample_weight must have shape ({n},) (one weight per example), got {s.shape}"
            )
        bad = np.flatnonzero(~np.isfinite(s) | (s < 0))
        if bad.size:
            raise DataError(
                f"sample_weight must be finite and >= 0; example {bad[0]} has {float(s[bad[0]])}"
            )
    resolved = None
    if class_weight is not None:
        resolved = resolve_class_weight(data, class_weight)
        neg, pos = data.classes[0], data.classes[1]
        s = s * np.where(y > 0, resolved[pos], resolved[neg])
    if not s.any():
        raise DataError(
            f"{data.name}: every sample weight is zero; give at least one "
            "example of each class a positive weight"
        )
    for label in (-1.0, 1.0):
        if not (s[y == label] > 0).any():
            name = data.classes[0] if label < 0 else data.classes[1]
            raise DataError(
                f"{data.name}: every example of class {name!r} has weight zero; "
                "a classifier needs a positive weight in both classes"
            )
    if np.all(s == 1.0):
        return None, resolved
    s.setflags(write=False)
    return s, resolved


def resolve_class_weight(data: Dataset, class_weight: Any) -> dict:
    """``{original label: weight}`` for both classes of ``data``.

    Parameters
    ----------
    data : Dataset
    class_weight : dict or "balanced"
        As :func:`combine_weights` takes it.

    Returns
    -------
    dict
        The weight of ``data.classes[0]`` and of ``data.classes[1]``.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> ds = Dataset.from_labels([[0.0], [1.0], [2.0]], ["a", "b", "b"])
    >>> resolve_class_weight(ds, {"a": 2.0}), resolve_class_weight(ds, "balanced")
    ({'a': 2.0, 'b': 1.0}, {'a': 1.5, 'b': 0.75})
    """
    neg, pos = data.classes[0], data.classes[1]
    y = data.y
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ParameterError(f"class_weight must be a dict or 'balanced', got {class_weight!r}")
        n_pos = int((y > 0).sum())
        return {neg: data.n / (2.0 * (data.n - n_pos)), pos: data.n / (2.0 * n_pos)}
    if not isinstance(class_weight, dict):
        raise ParameterError(
            f"class_weight must be a dict {{label: weight}} or 'balanced', "
            f"got {type(class_weight).__name__}"
        )
    out = {neg: 1.0, pos: 1.0}
    for key, value in class_weight.items():
        label = _class_label(data, key)
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ParameterError(f"class_weight[{key!r}] must be a number, got {value!r}") from None
        if not (math.isfinite(v) and v >= 0):
            raise DataError(f"class_weight[{key!r}] must be finite and >= 0, got {value!r}")
        out[label] = v
    return out


def _class_label(data: Dataset, key: Any) -> Any:
    """The original label ``key`` names: one of ``data.classes`` (``"1"`` matches 1), or -1/+1."""
    neg, pos = data.classes[0], data.classes[1]
    for label in (neg, pos):
        if key == label or (
            isinstance(key, str) and not isinstance(label, str) and _same_number(key, label)
        ):
            return label
    if not isinstance(key, bool) and key in (-1, 1) and (neg, pos) != (-1, 1):
        return neg if key == -1 else pos
    raise ParameterError(
        f"class_weight names the label {key!r}, which {data.name} does "
        f"not have; its labels are {neg!r} and {pos!r}"
    )


def _same_number(text: str, label: Any) -> bool:
    try:
        return float(text) == float(label)
    except (TypeError, ValueError):
        return False
