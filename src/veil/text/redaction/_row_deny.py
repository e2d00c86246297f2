"""The row's own identifiers as a deny list for that row's text.

In a table, the text of a row usually talks about the person of that row: a note that names
"Nancy" in the row of "Nancy Smith" names her, even where no recognizer would call a lone
first name a person ("customer Nancy satisfied"). So the text stage looks up, in each row's
text, every value of the row's ``role: identifier`` columns verbatim (whole words, case as
written) and, for name-like columns, each part of a name of at least three letters; each
occurrence is replaced with the entity type of its column (a name column gives ``PERSON``,
an e-mail column ``EMAIL_ADDRESS``, and so on; :func:`column_entity`).

These findings come on top of the analyzer's: a row value inside a span the analyzer already
found changes nothing; one that overlaps a found span widens it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from veil.text.recognition._finding import Explanation, Finding

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ROW_DENY", "column_entity", "merge_row_findings", "row_deny_terms", "row_findings"]

ROW_DENY = "row_identifier"
_EDGE = " \t\r\n\"'`.,;:!?()[]{}<>"
_MIN_VALUE = 4
_MIN_PART = 3

_BY_VALUE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^[^@\s]+@[^@\s]+$"), "EMAIL_ADDRESS"),
    (re.compile(r"^\d{3}-\d{2}-\d{4}$"), "US_SSN"),
    (re.compile(r"^(?:\d{4}[ -]?){3}\d{1,7}$"), "CREDIT_CARD"),
    (re.compile(r"^\+?[\d\s().-]{7,}$"), "PHONE_NUMBER"),
    (re.compile(r"^\d{5}(?:-\d{4})?$"), "ZIP_CODE"),
    (re.compile(r"^\d{4}-\d{2}-\d{2}"), "DATE_TIME"),
    (re.compile(r"^https?://", re.I), "URL"),
)
_BY_NAME: tuple[tuple[str, str], ...] = (
    (r"e_?mail", "EMAIL_ADDRESS"),
    (r"(^|_)(ssn|social_?security)($|_)", "US_SSN"),
    (r"(credit_?card|card_?(no|num))", "CREDIT_CARD"),
    (r"iban", "IBAN_CODE"),
    (r"(phone|mobile|fax|tel)($|_)", "PHONE_NUMBER"),
    (r"(zip|postal|postcode)", "ZIP_CODE"),
    (r"(birth|dob|date)", "DATE_TIME"),
    (r"(street|address)", "STREET_ADDRESS"),
    (r"(^|_)(ip|ip_?address)$", "IP_ADDRESS"),
    (r"(lat|latitude|lon|lng|longitude|city|town)", "LOCATION"),
    (r"(^|_)(mrn|medical_?record)", "MEDICAL_RECORD_NUMBER"),
    (r"passport", "US_PASSPORT"),
    (r"licen[cs]e", "US_DRIVER_LICENSE"),
)


def column_entity(column: str, values: pd.Series) -> str:
    """The entity type a column's values are replaced with in text.

    A name-like column (:func:`veil.audit.name_like`) is ``PERSON``; otherwise the values'
    shape decides (e-mail, SSN, card, phone, ZIP code, date, URL), then the column's name;
    else ``DENY_LIST``.
    """
    from veil.audit import name_like

    if name_like(column, values):
        return "PERSON"
    sample = values.dropna().astype(str).str.strip().head(200)
    if len(sample):
        shown: list[str] = sample.tolist()
        for rx, entity in _BY_VALUE:
            if sum(1 for v in shown if rx.match(v)) > 0.8 * len(shown):
                return entity
    lname = column.lower().replace("-", "_").replace(" ", "_")
    for pattern, entity in _BY_NAME:
        if re.search(pattern, lname):
            return entity
    return "DENY_LIST"


def row_deny_terms(
    original: pd.DataFrame, columns: Sequence[str], index: pd.Index
) -> list[list[tuple[str, str]]]:
    """For each row of ``index``: the ``(term, entity)`` pairs of its identifier values.

    Terms: each value (stripped, at least 4 characters) and, for name-like columns, each part
    of at least 3 letters. Rows of ``index`` not in ``original`` get no terms.
    """
    import pandas as pd

    from veil.audit import name_like

    if original.index.equals(index):
        aligned = original
    elif original.index.is_unique:
        aligned = original.reindex(index)
    else:  # labels repeat: rows can be matched by position only
        aligned = original.iloc[: len(index)] if len(original) == len(index) else original.iloc[:0]
        aligned = aligned.reindex(range(len(index))) if len(aligned) != len(index) else aligned
    per_row: list[list[tuple[str, str]]] = [[] for _ in range(len(index))]
    for col in columns:
        if col not in aligned.columns:
            continue
        series = aligned[col]
        entity = column_entity(col, original[col])
        is_name = entity == "PERSON" or name_like(col, original[col])
        for pos, v in enumerate(series.tolist()):
            if v is None or (not isinstance(v, str) and pd.isna(v)):
                continue
            text = str(v)
            core = text.strip(_EDGE)
            terms = per_row[pos]
            if len(core) >= _MIN_VALUE:
                terms.append((core, entity))
            if is_name:
                for w in text.split():
                    w = w.strip(_EDGE)
                    if sum(c.isalpha() for c in w) >= _MIN_PART and w != core:
                        terms.append((w, entity))
    return per_row


def _whole(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() and text[start].isalnum()) and not (
        after.isalnum() and text[end - 1].isalnum()
    )


def row_findings(text: str, terms: Sequence[tuple[str, str]]) -> list[Finding]:
    """Every whole-word, verbatim occurrence of the row's terms in ``text``.

    Examples
    --------
    >>> [(f.start, f.end, f.entity_type) for f in row_findings(
    ...     "customer Nancy satisfied", [("Nancy Smith", "PERSON"), ("Nancy", "PERSON")])]
    [(9, 14, 'PERSON')]
    """
    out: list[Finding] = []
    for term, entity in terms:
        pos = text.find(term)
        while pos >= 0:
            end = pos + len(term)
            if _whole(text, pos, end):
                out.append(
                    Finding(
                        pos,
                        end,
                        entity,
                        1.0,
                        ROW_DENY,
                        0,
                        Explanation(ROW_DENY, "row_identifier", 1.0, 1.0),
                    )
                )
            pos = text.find(term, pos + 1)
    return out


def merge_row_findings(found: Sequence[Finding], extra: Sequence[Finding]) -> list[Finding]:
    """The analyzer's ``found`` plus the row's ``extra``, non-overlapping, sorted by start.

    An extra span inside a found one adds nothing; overlapping spans become one span over
    both, of the type of the longer (the analyzer's on a tie).

    Examples
    --------
    >>> a = Finding(0, 11, "PERSON", 0.8, "ner", 2)
    >>> b = Finding(6, 16, "PERSON", 1.0, ROW_DENY, 0)
    >>> [(f.start, f.end) for f in merge_row_findings([a], [b])]
    [(0, 16)]
    """
    if not extra:
        return list(found)
    spans = sorted([*found, *extra], key=lambda f: (f.start, -(f.end - f.start)))
    out: list[Finding] = []
    for f in spans:
        if out and f.start < out[-1].end:
            last = out[-1]
            if f.end <= last.end:
                continue
            keep = last if last.length >= f.length else f
            out[-1] = Finding(
                last.start,
                f.end,
                keep.entity_type,
                max(last.score, f.score),
                keep.recognizer,
                min(last.tier, f.tier),
                keep.explanation,
            )
        else:
            out.append(f)
    return out
