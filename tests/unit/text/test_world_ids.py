"""Presidio's country ids, bare checked values and phone numbers of every region.

Values come from generators that are not ours (Faker's locale providers) and from the
issuers' published examples; each is also corrupted by one digit to show its rule bites.
"""

from __future__ import annotations

import pytest
from faker import Faker

from veil.policy import DETECT_SCORE_THRESHOLD
from veil.text import TextAnalyzer
from veil.text.recognition import _world_checksums as wc
from veil.text.recognition._national_ids import pesel_ok
from veil.text.recognition._recognizer import recognizers
from veil.text.recognition._world_ids import FAILED, STRONG, WEAK, WORLD_RULES

REDACT = 0.45  # the recall-first redaction threshold (REDACT_SCORE_THRESHOLD), below detect (0.5)


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    a = TextAnalyzer.from_config(ner=False)
    a.score_threshold = REDACT
    return a


def _found(a: TextAnalyzer, text: str) -> list[tuple[str, str, float]]:
    return [(f.entity_type, text[f.start : f.end], f.score) for f in a.analyze(text)]


# (locale, provider, rule, entity, a context word, how to turn the value into the id)
FAKER = [
    ("en_CA", "ssn", wc.sin_ok, "CA_SIN", "SIN", str),
    ("sv_SE", "ssn", wc.se_pnr_ok, "SE_PERSONNUMMER", "personnummer", str),
    ("sv_SE", "org_id", wc.se_org_ok, "SE_ORGANISATIONSNUMMER", "organisationsnummer", str),
    ("tr_TR", "ssn", wc.tr_id_ok, "TR_NATIONAL_ID", "TC Kimlik No", str),
    ("th_TH", "ssn", wc.th_tnin_ok, "TH_TNIN", "Thai ID", str),
    ("pl_PL", "pesel", pesel_ok, "PL_PESEL", "PESEL", str),
    ("it_IT", "company_vat", wc.it_vat_ok, "IT_VAT_CODE", "partita IVA", lambda v: v[2:]),
    ("de_DE", "vat_id", wc.de_vat_ok, "DE_VAT_ID", "USt-IdNr", str),
]


def _rule_name(entity: str) -> str:
    """The registry name of the recognizer reporting ``entity``."""
    return next(
        n for n in recognizers.names() if getattr(recognizers.get(n), "entity", None) == entity
    )


def _corrupt(value: str) -> str:
    """The value with its last digit changed."""
    i = max(i for i, c in enumerate(value) if c.isdigit())
    return value[:i] + str((int(value[i]) + 1) % 10) + value[i + 1 :]


@pytest.mark.parametrize(("locale", "provider", "ok", "entity", "word", "to_id"), FAKER)
def test_faker_values_pass_their_rule_and_are_found_announced(
    analyzer, locale, provider, ok, entity, word, to_id
):
    rec = next(recognizers.get(n)() for n in recognizers.names() if n == _rule_name(entity))
    fake = Faker(locale)
    fake.seed_instance(7)
    for _ in range(25):
        value = to_id(getattr(fake, provider)())
        assert ok(value), "a value Faker generates fails the issuer's rule"
        assert not ok(_corrupt(value)), "a one-digit change passes the rule"
        text = f"Her {word}: {value}, filed today."
        own = [(f.entity_type, text[f.start : f.end], f.score) for f in rec.analyze(text)]
        assert (entity, value, 1.0) in own
        # the analyzer redacts it (a Thai id of 13 digits may pass Luhn and read as a card)
        assert any(v == value for _, v, _ in _found(analyzer, text))


