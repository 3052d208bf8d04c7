"""Every gallery example runs headless, in a fresh directory, within its time budget.

One test per ``examples/plot_*.py`` (so ``pytest -n`` spreads them over workers). Each
runs in a subprocess with ``MPLBACKEND=Agg`` and a temporary working directory, must write
a PNG, and must stay within the gallery's budget of 15 s. The budget is checked on the
child's CPU time (user + sys, with BLAS/numba pinned to one thread), not on wall time, so
that running the examples in parallel on a small machine does not make them "slow"; a
wall-clock timeout still guards the suite.
"""

from __future__ import annotations

import ast
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("plot_*.py"))
BUDGET_S = 15.0
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def test_there_are_examples():
    assert SCRIPTS, f"no plot_*.py in {EXAMPLES}"


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_example_has_gallery_docstring(script):
    doc = ast.get_docstring(ast.parse(script.read_text()), clean=False)
    assert doc, f"{script.name}: no module docstring (sphinx-gallery needs an RST title)"
    lines = [ln.rstrip() for ln in doc.strip("\n").splitlines()]
    assert len(lines) >= 2 and set(lines[1]) == {"="}, f"{script.name}: no '===' title"
    assert len(lines[1]) >= len(lines[0]), f"{script.name}: title underline too short"


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_example_runs(script, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg", **{v: "1" for v in THREAD_VARS}}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert proc.returncode == 0, f"{script.name} failed:\n{proc.stdout}\n{proc.stderr}"
    assert list(tmp_path.glob("*.png")), f"{script.name} wrote no PNG into its cwd"
    assert cpu < BUDGET_S, (
        f"{script.name} used {cpu:.1f} s of CPU ({wall:.1f} s wall; budget {BUDGET_S} s)"
    )
