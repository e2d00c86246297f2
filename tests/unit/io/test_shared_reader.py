"""The shared table reader, through every command that reads a user table.

A headerless CSV is refused (exit 2, naming the file) by every command, and none of its
first record's values reaches stdout, stderr or the logs; ``--no-header`` reads it under
generated names; the separator is sniffed, ``--separator`` and ``--sep`` mean the same
everywhere, and a one-column read is warned about.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from veil import InputError, read_table
from veil.io._sniff import first_line_looks_like_data, sniff_separator

pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)

# the first record of a file without its header line; each value must stay out of the output
FIRST = ["Ottilie Brennecke", "47", "ottilie.brennecke@posteo.de", "10115", "1977-03-09"]
ROWS = [
    FIRST,
    ["Jaroslav Kubat", "52", "jkubat@seznam.cz", "60311", "1972-11-23"],
    ["Ines Albuquerque", "38", "ines.alb@sapo.pt", "80331", "1986-05-30"],
    ["Pekka Lindqvist", "61", "pekka.l@kolumbus.fi", "20095", "1963-01-17"],
]
HEADER = ["name", "age", "email", "zip", "birth_date"]


def _csv(path: Path, rows: list[list[str]], sep: str = ",") -> Path:
    path.write_text("".join(sep.join(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _no_value(text: str) -> None:
    leaked = [v for v in FIRST if v in text]
    assert not leaked, f"first-record values in the output: {len(leaked)}"


# every command that reads a user table, as a user types it (DATA is the table)
COMMANDS = {
    "policy init": ["policy", "init", "DATA"],
    "risk": ["risk", "DATA", "--qi", "age"],
    "synth fit": ["synth", "fit", "DATA", "--out", "OUT/m.veil", "--method", "copula"],
    "dp query": ["dp", "query", "DATA", "-q", "count(epsilon=0.1)", "--ledger", "LEDGER"],
    "budget init": [
        "budget",
        "init",
        "d",
        "--epsilon",
        "1",
        "--data",
        "DATA",
        "--ledger",
        "LEDGER",
    ],
    "synth evaluate": ["synth", "evaluate", "DATA", "DATA"],
    "train": ["train", "DATA", "--target", "age", "--no-ledger", "--epsilon", "1"],
}


def _args(template: list[str], data: Path, tmp_path: Path) -> list[str]:
    ledger = f"sqlite:///{tmp_path / 'ledger.db'}"
    out = []
    for a in template:
        a = a.replace("OUT", str(tmp_path)).replace("LEDGER", ledger)
        out.append(str(data) if a == "DATA" else a)
    return out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_refuses_a_headerless_csv_without_quoting_it(
    cli, tmp_path: Path, command: str
) -> None:
    data = _csv(tmp_path / "people.csv", ROWS)
    r = cli(*_args(COMMANDS[command], data, tmp_path))
    assert r.code == 2, r.err
    assert "first line looks like data" in r.err and "people.csv" in r.err
    assert "--no-header" in r.err
    _no_value(r.out + r.err + r.logs)
    assert not (tmp_path / "m.veil").exists()


@pytest.mark.parametrize("flag", ["--separator", "--sep"])
@pytest.mark.parametrize("command", ["policy init", "risk", "dp query", "budget init"])
def test_every_command_takes_separator_and_sep(
    cli, tmp_path: Path, command: str, flag: str
) -> None:
    data = _csv(tmp_path / "people.csv", [HEADER, *ROWS], sep="|")
    if command == "dp query":  # a budget to spend from
        ledger = f"sqlite:///{tmp_path / 'ledger.db'}"
        assert cli("budget", "init", "people", "--epsilon", "1", "--ledger", ledger).code == 0
    r = cli(*_args(COMMANDS[command], data, tmp_path), flag, "|")
    assert r.code == 0, r.err
    assert "one column" not in r.err + r.logs


def test_policy_init_no_header_drafts_generated_names_and_records_it(cli, tmp_path: Path) -> None:
    data = _csv(tmp_path / "people.csv", ROWS, sep=";")
    r = cli("policy", "init", data, "--no-header", "--out", tmp_path / "p.yaml")
    assert r.code == 0, r.err
    draft = (tmp_path / "p.yaml").read_text()
    assert "col_1:" in draft and "col_5:" in draft and "header: false" in draft
    assert 'separator: ";"' in draft
    _no_value(draft + r.out + r.err)
    # the draft reads back as the same table
    from veil import load_policy

    policy = load_policy(tmp_path / "p.yaml")
    df = read_table(policy.data, base_dir=policy.base_dir)
    assert list(df.columns) == [f"col_{i}" for i in range(1, 6)] and len(df) == len(ROWS)


def test_policy_init_drafts_a_tab_file_that_loads(cli, tmp_path: Path) -> None:
    # the draft's separator once read back as a backslash and a 't' (two characters)
    data = _csv(tmp_path / "people.tsv", [HEADER, *ROWS], sep="\t")
    r = cli("policy", "init", data, "--out", tmp_path / "p.yaml")
    assert r.code == 0, r.err
    from veil import load_policy

    assert load_policy(tmp_path / "p.yaml").data.separator == "\t"


def test_policy_init_sniffs_a_semicolon_file(cli, tmp_path: Path) -> None:
    # before: a one-column policy named after the whole header line, without a word
    data = _csv(tmp_path / "people.csv", [HEADER, *ROWS], sep=";")
    r = cli("policy", "init", data, "--json")
    assert r.code == 0, r.err
    import json

    assert list(json.loads(r.out)["columns"]) == HEADER


def test_a_one_column_read_is_warned_about(cli, tmp_path: Path) -> None:
    data = _csv(tmp_path / "people.csv", [HEADER, *ROWS], sep=";")
    r = cli("policy", "init", data, "--separator", ",")
    assert r.code == 0
    assert "one column" in r.logs and "--separator" in r.logs


def test_one_column_warning_from_the_library(tmp_path: Path, caplog) -> None:
    data = _csv(tmp_path / "t.csv", [["a;b"], ["1;2"]])
    with caplog.at_level(logging.WARNING, logger="veil.io._tables"):
        df = read_table(data, separator=",")
    assert df.shape == (1, 1) and "one column" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="veil.io._tables"):
        assert read_table(data).shape == (1, 2)  # sniffed
    assert "one column" not in caplog.text


def test_header_flag_accepts_a_numeric_header(cli, tmp_path: Path) -> None:
    # year columns look like a record; --header says the first line is the header
    data = _csv(tmp_path / "t.csv", [["region", "2019", "2020"], ["a", "1", "2"], ["b", "3", "4"]])
    assert cli("risk", data, "--qi", "region").code == 2
    r = cli("risk", data, "--qi", "region", "--header", "--json")
    assert r.code == 0, r.err


def test_separator_sniffing_cases(tmp_path: Path) -> None:
    # decimal commas in a ';' file: the commas split records but not the header
    p = _csv(tmp_path / "a.csv", [["age", "income"], ["34", "1,5"], ["51", "2,25"]], sep=";")
    assert sniff_separator(p) == ";"
    assert sniff_separator(_csv(tmp_path / "b.tsv", [["only"], ["x"]])) == "\t"
    assert sniff_separator(_csv(tmp_path / "c.csv", [["only"], ["x"]])) == ","
    # a quoted field holding the other separators
    q = tmp_path / "d.csv"
    q.write_text('a|b\n"x;y,z"|1\n"p,q;r"|2\n', encoding="utf-8")
    assert sniff_separator(q) == "|"


@pytest.mark.parametrize(
    ("first", "why"),
    [
        (["x", "42"], "number over a column of numbers"),
        (["x", "a@b.example"], "e-mail"),
        (["x", "2021-07-04"], "date"),
        (["x", "$55076.06"], "number over a column of numbers"),
        (["x", "078-05-1120"], "phone, ID or card"),
        (["x", "M"], "recurs"),
    ],
)
def test_headerless_reasons_never_quote_the_value(first: list[str], why: str) -> None:
    rows = [first, ["y", "7"], ["z", "M" if first[1] == "M" else "8"], ["w", "M"]]
    reason = first_line_looks_like_data(rows)
    assert reason is not None and why in reason and first[1] not in reason


def test_ordinary_headers_are_accepted() -> None:
    rows = [["id", "e-mail address", "Amount ($)", "% change", "2019 total"], ["1", "a@b.c"]]
    assert first_line_looks_like_data(rows) is None
    # a survey export: long questions over short answers
    question = "How satisfied were you with the support you received on a scale from 1 to 10?"
    assert first_line_looks_like_data([["id", question], ["1", "7"], ["2", "9"]]) is None


def test_a_headerless_text_file_is_refused() -> None:
    notes = [
        "Patient reports chest pain since Tuesday, referred by Dr. Haldane for a stress test.",
        "Follow-up call scheduled with the family; discharge summary sent to the GP in Leeds.",
        "Allergic to penicillin; the rash resolved after two days, no further action required.",
    ]
    reason = first_line_looks_like_data([[n] for n in notes])
    assert reason is not None and "longer than" in reason and "Haldane" not in reason


def test_no_header_on_parquet_is_ignored(tmp_path: Path) -> None:
    import pandas as pd

    p = tmp_path / "t.parquet"
    pd.DataFrame({"a": [1, 2]}).to_parquet(p)
    assert list(read_table(p).columns) == ["a"]


def test_library_refusal_names_the_file(tmp_path: Path) -> None:
    data = _csv(tmp_path / "people.csv", ROWS)
    with pytest.raises(InputError) as info:
        read_table(data)
    assert "people.csv" in str(info.value)
    _no_value(str(info.value))


def _run_policy(tmp_path: Path, header: str = "") -> Path:
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "version: 1\n"
        f"data: {{path: people.csv{header}}}\n"
        "columns:\n"
        "  col_1: {role: identifier, action: drop}\n"
        "  col_2: {role: insensitive}\n"
        "  col_3: {role: identifier, action: drop}\n"
        "  col_4: {role: insensitive}\n"
        "  col_5: {role: insensitive}\n"
        "output: {format: csv, report: [json]}\n"
    )
    return policy


def test_veil_run_refuses_a_headerless_input_and_reads_it_with_header_false(
    cli, tmp_path: Path
) -> None:
    _csv(tmp_path / "people.csv", ROWS)
    r = cli("run", _run_policy(tmp_path), "--out", tmp_path / "out")
    assert r.code == 2 and "first line looks like data" in r.err and "data.header" in r.err
    _no_value(r.out + r.err + r.logs)
    assert not (tmp_path / "out").exists()
    r = cli("run", _run_policy(tmp_path, ", header: false"), "--out", tmp_path / "out")
    assert r.code == 0, r.err
    released = (tmp_path / "out" / "released.csv").read_text()
    assert released.splitlines()[0] == "col_2,col_4,col_5"
    assert len(released.splitlines()) == len(ROWS) + 1


def test_public_csv_files_bundled_with_scikit_learn(tmp_path: Path) -> None:
    """Files nobody here wrote: sklearn's iris and wine files start with a line of counts and
    class names (not column names) and are refused; linnerud's headers are accepted."""
    from importlib import resources

    data = resources.files("sklearn.datasets") / "data"
    for name in ("iris.csv", "wine_data.csv", "breast_cancer.csv"):
        path = Path(str(data / name))
        with pytest.raises(InputError, match="first line looks like data"):
            read_table(path)
        assert len(read_table(path, header=False)) >= 150
    # whitespace-separated, one of no supported separator: read as one column, with a warning
    exercise = Path(str(data / "linnerud_exercise.csv"))
    assert first_line_looks_like_data([["Chins Situps Jumps"], ["5 162 60"]]) is None
    assert list(read_table(exercise).columns) == ["Chins Situps Jumps"]
