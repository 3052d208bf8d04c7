"""The public learner protocol's base class (:class:`Learner`), in a room of its own.

:mod:`maxmargin.online.base` derives the built-in learners' :class:`OnlineLearner` from it
and :mod:`maxmargin.online.protocol` documents and adapts it; both import it from here, so
there is no cycle. See ``docs/own-learner.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:
    from .claims import Claim

__all__ = ["Learner"]


class Learner:
    """Optional base class of a learner written in plain Python (the defaults, documented).

    Deriving from it is not required: any object with ``start``, ``step`` and
    ``weights`` is a learner (:func:`is_learner`). See the module's docstring and
    ``docs/own-learner.md``.

    Attributes
    ----------
    name : str
        Its name in reports; empty: the class name.
    objective : {"lambda", "C"} or None
    problem_parameter : {"lam", "C"} or None
    mistake_driven : bool
    update_margin, update_step : float
    theory_rate : float or None
    regret_G : float or None
    has_average, has_dual, dual_counts_updates, svm_space, resumable : bool
    supported_intercepts : tuple of str
    claims : tuple of Claim or None
        The theorems it claims (:mod:`maxmargin.online.claims`), which
        :func:`maxmargin.testing.check_learner` checks; None: what the declarations
        above imply.

    Examples
    --------
    >>> import numpy as np
    >>> from maxmargin import make_separable
    >>> from maxmargin.online import run
    >>> class MyPerceptron(Learner):
    ...     mistake_driven = True
    ...     def start(self, d):
    ...         self.w = np.zeros(d)
    ...     def step(self, x, y, t):
    ...         if y * (self.w @ x) <= 0:
    ...             self.w += y * x
    ...     def weights(self):
    ...         return self.w
    >>> tr = run(MyPerceptron(), make_separable(40, 2, seed=0), epochs=5)
    >>> tr.learner, tr.final_train_error
    ('MyPerceptron', 0.0)
    """

    name: ClassVar[str] = ""
    objective: str | None = None
    problem_parameter: str | None = None
    mistake_driven: bool = False
    update_margin: float = 0.0
    update_step: float = 1.0
    theory_rate: float | None = None
    regret_G: ClassVar[float | None] = None
    has_average: ClassVar[bool] = False
    has_dual: ClassVar[bool] = False
    dual_counts_updates: ClassVar[bool] = False
    svm_space: ClassVar[bool] = True
    resumable: ClassVar[bool] = False
    supported_intercepts: ClassVar[tuple[str, ...]] = ("none", "augmented")
    claims: ClassVar[tuple[Claim, ...] | None] = None

    def start(self, d: int) -> None:
        """Set a fresh state for examples of length ``d`` (called at every run's start).

        Parameters
        ----------
        d : int
            The length of the ``x`` that :meth:`step` will see.

        Examples
        --------
        >>> Learner().start(3)
        Traceback (most recent call last):
        NotImplementedError: write start(d) in your learner
        """
        raise NotImplementedError("write start(d) in your learner")

    def step(self, x: np.ndarray, y: float, t: int) -> None:
        """Take one step on the example ``(x, y)``.

        Parameters
        ----------
        x : ndarray of shape (d,)
            Read-only.
        y : float
            +1.0 or -1.0.
        t : int
            The step number, 1 for the first.

        Examples
        --------
        >>> Learner().step(np.zeros(3), 1.0, 1)
        Traceback (most recent call last):
        NotImplementedError: write step(x, y, t) in your learner
        """
        raise NotImplementedError("write step(x, y, t) in your learner")

    def weights(self) -> Any:
        """The current classifier: ``w`` (of the length of ``x``), or ``(w, b)``.

        ``(w, b)`` for a free bias.

        Returns
        -------
        ndarray or (ndarray, float)

        Examples
        --------
        >>> Learner().weights()
        Traceback (most recent call last):
        NotImplementedError: write weights() in your learner
        """
        raise NotImplementedError("write weights() in your learner")
