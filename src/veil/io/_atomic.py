"""Atomic writes: a file appears whole or not at all; a run's files change as one set.

* :func:`atomic_path` writes beside the target, then renames: an error never leaves a
  partial file.
* :func:`atomic_dir` stages a run's files, then swaps them in as a set: the old files move
  to a backup folder, the new ones move in, and only then is the backup deleted. If any
  move fails (or the run is stopped by an exception, Ctrl-C or SIGTERM turned into one)
  the new files move out and the old ones back: the folder holds all the new files or
  all the old ones, never a new table beside an old report.

Every temporary name carries veil's mark and the writing process's id::

    .veil-tmp-<pid>-<host>-<random>.<name>.tmp    a file being written (atomic_path)
    .veil-staging-<pid>-<host>-<random>/          a run's files being written (atomic_dir)
    .veil-backup-<pid>-<host>-<random>/           the old files during a swap

(``<host>``: 6 hex digits of a digest of the host name.)

A process killed outright (SIGKILL, power loss) cannot clean up, and its temporary files
may hold identifiers in clear (a partial copy of the input). So every write first sweeps
its folder: names with veil's mark whose process is gone (on this host; a name another
host or container wrote is left alone for a day, as its process cannot be seen) are
removed, and a swap that was cut short is rolled back to the old files (the backup folder holds a manifest until the
swap completes). Nothing without the mark is ever touched.

Write errors (a read-only folder, a full disk) are :class:`~veil.OutputError` naming the
path and the operating system's reason.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import logging
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from veil._errors import InputError, OutputError

__all__ = [
    "atomic_dir",
    "atomic_path",
    "sweep_stale",
    "write_bytes_atomic",
    "write_text_atomic",
]

log = logging.getLogger(__name__)

_TMP = ".veil-tmp-"
_STAGING = ".veil-staging-"
_BACKUP = ".veil-backup-"
_MANIFEST = ".veil-manifest.json"
_MARKED = re.compile(r"^\.veil-(tmp|staging|backup)-(\d+)-([0-9a-f]{6})-")
#: a name another machine (or container: its own process ids) left is swept only this old
_FOREIGN_AGE_S = 24 * 3600


@functools.cache
def _host() -> str:
    """A short digest of the host name (a container has its own): see :func:`_stale`."""
    return hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:6]


def _owner() -> str:
    """``<pid>-<host>``, the mark of this process's temporary names."""
    return f"{os.getpid()}-{_host()}"


def _stale(pid: int, host: str, entry: Path) -> bool:
    if host != _host():  # another machine's or container's: its process cannot be seen
        try:
            return time.time() - entry.lstat().st_mtime > _FOREIGN_AGE_S
        except OSError:
            return False
    return not _alive(pid)


# errors that mean "this write cannot happen here" even when the OS names no file
_WRITE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS}


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # another user's process, or cannot tell: leave its files alone
    return True


def _output_error(exc: OSError, path: Path) -> OutputError:
    if isinstance(exc, OutputError):  # already worded: keep the reason, name ``path``
        reason = exc.message.rpartition(": ")[2]
        err = OutputError(f"cannot write {path}: {reason}", hint=exc.hint)
        err.errno, err.filename = exc.errno, str(path)
        return err
    reason = exc.strerror or os.strerror(exc.errno or 0) or type(exc).__name__
    folder = path.parent
    hint = {
        errno.ENOSPC: f"free space on the disk holding {folder}, or write elsewhere",
        errno.EDQUOT: f"free space in your quota on {folder}, or write elsewhere",
        errno.EACCES: f"make {folder} writable, or choose another output folder",
        errno.EPERM: f"make {folder} writable, or choose another output folder",
        errno.EROFS: "the file system is read-only: choose another output folder",
    }.get(exc.errno or 0, "check the output folder, or choose another one")
    err = OutputError(f"cannot write {path}: {reason}", hint=hint + "; nothing was changed there")
    err.errno = exc.errno
    err.filename = str(path)
    return err


