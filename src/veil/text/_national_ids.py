"""National identity numbers outside the US, each checked by its published rule.

* ``ES_NIF`` (Spain's DNI number): eight digits and a control letter, the remainder of the
  number divided by 23 read in "TRWAGMYFPDXBNJZSQVHLCKE" (Real Decreto 1553/2005).
* ``ES_NIE`` (a foreigner's identity number): X, Y or Z (read as 0, 1, 2), seven digits and
  the same control letter.
* ``IT_FISCAL_CODE`` (codice fiscale, DM 23/12/1976): six letters of the name, the birth
  year, a month letter, the day (plus 40 for women), the place code and a check letter
  from the odd- and even-position tables; digits may be replaced by letters ("omocodia").
* ``PL_PESEL``: eleven digits, a birth date whose month carries the century, and a check
  digit of weights 1-3-7-9; near "PESEL" (eleven digits are a phone number's length too).
* ``FI_PERSONAL_IDENTITY_CODE`` (henkilötunnus): a birth date, a century sign, an
  individual number and a check character, the nine digits modulo 31 read in
  "0123456789ABCDEFHJKLMNPRSTUVWXY".
* ``IN_AADHAAR``: twelve digits, the first 2 to 9, with a Verhoeff check digit; near
  "Aadhaar" or "UID" (twelve digits are an account's length too).

Entity names follow Presidio's. A number that fails its rule is dropped; one that passes
scores 1.0.
"""

from __future__ import annotations

import datetime as _dt
import re

from veil.text._recognizer import Pattern, PatternRecognizer, recognizers

__all__ = [
    "AadhaarRecognizer",
    "FiscalCodeRecognizer",
    "HetuRecognizer",
    "NieRecognizer",
    "NifRecognizer",
    "PeselRecognizer",
    "aadhaar_ok",
    "fiscal_code_ok",
    "hetu_ok",
    "nie_ok",
    "nif_ok",
    "pesel_ok",
]

_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_SEPARATORS = re.compile(r"[ .-]")


def nif_ok(value: str) -> bool:
    """Spain's DNI control letter.

    Examples
    --------
    >>> nif_ok("12345678Z"), nif_ok("12345678A")
    (True, False)
    """
    v = _SEPARATORS.sub("", value).upper()
    if not re.fullmatch(r"\d{8}[A-Z]", v):
        return False
    return _DNI_LETTERS[int(v[:8]) % 23] == v[8]


def nie_ok(value: str) -> bool:
    """Spain's NIE: the first letter read as a digit, then the DNI control letter.

    Examples
    --------
    >>> nie_ok("X1234567L"), nie_ok("X1234567A")
    (True, False)
    """
    v = _SEPARATORS.sub("", value).upper()
    if not re.fullmatch(r"[XYZ]\d{7}[A-Z]", v):
        return False
    return nif_ok("XYZ".index(v[0]).__str__() + v[1:])


# the odd positions' values of the digits, then of the letters A to Z (DM 23/12/1976)
_CF_ODD_VALUES = (
    "1 0 5 7 9 13 15 17 19 21 1 0 5 7 9 13 15 17 19 21 2 4 18 20 11 3 6 8 12 14 16 10 22 25 24 23"
)
_CF_ODD = dict(
    zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", map(int, _CF_ODD_VALUES.split()), strict=True)
)
_CF_EVEN = {
    c: (int(c) if c.isdigit() else ord(c) - 65) for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
}
_CF_MONTHS = "ABCDEHLMPRST"
_CF_DIGIT_LETTERS = "LMNPQRSTUV"  # a digit replaced by a letter ("omocodia")
_CF_SHAPE = re.compile(
    r"[A-Z]{6}[\dLMNPQRSTUV]{2}[ABCDEHLMPRST][\dLMNPQRSTUV]{2}[A-Z][\dLMNPQRSTUV]{3}[A-Z]"
)


def fiscal_code_ok(value: str) -> bool:
    """Italy's codice fiscale: its shape, a real month letter and day, and its check letter.

    Examples
    --------
    >>> fiscal_code_ok("RSSMRA85T10A562S"), fiscal_code_ok("RSSMRA85T10A562T")
    (True, False)
    """
    v = value.upper()
    if not _CF_SHAPE.fullmatch(v):
        return False
    day = "".join(str(_CF_DIGIT_LETTERS.index(c)) if c.isalpha() else c for c in v[9:11])
    if not (1 <= int(day) <= 31 or 41 <= int(day) <= 71):
        return False
    total = sum(_CF_ODD[c] if i % 2 == 0 else _CF_EVEN[c] for i, c in enumerate(v[:15]))
    return chr(65 + total % 26) == v[15]


def _date_ok(year: int, month: int, day: int) -> bool:
    try:
        _dt.date(year, month, day)
    except ValueError:
        return False
    return True


