"""The recall-first clinical mode: shapes, the allow-list pass, its confinement to the
clinical profiles, and bad input (issue #25)."""

from __future__ import annotations

import ast
import json
import logging
import os
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.text import TextAnalyzer, generate_clinical_notes, generate_corpus
from veil.text.detection._clinical_allow import WINDOW, allow_pass_applies, clinical_findings
from veil.text.evaluation._corpus_clinical import SHAPE_LINES, generate_clinical_shape_notes
from veil.text.recognition._clinical_shapes import shape_findings
from veil.text.vocab._clinical_vocab import is_safe_word

CLINICAL = {"clinical_allow", "clinical_shapes"}


def _shapes(text: str) -> dict[str, str]:
    return {text[f.start : f.end]: f.entity_type for f in shape_findings(text)}


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        ("Echo done 9/7, EF 35%.", "9/7", "DATE_TIME"),
        ("Last colonoscopy 8/87.", "8/87", "DATE_TIME"),
        ("Hx: s/p mi '92, htn.", "'92", "DATE_TIME"),
        ("PMH: MI 92, CABG in 2001.", "92", "DATE_TIME"),
        ("PMH: MI 92, CABG in 2001.", "2001", "DATE_TIME"),
        ("abx started 9/7-9/9 for PNA", "9/9", "DATE_TIME"),
        ("Pager: #54321 overnight", "54321", "PHONE_NUMBER"),
        ("NP at ext 4411, aware.", "4411", "PHONE_NUMBER"),
        ("call home 555-0123 with changes", "555-0123", "PHONE_NUMBER"),
        ("plan transfer to kernan hosp tomorrow", "kernan hosp", "LOCATION"),
        ("PT TRANSFERRED FROM CALVERT HOSPITAL ON 6/1", "CALVERT HOSPITAL", "LOCATION"),
        ("to GH hosp for MRI", "GH hosp", "LOCATION"),
        ("DR LAVELY NOTIFIED OF K 3.1", "LAVELY", "PERSON"),
        ("talked with helen, pt's wife", "helen", "PERSON"),
        ("reviewed with J. OKONKWO, neuro", "J. OKONKWO", "PERSON"),
    ],
)
def test_clinical_shapes_found(text: str, value: str, entity: str) -> None:
    assert _shapes(text).get(value) == entity


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("pain 6/10 in abd", "6/10"),
        ("strength 5/5 throughout", "5/5"),
        ("1/2 NS at 75cc/hr", "1/2"),
        ("BP 120/80, HR 92", "120/80"),
        ("BP 120/80, HR 92", "92"),
        ("vent PS 10/5, FiO2 40%", "10/5"),
        ("ABG 7.38/42/96", "7.38/42/96"),
        ("GCS 11/15 off sedation", "11/15"),
        ("K 4.1, Mg 1.8, x2 sets", "x2"),
        ("returned to the hospital today", "the hospital"),
        ("d/c to outside hospital", "outside hospital"),
        ("DR NOTIFIED OF K 3.1", "NOTIFIED"),
        ("talked with pharmacy about dosing", "pharmacy"),
    ],
)
def test_clinical_shapes_leave_charting_alone(text: str, value: str) -> None:
    assert value not in _shapes(text)


def test_safe_vocabulary() -> None:
    # English words in any case, clinical shorthand and drugs, misspellings and derived
    # forms are safe; a surname that is none of these is not
    assert all(
        is_safe_word(w)
        for w in ("NOTIFIED", "lasix", "extubated", "pateint", "Metoprolol", "hypokalemic")
    )
    assert not is_safe_word("Swackhamer")


def test_allow_pass_reports_unknown_words_in_context() -> None:
    text = "Griffin and Swackhamer aware of plan. Cont lasix, NPO after MN."
    precise = [text[f.start : f.end] for f in clinical_findings(text, [], thorough=False)]
    assert precise == ["Griffin", "Swackhamer"]
    # a word a typed finding already covers is not reported again
    assert clinical_findings(text, []) and all(
        f.start >= 20 for f in clinical_findings(text, [_covering(0, 19)])
    )


