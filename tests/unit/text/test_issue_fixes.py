"""Bugs of issue #24 item 6, each pinned by the exact span and entity type of a value
written into a sentence: IBANs before a short word, date shapes, IPv6 with an IPv4 tail,
punycode mail domains, "www." names, dotted SSNs, M-series FINs, glued phone labels,
lower-case full names, house numbers, masks and label acronyms, passwords near their word."""

from __future__ import annotations

import pytest

from veil.policy import DETECT_SCORE_THRESHOLD, REDACT_SCORE_THRESHOLD
from veil.text import TextAnalyzer, TextRedactor, make_operator
from veil.text.detection._house_numbers import with_house_numbers
from veil.text.recognition._checksums import iban_ok
from veil.text.recognition._finding import Finding
from veil.text.recognition._national_ids import nric_ok
from veil.text.vocab._label_words import names_nothing


@pytest.fixture(scope="module")
def regex() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


@pytest.fixture(scope="module")
def ner() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=True)


def found(analyzer: TextAnalyzer, text: str) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.entity_type) for f in analyzer.analyze(text)]


def embed(template: str, value: str) -> tuple[str, str]:
    return template.format(value), value


# -- IBAN -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "template",
    ["{} is mine", "Send it to {} ok?", "IBAN {} by Friday", "{} abc", "{} for rent"],
)
def test_grouped_iban_before_a_short_word_is_cut_not_dropped(
    regex: TextAnalyzer, template: str
) -> None:
    iban = "AL47 2121 1009 0000 0002 3569 8741"
    assert iban_ok(iban)
    text, value = embed(template, iban)
    assert found(regex, text) == [(value, "IBAN_CODE")]


def test_grouped_iban_with_a_short_last_group_keeps_it(regex: TextAnalyzer) -> None:
    iban = "GB82 WEST 1234 5698 7654 32"  # 22 characters: the last group has two
    assert iban_ok(iban)
    assert found(regex, f"pay {iban} is mine") == [(iban, "IBAN_CODE")]


def test_a_wrong_iban_is_still_no_iban(regex: TextAnalyzer) -> None:
    assert ("AL47 2121 1009 0000 0002 3569 8742", "IBAN_CODE") not in found(
        regex, "AL47 2121 1009 0000 0002 3569 8742 is mine"
    )


# -- dates ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("template", "value"),
    [
        ("Joined in {} and left", "May-2021"),
        ("Expires {} per the card", "Dec-1985"),
        ("Due on {} this year", "21-May"),
        ("Paid 3-Dec as agreed", "3-Dec"),
        ("Signed {} by us", "21.5.21"),
        ("born {}", "31.1.85"),
        ("Today is {}", "May-21"),
        ("Closed {} after review", "DEC-85"),
    ],
)
def test_date_shapes(regex: TextAnalyzer, template: str, value: str) -> None:
    text = template.format(value)
    assert found(regex, text) == [(value, "DATE_TIME")]


@pytest.mark.parametrize(
    "text",
    ["version 21.5.21 shipped", "ip 21.5.21.4 is", "3.5.21 kg", "see /blog/may-21 now", "May-215"],
)
def test_version_like_dotted_numbers_are_no_dates(regex: TextAnalyzer, text: str) -> None:
    assert [t for _, t in found(regex, text) if t == "DATE_TIME"] == []


# -- network ------------------------------------------------------------------------------------
@pytest.mark.parametrize("address", ["::ffff:192.0.2.1", "2001:db8::192.0.2.33"])
def test_ipv6_with_an_ipv4_tail_is_one_finding(regex: TextAnalyzer, address: str) -> None:
    assert found(regex, f"addr {address} seen") == [(address, "IP_ADDRESS")]


@pytest.mark.parametrize("address", ["2001:db8::256.1.1.1", "::ffff:300.0.2.1"])
def test_invalid_ipv6_is_not_cut_into_a_finding(regex: TextAnalyzer, address: str) -> None:
    assert found(regex, f"addr {address} seen") == []


