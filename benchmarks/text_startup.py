"""Benchmark: start-up of ``veil text detect`` on 10 short records, as a user runs it.

Runs ``veil text detect TEN.jsonl -o OUT.jsonl --json`` (NER on, the default English spaCy
pipeline) in a fresh process ``--repeat`` times and records each run's wall seconds and CPU
seconds (user + system of the child, less disturbed by a shared machine), their medians, and
the modules the command imported that it does not need (torch, presidio_analyzer, opacus),
read from ``python -X importtime``. Target: median wall under 1.5 s.

The ten records are short English sentences with a name, a phone number, an e-mail address,
a date, an SSN, a card number, an IP address, a city and a street address (``RECORDS``).

veil's modules are byte-compiled first (``compileall``), as ``pip install`` does for an
installed package, and the runs may write bytecode: a machine that sets
``PYTHONDONTWRITEBYTECODE`` (this sandbox does) would otherwise make every start compile
veil's hundred-odd modules again, which no installed copy does. ``--source-only`` keeps the
old way (no bytecode) for comparison.

Run: ``PYTHONPATH=src python benchmarks/text_startup.py [--repeat 7]``; writes
``benchmarks/results/text_startup.json``.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).parent / "results" / "text_startup.json"
RECORDS = [
    "Call John Smith at 555-123-4567 tomorrow.",
    "Email jane.doe@example.org about the invoice.",
    "Patient Mary Jones, DOB 03/04/1975, seen today.",
    "SSN 123-45-6789 on file.",
    "Meeting in Boston on Friday.",
    "Card 4111 1111 1111 1111 expired.",
    "IP 192.168.1.20 logged in.",
    "Dr. Brown called from Chicago.",
    "Ship to 12 Main Street, Springfield.",
    "No personal data here.",
]
UNNEEDED = ("torch", "presidio_analyzer", "opacus", "tensorflow")


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[2:5])} failed ({proc.returncode}):\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--source-only", action="store_true", help="no bytecode: compile veil on every start"
    )
    args = ap.parse_args()
    env = dict(os.environ)
    if args.source_only:  # no bytecode of veil's to read, none written
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        for cache in (ROOT / "src" / "veil").rglob("__pycache__"):
            shutil.rmtree(cache)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        compileall.compile_dir(ROOT / "src" / "veil", quiet=1)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "ten.jsonl"
        data.write_text("".join(json.dumps({"full_text": r}) + "\n" for r in RECORDS))
        cmd = [sys.executable, "-m", "veil", "text", "detect", str(data)]
        cmd += ["-o", str(Path(tmp) / "out.jsonl"), "--json"]
        runs = []
        load = [os.getloadavg()[0]]
        for i in range(max(1, args.repeat)):
            wall, cpu, proc = _run(cmd, env)
            summary = json.loads(proc.stdout)
            runs.append({"wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3)})
            print(f"run {i + 1}: {runs[-1]}", flush=True)
        load.append(os.getloadavg()[0])
        _, _, traced = _run([sys.executable, "-X", "importtime", *cmd[1:]], env)
    imported = set()
    for line in traced.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            _, cumulative, name = line.split("|")
            # an import refused on purpose (sys.modules[name] = None) is logged in microseconds
            if cumulative.strip().isdigit() and int(cumulative) >= 1000:
                imported.add(name.strip())
    result = {
        "benchmark": "text_startup",
        "command": "veil text detect TEN.jsonl -o OUT.jsonl --json",
        "records": len(RECORDS),
        "findings": summary["findings"],
        "model": summary["model"],
        "repeat": args.repeat,
        "runs": runs,
        "median_wall_seconds": round(statistics.median(r["wall_seconds"] for r in runs), 3),
        "median_cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in runs), 3),
        "target_wall_seconds": 1.5,
        "bytecode": not args.source_only,
        "unneeded_modules_imported": sorted(
            m for m in UNNEEDED if any(i == m or i.startswith(m + ".") for i in imported)
        ),
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average_1min": load,
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(
        f"median wall {result['median_wall_seconds']} s, CPU {result['median_cpu_seconds']} s; "
        f"unneeded imports: {result['unneeded_modules_imported'] or 'none'} -> {args.out}"
    )


if __name__ == "__main__":
    main()
