"""Which files an input names for the Ray engine, and how an address is checked (no Ray)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil._errors import InputError
from veil.engine import expand_inputs
from veil.engine._runtime import _check_reachable, _host_port

_NAMES = st.lists(
    st.from_regex(r"[a-z0-9=-]{1,8}", fullmatch=True), min_size=1, max_size=6, unique=True
)


@settings(max_examples=25, deadline=None)
@given(names=_NAMES, nested=st.booleans())
def test_folder_files_come_sorted_by_path(tmp_path_factory, names: list[str], nested: bool) -> None:
    root = tmp_path_factory.mktemp("in")
    made = []
    for i, n in enumerate(names):
        sub = root / (f"d{i % 2}" if nested else "")
        sub.mkdir(exist_ok=True)
        (sub / f"{n}.jsonl").write_text("{}\n", encoding="utf-8")
        made.append(sub / f"{n}.jsonl")
    (root / "_SUCCESS").write_text("", encoding="utf-8")
    (root / ".part.jsonl.crc").write_text("", encoding="utf-8")
    kind, files = expand_inputs(root)
    assert kind == "jsonl"
    assert files == sorted(made)  # the order of the output's rows


def test_glob_and_single_file(tmp_path: Path) -> None:
    for n in ("b", "a", "c"):
        (tmp_path / f"{n}.parquet").write_bytes(b"")
    (tmp_path / "x.csv").write_text("a\n", encoding="utf-8")
    kind, files = expand_inputs(str(tmp_path / "*.parquet"))
    assert kind == "parquet" and [f.stem for f in files] == ["a", "b", "c"]
    assert expand_inputs(tmp_path / "x.csv") == ("csv", [tmp_path / "x.csv"])


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ((), "no readable data files in folder"),
        (("notes.txt", "_SUCCESS"), "no readable data files in folder"),
        (("a.jsonl", "b.csv"), "mixes file formats (csv, jsonl)"),
    ],
)
def test_folder_errors(tmp_path: Path, files: tuple[str, ...], message: str) -> None:
    for f in files:
        (tmp_path / f).write_text("", encoding="utf-8")
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        expand_inputs(tmp_path)


def test_missing_input_and_unread_formats(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="input not found"):
        expand_inputs(tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="no readable data files in pattern"):
        expand_inputs(str(tmp_path / "*.jsonl"))
    (tmp_path / "a.json").write_text("[]", encoding="utf-8")
    with pytest.raises(InputError, match="does not read json files"):
        expand_inputs(tmp_path / "a.json")


@given(
    host=st.from_regex(r"[a-z][a-z0-9.-]{0,20}", fullmatch=True),
    port=st.integers(1, 65535),
    client=st.booleans(),
)
def test_host_port_round_trip(host: str, port: int, client: bool) -> None:
    assert _host_port(f"{'ray://' if client else ''}{host}:{port}") == (host, port)


@pytest.mark.parametrize("bad", ["localhost", "host:", ":6379", "host:port", "a:12:x"])
def test_malformed_address(bad: str) -> None:
    with pytest.raises(InputError, match="is not HOST:PORT") as err:
        _host_port(bad)
    assert err.value.exit_code == 2


def test_nothing_listening_names_the_address() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: connections are refused
        with pytest.raises(InputError, match=f"cannot reach the Ray cluster at 127.0.0.1:{port}"):
            _check_reachable(f"127.0.0.1:{port}", timeout=2)
    assert _host_port("auto") is None
