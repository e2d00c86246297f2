"""The ``ServerApp`` of ``veil fl app``: rounds across real SuperNodes, paid for up front.

It runs in the SuperLink's machine (Flower starts it when ``flwr run`` submits the app). Before
any round it waits for ``clients`` SuperNodes, calibrates client-level DP's noise as
``veil fl simulate --dp client`` does and reserves that spend in the ledger (the local
SQLite file of that machine unless the run config names one); a refused spend stops the
run before a single update is asked for. Each round samples among the SuperNodes online
(Poisson sampling from the OS's randomness when DP counts on it), gets their updates in
clear or through SecAgg+ (:func:`veil.federated._secagg.secagg_round`), adds the Gaussian
noise with DP, applies the strategy and, unless ``evaluate`` is false, asks every
SuperNode online how many of its held-out rows the new model gets right.

A SuperNode that vanishes mid-round is waited for at most ``round_timeout`` seconds, then
the round goes on without it (SecAgg+ removes its masks from the key shares of the others,
or aborts the round when too few are left: nothing of it is aggregated, and only the rounds
released before it are recorded in the ledger). At the end the server writes
``report.json`` and ``model.pt`` (a :class:`veil.train.TabularClassifier`) into ``out_dir``.
"""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veil.federated._deploy import AppSettings, load_schema
from veil.federated._model import fresh_model, set_weights
from veil.federated._secagg import RoundAbortedError, SecAggSettings
from veil.federated._strategy import make_strategy

if TYPE_CHECKING:
    from veil.train import TabularEncoder

__all__ = ["run_rounds", "server_app"]


def _log(msg: str, *args: Any) -> None:
    from logging import INFO

    from flwr.common.logger import log

    log(INFO, "[veil] " + msg, *args)


PULL_INTERVAL = 0.25  # seconds between the server's looks for replies


class _PollingGrid:
    """The run's grid, looking for replies every ``PULL_INTERVAL`` seconds.

    Flower's ``send_and_receive`` sleeps 3 s between looks; SecAgg+ waits for replies four
    times a round and the evaluation once more, so that sleep alone added up to 15 s a round.
    Same semantics otherwise: push, then pull until every reply is in or ``timeout`` passed.
    """

    def __init__(self, grid: Any) -> None:
        self._grid = grid

    def send_and_receive(self, messages: Any, *, timeout: float | None = None) -> list[Any]:
        pending = set(self._grid.push_messages(messages))
        end = None if timeout is None else time.monotonic() + timeout
        out: list[Any] = []
        while pending:
            got = list(self._grid.pull_messages(pending))
            out.extend(got)
            pending.difference_update(m.metadata.reply_to_message_id for m in got)
            if not pending or (end is not None and time.monotonic() >= end):
                break
            time.sleep(PULL_INTERVAL)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._grid, name)


def _wait_for_nodes(grid: Any, n: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        online = len(list(grid.get_node_ids()))
        if online >= n:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"only {online} of the {n} SuperNodes the run waits for connected in "
                f"{timeout:.0f} s",
            )
        time.sleep(0.5)


class _Round:
    """One round's exchange with the SuperNodes (legacy records: SecAgg+ needs them)."""

    def __init__(self, grid: Any, settings: AppSettings) -> None:
        self.grid = grid
        self.s = settings

    def fit_plain(
        self, chosen: list[int], weights: list[Any], configs: dict[int, dict[str, Any]], r: int
    ) -> tuple[list[list[Any]], list[int]]:
        from flwr.common import FitIns, ndarrays_to_parameters, parameters_to_ndarrays
        from flwr.compat.common import recorddict_compat as compat

        params = ndarrays_to_parameters(weights)
        msgs = [
            self.grid.create_message(
                compat.fitins_to_recorddict(FitIns(params, configs[nd]), True), "train", nd, str(r)
            )
            for nd in chosen
        ]
        replies = list(self.grid.send_and_receive(msgs, timeout=self.s.round_timeout))
        deltas, sizes = [], []
        for m in replies:
            if not m.has_content():
                continue
            res = compat.recorddict_to_fitres(m.content, keep_input=False)
            deltas.append(parameters_to_ndarrays(res.parameters))
            sizes.append(int(res.num_examples))
        return deltas, sizes

    def evaluate(self, weights: list[Any], r: int) -> tuple[float | None, float | None, int]:
        """Accuracy and loss over the held-out rows of the SuperNodes that answered."""
        from flwr.common import EvaluateIns, ndarrays_to_parameters
        from flwr.compat.common import recorddict_compat as compat

        ins = EvaluateIns(ndarrays_to_parameters(weights), {})
        msgs = [
            self.grid.create_message(
                compat.evaluateins_to_recorddict(ins, True), "evaluate", int(nd), str(r)
            )
            for nd in sorted(self.grid.get_node_ids())
        ]
        replies = list(self.grid.send_and_receive(msgs, timeout=self.s.round_timeout))
        n = correct = 0
        loss = 0.0
        answered = 0
        for m in replies:
            if not m.has_content():
                continue
            res = compat.recorddict_to_evaluateres(m.content)
            answered += 1
            n += int(res.num_examples)
            correct += int(res.metrics.get("correct", 0))
            loss += float(res.loss) * int(res.num_examples)
        if n == 0:
            return None, None, answered
        return correct / n, loss / n, answered


