"""``veil fl simulate`` end to end through Flower's real simulation engine (Ray).

Runs are kept small (600 rows, 3 clients, 2 rounds, one Ray worker): each still starts Ray
and a worker that imports torch, which is most of its time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from veil.data import adult_frame
from veil.dp import BudgetLedger

KEYS = {
    "accuracy",
    "centralized",
    "majority_class_accuracy",
    "rounds",
    "epsilon_spent",
    "delta",
    "secagg",
    "seconds",
}
SMALL = ["--clients", "3", "--rounds", "2", "--workers", "1", "--json"]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fl") / "adult.csv"
    adult_frame().sample(600, random_state=0).to_csv(path, index=False)
    return path


def _veil(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "veil", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _simulate(data: Path, *args: str) -> dict[str, Any]:
    proc = _veil("fl", "simulate", str(data), "--target", "salary-class", *SMALL, *args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def _check_shape(out: dict[str, Any], rounds: int = 2, *, secagg: bool = False) -> None:
    assert set(out) >= KEYS
    assert set(out["centralized"]) == {"accuracy", "seconds"}
    assert set(out["secagg"]) == {"enabled", "dropped", "rounds_completed"}
    assert out["secagg"]["enabled"] is secagg
    assert out["secagg"]["rounds_completed"] == rounds
    assert [r["round"] for r in out["rounds"]] == list(range(1, rounds + 1))
    for r in out["rounds"]:
        assert set(r) == {"round", "accuracy", "loss", "clients", "dropped"}
        assert 0.0 <= r["accuracy"] <= 1.0 and r["loss"] > 0
    assert out["accuracy"] == out["rounds"][-1]["accuracy"]
    assert 0.0 <= out["centralized"]["accuracy"] <= 1.0
    assert out["seconds"] > out["centralized"]["seconds"] > 0


def test_fedavg_on_a_dirichlet_split(data: Path) -> None:
    out = _simulate(data, "--partition", "dirichlet:0.5")
    _check_shape(out)
    assert out["epsilon_spent"] is None and out["delta"] is None
    assert all(r["clients"] == 3 and r["dropped"] == 0 for r in out["rounds"])
    assert sum(out["client_rows"]) == 480  # the 600 rows less the 20 % held out
    # the loss on held-out rows falls as the rounds go
    assert out["rounds"][1]["loss"] < out["rounds"][0]["loss"]


def test_scaffold_with_client_sampling(data: Path) -> None:
    out = _simulate(data, "--strategy", "scaffold", "--fraction-fit", "0.67")
    _check_shape(out)
    assert all(r["clients"] == 2 for r in out["rounds"])


def test_fedprox_on_a_natural_column_split(data: Path) -> None:
    out = _simulate(data, "--strategy", "fedprox", "--partition", "column:race")
    _check_shape(out)
    assert out["strategy"] == "fedprox"


def test_the_logistic_model_trains_on_the_engine(data: Path) -> None:
    out = _simulate(data, "--model", "logistic", "--local-epochs", "2")
    _check_shape(out)
    assert out["model"] == "logistic"
    assert out["rounds"][1]["loss"] < out["rounds"][0]["loss"]


def test_client_dp_spends_what_it_reports_before_the_rounds(data: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    with BudgetLedger(url) as led:
        led.init("adult", epsilon=5.0, delta=1e-4)
    out = _simulate(
        data,
        "--strategy",
        "fedadam",
        "--dp",
        "client",
        "--epsilon",
        "3",
        "--delta",
        "1e-5",
        "--dataset",
        "adult",
        "--ledger",
        url,
    )
    _check_shape(out)
    assert 0 < out["epsilon_spent"] <= 3.0
    assert out["delta"] == 1e-5
    assert out["dp"]["sample_rate"] == 1.0  # every client every round: no amplification
    with BudgetLedger(url) as led:
        spends = led.history("adult")
    assert len(spends) == 1
    assert spends[0].status == "committed"
    assert spends[0].epsilon == out["epsilon_spent"]
    assert spends[0].delta == out["delta"]
    assert spends[0].id == out["ledger"]["spend_id"]


def test_ledger_refusal_exits_3_and_spends_nothing(data: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    with BudgetLedger(url) as led:
        led.init("adult", epsilon=0.5, delta=1e-4)
    args = ["--dp", "client", "--epsilon", "3", "--dataset", "adult", "--ledger", url]
    proc = _veil("fl", "simulate", str(data), "--target", "salary-class", *SMALL, *args)
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert proc.stdout == ""
    with BudgetLedger(url) as led:
        assert led.history("adult") == []


def test_secagg_with_client_dp_survives_dropout_and_writes_the_report(
    data: Path, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    with BudgetLedger(url) as led:
        led.init("adult", epsilon=5.0, delta=1e-4)
    out_dir = tmp_path / "report"
    out = _simulate(
        data,
        *("--secagg", "--dropout", "0.34", "--dp", "client", "--epsilon", "3"),
        *("--dataset", "adult", "--ledger", url, "--out", str(out_dir)),
    )
    _check_shape(out, secagg=True)
    # one of the three clients vanishes after key sharing in every round; the round completes
    assert [(r["clients"], r["dropped"]) for r in out["rounds"]] == [(2, 1), (2, 1)]
    assert out["secagg"]["dropped"] == 2 and out["secagg"]["rounds_completed"] == 2
    assert 0 < out["epsilon_spent"] <= 3.0
    with BudgetLedger(url) as led:
        (spend,) = led.history("adult")
    assert spend.status == "committed" and spend.epsilon == out["epsilon_spent"]
    assert json.loads((out_dir / "report.json").read_text()) == out
    page = (out_dir / "report.html").read_text()
    assert "<svg" in page and "centralized" in page and "<script" not in page


def test_adaptive_clipping_with_secagg_spends_the_same_and_moves_the_clip(
    data: Path, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    with BudgetLedger(url) as led:
        led.init("adult", epsilon=5.0, delta=1e-4)
    args = ["--dp", "client", "--epsilon", "3", "--dataset", "adult", "--ledger", url]
    out = _simulate(data, "--secagg", "--adaptive-clip", "--clip-norm", "0.001", *args)
    _check_shape(out, secagg=True)
    dp = out["dp"]
    ac = dp["adaptive_clip"]
    assert ac["clip_norms"][0] == 0.001 and len(ac["clip_norms"]) == 2
    # with 3 clients the count's noise (at least the noise multiplier) swamps the count, so
    # the clip's direction is not asserted here (tests/unit/federated/test_clientdp.py is)
    assert ac["count_noise"] >= dp["noise_multiplier"]
    assert dp["update_noise_multiplier"] > dp["noise_multiplier"]
    assert 0 < out["epsilon_spent"] <= 3.0
    with BudgetLedger(url) as led:
        (spend,) = led.history("adult")
    assert spend.epsilon == out["epsilon_spent"] and spend.status == "committed"


def test_more_dropout_than_the_threshold_aborts_and_spends_nothing(
    data: Path, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    with BudgetLedger(url) as led:
        led.init("adult", epsilon=5.0, delta=1e-4)
    out_dir = tmp_path / "report"
    args = ["--secagg", "--dropout", "0.67", "--dp", "client", "--epsilon", "3"]
    args += ["--dataset", "adult", "--ledger", url, "--out", str(out_dir)]
    proc = _veil("fl", "simulate", str(data), "--target", "salary-class", *SMALL, *args)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "round 1 was aborted" in proc.stderr
    assert "no round was released" in proc.stderr
    assert proc.stdout == ""
    assert not (out_dir / "report.json").exists()
    with BudgetLedger(url) as led:
        assert led.history("adult") == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--target", "salary-class", "--strategy", "fedsgd"], "unknown --strategy"),
        (["--target", "salary-class", "--partition", "shards:2"], "--partition"),
        (["--target", "salary-class", "--clients", "1000"], "1000 clients but only 480"),
        (["--target", "no-such-column"], "target column 'no-such-column'"),
        (["--target", "salary-class", "--dp", "client"], "--epsilon"),
        (["--target", "salary-class", "--dp", "client", "--epsilon", "1"], "--dataset"),
        (["--target", "salary-class", "--secagg", "--secagg-threshold", "0.4"], "more than half"),
        (["--target", "salary-class", "--secagg", "--strategy", "scaffold"], "--secagg"),
        (["--target", "salary-class", "--dropout", "1.5"], "--dropout"),
        (["--target", "salary-class", "--adaptive-clip"], "--dp client only"),
    ],
)
def test_bad_input_exits_2_with_a_clear_error(data: Path, args: list[str], message: str) -> None:
    proc = _veil("fl", "simulate", str(data), *args, "--json")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert message in proc.stderr
    assert proc.stdout == ""


def test_sample_level_dp_spends_the_largest_clients_epsilon(data: Path, tmp_path: Path) -> None:
    # with the PRV accountant: the clients' DP-SGD must check its steps with the accountant
    # the server calibrated with (an RDP check of a PRV-calibrated sigma would refuse them);
    # the RDP path runs through the engine in the user's-module test below
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    with BudgetLedger(url) as led:
        led.init("adult", epsilon=5.0, delta=1e-4)
    out = _simulate(
        data,
        "--dp",
        "sample",
        "--accountant",
        "prv",
        "--epsilon",
        "3",
        "--delta",
        "1e-5",
        "--dataset",
        "adult",
        "--ledger",
        url,
    )
    _check_shape(out)
    assert out["dp"]["mode"] == "sample" and out["dp"]["unit"] == "one row"
    assert out["dp"]["accountant"] == "prv"
    assert len(out["dp"]["noise_multipliers"]) == 3
    assert 0 < out["epsilon_spent"] <= 3.0
    with BudgetLedger(url) as led:
        (spend,) = led.history("adult")
    assert spend.epsilon == out["epsilon_spent"] and spend.mechanism == "dp-sgd"


USER_SCRIPT = """
import json, sys
import torch
from torch import nn
from veil.data import adult_frame
from veil.federated import FLConfig, simulate_federated


