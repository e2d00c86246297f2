"""Clinical names and places (issue #25, fifth round): the rest of a shape that NER read in
part, a first name with an unknown surname, places after a move, places joined to a
place, residences, first names after a contact verb, relations in parentheses and dotted
initials; each with the charting, drug names and units it must leave alone."""

from __future__ import annotations

import pytest

from veil.text import TextAnalyzer
from veil.text.detection._clinical_allow import clinical_findings
from veil.text.evaluation._corpus_clinical import SHAPE_LINES, generate_clinical_shape_notes
from veil.text.recognition._clinical_names import shape_remainders
from veil.text.recognition._finding import Explanation, Finding


def _pass(text: str) -> dict[str, str]:
    return {
        text[f.start : f.end]: f.entity_type for f in clinical_findings(text, [], thorough=False)
    }


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        # a first name and a surname no dictionary holds, in the same case
        (
            "pt alert. mary theresa kondouli from speech in today.",
            "mary theresa kondouli",
            "PERSON",
        ),
        ("DENTURES TAKEN HOME BY LISA ROSSETTI, NIECE.", "LISA ROSSETTI", "PERSON"),
        ("NPO. Seen by Yolanda Okonkwo today.", "Yolanda Okonkwo", "PERSON"),
        # places after a move, short ones and lower case too
        ("Pt npo. transfered to gh 7/22, report called.", "gh", "LOCATION"),
        ("PT NPO. SENT TO BWH FOR CATH.", "BWH", "LOCATION"),
        ("Pt transferred from Kimbrough this am on levophed.", "Kimbrough", "LOCATION"),
        # a place joined to a facility
        ("PT NPO. SCREENED BY CALVERT REHAB AND KIMBROUGH.", "KIMBROUGH", "LOCATION"),
        # residences
        ("89 yo woman, Grieco House NH resident, admitted to CCU.", "Grieco House NH", "LOCATION"),
        ("PT IS A BROOKHAVEN SNF RESIDENT, NPO.", "BROOKHAVEN SNF", "LOCATION"),
        # a first name after a contact verb, an English verb too, in a note in ordinary case
        ("Pt NPO. Only able to reach Rob, will call back.", "Rob", "PERSON"),
        # relations in parentheses
        ("Pt NPO. Husband (Frank) at bedside.", "Frank", "PERSON"),
        ("Pt NPO. Yolanda (daughter) called for update.", "Yolanda", "PERSON"),
        # dotted initials in a name's context
        ("Pt NPO. Seen by Dr. J.R. today, recs noted.", "J.R.", "PERSON"),
        ("Pt NPO. K.W. RN aware of uop.", "K.W.", "PERSON"),
    ],
)
def test_names_and_places_in_context(text: str, value: str, entity: str) -> None:
    # every letter of the value is covered by a finding of the entity (one finding or
    # several: another rule may read a part first)
    kinds = [""] * len(text)
    for f in clinical_findings(text, [], thorough=False):
        kinds[f.start : f.end] = [f.entity_type] * (f.end - f.start)
    a = text.index(value)
    got = {kinds[i] for i in range(a, a + len(value)) if text[i].isalnum()}
    assert got == {entity}, _pass(text)


@pytest.mark.parametrize(
    "text",
    [
        # clinical words, drug names and units after a first name, a move or a relation
        "pt alert. mary lasix 40 given, mary rounds at 0800.",
        "LINES: R fem introducer, await team to place TLC.",
        "Pt transferred to the floor, then sent to rm 12 on levophed.",
        "Pt npo. transfered to stepdown, pt transported to ctscan for chest.",
        "Pt NPO. Transferred to hosp. for MRI, sent to micu at 1600.",
        "PT NPO. TO GO HOME AND REST, SCREENED BY REHAB AND PT.",
        "Pt NPO. Lives in a house with wife; the Senate House visit noted.",
        "Pt NPO. Only able to reach Pharmacy; called Lab for K 3.1.",
        "Pt NPO. Husband (HCP) at bedside; meds (lasix) given.",
        "Pt NPO. Meds given P.O. and I.V. at 0800, 40 MEQ KCL P.O.",
        "Pt npo. dr aware of uop 20 cc/hr, heparin 1000 units/hr.",
    ],
)
def test_charting_left_alone(text: str) -> None:
    found = _pass(text)
    new_rules = {
        "first_and_surname",
        "moved_to",
        "coordinated_place",
        "residence",
        "contacted_name",
        "relation_in_parens",
        "initials",
        "shape_remainder",
    }
    flagged = [
        text[f.start : f.end]
        for f in clinical_findings(text, [], thorough=False)
        if f.explanation and f.explanation.pattern_name in new_rules
    ]
    assert flagged == [], found


def test_shape_remainder_adds_what_ner_left_out() -> None:
    text = "PT NPO. TAKEN TO LAUREL REGIONAL WHERE CK POS. TO KERNAN HOSPITAL."
    a, b = text.index("LAUREL"), text.index("KERNAN")
    shapes = [
        Finding(a, a + 15, "LOCATION", 0.6, "x", 1, Explanation("x", "facility")),
        Finding(b, b + 15, "LOCATION", 0.6, "x", 1, Explanation("x", "facility")),
    ]
    taken = bytearray(len(text))
    taken[a : a + 6] = b"\x01" * 6  # NER read "LAUREL"
    taken[b : b + 6] = b"\x01" * 6  # and "KERNAN"
    added = [text[f.start : f.end] for f in shape_remainders(text, shapes, taken)]
    assert added == ["REGIONAL"]  # a facility's kind ("HOSPITAL") is a description


