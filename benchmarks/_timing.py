"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def best_of(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    """The shortest wall time of ``repeat`` calls of ``fn`` (at least one), and the result of
    the last call."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def cpu_and_blas() -> dict[str, Any]:
    """The processor's model name and the BLAS libraries numpy and thinc can use: spaCy's
    speed, and so a ratio against a spaCy-based peer, depends on both (thinc's bundled
    BLIS picks its kernels by processor)."""
    from threadpoolctl import threadpool_info

    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    blas = [
        {k: info.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
        for info in threadpool_info()
        if info.get("user_api") == "blas"
    ]
    return {"cpu_model": model, "numpy_blas": blas}


def ray_comparison(runs: dict[str, Any], local_seconds: float, load_before: Any) -> dict[str, Any]:
    """The ratios of the Ray engine's runs (``runs["ray-1"]``, ``runs["ray-2"]``, each with
    ``seconds``) against the local engine's time, and the machine they ran on."""
    import os

    ray1, ray2 = runs["ray-1"]["seconds"], runs["ray-2"]["seconds"]
    return {
        "runs": runs,
        "ray1_overhead_vs_local": round(ray1 / local_seconds - 1, 3),
        "ray2_overhead_vs_local": round(ray2 / local_seconds - 1, 3),
        "ray2_speedup_vs_ray1": round(ray1 / ray2, 3),
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }


def write_result(out: Path, result: dict[str, Any]) -> None:
    """Write a benchmark's JSON result (folders made) and print it."""
    import json

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
