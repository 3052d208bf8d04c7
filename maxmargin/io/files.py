"""Outputs: checked before the work starts, written atomically, folders swapped whole.

Every file maxmargin writes (JSON, ``.npz``, Markdown, figures) goes through
:func:`atomic_write`: the bytes go to a temporary file in the target's own directory,
which is flushed, synced and renamed over the target with ``os.replace`` (atomic on POSIX
and Windows). A crash, a full disk or Ctrl-C therefore leaves the old file or the new
one, never a 0-byte or half-written file. The temporary files carry the writer's process
id in their name, so a supervising process can remove what a killed child left
(:func:`remove_temporaries`).

A command's report folder is written the same way, as a whole (:meth:`OutputPlan.staged`):
into a staging folder inside it, swapped in at the end; an interrupted command leaves the
old folder, or the complete new one.

The command line checks every output of a command with :func:`check_outputs` before it
loads data or computes anything: each file (:func:`check_output_file`), the folder
(:func:`check_output_dir`), and that no output is an input or another output.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import re
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO

from ..exceptions import OutputError
from .json import format_header

__all__ = [
    "atomic_write",
    "check_output_file",
    "check_output_dir",
    "check_outputs",
    "clear_dead_temporaries",
    "OutputPlan",
    "Staging",
    "make_dir",
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

    A staging folder (:meth:`OutputPlan.staged`) goes too, unless its commit had begun:
    that one is finished, so the report folder is the old one or the complete new one.

    Parameters
    ----------
    dirs : iterable of str or Path
        Directories to search for ``pid``'s temporary files and staging folders.
    pid : int, optional
        A (killed) writer's process id; default: only this process's pending files.
    """
    with _lock:
        mine = list(_pending)
        _pending.clear()
    for name in mine:
        _clean(Path(name))
    if pid is None:
        return
    for d in dirs:
        for leftover in Path(d).glob(f".*.{pid}.*{_TMP_SUFFIX}"):
            _clean(leftover)


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


def make_dir(path: str | Path) -> Path:
    """Create ``path`` and its missing parents; one-line :class:`OutputError` on failure.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    Path

    Raises
    ------
    OutputError
        ``path`` (or a parent) exists and is not a directory, or cannot be created.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "file"
    >>> _ = f.write_text("x")
    >>> make_dir(f)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    maxmargin.exceptions.OutputError: ...file: exists and is not a directory
    """
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(f"{display(path)}: exists and is not a directory") from None
    except OSError as e:
        raise OutputError(f"{display(path)}: cannot create the directory: {_why(e)}") from None
    return path