@pytest.mark.parametrize("text", ["host 192.168.1.1.1 down", "10.0.12.7.80 refused"])
def test_an_address_inside_a_longer_dotted_run_is_redacted_whole(text: str) -> None:
    run = next(w for w in text.split() if w.count(".") >= 4)
    redact = TextAnalyzer.from_config(ner=False)
    redact.score_threshold = REDACT_SCORE_THRESHOLD
    assert [(text[f.start : f.end], f.entity_type) for f in redact.analyze(text)] == [
        (run, "IP_ADDRESS")
    ]
    detect = TextAnalyzer.from_config(ner=False)
    detect.score_threshold = DETECT_SCORE_THRESHOLD
    assert detect.analyze(text) == []  # no address by RFC 3986: detect does not claim it


@pytest.mark.parametrize(
    "text",
    [
        "see 1.2.3.4.5 below",  # one-digit parts: a section number
        "the OID 1.3.6.1.4.1.311 of it",  # a part over 255
        "section 4.12.1.1.3 applies",
        "version 10.1.2.3.4 shipped",
        "at 12.10.2024.1.1",  # 2024 > 255
    ],
)
def test_dotted_numbers_that_are_no_address_stay(text: str) -> None:
    redact = TextAnalyzer.from_config(ner=False)
    redact.score_threshold = REDACT_SCORE_THRESHOLD
    assert [f for f in redact.analyze(text) if f.entity_type == "IP_ADDRESS"] == []


@pytest.mark.parametrize(
    "address",
    ["user@xn--bcher-kva.example", "info@xn--80ak6aa92e.xn--p1ai", "jan@xn--mnchen-3ya.de"],
)
def test_punycode_mail_domains(regex: TextAnalyzer, address: str) -> None:
    assert found(regex, f"mail {address} now") == [(address, "EMAIL_ADDRESS")]


def test_unknown_punycode_tld_is_no_mail_address(regex: TextAnalyzer) -> None:
    assert found(regex, "mail user@host.xn--zzzzzz now") == []


@pytest.mark.parametrize("name", ["www.microsoft", "www.google", "http://www.amazon/x"])
def test_www_name_without_a_tld_is_no_url(regex: TextAnalyzer, name: str) -> None:
    assert found(regex, f"go to {name} today") == []


def test_www_host_with_a_tld_stays_a_url(regex: TextAnalyzer) -> None:
    assert found(regex, "go to www.microsoft.com today") == [("www.microsoft.com", "URL")]


# -- identifiers ----------------------------------------------------------------------------------
@pytest.mark.parametrize("template", ["SSN {} ok", "{}", "on file: {}."])
def test_dotted_ssn(regex: TextAnalyzer, template: str) -> None:
    text = template.format("078.05.1123")
    assert found(regex, text) == [("078.05.1123", "US_SSN")]


@pytest.mark.parametrize("text", ["ip 078.05.1123.4 here", "v078.05.1123", "000.05.1123"])
def test_dotted_ssn_negatives(regex: TextAnalyzer, text: str) -> None:
    assert [t for _, t in found(regex, text) if t == "US_SSN"] == []


def test_m_series_fin_check_letter() -> None:
    # ICA's rule for M (2022): weights 2 7 6 5 4 3 2, plus 3, letter from XWUTRQPNJLK
    assert nric_ok("M1234567K")
    assert not nric_ok("M1234567X")
    assert not nric_ok("M1234567A")


@pytest.mark.parametrize("template", ["FIN {} here", "{}", "my fin is {}."])
def test_m_series_fins_are_found(regex: TextAnalyzer, template: str) -> None:
    assert found(regex, template.format("M1234567K")) == [("M1234567K", "SG_NRIC_FIN")]


