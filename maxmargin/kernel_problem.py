"""The kernel SVM problem (:class:`KernelProblem`): data, kernel, C or hard margin, intercept.

``SVMProblem(data, C=..., kernel=...)`` with a kernel other than ``"linear"`` builds one
(:func:`svm_problem`); its dual and primal are in ``docs/kernels.md`` ("The problem and
its dual").
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from . import io
from ._validation import check_bool, check_positive, reciprocal_form
from .data import Dataset
from .data.weights import combine_weights
from .exceptions import DataError, ParameterError
from .kernels import GramOperator, Kernel, check_psd, make_kernel

__all__ = ["KernelProblem", "KERNEL_INTERCEPTS", "svm_problem"]

#: Intercept modes of the kernel dual (``augmented`` is the linear solver's only).
KERNEL_INTERCEPTS = ("free", "none")

#: The kernels with a gamma (resolved from the training rows when ``scale``/``auto``).
_GAMMA_KERNELS = ("rbf", "poly", "sigmoid")


def one_form(C: float | None, lam: float | None, hard: Any) -> bool:
    """Refuse more than one of C, lam and ``hard=True``; the checked ``hard``."""
    given = [k for k, v in (("C", C), ("lam", lam)) if v is not None]
    hard = check_bool("hard", hard)
    if hard:
        given.append("hard")
    if len(given) > 1:
        raise ParameterError(
            f"give only one of C, lam or hard=True (got {', '.join(given)}); "
            "lam = 1/(C n) is derived from C and vice versa"
        )
    return bool(hard)


class OnData:
    """The data, their check and the costs the linear and the kernel problem share."""

    _WHAT = "problem"
    _data: Dataset | None
    data_name: str
    n: int
    d: int
    C: float
    weights: np.ndarray | None

    @property
    def data(self) -> Dataset:
        """The problem's data (a problem read from a file has none: :meth:`with_data`)."""
        if self._data is None:
            raise DataError(
                f"{self.data_name}: this {self._WHAT} was read from a file without its data; "
                "give them: from_json(file, data), or .with_data(data)"
            )
        return self._data

    def _check_shape(self, data: Dataset) -> None:
        if not isinstance(data, Dataset):
            raise ParameterError(f"data must be a maxmargin.Dataset, got {type(data).__name__}")
        if (data.n, data.d) != (self.n, self.d):
            raise DataError(
                f"the {self._WHAT} is of data with n={self.n}, d={self.d}; {data.name} has "
                f"n={data.n}, d={data.d}: give the data it was stated on"
            )

    @cached_property
    def costs(self) -> np.ndarray:
        """The per-example costs ``C_i = C s_i``, shape (n,) (``inf`` for hard margin).

        The hinge's dual box is ``0 <= alpha_i <= C_i``; the squared hinge has no box, and its
        dual gains ``- alpha_i^2 / (4 C_i)``.
        """
        if self.weights is None:
            return np.full(self.n, self.C)
        return self.C * self.weights


class _KernelCodec(io.Codec):
    """A :class:`~maxmargin.kernels.Kernel` as ``{"name", "gamma", "degree", "coef0"}``."""

    def dump(self, value: Kernel) -> dict[str, Any]:  # noqa: D102
        name = value.name
        return {
            "name": name,
            "gamma": None if name == "linear" else float(value.resolve_gamma(None)),
            "degree": value.degree if name == "poly" else None,
            "coef0": value.coef0 if name in ("poly", "sigmoid") else None,
        }

    def load(self, doc: Any) -> Kernel:  # noqa: D102
        name = io.Str().load(doc["name"])
        if name == "callable":
            raise DataError("the kernel was a Python function, which no file holds")
        kw: dict[str, Any] = {"gamma": io.Number().load(doc["gamma"])}
        if name not in _GAMMA_KERNELS:
            kw = {}
        if doc.get("degree") is not None:
            kw["degree"] = io.Int().load(doc["degree"])
        if doc.get("coef0") is not None:
            kw["coef0"] = io.Number().load(doc["coef0"])
        return Kernel(name, **kw)


