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
* ``UK_NINO`` (National Insurance number, HMRC's format): two prefix letters (not D, F, I,
  Q, U, V; the second not O; not BG, GB, KN, NK, NT, TN, ZZ), six digits, a suffix A to D;
  no check digit, so only near "national insurance", "NI number" or "NINO".
* ``AU_ABN`` (Australian Business Number): eleven digits, the first less one, weighted
  10-1-3-5-...-19, divisible by 89 (ATO); near "ABN".
* ``AU_TFN`` (Tax File Number): nine digits weighted 1-4-3-7-5-8-6-9-10, divisible by 11
  (ATO); near "TFN" or "tax file number".
* ``AU_MEDICARE``: ten digits (an eleventh, the card's issue number, may follow), the first
  2 to 6, the ninth a check digit of weights 1-3-7-9; near "Medicare".
* ``SG_NRIC_FIN``: S, T, F or G, seven digits and the check letter of weights
  2-7-6-5-4-3-2 and the series' letter table (the M series of 2022 is not read: its table
  is not verified here).

Entity names follow Presidio's. A number that fails its rule is dropped unless its context
word is near (then 0.45: announced, mistyped or synthetic); one that passes scores 1.0.
The rules that once needed their word (PESEL, Aadhaar, NINO, ABN, TFN, Medicare) now find a
bare passing value at 0.45 (:data:`veil.text.recognition._world_ids.STRONG`): below the detect threshold,
at the recall-first redaction threshold (0.45).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable
from dataclasses import dataclass

from veil._lazy import lazy_compile
from veil.text.recognition._recognizer import Pattern, recognizers
from veil.text.recognition._world_ids import STRONG, WEAK, WorldIdRecognizer

__all__ = [
    "RULES",
    "aadhaar_ok",
    "abn_ok",
    "fiscal_code_ok",
    "hetu_ok",
    "medicare_ok",
    "nie_ok",
    "nif_ok",
    "nino_ok",
    "nric_ok",
    "pesel_ok",
    "tfn_ok",
]

