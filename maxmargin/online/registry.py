"""The one front door for learners: anything that names a learner becomes one run() drives.

:data:`LEARNERS` maps the built-in names to their classes; :func:`resolve` turns a name,
``module:Class``, ``path/file.py:Class``, a class, an instance, an estimator or a pair
``(target, params)`` into a checked learner; :func:`resolve_all` does so for several that
share options; :func:`digest` hashes a user's learner's source (a study's cell key).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import math
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .._validation import failure
from ..conventions import intercept_for
from ..exceptions import ParameterError
from .adapters import adapt
from .base import OnlineLearner
from .kernel_learners import BudgetPerceptron, KernelPA, KernelPA1, KernelPegasos
from .learner import Learner, is_learner
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
from .protocol import LearnerError, as_learner, learner_params
from .subgradient import OnlineSubgradient
from .winnow import Winnow

__all__ = ["LEARNERS", "resolve", "resolve_all", "distribute", "digest", "objective_parameter"]

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
        KernelPegasos,
        KernelPA,
        KernelPA1,
        BudgetPerceptron,
    )
}


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


@contextlib.contextmanager
def _theirs(exited: Callable[[str], str], failed: Callable[[str], str]) -> Iterator[None]:
    """An error of the user's code as one line: ParameterError, LearnerError for an exit.

    ``sys.exit`` uncaught would end the command silently.
    """
    try:
        yield
    except (ParameterError, KeyboardInterrupt):
        raise
    except SystemExit as e:
        raise LearnerError(exited(failure(e))) from None
    except BaseException as e:  # GeneratorExit, BaseException("x"): the user's own error
        raise ParameterError(failed(failure(e).removeprefix("raised "))) from None


def _import(target: str, where: str) -> Any:
    """The module of ``target`` (``where``: a ``.py`` file or a module name), imported."""
    file = where.endswith(".py")
    with _theirs(
        lambda e: f"learner {target!r}: importing {where} {e}; a learner's module must not exit",
        lambda why: (
            f"importing {where} failed: {why}"
            if file
            else f"cannot import module {where!r}: {why} (is it on PYTHONPATH?)"
        ),
    ):
        return _file_module(Path(where)) if file else importlib.import_module(where)


def learner_class(target: str | type) -> type:
    """The learner class ``target`` names: a registry name, ``module:Class``, ``file.py:Class``.

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
                f"unknown learner {target!r}; choose from {', '.join(LEARNERS)}, "
                "or give module:Class or path/file.py:Class"
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
            f"{target!r} is neither a maxmargin.online.OnlineLearner nor a class with "
            "start(d), step(x, y, t) and weights() (docs/own-learner.md)"
        )
    return cls


def build(cls: Any, label: str, **params: Any) -> Any:
    """``cls(**params)``; a constructor of the user's that fails is a :class:`ParameterError`.

    ``sys.exit`` in it is a :class:`~maxmargin.online.LearnerError` (it would end the
    command silently).

    Examples
    --------
    >>> build(LEARNERS["pa1"], "pa1", C=2.0)
    PA1(C=2.0, intercept='free', intercept_scaling=1.0)
    """
    with _theirs(
        lambda e: f"building learner {label!r}: its constructor {e}",
        lambda why: f"building learner {label!r} failed: {why}",
    ):
        return cls(**params)


