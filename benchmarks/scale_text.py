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

Memory (``--bytes``, one or more corpus sizes): a seeded partitioned JSONL corpus of about
that many bytes (``--part-bytes`` per partition, records resampled from a seeded business
corpus) is redacted folder to folder (``veil redact DIR --out DIR --engine ray``, regex
recognizers: ``--no-ner`` unless ``--ner``), and every process of the run is watched: the
peak resident memory of each (Linux's ``VmHWM``, the kernel's own high-water mark, read
until the process exits) is recorded for the driver, each Ray worker (``ray::`` processes:
actors and read tasks) and Ray's own services. Bounded memory means the worker peaks do
not grow with the corpus size::

    PYTHONPATH=src python benchmarks/scale_text.py --bytes 100MB 300MB

writes ``benchmarks/results/scale_text_memory.json``.
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


def _size(text: str) -> int:
    units = {"KB": 10**3, "MB": 10**6, "GB": 10**9}
    for suffix, mult in units.items():
        if text.upper().endswith(suffix):
            return int(float(text[: -len(suffix)]) * mult)
    return int(text)


def _big_corpus(folder: Path, total: int, part_bytes: int) -> tuple[int, int]:
    """About ``total`` bytes of JSONL in partitions of about ``part_bytes``; (records, files)."""
    import random

    from veil.text.evaluation._corpus_business import generate_business_corpus

    pool = [r["full_text"] for r in generate_business_corpus(2000, seed=11)]
    rng = random.Random(29)
    folder.mkdir(parents=True)
    n = written = files = 0
    while written < total:
        lines, size = [], 0
        while size < part_bytes and written + size < total:
            line = json.dumps({"id": n, "full_text": rng.choice(pool)}) + "\n"
            lines.append(line)
            size += len(line.encode("utf-8"))
            n += 1
        (folder / f"part-{files:05d}.jsonl").write_text("".join(lines), encoding="utf-8")
        written += size
        files += 1
    return n, files


def _hwm_kb(pid: int) -> int | None:
    """The process's peak resident set (VmHWM, KiB), or None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def _tree(root: int) -> list[int]:
    """``root`` and its descendants, from /proc (each process's parent in its stat line)."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += [c for c, p in parent.items() if p == pid]
    return out


def _cmdline(pid: int) -> str | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return raw.replace(b"\0", b" ").decode("utf-8", errors="replace")


def _watched(args: list[str], every: float = 0.25) -> tuple[float, dict[str, Any]]:
    """Run veil; the peak resident MiB of each process of its tree, by role."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "veil", "-q", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak: dict[int, int] = {}
    role: dict[int, str] = {}
    while proc.poll() is None:
        for pid in _tree(proc.pid):
            kb = _hwm_kb(pid)
            cmd = _cmdline(pid)
            if kb is None or cmd is None:
                continue
            # a worker's title changes (ray::IDLE, ray::_TextActor...): once a worker, always
            if role.get(pid) != "worker":
                is_worker = cmd.startswith("ray::")
                role[pid] = "driver" if pid == proc.pid else "worker" if is_worker else "ray"
            peak[pid] = max(peak.get(pid, 0), kb)
        time.sleep(every)
    wall = time.perf_counter() - t0
    err = proc.stderr.read() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"veil {' '.join(args)} failed ({proc.returncode}): {err[-2000:]}")
    mib = {pid: round(kb / 1024, 1) for pid, kb in peak.items()}
    workers = sorted((v for pid, v in mib.items() if role[pid] == "worker"), reverse=True)
    services = sorted((v for pid, v in mib.items() if role[pid] == "ray"), reverse=True)
    return wall, {
        "driver_peak_rss_mib": max(
            (v for pid, v in mib.items() if role[pid] == "driver"), default=0
        ),
        "worker_peak_rss_mib": workers[0] if workers else 0,
        "workers_peak_rss_mib": workers,
        "ray_services_peak_rss_mib": services[:4],
    }


def memory(sizes: list[str], part_bytes: int, workers: int, ner: bool, out: Path) -> None:
    load_before = os.getloadavg()
    runs = []
    for text in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            n, files = _big_corpus(root / "in", _size(text), part_bytes)
            on_disk = sum(f.stat().st_size for f in (root / "in").iterdir())
            args = ["redact", str(root / "in"), "--out", str(root / "out"), "--engine", "ray"]
            args += ["--processes", str(workers), *([] if ner else ["--no-ner"])]
            wall, mem = _watched(args)
            outs = sorted((root / "out").iterdir())
            runs.append(
                {
                    "bytes": on_disk,
                    "records": n,
                    "partitions": files,
                    "output_partitions": len(outs),
                    "seconds": round(wall, 1),
                    "mb_per_second": round(on_disk / 1e6 / wall, 2),
                    **mem,
                }
            )
    worker_peaks = [r["worker_peak_rss_mib"] for r in runs]
    result = {
        "command": "veil redact DIR --out DIR --engine ray",
        "ner": ner,
        "part_bytes": part_bytes,
        "workers": workers,
        "runs": runs,
        "worker_peak_rss_mib_max": max(worker_peaks),
        "worker_peak_growth_largest_vs_smallest": round(worker_peaks[-1] / worker_peaks[0], 3),
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }
    write_result(out, result)


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
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--bytes", nargs="+", help="memory mode: corpus sizes, e.g. 100MB 300MB")
    ap.add_argument("--part-bytes", type=_size, default=16 * 10**6)
    ap.add_argument("--processes", type=int, default=2, help="memory mode: Ray actors")
    ap.add_argument("--ner", action="store_true", help="memory mode: with NER")
    a = ap.parse_args()
    if a.bytes:
        out = a.out or RESULTS / "scale_text_memory.json"
        memory(a.bytes, a.part_bytes, a.processes, a.ner, out)
        return
    a.out = a.out or RESULTS / "scale_text.json"
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
