"""DP-SGD training of any PyTorch model on Opacus, and the non-private baseline.

Privacy semantics
-----------------
Unit of privacy: one element of the training dataset (one row of a table). The guarantee is
(epsilon, delta)-DP for the *trained weights* (and every checkpoint), under add/remove-one
adjacency, for DP-SGD with Poisson sampling at rate ``q``, per-sample clipping to
``max_grad_norm`` and Gaussian noise of ``noise_multiplier * max_grad_norm`` (Opacus
``DPOptimizer``). The accountant (PRV by default) bounds epsilon for the steps actually taken;
training never takes a step that would push it past the target.

Randomness: ``seed`` fixes the model's initialization and the baseline's shuffling only. The
DP noise and the Poisson sampling always draw from generators seeded from the operating
system, never from ``seed`` or torch's global generator: a known seed would let anyone
recompute the noise and remove it. With ``secure_mode=True`` Opacus draws both from a
cryptographically secure generator (needs ``torchcsprng``).

Not covered by the guarantee: anything computed outside DP-SGD, e.g. a preprocessing fitted
on the data (see :mod:`veil.train._tabular`) and accuracy measured on held-out rows.
"""

from __future__ import annotations

import functools
import logging
import math
import secrets
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from veil._deps import require
from veil._errors import InputError, VeilError
from veil._progress import NullProgress, Progress
from veil.train._accounting import (
    ACCOUNTANTS,
    NoiseCalibration,
    calibrate_noise,
    check_budget,
    epsilon_after,
    epsilon_table,
    max_steps_within,
    sample_rate_for,
)
from veil.train._checkpoint import load_checkpoint, save_checkpoint
from veil.train._fused import FusedLinearClipper, fused_supported, trainable_modules
from veil.train._spend import LedgerCharge, charge_run
from veil.train._validate import make_private_compatible

if TYPE_CHECKING:
    import torch
    from torch import nn
    from torch.utils.data import Dataset

__all__ = [
    "DPTrainConfig",
    "DPTrainResult",
    "NonPrivateResult",
    "resolve_grad_sample_mode",
    "train_nonprivate",
    "train_private",
]

log = logging.getLogger(__name__)

GRAD_SAMPLE_MODES = ("auto", "fused", "ghost", "hooks")
OPTIMIZERS = ("adam", "sgd")
_SECURE_RNG_WARNING = "Secure RNG turned off"
_RDP_ALPHA_WARNING = "Optimal order is the largest alpha"
# torch warns on every backward through Opacus' full backward hooks when the inputs need no
# gradient (they never do here: data is not a parameter). Harmless; silenced in the loop only.
_HOOK_WARNING = "Full backward hook is firing when gradients are computed"


