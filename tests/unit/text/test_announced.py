"""Announced identifiers and masked values (``veil.text.recognition._announced``), issue #24 item 2."""

import json
import logging
import random
import re
import time
import warnings

import pytest
from faker import Faker

from veil.text import TextAnalyzer
from veil.text.ner._ner import _plausible
from veil.text.recognition._announced import (
    ANNOUNCED_SCORE,
    FAILED_SCORE,
    AnnouncedIdRecognizer,
    looks_like_identifier,
)
from veil.text.recognition._checksums import iban_ok, luhn_ok, ssn_kind

with warnings.catch_warnings():
    # typer imports names that click deprecates (click.utils.get_binary_stream): not ours to fix
    warnings.simplefilter("ignore", DeprecationWarning)
    from veil.cli._app import main


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


def _spans(text: str) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.entity_type) for f in AnnouncedIdRecognizer().analyze(text)]


# (text, value, entity): the recognizer alone reports ``value`` as ``entity``
POSITIVES = [
    ("Patient ID: AHC-0933289", "AHC-0933289", "ID"),
    ("patient id AHC-0933289 was admitted", "AHC-0933289", "ID"),
    ("MRN_987654321", "MRN_987654321", "MEDICAL_RECORD_NUMBER"),
    ("XG9382049 (passport)", "XG9382049", "US_PASSPORT"),
    ("My passport number is XG9382049.", "XG9382049", "US_PASSPORT"),
    ("ID# 77120", "77120", "ID"),
    ("ID#77120", "77120", "ID"),
    ("filed under policy HX-44120-B today", "HX-44120-B", "ID"),
    ("Policy #: 00912-A", "00912-A", "ID"),
    ("The employee number is 55231.", "55231", "ID"),
    ("Please charge acct ending 4321.", "4321", "US_BANK_NUMBER"),
    ("card ending in 9876", "9876", "CREDIT_CARD"),
    ("PAN: ABPCJ4567R", "ABPCJ4567R", "IN_PAN"),
    ("Our EIN 94-2841935 is on the W-9", "94-2841935", "ID"),
    ("TIN: 94-2841935", "94-2841935", "ID"),
    ("SWIFT/BIC: DEUTDEFF", "DEUTDEFF", "ID"),
    ("IFSC code SBIN0001234", "SBIN0001234", "ID"),
    ("sort code 12-34-56", "12-34-56", "ID"),
    ("DL: D1234-56789", "D1234-56789", "US_DRIVER_LICENSE"),
    ("driver's license no. WDLABCD1234", "WDLABCD1234", "US_DRIVER_LICENSE"),
    ("Member ID: XJK449201", "XJK449201", "ID"),
    ("claim number CLM-2024-0042", "CLM-2024-0042", "ID"),
    ("ticket #48213 reopened", "48213", "ID"),
    ("voter id: ZQX1234567", "ZQX1234567", "ID"),
    ("student no. 20231187", "20231187", "ID"),
    ("badge 0042-77", "0042-77", "ID"),
    ("Aadhaar: 2345 6789 0123", "2345 6789 0123", "IN_AADHAAR"),
    ("NINO: QQ 12 34 56 C", "QQ 12 34 56", "UK_NINO"),
    ("routing 011000015", "011000015", "ABA_ROUTING_NUMBER"),
    ("order number ABC-12345", "ABC-12345", "ID"),
    ("n° 12345678", "12345678", "ID"),
    ("Ausweis-Nr. L01X00T47", "L01X00T47", "ID"),
    ("número de pasaporte: XDA123456", "XDA123456", "US_PASSPORT"),
    ("numéro 123 456 789", "123 456 789", "ID"),
    ("license plate: SR79 ELT.", "SR79 ELT", "ID"),
    # masked and partly masked values: the entity they mask
    ("XXX-XX-2409", "XXX-XX-2409", "US_SSN"),
    ("SSN 987-XX-XXXX", "987-XX-XXXX", "US_SSN"),
    ("***-**-1234", "***-**-1234", "US_SSN"),
    ("card 4532************7890 declined", "4532************7890", "CREDIT_CARD"),
    ("paid with XXXX-XXXX-XXXX-9876.", "XXXX-XXXX-XXXX-9876", "CREDIT_CARD"),
    ("**** **** **** 1234", "**** **** **** 1234", "CREDIT_CARD"),
    ("to DE89 XXXX XXXX XXXX 3000 00 today", "DE89 XXXX XXXX XXXX 3000 00", "IBAN_CODE"),
    ("Account: ****5678", "****5678", "US_BANK_NUMBER"),
]

