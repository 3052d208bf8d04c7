"""The text of a data file or of standard input, read in memory proportional to its data.

Streamed in chunks of whole lines (gzip and bzip2 decompressed), which the parsers turn
into compact buffers; what the parsed data take is checked against the memory as the
chunks come, so a file that cannot fit is a DataError before it exhausts the machine.
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from .. import _validation
from ..exceptions import DataError, ParameterError
from ..io.files import display

#: Bytes of text parsed at a time (each chunk ends at a line end).
CHUNK = 1 << 22

#: The parsed buffers are counted this many times against the memory: while they grow
#: an array may be copied once, and the matrix built at the end copies the indices.
PEAK = 2.0

_GZIP_MAGIC = b"\x1f\x8b"
# "BZh", the block size 1-9, then a block's magic (pi) or the end of an empty stream (sqrt pi)
_BZ2_BLOCKS = (b"1AY&SY", b"\x17rE8P\x90")
_BOM = b"\xef\xbb\xbf"


def compression_of(raw: bytes) -> str | None:
    """``"gzip"`` or ``"bzip2"`` by the magic bytes at the start, else None."""
    if raw[:2] == _GZIP_MAGIC:
        return "gzip"
    if raw[:3] == b"BZh" and raw[3:4].isdigit() and raw[3:4] != b"0" and raw[4:10] in _BZ2_BLOCKS:
        return "bzip2"
    return None


class _Prefixed(io.RawIOBase):
    """The bytes already read from a stream (to sniff them), then the rest of it."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self.head, self.rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self.head:
            k = min(len(b), len(self.head))
            b[:k] = self.head[:k]
            self.head = self.head[k:]
            return k
        data = self.rest.read(len(b))
        b[: len(data)] = data
        return len(data)


