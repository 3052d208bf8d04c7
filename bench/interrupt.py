"""Benchmark: how fast the command stops a compiled solve on Ctrl-C, and dies on SIGKILL.

Run: ``python bench/interrupt.py [--n 100000] [--d 40] [--repeat 3]``

It starts ``maxmargin solve DATA --solver PIQP`` on overlapping Gaussians (PIQP's C++
solve holds the interpreter for seconds: no KeyboardInterrupt reaches Python meanwhile),
waits until the computing child has loaded the data, then

- sends SIGINT to the command and times until it has exited (the supervisor kills the
  child's process group; the docs promise within a second),
- or sends SIGKILL to the command and times until the child is gone (its guard sees the
  supervisor's pipe close and kills the group).

The tests check the mechanisms without a clock (tests/test_process.py); this is where
the latency is measured. Linux only (it finds the child in /proc).
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from maxmargin import make_gaussians

EXE = shutil.which("maxmargin", path=str(Path(sys.executable).parent)) or "maxmargin"


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] not in "ZX":
            kids.append(int(stat.parent.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


def once(data: Path, sig: signal.Signals, settle: float) -> float:
    """Seconds from ``sig`` to the command's exit (SIGINT) or the child's end (SIGKILL)."""
    p = subprocess.Popen(
        [EXE, "solve", str(data), "--solver", "PIQP"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while not (kids := _children(p.pid)):
        if p.poll() is not None:
            raise SystemExit("the command ended before its child started")
        time.sleep(0.01)
    time.sleep(settle)  # loading and setting up; then the solve runs for seconds
    if p.poll() is not None:
        raise SystemExit("the solve finished before the signal: use a larger --n")
    tic = time.perf_counter()
    p.send_signal(sig)
    if sig == signal.SIGINT:
        p.wait()
    else:
        p.wait()
        while _alive(kids[0]):
            time.sleep(0.001)
    return time.perf_counter() - tic


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--d", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--settle", type=float, default=1.0, help="seconds before the signal")
    args = ap.parse_args()
    ds = make_gaussians(args.n, args.d, separation=0.5, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "big.npz"
        np.savez(data, X=ds.X, y=ds.y)
        for sig in (signal.SIGINT, signal.SIGKILL):
            times = [once(data, sig, args.settle) for _ in range(args.repeat)]
            print(
                f"{sig.name:8} {args.n} x {args.d}: stopped in "
                + ", ".join(f"{t:.3f}" for t in times)
                + " s"
            )


if __name__ == "__main__":
    main()