def _covering(start: int, end: int):  # type: ignore[no-untyped-def]
    from veil.text.recognition._finding import Finding

    return Finding(start, end, "PERSON", 0.9, "test")


def test_thorough_pass_reports_any_unknown_capitalised_word() -> None:
    text = "Pt seen by Okonkwo-Brightwater today. Cont lasix."
    precise = {text[f.start : f.end] for f in clinical_findings(text, [], thorough=False)}
    thorough = {text[f.start : f.end] for f in clinical_findings(text, [], thorough=True)}
    assert "Okonkwo-Brightwater" not in precise
    assert {"Okonkwo", "Brightwater"} & {w for t in thorough for w in t.split("-")}


def test_allow_pass_confined_to_clinical_profiles() -> None:
    assert allow_pass_applies("clinical", "Invoice for Acme Ltd")
    assert allow_pass_applies("hipaa", "NPO after MN, cont lasix")
    assert not allow_pass_applies("hipaa", "Invoice for Acme Ltd")
    assert not allow_pass_applies("default", "NPO after MN, cont lasix")


@pytest.fixture(scope="module")
def analyzers() -> dict[str, TextAnalyzer]:
    return {p: TextAnalyzer.from_config(profile=p) for p in ("default", "hipaa", "clinical")}


def test_default_profile_unchanged_on_generated_corpora(
    analyzers: dict[str, TextAnalyzer],
) -> None:
    # the allow-list mode never reaches the default profile, nor the hipaa profile outside
    # clinical notes: none of their findings comes from it on veil's generated corpora
    texts = [r["full_text"] for r in generate_corpus(150, seed=31)]
    texts += [r["full_text"] for r in generate_clinical_notes(60, seed=31)]
    texts += [r["full_text"] for r in generate_clinical_shape_notes(60, seed=31)]
    for fs in analyzers["default"].analyze_batch(texts):
        assert not {f.recognizer for f in fs} & CLINICAL
    for text, fs in zip(texts, analyzers["hipaa"].analyze_batch(texts), strict=True):
        if not allow_pass_applies("hipaa", text):
            assert not {f.recognizer for f in fs} & CLINICAL


def _token_recall(notes: list[dict], found: list[list]) -> float:  # type: ignore[type-arg]
    caught = total = 0
    for note, fs in zip(notes, found, strict=True):
        covered = bytearray(len(note["full_text"]) + 1)
        for f in fs:
            covered[f.start : f.end] = b"\x01" * (f.end - f.start)
        for s in note["spans"]:
            for m in re.finditer(
                r"\w+", note["full_text"][s["start_position"] : s["end_position"]]
            ):
                a = s["start_position"] + m.start()
                total += 1
                caught += covered.find(1, a, a + len(m.group())) >= 0
    return caught / total


def test_generated_clinical_notes_recall(analyzers: dict[str, TextAnalyzer]) -> None:
    # a regression guard on notes in the registers clinicians write (seed not used while
    # writing the rules); the public deid corpus is measured by benchmarks/text_clinical.py
    notes = generate_clinical_shape_notes(120, seed=2026)
    texts = [n["full_text"] for n in notes]
    recall = {p: _token_recall(notes, a.analyze_batch(texts)) for p, a in analyzers.items()}
    assert recall["hipaa"] > recall["default"] + 0.1
    # the thorough pass should catch what the precise one does; it lets a few known
    # surnames in title case pass that the precise pass reports ("Black", "Stone": a
    # known gap of the thorough pass's name rules), which since the precise pass reports
    # the years of a patient's history too outweighs its lead on these notes by 0.002
    assert recall["clinical"] >= recall["hipaa"] - 0.005
    assert recall["hipaa"] > 0.85


