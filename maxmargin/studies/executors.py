"""Run a study's tasks: local processes (joblib's loky) or a Dask distributed cluster.

Both routes hand every finished cell to the same :class:`Tracker` (its file, its attempts,
its one retry), so both give the same table. A worker that dies: Dask reschedules its
tasks; locally every task then in flight is a suspect, a lone one charged an attempt,
several each rerun alone (uncharged), which finds the culprit without penalising others.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass
from typing import Any

from .._progress import Progress
from ..exceptions import ParameterError
from ..io.json import format_header
from .cells import (
    CellJob,
    Plan,
    cell_task,
    given,
    reference_task,
    separability_task,
)
from .store import Store

__all__ = ["Tracker", "run_local", "run_dask", "MAX_ATTEMPTS"]

#: A cell runs at most this often (the first attempt and one retry).
MAX_ATTEMPTS = 2


class StudyProgress(Progress):
    """:class:`~maxmargin._progress.Progress` counting cells, with an ETA."""

    def update(self, k: float = 1) -> None:  # noqa: D102 - as Progress.update
        self.done += k
        now = time.perf_counter()
        if self.enabled and (now - self._last > 0.1 or self.done >= self.total):
            self._last = now
            frac = min(self.done / self.total, 1.0)
            bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
            spent = now - self._start
            eta = f"ETA {spent * (1 - frac) / frac:6.0f}s" if frac > 0 else "ETA      ?"
            self.stream.write(
                f"\r{self.label} [{bar}] {self.done:.0f}/{self.total:.0f} cells {spent:6.0f}s {eta}"
            )
            self.stream.flush()


class Tracker:
    """Record each finished cell once (atomically) and decide its retry."""

    def __init__(self, store: Store, bar: Progress) -> None:
        self.store = store
        self.bar = bar
        self.attempts: dict[str, int] = {}
        self.errors: dict[str, list[str]] = {}
        self.counts = {"ok": 0, "failed": 0, "retried": 0}

    def _finish(self, cell: CellJob, record: dict) -> None:
        self.store.write_cell(
            cell.key,
            {
                **format_header("study_cell"),
                "attempts": self.attempts.get(cell.key, 0),
                "errors": self.errors.get(cell.key, []),
                **record,
            },
        )
        self.counts[record["status"]] += 1
        self.bar.update(1)

    def result(self, cell: CellJob, out: dict) -> bool:
        """A worker's record of one attempt; True when the cell should run again."""
        self.attempts[cell.key] = self.attempts.get(cell.key, 0) + 1
        if out.get("status") == "ok":
            self._finish(cell, out)
            return False
        return self._error(cell, out.get("error", "unknown error"), out)

    def _error(self, cell: CellJob, message: str, out: dict | None = None) -> bool:
        self.errors.setdefault(cell.key, []).append(message)
        if self.attempts[cell.key] < MAX_ATTEMPTS:
            self.counts["retried"] += 1
            return True
        record = {k: v for k, v in (out or {}).items() if k != "status"}
        self._finish(cell, {**record, "status": "failed", "error": message})
        return False

    def died(self, cell: CellJob, message: str) -> bool:
        """The worker running this cell (alone) died; True when it should run again."""
        self.attempts[cell.key] = self.attempts.get(cell.key, 0) + 1
        return self._error(cell, message)

    def suspect(self, cell: CellJob, message: str) -> None:
        """A worker died while this cell ran beside others: noted, not charged."""
        self.errors.setdefault(cell.key, []).append(message)

    def failed(self, cell: CellJob, message: str) -> None:
        """The cell cannot run (its reference failed, or the engine gave up on it)."""
        self.attempts[cell.key] = self.attempts.get(cell.key, 0) + 1
        self.errors.setdefault(cell.key, []).append(message)
        self._finish(cell, {"status": "failed", "error": message})


def _message(e: BaseException) -> str:
    return " ".join(f"{type(e).__name__}: {e}".split())


