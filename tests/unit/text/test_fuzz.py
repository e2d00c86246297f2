"""Every recognizer on arbitrary text: no exception, and findings that are well formed.

Text is drawn as a mix of arbitrary Unicode and fragments that reach deep into the
recognizers (legal forms, address layouts, dates, letters that case-fold oddly), so the
regexes, the prefilter and the hand-written checks after them all run."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.text import ENTITIES, TextAnalyzer

_FRAGMENTS_TEXT = (
    "GmbH S.A. A/S ASA Sp. z o.o. & Co. and Sons Stichting Unit 3/12 Smith St H.No. 12, "
    "MG Road Pune 411001 Hasičská 977/12 Solåsen 4B 12-Dec-1985 1985/12/12 3. März 2021 "
    "10:30 AM. Rua Augusta, s/n İ ı ſ \u212a \u00a0 van der Trinidad and Tobago Reno NV "
    "Type AB Nitro SL +44 20 7946 0958 4111 1111 1111 1111 DE89370400440532013000 "
    "jane@example.com http://x.io 536-22-1234 aged forty-five MRN: 12345678 NPO PRN "
    "Dr. O'Neil Mr. Smith ² ٣ \n \t , . ; ( ) ' ’"
)
_FRAGMENTS = _FRAGMENTS_TEXT.split(" ")
_TEXTS = st.lists(st.one_of(st.text(max_size=12), st.sampled_from(_FRAGMENTS)), max_size=30).map(
    " ".join
)


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEXTS)
def test_findings_are_well_formed_on_any_text(analyzer: TextAnalyzer, text: str) -> None:
    found = analyzer.analyze(text)
    for f in found:
        assert 0 <= f.start < f.end <= len(text)
        assert f.entity_type in ENTITIES
        assert 0.0 <= f.score <= 1.0
    # the overlap rule leaves disjoint spans, sorted
    assert all(a.end <= b.start for a, b in itertools.pairwise(found))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEXTS)
def test_every_recognizer_alone_survives_any_text(analyzer: TextAnalyzer, text: str) -> None:
    for recognizer in analyzer.recognizers:
        for f in recognizer.analyze(text):
            assert 0 <= f.start <= f.end <= len(text), recognizer.name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_TEXTS, min_size=1, max_size=4))
def test_ner_batches_keep_order_and_bounds(texts: list[str]) -> None:
    # each text carries its own address, so a result given to the wrong text shows
    texts = [f"{t} mail user{i}@example.com today" for i, t in enumerate(texts)]
    batched = _ner_analyzer().analyze_batch(texts)
    assert len(batched) == len(texts)
    for i, (text, found) in enumerate(zip(texts, batched, strict=True)):
        assert all(0 <= f.start < f.end <= len(text) for f in found)
        emails = [text[f.start : f.end] for f in found if f.entity_type == "EMAIL_ADDRESS"]
        assert f"user{i}@example.com" in emails


_NER: list[TextAnalyzer] = []


def _ner_analyzer() -> TextAnalyzer:
    if not _NER:
        _NER.append(TextAnalyzer.from_config())
    return _NER[0]
