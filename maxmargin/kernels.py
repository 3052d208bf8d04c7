r"""Kernels: their specs, Gram blocks computed in chunks, and the check that a Gram is PSD.

The kernels (scikit-learn's ``linear``, ``rbf``, ``poly``, ``sigmoid``, a callable,
``precomputed``), gamma's ``scale``/``auto``, which kernels are PSD for all data, and the
rounding bounds of the entries and of ``K c`` the certificate builds on are in
``docs/kernels.md``. :class:`GramOperator` never holds a dense n x n Gram for a named kernel.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._numerics import _ETA, _TINY, _U, _gamma, _pow2
from ._validation import failure
from .exceptions import DataError, ParameterError

__all__ = [
    "KERNELS",
    "Kernel",
    "make_kernel",
    "kernel_block",
    "GramOperator",
    "check_psd",
    "DENSE_EIGEN_MAX",
]

#: The kernels by name (a Python callable is the other kind).
KERNELS = ("linear", "rbf", "poly", "sigmoid", "precomputed")

#: Largest n whose PSD check computes every eigenvalue (O(n^3)); above it, Lanczos.
DENSE_EIGEN_MAX = 2000

#: Largest Gram a callable kernel may be materialized to (bytes): its rows cannot be
#: computed inside the compiled solver.
CALLABLE_GRAM_BYTES = 2 * 1024**3

#: Entries of one kernel block computed at a time (8 bytes each: 32 MiB).
_BLOCK_ENTRIES = 4_000_000

#: Columns summed by one BLAS call in :meth:`GramOperator.matvec`: chunks of k summed
#: pairwise bound the error by ``gamma_{k + log2(m/k)}``, not ``gamma_m``.
_SUM_CHUNK = 32


@dataclass(frozen=True)
class Kernel:
    """A kernel: its name and parameters (scikit-learn's definitions).

    Parameters
    ----------
    name : str in :data:`KERNELS` or "callable", default "rbf"
    gamma : float > 0, "scale" (``1 / (d X.var())``) or "auto" (``1 / d``), default "scale"
    degree : int, default 3
    coef0 : float, default 0.0
    function : callable ``(X, Z) -> Gram block`` or None, for "callable"

    Examples
    --------
    >>> Kernel("rbf", gamma=0.5)
    Kernel(name='rbf', gamma=0.5, degree=3, coef0=0.0)
    >>> Kernel("poly", degree=2).psd_for_all_data, Kernel("sigmoid").psd_for_all_data
    (True, False)
    """

    name: str = "rbf"
    gamma: float | str = "scale"
    degree: int = 3
    coef0: float = 0.0
    function: Callable[[np.ndarray, np.ndarray], Any] | None = field(
        default=None, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.name not in (*KERNELS, "callable"):
            raise ParameterError(
                f"The 'kernel' parameter must be one of {', '.join(map(repr, KERNELS))} or "
                f"a callable. Got {self.name!r} instead."
            )
        if (self.name == "callable") != (self.function is not None):
            raise ParameterError("a callable kernel needs its function (and only it has one)")
        g = self.gamma
        if g not in ("scale", "auto"):
            if isinstance(g, (bool, str)) or not (
                isinstance(g, (int, float, np.floating)) and math.isfinite(g) and g > 0
            ):
                raise ParameterError(
                    f"The 'gamma' parameter must be a float > 0, 'scale' or 'auto'. Got {g!r}."
                )
            object.__setattr__(self, "gamma", float(g))
        if (
            isinstance(self.degree, bool)
            or not isinstance(self.degree, (int, np.integer))
            or self.degree < 0
        ):
            raise ParameterError(
                f"The 'degree' parameter must be an int >= 0. Got {self.degree!r}."
            )
        object.__setattr__(self, "degree", int(self.degree))
        try:
            c0 = float(self.coef0)
        except (TypeError, ValueError):
            raise ParameterError(
                f"The 'coef0' parameter must be a float. Got {self.coef0!r}."
            ) from None
        if not math.isfinite(c0):
            raise ParameterError(f"The 'coef0' parameter must be finite. Got {self.coef0!r}.")
        object.__setattr__(self, "coef0", c0)

    @property
    def psd_for_all_data(self) -> bool:
        """Whether the kernel is PSD for every data set (else :func:`check_psd` runs)."""
        if self.name in ("linear", "rbf"):
            return True
        return self.name == "poly" and self.coef0 >= 0

    def resolve_gamma(self, X: Any) -> float:
        """The numeric gamma for training rows ``X`` (scikit-learn's ``SVC._gamma``).

        Parameters
        ----------
        X : array_like or sparse of shape (n, d)

        Returns
        -------
        float (0 for a kernel without gamma)

        Examples
        --------
        >>> X = np.array([[0.0, 2.0], [2.0, 0.0]])
        >>> Kernel("rbf").resolve_gamma(X), Kernel("rbf", gamma="auto").resolve_gamma(X)
        (0.5, 0.5)
        """
        if self.name in ("linear", "callable", "precomputed"):
            return 0.0
        if not isinstance(self.gamma, str):
            return float(self.gamma)
        d = X.shape[1]
        if self.gamma == "auto":
            return 1.0 / d
        if sp.issparse(X):
            var = float(X.multiply(X).mean() - X.mean() ** 2)
        else:
            var = float(np.asarray(X).var())
        return 1.0 / (d * var) if var != 0 else 1.0


def make_kernel(
    kernel: str | Callable[[np.ndarray, np.ndarray], Any] | Kernel = "rbf",
    *,
    gamma: float | str = "scale",
    degree: int = 3,
    coef0: float = 0.0,
) -> Kernel:
    """A :class:`Kernel` from a name, a callable, or a Kernel (returned as it is).

    Parameters
    ----------
    kernel : str, callable or Kernel, default "rbf"
    gamma, degree, coef0 : as in :class:`Kernel`

    Returns
    -------
    Kernel

    Examples
    --------
    >>> make_kernel("poly", degree=2, coef0=1.0)
    Kernel(name='poly', gamma='scale', degree=2, coef0=1.0)
    >>> make_kernel(lambda A, B: A @ B.T).name
    'callable'
    """
    if isinstance(kernel, Kernel):
        return kernel
    if callable(kernel):
        return Kernel("callable", gamma, degree, coef0, kernel)
    if not isinstance(kernel, str):
        raise ParameterError(f"a kernel is a name, a callable or a Kernel, not {kernel!r}")
    return Kernel(kernel, gamma, degree, coef0)


def _from_dots(
    kernel: Kernel, gamma: float, dot: np.ndarray, sqa: Any = None, sqb: Any = None
) -> np.ndarray:
    """The kernel's values from the dot products ``A B^T`` (in place; ``sq*``: row norms^2)."""
    name = kernel.name
    if name == "linear":
        return dot
    if name == "rbf":
        # (||a||^2 + ||b||^2) - 2 a.b: the sum first, so that K(A, A) is symmetric
        sq = sqa[:, None] + sqb[None, :]
        dot *= -2.0
        dot += sq
        np.maximum(dot, 0.0, out=dot)
        dot *= -gamma
        return np.exp(dot, out=dot)
    dot *= gamma
    dot += kernel.coef0
    if name == "poly":
        dot **= kernel.degree  # scikit-learn's K **= degree
        return dot
    return np.tanh(dot, out=dot)


def kernel_block(kernel: Kernel, gamma: float, A: Any, B: Any) -> np.ndarray:
    """The Gram block ``k(A, B)`` by scikit-learn's formulas (no centring, no chunks).

    Parameters
    ----------
    kernel : Kernel
    gamma : float, resolved (:meth:`Kernel.resolve_gamma`)
    A, B : array_like or sparse of shape (p, d), (q, d)

    Returns
    -------
    ndarray of shape (p, q)

    Examples
    --------
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> kernel_block(Kernel("poly", degree=2, coef0=1.0), 1.0, A, A).tolist()
    [[4.0, 1.0], [1.0, 4.0]]
    """
    if kernel.name == "precomputed":
        raise ParameterError("a precomputed kernel has no formula: its Gram is the data")
    A = np.asarray(A.toarray() if sp.issparse(A) else A, dtype=float)
    B = np.asarray(B.toarray() if sp.issparse(B) else B, dtype=float)
    if kernel.name == "callable":
        return _call(kernel, A, B)
    sqa = np.einsum("ij,ij->i", A, A)
    sqb = np.einsum("ij,ij->i", B, B)
    return _from_dots(kernel, gamma, np.asarray(A @ B.T, dtype=float), sqa, sqb)


def _call(kernel: Kernel, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """A callable kernel's block, checked (real, shape, finite)."""
    try:
        out = kernel.function(A, B)  # type: ignore[misc]
        K = np.asarray(out, dtype=complex if np.iscomplexobj(out) else float)
    except (Exception, SystemExit) as e:  # the user's code (sys.exit would end silently)
        raise ParameterError(
            f"the kernel callable failed on a ({len(A)}, {len(B)}) block: it {failure(e)}"
        ) from e
    if K.dtype.kind == "c":  # a cast to float would drop the imaginary part
        raise ParameterError("the kernel callable returned complex values; a kernel is real")
    if K.shape != (len(A), len(B)):
        raise ParameterError(f"the kernel callable returned shape {K.shape}, not {len(A), len(B)}")
    if not np.isfinite(K).all():
        raise ParameterError("the kernel callable returned a value that is not finite")
    return K


@dataclass(frozen=True, eq=False)
class GramOperator:
    """A kernel bound to its n training rows: Gram blocks, diagonal, products ``K c``.

    Build it with :meth:`bind`. The arrays are read by the compiled solver as they are.

    Attributes
    ----------
    kernel : Kernel
    gamma : float
        The resolved gamma (0 where the kernel has none).
    X, sqnorms, center : ndarray of shape (n, d), (n,), (d,) or None
        The rows (centred on ``center``, their means, for ``rbf``), ``||x_i||^2``; None for a Gram.
    gram : ndarray of shape (n, n) or None
        The Gram (precomputed, or a callable's), symmetrized.
    psd_slack : float
        ``s >= 0`` with ``K + s I`` PSD (:func:`check_psd`): the certificate is about it.

    Examples
    --------
    >>> op = GramOperator.bind(Kernel("linear"), np.eye(2))
    >>> op.n, op.diag().tolist()
    (2, [1.0, 1.0])
    """

    kernel: Kernel
    gamma: float
    X: np.ndarray | None
    sqnorms: np.ndarray | None
    center: np.ndarray | None
    gram: np.ndarray | None
    psd_slack: float = 0.0

    @classmethod
    def bind(cls, kernel: Kernel, X: Any) -> GramOperator:
        """Bind ``kernel`` to training rows ``X`` (a Gram for ``precomputed``).

        PSD not yet checked: :func:`check_psd` returns the checked operator.

        Parameters
        ----------
        kernel : Kernel
        X : array_like or sparse of shape (n, d), or the (n, n) Gram

        Returns
        -------
        GramOperator

        Examples
        --------
        >>> op = GramOperator.bind(Kernel("linear"), np.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> op.block(np.array([0, 1]), np.array([1])).tolist()
        [[11.0], [25.0]]
        """
        gamma = kernel.resolve_gamma(X)
        if kernel.name == "precomputed":
            G = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=float)
            if G.ndim != 2 or G.shape[0] != G.shape[1]:
                raise DataError(
                    f"a precomputed kernel needs the square n x n Gram as X, got shape {G.shape}"
                )
            return cls(kernel, 0.0, None, None, None, _symmetrized(G))
        Xd = np.ascontiguousarray(X.toarray() if sp.issparse(X) else X, dtype=float)
        if kernel.name == "callable":
            n = Xd.shape[0]
            if 8 * n * n > CALLABLE_GRAM_BYTES:
                raise ParameterError(
                    f"a callable kernel is evaluated into the n x n Gram, and n = {n} needs "
                    f"{8 * n * n / 2**30:.1f} GiB (more than "
                    f"{CALLABLE_GRAM_BYTES / 2**30:.0f}); use a named kernel"
                )
            rows = max(1, _BLOCK_ENTRIES // max(n, 1))
            G = np.empty((n, n))
            for lo in range(0, n, rows):
                G[lo : lo + rows] = _call(kernel, Xd[lo : lo + rows], Xd)
            return cls(kernel, 0.0, None, None, None, _symmetrized(G))
        center = None
        if kernel.name == "rbf":
            center = Xd.mean(axis=0)
            Xd = np.ascontiguousarray(Xd - center)
        sq = np.einsum("ij,ij->i", Xd, Xd)
        (op := cls(kernel, gamma, Xd, sq, center, None, 0.0))._check_finite()
        return op

    def _check_finite(self) -> None:
        """Refuse a named kernel whose entries or rounding bounds (the certificate's) overflow."""
        name, g, nb, d = self.kernel.name, self.gamma, self._norm_bounds(), self.X.shape[1]  # type: ignore[union-attr]
        nmax = float(nb.max()) if nb.size else 0.0
        per_gamma = _gamma(d + 5) * (1 + 4 * _U) * 4 * nmax * nmax  # rbf's bound: e^(g this)
        if name == "rbf" and not g * per_gamma < 700.0:  # exp's range ends at 709.78
            raise ParameterError(
                f"The 'gamma' parameter is too large for these data (max ||x - mean|| = "
                f"{nmax:.3g}): the rounding of exp(-gamma ||x - z||^2) has no finite bound in "
                f"double precision; at most {700.0 / per_gamma:.3g}. Got {g!r} instead."
            )
        with np.errstate(over="ignore", invalid="ignore"):  # |K_ij| <= (g n_i n_j + c0)^p
            top = np.float64(g * nmax * nmax + abs(self.kernel.coef0)) ** float(self.kernel.degree)
            bounds = self.entry_bounds(np.arange(self.n))
        if not all(np.isfinite(b).all() for b in (top if name == "poly" else 0.0, *bounds)):
            raise ParameterError(
                f"the {name} kernel (gamma = {g:.3g}, degree = {self.kernel.degree}) on these "
                f"data (max ||x|| = {nmax:.3g}) has entries, or a rounding bound, that are not "
                "finite in double precision; use a smaller gamma or degree (or scale the data)"
            )

    @property
    def n(self) -> int:
        """The number of training rows."""
        return int(self.gram.shape[0] if self.gram is not None else self.X.shape[0])  # type: ignore[union-attr]

    def with_slack(self, slack: float) -> GramOperator:
        """The same operator with :attr:`psd_slack` raised to ``slack`` (if larger).

        Parameters
        ----------
        slack : float >= 0

        Returns
        -------
        GramOperator

        Examples
        --------
        >>> GramOperator.bind(Kernel("linear"), np.eye(2)).with_slack(0.5).psd_slack
        0.5
        """
        return dataclasses.replace(self, psd_slack=max(self.psd_slack, float(slack)))

    # ------------------------------------------------------------------ entries

    def block(self, rows: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
        """``K[rows][:, cols]``, all columns when ``cols`` is None, at once.

        Parameters
        ----------
        rows : ndarray of int, shape (p,)
        cols : ndarray of int, shape (q,), or None

        Returns
        -------
        ndarray of shape (p, q)

        Examples
        --------
        >>> GramOperator.bind(Kernel("linear"), np.eye(2)).block(np.array([1])).tolist()
        [[0.0, 1.0]]
        """
        if self.gram is not None:
            G = self.gram[rows]
            return G if cols is None else G[:, cols]
        assert self.X is not None and self.sqnorms is not None
        sq = self.sqnorms
        dot = self.X[rows] @ (self.X if cols is None else self.X[cols]).T
        return _from_dots(self.kernel, self.gamma, dot, sq[rows], sq if cols is None else sq[cols])

    def diag(self) -> np.ndarray:
        """``K_ii`` for every training row.

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> GramOperator.bind(Kernel("linear"), np.array([[1.0, 2.0], [3.0, 4.0]])).diag().tolist()
        [5.0, 25.0]
        """
        if self.gram is not None:
            return np.ascontiguousarray(np.diag(self.gram))
        assert self.sqnorms is not None
        name = self.kernel.name
        if name == "linear":
            return self.sqnorms.copy()
        if name == "rbf":
            return np.ones(self.n)
        return _from_dots(self.kernel, self.gamma, self.sqnorms.copy())

    def cross(self, Xnew: Any, cols: np.ndarray | None = None) -> np.ndarray:
        """``k(Xnew, X[cols])``: new rows against training rows.

        Parameters
        ----------
        Xnew : array_like or sparse of shape (p, d); for ``precomputed`` ``K(new, train)`` (p, n)
        cols : ndarray of int, shape (q,), or None (all training rows)

        Returns
        -------
        ndarray of shape (p, q)

        Examples
        --------
        >>> op = GramOperator.bind(Kernel("linear"), np.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> op.cross(np.array([[1.0, 0.0]])).tolist()
        [[1.0, 3.0]]
        """
        if self.kernel.name == "precomputed":
            K = np.asarray(Xnew.toarray() if sp.issparse(Xnew) else Xnew, dtype=float)
            if K.ndim != 2 or K.shape[1] != self.n:
                raise DataError(
                    f"a precomputed kernel needs K(new, train) of shape (p, {self.n}), "
                    f"got {K.shape}"
                )
            return K if cols is None else K[:, cols]
        A = np.asarray(Xnew.toarray() if sp.issparse(Xnew) else Xnew, dtype=float)
        if self.kernel.name == "callable":
            raise ParameterError("a callable's training rows are not kept: call it directly")
        assert self.X is not None
        B = self.X if cols is None else self.X[cols]
        if A.ndim != 2 or A.shape[1] != B.shape[1]:
            raise DataError(f"new rows need {B.shape[1]} features, got shape {A.shape}")
        if self.center is not None:
            A = A - self.center
        return kernel_block(self.kernel, self.gamma, A, B)

    # ------------------------------------------------------------------ rounding

    def _norm_bounds(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Upper bounds on ``||x_i||`` (the computed norms, rounded up)."""
        assert self.sqnorms is not None
        d = self.X.shape[1]  # type: ignore[union-attr]
        sq = self.sqnorms if rows is None else self.sqnorms[rows]
        return np.sqrt(sq * (1.0 + _gamma(d + 2))) * (1.0 + 2 * _U) + _TINY

    def entry_bounds(
        self, rows: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
        r"""A bound on the rounding of the computed entries of rows ``rows``.

        ``|fl(K_ij) - K_ij| <= |fl(K_ij)| sum_t A_it W_jt + B_i beta_j + E`` for every
        column j, with ``K_ij`` the exact kernel of the stored rows (for ``rbf``: of the
        data before centring, the kernel being translation-invariant).

        Parameters
        ----------
        rows : ndarray of int, shape (p,)

        Returns
        -------
        A : ndarray of shape (p, t)
        W : ndarray of shape (n, t)
        B : ndarray of shape (p,)
        beta : ndarray of shape (n,)
        E : float

        Notes
        -----
        With ``n_i >= ||x_i||``, ``d`` features, ``u = 2^-53``:

        - linear: ``gamma_d n_i n_j`` (a dot product of d terms);
        - rbf: the squared distance is off by ``Delta_ij <= gamma_{d+5} (n_i + n_j)^2``
          (the expanded formula, and the centring ``fl(x - mu)``), so ``log fl(K_ij)``
          is off by ``eta <= gamma Delta_ij + u gamma D_ij + 2.1 u`` and
          ``|fl(K) - K| <= fl(K) eta e^eta``, with ``fl(K) gamma D <= 1/e``; the
          weights ``W = (1, n_j, n_j^2)`` expand ``(n_i + n_j)^2``;
        - poly: ``s = gamma x.z + coef0`` is off by ``delta <= gamma_{d+2} (gamma n_i
          n_max + |coef0|)`` and ``|s^p - t^p| <= p max(|s|, |t|)^(p-1) |s - t|``, plus
          ``4u`` of the power;
        - sigmoid: ``|tanh'| <= 1``: ``delta`` plus ``2u`` of tanh.

        Examples
        --------
        >>> op = GramOperator.bind(Kernel("linear"), np.eye(2))
        >>> [a.shape for a in op.entry_bounds(np.array([0]))[:4]]
        [(1, 1), (2, 1), (1,), (2,)]
        """
        name = self.kernel.name
        n = self.n
        p = rows.size
        zeros = np.zeros(p)
        ones = np.ones((n, 1))
        if self.gram is not None:
            return np.zeros((p, 1)), ones, zeros, np.zeros(n), 0.0
        d = self.X.shape[1]  # type: ignore[union-attr]
        nb = self._norm_bounds()
        ni = nb[rows]
        nmax = float(nb.max()) if n else 0.0
        if name == "linear":
            return np.zeros((p, 1)), ones, _gamma(d) * ni, nb, 0.0
        g = self.gamma
        if name == "rbf":
            gd = g * _gamma(d + 5) * (1 + 4 * _U)
            # e^eta with eta at its largest over all pairs (g D >= 745 gives exactly 0)
            grow = math.exp(gd * 4 * nmax * nmax + 752.1 * _U) * (1 + 4 * _U)
            A = np.column_stack(
                [grow * (gd * ni * ni + 2.1 * _U), grow * 2 * gd * ni, np.full(p, grow * gd)]
            )
            W = np.column_stack([np.ones(n), nb, nb * nb])
            # the u g D fl(K) term: fl(K) g D <= 1/e; an exact K below the smallest
            # subnormal where fl(K) underflows to 0
            return A, W, zeros, np.zeros(n), grow * 0.37 * _U + 2 * _ETA
        c0 = abs(self.kernel.coef0)
        S = g * ni * nmax + c0
        dl = _gamma(d + 2) * (S * (1 + 4 * _U)) + _ETA
        if name == "poly":
            deg = self.kernel.degree
            if deg == 0:
                return np.zeros((p, 1)), ones, zeros, np.zeros(n), 0.0
            B = deg * (S + dl) ** (deg - 1) * dl * (1 + (deg + 4) * _U)
            return np.full((p, 1), 4 * _U), ones, B, np.ones(n), 0.0
        return np.full((p, 1), 2.1 * _U), ones, dl * (1 + 2 * _U), np.ones(n), 0.0

    def matvec(
        self,
        c: np.ndarray,
        rows: np.ndarray | None = None,
        cols: np.ndarray | None = None,
        *,
        bound: bool = False,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        r"""``q = K[rows][:, cols] c[cols]``, a block of rows at a time; optionally its error.

        Parameters
        ----------
        c : ndarray of shape (n,)
        rows : ndarray of int, shape (p,), or None (all rows)
        cols : ndarray of int or None (the non-zero entries of ``c``)
        bound : bool, default False

        Returns
        -------
        (q, err) : ndarray of shape (p,), and ``err`` bounding ``|fl(q)_i - q_i|`` against the
            exact kernel (None without ``bound``)

        Notes
        -----
        Chunks of k = :data:`_SUM_CHUNK` columns added pairwise (depth ``L``) give
        ``|fl(q)_i - (fl(K) c)_i| <= gamma_{k + L} (|fl(K)| |c|)_i`` plus underflow; ``c`` is
        scaled by a power of two first, so it neither underflows nor overflows.

        Examples
        --------
        >>> op = GramOperator.bind(Kernel("linear"), np.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> op.matvec(np.array([1.0, -1.0]))[0].tolist()
        [-6.0, -14.0]
        """
        n = self.n
        rows_ = np.arange(n) if rows is None else np.asarray(rows)
        cols_ = np.flatnonzero(c) if cols is None else np.asarray(cols)
        p, m = rows_.size, cols_.size
        q = np.zeros(p)
        if m == 0 or p == 0:
            return q, (np.zeros(p) if bound else None)
        pc = _pow2(float(np.max(np.abs(c[cols_]))))
        cs = c[cols_] / pc
        if not bound:
            rhs = cs[:, None]
        else:
            A, W, B, beta, E = self.entry_bounds(rows_)
            rhs = np.column_stack([cs, np.abs(cs)[:, None] * W[cols_]])
        nonneg = self.kernel.name == "rbf"  # K >= 0: |K| |c| from the same product
        acc = np.zeros((p, rhs.shape[1]))
        step = max(1, _BLOCK_ENTRIES // m)
        for lo in range(0, p, step):
            Kb = self.block(rows_[lo : lo + step], cols_)
            if not bound or nonneg:
                acc[lo : lo + step] = _chunked_product(Kb, rhs)
            else:
                acc[lo : lo + step, :1] = _chunked_product(Kb, rhs[:, :1])
                acc[lo : lo + step, 1:] = _chunked_product(np.abs(Kb), rhs[:, 1:])
        q = acc[:, 0] * pc
        if not bound:
            return q, None
        absK_c = acc[:, 1] * pc  # (|fl K| |c|)_i
        ac = np.abs(c[cols_])
        ent = (A * acc[:, 1:]).sum(axis=1) * pc + B * float(beta[cols_] @ ac) + E * float(ac.sum())
        k = min(_SUM_CHUNK, m)
        g = _gamma(k + math.ceil(math.log2(m / k + 1)) + 1)
        # absK_c and ent are computed too: their exact values are at most (1 + g) and
        # (1 + gamma_{m+4}) times theirs
        out = g * (1 + g) * absK_c + (m + 2) * _TINY * pc + ent * (1 + _gamma(m + 4))
        out *= 1 + 4 * _U
        if self.psd_slack:
            out = out + self.psd_slack * np.abs(c[rows_]) * (1 + 2 * _U)
        return q, out


def _chunked_product(K: np.ndarray, R: np.ndarray) -> np.ndarray:
    """``K @ R`` summed in chunks of :data:`_SUM_CHUNK` columns, added pairwise."""
    r, m = K.shape
    k = _SUM_CHUNK
    h = m // k
    parts = []
    if h:
        K3 = K[:, : h * k].reshape(r, h, k).transpose(1, 0, 2)  # views: no copy
        parts.append(np.matmul(K3, R[: h * k].reshape(h, k, -1)))
    if h * k < m:
        parts.append((K[:, h * k :] @ R[h * k :])[None])
    P = np.concatenate(parts) if len(parts) > 1 else parts[0]
    while P.shape[0] > 1:
        half = P.shape[0] // 2
        top = P[: 2 * half : 2] + P[1 : 2 * half : 2]
        P = np.concatenate([top, P[2 * half :]]) if P.shape[0] % 2 else top
    return P[0]


def _symmetrized(G: np.ndarray) -> np.ndarray:
    """``(G + G^T) / 2``; a Gram asymmetric beyond ``1e-12 max |G|`` is refused."""
    if not np.isfinite(G).all():
        raise DataError("the Gram matrix has a value that is not finite")
    asym = float(np.max(np.abs(G - G.T), initial=0.0))
    if asym == 0:
        return np.ascontiguousarray(G)
    if asym > 1e-12 * float(np.max(np.abs(G))):
        raise DataError(
            f"the Gram matrix is not symmetric (max |K - K^T| = {asym:.3g}): a kernel is"
        )
    return np.ascontiguousarray(0.5 * (G + G.T))


def _extreme_eigenvalues(op: GramOperator, dense_max: int) -> tuple[float, float]:
    """``(lambda_min, lambda_max)`` of the Gram: dense up to ``dense_max``, else Lanczos.

    A Lanczos value that did not converge is its best estimate (a Ritz value: never below
    the true one).
    """
    from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

    n = op.n
    if n <= dense_max:
        G = op.gram if op.gram is not None else op.block(np.arange(n))
        w = np.linalg.eigvalsh(G)
        return float(w[0]), float(w[-1])

    def mv(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=float).ravel()
        if op.gram is not None:
            return op.gram @ v
        return op.matvec(v, cols=np.arange(n))[0]

    A = LinearOperator((n, n), matvec=mv, dtype=float)
    out = []
    for which in ("SA", "LA"):
        try:
            vals = eigsh(
                A,
                k=1,
                which=which,
                tol=1e-8,
                maxiter=max(1000, n // 10),
                ncv=40,
                return_eigenvectors=False,
            )
        except ArpackNoConvergence as e:  # pragma: no cover - depends on the spectrum
            vals = e.eigenvalues
            if not len(vals):
                raise ParameterError(
                    "the kernel's PSD check did not converge (Lanczos); use a named PSD "
                    "kernel or fewer points"
                ) from None
        out.append(float(vals[0]))
    return out[0], out[1]


def check_psd(op: GramOperator, *, dense_max: int = DENSE_EIGEN_MAX) -> GramOperator:
    """Check that the Gram is PSD for the data, or refuse it with its smallest eigenvalue.

    Kernels PSD for all data (:attr:`Kernel.psd_for_all_data`) pass unchecked. Refused
    (DataError for a precomputed Gram, else ParameterError): ``lambda_min`` below
    ``-64 n u lambda_max``, more than rounding. Else ``op`` with ``psd_slack``
    ``max(0, -lambda_min)`` plus that tolerance; above ``dense_max`` rows the extremes come
    from Lanczos on products ``K v`` (the best found, not a proven bound).

    Parameters
    ----------
    op : GramOperator
    dense_max : int, default DENSE_EIGEN_MAX

    Returns
    -------
    GramOperator, ``op`` with its ``psd_slack``

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> op = GramOperator.bind(Kernel("callable", function=lambda A, B: -(A @ B.T)), X)
    >>> try:
    ...     check_psd(op)
    ... except ParameterError as e:
    ...     print(str(e)[:58])
    the kernel is not positive semi-definite on these data: it
    """
    if op.kernel.psd_for_all_data:
        return op
    lo, hi = _extreme_eigenvalues(op, dense_max)
    scale = max(abs(hi), abs(lo), float(np.max(np.abs(op.diag()), initial=0.0)))
    tol = 64 * op.n * _U * scale
    if lo < -tol:
        what = {
            "precomputed": "the precomputed Gram matrix",
            "callable": "the kernel",
            "sigmoid": "the sigmoid kernel",
            "poly": "the poly kernel with coef0 < 0",
        }[op.kernel.name]
        err = DataError if op.kernel.name == "precomputed" else ParameterError
        raise err(
            f"{what} is not positive semi-definite on these data: its Gram's smallest "
            f"eigenvalue is {lo:.6g} (largest {hi:.6g}); the kernel dual would not be convex"
        )
    return op.with_slack(max(0.0, -lo) + tol)