@dataclass(frozen=True)
class DPTrainConfig:
    """How to train with DP-SGD.

    Parameters
    ----------
    epsilon, delta
        The target guarantee for the whole run.
    epochs
        Planned passes over the data (each ``ceil(n / batch_size)`` Poisson-sampled steps).
    batch_size
        Expected batch size; the sampling rate is ``1 / ceil(n / batch_size)``.
    learning_rate, optimizer
        ``"adam"`` or ``"sgd"``; the same for the non-private baseline.
    max_grad_norm
        Per-sample clipping norm C.
    accountant
        ``"prv"`` (tightest available, default) or ``"rdp"``.
    grad_sample_mode
        ``"fused"`` (every trainable layer an ``nn.Linear``: per-sample norms and clipped
        sums from one backward pass, see :mod:`veil.train._fused`), ``"ghost"`` (Opacus
        fast gradient clipping: per-sample norms without per-sample gradients, two backward
        passes), ``"hooks"`` (per-sample gradients) or ``"auto"`` (fused when every
        trainable layer is Linear, ghost when they are Linear or Embedding, hooks
        otherwise). All modes add Opacus' noise and step Opacus' accountant.
    noise_multiplier
        Use this sigma instead of calibrating one; training then stops at the last step
        within (epsilon, delta).
    compare_rdp
        Also calibrate with RDP, to report how much noise the tighter accountant saved.
    secure_mode
        Opacus' cryptographically secure noise and sampling (needs ``torchcsprng``).
    """

    epsilon: float
    delta: float
    epochs: int = 10
    batch_size: int = 512
    learning_rate: float = 1e-3
    optimizer: str = "adam"
    max_grad_norm: float = 1.0
    accountant: str = "prv"
    grad_sample_mode: str = "auto"
    noise_multiplier: float | None = None
    compare_rdp: bool = True
    secure_mode: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.epochs, int) or self.epochs < 1:
            raise InputError(f"epochs must be a positive integer, got {self.epochs!r}")
        if not isinstance(self.batch_size, int) or self.batch_size < 1:
            raise InputError(f"batch size must be a positive integer, got {self.batch_size!r}")
        for name in ("learning_rate", "max_grad_norm"):
            v = getattr(self, name)
            if not isinstance(v, int | float) or not math.isfinite(v) or v <= 0:
                raise InputError(f"{name} must be a positive number, got {v!r}")
        if self.optimizer not in OPTIMIZERS:
            raise InputError(
                f"unknown optimizer {self.optimizer!r}", hint=f"use one of: {', '.join(OPTIMIZERS)}"
            )
        if self.accountant not in ACCOUNTANTS:
            raise InputError(
                f"unknown accountant {self.accountant!r}",
                hint=f"use one of: {', '.join(ACCOUNTANTS)}",
            )
        if self.grad_sample_mode not in GRAD_SAMPLE_MODES:
            raise InputError(
                f"unknown grad_sample_mode {self.grad_sample_mode!r}",
                hint=f"use one of: {', '.join(GRAD_SAMPLE_MODES)}",
            )
        if self.noise_multiplier is not None and not (
            isinstance(self.noise_multiplier, int | float)
            and math.isfinite(self.noise_multiplier)
            and self.noise_multiplier > 0
        ):
            raise InputError(f"noise_multiplier must be positive, got {self.noise_multiplier!r}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class DPTrainResult:
    """The trained model and everything about what it cost.

    ``epsilon_spent`` is the accountant's epsilon for the steps actually taken (at
    ``delta``); ``ledger`` is what the budget ledger recorded (the reserved target).
    """

    model: nn.Module
    epsilon_spent: float
    delta: float
    target_epsilon: float
    noise_multiplier: float
    sample_rate: float
    steps: int
    planned_steps: int
    epochs_completed: float
    epsilon_per_epoch: list[dict[str, float]]
    calibration: NoiseCalibration
    grad_sample_mode: str
    module_fixes: list[str]
    seconds: float
    train_seconds: float
    train_cpu_seconds: float
    stopped_early: bool
    ledger: LedgerCharge | None = None
    accountant_history: list[tuple[float, float, int]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """A JSON-able dict of the run (no model, no data)."""
        return {
            "epsilon_spent": self.epsilon_spent,
            "delta": self.delta,
            "target_epsilon": self.target_epsilon,
            "noise_multiplier": self.noise_multiplier,
            "accountant": self.calibration.accountant,
            "rdp_noise_multiplier": self.calibration.rdp_noise_multiplier,
            "rdp_epsilon_at_noise": self.calibration.rdp_epsilon,
            "noise_saving_vs_rdp": self.calibration.saving_vs_rdp,
            "sample_rate": self.sample_rate,
            "steps": self.steps,
            "planned_steps": self.planned_steps,
            "epochs": self.epochs_completed,
            "epsilon_per_epoch": self.epsilon_per_epoch,
            "grad_sample_mode": self.grad_sample_mode,
            "module_fixes": self.module_fixes,
            "stopped_early": self.stopped_early,
            "seconds": self.seconds,
            "train_seconds": self.train_seconds,
            "train_cpu_seconds": self.train_cpu_seconds,
            "ledger": self.ledger.as_dict() if self.ledger is not None else None,
        }


@dataclass
class NonPrivateResult:
    """The non-private baseline: same model, optimizer, epochs and batch size; no DP."""

    model: nn.Module
    steps: int
    seconds: float
    cpu_seconds: float


# --------------------------------------------------------------------------- helpers


def resolve_grad_sample_mode(model: nn.Module, mode: str) -> str:
    """Pick ``"fused"``, ``"ghost"`` or ``"hooks"`` for ``mode="auto"``; pass others through.

    Fused clipping (:mod:`veil.train._fused`) needs one backward pass where ghost needs two,
    so ``auto`` takes it whenever every trainable layer is an ``nn.Linear``.

    Ghost clipping computes each sample's gradient norm from activations and output
    gradients; for Linear and Embedding layers (Opacus has norm samplers for both) no
    per-sample gradient is ever materialized. Other trainable layers would fall back to
    per-sample gradients on top of the second backward pass, so ``auto`` uses hooks there.
    """
    if mode != "auto":
        return mode
    from torch import nn

    if fused_supported(model):
        return "fused"
    trainable = trainable_modules(model)
    ghost_ok = trainable and all(type(m) in (nn.Linear, nn.Embedding) for m in trainable)
    return "ghost" if ghost_ok else "hooks"


def _dataset_len(dataset: Any) -> int:
    try:
        n = len(dataset)
    except TypeError:
        raise InputError(
            f"the dataset must have a length (a map-style torch Dataset), got {type(dataset).__name__}",
            hint="Poisson sampling needs to know n; IterableDataset is not supported",
        ) from None
    if n == 0:
        raise InputError("the training set is empty (0 records)", hint="check the input data")
    return int(n)


def _os_generator() -> torch.Generator:
    import torch

    return torch.Generator().manual_seed(secrets.randbits(63))


def _make_optimizer(params: Iterable[Any], config: DPTrainConfig) -> torch.optim.Optimizer:
    import torch

    if config.optimizer == "sgd":
        return torch.optim.SGD(params, lr=config.learning_rate, momentum=0.9)
    return torch.optim.Adam(params, lr=config.learning_rate)


def _tensor_batches(
    tensors: tuple[torch.Tensor, ...], index_batches: Iterable[Any]
) -> Iterator[tuple[torch.Tensor, ...]]:
    import torch

    for idx in index_batches:
        ix = torch.as_tensor(idx, dtype=torch.long)
        yield tuple(t[ix] for t in tensors)


def _per_sample_loss(loss_fn: Any) -> Any:
    """``loss_fn`` evaluated with ``reduction='none'``: one loss per sample."""
    if not hasattr(loss_fn, "reduction"):
        raise InputError(
            "fused clipping needs a loss with a 'reduction' attribute (one loss per sample)",
            hint="pass a torch.nn loss such as nn.CrossEntropyLoss(), or grad_sample_mode='ghost'",
        )

    def per_sample(output: Any, target: Any) -> Any:
        old = loss_fn.reduction
        loss_fn.reduction = "none"
        try:
            return loss_fn(output, target)
        finally:
            loss_fn.reduction = old

    return per_sample


def _split(batch: Any) -> tuple[tuple[Any, ...], Any]:
    if not isinstance(batch, list | tuple) or len(batch) < 2:
        raise InputError(
            "each dataset item must be a tuple (inputs..., target)",
            hint="e.g. torch.utils.data.TensorDataset(x, y)",
        )
    return tuple(batch[:-1]), batch[-1]


def _accountant_epsilon(accountant: Any, delta: float) -> float:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_RDP_ALPHA_WARNING, category=UserWarning)
        return float(accountant.get_epsilon(delta=delta))


def _epoch_ends(steps_done: int, steps_per_epoch: int, max_steps: int) -> list[int]:
    """The step counts at which the training loop ends its coming epochs."""
    ends = []
    b = steps_done
    while b < max_steps:
        b = min(b + steps_per_epoch, max_steps)
        ends.append(b)
    return ends


def _check_resume(state: dict[str, Any], config: DPTrainConfig, n: int, q: float) -> None:
    cal = state["calibration"]
    mismatches = []
    if int(state["n"]) != n:
        mismatches.append(f"dataset size ({n} now, {int(state['n'])} in the checkpoint)")
    if not math.isclose(float(cal["sample_rate"]), q):
        mismatches.append("batch size / sampling rate")
    if not math.isclose(float(cal["target_epsilon"]), config.epsilon):
        mismatches.append("epsilon")
    if not math.isclose(float(cal["delta"]), config.delta):
        mismatches.append("delta")
    if cal["accountant"] != config.accountant:
        mismatches.append("accountant")
    if mismatches:
        raise InputError(
            "the checkpoint was made for a different run: " + ", ".join(mismatches) + " differ",
            hint="resume with the same data and settings as the run that wrote it",
        )


# --------------------------------------------------------------------------- DP-SGD


_F = TypeVar("_F", bound=Callable[..., Any])


def _native_threads_as_torch(fn: _F) -> _F:
    """Run ``fn`` with OpenMP and BLAS pools capped at ``torch.get_num_threads()``.

    ``torch.set_num_threads`` does not reach numpy's OpenBLAS or every OpenMP pool; the
    accountant's numpy work between epochs otherwise leaves their worker threads spinning
    beside the training loop (measured: CPU time 1.8x the wall time at one torch thread).
    """

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        import torch
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=torch.get_num_threads()):
            return fn(*args, **kwargs)

    return run  # type: ignore[return-value]


