"""numpydoc validation of the public API: every name the API page lists.

The page (``_write_api_page`` in ``docs/conf.py``) lists ``maxmargin.__all__`` and the
``__all__`` of each module in its ``_EXTRA_MODULES``; this test reads that list from
``docs/conf.py`` (plus ``EXTRA_MODULES``, modules validated besides), so a name on the
page is always validated. Each class and function is checked with
``numpydoc.validate.validate`` for:

- GL08 the object has a docstring;
- PR01 / PR02 every parameter documented, no documented parameter that does not exist;
- RT01 functions say what they return;
- EX01 an Examples section (the doctest ``pytest --doctest-modules`` runs).

Classes: the constructor's parameters may be documented under ``Attributes`` instead of
``Parameters`` (result dataclasses, built by the library, document their fields that
way); RT01 does not apply; exceptions need no example.

``KNOWN`` lists the violations that remain, each with its owner module; it may only
shrink. A new public name with a violation fails the test.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")
docscrape = pytest.importorskip("numpydoc.docscrape")

import maxmargin  # noqa: E402

CHECKS = {"GL08", "PR01", "PR02", "RT01", "EX01"}


def _api_page_modules() -> list[str]:
    """``_EXTRA_MODULES`` of ``docs/conf.py``: the modules whose ``__all__`` the page lists."""
    tree = ast.parse((Path(__file__).parents[1] / "docs" / "conf.py").read_text())
    return next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", "") == "_EXTRA_MODULES" for t in node.targets)
    )


#: Modules validated besides the page's (the figures' and path's own modules).
EXTRA_MODULES = [
    "maxmargin.evaluation.path.grid",
    "maxmargin.evaluation.path.limits",
    "maxmargin.plotting.boundary",
    "maxmargin.plotting.comparison",
    "maxmargin.plotting.animation",
    "maxmargin.plotting.path",
]
MODULES = list(dict.fromkeys([*_api_page_modules(), *EXTRA_MODULES]))

# (qualified name, code): left to fix, reported to the owners.
KNOWN: set[tuple[str, str]] = {
    # maxmargin/report/__init__.py (validated since the API page lists it, issue 22)
    ("maxmargin.report.register", "EX01"),
    ("maxmargin.report.Kind", "EX01"),
}

# Methods of the public classes (see ``_methods``): (qualified name, code) left to fix.
KNOWN_METHODS: set[tuple[str, str]] = set()


def _public():
    seen, out = set(), []
    sources = [(maxmargin, maxmargin.__all__)]
    for name in MODULES:
        mod = importlib.import_module(name)
        sources.append((mod, mod.__all__))
    for mod, names in sources:
        for name in names:
            obj = getattr(mod, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and id(obj) not in seen:
                seen.add(id(obj))
                out.append(obj)
    return out


PUBLIC = _public()


def _violations(obj) -> list[tuple[str, str]]:
    qual = f"{obj.__module__}.{obj.__qualname__}"
    result = numpydoc_validate.validate(qual)
    attrs: set[str] = set()
    if inspect.isclass(obj) and obj.__doc__:
        doc = docscrape.ClassDoc(obj, config={"show_class_members": False})
        attrs = {
            name.strip()
            for p in [*doc["Attributes"], *doc["Parameters"]]
            for name in p.name.split(",")
        }  # "lo, hi : float" documents both
    found = []
    for code, message in result["errors"]:
        if code not in CHECKS:
            continue
        if inspect.isclass(obj):
            if code == "RT01" or (code == "EX01" and issubclass(obj, BaseException)):
                continue
            if code == "PR01":
                missing = ast.literal_eval(message.split("Parameters ", 1)[1].split(" not")[0])
                if set(missing) <= attrs:
                    continue
        found.append((code, message))
    return found


def _methods() -> list[str]:
    """Public methods of the public classes, each once, named at the class defining it.

    Properties are left out: they read as attributes and are documented under the class's
    ``Attributes`` (or by their one-line docstring). Methods inherited from outside
    maxmargin (scikit-learn's ``get_params``...) are the other library's to document.
    """
    seen, out = set(), []
    for cls in PUBLIC:
        if not inspect.isclass(cls):
            continue
        for klass in cls.__mro__:
            if not klass.__module__.startswith("maxmargin"):
                continue
            for name, attr in vars(klass).items():
                func = attr.__func__ if isinstance(attr, (classmethod, staticmethod)) else attr
                if name.startswith("_") or not inspect.isfunction(func) or id(func) in seen:
                    continue
                if func.__qualname__ != f"{klass.__qualname__}.{name}":
                    continue  # a function held as a field's default, not a method
                seen.add(id(func))
                out.append(f"{klass.__module__}.{klass.__qualname__}.{name}")
    return out


METHODS = _methods()


def _method_violations(qual: str) -> list[tuple[str, str]]:
    return [(c, m) for c, m in numpydoc_validate.validate(qual)["errors"] if c in CHECKS]


@pytest.mark.parametrize("qual", METHODS)
def test_numpydoc_methods(qual):
    new = [(c, m) for c, m in _method_violations(qual) if (qual, c) not in KNOWN_METHODS]
    assert not new, f"{qual}: " + "; ".join(f"{c} {m}" for c, m in new)


def test_known_methods_list_is_current():
    """A fixed method violation must leave KNOWN_METHODS, so that the list only shrinks."""
    current = {(q, c) for q in METHODS for c, _ in _method_violations(q)}
    stale = KNOWN_METHODS - current
    assert not stale, f"fixed, remove from KNOWN_METHODS: {sorted(stale)}"


@pytest.mark.parametrize("obj", PUBLIC, ids=[f"{o.__module__}.{o.__qualname__}" for o in PUBLIC])
def test_numpydoc(obj):
    qual = f"{obj.__module__}.{obj.__qualname__}"
    new = [(c, m) for c, m in _violations(obj) if (qual, c) not in KNOWN]
    assert not new, f"{qual}: " + "; ".join(f"{c} {m}" for c, m in new)


def test_known_list_is_current():
    """A fixed violation must leave KNOWN, so that the list only shrinks."""
    current = {(f"{o.__module__}.{o.__qualname__}", c) for o in PUBLIC for c, _ in _violations(o)}
    stale = KNOWN - current
    assert not stale, f"fixed, remove from KNOWN: {sorted(stale)}"
