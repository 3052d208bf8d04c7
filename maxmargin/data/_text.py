"""LIBSVM and CSV text read in memory proportional to the data it holds.

The text is streamed: read (and decompressed: gzip or bzip2, told by the first bytes) in
chunks of whole lines and parsed chunk by chunk into compact buffers (``array.array``,
8 bytes a number), so the Python objects of one chunk are all that exist at a time.
What the parsed data take is checked against the memory as the chunks come: a file
whose data cannot fit (a 3.8 MB gzip that inflates to 1.5 GB of text) is refused with a
:class:`~maxmargin.DataError` before it exhausts the machine.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import math
import sys
import zlib
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
import scipy.sparse as sp

from .. import _validation
from .._log import logger
from ..exceptions import DataError

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
    """The text of a file (or of standard input), in chunks of whole lines.

    Parameters
    ----------
    path : Path or None
        The file; None reads standard input.
    shown : str
        The file's name in messages.
    kind : str
        What the text should be (``"LIBSVM"``, ``"CSV"``), in messages.

    Attributes
    ----------
    compression : str or None
        ``"gzip"``, ``"bzip2"`` or None.
    size : int or None
        The file's size when it is read as it is (not compressed, not standard input):
        the parsed size of the whole file is then estimated from the first chunks.
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
        """The text in chunks of whole lines, the parsed data checked after each.

        Parameters
        ----------
        parsed : callable
            The bytes the data parsed so far take.

        Raises
        ------
        DataError
            When they (or, for a plain file, the whole file's estimated from them)
            cannot fit in memory.
        """
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


# --------------------------------------------------------------------------- LIBSVM

#: The largest LIBSVM feature index accepted (int64 indices, with room to spare).
MAX_INDEX = 2**62


def _nbytes(*buffers: array) -> float:
    return float(sum(b.itemsize * len(b) for b in buffers))


class _Libsvm:
    """LIBSVM lines parsed into compact buffers."""

    def __init__(self, shown: str, zero_based: bool | str) -> None:
        self.shown, self.zero_based = shown, zero_based
        self.labels = array("d")
        self.indptr = array("q", [0])
        self.indices = array("q")
        self.values = array("d")
        self.first_zero = 0  # the line of the first index 0
        self.qid_rows = 0

    def nbytes(self) -> float:
        return _nbytes(self.labels, self.indptr, self.indices, self.values)

    def line(self, raw: str, lineno: int) -> None:
        if "#" in raw:
            raw = raw.split("#", 1)[0]
        parts = raw.split()
        if not parts:
            return
        try:
            lab = float(parts[0])
        except ValueError:
            raise DataError(f"{self.shown}:{lineno}: label {parts[0]!r} is not a number") from None
        if not math.isfinite(lab):
            raise DataError(f"{self.shown}:{lineno}: label {parts[0]!r} is not a finite number")
        strict = self.zero_based is False  # an index 0 is an error
        indices, values = self.indices, self.values
        last = -1
        for tok in parts[1:]:
            idx_s, sep, val_s = tok.partition(":")
            try:
                idx, val = int(idx_s), float(val_s)
            except ValueError:
                idx, val = -2, 0.0  # malformed: _feature_error says how
            # inf - inf and nan - nan are nan: the value is finite when this is 0
            if not (sep and last < idx <= MAX_INDEX and val - val == 0.0) or (strict and not idx):
                if tok.startswith("qid:"):
                    self.qid_rows += 1
                    continue
                raise _feature_error(tok, last, self.zero_based, f"{self.shown}:{lineno}")
            if not idx and not self.first_zero:
                self.first_zero = lineno
            last = idx
            indices.append(idx)
            values.append(val)
        self.labels.append(lab)
        self.indptr.append(len(indices))

    def matrix(self, n_features: int | None) -> tuple[Any, bool]:
        """The CSR matrix and whether its indices were 0-based."""
        zero = bool(self.first_zero) if self.zero_based == "auto" else bool(self.zero_based)
        columns = np.frombuffer(self.indices, np.int64) if self.indices else np.zeros(0, np.int64)
        if not zero:
            columns -= 1  # in place: the buffer is not needed as it was
        d = int(columns.max()) + 1 if columns.size else 0
        if n_features is not None:
            if n_features < d:
                raise DataError(
                    f"{self.shown}: has feature index {d - 1 + (not zero)} > "
                    f"n_features={n_features} ({'0' if zero else '1'}-based)"
                )
            d = n_features
        values = np.frombuffer(self.values, float) if self.values else np.zeros(0)
        indptr = np.frombuffer(self.indptr, np.int64)
        X = sp.csr_matrix((values, columns, indptr), shape=(len(self.labels), max(d, 1)))
        return X, zero


