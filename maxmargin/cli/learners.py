"""The learners a command names and the learner options it was given, parsed for the registry."""

from __future__ import annotations

import argparse
import json
from typing import Any

#: The ``run`` options given to every learner whose constructor takes them.
SHARED = ("lam", "C", "eta0", "projection", "batch_size")


def _learner_targets(text: str | None, option: str = "--learner") -> list[str]:
    """The learners a comma-separated option names (names, ``module:Class``, ``file.py:Class``)."""
    from ..exceptions import ParameterError

    targets = [t.strip() for t in (text or "").split(",") if t.strip()]
    if not targets:
        raise ParameterError(
            f"{option} needs at least one learner (a name such as "
            "perceptron, or module:Class, or path/file.py:Class)"
        )
    return targets


def _parse_value(text: str) -> Any:
    """A ``--learner-param`` value: JSON when it parses, else the string itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _parse_step(text: str) -> Any:
    """``--step``: a schedule name, ``constant:ETA`` / ``invsqrt:ETA0``, or a StepSize's JSON."""
    from ..exceptions import ParameterError
    from ..online.step_sizes import STEP_NAMES, as_step

    text = text.strip()
    if text.startswith("{"):
        value = _parse_value(text)
        if not isinstance(value, dict):
            raise ParameterError(f"--step {text!r} is not a JSON object")
        return as_step(value)
    name, sep, size = text.partition(":")
    if not sep:
        if name not in STEP_NAMES:
            raise ParameterError(
                f"unknown --step {name!r}; choose from "
                f"{', '.join(STEP_NAMES)} (constant:ETA, invsqrt:ETA0) or a "
                "JSON object"
            )
        return name
    try:
        eta = float(size)
    except ValueError:
        raise ParameterError(f"--step {text!r}: {size!r} is not a number") from None
    if name not in ("constant", "invsqrt"):
        raise ParameterError(f"--step {text!r}: only constant:ETA and invsqrt:ETA0 take a size")
    return as_step(name, eta0=eta)


def _learner_options(args: argparse.Namespace, shared: bool = False) -> dict[str, Any]:
    """Keywords of ``resolve_all`` / ``distribute``: ``params``, ``spelled`` (names for messages).

    With ``shared``, also ``shared``: the ``run`` options of :data:`SHARED` given.
    """
    from ..exceptions import ParameterError

    params: dict[str, Any] = {}
    for item in getattr(args, "learner_param", None) or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ParameterError(f"--learner-param {item!r} is not KEY=VALUE")
        params[key.strip()] = _parse_value(value)
    if getattr(args, "step", None) is not None:
        params["step"] = _parse_step(args.step)
    spelled = {k: "--step" if k == "step" else f"--learner-param {k}" for k in params}
    out: dict[str, Any] = {"params": params, "spelled": spelled}
    if shared:
        out["shared"] = {k: getattr(args, k) for k in SHARED if getattr(args, k) is not None}
        spelled.update({k: "--" + k.replace("_", "-") for k in out["shared"]})
    return out