def _is_write_error(exc: OSError, own: set[str]) -> bool:
    name = exc.filename
    return (name is None and exc.errno in _WRITE_ERRNOS) or (name is not None and str(name) in own)


def _rollback(folder: Path, backup: Path, stage: Path, names: list[str]) -> None:
    """Put the old files back: new ones that had no old version are removed."""
    for name in names:
        old = backup / name
        if old.exists():
            os.replace(old, folder / name)
        elif not (stage / name).exists():  # moved in, and there was no old one
            with contextlib.suppress(FileNotFoundError):
                (folder / name).unlink()


def sweep_stale(folder: str | Path) -> list[str]:
    """Remove what killed veil processes left in ``folder``; roll back a cut-short swap.

    Only names with veil's mark (see the module docstring) whose process no longer runs
    are touched. Returns the names removed (names of veil's files, never their content).
    """
    folder = Path(folder)
    try:
        entries = sorted(folder.iterdir(), key=lambda p: not p.name.startswith(_BACKUP))
    except OSError:
        return []
    removed: list[str] = []
    for entry in entries:
        m = _MARKED.match(entry.name)
        if m is None or not _stale(int(m.group(2)), m.group(3), entry):
            continue
        with contextlib.suppress(OSError, ValueError, TypeError):  # a sweep never fails a run
            if m.group(1) == "backup":
                manifest = entry / _MANIFEST
                token = entry.name[len(_BACKUP) :]
                if manifest.is_file():  # the swap did not finish: back to the old files
                    listed = json.loads(manifest.read_text(encoding="utf-8"))
                    names = [
                        n
                        for n in listed
                        if isinstance(n, str)
                        and not Path(n).is_absolute()
                        and ".." not in Path(n).parts
                    ]
                    _rollback(folder, entry, folder / f"{_STAGING}{token}", names)
                    log.warning("rolled back an unfinished release in %s", folder)
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry.name)
    if removed:
        log.info("removed %d temporary name(s) left by stopped veil runs", len(removed))
    return removed


@contextlib.contextmanager
def atomic_path(
    target: str | Path, *, mode: int | None = None, durable: bool = False
) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it onto ``target`` on success.

    ``durable``: the temporary file is flushed to the disk before the rename and the folder
    after it (:func:`fsync_path`), so that the new content, not an empty file, survives a
    power loss or a crash of the machine (a rename is the commit of what it names only when
    the data it points to is on the disk). Without it the write is atomic against a killed
    process, as every release is.

    On any exception the temporary file is removed, so are the folders made for it (when
    empty), and ``target`` is left untouched. A write error (no space, no permission) is
    an :class:`~veil.OutputError` naming ``target`` and the reason.

    Examples
    --------
    >>> with atomic_path("out.csv") as tmp:  # doctest: +SKIP
    ...     df.to_csv(tmp)
    """
    target = Path(target)
    if target.is_dir():
        raise InputError(f"the output {target} is a folder", hint="name a file inside it")
    blocking = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise InputError(
            f"the output's folder cannot be made: {blocking} is a file",
            hint="choose another output path",
        )
    made = [p for p in (target.parent, *target.parent.parents) if not p.exists()]
    tmp: Path | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        sweep_stale(target.parent)
        fd, name = tempfile.mkstemp(
            prefix=f"{_TMP}{_owner()}-", suffix=f".{target.name}.tmp", dir=target.parent
        )
        os.close(fd)
        tmp = Path(name)
    except OSError as exc:
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise _output_error(exc, target) from None
    try:
        yield tmp
        if mode is not None:
            os.chmod(tmp, mode)
        if durable:
            fsync_path(tmp)
        os.replace(tmp, target)
        if durable:
            fsync_path(target.parent)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        for folder in made:  # innermost first; the folders this call made, if still empty
            with contextlib.suppress(OSError):
                folder.rmdir()
        own = {str(tmp), str(target)}
        if (
            isinstance(exc, OSError)
            and not isinstance(exc, OutputError)
            and (_is_write_error(exc, own))
        ):
            raise _output_error(exc, target) from None
        raise


def fsync_path(path: str | Path) -> None:
    """Flush a file's or a folder's content to the disk (a folder: the names it holds).

    Platforms that cannot open a folder for reading (Windows) skip folders."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except (IsADirectoryError, PermissionError):
        if Path(path).is_dir():
            return
        raise
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_text_atomic(
    target: str | Path, text: str, *, mode: int | None = None, durable: bool = False
) -> Path:
    with atomic_path(target, mode=mode, durable=durable) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(target)


