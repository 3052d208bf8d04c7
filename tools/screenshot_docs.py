r"""Build the docs and look at them as a person would: screenshots in headless Chromium.

    python tools/screenshot_docs.py [--no-build] [--out DIR]

Builds the site (``sphinx-build -W -b html docs docs/_build/html``), opens these pages in
headless Chromium (Debian's ``chromium``; ``apt-get install chromium``) and saves one PNG
each into ``--out`` (default ``docs/_build/screenshots``, ignored by git):

    index, formulations (the math), the gallery index (thumbnails), one gallery example,
    the API reference, one API page.

Then look at the PNGs: is the math typeset (no raw ``$`` or ``\frac``), does every gallery
thumbnail show its figure, is the navigation there? The site carries its own MathJax
(``_static/mathjax``, from the docs extra's sphinx-mathjax-offline), so the math
typesets without network.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "docs" / "_build" / "html"

PAGES = {  # name: (page, window size)
    "index": ("index.html", "1280,900"),
    "formulations": ("formulations.html", "1280,2400"),
    "gallery": ("auto_examples/index.html", "1280,1100"),
    "example": ("auto_examples/plot_hard_margin_2d.html", "1280,1400"),
    "api": ("api.html", "1280,1600"),
    "api_solve": ("generated/maxmargin.solve.html", "1280,1600"),
}


def build() -> None:
    cmd = [sys.executable, "-m", "sphinx", "-W", "-E", "-b", "html", "docs", str(HTML)]
    print("$", " ".join(cmd))
    subprocess.run(cmd, cwd=ROOT, check=True)


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    sys.exit("no chromium found: apt-get install chromium")


def shoot(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    exe = chromium()
    shots = []
    for name, (page, size) in PAGES.items():
        target = HTML / page
        if not target.exists():
            print(f"skip {name}: {target} does not exist")
            continue
        png = out / f"{name}.png"
        with tempfile.TemporaryDirectory() as profile:
            cmd = [
                exe,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--allow-file-access-from-files",
                f"--user-data-dir={profile}",
                "--virtual-time-budget=8000",
                f"--screenshot={png}",
                f"--window-size={size}",
                target.as_uri(),
            ]
            subprocess.run(cmd, check=True, capture_output=True, timeout=120)
        print(f"wrote {png}")
        shots.append(png)
    return shots


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-build", action="store_true", help="use the existing build")
    ap.add_argument("--out", default=str(ROOT / "docs" / "_build" / "screenshots"))
    args = ap.parse_args(argv)
    if not args.no_build:
        build()
    shoot(Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
