"""The regex prefilter (``needs``): what it claims every match contains must be true, so
skipping a text that lacks it can never lose a finding."""

import dataclasses
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.text import TextAnalyzer, generate_clinical_notes, generate_corpus
from veil.text.recognition._recognizer import (
    Needs,
    Pattern,
    PatternRecognizer,
    TextFeatures,
    needs,
)


def _met(regex: str, text: str, flags: int = 0) -> bool:
    return needs(regex, flags).met_by(TextFeatures.of(text))


@pytest.mark.parametrize(
    ("regex", "flags", "digits", "run", "strings"),
    [
        (r"\b\d{3}-\d{2}-\d{4}\b", 0, 9, 4, ("-",)),
        (r"(?<![\w.])\d{1,2}\.\d{1,2}\.(?:19|20)\d{2}", 0, 6, 4, (".",)),
        (r"[\w.+-]+@[\w-]+\.[a-z]{2,}", 0, 0, 0, (".", "@")),
        (r"(?:aged|age of)\s+(\d{1,3})", re.IGNORECASE, 1, 1, ("age",)),
        (r"\d{3}(?:\d{2})?\d", 0, 4, 4, ()),  # the optional part claims nothing
        (r"(?:ab)+x|(?:ab)y", 0, 0, 0, ("ab",)),  # forced in every branch
        (r"(\d)\1", 0, 1, 1, ()),  # a back-reference claims nothing
        (r"x|\d{9}", 0, 0, 0, ()),  # one branch without digits: no digit claim
        (r"[^a]\d", 0, 1, 1, ()),  # a negated class is not a digit
    ],
)
def test_needs_reads_the_regex(
    regex: str, flags: int, digits: int, run: int, strings: tuple[str, ...]
) -> None:
    n = needs(regex, flags)
    assert (n.digits, n.run, n.strings) == (digits, run, strings)


@pytest.mark.parametrize(
    ("regex", "flags", "anyof"),
    [
        (r"\b(?:Jan|Feb|Mar(?:ch)?)\s+\d", 0, (("Feb", "Jan", "Mar"),)),
        (r"(?:aged|age of)\s+x|foo(?:bar|baz)", 0, (("age", "fooba"),)),  # "ba" is shared
        (r"(?:wife|husband)\s+[A-Z]", re.IGNORECASE, (("husband", "wife"),)),
        (r"x|\d", 0, ()),  # a branch that forces no string: no claim
        (r"(?:ab|cd)?e", 0, ()),  # an optional group: no claim
        (r"(?:ſ|k)", re.IGNORECASE, ()),  # a non-ASCII alternative under IGNORECASE: none
    ],
)
def test_needs_reads_alternatives(
    regex: str, flags: int, anyof: tuple[tuple[str, ...], ...]
) -> None:
    assert needs(regex, flags).anyof == anyof


@pytest.mark.parametrize(
    ("regex", "flags", "upper_run"),
    [
        (r"\b[A-Z]{2}\d{7}\b", 0, 9),  # capitals and digits in one run
        (r"[A-HJ-NP-Z]\d{2}[A-Z0-9]{6}", 0, 9),  # ranges within A-Z
        (r"[A-Z]{2}(?:\d{2})?[A-Z]", 0, 3),  # an optional part claims nothing of its own
        (r"[A-Z]{4}[- ]?\d{3}", 0, 4),  # an optional separator breaks the run
        (r"\d{3}-\d{4}", 0, 0),  # no longer than the digit run: nothing more to say
        (r"[A-Z]{5}", re.IGNORECASE, 0),  # "[A-Z]" matches small letters then
        (r"x(?i:[A-Z]{5})", 0, 0),  # a case-insensitive group anywhere: no claim
        (r"[A-Za-z]{6}", 0, 0),  # small letters break it
        (r"[A-ZÄ]{6}", 0, 0),  # so do capitals outside A-Z
    ],
)
def test_needs_reads_runs_of_capitals_and_digits(regex: str, flags: int, upper_run: int) -> None:
    assert needs(regex, flags).upper_run == upper_run


