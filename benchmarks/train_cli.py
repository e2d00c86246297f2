"""Benchmark: ``veil train`` as users run it, DP-SGD against the same command without DP.

``benchmarks/dp_sgd.py`` times the training loop only. This one times what a user waits for:
the whole command in a fresh process (Python start-up and imports, reading and encoding the
table, calibrating the noise multiplier, training, the per-epoch accounting, the ledger's
reservation and commit), for

- DP: ``veil train ADULT --target salary-class --epsilon 3 --dataset adult --ledger URL
  --no-baseline --json`` (a fresh SQLite ledger with a budget of epsilon 1000);
- non-private: ``veil train ADULT --target salary-class --epsilon 3 --baseline-only --json``
  (the same split, model, optimizer, epochs and batch size, no DP).

ADULT is the shipped UCI Adult table (``src/veil/data/adult/adult.csv.gz``). The two runs
alternate ``--repeat`` times; the result holds every run's wall seconds and CPU seconds (user +
system of the child process, which a shared machine disturbs less than wall time), the
medians, and the ratio DP / non-private of the medians (target: at most 2).

Run: ``PYTHONPATH=src python benchmarks/train_cli.py [--repeat 5]``; writes
``benchmarks/results/train_cli.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).parent / "results" / "train_cli.json"
ADULT = ROOT / "src" / "veil" / "data" / "adult" / "adult.csv.gz"
COMMON = ["train", str(ADULT), "--target", "salary-class", "--epsilon", "3", "--json"]


def _run(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "veil", *args], env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"veil {' '.join(args[:2])} failed ({proc.returncode}):\n{proc.stderr}")
    out = json.loads(proc.stdout)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3), "json": out}


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:  # pragma: no cover - not on Linux
        return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    runs: dict[str, list[dict[str, Any]]] = {"dp": [], "nonprivate": []}
    loads = [_load()]
    with tempfile.TemporaryDirectory() as tmp:
        ledger = f"sqlite:///{Path(tmp) / 'ledger.sqlite'}"
        init = ["budget", "init", "adult", "--epsilon", "1000", "--delta", "0.001"]
        subprocess.run(
            [sys.executable, "-m", "veil", *init, "--ledger", ledger],
            env=env,
            check=True,
            capture_output=True,
        )
        dp_args = [*COMMON, "--dataset", "adult", "--ledger", ledger, "--no-baseline"]
        np_args = [*COMMON, "--baseline-only"]
        for i in range(max(1, args.repeat)):
            for kind, cmd in (("dp", dp_args), ("nonprivate", np_args)):
                r = _run(cmd, env)
                j = r.pop("json")
                if kind == "dp":
                    r.update(
                        seconds=j["seconds"],
                        train_seconds=j["train_seconds"],
                        epsilon_spent=j["epsilon_spent"],
                        noise_multiplier=j["noise_multiplier"],
                        ledger_status=(j.get("ledger") or {}).get("status"),
                    )
                else:
                    r.update(baseline_seconds=j["baseline"]["seconds"])
                runs[kind].append(r)
                print(f"run {i + 1} {kind}: {r}", flush=True)
            loads.append(_load())

    def med(kind: str, key: str) -> float:
        return round(statistics.median(r[key] for r in runs[kind]), 3)

    medians = {
        kind: {
            key: med(kind, key)
            for key in runs[kind][0]
            if isinstance(runs[kind][0][key], int | float) and key != "epsilon_spent"
        }
        for kind in runs
    }
    result = {
        "benchmark": "train_cli",
        "command_dp": "veil "
        + " ".join({str(ADULT): "ADULT", ledger: "URL"}.get(a, a) for a in dp_args),
        "command_nonprivate": "veil "
        + " ".join(a if a != str(ADULT) else "ADULT" for a in np_args),
        "data": "UCI Adult (src/veil/data/adult/adult.csv.gz), target salary-class",
        "repeat": args.repeat,
        "runs": runs,
        "median": medians,
        "ratio_wall": round(
            medians["dp"]["wall_seconds"] / medians["nonprivate"]["wall_seconds"], 2
        ),
        "ratio_cpu": round(medians["dp"]["cpu_seconds"] / medians["nonprivate"]["cpu_seconds"], 2),
        "target_ratio": 2.0,
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average_1min": loads,
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(
        f"median wall: DP {medians['dp']['wall_seconds']} s, non-private "
        f"{medians['nonprivate']['wall_seconds']} s, ratio {result['ratio_wall']}x "
        f"(CPU ratio {result['ratio_cpu']}x) -> {args.out}"
    )


if __name__ == "__main__":
    main()
