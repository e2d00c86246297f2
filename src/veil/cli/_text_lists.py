"""Custom patterns and term lists given on the command line (``--pattern NAME=REGEX``,
``--deny-list FILE``, ``--allow-list FILE``), turned into a policy's ``text.patterns``,
``text.deny_list`` and ``text.allow_list`` so that they run through the same code.

Every error names the option and how to fix it, never a regex or a term: a deny list holds
the very values that must not leak.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from veil._errors import InputError
from veil.text.detection._analyzer import build_pattern_recognizer

__all__ = ["pattern_specs", "read_terms"]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")


def pattern_specs(items: list[str]) -> tuple[dict[str, Any], ...]:
    """Policy pattern entries from ``NAME=REGEX`` items, each checked as a policy's is
    (it compiles, and cannot backtrack for exponential time).

    Examples
    --------
    >>> pattern_specs([r"employee_id=\\bE-\\d{6}\\b"])[0]["entity"]
    'EMPLOYEE_ID'
    """
    specs = []
    for i, item in enumerate(items, start=1):
        name, sep, regex = item.partition("=")
        name = name.strip()
        if not sep or not _NAME.fullmatch(name) or not regex:
            raise InputError(
                f"--pattern #{i} is not NAME=REGEX",
                hint="give an entity type, '=', then the regex: "
                r"--pattern 'EMPLOYEE_ID=\bE-\d{6}\b' (the name: letters, digits and _)",
            )
        spec = {"name": name.lower(), "entity": name.upper(), "regex": regex}
        build_pattern_recognizer(spec, where=f"--pattern #{i}")
        specs.append(spec)
    return tuple(specs)


def read_terms(path: Path, option: str) -> tuple[str, ...]:
    """The terms of a list file: UTF-8 text, one term per line, blank lines skipped."""
    hint = "give a UTF-8 text file with one term per line"
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(
            f"{option}: cannot read {Path(path).name} ({exc.strerror or type(exc).__name__})",
            hint=hint,
        ) from None
    if b"\x00" in data:
        raise InputError(f"{option}: {Path(path).name} is a binary file, not a list", hint=hint)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{option}: {Path(path).name} is not UTF-8 text", hint=hint) from None
    terms = tuple(dict.fromkeys(t.strip() for t in text.splitlines() if t.strip()))
    if not terms:
        raise InputError(f"{option}: {Path(path).name} holds no term", hint=hint)
    return terms
