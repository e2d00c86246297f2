"""Benchmark: bytes on the wire per round, SecAgg+ against plain aggregation (issue #26).

Each run is ``simulate_federated`` (the function behind ``veil fl simulate``) with veil's own
ServerApp and ClientApp, every message of the protocol exchanged; only Flower's Ray engine is
replaced by :mod:`fl_inmemory_grid`, which delivers each message in process and here also
counts its size as Flower's gRPC transport encodes it (the protobuf of the message,
``flwr.common.serde.message_to_proto``; gRPC's own framing, a few bytes a message, is not
counted). Bytes do not depend on the transport or the machine's load, so this measures what
a deployment would send, not how fast.

Adult, IID, the command's defaults (veil's MLP, 7,778 parameters), ``--rounds`` rounds, for
each client count: plain FedAvg, and SecAgg+ with its default shares and threshold (and, with
``--dropout``, SecAgg+ with that share of each round's clients vanishing after key sharing).

Run: ``PYTHONPATH=src python benchmarks/fl_bytes.py [--clients 10,50] [--rounds 3]
[--out benchmarks/results/fl_bytes.json]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

OUT = Path(__file__).parent / "results" / "fl_bytes.json"


def one_run(clients: int, rounds: int, *, secagg: bool, dropout: float) -> dict[str, Any]:
    import veil.federated._simulate as sim
    from fl_inmemory_grid import InMemoryGrid, run_in_memory
    from veil.data import adult_frame
    from veil.federated import FLConfig, simulate_federated

    grids: list[InMemoryGrid] = []

    def on_grid(grid: InMemoryGrid) -> None:
        grid.count_bytes = True
        grids.append(grid)

    def engine(*args: Any, **kwargs: Any) -> Any:
        return run_in_memory(*args, **kwargs, on_grid=on_grid)

    real = sim._run_flower
    sim._run_flower = engine  # type: ignore[assignment]
    try:
        cfg = FLConfig(clients=clients, rounds=rounds, secagg=secagg, dropout=dropout, seed=0)
        t0 = time.perf_counter()
        out = simulate_federated(adult_frame(), "salary-class", cfg)
        wall = time.perf_counter() - t0
    finally:
        sim._run_flower = real  # type: ignore[assignment]
    (grid,) = grids
    per_round_clients = sum(r["clients"] for r in out["rounds"]) / rounds
    return {
        "clients": clients,
        "rounds": rounds,
        "secagg": secagg,
        "dropout": dropout,
        "rounds_completed": out["secagg"]["rounds_completed"],
        "dropped": out["secagg"]["dropped"],
        "accuracy": out["accuracy"],
        "messages": grid.messages,
        "bytes_sent": grid.bytes_sent,
        "bytes_received": grid.bytes_received,
        "bytes_per_round": (grid.bytes_sent + grid.bytes_received) / rounds,
        "bytes_per_client_round": (grid.bytes_sent + grid.bytes_received)
        / rounds
        / per_round_clients,
        "wall_seconds": wall,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--clients", default="10,50")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dropout", type=float, default=0.3)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    runs = []
    for n in [int(c) for c in a.clients.split(",")]:
        plan = [(False, 0.0), (True, 0.0)] + ([(True, a.dropout)] if a.dropout > 0 else [])
        for secagg, dropout in plan:
            runs.append(one_run(n, a.rounds, secagg=secagg, dropout=dropout))
            print(json.dumps(runs[-1]), flush=True)
    ratios = {}
    for n in {r["clients"] for r in runs}:
        plain = next(r for r in runs if r["clients"] == n and not r["secagg"])
        sec = next(r for r in runs if r["clients"] == n and r["secagg"] and r["dropout"] == 0)
        ratios[str(n)] = {
            "plain_bytes_per_client_round": plain["bytes_per_client_round"],
            "secagg_bytes_per_client_round": sec["bytes_per_client_round"],
            "secagg_over_plain": sec["bytes_per_client_round"] / plain["bytes_per_client_round"],
        }
    result = {
        "benchmark": "fl_bytes",
        "command": "PYTHONPATH=src python " + " ".join(["benchmarks/fl_bytes.py", *sys.argv[1:]]),
        "engine": "simulate_federated over benchmarks/fl_inmemory_grid.py (bytes counted "
        "as Flower's protobuf encoding of every message, both directions)",
        "runs": runs,
        "by_clients": ratios,
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(ratios, indent=2))


if __name__ == "__main__":
    main()
