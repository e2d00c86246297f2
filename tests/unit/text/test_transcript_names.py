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


def test_a_place_named_speaker_of_a_chat_is_a_person(regex: TextAnalyzer) -> None:
    """ "elizabeth" and "ramona" are towns too; as a label in a chat (a role labels another
    line) or with a surname after it, the speaker is a person."""
    chat = "me: whats the wifi pw\nelizabeth: Xk3!pq9Lw\nme: ty"
    assert persons(regex, chat) == ["elizabeth"]
    full = "[10:02] ramona greggio: hi\n[10:03] agent: hello\n[10:04] ramona greggio: ok"
    assert persons(regex, full) == ["ramona greggio", "ramona greggio"]


def test_a_place_label_outside_a_chat_stays_a_place(regex: TextAnalyzer) -> None:
    assert persons(regex, "elizabeth: 3 stores\nlondon: 2 stores") == []


def test_a_hyphenated_given_name_addressed_at_the_end_of_a_turn(regex: TextAnalyzer) -> None:
    text = (
        "agent: how can I help?\ncustomer: new email a@example.com\nagent: done, thanks hanne-lore"
    )
    assert persons(regex, text) == ["hanne-lore"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (
            "Hi team, alphons scarponi is out sick today, please route her calls.",
            "alphons scarponi",
        ),
        ("FYI sebastian kałwa was in the office on Monday.", "sebastian kałwa"),
        ("Update: céline michel called about the invoice.", "céline michel"),
        ("Congrats Yves! Your student id is linked.", "Yves"),
        ("Congratulations Dorota, you passed.", "Dorota"),
        ("congrats yves! see you monday", "yves"),
    ],
)
def test_a_lower_case_name_that_acts_or_a_congratulated_name(
    regex: TextAnalyzer, text: str, name: str
) -> None:
    assert persons(regex, text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "The office in santa clara is closed.",  # a place
        "Note: the rose garden is nice.",  # dictionary words
        "Report: grace period was extended.",
        "So san marcos is far.",
        "Congrats Team! Great quarter.",  # no given name
    ],
)
def test_lower_case_pairs_that_act_but_name_no_one(regex: TextAnalyzer, text: str) -> None:
    assert persons(regex, text) == []
