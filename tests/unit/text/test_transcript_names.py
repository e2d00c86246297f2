"""Speakers of a chat transcript written in lower case: as line labels and addressed at the
end of a turn (issue #24, business-text leaks)."""

from __future__ import annotations

import pytest

from veil.text import TextAnalyzer


@pytest.fixture(scope="module")
def regex() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


def persons(analyzer: TextAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON"]


def test_a_timestamped_full_name_label_is_a_person(regex: TextAnalyzer) -> None:
    text = (
        "[10:02] susan mikulic: hi my card got blocked\n"
        "[10:03] agent: sorry, can you confirm your dob?\n"
        "[10:04] susan mikulic: 01/02/1980"
    )
    assert persons(regex, text) == ["susan mikulic", "susan mikulic"]


def test_a_given_name_label_is_a_person(regex: TextAnalyzer) -> None:
    text = "me: whats the wifi pw\nmaria: Xk3!pq9Lw\nme: ty"
    assert persons(regex, text) == ["maria"]


def test_a_name_addressed_at_the_end_of_a_turn_is_a_person(regex: TextAnalyzer) -> None:
    text = (
        "agent: how can I help?\ncustomer: my new email is a@example.com\nagent: done, thanks maria"
    )
    assert persons(regex, text) == ["maria"]


@pytest.mark.parametrize(
    "text",
    [
        "agent: hi\nsupport: thanks will",  # an everyday word, not a name
        "note: call back\ntodo: april review",  # role and calendar words label lines
        "Thanks maria",  # no transcript
        "Meeting notes: thanks to will for the room",
    ],
)
def test_no_person_without_a_transcript_and_a_known_name(regex: TextAnalyzer, text: str) -> None:
    assert persons(regex, text) == []
