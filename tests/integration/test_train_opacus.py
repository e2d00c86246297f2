"""DP-SGD with real Opacus and a real SQLite ledger, on a small generated table (fast)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from torch import nn
from torch.utils.data import Dataset, TensorDataset

from veil._errors import InputError, LedgerUnavailableError, PrivacyBudgetExceeded
from veil.dp import BudgetLedger
from veil.train import (
    DPTrainConfig,
    ModelNotPrivatizable,
    epsilon_after,
    load_tabular_model,
    train_private,
    train_tabular,
)

torch.set_num_threads(1)

# typer calls click helpers that click 8.2 deprecates; not ours to fix, filtered narrowly.
pytestmark = pytest.mark.filterwarnings(
    "ignore:.click.utils.get_.*_stream. is deprecated:DeprecationWarning"
)

# Few steps everywhere: the point is the plumbing and the accounting, not accuracy.
FAST = {"epochs": 2, "batch_size": 100, "compare_rdp": False, "learning_rate": 0.01}
# Plumbing tests skip the calibration (a PRV bisection takes seconds): a fixed sigma, RDP.
FIXED = {**FAST, "noise_multiplier": 1.5, "accountant": "rdp"}


def _table(n: int = 800, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n)
    job = rng.choice(["a", "b", "c", "d"], n)
    hours = rng.normal(40, 10, n)
    score = (age > 45).astype(int) + (job == "a") + (hours > 45)
    label = np.where(score + rng.normal(0, 0.3, n) > 1.2, "high", "low")
    return pd.DataFrame({"age": age, "job": job, "hours": hours, "label": label})


def _ledger(tmp_path: Path, epsilon: float = 10.0) -> BudgetLedger:
    led = BudgetLedger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")
    led.init("people", epsilon=epsilon, delta=1e-4)
    return led


def test_tabular_run_spends_within_target_and_records_it(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    cfg = DPTrainConfig(epsilon=4.0, delta=1e-5, **FAST)  # type: ignore[arg-type]
    rep = train_tabular(_table(), "label", config=cfg, ledger=ledger, dataset_name="people", seed=0)
    dp = rep.dp
    assert rep.n_train == 640 and rep.n_test == 160
    assert dp.steps == dp.planned_steps == 2 * math.ceil(640 / 100)
    assert 0 < dp.epsilon_spent <= 4.0
    # Epsilon per epoch is increasing and ends at what was spent.
    eps = [e["epsilon"] for e in dp.epsilon_per_epoch]
    assert len(eps) == 2 and eps[0] < eps[1] == pytest.approx(dp.epsilon_spent)
    # The accountant saw exactly our schedule; recomputing it independently agrees.
    assert dp.accountant_history == [(dp.noise_multiplier, dp.sample_rate, dp.steps)]
    assert epsilon_after(dp.noise_multiplier, dp.sample_rate, dp.steps, 1e-5) == pytest.approx(
        dp.epsilon_spent
    )
    # The ledger holds one committed spend: the reserved target, with the schedule's curve.
    (spend,) = ledger.history("people")
    assert spend.status == "committed" and spend.mechanism == "dpsgd"
    assert spend.epsilon == 4.0 and spend.delta == 1e-5
    assert spend.curve == {
        "type": "dpsgd",
        "history": [[dp.noise_multiplier, dp.sample_rate, dp.planned_steps]],
    }
    summary = rep.summary()
    for key in ("accuracy", "epsilon_spent", "delta", "seconds", "baseline"):
        assert key in summary
    assert summary["baseline"]["accuracy"] is not None
    assert summary["ledger"]["spend_id"] == spend.id
    ledger.close()


def test_refused_budget_trains_nothing(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, epsilon=1.0)
    cfg = DPTrainConfig(epsilon=3.0, delta=1e-5, **FAST)  # type: ignore[arg-type]
    with pytest.raises(PrivacyBudgetExceeded):
        train_tabular(_table(), "label", config=cfg, ledger=ledger, dataset_name="people")
    assert ledger.history("people") == []
    ledger.close()


def test_unreachable_ledger_is_a_clear_error_and_trains_nothing(tmp_path: Path) -> None:
    # Nothing listens on port 1: the connection is refused.
    ledger = BudgetLedger("postgresql+psycopg://nobody@127.0.0.1:1/ledger", busy_timeout=2)
    cfg = DPTrainConfig(epsilon=3.0, delta=1e-5, **FAST)  # type: ignore[arg-type]
    with pytest.raises(LedgerUnavailableError, match="nothing was"):
        train_tabular(_table(), "label", config=cfg, ledger=ledger, dataset_name="people")


class _ExplodingLoss(nn.CrossEntropyLoss):
    """A loss that fails on its n-th call (simulates a crash mid-training)."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.calls = 0
        self.after = after

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        if self.calls > self.after:
            raise RuntimeError("simulated crash")
        return super().forward(logits, target)


