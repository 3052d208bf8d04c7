"""The command's processes: a supervisor, its computing child, and what may go wrong.

The installed ``maxmargin`` runs the work in a child process (maxmargin/cli/supervisor.py,
``_supervise``). Here: Ctrl-C while the child is stuck in compiled code, SIGKILL of the
supervisor (the child and its workers die with it), a child that ends without a result
(a learner's ``os._exit``), Ctrl-C while the command is still importing.

Nothing here measures time: each test waits for an event it can see (a file a learner
writes, a process gone) and asserts what happened, never how fast. The only clock is a
generous hang guard, so that a broken mechanism fails instead of hanging the suite.
"""

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import maxmargin as mm
from maxmargin import _startup

EXE = shutil.which("maxmargin", path=str(Path(sys.executable).parent)) or "maxmargin"
PROC = Path("/proc")
HANG_GUARD_S = 300  # never an assertion on speed: only so that a hang fails

needs_supervisor = pytest.mark.skipif(
    not hasattr(os, "fork") or not (PROC / "self" / "stat").exists(),
    reason="the supervising parent needs fork; watching processes needs /proc",
)

#: Learners that misbehave, run by the installed command. Each writes a file named by its
#: process id into $MM_PIDS when it starts, so a test knows the process and the moment.
LEARNERS = textwrap.dedent(
    """\
    import ctypes, os, time
    from pathlib import Path
    import numpy as np


    class _Base:
        problem_parameter = "lam"
        objective = "lambda"

        def __init__(self, lam=1.0):
            self.lam = lam

        def start(self, d):
            self.w = np.zeros(d)
            (Path(os.environ["MM_PIDS"]) / str(os.getpid())).write_text("")

        def step(self, x, y, t):
            pass

        def weights(self):
            return self.w


    class Stuck(_Base):
        # waits in C, holding the interpreter, as PIQP's C++ solve and numba loops do:
        # no KeyboardInterrupt, no signal handler runs in this process until it returns
        def start(self, d):
            super().start(d)
            ctypes.PyDLL(None).pause()


    class Busy(_Base):
        # computes (and writes) for ever
        def start(self, d):
            super().start(d)
            log = Path(os.environ["MM_PIDS"]) / f"log.{os.getpid()}"
            while True:
                with log.open("a") as f:
                    f.write("x")
                time.sleep(0.001)


    class Writing(Stuck):
        # stuck in the middle of writing a file of --out (a folder it makes)
        def start(self, d):
            from maxmargin.io.files import atomic_write

            out = Path(os.environ["MM_PIDS"]).parent / "out"
            out.mkdir(exist_ok=True)  # the command may have made it (its staging folder)
            stuck = super().start
            atomic_write(out / "half.npz", lambda f: (f.write(b"half"), stuck(d)))


    class Animating(Stuck):
        # stuck in the middle of writing the GIF of --animate, as animate_run writes it
        # (a temporary file beside the GIF, in its folder: not --out's)
        def start(self, d):
            from maxmargin.io.files import atomic_write

            gif = Path(os.environ["MM_PIDS"]).parent / "anim" / "run.gif"
            stuck = super().start
            atomic_write(gif, lambda f: (f.write(b"GIF8"), stuck(d)))


    class Exit0(_Base):
        def step(self, x, y, t):
            if t == 3:
                os._exit(0)
    """
)


# ----------------------------------------------------------------------------- helpers