def objective_parameter(learner: OnlineLearner) -> tuple[str, float] | None:
    """The parameter that fixes the objective a learner minimises, and its value (or None).

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


def resolve(
    item: Any,
    problem: Any = None,
    *,
    intercept: str | None = None,
    intercept_scaling: float | None = None,
    **params: Any,
) -> OnlineLearner:
    """Any learner the user named, as a learner :func:`~maxmargin.online.run` drives.

    The one front door (``run``, :func:`~maxmargin.compare`, the command line, the path,
    a study); the options are checked here, once.

    A learner built for ``problem`` takes its intercept (where supported),
    ``intercept_scaling`` and ``problem_parameter``; an instance must agree on its
    objective's parameter. A refusal is a one-line :class:`~maxmargin.ParameterError` (a
    :class:`~maxmargin.online.LearnerError` when the user's code calls ``sys.exit``).

    Parameters
    ----------
    item : str, class, learner, scikit-learn or river classifier, or (target, params)
        A name of :data:`LEARNERS`, ``"module:Class"`` or ``"path/file.py:Class"``; a
        built-in instance is returned as it is, an object of the protocol wrapped.
    problem : SVMProblem or None
    intercept : str or None, default the problem's, else the learner's own ("free" where supported)
    intercept_scaling : float or None, default the problem's, else 1
    **params : the constructor's (not for an instance)

    Returns
    -------
    OnlineLearner

    Examples
    --------
    >>> from maxmargin import SVMProblem, make_separable
    >>> resolve("pegasos", lam=0.01)
    Pegasos(lam=0.01, projection=None, batch_size=1, intercept='free', intercept_scaling=1.0)
    >>> p = SVMProblem(make_separable(20, 2, seed=0), C=2.0, intercept="none")
    >>> resolve("pa1", p), resolve("winnow", p).intercept
    (PA1(C=2.0, intercept='none', intercept_scaling=1.0), 'none')
    >>> resolve(("maxmargin.online:Pegasos", {"projection": "greedy"}), p).lam == p.lam
    True
    """
    if isinstance(item, tuple):
        target, own = _pair(item)
        shared = {"intercept": intercept, "intercept_scaling": intercept_scaling}
        return resolve(
            target,
            problem,
            **{**own, **{k: v for k, v in shared.items() if v is not None}, **params},
        )
    item = adapt(item)  # scikit-learn and river estimators: objects of the protocol
    if isinstance(item, (str, type)):
        cls = learner_class(item)
        return _build(cls, problem, intercept, intercept_scaling, params, _label(item))
    if not (isinstance(item, OnlineLearner) or is_learner(item)):
        raise ParameterError(
            "a learner is a built-in name, module:Class or path/file.py:Class, a class, a built-in "
            "learner, an object with start(d), step(x, y, t) and weights() (docs/own-learner.md), "
            f"or a scikit-learn or river classifier; got {type(item).__name__}"
        )
    if params:
        raise ParameterError(
            f"{type(item).__name__} is already built: set {', '.join(sorted(params))} in its "
            "constructor, or name its class to have it built"
        )
    if isinstance(item, OnlineLearner):
        given = [
            k
            for k, v in (("intercept", intercept), ("intercept_scaling", intercept_scaling))
            if v is not None
        ]
        if given:
            raise ParameterError(
                f"{item!r} is already built with its intercept: leave out {' and '.join(given)}"
            )
        learner = item
    else:
        kept = getattr(item, "intercept", None)  # its own intercept, if it has one
        if intercept is None and not isinstance(kept, str) and problem is not None:
            supported = tuple(getattr(item, "supported_intercepts", Learner.supported_intercepts))
            intercept = intercept_for(supported, problem.intercept)
        learner = as_learner(
            item, intercept=intercept, intercept_scaling=_scaling(intercept_scaling, problem)
        )
    if problem is not None:
        _check_objective(learner, problem)
    return learner


def resolve_all(
    items: Any,
    problem: Any = None,
    *,
    shared: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    spelled: Mapping[str, str] | None = None,
    **kw: Any,
) -> list[OnlineLearner]:
    """Several learners, each through :func:`resolve`, sharing options.

    ``shared`` (the command's ``--lam``, ``--C`` ...) and ``params`` (``--learner-param``)
    go to every learner whose constructor takes them, a pair's own parameters winning;
    ``spelled`` names an option in messages (``{"C": "--C"}``); ``kw``: ``intercept``,
    ``intercept_scaling``. Two learners of one name are refused (a trace is written
    under it).

    Examples
    --------
    >>> [lr.name for lr in resolve_all(["pegasos", "perceptron"], shared={"lam": 0.5})]
    ['pegasos', 'perceptron']
    >>> resolve_all("pegasos", shared={"lam": 0.5})[0].lam
    0.5
    """
    pairs = distribute(items, shared=shared, params=params, spelled=spelled)
    learners = [resolve(target, problem, **{**kw, **own}) for target, own in pairs]
    names = [lr.name for lr in learners]
    twice = sorted({nm for nm in names if names.count(nm) > 1})
    if twice:
        raise ParameterError(
            f"learner {', '.join(map(repr, twice))} given twice; each needs a name of its own "
            "(a trace is written under it)"
        )
    return learners


def distribute(
    items: Any,
    *,
    shared: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    spelled: Mapping[str, str] | None = None,
) -> list[tuple[Any, dict[str, Any]]]:
    """Each learner paired with the options its constructor takes, checked, nothing built.

    What :func:`resolve_all` builds from; a command that builds later checks here first.
    An option that no learner given takes is refused.

    Examples
    --------
    >>> distribute(["pegasos", "pa1"], shared={"lam": 0.5, "C": 2.0})
    [('pegasos', {'lam': 0.5}), ('pa1', {'C': 2.0})]
    """
    if isinstance(items, (str, type, tuple)) or not hasattr(items, "__iter__"):
        items = [items]
    pairs = [_pair(i) if isinstance(i, tuple) else (i, {}) for i in items]
    spelled = dict(spelled or {})
    takes = [set(_params_of(target)) for target, _ in pairs]
    labels = ", ".join(_label(target) for target, _ in pairs)
    for key in shared or {}:
        if not any(key in t for t in takes):
            takers = [nm for nm, cls in LEARNERS.items() if key in learner_params(cls)]
            raise ParameterError(
                f"{spelled.get(key, f'option {key!r}')} applies to none of the learners given "
                f"({labels}); "
                + (f"it is for {', '.join(takers)}" if takers else "no built-in learner takes it")
            )
    for key in params or {}:
        if not any(key in t for t in takes):
            each = "; ".join(
                f"{_label(target)}: {', '.join(sorted(t)) or 'nothing'}"
                for (target, _), t in zip(pairs, takes, strict=True)
            )
            raise ParameterError(
                f"{spelled.get(key, f'parameter {key!r}')}: no learner given takes {key!r} ({each})"
            )
    given = {**(shared or {}), **(params or {})}
    return [
        (target, {**{k: v for k, v in given.items() if k in t}, **own})
        for (target, own), t in zip(pairs, takes, strict=True)
    ]


def digest(target: Any) -> str:
    """SHA-256 of the source file behind a learner of the user's; ``""`` for a built-in.

    A study keys its cells on it, so that editing a learner reruns its cells.

    Examples
    --------
    >>> digest("pegasos"), len(digest("maxmargin.online.adapters:SklearnLearner"))
    ('', 64)
    """
    if isinstance(target, tuple):
        target = _pair(target)[0]
    if isinstance(target, str) and ":" not in target or target in LEARNERS.values():
        return ""
    try:
        source = inspect.getsourcefile(learner_class(target))
        return hashlib.sha256(Path(source).read_bytes()).hexdigest() if source else ""
    except (OSError, TypeError):
        return ""


def _pair(item: tuple) -> tuple[Any, dict[str, Any]]:
    """``(target, params)``, checked."""
    if len(item) != 2 or not isinstance(item[1], Mapping):
        raise ParameterError(
            f"a learner given as a pair is (target, params) with params a dict; got {item!r}"
        )
    return item[0], dict(item[1])


def _label(target: Any) -> str:
    """A learner's name in messages: a string as given, else its class's name."""
    if isinstance(target, str):
        return target
    cls = target if isinstance(target, type) else type(target)
    return str(getattr(cls, "name", "") or cls.__name__)


def _params_of(target: Any) -> tuple[str, ...]:
    """The constructor parameters of what ``target`` names (none for an instance)."""
    target = adapt(target)
    if isinstance(target, (str, type)):
        return learner_params(learner_class(target))
    return ()


def _scaling(value: float | None, problem: Any) -> float:
    if value is not None:
        return value
    return 1.0 if problem is None else problem.intercept_scaling


def _build(
    cls: Any,
    problem: Any,
    intercept: str | None,
    scaling: float | None,
    params: dict,
    label: str | None = None,
) -> OnlineLearner:
    """``cls`` built for ``problem`` (or alone), its parameters checked first."""
    label = _label(cls) if label is None else label
    if intercept is None and problem is not None:
        supported = tuple(getattr(cls, "supported_intercepts", Learner.supported_intercepts))
        intercept = intercept_for(supported, problem.intercept)
    plain = not issubclass(cls, OnlineLearner)
    kw: dict[str, Any] = {}
    if not plain:
        if intercept is not None:
            kw["intercept"] = intercept
        if scaling is not None or problem is not None:
            kw["intercept_scaling"] = _scaling(scaling, problem)
    declared = getattr(cls, "problem_parameter", None)
    if declared is not None and problem is not None:
        kw[declared] = getattr(problem, declared)
    accepted = learner_params(cls)
    if not plain and problem is not None and "loss" in accepted:
        kw["loss"] = problem.loss  # a built-in learner of a loss minimises the problem's
    kw.update(params)
    unknown = sorted(set(kw) - set(accepted))
    if unknown:
        raise ParameterError(
            f"learner {label!r} has no parameter {', '.join(unknown)}; it "
            f"accepts {', '.join(accepted) or 'none'}"
        )
    built = build(cls, label, **kw)
    if not plain:
        if problem is not None:
            _check_loss(built, problem)
        return built
    return as_learner(built, intercept=intercept, intercept_scaling=_scaling(scaling, problem))


def _check_objective(learner: OnlineLearner, problem: Any) -> None:
    """Refuse an instance that minimises the problem's objective with another parameter."""
    _check_loss(learner, problem)
    own = objective_parameter(learner)
    if own is not None and not math.isclose(own[1], getattr(problem, own[0]), rel_tol=1e-9):
        name, value = own
        raise ParameterError(
            f"{learner!r} has {name}={value:g}, the problem {name}={getattr(problem, name):g}: "
            f"it minimises another objective; build it with {name}=problem.{name}, or give "
            "its name or class to have it built for the problem"
        )


def _check_loss(learner: OnlineLearner, problem: Any) -> None:
    """Refuse a learner that minimises the objective of a loss other than the problem's."""
    if learner.objective is not None and learner.loss != problem.loss:
        raise ParameterError(
            f"{learner!r} minimises the {learner.loss} objective, the problem has "
            f"loss={problem.loss!r}: build it with loss={problem.loss!r} (or leave loss out), "
            f"or use a problem with loss={learner.loss!r}"
        )
