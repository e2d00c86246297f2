"""``veil redact`` resolves the text field per record and says which fields it left alone.

Before: the field was picked from the first JSONL record, so a later record that used
``text`` instead of ``full_text`` was written unredacted with exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)

MAILS = ["ottilie.brennecke@posteo.de", "jkubat@seznam.cz", "ines.alb@sapo.pt"]


def _jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _redact(cli, src: Path, dst: Path, *args: str):
    return cli("redact", src, "--out", dst, "--no-ner", *args)


def test_a_later_record_with_another_default_field_is_redacted(cli, tmp_path: Path) -> None:
    src = _jsonl(
        tmp_path / "in.jsonl",
        [
            {"id": 1, "full_text": f"write to {MAILS[0]}"},
            {"id": 2, "full_text": f"write to {MAILS[1]}"},
            {"id": 3, "text": f"write to {MAILS[2]}"},  # the field the first record lacks
        ],
    )
    dst = tmp_path / "out.jsonl"
    r = _redact(cli, src, dst, "--json")
    assert r.code == 0, r.err
    out = dst.read_text()
    assert not [m for m in MAILS if m in out]
    assert out.count("<EMAIL_ADDRESS>") == 3
    doc = json.loads(r.out)
    assert doc["records"] == 3 and doc["untouched_fields"] == ["id"]
    assert doc["redacted_fields"] == ["full_text", "text"]


def test_a_record_without_the_named_field_is_an_error_naming_its_line(cli, tmp_path: Path) -> None:
    src = _jsonl(
        tmp_path / "in.jsonl",
        [
            {"full_text": f"write to {MAILS[0]}"},
            {"full_text": f"write to {MAILS[1]}"},
            {"text": f"write to {MAILS[2]}"},
        ],
    )
    dst = tmp_path / "out.jsonl"
    r = _redact(cli, src, dst, "--column", "full_text")
    assert r.code == 2
    assert "line 3" in r.err and "in.jsonl" in r.err and "'full_text'" in r.err
    assert "--all-fields" in r.err
    assert not dst.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]
    assert not [m for m in MAILS if m in r.out + r.err + r.logs]


def test_a_record_with_no_default_field_is_an_error(cli, tmp_path: Path) -> None:
    src = _jsonl(
        tmp_path / "in.jsonl",
        [{"full_text": f"to {MAILS[0]}"}, {"body": f"to {MAILS[1]}"}],
    )
    r = _redact(cli, src, tmp_path / "out.jsonl")
    assert r.code == 2 and "line 2" in r.err
    assert not (tmp_path / "out.jsonl").exists()
    assert MAILS[1] not in r.out + r.err + r.logs


def test_several_columns(cli, tmp_path: Path) -> None:
    src = _jsonl(
        tmp_path / "in.jsonl",
        [
            {"id": 7, "subject": f"from {MAILS[0]}", "body": f"cc {MAILS[1]}", "tag": "x"},
            {"id": 8, "subject": None, "body": f"cc {MAILS[2]}", "tag": "y"},
        ],
    )
    dst = tmp_path / "out.jsonl"
    r = _redact(cli, src, dst, "--column", "subject", "-c", "body", "--json")
    assert r.code == 0, r.err
    out = [json.loads(line) for line in dst.read_text().splitlines()]
    assert out[0]["subject"] == "from <EMAIL_ADDRESS>" and out[1]["subject"] is None
    assert out[1]["body"] == "cc <EMAIL_ADDRESS>" and out[0]["tag"] == "x"
    assert json.loads(r.out)["untouched_fields"] == ["id", "tag"]
    # and on stderr, by name only
    assert "left untouched" in r.err and "id, tag" in r.err


def test_all_fields_redacts_every_string_even_nested(cli, tmp_path: Path) -> None:
    src = _jsonl(
        tmp_path / "in.jsonl",
        [
            {"n": 1, "a": f"to {MAILS[0]}", "meta": {"cc": [f"{MAILS[1]}"], "k": 2}},
            {"n": 2, "b": f"to {MAILS[2]}"},
        ],
    )
    dst = tmp_path / "out.jsonl"
    r = _redact(cli, src, dst, "--all-fields", "--json")
    assert r.code == 0, r.err
    text = dst.read_text()
    assert not [m for m in MAILS if m in text]
    out = [json.loads(line) for line in text.splitlines()]
    assert out[0]["meta"]["k"] == 2 and out[0]["n"] == 1
    assert json.loads(r.out)["untouched_fields"] == ["n"]


def test_column_and_all_fields_contradict(cli, tmp_path: Path) -> None:
    src = _jsonl(tmp_path / "in.jsonl", [{"text": "x"}])
    r = _redact(cli, src, tmp_path / "out.jsonl", "--all-fields", "--column", "text")
    assert r.code == 2 and "--all-fields" in r.err


def test_json_list_resolves_per_record(cli, tmp_path: Path) -> None:
    src = tmp_path / "in.json"
    src.write_text(json.dumps([{"full_text": f"to {MAILS[0]}"}, {"text": f"to {MAILS[1]}"}]))
    dst = tmp_path / "out.json"
    assert _redact(cli, src, dst).code == 0
    assert not [m for m in MAILS if m in dst.read_text()]
    src.write_text(json.dumps([{"full_text": "a"}, {"other": f"to {MAILS[1]}"}]))
    r = _redact(cli, src, tmp_path / "out2.json")
    assert r.code == 2 and "record 2" in r.err


def test_csv_several_columns_sniffed_separator_kept(cli, tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text(f"id;subject;body\n1;hi {MAILS[0]};ok\n2;yo;see {MAILS[1]}\n", encoding="utf-8")
    dst = tmp_path / "out.csv"
    r = _redact(cli, src, dst, "-c", "subject", "-c", "body", "--json")
    assert r.code == 0, r.err
    back = pd.read_csv(dst, sep=";", dtype=str)
    assert back["subject"].tolist() == ["hi <EMAIL_ADDRESS>", "yo"]
    assert back["body"].tolist() == ["ok", "see <EMAIL_ADDRESS>"]
    assert json.loads(r.out)["untouched_fields"] == ["id"]


def test_csv_without_header(cli, tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text(f"1,{MAILS[0]}\n2,{MAILS[1]}\n", encoding="utf-8")
    dst = tmp_path / "out.csv"
    r = _redact(cli, src, dst, "--all-fields")
    assert r.code == 2 and "first line looks like data" in r.err
    assert not [m for m in MAILS if m in r.out + r.err + r.logs] and not dst.exists()
    r = _redact(cli, src, dst, "--all-fields", "--no-header")
    assert r.code == 0, r.err
    # every line stays a record, and no header line is added
    assert dst.read_text().splitlines() == ["1,<EMAIL_ADDRESS>", "2,<EMAIL_ADDRESS>"]


def test_parquet_all_fields_and_untouched(cli, tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pd.DataFrame({"id": [1, 2], "a": [f"to {MAILS[0]}", None], "b": ["x", MAILS[1]]}).to_parquet(
        src
    )
    dst = tmp_path / "out.parquet"
    r = _redact(cli, src, dst, "--all-fields", "--json")
    assert r.code == 0, r.err
    back = pd.read_parquet(dst)
    assert back["a"].tolist() == ["to <EMAIL_ADDRESS>", None]
    assert back["b"].tolist() == ["x", "<EMAIL_ADDRESS>"] and back["id"].tolist() == [1, 2]
    assert json.loads(r.out)["untouched_fields"] == ["id"]
