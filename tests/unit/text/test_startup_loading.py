"""What ``veil text detect`` loads at start-up: only what a run needs, when it needs it.

The word lists read from Faker and tldextract come from the on-disk cache (no import of
either package once it is warm) and equal what the packages hold; built-in regexes compile
when a text first meets their needs; a regex given to a recognizer still fails at once.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from veil.text import TextAnalyzer
from veil.text.recognition import _network
from veil.text.recognition._recognizer import Pattern, PatternRecognizer, TextFeatures
from veil.text.vocab import _lexicon

SRC = str(Path(__file__).resolve().parents[3] / "src")


def _fresh(monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
    monkeypatch.setenv("VEIL_CACHE_DIR", str(cache))
    for fn in (_lexicon.common_words, _lexicon._states_and_countries, _network.top_level_domains):
        fn.cache_clear()


@pytest.fixture(autouse=True)
def _clear_after() -> object:
    yield
    for fn in (_lexicon.common_words, _lexicon._states_and_countries, _network.top_level_domains):
        fn.cache_clear()


def test_common_words_are_the_function_words_and_fakers_lorem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from faker.providers.lorem.en_US import Provider as Lorem

    expected = _lexicon._FUNCTION_WORDS | {w.casefold() for w in Lorem.word_list}
    _fresh(monkeypatch, tmp_path)
    built = _lexicon.common_words()
    assert list(tmp_path.glob("lorem_words-*.json"))
    _fresh(monkeypatch, tmp_path)
    read = _lexicon.common_words()  # from the file this time
    assert built == read == expected
    assert {"will", "may", "the"} <= read


def test_states_and_countries_round_trip_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from faker.providers.address.en_US import Provider as Address

    _fresh(monkeypatch, tmp_path)
    built = _lexicon._states_and_countries()
    _fresh(monkeypatch, tmp_path)
    read = _lexicon._states_and_countries()
    assert built == read
    assert {c.casefold() for c in Address.countries} <= read
    assert {"california", "ca", "new york", "germany"} <= read


def test_top_level_domains_round_trip_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fresh(monkeypatch, tmp_path)
    built = _network.top_level_domains()
    _fresh(monkeypatch, tmp_path)
    read = _network.top_level_domains()
    assert built == read == frozenset(_network._read_top_level_domains())
    assert {"com", "org", "uk", "de"} <= read
    assert "example" not in read


def test_a_builtin_pattern_compiles_when_a_text_first_meets_its_needs() -> None:
    analyzer = TextAnalyzer.from_config(ner=False)
    recs = [r for r in analyzer.recognizers if isinstance(r, PatternRecognizer)]
    assert all(rx is None for r in recs for rx in r._regexes)  # nothing compiled yet
    text = "no digits and no at-sign here"
    feats = TextFeatures.of(text)
    for r in recs:
        r.analyze(text)
        for (pattern, need), rx in zip(r._compiled, r._regexes, strict=True):
            if not need.met_by(feats):
                assert rx is None, f"{r.name}/{pattern.name} compiled for a text it cannot match"
    ssn = next(r for r in recs if r.entity == "US_SSN")
    eager = type(ssn)(patterns=ssn.patterns)  # given patterns compile at construction
    assert all(isinstance(rx, re.Pattern) for rx in eager._regexes)
    text = "SSN 536-22-8714 on file."
    found = ssn.analyze(text)
    assert found and found == eager.analyze(text)
    assert any(isinstance(rx, re.Pattern) for rx in ssn._regexes)


def test_a_given_pattern_with_a_bad_regex_fails_where_it_is_given() -> None:
    with pytest.raises(re.error):
        PatternRecognizer(entity="X", patterns=[Pattern("bad", r"(\d", 0.5)], name="bad")


def _has_model() -> bool:
    from veil.text.ner._ner import best_english_model

    return best_english_model() is not None


_PROBE = """
import json, sys
from veil.text import TextAnalyzer
found = TextAnalyzer.from_config().analyze(
    "Email jane.doe@example.org or call John Smith at 555-123-4567 in Boston.")
unneeded = ("faker", "tldextract", "spacy.cli", "requests", "torch", "langcodes",
            "veil.text.evaluation._corpus", "veil.text.replacement._operators")
loaded = [m for m in unneeded if m in sys.modules]
print(json.dumps({"loaded": loaded, "found": sorted(f.entity_type for f in found)}))
"""


@pytest.mark.skipif(not _has_model(), reason="no English spaCy pipeline installed")
def test_detecting_with_a_warm_cache_imports_no_package_it_does_not_use(tmp_path: Path) -> None:
    env = dict(
        os.environ,
        PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
        VEIL_CACHE_DIR=str(tmp_path),
    )
    runs = []
    for _ in range(2):  # the first process builds the cache, the second reads it
        proc = subprocess.run(
            [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=600
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert runs[0]["found"] == runs[1]["found"]
    assert {"EMAIL_ADDRESS", "PERSON", "PHONE_NUMBER", "LOCATION"} <= set(runs[1]["found"])
    assert runs[1]["loaded"] == [], f"detect imported {runs[1]['loaded']}"


def test_spacy_matches_language_codes_after_the_langcodes_stand_in() -> None:
    probe = (
        "import sys, json\n"
        "from veil.text.vocab._spacy_load import import_spacy\n"
        "spacy = import_spacy()\n"
        "before = 'langcodes' in sys.modules\n"
        "match = spacy.util.find_matching_language('en-US')\n"
        "print(json.dumps([before, match, spacy.util.langcodes is sys.modules['langcodes']]))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [False, "en", True]
