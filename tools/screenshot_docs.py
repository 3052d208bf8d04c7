"""Build the docs and look at them as a person would: screenshots in headless Chromium.

    python tools/screenshot_docs.py [--no-build] [--out DIR] [--mathjax URL_OR_PATH]

Builds the site (``sphinx-build -W -b html docs docs/_build/html``), opens these pages in
headless Chromium (Debian's ``chromium``; ``apt-get install chromium``) and saves one PNG
each into ``--out`` (default ``docs/_build/screenshots``, ignored by git):

    index, formulations (the math), the gallery index (thumbnails), one gallery example,
    the API reference, one API page.

Then look at the PNGs: is the math typeset (no raw ``$`` or ``\\frac``), does every gallery
thumbnail show its figure, is the navigation there?

MathJax: the site loads MathJax from its CDN. When that is unreachable (an offline
machine), the math would stay raw in the screenshots, so the script builds against a
local MathJax instead: ``--mathjax`` if given, else Debian's ``libjs-mathjax``
(``/usr/share/javascript/mathjax/MathJax.js``) when installed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "docs" / "_build" / "html"
CDN = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"
DEBIAN_MATHJAX = Path("/usr/share/javascript/mathjax/MathJax.js")

PAGES = {  # name: (page, window size)
    "index": ("index.html", "1280,900"),
    "formulations": ("formulations.html", "1280,2400"),
    "gallery": ("auto_examples/index.html", "1280,1100"),
    "example": ("auto_examples/plot_hard_margin_2d.html", "1280,1400"),
    "api": ("api.html", "1280,1600"),
    "api_solve": ("generated/maxmargin.solve.html", "1280,1600"),
}


def _cdn_reachable() -> bool:
    try:
        urllib.request.urlopen(urllib.request.Request(CDN, method="HEAD"), timeout=5)
        return True
    except Exception:
        return False


def _mathjax(arg: str | None) -> str | None:
    if arg:
        return arg if "://" in arg else Path(arg).resolve().as_uri()
    if _cdn_reachable():
        return None
    if DEBIAN_MATHJAX.exists():
        print(f"MathJax CDN unreachable: using a copy of {DEBIAN_MATHJAX.parent}")
        return "debian"
    print("warning: MathJax CDN unreachable and no local MathJax: math will look raw",
          file=sys.stderr)
    return None


def build(mathjax: str | None) -> None:
    env = dict(os.environ)
    if mathjax == "debian":  # relative to _static/ of the built site; copied after the build
        env["MAXMARGIN_MATHJAX"] = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML"
    elif mathjax:
        env["MAXMARGIN_MATHJAX"] = mathjax
    cmd = [sys.executable, "-m", "sphinx", "-W", "-E", "-b", "html", "docs", str(HTML)]
    print("$", " ".join(cmd))
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)
    if mathjax == "debian":
        shutil.copytree(DEBIAN_MATHJAX.parent, HTML / "_static" / "mathjax", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("test", "unpacked"))


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
            cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                   "--no-first-run", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                   "--allow-file-access-from-files",
                   f"--user-data-dir={profile}", "--virtual-time-budget=8000",
                   f"--screenshot={png}", f"--window-size={size}", target.as_uri()]
            subprocess.run(cmd, check=True, capture_output=True, timeout=120)
        print(f"wrote {png}")
        shots.append(png)
    return shots


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-build", action="store_true", help="use the existing build")
    ap.add_argument("--out", default=str(ROOT / "docs" / "_build" / "screenshots"))
    ap.add_argument("--mathjax", default=None, help="URL or path of MathJax to build with")
    args = ap.parse_args(argv)
    if not args.no_build:
        build(_mathjax(args.mathjax))
    shoot(Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
