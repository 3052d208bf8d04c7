"""Turn a study's learner entry into a learner object (the one place that knows how).

A learner is named either by its registry name (``pegasos``) or as an importable class:
``module:Class`` or ``path/file.py:Class``. :func:`resolve_learner` returns an instance
built for the study's problem, which :func:`maxmargin.compare` then runs. It is called in
the worker that runs the cell, so a class only needs to be importable there.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..exceptions import ParameterError

if TYPE_CHECKING:
    from ..online.base import OnlineLearner

__all__ = ["resolve_learner", "learner_class", "learner_digest"]


def _file_module(path: Path) -> Any:
    """Import ``path`` once per process under a name that changes with its content."""
    try:
        content = path.read_bytes()
    except OSError as e:
        raise ParameterError(f"cannot read {path}: {e.strerror or e}") from None
    name = "_maxmargin_study_" + hashlib.sha256(str(path).encode() + content).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ParameterError(f"{path} is not an importable Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before exec: dataclasses and pickle look it up
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        raise ParameterError(f"importing {path} failed: {type(e).__name__}: {e}") from None
    return module


def learner_class(target: str) -> type[OnlineLearner]:
    """The learner class of ``target``: a registry name, ``module:Class`` or ``file.py:Class``.

    Parameters
    ----------
    target : str

    Returns
    -------
    type
        A subclass of :class:`maxmargin.online.OnlineLearner`.

    Raises
    ------
    ParameterError
        Unknown name, a module or file that does not import, no such class, or a class
        that is not an ``OnlineLearner``.

    Examples
    --------
    >>> learner_class("pegasos").__name__, learner_class("maxmargin.online:PA1").__name__
    ('Pegasos', 'PA1')
    """
    from ..online import LEARNERS, OnlineLearner

    if ":" not in target:
        if target not in LEARNERS:
            raise ParameterError(f"unknown learner {target!r}; choose from "
                                 f"{', '.join(LEARNERS)}")
        return LEARNERS[target]
    where, _, name = target.rpartition(":")
    if where.endswith(".py"):
        module = _file_module(Path(where))
    else:
        try:
            module = importlib.import_module(where)
        except Exception as e:
            raise ParameterError(f"cannot import module {where!r}: {type(e).__name__}: {e} "
                                 "(is it on PYTHONPATH where the study runs?)") from None
    cls = getattr(module, name, None)
    if cls is None:
        raise ParameterError(f"{where} has no {name!r}")
    if not (isinstance(cls, type) and issubclass(cls, OnlineLearner)):
        raise ParameterError(f"{target} is not a subclass of maxmargin.online.OnlineLearner")
    return cls


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
    from ..online.registry import learner_for

    cls = learner_class(target)
    accepted = cls.param_names()
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ParameterError(f"learner {target!r} has no parameter {', '.join(unknown)}; it "
                             f"accepts {', '.join(accepted)}")
    try:
        return learner_for(cls, problem, **params)
    except ParameterError:
        raise
    except Exception as e:
        raise ParameterError(f"building learner {target!r} failed: {type(e).__name__}: "
                             f"{e}") from None
