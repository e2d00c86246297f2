"""The machine's ceiling for two workers: the same fixed work, one process alone against two at once.

Each process does a fixed amount of CPU-bound work after a warm-up, and reports its own CPU
seconds (``time.process_time``) and wall seconds for that work only (start-up excluded; the
processes of a pair start their work together at a barrier). Three workloads:

* ``ner``: veil's text analyzer with spaCy NER (``TextAnalyzer.analyze_batch``, the work a
  text actor does) on a fixed list of documents from the benchmark corpus generators;
* ``python``: a pure-Python loop (integer arithmetic and dict updates: little memory);
* ``matmul``: numpy matrix products with BLAS/OpenMP threads pinned to 1.

Alone and paired runs are interleaved (``--repeats`` rounds of alone, pair), so that the
machine's other load falls on both about alike. Per workload, the result gives the CPU
seconds per process alone and paired (their ratio: how much more CPU the same work costs
when the other core is busy too, e.g. shared cache, memory bandwidth or the host's
hyper-threads) and the pair's throughput against one process alone (``pair_speedup``:
2 x alone wall / paired wall, the most a 2-worker run can gain here). Threads: each process
reports its thread count and the thread pools it found (threadpoolctl), and the workload's
threads are pinned to 1 before numpy loads::

    PYTHONPATH=src python benchmarks/cpu_pair.py --repeats 3 \
        --out benchmarks/results/cpu_pair.json
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import time
from pathlib import Path
from typing import Any

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

from _timing import write_result  # noqa: E402

RESULTS = Path(__file__).parent / "results"


def _docs(n: int) -> list[str]:
    from veil.text import generate_clinical_notes
    from veil.text.evaluation._corpus_business import generate_business_corpus

    k = n // 5
    business = [r["full_text"] for r in generate_business_corpus(n - k, seed=7)]
    return business + [r["full_text"] for r in generate_clinical_notes(k, seed=7)]


def _setup(kind: str, size: int) -> Any:
    if kind == "ner":
        from veil.policy import TextConfig
        from veil.text import TextAnalyzer

        analyzer = TextAnalyzer.from_config(TextConfig(), ner=True)
        assert analyzer.ner is not None, "no spaCy model: the ner workload needs one"
        docs = _docs(size)
        analyzer.analyze_batch(docs[:50], batch_size=256)  # warm-up
        return lambda: analyzer.analyze_batch(docs, batch_size=256)
    if kind == "matmul":
        import numpy as np

        rng = np.random.default_rng(0)
        a = rng.standard_normal((400, 400))

        def mm() -> None:
            b = a
            for _ in range(size):
                b = a @ b
                b /= np.abs(b).max()

        return mm

    def loop() -> None:
        d: dict[int, int] = {}
        x = 0
        for i in range(size):
            x = (x * 31 + i) % 1000003
            d[x & 1023] = d.get(x & 1023, 0) + 1

    return loop


def _child(kind: str, size: int, barrier: Any, q: Any) -> None:
    work = _setup(kind, size)
    barrier.wait()
    c0, w0 = time.process_time(), time.perf_counter()
    work()
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    pools: list[str] = []
    try:
        from threadpoolctl import threadpool_info

        pools = [f"{p['internal_api']}:{p['num_threads']}" for p in threadpool_info()]
    except ImportError:
        pass
    threads = len(os.listdir("/proc/self/task"))
    q.put({"cpu": cpu, "wall": wall, "threads": threads, "pools": pools})


def _run(kind: str, size: int, procs: int) -> list[dict[str, Any]]:
    ctx = mp.get_context("spawn")
    barrier, q = ctx.Barrier(procs), ctx.Queue()
    ps = [ctx.Process(target=_child, args=(kind, size, barrier, q)) for _ in range(procs)]
    for p in ps:
        p.start()
    got = [q.get() for _ in ps]
    for p in ps:
        p.join()
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="ner,python,matmul")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ner-docs", type=int, default=1500)
    ap.add_argument("--loop", type=int, default=12_000_000)
    ap.add_argument("--matmuls", type=int, default=1500)
    ap.add_argument("--out", type=Path, default=RESULTS / "cpu_pair.json")
    a = ap.parse_args()
    sizes = {"ner": a.ner_docs, "python": a.loop, "matmul": a.matmuls}
    load_before = os.getloadavg()
    res: dict[str, Any] = {}
    for kind in a.workloads.split(","):
        alone: list[dict[str, Any]] = []
        pair: list[dict[str, Any]] = []
        loads = []
        for _ in range(a.repeats):
            loads.append(os.getloadavg()[0])
            alone += _run(kind, sizes[kind], 1)
            pair += _run(kind, sizes[kind], 2)
        cpu1 = statistics.median(r["cpu"] for r in alone)
        cpu2 = statistics.median(r["cpu"] for r in pair)
        wall1 = statistics.median(r["wall"] for r in alone)
        wall2 = statistics.median(
            max(r["wall"] for r in pair[i : i + 2]) for i in range(0, len(pair), 2)
        )
        res[kind] = {
            "size": sizes[kind],
            "alone": [
                {k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()} for r in alone
            ],
            "pair": [
                {k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()} for r in pair
            ],
            "cpu_seconds_alone": round(cpu1, 3),
            "cpu_seconds_paired": round(cpu2, 3),
            "cpu_paired_vs_alone": round(cpu2 / cpu1, 3),
            "wall_seconds_alone": round(wall1, 3),
            "wall_seconds_pair": round(wall2, 3),
            "pair_speedup": round(2 * wall1 / wall2, 3),
            # with both cores to itself the pair would finish in its CPU time: the speed-up
            # the hardware allows apart from other load (2 x alone CPU / paired CPU)
            "pair_speedup_cpu_bound": round(2 * cpu1 / cpu2, 3),
            "load_avg_1min_each_round": [round(x, 2) for x in loads],
        }
        print(kind, {k: v for k, v in res[kind].items() if k not in ("alone", "pair")}, flush=True)
    write_result(
        a.out,
        {
            "command": "PYTHONPATH=src python benchmarks/cpu_pair.py "
            f"--workloads {a.workloads} --repeats {a.repeats}",
            "workloads": res,
            "thread_env": {v: os.environ.get(v) for v in ("OMP_NUM_THREADS", "BLIS_NUM_THREADS")},
            "load_avg_before": [round(x, 2) for x in load_before],
            "load_avg_after": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
        },
    )


if __name__ == "__main__":
    main()
