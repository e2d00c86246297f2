"""Street names without a house number, a flat or suite on its own, and NER people or
places that are streets."""

from __future__ import annotations

import pytest
from faker import Faker

from veil.text import TextAnalyzer
from veil.text.recognition._street_names import (
    _BUSY_TYPES,
    _CUED_TYPES,
    _FEATURE_TYPES,
    _ROAD_TYPES,
    HomeUnitRecognizer,
    StreetNameRecognizer,
    street_named,
)


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


# (text, the STREET_ADDRESS spans, the pattern of the first)
POSITIVE = [
    ("The bakery on Elm Street closed.", ["Elm Street"], "street_name"),
    ("On Main Street there is a queue.", ["Main Street"], "street_name"),
    ("Turn left on Oak Ave. and stop.", ["Oak Ave."], "street_name"),
    ("Traffic on Pacific Coast Highway is slow", ["Pacific Coast Highway"], "street_name"),
    ("Meet me on 5th Avenue", ["5th Avenue"], "street_name"),
    # the other types: after "on", "off", "along" or an address cue
    ("She lives on Walker Ridge.", ["Walker Ridge"], "street_name_cued"),
    ("The shop off Hickory Lane", ["Hickory Lane"], "street_name_cued"),
    ("They walked along Maple Crossing", ["Maple Crossing"], "street_name_cued"),
    ("My address is Juniper Court", ["Juniper Court"], "street_name_cued"),
    # a type that also names nature needs an address cue
    ("He lives on Walden Lake now", ["Walden Lake"], "street_name_cued"),
    ("I live on Robinson Points.", ["Robinson Points"], "street_name_cued"),
    # the USPS types that name roads more than anything else after a street preposition
    ("There was an accident on Baker Locks", ["Baker Locks"], "street_name_cued"),
    ("The bakery off Reed Junction closed.", ["Reed Junction"], "street_name_cued"),
    # a given name and a surname-like type: a street after a preposition that takes no
    # person, or after "on" with an address cue
    ("We walked along Susan Brook to the park.", ["Susan Brook"], "street_name_cued"),
    ("She lives on Mary Field.", ["Mary Field"], "street_name_cued"),
    ("We turned onto Mary Field.", ["Mary Field"], "street_name_cued"),
    # an everyday type: a street preposition and an address cue
    ("They live on Ashley Run.", ["Ashley Run"], "street_name_cued"),
    # road-only types, plural ones included, count alone
    ("We visited Nicole Parkways yesterday.", ["Nicole Parkways"], "street_name"),
    ("Boone Mews is quiet.", ["Boone Mews"], "street_name"),
]


@pytest.mark.parametrize(("text", "spans", "pattern"), POSITIVE)
def test_street_names(text: str, spans: list[str], pattern: str) -> None:
    found = StreetNameRecognizer().analyze(text)
    assert [text[f.start : f.end] for f in found] == spans
    assert found[0].explanation is not None
    assert found[0].explanation.pattern_name == pattern
    assert found[0].tier == 1


