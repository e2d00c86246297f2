"""MDAV and local cell suppression from a policy: ``veil anonymize --json`` and ``veil run``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame

POLICY = """\
data: {{path: {data}}}
columns:
  name: {{role: identifier, action: drop}}
  age: {{role: quasi_identifier}}
  hours: {{role: quasi_identifier}}
  zip: {{role: {zip_role}}}
  sex: {{role: {sex_role}}}
  diagnosis: {{role: sensitive}}
privacy:
  k_anonymity: {{k: {k}}}
search: {search}
output: {{path: {out}, format: {fmt}}}
"""

JSON_KEYS = (
    "information_loss",
    "suppressed_records",
    "equivalence_classes",
    "min_class_size",
    "satisfied",
    "search",
)


@pytest.fixture
def table(tmp_path: Path) -> Path:
    rng = np.random.default_rng(5)
    n = 400
    path = tmp_path / "people.csv"
    pd.DataFrame(
        {
            "name": [f"person {i}" for i in range(n)],
            "age": rng.integers(18, 90, n),
            "hours": rng.integers(1, 80, n),
            "zip": rng.choice(["z1001", "z1002", "z1003", "z2001", "z2002", "z3001"], n),
            "sex": rng.choice(["F", "M"], n),
            "diagnosis": rng.choice(["flu", "cold", "none", "asthma"], n),
        }
    ).to_csv(path, index=False)
    return path


def policy_file(tmp_path: Path, data: Path, *, algorithm: str, k: int, fmt: str = "csv") -> Path:
    mdav = algorithm.startswith("{algorithm: mdav")
    text = POLICY.format(
        data=data,
        out=tmp_path / "out",
        zip_role="insensitive" if mdav else "quasi_identifier",
        sex_role="insensitive" if mdav else "quasi_identifier",
        k=k,
        search=algorithm,
        fmt=fmt,
    )
    if not mdav:  # age and hours are too fine for cell suppression alone; protect zip and sex
        text = text.replace("age: {role: quasi_identifier}", "age: {role: insensitive}")
        text = text.replace("hours: {role: quasi_identifier}", "hours: {role: insensitive}")
    path = tmp_path / "policy.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _read(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path, dtype=str)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_anonymize_mdav_json_and_release(cli, tmp_path, table, fmt) -> None:
    policy = policy_file(tmp_path, table, algorithm="{algorithm: mdav, round_to: 0}", k=7, fmt=fmt)
    result = cli("anonymize", policy, "--out", tmp_path / "out", "--json")
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert set(JSON_KEYS) <= set(doc)
    assert doc["transformation"] is None
    assert doc["satisfied"] == {"k_anonymity": True}
    assert doc["suppressed_records"] == 0 and doc["min_class_size"] >= 7
    assert doc["search"]["algorithm"] == "mdav" and {"checked", "seconds"} <= set(doc["search"])
    assert doc["metric"] == "sse" and 0 < doc["information_loss"]["sse"] < 1
    assert doc["details"]["aggregated_columns"] == ["age", "hours"]
    released = _read(Path(doc["outputs"]["table"]))
    assert "name" not in released.columns
    sizes = released.groupby(["age", "hours"]).size()
    assert sizes.min() >= 7 and len(sizes) == doc["equivalence_classes"]
    assert not released["age"].astype(str).str.contains(r"\.").any()  # round_to: 0 -> integers
    original = pd.read_csv(table, dtype=str)
    assert (released["zip"].astype(str) == original["zip"]).all()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_anonymize_cell_suppression_json_and_release(cli, tmp_path, table, fmt) -> None:
    policy = policy_file(tmp_path, table, algorithm="{algorithm: cell_suppression}", k=40, fmt=fmt)
    result = cli("anonymize", policy, "--out", tmp_path / "out", "--json")
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert set(JSON_KEYS) <= set(doc)
    assert doc["transformation"] is None and doc["suppressed_records"] == 0
    assert doc["search"]["algorithm"] == "cell_suppression"
    assert doc["details"]["cells_suppressed"] > 0
    qis = ["zip", "sex"]
    released = _read(Path(doc["outputs"]["table"])).astype({q: str for q in qis})
    sizes = released.groupby(qis).size()  # '*' is a value of its own
    assert sizes.min() >= 40 and len(sizes) == doc["equivalence_classes"]
    starred = sum(int((released[q] == "*").sum()) for q in qis)
    assert starred == doc["details"]["cells_suppressed"]


def test_anonymize_table_output_names_the_algorithm(cli, tmp_path, table) -> None:
    policy = policy_file(tmp_path, table, algorithm="{algorithm: cell_suppression}", k=40)
    result = cli("anonymize", policy, "--out", tmp_path / "out")
    assert result.code == 0, result.err
    assert "cell_suppression" in result.out and "cells suppressed" in result.out


@pytest.mark.parametrize(
    "algorithm", ["{algorithm: mdav}", "{algorithm: cell_suppression}"], ids=["mdav", "cells"]
)
def test_run_writes_the_report(cli, tmp_path, table, algorithm) -> None:
    policy = policy_file(tmp_path, table, algorithm=algorithm, k=40)
    result = cli("run", policy, "--json")
    assert result.code == 0, result.err
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == ["released.csv", "report.html", "report.json"]
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    section = report["anonymize"]
    assert section["search"]["algorithm"] == algorithm.split()[1].rstrip("}")
    assert section["satisfied"] == {"k_anonymity": True}
    assert report["summary"]["search_algorithm"] == section["search"]["algorithm"]
    assert report["risk"]["k"] >= 40  # the risk stage measures the release on its own
    evidence = " ".join(e for entry in report["compliance"] for e in entry["evidence"])
    if section["search"]["algorithm"] == "mdav":
        assert "quasi-identifiers microaggregated (MDAV cluster means): age, hours" in evidence
    else:
        assert "quasi-identifiers with cells suppressed locally ('*'): sex, zip" in evidence
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "person 0" not in html and "person 0" not in result.out


def test_adult_cell_suppression_through_the_engine() -> None:
    """The engine on Adult's 8 categorical-ish QIs: the release passes a plain group-by."""
    from veil.tabular import AnonymizeConfig, anonymize

    df = adult_frame(rows=5000)
    qis = list(ADULT_QUASI_IDENTIFIERS)
    res = anonymize(df, AnonymizeConfig.build(qis, {}, k=5, algorithm="cell_suppression"))
    assert res.data.groupby(qis, dropna=False).size().min() >= 5
    assert res.satisfied == {"k_anonymity": True}
    assert 0 < res.information_loss["ncp"] < 1