_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_SEPARATORS = lazy_compile(r"[ .-]")


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
    return nif_ok(str("XYZ".index(v[0])) + v[1:])


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
_CF_SHAPE = lazy_compile(
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


_NINO_FIRST = "ABCEGHJKLMNOPRSTWXYZ"
_NINO_SECOND = "ABCEGHJKLMNPRSTWXYZ"
_NINO_BANNED = frozenset(("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"))


def nino_ok(value: str) -> bool:
    """A UK National Insurance number's format (HMRC): prefix letters, six digits, suffix.

    Examples
    --------
    >>> nino_ok("AB 12 34 56 C"), nino_ok("QQ 12 34 56 C"), nino_ok("GB123456A")
    (True, False, False)
    """
    v = re.sub(r"\s", "", value).upper()
    if not re.fullmatch(r"[A-Z]{2}\d{6}[A-D]", v):
        return False
    return v[0] in _NINO_FIRST and v[1] in _NINO_SECOND and v[:2] not in _NINO_BANNED


def abn_ok(value: str) -> bool:
    """An Australian Business Number's check (ATO): weights, modulo 89.

    Examples
    --------
    >>> abn_ok("51 824 753 556"), abn_ok("51 824 753 557")
    (True, False)
    """
    v = re.sub(r"\s", "", value)
    if not re.fullmatch(r"\d{11}", v) or v[0] == "0":
        return False
    d = [int(c) for c in v]
    d[0] -= 1
    weights = (10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19)
    return sum(w * x for w, x in zip(weights, d, strict=True)) % 89 == 0


def tfn_ok(value: str) -> bool:
    """An Australian Tax File Number's check (ATO): weights, modulo 11.

    Examples
    --------
    >>> tfn_ok("123 456 782"), tfn_ok("123 456 789"), tfn_ok("000 000 000")
    (True, False, False)

    All zeros passes the sum but is no number the ATO issues (a placeholder).
    """
    v = re.sub(r"\s", "", value)
    if not re.fullmatch(r"\d{9}", v) or v == "000000000":
        return False
    weights = (1, 4, 3, 7, 5, 8, 6, 9, 10)
    return sum(w * int(x) for w, x in zip(weights, v, strict=True)) % 11 == 0


def medicare_ok(value: str) -> bool:
    """An Australian Medicare card number's check digit (the ninth digit).

    Examples
    --------
    >>> medicare_ok("2123 45670 1"), medicare_ok("2123 45671 1")
    (True, False)
    """
    v = re.sub(r"\s", "", value)
    if not re.fullmatch(r"[2-6]\d{9,10}", v):
        return False
    weights = (1, 3, 7, 9, 1, 3, 7, 9)
    return sum(w * int(x) for w, x in zip(weights, v[:8], strict=True)) % 10 == int(v[8])


# M-series FINs (issued from 2022) add 3 and read their own table (ICA's published rule)
_NRIC_LETTERS = {"ST": "JZIHGFEDCBA", "FG": "XWUTRQPNMLK", "M": "XWUTRQPNJLK"}
_NRIC_OFFSET = {"S": 0, "T": 4, "F": 0, "G": 4, "M": 3}


def nric_ok(value: str) -> bool:
    """Singapore's NRIC or FIN check letter.

    Examples
    --------
    >>> nric_ok("S1234567D"), nric_ok("S1234567A"), nric_ok("M1234567K")
    (True, False, True)
    """
    v = value.upper()
    if not re.fullmatch(r"[STFGM]\d{7}[A-Z]", v):
        return False
    weights = (2, 7, 6, 5, 4, 3, 2)
    total = sum(w * int(x) for w, x in zip(weights, v[1:8], strict=True)) + _NRIC_OFFSET[v[0]]
    table = next(t for k, t in _NRIC_LETTERS.items() if v[0] in k)
    return table[total % 11] == v[8]


@dataclass(frozen=True, slots=True)
class _Rule:
    """One national number: its recognizer's registry name, entity, regex, base score,
    context words (required or only a boost) and the rule that proves it."""

    name: str
    entity: str
    regex: str
    score: float
    context: tuple[str, ...]
    required: bool
    check: tuple[str, Callable[[str], bool]]
    bare: float = 1.0  # the score of a checked value with no context word near it


_OMO = r"[\dLMNPQRSTUV]"  # a codice fiscale's digit, or the letter that may replace it
RULES: tuple[_Rule, ...] = (
    _Rule("es_nif", "ES_NIF", r"(?<![\w-])\d{8}[ -]?[A-Za-z](?![\w-])", 0.5,
          ("dni", "nif", "documento", "identidad", "id"), False, ("mod23", nif_ok)),
    _Rule("es_nie", "ES_NIE", r"(?<![\w-])[XYZxyz][ -]?\d{7}[ -]?[A-Za-z](?![\w-])", 0.5,
          ("nie", "extranjero", "residencia"), False, ("mod23", nie_ok)),
    _Rule("it_fiscal_code", "IT_FISCAL_CODE",
          rf"(?<![\w-])[A-Za-z]{{6}}{_OMO}{{2}}[A-Za-z]{_OMO}{{2}}[A-Za-z]{_OMO}{{3}}[A-Za-z](?![\w-])",
          0.5, ("codice fiscale", "cf", "fiscal code", "tax code"), False,
          ("check_letter", fiscal_code_ok)),
    _Rule("pl_pesel", "PL_PESEL", r"(?<![\w-])\d{11}(?![\w-])", 0.4, ("pesel",), False,
          ("weights_1379", pesel_ok), STRONG),
    _Rule("fi_personal_identity_code", "FI_PERSONAL_IDENTITY_CODE",
          r"(?<![\w+-])\d{6}[-+A-FU-Ya-fu-y]\d{3}[0-9A-Ya-y](?![\w-])", 0.5,
          ("henkilötunnus", "hetu", "sotu", "personal identity code"), False, ("mod31", hetu_ok)),
    _Rule("in_aadhaar", "IN_AADHAAR", r"(?<![\w-])[2-9]\d{3}([ -]?)\d{4}\1\d{4}(?![\w-])", 0.4,
          ("aadhaar", "aadhar", "uid", "uidai"), False, ("verhoeff", aadhaar_ok), STRONG),
    _Rule("uk_nino", "UK_NINO",
          r"(?<![\w-])[A-Za-z]{2}[ ]?\d{2}[ ]?\d{2}[ ]?\d{2}[ ]?[A-Da-d](?![\w-])", 0.4,
          ("national insurance", "ni number", "ni no", "nino", "nin"), False,
          ("hmrc_format", nino_ok), WEAK),  # a format, no check digit: its word it needs
    _Rule("au_abn", "AU_ABN", r"(?<![\w-])\d{2}[ ]?\d{3}[ ]?\d{3}[ ]?\d{3}(?![\w-])", 0.4,
          ("abn", "australian business number"), False, ("mod89", abn_ok), STRONG),
    _Rule("au_tfn", "AU_TFN", r"(?<![\w-])\d{3}[ ]?\d{3}[ ]?\d{3}(?![\w-])", 0.4,
          ("tfn", "tax file number", "tax file no"), False, ("mod11", tfn_ok), STRONG),
    _Rule("au_medicare", "AU_MEDICARE",
          r"(?<![\w-])[2-6]\d{3}[ ]?\d{5}[ ]?\d(?:[ ]?\d)?(?![\w-])", 0.4, ("medicare",), False,
          ("weights_1379", medicare_ok), STRONG),
    _Rule("sg_nric_fin", "SG_NRIC_FIN", r"(?<![\w-])[STFGMstfgm]\d{7}[A-Za-z](?![\w-])", 0.5,
          ("nric", "fin", "ic number", "identity card"), False, ("check_letter", nric_ok)),
)  # fmt: skip


def _recognizer(rule: _Rule) -> type[WorldIdRecognizer]:
    """The pattern recognizer of one rule, registered under its name: its number's regex,
    the context words, and the rule as the checksum (a failed check drops a candidate, a
    passed one scores 1.0)."""
    cls = type(
        "".join(w.title() for w in rule.entity.split("_")) + "Recognizer",
        (WorldIdRecognizer,),
        {
            "__doc__": f"{rule.entity}: {(rule.check[1].__doc__ or '').splitlines()[0]}",
            "__module__": __name__,
            "entity": rule.entity,
            "needs_digit": True,
            "tier": 0,  # a checked number wins over a phone or date layout on its digits
            "patterns": (Pattern(rule.name, rule.regex, rule.score),),
            "context": rule.context,
            "context_required": rule.required,
            "checksum": rule.check,
            "bare_score": rule.bare,
        },
    )
    recognizers.register(rule.name)(cls)
    return cls


for _rule in RULES:
    _recognizer(_rule)
