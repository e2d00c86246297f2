"""What a CSV's first lines say about it: its separator, and whether its first line is a header.

Both are read from the head of the file (64 KiB), before pandas reads the whole of it.

A file without a header row makes its first record the column names: every command would
then copy values into hints, notes and drafted policies. :func:`first_line_looks_like_data`
says so when the first line holds a value shaped like data (a number over a numeric
column, a date, an e-mail address, a long text over long texts) or a value that recurs
below it in its column. It returns a reason in words, never the value.

The separator is the one of ``,``, ``;``, tab and ``|`` that splits the header and the
sampled records into the same number of fields, more than one (a split that leaves no
quote character inside a field first, then the most consistent, then the most fields; a
tie goes to the earlier of that list). A ``;`` file with decimal commas is read as ``;``:
the commas split the records but not the header.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import re
from pathlib import Path
from typing import IO, Any

__all__ = [
    "SEPARATORS",
    "first_line_looks_like_data",
    "generated_names",
    "head_rows",
    "headerless_reason",
    "sniff_separator",
]

SEPARATORS = (",", ";", "\t", "|")
HEAD_BYTES = 1 << 16
SAMPLE_ROWS = 200

_NUMBER = re.compile(r"[-+]?(\d+([.,]\d*)?|[.,]\d+)([eE][-+]?\d+)?%?")
_MONEY = re.compile(r"[-+]?[$€£¥]\s?\d[\d,]*(\.\d+)?")
_DATE = re.compile(
    r"(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})([ T]\d{1,2}:\d{2}(:\d{2})?.*)?"
)
_TIME = re.compile(r"\d{1,2}:\d{2}(:\d{2})?")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_DIGITS_WITH_PUNCT = re.compile(r"\+?[\d][\d\s().-]{5,}\d")  # phone, SSN, card, ...
_LONG_TEXT = 64  # characters; a column name is rarely longer


def _open_text(path: Path, encoding: str) -> IO[str]:
    suffix = path.suffix.lower()
    opener: Any = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(suffix, open)
    enc = "utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
    return opener(path, "rt", encoding=enc, errors="replace", newline="")  # type: ignore[no-any-return]


def _head_text(path: Path, encoding: str) -> tuple[str, bool]:
    """The first 64 KiB of text, and whether that is the whole file."""
    try:
        with _open_text(path, encoding) as fh:
            text = fh.read(HEAD_BYTES)
            whole = fh.read(1) == ""
    except (OSError, LookupError, EOFError, lzma.LZMAError):
        return "", True  # the reader itself reports what is wrong with the file
    return text, whole


def _split(text: str, whole: bool, separator: str, quotechar: str) -> list[list[str]]:
    if not whole:  # the last record may be cut: keep whole lines only
        text = text[: text.rfind("\n") + 1]
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=separator, quotechar=quotechar))
    except csv.Error:
        return []
    if not whole and rows:
        rows = rows[:-1]  # a quoted field cut by the 64 KiB limit
    return [r for r in rows if r and any(v.strip() for v in r)][: SAMPLE_ROWS + 1]


def sniff_separator(
    path: str | Path, *, encoding: str = "utf-8", quotechar: str = '"', default: str | None = None
) -> str:
    """The separator of a CSV file, from its first lines; ``default`` when none splits it
    (by default a tab for a ``.tsv`` file, else a comma).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("age;income\\n34;1,5\\n51;2,25\\n")
    >>> sniff_separator(p)
    ';'
    """
    path = Path(path)
    if default is None:
        default = "\t" if ".tsv" in [x.lower() for x in path.suffixes] else ","
    text, whole = _head_text(path, encoding)
    best: tuple[bool, float, int, int] | None = None
    choice = default
    for rank, sep in enumerate(SEPARATORS):
        rows = _split(text, whole, sep, quotechar)
        if not rows or len(rows[0]) < 2:
            continue
        width = len(rows[0])
        share = sum(len(r) == width for r in rows[1:]) / max(len(rows) - 1, 1)
        # a field quoted for holding another separator (or a line break) leaves its quote
        # characters inside a field when split at the wrong one
        clean = not any(quotechar in v for r in rows for v in r)
        score = (clean, share, width, -rank)
        if best is None or score > best:
            best, choice = score, sep
    return choice


def head_rows(
    path: str | Path, *, separator: str, encoding: str = "utf-8", quotechar: str = '"'
) -> list[list[str]]:
    """The first line's fields and up to 200 records below it, split by ``separator``."""
    text, whole = _head_text(Path(path), encoding)
    return _split(text, whole, separator, quotechar)


