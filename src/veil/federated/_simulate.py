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
``sigma`` is calibrated by veil's RDP accountant (:func:`veil.train.calibrate_noise`) so that
``rounds`` rounds stay within (epsilon, delta). Client sampling amplifies privacy only when it
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
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veil._deps import require
from veil._errors import InputError, SchemaError
from veil._progress import NullProgress, Progress
from veil.federated._partition import parse_partition, partition_rows
from veil.federated._strategy import make_strategy

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FLConfig", "simulate_federated"]

log = logging.getLogger(__name__)

DP_MODES: tuple[str, ...] = ("client",)


@dataclass(frozen=True)
class FLConfig:
    """Settings of a federated simulation (defaults live here).

    ``workers`` is how many Ray actors run the clients (default: one per CPU, at most one per
    client); each actor imports torch once. ``lr`` is the clients' SGD learning rate; ``proximal_mu`` is FedProx's; ``clip_norm``,
    ``epsilon`` and ``delta`` apply with ``dp="client"``.
    """

    clients: int = 10
    rounds: int = 5
    partition: str = "iid"
    strategy: str = "fedavg"
    local_epochs: int = 1
    fraction_fit: float = 1.0
    batch_size: int = 64
    lr: float = 0.05
    proximal_mu: float = 0.01
    test_fraction: float = 0.2
    seed: int | None = 0
    dp: str | None = None
    epsilon: float | None = None
    delta: float = 1e-5
    clip_norm: float = 1.0
    workers: int | None = None

    def validate(self) -> None:
        """Refuse bad settings before any data, ledger or Ray is touched."""
        make_strategy(self.strategy)
        parse_partition(self.partition)
        for name in ("clients", "rounds", "local_epochs", "batch_size"):
            if getattr(self, name) < 1:
                raise InputError(f"--{name.replace('_', '-')} must be at least 1")
        if not 0 < self.fraction_fit <= 1:
            raise InputError("--fraction-fit must be in (0, 1]", hint="e.g. 0.5")
        if not 0 <= self.test_fraction < 1:
            raise InputError("--test-fraction must be in [0, 1)")
        if self.workers is not None and self.workers < 1:
            raise InputError("--workers must be at least 1")
        if not self.lr > 0 or not math.isfinite(self.lr):
            raise InputError("--lr must be a positive number")
        if self.dp is None:
            return
        if self.dp not in DP_MODES:
            raise InputError(
                f"unknown --dp mode {self.dp!r}",
                hint=f"use one of: {', '.join(DP_MODES)} (--dp sample is not built yet)",
            )
        if self.epsilon is None:
            raise InputError("--dp client needs a target --epsilon", hint="e.g. --epsilon 3")
        if self.strategy == "scaffold":
            raise InputError(
                "--dp client does not combine with --strategy scaffold: its control variates "
                "would leave the clients unclipped and unnoised",
                hint="use fedavg, fedprox or fedadam with --dp client",
            )
        if not self.clip_norm > 0 or not math.isfinite(self.clip_norm):
            raise InputError("--clip-norm must be a positive number")


@dataclass
class _Data:
    parts: list[tuple[Any, Any, Any]]
    train: tuple[Any, Any, Any]
    test: tuple[Any, Any, Any]
    arch: tuple[list[int], int, int]
    init_seed: int


