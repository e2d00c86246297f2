"""The transforms stage inside ``run_policy``: keys checked before reading, columns, report."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from pathlib import Path

import pandas as pd
import pytest

from veil import InputError, KeyMissingError, PolicyError, SchemaError, run_policy
from veil.pipeline import RunContext
from veil.policy import parse_policy
from veil.tabular._stage import TransformStage

CANARY = "CANARY-41b7d2"
HMAC_HEX = "1791b37b9103c40c866e9b9baab2059a4f8062e54c06f170c2aeea735f1e4bb5"
FPE_HEX = "f32819e4cf4dfa7a8d918d230eeb1972"


def kcv(key_hex: str) -> str:
    """The key check value, computed here from its definition (HMAC-SHA256, 8 bytes)."""
    return hmac.new(bytes.fromhex(key_hex), b"veil-kcv-v1", hashlib.sha256).hexdigest()[:16]


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "pid": [1, 1, 2, 3],
            "email": [f"{CANARY}@example.com", "b@example.org", None, "d@example.net"],
            "ssn": ["123-45-6789", "123-45-6789", "987-65-4321", None],
            "visit": ["2024-01-05", "2024-02-10", "2023-12-31", "2024-05-05"],
            "lat": [48.8566, 48.8566, 40.7128, None],
            "lon": [2.3522, 2.3522, -74.006, None],
            "income": [52_000, 61_000, 1_250_000, 47_000],
            "city": ["Paris", "Paris", "New York", "Lyon"],
        }
    )


def policy(tmp_path: Path, data: str = "data.csv", **overrides: dict) -> object:
    columns: dict[str, dict] = {
        "pid": {"role": "identifier", "transform": {"type": "hash", "key_env": "T_HMAC"}},
        "email": {"role": "identifier", "action": "drop"},
        "ssn": {"role": "identifier", "transform": {"type": "tokenize", "key_env": "T_FPE"}},
        "visit": {
            "role": "insensitive",
            "transform": {"type": "date_shift", "entity_column": "pid", "key_env": "T_HMAC"},
        },
        "lat": {
            "role": "insensitive",
            "transform": {"type": "geo_round", "longitude_column": "lon", "grid": 0.1},
        },
        "lon": {"role": "insensitive"},
        "income": {
            "role": "insensitive",
            "transform": {"type": "top_bottom_code", "upper": 100_000},
        },
        "city": {"role": "insensitive"},
    }
    columns.update(overrides)
    doc = {"data": {"path": data}, "columns": columns, "output": {"path": "out", "format": "csv"}}
    return parse_policy(doc, base_dir=tmp_path)


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_HMAC", HMAC_HEX)
    monkeypatch.setenv("T_FPE", FPE_HEX)
    monkeypatch.delenv("VEIL_FPE_TWEAK", raising=False)


def test_a_missing_key_fails_before_any_data_is_read(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("T_HMAC", raising=False)
    monkeypatch.setenv("T_FPE", FPE_HEX)
    pol = policy(tmp_path, data="does-not-exist.csv")
    with pytest.raises(KeyMissingError, match="T_HMAC"):  # not "input file not found"
        run_policy(pol, out_dir=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_run_applies_each_transform_and_reports_counts_only(tmp_path: Path, keys, caplog) -> None:
    with caplog.at_level(logging.DEBUG):
        result = run_policy(policy(tmp_path), data=frame(), out_dir=tmp_path / "out")
    assert "transform ssn: tokenize" in caplog.text  # logs name columns...
    assert CANARY not in caplog.text and "123-45-6789" not in caplog.text  # ...never values
    out = result.data
    assert "email" not in out.columns
    assert list(out.columns) == ["pid", "ssn", "visit", "lat", "lon", "income", "city"]
    assert out["city"].tolist() == ["Paris", "Paris", "New York", "Lyon"]  # no transform: kept
    assert out["pid"][0] == out["pid"][1] != out["pid"][2]
    assert out["ssn"][0] == out["ssn"][1] and out["ssn"][0] != "123-45-6789"
    assert (out["visit"][1] - out["visit"][0]).days == 36  # same person, same offset
    assert out["lon"].tolist()[:3] == [2.4, 2.4, -74.0] and pd.isna(out["lat"][3])
    assert out["income"].tolist() == [52_000, 61_000, 100_000, 47_000]

    section = result.report["transforms"]
    assert section["summary"] == {
        "transformed_columns": 6,  # pid, ssn, visit, lat, lon, income
        "dropped_columns": 1,
        "untransformed_columns": 1,
    }
    assert section["columns"]["income"]["top_coded"] == 1
    assert section["columns"]["ssn"] == {
        "transform": "tokenize",
        "rows": 4,
        "missing": 1,
        "changed": 3,
        "key_check": kcv(FPE_HEX),
    }
    assert section["columns"]["pid"]["key_check"] == kcv(HMAC_HEX)
    assert section["columns"]["visit"]["key_check"] == kcv(HMAC_HEX)
    assert "key_check" not in section["columns"]["income"]  # unkeyed: none
    sidecar = json.loads((tmp_path / "out" / "key_check.json").read_text(encoding="utf-8"))
    assert sidecar["columns"]["ssn"] == {"transform": "tokenize", "key_check": kcv(FPE_HEX)}
    assert set(sidecar["columns"]) == {"pid", "ssn", "visit"}
    assert section["columns"]["lat"]["also_transforms"] == "lon"
    assert result.report["summary"]["transformed_columns"] == 6

    text = json.dumps(result.report, default=str)
    for value in (CANARY, "123-45-6789", "Paris", "52000", HMAC_HEX, FPE_HEX):
        assert value not in text
    for path in (tmp_path / "out").iterdir():
        body = path.read_text(encoding="utf-8")
        assert CANARY not in body and "123-45-6789" not in body and HMAC_HEX not in body


def test_report_holds_no_input_value(tmp_path: Path, keys) -> None:
    result = run_policy(policy(tmp_path), data=frame(), write=False)
    text = json.dumps(result.report["transforms"])
    for value in (CANARY, "123-45-6789", "987-65-4321", "2024-01-05", "48.8566", "1250000"):
        assert value not in text


def test_two_transforms_writing_one_column_is_a_policy_error(tmp_path: Path, keys) -> None:
    pol = policy(tmp_path, lon={"role": "insensitive", "transform": {"type": "noise", "scale": 1}})
    with pytest.raises(PolicyError, match="both transform 'lon'"):
        TransformStage().check(pol)


def test_the_input_frame_is_never_modified(tmp_path: Path, keys) -> None:
    data = frame()
    pristine = data.copy(deep=True)
    stage = TransformStage()
    stage.check(policy(tmp_path))
    ctx = RunContext(policy=policy(tmp_path), original=data, data=data.copy(deep=False))
    stage.run(ctx)
    pd.testing.assert_frame_equal(data, pristine)
    assert not ctx.data["ssn"].equals(pristine["ssn"])


def test_a_column_missing_from_the_data(tmp_path: Path, keys) -> None:
    pol = policy(tmp_path)
    stage = TransformStage()
    stage.check(pol)
    data = frame().drop(columns=["lon"])
    ctx = RunContext(policy=pol, original=data, data=data)
    with pytest.raises(SchemaError, match="lon"):
        stage.run(ctx)


def test_a_failure_names_the_column_and_never_the_value(tmp_path: Path, keys, caplog) -> None:
    data = frame()
    data["income"] = data["income"].astype(object)
    data.loc[2, "income"] = CANARY
    with caplog.at_level(logging.DEBUG), pytest.raises(InputError, match="'income'") as info:
        run_policy(policy(tmp_path), data=data, out_dir=tmp_path / "out")
    assert CANARY not in caplog.text
    assert CANARY not in str(info.value) + str(info.value.hint)
    assert not (tmp_path / "out").exists()


def test_entity_column_is_read_before_it_is_hashed(tmp_path: Path, keys) -> None:
    """The date offset comes from the real id, whatever the id column's own transform is."""
    hashed = run_policy(policy(tmp_path), data=frame(), write=False).data
    dropped_id = run_policy(
        policy(tmp_path, pid={"role": "identifier", "action": "drop"}), data=frame(), write=False
    ).data
    assert hashed["visit"].equals(dropped_id["visit"])