def test_generated_shape_notes_are_labelled_and_seeded() -> None:
    notes = generate_clinical_shape_notes(30, seed=4)
    assert notes == generate_clinical_shape_notes(30, seed=4)
    for n in notes:
        for s in n["spans"]:
            assert n["full_text"][s["start_position"] : s["end_position"]] == s["entity_value"]
    texts = "\n".join(n["full_text"] for n in notes)
    assert any(line.startswith("lower:") for line in SHAPE_LINES)
    assert re.search(r"^[^a-z\n]*[A-Z]{3}[^a-z\n]*$", texts, re.MULTILINE)  # a line in capitals


def test_long_note_without_line_breaks_bounded() -> None:
    # a long note in one line is read in windows: once the word lists are loaded, the
    # working memory grows with the text by about the text's size (a map of the characters
    # findings take), not a multiple of it (docs/text.md: 10 MB notes); measured at two
    # lengths, so that a window's fixed working memory does not hide the growth
    unit = "pt resting comfortably, cont lasix, NPO after MN, will cont to monitor. " * 20
    clinical_findings(unit + "DR LAVELY NOTIFIED 9/7.", [])  # the word lists load
    peaks, sizes = [], []
    for windows in (6, 14):
        text = (unit + "DR LAVELY NOTIFIED 9/7. ") * (windows * WINDOW // (len(unit) + 24) + 1)
        tracemalloc.start()
        found = clinical_findings(text, [], thorough=False)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert len(text) > windows * WINDOW and "\n" not in text
        assert len(found) == 2 * text.count("LAVELY")
        sizes.append(len(text))
    assert (peaks[1] - peaks[0]) < 2 * (sizes[1] - sizes[0])
    assert peaks[1] < 3 * sizes[1] + 40 * WINDOW


def test_odd_characters_and_no_logging(caplog: pytest.LogCaptureFixture) -> None:
    analyzer = TextAnalyzer.from_config(ner=False, profile="clinical")
    text = "NPO\x00 \udcff DR LAVELY\ufffd NOTIFIED \x7f talked with helen"
    with caplog.at_level(logging.DEBUG):
        found = analyzer.analyze(text)
    assert {text[f.start : f.end] for f in found} >= {"LAVELY", "helen"}
    assert not any("LAVELY" in r.getMessage() or "helen" in r.getMessage() for r in caplog.records)


def _veil(*args: str) -> subprocess.CompletedProcess[str]:
    src = str(Path(__file__).resolve().parents[3] / "src")
    env = {**os.environ, "PYTHONPATH": src}
    cmd = [sys.executable, "-m", "veil", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)


def test_cli_clinical_profile_and_bad_bytes(tmp_path: Path) -> None:
    good = tmp_path / "note.txt"
    good.write_text("Pt seen by DR LAVELY on 9/7, talked with helen. Cont lasix.\n")
    out = tmp_path / "out.txt"
    res = _veil("redact", str(good), "-o", str(out), "--profile", "clinical")
    assert res.returncode == 0, res.stderr
    redacted = out.read_text()
    assert "LAVELY" not in redacted and "helen" not in redacted and "lasix" in redacted
    # mis-encoded bytes: exit 2, an error naming the line and the byte, never the text
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"Pt seen by DR LAVELY \xff\xfe on 9/7\n")
    res = _veil("redact", str(bad), "-o", str(out), "--profile", "hipaa")
    assert res.returncode == 2
    assert "UTF-8" in res.stdout + res.stderr
    assert "LAVELY" not in res.stdout + res.stderr


def test_clinical_profile_in_policy() -> None:
    from veil.policy import TextConfig

    cfg = TextConfig.model_validate({"profile": "clinical"})
    assert TextAnalyzer.from_config(cfg, ner=False).profile == "clinical"
    assert json.loads(json.dumps(cfg.model_dump()))["profile"] == "clinical"


