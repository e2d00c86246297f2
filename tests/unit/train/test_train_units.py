"""Unit tests of veil.train: argument checks, module validation, encoder, ledger glue."""

from __future__ import annotations

import math

import pandas as pd
import pytest
import torch
from torch import nn

from veil._errors import InputError, PrivacyBudgetExceeded, SchemaError
from veil.dp import BudgetLedger
from veil.train import (
    DPTrainConfig,
    ModelNotPrivatizable,
    TabularEncoder,
    check_budget,
    load_checkpoint,
    make_private_compatible,
    make_tabular_mlp,
    resolve_grad_sample_mode,
    sample_rate_for,
    save_checkpoint,
)
from veil.train._spend import charge_run

torch.set_num_threads(1)


# ------------------------------------------------------------------ budget arguments


@pytest.mark.parametrize(
    ("epsilon", "delta", "n", "fragment"),
    [
        (0.0, 1e-5, 1000, "epsilon must be a positive"),
        (-1.0, 1e-5, 1000, "epsilon must be a positive"),
        (math.nan, 1e-5, 1000, "epsilon must be a positive"),
        (math.inf, 1e-5, 1000, "epsilon must be a positive"),
        (101.0, 1e-5, 1000, "at most 100"),
        (1.0, 0.0, 1000, "delta must be in (0, 1)"),
        (1.0, 1.0, 1000, "delta must be in (0, 1)"),
        (1.0, 1e-3, 1000, "delta must be below 1/n"),
        (1.0, 2e-3, 1000, "delta must be below 1/n"),
        (1.0, 1e-5, 0, "empty"),
    ],
)
def test_check_budget_refuses(epsilon: float, delta: float, n: int, fragment: str) -> None:
    with pytest.raises(InputError, match=None) as info:
        check_budget(epsilon, delta, n)
    assert fragment in str(info.value)


def test_check_budget_accepts_valid_targets() -> None:
    check_budget(3.0, 1e-5, 30_000)
    check_budget(100.0, 9.9e-4, 1000)  # just below 1/n


def test_sample_rate_matches_opacus_loader_length() -> None:
    assert sample_rate_for(1000, 100) == pytest.approx(0.1)
    assert sample_rate_for(1001, 100) == pytest.approx(1 / 11)
    assert sample_rate_for(50, 100) == 1.0  # one full batch
    with pytest.raises(InputError):
        sample_rate_for(0, 10)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"epochs": 0},
        {"batch_size": 0},
        {"learning_rate": -1.0},
        {"max_grad_norm": 0.0},
        {"optimizer": "lbfgs"},
        {"accountant": "gdp"},
        {"grad_sample_mode": "functorch-magic"},
        {"noise_multiplier": -0.5},
    ],
)
def test_config_rejects_bad_settings(kwargs: dict[str, object]) -> None:
    with pytest.raises(InputError):
        DPTrainConfig(epsilon=1.0, delta=1e-5, **kwargs)  # type: ignore[arg-type]


# ------------------------------------------------------------------ module validation


class _ScaleWithBuffer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))
        self.register_buffer("seen", torch.zeros(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.w


def test_module_fix_reports_batchnorm_replacement() -> None:
    original = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
    fixed, changes = make_private_compatible(original)
    assert changes == ["1: BatchNorm1d -> GroupNorm"]
    assert isinstance(fixed[1], nn.GroupNorm)
    assert isinstance(original[1], nn.BatchNorm1d)  # the caller's model is untouched


def test_module_without_problems_is_returned_as_is() -> None:
    model = nn.Sequential(nn.Linear(4, 2))
    same, changes = make_private_compatible(model)
    assert same is model and changes == []


def test_unfixable_module_is_refused_with_what_validator_found() -> None:
    with pytest.raises(ModelNotPrivatizable) as info:
        make_private_compatible(nn.Sequential(nn.Linear(4, 4), _ScaleWithBuffer()))
    assert info.value.problems
    assert "buffers" in str(info.value)
    with pytest.raises(ModelNotPrivatizable, match="BatchNorm"):
        make_private_compatible(nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8)), fix=False)


def test_auto_mode_picks_fused_for_linear_ghost_for_embedding_hooks_otherwise() -> None:
    assert resolve_grad_sample_mode(make_tabular_mlp([3, 4], 2, 2), "auto") == "fused"
    embedded = nn.Sequential(nn.Embedding(5, 4), nn.Flatten(), nn.Linear(8, 2))
    assert resolve_grad_sample_mode(embedded, "auto") == "ghost"
    assert (
        resolve_grad_sample_mode(nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4)), "auto") == "hooks"
    )
    assert resolve_grad_sample_mode(nn.Linear(2, 2), "hooks") == "hooks"


# ------------------------------------------------------------------ tabular encoder


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "color": ["red", "blue", "red", None, "green", "blue"],
            "size": [1.0, 2.0, 3.0, None, 5.0, 6.0],
            "flag": [True, False, True, True, False, False],
            "label": ["a", "b", "a", "b", "a", "b"],
        }
    )


def test_encoder_infers_kinds_and_encodes() -> None:
    enc = TabularEncoder(target="label").fit(_frame())
    assert enc.categorical_ == ["color", "flag"]
    assert enc.numeric_ == ["size"]
    assert enc.classes_ == ["a", "b"]
    codes, nums = enc.transform(_frame())
    assert codes.shape == (6, 2) and nums.shape == (6, 1)
    assert int(codes[3, 0]) == 0  # missing category -> row 0
    assert float(nums[3, 0]) == 0.0  # missing numeric -> the mean
    assert abs(float(nums[[0, 1, 2, 4, 5], 0].mean())) < 1e-5  # standardized
    unseen = _frame().assign(color=["purple"] * 6)
    assert int(enc.transform(unseen)[0][:, 0].max()) == 0
    assert enc.encode_target(_frame()["label"]).tolist() == [0, 1, 0, 1, 0, 1]


