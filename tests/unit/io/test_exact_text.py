"""Columns released as is keep their text exactly: leading zeros, decimals, exponents.

pandas parses ``01`` as 1 and ``3.50`` as 3.5; before the fix the release wrote ``1`` and
``3.5``. The values come from Faker (zip codes with leading zeros, prices with two
decimals), not written by hand.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import pytest
from faker import Faker

from veil import load_policy, run_policy

ROWS = 240


def _table(seed: int = 7) -> list[dict[str, str]]:
    fake = Faker("en_US")
    fake.seed_instance(seed)
    rows = []
    for i in range(ROWS):
        rows.append(
            {
                "age": str(fake.random_int(20, 69)),
                "sex": fake.random_element(["F", "M"]),
                # en_US zip codes start with 0 in the north-east: 00501, 02134 ...
                "zip": fake.zipcode() if i % 3 else "0" + fake.zipcode()[1:],
                "code": fake.random_element(["01", "02", "07", "10"]),
                "price": fake.pricetag().replace("$", "").replace(",", "")
                if i % 2
                else f"{fake.random_int(1, 9)}.50",
                "score": fake.random_element(["1e5", "2E3", "1.0", "0.10"]),
                "charge": fake.pricetag(),  # "$55,076.06": text, quoted in CSV
                "flag": fake.random_element(["true", "false"]),
            }
        )
    return rows


def _write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


AS_IS = ["zip", "code", "price", "score", "charge", "flag"]


def _policy(tmp_path: Path, data: str, fmt: str, *, anonymize: bool = True) -> Path:
    text = f"""\
data: {{path: {data}}}
columns:
  age: {{role: quasi_identifier, hierarchy: {{type: interval, width: 10}}}}
  sex: {{role: quasi_identifier, hierarchy: {{type: auto}}}}
  zip: {{role: insensitive}}
  code: {{role: insensitive}}
  price: {{role: sensitive}}
  score: {{role: insensitive}}
  charge: {{role: insensitive}}
  flag: {{role: insensitive}}
output: {{path: out_{fmt}, format: {fmt}, report: [json]}}
"""
    if anonymize:
        text += "privacy: {k_anonymity: {k: 3}}\n"
    else:
        text = text.replace(
            "{role: quasi_identifier, hierarchy: {type: interval, width: 10}}",
            "{role: insensitive}",
        ).replace("{role: quasi_identifier, hierarchy: {type: auto}}", "{role: insensitive}")
    path = tmp_path / f"policy_{fmt}.yaml"
    path.write_text(text)
    return path


def _released_text(path: Path) -> pd.DataFrame:
    if path.suffix == ".csv":
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    return pd.read_parquet(path)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_csv_input_columns_released_as_is_keep_their_text(tmp_path: Path, fmt: str) -> None:
    rows = _table()
    _write_csv(tmp_path / "t.csv", rows)
    result = run_policy(load_policy(_policy(tmp_path, "t.csv", fmt)))
    released = _released_text(result.outputs["table"])
    assert len(released) == ROWS
    for col in AS_IS:
        assert released[col].tolist() == [r[col] for r in rows], col
    # the generalized quasi-identifier is not given its input text back
    assert not released["age"].astype(str).isin([r["age"] for r in rows]).all()


def test_csv_output_is_byte_identical_in_the_columns_released_as_is(tmp_path: Path) -> None:
    rows = _table(seed=11)
    _write_csv(tmp_path / "t.csv", rows)
    result = run_policy(load_policy(_policy(tmp_path, "t.csv", "csv", anonymize=False)))
    written = result.outputs["table"].read_text()
    source = (tmp_path / "t.csv").read_text()
    assert written.replace("\r\n", "\n") == source.replace("\r\n", "\n")


def test_parquet_input_string_columns_keep_their_text(tmp_path: Path) -> None:
    rows = _table(seed=3)
    pd.DataFrame(rows).to_parquet(tmp_path / "t.parquet")
    for fmt in ("csv", "parquet"):
        result = run_policy(load_policy(_policy(tmp_path, "t.parquet", fmt)))
        released = _released_text(result.outputs["table"])
        for col in AS_IS:
            assert released[col].tolist() == [r[col] for r in rows], (fmt, col)


def test_a_changed_cell_keeps_what_the_stage_wrote() -> None:
    from veil.io._exact import restore_exact_text

    original = pd.DataFrame({"code": [1, 2, 7]})
    text = pd.DataFrame({"code": ["01", "02", "07"]})
    released = pd.DataFrame({"code": [1, 5, None]})
    out = restore_exact_text(released, original, text)
    assert out["code"].tolist() == ["01", "5.0", None]


def test_synthetic_table_writes_values_as_the_input_did(tmp_path: Path) -> None:
    rows = _table(seed=5)
    _write_csv(tmp_path / "t.csv", rows)
    (tmp_path / "s.yaml").write_text(
        """\
data: {path: t.csv}
columns:
  age: {role: insensitive}
  sex: {role: insensitive}
  zip: {role: identifier, action: drop}
  code: {role: insensitive}
  price: {role: insensitive}
  score: {role: insensitive}
  charge: {role: identifier, action: drop}
  flag: {role: insensitive}
synth: {method: copula, seed: 0}
output: {path: out, format: csv, report: [json]}
"""
    )
    result = run_policy(load_policy(tmp_path / "s.yaml"))
    synthetic = pd.read_csv(
        io.StringIO((result.outputs["artifact:synthetic.csv"]).read_text()), dtype=str
    )
    # few distinct texts: learnt as the categories written
    assert set(synthetic["code"]) <= {"01", "02", "07", "10"}
    assert set(synthetic["score"]) <= {"1e5", "2E3", "1.0", "0.10"}
    # many distinct prices, each with two decimals: learnt as numbers, written with two
    assert synthetic["price"].str.fullmatch(r"-?\d+\.\d\d").all()


def test_dp_synthesis_learns_numbers_and_only_formats_them() -> None:
    from veil.io._exact import format_like_input, text_forms_for_synthesis

    table = pd.DataFrame({"code": [1, 2, 7, 10] * 25, "price": [3.5, 2.0, 4.25, 10.0] * 25})
    text = pd.DataFrame(
        {"code": ["01", "02", "07", "10"] * 25, "price": ["3.50", "2.00", "4.25", "10.00"] * 25}
    )
    source, formats = text_forms_for_synthesis(table, text, as_categories=False)
    assert source["code"].tolist() == table["code"].tolist()  # still numbers
    assert formats == {"code": ("width", 2), "price": ("decimals", 2)}
    shown = format_like_input(pd.DataFrame({"code": [3.2, 12.0], "price": [1.0, 7.123]}), formats)
    assert shown["code"].tolist() == ["03", "12"] and shown["price"].tolist() == ["1.00", "7.12"]
    source, formats = text_forms_for_synthesis(table, text)  # not DP: the texts themselves
    assert source["code"].tolist() == text["code"].tolist() and formats == {}