def _stat(pid):
    """``(state, pgrp, starttime)`` of a process, or None when there is none."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0], int(fields[2]), int(fields[19])


def _live(pids):
    """The processes of ``pids`` (pid -> start time) still running (a zombie is dead).

    The start time tells a process from a later one that got its recycled number.
    """
    alive = {}
    for pid, started in pids.items():
        st = _stat(pid)
        if st is not None and st[0] not in "ZX" and st[2] == started:
            alive[pid] = started
    return alive


def _ours(tag):
    """The running processes started with ``MM_PIDS=tag`` in their environment.

    The supervisor, its child and the child's guard (forks), a study's workers (started
    with the child's environment): this test's processes, and no one else's, even when
    another takes the number of one that ended.
    """
    mark = f"MM_PIDS={tag}\0".encode()
    found = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        st = _stat(entry.name)
        if mark in environ and st is not None and st[0] not in "ZX":
            found[int(entry.name)] = st[2]
    return found


def _wait_for(condition, what):
    """Poll until ``condition()`` is true; the clock is a hang guard only."""
    end = time.monotonic() + HANG_GUARD_S
    while not condition():
        if time.monotonic() > end:
            pytest.fail(f"{what}: not after {HANG_GUARD_S} s")
        time.sleep(0.05)


@pytest.fixture
def learners(tmp_path):
    """The learners' file, and the folder where they write their process ids."""
    pids = tmp_path / "pids"
    pids.mkdir()
    (tmp_path / "bad_learners.py").write_text(LEARNERS)
    return tmp_path / "bad_learners.py", pids


@contextlib.contextmanager
def _command(argv, pids, cwd):
    """The installed command, started; afterwards, whatever happened, none of it is left.

    Its processes are those started with this test's ``MM_PIDS`` (:func:`_ours`).
    """
    p = subprocess.Popen(
        [EXE, *map(str, argv)],
        cwd=cwd,
        env={**os.environ, "MM_PIDS": str(pids)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        yield p
    finally:
        p.kill()
        left = _ours(pids)
        groups = {st[1] for pid, t in left.items() if (st := _stat(pid)) and st[2] == t}
        for group in groups - {os.getpgrp()}:  # at once: a parent left could start more
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGKILL)
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        p.communicate(timeout=HANG_GUARD_S)  # (a child left alive would hold its pipes)


def _started(p, pids, count=1):
    """Wait until ``count`` learners have started; their process ids."""

    def ready():
        assert p.poll() is None, p.communicate()
        return len(list(pids.glob("[0-9]*"))) >= count

    _wait_for(ready, "the learners did not start")
    return [int(f.name) for f in pids.glob("[0-9]*")]


# ------------------------------------------------------------------- Ctrl-C, SIGKILL


@needs_supervisor
def test_ctrl_c_stops_a_child_stuck_in_compiled_code(learners, tmp_path):
    # The child never returns from C by itself: only the supervisor's kill can end it, so
    # the command exiting 130 proves the mechanism, whatever the machine's load. (How
    # fast it is on a real PIQP solve: bench/interrupt.py.)
    file, pids = learners
    argv = ["run", "builtin:separable", "--learner", f"{file}:Stuck", "--out", tmp_path / "o"]
    with _command(argv, pids, tmp_path) as p:
        [child] = _started(p, pids)
        group = _ours(pids)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=HANG_GUARD_S)
        assert p.returncode == 130 and err.decode().strip() == "maxmargin: interrupted"
        _wait_for(lambda: not _live(group), f"still running: {_live(group)}")
        assert sorted(f.name for f in tmp_path.iterdir()) == ["bad_learners.py", "pids"]


@needs_supervisor
@pytest.mark.parametrize("learner", ["Stuck", "Busy"])
def test_sigkill_of_the_command_kills_its_child(learner, learners, tmp_path):
    file, pids = learners
    argv = ["run", "builtin:separable", "--learner", f"{file}:{learner}"]
    with _command(argv, pids, tmp_path) as p:
        [child] = _started(p, pids)
        group = _ours(pids)
        assert child in group and len(group) == 3, group  # the supervisor, child, guard
        p.kill()  # SIGKILL: the supervisor can do nothing more
        p.wait()
        _wait_for(lambda: not _live(group), f"still running: {_live(group)}")
        assert not _ours(pids)  # nothing of it is left to write


@needs_supervisor
def test_sigkill_of_the_command_leaves_no_temporary_file(learners, tmp_path):
    # the child's guard removes what the supervisor would have: the half-written file,
    # and the folder the child made for it
    file, pids = learners
    argv = ["run", "builtin:separable", "--learner", f"{file}:Writing", "--out", tmp_path / "out"]
    with _command(argv, pids, tmp_path) as p:
        [child] = _started(p, pids)
        made = list((tmp_path / "out").iterdir())
        assert made and all(f.name.endswith(".maxmargin-tmp") for f in made)
        group = _ours(pids)
        p.kill()
        p.wait()
        _wait_for(lambda: not _live(group), f"still running: {_live(group)}")
        left = sorted(f.name for f in tmp_path.iterdir())
        assert left in (["bad_learners.py", "pids"], ["bad_learners.py", "out", "pids"])
        if "out" in left:  # the folder the command made for its staging stays, empty
            assert not any((tmp_path / "out").iterdir())


@needs_supervisor
@pytest.mark.parametrize("stop", ["ctrl-c", "sigkill"])
def test_a_stopped_animation_leaves_no_temporary_file(stop, learners, tmp_path):
    # the supervisor (Ctrl-C) or the child's guard (SIGKILL of the supervisor) removes the
    # child's half-written files in every folder the command writes into: --animate's too
    file, pids = learners
    (tmp_path / "anim").mkdir()
    gif = tmp_path / "anim" / "run.gif"
    argv = ["run", "builtin:separable", "--learner", f"{file}:Animating", "--animate", gif]
    with _command(argv, pids, tmp_path) as p:
        _started(p, pids)
        made = list(gif.parent.iterdir())
        assert made and all(f.name.endswith(".maxmargin-tmp") for f in made)
        group = _ours(pids)
        if stop == "ctrl-c":
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=HANG_GUARD_S)
            assert p.returncode == 130 and err.decode().strip() == "maxmargin: interrupted"
        else:
            p.kill()
            p.wait()
        _wait_for(lambda: not _live(group), f"still running: {_live(group)}")
        assert list(gif.parent.iterdir()) == []