def test_a_text_without_a_long_enough_capital_run_is_skipped() -> None:
    n = needs(r"\b[A-Z]{2}\d{7}\b")
    assert n.met_by(TextFeatures.of("passport AB1234567 on file"))
    assert not n.met_by(TextFeatures.of("passport ab1234567 or AB 1234567"))


def test_case_folding_that_lower_does_not_know_is_not_claimed() -> None:
    # under IGNORECASE "ſ" (long s) matches "s" and the Kelvin sign matches "k", but
    # str.lower() maps neither to ASCII: such texts are scanned, not skipped
    assert re.search("sk", "ſK", re.IGNORECASE)
    assert _met("sk", "ſK", re.IGNORECASE)
    # an inline (?i:...) group makes the comparison case-insensitive
    assert re.search(r"ab(?i:CD)", "abcd")
    assert _met(r"ab(?i:CD)", "abcd")
    # a non-ASCII literal is not claimed under IGNORECASE ("ſ" in the pattern matches "s")
    assert re.search("ſ", "s", re.IGNORECASE)
    assert _met("ſ", "s", re.IGNORECASE)


def test_the_letters_that_fold_to_ascii_are_all_known() -> None:
    import string

    from veil.text.recognition._recognizer import _FOLDS_TO_ASCII

    folding = {
        chr(cp)
        for cp in range(0x80, 0x3000)  # Latin, Greek, Cyrillic, symbols (the full scan agrees)
        if any(re.fullmatch(re.escape(chr(cp)), a, re.IGNORECASE) for a in string.ascii_letters)
    }
    assert folding == set(_FOLDS_TO_ASCII)  # İ ı ſ and the Kelvin sign


def test_an_accented_alternative_still_gates_ascii_text() -> None:
    n = needs(r"\b(?i:rue|allée)\s+\w+")
    assert n.anyof == (("allée", "rue"),)
    assert not _met(r"\b(?i:rue|allée)\s+\w+", "12 Main Street")
    assert _met(r"\b(?i:rue|allée)\s+\w+", "12 RUE de la Paix")
    assert _met(r"\b(?i:rue|allée)\s+\w+", "12 ALLÉE des Pins")  # not ASCII: scanned


def test_a_conditional_group_claims_nothing_of_its_own() -> None:
    regex = r"(?P<y>\d)?(?(y)\d|x)"  # "11" or "x": neither digit nor "x" is forced
    assert needs(regex) == Needs()
    assert _met(regex, "11") and _met(regex, "x")


def _patterns() -> list[tuple[str, re.Pattern[str], Needs]]:
    analyzer = TextAnalyzer.from_config(ner=False)
    return [
        (f"{r.name}/{p.name}", re.compile(p.regex, p.flags), need)
        for r in analyzer.recognizers
        if isinstance(r, PatternRecognizer)
        for p, need in r._compiled
    ]


PATTERNS = _patterns()


@pytest.mark.parametrize(("name", "rx", "need"), PATTERNS, ids=[p[0] for p in PATTERNS])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_match_of_every_builtin_pattern_meets_its_needs(
    name: str, rx: re.Pattern[str], need: Needs, data: st.DataObject
) -> None:
    text = data.draw(st.from_regex(rx))  # a text that contains a match of the pattern
    assert rx.search(text)
    assert need.met_by(TextFeatures.of(text)), name


