"""The options every command that reads a user table shares, and the one way it reads it.

``--separator`` (alias ``--sep``) and ``--header/--no-header`` mean the same everywhere;
:func:`read_input` passes them to :func:`veil.io.read_table`, which sniffs the separator
when it is not given, refuses a first line that looks like data, and warns on a read that
yields a single column.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HeaderOpt", "SeparatorOpt", "read_input", "separator_value"]

SeparatorOpt = Annotated[
    str | None,
    typer.Option(
        "--separator",
        "--sep",
        help="CSV separator: ',', ';', '\\t' (or 'tab') or '|'. Default: sniffed from the "
        "first lines.",
    ),
]
HeaderOpt = Annotated[
    bool | None,
    typer.Option(
        "--header/--no-header",
        help="Whether the CSV's first line names the columns. Default: it must, and a first "
        "line that looks like data is refused; --no-header names the columns col_1 to col_N.",
        show_default=False,
    ),
]

_NAMED = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}


def separator_value(value: str | None) -> str | None:
    """The separator a user typed (``\\t`` and ``tab`` are a tab), or None to sniff it."""
    from veil._errors import InputError

    if value is None:
        return None
    sep = _NAMED.get(value.lower(), value)
    if len(sep) != 1 or sep in ('"', "\n", "\r"):
        raise InputError(
            f"--separator must be one character, got {len(sep)}",
            hint="e.g. --separator ';' or --separator tab",
        )
    return sep


def read_input(
    path: Path, separator: str | None = None, header: bool | None = None
) -> pd.DataFrame:
    """Read a user's table with the shared options (see :func:`veil.io.read_table`)."""
    from veil.io import read_table

    return read_table(path, separator=separator_value(separator), header=header)
