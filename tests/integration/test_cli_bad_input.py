"""The CLI on bad input: exit code, one line plus a hint, no traceback, no data, nothing written."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

CANARY = "CANARY-5d1f0a"
HMAC_HEX = "1791b37b9103c40c866e9b9baab2059a4f8062e54c06f170c2aeea735f1e4bb5"  # a random key: weak ones are refused

POLICY = """\
data: {{path: {data}}}
columns:
  email: {{role: identifier, action: drop}}
  name:  {{role: identifier, transform: {{type: hash, key_env: VEIL_TEST_HMAC_KEY}}}}
  age:   {{role: insensitive}}
  city:  {{role: insensitive}}
output: {{path: {out}, format: csv}}
"""


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "people.csv"
    pd.DataFrame(
        {
            "email": [f"{CANARY}@example.com", "b@example.com", "c@example.com"],
            "name": ["Ann", "Bo", "Cy"],
            "age": [31, 42, 57],
            "city": ["X", "Y", "Z"],
        }
    ).to_csv(path, index=False)
    return path


def policy_file(tmp_path: Path, data: Path, text: str = POLICY) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(text.format(data=data, out=tmp_path / "out"), encoding="utf-8")
    return path


def assert_clean_failure(result, code: int, tmp_path: Path) -> None:
    assert result.code == code, result.err
    lines = [line for line in result.err.strip().splitlines() if line.strip()]
    assert lines and lines[0].startswith("error:")
    assert all(line.startswith(("error:", "hint:")) for line in lines), result.err
    assert "Traceback" not in result.err
    assert CANARY not in result.err + result.out + result.logs
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_success_writes_release_and_report_without_the_canary(
    cli, tmp_path, table, monkeypatch
) -> None:
    monkeypatch.setenv("VEIL_TEST_HMAC_KEY", HMAC_HEX)
    result = cli("run", policy_file(tmp_path, table), "--json")
    assert result.code == 0, result.err
    out = tmp_path / "out"
    names = sorted(p.name for p in out.iterdir())
    assert names == ["key_check.json", "released.csv", "report.html", "report.json"]
    released = pd.read_csv(out / "released.csv")
    assert "email" not in released.columns
    assert list(released["age"]) == [31, 42, 57]
    assert not released["name"].isin(["Ann", "Bo", "Cy"]).any()
    for path in out.iterdir():
        assert CANARY not in path.read_text(encoding="utf-8")
    assert CANARY not in result.out + result.err + result.logs


def test_missing_data_file(cli, tmp_path, table, monkeypatch) -> None:
    monkeypatch.setenv("VEIL_TEST_HMAC_KEY", HMAC_HEX)
    result = cli("run", policy_file(tmp_path, tmp_path / "missing.csv"))
    assert_clean_failure(result, 2, tmp_path)
    assert "not found" in result.err


def test_malformed_csv(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("VEIL_TEST_HMAC_KEY", HMAC_HEX)
    bad = tmp_path / "bad.csv"
    bad.write_text(
        f"email,name,age,city\na@x.org,Ann,3,X\n{CANARY},Bo,4,Y,extra,more\n", encoding="utf-8"
    )
    result = cli("run", policy_file(tmp_path, bad))
    assert_clean_failure(result, 2, tmp_path)
    assert "line 3" in result.err


def test_unknown_key_in_policy_names_the_line(cli, tmp_path, table) -> None:
    text = POLICY.replace(
        "age:   {{role: insensitive}}", "age:   {{role: insensitive, hirarchy: 1}}"
    )
    result = cli("policy", "check", policy_file(tmp_path, table, text))
    assert_clean_failure(result, 2, tmp_path)
    assert "policy.yaml:5" in result.err and "hirarchy" in result.err


def test_unknown_column_in_policy(cli, tmp_path, table, monkeypatch) -> None:
    monkeypatch.setenv("VEIL_TEST_HMAC_KEY", HMAC_HEX)
    text = POLICY.replace("city:  {{role: insensitive}}", "town:  {{role: insensitive}}")
    result = cli("run", policy_file(tmp_path, table, text))
    assert_clean_failure(result, 2, tmp_path)
    assert "town" in result.err


def test_wrong_type_in_policy(cli, tmp_path, table) -> None:
    text = POLICY.replace("format: csv", "format: xlsx")
    result = cli("run", policy_file(tmp_path, table, text))
    assert_clean_failure(result, 2, tmp_path)
    assert "output.format" in result.err


def test_empty_table(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("VEIL_TEST_HMAC_KEY", HMAC_HEX)
    empty = tmp_path / "empty.csv"
    empty.write_text("email,name,age,city\n", encoding="utf-8")
    result = cli("run", policy_file(tmp_path, empty))
    assert_clean_failure(result, 2, tmp_path)
    assert "empty" in result.err


def test_transform_without_its_key(cli, tmp_path, table, monkeypatch) -> None:
    monkeypatch.delenv("VEIL_TEST_HMAC_KEY", raising=False)
    result = cli("run", policy_file(tmp_path, table))
    assert_clean_failure(result, 2, tmp_path)
    assert "VEIL_TEST_HMAC_KEY" in result.err


def test_debug_shows_the_traceback(cli, tmp_path, table, monkeypatch) -> None:
    monkeypatch.delenv("VEIL_TEST_HMAC_KEY", raising=False)
    result = cli("--debug", "run", policy_file(tmp_path, table))
    assert result.code == 2
    assert "Traceback" in result.err


def test_stage_not_available_fails_before_reading(cli, tmp_path, monkeypatch) -> None:
    from veil import pipeline

    monkeypatch.setitem(pipeline._STAGES, "dp", "veil.dp._no_such_stage:Nope")
    text = POLICY + "dp: {{dataset: people}}\n"
    result = cli("run", policy_file(tmp_path, tmp_path / "never-read.csv", text))
    assert_clean_failure(result, 2, tmp_path)
    assert "no 'dp' stage" in result.err


def test_policy_init_drafts_a_policy_that_checks(cli, tmp_path) -> None:
    data = tmp_path / "people.csv"
    pd.DataFrame(
        {
            "email": [f"user{i}@example.com" for i in range(50)],
            "age": [20 + i % 40 for i in range(50)],
            "sex": ["F", "M"] * 25,
            "diagnosis": ["flu", "cold", "none", "asthma", "flu"] * 10,
        }
    ).to_csv(data, index=False)
    draft = tmp_path / "draft.yaml"
    result = cli("policy", "init", data, "--out", draft, "--json")
    assert result.code == 0, result.err
    import json

    guesses = json.loads(result.out)["columns"]
    assert guesses["email"]["role"] == "identifier"
    assert guesses["age"]["role"] == "quasi_identifier"
    assert guesses["diagnosis"]["role"] == "sensitive"
    text = draft.read_text(encoding="utf-8")
    assert "user0@example.com" not in text  # no value copied into the draft
    checked = cli("policy", "check", draft, "--json")
    assert checked.code == 0, checked.err
    assert json.loads(checked.out)["valid"] is True


def test_policy_schema_prints_json(cli) -> None:
    import json

    result = cli("policy", "schema")
    assert result.code == 0
    assert "columns" in json.loads(result.out)["properties"]


SDC_POLICY = """\
data: {{path: {data}}}
columns:
  email: {{role: identifier, action: drop}}
  name:  {{role: identifier, action: drop}}
  age:   {{role: quasi_identifier}}
  city:  {{role: QI_CITY}}
