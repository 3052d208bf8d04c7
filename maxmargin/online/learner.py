"""The public protocol's base class :class:`Learner` and the declarations a learner makes.

A module of its own so that ``base`` and ``protocol`` both import it without a cycle.
See ``docs/own-learner.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .. import io
from ..conventions import DEFAULT_LOSS, LOSSES
from ..exceptions import ParameterError

if TYPE_CHECKING:
    from .base import OnlineLearner
    from .claims import Claim

__all__ = [
    "Learner",
    "OBJECTIVES",
    "SCORINGS",
    "DECLARATIONS",
    "Declared",
    "scoring",
    "prediction_errors",
    "is_learner",
]


class Learner:
    """Optional base class of a learner written in plain Python (the defaults, documented).

    Any object with ``start``, ``step`` and ``weights`` is a learner (:func:`is_learner`).
    The class attributes are the declarations of ``docs/learners.md`` ("What a learner
    declares"); ``name`` empty means the class name, ``claims`` None means what the
    declarations imply. See ``docs/own-learner.md``.

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
    loss: str = DEFAULT_LOSS
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
        """The current classifier: ``w`` (of the length of ``x``), or ``(w, b)`` for a free bias.

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


#: The objectives a learner may declare it minimises (or None).
OBJECTIVES = ("lambda", "C")

#: What a learner declares, by name (built-in or of the public protocol).
DECLARATIONS = (
    "objective",
    "loss",
    "problem_parameter",
    "mistake_driven",
    "update_margin",
    "update_step",
    "theory_rate",
    "has_dual",
    "dual_counts_updates",
    "has_average",
    "svm_space",
    "visits_schedule",
    "resumable",
    "supported_intercepts",
)


#: The methods every learner of the protocol has.
METHODS = ("start", "step", "weights")


def is_learner(obj: Any) -> bool:
    """Whether ``obj`` (an instance or a class) has the protocol's methods.

    Examples
    --------
    >>> is_learner(Learner), is_learner(object())
    (True, False)
    """
    return all(callable(getattr(obj, m, None)) for m in METHODS)


def _check_kinds(
    who: str, objective: Any, pp: Any, error: type[Exception] = ParameterError
) -> None:
    """Refuse an ``objective`` or a ``problem_parameter`` that is not one of ours."""
    if objective not in (None, *OBJECTIVES):
        raise error(f"{who}.objective must be one of {OBJECTIVES} or None, not {objective!r}")
    if pp not in (None, "lam", "C"):
        raise error(f"{who}.problem_parameter must be 'lam', 'C' or None, not {pp!r}")


def _declared(learner: Any) -> dict[str, Any]:
    """The learner's declarations, checked, with the protocol's defaults."""
    defaults = {k: getattr(Learner, k) for k in DECLARATIONS if hasattr(Learner, k)}
    defaults["visits_schedule"] = True
    out = {k: getattr(learner, k, v) for k, v in defaults.items()}
    who = type(learner).__name__
    pp = out["problem_parameter"]
    _check_kinds(who, out["objective"], pp)
    if out["loss"] not in LOSSES:
        raise ParameterError(f"{who}.loss must be one of {LOSSES}, not {out['loss']!r}")
    if pp is not None and not hasattr(learner, pp):
        raise ParameterError(
            f"{who} declares problem_parameter {pp!r} but has no attribute "
            f"{pp!r} (store the constructor's {pp} as self.{pp})"
        )
    obj = out["objective"]
    if obj is not None and not hasattr(learner, "lam" if obj == "lambda" else "C"):
        name = "lam" if obj == "lambda" else "C"
        raise ParameterError(
            f"{who} minimises the {obj} objective but has no attribute "
            f"{name!r}: store the parameter of its objective as self.{name}"
        )
    ints = tuple(out["supported_intercepts"])
    if not ints or any(i not in ("none", "augmented", "free") for i in ints):
        raise ParameterError(
            f"{who}.supported_intercepts must name some of 'none', "
            f"'augmented', 'free'; got {ints!r}"
        )
    out["supported_intercepts"] = ints
    for meth, flag in (("average", "has_average"), ("dual", "has_dual")):
        if out[flag] and not callable(getattr(learner, meth, None)):
            raise ParameterError(f"{who} declares {flag} but has no method {meth}()")
    return out


#: What a run can be scored on (see :func:`scoring`).
SCORINGS = ("objective", "linear", "mistakes")


@dataclass(frozen=True)
class Declared(io.Persistent):
    """What a learner declared, kept with its trace (:attr:`~maxmargin.Trace.declares`).

    Enough to score a trace without the learner object; ``regret_G`` is
    :meth:`OnlineLearner.regret_lipschitz` at the run's ``R = max ||z_i||``.

    Examples
    --------
    >>> from maxmargin.online import Perceptron
    >>> d = Declared.of(Perceptron(), R=2.0)
    >>> d.mistake_driven, scoring(d), io.from_dict(Declared, d.to_dict()) == d
    (True, 'linear', True)
    """

    name: str = ""
    objective: str | None = None
    loss: str = DEFAULT_LOSS
    mistake_driven: bool = False
    update_margin: float = 0.0
    update_step: float = 1.0
    theory_rate: float | None = None
    has_dual: bool = False
    dual_counts_updates: bool = False
    has_average: bool = False
    svm_space: bool = True
    visits_schedule: bool = True
    regret_G: float | None = None

    @classmethod
    def of(cls, learner: OnlineLearner, R: float) -> Declared:
        """The declarations of ``learner`` (instance values: it may narrow them) at radius ``R``."""
        G = learner.regret_lipschitz(R)
        flags = ("mistake_driven", "has_dual", "dual_counts_updates", "has_average", "svm_space")
        return cls(
            name=learner.name,
            objective=learner.objective,
            loss=str(getattr(learner, "loss", DEFAULT_LOSS)),
            update_margin=float(learner.update_margin),
            update_step=float(learner.update_step),
            theory_rate=None if learner.theory_rate is None else float(learner.theory_rate),
            visits_schedule=bool(learner.visits_schedule),
            regret_G=None if G is None else float(G),
            **{k: bool(getattr(learner, k)) for k in flags},
        )

    @classmethod
    def of_kind(cls, kind: str, name: str = "") -> Declared:
        """The declarations that give the scoring ``kind`` (weights from elsewhere)."""
        if kind not in SCORINGS:
            raise ParameterError(f"kind must be one of {', '.join(SCORINGS)}, got {kind!r}")
        return cls(
            name=name,
            objective="lambda" if kind == "objective" else None,
            svm_space=kind != "mistakes",
        )

    def regret_lipschitz(self, R: float) -> float | None:
        """The recorded ``G`` (computed at the run's ``R``; ``R`` is unused)."""
        return self.regret_G


def scoring(learner: OnlineLearner | type[OnlineLearner] | Declared) -> str:
    """What a learner is scored on: ``"objective"``, ``"linear"`` or ``"mistakes"``.

    Examples
    --------
    >>> from maxmargin.online import Pegasos, Perceptron, Winnow
    >>> [scoring(c) for c in (Pegasos, Perceptron, Winnow)]
    ['objective', 'linear', 'mistakes']
    """
    if learner.objective is not None:
        return "objective"
    return "linear" if learner.svm_space else "mistakes"


def prediction_errors(f: np.ndarray, y: np.ndarray, svm_space: bool = True) -> np.ndarray:
    """Which decision values ``f`` (shape (n,) or (n, k)) are errors.

    ``y f <= 0`` in the SVM's space (a zero score is a mistake), else ``f > 0`` predicts +1
    (Winnow's ``w.x > theta``).

    Examples
    --------
    >>> f, y = np.array([0.0, 0.0, 2.0]), np.array([1.0, -1.0, -1.0])
    >>> prediction_errors(f, y).tolist(), prediction_errors(f, y, svm_space=False).tolist()
    ([True, True, True], [True, False, True])
    """
    y = y.reshape((-1,) + (1,) * (np.ndim(f) - 1))
    if svm_space:
        return y * f <= 0
    return (f > 0) != (y > 0)
