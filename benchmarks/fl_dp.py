"""Benchmark: client-level DP with SecAgg+ at epsilon 1, 3 and 8 against non-private FL on Adult.

Each run is the command users run, in a fresh process (Flower's simulation engine on Ray,
SecAgg+ in every round), on the same rows, clients and seed:

    veil fl simulate ADULT --target salary-class --clients 10 --secagg --json           (no DP)
    ... --secagg --dp client --epsilon E --dataset fl-dp-bench --ledger sqlite:///TMP   (E = 1, 3, 8)

The DP runs spend from a ledger in a fresh temporary SQLite file (budget: the sum of the
targets, delta 1e-3); after each run the benchmark reads the ledger's entry for the run's
spend id and compares it with the ``epsilon_spent`` the command reported. Targets of issue
#26 at epsilon 3: within 3 points of non-private FL (last round's held-out accuracy),
``epsilon_spent`` never above the target (checked at every epsilon), the ledger's entry
equal to what was spent. One run per setting (DP noise is drawn from the OS's randomness,
so a rerun differs).

``--engine inprocess`` runs the same veil functions in one process, clients one after the
other, without Flower, Ray and SecAgg+ masking: ``prepare``, ``local_train`` with the
client-side clipping (``clip_update``), the RDP calibration (``calibrate_noise``), the
server's Gaussian noise on the sum of the clipped updates divided by the participants
(as ``_server._noisy_mean``), FedAvg's step, and the spend charged to a temporary ledger
with ``BudgetLedger.charge`` before the first round, as ``simulate_federated`` does. SecAgg+
changes the sum only by its quantization (at most 2 x clip / 2^22 per coordinate and client,
checked in ``tests/unit/federated/test_secagg.py``), far below the DP noise. On the shared
2-core machine (load ~15 to 20 while this was measured) the CLI engine took more than 10
minutes for one 20-round SecAgg+ run; the CLI's ledger wiring is checked by
``tests/integration/test_fl_cli.py``.

Run: ``PYTHONPATH=src python benchmarks/fl_dp.py [--clients 10] [--rounds 20]
[--epsilons 1,3,8] [--engine cli|inprocess]``; writes ``benchmarks/results/fl_dp.json`` (``--out`` to change).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from fl_accuracy import ROOT, SHARED, SHIPPED, run_cli

OUT = Path(__file__).parent / "results" / "fl_dp.json"
DATASET = "fl-dp-bench"


def _ledger_entry(url: str, spend_id: Any) -> dict[str, Any]:
    from veil.dp import BudgetLedger

    for s in BudgetLedger(url).history(DATASET):
        if s.id == spend_id:
            return {"epsilon": s.epsilon, "delta": s.delta, "status": s.status}
    raise RuntimeError(f"spend {spend_id} is not in the ledger")


def run_inprocess(
    data_path: Path,
    clients: int,
    rounds: int,
    epsilon: float | None,
    delta: float,
    url: str,
    *,
    model: str = "mlp",
    clip_norm: float = 1.0,
    local_epochs: int = 1,
    strategy: str = "fedavg",
    fraction_fit: float = 1.0,
    adaptive_clip: bool = False,
    lr: float | None = None,
    seed: int = 0,
    centralized: bool = True,
) -> tuple[dict[str, Any], float, float]:
    """One client-level DP run without Flower (see the module docstring).

    ``model``, ``clip_norm``, ``local_epochs``, ``strategy``, ``fraction_fit``,
    ``adaptive_clip``, ``lr`` and ``seed`` are the command's flags of those names
    (``benchmarks/fl_dp_options.py``, ``benchmarks/fl_dp_clients.py``). With
    ``fraction_fit < 1`` and DP each client joins a round with that probability, drawn from
    the OS's randomness (Poisson sampling, as the server does); without DP a fixed share is
    drawn from ``seed``. The server's noise and clip norms are
    ``veil.federated.ClientDPAggregator``'s, as in the server. ``centralized=False`` skips
    the centralized baseline (its accuracy is then ``None``).
    """
    import secrets
    import time

    import numpy as np
    import pandas as pd
    import torch

    from veil.dp import BudgetLedger
    from veil.federated import ClientDPAggregator, FLConfig, make_strategy, unclipped_bit
    from veil.federated._local import local_train
    from veil.federated._model import evaluate, fresh_model, prepare, set_weights
    from veil.train import calibrate_noise, train_nonprivate

    torch.set_num_threads(1)
    t0, c0 = time.perf_counter(), time.process_time()
    frame = pd.read_csv(data_path, sep=None, engine="python")
    dp = epsilon is not None
    cfg = FLConfig(
        clients=clients,
        rounds=rounds,
        model=model,
        clip_norm=clip_norm,
        local_epochs=local_epochs,
        strategy=strategy,
        secagg=True,
        dp="client" if dp else None,
        epsilon=epsilon,
        delta=delta,
        fraction_fit=fraction_fit,
        adaptive_clip=adaptive_clip,
        lr=lr,
        seed=seed,
    )
    cfg.validate()
    data = prepare(frame, "salary-class", cfg, ())
    sigma = spent = None
    spend_id = None
    if dp:
        assert epsilon is not None
        cal = calibrate_noise(
            epsilon=epsilon,
            delta=delta,
            sample_rate=fraction_fit,
            steps=rounds,
            accountant="rdp",
            compare_rdp=False,
        )
        sigma, spent = cal.noise_multiplier, cal.epsilon
    rng = np.random.default_rng(secrets.randbits(128))
    sample_rng = rng if dp else np.random.default_rng(seed)
    agg = (
        ClientDPAggregator(
            sigma, clip_norm, fraction_fit * clients, rng, cfg.adaptive_clip_settings()
        )
        if sigma is not None
        else None
    )
    net = fresh_model(data.arch, data.init_seed, data.model)
    rule = make_strategy(strategy)
    weights = [p.detach().numpy().copy() for p in net.parameters()]
    rounds_out = []
    ledger = BudgetLedger(url) if dp else None
    charge = (
        ledger.charge(
            DATASET,
            epsilon=float(spent or 0.0),
            delta=delta,
            mechanism="dp-fedavg",
            what=f"benchmark fl_dp in process, epsilon {epsilon}",
        )
        if ledger is not None
        else None
    )
    spend = charge.__enter__() if charge is not None else None
    for r in range(1, rounds + 1):
        deltas, sizes = [], []
        if dp:
            chosen = [i for i in range(clients) if rng.random() < fraction_fit]
        else:
            size = max(1, round(fraction_fit * clients))
            chosen = sorted(int(i) for i in sample_rng.choice(clients, size=size, replace=False))
        for i in chosen:
            part = data.parts[i]
            m = fresh_model(data.arch, data.init_seed, data.model)
            set_weights(m, weights)
            res = local_train(
                m,
                part,
                epochs=cfg.local_epochs,
                batch_size=cfg.batch_size,
                lr=cfg.learning_rate,
                seed=(cfg.seed or 0) * 7919 + r * 1009 + i,
                proximal_mu=cfg.proximal_mu if strategy == "fedprox" else 0.0,
                clip=agg.clip_norm if agg is not None else None,
            )
            if agg is not None and agg.adaptive is not None:
                res.delta.append(np.array([unclipped_bit(res.norm, agg.clip_norm)], np.float32))
            deltas.append(res.delta)
            sizes.append(res.n_examples)
        if agg is not None:
            width = len(weights) + agg.extra_arrays
            total = [
                sum((d[j] for d in deltas), np.zeros(1, np.float32))
                if j == len(weights)
                else sum((d[j] for d in deltas), np.zeros_like(weights[j]))
                for j in range(width)
            ]
            mean = agg.aggregate(total)
        elif not deltas:
            mean = [np.zeros_like(w) for w in weights]
        else:
            mean = rule.mean_delta(deltas, sizes)
        weights = rule.step(weights, mean)
        set_weights(net, weights)
        acc, loss = evaluate(net, data.test)
        rounds_out.append({"round": r, "accuracy": acc, "loss": loss})
    if charge is not None:
        assert spend is not None
        spend_id = spend.id
        charge.__exit__(None, None, None)
    base_acc = None
    if centralized:
        base = train_nonprivate(
            fresh_model(data.arch, data.init_seed, data.model),
            torch.utils.data.TensorDataset(*data.train),
            epochs=rounds * local_epochs,
            batch_size=cfg.batch_size,
            learning_rate=cfg.learning_rate,
            optimizer="sgd",
            seed=cfg.seed,
        )
        base_acc, _ = evaluate(base.model, data.test)
    ty = data.test[2]
    out = {
        "accuracy": rounds_out[-1]["accuracy"],
        "rounds": rounds_out,
        "centralized": {"accuracy": base_acc},
        "majority_class_accuracy": float(torch.bincount(ty).max()) / len(ty),
        "epsilon_spent": spent,
        "delta": delta if dp else None,
        "dp": {"noise_multiplier": sigma, **agg.summary()} if agg is not None else None,
        "secagg": None,
        "ledger": {"spend_id": spend_id} if dp else None,
    }
    return out, time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--epsilons", default="1,3,8")
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--engine", choices=("cli", "inprocess"), default="cli")
    a = ap.parse_args()
    data = SHARED if SHARED.exists() else SHIPPED
    epsilons = [float(e) for e in a.epsilons.split(",")]
    base = ["fl", "simulate", str(data), "--target", "salary-class", "--secagg"]
    base += ["--clients", str(a.clients), "--rounds", str(a.rounds)]
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/ledger.db"
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "veil",
                "budget",
                "init",
                DATASET,
                "--ledger",
                url,
                "--epsilon",
                str(sum(epsilons) + 1),
                "--delta",
                "1e-3",
            ],
            check=True,
            capture_output=True,
            env=env,
        )
        runs: dict[str, Any] = {}
        plan: list[tuple[str, list[str], float | None]] = [("nonprivate", [], None)]
        for e in epsilons:
            dp = ["--dp", "client", "--epsilon", f"{e:g}", "--delta", f"{a.delta:g}"]
            ledger = [] if a.engine == "inprocess" else ["--dataset", DATASET, "--ledger", url]
            plan.append((f"eps_{e:g}", dp + ledger, e))
        for name, extra, target in plan:
            if a.engine == "cli":
                out, wall, cpu = run_cli(base + extra)
            else:
                out, wall, cpu = run_inprocess(data, a.clients, a.rounds, target, a.delta, url)
            run: dict[str, Any] = {
                "args": [x if x != url else "sqlite:///TMP/ledger.db" for x in extra],
                "target_epsilon": target,
                "accuracy": out["accuracy"],
                "round_accuracy": [r["accuracy"] for r in out["rounds"]],
                "centralized_accuracy": out["centralized"]["accuracy"],
                "majority_class_accuracy": out["majority_class_accuracy"],
                "epsilon_spent": out["epsilon_spent"],
                "delta": out["delta"],
                "noise_multiplier": (out["dp"] or {}).get("noise_multiplier"),
                "secagg": out["secagg"],
                "wall_seconds": wall,
                "cpu_seconds": cpu,
            }
            if target is not None:
                entry = _ledger_entry(url, out["ledger"]["spend_id"])
                run["ledger_entry"] = entry
                run["ledger_equals_spent"] = (
                    entry["epsilon"] == out["epsilon_spent"] and entry["delta"] == out["delta"]
                )
            runs[name] = run
            print(name, json.dumps(run), flush=True)
    plain = runs["nonprivate"]["accuracy"]
    for name, run in runs.items():
        if name != "nonprivate":
            run["gap_points"] = 100 * (plain - run["accuracy"])
    dp_runs = [r for r in runs.values() if r["target_epsilon"] is not None]
    targets: dict[str, Any] = {
        "epsilon_spent_never_above_target": all(
            r["epsilon_spent"] <= r["target_epsilon"] for r in dp_runs
        ),
        "ledger_entry_equals_spent": all(r["ledger_equals_spent"] for r in dp_runs),
    }
    if "eps_3" in runs:
        targets["eps3_gap_points"] = runs["eps_3"]["gap_points"]
        targets["eps3_within_3_points_of_nonprivate"] = runs["eps_3"]["gap_points"] <= 3.0
    result = {
        "benchmark": "fl_dp",
        "engine": "cli (Flower simulation engine on Ray, SecAgg+ every round)"
        if a.engine == "cli"
        else "inprocess (the same veil functions without Flower, Ray and SecAgg+ masking)",
        "data": str(data),
        "clients": a.clients,
        "rounds": a.rounds,
        "runs": runs,
        "targets": targets,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_end": os.getloadavg(),
        },
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = a.out.with_suffix(".tmp")
    tmp_out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    tmp_out.replace(a.out)
    print(json.dumps(targets, indent=2))


if __name__ == "__main__":
    main()
