"""A sphinx-gallery image scraper: the PNG files an example writes are its figures.

The examples save their figures with ``fig.savefig(...)`` (some build a
``matplotlib.figure.Figure`` without pyplot, which the default matplotlib scraper cannot
see). sphinx-gallery runs an example in the example's own directory; every PNG that
appears there during a code block is moved into the gallery's image folder (so
``examples/`` stays clean) and shown; the first becomes the thumbnail.
"""

from __future__ import annotations

import shutil
from pathlib import Path


def scrape(block, block_vars, gallery_conf):
    """Move the PNGs written in the example's directory to the gallery; return their rST."""
    from sphinx_gallery.scrapers import figure_rst

    src_dir = Path(block_vars["src_file"]).parent
    names = []
    for png in sorted(src_dir.rglob("*.png"), key=lambda p: p.stat().st_mtime):
        target = next(block_vars["image_path_iterator"])
        shutil.move(str(png), target)
        names.append(target)
    return figure_rst(names, gallery_conf["src_dir"])
