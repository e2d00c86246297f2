"""``veil fl simulate``: federated training of veil's tabular model on Flower's simulation engine.

The training rows are split among ``clients`` simulated clients (see
:mod:`veil.federated._partition`); each round the server samples clients, sends them the
global weights through Flower's Message API (``ServerApp``/``ClientApp``, run by
``flwr.simulation.run_simulation`` on Ray), each client trains locally
(:mod:`veil.federated._local`) and replies with its update, and the server aggregates
(:mod:`veil.federated._strategy`) and evaluates the global model on the held-out rows.
The same model trained centrally on the same training rows is the baseline.

Privacy semantics (``dp="client"``)
-----------------------------------
The unit of privacy is one *client* (all its rows). Each client clips its update to L2 norm
``clip_norm``; the server adds Gaussian noise of standard deviation ``sigma * clip_norm`` to
the sum and divides by the expected number of participants (DP-FedAvg, McMahan et al. 2018).
``sigma`` is calibrated by veil's RDP accountant, or with ``accountant="prv"`` Opacus' PRV
accountant, a numerical bound of the privacy loss distribution that is tighter (less noise
for the same target) (:func:`veil.train.calibrate_noise`) so that ``rounds`` rounds stay
within (epsilon, delta). Client sampling amplifies privacy only when it
is really random: with ``fraction_fit < 1`` each client joins a round independently with
probability ``fraction_fit`` (Poisson sampling from the OS's randomness, never from ``seed``)
and the accountant uses that rate; with ``fraction_fit = 1`` every client joins and the rate
is 1 (no amplification). The spend is reserved in the ledger before any round runs. The
encoder's categories, numeric statistics and classes are read from the pooled training rows
and are not covered (as for ``veil train``); held-out accuracy is not private.
"""

from __future__ import annotations

import logging
import math
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veil._deps import require
from veil._errors import InputError
from veil._progress import NullProgress, Progress
from veil.federated._clientdp import AdaptiveClip, default_count_noise, split_noise
from veil.federated._dispatch import prompt_dispatch
from veil.federated._model import (
    MODELS,
    FLData,
    ModelSpec,
    check_model,
    evaluate,
    fresh_model,
    model_name,
    prepare,
)
from veil.federated._partition import parse_partition
from veil.federated._runtime import RuntimeDiedError
from veil.federated._secagg import RoundAbortedError, SecAggSettings
from veil.federated._strategy import make_strategy

if TYPE_CHECKING:
    import pandas as pd

    from veil.federated._server import RunState

__all__ = ["FLConfig", "simulate_federated"]

log = logging.getLogger(__name__)

DP_MODES: tuple[str, ...] = ("client", "sample")
ACCOUNTANTS: tuple[str, ...] = ("rdp", "prv")
ENGINE_STOP_WAIT = 30.0  # seconds the server loop has to notice that Flower's engine stopped