def _prepare(frame: pd.DataFrame, target: str, config: FLConfig, drop: Sequence[str]) -> _Data:
    import numpy as np
    import torch

    from veil.train import TabularEncoder

    if target not in frame.columns:
        raise SchemaError(
            f"target column {target!r} is not in the table ({len(frame.columns)} columns)",
            hint="pass --target with one of the table's column names",
        )
    spec = parse_partition(config.partition)
    if spec.column is not None and spec.column not in frame.columns:
        raise SchemaError(
            f"--partition column {spec.column!r} is not in the table",
            hint="name one of the table's columns",
        )
    df = frame.loc[frame[target].notna()]
    rng = np.random.default_rng(config.seed)
    order = rng.permutation(len(df))
    n_test = round(len(df) * config.test_fraction)
    train_df, test_df = df.iloc[order[n_test:]], df.iloc[order[:n_test]]
    if len(train_df) == 0:
        raise InputError("no training rows left after holding out the test rows")
    if config.clients > len(train_df):
        raise InputError(
            f"{config.clients} clients but only {len(train_df)} training rows: "
            "a client would get no data",
            hint="pass fewer --clients, or more rows",
        )
    enc = TabularEncoder(target=target, drop=list(drop)).fit(train_df)
    xc, xn = enc.transform(train_df)
    y = enc.encode_target(train_df[target])
    test_df = test_df.loc[test_df[target].astype(str).isin(enc.classes_)]
    tc, tn = enc.transform(test_df)
    ty = enc.encode_target(test_df[target])
    column = train_df[spec.column].to_numpy() if spec.column is not None else None
    idx = partition_rows(spec, config.clients, y.numpy(), column, config.seed)
    parts = [(xc[torch.as_tensor(i)], xn[torch.as_tensor(i)], y[torch.as_tensor(i)]) for i in idx]
    init_seed = config.seed if config.seed is not None else secrets.randbits(62)
    arch = (enc.cardinalities, len(enc.numeric_), len(enc.classes_))
    return _Data(parts, (xc, xn, y), (tc, tn, ty), arch, init_seed)


def _fresh_model(arch: tuple[list[int], int, int], seed: int) -> Any:
    import torch

    from veil.train import make_tabular_mlp

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return make_tabular_mlp(*arch)


def _set_weights(model: Any, weights: list[Any]) -> None:
    import torch

    with torch.no_grad():
        for p, w in zip(model.parameters(), weights, strict=True):
            p.copy_(torch.as_tensor(w))


def _evaluate(model: Any, test: tuple[Any, Any, Any]) -> tuple[float | None, float | None]:
    import torch

    tc, tn, ty = test
    if len(ty) == 0:
        return None, None
    model.eval()
    with torch.no_grad():
        logits = model(tc, tn)
        loss = float(torch.nn.functional.cross_entropy(logits, ty))
        acc = float((logits.argmax(1) == ty).float().mean())
    return acc, loss


def _num(value: Any) -> float:
    """A number read back from a Flower record (typed there as a union of record values)."""
    if not isinstance(value, int | float):
        raise TypeError(f"expected a number in a Flower record, got {type(value).__name__}")
    return float(value)


def _client_app(data: _Data, config: FLConfig) -> Any:
    from flwr.app import ArrayRecord, Context, Message, MetricRecord, RecordDict
    from flwr.clientapp import ClientApp

    parts, arch, init_seed = data.parts, data.arch, data.init_seed
    app = ClientApp()

    @app.train()
    def train(msg: Message, context: Context) -> Message:
        import torch

        from veil.federated._local import local_train

        torch.set_num_threads(1)
        pid = int(context.node_config["partition-id"])
        cfg = msg.content.config_records["config"]
        model = _fresh_model(arch, init_seed)
        _set_weights(model, msg.content.array_records["arrays"].to_numpy_ndarrays())
        control = None
        if "control" in msg.content:
            c = msg.content.array_records["control"].to_numpy_ndarrays()
            ci = msg.content.array_records["client_control"].to_numpy_ndarrays()
            control = (c, ci)
        clip = _num(cfg["clip"]) if _num(cfg["clip"]) > 0 else None
        res = local_train(
            model,
            parts[pid],
            epochs=int(_num(cfg["epochs"])),
            batch_size=int(_num(cfg["batch_size"])),
            lr=_num(cfg["lr"]),
            seed=int(_num(cfg["seed"])),
            proximal_mu=_num(cfg["mu"]),
            control=control,
            clip=clip,
        )
        content = RecordDict(
            {
                "arrays": ArrayRecord(res.delta),
                "metrics": MetricRecord({"n": res.n_examples, "loss": res.loss}),
            }
        )
        if res.control_delta is not None:
            content["control"] = ArrayRecord(res.control_delta)
        return Message(content, reply_to=msg)

    return app


