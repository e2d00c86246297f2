"""The engine: overlap rule, allow/deny lists, custom patterns, entity names, long texts."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from veil import PolicyError
from veil.policy import DETECT_SCORE_THRESHOLD, TextConfig
from veil.text import (
    DENY_LIST,
    ENTITIES,
    Finding,
    TextAnalyzer,
    build_pattern_recognizer,
    resolve_overlaps,
)
from veil.text.recognition._weak_shapes import WEAK_SCORE


def _f(start: int, end: int, entity: str, score: float = 0.8, tier: int = 1) -> Finding:
    return Finding(start, end, entity, score, "t", tier)


def test_overlap_same_type_merges_to_union() -> None:
    out = resolve_overlaps([_f(0, 5, "DATE_TIME", 0.6), _f(3, 12, "DATE_TIME", 0.9, 2)])
    assert [(f.start, f.end, f.score, f.tier) for f in out] == [(0, 12, 0.9, 1)]


def test_overlap_lower_tier_wins_over_longer() -> None:
    card = _f(5, 24, "CREDIT_CARD", 1.0, 0)
    ner = _f(0, 30, "ORGANIZATION", 0.85, 2)
    assert resolve_overlaps([ner, card]) == [card]


def test_overlap_longer_wins_within_tier() -> None:
    addr = _f(0, 20, "STREET_ADDRESS", 0.75)
    date = _f(4, 8, "DATE_TIME", 0.85)
    assert resolve_overlaps([date, addr]) == [addr]


def test_non_overlapping_kept_in_order() -> None:
    a, b = _f(10, 12, "AGE"), _f(0, 4, "ZIP_CODE")
    assert resolve_overlaps([a, b]) == [b, a]


_findings = st.lists(
    st.builds(
        lambda start, length, entity, score, tier: _f(start, start + length, entity, score, tier),
        st.integers(0, 60),
        st.integers(1, 15),
        st.sampled_from(["PERSON", "DATE_TIME", "LOCATION"]),
        st.sampled_from([0.5, 0.6, 0.85]),
        st.integers(0, 2),
    ),
    max_size=25,
)


@given(_findings)
def test_overlap_rule_properties(findings: list[Finding]) -> None:
    out = resolve_overlaps(findings)
    # sorted and pairwise disjoint (a merged span that loses is dropped whole, so a piece of
    # it may overlap no output)
    assert all(a.end <= b.start for a, b in itertools.pairwise(out))
    assert not findings or out
    # the same as the rule applied by checking every kept span (the plain quadratic form)
    merged = resolve_overlaps([])
    by_type: dict[str, list[Finding]] = {}
    for f in findings:
        by_type.setdefault(f.entity_type, []).append(f)
    for group in by_type.values():
        merged.extend(resolve_overlaps(group))
    merged.sort(key=lambda f: (f.tier, -f.length, -f.score, f.start))
    naive: list[Finding] = []
    for f in merged:
        if not any(f.overlaps(k) for k in naive):
            naive.append(f)
    assert out == sorted(naive, key=lambda f: f.start)


def test_empty_spans_are_dropped() -> None:
    empty, real = _f(3, 3, "PERSON", 0.9, 0), _f(0, 8, "LOCATION")
    assert resolve_overlaps([empty, real]) == [real]


def test_overlap_rule_on_many_findings() -> None:
    # a long document: 60,000 findings, each a word that a longer one may cover
    words = [_f(i * 10, i * 10 + 4, "PERSON", 0.85, 2) for i in range(40_000)]
    spans = [_f(i * 20, i * 20 + 8, "DATE_TIME", 0.6, 1) for i in range(20_000)]
    out = resolve_overlaps(words + spans)
    assert out == sorted(spans + words[1::2], key=lambda f: f.start)


def test_unknown_entity_lists_valid_names() -> None:
    with pytest.raises(PolicyError) as err:
        TextAnalyzer.from_config(ner=False, entities=["PERSON", "SOCIAL_NUMBER"])
    msg = str(err.value)
    assert "SOCIAL_NUMBER" in msg and "US_SSN" in msg and "EMAIL_ADDRESS" in msg


def test_entity_filter() -> None:
    a = TextAnalyzer.from_config(ner=False, entities=["EMAIL_ADDRESS"])
    found = a.analyze("jo@example.com 4111 1111 1111 1111")
    assert {f.entity_type for f in found} == {"EMAIL_ADDRESS"}


def test_allow_list_and_deny_list() -> None:
    cfg = TextConfig(ner=False, allow_list=("help@example.com",), deny_list=("Project Falcon",))
    a = TextAnalyzer.from_config(cfg)
    text = "Mail help@example.com or jo@example.com about project falcon."
    found = [(f.entity_type, text[f.start : f.end]) for f in a.analyze(text)]
    assert ("EMAIL_ADDRESS", "jo@example.com") in found
    assert all(v != "help@example.com" for _, v in found)
    assert (DENY_LIST, "project falcon") in found


def test_deny_list_whole_words_only() -> None:
    a = TextAnalyzer.from_config(TextConfig(ner=False, deny_list=("Ann",)))
    assert [f.entity_type for f in a.analyze("Annual report by Ann")] == [DENY_LIST]


def test_custom_pattern_with_context() -> None:
    cfg = TextConfig(
        ner=False,
        patterns=(
            {
                "name": "employee",
                "entity": "EMPLOYEE_ID",
                "regex": r"\bE-\d{6}\b",
                "score": 0.4,
                "context": ["employee"],
            },
        ),
    )
    a = TextAnalyzer.from_config(cfg)
    assert "EMPLOYEE_ID" in a.supported_entities
    # the second id is further than the context window (48 characters) from "employee"
    hits = a.analyze("employee E-123456 left. " + "filler " * 10 + "E-654321 unrelated")
    assert [(f.entity_type, f.start) for f in hits] == [("EMPLOYEE_ID", 9)]


def test_invalid_regex_names_the_pattern() -> None:
    with pytest.raises(PolicyError) as err:
        build_pattern_recognizer({"name": "broken_one", "entity": "X_ID", "regex": "(ab"}, 3)
    msg = str(err.value)
    assert "broken_one" in msg and "patterns[3]" in msg and "invalid regular expression" in msg


def test_pattern_missing_keys() -> None:
    with pytest.raises(PolicyError, match="'regex' is required"):
        build_pattern_recognizer({"name": "x", "entity": "X_ID"})
    with pytest.raises(PolicyError, match="unknown key"):
        build_pattern_recognizer({"name": "x", "entity": "X_ID", "regex": "x", "colour": 1})


def test_context_words_are_whole_words() -> None:
    a = TextAnalyzer.from_config(ner=False)
    # "ssn" inside "assn" must not lift a bare nine-digit number: it stays a candidate
    # without its word, at the weak score that only a redaction reaches
    assert [f.score for f in a.analyze("assn 536221234")] == [WEAK_SCORE]
    found = a.analyze("ssn 536221234")
    assert [f.entity_type for f in found] == ["US_SSN"]
    assert found[0].score >= DETECT_SCORE_THRESHOLD


@pytest.mark.parametrize("text", [None, "", "   "])
def test_empty_and_null(text: str | None) -> None:
    a = TextAnalyzer.from_config(ner=False)
    assert a.analyze(text) == []
    assert a.analyze_batch([text, "jo@example.com"])[0] == []


def test_ten_megabyte_document_is_chunked() -> None:
    a = TextAnalyzer.from_config(ner=False, entities=["EMAIL_ADDRESS", "US_SSN"])
    unit = "Nothing to see here at all, just words. " * 50
    text = (unit + "Write to jo@example.com now. ") * 4000  # ~8.3 MB
    text += unit * 1000
    assert len(text) > 10_000_000
    found = a.analyze(text)
    assert len(found) == 4000
    assert all(text[f.start : f.end] == "jo@example.com" for f in found)


def test_span_across_chunk_boundary_is_found_once() -> None:
    a = TextAnalyzer(
        TextAnalyzer.from_config(ner=False).recognizers, max_chunk_chars=1000, chunk_overlap=100
    )
    text = "x " * 495 + "mail jo@example.com " + "y " * 600
    found = [f for f in a.analyze(text) if f.entity_type == "EMAIL_ADDRESS"]
    assert len(found) == 1 and text[found[0].start : found[0].end] == "jo@example.com"


def test_all_builtin_entities_are_supported() -> None:
    a = TextAnalyzer.from_config(ner=False)
    assert set(ENTITIES) <= set(a.supported_entities)


def test_case_reading_recognizers_get_capitals_in_ordinary_case() -> None:
    from veil.text.recognition._recognizer import Recognizer

    seen: dict[str, str] = {}

    class Spy(Recognizer):
        name = "spy"
        entities = ("PERSON",)

        def __init__(self, reads_case: bool) -> None:
            self.reads_case = reads_case

        def analyze(self, text: str) -> list[Finding]:
            seen[str(self.reads_case)] = text
            return []

    text = "PT SEEN BY DR. OKAFOR, WIFE MARY AT BEDSIDE."
    TextAnalyzer([Spy(True), Spy(False)]).analyze(text)
    assert seen["False"] == text  # other recognizers see the text as written
    assert seen["True"] == "PT seen by Dr. Okafor, wife Mary at bedside."  # "PT": charting
    TextAnalyzer([Spy(True)]).analyze("Seen by Dr. Okafor")
    assert seen["True"] == "Seen by Dr. Okafor"  # mixed case is left as it is