@dataclass(frozen=True)
class FLConfig:
    """Settings of a federated simulation (defaults live here).

    ``model`` is ``mlp`` (veil's tabular MLP), ``logistic`` (a logistic regression on the
    same features: far fewer parameters for client-level DP's noise to fall on), or, from
    Python, a user's ``nn.Module`` or a factory ``(cardinalities, n_numeric, n_classes) ->
    nn.Module`` whose ``forward(x_cat, x_num)`` returns logits (see
    :mod:`veil.federated._model`).
    ``workers`` is how many Ray actors run the clients (default: one per CPU, at most one per
    client); each actor imports torch once. ``lr`` is the clients' SGD learning rate;
    ``proximal_mu`` is FedProx's; ``clip_norm``, ``epsilon`` and ``delta`` apply with
    ``dp="client"``; ``adaptive_clip`` makes ``clip_norm`` the first round's clip, then the
    clip tracks the ``clip_quantile`` of the update norms (``clip_lr``, ``clip_count_noise``:
    see :mod:`veil.federated._clientdp`). ``secagg`` aggregates with SecAgg+ (``secagg_shares``,
    ``secagg_threshold``: see :mod:`veil.federated._secagg`; ``None``, the default, picks
    them for each round so that 30 % of its clients may vanish); ``dropout`` is the share of
    each round's clients that vanish after key sharing (or, without SecAgg+, before replying).

    The defaults (20 rounds of 1 local epoch, SGD at 0.05 on batches of 64, 0.0125 for
    SCAFFOLD) are those with
    which the issue's accuracy targets were measured on Adult (``benchmarks/fl_accuracy.py``).
    """

    clients: int = 10
    rounds: int = 20
    model: ModelSpec = "mlp"
    partition: str = "iid"
    strategy: str = "fedavg"
    local_epochs: int = 1
    fraction_fit: float = 1.0
    batch_size: int = 64
    lr: float | None = None
    proximal_mu: float = 0.01
    test_fraction: float = 0.2
    seed: int | None = 0
    dp: str | None = None
    epsilon: float | None = None
    delta: float = 1e-5
    clip_norm: float = 1.0
    adaptive_clip: bool = False
    clip_quantile: float = 0.5
    clip_lr: float = 0.2
    clip_count_noise: float | None = None
    workers: int | None = None
    secagg: bool = False
    secagg_shares: float | None = None
    secagg_threshold: float | None = None
    dropout: float = 0.0
    accountant: str = "rdp"

    def validate(self) -> None:
        """Refuse bad settings before any data, ledger or Ray is touched."""
        make_strategy(self.strategy)
        parse_partition(self.partition)
        if isinstance(self.model, str) and self.model not in MODELS:
            raise InputError(
                f"unknown --model {self.model!r}", hint=f"use one of: {', '.join(MODELS)}"
            )
        if not isinstance(self.model, str) and not callable(self.model):
            raise InputError(
                f"model must be one of {', '.join(MODELS)}, an nn.Module or a factory, "
                f"not a {type(self.model).__name__}",
                hint="pass FLConfig(model=MyNet()) or FLConfig(model=make_net)",
            )
        for name in ("clients", "rounds", "local_epochs", "batch_size"):
            if getattr(self, name) < 1:
                raise InputError(f"--{name.replace('_', '-')} must be at least 1")
        if not 0 < self.fraction_fit <= 1:
            raise InputError("--fraction-fit must be in (0, 1]", hint="e.g. 0.5")
        if not 0 <= self.test_fraction < 1:
            raise InputError("--test-fraction must be in [0, 1)")
        if self.workers is not None and self.workers < 1:
            raise InputError("--workers must be at least 1")
        if not self.learning_rate > 0 or not math.isfinite(self.learning_rate):
            raise InputError("--lr must be a positive number")
        if not 0 <= self.dropout < 1:
            raise InputError("--dropout must be in [0, 1)", hint="e.g. --dropout 0.3")
        if self.secagg:
            self._validate_secagg()
        if self.adaptive_clip and self.dp != "client":
            raise InputError(
                "--adaptive-clip applies to --dp client only",
                hint="add --dp client --epsilon E, or drop --adaptive-clip",
            )
        adaptive = self.adaptive_clip_settings()
        if adaptive is not None:
            adaptive.check()
        if self.dp is None:
            if self.accountant != "rdp":
                raise InputError(
                    "--accountant applies with --dp only",
                    hint="add --dp client|sample --epsilon E, or drop --accountant",
                )
            return
        if self.accountant not in ACCOUNTANTS:
            raise InputError(
                f"unknown --accountant {self.accountant!r}",
                hint=f"use one of: {', '.join(ACCOUNTANTS)}",
            )
        if self.dp not in DP_MODES:
            raise InputError(
                f"unknown --dp mode {self.dp!r}",
                hint=f"use one of: {', '.join(DP_MODES)}",
            )
        if self.epsilon is None:
            raise InputError(f"--dp {self.dp} needs a target --epsilon", hint="e.g. --epsilon 3")
        if not self.epsilon > 0 or not math.isfinite(self.epsilon):
            raise InputError("--epsilon must be a positive number")
        if self.dp == "client" and self.strategy == "scaffold":
            raise InputError(
                "--dp client does not combine with --strategy scaffold: its control variates "
                "would leave the clients unclipped and unnoised",
                hint="use fedavg, fedprox or fedadam with --dp client",
            )
        if self.dp == "sample" and self.strategy == "scaffold":
            raise InputError(
                "--dp sample does not combine with --strategy scaffold: the clients' DP-SGD "
                "training neither applies SCAFFOLD's correction nor returns control variates",
                hint="use fedavg, fedprox or fedadam with --dp sample",
            )
        if not self.clip_norm > 0 or not math.isfinite(self.clip_norm):
            raise InputError("--clip-norm must be a positive number")

    @property
    def learning_rate(self) -> float:
        """``lr``, or its default: 0.05, and 0.0125 for SCAFFOLD.

        SCAFFOLD applies its correction ``c - c_i`` at every local step, so its effective step
        on the global gradient grows with ``lr x local steps`` (its convergence proof asks for
        that product to be small); on Dirichlet 0.5 splits of Adult its accuracy swung between
        80 and 83.6 % from round to round at 0.05, at 0.0125 it converges
        (``benchmarks/fl_accuracy.py``).
        """
        if self.lr is not None:
            return self.lr
        return 0.0125 if self.strategy == "scaffold" else 0.05

    def adaptive_clip_settings(self) -> AdaptiveClip | None:
        """Adaptive clipping's settings, or ``None`` for a fixed clip norm."""
        if not self.adaptive_clip:
            return None
        return AdaptiveClip(self.clip_quantile, self.clip_lr, self.clip_count_noise)

    def _validate_secagg(self) -> None:
        SecAggSettings(self.secagg_shares, self.secagg_threshold).check()
        if self.strategy == "scaffold":
            raise InputError(
                "--secagg does not combine with --strategy scaffold: its control variates "
                "would reach the server in clear",
                hint="use fedavg, fedprox or fedadam with --secagg",
            )
        if self.clients < 3:
            raise InputError(
                "--secagg needs at least 3 clients (SecAgg+ splits each secret in 3 or more)",
                hint="pass --clients 3 or more",
            )
        if (
            self.secagg_shares is not None
            and self.secagg_shares > 1
            and self.secagg_shares > self.clients
        ):
            raise InputError(
                f"--secagg-shares {int(self.secagg_shares)} is more than --clients {self.clients}",
                hint="pass at most as many shares as clients, or a share such as 1.0",
            )

    def secagg_settings(self, data: FLData) -> SecAggSettings:
        """SecAgg+ settings for this run: with client-level DP each coordinate of a clipped
        update is within ``clip_norm`` and the weights are 1; otherwise updates are quantized
        within 8 and weighted by row counts (bounded by the largest client's)."""
        if self.dp == "client":
            # with adaptive clipping the server widens the range each round (the clip and
            # the unclipped bit, 1/2)
            return SecAggSettings(
                self.secagg_shares, self.secagg_threshold, self.clip_norm, max_weight=1.0
            )
        biggest = max(len(p[2]) for p in data.parts)
        return SecAggSettings(
            self.secagg_shares, self.secagg_threshold, 8.0, max_weight=float(biggest)
        )


