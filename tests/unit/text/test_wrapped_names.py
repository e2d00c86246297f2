"""Names that a line wrap breaks: the step that joins a person's finding across the break
(the findings are given; no model needed)."""

from __future__ import annotations

import pytest

from veil.text import Finding
from veil.text.ner._wrapped import join_hyphenated_names, join_wrapped_names


def _person(text: str, word: str, recognizer: str = "spacy_ner") -> Finding:
    start = text.index(word)
    return Finding(start, start + len(word), "PERSON", 0.85, recognizer, 2)


def _joined(text: str, findings: list[Finding]) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.entity_type) for f in join_wrapped_names(text, findings)]


@pytest.mark.parametrize(
    ("text", "found", "expected"),
    [
        # a given name that ends its line takes the surname that opens the next
        ("Spoke with Maria\nGonzalez about it.", ["Maria"], ["Maria\nGonzalez"]),
        ("> Please call Maria\n> Gonzalez tomorrow", ["Maria"], ["Maria\n> Gonzalez"]),
        # a surname that opens its line takes the known given name that ends the one before
        ("Spoke with Maria\nGonzalez about it.", ["Gonzalez"], ["Maria\nGonzalez"]),
        # both halves found apart become one
        ("Spoke with Maria\nGonzalez about it.", ["Maria", "Gonzalez"], ["Maria\nGonzalez"]),
        # nothing found: a known given name and a known surname across the break
        ("Spoke with Ingrid\nOlofsson about it.", [], ["Ingrid\nOlofsson"]),
    ],
)
def test_a_wrapped_name_is_joined(text: str, found: list[str], expected: list[str]) -> None:
    got = _joined(text, [_person(text, w) for w in found])
    assert got == [(e, "PERSON") for e in expected]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Kristen Whitaker\nBrown LLC", ["Kristen Whitaker"]),  # a full name: the next field
        ("Maria\nDOB: 1/2/1990", ["Maria"]),  # a field's label
        ("Thanks,\nMaria\nScientist", ["Maria"]),  # a job: a dictionary noun, no name
        ("Call Maria\nThanks again", ["Maria"]),  # an everyday word
        ("Maria\nJohn\nPaul", ["Maria", "John", "Paul"]),  # a list of given names
        ("Maria\nLater today", ["Maria"]),
    ],
)
def test_no_join_across_a_field_or_a_list(text: str, found: list[str]) -> None:
    findings = [_person(text, w) for w in found]
    assert _joined(text, findings) == [(w, "PERSON") for w in found]


def test_another_finding_on_the_next_line_keeps_it_apart() -> None:
    text = "Maria\nGonzalez Ltd"
    org = Finding(6, 18, "ORGANIZATION", 0.75, "organization", 1)
    assert _joined(text, [_person(text, "Maria"), org]) == [
        ("Maria", "PERSON"),
        ("Gonzalez Ltd", "ORGANIZATION"),
    ]


@pytest.mark.parametrize(
    ("text", "found", "expected"),
    [
        # both halves found apart become one, the hyphen inside
        ("Seen by Chavez-Lopez MD.", ["Chavez", "Lopez"], ["Chavez-Lopez"]),
        # one half found takes the capitalised word a hyphen joins to it, either side
        ("Seen by Chavez-Lopez MD.", ["Lopez"], ["Chavez-Lopez"]),
        ("Seen by Chavez-Lopez MD.", ["Chavez"], ["Chavez-Lopez"]),
        ("DR BATES-MORENO NOTIFIED", ["BATES"], ["BATES-MORENO"]),
        # a lower-case word joined by a hyphen is no half of a name ("Smith-induced")
        ("a Smith-induced rash", ["Smith"], ["Smith"]),
        # a hyphen with a space beside it joins nothing
        ("Chavez - Lopez", ["Chavez", "Lopez"], ["Chavez", "Lopez"]),
    ],
)
def test_a_double_barrelled_name_is_one_finding(
    text: str, found: list[str], expected: list[str]
) -> None:
    findings = [_person(text, w) for w in found]
    joined = join_hyphenated_names(text, findings)
    assert [text[f.start : f.end] for f in joined] == expected
    assert all(f.entity_type == "PERSON" for f in joined)


def test_other_findings_are_not_joined_across_a_hyphen() -> None:
    text = "Call 555-0199 re Chavez-Lopez"
    phone = Finding(5, 13, "PHONE_NUMBER", 0.7, "phone", 1)
    person = _person(text, "Lopez")
    out = join_hyphenated_names(text, [phone, person])
    assert [(text[f.start : f.end], f.entity_type) for f in out] == [
        ("555-0199", "PHONE_NUMBER"),
        ("Chavez-Lopez", "PERSON"),
    ]
