"""Terminal output shared by the commands: a stderr console, JSON output, rich progress."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.progress import Progress as RichProgress

__all__ = ["RichProgressAdapter", "console", "err_console", "print_json", "state"]

console = Console()
err_console = Console(stderr=True)


class _State:
    debug: bool = False
    quiet: bool = False


state = _State()


def print_json(obj: Any) -> None:
    """Write one JSON document to stdout (nothing else goes to stdout in --json mode)."""
    sys.stdout.write(json.dumps(obj, indent=2, default=str) + "\n")
    sys.stdout.flush()


class _Task:
    def __init__(self, progress: RichProgress, task_id: Any) -> None:
        self._progress = progress
        self._id = task_id

    def advance(self, n: float = 1) -> None:
        self._progress.advance(self._id, n)


class RichProgressAdapter:
    """The library's Progress protocol rendered with rich on stderr."""

    def __init__(self, enabled: bool = True) -> None:
        self._progress = RichProgress(
            SpinnerColumn(),
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err_console,
            transient=True,
            disable=not enabled or state.quiet,
        )

    def __enter__(self) -> RichProgressAdapter:
        self._started = False  # started on the first task, so a quick failure prints nothing
        return self

    def __exit__(self, *exc: object) -> None:
        if self._started:
            self._progress.stop()

    @contextmanager
    def task(self, description: str, total: float | None = None) -> Iterator[_Task]:
        if not getattr(self, "_started", False):
            self._progress.start()
            self._started = True
        task_id = self._progress.add_task(description, total=total)
        try:
            yield _Task(self._progress, task_id)
        finally:
            self._progress.update(
                task_id, completed=total if total is not None else 1, total=total or 1
            )
            self._progress.remove_task(task_id)