def ray_environment() -> None:
    """Settings for the Ray runtime Flower's simulation starts (read by Ray's daemons and
    workers from the environment; a value the user set wins)."""
    # Ray >= 2.5x warns on every start that it will stop hiding GPUs when num_gpus=0; the
    # clients never use a GPU, so opt into the future behaviour and skip the warning.
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")
    # Ray starts its workers 15 steps nicer than its raylet (RAY_worker_niceness, default
    # 15), to keep a cluster's daemons responsive. Here the workers are the simulated
    # clients, the bulk of every round: at +15 any other process on the machine takes the
    # CPU from them first, so a round's time followed whatever else ran on the machine
    # (docs/federated.md, "Ray workers' priority"). They run at the command's own
    # priority instead; a value the user set wins.
    os.environ.setdefault("RAY_worker_niceness", "0")


def _run_flower(
    data: FLData,
    config: FLConfig,
    sigma: float | None,
    progress: Progress,
    observe: Callable[[Any], None] | None,
    sample_sigmas: list[float] | None = None,
) -> RunState:
    require("flwr", extra="fl", purpose="federated learning")
    require("ray", extra="fl", purpose="Flower's simulation engine (flwr[simulation])")
    from flwr.common.logger import FLOWER_LOGGER
    from flwr.simulation import run_simulation

    from veil.federated._client import WorkerData, client_app, secagg_client_app
    from veil.federated._server import RunState, server_app

    run = RunState()
    server = server_app(data, config, sigma, run, progress, observe, sample_sigmas)
    # one Ray actor per worker, each running clients one after the other
    cpus = config.workers or max(1, min(os.cpu_count() or 1, config.clients))
    backend = {
        "client_resources": {"num_cpus": 1, "num_gpus": 0.0},
        "init_args": {
            "num_cpus": cpus,
            "num_gpus": 0,
            "include_dashboard": False,
            "logging_level": logging.ERROR,
            "log_to_driver": False,
        },
    }
    ray_environment()
    level = FLOWER_LOGGER.level
    if not log.isEnabledFor(logging.DEBUG):
        FLOWER_LOGGER.setLevel(logging.CRITICAL)
    try:
        with tempfile.TemporaryDirectory(prefix="veil-fl-") as tmp:  # mode 0700
            rows = WorkerData.save(data, Path(tmp) / "rows.pickle")
            client = secagg_client_app(rows) if config.secagg else client_app(rows)
            try:
                with prompt_dispatch():
                    run_simulation(
                        server,
                        client,
                        num_supernodes=config.clients,
                        backend_config=backend,  # type: ignore[arg-type]
                    )
            except Exception as exc:
                # Flower's engine crashed (its Ray runtime died, most often) and left the
                # server loop waiting for replies: tell it, and let it say in which round
                run.engine_stopped.set()
                if not run.done.wait(ENGINE_STOP_WAIT) or run.error is None:
                    raise RuntimeDiedError(
                        f"Flower's run_simulation raised {type(exc).__name__}",
                        round_number=len(run.rounds) + 1,
                    ) from exc
    finally:
        FLOWER_LOGGER.setLevel(level)
    if run.error is not None:
        raise run.error
    if len(run.rounds) != config.rounds:
        raise RuntimeError(
            f"Flower's simulation ended after {len(run.rounds)} of {config.rounds} rounds",
            # the engine logs its own reason; --debug shows it
        )
    return run


