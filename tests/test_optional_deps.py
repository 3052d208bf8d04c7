"""A lean install: maxmargin without matplotlib, numba or cvxpy, and numba's disk cache.

Each case runs in a fresh interpreter where the package is made unimportable
(``sys.modules[name] = None``, what Python does for a module that is not there), so the
test sees what a user without the extra sees: ``import maxmargin`` and the exact solve
work, each command still writes report.md / report.json and says in one line how to get
the figures, and what needs a missing package says which ``pip install`` brings it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import maxmargin as mm

PACKAGE = Path(mm.__file__).resolve().parent


def _python(
    code: str, *, missing: tuple[str, ...] = (), cwd: Path | None = None, env: dict | None = None
) -> subprocess.CompletedProcess:
    shim = "".join(f"sys.modules[{m!r}] = None\n" for m in missing)
    script = "import sys\n" + shim + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def test_import_and_exact_solves_without_numba_matplotlib_or_cvxpy():
    r = _python(
        """
        import maxmargin as mm
        assert not any(m.startswith(("numba", "matplotlib", "cvxpy"))
                       for m, mod in sys.modules.items() if mod is not None)
        data = mm.make_gaussians(300, 5, seed=0)
        p = mm.SVMProblem(data, C=1.0)
        ref = [mm.solve(p, solver=s) for s in ("PIQP", "CLARABEL")]
        default = mm.solve(p)  # the IPM would be the default: numba missing, PIQP answers
        assert all(s.certificate.ok for s in [*ref, default]), "not certified"
        print("routes", default.solver, *[s.solver for s in ref])
        for kw in ({"solver": "IPM"}, {"solver": "DCD"}, {"solver": "OSQP"},
                   {"interface": "cvxpy"}):
            try:
                mm.solve(p, **kw)
            except mm.SolverError as e:
                print("error", kw, e)
        try:
            mm.run("perceptron", data)
        except mm.DependencyError as e:
            assert isinstance(e, ImportError)
            print("error run", e)
    """,
        missing=("numba", "matplotlib", "cvxpy"),
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "routes PIQP PIQP CLARABEL"
    errors = "\n".join(lines[1:])
    assert (
        "{'solver': 'IPM'} solver IPM needs numba, which is not installed: pip install numba"
        in errors
    )
    assert "solver DCD needs numba" in errors
    # osqp is installed here: the package to install is cvxpy, not osqp
    assert (
        "solver OSQP is reached through cvxpy, which is not installed: pip install cvxpy " in errors
        and "pip install osqp" not in errors
    )
    assert "interface='cvxpy' needs cvxpy, which is not installed: pip install cvxpy" in errors
    assert (
        "error run an online learner needs numba, which is not installed: "
        "pip install numba" in errors
    )


def test_commands_without_numba_say_so_in_one_line(tmp_path):
    r = _python(
        f"""
        from maxmargin.cli import main
        print(main(["solve", "builtin:heart_scale", "-q", "--json",
                    {str(tmp_path / "s.json")!r}]))
        print(main(["compare", "builtin:separable", "--out", {str(tmp_path / "c")!r}]))
    """,
        missing=("numba",),
    )
    assert r.stdout.split() == ["0", "2"], r.stderr
    assert json.loads((tmp_path / "s.json").read_text())["certified"]
    assert r.stderr.strip().splitlines() == [
        "maxmargin: error: an online learner needs numba, which is not installed: pip install numba"
    ]


def test_reports_without_matplotlib_skip_the_figures_in_one_line(tmp_path):
    out = {k: str(tmp_path / k) for k in ("compare", "path", "exact", "demo")}
    gif = str(tmp_path / "run.gif")
    r = _python(
        f"""
        from maxmargin.cli import main
        sep = "builtin:separable"
        for argv in (["compare", sep, "--learners", "pegasos", "--epochs", "1",
                      "--out", {out["compare"]!r}, "-q"],
                     ["path", sep, "--C-grid", "1e-2:1e2:3", "--out", {out["path"]!r}, "-q"],
                     ["path", sep, "--exact", "--out", {out["exact"]!r}, "-q"],
                     ["run", sep, "--learner", "perceptron", "--animate", {gif!r}, "-q"]):
            print(main(argv), file=sys.stderr)
    """,
        missing=("matplotlib",),
    )
    err = r.stderr.strip().splitlines()
    skipped = (
        "maxmargin: warning: figures skipped: drawing figures needs matplotlib, which "
        "is not installed: pip install 'maxmargin[plot]'"
    )
    assert err == [
        skipped,
        "0",
        skipped,
        "0",
        skipped,
        "0",
        "maxmargin: error: drawing figures needs matplotlib, which is not "
        "installed: pip install 'maxmargin[plot]'",
        "2",
    ], r.stderr
    for name in ("compare", "path", "exact"):
        files = sorted(p.name for p in Path(out[name]).iterdir() if p.name[0] != ".")
        assert {"report.md", "report.json"} <= set(files), files
        assert not [f for f in files if f.endswith((".png", ".svg"))], files
        assert "## Figures" not in (Path(out[name]) / "report.md").read_text()
    assert not os.path.exists(gif)


def _copy_package(root: Path) -> Path:
    """maxmargin copied as an installed package would be.

    With its bytecode (valid: the times are kept), no numba cache.
    """
    shutil.copytree(PACKAGE, root / "maxmargin", ignore=shutil.ignore_patterns("*.nbi", "*.nbc"))
    return root


_KERNEL = """
    import numpy as np
    from maxmargin.solvers import ipm
    V = np.ones((4, 2)); v = np.ones(4)
    ipm.kernels.gram(V, v, v, v)
    stats = ipm.kernels.gram.stats
    print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), stats.cache_path)
