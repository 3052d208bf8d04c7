"""Outputs: checked before the work starts, written atomically, folders swapped whole.

Every file goes through :func:`atomic_write` (a temporary file in the target's directory,
renamed over it); temporaries carry the writer's pid so a supervisor can remove what a
killed child left. A report folder is staged and swapped in (:meth:`OutputPlan.staged`).
:func:`check_outputs` checks every output before data are loaded (``docs/bad-input.md``).
"""

from __future__ import annotations

import contextlib
import fnmatch
import itertools
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


_UMASK = os.umask(0o022)  # read, then set back: os has no getter
os.umask(_UMASK)


def display(path: object) -> str:
    """``path`` as printable text: bytes a file name holds that are not UTF-8 become U+FFFD."""
    if isinstance(path, (str, os.PathLike)):
        return os.fsencode(os.fspath(path)).decode("utf-8", "replace")
    return str(path)


def _why(e: OSError) -> str:
    return e.strerror or str(e)


def atomic_write(
    path: str | Path, data: str | bytes | Callable[[IO[bytes]], object], *, durable: bool = True
) -> Path:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``.

    A reader sees the old file or the new one, never half of one. ``durable=False`` skips
    the fsync (a study's cell records: 5 ms a file, and a torn record just runs again).
    """
    path = Path(path)
    shown = display(path)
    if path.is_dir():
        raise OutputError(f"{shown}: is a directory, not a file")
    if path.exists() and not path.is_file():
        raise OutputError(f"{shown}: not a regular file (a device or a pipe); write to a file")
    fd, tmp = _mkstemp(path.parent, path.name, shown)
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
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise OutputError(f"{shown}: cannot write: {_why(e)}") from None
        raise
    finally:
        with _lock:
            _pending.discard(tmp)
    return path


def remove_temporaries(dirs: Iterable[str | Path] = (), pid: int | None = None) -> None:
    """Delete unfinished temporary files: this process's, or those of ``pid`` in ``dirs``."""
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


def _mkstemp(directory: Path, name: str, shown: str) -> tuple[int, str]:
    """A temporary file of ours in ``directory``, or a one-line OutputError naming ``shown``."""
    try:
        pre = f".{name}.{os.getpid()}."
        return tempfile.mkstemp(prefix=pre, suffix=_TMP_SUFFIX, dir=directory)
    except OSError as e:
        raise OutputError(f"{shown}: cannot write into {display(directory)}: {_why(e)}") from None


def _probe(directory: Path, shown: str) -> None:
    """Create and delete a file in ``directory``: the only reliable writability test."""
    fd, tmp = _mkstemp(directory, "probe", shown)
    os.close(fd)
    os.unlink(tmp)


def check_output_file(
    target: str | Path, option: str = "output", example: str = "result.json"
) -> Path | None:
    """Check, before any work, that ``target`` can be written as a file."""
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
    """Create ``path`` and its missing parents; one-line :class:`OutputError` on failure."""
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
    """Finish or remove what a process that no longer runs left in ``folder``."""
    with contextlib.suppress(OSError):
        for entry in Path(folder).iterdir():
            m = _TMP_NAME.match(entry.name)
            if m and not _alive(int(m.group(1))):
                _clean(entry)


def check_output_dir(target: str | Path, option: str = "--out", *, force: bool = False) -> Path:
    """Check, before any work, that ``target`` can receive a report.

    A non-empty folder maxmargin did not write (no :data:`MARKER`) is refused without
    ``force``, so a user's own ``report.md`` is never overwritten.
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


def mark_output_dir(out: str | Path, command: str, files: Iterable[str]) -> None:
    """Write ``out/.maxmargin``: the command, and each file it wrote with its size and time."""
    out = Path(out)
    names = sorted(set(files))
    stats = {}
    for name in names:
        with contextlib.suppress(OSError):
            st = os.lstat(out / name)
            stats[name] = [st.st_size, st.st_mtime_ns]
    by = f"maxmargin {command}"
    doc = {**format_header("output_dir"), "written_by": by, "files": names, "stats": stats}
    atomic_write(out / MARKER, json.dumps(doc, indent=1) + "\n")


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

    The marker is a claim, not a proof: an entry counts only as a regular file inside
    ``out`` (no link on the way) with the size and mtime recorded; anything else stays.
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


#: In a commit folder: the files of the previous run to delete once the new ones are in.
_STALE = ".maxmargin-stale"


def _commit_name(stage: Path) -> Path:
    return stage.with_name(".commit." + stage.name.removeprefix(".stage."))


def _roll_forward(out: Path, commit: Path) -> None:
    """Finish a commit: move the new files in, delete the stale ones, then the marker.

    Idempotent, so a commit interrupted at any point (even by SIGKILL) is finished by
    whoever runs it next.
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
    """A report folder being written into :attr:`path` (hidden, inside :attr:`out`)."""

    out: Path
    path: Path
    files: list[Path] = field(default_factory=list)


def _commit(staging: Staging, command: str, keep: frozenset[Path]) -> None:
    """Swap the staged files in: the old folder's content, or the complete new one."""
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
    """A command's outputs, checked (:func:`check_outputs`)."""

    command: str
    folder: Path | None = None
    keep: frozenset[Path] = frozenset()

    @contextlib.contextmanager
    def staged(self) -> Iterator[Staging]:
        """Write the report folder as a whole: yield a staging folder, swap it in at the end."""
        if self.folder is None:
            raise OutputError(f"{self.command}: no output folder to write")
        out = self.folder
        created = [p for p in (out, *out.parents) if not p.exists()]
        make_dir(out)
        pre = f".stage.{os.getpid()}."
        try:
            stage = Path(tempfile.mkdtemp(prefix=pre, suffix=_TMP_SUFFIX, dir=out))
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
    """Check every output of a command before any work: each alone, and against the rest."""
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
    real = {k: _real(p) for k, p in targets.items()}
    _check_files(targets, real, out)
    keep = _check_inputs(targets, real, out, list(writes), inputs)
    return OutputPlan(command, out, frozenset(keep))


def _check_files(targets: dict[str, Path], real: dict[str, Path], out: Path | None) -> None:
    """Refuse two file options naming one file, or one inside the folder."""
    for a, b in itertools.combinations(real, 2):
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
    real: dict[str, Path],
    out: Path | None,
    writes: list[str],
    inputs: Iterable[tuple[str, str | Path | None]],
) -> set[Path]:
    """Refuse an output that would overwrite an input; return the inputs inside ``out``."""
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