def test_m_series_with_a_wrong_letter_is_not(regex: TextAnalyzer) -> None:
    # unannounced: nothing; announced ("FIN"): kept for a recall-first redaction, below
    # `veil text detect`'s threshold, as a value failing its check
    assert found(regex, "ref M1234567A here") == []
    scores = [f.score for f in regex.analyze("FIN M1234567A here")]
    assert all(s < DETECT_SCORE_THRESHOLD for s in scores)


# -- phones -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("call 751-954-9268-Fax now", "751-954-9268"),
        ("Numbers: 751-954-9268-fax, 751-954-9269-Tel", "751-954-9268"),
        ("call 555-1234x204 now", "555-1234x204"),
        ("Tel 555-1234 x204", "555-1234 x204"),
        ("reach me at x204 tomorrow", "x204"),
        ("call ext. 4567 today", "ext. 4567"),
    ],
)
def test_phones_with_glued_labels_and_extensions(
    regex: TextAnalyzer, text: str, number: str
) -> None:
    assert (number, "PHONE_NUMBER") in found(regex, text)
    assert found(regex, text)[0] == (number, "PHONE_NUMBER")


@pytest.mark.parametrize(
    "text", ["ref 555-1234 done", "1920x1080 screen", "order 555-1234-5678", "page x204 of"]
)
def test_phone_shapes_without_a_sign_stay_out(regex: TextAnalyzer, text: str) -> None:
    assert [t for _, t in found(regex, text) if t == "PHONE_NUMBER"] == []


# -- names, addresses, organisations -----------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Hi, my name is susan mikulic and I need help.",
        "Dear susan mikulic, thanks for writing.",
        "my name is susan mikulic",
    ],
)
def test_lower_case_full_name_in_a_person_context(regex: TextAnalyzer, text: str) -> None:
    assert ("susan mikulic", "PERSON") in found(regex, text)
    redacted = TextRedactor(regex, make_operator("placeholder")).redact(text).text
    assert "mikulic" not in redacted and "susan" not in redacted


@pytest.mark.parametrize(
    "text",
    [
        "pls call susan mikulic tmrw about the form",
        "Call susan mikulic tomorrow",
        "customer susan mikulic called about her card",
        "spoke with susan mikulic today",
        "From: susan mikulic",
        "Employee: susan mikulic\nDept: sales",
    ],
)
def test_lower_case_full_name_after_a_person_cue(regex: TextAnalyzer, text: str) -> None:
    assert ("susan mikulic", "PERSON") in found(regex, text)


@pytest.mark.parametrize(
    "text",
    [
        "call mark back later",
        "spoke with john regarding the issue",
        "customer service team replied",
        "thanks anna very much",
        "call home now",
        "From: info desk",
    ],
)
def test_person_cue_before_everyday_words_is_no_full_name(regex: TextAnalyzer, text: str) -> None:
    assert not any(" " in span for span, t in found(regex, text) if t == "PERSON")


@pytest.mark.parametrize("text", ["my name is susan and i need help", "I'm susan from accounting"])
def test_a_lower_case_given_name_does_not_take_the_next_word(
    regex: TextAnalyzer, text: str
) -> None:
    assert ("susan", "PERSON") in found(regex, text)


@pytest.mark.parametrize(
    ("text", "street"),
    [
        ("I live at 36, Main Street, Rzeszów", "36, Main Street"),
        ("Deliver to 12b, High Street, Leeds", "12b, High Street"),
    ],
)
def test_house_number_joins_the_street(regex: TextAnalyzer, text: str, street: str) -> None:
    assert (street, "STREET_ADDRESS") in found(regex, text)
    redacted = TextRedactor(regex, make_operator("placeholder")).redact(text).text
    assert street.split(",")[0] not in redacted


@pytest.mark.parametrize(
    ("text", "street"),
    [("In 2019, Main Street was closed", "Main Street"), ("By 2020, Elm Street had", "Elm Street")],
)
def test_a_year_before_a_street_is_no_house_number(
    regex: TextAnalyzer, text: str, street: str
) -> None:
    assert found(regex, text) == [(street, "STREET_ADDRESS")]


