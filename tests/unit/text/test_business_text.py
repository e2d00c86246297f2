"""The business-text corpus, user names, password-shaped tokens, and the two thresholds."""

import json
import re
import warnings
from pathlib import Path

import pytest

from veil.policy import DETECT_SCORE_THRESHOLD, REDACT_SCORE_THRESHOLD, TextConfig
from veil.text import TextAnalyzer
from veil.text.evaluation._corpus_business import BUSINESS_TEMPLATES, generate_business_corpus
from veil.text.recognition._checksums import iban_ok, luhn_ok
from veil.text.recognition._password_shape import PasswordShapeRecognizer
from veil.text.recognition._usernames import UsernameRecognizer

with warnings.catch_warnings():
    # typer imports names that click deprecates (click.utils.get_binary_stream): not ours to fix
    warnings.simplefilter("ignore", DeprecationWarning)
    from veil.cli._app import main

# -- the corpus ---------------------------------------------------------------------------


def test_business_corpus_spans_match_and_the_seed_decides() -> None:
    a = generate_business_corpus(90, seed=3)
    assert a == generate_business_corpus(90, seed=3)
    assert a != generate_business_corpus(90, seed=4)
    for r in a:
        for s in r["spans"]:
            assert r["full_text"][s["start_position"] : s["end_position"]] == s["entity_value"]
            assert s["kind"].split(":")[0] in (s["entity_type"], "ID")


def test_business_corpus_covers_every_shape_the_issue_lists() -> None:
    recs = generate_business_corpus(len(BUSINESS_TEMPLATES), seed=0)
    assert {r["template"] for r in recs} == set(range(len(BUSINESS_TEMPLATES)))
    spans = [s for r in recs for s in r["spans"]]
    kinds = {s["kind"] for s in spans}
    for kind in (
        "PERSON:lower", "PHONE_NUMBER:ext", "PHONE_NUMBER:fax", "PHONE_NUMBER:foreign",
        "PASSWORD", "PASSWORD:pin", "PASSWORD:phrase", "API_KEY:github", "CREDENTIAL:url",
        "ID:ein", "US_SSN", "US_SSN:masked", "IN_PAN", "IN_AADHAAR", "US_PASSPORT:foreign",
        "ID:patient", "MEDICAL_RECORD_NUMBER:glued", "ID:insurance", "ID:voter",
        "ID:employee", "ID:student", "USERNAME", "ABA_ROUTING_NUMBER", "US_BANK_NUMBER",
        "IBAN_CODE", "IBAN_CODE:bad", "CREDIT_CARD", "CREDIT_CARD:bad", "CREDIT_CARD:masked",
        "DATE_TIME:loose", "DATE_TIME:iso", "IP_ADDRESS", "URL", "STREET_ADDRESS:intl",
    ):  # fmt: skip
        assert kind in kinds, kind
    by_kind = {s["kind"]: s["entity_value"] for s in spans}
    # the failing values really fail their checks, the masked ones are masked
    assert not iban_ok(by_kind["IBAN_CODE:bad"].replace(" ", ""))
    assert not luhn_ok(by_kind["CREDIT_CARD:bad"].replace(" ", ""))
    assert re.search(r"[X*x]{2}", by_kind["US_SSN:masked"])
    assert re.fullmatch(r"[A-Z]{5}\d{4}[A-Z]", by_kind["IN_PAN"])
    # texts without personal data are part of it
    assert any(not r["spans"] for r in recs)


