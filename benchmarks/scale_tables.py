"""Tables on Ray against the local engine: a k-anonymity + l-diversity policy on Adult x N.

Adult (30,162 rows) is resampled with replacement, seeded, to ``--times`` x its size and
written as ``--parts`` CSV partitions (and as one file for the local engine). Each run is
a fresh process, start-up included (Python, veil, and for Ray ``ray.init`` and its worker
processes):

* ``local``: the public API, ``run_policy(policy, only=("transforms", "anonymize",
  "risk"))`` on the one file: the work the Ray engine does (the risk stage measures risk
  and utility, ML utility included; the Ray engine from its aggregates);
* ``ray-1`` and ``ray-2``: ``veil run POLICY --engine ray`` on the partitions, on a local
  Ray runtime veil starts with ``engine: {num_cpus: 1|2}`` and stops.

Each Ray release is compared with the local one (``identical``: the same rows in the same
order, the same transformation and information loss, the same summary, risk and utility
sections). Reported: wall seconds, rows per
second, the Ray runs' overhead against local and the 2-CPU speed-up against 1 CPU, with the
machine's load average before and after (figures on a shared machine move with it).

Run::

    PYTHONPATH=src python benchmarks/scale_tables.py --times 10 --parts 8

Writes ``benchmarks/results/scale_tables.json`` (``--out`` to change; the run with the
utility section on both engines: ``--out benchmarks/results/scale_tables_util.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _timing import ray_comparison, write_result

RESULTS = Path(__file__).parent / "results"
QIS = (
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "salary-class",
)
_LOCAL = """
import sys
from veil.pipeline import run_policy
from veil.policy import load_policy
# the stages the Ray engine runs (risk and utility included)
run_policy(load_policy(sys.argv[1]), only=("transforms", "anonymize", "risk"))
"""


def _data(root: Path, times: int, parts: int) -> int:
    import numpy as np

    from veil.data import adult_frame

    adult = adult_frame()
    rows = np.random.default_rng(29).integers(0, len(adult), len(adult) * times)
    frame = adult.iloc[rows].reset_index(drop=True)
    frame.to_csv(root / "all.csv", index=False)
    (root / "parts").mkdir()
    size = -(-len(frame) // parts)
    for p in range(parts):
        frame.iloc[p * size : (p + 1) * size].to_csv(
            root / "parts" / f"part-{p:04d}.csv", index=False
        )
    return len(frame)


def _policy(root: Path, name: str, data: str, engine: str) -> Path:
    from veil.data import adult_hierarchy_path

    cols = "\n".join(
        f"  {q}: {{role: quasi_identifier, hierarchy: {{type: file, path: "
        f"{adult_hierarchy_path(q)}}}}}"
        for q in QIS
    )
    path = root / f"{name}.yaml"
    path.write_text(
        f"""version: 1
data: {{path: {data}}}
columns:
{cols}
  occupation: {{role: sensitive}}
privacy:
  k_anonymity: {{k: 5}}
  l_diversity: {{l: 2}}
  suppression_limit: 0.02
output: {{path: out-{name}, format: csv, report: [json]}}
{engine}""",
        encoding="utf-8",
    )
    return path


def _run(args: list[str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall


def _same(root: Path, name: str) -> bool:
    a = (root / "out-local" / "released.csv").read_bytes()
    b = (root / f"out-{name}" / "released.csv").read_bytes()
    ra = json.loads((root / "out-local" / "report.json").read_text(encoding="utf-8"))
    rb = json.loads((root / f"out-{name}" / "report.json").read_text(encoding="utf-8"))
    return bool(
        a == b
        and ra["anonymize"]["transformation"] == rb["anonymize"]["transformation"]
        and ra["anonymize"]["information_loss"] == rb["anonymize"]["information_loss"]
        and ra["summary"] == rb["summary"]
        and ra["risk"] == rb["risk"]
        and ra["utility"] == rb["utility"]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--times", type=int, default=10)
    ap.add_argument("--parts", type=int, default=8)
    ap.add_argument("--out", type=Path, default=RESULTS / "scale_tables.json")
    a = ap.parse_args()
    load_before = os.getloadavg()
    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        n = _data(root, a.times, a.parts)
        local = _policy(root, "local", "all.csv", "")
        runs["local"] = {"seconds": _run([sys.executable, "-c", _LOCAL, str(local)])}
        for cpus in (1, 2):
            name = f"ray-{cpus}"
            pol = _policy(root, name, "parts", f"engine: {{type: ray, num_cpus: {cpus}}}\n")
            wall = _run([sys.executable, "-m", "veil", "-q", "run", str(pol), "--json"])
            runs[name] = {"seconds": wall, "identical": _same(root, name)}
    for r in runs.values():
        r["seconds"] = round(r["seconds"], 2)
        r["rows_per_second"] = round(n / r["seconds"], 1)
    base = runs["local"]["seconds"]
    result = {
        "rows": n,
        "times": a.times,
        "parts": a.parts,
        "policy": "k=5, distinct l=2 (occupation), suppression 2 %, 8 ARX hierarchies",
        **ray_comparison(runs, base, load_before),
    }
    write_result(a.out, result)


if __name__ == "__main__":
    main()