def test_encoder_uses_public_categories_and_stats() -> None:
    enc = TabularEncoder(
        target="label",
        categories={"color": ["blue", "green", "red", "yellow"]},
        numeric_stats={"size": (10.0, 2.0)},
    ).fit(_frame())
    assert enc.categories_["color"] == ["blue", "green", "red", "yellow"]
    _, nums = enc.transform(_frame())
    assert float(nums[0, 0]) == pytest.approx((1.0 - 10.0) / 2.0)


def test_encoder_round_trips_through_dict() -> None:
    enc = TabularEncoder(target="label").fit(_frame())
    again = TabularEncoder.from_dict(enc.to_dict())
    a, b = enc.transform(_frame()), again.transform(_frame())
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


def test_encoder_refuses_bad_tables() -> None:
    with pytest.raises(SchemaError, match="target column"):
        TabularEncoder(target="nope").fit(_frame())
    with pytest.raises(InputError, match="1 class"):
        TabularEncoder(target="label").fit(_frame().assign(label="a"))
    ids = pd.DataFrame({"id": [f"u{i}" for i in range(50)], "y": [0, 1] * 25})
    with pytest.raises(InputError, match="distinct values") as info:
        TabularEncoder(target="y", max_categories=10).fit(ids)
    assert "u1" not in str(info.value)  # never a data value in a message
    with pytest.raises(InputError, match="no feature columns"):
        TabularEncoder(target="y", drop=["id"]).fit(ids)


def test_mlp_forward_shapes_without_categoricals() -> None:
    m = make_tabular_mlp([], 3, 4)
    out = m(torch.zeros(5, 0, dtype=torch.long), torch.randn(5, 3))
    assert out.shape == (5, 4)


# ------------------------------------------------------------------ checkpoints


def test_checkpoint_round_trip_and_refusals(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "ckpt.pt"
    save_checkpoint(
        path, {"steps": 7, "accountant": {"history": [(1.0, 0.1, 7)], "mechanism": "prv"}}
    )
    state = load_checkpoint(path)
    assert state["steps"] == 7 and state["accountant"]["history"] == [(1.0, 0.1, 7)]
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt.pt"]  # no temporary left behind
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(InputError, match="not a readable checkpoint"):
        load_checkpoint(tmp_path / "junk.pt")
    with pytest.raises(InputError, match="not found"):
        load_checkpoint(tmp_path / "missing.pt")


# ------------------------------------------------------------------ ledger glue


@pytest.fixture
def ledger(tmp_path) -> BudgetLedger:  # type: ignore[no-untyped-def]
    led = BudgetLedger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")
    led.init("d", epsilon=5.0, delta=1e-5)
    yield led
    led.close()


def _charge(ledger: BudgetLedger, epsilon: float = 2.0):  # type: ignore[no-untyped-def]
    return charge_run(ledger, "d", epsilon=epsilon, delta=1e-6, what="test run", curve=None)


def test_charge_commits_on_success(ledger: BudgetLedger) -> None:
    with _charge(ledger) as (rec, _escaped):
        assert [h.status for h in ledger.history("d")] == ["reserved"]
    assert rec is not None and rec.status == "committed"
    assert [h.status for h in ledger.history("d")] == ["committed"]
    assert ledger.remaining("d")[0] == pytest.approx(3.0)


def test_failure_before_anything_escaped_records_nothing(ledger: BudgetLedger) -> None:
    with pytest.raises(RuntimeError, match="boom"), _charge(ledger):
        raise RuntimeError("boom")
    assert ledger.history("d") == []
    assert ledger.remaining("d")[0] == pytest.approx(5.0)


def test_failure_after_a_checkpoint_escaped_keeps_the_spend(ledger: BudgetLedger) -> None:
    with pytest.raises(RuntimeError, match="boom"), _charge(ledger) as (_rec, escaped):
        escaped.value = True
        raise RuntimeError("boom")
    assert [h.status for h in ledger.history("d")] == ["committed"]


def test_refused_spend_runs_nothing(ledger: BudgetLedger) -> None:
    ran = []
    with pytest.raises(PrivacyBudgetExceeded), _charge(ledger, epsilon=6.0):
        ran.append(True)
    assert ran == [] and ledger.history("d") == []


def test_resumed_run_is_not_charged_twice(ledger: BudgetLedger) -> None:
    record = {"dataset": "d", "spend_id": "x", "epsilon_charged": 2.0, "delta_charged": 1e-6}
    with charge_run(
        ledger, "d", epsilon=2.0, delta=1e-6, what="t", curve=None, already_charged=record
    ) as (rec, _):
        assert rec is not None and rec.resumed
    assert ledger.history("d") == []


def test_ledger_without_dataset_name_is_an_error(ledger: BudgetLedger) -> None:
    with (
        pytest.raises(InputError, match="no dataset name"),
        charge_run(ledger, None, epsilon=1.0, delta=1e-6, what="t", curve=None),
    ):
        pass


def test_importing_veil_train_and_its_cli_loads_no_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys, veil.train, veil.cli._train, veil.cli._app; "
        "print(','.join(m for m in ('torch', 'opacus') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""
