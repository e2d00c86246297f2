"""veil ui's SQL tables: a database named by an environment variable, never by its URL."""

from __future__ import annotations

import html
import re
import sqlite3
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    warnings.filterwarnings("ignore", "The anyio.abc.BlockingPortal alias is deprecated")

from pydantic import ValidationError

from veil._errors import InputError
from veil.policy import DataConfig
from veil.ui._policy_edit import check_policy_text

pytestmark = [
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

PORT = 8765


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    path = tmp_path / "db" / "people.sqlite"
    path.parent.mkdir()
    with sqlite3.connect(path) as conn:
        conn.execute("create table people (name text, age integer, zip text, diagnosis text)")
        conn.executemany(
            "insert into people values (?, ?, ?, ?)",
            [(f"P{i}", 20 + i % 50, str(10000 + i % 7), ["flu", "cold"][i % 2]) for i in range(80)],
        )
        conn.execute("create table empty_one (x integer)")
    url = f"sqlite:///{path}"
    monkeypatch.setenv("VEIL_DATA_URL", url)
    return url


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    return root


def _yaml_of(page: str) -> str:
    found = re.search(r'<textarea id="yaml" name="yaml"[^>]*>(.*?)</textarea>', page, re.S)
    assert found is not None
    return html.unescape(found.group(1))


def test_tables_are_listed_and_described_without_the_url(
    workdir: Path, database: str, ui_session: Callable[..., Any]
) -> None:
    client, _ = ui_session(workdir)
    listed = client.get("/data?sql_env=VEIL_DATA_URL")
    assert listed.status_code == 200
    assert re.findall(r'<option value="([^"]+)"', listed.text) == ["empty_one", "people"]
    page = client.get("/data?sql_env=VEIL_DATA_URL&sql_table=people")
    assert page.status_code == 200
    assert "80 rows, 4 columns" in page.text
    assert database not in page.text and "people.sqlite" not in page.text
    draft = html.unescape(re.search(r'id="policy-yaml">(.*?)</pre>', page.text, re.S).group(1))
    assert "url_env: VEIL_DATA_URL" in draft and 'table: "people"' in draft
    assert "sqlite" not in draft


def test_a_sql_policy_is_drafted_saved_and_run(
    workdir: Path, database: str, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir)
    page = client.get("/policy?sql_table=people&sql_env=VEIL_DATA_URL")
    assert page.status_code == 200 and 'id="check-ok"' in page.text
    r = client.post(
        "/api/policy/save",
        json={"path": "policy.yaml", "yaml": _yaml_of(page.text)},
        headers={"x-csrf-token": csrf},
    )
    assert r.status_code == 200 and r.json()["saved"], r.json()
    assert "sqlite" not in (workdir / "policy.yaml").read_text()
    job = client.post("/run", json={"policy": "policy.yaml"}, headers={"x-csrf-token": csrf}).json()
    for _ in range(600):
        state = client.get(f"/api/run/{job['id']}").json()
        if state["state"] != "running":
            break
        time.sleep(0.05)
    assert state["state"] == "done", state
    assert state["summary"]["input_rows"] == 80
    report = next(workdir.rglob("report.json")).read_text()
    assert "sqlite" not in report and "people.sqlite" not in report


def test_an_unset_variable_is_named_and_refused(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, ui_session: Callable[..., Any]
) -> None:
    monkeypatch.delenv("NOT_SET_HERE", raising=False)
    client, _ = ui_session(workdir)
    r = client.get("/data?sql_env=NOT_SET_HERE")
    assert r.status_code == 400 and "NOT_SET_HERE is not set" in r.text
    assert client.get("/data?sql_env=bad-name").status_code == 400
    from veil.io import read_table

    with pytest.raises(InputError, match="NOT_SET_HERE"):
        read_table(DataConfig(url_env="NOT_SET_HERE", table="people"))


def test_an_unknown_table_is_refused(
    workdir: Path, database: str, ui_session: Callable[..., Any]
) -> None:
    client, _ = ui_session(workdir)
    r = client.get("/data?sql_env=VEIL_DATA_URL&sql_table=nope")
    assert r.status_code == 400 and "no such table" in r.text


def test_a_password_in_clear_is_refused_at_its_key(workdir: Path) -> None:
    text = (
        "version: 1\n"
        "data: {url: 'postgresql+psycopg://u:secret@db.example/x', table: t}\n"
        "columns: {a: {role: quasi_identifier, hierarchy: {type: auto}}}\n"
        "privacy: {k_anonymity: {k: 5}}\n"
    )
    checked = check_policy_text(workdir, "policy.yaml", text)
    assert not checked["valid"] and checked["error"]["key"] == "data.url"
    assert "secret" not in checked["error"]["message"]
    ok = check_policy_text(workdir, "policy.yaml", text.replace("u:secret@", "u@"))
    assert ok["valid"], ok


def test_one_sql_source_only() -> None:
    with pytest.raises(ValidationError):
        DataConfig(url_env="X", path=Path("a.csv"))
    with pytest.raises(ValidationError):
        DataConfig(url_env="X")  # no table or query
    with pytest.raises(ValidationError):
        DataConfig(url_env="not a name", table="t")
    assert DataConfig(url_env="X", query="select 1").url_env == "X"


def test_the_report_never_shows_a_urls_password() -> None:
    from veil.policy import Policy
    from veil.report._build import policy_for_report

    pol = Policy.model_validate(
        {
            "version": 1,
            "data": {"url": "postgresql+psycopg://u:secret@db.example/x", "table": "t"},
            "columns": {"a": {"role": "quasi_identifier", "hierarchy": {"type": "auto"}}},
            "privacy": {"k_anonymity": {"k": 5}},
            "output": {"url": "postgresql://w:pw2@db.example/y", "table": "r"},
        }
    )
    dumped = policy_for_report(pol)
    assert "secret" not in str(dumped) and "pw2" not in str(dumped)
    assert dumped["data"]["url"].startswith("postgresql+psycopg://u:***@db.example")