def run_rounds(
    grid: Any,
    context: Any,
    settings: AppSettings,
    encoder: TabularEncoder,
    sigma: float | None,
) -> tuple[list[dict[str, Any]], list[Any], list[float]]:
    """The rounds; returns their records, the final weights and each round's seconds."""
    import numpy as np

    from veil.federated._local import clip_update
    from veil.federated._secagg import secagg_round

    s = settings
    dp = s.dp == "client"
    arch = (encoder.cardinalities, len(encoder.numeric_), len(encoder.classes_))
    model = fresh_model(arch, s.seed)
    weights = [p.detach().numpy().copy() for p in model.parameters()]
    strategy = make_strategy(s.strategy)
    poisson = dp and s.fraction_fit < 1
    private_rng = np.random.default_rng(secrets.randbits(128))
    sample_rng = private_rng if poisson else np.random.default_rng(s.seed)
    sa = SecAggSettings(
        s.secagg_shares,
        s.secagg_threshold,
        s.clip_norm if dp else 8.0,
        max_weight=1.0 if dp else s.max_weight,
    )
    exchange = _Round(grid, s)
    rounds: list[dict[str, Any]] = []
    seconds: list[float] = []
    for r in range(1, s.rounds + 1):
        t0 = time.perf_counter()
        live = sorted(int(x) for x in grid.get_node_ids())
        if poisson:
            chosen = [nd for nd in live if private_rng.random() < s.fraction_fit]
        else:
            size = min(len(live), max(1, round(s.fraction_fit * len(live))))
            picks: list[int] = []
            if live:
                picks = [int(i) for i in sample_rng.choice(len(live), size=size, replace=False)]
            chosen = [live[i] for i in sorted(picks)]
        configs = {
            nd: {
                "epochs": s.local_epochs,
                "batch_size": s.batch_size,
                "lr": s.fl_config().learning_rate,
                "mu": s.proximal_mu if s.strategy == "fedprox" else 0.0,
                "seed": s.seed * 7919 + r * 1009 + nd % 997,
                "clip": s.clip_norm if dp else 0.0,
            }
            for nd in chosen
        }
        zeros = [np.zeros_like(w) for w in weights]
        finished = 0
        total = zeros
        mean = None
        if s.secagg:
            if len(chosen) >= 2:
                fit = {nd: (weights, configs[nd]) for nd in chosen}
                mean, finished = secagg_round(grid, context, fit, sa, r, timeout=s.round_timeout)
                total = [m * finished for m in mean]
            elif not dp:
                _log("round %s: %s SuperNode(s) sampled, SecAgg+ needs 2: skipped", r, len(chosen))
        else:
            deltas, sizes = exchange.fit_plain(chosen, weights, configs, r)
            finished = len(deltas)
            if dp:
                for d in deltas:
                    clipped, _ = clip_update(d, s.clip_norm)  # again: never trust a client
                    total = [t + x for t, x in zip(total, clipped, strict=True)]
            elif deltas:
                mean = strategy.mean_delta(deltas, sizes)
        if dp:
            assert sigma is not None
            std = sigma * s.clip_norm
            expected = s.fraction_fit * s.clients
            noisy = [
                (t + private_rng.normal(0.0, std, size=t.shape)).astype(t.dtype) / expected
                for t in total
            ]
            weights = strategy.step(weights, noisy)
        elif mean is not None and finished:
            weights = strategy.step(weights, mean)
        seconds.append(time.perf_counter() - t0)
        acc = loss = None
        if s.evaluate:
            acc, loss, _ = exchange.evaluate(weights, r)
        rounds.append(
            {
                "round": r,
                "accuracy": acc,
                "loss": loss,
                "clients": finished,
                "dropped": len(chosen) - finished,
            }
        )
        _log(
            "round %s of %s: %s of %s sampled SuperNodes finished, accuracy %s",
            r,
            s.rounds,
            finished,
            len(chosen),
            "-" if acc is None else f"{acc:.4f}",
        )
    set_weights(model, weights)
    return rounds, weights, seconds


