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