@dataclass
class _Task:
    ident: Any
    fn: Callable
    args: tuple


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, e.g. ``taskset``; else all).

    Examples
    --------
    >>> usable_cpus() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _thread_env(n_workers: int) -> dict[str, str]:
    """One BLAS thread share per worker (the workers are the parallelism)."""
    per = str(max(1, usable_cpus() // n_workers))
    return {
        k: os.environ.get(k, per)
        for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    }


class _LocalRunner:
    """At most ``2 n`` tasks in flight (each worker's next one queued) on loky's pool."""

    def __init__(self, n_workers: int) -> None:
        self.n = n_workers

    def _executor(self) -> Any:
        from joblib.externals.loky import get_reusable_executor

        return get_reusable_executor(max_workers=self.n, timeout=60, env=_thread_env(self.n))

    def run(self, tasks: list[_Task], on_done: Callable[[_Task, str, Any], bool]) -> None:
        """Run ``tasks``, calling ``on_done(task, outcome, value)`` as each finishes.

        Outcomes: ``ok``, ``raised``, ``died`` (alone) or ``suspect`` (beside others: rerun
        alone); ``on_done`` returning True requeues the task.
        """
        from joblib.externals.loky import BrokenProcessPool

        normal, alone = deque(tasks), deque[_Task]()
        inflight: dict[Any, _Task] = {}
        ex = self._executor()

        def submit(queue: deque) -> None:
            t = queue.popleft()
            try:
                inflight[ex.submit(t.fn, *t.args)] = t
            except BrokenProcessPool:  # a worker died since the last look: back in line
                queue.appendleft(t)
                raise

        try:
            while normal or alone or inflight:
                try:
                    if normal:
                        while normal and len(inflight) < 2 * self.n:
                            submit(normal)
                    elif alone and not inflight:
                        submit(alone)
                except BrokenProcessPool:
                    if not inflight:
                        ex = self._executor()
                        continue
                done, _ = wait(list(inflight), timeout=0.5, return_when=FIRST_COMPLETED)
                if not done:
                    continue
                if any(isinstance(f.exception(), BrokenProcessPool) for f in done):
                    wait(list(inflight), timeout=30)  # the pool fails every other one too
                    done = set(inflight)
                if _settle(done, inflight, on_done, normal, alone):
                    ex = self._executor()  # a worker died: the pool is broken
        except BaseException:
            ex.shutdown(wait=False, kill_workers=True)
            raise
        # Shut the pool down now, not at interpreter exit: loky's exit hook races the
        # resource tracker, which then warns about "leaked semlock objects".
        ex.shutdown(wait=True)


def _settle(
    done: Any,
    inflight: dict[Any, _Task],
    on_done: Callable[[_Task, str, Any], bool],
    normal: deque,
    alone: deque,
) -> bool:
    """Hand every finished future to ``on_done`` and requeue as it says; True: a worker died."""
    from joblib.externals.loky import BrokenProcessPool

    broken, msg = [], "worker died"
    for f in done:
        t = inflight.pop(f)
        exc = f.exception() if f.done() else BrokenProcessPool("no answer")
        if isinstance(exc, BrokenProcessPool):
            broken.append(t)
            msg = f"worker died ({_message(exc)})"
        elif on_done(t, "ok", f.result()) if exc is None else on_done(t, "raised", exc):
            normal.append(t)
    if len(broken) == 1:
        if on_done(broken[0], "died", msg):
            alone.append(broken[0])
    for t in broken if len(broken) > 1 else ():
        on_done(t, "suspect", f"{msg} while {len(broken)} cells ran; rerun alone")
        alone.append(t)
    return bool(broken)


class _SerialRunner:
    """The tasks one after another in this process (``n_jobs=1``, as joblib does)."""

    def run(self, tasks: list[_Task], on_done: Callable[[_Task, str, Any], bool]) -> None:
        """As :meth:`_LocalRunner.run` (no process can die apart from this one)."""
        queue = deque(tasks)
        while queue:
            t = queue.popleft()
            try:
                value = t.fn(*t.args)
            except Exception as e:
                retry = on_done(t, "raised", e)
            else:
                retry = on_done(t, "ok", value)
            if retry:
                queue.append(t)


def _stage(runner: Any, tasks: list[_Task], store: Store, results: dict, failures: dict) -> None:
    """Run separability or reference tasks; cache each result; note each failure."""
    deaths: dict[str, int] = {}

    def on_done(t: _Task, outcome: str, value: Any) -> bool:
        if outcome == "ok":
            store.save_ref(t.ident, value)
            results[t.ident] = value
            return False
        if outcome == "suspect":
            return True
        if outcome == "died":
            deaths[t.ident] = deaths.get(t.ident, 0) + 1
            if deaths[t.ident] < MAX_ATTEMPTS:
                return True
            failures[t.ident] = value
            return False
        failures[t.ident] = _message(value)
        return False

    runner.run(tasks, on_done)


def _digests(plan: Plan) -> dict[str, str]:
    """The data digest each separability and reference key's cache must hold."""
    by_sep = {r.sep_key: plan.data[r.data].digest for r in plan.refs.values()}
    return {**by_sep, **{k: by_sep[r.sep_key] for k, r in plan.refs.items()}}


def _sep_args(plan: Plan) -> dict[str, tuple]:
    """Each separability key's task arguments (one task per data set and intercept mode)."""
    spec = plan.spec
    return {
        r.sep_key: (
            plan.data[r.data].train,
            plan.data[r.data].holdout,
            r.intercept,
            spec.intercept_scaling,
            spec.solver,
        )
        for r in plan.refs.values()
    }


def _ref_args(plan: Plan, key: str, sep: Any) -> tuple:
    """The arguments of reference task ``key``, given its separability (or its future)."""
    r, spec = plan.refs[key], plan.spec
    return (sep, spec.grid_parameter, r.value, r.intercept, spec.intercept_scaling, spec.solver)


def run_local(
    plan: Plan, pending: list[CellJob], store: Store, tracker: Tracker, n_jobs: int | None
) -> None:
    """Run ``pending`` cells (and the exact solves they need) on ``n_jobs`` local processes."""
    spec = plan.spec
    if n_jobs == 1:
        runner: Any = _SerialRunner()
    else:
        runner = _LocalRunner(min(n_jobs or usable_cpus(), len(pending)))
    ref_keys = list(dict.fromkeys(c.ref_key for c in pending))
    digest = _digests(plan)
    # a cached reference that does not load (a damaged file, other data) is redone
    missing = [k for k in ref_keys if store.load_ref(k, digest[k]) is None]
    failures: dict[str, str] = {}
    sep_keys = list(dict.fromkeys(plan.refs[k].sep_key for k in missing))
    seps = {sk: s for sk in sep_keys if (s := store.load_ref(sk, digest[sk])) is not None}
    sep_args = _sep_args(plan)
    tasks = [_Task(sk, separability_task, sep_args[sk]) for sk in sep_keys if sk not in seps]
    _stage(runner, tasks, store, seps, failures)
    refs: dict[str, Any] = {}
    tasks = [
        _Task(k, reference_task, _ref_args(plan, k, seps[plan.refs[k].sep_key]))
        for k in missing
        if plan.refs[k].sep_key in seps
    ]
    _stage(runner, tasks, store, refs, failures)
    for k in missing:
        sk = plan.refs[k].sep_key
        if k not in refs and k not in failures:
            failures[k] = f"separability of {plan.refs[k].data} failed: {failures.get(sk)}"

    def on_cell(t: _Task, outcome: str, value: Any) -> bool:
        cell = t.ident
        if outcome == "ok":
            return tracker.result(cell, value)
        if outcome == "suspect":
            tracker.suspect(cell, value)
            return True
        if outcome == "died":
            return tracker.died(cell, value)
        return tracker.died(cell, _message(value))  # the pool could not run it at all

    tasks = []
    for cell in pending:
        if cell.ref_key in failures:
            tracker.failed(
                cell,
                f"exact solve of {cell.data} at {spec.grid_parameter} = "
                f"{cell.value:g} failed: {failures[cell.ref_key]}",
            )
        else:
            tasks.append(_Task(cell, cell_task, (cell, str(store.ref_path(cell.ref_key)))))
    runner.run(tasks, on_cell)


def parse_scheduler(text: str) -> tuple[str, Any]:
    """``local:N`` -> ("local", N); ``tcp://HOST:PORT`` (or any address) -> ("address", it).

    Examples
    --------
    >>> parse_scheduler("local:2"), parse_scheduler("tcp://10.0.0.1:8786")
    (('local', 2), ('address', 'tcp://10.0.0.1:8786'))
    """
    if text.startswith("local:"):
        n = text.split(":", 1)[1]
        if not n.isdigit() or int(n) < 1:
            raise ParameterError(f"--scheduler {text!r}: write local:N with N >= 1 workers")
        return "local", int(n)
    if "://" not in text:
        raise ParameterError(
            f"--scheduler {text!r}: give tcp://HOST:PORT of a running Dask "
            "scheduler, or local:N to start N local workers"
        )
    return "address", text


def _client(scheduler: str) -> tuple[Any, Any]:
    import dask
    from distributed import Client, LocalCluster

    mode, arg = parse_scheduler(scheduler)
    if mode == "local":
        with dask.config.set({"distributed.scheduler.allowed-failures": MAX_ATTEMPTS - 1}):
            cluster = LocalCluster(
                n_workers=arg,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
        return Client(cluster), cluster
    try:
        return Client(arg, timeout="10s"), None
    except (OSError, TimeoutError) as e:
        raise ParameterError(
            f"--scheduler {arg}: cannot reach a Dask scheduler there ({_message(e)})"
        ) from None


def run_dask(
    plan: Plan, pending: list[CellJob], store: Store, tracker: Tracker, scheduler: str
) -> None:
    """Run ``pending`` cells on a Dask cluster: one graph, the solves as dependencies."""
    from distributed import as_completed

    sep_args = _sep_args(plan)
    client, cluster = _client(scheduler)
    futures: list[Any] = []
    try:
        ref_keys = list(dict.fromkeys(c.ref_key for c in pending))
        digest = _digests(plan)
        cached = {k: r for k in ref_keys if (r := store.load_ref(k, digest[k])) is not None}
        # Everything the driver holds goes into the graph as an argument (never
        # `scatter`ed): the scheduler can then recompute what a dying worker held.
        computed: dict[Any, str] = {}  # future -> cache key
        sep_f: dict[str, Any] = {}
        for k in ref_keys:
            sk = plan.refs[k].sep_key
            if k in cached or sk in sep_f:
                continue
            sep = store.load_ref(sk, digest[sk]) if store.ref_path(sk).exists() else None
            if sep is not None:
                sep_f[sk] = client.submit(given, sep, key=f"maxmargin-sep-{sk}", pure=False)
                continue
            sep_f[sk] = client.submit(
                separability_task, *sep_args[sk], key=f"maxmargin-sep-{sk}", pure=False
            )
            computed[sep_f[sk]] = sk
        ref_f: dict[str, Any] = {}
        for k in ref_keys:
            if k in cached:
                ref_f[k] = client.submit(given, cached[k], key=f"maxmargin-ref-{k}", pure=False)
            else:
                args = _ref_args(plan, k, sep_f[plan.refs[k].sep_key])
                ref_f[k] = client.submit(
                    reference_task, *args, key=f"maxmargin-ref-{k}", pure=False
                )
                computed[ref_f[k]] = k
        cells: dict[Any, CellJob] = {}

        def submit(cell: CellJob, attempt: int) -> Any:
            f = client.submit(
                cell_task,
                cell,
                ref_f[cell.ref_key],
                pure=False,
                key=f"maxmargin-cell-{cell.key}-{attempt}",
            )
            cells[f] = cell
            return f

        futures = [*computed, *(submit(c, 1) for c in pending)]
        ac = as_completed(futures, with_results=True, raise_errors=False)
        for f, value in ac:
            ok = f.status == "finished" and not isinstance(value, BaseException)
            if f in computed:
                if ok:
                    store.save_ref(computed[f], value)
                continue
            cell = cells.pop(f)
            if ok:
                if tracker.result(cell, value):
                    ac.add(submit(cell, tracker.attempts[cell.key] + 1))
            else:
                tracker.failed(
                    cell,
                    _message(value)
                    if isinstance(value, BaseException)
                    else f"the Dask task was {f.status}",
                )
            f.release()
    except BaseException:
        client.cancel(futures)
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
