"""Identifier shapes without a label (``veil.text.recognition._weak_shapes``): found at the
redaction threshold, not claimed at the detect threshold, raised by their word, refused
when the numbering rules refuse them, and never taking a date, a phone number, an amount,
a ZIP code, a version or an order number."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.policy import DETECT_SCORE_THRESHOLD, REDACT_SCORE_THRESHOLD, TextConfig
from veil.text import TextAnalyzer
from veil.text.recognition._checksums import ssn_kind
from veil.text.recognition._weak_shapes import (
    WEAK_SCORE,
    WeakShapeRecognizer,
    weak_type,
    weak_types,
)

with warnings.catch_warnings():
    # typer imports names that click deprecates (click.utils.get_binary_stream): not ours to fix
    warnings.simplefilter("ignore", DeprecationWarning)
    from veil.cli._app import main

WEAK_TYPES = {"US_SSN", "US_ITIN", "US_PASSPORT", "US_DRIVER_LICENSE", "US_BANK_NUMBER"}


@pytest.fixture(scope="module")
def redact() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


@pytest.fixture(scope="module")
def detect() -> TextAnalyzer:
    cfg = TextConfig.model_validate({"score_threshold": DETECT_SCORE_THRESHOLD})
    return TextAnalyzer.from_config(cfg, ner=False)


def typed(analyzer: TextAnalyzer, text: str) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.entity_type) for f in analyzer.analyze(text)]


def test_the_weak_score_is_for_redaction_only() -> None:
    assert REDACT_SCORE_THRESHOLD <= WEAK_SCORE < DETECT_SCORE_THRESHOLD


POSITIVES = [
    ("078051121", "US_SSN"),  # nine digits the SSA rules allow
    ("07805-1121", "US_SSN"),  # 5-4: the dash in the wrong place
    ("911701234", "US_ITIN"),  # area 9xx, group 70: an ITIN
    ("91170-1234", "US_ITIN"),
    ("A12803456", "US_PASSPORT"),  # a letter and eight digits
    ("123456789", "US_DRIVER_LICENSE"),  # publicised, not an SSN: a 9-digit licence
    ("1234567890", "US_DRIVER_LICENSE"),  # ten digits, no area code in service
    ("1234567901234", "US_DRIVER_LICENSE"),
]


@pytest.mark.parametrize(("value", "entity"), POSITIVES)
def test_shape_without_label_is_redacted_not_detected(
    redact: TextAnalyzer, detect: TextAnalyzer, value: str, entity: str
) -> None:
    text = f"Please use {value} for the form."
    assert typed(redact, text) == [(value, entity)]
    assert [f.score for f in redact.analyze(text)] == [WEAK_SCORE]
    assert not [t for _, t in typed(detect, text) if t in WEAK_TYPES]


def test_cli_redact_replaces_them_and_detect_does_not_report_them(tmp_path: Path) -> None:
    text = "Form 3: 078051121, A12803456, order 123456789"
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"text": text}) + "\n")
    red = tmp_path / "red.jsonl"
    assert main(["-q", "redact", str(src), "-c", "text", "--no-ner", "--out", str(red)]) == 0
    assert json.loads(red.read_text())["text"] == (
        "Form 3: <US_SSN>, <US_PASSPORT>, order 123456789"
    )
    det = tmp_path / "det.jsonl"
    args = ["-q", "text", "detect", str(src), "-c", "text", "--no-ner", "--out", str(det)]
    assert main(args) == 0
    assert json.loads(det.read_text())["findings"] == []


def test_cli_redact_of_one_type_replaces_the_shapes_that_fit_it(tmp_path: Path) -> None:
    # asked for bank numbers only, the bare twelve digits (a licence by their first
    # reading) are still replaced, as a bank number; a passport's letter and digits are not
    text = "Form 3: 945456787654, A12803456"
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"text": text}) + "\n")
    red = tmp_path / "red.jsonl"
    args = ["-q", "redact", str(src), "-c", "text", "--no-ner", "--out", str(red)]
    assert main([*args, "--entities", "US_BANK_NUMBER"]) == 0
    assert json.loads(red.read_text())["text"] == "Form 3: <US_BANK_NUMBER>, A12803456"


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        ("SSN 078051121", "078051121", "US_SSN"),
        ("my ITIN is 91170-1234", "91170-1234", "US_ITIN"),
        ("passport A12803456", "A12803456", "US_PASSPORT"),
        ("driver license 123456789", "123456789", "US_DRIVER_LICENSE"),
        # the word decides the type over the shape's default reading
        ("passport 078051121", "078051121", "US_PASSPORT"),
        ("driver license H12234567", "H12234567", "US_DRIVER_LICENSE"),
        ("account number 945456787654", "945456787654", "US_BANK_NUMBER"),
    ],
)
def test_the_number_word_raises_it_above_the_detect_threshold(
    detect: TextAnalyzer, text: str, value: str, entity: str
) -> None:
    found = [f for f in detect.analyze(text) if text[f.start : f.end] == value]
    assert [f.entity_type for f in found] == [entity]
    assert found[0].score > WEAK_SCORE


@pytest.mark.parametrize(
    "value",
    [
        "000000000",  # all-same digits
        "111111111",
        "1111111111111",
        "00012-3456",  # area 000
        "66612-3456",  # area 666
        "07800-1121",  # group 00
        "07805-0000",  # serial 0000
        "91189-1234",  # 9xx with a group the IRS does not use: neither SSN nor ITIN
        "A00000000",
    ],
)
def test_numbering_rules_refuse_impossible_values(redact: TextAnalyzer, value: str) -> None:
    assert WeakShapeRecognizer().analyze(f"value {value} here") == []
    assert not [t for _, t in typed(redact, f"value {value} here") if t in WEAK_TYPES]


@pytest.mark.parametrize("value", ["666123456", "911891234", "078051120", "987654321"])
def test_nine_digits_refused_as_ssn_are_not_ssn_or_itin(redact: TextAnalyzer, value: str) -> None:
    types = {t for _, t in typed(redact, f"value {value} here")}
    assert not types & {"US_SSN", "US_ITIN"}


@pytest.mark.parametrize(
    ("text", "keep"),
    [
        # dates
        ("Due 2021-03-15, paid 20210315, filed 15.03.2021", None),
        ("Logged at 2024-01-05T10:22:31Z by the agent", None),
        # phone numbers: a phone finding, never a licence or an SSN
        ("Call (415) 555-0132 or 415-555-0132", "PHONE_NUMBER"),
        ("Call 4155550132 after five", "PHONE_NUMBER"),
        ("Reach me on +14155550132 today", "PHONE_NUMBER"),
        ("fax 1234567890 to the desk", None),
        # money
        ("Total $123456789 due", None),
        ("Wire USD 123456789 now", None),
        ("Budget 250000000 EUR approved", None),
        ("Revenue 123,456,789 and 1234567.89 reported", None),
        ("A fee of ₹123456789 was waived", None),
        # ZIP codes
        ("Ship to Boston, MA 02139-4307 by Friday", "ZIP_CODE"),
        ("zip code 02139-4307 on the label", "ZIP_CODE"),
        ("Postal code: 02139-4307", None),
        # versions, builds, paths, order and ticket numbers
        ("Upgrade to v1.2.345678901 or 10.0.19041234", None),
        ("version 123456789 and build 1234567890 are out", None),
        ("Order 123456789 shipped; invoice 1234567890 attached", None),
        ("See #123456789 and INV-123456789 and /var/log/123456789", None),
        ("tracking number 1Z9999 12345678901 on the box", None),
        ("took 1700000000 ms and 123456789 bytes", None),
        ("timestamp 1700000000 in the log", None),
        ("serial no. 123456789012 of the laptop", None),
        ("Item SKU-A12803456 and part A12803456X", None),
    ],
)
def test_other_numbers_are_not_taken(redact: TextAnalyzer, text: str, keep: str | None) -> None:
    found = typed(redact, text)
    assert not [v for v, t in found if t in WEAK_TYPES], found
    if keep is not None:
        assert keep in {t for _, t in found}


def test_explanation_says_shape_without_validation() -> None:
    f = WeakShapeRecognizer().analyze("use 078051121")[0]
    assert f.explanation is not None
    assert (f.explanation.pattern_name, f.explanation.validation) == ("shape", None)
    assert f.tier == 2  # any other reading of the same characters wins


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789", min_size=9, max_size=9))
def test_nine_digits_are_ssn_or_itin_exactly_when_the_rules_say(digits: str) -> None:
    kind = ssn_kind(digits)
    want = {"ssn": "US_SSN", "itin": "US_ITIN"}.get(kind or "")
    if want is None:
        want = None if len(set(digits)) == 1 else "US_DRIVER_LICENSE"
    assert weak_type(digits) == want
    five_four = f"{digits[:5]}-{digits[5:]}"
    assert weak_type(five_four) == ({"ssn": "US_SSN", "itin": "US_ITIN"}.get(kind or ""))


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="0123456789", min_size=9, max_size=14),
    st.sampled_from(["x", "A", "_", ".5", ",000", "-7", "/a", "@b", "%"]),
    st.sampled_from(["", "$", "v", "#", "+", "-", "1.", "ID"]),
)
def test_digits_glued_to_something_else_are_never_taken(
    digits: str, after: str, before: str
) -> None:
    text = f"see {before}{digits}{after} now"
    found = WeakShapeRecognizer().analyze(text)
    assert not [f for f in found if f.start <= text.index(digits) < f.end]


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=0, max_size=60))
def test_every_finding_is_a_listed_shape_at_the_weak_score(text: str) -> None:
    for f in WeakShapeRecognizer().analyze(text):
        value = text[f.start : f.end]
        assert f.score == WEAK_SCORE
        assert f.entity_type == weak_type(value)
        assert f.entity_type in WEAK_TYPES
        assert f.explanation is not None
        assert (f.entity_type, *f.explanation.alternatives) == weak_types(value)


# the other readings each shape's published formats allow (module docstring's table)
READINGS = [
    # nine digits: an SSN or ITIN by the numbering rules, else a 9-digit licence; both also
    # a passport book number (nine digits before 2021) and an account number (8-17 digits)
    ("078051121", ("US_SSN", "US_PASSPORT", "US_DRIVER_LICENSE", "US_BANK_NUMBER")),
    ("911701234", ("US_ITIN", "US_PASSPORT", "US_DRIVER_LICENSE", "US_BANK_NUMBER")),
    ("123456789", ("US_DRIVER_LICENSE", "US_PASSPORT", "US_BANK_NUMBER")),
    # five and four digits: only an SSN or an ITIN typed with its dash moved
    ("07805-1121", ("US_SSN",)),
    ("91170-1234", ("US_ITIN",)),
    # a letter and eight digits: a passport card or book, or a one-letter licence
    ("A12803456", ("US_PASSPORT", "US_DRIVER_LICENSE")),
    # 10 to 14 digits: a licence or an account number, never a passport or an SSN
    ("1234567890", ("US_DRIVER_LICENSE", "US_BANK_NUMBER")),
    ("94545678765432", ("US_DRIVER_LICENSE", "US_BANK_NUMBER")),
]


@pytest.mark.parametrize(("value", "readings"), READINGS)
def test_each_shape_lists_the_types_its_formats_fit(value: str, readings: tuple[str, ...]) -> None:
    assert weak_types(value) == readings
    f = WeakShapeRecognizer().analyze(f"use {value} today")[0]
    assert f.explanation is not None
    assert (f.entity_type, *f.explanation.alternatives) == readings


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"\A(?:[0-9]{9,14}|[0-9]{5}-[0-9]{4}|[A-Z][0-9]{8})\Z"))
def test_readings_are_distinct_weak_types_led_by_the_reported_one(value: str) -> None:
    types = weak_types(value)
    assert len(set(types)) == len(types) and set(types) <= WEAK_TYPES
    assert weak_type(value) == (types[0] if types else None)


@pytest.mark.parametrize(
    ("value", "asked", "want"),
    [
        ("945456787654", "US_BANK_NUMBER", "US_BANK_NUMBER"),
        ("945456787654", "US_DRIVER_LICENSE", "US_DRIVER_LICENSE"),
        ("945456787654", "US_PASSPORT", None),  # twelve digits are no passport number
        ("H12234567", "US_DRIVER_LICENSE", "US_DRIVER_LICENSE"),
        ("H12234567", "US_BANK_NUMBER", None),
        ("912803456", "US_PASSPORT", "US_PASSPORT"),
        ("912803456", "US_ITIN", "US_ITIN"),
        ("078051121", "US_BANK_NUMBER", "US_BANK_NUMBER"),
        ("07805-1121", "US_PASSPORT", None),  # a 5-4 group is only an SSN typed wrong
    ],
)
def test_an_analyzer_asked_for_some_types_reports_a_shape_under_one_of_them(
    value: str, asked: str, want: str | None
) -> None:
    analyzer = TextAnalyzer.from_config(ner=False, entities=[asked])
    text = f"Please use {value} for the form."
    found = analyzer.analyze(text)
    assert [(text[f.start : f.end], f.entity_type) for f in found] == (
        [(value, want)] if want else []
    )
    if found:
        assert found[0].score == WEAK_SCORE
        ex = found[0].explanation
        assert ex is not None and asked not in ex.alternatives
        assert set(ex.alternatives) | {asked} == set(weak_types(value))


def test_all_types_keep_the_first_reading_and_explain_the_others(redact: TextAnalyzer) -> None:
    text = "Please use 945456787654 for the form."
    (f,) = redact.analyze(text)
    assert f.entity_type == "US_DRIVER_LICENSE"
    explained = f.to_dict(explain=True)["explanation"]
    assert explained["alternatives"] == ["US_BANK_NUMBER"]
    # an explanation without other readings reads as before: no such key
    (g,) = redact.analyze("Mail jo@example.com")
    assert "alternatives" not in g.to_dict(explain=True)["explanation"]
