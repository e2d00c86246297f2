"""``veil redact`` and ``veil text ...`` (regex-only, so no model is loaded here)."""

import json
import warnings

import pytest

with warnings.catch_warnings():
    # typer imports names that click deprecates (click.utils.get_binary_stream): not ours to fix
    warnings.simplefilter("ignore", DeprecationWarning)
    from veil.cli._app import main

SECRET = "Jane Roe 536-22-1234 jo@example.com"


def test_redact_jsonl(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": 1, "notes": "SSN 536-22-1234, mail jo@example.com"}) + "\n")
    out = tmp_path / "out.jsonl"
    rc = main(
        [
            "redact",
            str(src),
            "--column",
            "notes",
            "--no-ner",
            "--operator",
            "placeholder",
            "--option",
            "numbered=true",
            "--out",
            str(out),
            "--json",
        ]
    )
    assert rc == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["records"] == 1 and summary["replaced"] == {"EMAIL_ADDRESS": 1, "US_SSN": 1}
    assert json.loads(out.read_text())["notes"] == "SSN <US_SSN_1>, mail <EMAIL_ADDRESS_1>"


def test_detect_writes_one_line_per_record(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "gold.jsonl"
    src.write_text(
        "".join(
            json.dumps({"full_text": t, "spans": []}) + "\n"
            for t in ["mail jo@example.com", "", "nothing"]
        )
    )
    out = tmp_path / "findings.jsonl"
    assert main(["-q", "text", "detect", str(src), "--no-ner", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["index"] for r in rows] == [0, 1, 2]
    assert rows[0]["findings"] == [
        {"start": 5, "end": 19, "entity_type": "EMAIL_ADDRESS", "score": 1.0, "recognizer": "email"}
    ]
    assert rows[1]["findings"] == rows[2]["findings"] == []


def test_evaluate_json_with_predictions(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    gold = tmp_path / "gold.json"
    gold.write_text(
        json.dumps(
            [
                {
                    "full_text": "mail jo@example.com",
                    "spans": [{"entity_type": "EMAIL", "start_position": 5, "end_position": 19}],
                }
            ]
        )
    )
    lm = tmp_path / "map.json"
    lm.write_text(json.dumps({"EMAIL": "EMAIL_ADDRESS"}))
    assert (
        main(
            ["text", "evaluate", "--gold", str(gold), "--label-map", str(lm), "--no-ner", "--json"]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["micro"]["exact"]["f1"] == 1.0
    assert report["per_type"]["EMAIL_ADDRESS"]["overlap"]["support"] == 1


def test_unknown_entity_is_a_usage_error(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.txt"
    src.write_text(SECRET + "\n")
    rc = main(
        [
            "redact",
            str(src),
            "--entities",
            "PERSON,NAME",
            "--no-ner",
            "--out",
            str(tmp_path / "out.txt"),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2 and "NAME" in err and "US_SSN" in err
    assert not (tmp_path / "out.txt").exists()


def test_reversible_operator_without_key(
    tmp_path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("VEIL_ENC_KEY", raising=False)
    src = tmp_path / "in.txt"
    src.write_text(SECRET + "\n")
    rc = main(
        ["redact", str(src), "--operator", "encrypt", "--no-ner", "--out", str(tmp_path / "o.txt")]
    )
    err = capsys.readouterr().err
    assert rc == 2 and "VEIL_ENC_KEY" in err
    assert not (tmp_path / "o.txt").exists()


def test_invalid_utf8_fails_cleanly(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.txt"
    src.write_bytes(b"ok line\nJos\xe9 536-22-1234\n")
    rc = main(["redact", str(src), "--no-ner", "--out", str(tmp_path / "o.txt")])
    captured = capsys.readouterr()
    assert rc == 2 and "line 2" in captured.err
    assert "536-22-1234" not in captured.err + captured.out
    assert not (tmp_path / "o.txt").exists()


def test_corpus_command(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "c.jsonl"
    assert main(["-q", "text", "corpus", "--n", "5", "--seed", "1", "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 5


def test_corpus_command_notes(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "notes.jsonl"
    args = ["-q", "text", "corpus", "--kind", "notes", "--n", "4", "--seed", "2"]
    assert main([*args, "--out", str(out)]) == 0
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(recs) == 4 and all("\n" in r["full_text"] for r in recs)
    assert main([*args[:3], "--kind", "poems", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "poems" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


def test_reveal_with_a_wrong_vault_key_refuses_and_prints_nothing(
    tmp_path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("sqlalchemy")
    pytest.importorskip("cryptography")
    from veil.text import TokenVault

    right, wrong = "6d1f3b0a9c2e4857b1d07e3a5f9c2b64", "e0b94c71a3d25f86c9a1074be3d58f2a"
    url = f"sqlite:///{tmp_path / 'vault.db'}"
    vault = TokenVault(url, bytes.fromhex(right))
    token = vault.tokenize("Jane Roe", "PERSON")
    vault.close()
    args = ["text", "reveal", token, "--vault", url, "--purpose", "DSAR 7"]
    monkeypatch.setenv("VEIL_VAULT_KEY", wrong)
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "different key" in captured.err
    assert "Jane" not in captured.err and wrong not in captured.err
    monkeypatch.setenv("VEIL_VAULT_KEY", "00" * 16)  # weak: refused before the vault opens
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "veil keygen" in captured.err
    monkeypatch.setenv("VEIL_VAULT_KEY", right)
    assert main(args) == 0
    assert capsys.readouterr().out.strip() == "Jane Roe"