def _write_outputs(
    out_dir: Path, summary: dict[str, Any], encoder: TabularEncoder, weights: list[Any]
) -> None:
    from veil.io import write_text_atomic
    from veil.train import TabularClassifier

    arch = (encoder.cardinalities, len(encoder.numeric_), len(encoder.classes_))
    model = fresh_model(arch, 0)
    set_weights(model, weights)
    out_dir.mkdir(parents=True, exist_ok=True)
    privacy = {} if summary["dp"] is None else dict(summary["dp"])
    TabularClassifier(encoder, model, (128,), privacy=privacy).save(out_dir / "model.pt")
    write_text_atomic(out_dir / "report.json", json.dumps(summary, indent=2) + "\n")


def _run(grid: Any, context: Any, schema_path: Path) -> dict[str, Any]:
    from veil.federated._simulate import client_noise
    from veil.train import epsilon_after

    t0 = time.perf_counter()
    s = AppSettings.from_run_config(context.run_config)
    encoder = load_schema(schema_path)
    sigma = epsilon_spent = None
    if s.dp == "client":
        sigma, epsilon_spent = client_noise(s.fl_config())  # the same noise as simulate's
    _log("waiting for %s SuperNodes", s.clients)
    _wait_for_nodes(grid, s.clients, s.wait_timeout)
    what = f"client-level DP federated {s.strategy} (Flower app), {s.clients} clients, " + (
        f"{s.rounds} rounds" + (", SecAgg+" if s.secagg else "")
    )
    spend_id = None
    ledger = None
    if s.dp is not None and not s.no_ledger:
        from veil.dp import BudgetLedger

        ledger = BudgetLedger(s.ledger or None)
    try:
        if ledger is not None:
            with ledger.charge(
                s.dataset,
                epsilon=float(epsilon_spent or 0.0),
                delta=s.delta,
                what=what,
                mechanism="dp-fedavg",
            ) as spend:
                spend_id = spend.id
                _log("ledger: spend %s reserved on the dataset", spend_id)
                rounds, weights, seconds = run_rounds(grid, context, s, encoder, sigma)
        else:
            rounds, weights, seconds = run_rounds(grid, context, s, encoder, sigma)
    except RoundAbortedError as exc:
        released = exc.round_number - 1
        if sigma is not None and released > 0:
            eps = epsilon_after(sigma, s.fraction_fit, released, s.delta, "rdp")
            if ledger is not None:
                ledger.spend(
                    s.dataset,
                    epsilon=eps,
                    delta=s.delta,
                    what=f"{what}; aborted in round {exc.round_number}, {released} released",
                    mechanism="dp-fedavg",
                )
            exc.message += f"; the {released} rounds before it spent epsilon {eps:.4f}"
        raise
    finally:
        if ledger is not None:
            ledger.close()
    summary: dict[str, Any] = {
        "accuracy": rounds[-1]["accuracy"] if rounds else None,
        "rounds": rounds,
        "epsilon_spent": epsilon_spent,
        "delta": s.delta if s.dp else None,
        "secagg": {
            "enabled": s.secagg,
            "dropped": sum(r["dropped"] for r in rounds),
            "rounds_completed": len(rounds),
        },
        "seconds": time.perf_counter() - t0,
        "round_seconds": seconds,
        "strategy": s.strategy,
        "clients": s.clients,
        "evaluation": "federated: each SuperNode's held-out rows (not covered by DP)"
        if s.evaluate
        else None,
        "dp": None
        if sigma is None
        else {
            "mode": "client",
            "unit": "one client",
            "noise_multiplier": sigma,
            "clip_norm": s.clip_norm,
            "sample_rate": s.fraction_fit,
            "client_sampling": "poisson" if s.fraction_fit < 1 else "all clients every round",
            "accountant": "rdp",
            "target_epsilon": s.epsilon,
        },
        "secagg_settings": None
        if not s.secagg
        else {
            "shares": s.secagg_shares,
            "threshold": s.secagg_threshold,
            # what they come to in a round of all --fraction-fit's SuperNodes (None: per round)
            "resolved": list(
                SecAggSettings(s.secagg_shares, s.secagg_threshold).resolve(
                    max(2, round(s.fraction_fit * s.clients))
                )
            ),
        },
        "ledger": None if spend_id is None else {"dataset": s.dataset, "spend_id": spend_id},
    }
    out_dir = Path(s.out_dir).expanduser()
    _write_outputs(out_dir, summary, encoder, weights)
    _log("wrote report.json and model.pt to the run's out-dir")
    return summary


def server_app(schema_path: Path) -> Any:
    """The ``ServerApp`` of a deployed run (``schema_path``: the app's ``schema.json``)."""
    from flwr.app import Context
    from flwr.serverapp import Grid, ServerApp

    app = ServerApp()

    @app.main()
    def main(grid: Grid, context: Context) -> None:
        _run(_PollingGrid(grid), context, schema_path)

    return app
