"""Plumbing of the public-corpus benchmark: the deid reader, the label maps, error categories.

Fixtures are tiny and made up here; no excerpt of any public corpus is used.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from veil import InputError
from veil.text import ENTITIES, load_label_map

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"


def _bench(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


corpora = _bench("text_corpora")

NOTE_1 = "Seen by Dr S. Moreno-Diaz at Mercy General, Boston on 3/4.\nCall Ann Lee 555-0100."
NOTE_2 = "No events overnight."


def _at(word: str, after: int = 0) -> tuple[int, int]:
    start = NOTE_1.index(word, after)
    return start, start + len(word)


# (start, end, type) over NOTE_1, token by token as the deid corpus marks them
TOKENS = [
    (*_at("S."), "HCPName"),
    (*_at("Moreno"), "HCPName"),
    (*_at("Diaz"), "HCPName"),  # after a hyphen
    (*_at("Mercy"), "Location"),
    (*_at("General"), "Location"),
    (*_at("Boston"), "Location"),  # after a comma: stays apart
    (*_at("3/4"), "Date"),
    (*_at("Ann"), "RelativeProxyName"),
    (*_at("Lee"), "RelativeProxyName"),
    (*_at("555-0100"), "Phone"),
]


def _write_deid(folder: Path, tokens: list[tuple[int, int, str]] = TOKENS) -> Path:
    body = "".join(
        f"START_OF_RECORD={p}||||{n}||||\n{t}\n||||END_OF_RECORD\n\n"
        for p, n, t in ((1, 1, NOTE_1), (1, 2, NOTE_2))
    )
    (folder / "id.text").write_text(body, encoding="utf-8")
    lines = [f"1 1 {a} {b} {t} {NOTE_1[a:b]}" for a, b, t in tokens]
    (folder / "id-phi.phrase").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _phrases(rec: dict[str, Any]) -> list[tuple[str, str]]:
    t = rec["full_text"]
    return [(s["entity_type"], t[s["start_position"] : s["end_position"]]) for s in rec["spans"]]


def test_deid_reader_offsets_and_merge(tmp_path: Path) -> None:
    recs = corpora.load_physionet_deid(_write_deid(tmp_path))
    assert [r["id"] for r in recs] == ["1-1", "1-2"]
    assert recs[0]["full_text"].startswith("Seen by") and recs[1]["spans"] == []
    assert _phrases(recs[0]) == [
        ("HCPName", "S. Moreno-Diaz"),
        ("Location", "Mercy General"),
        ("Location", "Boston"),
        ("Date", "3/4"),
        ("RelativeProxyName", "Ann Lee"),
        ("Phone", "555-0100"),
    ]


def test_deid_reader_can_keep_token_spans_and_skip_empty_notes(tmp_path: Path) -> None:
    recs = corpora.load_physionet_deid(
        _write_deid(tmp_path), merge_adjacent=False, only_annotated=True
    )
    assert len(recs) == 1 and len(recs[0]["spans"]) == len(TOKENS)


def test_merge_rule_negatives() -> None:
    text = "Dr Roe, Lee\nKim 3/4 5/6 Paris. Rome"

    def span(word: str, kind: str) -> dict[str, object]:
        start = text.index(word)
        return {"entity_type": kind, "start_position": start, "end_position": start + len(word)}

    spans = [
        span("Roe", "N"),
        span("Lee", "N"),  # after a comma
        span("Kim", "N"),  # after a newline
        span("3/4", "D"),
        span("5/6", "N"),  # a span of another type between it and "Kim"
        span("Paris", "L"),
        span("Rome", "L"),  # after ". " but "Paris" is longer than an abbreviation
    ]
    got = [
        text[s["start_position"] : s["end_position"]]
        for s in corpora.merge_adjacent_spans(text, spans)
    ]
    assert got == ["Roe", "Lee", "Kim", "3/4", "5/6", "Paris", "Rome"]


def test_merge_joins_overlapping_spans_of_one_type() -> None:
    text = "at Northfield-Lakeside Clinic today"
    a, b = text.index("Northfield-Lakeside"), text.index("Lakeside Clinic")
    spans = [
        {"entity_type": "L", "start_position": a, "end_position": a + 19},
        {"entity_type": "L", "start_position": b, "end_position": b + 15},
    ]
    (merged,) = corpora.merge_adjacent_spans(text, spans)
    got = text[merged["start_position"] : merged["end_position"]]
    assert got == "Northfield-Lakeside Clinic"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1 1 0 4 HCPName Xyzw", "do not hold the listed phrase in record 1-1"),
        ("1 9 0 4 HCPName Seen", "no record 1-9"),
        ("1 1 zero 4 HCPName Seen", "expected '<patient> <note>"),
        ("1 1 0 999 HCPName Seen", "offsets 0-999"),
    ],
)
def test_deid_reader_errors_name_line_never_text(tmp_path: Path, line: str, message: str) -> None:
    _write_deid(tmp_path)
    (tmp_path / "id-phi.phrase").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message) as exc:
        corpora.load_physionet_deid(tmp_path)
    assert "line 1" in str(exc.value)
    assert "Xyzw" not in str(exc.value) and "Seen" not in str(exc.value)


def test_deid_reader_missing_files_and_empty_text(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        corpora.load_physionet_deid(tmp_path)
    (tmp_path / "id.text").write_text("no records here\n", encoding="utf-8")
    (tmp_path / "id-phi.phrase").write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="no 'START_OF_RECORD"):
        corpora.load_physionet_deid(tmp_path)


def test_load_corpus_dispatch(tmp_path: Path) -> None:
    gold = [
        {
            "full_text": "Ann",
            "spans": [{"entity_type": "PERSON", "start_position": 0, "end_position": 3}],
        }
    ]
    (tmp_path / "g.json").write_text(json.dumps(gold), encoding="utf-8")
    assert corpora.load_corpus("presidio-research", tmp_path / "g.json") == gold
    assert len(corpora.load_corpus("physionet-deid", _write_deid(tmp_path))) == 2
    with pytest.raises(InputError, match="presidio-research, physionet-deid"):
        corpora.load_corpus("conll", tmp_path)


@pytest.mark.parametrize(
    "path", sorted((BENCH / "label_maps").glob("*.json")), ids=lambda p: p.stem
)
def test_committed_label_maps_name_only_veil_entities(path: Path) -> None:
    lm = load_label_map(path)
    assert lm, "empty label map"
    assert {v for v in lm.values() if v is not None} <= set(ENTITIES)


def test_error_categories_and_target_flags() -> None:
    public = _bench("text_public")
    gold = [
        {
            "full_text": "Ann Lee met Bo in Rome on Monday",
            "spans": [
                {"entity_type": "NAME", "start_position": 0, "end_position": 7},
                {"entity_type": "NAME", "start_position": 12, "end_position": 14},
                {"entity_type": "CITY", "start_position": 18, "end_position": 22},
                {"entity_type": "TITLE", "start_position": 26, "end_position": 32},
            ],
        }
    ]
    lm = {"NAME": "PERSON", "CITY": "LOCATION", "TITLE": None}
    veil = [
        [
            {"start": 0, "end": 3, "entity_type": "PERSON"},  # boundary
            {"start": 12, "end": 14, "entity_type": "LOCATION"},  # other type
            {"start": 18, "end": 22, "entity_type": "LOCATION"},  # exact
            {"start": 26, "end": 32, "entity_type": "PERSON"},  # on a dropped label
            {"start": 8, "end": 11, "entity_type": "PERSON"},  # spurious
        ]
    ]
    errs = public.error_categories(gold, veil, lm, {"PERSON", "LOCATION"})
    assert errs["PERSON"]["false_negatives"] == {"boundary": 1, "other_type": 1}
    assert errs["PERSON"]["false_negatives_other_type_as"] == {"LOCATION": 1}
    assert errs["PERSON"]["false_positives"] == {"boundary": 1, "unscored_gold": 1, "spurious": 1}
    assert errs["LOCATION"]["false_positives"] == {"other_type": 1}

    presidio = [
        [
            {"start": 0, "end": 7, "entity_type": "PERSON", "score": 0.85},
            {"start": 12, "end": 14, "entity_type": "PERSON", "score": 0.3},  # dropped at 0.4
        ]
    ]
    view = public.score_view(gold, {"veil": veil, "presidio": presidio}, lm, margin=0.25)
    exact = view["comparison"]["veil_vs_presidio"]["exact"]
    assert exact["types_below_peer"] == {"PERSON": {"veil": 0.0, "presidio": 1.0}}
    assert not exact["target_no_type_below_met"] and not exact["target_gain_met"]
    t04 = view["comparison"]["veil_vs_presidio_t0.4"]["exact"]
    assert t04["micro_f1_presidio_t0.4"] == pytest.approx(0.5)
    assert view["gold_spans_per_type"] == {"LOCATION": 1, "PERSON": 2}
    # every type's F1 side by side, and the Presidio runs above veil on it
    side = view["per_type_vs_presidio"]["exact"]
    assert side["types"]["PERSON"]["veil"] == 0.0 and side["types"]["PERSON"]["presidio"] == 1.0
    assert side["types"]["PERSON"]["veil_below"] == ["presidio", "presidio_t0.4"]
    assert side["types"]["LOCATION"]["veil_below"] == []
    assert side["types_veil_below"] == ["PERSON"]


def test_main_writes_results_without_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    public = _bench("text_public")
    (tmp_path / "corpus").mkdir()
    corpus = _write_deid(tmp_path / "corpus")

    def fake_predict(
        model: str, texts: list[str], profiles: list[str], thresholds: Sequence[float] = ()
    ) -> dict[str, Any]:
        start, end = _at("Mercy")[0], _at("Boston")[1]
        hit = [{"start": start, "end": end, "entity_type": "LOCATION", "score": 0.9}]
        assert profiles == ["hipaa"]
        assert list(thresholds) == []  # no --veil-threshold given
        return {
            "veil": [hit, []],
            "veil_hipaa": [[], []],
            "presidio": [[], []],
            "seconds": {"veil": 0.0, "veil_hipaa": 0.0, "presidio": 0.0},
        }

    monkeypatch.setattr(public, "predict", fake_predict)
    monkeypatch.setattr(public, "best_english_model", lambda: "stub_model")
    lm = tmp_path / "map.json"
    lm.write_text(json.dumps({"Location": "LOCATION", "HCPName": None}), encoding="utf-8")
    out = tmp_path / "out.json"
    argv = ["--name", "t", "--format", "physionet-deid", "--path", str(corpus)]
    public.main([*argv, "--label-map", str(lm), "--veil-profile", "hipaa", "--out", str(out)])
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["corpus"]["records"] == 2 and result["spacy_model"] == "stub_model"
    assert result["label_maps"]["map"]["map"] == {"Location": "LOCATION", "HCPName": None}
    view = result["views"]["map"]
    # gold: Mercy General, Boston -> 2 LOCATION spans; veil's one span overlaps the first only
    assert view["scores"]["veil"]["micro"]["overlap"]["tp"] == 1
    assert view["comparison"]["veil_vs_presidio"]["exact"]["micro_f1_gain"] == 0.0
    # the profile's run is scored and compared on its own
    assert view["scores"]["veil_hipaa"]["micro"]["overlap"]["tp"] == 0
    assert view["comparison"]["veil_hipaa_vs_presidio"]["exact"]["micro_f1_veil_hipaa"] == 0.0
    printed = capsys.readouterr().out
    assert "gain +0.000" in printed and "wrote" in printed
    for word in ("Mercy", "Boston", "Moreno", "Ann"):
        assert word not in out.read_text(encoding="utf-8") and word not in printed
    # the predictions file for presidio-research's evaluators: the corpus and each run's
    # findings, written only outside the repository
    dump = tmp_path / "preds.json"
    more = ["--label-map", str(lm), "--veil-profile", "hipaa", "--out", str(out)]
    public.main([*argv, *more, "--predictions-out", str(dump)])
    d = json.loads(dump.read_text(encoding="utf-8"))
    assert set(d["predictions"]) == {"veil", "veil_hipaa", "presidio"}
    assert d["predictions"]["veil"][0][0]["entity_type"] == "LOCATION"
    assert len(d["gold"]) == 2 and d["gold"][0]["spans"]
    assert d["presidio_thresholds"] == {"presidio": 0.0, "presidio_t0.4": 0.4}
    with pytest.raises(SystemExit, match="outside the repository"):
        inside = str(BENCH / "results" / "preds.json")
        public.main([*argv, *more, "--predictions-out", inside])


def test_main_refuses_a_corpus_inside_the_repository() -> None:
    public = _bench("text_public")
    inside = BENCH / "label_maps" / "presidio_synth.json"
    with pytest.raises(SystemExit, match="outside the repository"):
        public.main(["--name", "t", "--format", "presidio-research", "--path", str(inside)])
