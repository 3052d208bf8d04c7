"""The exact power-of-two rescaling of problems on extreme scales.

Solvers have absolute tolerances: a problem far from ``R = 1``, ``C = 1`` goes to them as
``(t Z, C / t^2)``, mapped back exactly (``C``: ``max_i C_i``). See ``docs/certificates.md``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._numerics import _pow2, _row_norms
from ..data import Dataset
from ..problem import SVMProblem

__all__ = [
    "scale_free_c",
    "solver_scale",
    "scaled_problem",
    "scale_hint",
    "max_cost",
    "times_inv_t2",
    "HUGE_LOG_CR2",
]

#: Problems with ``R = max ||z_i||`` and ``C`` inside these bounds go to the solvers as
#: given (their tolerances are tuned there; measured in bench/exact.py); any other is
#: solved as the equivalent problem ``(t Z, C / t^2)`` with ``t`` a power of two.
_COMFORT_R = (2.0**-4, 2.0**8)

#: Clarabel's comfortable ``R``, wider: rescaled, raw breast_cancer at C = 1e3 has a box
#: ``C' ~ 7e10`` on which Clarabel fails; as given it certifies to 1e-11 (measured).
_COMFORT_R_BY_SOLVER = {"CLARABEL": (2.0**-20, 2.0**20)}


_COMFORT_C = (1.0, 2.0**20)


def scale_free_c(problem: SVMProblem) -> tuple[float, float]:
    """``(R, log2(C R^2))``: the radius of the z_i and the one scale-free number (inf: hard)."""
    rn = _row_norms_z(problem)
    R = float(rn.max()) if rn.size else 0.0
    if problem.hard or not R > 0:
        return R, math.inf
    return R, math.log2(max_cost(problem)) + 2.0 * math.log2(R)


def max_cost(problem: SVMProblem) -> float:
    """The largest per-example cost ``max_i C_i``: the C that sets the problem's scale."""
    return problem.C if problem.weights is None else float(problem.costs.max())


def _row_norms_z(problem: SVMProblem) -> np.ndarray:
    rn = _row_norms(problem.data)
    return rn if problem.intercept != "augmented" else np.hypot(rn, problem.intercept_scaling)


def solver_scale(problem: SVMProblem, solver: str | None = None) -> float:
    """The power of two ``t`` with which the solvers see ``(t Z, C / t^2)`` (1: as given).

    ``C R^2 >= 1``: ``t = 1/R``; else ``t = sqrt(C)``. Exact and idempotent.
    """
    R, lc = scale_free_c(problem)
    if not R > 0:
        return 1.0
    C = max_cost(problem)
    lo, hi = _COMFORT_R_BY_SOLVER.get(str(solver), _COMFORT_R)
    if lo <= R <= hi and (problem.hard or _COMFORT_C[0] <= C <= _COMFORT_C[1]):
        return 1.0
    if lc >= 0:
        t = 1.0 / _pow2(R)  # R' in [1/2, 1)
    else:
        t = math.ldexp(1.0, (math.frexp(C)[1] - 1) // 2)  # C' in [1, 4)
    return 1.0 if 0.25 < t < 4.0 else t


def scaled_problem(problem: SVMProblem, t: float, as_hard_margin: bool = False) -> SVMProblem:
    """``(t Z, C / t^2)``: the same problem (``as_hard_margin``: its hard margin on ``t Z``)."""
    data = problem.data
    ds = data if t == 1.0 else Dataset(data.X * t, data.y, name=data.name, classes=data.classes)
    # the hard margin has no costs (every example that reaches the solvers counts)
    kw: dict[str, Any] = {"hard": True}
    if not (as_hard_margin or problem.hard):
        kw = {"C": times_inv_t2(problem.C, t), "sample_weight": problem.weights}
        if problem.weights is not None:
            # the weights' scale moved into C (both by a power of two: C_i / t^2 exactly),
            # so that C / t^2 stays finite wherever the costs C s_i / t^2 are
            p = _pow2(float(problem.weights.max()))
            kw = {"C": times_inv_t2(problem.C * p, t), "sample_weight": problem.weights / p}
    if not as_hard_margin:
        kw["loss"] = problem.loss  # the squared hinge scales as the hinge: xi does not move
    return SVMProblem(
        ds, intercept=problem.intercept, intercept_scaling=problem.intercept_scaling * t, **kw
    )


def times_inv_t2(x: Any, t: float) -> Any:
    """``x / t^2`` for a power of two ``t``, exactly (``t^2`` underflows below ``2^-537``)."""
    k = math.frexp(t)[1] - 1  # t = 2^k
    with np.errstate(over="ignore", under="ignore"):  # inf or 0 when beyond the doubles
        out = np.ldexp(x, -2 * k)
    return out if isinstance(x, np.ndarray) else float(out)


def scale_hint(problem: SVMProblem) -> str:
    """A hint for the error messages when the problem is at an extreme of ``C R^2``."""
    _, lc = scale_free_c(problem)
    if problem.hard or not math.isfinite(lc) or abs(lc) < 40:  # 40: C R^2 ~ 1e12
        return ""
    loss = "squared hinge" if problem.squared else "hinge"
    e10 = lc * math.log10(2.0)  # C R^2 may be beyond the doubles (1e330): print 10^e10
    cr2 = f"{10.0 ** (e10 - math.floor(e10)):.1f}e{math.floor(e10):+d}"
    if lc > 0:
        return (
            f". Note: C R^2 = {cr2} (R = max ||z_i||, and C R^2 is what matters: "
            "scaling X by s and C by 1/s^2 gives the same problem): at so large a C "
            "the soft margin is numerically the hard margin (if the data are "
            f"separable: use hard=True) or the minimiser of the {loss} loss alone; "
            "double precision cannot resolve both terms of the objective. Use a "
            "smaller C"
        )
    return (
        f". Note: C R^2 = {cr2} (R = max ||z_i||): at so small a C the "
        f"weights are negligible next to the {loss} term; use a larger C"
    )


#: Above this log2(C R^2) (C R^2 > 1e9) a soft margin on separable data is tried as the
#: hard margin first, and a non-separable one in the primal form too (PIQP's dual stalls).
HUGE_LOG_CR2 = 30.0
