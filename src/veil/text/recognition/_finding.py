"""What a recognizer returns: a :class:`Finding` with an :class:`Explanation`.

Entity names follow Microsoft Presidio's (``PERSON``, ``EMAIL_ADDRESS``, ``US_SSN``, ...) so
results can be compared and gold files reused, plus ``STREET_ADDRESS``, ``ZIP_CODE``,
``AGE`` and ``MEDICAL_RECORD_NUMBER``, which Presidio does not detect.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ENTITIES", "Explanation", "Finding"]

#: Every entity type the built-in recognizers can report, sorted.
ENTITIES: tuple[str, ...] = (
    "ABA_ROUTING_NUMBER",
    "AGE",
    "API_KEY",
    "AU_ABN",
    "AU_ACN",
    "AU_MEDICARE",
    "AU_TFN",
    "CA_SIN",
    "CREDENTIAL",
    "CREDIT_CARD",
    "CRYPTO",
    "DATE_TIME",
    "DE_FUEHRERSCHEIN",
    "DE_HANDELSREGISTER",
    "DE_HEALTH_INSURANCE",
    "DE_ID_CARD",
    "DE_KFZ",
    "DE_LANR",
    "DE_PASSPORT",
    "DE_PLZ",
    "DE_SOCIAL_SECURITY",
    "DE_TAX_ID",
    "DE_TAX_NUMBER",
    "DE_VAT_ID",
    "EMAIL_ADDRESS",
    "ES_NIE",
    "ES_NIF",
    "ES_PASSPORT",
    "FI_PERSONAL_IDENTITY_CODE",
    "IBAN_CODE",
    "ID",
    "IN_AADHAAR",
    "IN_GSTIN",
    "IN_IFSC",
    "IN_PAN",
    "IN_PASSPORT",
    "IN_VEHICLE_REGISTRATION",
    "IN_VOTER",
    "IP_ADDRESS",
    "IT_DRIVER_LICENSE",
    "IT_FISCAL_CODE",
    "IT_IDENTITY_CARD",
    "IT_PASSPORT",
    "IT_VAT_CODE",
    "KR_BRN",
    "KR_DRIVER_LICENSE",
    "KR_FRN",
    "KR_PASSPORT",
    "KR_RRN",
    "LOCATION",
    "MAC_ADDRESS",
    "MEDICAL_LICENSE",
    "MEDICAL_RECORD_NUMBER",
    "NG_NIN",
    "NG_VEHICLE_REGISTRATION",
    "NRP",
    "ORGANIZATION",
    "PASSWORD",
    "PERSON",
    "PHONE_NUMBER",
    "PH_TIN",
    "PL_PESEL",
    "SE_ORGANISATIONSNUMMER",
    "SE_PERSONNUMMER",
    "SG_NRIC_FIN",
    "STREET_ADDRESS",
    "SWIFT_CODE",
    "TH_TNIN",
    "TR_LICENSE_PLATE",
    "TR_NATIONAL_ID",
    "UK_DRIVING_LICENCE",
    "UK_NHS",
    "UK_NINO",
    "UK_PASSPORT",
    "UK_VEHICLE_REGISTRATION",
    "UPI_ID",
    "URL",
    "USERNAME",
    "US_BANK_NUMBER",
    "US_DRIVER_LICENSE",
    "US_EIN",
    "US_ITIN",
    "US_MBI",
    "US_NPI",
    "US_PASSPORT",
    "US_SSN",
    "ZA_ID_NUMBER",
    "ZIP_CODE",
)


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a span was reported.

    Attributes
    ----------
    recognizer
        Name of the recognizer that produced the finding.
    pattern_name
        Name of the regex pattern (pattern recognizers) or the spaCy label (NER).
    original_score
        Score before context and validation adjusted it.
    score
        Final score.
    context_words
        Context words found near the span (whole-word matches), if any raised the score.
    validation
        The rule that validated the value (``"luhn"``, ``"mod97"``, ...), if any.
    alternatives
        Other entity types whose published format the same characters fit, when nothing
        in the text tells them apart (a bare 12-digit run: a driver's licence or a bank
        account number); the finding's own type is the first reading. A
        :class:`~veil.text.TextAnalyzer` asked for some types only reports such a finding
        under the first of them it was asked for.
    """

    recognizer: str
    pattern_name: str | None = None
    original_score: float = 0.0
    score: float = 0.0
    context_words: tuple[str, ...] = ()
    validation: str | None = None
    alternatives: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "recognizer": self.recognizer,
            "pattern_name": self.pattern_name,
            "original_score": round(self.original_score, 4),
            "score": round(self.score, 4),
            "context_words": list(self.context_words),
            "validation": self.validation,
        }
        if self.alternatives:  # only where there are some: other explanations read as before
            out["alternatives"] = list(self.alternatives)
        return out


@dataclass(frozen=True, slots=True)
class Finding:
    """One detected span ``text[start:end]`` of type ``entity_type``.

    ``tier`` orders findings when spans overlap (see :func:`veil.text.resolve_overlaps`):
    0 = validated by a checksum or a parser, 1 = a structural pattern, 2 = statistical NER.

    Examples
    --------
    >>> f = Finding(0, 4, "PERSON", 0.85, "spacy")
    >>> f.to_dict()
    {'start': 0, 'end': 4, 'entity_type': 'PERSON', 'score': 0.85, 'recognizer': 'spacy'}
    """

    start: int
    end: int
    entity_type: str
    score: float
    recognizer: str
    tier: int = 1
    explanation: Explanation | None = field(default=None, compare=False)

    @property
    def length(self) -> int:
        return self.end - self.start

    def overlaps(self, other: Finding) -> bool:
        return self.start < other.end and other.start < self.end

    def shifted(self, offset: int) -> Finding:
        return Finding(
            self.start + offset,
            self.end + offset,
            self.entity_type,
            self.score,
            self.recognizer,
            self.tier,
            self.explanation,
        )

    def to_dict(self, *, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "start": self.start,
            "end": self.end,
            "entity_type": self.entity_type,
            "score": round(self.score, 4),
            "recognizer": self.recognizer,
        }
        if explain and self.explanation is not None:
            out["explanation"] = self.explanation.to_dict()
        return out