@pytest.mark.parametrize(
    ("text", "entity"),
    [
        ("51 824 753 556", "AU_ABN"),  # the ATO's example ABN
        ("65929970489", "DE_TAX_ID"),  # BZSt's example IdNr
        ("DE136695976", "DE_VAT_ID"),
        ("27AAPFU0939F1ZV", "IN_GSTIN"),  # GSTN's example
        ("8001015009087", "ZA_ID_NUMBER"),
        ("10000000146", "TR_NATIONAL_ID"),
        ("1101700230708", "TH_TNIN"),
        ("65170839J003", "DE_SOCIAL_SECURITY"),
    ],
)
def test_bare_values_passing_a_strong_check_are_found_below_the_detect_threshold(
    analyzer, text, entity
):
    hits = _found(analyzer, f"ref {text} attached")
    assert (entity, text, STRONG) in hits
    detect = TextAnalyzer.from_config(ner=False)
    detect.score_threshold = DETECT_SCORE_THRESHOLD  # veil text detect's
    assert all(e != entity for e, _, _ in _found(detect, f"ref {text} attached"))


def test_weak_checks_need_their_word_at_the_redaction_threshold(analyzer):
    # nine digits passing Luhn: one ordinary number in ten does
    assert all(e != "CA_SIN" for e, _, _ in _found(analyzer, "order 130 692 544 shipped"))
    low = TextAnalyzer.from_config(ner=False)
    low.score_threshold = 0.2
    assert ("CA_SIN", "130 692 544", WEAK) in _found(low, "order 130 692 544 shipped")
    assert ("CA_SIN", "130 692 544", 1.0) in _found(analyzer, "SIN 130 692 544")


def test_a_failed_check_is_kept_only_when_announced(analyzer):
    assert ("CA_SIN", "130 692 545", FAILED) in _found(analyzer, "SIN 130 692 545")
    assert _found(analyzer, "130 692 545") == []
    assert ("AU_ABN", "51 824 753 557", FAILED) in _found(analyzer, "ABN 51 824 753 557")


@pytest.mark.parametrize(
    ("text", "entity", "value"),
    [
        ("Voter id (EPIC): ABC1234567", "IN_VOTER", "ABC1234567"),
        ("Registered at Amtsgericht München, HRB 12345", "DE_HANDELSREGISTER", "HRB 12345"),
        ("Medicare number 1EG4-TE5-MK73", "US_MBI", "1EG4-TE5-MK73"),
        ("Kennzeichen M-AB 1234", "DE_KFZ", "M-AB 1234"),
    ],
)
def test_format_only_ids_need_their_word(analyzer, text, entity, value):
    assert any(e == entity and v == value for e, v, _ in _found(analyzer, text))
    bare = text.split(":")[-1] if ":" in text else value
    assert all(e != entity for e, _, _ in _found(analyzer, f"see {bare.strip()} here"))


def test_every_rule_is_registered_under_presidios_name(analyzer):
    assert {r.entity for r in WORLD_RULES} <= set(analyzer.supported_entities)


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("My Israeli number is 09-7625400", "09-7625400"),
        ("My Japanese number is 090-1234-5678", "090-1234-5678"),
        ("My CN number is 13812345678", "13812345678"),
        ("Turkish line: 0532 123 45 67", "0532 123 45 67"),
    ],
)
def test_national_numbers_of_the_region_the_text_names(analyzer, text, number):
    assert ("PHONE_NUMBER", number) in [(e, v) for e, v, _ in _found(analyzer, text)]


def test_grouped_national_numbers_without_a_cue_score_below_detect(analyzer):
    hits = _found(analyzer, "The desk is 0917 123 4567 after lunch.")
    assert [(e, v) for e, v, _ in hits] == [("PHONE_NUMBER", "0917 123 4567")]
    assert hits[0][2] < 0.5


@pytest.mark.parametrize(
    "text",
    [
        "Total 1 299 000 EUR",
        "ref 1234 5678 9012",
        "Meeting on 2024-05-01 at 10.30",
        "ISBN 978-3-16-148410-0",
        "version 10.2.3.4 release",
    ],
)
def test_amounts_dates_and_ids_are_no_phone_numbers(analyzer, text):
    assert all(e != "PHONE_NUMBER" for e, _, _ in _found(analyzer, text))