class Net(nn.Module):  # defined in __main__, which a Ray worker cannot import
    def __init__(self, cards, n_numeric, n_classes):
        super().__init__()
        self.emb = nn.ModuleList(nn.Embedding(c + 1, 4) for c in cards)
        self.out = nn.Sequential(nn.Linear(4 * len(cards) + n_numeric, 16), nn.ReLU(),
                                 nn.Linear(16, n_classes))

    def forward(self, x_cat, x_num):
        parts = [e(x_cat[:, i]) for i, e in enumerate(self.emb)]
        return self.out(torch.cat([*parts, x_num], dim=1))


def make_net(cards, n_numeric, n_classes):
    return Net(cards, n_numeric, n_classes)


frame = adult_frame().sample(600, random_state=0)
config = FLConfig(clients=3, rounds=2, workers=1, model=make_net, dp="sample", epsilon=3.0)
out = simulate_federated(frame, "salary-class", config)
json.dump({k: out[k] for k in ("model", "accuracy", "rounds", "epsilon_spent", "dp")}, sys.stdout)
"""


def test_a_users_module_from_a_script_trains_on_the_engine_with_dp_sgd(tmp_path: Path) -> None:
    # the user's path: a class and factory in their own script (__main__), Flower's Ray
    # engine, and the clients' DP-SGD (Opacus) on that model
    script = tmp_path / "train_fl.py"
    script.write_text(USER_SCRIPT)
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["model"] == "custom:make_net"
    assert [r["round"] for r in out["rounds"]] == [1, 2]
    assert all(0.0 <= r["accuracy"] <= 1.0 and r["loss"] > 0 for r in out["rounds"])
    assert out["dp"]["mode"] == "sample" and 0 < out["epsilon_spent"] <= 3.0
