"""Business and account identifiers Presidio has no recognizer for, by their published rules.

* ``US_EIN``, a US employer identification number: ``dd-ddddddd`` whose two-digit prefix
  is one the IRS assigns (its list of campus prefixes; 00, 07-09, 17-19, 28, 29, 49, 69,
  70, 78, 79, 89, 96 and 97 are never issued). 0.95 after "EIN", "FEIN", "employer
  identification" or "tax id" (nine bare digits only there); 0.45 bare (the dashed 2-7
  layout is the EIN's own, but no check digit proves it).
* ``UPI_ID``, an Indian UPI virtual payment address ``name@handle`` (NPCI): the handle is
  a payment provider's, with no dot (an e-mail domain has one). 0.85 with a provider's
  known handle ("okaxis", "ybl", "paytm", ...), 0.75 with another handle after "UPI" or
  "VPA".
* ``IN_IFSC``, an Indian Financial System Code (RBI): four letters of the bank, a 0, six
  letters or digits of the branch. 1.0 after "IFSC", 0.45 bare.
* ``SWIFT_CODE``, a SWIFT/BIC (ISO 9362): four letters of the bank, an ISO 3166 country,
  two letters or digits of the place, an optional three of the branch; only after "SWIFT",
  "BIC" or "bank identifier" (eight capitals are as often a word: "BUSINESS"), at 0.8.
* ``USERNAME``: an @mention that is no e-mail address ("@jdoe", 0.6); user names after
  their label are :mod:`veil.text.recognition._usernames`'s.
"""

from __future__ import annotations

import re

from veil._lazy import lazy_compile
from veil.text.recognition._finding import Explanation, Finding
from veil.text.recognition._recognizer import Pattern, PatternRecognizer, Recognizer, recognizers
from veil.text.vocab._lexicon import common_words

__all__ = [
    "EIN_PREFIXES",
    "UPI_HANDLES",
    "EinRecognizer",
    "IfscRecognizer",
    "MentionRecognizer",
    "SwiftRecognizer",
    "UpiRecognizer",
    "ein_ok",
]

#: the EIN prefixes the IRS assigns (IRS, "How EINs are assigned and valid EIN prefixes")
EIN_PREFIXES = frozenset(
    f"{n:02d}"
    for n in (
        *range(1, 7), *range(10, 17), *range(20, 28), *range(30, 49), *range(50, 69),
        *range(71, 78), *range(80, 89), *range(90, 96), 98, 99,
    )
)  # fmt: skip


def ein_ok(value: str) -> bool:
    """An EIN's layout and an assigned prefix.

    >>> ein_ok("94-2841935"), ein_ok("07-2841935")
    (True, False)
    """
    v = value.replace(" ", "")
    return bool(re.fullmatch(r"\d{2}-?\d{7}", v)) and v[:2] in EIN_PREFIXES


@recognizers.register("us_ein")
class EinRecognizer(PatternRecognizer):
    """US employer identification numbers (see the module docstring)."""

    entity = "US_EIN"
    needs_digit = True
    patterns = (
        Pattern("ein_dashed", r"(?<![\w-])\d{2}-\d{7}(?![\w-])", 0.45),
        Pattern("ein_bare", r"(?<![\w-])\d{9}(?![\w-])", 0.45, context_required=True),
    )
    context = ("ein", "fein", "employer identification", "employer id", "tax id", "federal tax")
    context_boost = 0.5

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        return not ein_ok(value)


#: handles of UPI payment service providers (NPCI's list, the commonest)
UPI_HANDLES = frozenset(
    (
        "okaxis", "okhdfcbank", "okicici", "oksbi", "ybl", "ibl", "axl", "paytm", "ptyes",
        "ptaxis", "pthdfc", "ptsbi", "upi", "apl", "yapl", "rapl", "sbi", "icici", "hdfcbank",
        "axisbank", "kotak", "kmbl", "barodampay", "pnb", "boi", "cnrb", "unionbank", "idfcbank",
        "indus", "federal", "fbl", "rbl", "yesbank", "aubank", "jupiteraxis", "freecharge",
        "airtel", "jio", "mahb", "idbi", "citi", "hsbc", "sc", "dbs", "waaxis", "wahdfcbank",
        "wasbi", "waicici", "abfspay", "timecosmos", "slice", "naviaxis",
    )
)  # fmt: skip
_UPI = lazy_compile(
    r"(?<![\w.@+-])([A-Za-z0-9][\w.-]{1,255})@([A-Za-z][A-Za-z0-9]{1,63})(?![\w@]|\.\w)"
)
_UPI_WORD = lazy_compile(r"\b(?:upi|vpa|upi id|gpay|phonepe|bhim)\b", re.I)


@recognizers.register("upi_id")
class UpiRecognizer(Recognizer):
    """UPI virtual payment addresses (see the module docstring)."""

    name = "upi_id"
    entities = ("UPI_ID",)
    requires = "@"
    tier = 0

    def analyze(self, text: str) -> list[Finding]:
        if "@" not in text:
            return []
        out = []
        for m in _UPI.finditer(text):
            handle = m.group(2).lower()
            known = handle in UPI_HANDLES
            word = _UPI_WORD.search(text, max(0, m.start() - 40), m.start())
            if not known and word is None:
                continue
            score = 0.85 if known else 0.75
            words = (word.group(0).lower(),) if word else ()
            how = "known_handle" if known else "upi_word"
            out.append(
                Finding(
                    m.start(),
                    m.end(),
                    "UPI_ID",
                    score,
                    self.name,
                    self.tier,
                    Explanation(
                        self.name, how, score, score, words, "npci_handle" if known else None
                    ),
                )
            )
        return out