"""


def test_numba_kernels_are_cached_next_to_an_installed_package(tmp_path):
    site = _copy_package(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    env.pop("NUMBA_CACHE_DIR", None)
    first = _python(_KERNEL, cwd=tmp_path, env=env)
    second = _python(_KERNEL, cwd=tmp_path, env=env)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    hits, misses, where = first.stdout.split()
    assert (hits, misses) == ("0", "1")  # compiled, then saved ...
    assert Path(where) == site / "maxmargin" / "solvers" / "__pycache__"
    assert list(Path(where).glob("_ipm_kernels.gram-*.nbi"))
    assert second.stdout.split()[:2] == ["1", "0"]  # ... and loaded by the next process
    assert first.stderr == "" == second.stderr  # not a terminal: no note


def test_numba_kernels_work_where_no_cache_directory_can_be_written(tmp_path):
    """Without a writable cache, maxmargin compiles into a private temporary directory.

    A read-only package and no writable user cache: numba cannot cache (and refuses
    ``cache=True`` functions outright); maxmargin compiles into a private temporary
    directory instead of failing. (Read-only is simulated: a file where each directory
    would go, which even root cannot write into.)
    """
    site = _copy_package(tmp_path / "site")
    cache = site / "maxmargin" / "solvers" / "__pycache__"  # where numba would cache
    shutil.rmtree(cache, ignore_errors=True)
    cache.write_text("")
    blocked = tmp_path / "blocked"
    blocked.write_text("")
    env = {
        **os.environ,
        "PYTHONPATH": str(site),
        "XDG_CACHE_HOME": str(blocked / "x"),
        "HOME": str(blocked),
    }
    env.pop("NUMBA_CACHE_DIR", None)
    r = _python(_KERNEL, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    hits, misses, where = r.stdout.split()
    assert (hits, misses) == ("0", "1") and "maxmargin-numba-" in where


class _Terminal:
    """A stderr that says it is a terminal, and keeps what is written."""

    def __init__(self):
        import io

        self.buffer = io.StringIO()

    def isatty(self):
        return True

    def write(self, text):
        return self.buffer.write(text)

    def flush(self):
        pass

    def getvalue(self):
        return self.buffer.getvalue()


@pytest.fixture
def tiny_kernels(tmp_path, monkeypatch):
    """A fresh module of two cached numba kernels, nothing announced yet in this process.

    The module has its own empty cache.
    """
    from maxmargin import _deps

    name = f"mm_tiny_kernels_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text(
        textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def double(x):
            return 2 * x

        @njit(cache=True)
        def triple(x):
            return 3 * x
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_deps, "_announced", False)
    yield _deps.CompiledKernels(name, "this test")
    sys.modules.pop(name, None)


def test_the_first_compilation_is_announced_once_on_a_terminal(tiny_kernels, monkeypatch):
    from maxmargin import _progress

    kernels, term = tiny_kernels, _Terminal()
    monkeypatch.setattr(sys, "stderr", term)  # in the test: pytest's capture resets setup's
    monkeypatch.setattr(_progress, "_open_line", True)  # a progress bar is drawing
    assert kernels.double(2) == 4 and kernels.triple(2) == 6
    assert term.getvalue().count("\n") == 2 and term.getvalue().startswith("\n")
    assert "compiling the numba kernels" in term.getvalue()  # once, the bar's line ended


def test_the_compilation_note_is_silent_with_q_and_logged_with_v(tiny_kernels, caplog, monkeypatch):
    import logging

    from maxmargin._progress import notes_silenced

    kernels, term = tiny_kernels, _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    with notes_silenced():  # -q
        assert kernels.double(2) == 4
    assert term.getvalue() == ""
    from maxmargin import _deps

    monkeypatch.setattr(_deps, "_announced", False)
    with caplog.at_level(logging.DEBUG, logger="maxmargin"):  # -v: the log, not the terminal
        assert kernels.triple(2) == 6
    assert term.getvalue() == ""
    assert [r.getMessage() for r in caplog.records] == [
        "compiling the numba kernels (a few seconds, once: they are cached for the next runs)"
    ]


def test_a_missing_package_and_a_broken_one_are_told_apart(tmp_path, monkeypatch):
    from maxmargin._deps import installed, require

    assert installed("numpy") and not installed("maxmargin_no_such_module")
    with pytest.raises(
        mm.DependencyError,
        match="needs maxmargin_no_such, which is not installed: pip install maxmargin_no_such",
    ):
        require("maxmargin_no_such", "this test")
    (tmp_path / "mm_broken_pkg.py").write_text("import mm_its_missing_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(
        mm.DependencyError,
        match="mm_broken_pkg, which is installed but does not import: No module named",
    ):
        require("mm_broken_pkg", "this test")


def test_an_exact_path_file_is_read_without_numba(tmp_path):
    ep = mm.regularization_path(mm.make_separable(20, 2, seed=3), exact=True)
    ep.to_json(tmp_path / "ep.json")
    r = _python(
        f"""
        import maxmargin as mm
        saved = mm.ExactPath.from_json({str(tmp_path / "ep.json")!r})
        print(len(saved), saved.certified, saved.coefficients(1.0)[1])
        print(mm.report.path.markdown(saved).splitlines()[0])
        assert not any(m.startswith("numba") for m, mod in sys.modules.items() if mod)
    """,
        missing=("numba",),
    )
    assert r.returncode == 0, r.stderr
    first, title = r.stdout.splitlines()
    assert first == f"{len(ep)} True {ep.coefficients(1.0)[1]}" and title.startswith("# Exact")
