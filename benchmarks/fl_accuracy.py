"""Benchmark: ``veil fl simulate`` on Adult, each strategy against the centralized baseline.

Each configuration is the command users run, in a fresh process (start-up, Ray, the
simulation and the centralized baseline included), with the defaults of ``FLConfig``
(20 rounds of 1 local epoch, SGD at 0.05 on batches of 64, 0.0125 for SCAFFOLD):

    veil fl simulate ADULT --target salary-class --clients N --partition P --strategy S --json

ADULT is UCI Adult (30,162 rows, the shared copy at /work/shared/data/adult/adult.csv, or
the one shipped in the package). The result holds, per run, the last round's accuracy, the
centralized accuracy on the same rows, the majority-class accuracy, every round's accuracy,
wall seconds and the child's CPU seconds, and the issue's targets checked:

- IID FedAvg within 1 point of centralized;
- Dirichlet 0.5: every strategy within 3 points, and the best of FedProx/SCAFFOLD at least
  FedAvg's.

``--engine inprocess`` runs the same veil functions (``prepare``, ``local_train``, the server
strategies, ``evaluate``, the centralized ``train_nonprivate``) in one process, clients one
after the other, without Flower and Ray: the accuracy is that of the same algorithm (the
clients' shuffling seeds differ: the CLI derives them from Flower's random node ids), and a
run costs seconds of CPU instead of minutes of Ray start-up and messaging, which on the
shared 2-core machine (load ~16) made the full CLI matrix take hours. Its timings are not
those of the command.

Run: ``PYTHONPATH=src python benchmarks/fl_accuracy.py [--clients 10] [--alphas 0.5]
[--strategies fedavg,...] [--no-iid] [--local-epochs 1] [--engine cli|inprocess]``; writes ``benchmarks/results/fl_accuracy.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).parent / "results" / "fl_accuracy.json"
SHARED = Path("/work/shared/data/adult/adult.csv")
SHIPPED = ROOT / "src" / "veil" / "data" / "adult" / "adult.csv.gz"
STRATEGIES = ("fedavg", "fedprox", "scaffold", "fedadam")


def run_cli(args: list[str]) -> tuple[dict[str, Any], float, float]:
    """Run ``veil ARGS --json``; its summary, wall seconds and CPU seconds (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "veil", *args, "--json"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"veil {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(proc.stdout), wall, cpu


def run_inprocess(
    data_path: Path, clients: int, partition: str, strategy: str, local_epochs: int = 1
) -> tuple[dict[str, Any], float, float]:
    """One simulation with the CLI's defaults, without Flower: the summary's accuracy keys."""
    import numpy as np
    import pandas as pd
    import torch

    from veil.federated import FLConfig, make_strategy
    from veil.federated._local import local_train
    from veil.federated._model import evaluate, fresh_model, prepare, set_weights
    from veil.train import train_nonprivate

    torch.set_num_threads(1)
    t0, c0 = time.perf_counter(), time.process_time()
    frame = pd.read_csv(data_path, sep=None, engine="python")
    cfg = FLConfig(
        clients=clients, partition=partition, strategy=strategy, local_epochs=local_epochs
    )
    data = prepare(frame, "salary-class", cfg, ())
    model = fresh_model(data.arch, data.init_seed)
    rule = make_strategy(strategy)
    weights = [p.detach().numpy().copy() for p in model.parameters()]
    client_c: dict[int, list[Any]] = {}
    rounds = []
    for r in range(1, cfg.rounds + 1):
        deltas, sizes, cds = [], [], []
        zeros = [np.zeros_like(w) for w in weights]
        for i, part in enumerate(data.parts):
            m = fresh_model(data.arch, data.init_seed)
            set_weights(m, weights)
            control = (rule.c_ or zeros, client_c.get(i, zeros)) if strategy == "scaffold" else None
            res = local_train(
                m,
                part,
                epochs=cfg.local_epochs,
                batch_size=cfg.batch_size,
                lr=cfg.learning_rate,
                seed=(cfg.seed or 0) * 7919 + r * 1009 + i,
                proximal_mu=cfg.proximal_mu if strategy == "fedprox" else 0.0,
                control=control,
            )
            deltas.append(res.delta)
            sizes.append(res.n_examples)
            if res.control_delta is not None:
                client_c[i] = [
                    p + c for p, c in zip(client_c.get(i, zeros), res.control_delta, strict=True)
                ]
                cds.append(res.control_delta)
        weights = rule.step(weights, rule.mean_delta(deltas, sizes))
        if strategy == "scaffold":
            rule.update_control(cds, sizes, clients)
        set_weights(model, weights)
        acc, loss = evaluate(model, data.test)
        rounds.append({"round": r, "accuracy": acc, "loss": loss})
    base = train_nonprivate(
        fresh_model(data.arch, data.init_seed),
        torch.utils.data.TensorDataset(*data.train),
        epochs=cfg.rounds * cfg.local_epochs,
        batch_size=cfg.batch_size,
        learning_rate=cfg.learning_rate,
        optimizer="sgd",
        seed=cfg.seed,
    )
    base_acc, _ = evaluate(base.model, data.test)
    ty = data.test[2]
    out = {
        "accuracy": rounds[-1]["accuracy"],
        "centralized": {"accuracy": base_acc},
        "majority_class_accuracy": float(torch.bincount(ty).max()) / len(ty),
        "rounds": rounds,
        "client_rows": [len(p[2]) for p in data.parts],
    }
    return out, time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--alphas", default="0.5", help="Dirichlet alphas, comma-separated")
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--engine", choices=("cli", "inprocess"), default="cli")
    ap.add_argument("--no-iid", action="store_true", help="skip the IID FedAvg run")
    ap.add_argument("--local-epochs", type=int, default=1, help="the command's --local-epochs")
    a = ap.parse_args()
    data = SHARED if SHARED.exists() else SHIPPED
    runs: list[dict[str, Any]] = []
    plan = ([] if a.no_iid else [("iid", "fedavg")]) + [
        (f"dirichlet:{alpha}", s) for alpha in a.alphas.split(",") for s in a.strategies.split(",")
    ]
    for partition, strategy in plan:
        args = ["fl", "simulate", str(data), "--target", "salary-class"]
        args += ["--clients", str(a.clients), "--partition", partition, "--strategy", strategy]
        args += ["--local-epochs", str(a.local_epochs)]
        if a.engine == "cli":
            out, wall, cpu = run_cli(args)
        else:
            out, wall, cpu = run_inprocess(data, a.clients, partition, strategy, a.local_epochs)
        runs.append(
            {
                "partition": partition,
                "strategy": strategy,
                "clients": a.clients,
                "local_epochs": a.local_epochs,
                "accuracy": out["accuracy"],
                "centralized_accuracy": out["centralized"]["accuracy"],
                "majority_class_accuracy": out["majority_class_accuracy"],
                "gap_points": 100 * (out["centralized"]["accuracy"] - out["accuracy"]),
                "round_accuracy": [r["accuracy"] for r in out["rounds"]],
                "client_rows": out["client_rows"],
                "wall_seconds": wall,
                "cpu_seconds": cpu,
            }
        )
        print(json.dumps(runs[-1]), flush=True)
        _write(a.out, _result(a, data, runs, complete=False))
    _write(a.out, _result(a, data, runs, complete=True))
    print(json.dumps(_result(a, data, runs, complete=True)["targets"], indent=2))


def _write(out: Path, result: dict[str, Any]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    tmp.replace(out)


def _result(
    a: argparse.Namespace, data: Path, runs: list[dict[str, Any]], *, complete: bool
) -> dict[str, Any]:

    def acc(p: str, s: str) -> float | None:
        return next(
            (r["accuracy"] for r in runs if r["partition"] == p and r["strategy"] == s), None
        )

    targets: dict[str, Any] = {}
    iid = next((r for r in runs if r["partition"] == "iid"), None)
    if iid is not None:
        targets["iid_fedavg_within_1_point"] = iid["gap_points"] <= 1.0
    for alpha in a.alphas.split(","):
        p = f"dirichlet:{alpha}"
        mine = [r for r in runs if r["partition"] == p]
        if not mine:
            continue
        targets[f"{p}_every_strategy_within_3_points"] = all(r["gap_points"] <= 3.0 for r in mine)
        best = max((acc(p, s) or 0.0) for s in ("fedprox", "scaffold"))
        targets[f"{p}_best_of_fedprox_scaffold_at_least_fedavg"] = best >= (acc(p, "fedavg") or 1.0)
    result = {
        "benchmark": "fl_accuracy",
        "engine": a.engine,
        "complete": complete,
        "data": str(data),
        "command": "veil fl simulate ADULT --target salary-class --clients N --partition P "
        f"--strategy S --local-epochs {a.local_epochs} --json (FLConfig's other defaults)",
        "local_epochs": a.local_epochs,
        "runs": runs,
        "targets": targets,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_end": os.getloadavg(),
        },
    }
    return result


if __name__ == "__main__":
    main()