def client_noise(config: FLConfig) -> tuple[float, float]:
    """``--dp client``: the server's noise multiplier and the epsilon RDP certifies for it
    (``config.rounds`` rounds, each client in a round with probability ``fraction_fit``).

    With adaptive clipping this is the multiplier of the combined mechanism (update and
    count); the update's own, larger one is checked to exist here, before any spend."""
    from veil.train import calibrate_noise, check_budget

    assert config.epsilon is not None
    check_budget(config.epsilon, config.delta, config.clients)
    cal = calibrate_noise(
        epsilon=config.epsilon,
        delta=config.delta,
        sample_rate=config.fraction_fit,
        steps=config.rounds,
        accountant=config.accountant,
        compare_rdp=False,
    )
    adaptive = config.adaptive_clip_settings()
    if adaptive is not None:
        count_noise = adaptive.count_noise
        if count_noise is None:
            count_noise = default_count_noise(
                config.fraction_fit * config.clients, cal.noise_multiplier
            )
        split_noise(cal.noise_multiplier, count_noise)
    return cal.noise_multiplier, cal.epsilon


def simulate_federated(
    frame: pd.DataFrame,
    target: str,
    config: FLConfig,
    *,
    drop: Sequence[str] = (),
    ledger: Any = None,
    dataset_name: str | None = None,
    fingerprint: str | None = None,
    progress: Progress | None = None,
    observe: Callable[[Any], None] | None = None,
) -> dict[str, Any]:
    """Simulate federated training and a centralized baseline; the ``--json`` summary.

    Returns ``{accuracy, centralized: {accuracy, seconds}, majority_class_accuracy, rounds:
    [{round, accuracy, loss, clients, dropped}], epsilon_spent, delta, secagg: {enabled,
    dropped, rounds_completed}, seconds}`` plus details. Without DP, ``epsilon_spent`` and
    ``delta`` are ``None``. ``observe``, if given, is called with every reply message the
    server receives (an audit hook: with ``secagg`` no reply holds an update in clear).

    Raises
    ------
    RoundAbortedError
        A SecAgg+ round lost too many clients to remove the masks; nothing of it was
        aggregated. With a ledger, the spend of the rounds completed before it is recorded
        (their noisy aggregates reached the server) and the rest of the reservation dropped.
    RuntimeDiedError
        The Ray runtime under Flower's simulation engine died (its raylet or GCS server
        exited, or a client's message failed on a dead Ray actor); spent as above.

    Examples
    --------
    >>> from veil.data import adult_frame
    >>> out = simulate_federated(adult_frame(), "salary-class", FLConfig(clients=3))  # doctest: +SKIP
    >>> sorted(out["rounds"][0])  # doctest: +SKIP
    ['accuracy', 'clients', 'dropped', 'loss', 'round']
    """
    t0 = time.perf_counter()
    config.validate()
    require("torch", extra="fl", purpose="federated learning")
    require("flwr", extra="fl", purpose="federated learning")
    import torch

    from veil.train import (
        calibrate_noise,
        check_budget,
        epsilon_after,
        sample_rate_for,
        train_nonprivate,
    )

    progress = progress or NullProgress()
    data = prepare(frame, target, config, drop)
    check_model(data, config.dp)
    sigma = None
    epsilon_spent = None
    q = config.fraction_fit
    if config.dp == "client":
        sigma, epsilon_spent = client_noise(config)
    sample_sigmas: list[float] | None = None
    sample_plan: list[tuple[float, int]] = []
    if config.dp == "sample":
        assert config.epsilon is not None
        check_budget(config.epsilon, config.delta, len(data.train[2]))
        sample_sigmas, spent = [], []
        for part in data.parts:
            rate = sample_rate_for(len(part[2]), config.batch_size)
            per_round = config.local_epochs * round(1 / rate)
            cal = calibrate_noise(
                epsilon=config.epsilon,
                delta=config.delta,
                sample_rate=rate,
                steps=config.rounds * per_round,
                accountant=config.accountant,
                compare_rdp=False,
            )
            sample_sigmas.append(cal.noise_multiplier)
            sample_plan.append((rate, per_round))
            spent.append(cal.epsilon)
        # each row is on one client: the clients' DP-SGD runs compose in parallel
        epsilon_spent = max(spent)

    def released_epsilon(rounds_done: int) -> float:
        if sample_sigmas is not None:
            return max(
                epsilon_after(s, rate, rounds_done * per_round, config.delta, config.accountant)
                for s, (rate, per_round) in zip(sample_sigmas, sample_plan, strict=True)
            )
        assert sigma is not None
        return epsilon_after(sigma, q, rounds_done, config.delta, config.accountant)

    if ledger is not None and config.dp is None:
        raise InputError("a ledger spend needs --dp", hint="drop --dataset/--ledger")
    spend_id = None
    level = "sample-level DP-SGD" if config.dp == "sample" else "client-level DP"
    what = (
        f"{level} federated {config.strategy}, {config.clients} clients, "
        f"{config.rounds} rounds" + (", SecAgg+" if config.secagg else "")
    )
    mechanism = "dp-sgd" if config.dp == "sample" else "dp-fedavg"
    try:
        if ledger is not None:
            if dataset_name is None:
                raise InputError("a ledger was given but no dataset name to spend from")
            with ledger.charge(
                dataset_name,
                epsilon=float(epsilon_spent or 0.0),
                delta=config.delta,
                what=what,
                mechanism=mechanism,
                fingerprint=fingerprint,
            ) as spend:
                spend_id = spend.id
                run = _run_flower(data, config, sigma, progress, observe, sample_sigmas)
        else:
            run = _run_flower(data, config, sigma, progress, observe, sample_sigmas)
    except (RoundAbortedError, RuntimeDiedError) as exc:
        released = exc.round_number - 1
        if config.dp is not None and released > 0:
            eps = released_epsilon(released)
            if ledger is not None and dataset_name is not None:
                ledger.spend(
                    dataset_name,
                    epsilon=eps,
                    delta=config.delta,
                    what=f"{what}; aborted in round {exc.round_number}, {released} rounds released",
                    mechanism=mechanism,
                    fingerprint=fingerprint,
                )
            exc.message += (
                f"; the {released} rounds before it released noisy aggregates: epsilon "
                f"{eps:.4f} (delta {config.delta:g}) "
                + ("recorded in the ledger" if ledger is not None else "spent, not recorded")
            )
        elif config.dp is not None:
            exc.message += "; no round was released, so no privacy budget was spent"
        raise
    base_model = fresh_model(data.arch, data.init_seed, data.model)
    train_ds = torch.utils.data.TensorDataset(*data.train)
    base = train_nonprivate(
        base_model,
        train_ds,
        epochs=config.rounds * config.local_epochs,
        batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        optimizer="sgd",
        seed=config.seed,
    )
    base_acc, _ = evaluate(base.model, data.test)
    ty = data.test[2]
    majority = None
    if len(ty):
        majority = float(torch.bincount(ty, minlength=data.arch[2]).max()) / len(ty)
    return {
        "accuracy": run.rounds[-1]["accuracy"],
        "centralized": {"accuracy": base_acc, "seconds": base.seconds},
        "majority_class_accuracy": majority,
        "rounds": run.rounds,
        "epsilon_spent": epsilon_spent,
        "delta": config.delta if config.dp else None,
        "secagg": {
            "enabled": config.secagg,
            "dropped": sum(r["dropped"] for r in run.rounds),
            "rounds_completed": len(run.rounds),
        },
        "seconds": time.perf_counter() - t0,
        "round_seconds": run.round_seconds,
        "strategy": config.strategy,
        "model": model_name(config.model),
        "partition": config.partition,
        "clients": config.clients,
        "client_rows": [len(p[2]) for p in data.parts],
        "dp": None
        if config.dp is None
        else {
            "mode": config.dp,
            "unit": "one client",
            "noise_multiplier": sigma,
            "clip_norm": config.clip_norm,
            "sample_rate": q,
            "client_sampling": "poisson" if q < 1 else "all clients every round",
            "accountant": config.accountant,
            "target_epsilon": config.epsilon,
        }
        | (run.dp.summary() if run.dp is not None else {})
        if config.dp == "client"
        else {
            "mode": config.dp,
            "unit": "one row",
            "noise_multipliers": sample_sigmas,
            "sample_rates": [rate for rate, _ in sample_plan],
            "max_grad_norm": config.clip_norm,
            "composition": "parallel across clients (each row is on one client), every "
            "client counted in every round",
            "accountant": config.accountant,
            "target_epsilon": config.epsilon,
        },
        "secagg_settings": None
        if not config.secagg
        else {
            "shares": config.secagg_shares,
            "threshold": config.secagg_threshold,
            # what they come to in a round of all --fraction-fit's clients (None: per round)
            "resolved": list(
                SecAggSettings(config.secagg_shares, config.secagg_threshold).resolve(
                    max(2, round(config.fraction_fit * config.clients))
                )
            ),
            "dropout": config.dropout,
        },
        "ledger": None if spend_id is None else {"dataset": dataset_name, "spend_id": spend_id},
    }
