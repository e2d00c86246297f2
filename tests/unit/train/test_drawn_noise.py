"""The Gaussian noise DP-SGD adds, tested against the noise multiplier and clip it reports.

The loss is zero for every sample, so every clipped per-sample gradient is zero and each
step's update is the optimizer's noise alone: ``N(0, (sigma * C)^2) / B`` per parameter
(Opacus averages by the expected batch size ``B``), carried through SGD with momentum 0.9.
After ``T`` steps the weights moved by ``-lr * sum_t g_t * sum_{j <= T - t} 0.9^j``, a
centred Gaussian whose standard deviation follows from the *reported* ``noise_multiplier``,
``max_grad_norm``, sample rate and steps. A run that reports sigma but adds sigma/10 (or 10
sigma) fails here. The noise generator is seeded from the operating system (by design, see
:mod:`veil.train._engine`): thousands of parameters and rejection only at p < 1e-6.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from noise_checks import assert_gaussian

torch = pytest.importorskip("torch")  # the dp extra; conftest fails this skip under CI=true
pytest.importorskip("opacus")

from torch import nn  # noqa: E402
from torch.utils.data import TensorDataset  # noqa: E402

from veil.train import DPTrainConfig, train_private  # noqa: E402

torch.set_num_threads(1)


class _ZeroLoss(nn.Module):
    """A loss that is zero for every sample and keeps the graph (so gradients exist)."""

    def __init__(self) -> None:
        super().__init__()
        self.reduction = "mean"

    def forward(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        per_sample = (output * 0.0).sum(dim=1)
        if self.reduction == "none":
            return per_sample
        return per_sample.sum() if self.reduction == "sum" else per_sample.mean()


@pytest.mark.parametrize("mode", ["fused", "ghost", "hooks"])
def test_dpsgd_noise_matches_noise_multiplier_times_clip(mode: str) -> None:
    n, d, k = 1000, 100, 20  # 2,020 parameters, each one draw per step
    sigma, clip, lr = 1.5, 2.0, 1.0
    torch.manual_seed(0)  # the data and the initial weights only
    data = TensorDataset(torch.randn(n, d), torch.randint(0, k, (n,)))
    model = nn.Linear(d, k)
    before = copy.deepcopy(model.state_dict())
    config = DPTrainConfig(
        epsilon=50.0,
        delta=1e-5,
        epochs=1,
        batch_size=500,
        learning_rate=lr,
        optimizer="sgd",
        max_grad_norm=clip,
        noise_multiplier=sigma,
        accountant="rdp",
        grad_sample_mode=mode,
        compare_rdp=False,
    )
    res = train_private(model, data, config=config, loss_fn=_ZeroLoss())
    assert res.noise_multiplier == sigma and res.grad_sample_mode == mode
    steps = res.steps
    assert steps == 2 and res.sample_rate == 0.5
    expected_batch = n * res.sample_rate
    # weight of step t's noise in the final weights (SGD, momentum 0.9)
    carry = [sum(0.9**j for j in range(steps - t)) for t in range(steps)]
    sd = lr * res.noise_multiplier * clip / expected_batch * math.sqrt(sum(c * c for c in carry))
    after = res.model.state_dict()
    moved = np.concatenate(
        [(after[name] - before[name]).detach().numpy().ravel() for name in ("weight", "bias")]
    )
    assert moved.size == d * k + k
    assert_gaussian(moved, sd, f"DP-SGD noise ({mode})")