def test_house_number_held_by_another_finding_stays_its() -> None:
    text = "call 555 Main Street"
    phone = Finding(5, 8, "PHONE_NUMBER", 0.9, "x", 0)
    street = Finding(9, 20, "STREET_ADDRESS", 0.85, "street_name", 1)
    out = with_house_numbers(text, [phone, street])
    assert [(f.start, f.end) for f in out] == [(5, 8), (9, 20)]


@pytest.mark.parametrize(
    "text",
    [
        "Please attach the PAN card copy. ACC number pending. PDF only.",
        "Send the CSV to HR.",
        "I uploaded my Aadhar card.",
        "Contact IT about my DOB and SSN change.",
        "S1234567D is my NRIC",
    ],
)
def test_label_acronyms_are_never_organisations_or_places(ner: TextAnalyzer, text: str) -> None:
    kinds = {t for _, t in found(ner, text)}
    assert not kinds & {"ORGANIZATION", "LOCATION", "PERSON"}


def test_masked_card_is_a_card_never_an_organisation(ner: TextAnalyzer) -> None:
    text = "The card XXXX-XXXX-XXXX-9876 was charged twice."
    assert found(ner, text) == [("XXXX-XXXX-XXXX-9876", "CREDIT_CARD")]


@pytest.mark.parametrize(
    ("entity", "span", "expected"),
    [
        ("ORGANIZATION", "XXXX", True),
        ("ORGANIZATION", "XXXX-XXXX-XXXX", True),
        ("ORGANIZATION", "****", True),
        ("LOCATION", "###", True),
        ("ORGANIZATION", "PDF", True),
        ("LOCATION", "Aadhaar", True),
        ("ORGANIZATION", "HR", True),
        ("ORGANIZATION", "Acme", False),
        ("PERSON", "Malcolm X", False),
        ("LOCATION", "Texas", False),
        ("US_SSN", "XXX", False),  # a masked value of an identifier is that identifier
        ("PERSON", "Swift", False),  # a label word counts in capitals only ("SWIFT")
        ("PERSON", "Peter Pan", False),
        ("ORGANIZATION", "Pan", False),
        ("ORGANIZATION", "SWIFT", True),
        ("LOCATION", "aadhar", True),  # Aadhaar is nobody's name in any case
    ],
)
def test_names_nothing(entity: str, span: str, expected: bool) -> None:
    assert names_nothing(entity, span) is expected


# -- passwords ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("changed my password, the old one SecureP@ss8901 still works", "SecureP@ss8901"),
        ("my passwd was reset but W!nter2024 keeps working", "W!nter2024"),
    ],
)
def test_password_near_its_word(regex: TextAnalyzer, text: str, value: str) -> None:
    assert found(regex, text) == [(value, "PASSWORD")]


@pytest.mark.parametrize(
    "text",
    [
        "password reset at https://Example.com/Reset-1 now",
        "Forgot password for jane.Doe2@example.com today",
        "The password policy requires 12 characters and a digit.",
        "changed my password, the old one SecurePass still works",  # two kinds only
        "my password-protected file Q3-Report2024.xlsx is attached",  # a file's name
        "the password expired on 2024-01-15T10:00Z, sorry",  # a timestamp
        "password sheet for COVID-19 TEAM-2024 staff",  # no lower-case letter
    ],
)
def test_password_word_negatives(regex: TextAnalyzer, text: str) -> None:
    assert [t for _, t in found(regex, text) if t == "PASSWORD"] == []


def test_password_word_stops_at_the_sentence(regex: TextAnalyzer) -> None:
    # the password word's reach ends with its sentence: the token after it is not announced
    # (0.7); recall-first redaction still replaces it as a password-shaped token, at the
    # shape's score, which `veil text detect` (threshold 0.5) does not report
    text = "I reset my password yesterday. SecureP@ss8901 is not it"
    scores = [f.score for f in regex.analyze(text) if f.entity_type == "PASSWORD"]
    assert scores and max(scores) < DETECT_SCORE_THRESHOLD
