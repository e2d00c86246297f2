"""Names, companies and places of many countries in everyday sentences, with NER on: the
benchmark's own cases and scoring (``benchmarks/text_generated_entities.py``) on a smaller
sample, so the test and the published figure measure the same thing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from veil.text import TextAnalyzer

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "text_generated_entities.py"


def _bench() -> ModuleType:
    name = "text_generated_entities"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer.from_config()


# share of exact spans of the right type; at commit 7628607 (before Faker's full name
# lists, particle names, legal forms and place names with "and") the same 320 cases gave
# 0.966, 0.400 and 0.913: each floor fails there; coordinated names gave 0.847 without the
# coordination step (commit 3cb60ac's analyzer with it turned off) and 0.8875 with it;
# organisations 0.716 before the forms, endings and particles of commit 95354b6, 0.756
# after; names as people also write them 0.569 before commit 4871387, 0.9375 after;
# Faker's towns 0.700 before the town-name shapes, 0.997 after; at commit e81ee5e (before
# addressing verbs, street names, lone units, towns after "born in" and phone words after
# the number) a given name alone 0.625, street names 0.0, lone units 0.0, continental towns
# 0.644, Faker phone numbers 0.831; after, 0.9375, 0.253, 1.0, 0.775 and 0.953 (street
# names count only with a road's type or a street preposition); at commit ed969d1 (before
# the rest of USPS's street types and the bare middle initial) street names 0.253 and
# names with a bare middle initial 0.775, after 0.591 and 0.959; at commit ee6ad4d (before
# Latin Extended-B and Additional letters, introduced names of three or four words and two
# given names) names as people also write them 0.947, after 0.994; and (before a given name
# asked about or acting, greetings before an NER place, and towns of several words after a
# residence word) a given name alone 0.9375, continental towns 0.775; after 0.991, 0.8875;
# and (before two people in one model span were split and a model's place on a coordinated
# given name was overruled) coordinated names 0.891, after 0.9875; at commit 9898fee
# (before a model's span ended at its line and lower-case addresses were read after a cue)
# names on a header's line 0.575, lower-case addresses 0.0; after, 0.994 and 1.0; and
# (before speakers, transcript labels, more verbs and family words) a given name that
# speaks or acts 0.725, after 0.969; a given name in lower-case chat 0.003 (before lists,
# titles and line labels in lower case), after 0.919; names with a bare middle initial
# that the model reads as an organisation 0.959 (before the name shape), after 0.969
# towns after travel words ("landed in", "drove to") 0.616 at commit 9898fee, after 0.894
# phone numbers after the verbs of calling ("ring me on") 0.4875 at 9898fee, after 0.953
# names broken by a line wrap 0.503 at 9898fee (the model's span kept whole), 0.494 after
# (a span cut at its line break keeps a wrapped name whole; cutting every span there had
# left the surname out: 39 of 300 surnames covered in an ad hoc probe, against 193 now);
# at commit e5a4e51 (before a town and a country below a street joined it) an envelope's
# street, town and country block 0.0 whole, after 0.969; at commit 7e0588a (before a
# surname after a title in lower case or capitals counted in any text) 0.806, after 0.944;
# names broken by a line wrap 0.494 at commit d82ed14 (before the join across the break),
# 0.903 after
@pytest.mark.parametrize(
    ("entity", "floor"),
    [
        ("PERSON", 0.985),
        ("ORGANIZATION", 0.74),
        ("LOCATION", 0.95),
        ("PERSON_COORDINATED", 0.96),
        ("PERSON_WRITTEN", 0.97),
        ("LOCATION_TOWN", 0.95),
        ("PERSON_GIVEN", 0.97),
        ("PERSON_INITIAL", 0.965),
        ("STREET_NAME", 0.5),
        ("STREET_UNIT", 0.98),
        ("LOCATION_ABROAD", 0.85),
        ("PHONE_NUMBER", 0.92),
        ("PERSON_HEADER", 0.95),
        ("ADDRESS_LOWER", 0.95),
        ("PERSON_SPEAKING", 0.93),
        ("PERSON_LOWER", 0.88),
        ("LOCATION_TRAVEL", 0.85),
        ("PHONE_CALLING", 0.9),
        ("PERSON_WRAPPED", 0.85),
        ("ADDRESS_TOWN_COUNTRY", 0.95),
        ("PERSON_TITLED", 0.92),
    ],
)
def test_names_of_many_countries_are_found_whole(
    analyzer: TextAnalyzer, entity: str, floor: float
) -> None:
    result = _bench().measure(analyzer, entity, n=320, seed=1)
    assert result["exact_share"] >= floor, result["outcomes"]
