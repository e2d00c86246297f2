"""Streaming file formats: round trips, nulls, invalid input, nothing half-written."""

import json
from pathlib import Path

import pandas as pd
import pytest

from veil import InputError, SchemaError
from veil.text.redaction._files import iter_text_batches, transform_file


def _upper(texts: list[str | None]) -> list[str | None]:
    return [t.upper() if t else t for t in texts]


def test_jsonl_round_trip_keeps_other_fields_and_nulls(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.jsonl"
    rows = [
        {"id": 1, "full_text": "abc", "x": [1]},
        {"id": 2, "full_text": None},
        {"id": 3, "text": "d"},
    ]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    dst = tmp_path / "out.jsonl"
    assert transform_file(src, dst, _upper, batch_size=2) == 3
    out = [json.loads(line) for line in dst.read_text().splitlines()]
    assert out == [
        {"id": 1, "full_text": "ABC", "x": [1]},
        {"id": 2, "full_text": None},
        {"id": 3, "text": "D"},
    ]


def test_csv_and_parquet_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    df = pd.DataFrame({"id": ["1", "2", "3"], "notes": ["a b", "", "c,d"]})
    csv = tmp_path / "in.csv"
    df.to_csv(csv, index=False)
    transform_file(csv, tmp_path / "out.csv", _upper, column="notes", batch_size=2)
    back = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert back["notes"].tolist() == ["A B", "", "C,D"] and back["id"].tolist() == ["1", "2", "3"]
    pq = tmp_path / "in.parquet"
    pd.DataFrame({"id": [1, 2], "notes": ["x", None]}).to_parquet(pq)
    transform_file(pq, tmp_path / "out.parquet", _upper, column="notes", batch_size=1)
    back = pd.read_parquet(tmp_path / "out.parquet")
    assert back["notes"].tolist() == ["X", None] and back["id"].tolist() == [1, 2]


def test_plain_text_keeps_line_endings(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.txt"
    src.write_bytes(b"one\r\ntwo\n\nthree")
    transform_file(src, tmp_path / "out.txt", _upper)
    assert (tmp_path / "out.txt").read_bytes() == b"ONE\r\nTWO\n\nTHREE"


def test_json_list_with_full_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "gold.json"
    src.write_text(json.dumps([{"full_text": "a", "spans": []}, {"full_text": "b", "spans": []}]))
    assert [b.texts for b in iter_text_batches(src)] == [["a", "b"]]


def test_invalid_utf8_names_line_not_content_and_writes_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.jsonl"
    src.write_bytes(b'{"text": "fine"}\n{"text": "Jos\xe9 Garc\xeda secret"}\n')
    dst = tmp_path / "out.jsonl"
    with pytest.raises(InputError) as err:
        transform_file(src, dst, _upper)
    assert "line 2" in str(err.value) and "Garc" not in str(err.value)
    assert not dst.exists()
    assert list(tmp_path.iterdir()) == [src]  # no temporary file left behind


def test_bad_json_line_does_not_echo_content(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.jsonl"
    src.write_text('{"text": "ok"}\n{"text": "Jane Roe 536-22-1234"\n')
    with pytest.raises(InputError) as err:
        transform_file(src, tmp_path / "out.jsonl", _upper)
    assert "line 2" in str(err.value) and "Jane" not in str(err.value)


def test_missing_column_lists_columns(tmp_path) -> None:  # type: ignore[no-untyped-def]
    csv = tmp_path / "in.csv"
    pd.DataFrame({"id": [1], "body": ["x"]}).to_csv(csv, index=False)
    with pytest.raises(SchemaError) as err:
        transform_file(csv, tmp_path / "out.csv", _upper, column="notes")
    assert "body" in str(err.value)


def test_output_format_must_match(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.jsonl"
    src.write_text('{"text": "a"}\n')
    with pytest.raises(InputError, match="format"):
        transform_file(src, tmp_path / "out.csv", _upper)


def test_non_text_field_is_an_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.jsonl"
    src.write_text('{"text": 12345}\n')
    with pytest.raises(InputError, match="int"):
        transform_file(src, tmp_path / "out.jsonl", _upper)


@pytest.mark.parametrize(
    "data",
    [
        b"id,notes\n1,ok\n2,caf\xe9\n",  # latin-1 in the third line
        b"\xff\xfeid,notes\n",  # the first bytes
        # a two-byte character cut by the 1 MB piece boundary, then the bad byte
        b"a" * (2**20 - 1) + "é".encode() + b"\n\xc3(",
    ],
)
def test_first_bad_utf8_gives_the_files_line_and_byte(tmp_path: Path, data: bytes) -> None:
    """pandas reports the offset in its read buffer; the error must name the file's."""
    from veil.io._tables import first_bad_utf8

    path = tmp_path / "bad.csv"
    path.write_bytes(data)
    with pytest.raises(UnicodeDecodeError) as exc:
        data.decode("utf-8")
    line = data.count(b"\n", 0, exc.value.start) + 1
    assert first_bad_utf8(path) == f"line {line}, byte {exc.value.start} of the file"