def test_corpus_command_business(tmp_path: Path) -> None:
    out = tmp_path / "b.jsonl"
    args = ["-q", "text", "corpus", "--kind", "business", "--n", "7", "--seed", "2"]
    assert main([*args, "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows == generate_business_corpus(7, seed=2)


# -- user names -----------------------------------------------------------------------------

USERNAMES = [
    ("Username: simpsonlarry. Reset the password", "simpsonlarry", 0.6),
    ("user=jdoe / pwd: x", "jdoe", 0.6),
    ("Hi, my login is eringrant and my email is below", "eringrant", 0.6),
    ("denied at 10:02, user jenniferhughes48.", "jenniferhughes48", 0.45),
    ("New hire: login heidiharris, temp password X", "heidiharris", 0.45),
    ("Benutzername: m.mueller", "m.mueller", 0.6),
    ("logon CORP\\jdoe failed", "CORP\\jdoe", 0.45),
]


@pytest.mark.parametrize(("text", "value", "score"), USERNAMES)
def test_usernames_after_labels(text: str, value: str, score: float) -> None:
    found = [(text[f.start : f.end], f.score) for f in UsernameRecognizer().analyze(text)]
    assert found == [(value, score)]


@pytest.mark.parametrize(
    "text",
    [
        "See the user guide and the login page.",
        "Username: required",
        "The user experience is better; login is incorrect.",
        "Each user has a handle on the problem.",
        "user john@example.com asked",  # an e-mail address is found as one
        "User: hi, my card is blocked\nAgent: sorry to hear that",  # a transcript's speaker
        "Login: please use the form below",
    ],
)
def test_no_username_where_the_label_has_no_name(text: str) -> None:
    assert UsernameRecognizer().analyze(text) == []


# -- password-shaped tokens -----------------------------------------------------------------


def test_password_shaped_tokens_are_redacted_not_detected() -> None:
    text = "me: whats the wifi pw\nana: &0M+#XToSD\nme: ty"
    value = "&0M+#XToSD"
    found = PasswordShapeRecognizer().analyze(text)
    assert [text[f.start : f.end] for f in found] == [value]
    assert DETECT_SCORE_THRESHOLD > found[0].score >= REDACT_SCORE_THRESHOLD
    redact = TextAnalyzer.from_config(ner=False)  # a policy's text config: redaction
    detect = TextAnalyzer.from_config(
        TextConfig.model_validate({"score_threshold": DETECT_SCORE_THRESHOLD}), ner=False
    )
    # "ana" labels a line of the transcript: a name at both thresholds
    assert [text[f.start : f.end] for f in redact.analyze(text)] == ["ana", value]
    assert [text[f.start : f.end] for f in detect.analyze(text)] == ["ana"]


@pytest.mark.parametrize(
    "text",
    [
        "Release 4.2.0 (build A7) is out; see docs/setup.md.",
        "Connection string: Server=sql01;Database=hr;User Id=x",
        "Logo as data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB== in the mail",
        "Visit https://Example.com/a?B=1&c=2 or mail Jo.Doe+1@Example.com",
        "Ticket EMP-20931 and INV_2024-0042 are closed.",
    ],
)
def test_password_shape_leaves_ordinary_tokens(text: str) -> None:
    assert PasswordShapeRecognizer().analyze(text) == []


# -- the two defaults -------------------------------------------------------------------------


def test_redaction_threshold_is_below_detection_and_is_each_default() -> None:
    assert REDACT_SCORE_THRESHOLD < DETECT_SCORE_THRESHOLD
    assert TextConfig.model_validate({}).score_threshold == REDACT_SCORE_THRESHOLD
    assert TextAnalyzer().score_threshold == DETECT_SCORE_THRESHOLD
    assert TextAnalyzer.from_config(ner=False).score_threshold == REDACT_SCORE_THRESHOLD


def test_cli_redact_recall_first_detect_precision_first(tmp_path: Path) -> None:
    text = "login heidiharris, then the chat said: &0M+#XToSD"
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"text": text}) + "\n")
    red = tmp_path / "red.jsonl"
    assert main(["-q", "redact", str(src), "-c", "text", "--no-ner", "--out", str(red)]) == 0
    out = json.loads(red.read_text())["text"]
    assert out == "login <USERNAME>, then the chat said: <PASSWORD>"
    det = tmp_path / "det.jsonl"
    assert (
        main(["-q", "text", "detect", str(src), "-c", "text", "--no-ner", "--out", str(det)]) == 0
    )
    assert json.loads(det.read_text())["findings"] == []
    # the flag overrides either default
    det2 = tmp_path / "det2.jsonl"
    args = ["-q", "text", "detect", str(src), "-c", "text", "--no-ner", "--threshold", "0.45"]
    assert main([*args, "--out", str(det2)]) == 0
    assert len(json.loads(det2.read_text())["findings"]) == 2
    kept = tmp_path / "kept.jsonl"
    args = ["-q", "redact", str(src), "-c", "text", "--no-ner", "--threshold", "0.5"]
    assert main([*args, "--out", str(kept)]) == 0
    assert json.loads(kept.read_text())["text"] == text


def test_policy_key_overrides_the_redaction_threshold() -> None:
    cfg = TextConfig.model_validate({"score_threshold": 0.5})
    assert TextAnalyzer.from_config(cfg, ner=False).analyze("login heidiharris") == []


# -- labels found again ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        # a label whose value is a word does not hide the label after it
        ("Insurance policy number DMR847793615 covers Ann", "DMR847793615", "ID"),
        ("Claim case number AB-20931 is open", "AB-20931", "ID"),
        ("Door code changed, new PIN 3694. Ask Bob", "3694", "PASSWORD"),
        ("Recovery passphrase for the backup vault: close ask reduce land", None, "PASSWORD"),
        ("wifi pw: Xk7qp2Lm", "Xk7qp2Lm", "PASSWORD"),
    ],
)
def test_labels_that_were_missed(text: str, value: str | None, entity: str) -> None:
    found = {
        (text[f.start : f.end], f.entity_type)
        for f in TextAnalyzer.from_config(ner=False).analyze(text)
    }
    if value is None:  # a passphrase: the words to the end of the line
        value = text.split(": ", 1)[1]
    assert (value, entity) in found


@pytest.mark.parametrize(
    "text",
    ["the pin is in the drawer", "PIN code of the building is posted", "Insurance policy pending"],
)
def test_labels_without_values_stay_silent(text: str) -> None:
    assert TextAnalyzer.from_config(ner=False).analyze(text) == []
