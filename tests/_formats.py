"""Helpers of the document tests (tests/test_formats_*.py)."""

import io

import numpy as np


def _text(obj, **kw) -> io.StringIO:
    return io.StringIO(obj.to_json(**kw))


def _same(a, b) -> bool:
    """Arrays equal to the bit, nan where nan (None only where None)."""
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(
        np.all((a == b) | (np.isnan(a.astype(float)) & np.isnan(b.astype(float))))
    )
