"""The base class every online learner derives from, and the packed data it runs on."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .._validation import check_positive
from ..data import Dataset
from ..exceptions import ParameterError

__all__ = ["OnlineLearner"]

#: The Parameters entries of the inherited ``intercept`` / ``intercept_scaling``, shared by
#: the learners' docstrings through :func:`_doc_intercept`.
INTERCEPT_PARAMETERS = """\
intercept : {"augmented", "none"}, default "augmented"
    ``"augmented"`` learns the bias as one more weight: each example ``x`` of shape (d,)
    is seen as ``z = (x, s)`` of shape (d + 1,), and ``b = s * w[d]`` (the perceptron's
    ``w0 += y s`` rule); ``"none"`` fits ``f(x) = w.x`` without a bias. ``"free"`` (an
    unregularised bias) is refused: it would change the problem the learner solves.
intercept_scaling : float > 0, default 1.0
    The constant ``s`` of the augmented feature (unused with ``"none"``)."""

_MARKER = "{intercept_parameters}"


def _doc_intercept(cls: type) -> type:
    """Class decorator: put :data:`INTERCEPT_PARAMETERS` where the docstring says
    ``{intercept_parameters}``, at that line's indentation."""
    doc = cls.__doc__ or ""
    for line in doc.splitlines():
        if line.strip() == _MARKER:
            indent = line[: len(line) - len(line.lstrip())]
            text = "\n".join(indent + part if part else part
                             for part in INTERCEPT_PARAMETERS.splitlines())
            cls.__doc__ = doc.replace(line, text, 1)
            return cls
    raise AssertionError(f"{cls.__name__}.__doc__ has no {_MARKER} line")


@dataclass
class _Packed:
    """The data in the one shape every compiled kernel takes (see ``_kernels``)."""

    Xd: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    vals: np.ndarray
    sparse: bool
    y: np.ndarray
    xn2: np.ndarray  # ||z_i||^2 of the features the learner sees
    s: float  # the constant of the bias slot; 0.0 for intercept "none"
    n: int
    d: int
    record_dual: bool
    data: Dataset

    @property
    def xargs(self) -> tuple:
        """``(X,)``: the dense array, or the CSR tuple, as the kernels take it."""
        if self.sparse:
            return ((self.indptr, self.indices, self.vals),)
        return (self.Xd,)

    def Z(self) -> Any:
        """The learner's features ``(x_i, s)``, shape (n, d+1), dense or CSR."""
        X = self.data.X
        col = np.full((self.n, 1), self.s)
        if self.sparse:
            return sp.hstack([X, sp.csr_matrix(col)], format="csr")
        return np.hstack([X, col])


def _pack(data: Dataset, s: float, record_dual: bool) -> _Packed:
    X = data.X
    if sp.issparse(X):
        Xd = np.zeros((0, 0))
        indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
        indices = np.ascontiguousarray(X.indices, dtype=np.int64)
        vals = np.ascontiguousarray(X.data, dtype=np.float64)
        sparse = True
    else:
        Xd = np.ascontiguousarray(X, dtype=np.float64)
        indptr = np.zeros(1, np.int64)
        indices = np.zeros(0, np.int64)
        vals = np.zeros(0)
        sparse = False
    xn2 = data.row_norms() ** 2 + s * s
    return _Packed(Xd, indptr, indices, vals, sparse, data.y, np.ascontiguousarray(xn2),
                   float(s), data.n, data.d, bool(record_dual), data)