@recognizers.register("in_ifsc")
class IfscRecognizer(PatternRecognizer):
    """Indian Financial System Codes (see the module docstring)."""

    entity = "IN_IFSC"
    needs_digit = True
    tier = 0
    patterns = (Pattern("ifsc", r"(?<![\w-])[A-Z]{4}0[A-Z0-9]{6}(?![\w-])", 0.45),)
    context = ("ifsc", "ifsc code", "branch code", "neft", "rtgs", "imps")
    context_boost = 0.55


_ISO_COUNTRIES = frozenset(
    [
        "AD",
        "AE",
        "AF",
        "AG",
        "AI",
        "AL",
        "AM",
        "AO",
        "AR",
        "AS",
        "AT",
        "AU",
        "AW",
        "AX",
        "AZ",
        "BA",
        "BB",
        "BD",
        "BE",
        "BF",
        "BG",
        "BH",
        "BI",
        "BJ",
        "BL",
        "BM",
        "BN",
        "BO",
        "BR",
        "BS",
        "BT",
        "BW",
        "BY",
        "BZ",
        "CA",
        "CD",
        "CF",
        "CG",
        "CH",
        "CI",
        "CK",
        "CL",
        "CM",
        "CN",
        "CO",
        "CR",
        "CU",
        "CV",
        "CW",
        "CY",
        "CZ",
        "DE",
        "DJ",
        "DK",
        "DM",
        "DO",
        "DZ",
        "EC",
        "EE",
        "EG",
        "ER",
        "ES",
        "ET",
        "FI",
        "FJ",
        "FK",
        "FM",
        "FO",
        "FR",
        "GA",
        "GB",
        "GD",
        "GE",
        "GF",
        "GG",
        "GH",
        "GI",
        "GL",
        "GM",
        "GN",
        "GP",
        "GQ",
        "GR",
        "GT",
        "GU",
        "GW",
        "GY",
        "HK",
        "HN",
        "HR",
        "HT",
        "HU",
        "ID",
        "IE",
        "IL",
        "IM",
        "IN",
        "IQ",
        "IR",
        "IS",
        "IT",
        "JE",
        "JM",
        "JO",
        "JP",
        "KE",
        "KG",
        "KH",
        "KI",
        "KM",
        "KN",
        "KP",
        "KR",
        "KW",
        "KY",
        "KZ",
        "LA",
        "LB",
        "LC",
        "LI",
        "LK",
        "LR",
        "LS",
        "LT",
        "LU",
        "LV",
        "LY",
        "MA",
        "MC",
        "MD",
        "ME",
        "MF",
        "MG",
        "MH",
        "MK",
        "ML",
        "MM",
        "MN",
        "MO",
        "MP",
        "MQ",
        "MR",
        "MS",
        "MT",
        "MU",
        "MV",
        "MW",
        "MX",
        "MY",
        "MZ",
        "NA",
        "NC",
        "NE",
        "NF",
        "NG",
        "NI",
        "NL",
        "NO",
        "NP",
        "NR",
        "NU",
        "NZ",
        "OM",
        "PA",
        "PE",
        "PF",
        "PG",
        "PH",
        "PK",
        "PL",
        "PM",
        "PR",
        "PS",
        "PT",
        "PW",
        "PY",
        "QA",
        "RE",
        "RO",
        "RS",
        "RU",
        "RW",
        "SA",
        "SB",
        "SC",
        "SD",
        "SE",
        "SG",
        "SH",
        "SI",
        "SK",
        "SL",
        "SM",
        "SN",
        "SO",
        "SR",
        "SS",
        "ST",
        "SV",
        "SX",
        "SY",
        "SZ",
        "TC",
        "TD",
        "TG",
        "TH",
        "TJ",
        "TL",
        "TM",
        "TN",
        "TO",
        "TR",
        "TT",
        "TV",
        "TW",
        "TZ",
        "UA",
        "UG",
        "US",
        "UY",
        "UZ",
        "VA",
        "VC",
        "VE",
        "VG",
        "VI",
        "VN",
        "VU",
        "WF",
        "WS",
        "XK",
        "YE",
        "YT",
        "ZA",
        "ZM",
        "ZW",
    ]
)


@recognizers.register("swift_code")
class SwiftRecognizer(PatternRecognizer):
    """SWIFT/BIC codes after their word (see the module docstring)."""

    entity = "SWIFT_CODE"
    patterns = (
        Pattern("bic", r"(?<![\w-])[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?(?![\w-])", 0.4),
    )
    context = ("swift", "bic", "swift code", "swift/bic", "bank identifier", "bic code")
    context_required = True
    context_boost = 0.4

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        # a common English word in capitals ("BUSINESS") is no bank's code
        return value[4:6] not in _ISO_COUNTRIES or value.casefold() in common_words()


@recognizers.register("user_mention")
class MentionRecognizer(PatternRecognizer):
    """@mentions ("@jdoe42"); user names after their label are
    :class:`veil.text.recognition._usernames.UsernameRecognizer`'s."""

    entity = "USERNAME"
    patterns = (
        Pattern("mention", r"(?<![\w@.])@(?P<m>[A-Za-z][A-Za-z0-9_]{1,30})(?![\w@]|\.\w)", 0.6),
    )
