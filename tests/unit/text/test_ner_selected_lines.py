"""The hipaa profile's NER reads only the lines of a clinical note where one of its findings
can outlast the note's vocabulary (``ner_lines``); its spans are mapped back into the note."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from veil.text.detection._clinical_filter import clinical_keeps, ner_lines
from veil.text.ner._ner_lines import join_lines, spans_in_text
from veil.text.recognition._finding import Finding


class _Ent(NamedTuple):
    start_char: int
    end_char: int
    label_: str


NOTE = (
    "NEURO: A&Ox3, MAE, cont lasix.\n"
    "RESP CARE: LS clear, sats stable.\n"
    "Seen by Griffin, plan d/w team.\n"
    "\n"
    "CABG March 2012, NPO after MN.\n"
    "Transfer to Memorial Hospital.\n"
    "Hallway Fix Dress\n"
)


def test_lines_that_can_keep_a_finding_are_read() -> None:
    chosen = [NOTE[a:b] for a, b in ner_lines(NOTE) or []]
    # a name word ("MAE", moves all extremities, is also a given name), a month and a year,
    # a facility's word; English and clinical words alone ("Hallway Fix Dress") and empty
    # lines are not read
    assert chosen == [
        "NEURO: A&Ox3, MAE, cont lasix.",
        "Seen by Griffin, plan d/w team.",
        "CABG March 2012, NPO after MN.",
        "Transfer to Memorial Hospital.",
    ]


def test_a_text_that_is_no_note_is_read_whole() -> None:
    assert ner_lines("Invoice for Acme Ltd\nPaid by Jane Roe") is None


@pytest.mark.parametrize("value", ["RESP CARE", "Hallway Fix Dress", "LS clear"])
def test_what_the_lines_left_out_could_yield_the_filter_drops(value: str) -> None:
    # the claim ``ner_lines`` rests on, checked on its own rule: any span of a line left
    # out is dropped by ``clinical_keeps``
    start = NOTE.index(value)
    assert not any(a <= start < b for a, b in ner_lines(NOTE) or [])
    f = Finding(start, start + len(value), "ORGANIZATION", 0.85, "spacy_ner", 2, None)
    assert clinical_keeps(NOTE, f) is False


def test_spans_of_the_selected_lines_map_back_into_the_note() -> None:
    lines = ner_lines(NOTE) or []
    read, starts = join_lines(NOTE, lines)
    assert read.split("\n") == [NOTE[a:b] for a, b in lines]
    ents = []
    for value, label in [
        ("Griffin", "PERSON"),
        ("March 2012", "DATE"),
        ("Memorial Hospital", "ORG"),
    ]:
        i = read.index(value)
        ents.append(_Ent(i, i + len(value), label))
    mapped = spans_in_text(ents, lines, starts)
    assert [NOTE[s.start_char : s.end_char] for s in mapped] == [
        "Griffin",
        "March 2012",
        "Memorial Hospital",
    ]
    assert [s.label_ for s in mapped] == ["PERSON", "DATE", "ORG"]


def test_a_span_runs_on_only_into_the_line_that_follows_its_own() -> None:
    text = "Seen by Maria\nGonzalez RN\n\nspoke with John\nSmith today"
    lines = [(0, 13), (14, 25), (27, 42), (43, 54)]
    read, starts = join_lines(text, lines)
    wrapped = read.index("Maria"), read.index("Gonzalez") + len("Gonzalez")
    # "John" and "Smith" are lines 3 and 4 of the note, consecutive there as well
    joined = read.index("John"), read.index("Smith") + len("Smith")
    mapped = spans_in_text([_Ent(*wrapped, "PERSON"), _Ent(*joined, "PERSON")], lines, starts)
    assert [text[s.start_char : s.end_char] for s in mapped] == [
        "Maria\nGonzalez",
        "John\nSmith",
    ]
    # lines 2 and 3 of the selection are not neighbours in the note: the span ends with
    # its own line
    gap = [(0, 13), (27, 42)]
    read, starts = join_lines(text, gap)
    across = read.index("Maria"), read.index("spoke") + len("spoke")
    (span,) = spans_in_text([_Ent(*across, "PERSON")], gap, starts)
    assert text[span.start_char : span.end_char] == "Maria"


def test_no_lines_means_no_model_call_and_no_findings() -> None:
    assert join_lines(NOTE, []) == ("", [])
    assert spans_in_text([], [], []) == []


def test_recognizers_not_run_on_notes_would_have_found_nothing_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``NOT_IN_NOTES``: under hipaa a note is not searched by recognizers whose findings
    the filter would drop there; running them anyway changes no finding."""
    from veil.text import TextAnalyzer
    from veil.text.detection import _analyzer
    from veil.text.evaluation._corpus_clinical import generate_clinical_shape_notes

    texts = [r["full_text"] for r in generate_clinical_shape_notes(60, seed=7)]
    texts += [
        "MRN: 12345678, NPO after MN, cont lasix. K3.5Mg2.1 repleted.",
        "Patient ID: 1234 NPO, cont lasix; pw Xk9#mQ2!vL seen.",
        "CC: 40 of NS given, NPO. Acct 55512 on file, cont lasix.",
    ]
    analyzer = TextAnalyzer.from_config(ner=False, profile="hipaa")
    skipping = analyzer.analyze_batch(texts)
    monkeypatch.setattr(_analyzer, "NOT_IN_NOTES", {})
    assert analyzer.analyze_batch(texts) == skipping
    assert any(texts[-3][f.start : f.end] == "12345678" for f in skipping[-3])