def _without_prefilter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every prefilter off: needs always met, no recognizer gated, every text taken to
    hold any number of digits in a run (the gates and patterns compare digit counts
    without calling ``met_by``)."""
    from veil.text.recognition import _recognizer

    real = TextFeatures.of

    def of(cls: type[TextFeatures], text: str) -> TextFeatures:
        return dataclasses.replace(real(text), digits=10**9, run=10**9)

    monkeypatch.setattr(Needs, "met_by", lambda self, feats: True)
    monkeypatch.setattr(PatternRecognizer, "gate", lambda self: None)
    monkeypatch.setattr(TextFeatures, "of", classmethod(of))
    monkeypatch.setattr(_recognizer, "_LAST", ("", real("")))
    monkeypatch.setattr(_recognizer, "_OTHER", ("", real("")))


def test_the_gates_leave_recognizers_uncalled() -> None:
    # a text without digits calls none of the checksum rules; one with a long digit run
    # calls more recognizers (the measure of what the gates save, not only that they hold)
    analyzer = TextAnalyzer.from_config(ner=False)
    words = "Please send the report to the office before the meeting."
    digits = "Ref 4111 1111 1111 1111 and 123-45-6789 on 2024-03-05."
    called = [
        len(analyzer._plan(f.digits, f.run))
        for f in (TextFeatures.of(words), TextFeatures.of(digits))
    ]
    assert called[0] < called[1] < len(analyzer.recognizers)
    assert all(
        r.gate() is None for r, *_ in analyzer._plan(0, 0) if not isinstance(r, PatternRecognizer)
    )


def test_a_recognizer_that_finds_more_than_its_patterns_is_never_gated() -> None:
    from veil.text.recognition._secrets import PasswordRecognizer
    from veil.text.recognition._world_ids import WorldIdRecognizer

    assert PasswordRecognizer().gate() is None  # it finds passwords near a word, too
    assert WorldIdRecognizer.pattern_bound  # it only rescores what its patterns found

    class Finder(PatternRecognizer):
        pattern_bound = True

        def analyze(self, text: str) -> list:  # type: ignore[override]
            return super().analyze(text)

    class MoreFinder(Finder):  # overrides again without saying it only filters
        def analyze(self, text: str) -> list:  # type: ignore[override]
            return [*super().analyze(text)]

    assert Finder().gate() is not None
    assert MoreFinder().gate() is None


def test_findings_are_the_same_with_and_without_the_prefilter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = [r["full_text"] for r in generate_corpus(300, seed=23)]
    texts += [r["full_text"] for r in generate_clinical_notes(40, seed=4)]
    analyzer = TextAnalyzer.from_config(ner=False)
    with_filter = [[f.to_dict() for f in analyzer.analyze(t)] for t in texts]
    _without_prefilter(monkeypatch)
    without = [[f.to_dict() for f in TextAnalyzer.from_config(ner=False).analyze(t)] for t in texts]
    assert with_filter == without
    assert sum(map(len, with_filter)) > len(texts)  # the corpus does hold findings


def test_features_are_computed_once_per_text() -> None:
    from veil.text.recognition import _recognizer

    text = "call 617 555 0199 today"
    a = _recognizer.text_features(text)
    assert _recognizer.text_features(text) is a
    assert (a.digits, a.run) == (10, 4)
    assert _recognizer.text_features("other 12") is not a


@pytest.mark.parametrize(
    "text",
    [
        "plate AB12 CDE",  # a whole word
        "the PLATES are AB12 CDE",  # inside a longer word, any case
        "AB12 CDE see the number plates",  # the window's end cuts "plates" to "plate"
        "ſ and K in plate: AB12",  # non-ASCII text: no claim
    ],
)
def test_context_possible_whenever_find_finds(text: str) -> None:
    from veil.text.recognition._recognizer import ContextMatcher

    m = ContextMatcher(["plate", "number plate"], before=48, after=24)
    found = any(m.find(text, s, s + 1) for s in range(len(text)))
    assert found  # each text holds a context word somewhere
    assert m.possible(text)


def test_context_impossible_only_without_any_word() -> None:
    from veil.text.recognition._recognizer import ContextMatcher

    m = ContextMatcher(["plate"])
    text = "AB12 CDE is parked outside"
    assert not m.possible(text)
    assert not any(m.find(text, s, s + 1) for s in range(len(text)))
    assert not ContextMatcher([]).possible(text)
    assert ContextMatcher(["ſtraße"]).possible(text)  # a non-ASCII word: no claim


def test_a_context_required_recognizer_keeps_a_word_cut_by_its_window() -> None:
    # "plates" ends right where the window after the value ends: find() reads "plate"
    # there, so the recognizer reports the value, and the skip must not drop it
    r = PatternRecognizer(
        entity="PLATE",
        patterns=[Pattern("p", r"\bQX\d{4}\b", 0.4)],
        context=["plate"],
        context_required=True,
        name="plate",
    )
    r._context = type(r._context)(r.context, 48, 13)  # the window after: " is the plate"
    text = "QX1234 is the plates"
    assert [(f.start, f.end) for f in r.analyze(text)] == [(0, 6)]
    assert r.analyze("QX1234 is parked outside") == []
