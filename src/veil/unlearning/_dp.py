"""DP-SGD inside SISA shards: each shard trained with differential privacy, paid for once.

**Schedule.** Every stage of every shard runs the same number of DP-SGD steps
(``steps_per_stage``) with Poisson sampling at one rate ``q`` (each row of the stage's rows
joins a step's batch with probability ``q``), per-sample clipping to ``max_grad_norm``
(veil's fused clipping, :mod:`veil.train._fused`), Gaussian noise of standard deviation
``noise_multiplier * max_grad_norm`` on the clipped sum, division by the expected batch size
``batch_size`` (a public constant, not the data's size) and an Adam step. ``q`` is
``batch_size`` over the expected shard size at fit and never changes: a stage retrained
after an erasure has the same schedule, so the same guarantee.

**Accounting.** A row of slice ``k`` is in the data of stages ``k .. L-1``; the worst case, a
row of slice 0, takes part in all ``L * steps_per_stage`` steps of its shard, each a
Poisson-subsampled Gaussian mechanism at rate ``q``. The noise multiplier is calibrated so
that this composition stays within (epsilon, delta) (Opacus' PRV accountant by default, as
``veil train``). Rows are assigned to shards and slices by their keyed id hash (a function
of the row alone), so adding or removing a row changes the data of exactly one shard: by
**parallel composition** over the disjoint shards the whole model (all shards together) is
(epsilon, delta)-DP with respect to the training rows, and the ledger is charged that once.
(A seeded permutation of the rows, the non-DP split, would move other rows between shards
when one is added, and parallel composition would not apply.)

**Noise.** Sampling and noise come from a generator seeded by HMAC of a subkey of the erasure
key and the stage's seed: reproducible by whoever holds the key, which is what lets
``verify`` retrain a shard bit for bit, and unpredictable without it (a public ``--seed``
would let anyone subtract the noise). The generator is torch's Mersenne Twister, not a
cryptographically secure one (Opacus without ``secure_mode`` is the same).

**What the guarantee does not cover** (said in the docs and the report): the encoder's
category lists and numeric scaling (learned from the training rows, as in ``veil train``);
held-out accuracy; and an observer of the model *before and after* an erasure: each version
is (epsilon, delta)-DP on its own, but two versions are two releases, and with the same
noise their difference concerns the erased rows. Unlearning never refunds the budget.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from veil._errors import InputError
from veil.unlearning._partition import keyed_partition
from veil.unlearning._trainers import Adam, Arrays, TorchShardTrainer, _clone, deterministic_torch

__all__ = ["DPSchedule", "DPTorchShardTrainer", "keyed_partition", "plan_schedule"]


@dataclass(frozen=True)
class DPSchedule:
    """The DP-SGD schedule of every stage of a shard (see the module docstring)."""

    epsilon: float
    delta: float
    max_grad_norm: float
    sample_rate: float
    steps_per_stage: int
    stages: int
    noise_multiplier: float
    accountant: str
    epsilon_accountant: float  # the accountant's epsilon for the whole schedule (<= target)
    batch_size: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def plan_schedule(
    *,
    epsilon: float,
    delta: float,
    rows: int,
    shards: int,
    stages: int,
    epochs_per_stage: int,
    batch_size: int,
    max_grad_norm: float = 1.0,
    accountant: str = "prv",
) -> DPSchedule:
    """Calibrate the noise for ``stages`` stages of ``epochs_per_stage`` epochs each over a
    shard of about ``rows / shards`` rows (``rows``: all the training rows; one shard and
    one stage for the monolithic model)."""
    from veil.train import calibrate_noise, check_budget

    check_budget(epsilon, delta, rows)
    if not max_grad_norm > 0 or not math.isfinite(max_grad_norm):
        raise InputError(f"the clipping norm must be positive, got {max_grad_norm!r}")
    expected = max(1, rows // shards)
    q = min(1.0, batch_size / expected)
    steps = max(1, round(epochs_per_stage / q))
    cal = calibrate_noise(
        epsilon=epsilon,
        delta=delta,
        sample_rate=q,
        steps=steps * stages,
        accountant=accountant,
        compare_rdp=False,
    )
    return DPSchedule(
        epsilon=float(epsilon),
        delta=float(delta),
        max_grad_norm=float(max_grad_norm),
        sample_rate=q,
        steps_per_stage=steps,
        stages=stages,
        noise_multiplier=float(cal.noise_multiplier),
        accountant=accountant,
        epsilon_accountant=float(cal.epsilon),
        batch_size=int(batch_size),
    )


@dataclass
class DPTorchShardTrainer(TorchShardTrainer):
    """:class:`TorchShardTrainer` with DP-SGD stages (see the module docstring).

    ``schedule`` is the plan (:func:`plan_schedule`); ``noise_key`` seeds sampling and
    noise (a subkey of the erasure key; never written anywhere). The module's trainable
    layers must all be ``nn.Linear`` (fused per-sample clipping), as veil's tabular model.
    """

    schedule: DPSchedule | None = None
    noise_key: bytes = field(default=b"", repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.schedule is None or len(self.noise_key) < 16:
            raise InputError("a DP trainer needs its schedule and a noise key of 16+ bytes")

    def describe(self) -> dict[str, Any]:
        assert self.schedule is not None
        return {**super().describe(), "dp": self.schedule.as_dict()}

    def _noise_seed(self, seed: int) -> int:
        mac = hmac.new(self.noise_key, f"dpsgd:{int(seed)}".encode(), hashlib.sha256).digest()
        return int.from_bytes(mac[:8], "big") >> 1

    def train_stage(
        self, state: Any, data: Arrays, seed: int, *, final: bool, stages: int = 1
    ) -> Any:
        from veil.train._fused import FusedLinearClipper, fused_supported

        sched = self.schedule
        assert sched is not None
        with deterministic_torch() as torch, torch.random.fork_rng(devices=[]):
            torch.manual_seed(self._noise_seed(seed) ^ 1)
            module = self._loaded(state)
            if not fused_supported(module):
                raise InputError(
                    "DP-SGD shards need a module whose trainable layers are all nn.Linear "
                    "(fused per-sample clipping)",
                    hint="use veil's tabular model, or train without --epsilon",
                )
            opt = Adam(list(module.parameters()), lr=self.learning_rate)
            if state["optimizer"] is not None:
                opt.load_state_dict(_clone(state["optimizer"]))
            n = len(data["y"])
            xs = self._tensors(data)
            y = torch.from_numpy(np.ascontiguousarray(data["y"]).astype(np.int64))
            gen = torch.Generator().manual_seed(self._noise_seed(seed))
            std = sched.noise_multiplier * sched.max_grad_norm
            params = [p for p in module.parameters() if p.requires_grad]
            clipper = FusedLinearClipper(module, sched.max_grad_norm)
            module.train()
            try:
                for _ in range(sched.steps_per_stage):
                    opt.zero_grad()
                    idx = torch.nonzero(
                        torch.rand(n, generator=gen, dtype=torch.float64) < sched.sample_rate
                    ).squeeze(1)
                    if len(idx):
                        logits = module(*(x[idx] for x in xs))
                        losses = torch.nn.functional.cross_entropy(logits, y[idx], reduction="none")
                        clipper.backward(losses)
                    for p in params:
                        if p.grad is None:
                            p.grad = torch.zeros_like(p)
                        noise = torch.normal(0.0, std, size=p.shape, generator=gen)
                        p.grad = (p.grad + noise) / sched.batch_size
                    opt.step()
            finally:
                clipper.close()
            module.eval()
            return {
                "seed": state["seed"],
                "module": _clone(module.state_dict()),
                "optimizer": _clone(opt.state_dict()),
            }
