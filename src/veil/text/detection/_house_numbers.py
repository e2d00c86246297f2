"""A house number written before a street that a recognizer found without it.

A street-name gazetteer or the NER step may find "Main Street" in "36, Main Street" or
"36 ul. Kwiatowa": the number before it is part of the address, and a redaction that
replaced the street alone would leave it in clear ("36 <STREET_ADDRESS> Rzeszów").
"""

from __future__ import annotations

from collections.abc import Sequence

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Finding

__all__ = ["with_house_numbers"]

# "36", "36A", "36/2", "36-38", "No. 36", each with an optional comma, just before the
# street; not a number that goes on from a longer one ("tel 555 36 Main ...": a digit or a
# separator before it)
_HOUSE_NUMBER = lazy_compile(
    r"(?<![\w.,/+-])(?:(?:[Nn]o\.?|[Nn]r\.?|#)[ \t]*)?\d{1,5}[A-Za-z]?(?:[/-]\d{1,4}[A-Za-z]?)?"
    r"[ \t]*,?[ \t]+$"
)

_YEAR = lazy_compile(r"(?:19|20)\d{2}\b")


def with_house_numbers(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each ``STREET_ADDRESS`` span widened back over a house number just
    before it, where no other finding holds those characters.

    Examples
    --------
    >>> text = "I live at 36, Main Street, Rzeszow"
    >>> street = Finding(14, 25, "STREET_ADDRESS", 0.85, "street_name", 1)
    >>> [text[f.start : f.end] for f in with_house_numbers(text, [street])]
    ['36, Main Street']
    """
    out = list(findings)
    for i, f in enumerate(out):
        if f.entity_type != "STREET_ADDRESS" or not f.start or not text[f.start - 1].isspace():
            continue
        m = _HOUSE_NUMBER.search(text, max(0, f.start - 16), f.start)
        if m is None:
            continue
        start = m.start()
        if _YEAR.match(text, start):
            continue  # "In 2019, Main Street was closed": a year, not a house
        if any(g is not f and g.start < f.start and start < g.end for g in out):
            continue  # the number is another finding's (a date, a phone number)
        out[i] = Finding(start, f.end, f.entity_type, f.score, f.recognizer, f.tier, f.explanation)
    return out
