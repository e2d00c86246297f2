"""The hospital-table benchmark builds the case it claims, and its committed run met 2 GB."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from veil.utility import association_preservation

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "benchmarks" / "hospital_memory.py"
RESULT = ROOT / "benchmarks" / "results" / "hospital_memory.json"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("hospital_memory", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_table_is_the_hospital_case(bench):
    df = bench.hospital_table(50_000, 23)
    assert len(df) == 50_000
    for col in ("total_charges", "covered_charges"):
        assert df[col].str.startswith("$").all()
        assert 40_000 <= df[col].nunique() <= 48_000  # "about 46,000 distinct values"
    assert df["encounter"].nunique() == 50_000
    assert df["sex"].nunique() == 2 and df["length_of_stay"].nunique() < 100
    again = bench.hospital_table(50_000, 23)
    assert again.equals(df)  # seeded


def test_associations_on_the_hospital_table_are_capped(bench):
    df = bench.hospital_table(20_000, 5).astype(str)  # as read with dtype=str
    out = association_preservation(df, df)
    assert len(out["pairs"]) == 36
    assert out["mean_abs_change"] == 0.0


def test_the_committed_run_stayed_under_2_gb():
    result = json.loads(RESULT.read_text(encoding="utf-8"))
    assert result["table"]["rows"] == 50_000
    assert result["policy"] == {"k": 5, "t_closeness": {"t": 0.2, "distance": "ordered"}}
    for path in ("cli", "python"):
        run = result["runs"][path]
        assert run["exit_code"] == 0
        assert 0 < run["peak_rss_bytes"] < result["limit_bytes"] == 2 * 1000**3