privacy: {{k_anonymity: {{k: K}}}}
search: {{algorithm: ALGO}}
output: {{path: {out}, format: csv}}
"""


def sdc_policy(tmp_path: Path, data: Path, algo: str, k: int, *, city_qi: bool = False) -> Path:
    text = (
        SDC_POLICY.replace("ALGO", algo)
        .replace("K", str(k))
        .replace("QI_CITY", "quasi_identifier" if city_qi else "insensitive")
    )
    return policy_file(tmp_path, data, text)


def test_mdav_on_a_categorical_quasi_identifier(cli, tmp_path) -> None:
    data = tmp_path / "people.csv"
    pd.DataFrame(
        {
            "email": [f"u{i}@example.com" for i in range(6)],
            "name": list("ABCDEF"),
            "age": [31, 42, 57, 33, 41, 58],
            "city": ["X", "Y", CANARY, "X", "Y", "Z"],
        }
    ).to_csv(data, index=False)
    result = cli(
        "anonymize",
        sdc_policy(tmp_path, data, "mdav", 2, city_qi=True),
        "--out",
        tmp_path / "out",
        "--json",
    )
    assert_clean_failure(result, 2, tmp_path)
    assert "'city'" in result.err and "'age'" not in result.err
    assert "mondrian" in result.err


def test_mdav_on_stray_text_in_a_numeric_column(cli, tmp_path) -> None:
    data = tmp_path / "people.csv"
    pd.DataFrame(
        {
            "email": [f"u{i}@example.com" for i in range(4)],
            "name": list("ABCD"),
            "age": ["31", "42", CANARY, "40"],
            "city": list("XYZX"),
        }
    ).to_csv(data, index=False)
    result = cli("run", sdc_policy(tmp_path, data, "mdav", 2))
    assert_clean_failure(result, 2, tmp_path)
    assert "1 of 4 values are not numbers" in result.err


@pytest.mark.parametrize("algo", ["mdav", "cell_suppression"])
def test_sdc_k_larger_than_the_table(cli, tmp_path, table, algo) -> None:
    result = cli("anonymize", sdc_policy(tmp_path, table, algo, 5), "--out", tmp_path / "out")
    assert_clean_failure(result, 4, tmp_path)
    assert "larger than the table" in result.err


@pytest.mark.parametrize("algo", ["mdav", "cell_suppression"])
def test_sdc_empty_table(cli, tmp_path, algo) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("email,name,age,city\n", encoding="utf-8")
    result = cli("anonymize", sdc_policy(tmp_path, empty, algo, 2), "--out", tmp_path / "out")
    assert_clean_failure(result, 2, tmp_path)
    assert "empty" in result.err


def test_sdc_refuses_l_diversity_before_reading(cli, tmp_path) -> None:
    text = SDC_POLICY.replace(
        "{{k_anonymity: {{k: K}}}}", "{{k_anonymity: {{k: 2}}, l_diversity: {{l: 2}}}}"
    )
    text = text.replace("ALGO", "cell_suppression").replace("QI_CITY", "sensitive")
    result = cli("run", policy_file(tmp_path, tmp_path / "never-read.csv", text))
    assert_clean_failure(result, 2, tmp_path)
    assert "privacy.l_diversity" in result.err and "mondrian" in result.err


# --- found by a black-box audit of the text commands (2026-11-25) ---------------------------


def test_ragged_first_row_is_refused_not_shifted(cli, tmp_path, monkeypatch) -> None:
    """A first row with more fields than the header made pandas take the extra field as
    the index: every column shifted, and the real notes went out unredacted under 'id'."""
    bad = tmp_path / "ragged.csv"
    bad.write_text(
        f'id,notes\n1,"{CANARY} wrote jo@example.com",536-22-1234\n2,"hi",x\n', encoding="utf-8"
    )
    out = tmp_path / "out" / "r.csv"
    result = cli("redact", bad, "--column", "notes", "--no-ner", "--out", out)
    assert_clean_failure(result, 2, tmp_path)
    assert "more fields than the header" in result.err
    monkeypatch.setenv("VEIL_TEST_HMAC_KEY", HMAC_HEX)
    table = tmp_path / "people.csv"
    table.write_text(f"email,name,age,city\n{CANARY}@x.org,Ann,3,X,extra\n", encoding="utf-8")
    result = cli("run", policy_file(tmp_path, table))
    assert_clean_failure(result, 2, tmp_path)
    assert "more fields than the header" in result.err


def test_jsonl_field_that_no_record_has_is_an_error(cli, tmp_path) -> None:
    """A misspelt --column on JSONL read every record's text as missing and wrote the
    records back unredacted, exit 0."""
    src = tmp_path / "in.jsonl"
    src.write_text(f'{{"text": "{CANARY} at jo@example.com"}}\n', encoding="utf-8")
    for command in (["redact"], ["text", "detect"]):
        result = cli(
            *command, src, "--column", "txet", "--no-ner", "--out", tmp_path / "out" / "r.jsonl"
        )
        assert_clean_failure(result, 2, tmp_path)
        assert "no field 'txet'" in result.err and "text" in result.err


def test_a_header_row_that_is_data_is_not_echoed(cli, tmp_path) -> None:
    """Without a header row, the first record's values are the "column names": the hint
    listing them put data in the error."""
    src = tmp_path / "noheader.csv"
    src.write_text(f'1,"{CANARY} emailed jo@example.com"\n2,hello\n', encoding="utf-8")
    for command in (["redact"], ["text", "detect"]):
        result = cli(
            *command, src, "--column", "notes", "--no-ner", "--out", tmp_path / "out" / "r.csv"
        )
        assert_clean_failure(result, 2, tmp_path)
        assert "first line looks like data" in result.err  # refused by the shared reader


def test_detect_refuses_to_overwrite_its_input(cli, tmp_path) -> None:
    src = tmp_path / "same.jsonl"
    src.write_text('{"text": "mail jo@example.com"}\n', encoding="utf-8")
    before = src.read_bytes()
    result = cli("text", "detect", src, "--no-ner", "--out", tmp_path / "." / "same.jsonl")
    assert result.code == 2 and "overwrite the input" in result.err
    assert src.read_bytes() == before


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_termination_leaves_no_temporary_output(tmp_path, signame) -> None:
    """SIGTERM and SIGHUP unwind like Ctrl-C: the temporary output is removed, and the exit
    code says which signal (128 + its number). They once killed the process on the spot,
    leaving a half-written temporary file beside the output; Ctrl-C once exited without a
    word."""
    import os
    import signal
    import subprocess
    import sys
    import time

    src = tmp_path / "big.csv"
    row = '"Call Jo Roe on (617) 555-0199 or mail jo@example.com about the visit."\n'
    src.write_text("notes\n" + row * 200_000, encoding="utf-8")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "veil",
            "-q",
            "redact",
            str(src),
            "--column",
            "notes",
            "--no-ner",
            "--out",
            str(out_dir / "r.csv"),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # a job started in the background inherits an ignored SIGINT, which Python keeps
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not any(out_dir.iterdir()):  # wait until the temporary output is being written
        assert proc.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    sig = getattr(signal, signame)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    assert ("interrupted" if signame == "SIGINT" else "terminated") in err.decode()
    assert list(out_dir.iterdir()) == []


def test_unreadable_parquet_is_named_not_an_internal_error(cli, tmp_path) -> None:
    """Finishing the empty output re-read the failed input, and its pyarrow error masked
    the clear one."""
    src = tmp_path / "empty.parquet"
    src.write_bytes(b"")
    result = cli(
        "redact", src, "--column", "notes", "--no-ner", "--out", tmp_path / "out" / "r.parquet"
    )
    assert_clean_failure(result, 2, tmp_path)
    assert "not a readable Parquet file" in result.err


def test_output_that_is_a_folder_or_under_a_file(cli, tmp_path) -> None:
    """Both were internal errors (IsADirectoryError, FileExistsError). An existing folder is
    now a partitioned output: the one input file is written into it under its own name
    (beside the input is fine: a named file is never read as what sits next to it)."""
    src = tmp_path / "in.csv"
    src.write_text("notes\nmail jo@example.com\n", encoding="utf-8")
    (tmp_path / "dir.csv").mkdir()
    result = cli("redact", src, "--column", "notes", "--no-ner", "--out", tmp_path / "dir.csv")
    assert result.code == 0, result.err
    written = tmp_path / "dir.csv" / "in.csv"
    assert "jo@example.com" not in written.read_text(encoding="utf-8")
    result = cli("redact", src, "--column", "notes", "--no-ner", "--out", src / "x" / "r.csv")
    assert result.code == 2 and "is a file" in result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.csv", "in.csv"]
    assert [p.name for p in (tmp_path / "dir.csv").iterdir()] == ["in.csv"]


def _termination_handler_is_default(queue) -> None:
    import signal

    queue.put(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)


# JAX, when an earlier test imported it, warns at every fork; the child here runs no JAX
@pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")
def test_forked_workers_end_on_sigterm_as_workers_do() -> None:
    """The CLI turns SIGTERM into an unwinding exception; a forked pool worker must not (a
    pool's terminate() sends SIGTERM, and the parent owns the outputs)."""
    import multiprocessing
    import signal

    from veil.cli import _app

    old = _app._on_termination()
    try:
        assert signal.getsignal(signal.SIGTERM) is _app._raise_terminated
        ctx = multiprocessing.get_context("fork")
        queue = ctx.Queue()
        child = ctx.Process(target=_termination_handler_is_default, args=(queue,))
        child.start()
        assert queue.get(timeout=30) is True
        child.join(30)
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