def _xy(n: int = 600) -> TensorDataset:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 5, generator=g)
    return TensorDataset(x, (x[:, 0] > 0).long())


def test_crash_before_any_checkpoint_records_no_spend(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    cfg = DPTrainConfig(epsilon=3.0, delta=1e-5, grad_sample_mode="hooks", **FIXED)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="simulated crash"):
        train_private(
            nn.Linear(5, 2),
            _xy(),
            config=cfg,
            loss_fn=_ExplodingLoss(after=3),
            ledger=ledger,
            dataset_name="people",
        )
    assert ledger.history("people") == []
    ledger.close()


def test_checkpoint_keeps_spend_and_resume_finishes_without_new_charge(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    ckpt = tmp_path / "run.ckpt"
    cfg = DPTrainConfig(epsilon=3.0, delta=1e-5, grad_sample_mode="hooks", **FIXED)  # type: ignore[arg-type]
    steps_per_epoch = 6  # 600 rows, batch 100
    with pytest.raises(RuntimeError, match="simulated crash"):
        train_private(
            nn.Linear(5, 2),
            _xy(),
            config=cfg,
            loss_fn=_ExplodingLoss(after=steps_per_epoch + 2),
            ledger=ledger,
            dataset_name="people",
            checkpoint_path=ckpt,
        )
    # The first epoch's checkpoint is on disk, so the spend stays recorded.
    (spend,) = ledger.history("people")
    assert spend.status == "committed" and spend.epsilon == 3.0
    res = train_private(
        nn.Linear(5, 2), _xy(), config=cfg, ledger=ledger, dataset_name="people", resume_from=ckpt
    )
    assert res.steps == res.planned_steps == 2 * steps_per_epoch
    assert res.accountant_history == [(res.noise_multiplier, res.sample_rate, res.steps)]
    assert res.epsilon_spent <= 3.0
    assert res.ledger is not None and res.ledger.resumed and res.ledger.spend_id == spend.id
    assert len(ledger.history("people")) == 1  # not charged twice
    # Resuming with other settings is refused.
    other = DPTrainConfig(epsilon=2.0, delta=1e-5, grad_sample_mode="hooks", **FIXED)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="different run"):
        train_private(nn.Linear(5, 2), _xy(), config=other, resume_from=ckpt)
    ledger.close()


