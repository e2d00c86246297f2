"""Atomic writes: write beside the target, then rename. An error never leaves a partial file."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from veil._errors import InputError

__all__ = ["atomic_dir", "atomic_path", "write_bytes_atomic", "write_text_atomic"]


@contextlib.contextmanager
def atomic_path(target: str | Path, *, mode: int | None = None) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it onto ``target`` on success.

    On any exception the temporary file is removed, so are the folders made for it (when
    empty), and ``target`` is left untouched.

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
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        for folder in made:  # innermost first; the folders this call made, if still empty
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def write_text_atomic(target: str | Path, text: str, *, mode: int | None = None) -> Path:
    with atomic_path(target, mode=mode) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(target)


def write_bytes_atomic(target: str | Path, data: bytes, *, mode: int | None = None) -> Path:
    with atomic_path(target, mode=mode) as tmp:
        tmp.write_bytes(data)
    return Path(target)


@contextlib.contextmanager
def atomic_dir(target: str | Path) -> Iterator[Path]:
    """Yield a staging folder; on success move each file in it into ``target``.

    Files are moved one by one with :func:`os.replace` (each move is atomic). On error the
    staging folder is removed and nothing appears in ``target``.
    """
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".veil-staging-", dir=target))
    try:
        yield stage
        for item in sorted(stage.rglob("*")):
            if item.is_file():
                dest = target / item.relative_to(stage)
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.replace(item, dest)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
