"""``--pattern NAME=REGEX``, ``--deny-list FILE`` and ``--allow-list FILE`` on ``veil redact``
and ``veil text detect``, through the real CLI: the same semantics as a policy's
``text.patterns``, ``text.deny_list`` and ``text.allow_list``, and bad input refused with
exit 2, the option named and no pattern or term echoed anywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veil.policy import TextConfig
from veil.text import TextAnalyzer

TEXT = "Jane met Acme Widgets about Project Falcon; badge EMP-123456, mail jo@example.com."
TERMS = ["Acme Widgets", "project falcon"]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"full_text": TEXT}) + "\n", encoding="utf-8")
    deny = tmp_path / "deny.txt"
    deny.write_text("\n".join(TERMS) + "\n\n", encoding="utf-8")
    allow = tmp_path / "allow.txt"
    allow.write_text("jo@example.com\n", encoding="utf-8")
    return {"src": src, "deny": deny, "allow": allow, "dir": tmp_path}


def _spans(path: Path) -> list[tuple[str, str]]:
    row = json.loads(path.read_text().splitlines()[0])
    return [(TEXT[f["start"] : f["end"]], f["entity_type"]) for f in row["findings"]]


def test_detect_takes_patterns_and_lists(cli, files) -> None:  # type: ignore[no-untyped-def]
    out = files["dir"] / "f.jsonl"
    res = cli(
        "-q", "text", "detect", files["src"], "--no-ner", "--out", out,
        "--pattern", r"badge=\bEMP-\d{6}\b",
        "--deny-list", files["deny"],
        "--allow-list", files["allow"],
    )  # fmt: skip
    assert res.code == 0, res.err
    assert _spans(out) == [
        ("Acme Widgets", "DENY_LIST"),
        ("Project Falcon", "DENY_LIST"),
        ("EMP-123456", "BADGE"),
    ]


def test_detect_matches_the_policy_code_path(cli, files) -> None:  # type: ignore[no-untyped-def]
    # the same fields given in a policy's text config find the same spans
    out = files["dir"] / "f.jsonl"
    args = ["--pattern", r"BADGE=\bEMP-\d{6}\b", "--deny-list", files["deny"]]
    assert cli("-q", "text", "detect", files["src"], "--no-ner", "--out", out, *args).code == 0
    cfg = TextConfig(
        ner=False,
        patterns=({"name": "badge", "entity": "BADGE", "regex": r"\bEMP-\d{6}\b"},),
        deny_list=tuple(TERMS),
    )
    policy = [
        (TEXT[f.start : f.end], f.entity_type) for f in TextAnalyzer.from_config(cfg).analyze(TEXT)
    ]
    assert _spans(out) == policy


def test_redact_takes_patterns_and_lists(cli, files) -> None:  # type: ignore[no-untyped-def]
    out = files["dir"] / "out.jsonl"
    res = cli(
        "redact", files["src"], "--no-ner", "--out", out, "--json",
        "--pattern", r"BADGE=\bEMP-\d{6}\b", "--pattern", r"ROOM=\bR\d{3}\b",
        "--deny-list", files["deny"], "--allow-list", files["allow"],
    )  # fmt: skip
    assert res.code == 0, res.err
    assert json.loads(res.out)["replaced"] == {"BADGE": 1, "DENY_LIST": 2}
    assert json.loads(out.read_text())["full_text"] == (
        "Jane met <DENY_LIST> about <DENY_LIST>; badge <BADGE>, mail jo@example.com."
    )


def _assert_refused(res, option: str, *secrets: str) -> None:  # type: ignore[no-untyped-def]
    assert res.code == 2
    assert option in res.err
    for s in secrets:
        assert s not in res.err and s not in res.out and s not in res.logs


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("BADGE=((?:Hunter2)+)+", "nested quantifiers"),
        ("BADGE=(Hunter2|Hunter2)*", "alternatives"),
        ("BADGE=(.*Hunter2.*)*", "nested quantifiers"),
        ("BADGE=(Hunter2\\w+\\s?)*x", "nested quantifiers"),
        ("BADGE=Hunter2-(\\d", "invalid regular expression"),
        ("Hunter2-\\d+", "NAME=REGEX"),
        ("9X=Hunter2", "NAME=REGEX"),
        ("BADGE=", "NAME=REGEX"),
    ],
)
@pytest.mark.parametrize("command", [("text", "detect"), ("redact",)])
def test_bad_pattern_exits_2_naming_the_option(cli, files, pattern, why, command) -> None:  # type: ignore[no-untyped-def]
    out = files["dir"] / "o.jsonl"
    res = cli(*command, files["src"], "--no-ner", "--out", out, "--pattern", pattern)
    _assert_refused(res, "--pattern", "Hunter2")
    assert why in res.err
    assert "hint" in res.err  # says how to fix it
    assert not out.exists()


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "holds no term"),
        (b"\n  \n\t\n", "holds no term"),
        (b"Acme\x00Widgets\nsecret-term\n", "binary"),
        (b"\xff\xfesecret-term\x81\n", "not UTF-8"),
    ],
)
@pytest.mark.parametrize("option", ["--deny-list", "--allow-list"])
def test_bad_list_exits_2_naming_the_option(cli, files, content, why, option) -> None:  # type: ignore[no-untyped-def]
    bad = files["dir"] / "list.txt"
    bad.write_bytes(content)
    out = files["dir"] / "o.jsonl"
    res = cli("text", "detect", files["src"], "--no-ner", "--out", out, option, bad)
    _assert_refused(res, option, "secret-term", "Widgets")
    assert why in res.err
    assert not out.exists()


def test_missing_list_file_exits_2(cli, files) -> None:  # type: ignore[no-untyped-def]
    res = cli("redact", files["src"], "--no-ner", "--out", files["dir"] / "o.jsonl",
              "--deny-list", files["dir"] / "nope.txt")  # fmt: skip
    assert res.code == 2 and "--deny-list" in res.err


def test_policy_patterns_share_the_redos_check() -> None:
    from veil import PolicyError

    cfg = TextConfig(ner=False, patterns=({"name": "x", "entity": "X", "regex": "(a+)+"},))
    with pytest.raises(PolicyError, match=r"text\.patterns\[0\].*nested quantifiers"):
        TextAnalyzer.from_config(cfg)