def pesel_ok(value: str) -> bool:
    """Poland's PESEL: a real birth date (the month carries the century) and the check digit.

    Examples
    --------
    >>> pesel_ok("44051401359"), pesel_ok("44051401358")
    (True, False)
    """
    if not re.fullmatch(r"\d{11}", value):
        return False
    d = [int(c) for c in value]
    if (10 - sum(w * x for w, x in zip((1, 3, 7, 9) * 3, d[:10], strict=False)) % 10) % 10 != d[10]:
        return False
    month = d[2] * 10 + d[3]
    century = {0: 1900, 1: 2000, 2: 2100, 3: 2200, 4: 1800}[month // 20]
    return _date_ok(century + d[0] * 10 + d[1], month % 20, d[4] * 10 + d[5])


_HETU_CHECK = "0123456789ABCDEFHJKLMNPRSTUVWXY"
_HETU_CENTURY = {"+": 1800, **dict.fromkeys("-YXWVU", 1900), **dict.fromkeys("ABCDEF", 2000)}


def hetu_ok(value: str) -> bool:
    """Finland's henkilötunnus: a real birth date, a century sign, its check character.

    Examples
    --------
    >>> hetu_ok("131052-308T"), hetu_ok("131052-308U")
    (True, False)
    """
    v = value.upper()
    m = re.fullmatch(r"(\d{2})(\d{2})(\d{2})([-+A-FU-Y])(\d{3})([0-9A-Y])", v)
    if m is None:
        return False
    dd, mm, yy, sign, num, check = m.groups()
    if not _date_ok(_HETU_CENTURY[sign] + int(yy), int(mm), int(dd)) or num in ("000", "001"):
        return False
    return _HETU_CHECK[int(dd + mm + yy + num) % 31] == check


_VERHOEFF_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
    [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
    [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
_VERHOEFF_P = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
    [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
    [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
    [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
    [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
]


def aadhaar_ok(value: str) -> bool:
    """India's Aadhaar number: twelve digits, the first 2 to 9, a Verhoeff check digit.

    Examples
    --------
    >>> aadhaar_ok("2341 2341 2346"), aadhaar_ok("2341 2341 2345")
    (True, False)
    """
    v = _SEPARATORS.sub("", value)
    if not re.fullmatch(r"[2-9]\d{11}", v):
        return False
    c = 0
    for i, ch in enumerate(reversed(v)):
        c = _VERHOEFF_D[c][_VERHOEFF_P[i % 8][int(ch)]]
    return c == 0


@recognizers.register("es_nif")
class NifRecognizer(PatternRecognizer):
    """Spain's DNI number with its control letter (:func:`nif_ok`)."""

    entity = "ES_NIF"
    needs_digit = True
    tier = 0
    patterns = (Pattern("nif", r"(?<![\w-])\d{8}[ -]?[A-Za-z](?![\w-])", 0.5),)
    context = ("dni", "nif", "documento", "identidad", "id")
    checksum = ("mod23", nif_ok)


@recognizers.register("es_nie")
class NieRecognizer(PatternRecognizer):
    """Spain's NIE with its control letter (:func:`nie_ok`)."""

    entity = "ES_NIE"
    needs_digit = True
    tier = 0
    patterns = (Pattern("nie", r"(?<![\w-])[XYZxyz][ -]?\d{7}[ -]?[A-Za-z](?![\w-])", 0.5),)
    context = ("nie", "extranjero", "residencia")
    checksum = ("mod23", nie_ok)


@recognizers.register("it_fiscal_code")
class FiscalCodeRecognizer(PatternRecognizer):
    """Italy's codice fiscale with its check letter (:func:`fiscal_code_ok`)."""

    entity = "IT_FISCAL_CODE"
    needs_digit = True
    tier = 0
    patterns = (
        Pattern(
            "fiscal_code",
            r"(?<![\w-])[A-Za-z]{6}[\dLMNPQRSTUV]{2}[A-Za-z][\dLMNPQRSTUV]{2}[A-Za-z]"
            r"[\dLMNPQRSTUV]{3}[A-Za-z](?![\w-])",
            0.5,
        ),
    )
    context = ("codice fiscale", "cf", "fiscal code", "tax code")
    checksum = ("check_letter", fiscal_code_ok)


@recognizers.register("pl_pesel")
class PeselRecognizer(PatternRecognizer):
    """Poland's PESEL (:func:`pesel_ok`), near "PESEL"."""

    entity = "PL_PESEL"
    needs_digit = True
    tier = 0
    patterns = (Pattern("pesel", r"(?<![\w-])\d{11}(?![\w-])", 0.4),)
    context = ("pesel",)
    context_required = True
    checksum = ("weights_1379", pesel_ok)


@recognizers.register("fi_personal_identity_code")
class HetuRecognizer(PatternRecognizer):
    """Finland's henkilötunnus (:func:`hetu_ok`)."""

    entity = "FI_PERSONAL_IDENTITY_CODE"
    needs_digit = True
    tier = 0
    patterns = (Pattern("hetu", r"(?<![\w+-])\d{6}[-+A-FU-Ya-fu-y]\d{3}[0-9A-Ya-y](?![\w-])", 0.5),)
    context = ("henkilötunnus", "hetu", "sotu", "personal identity code")
    checksum = ("mod31", hetu_ok)


@recognizers.register("in_aadhaar")
class AadhaarRecognizer(PatternRecognizer):
    """India's Aadhaar number (:func:`aadhaar_ok`), near "Aadhaar" or "UID"."""

    entity = "IN_AADHAAR"
    needs_digit = True
    tier = 0
    patterns = (Pattern("aadhaar", r"(?<![\w-])[2-9]\d{3}([ -]?)\d{4}\1\d{4}(?![\w-])", 0.4),)
    context = ("aadhaar", "aadhar", "uid", "uidai")
    context_required = True
    checksum = ("verhoeff", aadhaar_ok)
