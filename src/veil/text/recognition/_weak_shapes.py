"""Identifier shapes without a label: weak candidates, for a recall-first redaction only.

Nine bare digits may be a Social Security number, "07805-1121" an SSN typed with one dash
in the wrong place, "A12803456" a US passport number and a run of 10 to 14 digits a
driver's licence number; each is also an ordinary number, which is why the recognizers of
:mod:`veil.text.recognition._government` want the number's word near it ("SSN",
"passport", "driver's license"). Presidio reports such shapes without a word at a low
score (0.01 to 0.4); a redactor that leaves them in clear leaks whatever was written
without its label. :class:`WeakShapeRecognizer` reports them at :data:`WEAK_SCORE`
(0.45): at the redaction threshold and below the detect threshold
(:data:`veil.policy.REDACT_SCORE_THRESHOLD`, :data:`veil.policy.DETECT_SCORE_THRESHOLD`),
so ``veil redact`` replaces them and ``veil text detect`` does not claim them. With the
number's word near, the labelled recognizers report the same span at their higher score
(the two merge, as findings of one type do).

One type per candidate, by the strongest rule its digits pass, and the other types whose
published format the same characters fit (:attr:`Explanation.alternatives
<veil.text.recognition._finding.Explanation.alternatives>`): nothing in a bare value tells
a passport number from a licence or an account number, so an analyzer asked for some types
only reports the finding under the first of them it was asked for, as Presidio reports
the same span once per type:

=====================================  ===========================================
shape                                  type, then the other readings
=====================================  ===========================================
nine digits, or five and four digits   ``US_SSN`` or ``US_ITIN`` when the SSA / IRS
joined by a dash                       numbering rules allow them
                                       (:func:`~veil.text.recognition._checksums.ssn_kind`:
                                       area 000, 666 and 9xx for an SSN, ITIN groups,
                                       all-same digits, publicised numbers refused);
                                       otherwise a 9-digit run is
                                       ``US_DRIVER_LICENSE`` and a 5-4 group nothing.
                                       A 9-digit run also reads as ``US_PASSPORT``
                                       (the books issued before 2021: nine digits),
                                       ``US_DRIVER_LICENSE`` (the 9-digit state
                                       formats) and ``US_BANK_NUMBER`` (an account
                                       number: a NACHA entry's account field holds up
                                       to 17); a 5-4 group only as an SSN or ITIN
a capital letter and eight digits      ``US_PASSPORT`` (the format of US passport cards
                                       and of the books issued since 2021); also
                                       ``US_DRIVER_LICENSE`` (the one-letter and
                                       eight-digit formats of Arizona, Kansas and
                                       Virginia)
10 to 14 digits                        ``US_DRIVER_LICENSE`` (state formats of 9 to 14
                                       digits); also ``US_BANK_NUMBER``
=====================================  ===========================================

What other readings of the same characters win, or stop the candidate:

* tier 2: a finding of tier 0 or 1 on the same characters wins (a phone number, a card,
  a checked national id, a ZIP code after a state, a date, a street address, a value
  after its label), as does one of tier 2 (NER, a bank account after its word) that is
  longer or scores higher;
* digits glued to a word, a currency sign, a decimal point or thousands separator, a
  slash, ``#``, ``@``, ``+`` or a dash are part of something else (an amount, a version,
  a path, an order number, a phone number);
* a word just before the number that says what else it is (order, invoice, tracking,
  version, build, transaction, serial, port, timestamp, phone, fax, ZIP, amount ...), or
  a unit or a currency just after it ("1700000000 ms", "250000000 USD");
* all-same digits ("000000000", "1111111111").

Nothing here logs a value.
"""

from __future__ import annotations

from veil._lazy import lazy_compile
from veil.text.recognition._checksums import ssn_kind
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import Recognizer, recognizers, text_features

__all__ = ["WEAK_SCORE", "WeakShapeRecognizer", "weak_type", "weak_types"]

#: score of an identifier shape without its label: redacted, not detected
WEAK_SCORE = 0.45

