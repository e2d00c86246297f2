"""Benchmark: privacy-budget ledger spends per second under contention, SQLite and PostgreSQL.

For each backend and each number of processes P (default 1, 4 and 8), P processes start
together (a file is the start line) and each makes S spends (default 50) against one shared
budget that is large enough for all of them. It reports spends per second over the whole run
(first start to last finish), the per-spend latency percentiles seen by the workers, and
checks afterwards that every spend is recorded exactly once.

Peer, side by side on the same database: an **unsafe append log**, the same number of
processes inserting one row per spend with a plain ``INSERT`` and commit, no lock, no budget
check. It is what a ledger without the guarantee costs; the ratio is the price of the
guarantee (``BEGIN IMMEDIATE`` / ``SELECT ... FOR UPDATE`` serializing the spenders).

Run: ``PYTHONPATH=src python benchmarks/dp_ledger.py [--procs 1 4 8] [--spends 50]
[--pg-url postgresql+psycopg://postgres@127.0.0.1:5432/test]``; it writes
``benchmarks/results/dp_ledger.json``. PostgreSQL is skipped when unreachable.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "results" / "dp_ledger.json"
SRC = Path(__file__).resolve().parents[1] / "src"

_WORKER = r"""
import json, os, sys, time
from pathlib import Path
mode, url, prefix, n, go = sys.argv[1:6]
n = int(n)
import sqlalchemy as sa
from veil.dp import BudgetLedger
led = BudgetLedger(url, table_prefix=prefix, busy_timeout=300)
led.engine
if mode == "peer":
    md = sa.MetaData()
    log = sa.Table(prefix + "peerlog", md, sa.Column("id", sa.Integer, primary_key=True),
                   sa.Column("what", sa.Text), sa.Column("epsilon", sa.Float))
    eng = led.engine
print("ready", flush=True)
while not Path(go).exists():
    time.sleep(0.002)
lat = []
for i in range(n):
    t0 = time.perf_counter()
    if mode == "peer":
        with eng.begin() as conn:
            conn.execute(sa.insert(log).values(what="x", epsilon=0.001))
    else:
        led.spend("bench", epsilon=0.001, what="bench spend", mechanism="bench")
    lat.append(time.perf_counter() - t0)
print(json.dumps(lat), flush=True)
"""


def _pg_ok(url: str) -> bool:
    import sqlalchemy as sa

    try:
        eng = sa.create_engine(url, connect_args={"connect_timeout": 3})
        with eng.connect() as c:
            c.execute(sa.text("SELECT 1"))
        eng.dispose()
        return True
    except Exception:
        return False


def _run(mode: str, url: str, prefix: str, procs: int, spends: int, tmp: Path) -> dict[str, Any]:
    go = tmp / f"go-{uuid.uuid4().hex}"
    env = dict(os.environ, PYTHONPATH=str(SRC))
    ps = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, mode, url, prefix, str(spends), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(procs)
    ]
    for p in ps:
        assert p.stdout is not None
        line = p.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError(p.stderr.read() if p.stderr else "worker failed")
    t0 = time.perf_counter()
    go.write_text("go")
    lat: list[float] = []
    for p in ps:
        out, err = p.communicate(timeout=600)
        if p.returncode != 0:
            raise RuntimeError(err)
        lat += json.loads(out.strip().splitlines()[-1])
    wall = time.perf_counter() - t0
    lat.sort()
    return {
        "procs": procs,
        "spends": procs * spends,
        "wall_s": round(wall, 3),
        "spends_per_s": round(procs * spends / wall, 1),
        "latency_ms_p50": round(1000 * statistics.median(lat), 2),
        "latency_ms_p95": round(1000 * lat[int(0.95 * (len(lat) - 1))], 2),
        "latency_ms_max": round(1000 * lat[-1], 2),
    }


def _backend(name: str, url: str, procs_list: list[int], spends: int, tmp: Path) -> dict[str, Any]:
    import sqlalchemy as sa

    from veil.dp import BudgetLedger

    rows = []
    for procs in procs_list:
        prefix = f"b{uuid.uuid4().hex[:8]}_"
        led = BudgetLedger(url, table_prefix=prefix)
        led.init("bench", epsilon=1e6)
        peer_tbl = sa.Table(
            prefix + "peerlog",
            sa.MetaData(),
            sa.Column("id", sa.Integer, primary_key=True),
            sa.Column("what", sa.Text),
            sa.Column("epsilon", sa.Float),
        )
        peer_tbl.create(led.engine)
        try:
            ledger = _run("ledger", url, prefix, procs, spends, tmp)
            peer = _run("peer", url, prefix, procs, spends, tmp)
            history = led.history("bench")
            ids = [h.id for h in history]
            ok = len(ids) == len(set(ids)) == procs * spends and led.verify("bench")["ok"]
        finally:
            peer_tbl.drop(led.engine)
            led._tables.drop(led.engine)
            led.close()
        row = {
            "procs": procs,
            "ledger": ledger,
            "unsafe_append_log": peer,
            "ratio_throughput_ledger_over_peer": round(
                ledger["spends_per_s"] / peer["spends_per_s"], 3
            ),
            "all_recorded_exactly_once": ok,
        }
        rows.append(row)
        print(
            f"{name:<10} P={procs}: ledger {ledger['spends_per_s']:.0f} spends/s "
            f"(p50 {ledger['latency_ms_p50']} ms, p95 {ledger['latency_ms_p95']} ms); "
            f"unsafe log {peer['spends_per_s']:.0f}/s; exactly once: {ok}",
            flush=True,
        )
    return {"url": name, "runs": rows}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--procs", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--spends", type=int, default=50)
    parser.add_argument("--pg-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        results["sqlite"] = _backend(
            "sqlite", f"sqlite:///{tmp / 'ledger.sqlite'}", args.procs, args.spends, tmp
        )
        if _pg_ok(args.pg_url):
            results["postgresql"] = _backend(
                "postgresql", args.pg_url, args.procs, args.spends, tmp
            )
        else:
            results["postgresql"] = {"skipped": "server not reachable"}
    out = {
        "benchmark": "dp_ledger",
        "peer": "unsafe append log (plain INSERT + commit per spend, no lock, no budget check)",
        "spends_per_process": args.spends,
        "sqlite_settings": "WAL, BEGIN IMMEDIATE, synchronous=FULL for spends",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "results": results,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
