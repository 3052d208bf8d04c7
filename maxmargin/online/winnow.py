"""Winnow for boolean features (Littlestone 1988; the lecture notes)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import check_choice, check_positive
from ..data import Dataset
from ..exceptions import DataError, ParameterError
from ._compiled import kernels
from .base import LearnerState, OnlineLearner, PackedData, Snapshot
from .claims import PERMUTATION, MistakeBound

__all__ = ["Winnow"]


@dataclass(eq=False)
class WinnowState(LearnerState):
    """Winnow's state: the weights (from 1), the last fixed at 0 (no learnt bias)."""

    w: np.ndarray = field(default_factory=lambda: np.zeros(1))


class Winnow(OnlineLearner):
    r"""Winnow (Littlestone 1988) on features in {0, 1}.

    Weights start at 1 and the prediction is :math:`\hat y = +1` iff
    :math:`w\cdot x > \theta` (default :math:`\theta = d`, the lecture notes' ``N``). On a
    mistake only the weights of the active features (:math:`x_j = 1`) change:

    .. math::

        y_t = +1:\ w_j \leftarrow \alpha\, w_j, \qquad
        y_t = -1:\ w_j \leftarrow w_j / \alpha\ (\text{Winnow2})\ \text{ or }\ 0\
        (\text{Winnow1, elimination}).

    :math:`O(k \log d)` mistakes on a disjunction of ``k`` of ``d`` variables. No SVM
    optimum to compare with: the trace's ``b`` is ``-theta``, its ``loss`` the hinge of
    ``y (w.x - theta)``.

    Parameters
    ----------
    alpha : float > 1
        Promotion / demotion factor.
    threshold : float, optional
        ``theta`` (default ``d``).
    variant : {"winnow2", "winnow1"}
    intercept : {"none"}
        Winnow has no learnt bias.
    intercept_scaling : float > 0, default 1.0
        Unused; the learners' common signature.

    Examples
    --------
    >>> import numpy as np
    >>> from maxmargin import Dataset
    >>> from maxmargin.online import run
    >>> X = np.random.default_rng(0).integers(0, 2, size=(200, 20)).astype(float)
    >>> y = np.where(X[:, 0] + X[:, 3] > 0, 1, -1)    # target: x0 OR x3
    >>> run(Winnow(), Dataset(X, y), epochs=5).final_train_error
    0.0
    """

    name = "winnow"
    supported_intercepts = ("none",)
    reference = "Littlestone (1988); the lecture notes"
    claims = (
        MistakeBound(form="winnow", data="disjunction", reference="Littlestone (1988), Thms 7, 8"),
        PERMUTATION,
    )
    svm_space = False  # predicts w.x > theta: no SVM optimum to compare with

    def __init__(
        self,
        *,
        alpha: float = 2.0,
        threshold: float | None = None,
        variant: str = "winnow2",
        intercept: str = "none",
        intercept_scaling: float = 1.0,
    ) -> None:
        super().__init__(intercept=intercept, intercept_scaling=intercept_scaling)
        self.alpha = check_positive("alpha", alpha)
        if self.alpha <= 1.0:
            raise ParameterError(
                f"The 'alpha' parameter must be > 1 (promotion factor). Got {alpha!r} instead."
            )
        self.threshold = None if threshold is None else check_positive("threshold", threshold)
        self.variant = check_choice("variant", variant, ("winnow2", "winnow1"))

    def _check_data(self, data: Dataset) -> None:
        vals = data.X.data if data.is_sparse else data.X
        bad = (vals != 0.0) & (vals != 1.0)
        if bad.any():
            where = ""
            if not data.is_sparse:
                r, c = np.argwhere(bad)[0]
                where = f" (first at row {r}, column {c}: {data.X[r, c]!r})"
            raise DataError(
                f"{data.name}: Winnow needs features in {{0, 1}}; "
                f"{int(bad.sum())} values are not{where}. Binarize first "
                "(e.g. Dataset((X > 0).astype(float), y)) or use the perceptron"
            )

    def _theta(self, packed: PackedData) -> float:
        return float(packed.d) if self.threshold is None else self.threshold

    def _setup(self, packed: PackedData) -> WinnowState:
        state = WinnowState(w=np.append(np.ones(packed.d), 0.0))
        state.totals[3] = float(packed.d)  # ||w||^2
        return state

    def _advance(
        self, packed: PackedData, state: WinnowState, idx: np.ndarray, lo: int, hi: int, t0: int
    ) -> None:
        variant = 1 if self.variant == "winnow1" else 2
        args = (state.w, state.totals, self._theta(packed), self.alpha, variant)
        kernels.winnow_steps(*packed.xargs, packed.y, idx, lo, hi, t0, *args)

    def _snapshot(self, packed: PackedData, state: WinnowState, t: int) -> Snapshot:
        return Snapshot(state.w[:-1].copy(), -self._theta(packed))
