"""The ``veil`` command line."""

from veil.cli._app import app, main

__all__ = ["app", "main"]
