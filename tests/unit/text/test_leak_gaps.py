"""Text gaps that leaked in the demo: addresses at reserved names, lone names in a person's
context, SSNs the SSA rules refuse after an "SSN" label, and a row's own identifiers."""

from __future__ import annotations

import pytest

from veil.text import TextAnalyzer, make_operator
from veil.text.redaction._redactor import TextRedactor
from veil.text.redaction._row_deny import column_entity, merge_row_findings, row_findings


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


def _found(analyzer: TextAnalyzer, text: str) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.entity_type) for f in analyzer.analyze(text)]


@pytest.mark.parametrize(
    "address",
    [
        "a.b@corp.example",
        "ops@db.internal",
        "x@host.local",
        "jo@lab.test",
        "root@box.localhost",
        "noreply@site.invalid",
        "it@files.lan",
        "pat@router.home.arpa",
        "hr@portal.intranet",
        "ceo@mail.corp",
        "me@nas.private",
    ],
)
def test_addresses_at_reserved_and_private_names(analyzer: TextAnalyzer, address: str) -> None:
    text = f"Refund sent to {address} for order 4471."
    assert (address, "EMAIL_ADDRESS") in _found(analyzer, text)


@pytest.mark.parametrize("text", ["see notes.txt@v2.bogus", "user@host.nosuchtld"])
def test_unknown_names_are_still_not_addresses(analyzer: TextAnalyzer, text: str) -> None:
    assert not [f for f in _found(analyzer, text) if f[1] == "EMAIL_ADDRESS"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("SSN 078-05-1120 on the form", "078-05-1120"),  # the Woolworth wallet number
        ("Verified identity with SSN 219-09-9999.", "219-09-9999"),  # an advertised one
        ("ssn: 000-12-3456", "000-12-3456"),
        ("SSN on file 666-45-1234", "666-45-1234"),
        ("SSN# 912-34-5678", "912-34-5678"),
        ("Social Security number 078 05 1120", "078 05 1120"),
    ],
)
def test_ssn_after_a_label_even_when_the_rules_refuse_it(
    analyzer: TextAnalyzer, text: str, value: str
) -> None:
    assert (value, "US_SSN") in _found(analyzer, text)
    red = TextRedactor(analyzer, make_operator("placeholder")).redact(text)
    assert value not in (red.text or "") and "<US_SSN>" in (red.text or "")


@pytest.mark.parametrize("text", ["order 078-05-1120 shipped", "call 219-09-9999 ext 4"])
def test_refused_ssn_without_a_label_is_not_an_ssn(analyzer: TextAnalyzer, text: str) -> None:
    assert not [f for f in _found(analyzer, text) if f[1] == "US_SSN"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Refund sent; customer Nancy satisfied.", "Nancy"),
        ("Spoke with Nancy about the bill.", "Nancy"),
        ("talked to Okafor today", "Okafor"),
        ("client Moreau asked for a copy", "Moreau"),
    ],
)
def test_known_name_in_a_persons_context(analyzer: TextAnalyzer, text: str, name: str) -> None:
    assert (name, "PERSON") in _found(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "customer Service was closed",
        "Labs reviewed: 91/42/7.36, Foley removed today. No concerns raised.",
        "No personal details recorded for this contact.",
    ],
)
def test_no_person_without_one(analyzer: TextAnalyzer, text: str) -> None:
    assert not [f for f in _found(analyzer, text) if f[1] == "PERSON"]


def test_row_terms_whole_words_and_case() -> None:
    terms = [("Quillon Vantrebb", "PERSON"), ("Quillon", "PERSON"), ("Vantrebb", "PERSON")]
    text = "Quillons and quillon stay; Quillon Vantrebb and Vantrebb go"
    spans = [(text[f.start : f.end]) for f in row_findings(text, terms)]
    assert sorted(spans) == ["Quillon", "Quillon Vantrebb", "Vantrebb", "Vantrebb"]
    merged = merge_row_findings([], row_findings(text, terms))
    assert [text[f.start : f.end] for f in merged] == ["Quillon Vantrebb", "Vantrebb"]


def test_row_term_inside_a_found_span_adds_nothing(analyzer: TextAnalyzer) -> None:
    text = "write to quillon.vantrebb@corp.example"
    found = analyzer.analyze(text)
    merged = merge_row_findings(found, row_findings(text, [("quillon", "PERSON")]))
    assert [(f.entity_type, text[f.start : f.end]) for f in merged] == [
        ("EMAIL_ADDRESS", "quillon.vantrebb@corp.example")
    ]


def test_column_entity() -> None:
    import pandas as pd

    assert column_entity("name", pd.Series(["Jo Roe"])) == "PERSON"
    assert column_entity("contact", pd.Series(["a@b.io", "c@d.org"])) == "EMAIL_ADDRESS"
    assert column_entity("x", pd.Series(["123-45-6789"])) == "US_SSN"
    assert column_entity("phone", pd.Series(["(201) 555-0100"])) == "PHONE_NUMBER"
    assert column_entity("zip", pd.Series(["02134"])) == "ZIP_CODE"
    assert column_entity("member_ref", pd.Series(["AB-77-QQ"])) == "DENY_LIST"
