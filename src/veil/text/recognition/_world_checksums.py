"""Check-digit rules of national and business numbers, each as its issuer publishes it.

Every function takes the value as written (spaces, dots, dashes and slashes are ignored)
and says whether its shape and check digit hold. Used by :mod:`veil.text.recognition._world_ids`.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections import Counter

from veil._lazy import lazy_compile
from veil.text.recognition._checksums import luhn_ok

__all__ = [
    "acn_ok",
    "de_kvnr_ok",
    "de_lanr_ok",
    "de_rvnr_ok",
    "de_tax_id_ok",
    "de_vat_ok",
    "gstin_ok",
    "icao_ok",
    "it_vat_ok",
    "kr_brn_ok",
    "kr_frn_ok",
    "kr_rrn_ok",
    "ng_nin_ok",
    "npi_ok",
    "ph_tin_ok",
    "se_org_ok",
    "se_pnr_ok",
    "sin_ok",
    "th_tnin_ok",
    "tr_id_ok",
    "verhoeff_ok",
    "za_id_ok",
]

_SEP = lazy_compile(r"[\s./-]")


def _clean(value: str) -> str:
    return _SEP.sub("", value).upper()


def _date_ok(year: int, month: int, day: int) -> bool:
    try:
        _dt.date(year, month, day)
    except ValueError:
        return False
    return True


def sin_ok(value: str) -> bool:
    """Canada's Social Insurance Number: nine digits, not starting 0 or 8, Luhn (ESDC).

    >>> sin_ok("046 454 286"), sin_ok("130 692 544"), sin_ok("130 692 545")
    (False, True, False)
    """
    v = _clean(value)
    return bool(re.fullmatch(r"[1-79]\d{8}", v)) and luhn_ok(v)


def acn_ok(value: str) -> bool:
    """An Australian Company Number (ASIC): weights 8 to 1, the complement of the sum mod 10.

    >>> acn_ok("004 085 616"), acn_ok("004 085 617")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"\d{9}", v):
        return False
    s = sum(int(c) * w for c, w in zip(v[:8], range(8, 0, -1), strict=True))
    return (10 - s % 10) % 10 == int(v[8])


def _mod11_10(d: str) -> int:
    """ISO 7064 MOD 11,10 check digit of a digit string."""
    product = 10
    for c in d:
        total = (int(c) + product) % 10 or 10
        product = (total * 2) % 11
    check = 11 - product
    return 0 if check == 10 else check


def de_tax_id_ok(value: str) -> bool:
    """Germany's Steuer-Identifikationsnummer (BZSt): eleven digits, no leading 0, no digit
    more than three times in the first ten, ISO 7064 MOD 11,10.

    >>> de_tax_id_ok("65929970489"), de_tax_id_ok("65929970488")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"[1-9]\d{10}", v):
        return False
    if max(Counter(v[:10]).values()) > 3:
        return False
    return _mod11_10(v[:10]) == int(v[10])


def de_vat_ok(value: str) -> bool:
    """A German VAT id (USt-IdNr): DE, nine digits, ISO 7064 MOD 11,10 on the first eight.

    >>> de_vat_ok("DE136695976"), de_vat_ok("DE136695977")
    (True, False)
    """
    v = _clean(value)
    return bool(re.fullmatch(r"DE\d{9}", v)) and _mod11_10(v[2:10]) == int(v[10])


def de_lanr_ok(value: str) -> bool:
    """A German physician's number (LANR, KBV): six digits, a check digit of weights 4-9,
    two digits of the specialty.

    >>> de_lanr_ok("123456601"), de_lanr_ok("123456701")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"\d{9}", v):
        return False
    s = sum(int(c) * w for c, w in zip(v[:6], (4, 9, 4, 9, 4, 9), strict=True))
    return (10 - s % 10) % 10 == int(v[6])


def _digit_sum(n: int) -> int:
    return n // 10 + n % 10


