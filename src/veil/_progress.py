"""Progress reporting that the library emits and the CLI renders (rich) or ignores."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

__all__ = ["NullProgress", "Progress", "ProgressTask"]


class ProgressTask(Protocol):
    def advance(self, n: float = 1) -> None: ...


class Progress(Protocol):
    """Something that can show progress of named tasks. The CLI passes a rich one."""

    def task(
        self, description: str, total: float | None = None
    ) -> AbstractContextManager[ProgressTask]: ...


class _NullTask:
    def advance(self, n: float = 1) -> None:
        return None


class NullProgress:
    """Progress that shows nothing (the library default)."""

    @contextmanager
    def task(self, description: str, total: float | None = None) -> Iterator[ProgressTask]:
        yield _NullTask()