# texts where nothing is an announced identifier
NEGATIVES = [
    "Patient ID: unknown",
    "policy number pending",
    "The case closed last week.",
    "Every ticket sold out.",
    "We have staff 1000 people strong.",
    "tax 2023 was filed",
    "The order 12 pizzas arrived.",
    "my number is 5551234567",  # a phone's number, not an id label
    "POLICY NUMBER PENDING",
    "Account XXXXXX was closed.",  # masked whole: nothing left to hide
    "XXX-XX-XXXX",
    "tax 20% on the claim 1.50",
    "case 2024-01-15 hearing",  # a date, not an id
    "account balance is 1200.50",
    "In any case 3 people came.",
    "Send the PDF to ticket support.",
    "Maxx1234xxxx was here",
    "member since 2019",
]


@pytest.mark.parametrize(("text", "value", "entity"), POSITIVES)
def test_announced_values_are_found_typed_by_their_label(
    text: str, value: str, entity: str
) -> None:
    assert (value, entity) in _spans(text)


@pytest.mark.parametrize("text", NEGATIVES)
def test_words_amounts_and_dates_after_a_label_are_no_identifier(text: str) -> None:
    assert _spans(text) == []


def test_explanation_says_announced_not_validated(analyzer: TextAnalyzer) -> None:
    text = "Patient ID: AHC-0933289"
    (f,) = analyzer.analyze(text)
    assert f.recognizer == "announced_id" and f.score == ANNOUNCED_SCORE < 1.0
    assert f.explanation is not None
    assert f.explanation.pattern_name == "announced:before"
    assert f.explanation.validation is None
    assert f.explanation.context_words == ("patient",)


def test_failed_checksum_scores_lower_than_announced(analyzer: TextAnalyzer) -> None:
    text = "IBAN: DE00 3704 0044 0532 0130 00 is mine"
    (f,) = analyzer.analyze(text)
    assert (f.entity_type, f.score) == ("IBAN_CODE", FAILED_SCORE)
    assert f.explanation is not None and f.explanation.pattern_name.endswith("checksum_failed")
    assert FAILED_SCORE < ANNOUNCED_SCORE


@pytest.mark.parametrize(
    ("text", "value", "entity", "recognizer"),
    [
        ("IBAN: DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00", "IBAN_CODE", "iban"),
        ("card number 4111 1111 1111 1111", "4111 1111 1111 1111", "CREDIT_CARD", "credit_card"),
        ("Patient ID: 536-22-1234", "536-22-1234", "US_SSN", "us_ssn"),
    ],
)
def test_a_validated_finding_of_the_same_span_wins(
    analyzer: TextAnalyzer, text: str, value: str, entity: str, recognizer: str
) -> None:
    (f,) = analyzer.analyze(text)
    assert (text[f.start : f.end], f.entity_type, f.recognizer) == (value, entity, recognizer)
    assert f.score > ANNOUNCED_SCORE


def test_identifier_shape_rule() -> None:
    assert looks_like_identifier("ABPCJ4567R", strong=False)
    assert looks_like_identifier("DEUTDEFF", strong=False)
    assert looks_like_identifier("4321", strong=True)
    assert not looks_like_identifier("4321", strong=False)
    assert not looks_like_identifier("pending", strong=True)
    assert not looks_like_identifier("12.50", strong=True)
    assert not looks_like_identifier("DEUTDEFF", strong=False, shouted=True)