class OnlineLearner:
    """Base class of the online learners (not used directly).

    A learner holds its hyper-parameters only; :func:`maxmargin.online.run` creates the
    state, drives the compiled loop and records a :class:`~maxmargin.trace.Trace`.

    Parameters
    ----------
    intercept : str
        One of the learner's ``supported_intercepts``: ``"none"`` (f(x) = w.x) or
        ``"augmented"`` (x -> (x, s); the bias ``b = s w_{d+1}`` is learnt like any
        weight, the perceptron's ``w0 += y s`` rule).
    intercept_scaling : float > 0
        The constant ``s`` of the augmented mode.

    Attributes
    ----------
    name : str
        Registry name (``maxmargin.online.LEARNERS``).
    supported_intercepts : tuple of str
    has_dual : bool
        Whether the learner keeps ``w~ = sum_i a_i y_i z_i`` and can record ``a``.
    has_average : bool
        Whether the trace records an averaged iterate ``w_avg``.
    """

    name: ClassVar[str] = ""
    supported_intercepts: ClassVar[tuple[str, ...]] = ("none", "augmented")
    has_dual: ClassVar[bool] = False
    has_average: ClassVar[bool] = False
    reference: ClassVar[str] = ""
    #: a zero score predicts -1 (Winnow's ``w.x > theta``) instead of being an error
    _zero_is_negative: ClassVar[bool] = False

    def __init__(self, *, intercept: str = "augmented", intercept_scaling: float = 1.0) -> None:
        if intercept not in self.supported_intercepts:
            raise ParameterError(
                f"{type(self).__name__} supports intercept "
                f"{' or '.join(map(repr, self.supported_intercepts))}, not {intercept!r}"
                + ("; 'free' (an unregularised bias) would change the problem it solves"
                   if intercept == "free" else "")
            )
        self.intercept = intercept
        self.intercept_scaling = check_positive("intercept_scaling", intercept_scaling)

    # ------------------------------------------------------------------ parameters

    def get_params(self) -> dict[str, Any]:
        """The constructor's parameters and their values (JSON types only).

        Returns
        -------
        dict
            Parameter name to value.

        Examples
        --------
        >>> from maxmargin.online import Perceptron
        >>> Perceptron(intercept="none").get_params()
        {'intercept': 'none', 'intercept_scaling': 1.0}
        """
        out = {}
        for name in inspect.signature(type(self).__init__).parameters:
            if name != "self":
                out[name] = getattr(self, name)
        return out

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    @property
    def _s(self) -> float:
        return self.intercept_scaling if self.intercept == "augmented" else 0.0

    # ------------------------------------------------------------------ hooks for run()

    def _check_data(self, data: Dataset) -> None:
        """Raise DataError when the learner cannot run on ``data``."""

    def _align(self, ckpts: np.ndarray, n: int, epochs: int) -> np.ndarray:
        """Move checkpoints to where the learner can stop (mini-batch boundaries)."""
        return ckpts

    def _setup(self, pk: _Packed) -> SimpleNamespace:
        raise NotImplementedError

    def _advance(self, pk: _Packed, st: SimpleNamespace, idx: np.ndarray, lo: int, hi: int,
                 t0: int) -> None:
        raise NotImplementedError

    def _snapshot(self, pk: _Packed, st: SimpleNamespace, t: int) -> dict[str, Any]:
        """Return ``wt`` (d+1,) and optionally ``wt_avg``, ``dual``, ``dual_avg``,
        ``extra`` (dict of per-checkpoint scalars or arrays)."""
        raise NotImplementedError

    def _halted(self, st: SimpleNamespace) -> bool:
        """True when the learner has stopped (the PLA after a clean pass): ``run`` ends the
        run at this epoch's end."""
        return False

    def _stats(self, st: SimpleNamespace) -> tuple[int, float, float]:
        return int(st.st[0]), float(st.st[1]), float(st.st[2])

    def _final(self, pk: _Packed, st: SimpleNamespace) -> dict[str, np.ndarray]:
        """Extra arrays saved once at the end of the run."""
        return {}

    def _decision(self, pk: _Packed, st: SimpleNamespace, w: np.ndarray, b: float) -> np.ndarray:
        """Decision values on the training data, for the final training error."""
        return np.asarray(pk.data.X @ w).ravel() + b