def _wait_for_nodes(grid: Any, n: int, timeout: float = 300.0) -> list[int]:
    """The simulated SuperNodes register after the ServerApp starts: wait for all ``n``."""
    deadline = time.monotonic() + timeout
    while True:
        nodes = sorted(int(x) for x in grid.get_node_ids())
        if len(nodes) >= n:
            return nodes
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"only {len(nodes)} of {n} simulated clients started in {timeout:.0f} s"
            )
        time.sleep(0.2)


@dataclass
class _Run:
    rounds: list[dict[str, Any]]
    weights: list[Any]
    error: BaseException | None = None


def _server_app(
    data: _Data, config: FLConfig, sigma: float | None, run: _Run, progress: Progress
) -> Any:
    import numpy as np
    from flwr.app import ArrayRecord, ConfigRecord, Context, RecordDict
    from flwr.serverapp import Grid, ServerApp

    app = ServerApp()
    strategy = make_strategy(config.strategy)
    n = config.clients
    dp = config.dp == "client"
    poisson = dp and config.fraction_fit < 1
    # the sampling and the noise must not be reproducible from --seed when they protect
    private_rng = np.random.default_rng(secrets.randbits(128))
    sample_rng = private_rng if poisson else np.random.default_rng(config.seed)
    model = _fresh_model(data.arch, data.init_seed)

    @app.main()
    def main(grid: Grid, context: Context) -> None:
        try:
            _loop(grid)
        except BaseException as exc:  # noqa: BLE001 - re-raised by simulate_federated
            run.error = exc

    def _loop(grid: Grid) -> None:
        nodes = _wait_for_nodes(grid, n)
        weights = [p.detach().numpy().copy() for p in model.parameters()]
        client_c: dict[int, list[Any]] = {}
        with progress.task("federated rounds", total=config.rounds) as task:
            for r in range(1, config.rounds + 1):
                if poisson:
                    chosen = [nd for nd in nodes if private_rng.random() < config.fraction_fit]
                else:
                    size = max(1, round(config.fraction_fit * n))
                    picks = sample_rng.choice(len(nodes), size=size, replace=False)
                    chosen = [nodes[int(i)] for i in sorted(picks)]
                msgs = []
                for nd in chosen:
                    content = RecordDict(
                        {
                            "arrays": ArrayRecord(weights),
                            "config": ConfigRecord(
                                {
                                    "epochs": config.local_epochs,
                                    "batch_size": config.batch_size,
                                    "lr": config.lr,
                                    "mu": config.proximal_mu
                                    if config.strategy == "fedprox"
                                    else 0.0,
                                    "seed": (config.seed or 0) * 7919 + r * 1009 + int(nd) % 997,
                                    "clip": config.clip_norm if dp else 0.0,
                                }
                            ),
                        }
                    )
                    if config.strategy == "scaffold":
                        zeros = [np.zeros_like(w) for w in weights]
                        content["control"] = ArrayRecord(strategy.c_ or zeros)
                        content["client_control"] = ArrayRecord(client_c.get(nd, zeros))
                    msgs.append(grid.create_message(content, "train", nd, str(r)))
                replies = list(grid.send_and_receive(msgs)) if msgs else []
                ok = [m for m in replies if m.has_content()]
                deltas = [m.content.array_records["arrays"].to_numpy_ndarrays() for m in ok]
                if dp:
                    assert sigma is not None
                    expected = config.fraction_fit * n
                    total = [np.zeros_like(w) for w in weights]
                    for d in deltas:
                        total = [t + x for t, x in zip(total, d, strict=True)]
                    std = sigma * config.clip_norm
                    mean = [
                        (t + private_rng.normal(0.0, std, size=t.shape)).astype(t.dtype) / expected
                        for t in total
                    ]
                    weights = strategy.step(weights, mean)
                elif deltas:
                    sizes = [int(_num(m.content.metric_records["metrics"]["n"])) for m in ok]
                    weights = strategy.step(weights, strategy.mean_delta(deltas, sizes))
                if config.strategy == "scaffold":
                    cds = []
                    for m in ok:
                        cd = m.content.array_records["control"].to_numpy_ndarrays()
                        nd = m.metadata.src_node_id
                        prev = client_c.get(nd, [np.zeros_like(w) for w in weights])
                        client_c[nd] = [p + c for p, c in zip(prev, cd, strict=True)]
                        cds.append(cd)
                    strategy.update_control(cds, n)
                _set_weights(model, weights)
                acc, loss = _evaluate(model, data.test)
                run.rounds.append(
                    {
                        "round": r,
                        "accuracy": acc,
                        "loss": loss,
                        "clients": len(ok),
                        "dropped": len(chosen) - len(ok),
                    }
                )
                task.advance()
        run.weights = weights

    return app


