"""Turn a study's learner entry into a learner object.

A learner is named either by its registry name (``pegasos``) or as an importable class:
``module:Class`` or ``path/file.py:Class``, a subclass of ``OnlineLearner`` or a learner
of the public protocol (``docs/own-learner.md``). The resolution is the one of
:func:`maxmargin.online.registry.learner_class` (the command's ``--learner`` and
:func:`maxmargin.compare` use it too); :func:`resolve_learner` returns an instance built
for the study's problem, which :func:`maxmargin.compare` then runs. It is called in the
worker that runs the cell, so a class only needs to be importable there.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..online.registry import learner_class, learner_for

__all__ = ["resolve_learner", "learner_class", "learner_digest"]


def learner_digest(target: str) -> str:
    """A hash of the code behind ``target`` (its source file), so edits rerun its cells.

    Built-in learners hash to ``""``: the maxmargin version stands for their code.

    Parameters
    ----------
    target : str

    Returns
    -------
    str
        Hex digest, or ``""``.

    Examples
    --------
    >>> learner_digest("pegasos")
    ''
    """
    if ":" not in target:
        return ""
    try:
        source = inspect.getsourcefile(learner_class(target))
        return hashlib.sha256(Path(source).read_bytes()).hexdigest() if source else ""
    except (OSError, TypeError):
        return ""


def resolve_learner(target: str, params: Mapping[str, Any], problem: Any) -> Any:
    """Build the learner ``target`` with ``params`` for ``problem``.

    The problem fixes what every learner must share with it: ``intercept`` and
    ``intercept_scaling``, and the parameter the class declares as its
    ``problem_parameter`` (``lam`` for Pegasos, ``C`` for PA-I) unless ``params`` sets it
    (the objective's own must equal the problem's: :func:`maxmargin.compare` checks). See
    :func:`maxmargin.online.registry.learner_for`.

    Parameters
    ----------
    target : str
        Registry name, ``module:Class`` or ``path/file.py:Class``.
    params : mapping
        The constructor's other keyword arguments.
    problem : SVMProblem
        The soft-margin problem of the cell.

    Returns
    -------
    OnlineLearner

    Raises
    ------
    ParameterError
        See :func:`learner_class`; a keyword the constructor does not take.

    Examples
    --------
    >>> from maxmargin import SVMProblem, make_separable
    >>> p = SVMProblem(make_separable(20, 2, seed=0), C=1.0, intercept="none")
    >>> resolve_learner("pegasos", {"projection": "greedy"}, p).lam == p.lam
    True
    """
    return learner_for(target, problem, **dict(params))
