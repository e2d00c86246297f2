"""veil ui's federated view: the form checked as `veil fl simulate` checks its options,
refused with nothing started (the real runs, on Flower and Ray: tests/integration/test_ui_fl.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError
from veil.federated import FLConfig
from veil.ui._fl import fl_config

pytestmark = [
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated"),
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias is deprecated"),
]

GOOD = {"table": "people.csv", "target": "y", "clients": "3", "rounds": "2"}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    pd.DataFrame({"x": x, "c": rng.choice(["a", "b"], 200), "y": (x > 0).astype(int)}).to_csv(
        root / "people.csv", index=False
    )
    (tmp_path / "outside.csv").write_text("x,y\n1,0\n")
    return root


def _cli_message(**kw: Any) -> str:
    """What FLConfig.validate (the CLI's check) says for these settings."""
    with pytest.raises(InputError) as info:
        FLConfig(**kw).validate()
    return info.value.message


@pytest.mark.parametrize(
    ("fields", "cli"),
    [
        ({"strategy": "fedsgd"}, {"strategy": "fedsgd"}),
        ({"partition": "dirichlet:-1"}, {"partition": "dirichlet:-1"}),
        ({"secagg": "1", "clients": "2"}, {"secagg": True, "clients": 2}),
        ({"dp": "client"}, {"dp": "client"}),
        ({"dp": "client", "epsilon": "-1"}, {"dp": "client", "epsilon": -1.0}),
        (
            {"dp": "client", "epsilon": "3", "strategy": "scaffold"},
            {"dp": "client", "epsilon": 3.0, "strategy": "scaffold"},
        ),
        ({"rounds": "0"}, {"rounds": 0}),
        ({"fraction_fit": "1.5"}, {"fraction_fit": 1.5}),
        ({"dropout": "1"}, {"dropout": 1.0}),
        ({"adaptive_clip": "1"}, {"adaptive_clip": True}),
        (
            {"dp": "sample", "epsilon": "3", "strategy": "scaffold"},
            {"dp": "sample", "epsilon": 3.0, "strategy": "scaffold"},
        ),
        (
            {"dp": "client", "epsilon": "3", "clip_norm": "0"},
            {"dp": "client", "epsilon": 3.0, "clip_norm": 0.0},
        ),
    ],
)
def test_the_form_gets_the_clis_messages(fields: dict[str, str], cli: dict[str, Any]) -> None:
    with pytest.raises(InputError) as info:
        fl_config({**GOOD, **fields})
    base = {"clients": 3, "rounds": 2, "model": "logistic"}
    assert info.value.message == _cli_message(**{**base, **cli})


def test_the_form_makes_the_config_the_cli_would() -> None:
    config = fl_config(
        {**GOOD, "dp": "client", "epsilon": "3", "dataset": "d", "secagg": "1", "partition": "iid"}
    )
    assert (config.clients, config.rounds, config.dp, config.epsilon, config.secagg) == (
        3,
        2,
        "client",
        3.0,
        True,
    )
    with pytest.raises(InputError, match="whole number"):
        fl_config({**GOOD, "clients": "three"})
    with pytest.raises(InputError, match="dataset's privacy budget pays"):
        fl_config({**GOOD, "dp": "client", "epsilon": "3"})
    with pytest.raises(InputError, match="unknown differential privacy mode"):
        fl_config({**GOOD, "dp": "user", "epsilon": "3"})
    # the advanced fields: blank keeps the CLI's defaults, given ones reach the config
    assert fl_config(GOOD) == FLConfig(clients=3, rounds=2, model="logistic")
    sample = fl_config(
        {
            **GOOD,
            "dp": "sample",
            "epsilon": "3",
            "dataset": "d",
            "local_epochs": "2",
            "fraction_fit": "0.5",
            "clip_norm": "0.7",
            "seed": "4",
        }
    )
    assert (sample.dp, sample.local_epochs, sample.fraction_fit, sample.clip_norm, sample.seed) == (
        "sample",
        2,
        0.5,
        0.7,
        4,
    )
    adaptive = fl_config(
        {
            **GOOD,
            "clients": "10",
            "dp": "client",
            "epsilon": "3",
            "dataset": "d",
            "adaptive_clip": "1",
            "secagg": "1",
            "dropout": "0.3",
        }
    )
    assert adaptive.adaptive_clip and adaptive.secagg and adaptive.dropout == 0.3
    with pytest.raises(InputError, match="--local-epochs must be a whole number"):
        fl_config({**GOOD, "local_epochs": "two"})


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"target": "nope"}, "not a column"),
        ({"target": ""}, "name the column to predict"),
        ({"table": "../outside.csv"}, "leaves the working folder"),
        ({"table": "missing.csv"}, "no such file"),
        ({"strategy": "fedsgd"}, "fedsgd"),
        ({"dp": "client", "epsilon": "3", "dataset": "d"}, "no datasets yet"),
    ],
)
def test_bad_forms_are_refused_with_nothing_started(
    workdir: Path,
    tmp_path: Path,
    ui_session: Callable[..., Any],
    fields: dict[str, str],
    message: str,
) -> None:
    ledger = tmp_path / "ledger.sqlite"
    client, csrf = ui_session(workdir, ledger_url=f"sqlite:///{ledger}")
    r = client.post("/fl", data={"csrf": csrf, **GOOD, **fields})
    assert r.status_code == 400
    assert message in r.text
    assert 'id="fl-form"' in r.text  # the form again, with what was typed
    assert not ledger.exists()  # no ledger made, nothing spent
    assert "Runs in this session" not in r.text


def test_the_form_page_and_unknown_runs(workdir: Path, ui_session: Callable[..., Any]) -> None:
    client, csrf = ui_session(workdir)
    page = client.get("/fl")
    assert page.status_code == 200
    assert 'value="people.csv"' in page.text and 'id="fl-start"' in page.text
    assert client.get("/fl/nope").status_code == 404
    assert client.get("/api/fl/nope").status_code == 404
    assert client.post("/fl/nope/cancel", data={"csrf": csrf}).status_code == 404
    # a start without the CSRF token is refused before anything is read
    assert client.post("/fl", data=GOOD).status_code == 403
