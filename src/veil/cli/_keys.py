"""Key-related commands (``veil detokenize``) are registered here."""

from __future__ import annotations

import typer

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    return None
