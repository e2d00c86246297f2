"""veil ui's release certificate: the guarantees of a finished run, re-checked on its file."""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    warnings.filterwarnings("ignore", "The anyio.abc.BlockingPortal alias is deprecated")
    from starlette.testclient import TestClient

from veil.ui._certificate import recheck_release

pytestmark = [
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

PORT = 8765
POLICY = """version: 1
data: {path: people.csv}
columns:
  name: {role: identifier, transform: {type: drop}}
  age: {role: quasi_identifier, hierarchy: {type: interval, width: 10}}
  zip: {role: quasi_identifier, hierarchy: {type: mask}}
  diagnosis: {role: sensitive}
  email: {role: identifier, transform: {type: drop}}
privacy:
  k_anonymity: {k: 5}
  l_diversity: {l: 2}
  suppression_limit: 0.1
output: {path: out, format: csv}
"""


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "people.csv").write_text(
        "name,age,zip,diagnosis,email\n"
        + "".join(
            f"P{i},{20 + i % 50},{10000 + i % 7},{['flu', 'cold'][i % 2]},p{i}@example.com\n"
            for i in range(60)
        )
    )
    (root / "policy.yaml").write_text(POLICY)
    return root


def _run(client: TestClient, csrf: str) -> str:
    r = client.post("/run", json={"policy": "policy.yaml"}, headers={"x-csrf-token": csrf})
    job = r.json()["id"]
    for _ in range(600):
        if client.get(f"/api/run/{job}").json()["state"] != "running":
            break
        time.sleep(0.05)
    assert client.get(f"/api/run/{job}").json()["state"] == "done"
    return job


def test_the_certificate_names_the_file_and_rechecks_it(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    job = _run(client, csrf)
    released = workdir / "out" / "released.csv"
    cert = client.get(f"/api/run/{job}/certificate").json()
    assert cert["release"]["sha256"] == hashlib.sha256(released.read_bytes()).hexdigest()
    assert cert["release"]["table"] == "out/released.csv"
    report = json.loads((workdir / "out" / "report.json").read_text())
    assert cert["requirements"] == report["risk"]["requirements"] and cert["all_met"]
    assert [a["model"] for a in cert["attackers"]] == ["prosecutor", "journalist", "marketer"]
    # the re-check's own group-by of the file, against plain pandas here
    frame = pd.read_csv(released, dtype=str)
    sizes = frame.groupby(["age", "zip"]).size()
    rc = cert["recheck"]
    assert rc["done"] and rc["agrees"] and rc["classes"] == len(sizes)
    assert rc["checks"][0] == {
        "what": "k (smallest class)",
        "report": int(sizes.min()),
        "recheck": int(sizes.min()),
        "agrees": True,
    }
    page = client.get(f"/run/{job}/certificate")
    assert page.status_code == 200 and 'data-agrees="yes"' in page.text
    assert cert["release"]["sha256"] in page.text
    assert "p1@example.com" not in page.text  # counts and measures only
    assert f'href="/run/{job}/certificate"' in client.get(f"/run/{job}").text
    download = client.get(f"/api/run/{job}/certificate?download=1")
    assert "attachment" in download.headers["content-disposition"]


def test_a_changed_file_is_caught_by_the_recheck(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    job = _run(client, csrf)
    released = workdir / "out" / "released.csv"
    frame = pd.read_csv(released, dtype=str)
    frame.loc[0, "zip"] = "99999"  # a class of one now
    frame.to_csv(released, index=False)
    cert = client.get(f"/api/run/{job}/certificate").json()
    assert not cert["recheck"]["agrees"]
    assert cert["recheck"]["checks"][0]["recheck"] == 1
    assert 'data-agrees="no"' in client.get(f"/run/{job}/certificate").text


def test_recheck_counts_fully_masked_rows_as_suppressed(tmp_path: Path) -> None:
    table = tmp_path / "r.csv"
    pd.DataFrame(
        {"a": ["x"] * 3 + ["y"] * 4 + ["*"], "b": ["1"] * 7 + ["*"], "s": list("pqpqpqpp")}
    ).to_csv(table, index=False)
    report = {
        "risk": {
            "quasi_identifiers": ["a", "b"],
            "requirements": [
                {"model": "k-anonymity", "measured": 3},
                {"model": "distinct l-diversity", "column": "s", "measured": 2},
            ],
        },
        "policy": {"columns": {"s": {"role": "sensitive"}}},
        "summary": {"suppressed_rows": 1},
    }
    rc = recheck_release(table, report)
    assert rc["suppressed_rows"] == 1 and rc["classes"] == 2 and rc["agrees"]
    report["summary"]["suppressed_rows"] = 0
    assert not recheck_release(table, report)["agrees"]


def test_no_certificate_for_an_unknown_or_unfinished_run(
    workdir: Path, ui_session: Callable[..., Any]
) -> None:
    client, _ = ui_session(workdir)
    assert client.get("/run/nope/certificate").status_code == 404
    assert client.get("/api/run/nope/certificate").json()["error"]["message"]