def headerless_reason(
    path: str | Path, *, separator: str, encoding: str = "utf-8", quotechar: str = '"'
) -> str | None:
    """Why the file's first line looks like data (:func:`first_line_looks_like_data`), or None.

    The line is judged split at ``separator`` and at each other separator that splits it
    in two or more: a sniffed separator can be wrong on a file without a header (every
    record of a text column may hold the same number of commas), and the first record
    must be refused however it is split.
    """
    text, whole = _head_text(Path(path), encoding)
    for sep in (separator, *(s for s in SEPARATORS if s != separator)):
        rows = _split(text, whole, sep, quotechar)
        if sep != separator and (not rows or len(rows[0]) < 2):
            continue
        reason = first_line_looks_like_data(rows)
        if reason is not None:
            return reason
    return None


def _data_shaped(value: str) -> str | None:
    v = value.strip()
    if not v:
        return None
    if _EMAIL.fullmatch(v):
        return "an e-mail address"
    if _DATE.fullmatch(v) or _TIME.fullmatch(v):
        return "a date or time"
    if _MONEY.fullmatch(v):
        return "an amount of money"
    if _DIGITS_WITH_PUNCT.fullmatch(v) and sum(c.isdigit() for c in v) >= 7:
        return "a number such as a phone, ID or card number"
    return None


def _is_number(value: str) -> bool:
    v = value.strip()
    return bool(v) and (_NUMBER.fullmatch(v) is not None or _MONEY.fullmatch(v) is not None)


def first_line_looks_like_data(rows: list[list[str]]) -> str | None:
    """Why the first of ``rows`` looks like a record rather than column names, or None.

    The reason names the column's position and what the value looks like, never the value.

    Examples
    --------
    >>> first_line_looks_like_data([["id", "email"], ["1", "a@b.org"]]) is None
    True
    >>> first_line_looks_like_data([["1", "a@b.org"], ["2", "c@d.org"]])
    'field 1 is a number over a column of numbers'
    """
    if not rows:
        return None
    header, body = rows[0], rows[1:]
    columns: list[list[str]] = [[] for _ in header]
    for r in body:
        for i, v in enumerate(r[: len(header)]):
            if v.strip():
                columns[i].append(v.strip())
    for i, name in enumerate(header):
        name = name.strip()
        if not name:
            continue
        values = columns[i]
        if _is_number(name):
            # a header of numbers over text is a list of codes; over numbers, a record
            if not values or sum(map(_is_number, values)) >= 0.5 * len(values):
                return f"field {i + 1} is a number over a column of numbers"
            continue
        shape = _data_shaped(name)
        if shape is not None:
            return f"field {i + 1} is {shape}"
        # a long text over long texts is a record of a text column; a long survey question
        # over short answers is a header
        if len(name) > _LONG_TEXT and (
            not values or sorted(map(len, values))[len(values) // 2] > _LONG_TEXT // 2
        ):
            return f"field {i + 1} is a text longer than {_LONG_TEXT} characters, over texts"
        if name in values:
            return f"field {i + 1} recurs as a value in its column"
    return None


def generated_names(n: int) -> list[str]:
    """Names for the columns of a file without a header: ``col_1`` to ``col_n``."""
    return [f"col_{i}" for i in range(1, n + 1)]
