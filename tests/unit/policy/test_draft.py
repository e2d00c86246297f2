"""``veil policy init``: age-like columns and ARX hierarchy files (``--hierarchies``)."""

from __future__ import annotations

import json
import shutil
from importlib.resources import files
from pathlib import Path

import pandas as pd
import pytest
import yaml
from faker import Faker

from veil.policy._draft import draft_policy, find_hierarchy_files, guess_column

pytestmark = pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)

AGE_NAMES = ["age", "age_years", "Age at admission", "edad", "Alter", "patientAge", "AGE-GROUP"]
NOT_AGE = ["stage", "page", "average", "mileage", "usage", "agent", "wage"]


def _ages(n: int = 120) -> pd.Series:
    fake = Faker(["es_ES", "de_DE", "en_US"])
    fake.seed_instance(4)
    return pd.Series([fake.pyint(0, 99) for _ in range(n)])


@pytest.mark.parametrize("name", AGE_NAMES)
def test_age_like_columns_are_quasi_identifiers_with_intervals(name: str) -> None:
    g = guess_column(name, _ages())
    assert g["role"] == "quasi_identifier" and g["reason"] == "name suggests age"
    assert g["hierarchy"] == "{type: interval, width: 5}"
    # and as text (a CSV read with dtype=str): the same guess
    assert guess_column(name, _ages().astype(str))["hierarchy"] == g["hierarchy"]


@pytest.mark.parametrize("name", NOT_AGE)
def test_words_containing_age_are_not_ages(name: str) -> None:
    assert guess_column(name, _ages()).get("reason") != "name suggests age"


def test_age_column_that_is_not_years_gets_an_auto_hierarchy() -> None:
    bands = pd.Series(["20-29", "30-39", "40-49"] * 20)
    g = guess_column("edad", bands)
    assert g["role"] == "quasi_identifier" and g["hierarchy"] == "{type: auto}"


def test_drafted_age_policy_loads_with_an_interval_hierarchy(tmp_path: Path) -> None:
    from veil import load_policy

    df = pd.DataFrame({"Age at admission": _ages(), "sex": ["F", "M"] * 60})
    df.to_csv(tmp_path / "t.csv", index=False)
    text, _ = draft_policy(df, data_path=Path("t.csv"))
    (tmp_path / "p.yaml").write_text(text)
    pol = load_policy(tmp_path / "p.yaml")
    h = pol.columns["Age at admission"].hierarchy
    assert h is not None and h.type == "interval" and h.width == 5


def _adult(tmp_path: Path) -> tuple[Path, Path]:
    """ARX's adult table (300 rows, ';') and its hierarchy files, in two folders."""
    source = files("veil.data") / "adult"
    with (source / "adult.csv.gz").open("rb") as fh:
        df = pd.read_csv(fh, sep=";", compression="gzip", nrows=300)
    data = tmp_path / "data" / "adult.csv"
    data.parent.mkdir()
    df.to_csv(data, sep=";", index=False)
    hier = tmp_path / "hierarchies"
    hier.mkdir()
    for item in source.iterdir():
        if "_hierarchy_" in item.name:
            shutil.copyfile(str(item), hier / item.name)
    # a file of another data set for the same column: the data file's own one must win
    shutil.copyfile(hier / "adult_hierarchy_age.csv", hier / "other_hierarchy_age.csv")
    (hier / "adult_hierarchy_no-such-column.csv").write_text("a;*\n")
    return data, hier


def test_find_hierarchy_files_prefers_the_data_sets_own(tmp_path: Path) -> None:
    _, hier = _adult(tmp_path)
    found = find_hierarchy_files(hier, ["age", "Sex", "zip"], data_stem="adult")
    assert found["age"].name == "adult_hierarchy_age.csv"
    assert found["Sex"].name == "adult_hierarchy_sex.csv"  # case-insensitive match
    assert "zip" not in found


def test_policy_init_attaches_hierarchy_files_relative_to_the_policy(cli, tmp_path) -> None:
    data, hier = _adult(tmp_path)
    out = tmp_path / "policies" / "adult.yaml"
    result = cli(
        "policy", "init", data, "--separator", ";", "--hierarchies", hier, "--out", out, "--json"
    )
    assert result.code == 0, result.err
    guesses = json.loads(result.out)["columns"]
    assert guesses["age"]["role"] == "quasi_identifier"
    doc = yaml.safe_load(out.read_text())
    assert doc["data"]["path"] == "../data/adult.csv"
    for column in ("age", "sex", "race", "education", "marital-status"):
        assert doc["columns"][column]["hierarchy"] == {
            "type": "file",
            "path": f"../hierarchies/adult_hierarchy_{column}.csv",
        }
    # a sensitive column keeps its role; the file is only mentioned
    assert "hierarchy" not in doc["columns"]["occupation"]
    assert "adult_hierarchy_occupation.csv" in out.read_text()
    checked = cli("policy", "check", out)
    assert checked.code == 0, checked.err
    text = out.read_text().replace("format: parquet", "format: csv")
    out.write_text(text)
    ran = cli("-q", "run", out, "--json")
    assert ran.code == 0, ran.err
    report = json.loads((out.parent / "out" / "report.json").read_text())
    kinds = {c["name"]: c.get("hierarchy") for c in report["columns"]}
    assert kinds["age"] == kinds["education"] == "file"


def test_hierarchies_must_be_a_folder(cli, tmp_path) -> None:
    data, _ = _adult(tmp_path)
    result = cli("policy", "init", data, "--separator", ";", "--hierarchies", tmp_path / "nope")
    assert result.code == 2 and "not a folder" in result.err
