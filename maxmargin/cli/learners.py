"""The learners a command names, each built with the options its constructor takes."""

from __future__ import annotations

import argparse
import json
from typing import Any


def _learner_options(args: argparse.Namespace, cls: Any) -> dict[str, Any]:
    """The ``run`` options a learner's constructor takes (others are for other learners)."""
    from ..online.protocol import learner_params

    given = {
        "lam": args.lam,
        "C": args.C,
        "eta0": args.eta0,
        "intercept": args.intercept,
        "projection": args.projection,
        "batch_size": args.batch_size,
    }
    return {k: v for k, v in given.items() if v is not None and k in learner_params(cls)}


def _check_options_apply(args: argparse.Namespace, classes: list[Any], targets: list[str]) -> None:
    """An option given explicitly that no chosen learner takes is an error, not ignored."""
    from ..exceptions import ParameterError
    from ..online import LEARNERS
    from ..online.protocol import learner_params

    for key in ("lam", "C", "eta0", "projection", "batch_size"):
        if getattr(args, key) is None or any(key in learner_params(c) for c in classes):
            continue
        takers = [name for name, c in LEARNERS.items() if key in learner_params(c)]
        option = "--" + key.replace("_", "-")
        raise ParameterError(
            f"{option} applies to none of the learners given ({', '.join(targets)}); "
            f"it is for {', '.join(takers)}"
        )


def _learner_targets(text: str | None, option: str = "--learner") -> list[str]:
    """The learners a comma-separated option names, each resolved now.

    Registry names, ``module:Class`` or ``path/file.py:Class``; a bad one exits 2 before any
    work.
    """
    from ..exceptions import ParameterError
    from ..online.registry import learner_class

    targets = [t.strip() for t in (text or "").split(",") if t.strip()]
    if not targets:
        raise ParameterError(
            f"{option} needs at least one learner (a name such as "
            "perceptron, or module:Class, or path/file.py:Class)"
        )
    for target in targets:
        learner_class(target)
    return targets


def _parse_value(text: str) -> Any:
    """A ``--learner-param`` value: JSON when it parses, else the string itself.

    JSON: numbers, true, null, lists, objects.
    """
    try:
        return json.loads(text)
    except ValueError:
        return text


def _parse_step(text: str) -> Any:
    """``--step``: a schedule name, ``constant:ETA`` / ``invsqrt:ETA0``, or JSON.

    A name: ``constant``, ``invsqrt`` (the learner's eta0), ``pegasos``, ``pegasos_paper``;
    JSON: that of ``StepSize.to_dict()``.
    """
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


def _learner_params(args: argparse.Namespace, targets: list[str]) -> list[dict[str, Any]]:
    """Per learner: the ``--learner-param`` and ``--step`` values its constructor takes.

    A key no learner takes is an error.
    """
    from ..exceptions import ParameterError
    from ..online.protocol import learner_params
    from ..online.registry import learner_class

    given: dict[str, Any] = {}
    for item in getattr(args, "learner_param", None) or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ParameterError(f"--learner-param {item!r} is not KEY=VALUE")
        given[key.strip()] = _parse_value(value)
    if getattr(args, "step", None) is not None:
        given["step"] = _parse_step(args.step)
    accepted = [set(learner_params(learner_class(t))) for t in targets]
    for key in given:
        if not any(key in acc for acc in accepted):
            option = "--step" if key == "step" else f"--learner-param {key}"
            takes = "; ".join(
                f"{t}: {', '.join(sorted(acc)) or 'nothing'}"
                for t, acc in zip(targets, accepted, strict=True)
            )
            raise ParameterError(f"{option}: no learner given takes {key!r} ({takes})")
    return [{k: v for k, v in given.items() if k in acc} for acc in accepted]


def _run_learners(args: argparse.Namespace, targets: list[str]) -> list[Any]:
    """The learners of ``run``, each built with the options its constructor takes.

    A learner of the public protocol is wrapped with ``--intercept`` (default: its own).
    """
    from ..exceptions import ParameterError
    from ..online import OnlineLearner
    from ..online.protocol import as_learner
    from ..online.registry import build, learner_class

    _check_options_apply(args, [learner_class(t) for t in targets], targets)
    learners = []
    for target, params in zip(targets, _learner_params(args, targets), strict=True):
        cls = learner_class(target)
        built = build(cls, target, **{**_learner_options(args, cls), **params})
        learners.append(
            built if issubclass(cls, OnlineLearner) else as_learner(built, intercept=args.intercept)
        )
    names = [lr.name for lr in learners]
    twice = sorted({nm for nm in names if names.count(nm) > 1})
    if twice:
        raise ParameterError(
            f"learner {', '.join(map(repr, twice))} given twice; each writes one trace"
        )
    return learners
