"""The simulated server: a Flower ``ServerApp`` that samples, aggregates and evaluates.

Every round it samples clients (``fraction_fit``; Poisson sampling from the OS's randomness
when client-level DP counts on it), marks the share ``dropout`` of them that will vanish,
sends the global weights and collects the update: in clear over the Message API, or through
SecAgg+ (:mod:`veil.federated._secagg`), which gives it only the aggregate. With client-level
DP it adds Gaussian noise to the sum of the clipped updates. The strategy
(:mod:`veil.federated._strategy`) turns the mean update into the next global weights, which
are evaluated on the held-out rows.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from veil._progress import Progress
from veil.federated._client import ADAPTIVE_KEY, DROP_KEY
from veil.federated._clientdp import ClientDPAggregator
from veil.federated._model import FLData, evaluate, fresh_model, num, set_weights
from veil.federated._runtime import GuardedGrid
from veil.federated._secagg import SecAggSettings
from veil.federated._strategy import make_strategy

if TYPE_CHECKING:
    from veil.federated._simulate import FLConfig

__all__ = ["RunState", "server_app"]

PULL_INTERVAL = 0.01  # seconds between the server's looks for replies in simulation


@dataclass
class RunState:
    """What the server loop hands back to :func:`veil.federated.simulate_federated`."""

    rounds: list[dict[str, Any]] = field(default_factory=list)
    round_seconds: list[float] = field(default_factory=list)
    weights: list[Any] = field(default_factory=list)
    error: BaseException | None = None
    dp: ClientDPAggregator | None = None
    # set by simulate_federated when Flower's engine stopped under the server loop
    engine_stopped: threading.Event = field(default_factory=threading.Event)
    # set by the server loop when it has returned (its outcome is in the fields above)
    done: threading.Event = field(default_factory=threading.Event)


class _ObservedGrid:
    """A grid that shows every reply the server receives to ``observe`` (an audit hook)."""

    def __init__(self, grid: Any, observe: Callable[[Any], None]) -> None:
        self._grid = grid
        self._observe = observe

    def send_and_receive(self, messages: Any, *, timeout: float | None = None) -> list[Any]:
        replies = list(self._grid.send_and_receive(messages, timeout=timeout))
        for m in replies:
            self._observe(m)
        return replies

    def __getattr__(self, name: str) -> Any:
        return getattr(self._grid, name)


def _wait_for_nodes(grid: Any, n: int, timeout: float = 300.0) -> list[int]:
    """The simulated SuperNodes register after the ServerApp starts: wait for all ``n``."""
    deadline = time.monotonic() + timeout
    while True:
        check = getattr(grid, "check", None)
        if check is not None:
            check()  # the engine may have died before every client registered
        nodes = sorted(int(x) for x in grid.get_node_ids())
        if len(nodes) >= n:
            return nodes
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"only {len(nodes)} of {n} simulated clients started in {timeout:.0f} s"
            )
        time.sleep(0.2)


def server_app(
    data: FLData,
    config: FLConfig,
    sigma: float | None,
    run: RunState,
    progress: Progress,
    observe: Callable[[Any], None] | None = None,
    sample_sigmas: list[float] | None = None,
) -> Any:
    """The ``ServerApp`` of one simulation; its outcome lands in ``run``.

    ``sigma`` is client-level DP's noise multiplier; ``sample_sigmas`` each client's DP-SGD
    noise multiplier with ``--dp sample`` (by partition id)."""
    import numpy as np
    from flwr.app import ArrayRecord, ConfigRecord, Context, RecordDict
    from flwr.serverapp import Grid, ServerApp

    from veil.federated._secagg import KeyPrefetch, secagg_round

    app = ServerApp()
    strategy = make_strategy(config.strategy)
    n = config.clients
    dp = config.dp == "client"
    poisson = dp and config.fraction_fit < 1
    # the sampling and the noise must not be reproducible from --seed when they protect
    private_rng = np.random.default_rng(secrets.randbits(128))
    sample_rng = private_rng if poisson else np.random.default_rng(config.seed)
    drop_rng = np.random.default_rng(None if config.seed is None else config.seed + 1)
    model = fresh_model(data.arch, data.init_seed, data.model)
    settings = config.secagg_settings(data)
    # public keys the clients made at a round's unmasking for their next round: a client of
    # consecutive SecAgg+ rounds then skips the setup exchange (veil.federated._secagg_keys)
    prefetch = KeyPrefetch()
    agg = None
    if dp:
        assert sigma is not None
        agg = ClientDPAggregator(
            sigma,
            config.clip_norm,
            config.fraction_fit * n,
            private_rng,
            config.adaptive_clip_settings(),
        )
    run.dp = agg

    @app.main()
    def main(grid: Grid, context: Context) -> None:
        if isinstance(getattr(grid, "pull_interval", None), float):
            # the simulation's in-memory grid sleeps this long between looks for replies
            # (0.1 s): SecAgg+ waits on it four times a round, plain aggregation once
            grid.pull_interval = min(grid.pull_interval, PULL_INTERVAL)  # type: ignore[attr-defined]
        # stops the run when Flower's Ray runtime dies, rather than running on without clients
        guarded = GuardedGrid(grid, lambda: len(run.rounds) + 1, stopped=run.engine_stopped)
        try:
            _loop(guarded if observe is None else _ObservedGrid(guarded, observe), context)
        except BaseException as exc:  # noqa: BLE001 - re-raised by simulate_federated
            run.error = exc
        finally:
            run.done.set()

    def _config(r: int, nd: int, drop: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "epochs": config.local_epochs,
            "batch_size": config.batch_size,
            "lr": config.learning_rate,
            "mu": config.proximal_mu if config.strategy == "fedprox" else 0.0,
            "seed": (config.seed or 0) * 7919 + r * 1009 + int(nd) % 997,
            "clip": agg.clip_norm if agg is not None else 0.0,
            DROP_KEY: drop,
        }
        if agg is not None and agg.adaptive is not None:
            out[ADAPTIVE_KEY] = True
        if sample_sigmas is not None:
            out["dp_sigmas"] = list(sample_sigmas)
            out["dp_epsilon"] = float(config.epsilon or 0.0)
            out["dp_delta"] = config.delta
            out["dp_clip"] = config.clip_norm
            out["dp_accountant"] = config.accountant
        return out

    def _round_settings() -> SecAggSettings:
        # adaptive clipping: each coordinate is within this round's clip norm, the bit 1/2
        if agg is None or agg.adaptive is None:
            return settings
        return replace(settings, clipping_range=max(agg.clip_norm, 0.5))

    def _loop(grid: Any, context: Context) -> None:
        nodes = _wait_for_nodes(grid, n)
        weights = [p.detach().numpy().copy() for p in model.parameters()]
        client_c: dict[int, list[Any]] = {}
        with progress.task("federated rounds", total=config.rounds) as task:
            samples: dict[int, list[int]] = {}

            def sample(r: int) -> list[int]:
                # drawn in round order, each once: round r + 1's may be drawn during round
                # r (SecAgg+ shares its keys ahead), the same clients for a seed
                while len(samples) < r:
                    samples[len(samples) + 1] = _draw()
                return samples[r]

            def _draw() -> list[int]:
                if poisson:
                    return [nd for nd in nodes if private_rng.random() < config.fraction_fit]
                size = max(1, round(config.fraction_fit * n))
                picks = sample_rng.choice(len(nodes), size=size, replace=False)
                return [nodes[int(i)] for i in sorted(picks)]

            for r in range(1, config.rounds + 1):
                t0 = time.perf_counter()
                chosen = sample(r)
                n_drop = round(config.dropout * len(chosen))
                # indices, not the node ids: those are 64-bit unsigned and numpy would not
                # keep them exact in an array
                dropping = {chosen[int(i)] for i in drop_rng.permutation(len(chosen))[:n_drop]}
                zeros = [np.zeros_like(w) for w in weights]
                if agg is not None and agg.adaptive is not None:
                    # the sum of the clients' centred bits follows the update's arrays
                    replied_zeros = [*zeros, np.zeros(1, dtype=np.float32)]
                else:
                    replied_zeros = zeros
                if config.secagg:
                    finished = 0
                    mean = replied_zeros
                    if len(chosen) >= 2:
                        fit = {nd: (weights, _config(r, nd, nd in dropping)) for nd in chosen}
                        # the next round's clients share their keys with this unmasking
                        # (not with adaptive clipping: its setup needs this round's result)
                        following = None
                        if r < config.rounds and (agg is None or agg.adaptive is None):
                            following = sample(r + 1)
                        mean, finished = secagg_round(
                            grid,
                            context,
                            fit,
                            _round_settings(),
                            r,
                            prefetch=prefetch,
                            next_clients=following,
                        )
                    if agg is not None:
                        weights = strategy.step(
                            weights, agg.aggregate([m * finished for m in mean])
                        )
                    elif finished:
                        weights = strategy.step(weights, mean)
                else:
                    msgs = []
                    for nd in chosen:
                        content = RecordDict(
                            {
                                "arrays": ArrayRecord(weights),
                                "config": ConfigRecord(_config(r, nd, nd in dropping)),
                            }
                        )
                        if config.strategy == "scaffold":
                            content["control"] = ArrayRecord(strategy.c_ or zeros)
                            content["client_control"] = ArrayRecord(client_c.get(nd, zeros))
                        msgs.append(grid.create_message(content, "train", nd, str(r)))
                    replies = list(grid.send_and_receive(msgs)) if msgs else []
                    ok = [m for m in replies if m.has_content()]
                    finished = len(ok)
                    deltas = [m.content.array_records["arrays"].to_numpy_ndarrays() for m in ok]
                    sizes = [int(num(m.content.metric_records["metrics"]["n"])) for m in ok]
                    if agg is not None:
                        total = replied_zeros
                        for d in deltas:
                            total = [t + x for t, x in zip(total, d, strict=True)]
                        weights = strategy.step(weights, agg.aggregate(total))
                    elif deltas:
                        weights = strategy.step(weights, strategy.mean_delta(deltas, sizes))
                    if config.strategy == "scaffold":
                        cds = []
                        for m in ok:
                            cd = m.content.array_records["control"].to_numpy_ndarrays()
                            nd = m.metadata.src_node_id
                            prev = client_c.get(nd, zeros)
                            client_c[nd] = [p + c for p, c in zip(prev, cd, strict=True)]
                            cds.append(cd)
                        strategy.update_control(cds, sizes, n)
                run.round_seconds.append(time.perf_counter() - t0)
                set_weights(model, weights)
                acc, loss = evaluate(model, data.test)
                run.rounds.append(
                    {
                        "round": r,
                        "accuracy": acc,
                        "loss": loss,
                        "clients": finished,
                        "dropped": len(chosen) - finished,
                    }
                )
                task.advance()
        run.weights = weights

    return app
