"""Clinical names, ninth round of issue #25: names the Census saw often, however English,
where only a person stands (beside a relation or a care-team role, before what follows a
person, after a contact or a hand-off), the initials and the rest of a name found in
part, and a title glued to its name; each rule with the drugs, doses, devices, roles,
relations, auxiliaries and English words it must leave alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.text import TextAnalyzer
from veil.text.detection._clinical_allow import clinical_findings
from veil.text.recognition._clinical_name_cues import (
    contacted_names,
    followed_names,
    name_neighbours,
    person_initials,
    role_side_names,
)
from veil.text.recognition._clinical_shapes import shape_findings
from veil.text.recognition._finding import Finding
from veil.text.vocab._census import census_names

needs_census = pytest.mark.skipif(
    not census_names()[1], reason="the names package (Census lists) is not installed"
)


def _spans(findings: list, text: str) -> list[str]:
    return [text[f.start : f.end] for f in findings]


def _person(text: str, word: str) -> Finding:
    a = text.index(word)
    return Finding(a, a + len(word), "PERSON", 0.6, "test")


# ---- a frequent name before what follows a person --------------------------------------------
@needs_census
@pytest.mark.parametrize(
    ("text", "mixed", "value"),
    [
        ("Pt NPO. Hope aware of plan.", True, "Hope"),
        ("K 3.1, Young notified.", True, "Young"),
        ("PT RESTING. YOUNG AT BEDSIDE.", False, "YOUNG"),
        ("pt resting. grace in to visit this pm.", False, "grace"),
        ("Bell is aware of the cxr.", True, "Bell"),
    ],
)
def test_followed_names(text: str, mixed: bool, value: str) -> None:
    assert _spans(followed_names(text, bytearray(len(text)), mixed=mixed), text) == [value]


@needs_census
@pytest.mark.parametrize(
    ("text", "mixed"),
    [
        ("Family made aware. Team aware. MD aware.", True),  # who else is in the room
        ("Son in to visit. Wife at bedside.", True),  # relations
        ("SON WILL CALL. PT AWARE. HO NOTIFIED.", False),  # an auxiliary, roles
        ("Foley at bedside. Lasix is given.", True),  # a device, a drug
        ("pt made aware. staff notified. resident paged.", False),
        ("young pt aware of plan.", True),  # lower case in a note in ordinary case
        ("Swan Ganz catheter in. Holter monitor at bedside.", True),  # eponyms
    ],
)
def test_followed_names_leave_charting(text: str, mixed: bool) -> None:
    assert followed_names(text, bytearray(len(text)), mixed=mixed) == []


@needs_census
def test_a_surname_after_a_found_first_name_stays_one_name() -> None:
    # the first name found before it grows over the surname: one span, not two
    text = "Pt NPO. dtr Samantha White called for update."
    got = _spans(clinical_findings(text, [], thorough=False), text)
    assert "Samantha White" in got


@needs_census
def test_a_surname_the_growth_leaves_is_still_read() -> None:
    # "Dana" is a dictionary's word: the growth leaves "Price", the relation reads it
    text = "Pt NPO, lasix given. Family meeting with Dana Price (HCP) and Dr. Roe."
    first = text.index("Dana")
    found = [Finding(first, first + 4, "PERSON", 0.6, "test")]
    got = _spans(clinical_findings(text, found, thorough=False), text)
    assert "Price" in got or "Dana Price" in got


# ---- a frequent name after a contact or a hand-off -------------------------------------------
@needs_census
@pytest.mark.parametrize(
    ("text", "mixed", "value"),
    [
        ("D/w Young re plan.", True, "Young"),
        ("report given to bell at 7p.", False, "bell"),
        ("RN COVERING FOR PRICE TONIGHT.", False, "PRICE"),
        ("Code status: HCP is Grace.", True, "Grace"),
        ("Spoke with Long re dispo.", True, "Long"),
        ("c/o given to young at 7a.", False, "young"),  # care handed over
        ("Emergency contact: Rose, cell on file.", True, "Rose"),
        ("HOPE (WIFE) CALLED FOR UPDATE.", False, "HOPE"),  # a relation in parentheses
        ("Grace (dtr) in to visit.", True, "Grace"),
    ],
)
def test_contacted_names(text: str, mixed: bool, value: str) -> None:
    assert _spans(contacted_names(text, bytearray(len(text)), mixed=mixed), text) == [value]


@needs_census
@pytest.mark.parametrize(
    ("text", "mixed"),
    [
        ("Heparin per protocol. Spoke with family.", True),
        ("PER CASE WORKER, TO REHAB. SPOKE WITH HOUSE STAFF.", False),  # a role's name
        ("d/w md, will cont lasix per team.", False),
        ("Lasix given w/ good effect.", True),  # no contact before it
        ("Per Will, no change.", True),  # an auxiliary
        ("per pt, pain 4/10.", False),
        ("c/o pain in young adult.", False),  # "complains of": no hand-off
        ("Contact: family. Lasix (wife) held.", True),  # a relation, a drug
        ("Will (son) call back.", True),  # an auxiliary before the relation
    ],
)
def test_contacted_names_leave_charting(text: str, mixed: bool) -> None:
    assert contacted_names(text, bytearray(len(text)), mixed=mixed) == []


# ---- a frequent name beside a care-team role or after a relation --------------------------------
@needs_census
@pytest.mark.parametrize(
    ("text", "mixed", "value"),
    [
        ("Young RN at bedside.", True, "Young"),
        ("wife hope aware of plan.", False, "hope"),
        ("ATTENDING PRICE TO SEE PT.", False, "PRICE"),
    ],
)
def test_role_side_frequent_names(text: str, mixed: bool, value: str) -> None:
    assert _spans(role_side_names(text, bytearray(len(text)), mixed=mixed), text) == [value]


@needs_census
@pytest.mark.parametrize(
    ("text", "mixed"),
    [
        ("SWAN NUMBERS PA 60/30. ETT AT 24 CM MARK.", False),  # PA, CM: no care team
        ("PT HAD RT FEM SHEATH REMOVED.", False),  # RT is right
        ("son will call in am. wife still here.", False),  # an auxiliary, an adverb
        ("RN gave Lasix, MD made aware.", True),
    ],
)
def test_role_side_frequent_names_leave_charting(text: str, mixed: bool) -> None:
    assert role_side_names(text, bytearray(len(text)), mixed=mixed) == []


# ---- initials and the rest of a name found in part ----------------------------------------------
@pytest.mark.parametrize(
    ("text", "names", "value"),
    [
        ("ALL WELL. Q. LANDER RRT", ["LANDER"], "Q."),
        ("Seen by Roe, J. today.", ["Roe"], "J"),
        ("ROBERT V DEGIORGIO, RRT", ["ROBERT", "DEGIORGIO"], "V"),
        ("all well. s. roberto rrt", ["roberto"], "s."),
    ],
)
def test_person_initials(text: str, names: list[str], value: str) -> None:
    people = [_person(text, n) for n in names]
    assert _spans(person_initials(text, people, bytearray(len(text))), text) == [value]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("ID: T MAX 101. MAX", "MAX"),  # a bare letter before a word: a temperature's T
        ("pain r/t Roe", "Roe"),  # a slash's letter
        ("A&O. PLEASANT", "PLEASANT"),  # an ampersand's letter
        ("PVC'S. HEMODYNAMICS", "HEMODYNAMICS"),  # a plural's letter
        ("Will have a Permacath placed.", "Permacath"),  # a word, not an initial
        ("Spoke with Roe, I. e. no change", "Roe"),  # "I" is no initial after a name
    ],
)
def test_person_initials_leave_letters(text: str, name: str) -> None:
    assert person_initials(text, [_person(text, name)], bytearray(len(text))) == []


@needs_census
@pytest.mark.parametrize(
    ("text", "name", "case", "value"),
    [
        ("Seen by Maria Kondouli today.", "Maria", "mixed", "Kondouli"),
        ("Seen by Kondouli Maria today.", "Maria", "mixed", "Kondouli"),
        ("spoke with maria kondouli re plan.", "maria", "lower", "kondouli"),
    ],
)
def test_name_neighbours(text: str, name: str, case: str, value: str) -> None:
    got = name_neighbours(text, [_person(text, name)], bytearray(len(text)), case=case)
    assert _spans(got, text) == [value]


@needs_census
@pytest.mark.parametrize(
    ("text", "name", "case"),
    [
        ("Hall Lasix given.", "Hall", "mixed"),  # a drug
        ("TRACE QUIAC STOOL.", "TRACE", "upper"),  # an unknown word in capitals
        ("LOPRESSOR HELD TODAY.", "LOPRESSOR", "upper"),  # an English word
        ("Tolerated Passy Muir valve.", "Tolerated", "mixed"),  # an eponym
        ("Seen by Maria kondouli.", "Maria", "mixed"),  # lower case in ordinary case
        ("son Rob\nKondouli called", "Rob", "mixed"),  # another line
    ],
)
def test_name_neighbours_leave_words(text: str, name: str, case: str) -> None:
    assert name_neighbours(text, [_person(text, name)], bytearray(len(text)), case=case) == []


# ---- a title glued to its name -----------------------------------------------------------------
@needs_census
@pytest.mark.parametrize(
    ("text", "value"), [("Dr.Young notified.", "Young"), ("SEEN BY DR.LAVELY.", "LAVELY")]
)
def test_title_glued_to_its_name(text: str, value: str) -> None:
    assert value in _spans(shape_findings(text), text)


@pytest.mark.parametrize("text", ["Dr.Aware of plan.", "DR.WILL SEE PT.", "ID.CARD here"])
def test_title_glued_leaves_words(text: str) -> None:
    got = [f for f in shape_findings(text) if f.entity_type == "PERSON"]
    assert got == []


# ---- the profile and the properties --------------------------------------------------------------
@needs_census
def test_default_profile_runs_none_of_it() -> None:
    text = "Pt NPO, cont lasix. Hope aware. D/w Young re plan. Young RN at bedside."
    default = TextAnalyzer.from_config(ner=False)
    hipaa = TextAnalyzer.from_config(ner=False, profile="hipaa")
    rules = {f.explanation.pattern_name for f in default.analyze(text) if f.explanation is not None}
    assert not rules & {"followed_name", "contacted_name", "name_neighbour", "initial"}
    got = _spans(hipaa.analyze(text), text)
    assert "Hope" in got and "Young" in got


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from("aAhHoOpPeEyYuUnNgG d/wDRr.,\n"), max_size=80))
def test_findings_stay_inside_and_apart(text: str) -> None:
    # spans stay inside the text and never overlap one another or what was taken
    taken = bytearray(len(text))
    taken[: len(text) // 3] = b"\x01" * (len(text) // 3)
    before = bytes(taken)
    for mixed in (True, False):
        work = bytearray(before)
        found = [
            *followed_names(text, work, mixed=mixed),
            *contacted_names(text, work, mixed=mixed),
        ]
        marks = bytearray(len(text))
        for f in found:
            assert 0 <= f.start < f.end <= len(text)
            assert before.find(1, f.start, f.end) < 0
            assert marks.find(1, f.start, f.end) < 0
            marks[f.start : f.end] = b"\x01" * (f.end - f.start)