# ---- the second round of issue #25: shapes written from how notes are charted -----------


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        ("OKAFOR RRT IN TO SUCTION", "OKAFOR", "PERSON"),
        ("report given to Hall RN at 1900", "Hall", "PERSON"),
        ("DR BROWN AWARE OF K 3.1", "BROWN", "PERSON"),
        ("Dr. Flowers in to see pt", "Flowers", "PERSON"),
        ("per drs' Okafor and Lee", "Okafor", "PERSON"),
        ("SOCIAL: DAUGHTER- JOAN CALLED", "JOAN", "PERSON"),
        ("seen by S. WOODS today", "S. WOODS", "PERSON"),
        ("hx: CVA 3/98, NIDDM", "3/98", "DATE_TIME"),
        ("PMH: NIDDM.3/98 stent", "3/98", "DATE_TIME"),
        ("seen in clinic in September, f/u", "September", "DATE_TIME"),
        # an abbreviation with its day is read whole in _clinical_numbers ("Sept 12")
        ("last echo September 12, EF 30%", "September", "DATE_TIME"),
        ("transferred to Ellison 12 at 1500", "Ellison 12", "LOCATION"),
        ("from Hale Health this am", "Hale Health", "LOCATION"),
        ("TO FAULKNER HOSPITAL FOR MRI", "FAULKNER HOSPITAL", "LOCATION"),
        ("wife at 617/555/0123 or home", "617/555/0123", "PHONE_NUMBER"),
        ("son reached @ 555 0123 tonight", "555 0123", "PHONE_NUMBER"),
        ("son: 6175550123.", "6175550123", "PHONE_NUMBER"),
        ("covering pgr 2-4411 overnight", "2-4411", "PHONE_NUMBER"),
        ("resident page #54321 prn", "54321", "PHONE_NUMBER"),
        # fourth round: a name before a role in parentheses
        ("PLAN PER CUCCHIARA (RESIDENT) TO TAP", "CUCCHIARA", "PERSON"),
        ("d/w Lange (attending), agrees", "Lange", "PERSON"),
    ],
)
def test_second_round_shapes_found(text: str, value: str, entity: str) -> None:
    assert _shapes(text).get(value) == entity


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("CPAP/PSV 12/5, FIO2 40%", "12/5"),
        ("on flowby 6/3, spont vol 400", "6/3"),
        ("blood cx 2/4 bottles positive", "2/4"),
        ("AC 600x12x.6/10 peep", "6/10"),
        ("8/10 CP relieved by NTG", "8/10"),
        ("FREQ PVC'S. HEMODYNAMICS STABLE", "S. HEMODYNAMICS"),
        ("NEURO: A&O. PLEASANT AND COOPERATIVE", "O. PLEASANT"),
        ("changes in MS. Aspiration precautions", "Aspiration"),
        ("severity of MR d/t MVR", "d"),
        ("DR WILL SEE PT IN AM", "WILL"),
        ("dr aware of BP", "aware"),
        ("CHARGE RN AWARE", "CHARGE"),
        ("DAY RN TO FOLLOW", "DAY"),
        ("O2 weaned to 2 L NC, PT RN at bedside", "PT"),
        ("wife said he has been tired", "said"),
        ("PT WANTS TO GET HOME ON MONDAY", "GET HOME"),
        ("dec UOP overnight, MAR reviewed, may need lasix", "dec"),
        ("dec UOP overnight, MAR reviewed, may need lasix", "MAR"),
        ("UOP 500-1000cc, given 120 200 1000", "120 200 1000"),
        ("UOP 500-1000cc overnight", "500-1000"),
        ("titrated up to 5 per protocol", "up to 5"),
        ("Pt seen by team (resident) today", "team"),
        ("NEEDS EVAL BY NEURO (ATTENDING) IN AM", "NEURO"),
    ],
)
def test_second_round_shapes_leave_charting_alone(text: str, value: str) -> None:
    assert not any(value in found or found in value for found in _shapes(text) if found)


