"""The values of Presidio's recognizer tables that veil detects only with a context word (see
docs/text.md, "Conformance with Presidio's own recognizer test tables") are found once the
word is there, and are not claimed at the detect threshold without it (a redaction still
replaces most of them: tests/unit/text/test_weak_shapes.py)."""

from __future__ import annotations

import pytest

from veil.policy import DETECT_SCORE_THRESHOLD, REDACT_SCORE_THRESHOLD, TextConfig
from veil.text import TextAnalyzer

CASES = [
    ("SSN {}", "078-051121", "US_SSN"),
    ("my SSN is {}", "07805-1121", "US_SSN"),
    ("ITIN {}", "911701234", "US_ITIN"),
    ("my ITIN is {}", "91170-1234", "US_ITIN"),
    ("passport {}", "912803456", "US_PASSPORT"),
    ("my travel document is {}", "A12803456", "US_PASSPORT"),
    ("driver license {}", "123456789", "US_DRIVER_LICENSE"),
    ("driver license {}", "H12234567", "US_DRIVER_LICENSE"),
    ("account number {}", "945456787654", "US_BANK_NUMBER"),
    ("NHS number {}", "221 395 1837", "UK_NHS"),
]


@pytest.fixture(scope="module")
def regex() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


def typed(analyzer: TextAnalyzer, text: str) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.entity_type) for f in analyzer.analyze(text)]


def test_the_redaction_threshold_is_the_one_measured(regex: TextAnalyzer) -> None:
    assert regex.score_threshold == REDACT_SCORE_THRESHOLD


@pytest.mark.parametrize(("template", "value", "entity"), CASES)
def test_found_with_its_word(regex: TextAnalyzer, template: str, value: str, entity: str) -> None:
    assert (value, entity) in typed(regex, template.format(value))


@pytest.fixture(scope="module")
def detect() -> TextAnalyzer:
    cfg = TextConfig.model_validate({"score_threshold": DETECT_SCORE_THRESHOLD})
    return TextAnalyzer.from_config(cfg, ner=False)


@pytest.mark.parametrize(("value", "entity"), [(v, e) for _, v, e in CASES])
def test_not_claimed_at_the_detect_threshold_without_its_word(
    detect: TextAnalyzer, value: str, entity: str
) -> None:
    # without the word the shapes are weak candidates at 0.45, replaced by a redaction
    # only (tests/unit/text/test_weak_shapes.py)
    assert (value, entity) not in typed(detect, f"see {value} noted")