@_native_threads_as_torch
def train_private(
    model: nn.Module,
    dataset: Dataset[Any],
    *,
    config: DPTrainConfig,
    loss_fn: Callable[..., Any] | None = None,
    ledger: Any = None,
    dataset_name: str | None = None,
    what: str | None = None,
    fingerprint: str | None = None,
    checkpoint_path: str | Path | None = None,
    resume_from: str | Path | None = None,
    checkpoint_extra: dict[str, Any] | None = None,
    progress: Progress | None = None,
) -> DPTrainResult:
    """Train ``model`` on ``dataset`` with DP-SGD to the (epsilon, delta) of ``config``.

    Parameters
    ----------
    model
        Any ``nn.Module``; checked and, where needed, fixed with Opacus' ``ModuleValidator``
        (the changes are reported in ``module_fixes``; the original is not modified).
    dataset
        A map-style dataset whose items are ``(input, ..., target)``. A ``TensorDataset`` is
        batched by direct indexing (fast); other datasets go through Opacus' ``DPDataLoader``.
    loss_fn
        A loss with a ``reduction`` attribute (default ``nn.CrossEntropyLoss()``).
    ledger, dataset_name
        A :class:`veil.dp.BudgetLedger` and the dataset whose budget pays for the run. The
        target (epsilon, delta) is reserved before the first step (refused with
        ``PrivacyBudgetExceeded``, nothing trained) and committed when training succeeds.
        ``ledger=None`` trains without recording a spend; only do that when the user asked.
    checkpoint_path
        Write a checkpoint here (atomically) after every epoch: weights, optimizer, the
        accountant's history and the ledger record.
    resume_from
        Continue from such a checkpoint, with the same data and settings. The original run
        already paid for the whole schedule, so nothing new is charged.

    Returns
    -------
    DPTrainResult

    Raises
    ------
    InputError
        Bad epsilon/delta (including delta >= 1/n), empty data, a model Opacus cannot make
        private (``ModelNotPrivatizable``), a checkpoint from another run.
    PrivacyBudgetExceeded
        The ledger refused the spend; nothing was trained.
    LedgerUnavailableError
        The ledger could not be reached or stayed locked; nothing was trained.

    Examples
    --------
    >>> import torch
    >>> from torch.utils.data import TensorDataset
    >>> ds = TensorDataset(torch.randn(2000, 4), torch.randint(0, 2, (2000,)))
    >>> cfg = DPTrainConfig(epsilon=3.0, delta=1e-5, epochs=1, batch_size=200)
    >>> res = train_private(torch.nn.Linear(4, 2), ds, config=cfg)  # doctest: +SKIP
    >>> res.epsilon_spent <= 3.0  # doctest: +SKIP
    True
    """
    t_start = time.perf_counter()
    require("torch", extra="dp", purpose="DP-SGD training")
    require("opacus", extra="dp", purpose="DP-SGD training")
    from opacus import PrivacyEngine
    from opacus.data_loader import DPDataLoader
    from opacus.utils.uniform_sampler import UniformWithReplacementSampler
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    progress = progress or NullProgress()
    n = _dataset_len(dataset)
    check_budget(config.epsilon, config.delta, n)
    model, fixes = make_private_compatible(model)
    mode = resolve_grad_sample_mode(model, config.grad_sample_mode)
    q = sample_rate_for(n, config.batch_size)
    steps_per_epoch = round(1 / q)
    planned = config.epochs * steps_per_epoch

    state = load_checkpoint(resume_from) if resume_from is not None else None
    desc = what or "DP-SGD training"
    if ledger is not None and state is None:
        # Fail fast, before the (seconds-long) calibration, when the ledger would refuse or
        # cannot be reached. The real reservation is made just before the first step.
        if dataset_name is None:
            raise InputError(
                "a ledger was given but no dataset name to spend from",
                hint="pass the dataset name the budget was created for (veil budget init NAME)",
            )
        with ledger.charge(
            dataset_name,
            epsilon=float(config.epsilon),
            delta=float(config.delta),
            what=desc,
            mechanism="dpsgd",
            fingerprint=fingerprint,
            dry_run=True,
        ):
            pass
    if state is not None:
        _check_resume(state, config, n, q)
        calibration = NoiseCalibration(**state["calibration"])
        planned = calibration.steps
    elif config.noise_multiplier is None:
        calibration = calibrate_noise(
            epsilon=config.epsilon,
            delta=config.delta,
            sample_rate=q,
            steps=planned,
            accountant=config.accountant,
            compare_rdp=config.compare_rdp,
        )
    else:
        sigma = float(config.noise_multiplier)
        calibration = NoiseCalibration(
            noise_multiplier=sigma,
            accountant=config.accountant,
            target_epsilon=float(config.epsilon),
            delta=float(config.delta),
            sample_rate=q,
            steps=planned,
            epsilon=epsilon_after(sigma, q, planned, config.delta, config.accountant),
            rdp_noise_multiplier=None,
            rdp_epsilon=epsilon_after(sigma, q, planned, config.delta, "rdp")
            if config.compare_rdp
            else None,
        )
    sigma = calibration.noise_multiplier
    # Stop before the budget would be exceeded: the largest number of steps within target.
    max_steps = max_steps_within(sigma, q, config.delta, config.epsilon, planned, config.accountant)
    if max_steps == 0:
        raise InputError(
            f"a single step at noise multiplier {sigma:g} already exceeds epsilon {config.epsilon:g}",
            hint="raise the noise multiplier or let veil calibrate it (omit noise_multiplier)",
        )

    loss_fn = loss_fn if loss_fn is not None else nn.CrossEntropyLoss()
    if state is not None:
        try:
            model.load_state_dict(state["model"])
        except (RuntimeError, KeyError):
            raise InputError(
                "the checkpoint's weights do not fit this model",
                hint="resume with the same model architecture",
            ) from None
    optimizer = _make_optimizer(model.parameters(), config)
    if state is not None and state.get("optimizer"):
        optimizer.load_state_dict(state["optimizer"])

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_SECURE_RNG_WARNING, category=UserWarning)
        engine = PrivacyEngine(accountant=config.accountant, secure_mode=config.secure_mode)
    if state is not None:
        engine.accountant.load_state_dict(state["accountant"])
    base_loader = DataLoader(dataset, batch_size=min(config.batch_size, n))
    if len(base_loader) != steps_per_epoch:  # pragma: no cover - guards our q against Opacus'
        raise VeilError("internal error: sampling rate mismatch with Opacus")
    noise_gen = None if config.secure_mode else _os_generator()
    sample_gen = None if config.secure_mode else _os_generator()
    wrapped = engine.make_private(
        module=model,
        optimizer=optimizer,
        criterion=loss_fn,
        data_loader=base_loader,
        noise_multiplier=sigma,
        max_grad_norm=config.max_grad_norm,
        poisson_sampling=True,
        # fused clipping reuses ghost mode's optimizer (noise, averaging, accountant hook)
        grad_sample_mode="ghost" if mode == "fused" else mode,
        noise_generator=noise_gen,
    )
    clipper = None
    if mode == "fused":
        dp_model, dp_opt, _, dp_loader = wrapped
        dp_model.remove_hooks()  # ours replace Opacus' two-pass hooks
        clipper = FusedLinearClipper(dp_model._module, config.max_grad_norm)
        dp_loss = _per_sample_loss(loss_fn)
    elif "ghost" in mode:
        dp_model, dp_opt, dp_loss, dp_loader = wrapped
    else:
        dp_model, dp_opt, dp_loader = wrapped
        dp_loss = loss_fn

    def epoch_batches() -> Iterable[Any]:
        if isinstance(dataset, TensorDataset):
            sampler = UniformWithReplacementSampler(
                num_samples=n,
                sample_rate=q,
                generator=sample_gen or engine.secure_rng,
                steps=steps_per_epoch,
            )
            return _tensor_batches(dataset.tensors, sampler)
        if sample_gen is not None:
            return DPDataLoader.from_data_loader(base_loader, generator=sample_gen)
        return dp_loader  # secure mode: Opacus' loader on its secure generator

    steps_done = int(state["steps"]) if state is not None else 0
    eps_per_epoch: list[dict[str, float]] = list(state["epsilon_per_epoch"]) if state else []
    # The spend after each epoch, computed once from the fixed schedule (not by asking the
    # accountant after every epoch); the last entry is the accountant's own, after training.
    ends = _epoch_ends(steps_done, steps_per_epoch, max_steps)
    table = epsilon_table(sigma, q, ends, config.delta, config.accountant)
    eps_at = dict(zip(ends, table, strict=True))
    curve = {"type": "dpsgd", "history": [[sigma, q, planned]]}
    already = state.get("ledger") if state is not None else None
    t_train = 0.0
    cpu_train = 0.0
    with charge_run(
        ledger,
        dataset_name,
        epsilon=float(config.epsilon),
        delta=float(config.delta),
        what=desc,
        curve=curve,
        fingerprint=fingerprint,
        already_charged=already,
    ) as (charge, escaped):
        dp_model.train()
        with (
            progress.task("DP-SGD training", total=max_steps) as task,
            warnings.catch_warnings(),
        ):
            warnings.filterwarnings("ignore", message=_HOOK_WARNING, category=UserWarning)
            if steps_done:
                task.advance(steps_done)
            while steps_done < max_steps:
                t0, c0 = time.perf_counter(), time.process_time()
                for batch in epoch_batches():
                    if steps_done >= max_steps:
                        break
                    inputs, target = _split(batch)
                    dp_opt.zero_grad(set_to_none=True)
                    loss = dp_loss(dp_model(*inputs), target)
                    if clipper is not None:
                        clipper.backward(loss)
                    else:
                        loss.backward()
                    dp_opt.step()
                    steps_done += 1
                    task.advance()
                t_train += time.perf_counter() - t0
                cpu_train += time.process_time() - c0
                if steps_done in eps_at:
                    eps_now = eps_at[steps_done]
                else:  # pragma: no cover - the loop ends epochs where _epoch_ends says
                    eps_now = _accountant_epsilon(engine.accountant, config.delta)
                eps_per_epoch.append(
                    {
                        "epoch": len(eps_per_epoch) + 1,
                        "steps": steps_done,
                        "epsilon": eps_now,
                    }
                )
                log.info("epoch %d: epsilon %.4f", len(eps_per_epoch), eps_now)
                if checkpoint_path is not None:
                    save_checkpoint(
                        checkpoint_path,
                        {
                            "n": n,
                            "steps": steps_done,
                            "config": config.as_dict(),
                            "calibration": asdict(calibration),
                            "epsilon_per_epoch": eps_per_epoch,
                            "model": dp_model._module.state_dict(),
                            "optimizer": dp_opt.original_optimizer.state_dict(),
                            "accountant": engine.accountant.state_dict(),
                            "module_fixes": fixes,
                            "ledger": charge.as_dict() if charge is not None else None,
                            "extra": checkpoint_extra or {},
                        },
                    )
                    escaped.value = True
        history = [(float(z), float(r), int(t)) for z, r, t in engine.accountant.history]
        # Independent check of the accounting: the accountant saw exactly our steps, at our
        # sigma and q, and its epsilon is within the target.
        if sum(t for _, _, t in history) != steps_done or any(
            not math.isclose(z, sigma) or not math.isclose(r, q) for z, r, _ in history
        ):
            raise VeilError("internal error: the accountant's history does not match the run")
        # Opacus' epsilon for that history (the same float as its get_epsilon, and already
        # computed for the calibration when the whole schedule ran).
        eps_spent = epsilon_after(sigma, q, steps_done, config.delta, config.accountant)
        if eps_spent > config.epsilon * (1 + 1e-9):
            raise VeilError("internal error: the run exceeded its epsilon; model withheld")
        if eps_per_epoch and eps_per_epoch[-1]["steps"] == steps_done:
            eps_per_epoch[-1]["epsilon"] = eps_spent
        # Epsilon grows with the steps, so the run's bound also bounds every epoch before it.
        for entry in eps_per_epoch:
            entry["epsilon"] = min(entry["epsilon"], eps_spent)
    trained = dp_model.to_standard_module()
    trained.eval()
    return DPTrainResult(
        model=trained,
        epsilon_spent=eps_spent,
        delta=float(config.delta),
        target_epsilon=float(config.epsilon),
        noise_multiplier=sigma,
        sample_rate=q,
        steps=steps_done,
        planned_steps=planned,
        epochs_completed=round(steps_done / steps_per_epoch, 4),
        epsilon_per_epoch=eps_per_epoch,
        calibration=calibration,
        grad_sample_mode=mode,
        module_fixes=fixes,
        seconds=time.perf_counter() - t_start,
        train_seconds=t_train,
        train_cpu_seconds=cpu_train,
        stopped_early=steps_done < planned,
        ledger=charge,
        accountant_history=history,
    )


