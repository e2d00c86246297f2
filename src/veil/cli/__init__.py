"""The ``veil`` command line."""

from typing import Any

from veil.cli._app import main

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    """``app`` (every command) is built on first use; see :mod:`veil.cli._app`."""
    if name == "app":
        from veil.cli import _app

        return _app.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