def de_kvnr_ok(value: str) -> bool:
    """A German health insurance number (KVNR, GKV-Spitzenverband): a letter and nine digits;
    the letter as two digits (A = 01), weights 1-2 alternating, digit sums, mod 10.

    >>> de_kvnr_ok("A123456780"), de_kvnr_ok("A123456781")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"[A-Z]\d{9}", v):
        return False
    d = f"{ord(v[0]) - 64:02d}" + v[1:9]
    s = sum(_digit_sum(int(c) * (1 if i % 2 == 0 else 2)) for i, c in enumerate(d))
    return s % 10 == int(v[9])


def de_rvnr_ok(value: str) -> bool:
    """A German pension insurance number (Rentenversicherungsnummer, DRV): area, birth date,
    surname letter, serial and a check digit of weights 2-1-2-5-7-1-2-1-2-1-2-1.

    >>> de_rvnr_ok("65170839J003"), de_rvnr_ok("65170839J004")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"\d{8}[A-Z]\d{3}", v):
        return False
    day, month = int(v[2:4]), int(v[4:6])
    if day > 50:
        day -= 50
    if not (1 <= day <= 31 and 1 <= month <= 12):
        return False
    d = v[:8] + f"{ord(v[8]) - 64:02d}" + v[9:11]
    weights = (2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1)
    s = sum(_digit_sum(int(c) * w) for c, w in zip(d, weights, strict=True))
    return s % 10 == int(v[11])


def icao_ok(value: str) -> bool:
    """A document number ending in its ICAO 9303 check digit (weights 7-3-1; letters A = 10).

    >>> icao_ok("C01X00T41"), icao_ok("C01X00T42")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"[A-Z0-9]{5,}\d", v):
        return False
    s = sum(
        (int(c) if c.isdigit() else ord(c) - 55) * (7, 3, 1)[i % 3] for i, c in enumerate(v[:-1])
    )
    return s % 10 == int(v[-1])


_B36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def gstin_ok(value: str) -> bool:
    """India's GSTIN (GSTN): state code, PAN, entity number, Z and a base-36 check character.

    >>> gstin_ok("27AAPFU0939F1ZV"), gstin_ok("27AAPFU0939F1ZW")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"\d{2}[A-Z]{5}\d{4}[A-Z][0-9A-Z]Z[0-9A-Z]", v):
        return False
    s = 0
    for i, c in enumerate(v[:14]):
        p = _B36.index(c) * (2 if i % 2 else 1)
        s += p // 36 + p % 36
    return _B36[(36 - s % 36) % 36] == v[14]


def it_vat_ok(value: str) -> bool:
    """Italy's partita IVA: eleven digits, Luhn (DPR 633/1972).

    >>> it_vat_ok("07643520567"), it_vat_ok("07643520568")
    (True, False)
    """
    v = _clean(value)
    return bool(re.fullmatch(r"\d{11}", v)) and v[:7] != "0000000" and luhn_ok(v)


def _kr_date_ok(v: str, century_digit: str) -> bool:
    century = {"1": 1900, "2": 1900, "3": 2000, "4": 2000, "5": 1900, "6": 1900}.get(
        century_digit, 2000
    )
    return _date_ok(century + int(v[:2]), int(v[2:4]), int(v[4:6]))


def _kr_sum(v: str) -> int:
    return sum(
        int(c) * w for c, w in zip(v[:12], (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5), strict=True)
    )


def kr_rrn_ok(value: str) -> bool:
    """Korea's resident registration number: birth date, a 1-4 sex digit, weights 2-9,
    (11 - sum mod 11) mod 10 (numbers issued before October 2020).

    >>> kr_rrn_ok("900101-1234568"), kr_rrn_ok("900101-1234567")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"\d{6}[1-4]\d{6}", v) or not _kr_date_ok(v, v[6]):
        return False
    return (11 - _kr_sum(v) % 11) % 10 == int(v[12])


def kr_frn_ok(value: str) -> bool:
    """Korea's foreigner registration number: as the RRN with a 5-8 sex digit and
    (13 - sum mod 11) mod 10.

    >>> kr_frn_ok("900101-5234561"), kr_frn_ok("900101-5234562")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"\d{6}[5-8]\d{6}", v) or not _kr_date_ok(v, v[6]):
        return False
    return (13 - _kr_sum(v) % 11) % 10 == int(v[12])


