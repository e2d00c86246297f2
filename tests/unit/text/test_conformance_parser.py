"""The conformance benchmark reads Presidio's parametrize tables and scores them right.

A Presidio checkout is not part of this repository, so the tables here are written in the
layouts Presidio's tests use (``benchmarks/text_presidio_conformance.py``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "text_presidio_conformance.py"

TABLE = """
import pytest

@pytest.fixture(scope="module")
def entities():
    return ["AU_ABN"]

@pytest.mark.parametrize(
    "text, expected_len, expected_positions, expected_score_ranges",
    [
        ("51 824 753 556", 1, ((0, 14),), ((1.0, 1.0),), ),
        ("52 824 753 556", 0, (), (),),
        ("two 51824753556 51824753556", 2, (), (),),
    ],
)
def test_abns(text, expected_len, expected_positions, expected_score_ranges):
    pass

@pytest.mark.parametrize(
    "text, expected_len, entities, expected_positions, score",
    [("call (415) 555-0132 or +1 415 555 0132", 2, ["PHONE_NUMBER", "PHONE_NUMBER"],
      ((5, 19), (23, 38)), 0.4)],
)
def test_phones(text, expected_len, entities, expected_positions, score):
    pass

@pytest.mark.parametrize("number, expected", [("51824753556", True), ("1", False)])
def test_validate(number, expected):
    pass
"""


def _bench() -> ModuleType:
    name = "text_presidio_conformance"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _checkout(tmp_path: Path) -> Path:
    tests = tmp_path / "presidio-analyzer" / "tests"
    tests.mkdir(parents=True)
    (tests / "test_au_abn_recognizer.py").write_text(TABLE, encoding="utf-8")
    (tests / "test_spacy_recognizer.py").write_text(TABLE, encoding="utf-8")  # NER: skipped
    return tmp_path


def test_tables_are_parsed_with_their_entity_spans_and_counts(tmp_path: Path) -> None:
    cases = _bench().load_cases(_checkout(tmp_path))
    rows = [(c.entity, c.text, c.expected, c.spans, c.validator) for c in cases]
    assert rows == [
        ("AU_ABN", "51 824 753 556", 1, ((0, 14),), False),
        ("AU_ABN", "52 824 753 556", 0, (), False),
        ("AU_ABN", "two 51824753556 51824753556", 2, None, False),  # a count, no positions
        ("PHONE_NUMBER", "call (415) 555-0132 or +1 415 555 0132", 2, ((5, 19), (23, 38)), False),
        ("AU_ABN", "51824753556", 1, ((0, 11),), True),
        ("AU_ABN", "1", 0, ((0, 1),), True),
    ]


def test_scoring_counts_overlaps_of_the_right_type(tmp_path: Path) -> None:
    bench = _bench()
    cases = [c for c in bench.load_cases(_checkout(tmp_path)) if not c.validator]
    found = [
        [(0, 14, "AU_ABN")],  # the positive
        [(0, 14, "AU_ABN")],  # a negative flagged
        [(4, 15, "AU_ABN"), (16, 27, "PHONE_NUMBER")],  # one of two counted
        [(5, 19, "PHONE_NUMBER")],  # one phone of two
    ]
    table = bench._score(cases, found)
    assert table["AU_ABN"] == {
        "positives": 3,
        "found": 2,
        "found_first_type": 2,
        "exact": 2,
        "negatives": 1,
        "flagged": 1,
    }
    assert table["PHONE_NUMBER"]["positives"] == 2 and table["PHONE_NUMBER"]["found"] == 1
    # an engine's own name for a table's type
    relabelled = bench._score(cases[3:], [[(23, 38, "TEL")]], {"PHONE_NUMBER": "TEL"})
    assert relabelled["PHONE_NUMBER"]["found"] == 1


def test_a_finding_counts_for_each_of_its_types(tmp_path: Path) -> None:
    """veil reports a bare shape once with the other types its format fits; it counts for
    each of them, on positives and negatives alike, and found_first_type keeps the strict
    count."""
    bench = _bench()
    cases = [c for c in bench.load_cases(_checkout(tmp_path)) if not c.validator]
    found = [
        [(0, 14, ("US_DRIVER_LICENSE", "AU_ABN"))],  # the positive, as a second reading
        [(0, 14, ("US_DRIVER_LICENSE", "AU_ABN"))],  # the negative, flagged by it too
        [(4, 15, ("AU_ABN",)), (16, 27, "AU_ABN")],  # tuples and plain names alike
        [(5, 19, ("PHONE_NUMBER",))],
    ]
    table = bench._score(cases, found)
    assert table["AU_ABN"]["found"] == 3 and table["AU_ABN"]["found_first_type"] == 2
    assert table["AU_ABN"]["flagged"] == 1
    none = bench._score(cases, [[(0, 14, ("US_DRIVER_LICENSE",))], [], [], []])
    assert none["AU_ABN"]["found"] == 0 and none["AU_ABN"]["flagged"] == 0


def test_grammar_refused_ip_spans_are_the_ones_inside_longer_dotted_runs() -> None:
    bench = _bench()

    def case(text: str, span: tuple[int, int], entity: str = "IP_ADDRESS") -> object:
        return bench.Case("t.py::f", entity, text, 1, (span,))

    assert bench.grammar_refused(case("192.168.1.1.1", (0, 11))) == [(0, 11)]
    assert bench.grammar_refused(case("v1.10.0.0.1", (3, 11))) == [(3, 11)]  # digits before
    # a sentence's full stop, a comma, an IPv6 address: not part of a dotted run
    assert bench.grammar_refused(case("IP: 192.168.1.1.", (4, 15))) == []
    assert bench.grammar_refused(case("192.168.1.1, ok", (0, 11))) == []
    assert bench.grammar_refused(case("::ffff:1.2.3.4.5", (0, 14))) == []
    assert bench.grammar_refused(case("192.168.1.1.1", (0, 11), "PHONE_NUMBER")) == []