def parse_libsvm(
    source: TextSource, n_features: int | None, zero_based: bool | str
) -> tuple[Any, np.ndarray, bool]:
    """``(X, labels, zero_based)`` of LIBSVM text: X a CSR matrix, labels floats.

    See :func:`maxmargin.load_libsvm` for the format and the errors.
    """
    shown = source.shown
    p = _Libsvm(shown, zero_based)
    lineno = 0
    for chunk in source.chunks(p.nbytes):
        for raw in chunk.splitlines():
            lineno += 1
            p.line(raw, lineno)
    if not p.labels:
        raise DataError(f"{shown}: no examples found")
    X, zero = p.matrix(n_features)
    if p.qid_rows:
        import warnings

        warnings.warn(
            f"{shown}: qid ignored ({p.qid_rows} rows carry a query id); maxmargin "
            "trains one classifier on all the rows, not one ranking per query",
            UserWarning,
            stacklevel=4,
        )
    why = (
        (f"an index 0 on line {p.first_zero}" if zero else "no index 0")
        if zero_based == "auto"
        else "as asked"
    )
    logger.debug(
        "%s: read as LIBSVM%s, %d rows x %d features, %s indices (%s)",
        shown,
        f" ({source.compression})" if source.compression else "",
        X.shape[0],
        X.shape[1],
        "0-based" if zero else "1-based",
        why,
    )
    return X, np.frombuffer(p.labels, float), zero


def _feature_error(tok: str, last: int, zero_based: bool | str, where: str) -> DataError:
    """What is wrong with the ``index:value`` token ``tok`` (``last``: the previous index)."""
    idx_s, sep, val_s = tok.partition(":")
    try:
        if not sep:
            raise ValueError
        idx = int(idx_s)
        float(val_s)
    except ValueError:
        return DataError(f"{where}: malformed feature {tok!r} (expected index:value)")
    if idx < 0:
        return DataError(f"{where}: feature index {idx} is negative")
    if idx == 0 and zero_based is False:
        return DataError(
            f"{where}: feature index 0 < 1 (indices are 1-based here: "
            "zero_based=False, --index-base 1, or a --holdout read like its "
            "1-based DATA)"
        )
    if idx > MAX_INDEX:
        return DataError(f"{where}: feature index {idx} is too large (more than {MAX_INDEX:,})")
    if idx <= last:
        return DataError(f"{where}: feature indices must increase ({idx} after {last})")
    return DataError(f"{where}: feature {idx} is {val_s} (NaN/inf not allowed)")


def sniff_format(text: str) -> str:
    """``"libsvm"`` or ``"csv"``: the format the content looks like.

    ``"libsvm"`` when the first 100 lines (comments dropped) are ``label idx:val ...`` (or
    a label alone) and one has a feature; else ``"csv"``.
    """
    features = False
    lines = 0
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if (
            len(parts) >= 2
            and all(":" in p for p in parts[1:])
            and "," not in line
            and ";" not in line
        ):
            features = True
        elif len(parts) > 1 or any(c in line for c in ",;:"):
            return "csv"
        lines += 1
        if lines == 100:
            break
    return "libsvm" if features else "csv"


# --------------------------------------------------------------------------- CSV

#: Separators :func:`maxmargin.load_csv` recognises, in order of preference.
CSV_DELIMITERS = (",", ";", "\t")


