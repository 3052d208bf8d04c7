"""
The C path on heart_scale and on separable data
===============================================

Figures and a report.

Run: ``python examples/plot_c_path.py [OUT_DIR]`` (default ``c-path-example``). Writes,
per data set, ``report.md``, ``report.json`` and the path figures (PNG and SVG); for the
separable data also the learners-along-the-path study (Pegasos, online subgradient, PA-I).
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from maxmargin import load_heart_scale, make_separable
from maxmargin.path import learners_along_path, path, write_path_report


def main(out: str = "c-path-example") -> None:
    root = Path(out)
    heart = load_heart_scale()
    train, test = heart.split(0.3, seed=0)
    p = path(train, C="1e-3:1e3:25", holdout=test, progress=True)
    files = write_path_report(p, root / "heart_scale")
    best = int(p.holdout_error.argmin())
    print(f"heart_scale: {len(p)} points, certified={p.certified}, C_0={p.min_margin_sv_C:g}, "
          f"best held-out error {p.holdout_error[best]:.3f} at C={p.C[best]:.3g}; "
          f"{len(files)} files in {root / 'heart_scale'}")

    sep = make_separable(200, 2, margin=0.3, seed=1)
    p2 = path(sep, C="1e-3:1e3:25", intercept="augmented", progress=True)
    study = learners_along_path(sep, exact=p2, epochs=20, n_jobs=2, progress=True)
    files = write_path_report(p2, root / "separable", study=study)
    h = p2.hard
    print(f"separable: C*={h.C_star:.4g} (soft = hard above it), last point equal to the "
          f"hard margin: {h.last_equal}; {len(files)} files in {root / 'separable'}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