@dataclass(frozen=True, eq=False, init=False, kw_only=True)
class KernelProblem(OnData, io.Persistent):
    """A kernel SVM problem on a :class:`~maxmargin.Dataset`.

    Parameters
    ----------
    data : Dataset
    kernel : str, callable or Kernel, default "rbf" ("precomputed": ``data.X`` is the Gram)
    C : float or None
    hard : bool, default False
    intercept : {"free", "none"}, default "free"
    gamma, degree, coef0 : as :class:`sklearn.svm.SVC` takes them
    sample_weight, class_weight : as in :class:`~maxmargin.SVMProblem`
    check : bool, default True, run :func:`~maxmargin.kernels.check_psd` before any solving

    Attributes
    ----------
    kernel : Kernel
        Its gamma resolved on the training rows.
    gram : GramOperator
        The kernel bound to the training rows.
    weights : ndarray of shape (n,) or None

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> p = KernelProblem(Dataset([[0.0], [1.0]], [-1, 1]), "rbf", C=2.0, gamma=1.0)
    >>> p.costs.tolist(), p.gram.gamma
    ([2.0, 2.0], 1.0)
    """

    _WHAT = "kernel problem"
    _data: Dataset | None = io.transient()  # None: read from a file without its data
    data_name: str = io.persist(key="data")
    n: int
    d: int
    kernel: Kernel = io.persist(_KernelCodec())
    C: float
    hard: bool
    intercept: str
    weights: np.ndarray | None
    _gram: GramOperator | None = io.transient()

    def __init__(
        self,
        data: Dataset,
        kernel: Any = "rbf",
        C: float | None = None,
        hard: bool = False,
        intercept: str = "free",
        *,
        gamma: float | str = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        sample_weight: Any = None,
        class_weight: Any = None,
        check: bool = True,
    ) -> None:
        if not isinstance(data, Dataset):
            raise ParameterError(f"KernelProblem needs a Dataset, got {type(data).__name__}")
        if intercept not in KERNEL_INTERCEPTS:
            raise ParameterError(
                f"The 'intercept' parameter of a kernel SVM must be one of "
                f"{', '.join(map(repr, KERNEL_INTERCEPTS))}. Got {intercept!r} instead."
            )
        if hard and C is not None:
            raise ParameterError("give C or hard=True, not both")
        if hard and (sample_weight is not None or class_weight is not None):
            raise ParameterError(
                "sample_weight and class_weight are costs of the soft margin (C_i = C s_i); "
                "hard margin has none"
            )
        Cv = math.inf if hard else check_positive("C", 1.0 if C is None else C)
        k = make_kernel(kernel, gamma=gamma, degree=degree, coef0=coef0)
        weights, _ = combine_weights(data, sample_weight, class_weight)
        if weights is not None and not math.isfinite(Cv * float(weights.max())):
            raise ParameterError(
                f"the costs C_i = C * weight_i overflow (C = {Cv!r}); scale the weights down"
            )
        op = GramOperator.bind(k, data.X)
        if op.n != data.n:  # pragma: no cover - Dataset checks the lengths
            raise ParameterError("the Gram and the labels disagree on n")
        if check:
            op = check_psd(op)
        if k.name in _GAMMA_KERNELS:  # the file's gamma, and the same kernel when read
            k = dataclasses.replace(k, gamma=op.gamma)
        for name, value in (
            ("_data", data),
            ("data_name", data.name),
            ("n", data.n),
            ("d", data.d),
            ("kernel", k),
            ("C", Cv),
            ("hard", bool(hard)),
            ("intercept", intercept),
            ("weights", weights),
            ("_gram", op),
        ):
            object.__setattr__(self, name, value)

    @property
    def gram(self) -> GramOperator:
        """The kernel bound to the training rows (needs the data, as :attr:`data`)."""
        if self._gram is None:
            self.data  # noqa: B018 - raises the one line that says the data are missing
        assert self._gram is not None  # a problem with its data has its Gram
        return self._gram

    def with_data(self, data: Dataset) -> KernelProblem:
        """The problem on ``data`` (checked: same n and d), built anew (the Gram checked).

        Parameters
        ----------
        data : Dataset

        Returns
        -------
        KernelProblem

        Examples
        --------
        >>> from maxmargin import Dataset
        >>> data = Dataset([[0.0], [1.0]], [-1, 1])
        >>> p = KernelProblem(data, "rbf", C=2.0).without_data()
        >>> p.kernel.gamma, p._gram is None, p.with_data(data).gram.gamma
        (4.0, True, 4.0)
        """
        self._check_shape(data)
        C = None if self.hard else self.C
        return KernelProblem(
            data, self.kernel, C, self.hard, self.intercept, sample_weight=self.weights
        )

    def __repr__(self) -> str:
        kind = "hard" if self.hard else f"C={self.C:g}"
        return (
            f"KernelProblem({self.data_name}, n={self.n}, kernel={self.kernel!r}, {kind}, "
            f"intercept={self.intercept!r})"
        )


def svm_problem(
    data: Dataset,
    C: float | None = None,
    lam: float | None = None,
    hard: bool = False,
    intercept: str = "free",
    intercept_scaling: float = 1.0,
    *,
    sample_weight: Any = None,
    class_weight: Any = None,
    kernel: Any = "rbf",
    gamma: float | str = "scale",
    degree: int = 3,
    coef0: float = 0.0,
) -> KernelProblem:
    """The :class:`KernelProblem` of ``SVMProblem``'s arguments (what it builds for a kernel).

    Parameters
    ----------
    data, C, lam, hard, intercept, sample_weight, class_weight : as in ``SVMProblem``
    intercept_scaling : float, unused (a kernel problem has no augmented intercept)
    kernel, gamma, degree, coef0 : as in :class:`KernelProblem`

    Returns
    -------
    KernelProblem

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem
    >>> p = SVMProblem(Dataset([[0.0], [1.0]], [-1, 1]), lam=0.25, kernel="rbf", gamma=1.0)
    >>> type(p).__name__, p.C
    ('KernelProblem', 2.0)
    """
    one_form(C, lam, hard)
    if lam is not None and isinstance(data, Dataset):
        C = reciprocal_form("lam", check_positive("lam", lam), data.n, "C")
    return KernelProblem(
        data,
        kernel,
        C,
        hard,
        intercept,
        gamma=gamma,
        degree=degree,
        coef0=coef0,
        sample_weight=sample_weight,
        class_weight=class_weight,
    )
