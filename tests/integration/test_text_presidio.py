"""Hosting real Presidio recognizers, and keeping Presidio from logging values."""

import logging
import warnings

import pytest

from veil.text import PresidioRecognizer, TextAnalyzer, TextRedactor, make_operator

with warnings.catch_warnings():
    # presidio imports spaCy, which imports typer, which imports a name click deprecates
    warnings.simplefilter("ignore", DeprecationWarning)
    presidio_analyzer = pytest.importorskip("presidio_analyzer")


def test_presidio_pattern_recognizer_is_hosted() -> None:
    titles = presidio_analyzer.PatternRecognizer(
        supported_entity="TITLE", deny_list=["Sir", "Dame"]
    )
    rec = PresidioRecognizer(titles)
    base = TextAnalyzer.from_config(ner=False)
    analyzer = TextAnalyzer([*base.recognizers, rec])
    text = "Sir Ian wrote from jo@example.com"
    found = [(f.entity_type, text[f.start : f.end], f.recognizer) for f in analyzer.analyze(text)]
    assert ("TITLE", "Sir", "presidio:" + titles.name) in found
    assert ("EMAIL_ADDRESS", "jo@example.com", "email") in found
    out = TextRedactor(analyzer, make_operator("placeholder")).redact(text).text
    # "Ian wrote": a given name that acts is a person, without NER too
    assert out == "<TITLE> <PERSON> wrote from <EMAIL_ADDRESS>"


def test_presidio_builtin_recognizer_and_entity_filter() -> None:
    from presidio_analyzer.predefined_recognizers import UsBankRecognizer

    analyzer = TextAnalyzer([PresidioRecognizer(UsBankRecognizer())], entities=["US_BANK_NUMBER"])
    assert "US_BANK_NUMBER" in analyzer.supported_entities


def test_presidio_logs_nothing_about_values(caplog: pytest.LogCaptureFixture) -> None:
    from presidio_analyzer.predefined_recognizers import IbanRecognizer

    rec = PresidioRecognizer(IbanRecognizer())
    with caplog.at_level(logging.DEBUG):
        TextAnalyzer([rec]).analyze(
            "IBAN GB82 WEST 1234 5698 7654 33 and AL47 2121 1009 0000 0002 3569 874X"
        )
    assert all(
        "WEST" not in r.getMessage() and "AL47" not in r.getMessage() for r in caplog.records
    )
