r"""The kernel SVM problem: data, kernel, C (or hard margin), intercept mode, weights.

With ``K`` the Gram of the training rows, ``c = alpha * y`` and costs ``C_i = C s_i``
(``s_i`` the example weights, 1 without), the dual solved is

.. math::

    \min_\alpha\ \tfrac12 \alpha^T Q \alpha - \mathbf 1^T \alpha, \qquad
    Q_{ij} = y_i y_j K_{ij}, \qquad 0 \le \alpha_i \le C_i, \qquad
    y^T \alpha = 0 \ \text{(free intercept only)}

(hard margin: no upper bound), and its primal, over functions ``f = sum_j c_j k(., x_j)
+ b`` of the kernel's feature space (RKHS),

.. math::

    \min_{f, b}\ \tfrac12 \|f\|_H^2 + \sum_i C_i \max(0, 1 - y_i (f(x_i) + b)),
    \qquad \|f\|_H^2 = c^T K c .

``SVMProblem(data, C=..., kernel=...)`` with a kernel other than ``"linear"`` builds one
of these (:func:`svm_problem`), and :func:`maxmargin.solve` solves it by
:func:`~maxmargin.solvers.kernel.solve_kernel_dual`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validation import check_bool, check_positive, reciprocal_form
from .data import Dataset
from .data.weights import combine_weights
from .exceptions import ParameterError
from .kernels import GramOperator, Kernel, check_psd, make_kernel

__all__ = ["KernelProblem", "KERNEL_INTERCEPTS", "svm_problem"]

#: Intercept modes of the kernel dual (``augmented`` is the linear solver's only).
KERNEL_INTERCEPTS = ("free", "none")


@dataclass(frozen=True, eq=False, init=False)
class KernelProblem:
    """A kernel SVM problem on a :class:`~maxmargin.Dataset`.

    Parameters
    ----------
    data : Dataset
        Labels in {-1, +1}; for ``kernel="precomputed"``, ``data.X`` is the n x n Gram.
    kernel : str, callable or Kernel
        See :mod:`maxmargin.kernels`.
    C : float > 0, optional
        Soft-margin penalty (default 1); not with ``hard``.
    hard : bool
        Hard margin (``C = inf``): the data must be separable in the feature space.
    intercept : {"free", "none"}
    gamma, degree, coef0
        The kernel's parameters, as :class:`sklearn.svm.SVC` takes them.
    sample_weight, class_weight
        As for :class:`~maxmargin.SVMProblem`: ``C_i = C s_i``; soft margin only.
    check : bool
        Run :func:`~maxmargin.kernels.check_psd` (default; kernels PSD for all data
        are never checked).

    Attributes
    ----------
    gram : GramOperator
        The kernel bound to the training rows (its PSD slack set by the check).
    weights : ndarray of shape (n,) or None

    Raises
    ------
    ParameterError, DataError
        A bad parameter, or a Gram that is not PSD on these data (the message gives
        its smallest eigenvalue), before any solving.

    Examples
    --------
    >>> from maxmargin import Dataset
    >>> p = KernelProblem(Dataset([[0.0], [1.0]], [-1, 1]), "rbf", C=2.0, gamma=1.0)
    >>> p.costs.tolist(), p.gram.gamma
    ([2.0, 2.0], 1.0)
    """

    data: Dataset
    kernel: Kernel
    C: float
    hard: bool
    intercept: str
    weights: np.ndarray | None
    gram: GramOperator

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
        for name, value in (
            ("data", data),
            ("kernel", k),
            ("C", Cv),
            ("hard", bool(hard)),
            ("intercept", intercept),
            ("weights", weights),
            ("gram", op),
        ):
            object.__setattr__(self, name, value)

    @property
    def n(self) -> int:
        """The number of examples."""
        return self.data.n

    @property
    def costs(self) -> np.ndarray:
        """The per-example costs ``C_i = C s_i``, shape (n,) (``inf`` for hard margin)."""
        if self.weights is None:
            return np.full(self.n, self.C)
        return self.C * self.weights

    def __repr__(self) -> str:
        kind = "hard" if self.hard else f"C={self.C:g}"
        return (
            f"KernelProblem({self.data.name}, n={self.n}, kernel={self.kernel!r}, {kind}, "
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
    data, C, lam, hard, intercept, sample_weight, class_weight
        As :class:`~maxmargin.SVMProblem` takes them (``lam = 1 / (C n)``; intercept
        ``free`` or ``none``).
    intercept_scaling : float
        Unused: the kernel problem has no augmented intercept.
    kernel, gamma, degree, coef0
        As :class:`KernelProblem` takes them.

    Returns
    -------
    KernelProblem

    Raises
    ------
    ParameterError
        More than one of C, lam and hard; a bad parameter (see :class:`KernelProblem`).

    Examples
    --------
    >>> from maxmargin import Dataset, SVMProblem
    >>> p = SVMProblem(Dataset([[0.0], [1.0]], [-1, 1]), lam=0.25, kernel="rbf", gamma=1.0)
    >>> type(p).__name__, p.C
    ('KernelProblem', 2.0)
    """
    given = [k for k, v in (("C", C), ("lam", lam)) if v is not None]
    if check_bool("hard", hard):
        given.append("hard")
    if len(given) > 1:
        raise ParameterError(
            f"give only one of C, lam or hard=True (got {', '.join(given)}); "
            "lam = 1/(C n) is derived from C and vice versa"
        )
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
