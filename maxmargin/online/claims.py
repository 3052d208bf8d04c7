r"""What a learner claims about itself: the theorems :func:`maxmargin.testing.check_learner` checks.

A learner states its claims in one class attribute, ``claims``, a tuple of the claim
types below; each names the theorem it rests on (``reference``). Where a claim's number
follows from what the learner already declares (``theory_rate``, ``regret_lipschitz``,
``update_margin`` ...), the claim reads it from there instead of stating it twice: a
claim is *resolved* against a learner (:func:`resolve_claims`), which fills those numbers
in or says why the claim does not apply to this learner's settings.

=========================  =============================================================
:class:`Rate`              :math:`E[F(\hat w_t) - F^*] = O(t^{a} \log^k t)` on the
                           objective it declares, for its last or averaged iterate ``a``
                           (default: its ``theory_rate``), optionally with the constant
                           of the online-to-batch bound
:class:`MistakeBound`      a mistake bound: the perceptron's (Novikoff's
                           :math:`(R/\gamma)^2` on separable data, the general bound on
                           any data), passive-aggressive's (Crammer et al. 2006) or
                           Winnow's (Littlestone 1988)
:class:`RegretBound`       :math:`\mathrm{regret}_t \le G^2 (1 + \ln t) / (2\lambda)`
                           against the exact optimum, ``G`` from ``regret_lipschitz(R)``
:class:`Invariance`        the same mistakes, and weights that move with the data, when
                           the features are permuted or the examples scaled by ``c > 0``
:class:`Average`           its averaged iterate is the mean of its iterates (the point the
                           rate theorems are about), checked by stepping it by hand
=========================  =============================================================

A learner without a ``claims`` attribute (or with ``claims = None``) claims what its
declarations imply (:func:`claims_of`): a rate where it declares an ``objective`` and a
``theory_rate``, a regret bound where ``regret_lipschitz`` gives a ``G``, and the
perceptron's bounds where it is ``mistake_driven``. ``claims = ()`` claims nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from .. import io
from ..exceptions import ParameterError

__all__ = [
    "Claim",
    "Rate",
    "MistakeBound",
    "RegretBound",
    "Invariance",
    "Average",
    "NOVIKOFF",
    "PERCEPTRON_GENERAL",
    "PERMUTATION",
    "SCALING",
    "claims_of",
    "resolve_claims",
]

#: The mistake-bound forms and the data each is stated for.
MISTAKE_FORMS = {
    "perceptron": ("separable", "any"),
    "pa": ("separable",),
    "pa1": ("separable", "any"),
    "pa2": ("separable", "any"),
    "winnow": ("disjunction",),
}

#: The transforms an :class:`Invariance` may name.
TRANSFORMS = ("permute_features", "scale_examples")

#: The orders a rate may be claimed on (the theorems are for i.i.d. sampling; ``shuffle``
#: is random reshuffling, at least as fast in practice and in theory for strongly convex
#: objectives; ``cyclic`` has no randomness to take an expectation over).
RATE_ORDERS = ("sample", "shuffle")


@dataclass(frozen=True)
class Claim(io.Persistent):
    """Base class of the claims (not used directly).

    Its document (``to_dict``, ``to_json``: :class:`~maxmargin.io.Persistent`) is its
    fields, then its ``kind``.

    Attributes
    ----------
    reference : str
        The theorem the claim rests on (author, year, theorem).

    Examples
    --------
    >>> NOVIKOFF.kind, NOVIKOFF.reference
    ('mistakes', 'Novikoff (1962)')
    >>> Invariance(transform="permute_features").to_dict()["kind"]
    'invariance'
    """

    COMPUTED: ClassVar[tuple[str, ...]] = ("kind",)

    reference: str = ""
    kind: ClassVar[str] = ""

    def label(self) -> str:
        """A short name of the claim, for the verdict table.

        Returns
        -------
        str

        Examples
        --------
        >>> RegretBound().label()
        'regret <= G^2 (1 + ln t)/(2 lam)'
        """
        return self._label()

    def _label(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Rate(Claim):
    r"""The expected suboptimality on the declared objective falls at least as ``t^a log^k t``.

    :math:`E[F(\hat w_t) - F^*] = O(t^{a} (\log t)^{k})`, with :math:`\hat w_t` the last
    iterate or the average of the iterates, ``F`` the objective the learner declares
    (``objective``) and ``F*`` its certified optimum.

    Attributes
    ----------
    iterate : {"average", "last"}
        ``"average"``: the learner's ``average()`` (it declares ``has_average``).
    exponent : float < 0, optional
        ``a``; None: the learner's ``theory_rate``.
    log_power : int >= 0, optional
        ``k``; None: 1 for ``a = -1`` (the strongly convex rate), else 0.
    bound : {"regret/t"} or None
        ``"regret/t"``: also the constant of the online-to-batch conversion,
        :math:`E[F(\bar w_t)] - F^* \le G^2 (1 + \ln t) / (2 \lambda t)` for the average
        under i.i.d. sampling (order ``"sample"``), ``G`` from ``regret_lipschitz(R)``.
    orders : tuple of str
        The orders the claim is checked on (a subset of ``("sample", "shuffle")``).
    scale_free : bool
        Whether the learner's settings carry no units of the data (Pegasos' steps
        ``1/(lam t)`` follow ``lam``); False for a step ``eta0`` fixed in the units of
        ``w``: the claim is not checked on the battery's rescaled data (which need
        ``eta0 / c^2``).
    reference : str

    Examples
    --------
    >>> Rate(iterate="average", exponent=-1.0).label()
    'F(average) - F* = O(t^-1 log t)'
    """

    iterate: str = "average"
    exponent: float | None = None
    log_power: int | None = None
    bound: str | None = None
    orders: tuple[str, ...] = RATE_ORDERS
    scale_free: bool = True
    kind: ClassVar[str] = "rate"

    def __post_init__(self) -> None:
        if self.iterate not in ("average", "last"):
            raise ParameterError(f"Rate.iterate must be 'average' or 'last', not {self.iterate!r}")
        if self.exponent is not None and not (math.isfinite(self.exponent) and self.exponent < 0):
            raise ParameterError(f"Rate.exponent must be a negative number, not {self.exponent!r}")
        if self.log_power is not None and (
            not isinstance(self.log_power, int) or self.log_power < 0
        ):
            raise ParameterError(f"Rate.log_power must be an int >= 0, not {self.log_power!r}")
        if self.bound not in (None, "regret/t"):
            raise ParameterError(f"Rate.bound must be None or 'regret/t', not {self.bound!r}")
        bad = [o for o in self.orders if o not in RATE_ORDERS]
        if bad or not self.orders:
            raise ParameterError(
                f"Rate.orders must name some of {RATE_ORDERS} (a rate in expectation needs a "
                f"random order); got {self.orders!r}"
            )

    def _label(self) -> str:
        a = "a" if self.exponent is None else f"{self.exponent:g}"
        k = self.log_power
        log = "" if k == 0 else (" log t" if k == 1 else f" log^{k} t")
        if k is None:
            log = " log t" if self.exponent == -1.0 else ""
        return f"F({self.iterate}) - F* = O(t^{a}{log})"


@dataclass(frozen=True)
class MistakeBound(Claim):
    r"""A bound on the online mistakes :math:`M_t = \#\{s \le t: y_s f_s(x_s) \le 0\}`.

    ``form`` names the theorem, ``data`` what it assumes:

    - ``"perceptron"``, ``"separable"``: :math:`M_t \le (R_\tau/\gamma)^2`,
      :math:`R_\tau^2 = R^2 + 2\tau/\eta` (Novikoff 1962; the margin perceptron's
      ``update_margin`` tau and ``update_step`` eta), ``gamma`` the certified margin;
    - ``"perceptron"``, ``"any"``: :math:`M_t \le B(L_t(c), c\|u\| R_\tau)` at the best
      scale ``c`` of the certified soft optimum ``u``, summed over every round
      (Freund & Schapire 1999, Thm 2, in the form of ``docs/compare.md``, section 6);
    - ``"pa"``, ``"separable"``: :math:`M_t \le (R/\gamma)^2` (Crammer et al. 2006,
      Thm 2: :math:`\sum_t \ell_t^2 \le R^2\|u\|^2` and a mistake costs
      :math:`\ell_t \ge 1`);
    - ``"pa1"``: :math:`M_t \le \max(R^2, 1/C)(\|u\|^2 + 2C\sum_{s\le t} \ell_s(u))`
      (Crammer et al. 2006, Thm 4); ``"pa2"``: :math:`M_t \le (R^2 + 1/(2C))(\|u\|^2 +
      2C\sum_{s\le t}\ell_s(u)^2)` (Thm 5); ``"separable"`` with ``u`` the hard optimum
      (:math:`\ell_s(u) = 0`, :math:`\|u\| = 1/\gamma`), ``"any"`` with ``u = c w^*`` at
      the best scale ``c`` of the soft optimum (and the hard one when separable);
    - ``"winnow"``, ``"disjunction"``: on a monotone disjunction of ``k`` of the ``d``
      features, Winnow2 makes at most :math:`\frac{\alpha d}{(\alpha-1)\theta} + (\alpha+1)
      k (1 + \log_\alpha \theta)` mistakes, Winnow1 :math:`d/\theta + \alpha k (1 +
      \log_\alpha\theta)` (Littlestone 1988, Thms 7 and 8; the learner's ``alpha``,
      ``threshold`` and ``variant``).

    ``R = max ||z_i||`` and the margins are in the learner's space ``z = (x, s)``. Every
    form holds for every order of the examples, run by run: no statistics.

    Attributes
    ----------
    form : {"perceptron", "pa", "pa1", "pa2", "winnow"}
    data : {"separable", "any", "disjunction"}
    reference : str

    Examples
    --------
    >>> MistakeBound(form="perceptron", data="separable").label()
    'mistakes <= (R/gamma)^2 (perceptron, separable data)'
    """

    form: str = "perceptron"
    data: str = "separable"
    kind: ClassVar[str] = "mistakes"

    def __post_init__(self) -> None:
        if self.form not in MISTAKE_FORMS:
            raise ParameterError(
                f"MistakeBound.form must be one of {', '.join(MISTAKE_FORMS)}, not {self.form!r}"
            )
        if self.data not in MISTAKE_FORMS[self.form]:
            raise ParameterError(
                f"MistakeBound(form={self.form!r}) is stated for data "
                f"{' or '.join(map(repr, MISTAKE_FORMS[self.form]))}, not {self.data!r}"
            )

    def _label(self) -> str:
        what = {
            "separable": "(R/gamma)^2",
            "any": "general bound",
            "disjunction": "Littlestone's bound",
        }[self.data]
        return f"mistakes <= {what} ({self.form}, {self.data} data)"


@dataclass(frozen=True)
class RegretBound(Claim):
    r"""Regret against the exact optimum at most :math:`G^2 (1 + \ln t) / (2 \lambda)`.

    :math:`\sum_{s\le t} f_s(w_s) - f_s(w^*)` with
    :math:`f_s(w) = \frac\lambda2\|w\|^2 + \max(0, 1 - y_s w\cdot z_s)`, at every step,
    for every order (Hazan, Agarwal & Kale 2007; Shalev-Shwartz et al. 2011, Lemma 1).
    ``G`` is the learner's ``regret_lipschitz(R)``.

    Attributes
    ----------
    reference : str

    Examples
    --------
    >>> RegretBound(reference="Hazan et al. 2007").reference
    'Hazan et al. 2007'
    """

    kind: ClassVar[str] = "regret"

    def _label(self) -> str:
        return "regret <= G^2 (1 + ln t)/(2 lam)"


@dataclass(frozen=True)
class Invariance(Claim):
    """The run does not change, up to the transform, when the data are transformed.

    - ``"permute_features"``: the columns of ``X`` permuted (the bias feature stays
      last): the same online mistakes at every checkpoint, weights permuted alike;
    - ``"scale_examples"``: every ``z = (x, s)`` times ``c > 0`` (``X`` and the bias
      feature ``s``): the same mistakes, ``w~`` times ``c`` (the perceptron family:
      from zero, the updates are sums of examples).

    Checked run against run in the same order, to ``1e-9`` relative.

    Attributes
    ----------
    transform : {"permute_features", "scale_examples"}
    reference : str

    Examples
    --------
    >>> Invariance(transform="scale_examples").label()
    'invariant to scale_examples'
    """

    transform: str = "permute_features"
    kind: ClassVar[str] = "invariance"

    def __post_init__(self) -> None:
        if self.transform not in TRANSFORMS:
            raise ParameterError(
                f"Invariance.transform must be one of {', '.join(TRANSFORMS)}, "
                f"not {self.transform!r}"
            )

    def _label(self) -> str:
        return f"invariant to {self.transform}"


#: Novikoff's bound, the perceptron family's claim on separable data.
NOVIKOFF = MistakeBound(form="perceptron", data="separable", reference="Novikoff (1962)")

#: The perceptron's bound on any data (``docs/compare.md``, section 6).
PERCEPTRON_GENERAL = MistakeBound(
    form="perceptron",
    data="any",
    reference="Freund & Schapire (1999), Thm 2, in the exact form of docs/compare.md, section 6",
)

#: Permuting the features permutes the weights (an update that reads the examples only
#: through inner products and adds multiples of them).
PERMUTATION = Invariance(
    transform="permute_features", reference="the update is equivariant to a permutation"
)

#: From ``w = 0``, a mistake-driven learner's weights are sums of examples: scaling them
#: scales the weights and leaves every sign (so every mistake) as it was.
SCALING = Invariance(
    transform="scale_examples", reference="from w = 0 the weights are a sum of examples"
)


@dataclass(frozen=True)
class Average(Claim):
    r"""Its averaged iterate is the mean of its iterates, exactly.

    - ``"before"``: :math:`\bar w_t = \frac1t \sum_{s \le t} w_s`, the iterates the losses
      were taken at (``w_1 = 0``; Pegasos, online subgradient: the point the rate
      theorems are about, Shalev-Shwartz et al. 2011);
    - ``"after"``: :math:`\frac1t \sum_{s \le t} w_{s+1}`, the iterates after each step
      (the averaged and voted perceptrons, Freund & Schapire 1999, Collins 2002;
      scikit-learn's averaged SGD).

    The averaged iterate is the run's ``w_avg`` (``has_average``), else its output ``w``
    (a learner whose output is its average). Checked against the mean of ``weights()``
    with the learner stepped by hand in the run's order (learners that can be), to
    ``1e-9`` relative.

    Attributes
    ----------
    iterates : {"before", "after"}
    reference : str

    Examples
    --------
    >>> Average(iterates="after").label()
    'average = mean of w_2..w_t+1'
    """

    iterates: str = "before"
    kind: ClassVar[str] = "average"

    def __post_init__(self) -> None:
        if self.iterates not in ("before", "after"):
            raise ParameterError(
                f"Average.iterates must be 'before' or 'after', not {self.iterates!r}"
            )

    def _label(self) -> str:
        return "average = mean of " + ("w_1..w_t" if self.iterates == "before" else "w_2..w_t+1")


def claims_of(learner: Any) -> tuple[Claim, ...]:
    """The claims of ``learner``: its ``claims`` attribute, or what its declarations imply.

    Parameters
    ----------
    learner : object
        A learner (built-in or of the public protocol), or its class.

    Returns
    -------
    tuple of Claim
        Not yet resolved against the learner's settings (:func:`resolve_claims`).

    Raises
    ------
    ParameterError
        ``claims`` is not a tuple (or list) of :class:`Claim`.

    Examples
    --------
    >>> class Mine:
    ...     mistake_driven = True
    >>> [c.label() for c in claims_of(Mine())]  # doctest: +NORMALIZE_WHITESPACE
    ['mistakes <= (R/gamma)^2 (perceptron, separable data)',
     'mistakes <= general bound (perceptron, any data)']
    """
    own = getattr(learner, "claims", None)
    if own is not None:
        if not isinstance(own, (tuple, list)) or not all(isinstance(c, Claim) for c in own):
            raise ParameterError(
                f"{_who(learner)}.claims must be a tuple of maxmargin.online.claims.Claim "
                f"(Rate, MistakeBound, RegretBound, Invariance); got {own!r}"
            )
        return tuple(own)
    out: list[Claim] = []
    ref = str(getattr(learner, "reference", "") or "")
    if getattr(learner, "objective", None) is not None and getattr(learner, "theory_rate", None):
        iterate = "average" if getattr(learner, "has_average", False) else "last"
        out.append(Rate(iterate=iterate, reference=ref))
    regret = getattr(learner, "regret_lipschitz", None)
    if getattr(learner, "objective", None) is not None and (
        callable(regret) or getattr(learner, "regret_G", None) is not None
    ):
        out.append(RegretBound(reference=ref))
    if getattr(learner, "mistake_driven", False):
        out.append(MistakeBound(form="perceptron", data="separable", reference=ref))
        out.append(MistakeBound(form="perceptron", data="any", reference=ref))
    return tuple(out)


def _who(learner: Any) -> str:
    return learner.__name__ if isinstance(learner, type) else type(learner).__name__


def _regret_G(learner: Any, R: float) -> float | None:
    own = getattr(learner, "regret_lipschitz", None)
    G = own(R) if callable(own) else getattr(learner, "regret_G", None)
    return None if G is None else float(G)


def _free_note(learner: Any) -> str:
    if getattr(learner, "intercept", None) == "free":
        return (
            ": with a free intercept the objective is not strongly convex in b, and no "
            "rate or logarithmic regret is proven for it"
        )
    return " with these settings"


def _resolve_rate(learner: Any, claim: Rate) -> Claim | str:
    if getattr(learner, "objective", None) is None:
        return "it declares no objective to converge on (objective is None)"
    if claim.iterate == "average" and not getattr(learner, "has_average", False):
        raise ParameterError(
            f"{_who(learner)} claims a rate for its averaged iterate but declares no "
            "has_average (with a method average())"
        )
    a = claim.exponent
    if a is None:
        rate = getattr(learner, "theory_rate", None)
        if rate is None:
            return f"it declares no theory_rate{_free_note(learner)}"
        a = float(rate)
        if not (math.isfinite(a) and a < 0):
            raise ParameterError(f"{_who(learner)}.theory_rate must be negative, not {rate!r}")
    k = claim.log_power if claim.log_power is not None else (1 if a == -1.0 else 0)
    bound = claim.bound
    if bound == "regret/t" and claim.iterate != "average":
        raise ParameterError("Rate(bound='regret/t') is a bound on the average: iterate='average'")
    return replace(claim, exponent=a, log_power=k, bound=bound)


def resolve_claims(
    learner: Any, claims: tuple[Claim, ...] | None = None
) -> tuple[tuple[Claim, ...], tuple[tuple[Claim, str], ...]]:
    """The claims that apply to ``learner``'s settings, with their numbers filled in.

    Parameters
    ----------
    learner : object
        A learner instance: its declarations (``objective``, ``theory_rate``,
        ``regret_lipschitz``, ``intercept`` ...) complete the claims.
    claims : tuple of Claim, optional
        Default: :func:`claims_of` the learner.

    Returns
    -------
    applies : tuple of Claim
        :class:`Rate` with ``exponent`` and ``log_power`` set; the others as given.
    not_applicable : tuple of (Claim, str)
        The claims its settings rule out, each with the reason.

    Raises
    ------
    ParameterError
        A claim that contradicts the declarations (a rate of an average the learner
        does not declare, a form that needs an attribute it does not have).

    Examples
    --------
    >>> from maxmargin.online import Pegasos
    >>> ok, na = resolve_claims(Pegasos(lam=0.1, intercept="free"))
    >>> [c.label() for c in ok]
    ['average = mean of w_1..w_t', 'invariant to permute_features']
    >>> na[0][1][:47]
    'it declares no theory_rate: with a free interce'
    """
    claims = claims_of(learner) if claims is None else tuple(claims)
    ok: list[Claim] = []
    na: list[tuple[Claim, str]] = []
    for c in claims:
        if isinstance(c, Rate):
            got = _resolve_rate(learner, c)
        elif isinstance(c, RegretBound):
            if getattr(learner, "objective", None) is None:
                got = "it declares no objective (the regret is of f_s = lam/2 ||w||^2 + hinge)"
            elif _regret_G(learner, 1.0) is None:
                got = f"regret_lipschitz(R) gives no G{_free_note(learner)}"
            else:
                got = c
        elif isinstance(c, MistakeBound):
            got = _resolve_mistakes(learner, c)
        else:
            got = c
        if isinstance(got, str):
            na.append((c, got))
        else:
            ok.append(got)
    return tuple(ok), tuple(na)


def _resolve_mistakes(learner: Any, claim: MistakeBound) -> Claim | str:
    needs = {"pa1": ("C",), "pa2": ("C",), "winnow": ("alpha", "variant")}.get(claim.form, ())
    missing = [a for a in needs if not hasattr(learner, a)]
    if missing:
        raise ParameterError(
            f"{_who(learner)} claims the {claim.form} mistake bound, which reads its "
            f"{', '.join(missing)}: it has no such attribute"
        )
    if claim.form == "winnow" and getattr(learner, "variant", None) not in ("winnow1", "winnow2"):
        raise ParameterError(
            f"{_who(learner)}.variant must be 'winnow1' or 'winnow2' for Winnow's bound"
        )
    return claim


def regret_G(learner: Any, R: float) -> float | None:
    """``G`` of the learner's regret bound at radius ``R`` (None: no bound).

    Parameters
    ----------
    learner : object
    R : float
        ``max_i ||z_i||``.

    Returns
    -------
    float or None

    Examples
    --------
    >>> from maxmargin.online import Pegasos
    >>> regret_G(Pegasos(lam=0.1, intercept="none"), 2.0)
    4.0
    """
    return _regret_G(learner, R)