@pytest.mark.parametrize("span", ["XXXX-XXXX", "XXX XX", "XXXX", "xxxx-xxxx", "**** ####"])
def test_mask_tokens_are_never_a_name_or_organisation(span: str) -> None:
    for entity in ("ORGANIZATION", "PERSON", "LOCATION"):
        assert not _plausible(entity, span)


def test_a_one_letter_name_is_no_mask() -> None:
    assert _plausible("PERSON", "Malcolm X")


# --- values from Faker's providers, in varied label layouts -----------------------------
LAYOUTS = [
    "{label}: {value}",
    "My {label} is {value}.",
    "{value} ({label})",
    "Filed under {label} {value}, thanks",
    "{label} # {value}",
    "Re: {label}\n{value}",
]


def _corrupt_iban(iban: str) -> str:
    for d in range(100):
        bad = f"{iban[:2]}{d:02d}{iban[4:]}"
        if not iban_ok(bad):
            return bad
    raise AssertionError("no corrupted check digits")  # pragma: no cover


def _broken_luhn(card: str) -> str:
    bad = card[:-1] + str((int(card[-1]) + 1) % 10)
    assert not luhn_ok(bad)
    return bad


def _faker_cases(seed: int) -> list[tuple[str, str, str]]:
    """(label, value, entity) drawn from Faker's providers of several locales."""
    rng = random.Random(seed)
    out = []
    for loc in ("en_US", "de_DE", "en_GB", "fr_FR", "en_IN", "es_ES"):
        fk = Faker(loc)
        fk.seed_instance(seed)
        out.append(("passport number", fk.passport_number(), "US_PASSPORT"))
        out.append(("IBAN", _corrupt_iban(fk.iban()), "IBAN_CODE"))
        out.append(("account no.", fk.bban(), "US_BANK_NUMBER"))
        out.append(("credit card", _broken_luhn(fk.credit_card_number()), "CREDIT_CARD"))
        out.append(("license plate", fk.license_plate(), "ID"))
        out.append(("member number", fk.ean(), "ID"))
        out.append(
            ("employee ID", fk.bothify(rng.choice(["??-#####", "??######", "#####-?"])), "ID")
        )
        out.append(("Patient ID", fk.bothify("???-#######").upper(), "ID"))
    us = Faker("en_US")
    us.seed_instance(seed)
    for area in ("000", "666"):
        ssn = area + us.ssn()[3:]
        assert ssn_kind(ssn) != "ssn"
        out.append(("SSN", ssn, "US_SSN"))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_faker_values_announced_in_any_layout_are_found(analyzer: TextAnalyzer, seed: int) -> None:
    rng = random.Random(seed)
    missed = []
    for label, value, entity in _faker_cases(seed):
        layout = rng.choice(LAYOUTS)
        text = layout.format(label=label, value=value)
        start = text.index(value)
        end = start + len(value)
        hits = [f for f in analyzer.analyze(text) if f.start <= start and f.end >= end]
        if not hits:
            missed.append((layout, label))  # no value in the message
            continue
        # a validated recognizer may claim the value under its own name (a passport number
        # that is also a valid US driver's licence shape is still redacted): the type is the
        # label's when the announced finding is the one kept
        for f in hits:
            if f.recognizer == "announced_id":
                assert f.entity_type == entity, (layout, label)
    assert missed == []


