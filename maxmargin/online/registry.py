"""The registry of the built-in learners, and where a name becomes a class and a learner.

The registry maps names to classes (:func:`make_learner`). This is also the one place
that turns a learner's name into a class (:func:`learner_class`: a registry name,
``module:Class`` or ``path/file.py:Class``) and a class into a learner for a problem
(:func:`learner_for`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

from ..exceptions import ParameterError
from .base import OnlineLearner
from .learner import is_learner
from .pa import PA, PA1, PA2
from .pegasos import Pegasos
from .perceptron import (
    PLA,
    AveragedPerceptron,
    DualPerceptron,
    MarginPerceptron,
    Perceptron,
    VotedPerceptron,
)
from .pocket import Pocket
from .protocol import LearnerError, as_learner, failure, learner_params
from .subgradient import OnlineSubgradient
from .winnow import Winnow

__all__ = [
    "LEARNERS",
    "build",
    "make_learner",
    "learner_for",
    "learner_class",
    "objective_parameter",
]

#: Registry: learner name -> class.
LEARNERS: dict[str, type[OnlineLearner]] = {
    cls.name: cls
    for cls in (
        Perceptron,
        AveragedPerceptron,
        VotedPerceptron,
        DualPerceptron,
        Pocket,
        Pegasos,
        OnlineSubgradient,
        PA,
        PA1,
        PA2,
        Winnow,
        MarginPerceptron,
        PLA,
    )
}


def make_learner(name: str, **params: Any) -> OnlineLearner:
    """Build a learner by its registry name.

    Parameters
    ----------
    name : str
        One of ``LEARNERS`` (``perceptron``, ``averaged_perceptron``, ``voted_perceptron``,
        ``dual_perceptron``, ``pocket``, ``pegasos``, ``subgradient``, ``pa``, ``pa1``,
        ``pa2``, ``winnow``, ``margin_perceptron``, ``pla``).
    **params
        Keyword arguments of the learner's class.

    Returns
    -------
    OnlineLearner
        An instance of ``LEARNERS[name]`` (hyper-parameters only;
        :func:`~maxmargin.online.run` runs it).

    Examples
    --------
    >>> make_learner("pegasos", lam=0.01)
    Pegasos(lam=0.01, projection=None, batch_size=1, intercept='augmented', intercept_scaling=1.0)
    """
    if name not in LEARNERS:
        raise ParameterError(f"unknown learner {name!r}; choose from {', '.join(LEARNERS)}")
    cls = LEARNERS[name]
    accepted = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ParameterError(
            f"learner {name!r} has no parameter {', '.join(unknown)}; "
            f"it accepts {', '.join(accepted)}"
        )
    return cls(**params)


def _file_module(path: Path) -> Any:
    """Import ``path`` once per process under a name that changes with its content."""
    try:
        content = path.read_bytes()
    except OSError as e:
        raise ParameterError(f"cannot read {path}: {e.strerror or e}") from None
    name = "_maxmargin_learner_" + hashlib.sha256(str(path).encode() + content).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ParameterError(f"{path} is not an importable Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before exec: dataclasses and pickle look it up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _import(target: str, where: str) -> Any:
    """The module of ``target`` (``where``: a ``.py`` file or a module name), imported."""
    try:
        if where.endswith(".py"):
            return _file_module(Path(where))
        return importlib.import_module(where)
    except ParameterError:
        raise
    except SystemExit as e:  # uncaught, it would end the command silently
        raise LearnerError(
            f"learner {target!r}: importing {where} {failure(e)}; a learner's module must not exit"
        ) from None
    except Exception as e:
        why = failure(e).removeprefix("raised ")
        if where.endswith(".py"):
            raise ParameterError(f"importing {where} failed: {why}") from None
        raise ParameterError(
            f"cannot import module {where!r}: {why} (is it on PYTHONPATH?)"
        ) from None


def learner_class(target: str | type) -> type:
    """The learner class ``target`` names.

    ``target`` is a registry name, ``module:Class`` or ``path/file.py:Class``.

    The one resolution every entry point uses (:func:`~maxmargin.compare`, the path, a
    study, the command's ``--learner``).

    Parameters
    ----------
    target : str or type
        A name of :data:`LEARNERS`, an importable ``module:Class``, a file
        ``path/file.py:Class``, or a class (returned as it is).

    Returns
    -------
    type
        A subclass of :class:`~maxmargin.online.OnlineLearner`, or a class of the public
        protocol (``start``, ``step``, ``weights``: :mod:`maxmargin.online.protocol`).

    Raises
    ------
    ParameterError
        Unknown name, a module or file that does not import, no such class, or a class
        that is neither.

    Examples
    --------
    >>> learner_class("pegasos").__name__, learner_class("maxmargin.online:PA1").__name__
    ('Pegasos', 'PA1')
    """
    if isinstance(target, type):
        cls: Any = target
    elif not isinstance(target, str):
        raise ParameterError(
            f"a learner is named by a string (a built-in name, module:Class "
            f"or file.py:Class) or given as a class; got {target!r}"
        )
    elif ":" not in target:
        if target not in LEARNERS:
            raise ParameterError(
                f"unknown learner {target!r}; choose from "
                f"{', '.join(LEARNERS)}, or give module:Class or "
                "path/file.py:Class"
            )
        return LEARNERS[target]
    else:
        where, _, name = target.rpartition(":")
        module = _import(target, where)
        cls = getattr(module, name, None)
        if cls is None:
            raise ParameterError(f"{where} has no {name!r}")
    if not (isinstance(cls, type) and (issubclass(cls, OnlineLearner) or is_learner(cls))):
        raise ParameterError(
            f"{target!r} is neither a maxmargin.online.OnlineLearner nor a "
            "class with start(d), step(x, y, t) and weights() "
            "(docs/own-learner.md)"
        )
    return cls


def learner_for(learner: str | type, problem: Any, **params: Any) -> OnlineLearner:
    """Build a learner to be measured against ``problem``'s optimum.

    The problem fixes what the learner must share with it: ``intercept`` and
    ``intercept_scaling``, and the parameter the class declares in ``problem_parameter``
    (``lam`` for Pegasos, ``C`` for PA-I); ``params`` give the others (and may set a
    ``problem_parameter`` that is not the objective's, e.g. PA-I's aggressiveness). A
    class of the public protocol is built with its own parameters and wrapped
    (:class:`~maxmargin.online.protocol.PythonLearner`) with the problem's intercept.

    Parameters
    ----------
    learner : str or type
        What :func:`learner_class` resolves: a name of :data:`LEARNERS`,
        ``module:Class``, ``path/file.py:Class``, or a class.
    problem : SVMProblem
    **params
        Other keyword arguments of the class.

    Returns
    -------
    OnlineLearner

    Examples
    --------
    >>> from maxmargin import SVMProblem, make_separable
    >>> p = SVMProblem(make_separable(20, 2, seed=0), C=2.0, intercept="none")
    >>> learner_for("pa1", p)
    PA1(C=2.0, intercept='none', intercept_scaling=1.0)
    """
    cls: Any = learner_class(learner)
    label = getattr(cls, "name", "") or cls.__name__
    supported = tuple(getattr(cls, "supported_intercepts", ("none", "augmented")))
    if problem.intercept not in supported:
        raise ParameterError(
            f"learner {label!r} supports intercept {' or '.join(supported)}, but the problem "
            f"has intercept={problem.intercept!r}; leave it out or change the problem"
        )
    plain = not issubclass(cls, OnlineLearner)
    kw: dict[str, Any] = (
        {}
        if plain
        else {"intercept": problem.intercept, "intercept_scaling": problem.intercept_scaling}
    )
    declared = getattr(cls, "problem_parameter", None)
    if declared is not None:
        kw[declared] = getattr(problem, declared)
    kw.update(params)
    accepted = learner_params(cls)
    unknown = sorted(set(kw) - set(accepted))
    if unknown:
        raise ParameterError(
            f"learner {label!r} has no parameter {', '.join(unknown)}; it "
            f"accepts {', '.join(accepted) or 'none'}"
        )
    built = build(cls, label, **kw)
    if not plain:
        return built
    return as_learner(
        built, intercept=problem.intercept, intercept_scaling=problem.intercept_scaling
    )


def build(cls: Any, label: str, **params: Any) -> Any:
    """``cls(**params)``; a constructor of the user's that fails is a :class:`ParameterError`.

    Parameters
    ----------
    cls : type
        A learner class (:func:`learner_class`).
    label : str
        The learner's name in the message.
    **params
        The constructor's keyword arguments.

    Returns
    -------
    object
        The instance.

    Raises
    ------
    ParameterError
        The constructor raised; a :class:`~maxmargin.online.LearnerError` when it called
        ``sys.exit`` (uncaught, it would end the command silently).

    Examples
    --------
    >>> build(LEARNERS["pa1"], "pa1", C=2.0)
    PA1(C=2.0, intercept='augmented', intercept_scaling=1.0)
    """
    try:
        return cls(**params)
    except ParameterError:
        raise
    except SystemExit as e:
        raise LearnerError(f"building learner {label!r}: its constructor {failure(e)}") from None
    except Exception as e:
        why = failure(e).removeprefix("raised ")
        raise ParameterError(f"building learner {label!r} failed: {why}") from None


def objective_parameter(learner: OnlineLearner) -> tuple[str, float] | None:
    """The parameter that fixes the objective a learner minimises, and its value.

    Parameters
    ----------
    learner : OnlineLearner

    Returns
    -------
    (str, float) or None
        ``("lam", learner.lam)`` for objective ``"lambda"``, ``("C", learner.C)`` for
        ``"C"``; None for a learner without an objective.

    Examples
    --------
    >>> from maxmargin.online import Pegasos, Perceptron
    >>> objective_parameter(Pegasos(lam=0.5)), objective_parameter(Perceptron())
    (('lam', 0.5), None)
    """
    if learner.objective is None:
        return None
    name = "lam" if learner.objective == "lambda" else "C"
    return name, float(getattr(learner, name))
