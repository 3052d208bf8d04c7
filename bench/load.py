"""Benchmark: reading data files (LIBSVM, gzip LIBSVM, CSV): CPU time and peak memory.

Run: ``python bench/load.py [--copies 1000] [--repeat 3]``

Writes heart_scale repeated ``--copies`` times (270 x copies rows, 13 features) as LIBSVM,
gzip LIBSVM and CSV in a temporary folder, then loads each ``--repeat`` times in a fresh
process and prints the best CPU and wall seconds, then the peak of the memory allocated
while loading (``tracemalloc``, one more load) beside what the loaded data set holds. CPU
seconds are the number to compare on a busy machine: the wall time grows with the load,
the CPU time hardly.
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from maxmargin import load
from maxmargin.data.sources import _PACKAGE_DATA

CHILD = """
import sys, time, tracemalloc
import maxmargin as mm
best = best_cpu = float("inf")
for _ in range(int(sys.argv[2])):
    t, c = time.perf_counter(), time.process_time()
    ds = mm.load(sys.argv[1])
    best, best_cpu = min(best, time.perf_counter() - t), min(best_cpu, time.process_time() - c)
    del ds
tracemalloc.start()
ds = mm.load(sys.argv[1])
held, peak = tracemalloc.get_traced_memory()
print(f"{best_cpu:.2f} {best:.2f} {peak / 2**20:.0f} {held / 2**20:.0f}")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    raw = (_PACKAGE_DATA / "heart_scale").read_bytes() * args.copies
    ds = load("builtin:heart_scale")
    row = np.column_stack([ds.X.toarray(), ds.y])
    with tempfile.TemporaryDirectory() as tmp:
        files = {"LIBSVM": Path(tmp) / "heart.svm", "gzip LIBSVM": Path(tmp) / "heart.svm.gz"}
        files["LIBSVM"].write_bytes(raw)
        files["gzip LIBSVM"].write_bytes(gzip.compress(raw))
        files["CSV"] = Path(tmp) / "heart.csv"
        np.savetxt(files["CSV"], np.tile(row, (args.copies, 1)), delimiter=",", fmt="%.6g")
        print(f"heart_scale x {args.copies}: {270 * args.copies:,} rows x 13")
        print("| file | size | CPU s | wall s | peak memory (MiB) | the data set (MiB) |")
        print("|---|---|---|---|---|---|")
        for kind, f in files.items():
            out = subprocess.run(  # from the folder of maxmargin, whichever is imported
                [sys.executable, "-c", CHILD, str(f), str(args.repeat)],
                cwd=tmp,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            size = f.stat().st_size / 2**20
            print(f"| {kind} | {size:.1f} MiB | {out[0]} | {out[1]} | {out[2]} | {out[3]} |")


if __name__ == "__main__":
    main()
