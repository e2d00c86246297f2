"""Benchmark: peak memory of ``veil fl simulate`` with 100 simulated clients (target: < 4 GB).

Runs the command users run in a fresh process,

    veil fl simulate ADULT --target salary-class --clients 100 --rounds R --json

and samples every 0.2 s the resident memory of the whole process tree it starts (the CLI,
Ray's GCS, raylet and agents, and the Ray workers that run the clients), keeping the largest
sum. Shared pages are counted once per process (RSS), so the figure is an upper bound.

Run: ``PYTHONPATH=src python benchmarks/fl_memory.py [--clients 100] [--rounds 2]``; writes
``benchmarks/results/fl_memory.json`` (``--out`` to change).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from fl_accuracy import ROOT, SHARED, SHIPPED

OUT = Path(__file__).parent / "results" / "fl_memory.json"


def _tree_rss(root: int) -> tuple[int, int]:
    """Resident bytes of ``root`` and all its descendants, from /proc (Linux)."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        kids = [c for c, pp in parent.items() if pp == pid and c not in tree]
        tree.update(kids)
        frontier += kids
    total = 0
    for pid in tree:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total, len(tree)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    data = SHARED if SHARED.exists() else SHIPPED
    args = [sys.executable, "-m", "veil", "fl", "simulate", str(data), "--target"]
    args += ["salary-class", "--clients", str(a.clients), "--rounds", str(a.rounds), "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    t0 = time.perf_counter()
    child = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    peak, peak_procs = 0, 0
    while child.poll() is None:
        rss, n = _tree_rss(child.pid)
        if rss > peak:
            peak, peak_procs = rss, n
        time.sleep(0.2)
    stdout, stderr = child.communicate()
    wall = time.perf_counter() - t0
    if child.returncode != 0:
        raise RuntimeError(stderr.decode(errors="replace")[-3000:])
    out: dict[str, Any] = json.loads(stdout)
    result = {
        "benchmark": "fl_memory",
        "data": str(data),
        "clients": a.clients,
        "rounds": a.rounds,
        "peak_tree_rss_mib": peak / 2**20,
        "processes_at_peak": peak_procs,
        "under_4_gb": peak < 4 * 2**30,
        "wall_seconds": wall,
        "accuracy": out["accuracy"],
        "rounds_completed": out["secagg"]["rounds_completed"],
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_end": os.getloadavg(),
        },
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
