"""Reading and writing tables: formats, options, errors without data, atomic writes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from veil import InputError, read_table, write_table
from veil.io import atomic_dir, atomic_path

CANARY = "CANARY-93b1e7"


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {"name": ["Ann", "Bo", CANARY], "age": [31, 42, 57], "city": ["X", "Y", "Z"]}
    )


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".jsonl"])
def test_round_trip(tmp_path: Path, frame: pd.DataFrame, suffix: str) -> None:
    path = write_table(frame, tmp_path / f"t{suffix}")
    back = read_table(path)
    pd.testing.assert_frame_equal(back.astype({"age": "int64"}), frame, check_dtype=False)
    assert [p.name for p in tmp_path.iterdir()] == [f"t{suffix}"]  # no temp files left


def test_csv_separator_encoding_quoting(tmp_path: Path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes('name;note\n"Zoë";"a;b"\n"Ødegaard";"c"\n'.encode("latin-1"))
    df = read_table(path, separator=";", encoding="latin-1")
    assert df["name"].tolist() == ["Zoë", "Ødegaard"]
    assert df["note"].tolist() == ["a;b", "c"]


def test_wrong_encoding_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes(f"name\n{CANARY}\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="not valid utf-8") as info:
        read_table(path)
    assert CANARY not in str(info.value)
    assert "latin-1" in str(info.value)


def test_malformed_csv_names_the_line_not_the_content(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(f"a,b\n1,2\n3,{CANARY},5,6\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_table(path)
    text = str(info.value)
    assert "line 3" in text
    assert CANARY not in text and CANARY not in repr(info.value.__cause__)


@pytest.mark.parametrize("content", ["", "a,b\n"])
def test_empty_table(tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match="empty"):
        read_table(path)


def test_missing_file_and_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        read_table(tmp_path / "none.csv")
    odd = tmp_path / "data.xlsx"
    odd.write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="cannot tell the format"):
        read_table(odd)


def test_malformed_jsonl_and_parquet(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n{"a": ' + CANARY + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_table(bad)
    assert CANARY not in str(info.value)
    fake = tmp_path / "fake.parquet"
    fake.write_text(CANARY, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_table(fake)
    assert CANARY not in str(info.value)


def test_atomic_path_leaves_target_untouched_on_error(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half", encoding="utf-8")
        raise RuntimeError("boom")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_atomic_path_removes_the_folders_it_made_on_error(tmp_path: Path) -> None:
    """A failed run left the output's new folders behind (found by a bad-input audit);
    folders that existed before stay, and so does a made folder that is no longer empty."""
    (tmp_path / "kept").mkdir()
    with pytest.raises(RuntimeError), atomic_path(tmp_path / "kept" / "a" / "b" / "out.csv"):
        raise RuntimeError("boom")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["kept"]
    with pytest.raises(RuntimeError), atomic_path(tmp_path / "new" / "out.csv") as tmp:
        (tmp.parent / "other.txt").write_text("x", encoding="utf-8")
        raise RuntimeError("boom")
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == ["other.txt"]
    with atomic_path(tmp_path / "ok" / "deep" / "out.csv") as tmp:
        tmp.write_text("x", encoding="utf-8")
    assert (tmp_path / "ok" / "deep" / "out.csv").read_text(encoding="utf-8") == "x"


def test_atomic_dir_publishes_all_or_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with pytest.raises(RuntimeError), atomic_dir(out) as stage:
        (stage / "a.txt").write_text("a", encoding="utf-8")
        raise RuntimeError("boom")
    assert list(out.iterdir()) == []
    with atomic_dir(out) as stage:
        (stage / "a.txt").write_text("a", encoding="utf-8")
        (stage / "sub").mkdir()
        (stage / "sub" / "b.txt").write_text("b", encoding="utf-8")
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == ["a.txt", "sub", "sub/b.txt"]


def test_text_columns_keep_leading_zeros(tmp_path: Path) -> None:
    path = tmp_path / "zips.csv"
    path.write_text("zip,n\n02139,1\n00501,2\n", encoding="utf-8")
    assert read_table(path)["zip"].tolist() == [2139, 501]
    df = read_table(path, text_columns=["zip", "not_there"])
    assert df["zip"].tolist() == ["02139", "00501"]
    assert df["n"].tolist() == [1, 2]


def test_a_column_gets_one_type_however_long_the_file(tmp_path: Path) -> None:
    # pandas infers types chunk by chunk by default: 1 in the first chunk is an int, the same
    # 1 after a text value in a later chunk a str, and the two would group apart
    path = tmp_path / "long.csv"
    path.write_text("a,b\n" + "1,1\n" * 300_000 + "x,1\n", encoding="utf-8")
    df = read_table(path)
    assert df["a"].map(type).nunique() == 1
    assert df["a"].nunique() == 2
