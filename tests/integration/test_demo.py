"""`veil demo` end to end, and the canary: a value in a dropped column appears nowhere."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from veil.demo import demo_frame, demo_policy

CANARY = "CANARY-e41c9b77"
ROWS = 3000


def test_demo_cli_json_names_the_three_outputs(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = subprocess.run(
        [sys.executable, "-m", "veil", "demo", "--out", str(out), "--rows", str(ROWS), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    outputs = json.loads(proc.stdout)["outputs"]
    for key, name in (
        ("table", "released.parquet"),
        ("report_json", "report.json"),
        ("report_html", "report.html"),
    ):
        assert Path(outputs[key]) == out / name
        assert (out / name).is_file()
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["report_version"]
    assert report["summary"]["input_rows"] == ROWS
    columns = {c["name"]: c for c in report["columns"]}
    assert columns["longitude"]["transform"] == "geo_displace"  # moved with latitude, not kept
    assert columns["longitude"]["transformed_with"] == "latitude"
    released = pd.read_parquet(out / "released.parquet")
    assert "email" not in released.columns and "credit_card" not in released.columns
    # keys and the scratch ledger live beside, not inside, the release
    assert (out.parent / "demo-private").is_dir()
    assert (out / "dp_statistics.json").is_file()
    assert report["dp"]["summary"]["dp_queries"] == 3
    assert not any(p.name.startswith(".veil-staging") for p in out.iterdir())


def _demo_policy(out: Path, **privacy: object):
    # the canary is about the release, not the DP answers
    return demo_policy(out, dp=False, privacy=privacy)


@pytest.fixture
def canary_frame() -> pd.DataFrame:
    df = demo_frame(ROWS)
    df.loc[7, "email"] = f"{CANARY}@example.com"
    df.loc[11, "credit_card"] = CANARY
    return df


def _all_text(out: Path) -> str:
    parts = []
    for path in out.rglob("*"):
        if path.suffix == ".parquet":
            table = pq.read_table(path)
            parts.append(table.to_pandas().astype(str).to_csv())
            parts.append(str(table.schema.metadata))
        elif path.is_file():
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(parts)


def test_canary_in_dropped_columns_appears_nowhere_on_success(
    tmp_path: Path, canary_frame: pd.DataFrame, caplog: pytest.LogCaptureFixture, monkeypatch
) -> None:
    from veil.demo import _ensure_demo_keys
    from veil.pipeline import run_policy

    out = tmp_path / "run"
    monkeypatch.delenv("VEIL_HMAC_KEY", raising=False)
    _ensure_demo_keys(out)
    with caplog.at_level(logging.DEBUG):
        result = run_policy(_demo_policy(out), data=canary_frame, out_dir=out)
    assert result.outputs["table"].is_file()
    assert CANARY not in _all_text(out)
    assert CANARY not in caplog.text
    assert CANARY not in json.dumps(result.report, default=str)


def test_canary_appears_nowhere_on_failure(
    tmp_path: Path, canary_frame: pd.DataFrame, caplog: pytest.LogCaptureFixture, monkeypatch
) -> None:
    from veil import VeilError
    from veil.demo import _ensure_demo_keys
    from veil.pipeline import run_policy

    out = tmp_path / "run"
    _ensure_demo_keys(out)
    # No release satisfies k = 10 * rows without suppressing everything: the run must fail
    # after the data was read and transformed.
    policy = _demo_policy(out, k_anonymity={"k": ROWS * 10}, suppression_limit=0.0)
    with caplog.at_level(logging.DEBUG), pytest.raises(VeilError) as info:
        run_policy(policy, data=canary_frame, out_dir=out)
    assert CANARY not in str(info.value)
    assert CANARY not in repr(info.value.__cause__) + repr(info.value.__context__)
    assert CANARY not in caplog.text
    assert not out.exists() or not any(out.iterdir())
