"""The policy's text section (:class:`TextConfig`) and the default score thresholds.

Apart from the other policy models so that ``veil text detect`` and ``veil redact`` build
their options with the policy's own validation without building every policy model.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from veil.policy._base import _Model

__all__ = ["DETECT_SCORE_THRESHOLD", "REDACT_SCORE_THRESHOLD", "TextConfig"]


#: Default score threshold of redaction (``veil redact``, the ``text`` stage of a policy):
#: tuned for recall on veil's generated corpora (``benchmarks/text_business.py --sweep``),
#: so that announced, masked and checksum-failing values are replaced too.
REDACT_SCORE_THRESHOLD = 0.45
#: Default score threshold of detection (``veil text detect``, ``veil text evaluate``, a
#: :class:`~veil.text.TextAnalyzer` built directly): precision first.
DETECT_SCORE_THRESHOLD = 0.5


class TextConfig(_Model):
    """How a free-text column is redacted (the text stage)."""

    entities: tuple[str, ...] | None = None  # None = every supported entity
    operator: str = "placeholder"
    operator_options: dict[str, Any] = Field(default_factory=dict)
    language: str = "en"
    model: str | None = None  # spaCy model; None = best installed
    ner: bool = True
    # a policy's text config redacts: recall first (DETECT_SCORE_THRESHOLD for detection)
    score_threshold: float = Field(REDACT_SCORE_THRESHOLD, ge=0, le=1)
    allow_list: tuple[str, ...] = ()
    deny_list: tuple[str, ...] = ()
    patterns: tuple[dict[str, Any], ...] = ()  # custom regex recognizers
    # regions whose national phone notation is searched ("+" numbers are found for any country)
    phone_regions: tuple[str, ...] = Field(("US",), min_length=1)
    # which findings count: "default" (all), "hipaa" (Safe Harbor's list) or "clinical"
    # (recall first: the allow-list pass); veil.text.detection._profiles
    profile: Literal["default", "hipaa", "clinical"] = "default"

    @field_validator("phone_regions")
    @classmethod
    def _region_codes(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        codes = tuple(dict.fromkeys(v.strip().upper() for v in value))
        bad = [i for i, c in enumerate(codes) if not (len(c) == 2 and c.isascii() and c.isalpha())]
        if bad:
            raise ValueError(
                f"phone_regions item(s) {bad} are not two-letter region codes; "
                "use ISO 3166-1 alpha-2 codes such as US, GB, DE"
            )
        return codes
