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
    "AU_MEDICARE",
    "AU_TFN",
    "CREDENTIAL",
    "CREDIT_CARD",
    "CRYPTO",
    "DATE_TIME",
    "EMAIL_ADDRESS",
    "ES_NIE",
    "ES_NIF",
    "FI_PERSONAL_IDENTITY_CODE",
    "IBAN_CODE",
    "ID",
    "IN_AADHAAR",
    "IN_PAN",
    "IP_ADDRESS",
    "IT_FISCAL_CODE",
    "LOCATION",
    "MAC_ADDRESS",
    "MEDICAL_LICENSE",
    "MEDICAL_RECORD_NUMBER",
    "NRP",
    "ORGANIZATION",
    "PASSWORD",
    "PERSON",
    "PHONE_NUMBER",
    "PL_PESEL",
    "SG_NRIC_FIN",
    "STREET_ADDRESS",
    "UK_NHS",
    "UK_NINO",
    "URL",
    "US_BANK_NUMBER",
    "US_DRIVER_LICENSE",
    "US_ITIN",
    "US_PASSPORT",
    "US_SSN",
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
    """

    recognizer: str
    pattern_name: str | None = None
    original_score: float = 0.0
    score: float = 0.0
    context_words: tuple[str, ...] = ()
    validation: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "recognizer": self.recognizer,
            "pattern_name": self.pattern_name,
            "original_score": round(self.original_score, 4),
            "score": round(self.score, 4),
            "context_words": list(self.context_words),
            "validation": self.validation,
        }


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
