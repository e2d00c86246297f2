"""veil ui's DP query builder: the spend shown before running, the ledger spent on run."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    warnings.filterwarnings("ignore", "The anyio.abc.BlockingPortal alias is deprecated")

from veil._errors import InputError, PolicyError
from veil.dp import BudgetLedger
from veil.ui._dp_query import query_spec

pytestmark = [
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

PORT = 8765


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "people.csv").write_text(
        "age,sex\n" + "".join(f"{20 + i % 50},{'FM'[i % 2]}\n" for i in range(200))
    )
    return root


@pytest.fixture
def ledger(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    with BudgetLedger(url) as led:
        led.init("people", epsilon=1.0, delta=1e-6)
    return url


def _spent(url: str) -> float:
    with BudgetLedger(url) as led:
        return 1.0 - led.remaining("people")[0]


MEAN = {
    "table": "people.csv",
    "dataset": "people",
    "stat": "mean",
    "column": "age",
    "lower": "17",
    "upper": "90",
    "epsilon": "0.25",
}


def test_check_shows_the_spend_and_records_nothing(
    workdir: Path, ledger: str, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir, ledger_url=ledger)
    page = client.get("/budget")
    assert 'id="dp-query-form"' in page.text and 'value="people"' in page.text
    r = client.post("/budget/query", data={"csrf": csrf, "action": "check", **MEAN})
    assert r.status_code == 200, r.text
    assert 'data-dry-run="yes"' in r.text and 'id="dp-answer"' not in r.text
    assert re.search(r'id="dp-before">1<', r.text) and re.search(r'id="dp-after">0.75<', r.text)
    assert _spent(ledger) == 0.0


def test_run_answers_and_spends_from_the_ledger(
    workdir: Path, ledger: str, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir, ledger_url=ledger)
    r = client.post("/budget/query", data={"csrf": csrf, "action": "run", **MEAN})
    assert r.status_code == 200 and 'id="dp-answer"' in r.text
    assert _spent(ledger) == pytest.approx(0.25)
    assert re.search(r'id="dp-after">0.75<', r.text)
    history = client.get("/api/budget?dataset=people").json()["history"]
    assert len(history) == 1 and history[0]["epsilon"] == pytest.approx(0.25)
    # through the JSON API: a histogram with public categories
    body = {
        "table": "people.csv",
        "dataset": "people",
        "stat": "histogram",
        "column": "sex",
        "categories": "F, M",
        "epsilon": 0.5,
        "dry_run": False,
    }
    a = client.post("/api/dp/query", json=body, headers={"x-csrf-token": csrf}).json()
    assert a["spend"]["epsilon"] == 0.5 and a["after"]["epsilon"] == pytest.approx(0.25)
    assert len(a["answers"]) == 1
    assert _spent(ledger) == pytest.approx(0.75)


def test_an_exceeding_query_is_refused_with_nothing_recorded(
    workdir: Path, ledger: str, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir, ledger_url=ledger)
    for action in ("check", "run"):
        r = client.post(
            "/budget/query", data={"csrf": csrf, "action": action, **MEAN, "epsilon": "2"}
        )
        assert r.status_code == 400 and "would be exceeded" in r.text
    assert _spent(ledger) == 0.0


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"stat": "mode"}, "unknown statistic"),
        ({"epsilon": "lots"}, "epsilon must be a number"),
        ({"lower": "", "upper": ""}, "bounds"),
        ({"dataset": "nope"}, "no budget for dataset"),
        ({"table": "../x.csv"}, "leaves the working folder"),
        ({"column": "height"}, "height"),
    ],
)
def test_bad_queries_are_refused(
    workdir: Path, ledger: str, fields: dict, message: str, ui_session: Callable[..., Any]
) -> None:
    client, csrf = ui_session(workdir, ledger_url=ledger)
    r = client.post("/budget/query", data={"csrf": csrf, "action": "run", **MEAN, **fields})
    assert r.status_code == 400
    assert message in r.text
    assert _spent(ledger) == 0.0


def test_a_budget_is_created_from_the_page(
    workdir: Path, tmp_path: Path, ui_session: Callable[..., Any]
) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    client, csrf = ui_session(workdir, ledger_url=url)
    r = client.post(
        "/budget/query", data={"csrf": csrf, "action": "check", **MEAN}
    )  # no ledger yet: refused, none made
    assert r.status_code == 400 and not (tmp_path / "new.db").exists()
    r = client.post(
        "/budget/init",
        data={"csrf": csrf, "dataset": "people", "epsilon": "2", "delta": "0"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    with BudgetLedger(url) as led:
        assert led.remaining("people") == (2.0, 0.0)
    again = client.post(
        "/budget/init", data={"csrf": csrf, "dataset": "people", "epsilon": "5", "delta": "0"}
    )
    assert again.status_code == 400
    with BudgetLedger(url) as led:
        assert led.remaining("people") == (2.0, 0.0)


def test_dp_posts_need_csrf(workdir: Path, ledger: str, ui_session: Callable[..., Any]) -> None:
    client, csrf = ui_session(workdir, ledger_url=ledger)
    for path, form in [
        ("/budget/query", {**MEAN, "action": "run"}),
        ("/budget/init", {"dataset": "x", "epsilon": "1"}),
    ]:
        assert client.post(path, data=form).status_code == 403
        r = client.post(
            path, data={**form, "csrf": csrf}, headers={"origin": "http://evil.example"}
        )
        assert r.status_code == 403
    assert client.post("/api/dp/query", json={**MEAN, "dry_run": False}).status_code == 403
    assert _spent(ledger) == 0.0


def test_query_spec_matches_the_clis_parser() -> None:
    from veil.dp import parse_query

    spec = query_spec({**MEAN, "mechanism": "laplace"})
    assert spec == parse_query("mean(age, bounds=[17, 90], epsilon=0.25)")
    with pytest.raises((InputError, PolicyError)):
        query_spec({**MEAN, "lower": "90", "upper": "17"})