#: A temporary name of ours: ``.<what>.<pid>.<random>.maxmargin-tmp`` (the random part of
#: ``tempfile`` has no dot).
_TMP_NAME = re.compile(r"^\..*\.(\d+)\.[^.]+" + re.escape(_TMP_SUFFIX) + "$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, say: alive
        pass
    return True


def clear_dead_temporaries(folder: str | Path) -> None:
    """Finish or remove what a process that no longer runs left in ``folder``.

    Its half-written files and staging folders go; a commit it had started is finished
    (:func:`_roll_forward`). What a running process writes is left alone.

    Parameters
    ----------
    folder : str or Path
    """
    with contextlib.suppress(OSError):
        for entry in Path(folder).iterdir():
            m = _TMP_NAME.match(entry.name)
            if m and not _alive(int(m.group(1))):
                _clean(entry)


def check_output_dir(target: str | Path, option: str = "--out", *, force: bool = False) -> Path:
    """Check, before any work, that ``target`` can receive a report.

    The directory may be missing (it is created when the report is written), empty,
    one maxmargin wrote before (it holds :data:`MARKER`), or anything with ``force``.
    Otherwise it is refused, so a user's own ``report.md`` is never overwritten. What an
    interrupted maxmargin left there (temporary files of a process that no longer runs)
    is cleared first.

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
        clear_dead_temporaries(path)
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


# --------------------------------------------------------------------------- the marker


def mark_output_dir(out: str | Path, command: str, files: Iterable[str]) -> None:
    """Write ``out/.maxmargin``: the command, and each file it wrote with its size and time.

    The record is what lets a later run remove this run's files (:func:`_trusted`): a
    file is taken for maxmargin's only while its size and modification time are those
    recorded here.

    Parameters
    ----------
    out : str or Path
        The output directory.
    command : str
        The command that wrote it (``"compare"``).
    files : iterable of str
        The files written, as paths relative to ``out`` (``"figures/a.png"``).
    """
    out = Path(out)
    names = sorted(set(files))
    stats = {}
    for name in names:
        with contextlib.suppress(OSError):
            st = os.lstat(out / name)
            stats[name] = [st.st_size, st.st_mtime_ns]
    atomic_write(
        out / MARKER,
        json.dumps(
            {
                **format_header("output_dir"),
                "written_by": f"maxmargin {command}",
                "files": names,
                "stats": stats,
            },
            indent=1,
        )
        + "\n",
    )


def _inside_name(name: object) -> PurePosixPath | None:
    """``name`` as a relative path that stays inside its folder, or None."""
    if not isinstance(name, str) or "\\" in name or "\0" in name:
        return None
    rel = PurePosixPath(name)
    if rel.is_absolute() or not rel.parts or rel.as_posix() != name:
        return None
    if any(part in ("", ".", "..") for part in rel.parts) or name == MARKER:
        return None
    return rel


def _trusted(out: Path) -> set[str]:
    """The files of ``out``'s marker that maxmargin wrote there and nobody changed since.

    The marker is a claim, not a proof (anyone can write one): an entry counts only when
    it is a relative path inside ``out`` with no symbolic link on the way, names a regular
    file (not a link), and that file still has the size and modification time (to the
    nanosecond) the marker recorded when maxmargin wrote it. Anything else (``../x``, an
    absolute path, a link, a file a user replaced or a marker copied from elsewhere) is
    never deleted.
    """
    try:
        doc = json.loads((out / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return set()
    stats = doc.get("stats") if isinstance(doc, dict) else None
    if not isinstance(stats, dict):
        return set()
    root = Path(os.path.realpath(out))
    ok = set()
    for name, recorded in stats.items():
        rel = _inside_name(name)
        if rel is None or not isinstance(recorded, list) or len(recorded) != 2:
            continue
        path = out.joinpath(*rel.parts)
        if Path(os.path.realpath(path)) != root.joinpath(*rel.parts):
            continue  # a symbolic link on the way
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and [st.st_size, st.st_mtime_ns] == recorded:
            ok.add(name)
    return ok


# --------------------------------------------------------------------------- staging

#: In a commit folder: the files of the previous run to delete once the new ones are in.
_STALE = ".maxmargin-stale"


def _commit_name(stage: Path) -> Path:
    return stage.with_name(".commit." + stage.name.removeprefix(".stage."))


def _roll_forward(out: Path, commit: Path) -> None:
    """Finish a commit: move the new files in, delete the stale ones, then the marker.

    Idempotent: a commit interrupted at any point (even by SIGKILL) is finished by
    running this again, by this process, the supervising one, or the next run.
    """
    marker = commit / MARKER
    if marker.is_file():
        for src in sorted(commit.rglob("*")):
            if src.is_symlink() or not src.is_file() or src in (marker, commit / _STALE):
                continue
            dest = out / src.relative_to(commit)
            make_dir(dest.parent)
            try:
                os.replace(src, dest)
            except OSError as e:
                raise OutputError(f"{display(dest)}: cannot write: {_why(e)}") from None
        try:
            stale = json.loads((commit / _STALE).read_text())
        except (OSError, ValueError):
            stale = []
        trusted = _trusted(out)
        for name in stale if isinstance(stale, list) else []:
            if name in trusted:  # checked again: still the file maxmargin wrote
                path = out / name
                with contextlib.suppress(OSError):
                    path.unlink()
                for parent in path.parents:  # a figures/ folder left empty
                    if parent == out or not parent.is_relative_to(out):
                        break
                    with contextlib.suppress(OSError):
                        parent.rmdir()
        try:
            os.replace(marker, out / MARKER)
        except OSError as e:
            raise OutputError(f"{display(out / MARKER)}: cannot write: {_why(e)}") from None
    shutil.rmtree(commit, ignore_errors=True)


def _clean(path: Path) -> None:
    """Remove a temporary file or staging folder of ours; finish a commit it had begun."""
    with contextlib.suppress(OSError):
        if path.name.startswith(".commit."):
            _roll_forward(path.parent, path)
        elif path.name.startswith(".stage."):
            if _commit_name(path).exists():
                _roll_forward(path.parent, _commit_name(path))
            shutil.rmtree(path, ignore_errors=True)
        elif path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()


@dataclass
class Staging:
    """A report folder being written into :attr:`path` (hidden, inside :attr:`out`).

    After the commit, :attr:`files` lists every file written, at its place in ``out``.
    """

    out: Path
    path: Path
    files: list[Path] = field(default_factory=list)


def _commit(staging: Staging, command: str, keep: frozenset[Path]) -> None:
    """Swap the staged files in: the old folder's content, or the complete new one.

    The staging folder is completed (marker, list of stale files) and renamed to a commit
    folder: from that rename on the new report is decided, and :func:`_roll_forward`
    finishes it whoever runs it.
    """
    out, stage = staging.out, staging.path
    names = sorted(
        p.relative_to(stage).as_posix()
        for p in stage.rglob("*")
        if p.is_file() and not p.name.endswith(_TMP_SUFFIX)
    )
    mark_output_dir(stage, command, names)
    root = Path(os.path.realpath(out))
    stale = sorted(n for n in _trusted(out) - set(names) if root / n not in keep)
    atomic_write(stage / _STALE, json.dumps(stale))
    commit = _commit_name(stage)
    try:
        os.rename(stage, commit)
    except OSError as e:
        raise OutputError(f"{display(out)}: cannot write: {_why(e)}") from None
    _roll_forward(out, commit)
    staging.files = [out / n for n in names]


@dataclass(frozen=True)
class OutputPlan:
    """A command's outputs, checked (:func:`check_outputs`).

    Attributes
    ----------
    command : str
    folder : Path or None
        The report folder (``--out``), if any.
    keep : frozenset of Path
        Inputs inside the folder (resolved): never deleted as the previous run's files.
    """

    command: str
    folder: Path | None = None
    keep: frozenset[Path] = frozenset()

    @contextlib.contextmanager
    def staged(self) -> Iterator[Staging]:
        """Write the report folder as a whole: yield a staging folder, swap it in at the end.

        On an exception (Ctrl-C included) nothing of the new report is left, and a folder
        that this created is removed again; the previous report stays as it was.

        Yields
        ------
        Staging
            Write into its ``path``; after the block its ``files`` are in ``folder``.

        Raises
        ------
        OutputError
            The plan has no folder, or it cannot be written.
        """
        if self.folder is None:
            raise OutputError(f"{self.command}: no output folder to write")
        out = self.folder
        created = [p for p in (out, *out.parents) if not p.exists()]
        make_dir(out)
        try:
            stage = Path(
                tempfile.mkdtemp(prefix=f".stage.{os.getpid()}.", suffix=_TMP_SUFFIX, dir=out)
            )
        except OSError as e:
            raise OutputError(f"{display(out)}: cannot write into it: {_why(e)}") from None
        with _lock:
            _pending.add(str(stage))
        staging = Staging(out, stage)
        try:
            yield staging
            _commit(staging, self.command, self.keep)
        except BaseException:
            _clean(stage)  # a commit that had begun is finished; else the stage goes
            for d in created:  # deepest first: only what this made, and only when empty
                with contextlib.suppress(OSError):
                    d.rmdir()
            raise
        finally:
            with _lock:
                _pending.discard(str(stage))


# --------------------------------------------------------------------------- the check

#: A file name that fits each file option, suggested when a directory is given.
_EXAMPLES = {"--csv": "result.csv", "--liblinear-model": "model.txt", "--animate": "animation.gif"}


def _real(path: str | Path) -> Path:
    """``path`` absolute, with ``.``, ``..`` and symbolic links resolved."""
    return Path(os.path.realpath(os.fspath(path)))


def _same_file(a: Path, b: Path) -> bool:
    """Whether the resolved paths ``a`` and ``b`` are one file (hard links included)."""
    with contextlib.suppress(OSError):
        return a == b or os.path.samefile(a, b)
    return False


def check_outputs(
    command: str,
    files: Mapping[str, str | Path | None] | None = None,
    *,
    folder: str | Path | None = None,
    writes: Iterable[str] = (),
    inputs: Iterable[tuple[str, str | Path | None]] = (),
    force: bool = False,
) -> OutputPlan:
    """Check every output of a command before any work: each alone, and against the rest.

    Each file option is checked by :func:`check_output_file`, the folder by
    :func:`check_output_dir`; then, with every path resolved (symbolic links, ``.``,
    ``..``, relative paths, hard links), it is refused that

    - two options name standard output (``-``, which is not a file: at most one may);
    - two file options name one file (one would be lost);
    - a file option lies inside the folder (the command writes that folder whole);
    - a file option is an input (it would overwrite it);
    - an input inside the folder has a name the command writes there (``writes``).

    Parameters
    ----------
    command : str
        The command (``"compare"``), recorded in the folder's marker.
    files : mapping of str to str or Path or None, optional
        Option (``"--json"``) to its target; None: not given; ``"-"``: standard output.
    folder : str or Path, optional
        The report folder (``--out``).
    writes : iterable of str
        Patterns (``fnmatch``, relative to the folder) of what the command writes there.
    inputs : iterable of (str, str or Path or None)
        What the command reads: a description (``"DATA"``, ``"--weights"``) and the path;
        None, ``-`` and ``builtin:...`` are not files and are skipped.
    force : bool
        Write into a folder maxmargin did not write.

    Returns
    -------
    OutputPlan

    Raises
    ------
    OutputError
        With one line naming the options at fault.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> data = pathlib.Path(tempfile.mkdtemp()) / "data.csv"
    >>> _ = data.write_text("1,1")
    >>> check_outputs("solve", {"--json": data}, inputs=[("DATA", data)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    maxmargin.exceptions.OutputError: --json ...data.csv: it is the DATA file...
    """
    given = {k: v for k, v in (files or {}).items() if v is not None}
    stdout = [k for k, v in given.items() if str(v) == "-"]
    if len(stdout) > 1:
        raise OutputError(
            f"{' and '.join(f'{k} -' for k in stdout)} both write to stdout; give one of "
            "them a file name"
        )
    targets: dict[str, Path] = {}
    for option, target in given.items():
        path = check_output_file(target, option, _EXAMPLES.get(option, "result.json"))
        if path is not None:
            targets[option] = path
    out = None if folder is None else check_output_dir(folder, "--out", force=force)
    _check_files(targets, out)
    keep = _check_inputs(targets, out, list(writes), inputs)
    return OutputPlan(command, out, frozenset(keep))


def _check_files(targets: dict[str, Path], out: Path | None) -> None:
    """Refuse two file options naming one file, or one inside the folder."""
    real = {k: _real(p) for k, p in targets.items()}
    options = list(real)
    for i, a in enumerate(options):
        for b in options[i + 1 :]:
            if _same_file(real[a], real[b]):
                raise OutputError(
                    f"{a} {display(targets[a])} and {b} {display(targets[b])} name the same "
                    "file: one would be lost; give each its own"
                )
    if out is None:
        return
    root = _real(out)
    for option, r in real.items():
        if r == root or r.is_relative_to(root):
            raise OutputError(
                f"{option} {display(targets[option])}: it is inside --out {display(out)}, "
                "the folder this command writes; give a file outside it"
            )


def _check_inputs(
    targets: dict[str, Path],
    out: Path | None,
    writes: list[str],
    inputs: Iterable[tuple[str, str | Path | None]],
) -> set[Path]:
    """Refuse an output that would overwrite an input; return the inputs inside ``out``."""
    real = {k: _real(p) for k, p in targets.items()}
    root = None if out is None else _real(out)
    keep = set()
    for what, source in inputs:
        if source is None or str(source) in ("-", "") or str(source).startswith("builtin:"):
            continue
        if not os.path.exists(source):
            continue  # its loader says so, in its own words
        r = _real(source)
        for option, t in real.items():
            if _same_file(r, t):
                raise OutputError(
                    f"{option} {display(targets[option])}: it is the {what} file (an "
                    "input), which writing would overwrite; give another file name"
                )
        if root is not None and r.is_relative_to(root):
            rel = r.relative_to(root).as_posix()
            if any(fnmatch.fnmatchcase(rel, p) for p in [*writes, MARKER, f"*{_TMP_SUFFIX}"]):
                raise OutputError(
                    f"--out {display(out)}: the command writes {display(rel)} there, which "
                    f"is the {what} file (an input); give another folder"
                )
            keep.add(r)
    return keep
