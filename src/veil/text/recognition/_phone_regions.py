"""Which countries' national phone notation a text is likely to use: its cues.

A national number ("09-7625400", "090-1234-5678", "13812345678") says nothing of its
country; the text around it often does: a country's name or people ("Israeli", "Japan"),
its ISO code as a word ("CN", "PH"), or its script (Hebrew, kana, Hangul, Han, Thai,
Turkish letters). :func:`cued_regions` ranks the regions so named, first cue first;
:data:`ANY_REGIONS` are the regions tried, after the cued ones, for a well-formed number
with no cue at all.
"""

from __future__ import annotations

import re

from veil._lazy import lazy_compile

__all__ = ["ANY_REGIONS", "amount_shaped", "cued_regions"]

_NAMES: dict[str, str] = {
    "america": "US", "american": "US", "usa": "US", "united states": "US",
    "britain": "GB", "british": "GB", "england": "GB", "united kingdom": "GB",
    "ireland": "IE", "irish": "IE", "canada": "CA", "canadian": "CA",
    "australia": "AU", "australian": "AU", "new zealand": "NZ",
    "india": "IN", "indian": "IN", "pakistan": "PK", "pakistani": "PK",
    "bangladesh": "BD", "south africa": "ZA", "nigeria": "NG", "nigerian": "NG",
    "kenya": "KE", "kenyan": "KE", "egypt": "EG", "egyptian": "EG",
    "germany": "DE", "german": "DE", "france": "FR", "french": "FR",
    "spain": "ES", "spanish": "ES", "italy": "IT", "italian": "IT",
    "netherlands": "NL", "dutch": "NL", "belgium": "BE", "belgian": "BE",
    "switzerland": "CH", "swiss": "CH", "austria": "AT", "austrian": "AT",
    "sweden": "SE", "swedish": "SE", "norway": "NO", "norwegian": "NO",
    "denmark": "DK", "danish": "DK", "finland": "FI", "finnish": "FI",
    "poland": "PL", "polish": "PL", "portugal": "PT", "portuguese": "PT",
    "greece": "GR", "greek": "GR", "russia": "RU", "russian": "RU",
    "ukraine": "UA", "ukrainian": "UA", "turkey": "TR", "turkish": "TR", "türkiye": "TR",
    "israel": "IL", "israeli": "IL", "uae": "AE", "emirates": "AE", "saudi": "SA",
    "brazil": "BR", "brazilian": "BR", "mexico": "MX", "mexican": "MX",
    "argentina": "AR", "argentinian": "AR", "colombia": "CO", "colombian": "CO",
    "chile": "CL", "chilean": "CL", "peru": "PE", "peruvian": "PE",
    "japan": "JP", "japanese": "JP", "china": "CN", "chinese": "CN",
    "hong kong": "HK", "taiwan": "TW", "taiwanese": "TW", "korea": "KR", "korean": "KR",
    "singapore": "SG", "singaporean": "SG", "malaysia": "MY", "malaysian": "MY",
    "indonesia": "ID", "indonesian": "ID", "philippines": "PH", "philippine": "PH",
    "filipino": "PH", "pinoy": "PH", "thailand": "TH", "thai": "TH",
    "vietnam": "VN", "vietnamese": "VN",
}  # fmt: skip
_NAME_RE = lazy_compile(
    r"\b(?:" + "|".join(sorted(map(re.escape, _NAMES), key=len, reverse=True)) + r")\b", re.I
)
# an ISO code written as a word of its own, upper case ("My CN number", "BR: +55 ...")
_CODE_RE = lazy_compile(r"(?<![\w.])([A-Z]{2})(?![\w.])")
_SCRIPTS = (
    (re.compile(r"[\u0590-\u05ff]"), "IL"),
    (re.compile(r"[\u3040-\u30ff]"), "JP"),
    (re.compile(r"[\uac00-\ud7af]"), "KR"),
    (re.compile(r"[\u4e00-\u9fff]"), "CN"),
    (re.compile(r"[\u0e00-\u0e7f]"), "TH"),
    (re.compile(r"[ğışĞİŞ]"), "TR"),
    (re.compile(r"[\u0400-\u04ff]"), "RU"),
)
# ISO codes that are also ordinary English words or abbreviations in upper case
_NOT_CODES = frozenset(
    (
        "US",
        "IT",
        "IN",
        "ID",
        "NO",
        "TO",
        "AT",
        "BE",
        "IS",
        "AM",
        "PM",
        "OR",
        "ME",
        "MY",
        "SO",
        "DO",
        "GO",
        "HI",
        "OK",
        "TV",
        "CV",
        "PA",
        "MD",
        "MA",
        "CO",
        "DE",
    )
)

#: Regions tried for a well-formed national number when no cue names one (ITU zones,
#: by population served).
ANY_REGIONS = (
    "US", "GB", "IN", "CN", "JP", "DE", "FR", "BR", "MX", "PH", "TR", "IL", "KR", "ID",
    "NG", "PK", "RU", "IT", "ES", "AU", "CA", "ZA", "EG", "VN", "TH", "PL", "NL", "AR",
    "CO", "SG", "MY", "AE", "SA", "SE", "CH", "BE", "AT", "IE", "NZ", "PT", "GR", "KE",
)  # fmt: skip


def cued_regions(text: str, supported: frozenset[str] | set[str]) -> list[str]:
    """Regions the text names, by their first mention; ``supported`` are the codes
    ``phonenumbers`` knows.

    Examples
    --------
    >>> cued_regions("My Israeli number is 09-7625400", {"IL", "US"})
    ['IL']
    >>> cued_regions("My CN number is 13812345678", {"CN"})
    ['CN']
    """
    hits: list[tuple[int, str]] = []
    for m in _NAME_RE.finditer(text):
        hits.append((m.start(), _NAMES[m.group(0).lower()]))
    for m in _CODE_RE.finditer(text):
        code = m.group(1)
        if code in supported and code not in _NOT_CODES:
            hits.append((m.start(), code))
    for rx, code in _SCRIPTS:
        script = rx.search(text)
        if script is not None:
            hits.append((script.start(), code))
    return list(dict.fromkeys(code for _, code in sorted(hits) if code in supported))


_AMOUNT_BEFORE = lazy_compile(
    r"(?:[$€£¥₹₩₺₱]|\b(?:usd|eur|gbp|inr|jpy|rs\.?|total|amount|price))\s*$", re.I
)
_AMOUNT_AFTER = lazy_compile(
    r"\s*(?:[$€£¥₹₩₺₱%]|(?:usd|eur|gbp|inr|jpy|dollars|euros|units|pcs|kg|km|m)\b)", re.I
)
_THOUSANDS = lazy_compile(r"\d{1,3}(?:([ .,])\d{3})(?:\1\d{3})*")


def amount_shaped(text: str, start: int, end: int) -> bool:
    """Whether a digit run reads as an amount or a quantity: thousands groups ("1 299 000"),
    a currency or unit beside it.

    >>> amount_shaped("total 1 299 000 EUR", 6, 15), amount_shaped("call 090-1234-5678", 5, 18)
    (True, False)
    """
    if _THOUSANDS.fullmatch(text, start, end):
        return True
    if _AMOUNT_BEFORE.search(text, max(0, start - 12), start):
        return True
    return _AMOUNT_AFTER.match(text, end) is not None
