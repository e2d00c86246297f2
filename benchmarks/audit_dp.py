"""Benchmark: one-run DP audits of veil's DP-SGD (``veil audit dp``), with and without DP.

Setting: ROWS rows of UCI Adult (the shipped table, sampled with ``random_state=0``) written
to a CSV; ``veil audit dp CSV --target salary-class --canaries M --epochs E --batch-size 64
--hidden 256 --seed S --json`` runs in a fresh process (start-up, reading, encoding,
training and the bound all timed), without ``--epsilon`` (non-private) and at epsilon 1, 3
and 8 (delta 1e-5), for SEEDS seeds each. The M canaries are mislabelled rows, each in the
training data with probability 1/2; the batch size is raised by the audit so that DP-SGD's
sampling rate does not depend on how many canaries are in.

Targets: the 95 % lower bound never above the claimed epsilon; at least 1 without DP (the
audit has power). The claimed epsilon is the run's target; ``epsilon_spent`` (the
accountant's figure for the steps taken) is recorded beside it.

Run: ``PYTHONPATH=src python benchmarks/audit_dp.py``; writes
``benchmarks/results/audit_dp.json`` (rewritten after each run).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "results" / "audit_dp.json"


def _write(result: dict[str, Any]) -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    tmp = OUT.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    tmp.replace(OUT)


def _run(args: list[str]) -> tuple[dict[str, Any], float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-m", "veil", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 4):
        raise SystemExit(f"veil audit dp failed ({proc.returncode}):\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(proc.stdout), wall, cpu, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=6000)
    ap.add_argument("--canaries", type=int, default=500)
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--epsilons", type=float, nargs="*", default=[1.0, 3.0, 8.0])
    args = ap.parse_args()

    from veil.data import adult_frame

    result: dict[str, Any] = {
        "benchmark": "audit_dp",
        "setting": {
            "data": f"UCI Adult, {args.rows} rows sampled with random_state=0",
            "canaries": args.canaries,
            "canary_kind": "mislabelled rows, each included with probability 1/2",
            "epochs": args.epochs,
            "model": "veil tabular MLP, hidden 256, Adam lr 5e-3",
            "requested_batch_size": 64,
            "confidence": 0.95,
            "delta": 1e-5,
        },
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_before": os.getloadavg()[0],
        },
        "settings": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "adult.csv"
        adult_frame().sample(args.rows, random_state=0).to_csv(csv, index=False)
        common = [
            "audit", "dp", str(csv), "--target", "salary-class", "--canaries",
            str(args.canaries), "--epochs", str(args.epochs), "--batch-size", "64",
            "--hidden", "256", "--json",
        ]  # fmt: skip
        claims: list[float | None] = [None, *args.epsilons]
        for eps in claims:
            name = "non_private" if eps is None else f"dp_eps_{eps:g}"
            runs = []
            for seed in range(args.seeds):
                extra = ["--seed", str(seed)] + ([] if eps is None else ["--epsilon", str(eps)])
                out, wall, cpu, code = _run([*common, *extra])
                runs.append(
                    {
                        "seed": seed,
                        "epsilon_lower_bound": out["epsilon_lower_bound"],
                        "k": out["k"],
                        "guesses": out["guesses"],
                        "correct": out["correct"],
                        "included": out["included"],
                        "epsilon_spent": out["training"].get("epsilon_spent"),
                        "batch_size": out["training"]["batch_size"],
                        "exit_code": code,
                        "wall_seconds": round(wall, 2),
                        "cpu_seconds": round(cpu, 2),
                    }
                )
                print(name, seed, out["epsilon_lower_bound"], flush=True)
            bounds = [r["epsilon_lower_bound"] for r in runs]
            result["settings"][name] = {
                "epsilon_claimed": eps,
                "epsilon_lower_bound_max": max(bounds),
                "epsilon_lower_bound_min": min(bounds),
                "runs": runs,
            }
            _write(result)
    s = result["settings"]
    checks: dict[str, Any] = {
        "never_above_claim": all(
            v["epsilon_lower_bound_max"] <= v["epsilon_claimed"]
            for v in s.values()
            if v["epsilon_claimed"] is not None
        ),
        "non_private_min_bound": s["non_private"]["epsilon_lower_bound_min"],
        "non_private_bound_at_least_1": s["non_private"]["epsilon_lower_bound_min"] >= 1,
    }
    result["checks"] = checks
    result["machine"]["load_after"] = os.getloadavg()[0]
    _write(result)
    print(json.dumps(checks, indent=2))


if __name__ == "__main__":
    main()
