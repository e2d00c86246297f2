"""Given names joined to a found person's name ("Anthony and Isabel")."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from veil.text import TextAnalyzer
from veil.text.ner._coordination import coordinated_names
from veil.text.recognition._finding import Finding


def _person(text: str, name: str) -> Finding:
    start = text.index(name)
    return Finding(start, start + len(name), "PERSON", 0.85, "spacy_ner", 2)


def _found(text: str, anchor: str) -> list[str]:
    return [text[f.start : f.end] for f in coordinated_names(text, [_person(text, anchor)])]


@pytest.mark.parametrize(
    ("text", "anchor", "expected"),
    [
        ("Anthony and Isabel will attend.", "Anthony", ["Isabel"]),
        ("Isabel and Anthony will attend.", "Anthony", ["Isabel"]),
        ("Signed by Anthony & Isabel Garcia.", "Anthony", ["Isabel Garcia"]),
        ("Maria Lopez or Anthony can approve.", "Anthony", ["Maria Lopez"]),
        ("Dear Isabel and Anthony,", "Anthony", ["Isabel"]),
        # a list: each name found leads to the next
        ("Thanks to Marta, Luis, Ana and Pedro.", "Marta", ["Luis", "Ana", "Pedro"]),
        ("Thanks to Luis, Ana and Marta.", "Marta", ["Ana", "Luis"]),
    ],
)
def test_coordinated_given_names_are_people(text: str, anchor: str, expected: list[str]) -> None:
    assert sorted(_found(text, anchor)) == sorted(expected)


@pytest.mark.parametrize(
    ("text", "anchor"),
    [
        ("Thanks, John, Paris is lovely.", "John"),  # a lone comma joins nothing
        ("Paris, John called.", "John"),
        ("John and Will went home.", "John"),  # an everyday word, not a name here
        ("John and the Boston team met.", "John"),  # no capitalised name after the join
        ("John and Mitchell Street", "John"),  # a given name inside a longer name
        ("Mitchell Street and John", "John"),
        ("The Isabel Hotel and John", "John"),
        # a clinical note: lists there are of drugs and findings
        ("Pt seen by Anthony and Foley, Lasix given, NSR on tele, BP stable.", "Anthony"),
    ],
)
def test_no_coordinated_name(text: str, anchor: str) -> None:
    assert _found(text, anchor) == []


def test_a_name_already_found_is_not_reported_twice() -> None:
    text = "Anthony and Isabel will attend."
    both = [_person(text, "Anthony"), _person(text, "Isabel")]
    assert coordinated_names(text, both) == []


def test_analyzer_reports_them_with_their_recognizer() -> None:
    analyzer = TextAnalyzer.from_config(ner=False)  # the titled name is the anchor here
    text = "Dr. Okafor and Isabel will see you."
    found = {text[f.start : f.end]: f.recognizer for f in analyzer.analyze(text)}
    assert found.get("Isabel") == "coordinated_name"
    assert "Isabel" not in {
        text[f.start : f.end]
        for f in TextAnalyzer.from_config(ner=False, entities=["EMAIL_ADDRESS"]).analyze(text)
    }
    # the allow list applies to them too
    allowed = TextAnalyzer(analyzer.recognizers, allow_list=["isabel"])
    assert "Isabel" not in {text[f.start : f.end] for f in allowed.analyze(text)}


_NAMES = st.sampled_from(["Isabel", "Luis", "Marta", "Anthony", "Paris", "Will", "Garcia"])
_GLUE = st.sampled_from([" and ", ", ", " & ", " or ", " met ", " ", ". ", " and the "])


@given(st.lists(st.tuples(_NAMES, _GLUE), min_size=2, max_size=6))
def test_only_new_person_spans_on_capitalised_words(parts: list[tuple[str, str]]) -> None:
    text = "".join(n + g for n, g in parts).strip()
    anchor = _person(text, parts[0][0])
    found = coordinated_names(text, [anchor])
    spans = [(anchor.start, anchor.end)]
    for f in found:
        assert f.entity_type == "PERSON" and f.recognizer == "coordinated_name"
        assert re.fullmatch(r"[A-Z][a-z]+(?: [A-Z][a-z]+)?", text[f.start : f.end])
        assert not any(a < f.end and f.start < b for a, b in spans)  # never overlapping
        spans.append((f.start, f.end))


def test_the_models_place_on_a_coordinated_given_name_is_overruled() -> None:
    """ "Brandon" read as a town by the model: the coordinated name is reported on exactly
    its span (and wins the overlap rule as tier 1); a longer place is left alone."""
    text = "Ralph Hill and Brandon will attend."
    ralph = Finding(0, 10, "PERSON", 0.85, "spacy_ner", 2)
    town = Finding(15, 22, "LOCATION", 0.85, "spacy_ner", 2)
    found = coordinated_names(text, [ralph, town])
    assert [(text[f.start : f.end], f.entity_type, f.tier) for f in found] == [
        ("Brandon", "PERSON", 1)
    ]
    longer = Finding(15, 28, "LOCATION", 0.85, "spacy_ner", 2)  # "Brandon will"
    assert coordinated_names(text, [ralph, longer]) == []


@pytest.mark.parametrize(
    ("span", "expected"),
    [
        ("Steven Jennings & Olivia", ["Steven Jennings", "Olivia"]),
        ("Gyula Kiss and Tamás Balogh", ["Gyula Kiss", "Tamás Balogh"]),
        ("Ekansh Barad or Darika Prashad", ["Ekansh Barad", "Darika Prashad"]),
        ("Smith & Jones", None),  # a firm of surnames
        ("Johnson & Johnson", None),
        ("Ben & Jerry", None),  # no full name first
    ],
)
def test_two_people_in_one_model_span(span: str, expected: list[str] | None) -> None:
    from veil.text.ner._ner import _two_people

    pair = _two_people(span, 0, len(span))
    assert (None if pair is None else [span[a:b] for a, b in pair]) == expected
