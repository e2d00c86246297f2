"""Benchmark: where a SecAgg+ round's time goes against plain aggregation, on Flower's engine.

One process per run calls ``simulate_federated`` (the function behind ``veil fl simulate``)
on Adult, 10 clients, IID, through Flower's simulation engine on Ray, and records for each
exchange the server has with the clients (plain aggregation: one a round; SecAgg+: setup,
key sharing, masked vectors with the local training, unmasking) its wall seconds and the CPU
seconds of the whole process tree (server, Ray's daemons and workers, from /proc), so that a
loaded machine's waiting shows as wall time but not as CPU. Runs, side by side (each mode's
variants one after the other, so that they meet the same load):

- ``plain`` and ``secagg``: veil as shipped;
- ``plain_polling`` and ``secagg_polling`` (with ``--polling``): the same with the waits
  veil replaced put back (Flower's simulation dispatcher, ``vce_api.add_messages_to_queue``,
  which looks for new messages every 0.1 s, and the server's look for replies every 10 ms
  and more), instead of waking on each stored message (:mod:`veil.federated._dispatch`):
  what those fixed waits cost a round, once per exchange.
- ``plain_baseline`` and ``secagg_baseline`` (with ``--baseline-src DIR``, e.g. the main
  branch's ``src``): the same two runs with another copy of veil, run between the others
  so that both are measured under the same load (A/B in the same minutes).

The centralized baseline is cut to one epoch in these runs (it is not what is measured).

Run: ``PYTHONPATH=src python benchmarks/fl_secagg_profile.py [--rounds 7] [--baseline-src
/work/main/src] [--polling]``; writes
``benchmarks/results/fl_secagg_profile.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from fl_accuracy import ROOT, SHARED, SHIPPED

OUT = Path(__file__).parent / "results" / "fl_secagg_profile.json"
TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu() -> float:
    """CPU seconds (user + system) of this process and all its descendants, from /proc."""
    me = os.getpid()
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", encoding="ascii", errors="replace") as fh:
                f = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(d)] = int(f[1])
        cpu[int(d)] = (int(f[11]) + int(f[12])) / TICK
    total = 0.0
    for pid, c in cpu.items():
        q = pid
        while q and q != me and q in parent:
            q = parent[q]
        if q == me:
            total += c
    return total


def child(mode: str, polling: bool, rounds: int, data: Path) -> dict[str, Any]:
    """One run in this process (called with ``--child``)."""
    import pandas as pd

    import veil.train
    from veil.federated import FLConfig, _server, simulate_federated

    exchanges: list[tuple[float, float]] = []

    def timed(self: Any, messages: Any, *, timeout: float | None = None) -> list[Any]:
        msgs = list(messages)
        c, t = tree_cpu(), time.perf_counter()
        out = list(self._grid.send_and_receive(msgs, timeout=timeout))
        exchanges.append((time.perf_counter() - t, tree_cpu() - c))
        return out

    _server._ObservedGrid.send_and_receive = timed  # type: ignore[method-assign]
    if polling:
        # as before the wake-ups: Flower's own dispatcher (a look every 0.1 s) and the
        # server's looks for replies every 10 ms or more
        import contextlib

        import veil.federated._runtime as runtime
        import veil.federated._simulate as simulate

        simulate.prompt_dispatch = contextlib.nullcontext  # type: ignore[attr-defined]
        runtime.doorbell = lambda state, method: None  # type: ignore[attr-defined,assignment]
    train = veil.train.train_nonprivate

    def one_epoch(model: Any, ds: Any, **kw: Any) -> Any:
        kw["epochs"] = 1
        return train(model, ds, **kw)

    veil.train.train_nonprivate = one_epoch  # type: ignore[assignment]
    frame = pd.read_csv(data, sep=None, engine="python")
    cfg = FLConfig(clients=10, rounds=rounds, secagg=mode == "secagg")
    out = simulate_federated(frame, "salary-class", cfg, observe=lambda m: None)
    per = 4 if mode == "secagg" else 1
    stages = [exchanges[i : i + per] for i in range(0, len(exchanges), per)]
    later = stages[1:]  # round 1 includes the clients' start-up
    return {
        "round_seconds": out["round_seconds"],
        "median_round_seconds": statistics.median(out["round_seconds"][1:]),
        "round_cpu_seconds": [sum(c for _, c in s) for s in stages],
        "median_round_cpu_seconds": statistics.median(sum(c for _, c in s) for s in later),
        "median_exchange_seconds": [statistics.median(s[k][0] for s in later) for k in range(per)],
        "median_exchange_cpu_seconds": [
            statistics.median(s[k][1] for s in later) for k in range(per)
        ],
        "accuracy": out["accuracy"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--child", nargs=2, metavar=("MODE", "FAST"))
    ap.add_argument("--baseline-src", type=Path, help="another veil src to run beside")
    ap.add_argument("--polling", action="store_true", help="also with Flower's polling dispatcher")
    a = ap.parse_args()
    data = SHARED if SHARED.exists() else SHIPPED
    if a.child:
        print(json.dumps(child(a.child[0], a.child[1] == "polling", a.rounds, data)))
        return
    runs: dict[str, Any] = {}
    plan: list[tuple[str, str, bool, Path]] = []  # name, mode, polling, src
    for mode in ("plain", "secagg"):
        plan.append((mode, mode, False, ROOT / "src"))
        if a.baseline_src is not None:
            plan.append((f"{mode}_baseline", mode, False, a.baseline_src))
        if a.polling:
            plan.append((f"{mode}_polling", mode, True, ROOT / "src"))
    for name, mode, polling, src in plan:
        env = {**os.environ, "PYTHONPATH": str(src)}
        waits = "polling" if polling else "wakeups"
        cmd = [sys.executable, __file__, "--rounds", str(a.rounds), "--child", mode, waits]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
        runs[name] = json.loads(proc.stdout.strip().splitlines()[-1])
        runs[name]["src"] = str(src)
        runs[name]["load_average"] = os.getloadavg()
        print(name, json.dumps(runs[name]), flush=True)

    def ratio(a: str, b: str, key: str) -> float:
        return float(runs[a][key] / runs[b][key])

    result = {
        "benchmark": "fl_secagg_profile",
        "data": str(data),
        "clients": 10,
        "rounds": a.rounds,
        "exchanges": {"plain": ["train"], "secagg": ["setup", "share_keys", "masked", "unmask"]},
        "runs": runs,
        "ratios": {
            "secagg_over_plain_wall": ratio("secagg", "plain", "median_round_seconds"),
            "secagg_over_plain_cpu": ratio("secagg", "plain", "median_round_cpu_seconds"),
        }
        | (
            {
                "baseline_secagg_over_plain_wall": ratio(
                    "secagg_baseline", "plain_baseline", "median_round_seconds"
                ),
                "baseline_secagg_over_plain_cpu": ratio(
                    "secagg_baseline", "plain_baseline", "median_round_cpu_seconds"
                ),
                "secagg_cpu_baseline_over_new": ratio(
                    "secagg_baseline", "secagg", "median_round_cpu_seconds"
                ),
            }
            if a.baseline_src is not None
            else {}
        )
        | (
            {
                "polling_secagg_over_plain_wall": ratio(
                    "secagg_polling", "plain_polling", "median_round_seconds"
                ),
                "polling_secagg_over_plain_cpu": ratio(
                    "secagg_polling", "plain_polling", "median_round_cpu_seconds"
                ),
            }
            if a.polling
            else {}
        ),
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
    print(json.dumps(result["ratios"], indent=2))


if __name__ == "__main__":
    main()
