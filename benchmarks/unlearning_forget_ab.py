"""Benchmark: one-row erasures with this code against another veil's, paired, on a busy machine.

What ``unlearning_sisa.py`` compares across separate commands drifts with the machine's load
(on a shared 2-core machine the CPU seconds of the same command moved by half within
minutes). Here two long-running worker processes, one per code (``--baseline-src``, e.g. the
main branch's ``src``, and this ``src``), each with its own 20-shard model of Adult fitted by
that code, take the same ids in turn (the order alternating): each request copies the
worker's pristine model folder (not timed), opens it and forgets one id as
``SISAModel.open(...).forget([id])`` does, and reports its process CPU and wall seconds
(opening, the whole erasure and the held-out accuracy after it) and forget's own
``cpu_seconds`` (the erasure). The ids cover every slice (a row of slice 0 retrains its
whole shard). The result is each pair's ratio (old / new): load that drifts between pairs
cancels out of it. Workers are warm (torch and the database drivers imported before the
first request), so this measures the erasure's own work, not start-up.

Run: ``PYTHONPATH=src python benchmarks/unlearning_forget_ab.py --baseline-src ../main/src``;
writes ``benchmarks/results/unlearning_forget_ab.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).parent / "results" / "unlearning_forget_ab.json"
ADULT = ROOT / "src" / "veil" / "data" / "adult" / "adult.csv.gz"


def _worker(model: Path, scratch: Path) -> None:
    """Serve forget requests (one id per stdin line) on fresh copies of ``model``."""
    from veil.unlearning._tabular import warm_up

    warm_up()
    from veil.unlearning import SISAModel

    key = bytes.fromhex(os.environ["VEIL_UNLEARN_KEY"])
    print("ready", flush=True)
    for line in sys.stdin:
        rid = line.strip()
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(model, scratch)
        c0, t0 = time.process_time(), time.perf_counter()
        with SISAModel.open(scratch, key=key) as m:
            r = m.forget([rid])
            c1, t1 = time.process_time(), time.perf_counter()
        out = {
            "cpu_seconds": c1 - c0,
            "wall_seconds": t1 - t0,
            "forget_cpu_seconds": r["cpu_seconds"],
            "slices_retrained": r["slices_retrained"],
        }
        print(json.dumps(out), flush=True)


def _start(src: Path, model: Path, scratch: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    p = subprocess.Popen(
        [sys.executable, __file__, "--worker", str(model), str(scratch)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**env, "PYTHONPATH": str(src)},
    )
    assert p.stdout is not None
    if p.stdout.readline().strip() != "ready":
        raise SystemExit(f"the worker on {src} did not start")
    return p


def _ask(p: subprocess.Popen[str], rid: str) -> dict[str, Any]:
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(rid + "\n")
    p.stdin.flush()
    line = p.stdout.readline()
    if not line:
        raise SystemExit("a worker stopped")
    got: dict[str, Any] = json.loads(line)
    return got


def _fit(src: Path, table: Path, out: Path, env: dict[str, str], shards: int) -> None:
    args = [
        sys.executable, "-m", "veil", "unlearn", "fit", str(table), "--target", "salary-class",
        "--id-column", "rid", "--epochs", "20", "--seed", "0", "--shards", str(shards),
        "--slices", "4", "--out", str(out), "--json", "--no-monolithic",
    ]  # fmt: skip
    subprocess.run(
        args, env={**env, "PYTHONPATH": str(src)}, check=True, capture_output=True, text=True
    )


def _ids_by_slice(model: Path, key: bytes, per_slice: int) -> list[str]:
    from veil.unlearning import SISAModel, hash_ids
    from veil.unlearning._store import id_keys

    found: dict[int, list[str]] = {}
    with SISAModel.open(model, key=key) as m:
        slices = m.config["slices"]
        for i in range(30_162):
            h = id_keys(hash_ids(m.store.key, [str(i)]))[0]
            where = m.locate([h]).get(h)
            if where is not None and len(found.setdefault(where[1], [])) < per_slice:
                found[where[1]].append(str(i))
            if all(len(found.get(j, [])) >= per_slice for j in range(slices)):
                break
    return [rid for j in sorted(found) for rid in found[j]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline-src", type=Path, help="the other veil's src (required)")
    ap.add_argument("--shards", type=int, default=20)
    ap.add_argument("--per-slice", type=int, default=2, help="ids of each slice")
    ap.add_argument("--reps", type=int, default=3, help="rounds over the ids")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--worker", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker(*args.worker)
        return
    if args.baseline_src is None:
        ap.error("--baseline-src is required: the other veil's src folder")

    import numpy as np
    import pandas as pd

    sys.path.insert(0, str(ROOT / "src"))
    key_hex = secrets.token_hex(32)
    env = {**os.environ, "VEIL_UNLEARN_KEY": key_hex}
    new_src = ROOT / "src"
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        df = pd.read_csv(ADULT, sep=";")
        df.insert(0, "rid", np.arange(len(df)))
        df.to_csv(t / "adult.csv", index=False)
        _fit(args.baseline_src, t / "adult.csv", t / "old", env, args.shards)
        _fit(new_src, t / "adult.csv", t / "new", env, args.shards)
        ids = _ids_by_slice(t / "new", bytes.fromhex(key_hex), args.per_slice)
        old = _start(args.baseline_src, t / "old", t / "old-scratch", env)
        new = _start(new_src, t / "new", t / "new-scratch", env)
        pairs = []
        try:
            for r in range(args.reps):
                for k, rid in enumerate(ids):
                    order = [("old", old), ("new", new)]
                    if (r + k) % 2:
                        order.reverse()
                    got = {name: _ask(p, rid) for name, p in order}
                    pairs.append({"id_index": k, **{n: got[n] for n in ("old", "new")}})
                    print(json.dumps(pairs[-1]), flush=True)
        finally:
            for p in (old, new):
                if p.stdin is not None:
                    p.stdin.close()
                p.wait(timeout=60)

    def ratios(field: str) -> dict[str, float]:
        values = [p["old"][field] / p["new"][field] for p in pairs]
        return {
            "median": round(statistics.median(values), 3),
            "min": round(min(values), 3),
            "max": round(max(values), 3),
        }

    def medians(field: str) -> dict[str, float]:
        return {
            code: round(statistics.median(p[code][field] for p in pairs), 4)
            for code in ("old", "new")
        }

    result = {
        "benchmark": "unlearning_forget_ab",
        "baseline_src": str(args.baseline_src),
        "shards": args.shards,
        "ids": len(ids),
        "pairs": len(pairs),
        "old_over_new": {
            "cpu_seconds": ratios("cpu_seconds"),
            "wall_seconds": ratios("wall_seconds"),
            "forget_cpu_seconds": ratios("forget_cpu_seconds"),
        },
        "median": {
            "cpu_seconds": medians("cpu_seconds"),
            "forget_cpu_seconds": medians("forget_cpu_seconds"),
            "wall_seconds": medians("wall_seconds"),
        },
        "runs": pairs,
        "machine": {"cpus": os.cpu_count(), "load_average_1min": round(os.getloadavg()[0], 2)},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result["old_over_new"]), f"wrote {args.out}")


if __name__ == "__main__":
    main()
