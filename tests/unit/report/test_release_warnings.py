"""The report warns about near-unique columns released as is and about a quasi-identifier
that released columns recompute; it names columns and counts, never values.

The tables are drawn with Faker (birth dates, prices), not written by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from faker import Faker

from veil import load_policy, run_policy
from veil.report._warnings import near_unique_columns, recomputable_quasi_identifiers

ROWS = 1500


def _hospital(seed: int = 0, *, exact_age: bool = True) -> pd.DataFrame:
    fake = Faker(["en_US", "de_DE"])
    fake.seed_instance(seed)
    rng = np.random.default_rng(seed)
    birth = [fake.date_of_birth(minimum_age=1, maximum_age=95) for _ in range(ROWS)]
    birth_year = np.array([d.year for d in birth])
    discharge_year = rng.integers(2015, 2024, ROWS)
    age = discharge_year - birth_year
    if not exact_age:
        age = rng.integers(0, 100, ROWS)  # unrelated to the two years
    else:
        age[:3] += 1  # a birthday not yet reached: 99.8 % of rows, as in real tables
    return pd.DataFrame(
        {
            "birth_year": birth_year,
            "discharge_year": discharge_year,
            "age": age,
            "sex": rng.choice(["F", "M"], ROWS),
            "ward": rng.choice(["A", "B", "C", "D"], ROWS),
            "charge": [fake.pricetag() for _ in range(ROWS)],  # "$55,076.06"
            "los": rng.integers(1, 30, ROWS),
        }
    )


POLICY = """\
data: {path: h.csv}
columns:
  birth_year: {role: insensitive}
  discharge_year: {role: insensitive}
  age: {role: quasi_identifier, hierarchy: {type: interval, width: 5}}
  sex: {role: quasi_identifier, hierarchy: {type: auto}}
  ward: {role: insensitive}
  charge: {role: insensitive}
  los: {role: sensitive}
privacy: {k_anonymity: {k: 5}}
output: {path: out, format: csv, report: [json, html]}
"""


def _run(tmp_path: Path, df: pd.DataFrame, policy: str = POLICY) -> dict:
    df.to_csv(tmp_path / "h.csv", index=False)
    (tmp_path / "p.yaml").write_text(policy)
    result = run_policy(load_policy(tmp_path / "p.yaml"))
    return json.loads(result.outputs["report_json"].read_text())


def test_run_warns_about_both_and_names_no_value(tmp_path: Path) -> None:
    df = _hospital()
    report = _run(tmp_path, df)
    by_code = {w["code"]: w for w in report["warnings"]}
    unique = by_code["near_unique_column"]
    assert unique["column"] == "charge" and unique["distinct"] == df["charge"].nunique()
    recompute = by_code["recomputable_quasi_identifier"]
    assert recompute["column"] == "age" and recompute["relation"] == "difference"
    assert recompute["from"] == ["discharge_year", "birth_year"]
    assert 0.99 <= recompute["share"] < 1.0
    assert len(report["warnings"]) == 2  # ward (4 values), los and the years are not unique
    text = json.dumps(report["warnings"])
    html = (tmp_path / "out" / "report.html").read_text()
    assert 'id="warnings"' in html and "discharge_year - birth_year" in html
    for value in [*df["charge"].head(50), *map(str, df["birth_year"].head(5))]:
        assert value not in text


def test_no_warning_when_the_age_is_not_recomputable(tmp_path: Path) -> None:
    report = _run(
        tmp_path,
        _hospital(seed=1, exact_age=False).drop(columns=["charge"]),
        POLICY.replace("  charge: {role: insensitive}\n", ""),
    )
    assert report["warnings"] == []


def test_near_unique_thresholds() -> None:
    df = pd.DataFrame(
        {
            "few": [f"v{i % 99}" for i in range(400)],  # 99 distinct: under the count
            "half": [i // 2 for i in range(400)],  # 200 distinct of 400: 50 %, not above
            "most": [i if i % 4 else -1 for i in range(400)],  # 301 of 400
        }
    )
    found = near_unique_columns(df, ["few", "half", "most"])
    assert [w["column"] for w in found] == ["most"]


def test_recompute_finds_sum_and_equal_and_ignores_generalized_sources() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 50, 500), rng.integers(0, 50, 500)
    original = pd.DataFrame({"q_sum": a + b, "q_copy": a, "q_none": rng.integers(0, 99, 500)})
    released = pd.DataFrame({"a": a, "b": b})
    found = recomputable_quasi_identifiers(
        original, released, ["q_sum", "q_copy", "q_none"], ["a", "b"]
    )
    assert {w["column"]: (w["relation"], w["from"]) for w in found} == {
        "q_sum": ("sum", ["a", "b"]),
        "q_copy": ("equal", ["a"]),
    }


def test_recompute_is_bounded_on_a_large_table() -> None:
    n = 200_000
    rng = np.random.default_rng(0)
    cols = {f"c{i}": rng.integers(0, 1000, n) for i in range(40)}
    released = pd.DataFrame(cols)
    original = pd.DataFrame({"q": cols["c3"] - cols["c7"]})
    import time

    t0 = time.perf_counter()
    found = recomputable_quasi_identifiers(original, released, ["q"], list(cols))
    assert time.perf_counter() - t0 < 10
    # only the first 30 numeric columns are paired (c3, c7 among them): found on a sample
    assert found and found[0]["from"] == ["c3", "c7"] and found[0]["rows_checked"] == 5000


@pytest.mark.parametrize("algorithm", ["optimal", "mondrian"])
def test_columns_say_what_the_release_shows(tmp_path: Path, algorithm: str) -> None:
    df = _hospital(seed=2).drop(columns=["charge", "birth_year", "discharge_year"])
    pd.DataFrame({"age": range(-20, 130)}).assign(
        l1=lambda d: (d.age // 10 * 10).astype(str) + "-" + (d.age // 10 * 10 + 9).astype(str),
        top="*",
    ).to_csv(tmp_path / "h_hierarchy_age.csv", sep=";", header=False, index=False)
    policy = (
        POLICY.replace(
            "  birth_year: {role: insensitive}\n  discharge_year: {role: insensitive}\n", ""
        )
        .replace("  charge: {role: insensitive}\n", "")
        .replace("{type: interval, width: 5}", "{type: file, path: h_hierarchy_age.csv}")
        + f"search: {{algorithm: {algorithm}}}\n"
    )
    report = _run(tmp_path, df, policy)
    cols = {c["name"]: c for c in report["columns"]}
    html = (tmp_path / "out" / "report.html").read_text()
    if algorithm == "mondrian":
        assert cols["age"]["generalization"].startswith("Mondrian ranges")
        assert "file hierarchy" not in html  # Mondrian wrote its own labels for age
    else:
        assert cols["age"]["generalization"] == "level 1 of the file hierarchy"
    # sex: the search kept its values (level 0): not "generalized"
    released = pd.read_csv(tmp_path / "out" / "released.csv")
    assert released["sex"].isin(["F", "M"]).all()
    assert cols["sex"]["generalized"] is False
    assert cols["sex"]["generalization"] == "not generalized (original values)"
    utility = {c["column"]: c for c in report["utility"]["columns"]}
    assert utility["sex"]["generalized"] is False
