"""The US Census name lists in the clinical mode (issue #25): rare American surnames
found beside a cue in any case, frequent unknown ones alone, English words never alone,
and Faker's lists alone when the ``names`` package is missing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from veil.text import TextAnalyzer
from veil.text.vocab import _census, _clinical_vocab
from veil.text.vocab._census import census_names
from veil.text.vocab._clinical_vocab import (
    BARE_SURNAME_RANK,
    SPELLING_SURNAME_RANK,
    is_bare_name,
    is_cued_name,
    is_name_word,
    is_safe_word,
)
from veil.text.vocab._lexicon import name_lexicon

pytest.importorskip("names")

# a note's opening that makes the text read as a clinical note
_NOTE = "Pt afebrile, NPO after MN, cont lasix 20 mg IV BID. "
_CASES = (str, str.upper, str.lower)


def _clear() -> None:
    census_names.cache_clear()
    for fn in (
        _clinical_vocab.is_first_name,
        _clinical_vocab.is_last_name,
        _clinical_vocab.is_name_word,
        _clinical_vocab.is_cued_name,
        _clinical_vocab.is_bare_name,
        _clinical_vocab.is_safe_word,
        _clinical_vocab._safe,
    ):
        fn.cache_clear()


@pytest.fixture
def fresh_caches() -> Iterator[None]:
    _clear()
    yield
    _clear()


@pytest.fixture(scope="module")
def hipaa() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False, profile="hipaa")


def _people(analyzer: TextAnalyzer, sentence: str, case: type[str] = str) -> list[str]:
    """The ``PERSON`` findings in ``sentence`` after the note's opening, the whole note
    written in ``case`` (a note in capitals or in lower case is written so throughout)."""
    text = case(_NOTE + sentence)
    return [
        text[f.start : f.end]
        for f in analyzer.analyze(text)
        if f.entity_type == "PERSON" and f.start >= len(_NOTE)
    ]


def _rank(word: str) -> int:
    return census_names()[1][word.casefold()]


def test_census_lists_read_from_the_package() -> None:
    first, last = census_names()
    assert len(last) > 80_000 and len(first) > 5_000
    assert last["smith"] == 1 and first["james"] == 1  # most frequent of each list
    assert all(w == w.casefold() and w.isalpha() for w in list(last)[:1000])


def test_census_lists_cached_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEIL_CACHE_DIR", str(tmp_path))
    census_names.cache_clear()
    try:
        built = _census._build()
        for _ in range(2):  # written, then read back
            census_names.cache_clear()
            assert census_names() == tuple(built)
        assert [p.name.split("-")[0] for p in tmp_path.glob("*.json")] == ["census_names"]
    finally:
        census_names.cache_clear()


def test_without_the_package_faker_names_alone(
    monkeypatch: pytest.MonkeyPatch, fresh_caches: None
) -> None:
    from importlib import resources

    def missing(name: str) -> None:
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(resources, "files", missing)
    assert _census._build() == [{}, {}]
    monkeypatch.setattr(_clinical_vocab, "census_names", lambda: ({}, {}))
    _clear()
    # a Census-only surname is no name then; Faker's still are
    assert "stubblefield" not in name_lexicon()[1]
    assert not is_name_word("Stubblefield") and not is_cued_name("Weltmer")
    assert is_name_word("Baker") and is_bare_name("Baker")


def test_tiers_of_the_census_lists() -> None:
    faker = name_lexicon()
    # a surname only the Census holds, frequent, no English word: a name even alone
    assert "stubblefield" not in faker[1] and _rank("stubblefield") <= BARE_SURNAME_RANK
    assert is_name_word("Stubblefield") and is_bare_name("STUBBLEFIELD")
    assert not is_safe_word("stubblefield")
    # a rare one: a name beside a cue, never alone
    assert _rank("torsiello") > BARE_SURNAME_RANK
    assert is_cued_name("Torsiello") and not is_bare_name("Torsiello")
    # a rare one a letter off an English word: the misspelling it more likely is, unless a
    # cue says a name
    assert _rank("weltmer") > SPELLING_SURNAME_RANK
    assert is_safe_word("weltmer") and not is_name_word("weltmer") and is_cued_name("weltmer")
    # four letters: an abbreviation or a device first ("Zoll"), a name beside a cue only
    assert is_name_word("zoll") and not is_bare_name("zoll")


@pytest.mark.parametrize("word", ["white", "young", "long", "bill", "swallow", "patient", "ng"])
def test_english_and_clinical_census_words_are_no_census_names(word: str) -> None:
    last = census_names()[1]
    assert word in last  # all are US Census surnames
    assert word in name_lexicon()[1] or not is_cued_name(word)
    assert not is_bare_name(word) or word in name_lexicon()[1]


@pytest.mark.parametrize(
    "sentence",
    [
        "White count stable, Hct 30.",
        "Young man, afebrile overnight.",
        "Long discussion re: plan, will cont.",
        "Bill sent to insurance.",
        "Mark site with pen before procedure.",
        "Pt will swallow pills whole.",
    ],
)
@pytest.mark.parametrize("case", _CASES)
def test_census_english_words_no_names_without_a_cue(
    hipaa: TextAnalyzer, sentence: str, case: type[str]
) -> None:
    assert _people(hipaa, sentence, case) == []


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("Called Weltmer, no answer, will try again.", "Weltmer"),
        ("Family: son Swabb at bedside.", "Swabb"),
        ("Griffin and Torsiello aware of plan.", "Torsiello"),
        ("S. Torsiello RN at bedside.", "Torsiello"),
        ("Spoke with Mary Weltmer (daughter).", "Weltmer"),
        ("Dr Weltmer notified of K 3.1.", "Weltmer"),
        ("Torsiello at bedside, updated.", "Torsiello"),
    ],
)
@pytest.mark.parametrize("case", _CASES)
def test_census_surnames_beside_a_cue_in_any_case(
    hipaa: TextAnalyzer, sentence: str, name: str, case: type[str]
) -> None:
    found = " ".join(_people(hipaa, sentence, case))
    assert case(name) in found.split() or case(name) in found


@pytest.mark.parametrize("case", [str, str.lower])
def test_frequent_census_surname_alone_in_lower_or_title_case(
    hipaa: TextAnalyzer, case: type[str]
) -> None:
    assert _people(hipaa, "Stubblefield at bedside, updated.", case) == [case("Stubblefield")]
    # a rare one that only a name list holds counts alone too since the eighth round
    # (``_clinical_name_cues.listed_names``), written as the note writes names
    assert _people(hipaa, "Torsiello reviewed, updated.", case) == [case("Torsiello")]
    # ... but not in capitals in a note in ordinary case, where capitals are abbreviations
    assert _people(hipaa, "TORSIELLO reviewed, updated.") == []


def test_frequent_long_census_surname_alone_in_a_note_in_capitals(hipaa: TextAnalyzer) -> None:
    assert _people(hipaa, "Stubblefield at bedside, updated.", str.upper) == ["STUBBLEFIELD"]
    # shorter words in capitals are abbreviations and devices first; ordinary notes keep
    # their capitals for abbreviations
    assert _people(hipaa, "Zoll pads on, Ganz out.", str.upper) == []
    assert _people(hipaa, "STUBBLEFIELD at bedside, updated.") == []


def test_a_census_surname_after_a_place_word_keeps_the_place(hipaa: TextAnalyzer) -> None:
    # "Calvert" is a Census surname; the note names it a hospital, so "AT CALVERT" is that
    text = "58 YR OLD FROM CALVERT HOSPITAL. 7/23 AT CALVERT- 2 FFP. PT ON VENT, NPO."
    types = {text[f.start : f.end]: f.entity_type for f in hipaa.analyze(text)}
    assert is_name_word("calvert")
    assert types.get("CALVERT") == "LOCATION"
