"""Clinical names, eighth round of issue #25: surnames by their prefix, names beside a role
or a relation, capitalised frequent Census names, words only a name list holds; each rule
with the drugs, doses, organisms, devices, abbreviations and English words it must leave
alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.text import TextAnalyzer
from veil.text.detection._clinical_allow import clinical_findings
from veil.text.recognition._clinical_name_cues import (
    capitalised_frequent_names,
    cued_name_findings,
    is_eponym,
    listed_names,
    prefixed_surnames,
    role_side_names,
)
from veil.text.vocab._census import census_names

needs_census = pytest.mark.skipif(
    not census_names()[1], reason="the names package (Census lists) is not installed"
)


def _spans(findings: list, text: str) -> list[str]:
    return [text[f.start : f.end] for f in findings]


# ---- a surname's prefix ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Seen by O'Donnell this am.", "O'Donnell"),
        ("PT SEEN BY O'DONNELL.", "O'DONNELL"),
        ("Family asked for D'Angelo.", "D'Angelo"),
        ("Labs sent, McCafferty aware.", "McCafferty"),
        ("MacArthur to see pt.", "MacArthur"),
        ("O’Brien paged.", "O’Brien"),  # a typographic apostrophe
    ],
)
def test_prefixed_surnames(text: str, value: str) -> None:
    assert _spans(prefixed_surnames(text, bytearray(len(text))), text) == [value]


@pytest.mark.parametrize(
    "text",
    [
        "Turned at 3 o'clock, pt comfortable.",
        "Meds due at 2 O'Clock.",
        "Mace spray in room per security.",  # no capital inside the word
        "Macrobid 100 mg PO given.",
        "McBurney point tender.",  # an eponym
    ],
)
def test_prefixed_surnames_leave_words(text: str) -> None:
    assert prefixed_surnames(text, bytearray(len(text))) == []


def test_prefixed_surname_skips_what_is_taken() -> None:
    text = "Seen by O'Donnell."
    taken = bytearray(len(text))
    taken[8:12] = b"\x01" * 4
    assert prefixed_surnames(text, taken) == []


# ---- a name beside a role or a relation -------------------------------------------------------
@needs_census
@pytest.mark.parametrize(
    ("text", "mixed", "value"),
    [
        ("HARTWELL RN AT BEDSIDE.", False, "HARTWELL"),
        ("report to rn okonkwo at 7p.", False, "okonkwo"),
        ("Care per Kowalczyk, NP.", True, "Kowalczyk"),
        ("WIFE ROSE AWARE OF PLAN.", False, "ROSE"),  # an English word after a relation
        ("son frank called, will come in.", False, "frank"),
        ("Husband Gerald at bedside.", True, "Gerald"),
    ],
)
def test_role_side_names(text: str, mixed: bool, value: str) -> None:
    assert _spans(role_side_names(text, bytearray(len(text)), mixed=mixed), text) == [value]


@needs_census
@pytest.mark.parametrize(
    ("text", "mixed"),
    [
        ("RN GAVE LASIX 40 MG IV. MD ORDERS NOTED.", False),  # a drug and a dose
        ("SON WILL CALL BACK. WIFE MAY VISIT.", False),  # common words after a relation
        ("Pt seen by rn okonkwo.", True),  # lower case in a note in ordinary case
        ("NP aware, PA to see pt, MD notified.", True),  # roles beside English words
        ("RN placed Foley, MD reviewed CXR.", True),  # a device and an abbreviation
        ("wife\nOkonkwo called", True),  # a line break between the two
        ("RN MRSA SCREEN SENT, MD KLEBSIELLA IN URINE.", False),  # organisms
    ],
)
def test_role_side_names_leave_charting(text: str, mixed: bool) -> None:
    assert role_side_names(text, bytearray(len(text)), mixed=mixed) == []


# ---- a capitalised frequent name in mid-sentence -------------------------------------------
@needs_census
@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        ("Pt seen by Fowler today.", "Fowler", "PERSON"),
        ("Will f/u with Marsh in clinic.", "Marsh", "PERSON"),
        ("Report given to Coleman at 7p.", "Coleman", "LOCATION"),
        ("Plan to transfer pt to Whitman Rehab.", "Whitman", "LOCATION"),
    ],
)
def test_capitalised_frequent_names(text: str, value: str, entity: str) -> None:
    found = capitalised_frequent_names(text, bytearray(len(text)), mixed=True)
    assert [(text[f.start : f.end], f.entity_type) for f in found] == [(value, entity)]


@needs_census
@pytest.mark.parametrize(
    "text",
    [
        "Fowler seen today.",  # a sentence's first word: the capital says nothing
        "Pt given Lasix 40 mg and Coumadin 5 mg.",  # drugs
        "Cx grew Klebsiella and Candida.",  # organisms
        "Swan Ganz catheter placed, Levin tube to LIS.",  # eponyms
        "Holter monitor on, Penrose drain intact, Hx of Parkinson disease.",
        "Pt will Rose slowly, Bill sent.",  # verbs and common words
        "BP 120/80, HR 88, SpO2 97% on 2L NC.",  # vitals and units
    ],
)
def test_capitalised_frequent_names_leave_charting(text: str) -> None:
    assert capitalised_frequent_names(text, bytearray(len(text)), mixed=True) == []


def test_capitalised_frequent_names_need_a_note_in_ordinary_case() -> None:
    text = "PT SEEN BY FOWLER TODAY."
    assert capitalised_frequent_names(text, bytearray(len(text)), mixed=False) == []


# ---- a word only a name list holds ------------------------------------------------------------
@needs_census
@pytest.mark.parametrize(
    ("text", "case", "value"),
    [
        ("Kowalczyk called for update.", "mixed", "Kowalczyk"),
        ("PT SEEN BY OKONKWO THIS AM.", "upper", "OKONKWO"),
        ("pt seen by okonkwo this am.", "lower", "okonkwo"),
    ],
)
def test_listed_names(text: str, case: str, value: str) -> None:
    assert _spans(listed_names(text, bytearray(len(text)), case=case), text) == [value]


@needs_census
@pytest.mark.parametrize(
    ("text", "case"),
    [
        ("Pt given Lasix, Foley placed, Vanco and Zosyn started.", "mixed"),
        ("PT GIVEN LASIX, FOLEY PLACED, VANCO AND ZOSYN STARTED.", "upper"),
        ("cx grew klebsiella and pseudomonas, candida in urine.", "lower"),
        ("SWAN GANZ CATHETER PLACED.", "upper"),  # an eponym
        ("pt seen by okonkwo this am.", "mixed"),  # lower case in a note in ordinary case
        ("PT SEEN BY OKONKWO.", "lower"),  # not the note's case
        ("NEURO: A&OX3, MAE, PERRLA. RESP: LS CLEAR, SATS 97%.", "upper"),
    ],
)
def test_listed_names_leave_charting(text: str, case: str) -> None:
    assert listed_names(text, bytearray(len(text)), case=case) == []


# ---- eponyms ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "word", "expected"),
    [
        ("Swan Ganz catheter placed.", "Ganz", True),
        ("Jackson-Pratt drain intact.", "Pratt", True),
        ("Glasgow coma scale 14.", "Glasgow", True),
        ("Bair Hugger on.", "Bair", True),
        ("Fowler aware of the catheter.", "Fowler", False),
        ("Seen by Fowler.", "Fowler", False),
    ],
)
def test_is_eponym(text: str, word: str, expected: bool) -> None:
    a = text.index(word)
    assert is_eponym(text, a, a + len(word)) is expected


# ---- through the pass and the profile ---------------------------------------------------------
@needs_census
def test_through_the_allow_pass() -> None:
    text = "Pt NPO, lasix given. Seen by O'Donnell and Fowler. Holter monitor on. HR 88."
    got = _spans(clinical_findings(text, [], thorough=False), text)
    assert "O'Donnell" in got and "Fowler" in got
    assert not any("Holter" in g or "lasix" in g for g in got)


@needs_census
def test_default_profile_runs_none_of_it() -> None:
    text = "Pt NPO, cont lasix. Seen by O'Donnell and Fowler. HARTWELL RN AT BEDSIDE."
    default = TextAnalyzer.from_config(ner=False)
    hipaa = TextAnalyzer.from_config(ner=False, profile="hipaa")
    rules = {f.explanation.pattern_name for f in default.analyze(text) if f.explanation is not None}
    assert not rules & {"prefixed_surname", "role_side_name", "capitalised_frequent_name"}
    assert "O'Donnell" in _spans(hipaa.analyze(text), text)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from("aAoO'’McDR nN.,\nsSwWiIfFeE-"), max_size=80))
def test_findings_stay_inside_and_apart(text: str) -> None:
    # spans stay inside the text and never overlap one another or what was taken
    taken = bytearray(len(text))
    taken[: len(text) // 3] = b"\x01" * (len(text) // 3)
    before = bytes(taken)
    for case in ("mixed", "upper", "lower"):
        work = bytearray(before)
        found = cued_name_findings(text, work, case=case)
        marks = bytearray(len(text))
        for f in found:
            assert 0 <= f.start < f.end <= len(text)
            assert before.find(1, f.start, f.end) < 0
            assert marks.find(1, f.start, f.end) < 0
            marks[f.start : f.end] = b"\x01" * (f.end - f.start)
