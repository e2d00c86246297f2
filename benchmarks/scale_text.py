"""Text on Ray against the local engine: `veil text detect` / `veil redact` through the CLI.

A seeded business corpus (``--n`` documents, ``--parts`` JSONL partitions) is processed by
the command a user runs, start-up included (Python, veil, ``ray.init``, spaCy per actor):

* ``local``: ``--engine local`` on the partitions concatenated (one file, same rows);
* ``ray-1`` and ``ray-2``: ``--engine ray --processes 1|2`` on the folder, on a local Ray
  runtime veil starts and stops.

Each run's output is compared byte for byte with the local one (``identical``). Reported:
wall seconds, documents per second, the Ray runs' overhead against local and the 2-worker
speed-up against 1 worker, with the machine's load average before and after (figures on a
shared machine move with it). The issue's target is measured at ``--n 100000`` with NER.

Run::

    PYTHONPATH=src python benchmarks/scale_text.py --n 100000 --parts 16
    PYTHONPATH=src python benchmarks/scale_text.py --n 2000 --parts 4   # overhead, small input

Writes ``benchmarks/results/scale_text.json`` (``--out`` to change).
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


def _corpus(folder: Path, n: int, parts: int) -> Path:
    from veil.text.evaluation._corpus_business import generate_business_corpus

    recs = [
        {"id": i, "full_text": r["full_text"]}
        for i, r in enumerate(generate_business_corpus(n, seed=7))
    ]
    folder.mkdir(parents=True)
    size = -(-n // parts)
    for p in range(parts):
        chunk = recs[p * size : (p + 1) * size]
        (folder / f"part-{p:04d}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in chunk), encoding="utf-8"
        )
    whole = folder.parent / "all.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return whole


def _run(args: list[str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "veil", "-q", *args], capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"veil {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--parts", type=int, default=16)
    ap.add_argument("--command", choices=("detect", "redact"), default="detect")
    ap.add_argument("--no-ner", action="store_true")
    ap.add_argument("--out", type=Path, default=RESULTS / "scale_text.json")
    a = ap.parse_args()
    load_before = os.getloadavg()
    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        whole = _corpus(root / "parts", a.n, a.parts)
        base = ["text", "detect"] if a.command == "detect" else ["redact"]
        extra = ["--no-ner"] if a.no_ner else []
        ref = root / "local.jsonl"
        runs["local"] = {"seconds": _run([*base, str(whole), "--out", str(ref), *extra])}
        for workers in (1, 2):
            out = root / f"ray{workers}.jsonl"
            wall = _run(
                [
                    *base,
                    str(root / "parts"),
                    "--out",
                    str(out),
                    "--engine",
                    "ray",
                    "--processes",
                    str(workers),
                    *extra,
                ]
            )
            runs[f"ray-{workers}"] = {
                "seconds": wall,
                "identical": out.read_bytes() == ref.read_bytes(),
            }
    for r in runs.values():
        r["seconds"] = round(r["seconds"], 2)
        r["docs_per_second"] = round(a.n / r["seconds"], 1)
    local = runs["local"]["seconds"]
    result = {
        "n": a.n,
        "parts": a.parts,
        "command": a.command,
        "ner": not a.no_ner,
        **ray_comparison(runs, local, load_before),
    }
    write_result(a.out, result)


if __name__ == "__main__":
    main()
