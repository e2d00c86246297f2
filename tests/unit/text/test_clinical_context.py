"""Clinical context (issue #25, third round): charting notes without a marker, phones,
dates and institutions in their shapes, names grown over initials and surnames, and other
mentions of a found name or place; each with the charting it must leave alone."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from veil.text import TextAnalyzer
from veil.text.detection._clinical_allow import allow_pass_applies, clinical_findings
from veil.text.evaluation._corpus import generate_corpus
from veil.text.evaluation._corpus_business import generate_business_corpus
from veil.text.recognition._clinical_context import (
    charting_note,
    context_findings,
    extend_names,
    repeat_mentions,
)
from veil.text.recognition._finding import Explanation, Finding


def _context(text: str) -> dict[str, str]:
    return {text[f.start : f.end]: f.entity_type for f in context_findings(text)}


def _pass(text: str) -> dict[str, str]:
    return {
        text[f.start : f.end]: f.entity_type for f in clinical_findings(text, [], thorough=False)
    }


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        ("dtr Frances- 212- 476- 8356.", "212- 476- 8356", "PHONE_NUMBER"),
        ("call 1-800-555-0199 for results", "1-800-555-0199", "PHONE_NUMBER"),
        ("GRAND DAUGHTER-LUCI---301 944-5032. RESIDENT", "301 944-5032", "PHONE_NUMBER"),
        ("wife at (617) 555.0123 after 5", "(617) 555.0123", "PHONE_NUMBER"),
        ("LIVES ALONE. SON ROB 285-4821 AND A DTR", "285-4821", "PHONE_NUMBER"),
        ("call wife 867.5309 tonight", "867.5309", "PHONE_NUMBER"),
        # ten digits grouped 3-3-4, whatever the area code (fourth round)
        ("SON'S CELL 135 442-9738, HOME # ON CHART", "135 442-9738", "PHONE_NUMBER"),
        ("dtr at (104) 555-0123 after 5", "(104) 555-0123", "PHONE_NUMBER"),
        ("wife 012.555.0199 or cell", "012.555.0199", "PHONE_NUMBER"),
        ("son's cell 617555-0123 if needed", "617555-0123", "PHONE_NUMBER"),
        ("MET W/ CASEWORKER LEONA, SISTER IN", "LEONA", "PERSON"),
        ("PCP Okafor aware of plan", "Okafor", "PERSON"),
        ("RN Hall in to assess", "Hall", "PERSON"),
        ("wife's cell 555.0123 if needed", "555.0123", "PHONE_NUMBER"),
        ("cultures drawn on the 11th, no growth", "11th", "DATE_TIME"),
        ("admitted in sept. with PNA", "sept", "DATE_TIME"),
        ("sick since Aug, worse this wk", "Aug", "DATE_TIME"),
        ("LITHIUM TOXICITY-9/2/92. NKDA", "9/2/92", "DATE_TIME"),
        ("ADMITTED FROM UNIVERSITY OF MARYLAND MEDICAL", "UNIVERSITY OF MARYLAND", "LOCATION"),
        ("went to UOf Maryland Hosp w/ CP", "UOf Maryland", "LOCATION"),
        ("admitted to U Maryland ER w/ STEMI", "U Maryland", "LOCATION"),
        ("WENT TO HOLY CROSS WITH FEVER", "HOLY CROSS", "LOCATION"),
        ("to sacred heart hospital by ambulance", "sacred heart", "LOCATION"),
        ("TO GO TO ST. MARY ON TUESDAY", "ST. MARY", "LOCATION"),
        ("TAKEN TO LAUREL REGIONAL WHERE CK POS", "LAUREL REGIONAL", "LOCATION"),
        ("PT ADMITTED TO QUARTERMAIN7 W/ CHF", "QUARTERMAIN7", "LOCATION"),
        ("Per Quartermain 3 RN, UO 20cc", "Quartermain 3", "LOCATION"),
        ("poss transfer to quartermain 2/3. plan picc", "quartermain 2", "LOCATION"),
        ("FOUND IN HIS HOME IN MILFORD MILL BY EMS", "MILFORD MILL", "LOCATION"),
        ("SCREENED BY BALTIMORE REHAB TODAY", "BALTIMORE", "LOCATION"),
    ],
)
def test_context_shapes_found(text: str, value: str, entity: str) -> None:
    assert _context(text).get(value) == entity


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # doses, lab values, vitals, times, bed numbers, settings and counts
        ("I/O 500- 250- 1000 over the shift", "500- 250- 1000"),
        ("BP 110/70, HR 88, RR 18, 98% on 2L", "110/70"),
        ("K 3.1, Mg 2.0, given 40 meq KCL at 1400", "1400"),
        ("on levophed 12 mcg/min", "levophed 12"),
        ("moved to bed 12 at 0300", "bed 12"),
        ("CURRENTLY ON CACL 8GM/400CC", "CACL 8"),
        ("on PSV5/5/40% overnight", "5/5/40"),
        ("s/p 10 u of blood products", "u of blood"),
        ("ST. ELEVATION IN V2-V4", "ST. ELEVATION"),
        ("holy and sacred to the family", "holy and"),
        ("no change in dec of sats", "dec"),
        ("MAR reviewed, meds given in mar", "mar"),
        ("may go to rehab in may", "may"),
        ("no fluid in bursa on US", "bursa"),
        ("to the general floor today", "the general"),
        ("back to general medical floor", "general"),
        ("on the 2nd liter of NS", "2nd"),
        ("TV 450-500, RR 20-30, SVR 900-1300", "450-500"),
        ("VT 800-1000 rr 24", "800-1000"),
        ("RN aware of plan", "aware"),
        ("MD notified of K 3.1", "notified"),
        ("resident Will see pt", "Will"),
        ("nurse practitioner in to see pt", "practitioner"),
        ("SW consult placed", "consult"),
        ("NEEDS ATTENDING CO-SIGNATURE", "CO-SIGNATURE"),
        ("HER SVR IS 954-1183; CO 6.5", "954-1183"),
        ("UO 450-1251 cc over 8 hrs", "450-1251"),
        ("Tidal volumes 950-1000 on PS 10", "950-1000"),
        ("plt 150-1234 trending up", "150-1234"),
        ("I/O 100 250-1000 over the shift", "100 250-1000"),
        ("lytes 135 4.2-1001 pending", "135 4.2-1001"),
        ("MRN 1234567-8901 on file", "1234567-8901"),
        ("labs 12/05/2004, 120/80", "12/05/2004"),
        ("Pt seen by resident okafor", "okafor"),  # lower case in a note in ordinary case
    ],
)
def test_context_shapes_leave_charting_alone(text: str, value: str) -> None:
    assert value not in _context(text)


def test_charting_notes_without_a_marker() -> None:
    # two charting words make a note; business and everyday text never hold two
    assert charting_note("Pt suctioned for thick secretions.")
    assert charting_note("PT/RSD. Pt seen, will f/u 8/18.\nPager #54321")
    assert allow_pass_applies("hipaa", "Chart reviewed. No further PT needs, f/u tomorrow.")
    assert not charting_note("Please update the status of ticket 5521 by Friday.")
    assert not charting_note("The pager was returned to IT.")
    assert not charting_note("rx errors 12, tx errors 3 on eth0")  # a network's counters
    assert not charting_note("pls check pager rn")  # chat's "right now"
    assert not charting_note("Our labs lead mobility research.")
    for rec in generate_business_corpus(300, seed=7) + generate_corpus(300, seed=7):
        words = rec["full_text"]
        if charting_note(words):
            # only the general corpus's clinical templates read as charting
            assert allow_pass_applies("clinical", words)
            assert any(w in words.lower() for w in ("pt", "vent", "f/u", "meds", "labs"))


def _person(text: str, word: str) -> Finding:
    start = text.index(word)
    return Finding(start, start + len(word), "PERSON", 0.6, "test", 1, Explanation("x", "x"))


@pytest.mark.parametrize(
    ("text", "found", "grown"),
    [
        ("SX FOR SPUTUM. HERMAN W. EMPERATRICE, RRT", "EMPERATRICE", "HERMAN W. EMPERATRICE"),
        ("all is well at this time. s. roberto rrt", "roberto", "s. roberto"),
        ("dtr Frances Baker- 212- 476- 8356.", "Frances", "Frances Baker"),
        ("MET W/ CASEWORKER LEONA LABOWICH.", "LEONA", "LEONA LABOWICH"),
        ("checked alarms. David Murray RRT", "Murray", "David Murray"),
        # hostile: a temperature's letter, SOAP letters, a charting word, a line break
        ("ID: T MAX 100.8 PO", "MAX", "MAX"),
        ("A. DR RIDLON SPOKE WITH WIFE", "RIDLON", "RIDLON"),
        ("LARGE AMT STOOL TRACE QUIAC, VOIDING", "TRACE", "TRACE"),
        ("Frances\nBaker called", "Frances", "Frances"),
        ("spoke with Frances about dc", "Frances", "Frances"),
        ("DR LEONA AWARE", "LEONA", "LEONA"),
    ],
)
def test_names_grow_over_initials_and_surnames(text: str, found: str, grown: str) -> None:
    f = _person(text, found)
    (g,) = extend_names(text, [f], bytearray(len(text)))
    assert text[g.start : g.end] == grown


def test_coordinated_names() -> None:
    text = "Pmicu note: Drs' Ballou and Dutter pronounced. Dr. Roe and team aware. Pt on vent."
    found = _pass(text)
    assert found.get("Ballou") == "PERSON" and found.get("Dutter") == "PERSON"
    assert "team" not in found and "vent" not in found
    text = "DR ROE AND NEURO AWARE, PT ON VENT. DR LEE & LASIX GIVEN."
    assert not {"NEURO", "LASIX"} & set(_pass(text))


def test_names_do_not_grow_over_other_findings() -> None:
    text = "dtr Frances Baker- 212."
    taken = bytearray(len(text))
    taken[12:17] = b"\x01" * 5  # "Baker" already a finding
    (g,) = extend_names(text, [_person(text, "Frances")], taken)
    assert text[g.start : g.end] == "Frances"


def test_other_mentions_of_a_found_place_or_name() -> None:
    text = (
        "58 YR OLD FROM CALVERT HOSPITAL, TO QUARTERMAIN 3. 7/23 AT CALVERT- 2 FFP. "
        "QUARTERMAIN3 DEVELOPED CP. PT ON VENT, NPO."
    )
    found = _pass(text)
    assert found.get("CALVERT HOSPITAL") == "LOCATION"
    assert found.get("CALVERT") == "LOCATION" and found.get("QUARTERMAIN") == "LOCATION"
    # an unknown word reported for being unknown is not looked for again: abbreviations
    text = "PT WENT TO TNG DRIP. TNG HELD. NPO, VENT."
    assert "TNG" not in {text[f.start : f.end] for f in clinical_findings(text, [])[1:]}


def test_repeat_mentions_reads_only_strong_contexts() -> None:
    text = "From Calvert hosp. At CALVERT. Seen by Smith. Smith aware."
    facility = Finding(5, 17, "LOCATION", 0.6, "x", 1, Explanation("x", "facility"))
    unknown = Finding(37, 42, "PERSON", 0.6, "x", 1, Explanation("x", "not_in_allow_list"))
    taken = bytearray(len(text))
    for f in (facility, unknown):
        taken[f.start : f.end] = b"\x01" * (f.end - f.start)
    again = [text[f.start : f.end] for f in repeat_mentions(text, [facility, unknown], taken)]
    assert again == ["CALVERT"]


def test_repeat_mentions_of_a_person_ner_read() -> None:
    # since the eighth round: a person NER read is looked for again, its clinical words
    # never ("Lasix" of a misread span stays); NER's other types are not
    text = "Spoke with Hartwell Lasix. HARTWELL aware. Lasix given. Okonkwo Inc. Okonkwo aware."
    ner = Finding(11, 25, "PERSON", 0.85, "spacy_ner", 1, Explanation("spacy_ner", "PERSON"))
    a = text.index("Okonkwo Inc")
    org = Finding(a, a + 11, "ORGANIZATION", 0.85, "spacy_ner", 1, Explanation("spacy_ner", "ORG"))
    taken = bytearray(len(text))
    for f in (ner, org):
        taken[f.start : f.end] = b"\x01" * (f.end - f.start)
    again = [text[f.start : f.end] for f in repeat_mentions(text, [ner, org], taken)]
    assert again == ["HARTWELL"]


_TOKENS = st.sampled_from(
    [
        "pt", "DR", "Dr.", "HERMAN", "W.", "W", "EMPERATRICE", "s.", "roberto", "rrt",
        "RRT", "to", "from", "at", "in", "on", "the", "11th", "sept.", "Aug", "ST.",
        "MARY", "HOLY", "CROSS", "U", "of", "Maryland", "UOf", "ER", "QUARTERMAIN",
        "QUARTERMAIN7", "3", "2/3", "CALVERT", "HOSPITAL", "hosp", "REGIONAL", "LAUREL",
        "212-", "476-", "8356", "555.0123", "cell", "9/2/92", "TOXICITY-9/2/92", "mg",
        "40", "%", "\n", ",", ".", "Frances", "Baker", "dtr", "T", "MAX", "A.",
    ]
)  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(words=st.lists(_TOKENS, min_size=1, max_size=40), thorough=st.booleans())
@example(words=["DR", "W.", "roberto"], thorough=False)  # a name grown over a found initial
def test_context_and_growth_stay_inside_and_apart(words: list[str], thorough: bool) -> None:
    # every span lies inside the text and is not empty; a grown name keeps what it had;
    # the pass's findings never overlap one another (each word is reported once)
    text = " ".join(words)
    for f in context_findings(text):
        assert 0 <= f.start < f.end <= len(text) and text[f.start : f.end].strip()
    people = [
        Finding(m.start(), m.end(), "PERSON", 0.6, "x") for m in re.finditer(r"[A-Za-z]{3,}", text)
    ][:3]
    people = [p for i, p in enumerate(people) if all(p.start >= q.end for q in people[:i])]
    taken = bytearray(len(text))
    for p in people:
        taken[p.start : p.end] = b"\x01" * (p.end - p.start)
    for old, new in zip(people, extend_names(text, people, taken.copy()), strict=True):
        assert new.start <= old.start and new.end >= old.end
        assert "\n" not in text[new.start : new.end] or "\n" in text[old.start : old.end]
    found = sorted(clinical_findings(text, [], thorough=thorough), key=lambda f: f.start)
    for a, b in itertools.pairwise(found):
        assert a.end <= b.start


@pytest.fixture(scope="module")
def hipaa() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False, profile="hipaa")


def test_hipaa_profile_end_to_end(hipaa: TextAnalyzer) -> None:
    # through the public API, in a short note that only its charting words make one
    note = (
        "PT/RSD\nPt seen, will f/u 8/18. Had a bed @ St. Mary.\n"
        "Pager #54321\nSON ROB 285-482-5518. dtr Frances Baker- 212- 476- 8356."
    )
    found = {note[f.start : f.end] for f in hipaa.analyze(note)}
    assert {"54321", "8/18", "St. Mary", "285-482-5518", "212- 476- 8356"} <= found
    assert "Frances Baker" in found or {"Frances", "Baker"} <= found
    # outside a note nothing of the mode runs: a pager in a business mail stays as typed
    mail = "Please return the pager to IT by Friday; ticket 55210."
    assert not {f.recognizer for f in hipaa.analyze(mail)} & {"clinical_shapes"}


@pytest.mark.parametrize("thorough", [False, True])
def test_a_word_without_end_is_bounded(thorough: bool) -> None:
    # a run of letters with no space (a pasted blob): its one-letter misspellings were
    # looked up, and a word of 20,000 letters took 20 GB (quadratic); now it is judged in
    # bounded memory. 3,000 letters would take about 400 MB that way: enough to fail the bound
    # below without exhausting a test machine if the check is ever lost
    import tracemalloc

    text = "Pt on vent, suctioned. " + "x" * 3_000 + " wife Mary aware."
    tracemalloc.start()
    try:
        found = clinical_findings(text, [], thorough=thorough)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20
    assert "Mary" in {text[f.start : f.end] for f in found}