def test_settings_are_no_dates_for_the_typed_recognizer_either() -> None:
    # the general date recognizer reads "10/5/40" as a date; in a clinical note the
    # precise pass drops it when a ventilator's setting stands around it
    hipaa = TextAnalyzer.from_config(ner=False, profile="hipaa")
    text = "Pt on PS 10/5/40% overnight, NPO, cont lasix. Seen 3/12/98."
    found = {text[f.start : f.end] for f in hipaa.analyze(text)}
    assert "10/5/40" not in found and "3/12/98" in found


def test_pass_reads_names_and_places_in_their_context() -> None:
    text = (
        "Green and Wilson aware of plan. Transferred to Faulkner today. "
        "Lasix given at 1645. Last CVP 12. NPO after MN."
    )
    found = {
        text[f.start : f.end]: f.entity_type for f in clinical_findings(text, [], thorough=False)
    }
    assert found.get("Green") == "PERSON" and found.get("Wilson") == "PERSON"
    assert found.get("Faulkner") == "LOCATION"
    assert "Last" not in found  # a place word reads only right before its word
    lower = "pt transferred to gh for mri, npo after mn, cont lasix. ok per team."
    low = {lower[f.start : f.end] for f in clinical_findings(lower, [], thorough=False)}
    assert "gh" in low and "mri" not in low and "ok" not in low


def test_short_notes_read_as_charting_by_their_shorthand() -> None:
    # no unambiguous marker, but two clinical abbreviations that are no English word:
    # the precise pass runs under hipaa; ordinary text with everyday abbreviations does not
    assert allow_pass_applies("hipaa", "Pt resting, abd soft, BP stable. DR LAVELY aware.")
    assert not allow_pass_applies("hipaa", "Meeting at 10 am, ID badge needed, cc the team.")
    assert not allow_pass_applies("default", "Pt resting, abd soft, BP stable.")


_TOKENS = st.sampled_from(
    [
        "pt",
        "DR",
        "Dr.",
        "LAVELY",
        "helen",
        "to",
        "from",
        "at",
        "9/7",
        "3/98",
        "'92",
        "MI",
        "s/p",
        "hosp",
        "Hospital",
        "RN",
        "RRT",
        "and",
        "aware",
        "wife",
        "DAUGHTER-",
        "x4411",
        "#54321",
        "617/555/0123",
        ",",
        ".",
        "\n",
        "CPAP",
        "10/5",
        "Ellison",
        "12",
        "lasix",
        "NPO",
        "Green",
        # the fifth round's numbers (issue #25 item 2)
        "p#",
        "bp",
        "call",
        "41234",
        "4-1234",
        "CVA",
        "81'",
        "1961,",
        "5/29-6/1",
        "fx3/95",
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(_TOKENS, min_size=1, max_size=40),
    covered=st.lists(st.tuples(st.integers(0, 300), st.integers(1, 12)), max_size=4),
    thorough=st.booleans(),
)
def test_pass_never_overlaps_a_typed_finding(
    words: list[str], covered: list[tuple[int, int]], thorough: bool
) -> None:
    # what the pass adds lies inside the text, is never empty, and never touches a span
    # the typed recognizers already took (they win: docs/text.md, "Findings of the pass")
    text = " ".join(words)
    typed = [_covering(a, min(len(text), a + n)) for a, n in covered if a < len(text)]
    for f in clinical_findings(text, typed, thorough=thorough):
        assert 0 <= f.start < f.end <= len(text)
        assert not any(f.start < t.end and t.start < f.end for t in typed)


def test_docs_example_of_the_second_round() -> None:
    # the example in docs/text.md ("Clinical notes: the recall-first mode"), run as written
    docs = (Path(__file__).resolve().parents[3] / "docs" / "text.md").read_text()
    start = docs.rindex("```python\n", 0, docs.index('note = "OKAFOR RRT')) + len("```python\n")
    block = docs[start:].split("```", 1)[0]
    code, _, expected = block.partition("# ")
    printed: list[object] = []
    exec(code, {"print": printed.append})
    assert printed == [ast.literal_eval(expected.split("  (")[0])]
