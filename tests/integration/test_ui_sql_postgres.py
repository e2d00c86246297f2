"""veil ui's SQL tables on a real PostgreSQL: listed, described, a policy drafted naming the
environment variable (never the URL), saved and run. Skips outside CI when the server is
not reachable on 127.0.0.1:5432 (the ``postgres_url`` fixture); fails under ``CI=true``."""

from __future__ import annotations

import html
import re
import secrets
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")
pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    warnings.filterwarnings("ignore", "The anyio.abc.BlockingPortal alias is deprecated")


pytestmark = [
    pytest.mark.postgres,
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

PORT = 8767
ENV = "VEIL_TEST_PG_URL"  # not the default variable: the page names it


@pytest.fixture
def table(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A table of 120 people in the test database (its own name, dropped afterwards)."""
    import sqlalchemy as sa

    name = f"ui_people_{secrets.token_hex(4)}"
    engine = sa.create_engine(postgres_url)
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                f"create table {name} (name text, age integer, zip text, diagnosis text, "
                "admitted date)"
            )
        )
        conn.execute(
            sa.text(f"insert into {name} values (:n, :a, :z, :d, make_date(2020, 1 + :m, 1))"),
            [
                {
                    "n": f"P{i}",
                    "a": 20 + i % 50,
                    "z": str(10000 + i % 7),
                    "d": ["flu", "cold"][i % 2],
                    "m": i % 12,
                }
                for i in range(120)
            ],
        )
    monkeypatch.setenv(ENV, postgres_url)
    try:
        yield name
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f"drop table if exists {name}"))
        engine.dispose()


def test_a_postgres_table_is_listed_described_drafted_and_run(
    tmp_path: Path, table: str, postgres_url: str, ui_session: Callable[..., Any]
) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    client, csrf = ui_session(workdir)
    listed = client.get(f"/data?sql_env={ENV}")
    assert listed.status_code == 200, listed.text[:400]
    assert table in re.findall(r'<option value="([^"]+)"', listed.text)
    page = client.get(f"/data?sql_env={ENV}&sql_table={table}")
    assert page.status_code == 200
    assert "120 rows, 5 columns" in page.text
    for column in ("name", "age", "zip", "diagnosis", "admitted"):
        assert f">{column}<" in page.text
    # neither the URL nor its parts reach the page
    assert postgres_url not in page.text and "127.0.0.1:5432" not in page.text
    found = re.search(r'id="policy-yaml">(.*?)</pre>', page.text, re.S)
    assert found is not None
    draft = html.unescape(found.group(1))
    assert f"url_env: {ENV}" in draft and f'table: "{table}"' in draft
    assert "postgresql" not in draft and "5432" not in draft
    # the drafted policy, on the Policy page: checked, saved, run from the database
    policy_page = client.get(f"/policy?sql_table={table}&sql_env={ENV}")
    assert policy_page.status_code == 200 and 'id="check-ok"' in policy_page.text
    yaml_found = re.search(
        r'<textarea id="yaml" name="yaml"[^>]*>(.*?)</textarea>', policy_page.text, re.S
    )
    assert yaml_found is not None
    r = client.post(
        "/api/policy/save",
        json={"path": "policy.yaml", "yaml": html.unescape(yaml_found.group(1))},
        headers={"x-csrf-token": csrf},
    )
    assert r.status_code == 200 and r.json()["saved"], r.json()
    assert "postgresql" not in (workdir / "policy.yaml").read_text()
    job = client.post("/run", json={"policy": "policy.yaml"}, headers={"x-csrf-token": csrf}).json()
    for _ in range(1200):
        state = client.get(f"/api/run/{job['id']}").json()
        if state["state"] != "running":
            break
        time.sleep(0.05)
    assert state["state"] == "done", state
    assert state["summary"]["input_rows"] == 120
    report = next(workdir.rglob("report.json")).read_text()
    assert "postgresql" not in report and "5432" not in report
