"""Output files: checked before the work starts, written atomically.

Every file maxmargin writes (JSON, ``.npz``, Markdown, figures) goes through
:func:`atomic_write`: the bytes go to a temporary file in the target's own directory,
which is flushed, synced and renamed over the target with ``os.replace`` (atomic on POSIX
and Windows). A crash, a full disk or Ctrl-C therefore leaves the old file or the new
one, never a 0-byte or half-written file. The temporary files carry the writer's process
id in their name, so a supervising process can remove what a killed child left
(:func:`remove_temporaries`).

The command line checks each target with :func:`check_output_file` and
:func:`check_output_dir` before it loads data or computes anything.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from ._json import format_header
from .exceptions import OutputError

__all__ = [
    "atomic_write",
    "check_output_file",
    "check_output_dir",
    "mark_output_dir",
    "display",
    "remove_temporaries",
    "MARKER",
]

#: The file that marks a directory maxmargin wrote (so a rerun may write into it again).
MARKER = ".maxmargin"
_TMP_SUFFIX = ".maxmargin-tmp"

_pending: set[str] = set()
_lock = threading.Lock()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _umask()


def display(path: object) -> str:
    r"""``path`` as printable text: bytes a file name holds that are not UTF-8 become U+FFFD.

    Python keeps such bytes as lone surrogates (``surrogateescape``), which a UTF-8
    stream or file refuses; every name maxmargin prints or writes goes through here.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    str

    Examples
    --------
    >>> display("caf\udce9.csv")
    'caf\ufffd.csv'
    """
    return (
        os.fsencode(os.fspath(path)).decode("utf-8", "replace")
        if isinstance(path, (str, os.PathLike))
        else str(path)
    )


def _why(e: OSError) -> str:
    return e.strerror or str(e)


def atomic_write(
    path: str | Path, data: str | bytes | Callable[[IO[bytes]], object], *, durable: bool = True
) -> Path:
    r"""Write ``data`` to ``path`` through a temporary file and ``os.replace``.

    The one writer of maxmargin's output files: a reader sees the old file or the new one,
    never half of one; Ctrl-C (see :func:`remove_temporaries`) leaves no temporary file.

    Parameters
    ----------
    path : str or Path
        The target; its directory must exist. An existing file keeps its permissions.
    data : str, bytes or callable
        The content (``str`` is encoded as UTF-8), or a function that writes into the
        binary file object it is given (``np.savez``, ``Figure.savefig``).
    durable : bool, default True
        fsync before the rename, so that the new content survives a power cut too
        (a study's cell records skip it: 5 ms a file, and a torn record just runs again).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OutputError
        The directory is missing or not writable, the target is a directory or not a
        regular file, or the disk is full; no temporary file is left behind.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
    >>> atomic_write(f, "hello\n").read_text()
    'hello\n'
    """
    path = Path(path)
    shown = display(path)
    if path.is_dir():
        raise OutputError(f"{shown}: is a directory, not a file")
    if path.exists() and not path.is_file():
        raise OutputError(f"{shown}: not a regular file (a device or a pipe); write to a file")
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{os.getpid()}.", suffix=_TMP_SUFFIX, dir=path.parent
        )
    except OSError as e:
        raise OutputError(f"{shown}: cannot write into {display(path.parent)}: {_why(e)}") from None
    with _lock:
        _pending.add(tmp)
    try:
        with os.fdopen(fd, "wb") as fh:
            if callable(data):
                data(fh)
            else:
                fh.write(
                    data.encode("utf-8", "backslashreplace") if isinstance(data, str) else data
                )
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o666 & ~_UMASK
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise OutputError(f"{shown}: cannot write: {_why(e)}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        with _lock:
            _pending.discard(tmp)
    return path


def remove_temporaries(dirs: Iterable[str | Path] = (), pid: int | None = None) -> None:
    """Delete unfinished temporary files: this process's, or those of ``pid`` in ``dirs``.

    Parameters
    ----------
    dirs : iterable of str or Path
        Directories to search for ``pid``'s temporary files.
    pid : int, optional
        A (killed) writer's process id; default: only this process's pending files.
    """
    with _lock:
        mine = list(_pending)
        _pending.clear()
    for name in mine:
        with contextlib.suppress(OSError):
            os.unlink(name)
    if pid is None:
        return
    for d in dirs:
        for leftover in Path(d).glob(f".*.{pid}.*{_TMP_SUFFIX}"):
            with contextlib.suppress(OSError):
                leftover.unlink()


def _probe(directory: Path, shown: str) -> None:
    """Create and delete a file in ``directory``: the only reliable writability test."""
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".probe.{os.getpid()}.", suffix=_TMP_SUFFIX, dir=directory
        )
    except OSError as e:
        raise OutputError(f"{shown}: cannot write into {display(directory)}: {_why(e)}") from None
    os.close(fd)
    os.unlink(tmp)


def check_output_file(
    target: str | Path, option: str = "output", example: str = "result.json"
) -> Path | None:
    """Check, before any work, that ``target`` can be written as a file.

    Parameters
    ----------
    target : str or Path
        A file path, or ``"-"`` (stdout: nothing to check).
    option : str
        The option's name for the message (``"--json"``).
    example : str
        A file name that fits the option, suggested when ``target`` is a directory
        (``"animation.gif"`` for a GIF option).

    Returns
    -------
    Path or None
        The target (None for ``"-"``).

    Raises
    ------
    OutputError
        ``target`` is a directory, a device or pipe (``/dev/full``), its directory does
        not exist, or nothing can be created there.

    Examples
    --------
    >>> check_output_file("/no/such/dir/x.json", "--json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    maxmargin.exceptions.OutputError: --json /no/such/dir/x.json: directory ... does not exist...
    """
    if str(target) == "-":
        return None
    path = Path(target)
    shown = f"{option} {display(path)}"
    if path.is_dir():
        raise OutputError(
            f"{shown}: is a directory; give a file name (e.g. {display(path / example)})"
        )
    if path.exists() and not path.is_file():
        raise OutputError(
            f"{shown}: not a regular file (a device or a pipe); give a file name, or '-' for stdout"
        )
    parent = path.parent
    if not parent.exists():
        raise OutputError(f"{shown}: directory {display(parent)} does not exist; create it first")
    if not parent.is_dir():
        raise OutputError(f"{shown}: {display(parent)} is not a directory")
    _probe(parent, shown)
    return path


def check_output_dir(target: str | Path, option: str = "--out", *, force: bool = False) -> Path:
    """Check, before any work, that ``target`` can receive a report.

    The directory may be missing (it is created when the report is written), empty,
    one maxmargin wrote before (it holds :data:`MARKER`), or anything with ``force``.
    Otherwise it is refused, so a user's own ``report.md`` is never overwritten.

    Parameters
    ----------
    target : str or Path
    option : str
        The option's name for the message.
    force : bool
        Accept a non-empty directory maxmargin did not write.

    Returns
    -------
    Path

    Raises
    ------
    OutputError
        ``target`` is a file, a non-empty foreign directory (without ``force``), or not
        writable; or its nearest existing ancestor is not a writable directory.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> check_output_dir(d / "new") == d / "new"
    True
    >>> _ = (d / "notes.md").write_text("mine")
    >>> check_output_dir(d)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    maxmargin.exceptions.OutputError: --out ...: directory is not empty ...
    """
    path = Path(target)
    shown = f"{option} {display(path)}"
    if path.exists():
        if not path.is_dir():
            raise OutputError(f"{shown}: exists and is not a directory")
        try:
            entries = sorted(p.name for p in path.iterdir())
        except OSError as e:
            raise OutputError(f"{shown}: cannot list: {_why(e)}") from None
        if entries and not force and MARKER not in entries:
            few = ", ".join(display(e) for e in entries[:3]) + (", ..." if len(entries) > 3 else "")
            raise OutputError(
                f"{shown}: directory is not empty ({few}) and maxmargin did not "
                "write it; give a new directory, or --force to write into it"
            )
        _probe(path, shown)
        return path
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"{shown}: {display(ancestor)} is not a directory")
    _probe(ancestor, shown)
    return path


def mark_output_dir(out: str | Path, command: str, files: Iterable[str | Path]) -> None:
    """Record the files a command wrote in ``out/.maxmargin``; delete the previous run's rest.

    Files the previous marker lists that this run did not write (a ``boundary.png`` of
    2-D data, say) are removed, so the directory shows one run only.

    Parameters
    ----------
    out : str or Path
        The output directory.
    command : str
        The command that wrote it (``"compare"``).
    files : iterable of str or Path
        The files written.
    """
    out = Path(out)
    names = sorted({Path(f).name for f in files})
    marker = out / MARKER
    try:
        old = json.loads(marker.read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):
        old = []
    for name in set(old) - set(names):
        stale = out / str(name)
        if stale.parent == out and stale.is_file():
            with contextlib.suppress(OSError):
                stale.unlink()
    atomic_write(
        marker,
        json.dumps(
            {**format_header("output_dir"), "written_by": f"maxmargin {command}", "files": names},
            indent=1,
        )
        + "\n",
    )
