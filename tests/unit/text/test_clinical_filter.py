"""Issue #25, second pass: a clinical note's vocabulary rules out the general recognizers'
misreadings (NER on clinical words in capitals, identifier labels that are clinical
abbreviations, domains that are typing), and the precise allow pass reports known names in
any case and hospitals' abbreviations."""

from __future__ import annotations

import pytest

from veil.text import TextAnalyzer
from veil.text.detection._clinical_allow import clinical_findings
from veil.text.detection._clinical_filter import CLINICAL_LABELS, WEB_TLDS, clinical_keeps
from veil.text.recognition._finding import Explanation, Finding
from veil.text.vocab._clinical_vocab import is_name_word, is_safe_word


def _f(text: str, value: str, recognizer: str, label: str = "") -> Finding:
    start = text.index(value)
    pattern = "cue_HR" if recognizer == "phone" else "p"
    return Finding(
        start,
        start + len(value),
        "X",
        0.6,
        recognizer,
        1,
        Explanation(recognizer, pattern, 0.6, 0.6, (label,) if label else (), None),
    )


@pytest.mark.parametrize(
    ("text", "value", "recognizer", "label", "kept"),
    [
        # NER on clinical and English vocabulary in capitals goes; a known name stays
        ("NEURO: A&Ox3, MAE. RESP CARE: LS clear", "RESP CARE", "spacy_ner", "", False),
        ("NEURO: A&Ox3, MAE. LASIX 40 IV given", "LASIX", "spacy_ner", "", False),
        ("Seen by Griffin, NPO after MN", "Griffin", "spacy_ner", "", True),
        ("Transfer to Swackhamer House, cont lasix", "Swackhamer House", "spacy_ner", "", True),
        # identifier labels that are clinical abbreviations, and short values, go
        ("CC: 40 of NS given, NPO", "40", "announced_id", "CC", False),
        ("vent A/C 500x14, PEEP 5", "500x14", "announced_id", "a/c", False),
        ("ID: 1234567 afebrile, cont vanco", "1234567", "announced_id", "ID", False),
        ("patient 2134 seen, NPO", "2134", "announced_id", "patient", False),
        ("Patient ID: 12 NPO, cont lasix", "12", "announced_id", "ID", False),
        ("MRN: 12345678, NPO, cont lasix", "12345678", "announced_id", "MRN", True),
        ("Patient ID: A1234567, NPO", "A1234567", "announced_id", "patient", True),
        # domains that are charting typed without a space go; web addresses stay
        ("pt.care given, NPO, cont lasix", "pt.care", "url", "", False),
        ("see report.doc, NPO, cont lasix", "report.doc", "url", "", False),
        ("family site caringbridge.org, NPO", "caringbridge.org", "url", "", True),
        ("see https://pt.care/x, NPO", "https://pt.care/x", "url", "", True),
        # "HR" is a heart rate, not Croatia's numbering plan; shapes are lab values
        ("HR 88 110 72 NSR, NPO", "88 110 72", "phone", "", False),
        ("K3.5Mg2.1 repleted, NPO", "K3.5Mg2.1", "password_shape", "", False),
        # other recognizers are not touched
        ("DR LAVELY NOTIFIED, NPO", "LAVELY", "person_names", "", True),
    ],
)
def test_clinical_keeps(text: str, value: str, recognizer: str, label: str, kept: bool) -> None:
    assert clinical_keeps(text, _f(text, value, recognizer, label)) is kept


def test_vocabularies_are_what_they_say() -> None:
    # the clinical labels are clinical shorthand, the web TLDs are not English words of a note
    assert {"cc", "ss", "card", "plan"} <= CLINICAL_LABELS
    assert "mrn" not in CLINICAL_LABELS and "patient" not in CLINICAL_LABELS
    assert {"com", "org", "edu"} <= WEB_TLDS and not {"care", "doc", "given"} & WEB_TLDS


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        # a known name that is no English or clinical word, in any case, with no title
        ("yolanda at bedside, NPO after MN", "yolanda", "PERSON"),
        ("Kowalczyk at bedside, cont lasix", "Kowalczyk", "PERSON"),
        # a hospital's abbreviation in capitals after a place word or before a unit word
        ("plan transfer to BMXH in am, NPO", "BMXH", "LOCATION"),
        ("seen in QRMC ED overnight, cont lasix", "QRMC", "LOCATION"),
    ],
)
def test_precise_pass_names_and_abbreviations(text: str, value: str, entity: str) -> None:
    found = {
        text[f.start : f.end]: f.entity_type for f in clinical_findings(text, [], thorough=False)
    }
    assert found.get(value) == entity


def test_precise_pass_known_name_rule_bounds() -> None:
    # capitals in a note in ordinary case are abbreviations first, and so are short words in
    # capitals in a note written in capitals; short names are left to their context
    for text in ("YOLANDA at bedside, NPO", "ANNA AT BEDSIDE, NPO", "seen by ann re plan, NPO"):
        rules = {
            f.explanation.pattern_name
            for f in clinical_findings(text, [], thorough=False)
            if f.explanation is not None
        }
        assert "known_name" not in rules
    found = clinical_findings("yolanda at bedside, NPO", [], thorough=False)
    assert [f.explanation.pattern_name for f in found if f.explanation] == ["known_name"]
    # in a note in capitals the eighth round's rule of words only a name list holds
    # (``_clinical_name_cues.listed_names``) reads the name first
    found = clinical_findings("YOLANDA AT BEDSIDE, NPO", [], thorough=False)
    assert [f.explanation.pattern_name for f in found if f.explanation] == ["listed_name"]


def test_precise_pass_leaves_clinical_words_alone() -> None:
    # safe clinical and English words, in capitals or not, are not reported as names or places
    text = "transfer to ICU, NPO, LS CLEAR, cont LASIX, to OR in am, MAE, pt aware"
    assert all(is_safe_word(w) for w in ("ICU", "LASIX", "OR"))
    assert clinical_findings(text, [], thorough=False) == []
    assert is_name_word("yolanda") and not is_safe_word("yolanda")


def test_hipaa_drops_clinical_misreadings_end_to_end() -> None:
    hipaa = TextAnalyzer.from_config(profile="hipaa")
    default = TextAnalyzer.from_config(profile="default")
    text = "NEURO: A&Ox3. RESP: LS clear. pt.care given. CC: 40 of NS. Seen by Griffin."
    spans = {text[f.start : f.end] for f in hipaa.analyze(text)}
    assert not {"pt.care", "40", "NEURO", "RESP"} & spans
    # the thorough pass (clinical profile) keeps the general recognizers' findings
    clinical = TextAnalyzer.from_config(profile="clinical")
    assert "pt.care" in {text[f.start : f.end] for f in clinical.analyze(text)}
    # outside a clinical note, and under the default profile, the recognizers are untouched
    plain = "Our site caringbridge.care is up; visit pt.care for details."

    def urls(analyzer: TextAnalyzer) -> set[tuple[int, int]]:
        return {(f.start, f.end) for f in analyzer.analyze(plain) if f.entity_type == "URL"}

    assert urls(default) and urls(hipaa) == urls(default)
