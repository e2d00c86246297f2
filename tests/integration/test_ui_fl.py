"""veil ui's federated view on Flower's real simulation engine (Ray): a run's result and
ledger entry, and a cancel that records exactly the rounds released.

Kept small (600 rows, 3 clients, one Ray worker): each run still starts Ray and a worker
that imports torch, which is most of its time.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from veil.data import adult_frame
from veil.dp import BudgetLedger

# Ray's process launcher leaves /dev/null handles to the garbage collector (ray's code, not
# ours): the app runs Flower's engine in its own process, so they surface here
pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

FORM = {
    "table": "adult.csv",
    "target": "salary-class",
    "clients": "3",
    "model": "logistic",
    "workers": "1",
    "dp": "client",
    "epsilon": "3",
    "delta": "1e-5",
    "dataset": "adult",
}


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, str]:
    workdir = tmp_path / "work"
    workdir.mkdir()
    adult_frame().sample(600, random_state=0).to_csv(workdir / "adult.csv", index=False)
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    with BudgetLedger(url) as led:
        led.init("adult", epsilon=10.0, delta=1e-4)
    return workdir, url


def _spends(url: str) -> list[Any]:
    with BudgetLedger(url) as led:
        return [e for e in led.history("adult") if e.status == "committed"]


def test_a_dp_run_shows_its_result_and_its_ledger_spend(
    setup: tuple[Path, str], ui_session: Callable[..., Any], wait_job: Callable[..., Any]
) -> None:
    workdir, url = setup
    client, csrf = ui_session(workdir, ledger_url=url)
    r = client.post("/fl", data={"csrf": csrf, **FORM, "rounds": "2"}, follow_redirects=False)
    assert r.status_code == 303, r.text[:500]
    job = r.headers["location"].rsplit("/", 1)[1]
    state = wait_job(client, "fl", job, 600)
    assert state["state"] == "done", state
    assert state["rounds_done"] == 2 and [x["round"] for x in state["rounds"]] == [1, 2]
    assert 0 < state["accuracy"] <= 1 and 0 < state["centralized_accuracy"] <= 1
    assert 0 < state["epsilon_spent"] <= 3
    spends = _spends(url)
    assert len(spends) == 1
    assert spends[0].epsilon == pytest.approx(state["epsilon_spent"])
    assert state["ledger"]["dataset"] == "adult"
    page = client.get(f"/fl/{job}").text
    assert 'id="fl-rounds"' in page and 'id="fl-epsilon"' in page and 'id="fl-ledger"' in page
    assert not [p for p in workdir.iterdir() if p.name != "adult.csv"]  # nothing written


def test_a_cancelled_dp_run_records_the_rounds_it_released(
    setup: tuple[Path, str], ui_session: Callable[..., Any], wait_job: Callable[..., Any]
) -> None:
    import time

    from veil.federated import FLConfig
    from veil.federated._simulate import client_noise
    from veil.train import epsilon_after

    workdir, url = setup
    client, csrf = ui_session(workdir, ledger_url=url)
    r = client.post("/fl", data={"csrf": csrf, **FORM, "rounds": "40"}, follow_redirects=False)
    assert r.status_code == 303, r.text[:500]
    job = r.headers["location"].rsplit("/", 1)[1]
    deadline = time.monotonic() + 600
    while client.get(f"/api/fl/{job}").json()["rounds_done"] < 1:
        assert time.monotonic() < deadline, "no round finished"
        time.sleep(0.2)
    assert client.post(f"/fl/{job}/cancel", data={"csrf": csrf}).status_code in (200, 303)
    state = wait_job(client, "fl", job, 600)
    assert state["state"] == "cancelled", state
    done = state["rounds_done"]
    assert 1 <= done < 40
    # the epsilon of exactly the rounds released, computed here from the run's noise
    sigma, _ = client_noise(
        FLConfig(clients=3, rounds=40, model="logistic", dp="client", epsilon=3.0, delta=1e-5)
    )
    spends = _spends(url)
    assert len(spends) == 1
    assert spends[0].epsilon == pytest.approx(epsilon_after(sigma, 1.0, done, 1e-5, "rdp"))
    page = client.get(f"/fl/{job}").text
    assert f"Cancelled after {done} of 40 rounds" in page
    assert f"the epsilon of the {done} round(s) released is recorded" in page
