"""Faster scans that must find the same: the first-character look-ahead and the start
sets (:mod:`veil.text.recognition._first_chars`) and the gates on lazily compiled patterns
(:func:`veil.text.recognition._recognizer._gated_scans`)."""

from __future__ import annotations

import dataclasses
import gc
import re
import types

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil._lazy import _LazyPattern, lazy_compile
from veil.text import TextAnalyzer, generate_clinical_notes
from veil.text.evaluation._corpus_clinical import generate_clinical_shape_notes
from veil.text.recognition import _first_chars, _recognizer
from veil.text.recognition._first_chars import with_first_chars, with_start_chars
from veil.text.recognition._recognizer import Needs, PatternRecognizer, TextFeatures


@pytest.mark.parametrize(
    ("regex", "flags"),
    [
        (r"\b(?:daughter|son|wife)\s+(\w+)", re.IGNORECASE),  # re enters every word
        (r"(?i:\b(?:dr|mrs|miss))\.?\s+([A-Z]\w+)", 0),  # IGNORECASE in a group only
        (r"(?<![\w-])(?:(?P<n>pt|id)|MR)[_-]\d+", 0),  # an alternative led by a group
    ],
)
def test_a_choice_of_words_gets_a_look_ahead(regex: str, flags: int) -> None:
    fast = with_first_chars(re.compile(regex, flags))
    assert fast is not None and "(?=" in fast.pattern
    assert fast.groupindex == re.compile(regex, flags).groupindex


@pytest.mark.parametrize(
    ("regex", "flags"),
    [
        (r"\b(?:son|wife)\s+\w+", 0),  # re rules case-sensitive literals out already
        (r"\d{3}-\d{4}", re.IGNORECASE),  # no alternation at its start
        (r"(?:\w+|x)y", re.IGNORECASE),  # a class by category: not listed
        (r"(?:[^a]|b)c", re.IGNORECASE),  # a negated class: not listed
        (r"(?:ab|c)?", re.IGNORECASE),  # a match may be empty
        (r"(a)(?:\1|b)", re.IGNORECASE),  # starts with no choice
    ],
)
def test_a_pattern_without_a_listable_choice_is_left_alone(regex: str, flags: int) -> None:
    assert with_first_chars(re.compile(regex, flags)) is None


def _accelerated() -> list[tuple[re.Pattern[str], re.Pattern[str]]]:
    """Every built-in pattern (lazy or a recognizer's) that gets a look-ahead."""
    TextAnalyzer.from_config(ner=False, profile="hipaa").analyze("Pt seen by Dr. Lee.")
    specs = {(o.pattern, o.flags) for o in gc.get_objects() if type(o) is _LazyPattern}
    for r in TextAnalyzer.from_config(ner=False).recognizers:
        specs |= {(p.regex, p.flags) for p in getattr(r, "patterns", ())}
    out = []
    for pattern, flags in sorted(specs, key=str):
        rx = re.compile(pattern, flags)
        fast = with_first_chars(rx)
        if fast is not None:
            out.append((rx, fast))
    return out


ACCELERATED = _accelerated()


def test_many_builtin_patterns_are_accelerated() -> None:
    assert len(ACCELERATED) > 50


def _same(rx: re.Pattern[str], fast: re.Pattern[str], text: str) -> None:
    assert [(m.span(), m.groups()) for m in rx.finditer(text)] == [
        (m.span(), m.groups()) for m in fast.finditer(text)
    ], rx.pattern[:60]
    assert rx.sub("#", text) == fast.sub("#", text)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pair=st.sampled_from(ACCELERATED),
    text=st.text(alphabet="aDdSsKkIiſKİı WwMmRr.-'(\n19", max_size=60),
)
def test_the_look_ahead_finds_what_the_pattern_finds(
    pair: tuple[re.Pattern[str], re.Pattern[str]], text: str
) -> None:
    _same(*pair, text)  # the letters that fold to ASCII under IGNORECASE included


def test_the_look_ahead_finds_the_same_in_notes() -> None:
    texts = [r["full_text"] for r in generate_clinical_shape_notes(30, seed=8)]
    texts += [t.upper() for t in texts[:5]] + [t.lower() for t in texts[:5]]
    for rx, fast in ACCELERATED:
        for text in texts:
            _same(rx, fast, text)


