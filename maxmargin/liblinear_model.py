"""A solved problem as a LIBLINEAR model file (``save_model``'s text), for LIBLINEAR's ``predict``.

``label`` lists the +1 class first; ``w`` one weight per feature and, when ``bias >= 0``,
the weight of a constant feature of value ``bias`` (the intercept modes:
:func:`write_liblinear_model`, Notes; ``docs/formats.md``).
"""

from __future__ import annotations

import math
import numbers
import os
from pathlib import Path
from typing import Any

import numpy as np

from .data import Dataset
from .exceptions import DataError, ParameterError
from .io.files import atomic_write
from .solution import ExactSolution

__all__ = ["write_liblinear_model", "liblinear_model_text", "liblinear_labels"]

#: LIBLINEAR's name of the solver whose problem maxmargin solves (``train -s 3``).
SOLVER_TYPE = "L2R_L1LOSS_SVC_DUAL"


def _int_label(value: Any, what: str) -> int:
    """A label as LIBLINEAR stores it: an int (``fscanf("%d")``)."""
    real = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if not real or not float(value).is_integer() or abs(float(value)) >= 2**31:
        raise ParameterError(
            f"LIBLINEAR labels are {'32-bit ' if real else ''}integers; {what} is {value!r}: "
            "pass labels=(label of +1, label of -1) as two integers"
        )
    return int(float(value))


def liblinear_labels(data: Dataset, option: str = "labels") -> tuple[int, int]:
    """The labels a LIBLINEAR model of ``data`` stores: (label of +1, label of -1), 32-bit ints.

    Parameters
    ----------
    data : Dataset
    option : str
        Named in the message.

    Returns
    -------
    (int, int)

    Raises
    ------
    ParameterError
        A label that is not an integer (``"yes"``, 0.5).

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> liblinear_labels(Dataset.from_labels([[0.0], [1.0]], [0, 1]))
    (1, 0)
    """
    neg, pos = data.classes
    try:
        return _int_label(pos, "the +1 class's label"), _int_label(neg, "the -1 class's label")
    except ParameterError:
        raise ParameterError(
            f"{option}: LIBLINEAR labels are integers; the data's labels "
            f"are {pos!r} (+1) and {neg!r} (-1): map them to integers "
            "first (or use the Python API's labels=)"
        ) from None


def _model_parts(model: Any) -> tuple[np.ndarray, float, str, float, tuple[Any, Any]]:
    """``(w, b, intercept, s, (label of +1, label of -1))`` of a solution or estimator."""
    if isinstance(model, ExactSolution):
        p = model.problem
        neg, pos = p.data.classes
        return (
            np.asarray(model.w, float),
            float(model.b),
            p.intercept,
            float(p.intercept_scaling),
            (pos, neg),
        )
    if all(hasattr(model, a) for a in ("coef_", "intercept_", "classes_", "intercept")):
        # a fitted maxmargin estimator: classes_[1] is the +1 class
        return (
            np.asarray(model.coef_, float).reshape(-1),
            float(model.intercept_[0]),
            model.intercept,
            float(getattr(model, "intercept_scaling", 1.0)),
            (model.classes_[1], model.classes_[0]),
        )
    raise ParameterError(
        f"write_liblinear_model needs an ExactSolution (maxmargin.solve) "
        f"or a fitted maxmargin estimator, got {type(model).__name__}"
    )


def _solver_type(model: Any) -> str:
    """LIBLINEAR's name of the model's problem: the L1-loss dual, or the L2-loss one (-s 1)."""
    p = getattr(model, "problem", None)
    if p is not None:
        squared = bool(p.squared)
    else:  # an estimator
        squared = getattr(model, "loss", "hinge") == "squared_hinge"
        squared = squared and not getattr(model, "hard", False)
    return "L2R_L2LOSS_SVC_DUAL" if squared else SOLVER_TYPE


def liblinear_model_text(model: Any, labels: tuple[Any, Any] | None = None) -> str:
    r"""The LIBLINEAR model file of ``model``, as text (see :func:`write_liblinear_model`).

    Parameters
    ----------
    model : ExactSolution or fitted maxmargin estimator
    labels : (int, int), optional
        The labels of the +1 and of the -1 class.

    Returns
    -------
    str
        The file's content; weights with 17 significant digits (read back to the same doubles).

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem, solve
    >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True))
    >>> print(liblinear_model_text(sol), end="")  # doctest: +NORMALIZE_WHITESPACE
    solver_type L2R_L1LOSS_SVC_DUAL
    nr_class 2
    label 1 -1
    nr_feature 1
    bias 1
    w
    0.5
    0
    """
    w, b, intercept, s, default = _model_parts(model)
    if labels is None:
        labels = default
    try:
        pos, neg = labels
    except (TypeError, ValueError):
        raise ParameterError(
            f"labels must be a pair (label of +1, label of -1), got {labels!r}"
        ) from None
    pos, neg = _int_label(pos, "the +1 class's label"), _int_label(neg, "the -1 class's label")
    if pos == neg:
        raise ParameterError(f"the two labels must differ, got {pos} twice")
    if not (np.isfinite(w).all() and math.isfinite(b)):
        raise DataError(
            "the model has non-finite weights (inf or nan): LIBLINEAR cannot "
            "read them and no prediction would mean anything"
        )
    if intercept == "none":
        bias, extra = -1.0, []
    elif intercept == "augmented":
        bias, extra = s, [b / s]
    else:  # free: a constant feature 1 whose weight is b
        bias, extra = 1.0, [b]
    lines = [
        f"solver_type {_solver_type(model)}",
        "nr_class 2",
        f"label {pos} {neg}",
        f"nr_feature {w.size}",
        f"bias {bias:.17g}",
        "w",
    ]
    lines += [f"{v + 0.0:.17g} " for v in (*w.tolist(), *extra)]  # + 0.0: no "-0"
    return "\n".join(lines) + "\n"


def write_liblinear_model(
    model: Any, path: str | os.PathLike, labels: tuple[Any, Any] | None = None
) -> Path:
    """Write ``model`` as a LIBLINEAR model file, for ``predict`` of LIBLINEAR.

    The same decision function ``f(x) = w.x + b``: the same labels wherever ``f(x) != 0``
    (on a tie LIBLINEAR returns the -1 class's label, as the estimators do;
    ``ExactSolution.predict`` returns +1 there).

    Parameters
    ----------
    model : ExactSolution or fitted maxmargin estimator
        A solved problem, or a fitted :class:`~maxmargin.estimators.ExactSVC` (or online
        classifier).
    path : str or path-like
        The file to write (atomically); its directory must exist.
    labels : (int, int), optional
        The integer labels of the +1 and the -1 class (default: the data's).

    Returns
    -------
    pathlib.Path
        ``path``.

    Notes
    -----
    ``bias`` and the last weight, per intercept mode: ``augmented``, ``bias = s`` and
    ``b/s`` (LIBLINEAR's own ``-B s`` model); ``free``, ``bias = 1`` and ``b`` (exact
    decision function, but LIBLINEAR's training always regularises its bias, so it
    would not reproduce the solution); ``none``, ``bias = -1`` and no extra weight.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from maxmargin import Dataset, SVMProblem, solve
    >>> sol = solve(SVMProblem(Dataset([[2.0], [-2.0]], [1, -1]), hard=True,
    ...                        intercept="augmented", intercept_scaling=2.0))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = write_liblinear_model(sol, pathlib.Path(tmp) / "model")
    ...     print(out.read_text().splitlines()[4])
    bias 2
    """
    return atomic_write(Path(path), liblinear_model_text(model, labels))