def test_the_supervisor_knows_every_folder_the_command_writes_into(tmp_path):
    from maxmargin.cli.main import build_parser
    from maxmargin.cli.supervisor import _output_dirs

    (tmp_path / "o").mkdir()
    argv = ["run", "d", "--learner", "perceptron", "--animate", str(tmp_path / "a" / "x.gif")]
    args = build_parser().parse_args([*argv, "--out", str(tmp_path / "o")])
    assert sorted(_output_dirs(args)) == [(tmp_path / "a", False), (tmp_path / "o", True)]
    argv = ["solve", "d", "--json", "j/s.json", "--liblinear-model", "m/s.model"]
    assert sorted(_output_dirs(build_parser().parse_args(argv))) == [
        (Path("j"), False),
        (Path("m"), False),
    ]


@needs_supervisor
def test_sigkill_of_the_command_kills_its_workers(learners, tmp_path):
    # a study's cells run in worker processes: they die with the command too
    file, pids = learners
    (tmp_path / "s.toml").write_text(
        textwrap.dedent(f"""\
        [problem]
        lam = [0.1]
        intercept = "none"
        [run]
        epochs = 1
        seeds = [0, 1]
        [[data]]
        source = "builtin:separable"
        [[learners]]
        class = "{file}:Stuck"
        """)
    )
    out = tmp_path / "o"
    argv = ["study", tmp_path / "s.toml", "--out", out, "--jobs", 2, "--no-report"]
    with _command(argv, pids, tmp_path) as p:
        workers = _started(p, pids, count=2)
        child = _stat(workers[0])[1]  # the workers are in the child's process group
        group = _ours(pids)
        try:
            assert set(workers) <= set(group) and child in group, (workers, group)
            p.kill()
            p.wait()
            _wait_for(lambda: not _live(group), f"still running: {_live(group)}")
            assert not _ours(pids)
        finally:
            for sem in Path("/dev/shm").glob(f"sem.loky-{child}-*"):  # killed, loky leaks them
                sem.unlink(missing_ok=True)