class TextSource:
    """The text of a file (``path``; None: standard input), in chunks of whole lines.

    ``shown`` names the file and ``kind`` the format in messages; ``compression`` is
    ``"gzip"``, ``"bzip2"`` or None; ``size`` the size of a plain file (None otherwise), from
    which the whole file's parsed size is estimated.
    """

    def __init__(self, path: Path | None, shown: str, kind: str) -> None:
        self.shown, self.kind = shown, kind
        self.size: int | None = None
        self.read = 0  # bytes of the text given to the parser so far
        self._head: list[tuple[str, int] | None] = []  # first chunk, next once peeked
        self._it: Iterator[tuple[str, int]] = iter(())
        self._done = False
        avail = _validation.available_memory()
        self._avail = avail
        self._limit = None if avail is None else _validation.MEMORY_MARGIN * avail
        raw = self._open(path)
        head = b""
        try:
            while len(head) < 10:
                got = raw.read(10 - len(head))
                if not got:
                    break
                head += got
        except OSError as e:
            raise DataError(f"{shown}: cannot read: {e.strerror or e}") from None
        self.compression = compression_of(head)
        stream: Any = io.BufferedReader(_Prefixed(head, raw), CHUNK)
        if self.compression == "gzip":
            stream = gzip.GzipFile(fileobj=stream, mode="rb")
        elif self.compression == "bzip2":
            stream = bz2.BZ2File(stream)
        elif path is not None:
            try:
                self.size = path.stat().st_size
            except OSError:
                self.size = None
        self._stream = stream
        self._raw = raw if path is not None else None  # standard input stays open

    def __enter__(self) -> TextSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file (not standard input)."""
        if self._raw is not None:
            self._raw.close()

    def _open(self, path: Path | None) -> IO[bytes]:
        if path is not None:
            try:
                return path.open("rb")
            except IsADirectoryError:
                raise DataError(f"{self.shown}: is a directory, not a data file") from None
            except OSError as e:
                raise DataError(f"{self.shown}: cannot read: {e.strerror or e}") from None
        stream = sys.stdin
        if stream is None or getattr(stream, "closed", False):
            raise DataError("DATA is '-' but there is no standard input to read")
        try:
            if stream.isatty():
                raise DataError(
                    "DATA is '-' (standard input) but stdin is a terminal; pipe "
                    "the data in: maxmargin solve - < data.svm"
                )
            if hasattr(stream, "buffer"):
                return stream.buffer
            return io.BytesIO(stream.read().encode("utf-8"))  # a text stream (tests)
        except OSError as e:
            raise DataError(f"{self.shown}: cannot read: {e.strerror or e}") from None

    def _blocks(self) -> Iterator[bytes]:
        """The decompressed bytes, in blocks of about :data:`CHUNK`."""
        try:
            while True:
                block = self._stream.read(CHUNK)
                if not block:
                    return
                yield block
        except (OSError, EOFError, ValueError, zlib.error) as e:
            if self.compression is None:
                raise DataError(f"{self.shown}: cannot read: {e}") from None
            raise DataError(
                f"{self.shown}: a damaged or truncated {self.compression} file ({e})"
            ) from None

    def _pieces(self) -> Iterator[bytes]:
        """The bytes cut after a line end (the last piece: whatever is left)."""
        pending = bytearray()
        for block in self._blocks():
            pending += block
            cut = pending.rfind(b"\n") + 1
            if not cut:  # a lone \r ends lines too; one at the very end may precede \n
                cut = pending.rfind(b"\r", 0, len(pending) - 1) + 1
            if cut:
                yield bytes(pending[:cut])
                del pending[:cut]
        if pending:
            yield bytes(pending)

    def _chunks(self) -> Iterator[tuple[str, int]]:
        """The text and its length in bytes, in chunks of whole lines."""
        offset = 0
        for piece in self._pieces():
            if b"\0" in piece:
                raise DataError(
                    f"{self.shown}: binary data, not a {self.kind} text file (maxmargin "
                    "reads LIBSVM text, .csv and .npz, and gzip or bzip2 of the text ones)"
                )
            skip = 3 if not offset and piece.startswith(_BOM) else 0
            try:
                text = piece[skip:].decode("utf-8")
            except UnicodeDecodeError as e:
                raise DataError(
                    f"{self.shown}: not UTF-8 text (byte 0x{piece[skip + e.start]:02x} at "
                    f"offset {offset + skip + e.start}); {self.kind} files must be "
                    "UTF-8 (or ASCII) text"
                ) from None
            offset += len(piece)
            yield text, len(piece)
        self._done = True

    def first(self) -> str:
        """The first chunk (to sniff the format); :meth:`chunks` yields it again."""
        if not self._head:
            self._it = self._chunks()
            self._head.append(next(self._it, ("", 0)))
        head = self._head[0]
        return "" if head is None else head[0]

    def at_end(self) -> bool:
        """Whether the first chunk is the whole text."""
        self.first()
        if len(self._head) == 1:
            self._head.append(next(self._it, None))
        return self._head[1] is None

    def chunks(self, parsed: Callable[[], float]) -> Iterator[str]:
        """The text in chunks of whole lines; a DataError when ``parsed()`` bytes cannot fit."""
        self.first()
        for i, item in enumerate(self._head):
            if item is None:
                break
            if i:
                self.check(parsed())
            self.read += item[1]
            yield item[0]
        for text, nbytes in self._it:
            self.check(parsed())
            self.read += nbytes
            yield text
        self.check(parsed())

    def lines(self, parsed: Callable[[], float]) -> Iterator[str]:
        """The lines of :meth:`chunks`."""
        for text in self.chunks(parsed):
            yield from text.splitlines()

    def check(self, nbytes: float) -> None:
        """Refuse the file when its parsed data (``nbytes`` so far) cannot fit."""
        if self._limit is None or self._avail is None or not self.read:
            return
        need = PEAK * nbytes
        whole = self.size is not None and not self._done and self.size > self.read
        if whole:
            assert self.size is not None
            need *= self.size / self.read  # the rest of the file parses alike
        if need <= self._limit:
            return
        gb = _validation._gb
        how = f" (decompressed from {self.compression})" if self.compression else ""
        if whole:
            what = (
                f"its {gb(self.size or 0)} of text would need about {gb(need)} parsed "
                f"(estimated from the first {gb(self.read)})"
            )
        elif not self._done:
            what = (
                f"the first {gb(self.read)} of its text{how} already need about "
                f"{gb(need)} parsed, and more text follows"
            )
        else:
            what = f"its {gb(self.read)} of text{how} need about {gb(need)} parsed"
        raise DataError(
            f"{self.shown}: the data do not fit in memory: {what}, more than the "
            f"{gb(self._limit)} this machine can give (80% of {gb(self._avail)} "
            "available); use a machine with more memory, or a part of the file"
        )


#: ``load("-")`` (and every loader, and ``DATA`` on the command line) reads standard input.
STDIN = "-"


def _is_stdin(path: Any) -> bool:
    return isinstance(path, (str, Path)) and str(path) == STDIN


def _source(path: Any) -> tuple[Path | None, str, str]:
    """(the file, or None for standard input; its name in messages; the data's name)."""
    if _is_stdin(path):
        return None, "<stdin>", "stdin"
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(
            f"path must be a file name (str or pathlib.Path), got {type(path).__name__}"
        )
    path = Path(path)
    return path, display(path), display(path.name)
