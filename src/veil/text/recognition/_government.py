"""Government and medical identifiers: US SSN / ITIN, passports, driver licences, MRNs,
UK NHS numbers, US DEA registration numbers.

SSN and ITIN follow the SSA/IRS numbering rules (:func:`veil.text.recognition._checksums.ssn_kind`).
Passport, driver-licence and medical-record numbers have no checksum; they are reported
only with a context word nearby ("passport", "driver's license", "MRN"). NHS and DEA
numbers have a check digit and a context word too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from veil.text.recognition._checksums import DEA_REGISTRANTS, dea_ok, nhs_ok, ssn_kind
from veil.text.recognition._recognizer import Pattern, PatternRecognizer, recognizers
from veil.text.recognition._world_ids import WorldIdRecognizer

__all__ = [
    "DriverLicenseRecognizer",
    "ItinRecognizer",
    "LabelledSsnRecognizer",
    "MedicalLicenseRecognizer",
    "MedicalRecordRecognizer",
    "NhsRecognizer",
    "PassportRecognizer",
    "SsnRecognizer",
]

_SSN_PATTERNS = (
    Pattern("ssn_dashed", r"(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])", 0.85),
    Pattern("ssn_spaced", r"(?<![\w-])\d{3} \d{2} \d{4}(?![\w-])", 0.6),
    # "078.05.1123": dots as some forms print it; not inside an IP address or a version
    Pattern("ssn_dotted", r"(?<![\w.-])\d{3}\.\d{2}\.\d{4}(?![\w-]|\.\d)", 0.5),
    # one dash left out ("078-051121", "07805-1121"): a mistyped SSN, for a recall-first
    # redaction only
    Pattern("ssn_one_dash", r"(?<![\w-])\d{3}-\d{6}(?![\w-])", 0.45),
    # 5-4 is a ZIP+4 code's layout too: only with the number's word near
    Pattern("ssn_zip_layout", r"(?<![\w-])\d{5}-\d{4}(?![\w-])", 0.35, context_required=True),
    # nine bare digits: below the default threshold unless a context word is near
    Pattern("ssn_bare", r"(?<![\w-])\d{9}(?![\w-])", 0.3),
)


@recognizers.register("us_ssn")
class SsnRecognizer(PatternRecognizer):
    """US Social Security numbers; area/group/serial rules checked, ITIN areas excluded."""

    entity = "US_SSN"
    needs_digit = True
    patterns = _SSN_PATTERNS
    context = ("ssn", "social security", "ss#", "ssn#", "social")

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        return ssn_kind(value) != "ssn"


# "SSN", "SSN:", "SSN#", "SSN no.", "social security number", "SSN on file", "SSN is" just
# before the number: the writer says it is an SSN, so the numbering rules do not decide
_SSN_LABEL = (
    r"(?:\b(?:SSN|SSNs|ssn|Ssn|SS#|S\.S\.N\.?)|[Ss]ocial [Ss]ecurity(?: [Nn](?:umber|o\.?))?)"
    r"(?:\s*(?:#|[Nn]o\.?|[Nn]umber))?\s*[:=#-]?\s*"
    r"(?:(?:on file|is|was|of|:)\s*){0,2}"
)


@recognizers.register("us_ssn_labelled")
class LabelledSsnRecognizer(PatternRecognizer):
    """An SSN-shaped number right after an "SSN" label, even one the SSA rules refuse.

    Advertising and publicised numbers (078-05-1120, 219-09-9999) and areas 000, 666 and
    9xx are never issued, so :class:`SsnRecognizer` drops them; written after "SSN" they are
    still what the writer gave as a person's SSN (mistyped, made up for a form, or real
    data with a typo) and are replaced, with a lower score.
    """

    entity = "US_SSN"
    needs_digit = True
    patterns = (
        Pattern(
            "ssn_labelled",
            _SSN_LABEL
            + r"(?<![\w-])(\d{3}-\d{2}-\d{4}|\d{3} \d{2} \d{4}|\d{3}\.\d{2}\.\d{4}|\d{9})(?![\w-])",
            0.6,
            group=1,
        ),
    )

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        return ssn_kind(value) == "ssn"  # a valid one is SsnRecognizer's, at its score


@recognizers.register("us_itin")
class ItinRecognizer(PatternRecognizer):
    """US Individual Taxpayer Identification Numbers (9xx-[50-65,70-88,90-92,94-99]-xxxx)."""

    entity = "US_ITIN"
    needs_digit = True
    patterns = _SSN_PATTERNS
    context = ("itin", "taxpayer", "tax id", "tin")

    def invalidate(self, value: str, text: str, start: int, end: int) -> bool:
        return ssn_kind(value) != "itin"


@recognizers.register("us_passport")
class PassportRecognizer(PatternRecognizer):
    """US passport numbers (9 digits, or a letter and 8 digits) near the word passport."""

    entity = "US_PASSPORT"
    needs_digit = True
    patterns = (Pattern("passport", r"(?<![\w-])[A-Z]?\d{8,9}(?![\w-])", 0.5),)
    context = ("passport", "passport no", "passport number", "travel document")
    context_required = True


@recognizers.register("us_driver_license")
class DriverLicenseRecognizer(PatternRecognizer):
    """US driver-licence numbers in the common state formats, near a licence context word.

    The shapes: one or two letters then 5 to 14 digits (New Jersey's is a letter and 14
    digits, Wisconsin's a letter and 13, Florida's and Maryland's a letter and 12), New
    Jersey's printed groups (``D1234 56789 01234``), the dashed forms printed in Wisconsin,
    Florida and Maryland, the spaced groups of New York and Michigan, Washington's ``WDL``
    numbers, and 7 to 12 digits. None counts without a licence word before it.
    """

    entity = "US_DRIVER_LICENSE"
    needs_digit = True
    patterns = (
        Pattern("dl_letters_digits", r"(?<![\w-])[A-Z]{1,2}\d{5,14}(?![\w-])", 0.45),
        Pattern("dl_nj_groups", r"(?<![\w-])[A-Z]\d{4} \d{5} \d{5}(?![\w-])", 0.45),
        Pattern("dl_digits", r"(?<![\w-])\d{7,12}(?![\w-])", 0.35),
        # printed with dashes: Wisconsin "A123-4567-8901-23", Florida "A123-456-78-901-0",
        # Maryland "K-123-456-789-012"
        Pattern(
            "dl_dashed",
            r"(?<![\w-])[A-Z]-?\d{3}-\d{3,4}-\d{2,4}(?:-\d{1,3}){0,2}(?![\w-])",
            0.45,
        ),
        # printed in spaced groups: New York "123 456 789", Michigan "A 123 456 789 012"
        Pattern("dl_spaced", r"(?<![\w-])(?:[A-Z] \d{3} )?\d{3} \d{3} \d{3}(?![\w-])", 0.35),
        # Washington since 2018: "WDL" and nine letters or digits
        Pattern("dl_wa", r"(?<![\w-])WDL[A-Z0-9]{9}(?![\w-])", 0.45),
    )
    context = (
        "driver",
        "driver's",
        "drivers",
        "license",
        "licence",
        "dl",
        "dl#",
        "dln",
        "driving",
        "lic",
    )
    context_required = True


@recognizers.register("uk_nhs")
class NhsRecognizer(WorldIdRecognizer):
    """NHS numbers (England, Wales, Isle of Man): ten digits, often printed 3-3-4, with a
    modulus-11 check digit; 1.0 near "NHS" or "health service", 0.45 without (ten digits are
    also a phone number's length)."""

    entity = "UK_NHS"
    needs_digit = True
    tier = 0  # a check digit and its word: wins over a phone number's layout on the same digits
    patterns = (Pattern("nhs", r"(?<![\w-])\d{3}([ -]?)\d{3}\1\d{4}(?![\w-])", 0.4),)
    context = ("nhs", "nhs no", "nhs number", "health service")
    checksum = ("mod11", nhs_ok)


@recognizers.register("medical_license")
class MedicalLicenseRecognizer(WorldIdRecognizer):
    """US DEA registration numbers of prescribers: a registrant-type letter, a letter, seven
    digits with their check digit (``dea_ok``); 1.0 near "DEA", "registration" or
    "prescriber", 0.45 without."""

    entity = "MEDICAL_LICENSE"
    needs_digit = True
    patterns = (Pattern("dea", rf"(?<![\w-])[{DEA_REGISTRANTS}][A-Z9]\d{{7}}(?![\w-])", 0.4),)
    # not "license" alone: a driver's licence of the same shape passes the check one time
    # in ten
    context = ("dea", "dea#", "dea no", "dea number", "registration", "prescriber")
    checksum = ("dea-checksum", dea_ok)


@recognizers.register("medical_record")
class MedicalRecordRecognizer(PatternRecognizer):
    """Medical record numbers. The number format differs per institution, so the patterns
    are configurable: pass ``patterns=[r"..."]`` (the whole match, or group 1, is the MRN)."""

    entity = "MEDICAL_RECORD_NUMBER"
    needs_digit = True
    patterns = (
        Pattern(
            "mrn_labelled",
            r"\b(?:MRN|MR#|Med(?:ical)? Rec(?:ord)?(?: No\.?| Number| #)?)[:#\s]*"
            r"([A-Z]{0,3}-?\d{5,10})\b",
            0.9,
            group=1,
            flags=re.IGNORECASE,
        ),
    )
    context = ("mrn", "medical record", "record number", "chart")

    def __init__(self, patterns: Sequence[str | Pattern] | None = None) -> None:
        built: list[Pattern] | None = None
        if patterns is not None:
            built = []
            for i, p in enumerate(patterns):
                if isinstance(p, Pattern):
                    built.append(p)
                else:
                    group = 1 if re.compile(p).groups >= 1 else 0
                    built.append(Pattern(f"mrn_custom_{i}", p, 0.85, group=group))
        super().__init__(patterns=built)
