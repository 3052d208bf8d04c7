"""check_learner on the built-in learners: run times, and the false-FAIL rate of its rules.

Every built-in learner is correct (each is tested against a naive loop written from its
reference), so every FAIL it gets is a false FAIL. This script runs the battery on every
built-in for many data seeds (each one new problems; the run seeds move with it) and
counts the verdicts. Results are appended as JSON lines, one per (battery, data seed,
learner), so an interrupted measurement resumes; ``--report`` prints the summary that
docs/validating.md quotes.

    python bench/check_learner.py --times                  # seconds per built-in, both batteries
    python bench/check_learner.py --command pegasos        # `maxmargin check` wall time, twice
    python bench/check_learner.py --battery quick --data-seeds 200 --out ff-quick.jsonl
    python bench/check_learner.py --report ff-quick.jsonl
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from maxmargin.online import LEARNERS
from maxmargin.testing import check_learner


def times() -> None:
    """Seconds per built-in, each battery: the first call solves the problems (cold)."""
    for name in ("quick", "default"):
        print(f"{name} battery")
        for i, learner in enumerate(LEARNERS):
            tic = time.perf_counter()
            rep = check_learner(learner, battery=name)
            print(
                f"  {learner:20s} {time.perf_counter() - tic:6.2f} s  "
                f"{'(solves the problems) ' if i == 0 else ''}{rep.summary().split(':', 1)[1][:44]}"
            )


def command(learner: str, repeat: int = 2) -> None:
    """Wall time of the whole command, ``maxmargin check LEARNER [--quick]`` (as ``time``).

    Start-up, solving and certifying the problems, the runs and the verdicts; the first
    call also compiles the numba kernels into their cache.
    """
    exe = shutil.which("maxmargin", path=str(Path(sys.executable).parent)) or "maxmargin"
    for i in range(repeat):
        for quick in ([], ["--quick"]):
            tic = time.perf_counter()
            done = subprocess.run([exe, "check", learner, "-q", *quick], check=False)
            wall = time.perf_counter() - tic
            print(
                f"  maxmargin check {learner} {' '.join(quick):8s} {wall:6.2f} s wall "
                f"(exit {done.returncode}{', first call' if i == 0 else ''})"
            )


def measure(battery: str, data_seeds: int, out: Path, learners: list[str]) -> None:
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["data_seed"], r["learner"]))
    S = 3 if battery == "quick" else 5
    with out.open("a") as fh:
        for ds in range(data_seeds):
            for learner in learners:
                if (ds, learner) in done:
                    continue
                seeds = tuple(range(S * ds, S * ds + S))
                try:
                    rep = check_learner(learner, battery=battery, data_seed=ds, seeds=seeds)
                except Exception as e:  # a battery problem that does not certify: recorded
                    err = {"battery": battery, "data_seed": ds, "learner": learner}
                    fh.write(json.dumps({**err, "error": f"{type(e).__name__}: {e}"}) + "\n")
                    fh.flush()
                    continue
                row = {
                    "battery": battery,
                    "data_seed": ds,
                    "learner": learner,
                    "seconds": rep.seconds,
                    "counts": rep.counts(),
                    "by_kind": {},
                    "failures": [[v.claim, v.problem, v.reason] for v in rep.failures],
                }
                for v in rep.verdicts:
                    k = row["by_kind"].setdefault(v.kind, {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0})
                    k[v.outcome] += 1
                fh.write(json.dumps(row) + "\n")
                fh.flush()


def report(paths: list[Path]) -> None:
    for path in paths:
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for r in rows:
            if "error" in r:
                print(f"  ERROR {r['learner']} data seed {r['data_seed']}: {r['error']}")
        rows = [r for r in rows if "error" not in r]
        calls = len(rows)
        failed = sum(1 for r in rows if r["counts"]["FAIL"])
        verdicts = sum(sum(r["counts"].values()) for r in rows)
        fails = sum(r["counts"]["FAIL"] for r in rows)
        seeds = len({r["data_seed"] for r in rows})
        print(
            f"{path.name}: {rows[0]['battery']} battery, {seeds} data seeds, {calls} checks "
            f"of {len({r['learner'] for r in rows})} learners, {verdicts} verdicts"
        )
        print(f"  checks with a FAIL: {failed} / {calls}; FAIL verdicts: {fails} / {verdicts}")
        kinds: dict[str, dict[str, int]] = {}
        for r in rows:
            for kind, c in r["by_kind"].items():
                for k, v in c.items():
                    kinds.setdefault(kind, {}).setdefault(k, 0)
                    kinds[kind][k] += v
        for kind, c in sorted(kinds.items()):
            print(f"  {kind:12s} {c}")
        for r in rows:
            for f in r["failures"]:
                print(f"  FAIL {r['learner']} data seed {r['data_seed']}: {f}")
        secs = sorted(r["seconds"] for r in rows)
        print(f"  seconds per check: median {secs[len(secs) // 2]:.2f}, max {secs[-1]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--times", action="store_true")
    ap.add_argument("--command", metavar="LEARNER", help="time `maxmargin check LEARNER`")
    ap.add_argument("--battery", default="quick")
    ap.add_argument("--data-seeds", type=int, default=200)
    ap.add_argument("--learners", default=",".join(LEARNERS))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--report", type=Path, nargs="*")
    a = ap.parse_args()
    if a.times:
        times()
    if a.command:
        command(a.command)
    if a.out:
        measure(a.battery, a.data_seeds, a.out, a.learners.split(","))
    if a.report:
        report(a.report)


if __name__ == "__main__":
    main()
