"""Checksums and structural rules used by the validated recognizers.

Each function takes the candidate as text and answers from its digits and letters only.

Examples
--------
>>> luhn_ok("4111 1111 1111 1111"), luhn_ok("4111 1111 1111 1112")
(True, False)
>>> card_issuer("4111111111111111"), card_issuer("1234567812345678")
('visa', None)
>>> iban_ok("GB82 WEST 1234 5698 7654 32"), iban_ok("GB82 WEST 1234 5698 7654 33")
(True, False)
>>> aba_ok("011000015"), aba_ok("011000016")
(True, False)
>>> ssn_kind("536-22-1234"), ssn_kind("666-22-1234"), ssn_kind("912-72-1234")
('ssn', None, 'itin')
>>> nhs_ok("943 476 5919"), nhs_ok("943 476 5918")
(True, False)
>>> dea_ok("AB1234563"), dea_ok("AB1234564")
(True, False)
>>> bitcoin_ok("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2"), bitcoin_ok("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3")
(True, False)
>>> bitcoin_ok("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq")
True
"""

from __future__ import annotations

import hashlib

__all__ = [
    "IBAN_LENGTHS",
    "aba_ok",
    "bitcoin_ok",
    "card_issuer",
    "dea_ok",
    "digits",
    "iban_ok",
    "luhn_ok",
    "nhs_ok",
    "ssn_kind",
]


def digits(value: str) -> str:
    return "".join(ch for ch in value if ch.isdigit())


def luhn_ok(value: str) -> bool:
    ds = digits(value)
    if len(ds) < 2:
        return False
    total = 0
    for i, ch in enumerate(reversed(ds)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


# (issuer, prefix ranges as (low, high) over the first len(low) digits, allowed lengths)
_ISSUERS: tuple[tuple[str, tuple[tuple[str, str], ...], frozenset[int]], ...] = (
    ("amex", (("34", "34"), ("37", "37")), frozenset({15})),
    ("visa", (("4", "4"),), frozenset({13, 16, 19})),
    ("mastercard", (("51", "55"), ("2221", "2720")), frozenset({16})),
    ("discover", (("6011", "6011"), ("644", "649"), ("65", "65")), frozenset({16, 17, 18, 19})),
    ("unionpay", (("62", "62"),), frozenset({16, 17, 18, 19})),
    ("diners", (("300", "305"), ("36", "36"), ("38", "39")), frozenset({14, 15, 16, 17, 18, 19})),
    ("jcb", (("3500", "3589"),), frozenset({16, 17, 18, 19})),
    ("jcb", (("2131", "2131"), ("1800", "1800")), frozenset({15})),
    ("dankort", (("5019", "5019"),), frozenset({16})),
    ("uatp", (("1", "1"),), frozenset({15})),
    (
        "maestro",
        (
            ("5018", "5018"),
            ("5020", "5020"),
            ("5038", "5038"),
            ("5893", "5893"),
            ("6304", "6304"),
            ("6759", "6759"),
            ("6761", "6763"),
            ("6771", "6771"),
        ),
        frozenset(range(12, 20)),
    ),
)


def card_issuer(value: str) -> str | None:
    """The card network whose prefix and length ``value`` has, or ``None``."""
    ds = digits(value)
    for issuer, ranges, lengths in _ISSUERS:
        if len(ds) not in lengths:
            continue
        for low, high in ranges:
            head = ds[: len(low)]
            if low <= head <= high:
                return issuer
    return None


IBAN_LENGTHS: dict[str, int] = dict(
    (cc, int(n))
    for cc, n in (
        item.split(":")
        for item in [
            "AD:24",
            "AE:23",
            "AL:28",
            "AT:20",
            "AZ:28",
            "BA:20",
            "BE:16",
            "BG:22",
            "BH:22",
            "BI:27",
            "BR:29",
            "BY:28",
            "CH:21",
            "CR:22",
            "CY:28",
            "CZ:24",
            "DE:22",
            "DJ:27",
            "DK:18",
            "DO:28",
            "EE:20",
            "EG:29",
            "ES:24",
            "FI:18",
            "FK:18",
            "FO:18",
            "FR:27",
            "GB:22",
            "GE:22",
            "GI:23",
            "GL:18",
            "GR:27",
            "GT:28",
            "HR:21",
            "HU:28",
            "IE:22",
            "IL:23",
            "IQ:23",
            "IS:26",
            "IT:27",
            "JO:30",
            "KW:30",
            "KZ:20",
            "LB:28",
            "LC:32",
            "LI:21",
            "LT:20",
            "LU:20",
            "LV:21",
            "LY:25",
            "MC:27",
            "MD:24",
            "ME:22",
            "MK:19",
            "MN:20",
            "MR:27",
            "MT:31",
            "MU:30",
            "NI:28",
            "NL:18",
            "NO:15",
            "OM:23",
            "PK:24",
            "PL:28",
            "PS:29",
            "PT:25",
            "QA:29",
            "RO:24",
            "RS:22",
            "RU:33",
            "SA:24",
            "SC:31",
            "SD:18",
            "SE:24",
            "SI:19",
            "SK:24",
            "SM:27",
            "SO:23",
            "ST:25",
            "SV:28",
            "TL:23",
            "TN:24",
            "TR:26",
            "UA:29",
            "VA:22",
            "VG:24",
            "XK:20",
        ]
    )
)


def iban_ok(value: str) -> bool:
    """ISO 13616: country length table and the mod-97 check."""
    s = "".join(ch for ch in value if ch.isalnum()).upper()
    if len(s) < 15 or IBAN_LENGTHS.get(s[:2]) != len(s) or not s[2:4].isdigit():
        return False
    if not 2 <= int(s[2:4]) <= 98:  # ISO 7064 check digits are never 00, 01 or 99
        return False
    rearranged = s[4:] + s[:4]
    num = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(num) % 97 == 1


_ABA_PREFIXES = {f"{i:02d}" for i in (*range(0, 13), *range(21, 33), *range(61, 73), 80)}


def aba_ok(value: str) -> bool:
    """ABA routing number: Federal Reserve prefix and the 3-7-1 checksum."""
    ds = digits(value)
    if len(ds) != 9 or ds[:2] not in _ABA_PREFIXES or len(set(ds)) == 1:
        return False
    d = [int(c) for c in ds]
    total = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8])
    return total % 10 == 0