def write_bytes_atomic(target: str | Path, data: bytes, *, mode: int | None = None) -> Path:
    with atomic_path(target, mode=mode) as tmp:
        tmp.write_bytes(data)
    return Path(target)


class _RollbackFailed(OutputError):
    """The swap failed and the old files could not all be put back: the backup and the
    staging folder are kept, so the next veil write in the folder completes the rollback."""


def _undo(target: Path, backup: Path, stage: Path, names: list[str]) -> None:
    try:
        _rollback(target, backup, stage, names)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise _RollbackFailed(
            f"writing the outputs in {target} failed, and putting the old files back failed "
            f"too ({reason}): the old files are in {backup}",
            hint="fix the folder (space, permissions); the next veil run there puts the old "
            "files back before it writes",
        ) from None
    shutil.rmtree(backup, ignore_errors=True)


def _swap_in(stage: Path, target: Path, token: str) -> None:
    """Move the staged files into ``target`` as a set (see the module docstring)."""
    names = sorted(
        p.relative_to(stage).as_posix() for p in stage.rglob("*") if p.is_file() or p.is_symlink()
    )
    backup = target / f"{_BACKUP}{token}"
    backup.mkdir()
    (backup / _MANIFEST).write_text(json.dumps(names), encoding="utf-8")
    name = ""
    try:
        for name in names:  # 1. the old files out, into the backup
            old = target / name
            if old.is_file() or old.is_symlink():
                (backup / name).parent.mkdir(parents=True, exist_ok=True)
                os.replace(old, backup / name)
        for name in names:  # 2. the new files in
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / name, target / name)
    except OSError as exc:  # name the file the user knows, not its hidden copy
        _undo(target, backup, stage, names)
        raise OSError(exc.errno, exc.strerror, str(target / name)) from None
    except BaseException:
        _undo(target, backup, stage, names)
        raise
    (backup / _MANIFEST).unlink()  # the commit point: from here on, the new set stands
    shutil.rmtree(backup, ignore_errors=True)


@contextlib.contextmanager
def atomic_dir(target: str | Path) -> Iterator[Path]:
    """Yield a staging folder; on success swap every file in it into ``target`` as a set.

    On error (in the caller's block or during the swap) the staging folder is removed and
    ``target`` keeps its old files, all of them. A write error is an
    :class:`~veil.OutputError` naming the path and the reason.
    """
    target = Path(target)
    try:
        target.mkdir(parents=True, exist_ok=True)
        sweep_stale(target)
        stage = Path(tempfile.mkdtemp(prefix=f"{_STAGING}{_owner()}-", dir=target))
    except OSError as exc:
        raise _output_error(exc, target / "(staging folder)") from None
    token = stage.name[len(_STAGING) :]
    keep = False
    try:
        try:
            yield stage
        except OSError as exc:
            where = Path(str(exc.filename)) if exc.filename is not None else None
            staged = where is not None and where.is_relative_to(stage)
            if not staged and not _is_write_error(exc, set()):
                raise  # about another file (an input, say): not a write error of ours
            # name the file the user asked for, not its copy in the hidden staging folder
            path = target / where.relative_to(stage) if where is not None and staged else target
            raise _output_error(exc, path) from None
        try:
            _swap_in(stage, target, token)
        except _RollbackFailed:
            keep = True  # the next sweep needs the staging folder to finish the rollback
            raise
        except OSError as exc:
            raise _output_error(exc, Path(str(exc.filename or target))) from None
    finally:
        if not keep:
            shutil.rmtree(stage, ignore_errors=True)
