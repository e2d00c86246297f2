"""DP-SGD SISA shards: the schedule's accounting, per-row partition, the ledger paid once at
fit and never refunded by erasures, and exact erasure of noisy shards (real ledger)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil._errors import InputError, PrivacyBudgetExceeded
from veil.dp import BudgetLedger
from veil.train import epsilon_after
from veil.unlearning import SISAModel, fit_table, hash_ids
from veil.unlearning._dp import keyed_partition, plan_schedule
from veil.unlearning._store import ModelStore

KEY = bytes.fromhex("5b2e9c07d14a83f6e2c19b5d07a4f3e861c2d9b04e7a15f3c8d26b90e1f4a7d3")
OTHER_KEY = bytes.fromhex("a0c4e81f3d5b7926e4f08c1a3b5d79e2f6a8c0d4e2b6f8a1c3e5d7f9b0a2c4e6")


def _table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.choice(["red", "green", "blue"], size=n)
    x = rng.normal(size=n)
    y = np.where((a == "red") ^ (x > 0.3), "yes", "no")
    return pd.DataFrame({"pid": [f"p{i:04d}" for i in range(n)], "colour": a, "x": x, "t": y})


def _ledger(tmp_path: Path, epsilon: float = 4.0) -> BudgetLedger:
    ledger = BudgetLedger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")
    ledger.init("people", epsilon=epsilon, delta=1e-4)
    return ledger


def _fit(tmp_path: Path, ledger: BudgetLedger | None, key: bytes = KEY, name: str = "m", **kw):  # type: ignore[no-untyped-def]
    args = {"shards": 3, "slices": 2, "epochs": 2, "batch_size": 32, "epsilon": 2.0}
    args.update(kw)
    return fit_table(
        _table(),
        "t",
        "pid",
        out=tmp_path / name,
        key=key,
        delta=1e-5,
        ledger=ledger,
        dataset_name=None if ledger is None else "people",
        **args,
    )


@pytest.mark.parametrize("accountant", ["prv", "rdp"])
def test_schedule_stays_within_the_target_for_the_worst_case_row(accountant: str) -> None:
    sched = plan_schedule(
        epsilon=3.0,
        delta=1e-5,
        rows=24_000,
        shards=20,
        stages=4,
        epochs_per_stage=8,
        batch_size=128,
        accountant=accountant,
    )
    steps = sched.steps_per_stage * sched.stages  # a row of slice 0 is in every step
    assert sched.sample_rate == pytest.approx(128 / 1200)
    again = epsilon_after(sched.noise_multiplier, sched.sample_rate, steps, 1e-5, accountant)
    assert again <= 3.0 and again == pytest.approx(sched.epsilon_accountant)
    # the calibration is not loose: 10 % less noise would break the target
    assert (
        epsilon_after(0.9 * sched.noise_multiplier, sched.sample_rate, steps, 1e-5, accountant)
        > 3.0
    )


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=300),
    drop=st.integers(min_value=0, max_value=299),
    shards=st.integers(min_value=1, max_value=9),
    slices=st.integers(min_value=1, max_value=5),
)
def test_keyed_partition_of_a_row_does_not_depend_on_the_other_rows(
    n: int, drop: int, shards: int, slices: int
) -> None:
    """What parallel composition needs: removing a row moves no other row."""
    key = ModelStore(Path("unused"), KEY).key
    ids = [f"r{i}" for i in range(n)]
    full = keyed_partition(hash_ids(key, ids), shards, slices)
    keep = [i for i in range(n) if i != drop % n]
    part = keyed_partition(hash_ids(key, [ids[i] for i in keep]), shards, slices)
    assert np.array_equal(full[0][keep], part[0]) and np.array_equal(full[1][keep], part[1])
    assert full[0].min() >= 0 and full[0].max() < shards and full[1].max() < slices


def test_fit_charges_once_forget_never_refunds_and_stays_exact(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    m = _fit(tmp_path, ledger)
    try:
        dp, rec = m.config["dp"], m.config["ledger"]
        assert dp["epsilon"] == 2.0 and dp["epsilon_accountant"] <= 2.0
        assert m.config["partition"] == "keyed"
        spends = ledger.history("people")
        assert [(s.epsilon, s.delta, s.status) for s in spends] == [(2.0, 1e-5, "committed")]
        assert rec["spend_id"] == spends[0].id and rec["refunded_by_erasures"] is False
        remaining = ledger.remaining("people")
        out = m.forget(["p0003", "p0100", "p0201"], reason="art. 17")
        assert out["forgotten"] >= 1 and m.verify()["exact"] is True
    finally:
        m.close()
    # reopened from the folder (the noise key comes from the erasure key again)
    with SISAModel.open(tmp_path / "m", key=KEY) as again:
        again.forget(["p0150"])
        assert again.verify(shards=list(range(3)))["exact"] is True
    assert ledger.remaining("people") == remaining  # nothing refunded, nothing new charged
    assert len(ledger.history("people")) == 1
    ledger.close()


def test_noise_is_keyed_not_a_function_of_the_public_seed() -> None:
    """Same noise key, same state (verify needs that); another key, other sampling and
    noise for the same data and the same public seed."""
    from torch import nn

    from veil.unlearning._dp import DPTorchShardTrainer

    sched = plan_schedule(
        epsilon=2.0, delta=1e-5, rows=200, shards=1, stages=1, epochs_per_stage=2, batch_size=32
    )
    rng = np.random.default_rng(0)
    data = {"x": rng.normal(size=(200, 3)).astype(np.float32), "y": rng.integers(0, 2, 200)}

    def train(noise_key: bytes) -> dict[str, bytes]:
        t = DPTorchShardTrainer(
            lambda: nn.Linear(3, 2), ("x",), schedule=sched, noise_key=noise_key
        )
        state = t.train_stage(t.initial_state(7), data, seed=11, final=True)
        return t.params(state)

    assert train(KEY) == train(KEY)
    assert train(KEY) != train(OTHER_KEY)
    with pytest.raises(InputError, match="noise key"):
        DPTorchShardTrainer(lambda: nn.Linear(3, 2), schedule=sched, noise_key=b"short")


def test_overspending_fit_is_refused_before_training_nothing_written(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, epsilon=1.0)
    with pytest.raises(PrivacyBudgetExceeded):
        _fit(tmp_path, ledger)
    assert not (tmp_path / "m").exists()
    assert ledger.history("people") == []
    with pytest.raises(InputError, match="without an epsilon"):
        _fit(tmp_path, ledger, epsilon=None)
    with pytest.raises(InputError, match="delta must be below"):
        fit_table(_table(), "t", "pid", out=tmp_path / "d", key=KEY, epsilon=1.0, delta=0.5)
    assert not (tmp_path / "d").exists()
    ledger.close()


def test_cli_dp_fit_forget_json_and_refusals(cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("VEIL_UNLEARN_KEY", KEY.hex())
    data = tmp_path / "t.csv"
    _table().to_csv(data, index=False)
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    _ledger(tmp_path).close()
    base = [
        "unlearn",
        "fit",
        data,
        "--target",
        "t",
        "--id-column",
        "pid",
        "--shards",
        "3",
        "--slices",
        "2",
        "--epochs",
        "2",
        "--batch-size",
        "32",
        "--json",
    ]
    r = cli(*base, "--out", tmp_path / "x", "--epsilon", "2")
    assert r.code == 2 and "--dataset NAME" in r.err and not (tmp_path / "x").exists()
    r = cli(*base, "--out", tmp_path / "x", "--dataset", "people")
    assert r.code == 2 and "needs --epsilon" in r.err
    r = cli(
        *base, "--out", tmp_path / "m", "--epsilon", "2", "--dataset", "people", "--ledger", url
    )
    assert r.code == 0, r.err
    fit = json.loads(r.out)
    assert fit["dp"]["epsilon"] == 2.0 and fit["ledger"]["epsilon_charged"] == 2.0
    r = cli("unlearn", "forget", tmp_path / "m", "--id", "p0007", "--json")
    assert r.code == 0, r.err
    forget = json.loads(r.out)
    assert forget["privacy_budget"]["refunded"] is False
    assert forget["privacy_budget"]["ledger"]["spend_id"] == fit["ledger"]["spend_id"]
    assert json.loads(cli("unlearn", "verify", tmp_path / "m", "--json").out)["exact"] is True
    with BudgetLedger(url) as ledger:
        assert [s.status for s in ledger.history("people")] == ["committed"]
