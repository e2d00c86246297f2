"""US EINs, UPI ids, IFSC, SWIFT/BIC and user names: Faker's generators and issuers' rules."""

from __future__ import annotations

import pytest
from faker import Faker

from veil.policy import DETECT_SCORE_THRESHOLD
from veil.text import TextAnalyzer
from veil.text.recognition._business_ids import EIN_PREFIXES, ein_ok


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    a = TextAnalyzer.from_config(ner=False)
    a.score_threshold = 0.45  # the recall-first redaction threshold
    return a


def _found(a: TextAnalyzer, text: str) -> list[tuple[str, str, float]]:
    return [(f.entity_type, text[f.start : f.end], f.score) for f in a.analyze(text)]


def test_faker_eins_are_found_after_their_label(analyzer: TextAnalyzer) -> None:
    fake = Faker("en_US")
    fake.seed_instance(11)
    for _ in range(30):
        ein = fake.ein()
        text = f"Employer EIN: {ein} on the W-2"
        expected = ein[:2] in EIN_PREFIXES  # Faker draws any prefix; the IRS assigns some
        assert ein_ok(ein) is expected
        if expected:
            assert ("US_EIN", ein, 0.95) in _found(analyzer, text)


def test_a_bare_ein_is_below_the_detect_threshold_and_unassigned_prefixes_are_not_eins(
    analyzer: TextAnalyzer,
) -> None:
    assert ("US_EIN", "94-2841935", 0.45) in _found(analyzer, "vendor 94-2841935 paid")
    assert all(e != "US_EIN" for e, _, _ in _found(analyzer, "EIN 07-2841935"))
    detect = TextAnalyzer.from_config(ner=False)
    detect.score_threshold = DETECT_SCORE_THRESHOLD  # veil text detect's
    assert all(e != "US_EIN" for e, _, _ in _found(detect, "vendor 94-2841935 paid"))


def test_faker_swift_codes_need_their_word(analyzer: TextAnalyzer) -> None:
    fake = Faker("en_GB")
    fake.seed_instance(5)
    for code in [fake.swift8() for _ in range(10)] + [fake.swift11() for _ in range(10)]:
        assert ("SWIFT_CODE", code) in [
            (e, v) for e, v, _ in _found(analyzer, f"SWIFT/BIC: {code}")
        ]
        assert all(e != "SWIFT_CODE" for e, _, _ in _found(analyzer, f"see {code} now"))
    # "BUSI" + "NE" (Niger) + "SS" has a BIC's shape, and is a word
    assert _found(analyzer, "BIC for BUSINESS CLASS") == []


@pytest.mark.parametrize(
    ("text", "value", "score"),
    [
        ("Pay to ravi.k@okaxis today", "ravi.k@okaxis", 0.85),  # a known PSP handle
        ("UPI: shop123@mybank", "shop123@mybank", 0.75),  # another handle after "UPI"
    ],
)
def test_upi_ids(analyzer: TextAnalyzer, text: str, value: str, score: float) -> None:
    assert ("UPI_ID", value, score) in _found(analyzer, text)


def test_upi_never_takes_an_email_or_a_bare_handle(analyzer: TextAnalyzer) -> None:
    assert [e for e, _, _ in _found(analyzer, "mail jo@example.com")] == ["EMAIL_ADDRESS"]
    assert all(e != "UPI_ID" for e, _, _ in _found(analyzer, "meet me@home later"))


def test_ifsc(analyzer: TextAnalyzer) -> None:
    # RBI's layout: four letters of the bank, a 0, six of the branch (SBI's main branch)
    assert ("IN_IFSC", "SBIN0000691", 1.0) in _found(analyzer, "IFSC: SBIN0000691")
    assert ("IN_IFSC", "SBIN0000691", 0.45) in _found(analyzer, "branch SBIN0000691 Mumbai")
    assert all(e != "IN_IFSC" for e, _, _ in _found(analyzer, "code SBIN1000691"))


def test_faker_user_names_after_their_label(analyzer: TextAnalyzer) -> None:
    fake = Faker("en_US")
    fake.seed_instance(9)
    for _ in range(20):
        user = fake.user_name()
        assert ("USERNAME", user) in [
            (e, v) for e, v, _ in _found(analyzer, f"Username: {user}, reset requested")
        ]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("ping @jane_doe on slack", ["@jane_doe"]),
        ("username is required", []),
        ("write to jane@corp.com", []),
    ],
)
def test_mentions_and_labels_that_announce_nothing(
    analyzer: TextAnalyzer, text: str, found: list[str]
) -> None:
    assert [v for e, v, _ in _found(analyzer, text) if e == "USERNAME"] == found
