"""What a learner claims about itself: the theorems :func:`maxmargin.testing.check_learner` checks.

A learner states its claims in its ``claims`` attribute, a tuple of the claim types below,
each citing its theorem; numbers it already declares (``theory_rate``,
``regret_lipschitz`` ...) are filled in by :func:`resolve_claims`. Without ``claims`` it
claims what its declarations imply (:func:`claims_of`). See ``docs/validating.md``.
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

#: The orders a rate may be claimed on (``cyclic`` has no randomness to take an expectation over).
RATE_ORDERS = ("sample", "shuffle")


@dataclass(frozen=True)
class Claim(io.Persistent):
    """Base class of the claims (not used directly); its document is its fields, then ``kind``.

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

    :math:`E[F(\hat w_t) - F^*] = O(t^{a} (\log t)^{k})`, :math:`\hat w_t` the last iterate
    or the average.

    Attributes
    ----------
    iterate : {"average", "last"}
        ``"average"``: the learner's ``average()`` (it declares ``has_average``).
    exponent : float < 0, optional
        ``a``; None: the learner's ``theory_rate``.
    log_power : int >= 0, optional
        ``k``; None: 1 for ``a = -1`` (the strongly convex rate), else 0.
    bound : {"regret/t"} or None
        ``"regret/t"``: also :math:`E[F(\bar w_t)] - F^* \le G^2 (1 + \ln t) / (2 \lambda t)`
        (online-to-batch, order ``"sample"``).
    orders : tuple of str
        The orders the claim is checked on (a subset of ``("sample", "shuffle")``).
    scale_free : bool
        False for settings in the units of the data (a fixed ``eta0``): not checked on
        rescaled data.
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
        k = self.log_power if self.log_power is not None else int(self.exponent == -1.0)
        log = "" if k == 0 else (" log t" if k == 1 else f" log^{k} t")
        return f"F({self.iterate}) - F* = O(t^{a}{log})"


@dataclass(frozen=True)
class MistakeBound(Claim):
    r"""A bound on the online mistakes :math:`M_t = \#\{s \le t: y_s f_s(x_s) \le 0\}`.

    ``form`` names the theorem, ``data`` what it assumes:

    - ``"perceptron"``, ``"separable"``: :math:`M_t \le (R_\tau/\gamma)^2`,
      :math:`R_\tau^2 = R^2 + 2\tau/\eta` (Novikoff 1962; ``tau``, ``eta`` the learner's
      ``update_margin``, ``update_step``), ``gamma`` the certified margin;
    - ``"perceptron"``, ``"any"``: :math:`M_t \le B(L_t(c), c\|u\| R_\tau)` at the best
      scale ``c`` of the soft optimum ``u`` (Freund & Schapire 1999, Thm 2);
    - ``"pa"``, ``"separable"``: :math:`M_t \le (R/\gamma)^2` (Crammer et al. 2006, Thm 2);
    - ``"pa1"``: :math:`M_t \le \max(R^2, 1/C)(\|u\|^2 + 2C\sum_{s\le t} \ell_s(u))`
      (Thm 4); ``"pa2"``: :math:`M_t \le (R^2 + 1/(2C))(\|u\|^2 +
      2C\sum_{s\le t}\ell_s(u)^2)` (Thm 5); ``"separable"``: ``u`` the hard optimum,
      ``"any"``: ``u = c w*`` at the best scale ``c`` of the soft optimum;
    - ``"winnow"``, ``"disjunction"``: on a monotone disjunction of ``k`` of the ``d``
      features (the learner's ``alpha``, ``threshold`` theta, ``variant``), Winnow2
      :math:`\frac{\alpha d}{(\alpha-1)\theta} + (\alpha+1) k (1 + \log_\alpha \theta)`,
      Winnow1 :math:`d/\theta + \alpha k (1 + \log_\alpha\theta)` (Littlestone 1988, Thms 7 and 8).

    ``R = max ||z_i||``, in the learner's space ``z = (x, s)``; every order, run by run.
    The perceptron's forms: ``docs/compare.md``, section 6.

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
    :math:`f_s(w) = \frac\lambda2\|w\|^2 + \max(0, 1 - y_s w\cdot z_s)`, ``G`` the
    learner's ``regret_lipschitz(R)`` (Hazan, Agarwal & Kale 2007).

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

    ``"permute_features"``: the same mistakes, weights permuted alike;
    ``"scale_examples"``: every ``z = (x, s)`` times ``c > 0``, the same mistakes, ``w~``
    times ``c``.

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

#: Permuting the features permutes the weights.
PERMUTATION = Invariance(
    transform="permute_features", reference="the update is equivariant to a permutation"
)

#: From ``w = 0``, a mistake-driven learner's weights are sums of examples.
SCALING = Invariance(
    transform="scale_examples", reference="from w = 0 the weights are a sum of examples"
)


@dataclass(frozen=True)
class Average(Claim):
    r"""Its averaged iterate is the mean of its iterates, exactly.

    ``"before"``: :math:`\bar w_t = \frac1t \sum_{s \le t} w_s` (Pegasos);
    ``"after"``: :math:`\frac1t \sum_{s \le t} w_{s+1}` (the averaged perceptron). The
    averaged iterate is the run's ``w_avg``, else its output ``w``.

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
        A learner, or its class.

    Returns
    -------
    tuple of Claim
        Not yet resolved (:func:`resolve_claims`).

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
        A learner instance.
    claims : tuple of Claim, optional
        Default: :func:`claims_of` the learner.

    Returns
    -------
    applies : tuple of Claim
        :class:`Rate` with ``exponent`` and ``log_power`` set; the others as given.
    not_applicable : tuple of (Claim, str)
        The claims its settings rule out, each with the reason.

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