NEGATIVE = [
    "The Supreme Court ruled.",  # a court, not "on" anything
    "Diane Lane starred in it.",
    "Meet me at Hickory Lane",  # "at" is no street preposition: "at Google"
    "Read the Wall Street Journal.",  # the type inside a longer name
    "Elm Street Bank opened",
    "We met on Spring Break",  # everyday types are no street without a number
    "The Credit Union on call",
    "Call the Medical Center",
    "She works on Capitol Hill",  # nature's types need an address cue, not "on"
    "We sailed on Cayman Islands time",
    "on Silver Lake",
    "the N St exit",  # no name, only a direction
    # a given name and a surname that is a street's type; the cue after is the person's
    "My friend Sandra Hill lives nearby.",
    "She lives with Sandra Hill.",
    "On Street parking",
    # after "on", a given name and a surname-like type is a person without an address cue
    "We rely on Mary Field for payroll.",
    "He was counting on Andrew Fields.",
    # everyday types need a street preposition and an address cue
    "He has been on Death Row since 1998.",
    "The report focused on Union Station renovations.",
    "She lives in Leeds, near the Medical Center.",
    "She wrote on Arab Spring politics.",
    # people live in places and on streets; "the" comes before places and nature
    "Her parents still live in Cayman Islands.",
    "She lives in South Georgia and the South Sandwich Islands.",
    "He lives by the Hudson River.",
    # a clinical note: wards and units, not streets
    "Pt lives at home. Transferred to Heart Lake unit. BP 120/80, HR 72, NPO after MN.",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_not_street_names(text: str) -> None:
    assert StreetNameRecognizer().analyze(text) == []


def test_numbered_street_and_name_merge_into_one_span(analyzer: TextAnalyzer) -> None:
    text = "Ship it to 12 Elm Street, please."
    found = [f for f in analyzer.analyze(text) if f.entity_type == "STREET_ADDRESS"]
    assert [text[f.start : f.end] for f in found] == ["12 Elm Street"]


def test_the_type_lists_are_apart() -> None:
    assert not _ROAD_TYPES & _CUED_TYPES
    assert not _ROAD_TYPES & _FEATURE_TYPES
    assert not _CUED_TYPES & _FEATURE_TYPES
    assert not (_ROAD_TYPES | _CUED_TYPES | _FEATURE_TYPES) & _BUSY_TYPES


def test_faker_street_names_of_road_types() -> None:
    """Our own generated data: every Faker street name whose type is a road's counts in any
    sentence; one of the other types counts after "off" (and not after "visited")."""
    fake = Faker("en_US")
    fake.seed_instance(3)
    r = StreetNameRecognizer()
    roads = cued = 0
    for _ in range(3000):
        name = fake.street_name()
        kind = name.split()[-1]
        if kind in _ROAD_TYPES and roads < 60:
            text = f"We visited {name} yesterday."
            found = r.analyze(text)
            assert [text[f.start : f.end] for f in found] == [name], name
            roads += 1
        elif kind in _CUED_TYPES and cued < 60:
            text = f"The shop off {name} closed."
            found = r.analyze(text)
            assert [text[f.start : f.end] for f in found] == [name], name
            assert r.analyze(f"We visited {name} yesterday.") == []
            cued += 1
    assert roads == 60 and cued == 60


UNITS = [
    ("I live in Apt. 960 now", "Apt. 960"),
    ("Send it to Suite 210.", "Suite 210"),
    ("Apartment #12 is empty", "Apartment #12"),
    ("Ste 4B", "Ste 4B"),
]


@pytest.mark.parametrize(("text", "span"), UNITS)
def test_home_unit_alone(analyzer: TextAnalyzer, text: str, span: str) -> None:
    found = [f for f in analyzer.analyze(text) if f.entity_type == "STREET_ADDRESS"]
    assert [text[f.start : f.end] for f in found] == [span]


@pytest.mark.parametrize(
    "text",
    ["Transferred to Unit 4.", "Room 12 is free", "Floor 3", "Apt. 4.5 stars", "a suite 3"],
)
def test_not_home_units(text: str) -> None:
    assert HomeUnitRecognizer().analyze(text) == []


def test_faker_secondary_addresses() -> None:
    fake = Faker("en_US")
    fake.seed_instance(5)
    r = HomeUnitRecognizer()
    for _ in range(100):
        unit = fake.secondary_address()
        text = f"It is {unit} on the left."
        assert [text[f.start : f.end] for f in r.analyze(text)] == [unit]


@pytest.mark.parametrize(
    ("span", "entity", "street"),
    [
        ("Walker Crossing", "PERSON", True),
        ("Kevin Heights", "PERSON", True),
        ("Mary Lane", "PERSON", False),  # Lane is a surname
        ("John Smith", "PERSON", False),
        ("Elm Street", "LOCATION", True),
        ("Jackson Heights", "LOCATION", False),  # a district
        ("Crossing", "PERSON", False),  # no name before the type
        ("Elm Street", "ORGANIZATION", False),
    ],
)
def test_ner_spans_that_are_streets(span: str, entity: str, street: bool) -> None:
    assert street_named(span, entity) is street


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        ("Elm Street", r"[A-Z][\w' -]+"),  # a street name: no number added
        ("Apt. 960", r"(?:Apt\.|Suite) \d+"),  # a unit: a unit
        ("12 Main St", r"\d+ [A-Z][\w' .-]+"),  # a street line: a street line
    ],
)
def test_surrogate_keeps_the_kind_of_address_part(value: str, shape: str) -> None:
    import re

    from veil.text.replacement._surrogate import SurrogateFactory

    fake = SurrogateFactory().make("STREET_ADDRESS", value, seed=3)
    assert re.fullmatch(shape, fake), fake
    assert (re.search(r"\d", fake) is None) == (re.search(r"\d", value) is None)
