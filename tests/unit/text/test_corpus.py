"""The labelled corpus generator and the committed corpus."""

from pathlib import Path

from veil.text import generate_corpus, load_gold
from veil.text.evaluation._corpus import TEMPLATES

DATA = Path(__file__).resolve().parents[2] / "data" / "text_corpus.jsonl"


def test_spans_match_their_values_and_seed_is_deterministic() -> None:
    a = generate_corpus(120, seed=5)
    assert a == generate_corpus(120, seed=5)
    assert a != generate_corpus(120, seed=6)
    for r in a:
        for s in r["spans"]:
            assert r["full_text"][s["start_position"] : s["end_position"]] == s["entity_value"]


def test_every_template_and_hard_negatives_present() -> None:
    recs = generate_corpus(len(TEMPLATES), seed=0)
    assert {r["template"] for r in recs} == set(range(len(TEMPLATES)))
    negatives = [r for r in recs if not r["spans"]]
    texts = " ".join(r["full_text"] for r in negatives)
    for hard in ("CV:", "Neuro:", "Foley", "91/42/7.36", "version", "today", "edema.pl"):
        assert hard in texts


def test_committed_corpus_is_valid() -> None:
    gold = load_gold(DATA)
    assert len(gold) == 600
    assert sum(len(r["spans"]) for r in gold) > 1000
