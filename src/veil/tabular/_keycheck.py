"""Key check values of a release: written beside it, read back to refuse a wrong key.

``veil run`` writes ``key_check.json`` beside every release made with a keyed transform
(hash, tokenize, date_shift), and the same values under ``transforms.columns.<col>`` in
``report.json``::

    {"format": "veil-key-check-v1",
     "columns": {"ssn": {"transform": "tokenize", "key_check": "3b0c...", "tweak_check": "..."}}}

A key check value is a keyed digest (:func:`veil._keystrength.key_check_value`): it says
whether a key is the one used, and reveals nothing else. FF3-1 deciphers any token with any
key into a plausible value, so without this check ``veil detokenize`` with a wrong key
would write plausible wrong identifiers; with it, it refuses (:class:`~veil.KeyMismatchError`,
exit 2) before writing anything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from veil._errors import InputError, KeyMismatchError

__all__ = [
    "KEY_CHECK_FILE",
    "KEY_CHECK_FORMAT",
    "check_key",
    "find_key_checks",
    "release_key_checks",
]

KEY_CHECK_FILE = "key_check.json"
KEY_CHECK_FORMAT = "veil-key-check-v1"
_FIELDS = ("key_check", "tweak_check")


def release_key_checks(columns: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The ``key_check.json`` text for a transforms section's columns (None: none keyed)."""
    keyed = {
        col: {"transform": entry["transform"], **{f: entry[f] for f in _FIELDS if f in entry}}
        for col, entry in columns.items()
        if "key_check" in entry
    }
    if not keyed:
        return None
    return json.dumps({"format": KEY_CHECK_FORMAT, "columns": keyed}, indent=2) + "\n"


def _from_document(doc: Any) -> dict[str, dict[str, str]] | None:
    if not isinstance(doc, dict):
        return None
    if doc.get("format") == KEY_CHECK_FORMAT:
        columns = doc.get("columns")
    else:  # a report.json
        columns = (doc.get("transforms") or {}).get("columns")
    if not isinstance(columns, dict):
        return None
    return {
        str(col): {f: str(entry[f]) for f in _FIELDS if f in entry}
        for col, entry in columns.items()
        if isinstance(entry, dict) and "key_check" in entry
    }


def find_key_checks(
    release: Path, given: Path | None = None
) -> tuple[dict[str, dict[str, str]], Path] | None:
    """The key check values recorded for a release, and the file they came from.

    ``given`` (a ``key_check.json`` or a ``report.json``) wins; else ``key_check.json``,
    then ``report.json``, in the release's folder. ``None`` when none records any.
    """
    candidates = (
        [given]
        if given is not None
        else [release.parent / KEY_CHECK_FILE, release.parent / "report.json"]
    )
    for path in candidates:
        if not path.is_file():
            if given is not None:
                raise InputError(
                    f"the key check file {path} does not exist",
                    hint="give the key_check.json or report.json written with the release",
                )
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            raise InputError(
                f"{path}: cannot be read as a veil key check file or report (JSON)",
                hint="give the key_check.json or report.json written with the release",
            ) from None
        checks = _from_document(doc)
        if checks:
            return checks, path
        if given is not None:
            raise InputError(
                f"{path} records no key check value",
                hint="give the key_check.json or report.json written with the release",
            )
    return None


def check_key(
    column: str, actual: Mapping[str, str], recorded: Mapping[str, str], source: Path
) -> None:
    """Raise :class:`~veil.KeyMismatchError` unless ``actual`` matches ``recorded``."""
    for field in _FIELDS:
        if (field in recorded or field in actual) and actual.get(field) != recorded.get(field):
            what = "key" if field == "key_check" else "FF3-1 tweak"
            raise KeyMismatchError(
                f"column {column!r}: the {what} given is not the one the release was made "
                f"with (its check value differs from the one in {source}); nothing was written",
                hint=f"use the {what} the release was tokenized with (the policy's key_env/"
                "key_file" + ("/tweak_env" if field == "tweak_check" else "") + ")",
            )
