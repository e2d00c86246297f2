"""Token scoring: properties that hold for any text and any spans."""

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from veil.text import evaluate_spans

_WORDS = st.lists(
    st.sampled_from(["Jo", "Ng", "12", "High", "St", ",", "-", "é", "x_y", "2021-04-15", "."]),
    min_size=1,
    max_size=14,
)
_TYPES = st.sampled_from(["PERSON", "STREET_ADDRESS", "DATE_TIME"])


@st.composite
def records(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]]]:
    """A text of words, and disjoint gold spans that start and end on word boundaries."""
    words = draw(_WORDS)
    text = " ".join(words)
    bounds, pos = [], 0
    for w in words:
        bounds.append((pos, pos + len(w)))
        pos += len(w) + 1
    spans, i = [], 0
    while i < len(words):
        n = draw(st.integers(0, 3))
        if n and draw(st.booleans()):
            j = min(len(words), i + n)
            spans.append(
                {
                    "entity_type": draw(_TYPES),
                    "start_position": bounds[i][0],
                    "end_position": bounds[j - 1][1],
                }
            )
            i = j
        else:
            i += 1
    return text, spans


def _as_predictions(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"start": s["start_position"], "end": s["end_position"], "entity_type": s["entity_type"]}
        for s in spans
    ]


@given(records())
def test_gold_as_predictions_scores_one_and_support_counts_tokens(
    rec: tuple[str, list[dict[str, Any]]],
) -> None:
    text, spans = rec
    r = evaluate_spans([{"full_text": text, "spans": spans}], [_as_predictions(spans)])
    # support, counted another way: the tokens inside each span's own text
    expected = sum(
        len(re.findall(r"[^\W_]+|[^\w\s]|_", text[s["start_position"] : s["end_position"]]))
        for s in spans
    )
    token = r.micro["token"]
    assert token["support"] == expected
    assert (token["fp"], token["fn"]) == (0, 0)
    if expected:
        assert token["f1"] == 1.0


@given(records(), records())
def test_token_counts_are_bounded_and_consistent(
    gold: tuple[str, list[dict[str, Any]]], other: tuple[str, list[dict[str, Any]]]
) -> None:
    text, spans = gold
    n = len(text)
    # predictions from another draw, clipped to this text
    preds = [
        {**p, "end": min(int(p["end"]), n)}
        for p in _as_predictions(other[1])
        if int(p["start"]) < n
    ]
    r = evaluate_spans(
        [{"full_text": text, "spans": spans}],
        [preds],
        entities=["PERSON", "STREET_ADDRESS", "DATE_TIME"],
    )
    m = r.micro["token"]
    assert 0 <= m["tp"] <= m["support"]
    assert m["tp"] + m["fn"] == m["support"]
    assert sum(t["token"]["tp"] for t in r.per_type.values()) == m["tp"]
    assert 0.0 <= m["f1"] <= 1.0


@given(records())
def test_splitting_a_gold_span_at_a_space_keeps_token_scores(
    rec: tuple[str, list[dict[str, Any]]],
) -> None:
    text, spans = rec
    split = []
    for s in spans:
        a, b = int(s["start_position"]), int(s["end_position"])
        gap = text.find(" ", a, b)
        if gap == -1:
            split.append(s)
        else:
            split.append({**s, "end_position": gap})
            split.append({**s, "start_position": gap + 1})
    preds = [_as_predictions(spans)]
    whole = evaluate_spans([{"full_text": text, "spans": spans}], preds)
    parts = evaluate_spans([{"full_text": text, "spans": split}], preds)
    assert whole.micro["token"] == parts.micro["token"]
