"""Same value, same fate: a found value is replaced wherever it recurs in the document."""

from __future__ import annotations

from veil.text import TextAnalyzer, make_operator
from veil.text.recognition._finding import Finding
from veil.text.redaction._redactor import TextRedactor, same_value_findings

_REDACTOR = TextRedactor(TextAnalyzer.from_config(ner=False), make_operator("placeholder"))


def test_a_value_found_once_is_replaced_where_its_context_hides_it() -> None:
    # "version 10.1.2.3" reads as a version number on its own; the same string was an IP
    out = _REDACTOR.redact("host 10.1.2.3 runs version 10.1.2.3 now")
    assert out.text == "host <IP_ADDRESS> runs version <IP_ADDRESS> now"
    assert [f.recognizer for f in out.findings].count("same-value") == 1


def test_only_whole_tokens_and_values_of_four_characters_or_more() -> None:
    text = "ab12 x ab123 ab12"
    found = [Finding(0, 4, "ID", 0.9, "test")]
    got = same_value_findings(text, found)
    assert [(f.start, f.end) for f in got] == [(0, 4), (13, 17)]
    short = [Finding(0, 2, "ID", 0.9, "test")]
    assert same_value_findings("ab ab ab", short) == short


def test_existing_findings_are_not_overlapped() -> None:
    text = "aaaa bbbb aaaa"
    found = [Finding(0, 4, "A", 0.9, "t"), Finding(5, 14, "B", 0.9, "t")]
    assert same_value_findings(text, found) == found


def test_batch_redaction_propagates_too() -> None:
    outs = _REDACTOR.redact_batch(["10.1.2.3 version 10.1.2.3", None, ""])
    assert outs[0].text == "<IP_ADDRESS> version <IP_ADDRESS>"
    assert outs[1].text is None and outs[2].text == ""


def test_the_scan_budget_stops_propagation_and_says_so(monkeypatch, caplog) -> None:
    import veil.text.redaction._redactor as red

    text = "aaaa1 bbbb2 aaaa1 bbbb2"
    found = [Finding(0, 5, "A", 0.9, "t"), Finding(6, 11, "B", 0.9, "t")]
    assert len(same_value_findings(text, found)) == 4
    monkeypatch.setattr(red, "PROPAGATE_BUDGET", len(text))  # room for one value's scan
    with caplog.at_level("WARNING", logger="veil.text.redaction._redactor"):
        got = same_value_findings(text, found)
    assert len(got) == 3
    assert "stopped early" in caplog.text and "aaaa1" not in caplog.text