def test_through_the_hipaa_profile() -> None:
    analyzer = TextAnalyzer.from_config(ner=False, profile="hipaa")
    text = "Pt NPO, cont lasix. transfered to gh 7/22. mary theresa kondouli from speech."
    got = {text[f.start : f.end] for f in analyzer.analyze(text)}
    assert {"gh", "mary theresa kondouli"} <= got
    assert not {"lasix", "NPO", "speech"} & got


def test_generated_notes_carry_the_new_shapes() -> None:
    assert sum("first_unknown_last" in line for line in SHAPE_LINES) >= 2
    notes = generate_clinical_shape_notes(200, seed=25)
    analyzer = TextAnalyzer.from_config(ner=False, profile="hipaa")
    hit = total = 0
    for note, found in zip(
        notes, analyzer.analyze_batch([n["full_text"] for n in notes]), strict=True
    ):
        text = note["full_text"]
        covered = bytearray(len(text))
        for f in found:
            covered[f.start : f.end] = b"\x01" * (f.end - f.start)
        for s in note["spans"]:
            line = text[text.rfind("\n", 0, s["start_position"]) + 1 :].split("\n", 1)[0]
            if not any(
                k in line
                for k in (
                    "speech and swallow",
                    "DENTURES",
                    "transfered",
                    "SCREENED BY",
                    "resident, admitted",
                    "reach",
                    "Husband (",
                    "Seen by Dr. ",
                )
            ):
                continue
            total += 1
            hit += covered.find(1, s["start_position"], s["end_position"]) >= 0
    assert total >= 50
    assert hit / total >= 0.9, (hit, total)


# ---- names by their shape however English, what follows a person, capitals (sixth round) --
def _values(text: str, rules: set[str]) -> list[str]:
    return [
        text[f.start : f.end]
        for f in clinical_findings(text, [], thorough=False)
        if f.explanation and f.explanation.pattern_name in rules
    ]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # a pair of frequent names before what follows a person, English words both
        ("Pt NPO. Hope and Foster aware of plan.", "Hope"),
        ("Pt NPO. Hope and Foster aware of plan.", "Foster"),
        ("PT NPO. PAGE AND GREEN NOTIFIED OF K 3.1.", "GREEN"),
        # one initial and a frequent surname, a signature before a role
        ("Pt NPO. Seen by E. Price, neuro recs noted.", "E. Price"),
        ("pt npo, all is well at this time. d. white rrt", "d. white"),
        # a first name that is no English word takes an English surname after it
        ("Pt NPO. dtr Samantha White called for update.", "Samantha White"),
        # what follows a person: "at bedside", "is aware", "in to visit"
        ("Pt NPO. Griffin at bedside, updated on plan.", "Griffin"),
        ("Pt NPO, cont lasix. Tshabalala is aware of plan.", "Tshabalala"),
        # a capitalised word in mid-sentence that no dictionary holds
        ("Pt NPO, cont lasix. Case reviewed with Tshabalala today.", "Tshabalala"),
        # a rare Census name one letter off an English word, capitalised in mid-sentence
        ("Pt NPO, cont lasix. Case reviewed with Weltmer today.", "Weltmer"),
        # a signature on the note's last line
        ("Pt NPO, cont lasix, plan as above.\nTshabalala\n", "Tshabalala"),
    ],
)
def test_names_by_shape_and_position(text: str, value: str) -> None:
    got = {
        text[f.start : f.end]
        for f in clinical_findings(text, [], thorough=False)
        if f.entity_type == "PERSON"
    }
    assert any(value in g for g in got), _pass(text)


@pytest.mark.parametrize(
    "text",
    [
        # pairs of clinical or everyday words before "aware", words after a list's letter
        "Pt NPO. Pain and Nausea aware of plan. Heat and Ice applied.",
        "PT NPO. SKIN AND NEURO NOTIFIED. MD AND RN AWARE.",
        "Plan: A. Pain control. B. Skin care. C. Diet as tol.",
        "Pt NPO. E. coli in urine, S. aureus in sputum, C. Diff neg.",
        "Pt NPO. Pt at bedside chair; family at bedside, wife is aware.",
        # drugs, doses, devices in capitals mid-sentence; sentence starts; compounds
        "Pt NPO, cont Lasix 40 mg IV and Metoprolol 25 mg, Heparin 1000 units/hr.",
        "Pt NPO. Placed on Stepdown monitor, Extubated at 0800 without difficulty.",
        "Pt NPO. R fem Introducer in place, Cefazolin given at 0800.",
        # a last line of English or clinical words is no signature
        "Pt NPO, cont lasix, plan as above.\nWill follow.\n",
        "Pt NPO, cont lasix.\nCont Lasix\n",
        "Pt NPO, cont lasix.\nHope Price\n",
    ],
)
def test_shapes_leave_charting_alone(text: str) -> None:
    assert _values(text, {"name_shape", "capitalised"}) == [], _pass(text)
    # "at bedside" makes no name of a word that is none ("Pt", "family", "wife")
    assert not {"Pt", "family", "wife", "Pain", "Nausea", "SKIN"} & set(_pass(text))


def test_a_name_read_by_its_shape_is_read_again_elsewhere() -> None:
    # the signature names the writer; an earlier mention in lower case is the same name,
    # an English surname read by its shape is not looked for again ("price of meds")
    text = "Pt NPO, cont lasix, plan reviewed w tshabalala.\nTshabalala\n"
    assert {"tshabalala", "Tshabalala"} <= set(_pass(text))
    text = "Pt NPO, cont lasix. Seen by E. Price, recs noted; price of meds discussed."
    assert set(_pass(text)) == {"E. Price"}