def kr_brn_ok(value: str) -> bool:
    """Korea's business registration number (NTS): weights 1-3-7-1-3-7-1-3-5 and the
    ninth digit's five times divided by ten.

    >>> kr_brn_ok("220-81-62517"), kr_brn_ok("220-81-62518")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"\d{10}", v):
        return False
    d = [int(c) for c in v]
    s = sum(x * w for x, w in zip(d[:9], (1, 3, 7, 1, 3, 7, 1, 3, 5), strict=True))
    s += d[8] * 5 // 10
    return (10 - s % 10) % 10 == d[9]


def se_pnr_ok(value: str) -> bool:
    """Sweden's personnummer or samordningsnummer (day + 60): a birth date and Luhn on
    the ten-digit form (Skatteverket).

    >>> se_pnr_ok("811218-9876"), se_pnr_ok("811218-9877")
    (True, False)
    """
    v = re.sub(r"[\s+-]", "", value)
    if not re.fullmatch(r"\d{10}|\d{12}", v):
        return False
    if len(v) == 12:
        if v[:2] not in ("18", "19", "20"):
            return False
        year = int(v[:4])
        v = v[2:]
    else:
        year = 1900 + int(v[:2])
        if not _date_ok(year, int(v[2:4]), max(1, int(v[4:6]) % 60)):
            year += 100
    day = int(v[4:6])
    day = day - 60 if day > 60 else day
    return _date_ok(year, int(v[2:4]), day) and luhn_ok(v)


def se_org_ok(value: str) -> bool:
    """Sweden's organisationsnummer (Bolagsverket): ten digits, the third at least 2, Luhn.

    >>> se_org_ok("556036-0793"), se_org_ok("556036-0794")
    (True, False)
    """
    v = re.sub(r"[\s-]", "", value)
    return bool(re.fullmatch(r"\d{2}[2-9]\d{7}", v)) and luhn_ok(v)


def th_tnin_ok(value: str) -> bool:
    """Thailand's national id: thirteen digits, weights 13 to 2, (11 - sum mod 11) mod 10.

    >>> th_tnin_ok("1101700230708"), th_tnin_ok("1101700230709")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"[1-8]\d{12}", v):
        return False
    s = sum(int(c) * (13 - i) for i, c in enumerate(v[:12]))
    return (11 - s % 11) % 10 == int(v[12])


def tr_id_ok(value: str) -> bool:
    """Turkey's T.C. Kimlik No: eleven digits, no leading 0, two check digits (NVİ).

    >>> tr_id_ok("10000000146"), tr_id_ok("10000000147")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"[1-9]\d{10}", v):
        return False
    d = [int(c) for c in v]
    if ((sum(d[0:9:2]) * 7 - sum(d[1:8:2])) % 10) != d[9]:
        return False
    return sum(d[:10]) % 10 == d[10]


def za_id_ok(value: str) -> bool:
    """South Africa's identity number: a birth date, a serial, citizenship 0-2 and Luhn.

    >>> za_id_ok("8001015009087"), za_id_ok("8001015009088")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"\d{10}[0-2]\d{2}", v):
        return False
    mm, dd = int(v[2:4]), int(v[4:6])
    return _date_ok(2000, mm, dd) and luhn_ok(v)


def npi_ok(value: str) -> bool:
    """A US National Provider Identifier (CMS): ten digits from 1 or 2, Luhn with the
    80840 prefix.

    >>> npi_ok("1234567893"), npi_ok("1234567894")
    (True, False)
    """
    v = _clean(value)
    return bool(re.fullmatch(r"[12]\d{9}", v)) and luhn_ok("80840" + v)


_VD = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5), (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
    (3, 4, 0, 1, 2, 8, 9, 5, 6, 7), (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3), (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
    (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)  # fmt: skip
_VP = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4), (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
    (8, 9, 1, 6, 0, 4, 3, 5, 2, 7), (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)  # fmt: skip


def verhoeff_ok(value: str) -> bool:
    """The Verhoeff check over a digit string.

    >>> verhoeff_ok("2363"), verhoeff_ok("2364")
    (True, False)
    """
    c = 0
    for i, ch in enumerate(reversed(value)):
        c = _VD[c][_VP[i % 8][int(ch)]]
    return c == 0


def ng_nin_ok(value: str) -> bool:
    """Nigeria's National Identification Number (NIMC): eleven digits, Verhoeff.

    >>> ng_nin_ok("12345678902"), ng_nin_ok("12345678903")
    (True, False)
    """
    v = _clean(value)
    return bool(re.fullmatch(r"\d{11}", v)) and verhoeff_ok(v)


def ph_tin_ok(value: str) -> bool:
    """The Philippines' TIN (BIR): nine digits (a three-digit branch may follow), weights
    9 to 2, the sum mod 11 is the ninth digit.

    >>> ph_tin_ok("123-456-782"), ph_tin_ok("123-456-783")
    (True, False)
    """
    v = _clean(value)
    if not re.fullmatch(r"\d{9}(?:\d{3})?", v):
        return False
    s = sum(int(c) * w for c, w in zip(v[:8], range(9, 1, -1), strict=True))
    return s % 11 == int(v[8])
