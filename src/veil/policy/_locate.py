"""Errors found while running a policy, told at the policy's file and line.

A key that cannot be read or a hierarchy file that cannot be used is found when a stage
checks or runs, long after the YAML was parsed; the error names the column. The loader
remembers the file and the line of every key of each policy it loads, and
:func:`located_errors` prefixes such an error with ``FILE:LINE:`` of the column's
``transform`` (for a key) or ``hierarchy`` (for a hierarchy file).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from veil._errors import InputError, KeyMissingError, PolicyError

if TYPE_CHECKING:
    from veil.policy._models import Policy

__all__ = ["located_errors", "remember_location"]

_Loc = tuple[str | int, ...]
_WHERE: dict[int, tuple[str, dict[_Loc, int]]] = {}
_COLUMN = re.compile(r"column '((?:[^'\\]|\\.)*)'")
_OPERATOR = re.compile(r"operator '([\w-]+)'")
_HIERARCHY = re.compile(r"hierarch|taxonomy", re.I)


def remember_location(policy: Policy, source: str, lines: dict[_Loc, int]) -> None:
    """Note where ``policy`` was read from (kept as long as the policy object lives)."""
    key = id(policy)
    _WHERE[key] = (source, lines)
    weakref.finalize(policy, _WHERE.pop, key, None)


def _text_column(policy: Policy, message: str) -> str | None:
    """The first text column whose operator a text key error names (it names no column)."""
    match = _OPERATOR.search(message)
    if match is None:
        return None
    for name, col in policy.columns.items():
        text = getattr(col, "text", None)
        if text is not None and text.operator == match.group(1):
            return name
    return None


def _line(lines: dict[_Loc, int], column: str, part: str) -> int | None:
    leaves = ("key_file", "key_env") if part == "transform" else ("path",)
    for loc in (
        *(("columns", column, part, leaf) for leaf in leaves),
        *(("columns", column, leaf) for leaf in leaves),  # the shorthand forms
        ("columns", column, part),
        ("columns", column, "text", "operator_options"),
        ("columns", column, "text", "operator"),
        ("columns", column, "operator"),
        ("columns", column),
    ):
        if loc in lines:
            return lines[loc]
    return None


@contextmanager
def located_errors(policy: Policy) -> Iterator[None]:
    """Re-raise a key or hierarchy error of a column with the policy's file and line."""
    try:
        yield
    except (KeyMissingError, InputError, PolicyError) as exc:
        where = _WHERE.get(id(policy))
        if where is None or (isinstance(exc, PolicyError) and exc.file is not None):
            raise
        is_key = isinstance(exc, KeyMissingError)
        if not is_key and not _HIERARCHY.search(exc.message):
            raise
        match = _COLUMN.search(exc.message)
        column = match.group(1) if match is not None else None
        if column is None and is_key:
            column = _text_column(policy, exc.message)
        if column is None or column not in policy.columns:
            raise
        source, lines = where
        line = _line(lines, column, "transform" if is_key else "hierarchy")
        if isinstance(exc, PolicyError):
            raise PolicyError(exc.message, hint=exc.hint, file=source, line=line) from None
        prefix = f"{source}:{line}: " if line is not None else f"{source}: "
        raise type(exc)(prefix + exc.message, hint=exc.hint) from None
