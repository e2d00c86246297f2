"""The release leak scan: original identifier values searched in every released column."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from veil import PolicyError, PrivacyRequirementNotMet, run_policy
from veil.audit import MIN_LENGTH, ReleasedTable, identifier_terms, name_like, scan_release
from veil.audit._leak_scan import released_tables
from veil.policy import parse_policy

EMAIL_A = "quillon.vantrebb@corp.example"
EMAIL_B = "ysolde.marrick@lab.test"


def _policy(tmp_path: Path, columns: dict[str, Any] | None = None, **privacy: Any) -> Any:
    cols: dict[str, Any] = {
        "name": {"role": "identifier", "action": "drop"},
        "email": {"role": "identifier", "action": "drop"},
        "race": {"role": "insensitive"},
        "notes": {"role": "text", "text": {"ner": False}},
    }
    cols.update(columns or {})
    doc: dict[str, Any] = {
        "data": {"path": "in.csv"},
        "columns": cols,
        "output": {"path": "out", "format": "csv"},
    }
    if privacy:
        doc["privacy"] = privacy
    return parse_policy(doc, base_dir=tmp_path)


def _frame(notes: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "name": ["Quillon Vantrebb", "Ysolde White Marrick", "Al Bo"][: len(notes)],
            "email": [EMAIL_A, EMAIL_B, "ab@x.io"][: len(notes)],
            "race": ["White", "White", "Black"][: len(notes)],
            "notes": notes,
        }
    )


def _scan(policy: Any, original: pd.DataFrame, released: pd.DataFrame, **kw: Any) -> Any:
    return scan_release(
        policy, original, [ReleasedTable("", released, np.arange(len(released)))], **kw
    )


def _release(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=["name", "email"])


def test_same_row_value_is_a_hit(tmp_path: Path) -> None:
    df = _frame([f"write to {EMAIL_A} today", "nothing here", "x"])
    scan = _scan(_policy(tmp_path), df, _release(df))
    assert scan.by_column == {"email": {"notes": 1}}
    assert (scan.same_row, scan.cross_row, scan.rows_with_hits) == (1, 0, 1)


def test_value_of_another_row_is_a_cross_row_hit(tmp_path: Path) -> None:
    df = _frame(["nothing here", f"cc {EMAIL_A}.", "x"])
    scan = _scan(_policy(tmp_path), df, _release(df))
    assert scan.by_column == {"email": {"notes": 1}}
    assert (scan.same_row, scan.cross_row) == (0, 1)


def test_whole_words_only(tmp_path: Path) -> None:
    # the name is inside a longer word and the address inside a longer one: no hit
    df = _frame(["Vantrebbson called", f"x{EMAIL_A}", "x"])
    scan = _scan(_policy(tmp_path), df, _release(df))
    assert scan.hits == 0


def test_name_parts_and_full_name_in_text(tmp_path: Path) -> None:
    df = _frame(["customer Quillon satisfied", "met Quillon Vantrebb and Marrick", "x"])
    scan = _scan(_policy(tmp_path), df, _release(df))
    # row 0: its own first name; row 1: row 0's full name (cross) and its own surname (same)
    assert scan.by_column == {"name": {"notes": 2}}
    assert scan.same_row == 2  # a cell with a same-row term counts as same row
    assert scan.name_parts_scanned >= 4


def test_name_parts_not_searched_in_category_columns(tmp_path: Path) -> None:
    # "White" is a surname of row 1 and a label of race in rows 0 and 1: not a leak
    df = _frame(["a", "b", "c"])
    scan = _scan(_policy(tmp_path), df, _release(df))
    assert scan.hits == 0


def test_short_values_are_skipped_and_counted(tmp_path: Path) -> None:
    df = _frame(["Al Bo ab", "a", "Al Bo"])
    policy = _policy(tmp_path, {"code": {"role": "identifier", "action": "drop"}})
    df["code"] = ["12", "7", "x1"]
    df.loc[1, "notes"] = "code 12 and 7"
    scan = _scan(policy, df, _release(df).drop(columns=["code"]))
    assert scan.skipped_short == 3  # the three codes; "Al Bo" is 5 characters
    assert scan.by_column == {"name": {"notes": 2}}  # "Al Bo" in rows 0 and 2, not the codes
    assert MIN_LENGTH == 4


def test_short_numbers_are_searched_in_their_own_row_only(tmp_path: Path) -> None:
    policy = _policy(tmp_path, {"code": {"role": "identifier", "action": "drop"}})
    df = _frame(["order 4471 shipped", "refund for order 4471", "x"])
    df["code"] = ["9999", "4471", "1234"]
    scan = _scan(policy, df, _release(df).drop(columns=["code"]))
    # row 1 holds its own code; row 0's "4471" is another row's code but a short number
    assert scan.by_column == {"code": {"notes": 1}}
    assert (scan.same_row, scan.cross_row, scan.same_row_only) == (1, 0, 3)


def test_exact_cell_in_a_category_column(tmp_path: Path) -> None:
    df = _frame(["a", "b", "c"])
    df["contact"] = [EMAIL_B, "none", "none"]  # row 1's address, released in row 0
    policy = _policy(tmp_path, {"contact": {"role": "insensitive"}})
    scan = _scan(policy, df, _release(df))
    assert scan.by_column == {"email": {"contact": 1}}
    assert scan.cross_row == 1


def test_own_column_rules(tmp_path: Path) -> None:
    cols = {
        "email": {"role": "identifier", "transform": {"type": "mask", "keep_last": 40}},
        "name": {"role": "identifier", "transform": {"type": "tokenize", "alphabet": "letters"}},
    }
    policy = _policy(tmp_path, cols)
    df = _frame(["a", "b", "c"])
    rel = df.copy()
    # a mask that kept everything: the same row's value, released as is
    # a token that happens to equal another row's name: a coincidence of the domain
    rel["name"] = ["Ysolde White Marrick", "Qwe Rty", "Zz Yy"]
    scan = _scan(policy, df, rel)
    assert scan.by_column == {"email": {"email": 3}}
    assert (scan.same_row, scan.cross_row) == (3, 0)


def test_synthetic_table_is_scanned(tmp_path: Path) -> None:
    df = _frame(["a", "b", "c"])
    csv = pd.DataFrame({"notes": ["fine", f"mail {EMAIL_B}"]}).to_csv(index=False)
    tables = released_tables(_release(df), df, {"synthetic.csv": csv, "stats.json": "{}"})
    scan = scan_release(_policy(tmp_path), df, tables)
    assert scan.by_column == {"email": {"synthetic.csv/notes": 1}}
    assert scan.cross_row == 1 and scan.tables == ["release", "synthetic.csv"]


def test_allowed_pairs_are_counted_not_failing(tmp_path: Path) -> None:
    df = _frame([f"write to {EMAIL_A}", "b", "c"])
    scan = _scan(_policy(tmp_path), df, _release(df), allow=[("email", "notes")])
    assert scan.hits == 1 and scan.allowed_hits == 1 and scan.failing == {}
    assert scan.to_dict()["failing"] == 0


def test_report_section_holds_no_value(tmp_path: Path) -> None:
    df = _frame([f"write to {EMAIL_A}", "Quillon Vantrebb", "c"])
    section = _scan(_policy(tmp_path), df, _release(df)).to_dict()
    text = json.dumps(section)
    for value in (EMAIL_A, "Quillon", "Vantrebb", "corp.example"):
        assert value not in text
    assert section["hits"] == 2 and section["by_column"] == {
        "email": {"notes": 1},
        "name": {"notes": 1},
    }


def test_terms_and_name_columns() -> None:
    assert identifier_terms("Ann Lee", name=True) == [
        ("Ann Lee", "value"),
        ("Ann", "part"),
        ("Lee", "part"),
    ]
    assert identifier_terms("(555) 123-4567", name=False) == [("555) 123-4567", "value")]
    assert name_like("full_name", pd.Series(["x1"]))
    assert name_like("who", pd.Series(["Jane Roe", "Max Mustermann", "Li Wei"]))
    assert not name_like("email", pd.Series(["a@b.io", "c@d.io"]))


def test_fifty_thousand_rows_in_seconds(tmp_path: Path) -> None:
    n = 50_000
    rng = np.random.default_rng(0)
    first = np.array([f"Given{i:03d}" for i in range(400)])
    last = np.array([f"Family{i:03d}" for i in range(600)])
    names = [f"{a} {b}" for a, b in zip(rng.choice(first, n), rng.choice(last, n), strict=True)]
    emails = [f"user{i}@corp.example" for i in range(n)]
    notes = [f"Visit {i} went fine; follow up on day {i % 30} with the clinic." for i in range(n)]
    notes[123] = f"forward to {emails[4567]}"  # one cross-row leak
    df = pd.DataFrame({"name": names, "email": emails, "race": "White", "notes": notes})
    t0 = time.perf_counter()
    scan = _scan(_policy(tmp_path), df, _release(df))
    seconds = time.perf_counter() - t0
    assert scan.by_column == {"email": {"notes": 1}} and scan.cross_row == 1
    assert seconds < 60  # a few seconds on a quiet machine; generous for a loaded CI


# ------------------------------------------------------------------ in the pipeline


def _write(tmp_path: Path, df: pd.DataFrame) -> None:
    df.to_csv(tmp_path / "in.csv", index=False)


def test_run_fails_with_exit_4_and_writes_nothing(tmp_path: Path, cli: Any) -> None:
    # row 1's note names row 0's person in full (no recognizer knows the name) and copies
    # row 0's address into a released column
    df = _frame(["all good", "ask Quillon Vantrebb about it", "x"])
    df["contact"] = ["none", EMAIL_A, "none"]
    _write(tmp_path, df)
    (tmp_path / "policy.yaml").write_text(
        "data: {path: in.csv}\n"
        "columns:\n"
        "  name: {role: identifier, action: drop}\n"
        "  email: {role: identifier, action: drop}\n"
        "  race: {role: insensitive}\n"
        "  contact: {role: insensitive}\n"
        "  notes: {role: text, text: {ner: false}}\n"
        "output: {path: out, format: csv}\n",
        encoding="utf-8",
    )
    result = cli("run", tmp_path / "policy.yaml")
    assert result.code == 4
    said = result.out + result.err
    assert "name -> notes" in said and "email -> contact" in said
    for value in (EMAIL_A, "Quillon", "Vantrebb"):
        assert value not in said and value not in result.logs
    assert not (tmp_path / "out").exists()


def test_run_policy_raises_and_allow_list_lets_it_through(tmp_path: Path) -> None:
    df = _frame(["all good", "ask Quillon Vantrebb about it", "x"])
    policy = _policy(tmp_path)
    with pytest.raises(PrivacyRequirementNotMet) as err:
        run_policy(policy, data=df, out_dir=tmp_path / "out")
    assert "Quillon" not in str(err.value) and not (tmp_path / "out").exists()
    allowed = _policy(tmp_path, leak_scan={"allow": [{"source": "name", "released": "notes"}]})
    result = run_policy(allowed, data=df, out_dir=tmp_path / "out")
    section = result.report["leak_scan"]
    assert section["hits"] == 1 and section["allowed"] == 1 and section["failing"] == 0
    saved = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert saved["leak_scan"]["by_column"] == {"name": {"notes": 1}}
    assert "leak-scan" in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")


def test_text_stage_redacts_the_rows_own_identifiers(tmp_path: Path) -> None:
    df = _frame(
        [
            "customer Quillon satisfied, reach Vantrebb at the desk",
            f"Ysolde wrote from {EMAIL_B}",
            "x",
        ]
    )
    result = run_policy(_policy(tmp_path), data=df, write=False)
    notes = result.data["notes"].tolist()
    assert notes[0] == "customer <PERSON> satisfied, reach <PERSON> at the desk"
    assert notes[1] == "<PERSON> wrote from <EMAIL_ADDRESS>"
    assert result.report["leak_scan"]["hits"] == 0


def test_allow_names_an_identifier(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="leak_scan"):
        _policy(tmp_path, leak_scan={"allow": [{"source": "race", "released": "notes"}]})
    with pytest.raises(PolicyError):
        _policy(tmp_path, leak_scan={"allow": [{"source": "name", "column": "notes"}]})


def test_repeated_index_labels(tmp_path: Path) -> None:
    df = _frame([f"write to {EMAIL_A}", "Ysolde was here", "c"])
    df.index = pd.Index([5, 5, 6])
    scan = scan_release(_policy(tmp_path), df, released_tables(_release(df), df, {}))
    assert scan.by_column == {"email": {"notes": 1}, "name": {"notes": 1}}
    assert (scan.same_row, scan.cross_row) == (2, 0)


def test_veil_anonymize_does_not_release_unredacted_text(tmp_path: Path) -> None:
    # `veil anonymize` runs no text stage: notes that name their row fail the scan (exit 4)
    from veil.tabular._anonymize_stage import run_anonymize

    df = pd.DataFrame(
        {
            "name": [f"Quillon Vantrebb{i}" for i in range(6)],
            "age": [30, 31, 32, 40, 41, 42],
            "notes": [f"called Quillon Vantrebb{i}" for i in range(6)],
        }
    )
    _write(tmp_path, df)
    policy = parse_policy(
        {
            "data": {"path": "in.csv"},
            "columns": {
                "name": {"role": "identifier", "action": "drop"},
                "age": {"role": "quasi_identifier", "hierarchy": {"type": "auto"}},
                "notes": {"role": "text"},
            },
            "privacy": {"k_anonymity": {"k": 2}},
            "output": {"path": "out", "format": "csv"},
        },
        base_dir=tmp_path,
    )
    with pytest.raises(PrivacyRequirementNotMet, match="name -> notes"):
        run_anonymize(policy, out_dir=tmp_path / "out")
    assert not (tmp_path / "out").exists()