def sniff_delimiter(lines: list[str]) -> str:
    """The separator that splits every line into the same number (>= 2) of fields.

    Among several, the one giving the most numbers, then the first of
    :data:`CSV_DELIMITERS`.
    """
    best, best_score = ",", -1
    for delim in CSV_DELIMITERS:
        try:
            rows = list(csv.reader(lines, delimiter=delim))
        except csv.Error:
            continue
        widths = {len(r) for r in rows}
        if len(widths) != 1 or min(widths) < 2:
            continue
        score = sum(is_number(c) for r in rows for c in r)
        if score > best_score:
            best, best_score = delim, score
    return best


def is_number(s: str) -> bool:
    """Whether ``float(s)`` reads ``s``."""
    try:
        float(s)
    except ValueError:
        return False
    return True


def is_int(s: str) -> bool:
    """Whether ``int(s)`` reads ``s``."""
    try:
        int(s)
    except ValueError:
        return False
    return True


class _Labels:
    """A label column as codes into its distinct strings (8 bytes a row)."""

    def __init__(self) -> None:
        self.codes = array("q")
        self.distinct: dict[str, int] = {}
        self.first_line: list[int] = []  # of each distinct label
        self.nbytes = 0.0

    def code(self, s: str, line: int) -> int:
        c = self.distinct.get(s)
        if c is None:
            c = self.distinct[s] = len(self.distinct)
            self.first_line.append(line)
            self.nbytes += 100.0 + len(s)  # a dict entry and its string
        return c

    def values(self, shown: str, code0: int | None) -> np.ndarray:
        """The labels (``code0``: the first row's, to put in front).

        Numbers when every label is one (finite), else the strings.
        """
        codes = np.frombuffer(self.codes, np.int64) if self.codes else np.zeros(0, np.int64)
        if code0 is not None:
            codes = np.concatenate([np.array([code0], np.int64), codes])
        strings = list(self.distinct)
        if not all(is_number(s) for s in strings):
            return np.asarray(strings)[codes]
        numbers = np.array([float(s) for s in strings])
        bad = [(self.first_line[c], strings[c]) for c in np.flatnonzero(~np.isfinite(numbers))]
        if bad:
            ln, s = min(bad)
            raise DataError(f"{shown}:{ln}: label {s!r} is not a finite number")
        return numbers[codes]