class _ListDataset(Dataset[tuple[torch.Tensor, torch.Tensor]]):
    """A user's own map-style dataset (not a TensorDataset): goes through DPDataLoader."""

    def __init__(self, ds: TensorDataset) -> None:
        self.ds = ds

    def __len__(self) -> int:
        return len(self.ds)

    def __getitem__(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        x, y = self.ds[i]
        return x, y


def test_generic_module_with_batchnorm_is_fixed_and_trained() -> None:
    model = nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
    cfg = DPTrainConfig(epsilon=5.0, delta=1e-5, **FIXED)  # type: ignore[arg-type]
    res = train_private(model, _ListDataset(_xy()), config=cfg)
    assert res.module_fixes == ["1: BatchNorm1d -> GroupNorm"]
    assert res.grad_sample_mode == "hooks"  # GroupNorm is not a ghost-norm layer
    assert isinstance(res.model[1], nn.GroupNorm)
    assert res.steps == res.planned_steps and res.epsilon_spent <= 5.0


def test_explicit_noise_stops_before_the_budget_is_exceeded() -> None:
    cfg = DPTrainConfig(
        epsilon=1.0,
        delta=1e-5,
        noise_multiplier=2.0,
        epochs=5,
        batch_size=100,
        compare_rdp=False,
        grad_sample_mode="ghost",
        accountant="rdp",
    )
    res = train_private(nn.Linear(5, 2), _xy(), config=cfg)
    assert res.stopped_early and 0 < res.steps < res.planned_steps
    assert res.epsilon_spent <= 1.0
    assert epsilon_after(2.0, res.sample_rate, res.steps + 1, 1e-5, "rdp") > 1.0


def test_bad_inputs_are_refused_before_training() -> None:
    cfg = DPTrainConfig(epsilon=3.0, delta=1e-2, **FAST)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="below 1/n"):
        train_private(nn.Linear(5, 2), _xy(), config=cfg)
    ok = DPTrainConfig(epsilon=3.0, delta=1e-5, **FAST)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="empty"):
        train_private(nn.Linear(5, 2), TensorDataset(torch.zeros(0, 5), torch.zeros(0)), config=ok)

    class _Buffered(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(torch.ones(5))
            self.register_buffer("b", torch.zeros(1))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * self.w

    with pytest.raises(ModelNotPrivatizable, match="buffers"):
        train_private(nn.Sequential(_Buffered(), nn.Linear(5, 2)), _xy(), config=ok)
    with pytest.raises(InputError, match="empty"):
        train_tabular(_table().iloc[:0], "label", config=ok)


def test_empty_poisson_batches_take_a_noise_only_step() -> None:
    # 30 rows at rate 1/30: most batches hold 0 or 1 rows; every step is still accounted.
    cfg = DPTrainConfig(
        epsilon=8.0,
        delta=1e-3,
        epochs=2,
        batch_size=1,
        compare_rdp=False,
        noise_multiplier=1.0,
        accountant="rdp",
    )
    res = train_private(nn.Linear(5, 2), _xy(30), config=cfg)
    assert res.steps == 60 and res.accountant_history[0][2] == 60


# ------------------------------------------------------------------ CLI


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from veil.cli import main

    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_trains_writes_model_and_prints_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "people.csv"
    _table().to_csv(data, sep=";", index=False)
    model = tmp_path / "model.pt"
    url = f"sqlite:///{tmp_path / 'l.sqlite'}"
    ledger = BudgetLedger(url)
    ledger.init("people", epsilon=5.0, delta=1e-4)
    ledger.close()
    code, out, err = _cli(
        [
            "train",
            str(data),
            "--target",
            "label",
            "--epsilon",
            "3",
            "--delta",
            "1e-5",
            "--epochs",
            "2",
            "--batch-size",
            "100",
            "--ledger",
            url,
            "--dataset",
            "people",
            "--out",
            str(model),
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    result = json.loads(out)
    assert {"accuracy", "epsilon_spent", "delta", "seconds", "baseline"} <= set(result)
    assert {"accuracy", "seconds"} <= set(result["baseline"])
    assert result["epsilon_spent"] <= 3.0 and result["delta"] == 1e-5
    assert result["noise_multiplier"] < result["rdp_noise_multiplier"]
    assert result["ledger"]["epsilon_charged"] == 3.0
    clf = load_tabular_model(model)
    preds = clf.predict(_table(50, seed=7))
    assert set(preds) <= {"high", "low"} and len(preds) == 50
    # A second run would overspend: exit 3, nothing trained, the model file untouched.
    before = model.read_bytes()
    code, out, err = _cli(
        [
            "train",
            str(data),
            "--target",
            "label",
            "--epsilon",
            "3",
            "--delta",
            "1e-5",
            "--epochs",
            "1",
            "--ledger",
            url,
            "--dataset",
            "people",
            "--out",
            str(model),
            "--json",
        ],
        capsys,
    )
    assert code == 3 and out == "" and "exceed" in err
    assert model.read_bytes() == before


def test_cli_refuses_a_budget_made_for_other_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from veil.dp import fingerprint_frame

    data = tmp_path / "people.csv"
    _table().to_csv(data, index=False)
    url = f"sqlite:///{tmp_path / 'l.sqlite'}"
    ledger = BudgetLedger(url)
    ledger.init("people", epsilon=5.0, delta=1e-4, fingerprint=fingerprint_frame(_table(seed=2)))
    ledger.close()
    model = tmp_path / "m.pt"
    code, _out, err = _cli(
        [
            "train",
            str(data),
            "--target",
            "label",
            "--epsilon",
            "1",
            "--epochs",
            "1",
            "--ledger",
            url,
            "--dataset",
            "people",
            "--out",
            str(model),
        ],
        capsys,
    )
    assert code == 2 and "fingerprint" in err and not model.exists()
    ledger = BudgetLedger(url)
    assert ledger.history("people") == []
    ledger.close()


@pytest.mark.parametrize(
    ("extra", "code", "fragment"),
    [
        (["--delta", "0.01", "--no-ledger"], 2, "below 1/n"),
        (["--epsilon", "0", "--no-ledger"], 2, "epsilon"),
        ([], 2, "--dataset"),
        (["--no-ledger", "--target", "nope"], 2, "target column"),
        (
            ["--ledger", "postgresql+psycopg://nobody@127.0.0.1:1/l", "--dataset", "people"],
            1,
            "ledger",
        ),
    ],
)
def test_cli_bad_input_exits_cleanly_without_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], code: int, fragment: str
) -> None:
    data = tmp_path / "people.csv"
    _table().to_csv(data, index=False)
    model = tmp_path / "model.pt"
    args = [
        "train",
        str(data),
        "--target",
        "label",
        "--epsilon",
        "3",
        "--epochs",
        "1",
        "--out",
        str(model),
        *extra,
    ]
    got, _out, err = _cli(args, capsys)
    assert got == code and fragment in err
    assert not model.exists()
    assert list(tmp_path.iterdir()) == [data]  # no partial or temporary file


def test_cli_baseline_only_trains_without_dp_spends_nothing_and_writes_no_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "people.csv"
    _table().to_csv(data, index=False)
    args = ["train", str(data), "--target", "label", "--epsilon", "3", "--epochs", "2"]
    code, out, err = _cli([*args, "--batch-size", "100", "--baseline-only", "--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["private"] is False and result["seconds"] is None
    assert 0.5 <= result["baseline"]["accuracy"] <= 1 and result["baseline"]["seconds"] > 0
    assert result["n_train"] == 640 and result["steps"] == 2 * math.ceil(640 / 100)
    assert "epsilon_spent" not in result and "ledger" not in result
    # without DP there is no model to write: --out is refused before anything is trained
    code, out, err = _cli([*args, "--baseline-only", "--out", str(tmp_path / "m.pt")], capsys)
    assert code == 2 and "never written" in err
    assert not (tmp_path / "m.pt").exists()


def test_cli_per_epoch_epsilon_bounds_and_ends_at_the_spend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "people.csv"
    _table().to_csv(data, index=False)
    code, out, err = _cli(
        [
            *("train", str(data), "--target", "label", "--epsilon", "3", "--epochs", "3"),
            *("--batch-size", "100", "--no-ledger", "--no-baseline", "--json"),
        ],
        capsys,
    )
    assert code == 0, err
    result = json.loads(out)
    per_epoch = result["epsilon_per_epoch"]
    assert [e["steps"] for e in per_epoch] == [7, 14, 21]
    assert per_epoch[-1]["epsilon"] == result["epsilon_spent"] <= 3.0
    for e in per_epoch:
        # never below Opacus' own accountant for that many steps
        exact = epsilon_after(result["noise_multiplier"], result["sample_rate"], e["steps"], 1e-5)
        assert exact <= e["epsilon"] <= exact + 0.015