# a run of 9 to 14 digits, five and four digits joined by a dash, or a capital and eight
# digits; not glued to a word, a currency, a decimal or thousands separator, a path, an
# order number, a handle or a phone's "+"
_SHAPE = lazy_compile(
    r"(?<![\w$€£¥₹.,/#@+-])(?:[0-9]{9,14}|[0-9]{5}-[0-9]{4}|[A-Z][0-9]{8})(?![\w/@%-]|[.,]\d)"
)
# a word within the few words before the number that names another kind of number
_OTHER_BEFORE = lazy_compile(
    r"(?i)\b(?:order|orders|invoice|inv|po|tracking|shipment|parcel|awb|version|ver|build"
    r"|release|rev|revision|sku|item|part|product|model|serial|s/n|transaction|txn|trx"
    r"|ref|reference|timestamp|epoch|unix|port|pid|pages?|isbn|issn|doi|pmid|phone|tel"
    r"|telephone|mobile|cell|fax|whatsapp|sms|zip|zipcode|postal|postcode|amount|total"
    r"|balance|price|cost|fee|qty|quantity|usd|eur|gbp|inr|rs)\b[^;\n]{0,24}$"
)
# a unit or a currency right after it
_UNIT_AFTER = lazy_compile(
    r"\s?(?i:%|usd|eur|gbp|inr|dollars?|euros?|rupees?|bytes?|kb|mb|gb|tb|ms|ns"
    r"|secs?|seconds?|km|kg|lbs?|units?|rows?|records?|items?|views?|points?|pts)\b"
)
_BEFORE = 32  # characters looked at before the number


def weak_types(value: str) -> tuple[str, ...]:
    """Every entity type a shape without a label fits, its first reading first; ``()``
    for none (module docstring's table).

    Examples
    --------
    >>> weak_types("078051121")
    ('US_SSN', 'US_PASSPORT', 'US_DRIVER_LICENSE', 'US_BANK_NUMBER')
    >>> weak_types("91170-1234"), weak_types("A12803456")
    (('US_ITIN',), ('US_PASSPORT', 'US_DRIVER_LICENSE'))
    >>> weak_types("123456789"), weak_types("1234567901234")
    (('US_DRIVER_LICENSE', 'US_PASSPORT', 'US_BANK_NUMBER'), ('US_DRIVER_LICENSE', 'US_BANK_NUMBER'))
    >>> weak_types("02139-0000"), weak_types("000000000")
    ((), ())
    """
    if value[0].isalpha():
        return ("US_PASSPORT", "US_DRIVER_LICENSE") if len(set(value[1:])) > 1 else ()
    digits = value.replace("-", "")
    if len(set(digits)) == 1:
        return ()
    if len(digits) == 9:
        kind = ssn_kind(digits)
        if "-" in value:
            return () if kind is None else ("US_SSN" if kind == "ssn" else "US_ITIN",)
        if kind is None:
            return ("US_DRIVER_LICENSE", "US_PASSPORT", "US_BANK_NUMBER")
        first = "US_SSN" if kind == "ssn" else "US_ITIN"
        return (first, "US_PASSPORT", "US_DRIVER_LICENSE", "US_BANK_NUMBER")
    return ("US_DRIVER_LICENSE", "US_BANK_NUMBER")


def weak_type(value: str) -> str | None:
    """The entity type a shape without a label is reported as (its first reading), or
    ``None``.

    Examples
    --------
    >>> weak_type("078051121"), weak_type("91170-1234"), weak_type("123456789")
    ('US_SSN', 'US_ITIN', 'US_DRIVER_LICENSE')
    >>> weak_type("A12803456"), weak_type("1234567901234")
    ('US_PASSPORT', 'US_DRIVER_LICENSE')
    >>> weak_type("02139-0000"), weak_type("000000000"), weak_type("666123456")
    (None, None, 'US_DRIVER_LICENSE')
    """
    types = weak_types(value)
    return types[0] if types else None


@recognizers.register("weak_shapes")
class WeakShapeRecognizer(Recognizer):
    """Identifier shapes without a label at :data:`WEAK_SCORE` (module docstring).

    Examples
    --------
    >>> r = WeakShapeRecognizer()
    >>> text = "078051121 and 07805-1121, H12234567"
    >>> [(text[f.start:f.end], f.entity_type, f.score) for f in r.analyze(text)]
    [('078051121', 'US_SSN', 0.45), ('07805-1121', 'US_SSN', 0.45), ('H12234567', 'US_PASSPORT', 0.45)]
    >>> r.analyze("order 123456789, $250000000, v1.123456789, build 1234567890")
    []
    """

    name = "weak_shapes"
    entities = ("US_SSN", "US_ITIN", "US_PASSPORT", "US_DRIVER_LICENSE", "US_BANK_NUMBER")
    tier = 2
    needs_digit = True

    def analyze(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        if text_features(text).run < 5:  # every shape holds a run of at least five digits
            return out
        for m in _SHAPE.finditer(text):
            start, end = m.span()
            types = weak_types(m.group())
            if not types:
                continue
            if _OTHER_BEFORE.search(text, max(0, start - _BEFORE), start) is not None:
                continue
            if _UNIT_AFTER.match(text, end) is not None:
                continue
            out.append(
                Finding(
                    start,
                    end,
                    types[0],
                    WEAK_SCORE,
                    self.name,
                    self.tier,
                    Explanation(self.name, "shape", WEAK_SCORE, WEAK_SCORE, (), None, types[1:]),
                )
            )
        return out
