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

Run: ``PYTHONPATH=src python benchmarks/fl_dp.py [--clients 10] [--rounds 20]
[--epsilons 1,3,8]``; writes ``benchmarks/results/fl_dp.json`` (``--out`` to change).
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--epsilons", default="1,3,8")
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    data = SHARED if SHARED.exists() else SHIPPED
    epsilons = [float(e) for e in a.epsilons.split(",")]
    base = ["fl", "simulate", str(data), "--target", "salary-class", "--secagg"]
    base += ["--clients", str(a.clients), "--rounds", str(a.rounds)]
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/ledger.db"
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        subprocess.run(
            [sys.executable, "-m", "veil", "budget", "init", DATASET, "--ledger", url,
             "--epsilon", str(sum(epsilons) + 1), "--delta", "1e-3"],
            check=True, capture_output=True, env=env,
        )  # fmt: skip
        runs: dict[str, Any] = {}
        plan: list[tuple[str, list[str], float | None]] = [("nonprivate", [], None)]
        for e in epsilons:
            dp = ["--dp", "client", "--epsilon", f"{e:g}", "--delta", f"{a.delta:g}"]
            plan.append((f"eps_{e:g}", [*dp, "--dataset", DATASET, "--ledger", url], e))
        for name, extra, target in plan:
            out, wall, cpu = run_cli(base + extra)
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
        "engine": "cli (Flower simulation engine on Ray, SecAgg+ every round)",
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