class _Csv:
    """CSV rows parsed into compact buffers; the first row kept until the header is known."""

    def __init__(self, shown: str, label: str | int | None, header: bool | None) -> None:
        self.shown, self.label, self.header = shown, label, header
        self.by_name = isinstance(label, str) and not is_int(label)
        self.xs = array("d")
        self.labels = _Labels()
        self.first: list[str] | None = None
        self.first_line = self.width = self.col = self.rows = 0  # rows: after the first
        self.first_ok = True  # every feature of the first row is a number (at xs[:d])
        self.candidates: set[int] = set()  # columns: first cell text, every other a number
        self.feats: list[int] = []

    def nbytes(self) -> float:
        return 8.0 * (len(self.xs) + len(self.labels.codes)) + self.labels.nbytes

    def first_row(self, r: list[str], ln: int) -> None:
        self.first, self.first_line, self.width = r, ln, len(r)
        if self.width < 2:
            raise DataError(
                f"{self.shown}:{ln}: one column only: no comma, semicolon or tab "
                f"separates the values ({r[0][:40]!r}); a CSV data file needs "
                "feature columns and a label column"
            )
        named = self.header is True or (self.header is None and self.by_name)
        names = [c.strip() for c in r] if named else None
        self.col = _label_column(self.label, names, self.width, self.shown)
        self.feats = [j for j in range(self.width) if j != self.col]
        if self.header is None and not self.by_name:
            self.candidates = {j for j, c in enumerate(r) if c.strip() and not is_number(c)}
        for j in self.feats:
            try:
                self.xs.append(float(r[j]))
            except ValueError:
                self.first_ok = False
                self.xs.append(0.0)

    def row(self, r: list[str], ln: int, sep_name: str) -> None:
        if len(r) != self.width:
            raise DataError(
                f"{self.shown}:{ln}: {len(r)} columns, expected {self.width} (separator {sep_name})"
            )
        if self.candidates:
            self.candidates = {j for j in self.candidates if is_number(r[j])}
        try:
            self.xs.extend([float(r[j]) for j in self.feats])
        except ValueError:
            raise self._not_a_number(r, ln) from None
        s = r[self.col].strip()
        if not s:
            raise DataError(f"{self.shown}:{ln}: the label (column {self.col + 1}) is empty")
        self.labels.codes.append(self.labels.code(s, ln))
        self.rows += 1

    def _not_a_number(self, r: list[str], ln: int) -> DataError:
        j = next(j for j in self.feats if not is_number(r[j]))
        return DataError(f"{self.shown}:{ln}: column {j + 1} value {r[j]!r} is not a number")

    def finish(self) -> tuple[np.ndarray, np.ndarray, list[str] | None]:
        first = self.first
        if first is None:
            raise DataError(f"{self.shown}: no rows")
        header = self.header
        if header is None:
            header = self.by_name or (self.rows > 0 and bool(self.candidates))
        X = np.frombuffer(self.xs, float).reshape(-1, len(self.feats))
        code0 = None
        if header:
            X = X[1:]
            if not self.rows:
                raise DataError(f"{self.shown}: no data rows after the header")
        else:
            if not self.first_ok:
                raise self._not_a_number(first, self.first_line)
            s = first[self.col].strip()
            if not s:
                raise DataError(
                    f"{self.shown}:{self.first_line}: the label (column {self.col + 1}) is empty"
                )
            code0 = self.labels.code(s, self.first_line)
            self.labels.first_line[code0] = min(self.labels.first_line[code0], self.first_line)
        y = self.labels.values(self.shown, code0)
        names = [first[j].strip() or f"column {j + 1}" for j in self.feats] if header else None
        return X, y, names


def parse_csv(
    source: TextSource, label: str | int | None, header: bool | None
) -> tuple[np.ndarray, np.ndarray, list[str] | None]:
    """``(X, labels, feature_names)`` of CSV text (names None without a header row).

    See :func:`maxmargin.load_csv` for the format and the errors.
    """
    delim = sniff_delimiter([ln for ln in source.first().splitlines() if ln.strip()][:100])
    sep_name = "tab" if delim == "\t" else repr(delim)
    p = _Csv(source.shown, label, header)
    reader = csv.reader(source.lines(p.nbytes), delimiter=delim)
    try:
        for r in reader:
            if not r or not any(c.strip() for c in r):
                continue
            if p.first is None:
                p.first_row(r, reader.line_num)
            else:
                p.row(r, reader.line_num, sep_name)
    except csv.Error as e:
        raise DataError(f"{source.shown}: not a readable CSV file: {e}") from None
    X, y, names = p.finish()
    logger.debug(
        "%s: read as CSV%s, %d rows x %d features, separator %s, %s, label column %d (0-based)",
        source.shown,
        f" ({source.compression})" if source.compression else "",
        X.shape[0],
        X.shape[1],
        sep_name,
        "a header row" if names is not None else "no header",
        p.col,
    )
    return X, y, names


def _label_column(label: str | int | None, names: list[str] | None, width: int, shown: str) -> int:
    if label is None:
        return width - 1
    if isinstance(label, (int, np.integer)) or is_int(str(label)):
        i = int(label)
        if not -width <= i < width:
            raise DataError(
                f"{shown}: label column {i} is out of range: the file has {width} "
                f"columns (0 to {width - 1}; -1 is the last)"
            )
        return i % width
    if names is None:
        raise DataError(
            f"{shown}: no header row, so no column named {label!r}; give the "
            f"label column's index (0 to {width - 1}), or header=True "
            "(--header) if the first row holds the names"
        )
    if label not in names:
        raise DataError(f"{shown}: no column named {label!r} (columns: {', '.join(names)})")
    if names.count(label) > 1:
        raise DataError(
            f"{shown}: {names.count(label)} columns are named {label!r}; give "
            "the label column's index instead"
        )
    return names.index(label)