@needs_supervisor
def test_a_finished_command_leaves_no_process(tmp_path):
    # the child's guard goes when the supervisor has waited for the child
    p = subprocess.run(
        [EXE, "run", "builtin:separable", "--learner", "perceptron"],
        env={**os.environ, "MM_PIDS": str(tmp_path)},
        capture_output=True,
        timeout=HANG_GUARD_S,
    )
    assert p.returncode == 0, p.stderr
    _wait_for(lambda: not _ours(tmp_path), "a process of the command still runs")


# ------------------------------------------------------- a child without its result


@needs_supervisor
@pytest.mark.parametrize(
    "argv",
    [
        ["run", "builtin:separable", "--learner"],
        ["compare", "builtin:separable", "--epochs", "1", "--intercept", "augmented", "--learners"],
        ["path", "builtin:separable", "--intercept", "none", "--jobs", "1", "--learners"],
    ],
    ids=["run", "compare", "path"],
)
def test_a_learner_calling_os_exit_is_an_error_not_success(argv, learners, tmp_path):
    file, pids = learners
    with _command([*argv, f"{file}:Exit0"], pids, tmp_path) as p:
        out, err = p.communicate(timeout=HANG_GUARD_S)
    assert p.returncode == 2, (out, err)
    assert err.decode().strip() == (
        "maxmargin: error: the computation ended without a result (exit status 0): did the "
        f"learner '{file}:Exit0' call os._exit?"
    )


@needs_supervisor
def test_a_child_without_a_result_is_an_internal_error_without_a_learner():
    script = (
        "import os, sys, maxmargin.cli as cli, maxmargin.cli.solve as solve\n"
        "solve.run = lambda args: os._exit(0)\n"
        "sys.argv = ['maxmargin', 'solve', 'builtin:separable']\n"
        "cli.main()\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_GUARD_S
    )
    assert p.returncode == 70 and p.stdout == ""
    assert p.stderr.strip() == (
        "maxmargin: internal error: the computation ended without a result (exit status 0) "
        "(please report it to the maxmargin developers, with the command line)"
    )


# ------------------------------------------------------------- Ctrl-C at start-up

#: Starts the installed command as its console script does, and sends SIGINT to itself
#: as Python is about to import ``MODULE``: a Ctrl-C while the command starts up.
STARTUP = """\
import os, runpy, signal, sys

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == MODULE:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = [EXE, "solve", "builtin:separable"]
runpy.run_path(EXE, run_name="__main__")
"""


@pytest.mark.skipif(not Path(EXE).is_file(), reason="needs the installed maxmargin command")
@pytest.mark.parametrize("module", ["numpy", "maxmargin.report", "maxmargin.cli"])
def test_ctrl_c_while_the_command_imports_is_one_line(module):
    script = f"MODULE, EXE = {module!r}, {EXE!r}\n" + STARTUP
    p = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_GUARD_S
    )
    assert (p.returncode, p.stdout, p.stderr) == (130, "", "maxmargin: interrupted\n")


def test_ctrl_c_before_the_command_parses_is_one_line(capsys, monkeypatch):
    import importlib

    cli = importlib.import_module("maxmargin.cli.main")  # the module (its main is the face's)

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["solve", "builtin:separable"]) == 130
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines()[-1:] == ["maxmargin: interrupted"], err


def test_ctrl_c_in_a_learner_in_process_is_one_line(capsys, tmp_path):
    from maxmargin.cli import main

    (tmp_path / "k.py").write_text(
        "import numpy as np\n"
        "class K:\n"
        "    def start(self, d): self.w = np.zeros(d)\n"
        "    def step(self, x, y, t): raise KeyboardInterrupt\n"
        "    def weights(self): return self.w\n"
    )
    assert main(["run", "builtin:separable", "--learner", f"{tmp_path / 'k.py'}:K"]) == 130
    err = capsys.readouterr().err  # (a warning of another test's garbage may come first)
    assert err.splitlines()[-1:] == ["maxmargin: interrupted"] and "Traceback" not in err, err


def test_a_program_importing_maxmargin_keeps_keyboard_interrupt():
    assert mm is not None and not _startup._command()  # pytest is not the command
    assert signal.getsignal(signal.SIGINT) is not _startup._interrupted