def test_a_gated_scan_skips_only_a_text_that_cannot_match() -> None:
    rx = lazy_compile(r"\b(?:pager|beeper)\s*#?\s*(\d{4,7})", re.IGNORECASE)
    eager = re.compile(rx.pattern, rx.flags)
    for text in ("no digits here, pager", "Pager 12345 and beeper #5555", "page 1234567"):
        _recognizer.text_features(text)  # the text the gate knows
        assert [m.span() for m in rx.finditer(text)] == [m.span() for m in eager.finditer(text)]
        assert rx.findall(text) == eager.findall(text)
        a, b = rx.search(text), eager.search(text)
        assert (a and a.span()) == (b and b.span())
        assert [m.span() for m in rx.finditer(text[2:])] == [
            m.span() for m in eager.finditer(text[2:])
        ]  # another string: scanned as ever


def test_hipaa_findings_are_the_same_without_gates(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [r["full_text"] for r in generate_clinical_shape_notes(40, seed=9)]
    texts += [r["full_text"] for r in generate_clinical_notes(20, seed=5)]
    analyzer = TextAnalyzer.from_config(ner=False, profile="hipaa")
    gated = [[f.to_dict(explain=True) for f in fs] for fs in analyzer.analyze_batch(texts)]
    real = TextFeatures.of

    def of(cls: type[TextFeatures], text: str) -> TextFeatures:
        return dataclasses.replace(real(text), digits=10**9, run=10**9)

    monkeypatch.setattr(Needs, "met_by", lambda self, feats: True)
    monkeypatch.setattr(PatternRecognizer, "gate", lambda self: None)
    monkeypatch.setattr(TextFeatures, "of", classmethod(of))
    monkeypatch.setattr(_recognizer, "_LAST", ("", real("")))
    monkeypatch.setattr(_recognizer, "_OTHER", ("", real("")))
    plain = TextAnalyzer.from_config(ner=False, profile="hipaa")
    ungated = [[f.to_dict(explain=True) for f in fs] for fs in plain.analyze_batch(texts)]
    assert gated == ungated
    assert sum(map(len, gated)) > len(texts)


def test_a_text_and_its_reading_in_ordinary_case_keep_their_features() -> None:
    note, readable = "PT SEEN BY DR LEE 12/3", "Pt seen by Dr Lee 12/3"
    a = _recognizer.text_features(note)
    b = _recognizer.text_features(readable)
    assert _recognizer.text_features(note) is a and _recognizer.text_features(readable) is b
    assert b.text is readable and a.text is note


# --- start sets in the compiled code (with_start_chars) ---------------------------------


@pytest.mark.parametrize(
    ("regex", "flags", "text"),
    [
        (r"(?<![\w-])\d{3}-\d{4}(?![\w-])", 0, "call 555-1234, not x555-1234"),
        (r"\b(\d{1,2})/(\d{1,2})\b", 0, "seen 9/7 and 12/31"),
        (r"\b(?:pager|beeper)\s*#?(\d{4,7})", re.IGNORECASE, "PAGER #54321 beeper 1234"),
        (r"\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b", re.IGNORECASE, "iban de89370400440532013000"),
        (r"(?<!\w)(?i:k)\w+", 0, "\u212aelvin and kelvin and Kelvin"),  # the Kelvin sign
        (r"\b(?:is|ss)\w*", re.IGNORECASE, "\u0130stanbul \u0131s \u017fs IS"),
        (r"(?<!\d)[\d\s]{3}x", 0, "\u0663\u0664\u0665x 1 2x"),  # any Unicode digit and space
        # alternatives under IGNORECASE open with a case-sensitive class of their letter
        (r"\b(?:kelvin|sam|ion)\b", re.IGNORECASE, "\u212aELVIN \u017fam \u0130ON \u0131on Sam"),
        (r"\b(?:kelvin|sam)\b", re.IGNORECASE | re.ASCII, "\u212aelvin \u017fam kelvin"),
        (r"(?i:x(?:ab|(?-i:Cd)|ef))", 0, "XAB xcd xCd XEF"),
        (r"(?<=(?i:a|b))c", 0, "Ac bc Bc"),  # inside a look-behind
        # a look-ahead that takes a character says what the match starts with
        (r"(?<![\w#])(?=\d|#|Apt)(?:Apt\s*)?#?\d+\s\w+", 0, "Apt 4 Elm, #12 Oak, x3 Rd, 7 Main"),
        (r"(?=(?i:ab|c)).{2}", 0, "xAbcCx\u212a"),
        # alternatives joined behind their first character, in their order ("son" before
        # "sons": the first that lets the rest match wins, as before)
        (r"\b(?:son|wife|sons|sister)\b", re.IGNORECASE, "SONS and Sister, sonsy son"),
        (r"\b(?:ab|c|a|abc)(d)?", 0, "abcd abd ad cd a"),
        (r"\b(?:s(on)|w(ife)|s(ister)|so)\b", 0, "son so sister wife"),
        # never across an alternative that opens with no literal ("[a-z]+" may match "son")
        (r"\b(?:s(on)|([a-z]+)|s(ons)|wife|we)\b", 0, "sons son we wife"),
        (r"\b(?:son|sons|(?i:S)ister|sis)(s)?", 0, "sons sisters Sister SIS"),
    ],
)
def test_an_assertion_first_pattern_gets_a_start_set(regex: str, flags: int, text: str) -> None:
    rx = re.compile(regex, flags)
    fast = with_start_chars(rx)
    assert fast is not None
    assert (fast.pattern, fast.flags, fast.groupindex) == (rx.pattern, rx.flags, rx.groupindex)
    assert [(m.span(), m.groups()) for m in fast.finditer(text)] == [
        (m.span(), m.groups()) for m in rx.finditer(text)
    ]
    assert rx.search(text) is not None


@pytest.mark.parametrize(
    ("regex", "flags"),
    [
        (r"#\d+", 0),  # re skips to the literal already
        (r"\b\w+\b", 0),  # a class by category other than digits or spaces: most characters
        (r"\b[^a]x", 0),  # a negated class
        (r"\b.x", 0),  # any character
        (r"\b(?:ab)?", 0),  # a match may be empty
        (r"(?<!x)\u00e9t\u00e9", re.IGNORECASE),  # not ASCII under IGNORECASE
    ],
)
def test_a_pattern_without_a_listable_start_is_left_alone(regex: str, flags: int) -> None:
    assert with_start_chars(re.compile(regex, flags)) is None


def test_another_pythons_internals_leave_the_pattern_compiled_as_ever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a module without the compiler's helpers, as a later Python may move them
    monkeypatch.setattr(_first_chars, "_compiler", types.SimpleNamespace())
    assert with_start_chars(re.compile(r"\b\d{3}")) is None


def _started() -> list[tuple[re.Pattern[str], re.Pattern[str]]]:
    """Every built-in pattern (lazy or a recognizer's) that gets a start set, as compiled
    and with it (after the look-ahead, where it has one, as the recognizers use it)."""
    TextAnalyzer.from_config(ner=False, profile="hipaa").analyze("Pt seen by Dr. Lee.")
    specs = {(o.pattern, o.flags) for o in gc.get_objects() if type(o) is _LazyPattern}
    for r in TextAnalyzer.from_config(ner=False).recognizers:
        specs |= {(p.regex, p.flags) for p in getattr(r, "patterns", ())}
    out = []
    for pattern, flags in sorted(specs, key=str):
        rx = re.compile(pattern, flags)
        fast = with_start_chars(with_first_chars(rx) or rx)
        if fast is not None:
            out.append((rx, fast))
    return out


STARTED = _started()


def test_most_builtin_patterns_get_a_start_set() -> None:
    assert len(STARTED) > 300


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pair=st.sampled_from(STARTED),
    text=st.text(
        alphabet="aDdSsKkIiPpEeMmRr\u017f\u212a\u0130\u0131 \t\n\u00a0\u2003.-/:#@'(0123459\u0663\u00b2",
        max_size=80,
    ),
)
def test_the_start_set_finds_what_the_pattern_finds(
    pair: tuple[re.Pattern[str], re.Pattern[str]], text: str
) -> None:
    # letters that fold to ASCII under IGNORECASE, Unicode digits and spaces included
    _same(*pair, text)


def test_the_start_set_finds_the_same_in_notes() -> None:
    texts = [r["full_text"] for r in generate_clinical_shape_notes(30, seed=8)]
    texts += [r["full_text"] for r in generate_clinical_notes(10, seed=3)]
    texts += [t.upper() for t in texts[:5]] + [t.lower() for t in texts[:5]]
    for rx, fast in STARTED:
        for text in texts:
            _same(rx, fast, text)


def test_the_fold_letters_are_the_recognizers_own() -> None:
    from veil.text.recognition._recognizer import _FOLDS_TO_ASCII

    assert {chr(c) for c in _first_chars._FOLD_TO_ASCII} == set(_FOLDS_TO_ASCII)
