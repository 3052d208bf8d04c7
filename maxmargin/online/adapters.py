"""Learners from scikit-learn and river as learners of the public protocol.

:class:`SklearnLearner` wraps a scikit-learn ``partial_fit`` classifier, :class:`RiverLearner`
a river classifier: one ``partial_fit`` / ``learn_one`` per step, the weights read at every
step. What each minimises and claims is declared from its parameters, as its own source
computes them (``docs/validating.md``, section 8). Neither library is imported here.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..exceptions import ParameterError
from .claims import (
    NOVIKOFF,
    PERCEPTRON_GENERAL,
    PERMUTATION,
    SCALING,
    Average,
    Claim,
    MistakeBound,
    Rate,
)

__all__ = ["SklearnLearner", "RiverLearner", "adapt"]

_CRAMMER = "Crammer, Dekel, Keshet, Shalev-Shwartz & Singer (2006)"
_CLASSES = [-1.0, 1.0]


class _Adapter:
    """What both adapters share: the declarations, the intercept and the weights."""

    objective: str | None = None
    loss = "hinge"
    problem_parameter: str | None = None
    mistake_driven = False
    update_margin = 0.0
    update_step = 1.0
    theory_rate: float | None = None
    has_average = False
    claims: tuple[Claim, ...] = ()
    supported_intercepts: tuple[str, ...] = ("none",)
    name = ""

    def _declare(
        self, fit_intercept: bool, claims: list[Claim], scaling: bool, **decl: Any
    ) -> None:
        self.free = bool(fit_intercept)
        self.intercept = "free" if self.free else "none"  # the estimator's own, fixed
        self.supported_intercepts = (self.intercept,)
        for k, v in decl.items():
            setattr(self, k, v)
        if claims or self.mistake_driven:
            claims.append(PERMUTATION)
        if scaling and not self.free:  # a free bias moves by y, the bias feature s = 1
            claims.append(SCALING)
        self.claims = tuple(claims)

    def _pair(self, w: np.ndarray, b: float) -> Any:
        return (w, float(b)) if self.free else w

    def _clone(self) -> Any:
        raise NotImplementedError

    def _params(self) -> dict[str, Any]:
        raise NotImplementedError

    def _learn(self, x: np.ndarray, y: float) -> None:
        raise NotImplementedError

    def _read(self, average: bool) -> Any:
        raise NotImplementedError

    def start(self, d: int) -> None:
        """A fresh clone of the estimator for examples of length ``d``.

        Parameters
        ----------
        d : int

        Examples
        --------
        >>> from sklearn.linear_model import Perceptron
        >>> p = SklearnLearner(Perceptron(fit_intercept=False))
        >>> p.start(2)
        >>> p.weights()
        array([0., 0.])
        """
        self._live = self._clone()
        self._d = d

    def step(self, x: np.ndarray, y: float, t: int) -> None:
        """One ``partial_fit`` (scikit-learn) or ``learn_one`` (river) on the example.

        Parameters
        ----------
        x : ndarray of shape (d,)
        y : float
        t : int

        Examples
        --------
        >>> from sklearn.linear_model import Perceptron
        >>> p = SklearnLearner(Perceptron(fit_intercept=False))
        >>> p.start(2)
        >>> p.step(np.array([1.0, 2.0]), 1.0, 1)  # a zero score is a mistake
        >>> p.weights()
        array([1., 2.])
        """
        self._learn(x, y)

    def weights(self) -> Any:
        """The estimator's weights (the last iterate), with its intercept if free.

        Returns
        -------
        ndarray or (ndarray, float)

        Examples
        --------
        >>> from sklearn.linear_model import Perceptron
        >>> p = SklearnLearner(Perceptron())
        >>> p.start(1)
        >>> p.step(np.array([2.0]), -1.0, 1)
        >>> p.weights()
        (array([-2.]), -1.0)
        """
        return self._read(False)

    def get_params(self) -> dict[str, Any]:
        """The estimator's parameters (those of plain types).

        Returns
        -------
        dict

        Examples
        --------
        >>> from sklearn.linear_model import SGDClassifier
        >>> SklearnLearner(SGDClassifier(alpha=0.5)).get_params()["alpha"]
        0.5
        """
        plain = (bool, int, float, str)
        return {k: v for k, v in self._params().items() if v is None or isinstance(v, plain)}


def _sgd_settings(est: Any) -> dict[str, Any]:
    """The estimator's parameters as SGDClassifier's (Perceptron and PA are SGD settings)."""
    kind = type(est).__name__
    p = est.get_params()
    if kind == "Perceptron":
        return {**p, "loss": "perceptron", "learning_rate": "constant", "average": False}
    if kind == "PassiveAggressiveClassifier":
        rate = "pa1" if p["loss"] == "hinge" else "pa2"
        return {**p, "loss": "hinge", "penalty": None, "alpha": 0.0, "learning_rate": rate}
    if kind == "SGDClassifier":
        return p
    raise ParameterError(
        "SklearnLearner takes SGDClassifier, Perceptron or PassiveAggressiveClassifier "
        f"(a linear partial_fit classifier); got {kind}"
    )


class SklearnLearner(_Adapter):
    """A scikit-learn ``partial_fit`` classifier as a learner of the public protocol.

    Each step is one ``partial_fit`` on one example; ``weights()`` reads ``coef_`` and
    ``intercept_``. ``fit_intercept=True`` makes it a learner of intercept ``free``,
    ``False`` of ``none``.

    Parameters
    ----------
    estimator : SGDClassifier, Perceptron or PassiveAggressiveClassifier
        Not fitted; cloned at every ``start``. ``problem_parameter`` sets its ``alpha``
        (``lam``) or its PA ``C`` (``eta0``).

    Examples
    --------
    >>> from sklearn.linear_model import SGDClassifier
    >>> from maxmargin import make_gaussians
    >>> from maxmargin.online import run
    >>> sgd = SklearnLearner(SGDClassifier(alpha=0.01, fit_intercept=False))
    >>> sgd.objective, sgd.lam, [c.label() for c in sgd.claims][:1]
    ('lambda', 0.01, ['F(last) - F* = O(t^a)'])
    >>> tr = run(sgd, make_gaussians(30, 2, seed=0), epochs=2)
    >>> tr.intercept, tr.w.shape[1]
    ('none', 2)
    """

    def __init__(self, estimator: Any) -> None:
        if not callable(getattr(estimator, "partial_fit", None)):
            raise ParameterError(
                f"SklearnLearner wraps a scikit-learn partial_fit classifier; got "
                f"{type(estimator).__name__}"
            )
        self.estimator = estimator
        self.name = type(estimator).__name__
        s = _sgd_settings(estimator)
        self._kind = type(estimator).__name__
        loss, penalty, lr = s["loss"], s["penalty"], s["learning_rate"]
        avg = s["average"] is True or s["average"] == 1
        claims: list[Claim] = []
        decl: dict[str, Any] = {"has_average": bool(s["average"])}
        if loss == "squared_hinge" and penalty == "l2" and lr in ("optimal", "invscaling"):
            decl.update(objective="lambda", problem_parameter="lam", loss="squared_hinge")
        elif loss == "hinge" and penalty == "l2" and lr in ("optimal", "invscaling"):
            decl.update(objective="lambda", problem_parameter="lam")
            rate = None
            if not s["fit_intercept"]:
                if lr == "optimal":
                    rate = -1.0
                elif s["average"] and s.get("power_t") == 0.5:
                    rate = -0.5  # eta0 / sqrt(t): Zinkevich's rate for the average
            decl["theory_rate"] = rate
            iterate = "average" if s["average"] else "last"
            ref = "Shalev-Shwartz et al. (2011), Cor. 1"
            if iterate == "last":
                ref = "Shamir & Zhang (2013), Thm 2 (the last iterate)"
            claims.append(Rate(iterate=iterate, scale_free=lr == "optimal", reference=ref))
        elif loss == "perceptron" and (penalty is None or s["alpha"] == 0) and lr == "constant":
            decl.update(mistake_driven=True, update_step=float(s["eta0"]))
            claims += [NOVIKOFF, PERCEPTRON_GENERAL]
        elif loss == "hinge" and penalty is None and lr in ("pa1", "pa2"):
            decl["problem_parameter"] = "C"
            if not s["fit_intercept"]:
                form = "pa1" if lr == "pa1" else "pa2"
                ref = f"{_CRAMMER}, Thm {4 if form == 'pa1' else 5}"
                claims += [
                    MistakeBound(form=form, data="separable", reference=ref),
                    MistakeBound(form=form, data="any", reference=ref),
                ]
        if avg and claims:
            claims.append(Average(iterates="after", reference="scikit-learn's averaged SGD"))
        self._declare(s["fit_intercept"], claims, scaling=decl.get("mistake_driven", False), **decl)

    @property
    def lam(self) -> float:
        """``alpha``: the lambda of the objective it minimises."""
        return float(self.estimator.get_params()["alpha"])

    @lam.setter
    def lam(self, value: float) -> None:
        self.estimator = copy.deepcopy(self.estimator)
        self.estimator.set_params(alpha=float(value))

    @property
    def C(self) -> float:
        """The PA aggressiveness (``C`` of PassiveAggressiveClassifier, else ``eta0``)."""
        p = self.estimator.get_params()
        return float(p["C"] if "C" in p else p["eta0"])

    @C.setter
    def C(self, value: float) -> None:
        self.estimator = copy.deepcopy(self.estimator)
        key = "C" if "C" in self.estimator.get_params() else "eta0"
        self.estimator.set_params(**{key: float(value)})

    def _clone(self) -> Any:
        from sklearn.base import clone

        return clone(self.estimator)

    def _params(self) -> dict[str, Any]:
        return dict(self.estimator.get_params())

    def _learn(self, x: np.ndarray, y: float) -> None:
        self._live.partial_fit(x[None, :], [y], classes=_CLASSES)

    def _read(self, average: bool) -> Any:
        e = self._live
        if not hasattr(e, "coef_"):
            return self._pair(np.zeros(self._d), 0.0)
        if average or not getattr(e, "average", False):
            w, b = e.coef_, e.intercept_
        else:  # the last iterate of an averaged SGD
            w, b = e._standard_coef, e._standard_intercept
        return self._pair(np.array(w, dtype=float).ravel(), float(np.ravel(b)[0]))

    def average(self) -> Any:
        """The averaged ``coef_`` of ``average=True``.

        Returns
        -------
        ndarray or (ndarray, float)

        Examples
        --------
        >>> from sklearn.linear_model import SGDClassifier
        >>> s = SklearnLearner(SGDClassifier(alpha=0.1, fit_intercept=False, average=True))
        >>> s.start(1)
        >>> s.step(np.array([1.0]), 1.0, 1)
        >>> w1 = s.weights()
        >>> s.step(np.array([1.0]), 1.0, 2)
        >>> bool(np.allclose(s.average(), (w1 + s.weights()) / 2))  # the mean of w_2, w_3
        True
        """
        return self._read(True)


class RiverLearner(_Adapter):
    """A river classifier (``learn_one`` / ``predict_one``) as a learner of the protocol.

    Each step is one ``learn_one({j: x_j}, y > 0)``; ``weights()`` reads the model's
    ``weights`` (and ``intercept``). A linear river classifier other than ``PAClassifier``
    and ``Perceptron`` runs, claiming nothing.

    Parameters
    ----------
    model : river classifier
        Not trained; cloned at every ``start``. ``problem_parameter`` (``"C"`` for PA-I and
        PA-II) sets its ``C``.

    Examples
    --------
    >>> from river.linear_model import PAClassifier  # doctest: +SKIP
    >>> RiverLearner(PAClassifier(C=0.1, mode=1, learn_intercept=False)).claims[0].form
    ... # doctest: +SKIP
    'pa1'
    """

    def __init__(self, model: Any) -> None:
        if not callable(getattr(model, "learn_one", None)):
            raise ParameterError(
                f"RiverLearner wraps a river classifier with learn_one; got {type(model).__name__}"
            )
        self.model = model
        kind = type(model).__name__
        self.name = kind
        claims: list[Claim] = []
        decl: dict[str, Any] = {}
        free = True
        if kind == "PAClassifier":
            free = bool(model.learn_intercept)
            mode = int(model.mode)
            if mode in (1, 2):
                decl["problem_parameter"] = "C"
            if not free:
                form = ("pa", "pa1", "pa2")[mode]
                ref = f"{_CRAMMER}, Thm {(2, 4, 5)[mode]}"
                claims.append(MistakeBound(form=form, data="separable", reference=ref))
                if mode:
                    claims.append(MistakeBound(form=form, data="any", reference=ref))
        elif kind == "Perceptron":
            init = getattr(model, "initializer", None)
            zero = init is None or type(init).__name__ == "Zeros"
            if float(getattr(model, "l2", 0.0)) == 0.0 and zero:
                decl["mistake_driven"] = True
                claims += [NOVIKOFF, PERCEPTRON_GENERAL]
        self._declare(free, claims, scaling=False, **decl)

    @property
    def C(self) -> float:
        """The PA aggressiveness ``C``."""
        return float(self.model.C)

    @C.setter
    def C(self, value: float) -> None:
        self.model = self.model.clone({"C": float(value)})

    def _clone(self) -> Any:
        return self.model.clone()

    def _params(self) -> dict[str, Any]:
        return self.model._get_params() if hasattr(self.model, "_get_params") else {}

    def _learn(self, x: np.ndarray, y: float) -> None:
        self._live.learn_one(dict(enumerate(x.tolist())), bool(y > 0))

    def _read(self, average: bool) -> Any:
        m = self._live
        ws = getattr(m, "weights", {})
        w = np.array([float(ws.get(j, 0.0)) for j in range(self._d)])
        return self._pair(w, float(getattr(m, "intercept", 0.0)))


def adapt(obj: Any) -> Any:
    """``obj`` as a learner of the protocol: scikit-learn and river estimators wrapped.

    Parameters
    ----------
    obj : object
        A scikit-learn ``partial_fit`` classifier, a river classifier, or anything else
        (returned as it is).

    Returns
    -------
    object

    Examples
    --------
    >>> from sklearn.linear_model import Perceptron
    >>> type(adapt(Perceptron())).__name__, adapt("pegasos")
    ('SklearnLearner', 'pegasos')
    """
    module = type(obj).__module__ or ""
    if module.startswith("sklearn.") and callable(getattr(obj, "partial_fit", None)):
        return SklearnLearner(obj)
    if module.startswith("river.") and callable(getattr(obj, "learn_one", None)):
        return RiverLearner(obj)
    return obj
