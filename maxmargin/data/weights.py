"""Example weights from a text file, one number per line: :func:`load_weights`."""

from __future__ import annotations

import math
from array import array
from pathlib import Path

import numpy as np

from .._validation import check_int
from ..exceptions import DataError
from ._text import TextSource, _source


def load_weights(path: str | Path, n: int | None = None) -> np.ndarray:
    r"""Example weights from a text file: one number per line, in the order of the data.

    Blank lines and lines starting with ``#`` are skipped; a first line that is not a
    number is a header (so a one-column CSV reads as well); gzip and bzip2 are read as
    the data files are.

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
        A line that is not a number, a weight that is negative or not finite, or not
        ``n`` of them.

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
