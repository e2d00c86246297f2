"""delta-presence and k-map through the CLI: UCI Adult as the population, a random 20 %
subset released (``veil anonymize``) or marked by a sample column (``veil run``). Each release
is checked here once more against the population with plain pandas."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame, adult_hierarchy_path

QIS = list(ADULT_QUASI_IDENTIFIERS)
CANARY = "CANARY-7e2c19"


def _columns(extra: str = "") -> str:
    lines = [
        f"  {q}: {{role: quasi_identifier, hierarchy: "
        f"{{type: file, path: {adult_hierarchy_path(q)}, separator: ';'}}}}\n"
        for q in QIS
    ]
    return "columns:\n" + "".join(lines) + "  occupation: {role: sensitive}\n" + extra


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return adult_frame()


@pytest.fixture
def files(tmp_path: Path, adult: pd.DataFrame) -> Path:
    rng = np.random.default_rng(7)
    mask = rng.random(len(adult)) < 0.2
    adult.loc[mask].to_csv(tmp_path / "subset.csv", index=False)
    (tmp_path / "pop").mkdir()
    adult.to_csv(tmp_path / "pop" / "population.csv", index=False)
    marked = adult.assign(in_study=mask.astype(int))
    marked.to_csv(tmp_path / "marked.csv", index=False)
    return tmp_path


def _generalized_population(population: pd.DataFrame, levels: dict[str, int]) -> pd.Series:
    """Population size of each generalized combination, with plain pandas."""
    out = {}
    for q in QIS:
        h = pd.read_csv(adult_hierarchy_path(q), sep=";", header=None, dtype=str)
        out[q] = population[q].astype(str).map(dict(zip(h[0], h[levels[q]], strict=True)))
    return pd.DataFrame(out).groupby(QIS).size()


def _classes(released: pd.DataFrame, population: pd.DataFrame, levels: dict[str, int]):
    kept = released.loc[~(released[QIS] == "*").all(axis=1)]
    sizes = kept.groupby(QIS).size().rename("size").to_frame()
    return sizes.join(_generalized_population(population, levels).rename("pop"))


def test_anonymize_against_a_population_table(cli, files, adult):
    policy = files / "policy.yaml"
    policy.write_text(
        "data: {path: subset.csv}\n" + _columns() + "privacy:\n"
        "  k_anonymity: {k: 3}\n"
        "  delta_presence: {delta_min: 0.05, delta_max: 0.5, population: pop/population.csv}\n"
        "  k_map: {k: 10}\n"
        "  suppression_limit: 0.05\n"
        "output: {format: csv, report: [json]}\n"
    )
    out = files / "out"
    res = cli("anonymize", policy, "--out", out, "--json")
    assert res.code == 0, res.err
    doc = json.loads(res.out)
    assert doc["satisfied"] == {"k_anonymity": True, "delta_presence": True, "k_map": True}
    pop = doc["population"]
    assert pop["source"] == "table" and pop["rows"] == len(adult)
    subset_rows = len(pd.read_csv(files / "subset.csv"))
    assert pop["subset_rows"] == subset_rows == doc["rows"]
    assert 0.05 <= pop["delta_min"] <= pop["delta_max"] <= 0.5
    released = pd.read_csv(out / "released.csv", dtype=str)
    assert len(released) == subset_rows
    classes = _classes(released, adult, doc["transformation"])
    delta = classes["size"] / classes["pop"]
    assert classes["size"].min() >= 3 and classes["pop"].min() >= 10
    assert delta.min() == pytest.approx(pop["delta_min"])
    assert delta.max() == pytest.approx(pop["delta_max"])
    assert classes["pop"].min() == pop["min_class_population"]
    table = cli("anonymize", policy, "--out", files / "out2")
    assert table.code == 0, table.err
    assert "delta reached" in table.out and "smallest class population" in table.out


def test_run_with_a_sample_column_releases_only_the_marked_rows(cli, files, adult):
    policy = files / "policy.yaml"
    policy.write_text(
        "data: {path: marked.csv}\n" + _columns("  in_study: {role: insensitive}\n") + "privacy:\n"
        "  delta_presence: {delta_max: 0.4, sample_column: in_study}\n"
        "  k_map: {k: 5}\n"
        "  suppression_limit: 0.02\n"
        "output: {path: out, format: csv, report: [json]}\n"
    )
    res = cli("run", policy, "--json")
    assert res.code == 0, res.err
    report = json.loads((files / "out" / "report.json").read_text())
    section = report["anonymize"]
    assert section["satisfied"] == {"delta_presence": True, "k_map": True}
    marked = pd.read_csv(files / "marked.csv")
    n_subset = int(marked["in_study"].sum())
    assert section["population"]["source"] == "sample_column"
    assert section["population"]["subset_rows"] == n_subset == section["rows"]
    assert report["summary"]["released_rows"] == n_subset
    assert report["summary"]["delta_max"] <= 0.4
    reqs = {r["model"]: r for r in report["risk"]["requirements"]}
    assert reqs["delta-presence"]["met"] and reqs["k-map"]["met"]
    assert reqs["k-map"]["measured"] == section["population"]["min_class_population"]
    jsonschema = pytest.importorskip("jsonschema")
    from veil.report import schema

    jsonschema.validate(report, schema())
    released = pd.read_csv(files / "out" / "released.csv", dtype=str)
    assert len(released) == n_subset and "in_study" not in released.columns
    classes = _classes(released, adult, section["transformation"])
    assert (classes["size"] / classes["pop"]).max() <= 0.4 + 1e-12
    assert classes["pop"].min() >= 5


def test_subset_outside_the_population_fails_with_counts_and_writes_nothing(cli, files, adult):
    subset = pd.read_csv(files / "subset.csv")
    subset.loc[subset.index[0], "occupation"] = CANARY
    combo = subset.iloc[0][QIS]
    # the population loses every record of the first subset record's combination
    pop = adult.loc[~(adult[QIS] == combo).all(axis=1)]
    expected = int((subset[QIS] == combo).all(axis=1).sum())
    pop.to_csv(files / "pop" / "population.csv", index=False)
    subset.to_csv(files / "subset.csv", index=False)
    policy = files / "policy.yaml"
    policy.write_text(
        "data: {path: subset.csv}\n" + _columns() + "privacy:\n"
        "  k_map: {k: 3, population: pop/population.csv}\n"
        "output: {format: csv, report: [json]}\n"
    )
    out = files / "out"
    res = cli("anonymize", policy, "--out", out, "--json")
    assert res.code == 2, res.err
    assert f"not a subset of the population table: {expected} of its {len(subset)}" in res.err
    assert CANARY not in res.err + res.out + res.logs
    assert not out.exists()
    (files / "pop" / "population.csv").unlink()
    res = cli("anonymize", policy, "--out", out, "--json")
    assert res.code == 2 and "population table not found" in res.err
    assert not out.exists()


def test_the_documented_python_example_runs():
    """The Python example of docs/anonymization.md's population section, as written."""
    import re

    docs = Path(__file__).parents[2] / "docs" / "anonymization.md"
    blocks = re.findall(r"```python\n(.*?)```", docs.read_text(encoding="utf-8"), re.S)
    example = next(b for b in blocks if "population=population" in b)
    scope: dict = {}
    exec(compile(example, str(docs), "exec"), scope)
    result = scope["result"]
    assert result.satisfied == {"k_anonymity": True, "delta_presence": True, "k_map": True}
    assert result.population["min_class_population"] == 10
    assert result.population["delta_max"] == 0.4
