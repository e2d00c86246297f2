"""The Ray engine's JSONL reader: byte ranges and small pieces give the local engine's lines.

The reader's functions run here without a Ray runtime (the text actors call them). The oracle is the local engine's own reading: the file's bytes split at
``\\n``, decoded, blank lines dropped.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil._errors import InputError
from veil.engine._jsonl_source import range_lines, ranges
from veil.engine._partitioned import path_key

# texts with the characters str.splitlines cuts at but JSON Lines does not: a record holds
# them raw when written with ensure_ascii=False
_TEXT = st.text(
    alphabet=st.sampled_from([*"ab é\r\t", "\u2028", "\u0085", "\x0c", "\u4e2d"]),
    max_size=12,
)


def _local_lines(data: bytes) -> list[str]:
    """What the local engine reads (``_read_jsonl``): lines split at b"\\n", blank dropped."""
    lines = [raw.decode("utf-8") for raw in data.split(b"\n")]
    return [line for line in lines if line.strip()]


def _read_all(path: Path, size: int, task_bytes: int, piece: int) -> list[str]:
    out: list[str] = []
    for start in range(0, max(size, 1), task_bytes):
        out += range_lines(str(path), start, min(start + task_bytes, size), piece)
    return out


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(_TEXT, max_size=25),
    newline_at_end=st.booleans(),
    task_bytes=st.integers(1, 80),
    piece=st.integers(1, 40),
)
def test_ranges_give_every_line_once_in_order(
    tmp_path_factory: pytest.TempPathFactory,
    texts: list[str],
    newline_at_end: bool,
    task_bytes: int,
    piece: int,
) -> None:
    data = "\n".join(texts).encode("utf-8") + (b"\n" if newline_at_end and texts else b"")
    path = tmp_path_factory.mktemp("in") / "part.jsonl"
    path.write_bytes(data)
    got = _read_all(path, len(data), task_bytes, piece)
    assert got == _local_lines(data)


def test_a_record_holding_a_line_separator_stays_one_line(tmp_path: Path) -> None:
    # str.splitlines (Ray Data's read_text) cuts this record in two
    data = '{"full_text": "Jo\u2028Bloggs"}\n{"full_text": "x"}\n'.encode()
    path = tmp_path / "a.jsonl"
    path.write_bytes(data)
    assert _read_all(path, len(data), 7, 3) == [
        '{"full_text": "Jo\u2028Bloggs"}',
        '{"full_text": "x"}',
    ]


def test_not_utf8_names_the_file_and_no_data(tmp_path: Path) -> None:
    path = tmp_path / "latin.jsonl"
    path.write_bytes('{"t": "ok"}\n{"t": "Müller"}\n'.encode("latin-1"))
    with pytest.raises(InputError, match=r"latin\.jsonl: a line is not valid UTF-8") as info:
        range_lines(str(path), 0, path.stat().st_size)
    assert "M" not in str(info.value).replace("UTF", "")


@settings(max_examples=100, deadline=None)
@given(
    files=st.lists(st.lists(_TEXT, max_size=12), min_size=1, max_size=4),
    rows=st.integers(1, 7),
    sample=st.integers(1, 64),
    at_least=st.integers(1, 3),
)
def test_actor_ranges_give_every_line_once_in_order(
    tmp_path_factory: pytest.TempPathFactory,
    files: list[list[str]],
    rows: int,
    sample: int,
    at_least: int,
) -> None:
    # what the actors read themselves: each file's ranges, in order, give its lines
    folder = tmp_path_factory.mktemp("in")
    paths = []
    for i, texts in enumerate(files):
        p = folder / f"part-{i}.jsonl"
        p.write_bytes("\n".join(texts).encode("utf-8"))
        paths.append(p)
    items = ranges(paths, rows, at_least=at_least, sample=sample)
    for p in paths:
        mine = [r for r in items if r["path"] == str(p.absolute())]
        assert mine, "every file has a range (an empty one gives its empty output file)"
        assert {r["key"] for r in mine} == {path_key(p)}
        assert mine[0]["start"] == 0 and mine[-1]["end"] == p.stat().st_size
        assert all(a["end"] == b["start"] for a, b in pairwise(mine))
        got = [line for r in mine for line in range_lines(r["path"], r["start"], r["end"], 5)]
        assert got == _local_lines(p.read_bytes())
    assert [r["path"] for r in items] == sorted(r["path"] for r in items)  # file order
    if sum(p.stat().st_size for p in paths) >= at_least:
        assert len(items) >= at_least  # one per actor at least


def test_actor_ranges_hold_about_rows_lines(tmp_path: Path) -> None:
    a = tmp_path / "a.jsonl"
    a.write_bytes((b'{"i": "' + b"x" * 90 + b'"}\n') * 1000)  # 100 bytes a line
    items = ranges([a], rows=100)
    assert len(items) == 10
    assert [len(range_lines(r["path"], r["start"], r["end"])) for r in items] == [100] * 10
    # a small input still gives each of two actors a range
    assert len(ranges([a], rows=5000, at_least=2)) == 2
