"""Scoring: exact and overlapping spans, label maps, gold loading."""

import json
from pathlib import Path

import pytest

from veil import InputError
from veil.text import evaluate_spans, load_gold

GOLD = [
    {
        "full_text": "Jane Roe, 12 Elm St",
        "spans": [
            {"entity_type": "PERSON", "start_position": 0, "end_position": 8},
            {"entity_type": "ADDRESS", "start_position": 10, "end_position": 19},
        ],
    },
    {"full_text": "nothing here", "spans": []},
]


def test_exact_and_overlap_counts() -> None:
    preds = [
        [
            {"start": 0, "end": 4, "entity_type": "PERSON"},  # overlaps, not exact
            {"start": 10, "end": 19, "entity_type": "STREET_ADDRESS"},
        ],
        [{"start": 0, "end": 7, "entity_type": "PERSON"}],  # false positive
    ]
    r = evaluate_spans(GOLD, preds, label_map={"ADDRESS": "STREET_ADDRESS"})
    assert r.per_type["STREET_ADDRESS"]["exact"]["f1"] == 1.0
    person = r.per_type["PERSON"]
    assert (person["exact"]["tp"], person["exact"]["fp"], person["exact"]["fn"]) == (0, 2, 1)
    assert (person["overlap"]["tp"], person["overlap"]["fp"], person["overlap"]["fn"]) == (1, 1, 0)
    # micro exact: tp 1 of 3 predictions and 2 gold spans -> P 1/3, R 1/2, F1 0.4
    assert r.micro["exact"]["precision"] == pytest.approx(1 / 3, abs=1e-4)
    assert r.micro["exact"]["f1"] == pytest.approx(0.4, abs=1e-4)


def test_types_absent_from_gold_are_ignored() -> None:
    preds = [[{"start": 0, "end": 8, "entity_type": "NRP"}], []]
    r = evaluate_spans(GOLD, preds)
    assert "NRP" not in r.per_type and r.ignored_predictions == 1


def test_label_map_null_drops_a_label() -> None:
    r = evaluate_spans(GOLD, [[], []], label_map={"ADDRESS": None})
    assert set(r.per_type) == {"PERSON"}


def test_load_gold_json_and_jsonl(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.json").write_text(json.dumps(GOLD))
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GOLD))
    assert load_gold(tmp_path / "g.json") == load_gold(tmp_path / "g.jsonl") == GOLD
    (tmp_path / "bad.jsonl").write_text('{"spans": []}\n')
    with pytest.raises(InputError, match="record 0"):
        load_gold(tmp_path / "bad.jsonl")


def test_record_count_mismatch() -> None:
    with pytest.raises(InputError):
        evaluate_spans(GOLD, [[]])


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '{"full_text": "Jo Roe", "spans": [{"entity_type": "PERSON", "start_position": "Jo Roe", "end_position": 6}]}',
            "whole numbers",
        ),
        (
            '{"full_text": "Jo Roe", "spans": [{"entity_type": "PERSON", "start_position": 0, "end_position": 60}]}',
            "whole numbers",
        ),
        ('{"full_text": "Jo Roe", "spans": "Jo Roe"}', "must be a list"),
        ('{"full_text": "Jo Roe"}\n{"full_text": "Jo Roe"', "line 2"),
    ],
)
def test_bad_gold_spans_are_named_without_their_values(
    tmp_path: Path, line: str, message: str
) -> None:
    """A span's positions are checked on load: a text value there once reached int() in
    the scorer, whose message (and a --debug traceback) quoted it."""
    path = tmp_path / "gold.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message) as err:
        load_gold(path)
    assert "Jo Roe" not in str(err.value)


def test_token_counts_by_hand() -> None:
    # tokens: Jane | Roe | , | 12 | Elm | St ; gold PERSON = Jane Roe, ADDRESS = 12 Elm St
    preds = [
        [
            {"start": 0, "end": 4, "entity_type": "PERSON"},  # Jane
            {"start": 13, "end": 19, "entity_type": "STREET_ADDRESS"},  # Elm St
            {"start": 10, "end": 12, "entity_type": "PERSON"},  # 12, the wrong type
        ],
        [{"start": 0, "end": 7, "entity_type": "PERSON"}],  # "nothing": one spurious token
    ]
    r = evaluate_spans(GOLD, preds, label_map={"ADDRESS": "STREET_ADDRESS"})
    person, street = r.per_type["PERSON"]["token"], r.per_type["STREET_ADDRESS"]["token"]
    assert (person["tp"], person["fp"], person["fn"], person["support"]) == (1, 2, 1, 2)
    assert (street["tp"], street["fp"], street["fn"], street["support"]) == (2, 0, 1, 3)
    micro = r.micro["token"]
    assert (micro["tp"], micro["fp"], micro["fn"]) == (3, 2, 2)
    assert micro["f1"] == pytest.approx(6 / 10, abs=1e-4)


def test_token_scores_do_not_depend_on_how_gold_splits_an_entity() -> None:
    text = "I live at 12 High Street now"
    whole = [{"entity_type": "STREET_ADDRESS", "start_position": 10, "end_position": 24}]
    split = [
        {"entity_type": "STREET_ADDRESS", "start_position": 10, "end_position": 12},
        {"entity_type": "STREET_ADDRESS", "start_position": 13, "end_position": 24},
    ]
    pred = [[{"start": 10, "end": 24, "entity_type": "STREET_ADDRESS"}]]
    a = evaluate_spans([{"full_text": text, "spans": whole}], pred)
    b = evaluate_spans([{"full_text": text, "spans": split}], pred)
    assert a.micro["token"] == b.micro["token"]
    assert a.micro["token"]["f1"] == 1.0
    assert b.micro["exact"]["f1"] == 0.0  # span scores do depend on it


def test_token_overlapping_predictions_higher_score_wins() -> None:
    # a tool that reads "2021 0415" both as a date (0.6) and as a phone number (0.4)
    gold = [
        {
            "full_text": "ref 2021 0415",
            "spans": [{"entity_type": "DATE_TIME", "start_position": 4, "end_position": 13}],
        }
    ]
    both = [
        {"start": 4, "end": 13, "entity_type": "PHONE_NUMBER", "score": 0.4},
        {"start": 4, "end": 13, "entity_type": "DATE_TIME", "score": 0.6},
    ]
    r = evaluate_spans(gold, [both], entities=["DATE_TIME", "PHONE_NUMBER"])
    assert r.per_type["DATE_TIME"]["token"]["tp"] == 2
    assert r.per_type["PHONE_NUMBER"]["token"]["fp"] == 0
    flipped = [{**both[0], "score": 0.9}, both[1]]
    r = evaluate_spans(gold, [flipped], entities=["DATE_TIME", "PHONE_NUMBER"])
    assert r.per_type["PHONE_NUMBER"]["token"]["fp"] == 2
    assert r.per_type["DATE_TIME"]["token"]["fn"] == 2


def test_token_rich_table_has_the_token_column() -> None:
    from rich.console import Console

    console = Console(record=True, width=160)
    console.print(evaluate_spans(GOLD, [[], []]))
    assert "F1 token" in console.export_text()
