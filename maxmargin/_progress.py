"""A dependency-free progress bar: drawn on a terminal, silent otherwise or when quiet."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import TextIO

__all__ = ["Progress", "note", "notes_silenced"]

#: Whether a bar's line is open on the terminal (drawn, not yet ended): a note ends it.
_open_line = False
#: Whether notes are silenced (the command's ``-q``).
_silenced = False


class Progress:
    """``with Progress(total, "label") as bar: bar.update(k)``, drawn on a TTY only."""

    def __init__(
        self, total: float, label: str = "", *, enabled: bool = True, stream: TextIO | None = None
    ) -> None:
        self.total = max(float(total), 1.0)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.done: float = 0
        self._last = 0.0
        self._start = time.perf_counter()

    def update(self, k: float = 1) -> None:
        """Advance by ``k`` units."""
        global _open_line
        self.done += k
        now = time.perf_counter()
        if self.enabled and (now - self._last > 0.1 or self.done >= self.total):
            self._last = now
            frac = min(self.done / self.total, 1.0)
            bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
            self.stream.write(
                f"\r{self.label} [{bar}] {100 * frac:5.1f}% {now - self._start:6.1f}s"
            )
            self.stream.flush()
            _open_line = True

    def update_to(self, done: float) -> None:
        """Advance to ``done`` units in all."""
        self.update(done - self.done)

    def close(self) -> None:
        """End the bar's line (the ``with`` block does it)."""
        global _open_line
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
            _open_line = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def note(text: str, stream: TextIO | None = None) -> bool:
    """Say ``text`` in one line on a terminal (stderr), after a bar's line; True if written."""
    global _open_line
    stream = stream if stream is not None else sys.stderr
    if _silenced or not (hasattr(stream, "isatty") and stream.isatty()):
        return False
    stream.write(("\n" if _open_line else "") + text + "\n")
    stream.flush()
    _open_line = False
    return True


@contextlib.contextmanager
def notes_silenced(silenced: bool = True) -> Iterator[None]:
    """No :func:`note` inside the ``with`` block (when ``silenced``): the command's ``-q``."""
    global _silenced
    before = _silenced
    _silenced = before or silenced
    try:
        yield
    finally:
        _silenced = before
