"""``--engine ray`` for ``veil redact`` and ``veil text detect`` on a real local Ray runtime.

Ray is started once for the module (``ray.init`` takes seconds); the CLI, run in-process,
uses that runtime (as it would one a user started) instead of starting its own. The inputs
are tiny: what is checked is that the Ray engine gives the local engine's bytes.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from veil.text.evaluation._corpus_business import generate_business_corpus

ray = pytest.importorskip("ray", reason="the ray extra is part of the test environment")

# Ray's process launcher leaves /dev/null handles to the garbage collector, and Ray Data
# warns about its own deprecated settings on first use (ray's code, not ours)
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


@pytest.fixture(scope="module", autouse=True)
def runtime() -> Iterator[None]:
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")  # as ray_session does
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """30 business texts, as one JSONL file and as three partitions of it (a folder)."""
    root = tmp_path_factory.mktemp("corpus")
    recs = [
        {"id": i, "full_text": r["full_text"]}
        for i, r in enumerate(generate_business_corpus(30, seed=3))
    ]
    (root / "all.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    parts = root / "parts"
    (parts / "day=2").mkdir(parents=True)
    # sorted by path: part-0, then day=2/part-1 ... no: "day=2" < "part-0" sorts first
    chunks = {
        parts / "day=2" / "a.jsonl": recs[:12],
        parts / "part-1.jsonl": recs[12:20],
        parts / "part-2.jsonl": recs[20:],
    }
    for path, chunk in chunks.items():
        path.write_text("".join(json.dumps(r) + "\n" for r in chunk), encoding="utf-8")
    (parts / "_SUCCESS").write_text("", encoding="utf-8")  # a marker, not a partition
    frame = pd.DataFrame(recs).rename(columns={"full_text": "note"})
    frame["id"] = frame["id"].astype(str)
    (root / "pq").mkdir()
    frame.to_parquet(root / "all.parquet", index=False)
    frame.iloc[:17].to_parquet(root / "pq" / "p0.parquet", index=False)
    frame.iloc[17:].to_parquet(root / "pq" / "p1.parquet", index=False)
    (root / "csv").mkdir()
    frame.to_csv(root / "all.csv", index=False)
    frame.iloc[:9].to_csv(root / "csv" / "p0.csv", index=False)
    frame.iloc[9:].to_csv(root / "csv" / "p1.csv", index=False)
    return root


@pytest.fixture
def hmac_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEIL_HMAC_KEY", secrets.token_hex(32))


def test_redact_folder_keyed_matches_local(cli, corpus: Path, tmp_path: Path, hmac_key) -> None:
    args = ("--no-ner", "--operator", "hash", "--json")
    local = cli("redact", corpus / "all.jsonl", "--out", tmp_path / "l.jsonl", *args)
    assert local.code == 0, local.err
    # two actors, batches of 7: records cross batch and file boundaries, order must hold
    res = cli(
        "redact",
        corpus / "parts",
        "--out",
        tmp_path / "r.jsonl",
        "--engine",
        "ray",
        "--processes",
        "2",
        "--batch-size",
        "7",
        *args,
    )
    assert res.code == 0, res.err
    summary = json.loads(res.out)
    assert summary["engine"] == "ray" and summary["files"] == 3 and summary["records"] == 30
    assert summary["replaced"] == json.loads(local.out)["replaced"]
    assert summary["replaced"]  # the corpus has identifiers: equality above is not vacuous
    # the partitions sort as day=2/a, part-1, part-2: the input order of all.jsonl
    assert (tmp_path / "r.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()


def test_many_ranges_in_few_blocks_match_local(
    cli, corpus: Path, tmp_path: Path, hmac_key, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a large corpus has more byte ranges than blocks: each block then holds several
    # ranges, read and analysed one at a time by one actor call; order and bytes must hold
    import veil.engine._text as text_engine
    from veil.engine._jsonl_source import ranges

    files = sorted((corpus / "parts").rglob("*.jsonl"))
    assert len(ranges(files, 3, at_least=2)) >= 3  # more ranges than the two blocks below
    monkeypatch.setattr(text_engine, "RANGE_BLOCKS", 2)
    args = ("--no-ner", "--operator", "hash")
    local = cli("redact", corpus / "all.jsonl", "--out", tmp_path / "l.jsonl", *args)
    assert local.code == 0, local.err
    res = cli(
        "redact",
        corpus / "parts",
        "--out",
        tmp_path / "r.jsonl",
        *("--engine", "ray", "--processes", "2", "--batch-size", "3"),
        *args,
    )
    assert res.code == 0, res.err
    assert (tmp_path / "r.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()


def test_records_with_line_separators_and_blank_lines_match_local(cli, tmp_path: Path) -> None:
    # raw U+2028 / U+0085 inside a record (json.dumps(ensure_ascii=False) writes them so):
    # Ray Data's read_text split such a record in two lines, the local engine does not
    recs = [
        {"full_text": "Call Jo Bloggs\u2028on 555-201-9876"},
        {"full_text": "mail\u0085jo@example.com please"},
        {"full_text": "nothing here"},
    ]
    lines = [json.dumps(r, ensure_ascii=False) for r in recs]
    data = (lines[0] + "\n\n" + lines[1] + "\r\n" + " \n" + lines[2]).encode()  # no last \n
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.jsonl").write_bytes(data)
    args = ("--no-ner", "--json")
    local = cli("redact", tmp_path / "in" / "a.jsonl", "--out", tmp_path / "l.jsonl", *args)
    assert local.code == 0, local.err
    res = cli("redact", tmp_path / "in", "--out", tmp_path / "r.jsonl", "--engine", "ray", *args)
    assert res.code == 0, res.err
    assert json.loads(res.out)["records"] == json.loads(local.out)["records"] == 3
    assert (tmp_path / "r.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()
    assert b"555-201" not in (tmp_path / "r.jsonl").read_bytes()
    # a partition that is not UTF-8: the file is named, nothing of it shown, nothing written
    (tmp_path / "in" / "b.jsonl").write_bytes('{"full_text": "Müller"}\n'.encode("latin-1"))
    res = cli("redact", tmp_path / "in", "--out", tmp_path / "r2.jsonl", "--engine", "ray", *args)
    assert res.code == 2
    assert "b.jsonl: a line is not valid UTF-8" in res.err
    assert "ller" not in res.err + res.out
    assert not (tmp_path / "r2.jsonl").exists()


def test_detect_with_ner_matches_local(cli, corpus: Path, tmp_path: Path) -> None:
    local = cli("text", "detect", corpus / "all.jsonl", "--out", tmp_path / "l.jsonl", "--json")
    assert local.code == 0, local.err
    res = cli(
        "text",
        "detect",
        corpus / "parts",
        "--out",
        tmp_path / "r.jsonl",
        "--engine",
        "ray",
        "--json",
    )
    assert res.code == 0, res.err
    assert json.loads(res.out)["model"] == json.loads(local.out)["model"] is not None
    out = (tmp_path / "r.jsonl").read_text(encoding="utf-8")
    assert out == (tmp_path / "l.jsonl").read_text(encoding="utf-8")
    assert any(json.loads(line)["findings"] for line in out.splitlines())


def test_parquet_glob_and_csv_folder_match_local(cli, corpus: Path, tmp_path: Path) -> None:
    args = ("--no-ner", "--column", "note", "--json")
    assert cli("redact", corpus / "all.parquet", "--out", tmp_path / "l.parquet", *args).code == 0
    res = cli(
        "redact",
        str(corpus / "pq" / "*.parquet"),
        "--out",
        tmp_path / "r.parquet",
        "--engine",
        "ray",
        *args,
    )
    assert res.code == 0, res.err
    left, right = pq.read_table(tmp_path / "l.parquet"), pq.read_table(tmp_path / "r.parquet")
    assert right.schema.equals(left.schema) and right.equals(left)
    assert json.loads(res.out)["untouched_fields"] == ["id"]
    assert cli("text", "detect", corpus / "all.csv", "--out", tmp_path / "l.jsonl", *args).code == 0
    res = cli(
        "text", "detect", corpus / "csv", "--out", tmp_path / "r.jsonl", "--engine", "ray", *args
    )
    assert res.code == 0, res.err
    assert (tmp_path / "r.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_address_is_a_usage_error(cli, corpus: Path, tmp_path: Path) -> None:
    address = f"127.0.0.1:{_free_port()}"
    res = cli(
        "redact",
        corpus / "parts",
        "--out",
        tmp_path / "r.jsonl",
        "--engine",
        "ray",
        "--ray-address",
        address,
        "--no-ner",
    )
    assert res.code == 2
    assert f"cannot reach the Ray cluster at {address}" in res.err
    assert not (tmp_path / "r.jsonl").exists()
    res = cli(
        "text",
        "detect",
        corpus / "parts",
        "--out",
        tmp_path / "d.jsonl",
        "--engine",
        "ray",
        "--ray-address",
        "not-an-address",
        "--no-ner",
    )
    assert res.code == 2 and "not HOST:PORT" in res.err


def test_folder_without_readable_files(cli, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "_SUCCESS").write_text("", encoding="utf-8")
    (tmp_path / "in" / "notes.txt").write_text("Call Jo on 555-0100\n", encoding="utf-8")
    res = cli("redact", tmp_path / "in", "--out", tmp_path / "r.jsonl", "--engine", "ray")
    assert res.code == 2
    assert f"no readable data files in folder {tmp_path / 'in'}" in res.err
    assert "555" not in res.err
    assert list(tmp_path.iterdir()) == [tmp_path / "in"]


def test_bad_record_in_a_later_partition_writes_nothing(cli, corpus: Path, tmp_path: Path) -> None:
    parts = tmp_path / "in"
    parts.mkdir()
    good = (corpus / "parts" / "part-1.jsonl").read_text(encoding="utf-8")
    (parts / "a.jsonl").write_text(good * 20, encoding="utf-8")  # 160 records first
    secret = "Jo Bloggs 078-05-1120"
    (parts / "b.jsonl").write_text(json.dumps({"body": secret}) + "\n", encoding="utf-8")
    out = tmp_path / "out" / "r.jsonl"
    out.parent.mkdir()
    res = cli("redact", parts, "--out", out, "--engine", "ray", "--no-ner", "--batch-size", "10")
    assert res.code == 2
    assert "b.jsonl: a record has neither a 'full_text' nor a 'text' field" in res.err
    assert "Bloggs" not in res.err + res.out and "078-05" not in res.err + res.out
    assert list(out.parent.iterdir()) == []  # no output, no temporary file left


def test_partition_with_another_schema(cli, corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    frame = pd.read_parquet(corpus / "all.parquet")
    frame.to_parquet(tmp_path / "in" / "p0.parquet", index=False)
    frame.rename(columns={"note": "body"}).to_parquet(tmp_path / "in" / "p1.parquet", index=False)
    res = cli(
        "redact",
        tmp_path / "in",
        "--out",
        tmp_path / "r.parquet",
        "--engine",
        "ray",
        "--no-ner",
        "--column",
        "note",
    )
    assert res.code == 2
    assert "p1.parquet has another schema than p0.parquet" in res.err
    assert not (tmp_path / "r.parquet").exists()


def test_unreadable_partition_is_an_input_error_without_data(cli, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.csv").write_text("id,note\n1,Call Jo\n", encoding="utf-8")
    (tmp_path / "in" / "b.csv").write_text("id,note\n2,x,Bloggs-078-05\n", encoding="utf-8")
    res = cli(
        "redact",
        tmp_path / "in",
        "--out",
        tmp_path / "r.csv",
        "--engine",
        "ray",
        "--no-ner",
        "--column",
        "note",
    )
    assert res.code == 2
    assert "an input file could not be read" in res.err
    assert "Bloggs" not in res.err + res.out + res.logs  # Ray's own task log is silenced
    assert not (tmp_path / "r.csv").exists()


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_partitioned_output_one_file_per_partition(
    cli, corpus: Path, tmp_path: Path, hmac_key
) -> None:
    """Folder in, folder out: each engine writes one file per input partition (the same
    relative paths, an empty partition included), and the two engines the same bytes."""
    parts = tmp_path / "in"
    shutil.copytree(corpus / "parts", parts)
    (parts / "part-3.jsonl").write_text("", encoding="utf-8")  # an empty partition
    args = ("--no-ner", "--operator", "hash", "--json")
    local = cli("redact", parts, "--out", tmp_path / "local", *args)
    assert local.code == 0, local.err
    res = cli(
        "redact",
        parts,
        "--out",
        tmp_path / "ray",
        "--engine",
        "ray",
        "--batch-size",
        "7",
        *args,
    )
    assert res.code == 0, res.err
    summary = json.loads(res.out)
    assert summary["files"] == 4 and summary["records"] == 30
    assert summary["replaced"] == json.loads(local.out)["replaced"] != {}
    tree = _tree(tmp_path / "ray")
    names = ["day=2/a.jsonl", "part-1.jsonl", "part-2.jsonl", "part-3.jsonl"]
    assert sorted(tree) == names and tree["part-3.jsonl"] == b""
    assert tree == _tree(tmp_path / "local")
    # the partitions, in path order, are the single-file output's lines
    assert cli("redact", corpus / "all.jsonl", "--out", tmp_path / "all.jsonl", *args).code == 0
    assert b"".join(tree[n] for n in names) == (tmp_path / "all.jsonl").read_bytes()
    # Parquet and CSV partitions keep their schema and header; an existing folder is a
    # folder output whatever its name
    for sub, kind in (("pq", "parquet"), ("csv", "csv")):
        (tmp_path / f"{sub}.out").mkdir()
        for engine in ("local", "ray"):
            out = tmp_path / f"{sub}.out" if engine == "ray" else tmp_path / f"{sub}-local"
            res = cli(
                "redact", corpus / sub, "--out", out, "--engine", engine, "--no-ner",
                "--column", "note", "--json",
            )  # fmt: skip
            assert res.code == 0, res.err
        tree = _tree(tmp_path / f"{sub}.out")
        assert sorted(tree) == [f"p0.{kind}", f"p1.{kind}"]
        assert tree == _tree(tmp_path / f"{sub}-local")
    left = pq.read_table(tmp_path / "pq.out" / "p1.parquet")
    assert left.schema.equals(pq.read_schema(corpus / "pq" / "p1.parquet"))
    assert left.num_rows == 13


def test_partitioned_output_is_all_or_nothing(cli, corpus: Path, tmp_path: Path) -> None:
    """A bad record in the last partition: the output folder keeps its old files, all of
    them, and nothing new (no partition of the failed run, no staging folder)."""
    parts = tmp_path / "in"
    shutil.copytree(corpus / "parts", parts)
    secret = "Jo Bloggs 078-05-1120"
    (parts / "part-2.jsonl").write_text(json.dumps({"body": secret}) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "part-1.jsonl").write_text("old\n", encoding="utf-8")
    for engine in ("ray", "local"):
        res = cli("redact", parts, "--out", out, "--engine", engine, "--no-ner")
        assert res.code == 2, (engine, res.err)
        # the Ray engine says "a record", the local one "line 1": both name the file
        assert "part-2.jsonl: " in res.err and "has neither a 'full_text'" in res.err
        assert "Bloggs" not in res.err + res.out
        assert [p.name for p in out.iterdir()] == ["part-1.jsonl"]
        assert (out / "part-1.jsonl").read_text(encoding="utf-8") == "old\n"


def test_partitioned_output_refusals(cli, corpus: Path, tmp_path: Path) -> None:
    """Schema mismatch and a folder without data name the file, on the local engine too;
    an output inside the input folder, or beside other partitions, is refused."""
    (tmp_path / "in").mkdir()
    frame = pd.read_parquet(corpus / "all.parquet")
    frame.to_parquet(tmp_path / "in" / "p0.parquet", index=False)
    frame.rename(columns={"note": "body"}).to_parquet(tmp_path / "in" / "p1.parquet", index=False)
    base = ("--no-ner", "--column", "note")
    res = cli("redact", tmp_path / "in", "--out", tmp_path / "out", *base)
    assert res.code == 2 and "p1.parquet has another schema than p0.parquet" in res.err
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("Call Jo on 555-0100\n", encoding="utf-8")
    res = cli("redact", tmp_path / "empty", "--out", tmp_path / "out", *base)
    assert res.code == 2 and "no readable data files in folder" in res.err
    assert "555" not in res.err
    res = cli("redact", corpus / "pq", "--out", corpus / "pq" / "red", *base)
    assert res.code == 2 and "inside the input folder" in res.err
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "other.parquet").write_bytes(b"")
    res = cli("redact", corpus / "pq", "--out", tmp_path / "full", "--engine", "ray", *base)
    assert res.code == 2 and "holds 1 data file(s) this run would not write" in res.err
    assert not (tmp_path / "out").exists() and not (corpus / "pq" / "red").exists()