def _run_flower(data: _Data, config: FLConfig, sigma: float | None, progress: Progress) -> _Run:
    require("flwr", extra="fl", purpose="federated learning")
    require("ray", extra="fl", purpose="Flower's simulation engine (flwr[simulation])")
    from flwr.common.logger import FLOWER_LOGGER
    from flwr.simulation import run_simulation

    run = _Run(rounds=[], weights=[])
    server = _server_app(data, config, sigma, run, progress)
    client = _client_app(data, config)
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
    # Ray >= 2.5x warns on every start that it will stop hiding GPUs when num_gpus=0; the
    # clients never use a GPU, so opt into the future behaviour and skip the warning.
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")
    level = FLOWER_LOGGER.level
    if not log.isEnabledFor(logging.DEBUG):
        FLOWER_LOGGER.setLevel(logging.ERROR)
    try:
        run_simulation(server, client, num_supernodes=config.clients, backend_config=backend)  # type: ignore[arg-type]
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
) -> dict[str, Any]:
    """Simulate federated training and a centralized baseline; the ``--json`` summary.

    Returns ``{accuracy, centralized: {accuracy, seconds}, majority_class_accuracy, rounds:
    [{round, accuracy, loss, clients, dropped}], epsilon_spent, delta, secagg: {enabled,
    dropped, rounds_completed}, seconds}`` plus details. Without DP, ``epsilon_spent`` and
    ``delta`` are ``None``; secure aggregation is not built yet (``secagg.enabled`` is false).

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

    from veil.train import calibrate_noise, check_budget, train_nonprivate

    progress = progress or NullProgress()
    data = _prepare(frame, target, config, drop)
    sigma = None
    epsilon_spent = None
    q = config.fraction_fit
    if config.dp == "client":
        assert config.epsilon is not None
        check_budget(config.epsilon, config.delta, config.clients)
        cal = calibrate_noise(
            epsilon=config.epsilon,
            delta=config.delta,
            sample_rate=q,
            steps=config.rounds,
            accountant="rdp",
            compare_rdp=False,
        )
        sigma, epsilon_spent = cal.noise_multiplier, cal.epsilon
    if ledger is not None and config.dp is None:
        raise InputError("a ledger spend needs --dp client", hint="drop --dataset/--ledger")
    spend_id = None
    if ledger is not None:
        if dataset_name is None:
            raise InputError("a ledger was given but no dataset name to spend from")
        with ledger.charge(
            dataset_name,
            epsilon=float(epsilon_spent or 0.0),
            delta=config.delta,
            what=f"client-level DP federated {config.strategy}, {config.clients} clients, "
            f"{config.rounds} rounds",
            mechanism="dp-fedavg",
            fingerprint=fingerprint,
        ) as spend:
            spend_id = spend.id
            run = _run_flower(data, config, sigma, progress)
    else:
        run = _run_flower(data, config, sigma, progress)
    base_model = _fresh_model(data.arch, data.init_seed)
    train_ds = torch.utils.data.TensorDataset(*data.train)
    base = train_nonprivate(
        base_model,
        train_ds,
        epochs=config.rounds * config.local_epochs,
        batch_size=config.batch_size,
        learning_rate=config.lr,
        optimizer="sgd",
        seed=config.seed,
    )
    base_acc, _ = _evaluate(base.model, data.test)
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
        "secagg": {"enabled": False, "dropped": 0, "rounds_completed": len(run.rounds)},
        "seconds": time.perf_counter() - t0,
        "strategy": config.strategy,
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
            "accountant": "rdp",
            "target_epsilon": config.epsilon,
        },
        "ledger": None if spend_id is None else {"dataset": dataset_name, "spend_id": spend_id},
    }