_ITIN_GROUPS = {*range(50, 66), *range(70, 89), 90, 91, 92, *range(94, 100)}
_SSN_BLOCKED = {"078051120", "219099999", "123456789", "987654321"}


def ssn_kind(value: str) -> str | None:
    """``"ssn"`` or ``"itin"`` when the SSA numbering rules allow the value, else ``None``.

    SSN: area 001-899 except 666, group 01-99, serial 0001-9999 (publicised and
    sequential numbers are refused). ITIN: area 9xx with a group in the IRS ranges.
    """
    ds = digits(value)
    if len(ds) != 9 or len(set(ds)) == 1 or ds in _SSN_BLOCKED:
        return None
    area, group, serial = int(ds[:3]), int(ds[3:5]), int(ds[5:])
    if serial == 0:
        return None
    if area >= 900:
        return "itin" if group in _ITIN_GROUPS else None
    if area == 0 or area == 666 or group == 0:
        return None
    return "ssn"


def nhs_ok(value: str) -> bool:
    """NHS number (England, Wales, Isle of Man): ten digits, the last a modulus-11 check of
    the first nine weighted 10 down to 2; a remainder giving 10 is never issued."""
    ds = digits(value)
    if len(ds) != 10 or len(set(ds)) == 1:
        return False
    total = sum(int(d) * w for d, w in zip(ds[:9], range(10, 1, -1), strict=True))
    check = 11 - total % 11
    if check == 11:
        check = 0
    return check != 10 and check == int(ds[9])


DEA_REGISTRANTS = "ABCDEFGHJKLMPRSTUX"  # registrant types of the US DEA's numbering


def dea_ok(value: str) -> bool:
    """US DEA registration number: a registrant-type letter, a letter (the registrant's
    surname initial, or 9), seven digits; the last is the ones digit of the first, third
    and fifth plus twice the second, fourth and sixth."""
    v = value.strip().upper()
    if len(v) != 9 or v[0] not in DEA_REGISTRANTS or not (v[1].isalpha() or v[1] == "9"):
        return False
    if not v[2:].isdigit():
        return False
    d = [int(c) for c in v[2:]]
    return (d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10 == d[6]


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _base58check_ok(value: str) -> bool:
    n = 0
    for ch in value:
        i = _B58.find(ch)
        if i < 0:
            return False
        n = n * 58 + i
    raw = n.to_bytes(25, "big") if n.bit_length() <= 200 else b""
    if len(raw) != 25 or raw[0] not in (0x00, 0x05):  # P2PKH, P2SH
        return False
    if len(value) - len(value.lstrip("1")) != len(raw) - len(raw.lstrip(b"\0")):
        return False  # leading "1"s stand for leading zero bytes, and only those
    # Bitcoin's own check (double SHA-256 of the version and payload, BIP 13): it
    # verifies the address; it does not pseudonymise anything, so no key belongs here
    check = hashlib.sha256(hashlib.sha256(raw[:21]).digest()).digest()[:4]
    return raw[21:] == check


def _bech32_polymod(values: list[int]) -> int:
    gen = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if (top >> i) & 1 else 0
    return chk


def _segwit_ok(value: str) -> bool:
    if value.lower() != value and value.upper() != value:
        return False  # BIP 173: one case throughout
    v = value.lower()
    hrp, sep, data = v.rpartition("1")
    if hrp != "bc" or not sep or not 6 <= len(data) <= 87:
        return False
    values = [_BECH32.find(c) for c in data]
    if -1 in values:
        return False
    hrp_expanded = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    const = _bech32_polymod(hrp_expanded + values)
    witness_version = values[0]
    # BIP 173 (bech32, version 0) and BIP 350 (bech32m, versions 1-16)
    return const == (1 if witness_version == 0 else 0x2BC830A3) and witness_version <= 16


def bitcoin_ok(value: str) -> bool:
    """A Bitcoin address with a valid checksum: base58check (P2PKH "1...", P2SH "3...") or
    bech32/bech32m (SegWit "bc1...")."""
    if value[:3].lower() == "bc1":
        return _segwit_ok(value)
    return _base58check_ok(value)