def test_nothing_is_logged(analyzer: TextAnalyzer, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        analyzer.analyze("Patient ID: AHC-0933289, SSN 987-XX-XXXX, PAN: ABPCJ4567R")
    logged = " ".join(r.getMessage() for r in caplog.records)
    for value in ("0933289", "987-XX", "ABPCJ4567R"):
        assert value not in logged


def test_cli_redact_hides_announced_values(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.txt"
    src.write_text(
        "Patient ID: AHC-0933289 and MRN_987654321\n"
        "Passport XG9382049; PAN ABPCJ4567R\n"
        "Card XXXX-XXXX-XXXX-9876, SSN XXX-XX-2409\n"
        "Patient ID: unknown\n"
    )
    out = tmp_path / "out.txt"
    rc = main(["redact", str(src), "--no-ner", "--out", str(out), "--json"])
    assert rc == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["replaced"] == {
        "CREDIT_CARD": 1,
        "ID": 1,
        "IN_PAN": 1,
        "MEDICAL_RECORD_NUMBER": 1,
        "US_PASSPORT": 1,
        "US_SSN": 1,
    }
    redacted = out.read_text()
    for value in ("0933289", "987654321", "XG9382049", "ABPCJ4567R", "9876", "2409"):
        assert value not in redacted
        assert value not in captured.out + captured.err
    assert "Patient ID: unknown" in redacted
    assert re.search(r"Patient ID: <ID>", redacted)


def test_a_long_run_of_groups_costs_linear_time() -> None:
    # unbounded, each of the 20,000 groups opened a candidate that read all the rest:
    # minutes; bounded, well under a second
    start = time.perf_counter()
    AnnouncedIdRecognizer().analyze("ID: " + "AB12 " * 20_000)
    assert time.perf_counter() - start < 10.0


def test_one_finding_per_span_the_label_explains_it() -> None:
    text = "SSN 987-XX-XXXX"
    (f,) = AnnouncedIdRecognizer().analyze(text)
    assert (text[f.start : f.end], f.entity_type) == ("987-XX-XXXX", "US_SSN")
    assert f.explanation is not None
    assert f.explanation.pattern_name == "announced:before:masked"
    assert f.explanation.context_words == ("ssn",)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("IBAN GB84MYNB48764759382421 IP 166.186.169.69", "GB84MYNB48764759382421"),
        ("IBAN: GB82 WEST 1234 5698 7654 32 IP 10.1.2.3", "GB82 WEST 1234 5698 7654 32"),
        ("Card 4111 1111 1111 1111 EXP 09/29", "4111 1111 1111 1111"),
    ],
)
def test_a_code_printed_after_an_announced_value_is_not_part_of_it(
    analyzer: TextAnalyzer, text: str, value: str
) -> None:
    # the printed groups took the next short code in capitals ("IP", "EXP") as one of
    # theirs; the checksum then failed, the finding kept the code, and a surrogate of the
    # IBAN crashed on the extra letters (found by the redaction property test)
    found = [text[f.start : f.end] for f in analyzer.analyze(text)]
    assert value in found
    assert not any(v.startswith(value) and v != value for v in found)


def test_a_surrogate_iban_keeps_a_longer_spans_layout() -> None:
    from veil.text.replacement._surrogate import SurrogateFactory

    # a span with more letters and digits than its country's IBAN (22 for GB): the
    # surrogate ran out of characters and raised StopIteration
    value = "GB84MYNB48764759382421 IP"
    out = SurrogateFactory().make("IBAN_CODE", value, seed=1)
    assert len(out) == len(value) and out[22] == " " and out[23:].isalpha()
    assert out[:22] != value[:22] and iban_ok(out[:22])


def test_a_digit_group_after_an_announced_iban_stays_in_its_finding(analyzer: TextAnalyzer) -> None:
    # only groups of capitals are cut from an announced value; a group with a digit may be
    # part of it, and a privacy tool redacts it rather than leave it in clear
    text = "IBAN DE89 3704 0044 0532 0130 00 1234 thanks"
    found = [text[f.start : f.end] for f in analyzer.analyze(text)]
    assert any(v.startswith("DE89") and v.endswith("1234") for v in found)