# --------------------------------------------------------------------------- baseline


@_native_threads_as_torch
def train_nonprivate(
    model: nn.Module,
    dataset: Dataset[Any],
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float = 1e-3,
    optimizer: str = "adam",
    loss_fn: Callable[..., Any] | None = None,
    seed: int | None = None,
    progress: Progress | None = None,
) -> NonPrivateResult:
    """Train ``model`` the ordinary way (shuffled fixed-size batches, no clipping, no noise).

    The baseline DP-SGD is compared against: same model, optimizer, learning rate, epochs
    and batch size. It spends no budget and its model must not be released.
    """
    torch = require("torch", extra="dp", purpose="model training")
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    progress = progress or NullProgress()
    n = _dataset_len(dataset)
    cfg = DPTrainConfig(
        epsilon=1.0,
        delta=0.5 / n if n > 1 else 0.1,
        epochs=epochs,
        batch_size=batch_size,
        learning_rate=learning_rate,
        optimizer=optimizer,
    )
    gen = torch.Generator().manual_seed(seed if seed is not None else secrets.randbits(63))
    loss_fn = loss_fn if loss_fn is not None else nn.CrossEntropyLoss()
    opt = _make_optimizer(model.parameters(), cfg)
    bs = min(batch_size, n)
    t0, c0 = time.perf_counter(), time.process_time()
    steps = 0
    model.train()
    with progress.task("non-private baseline", total=epochs * math.ceil(n / bs)) as task:
        for _ in range(epochs):
            if isinstance(dataset, TensorDataset):
                perm = torch.randperm(n, generator=gen)
                batches: Iterable[Any] = _tensor_batches(dataset.tensors, perm.split(bs))
            else:
                batches = DataLoader(dataset, batch_size=bs, shuffle=True, generator=gen)
            for batch in batches:
                inputs, target = _split(batch)
                opt.zero_grad(set_to_none=True)
                loss = loss_fn(model(*inputs), target)
                loss.backward()
                opt.step()
                steps += 1
                task.advance()
    model.eval()
    return NonPrivateResult(
        model=model,
        steps=steps,
        seconds=time.perf_counter() - t0,
        cpu_seconds=time.process_time() - c0,
    )
