"""``veil unlearn fit|forget|verify|log`` and ``veil audit unlearning``: JSON keys, exit codes,
bad input, reports."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

KEY_HEX = "8c1e5a0f3b97d4261fe8a3c05d7b92e4a61f0c38d5b7e2914a6c0f8e3d1b5a72"


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEIL_UNLEARN_KEY", KEY_HEX)


@pytest.fixture
def table(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    n = 300
    a = rng.choice(["a", "b", "c"], size=n)
    x = rng.normal(size=n)
    df = pd.DataFrame(
        {
            "rid": np.arange(1000, 1000 + n),
            "cat": a,
            "x": x,
            "t": np.where((a == "a") ^ (x > 0), "p", "q"),
        }
    )
    path = tmp_path / "data.csv"
    df.to_csv(path, index=False)
    return path


def _strings(obj: object) -> list[str]:
    """Every string (and key) in a JSON value: an id would show up as one."""
    if isinstance(obj, dict):
        return [*obj, *(x for v in obj.values() for x in _strings(v))]
    if isinstance(obj, list):
        return [x for v in obj for x in _strings(v)]
    return [obj] if isinstance(obj, str) else []


def _fit(cli, table: Path, out: Path, *extra: str):  # type: ignore[no-untyped-def]
    return cli(
        "unlearn",
        "fit",
        table,
        "--target",
        "t",
        "--id-column",
        "rid",
        "--shards",
        "3",
        "--slices",
        "2",
        "--epochs",
        "2",
        "--batch-size",
        "32",
        "--out",
        out,
        "--json",
        *extra,
    )


def test_fit_forget_verify_log_audit(cli, env, table: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "model"
    r = _fit(cli, table, out)
    assert r.code == 0, r.err
    fit = json.loads(r.out)
    assert {"accuracy", "monolithic", "seconds", "shards", "slices"} <= set(fit)
    assert {"accuracy", "seconds"} <= set(fit["monolithic"])
    assert (fit["shards"], fit["slices"]) == (3, 2)
    report = json.loads((out / "report.json").read_text())
    assert report["unlearning"]["model"]["shards"] == 3
    assert report["compliance"][0]["provision"].startswith("Art. 17")
    assert "Machine unlearning (SISA)" in (out / "report.html").read_text()

    ids = tmp_path / "ids.txt"
    ids.write_text("1003\n1010\n\n1200\n")
    r = cli("unlearn", "forget", out, "--ids", ids, "--reason", "customer request", "--json")
    assert r.code == 0, r.err
    fg = json.loads(r.out)
    keys = {"request_id", "forgotten", "shards_retrained", "seconds", "full_retrain_seconds"}
    assert keys | {"speedup", "accuracy"} <= set(fg)
    assert fg["forgotten"] == 3 and fg["speedup"] > 0
    assert not {"1003", "1010", "1200"} & set(_strings(fg))  # ids never echoed

    r = cli("unlearn", "forget", out, "--id", "1003", "--json")
    again = json.loads(r.out)
    assert r.code == 0 and again["forgotten"] == 0 and again["already_forgotten"] == 1

    r = cli("unlearn", "verify", out, "--json")
    assert r.code == 0, r.err
    v = json.loads(r.out)
    assert v["exact"] is True and v["shards_checked"] == (fg["shards_retrained"] or [0, 1, 2])
    r = cli("unlearn", "verify", out, "--all", "--json")
    assert json.loads(r.out)["shards_checked"] == [0, 1, 2]

    r = cli("unlearn", "log", out, "--json")
    log = json.loads(r.out)
    assert [e["kind"] for e in log["requests"]] == ["fit", "forget", "forget"]
    assert log["requests"][1]["reason"] == "customer request"
    assert log["model_version"] == 2

    audit_dir = tmp_path / "audit"
    r = cli("audit", "unlearning", out, "--data", table, "--out", audit_dir, "--json")
    assert r.code == 0, r.err
    au = json.loads(r.out)
    assert au["forgotten"] == 3 and len(au["rows"]) == 3
    assert au["heldout"] + au["training"] + au["forgotten"] == 300
    assert au["retrained"]["identical"] is True  # exact unlearning: same losses, row by row
    assert 0 <= au["member_share"]["forgotten"] <= 1
    rows = {r["row"] for r in au["rows"]}
    assert rows == {3, 10, 200}  # row positions in the table, not ids
    rep = json.loads((audit_dir / "report.json").read_text())
    assert rep["unlearning"]["audit"]["forgotten"] == 3
    assert "Membership audit" in (audit_dir / "report.html").read_text()


def test_unknown_id_exit_2_nothing_logged(cli, env, table: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "model"
    assert _fit(cli, table, out).code == 0
    manifest = (out / "manifest.json").read_bytes()
    r = cli("unlearn", "forget", out, "--id", "1001", "--id", "no-such-id")
    assert r.code == 2
    assert "1 of 2 id(s) are not rows of this model" in r.err
    assert "no-such-id" not in r.err
    assert (out / "manifest.json").read_bytes() == manifest
    log = json.loads(cli("unlearn", "log", out, "--json").out)
    assert len(log["requests"]) == 1


def test_bad_inputs_exit_2(cli, env, table: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = pd.read_csv(table)
    dup = tmp_path / "dup.csv"
    df.assign(rid=[1, 1, *range(2, 300)]).to_csv(dup, index=False)
    r = _fit(cli, dup, tmp_path / "m1")
    assert r.code == 2 and "sharing an id" in r.err and not (tmp_path / "m1").exists()
    r = _fit(cli, table, tmp_path / "m2", "--shards", "200")
    assert r.code == 2 and "too few rows for the shards" in r.err
    assert not (tmp_path / "m2").exists()
    r = cli("unlearn", "forget", tmp_path, "--id", "1")
    assert r.code == 2 and "not a veil unlearning model" in r.err
    out = tmp_path / "m3"
    assert _fit(cli, table, out).code == 0
    r = cli("unlearn", "forget", out)
    assert r.code == 2 and "--id X" in r.err


def test_missing_or_weak_key_refused(cli, table: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("VEIL_UNLEARN_KEY", raising=False)
    r = _fit(cli, table, tmp_path / "m")
    assert r.code == 2 and "VEIL_UNLEARN_KEY" in r.err
    monkeypatch.setenv("VEIL_UNLEARN_KEY", "00" * 32)
    r = _fit(cli, table, tmp_path / "m")
    assert r.code == 2 and "guessed" in r.err
    assert not (tmp_path / "m").exists()


def test_tampered_folder_refused(cli, env, table: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "model"
    assert _fit(cli, table, out).code == 0
    data = next(out.rglob("data.bin"))
    data.write_bytes(data.read_bytes()[:-3] + b"xyz")
    for args in (("forget", out, "--id", "1001"), ("verify", out), ("log", out)):
        r = cli("unlearn", *args)
        assert r.code == 2 and "checksum" in r.err
