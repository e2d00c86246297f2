"""Benchmark: ``veil fl simulate`` on Adult, each strategy against the centralized baseline.

Each configuration is the command users run, in a fresh process (start-up, Ray, the
simulation and the centralized baseline included), with the defaults of ``FLConfig``
(20 rounds of 1 local epoch, SGD at 0.05 on batches of 64):

    veil fl simulate ADULT --target salary-class --clients N --partition P --strategy S --json

ADULT is UCI Adult (30,162 rows, the shared copy at /work/shared/data/adult/adult.csv, or
the one shipped in the package). The result holds, per run, the last round's accuracy, the
centralized accuracy on the same rows, the majority-class accuracy, every round's accuracy,
wall seconds and the child's CPU seconds, and the issue's targets checked:

- IID FedAvg within 1 point of centralized;
- Dirichlet 0.5: every strategy within 3 points, and the best of FedProx/SCAFFOLD at least
  FedAvg's.

Run: ``PYTHONPATH=src python benchmarks/fl_accuracy.py [--clients 10] [--alphas 0.5]``;
writes ``benchmarks/results/fl_accuracy.json`` (``--out`` to change).
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--alphas", default="0.5", help="Dirichlet alphas, comma-separated")
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    data = SHARED if SHARED.exists() else SHIPPED
    runs: list[dict[str, Any]] = []
    plan = [("iid", "fedavg")] + [
        (f"dirichlet:{alpha}", s) for alpha in a.alphas.split(",") for s in a.strategies.split(",")
    ]
    for partition, strategy in plan:
        args = ["fl", "simulate", str(data), "--target", "salary-class"]
        args += ["--clients", str(a.clients), "--partition", partition, "--strategy", strategy]
        out, wall, cpu = run_cli(args)
        runs.append(
            {
                "partition": partition,
                "strategy": strategy,
                "clients": a.clients,
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

    def acc(p: str, s: str) -> float | None:
        return next(
            (r["accuracy"] for r in runs if r["partition"] == p and r["strategy"] == s), None
        )

    targets: dict[str, Any] = {}
    iid = next(r for r in runs if r["partition"] == "iid")
    targets["iid_fedavg_within_1_point"] = iid["gap_points"] <= 1.0
    for alpha in a.alphas.split(","):
        p = f"dirichlet:{alpha}"
        mine = [r for r in runs if r["partition"] == p]
        targets[f"{p}_every_strategy_within_3_points"] = all(r["gap_points"] <= 3.0 for r in mine)
        best = max((acc(p, s) or 0.0) for s in ("fedprox", "scaffold"))
        targets[f"{p}_best_of_fedprox_scaffold_at_least_fedavg"] = best >= (acc(p, "fedavg") or 1.0)
    result = {
        "benchmark": "fl_accuracy",
        "data": str(data),
        "command": "veil fl simulate ADULT --target salary-class --clients N --partition P "
        "--strategy S --json (FLConfig defaults)",
        "runs": runs,
        "targets": targets,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_end": os.getloadavg(),
        },
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = a.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    tmp.replace(a.out)
    print(json.dumps(targets, indent=2))


if __name__ == "__main__":
    main()
