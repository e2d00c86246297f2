"""Benchmark: veil's optimal search against ARX 3.9.2 on UCI Adult, and pycanon side by side.

Run by hand (not in the test suite)::

    PYTHONPATH=src python benchmarks/tabular_search.py [--quick]

Writes ``benchmarks/results/tabular_search.json`` with, for every row of the ARX reference
(shared/reference/arx-adult.md): whether veil finds the same optimum and score, the search's
wall and CPU time (warm: the frequency table is built once, then the search runs), the number
of nodes checked, and the ratio to ARX's published timing range for that kind of row
(ARX 3.9.2, warm JVM, single thread: 9-20 ms for 0 % suppression rows, 117-600 ms for 5 % rows).
ARX itself is not run here (it is a Java tool); its numbers come from the reference file.

It also measures:
- the whole ``veil anonymize`` process on Adult (start, read, search, write), wall time;
- Adult replicated 33 times (995,346 rows, k=165 as in the ARX reference), in a fresh process:
  wall time of ``anonymize()`` and peak resident memory;
- the independent re-check of a release against pycanon (a Python k/l/t checker), run side by
  side in this process on the same released table: same k, and the time ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from veil.data import (  # noqa: E402
    ADULT_QUASI_IDENTIFIERS,
    adult_csv_path,
    adult_frame,
    adult_hierarchy_path,
)

QIS = list(ADULT_QUASI_IDENTIFIERS)
ARX_MS = {0.0: (9.0, 20.0), 0.05: (117.0, 600.0)}
ROWS = [
    (5, None, None, 0.0, "loss", "0,4,1,2,3,2,0,0", 0.542210825407941),
    (5, 3, None, 0.0, "loss", "0,4,1,2,3,2,0,0", 0.542210825407941),
    (5, None, 0.2, 0.0, "loss", "1,4,1,1,3,2,2,1", 0.9183953641009659),
    (5, None, None, 0.05, "loss", "0,3,0,0,2,1,1,0", 0.17012279194738156),
    (5, 3, None, 0.05, "loss", "0,3,0,0,2,1,1,0", 0.17170218121750636),
    (5, None, 0.2, 0.05, "loss", "1,4,1,1,3,1,2,1", 0.8150031862123897),
    (5, None, None, 0.0, "entropy", "1,1,1,1,3,2,2,1", 324620.5269918692),
    (5, None, None, 0.05, "entropy", "0,0,1,1,2,2,2,0", 180132.40848244698),
    (5, 3, None, 0.05, "entropy", "0,0,1,1,2,2,2,0", 180386.13983421444),
    (5, None, 0.2, 0.05, "entropy", "1,4,1,0,3,2,2,1", 401139.7858490504),
    (5, None, None, 0.05, "dm", "0,0,1,1,1,2,2,1", 2689984.0),
]

_BIG = """
import resource, sys, time
sys.path.insert(0, {src!r})
import pandas as pd
from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame, adult_hierarchy_path
from veil.tabular import AnonymizeConfig, anonymize, read_arx_hierarchy
qis = list(ADULT_QUASI_IDENTIFIERS)
df = pd.concat([adult_frame()] * 33, ignore_index=True)
hier = {{q: read_arx_hierarchy(adult_hierarchy_path(q), q) for q in qis}}
cfg = AnonymizeConfig.build(qis, hier, k=165, suppression_limit={sup})
t0 = time.perf_counter(); c0 = time.process_time()
res = anonymize(df, cfg)
wall = time.perf_counter() - t0; cpu = time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(len(df), wall, cpu, peak, res.search["seconds"], ",".join(map(str, res.transformation.values())))
"""


def _policy(tmp: Path, suppression: float) -> Path:
    lines = [f'data: {{path: "{adult_csv_path()}", separator: ";"}}', "columns:"]
    for q in QIS:
        lines.append(
            f'  {q}: {{role: quasi_identifier, hierarchy: {{type: file, path: "{adult_hierarchy_path(q)}"}}}}'
        )
    lines += [
        "  occupation: {role: sensitive}",
        f"privacy: {{k_anonymity: {{k: 5}}, suppression_limit: {suppression}}}",
        "search: {algorithm: optimal, metric: loss}",
        "output: {format: csv, report: [json]}",
    ]
    path = tmp / f"adult_{suppression}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def bench_rows(repeat: int) -> list[dict]:
    from veil.tabular import read_arx_hierarchy
    from veil.tabular._encoding import encode
    from veil.tabular._metrics import METRICS
    from veil.tabular._privacy_models import (
        DistinctLDiversityModel,
        EqualDistanceTClosenessModel,
        KAnonymityModel,
    )
    from veil.tabular._search import LatticeSearch

    df = adult_frame()
    hier = {q: read_arx_hierarchy(adult_hierarchy_path(q), q) for q in QIS}
    t0 = time.perf_counter()
    ft = encode(df, QIS, hier, ["occupation"])
    encode_s = time.perf_counter() - t0
    out = []
    for k, l_, t, sup, metric, levels, score in ROWS:
        models = [KAnonymityModel(k)]
        if l_:
            models.append(DistinctLDiversityModel(l_, column="occupation"))
        if t:
            models.append(EqualDistanceTClosenessModel(t=t, domain=ft.domains["occupation"]))
        walls, cpus = [], []
        for _ in range(repeat):
            w0, c0 = time.perf_counter(), time.process_time()
            r = LatticeSearch(models, METRICS.get(metric)(), sup).run(ft)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
        got = ",".join(map(str, r.levels or ()))
        lo, hi = ARX_MS[sup]
        out.append(
            {
                "k": k,
                "l": l_,
                "t": t,
                "suppression": sup,
                "metric": metric,
                "levels": got,
                "same_levels_as_arx": got == levels,
                "score": r.score,
                "same_score_as_arx": r.score is not None and abs(r.score - score) <= 1e-9 * score,
                "checked": r.checked,
                "lattice": r.lattice_size,
                "search_wall_ms": round(min(walls) * 1000, 1),
                "search_cpu_ms": round(min(cpus) * 1000, 1),
                "arx_ms_range": [lo, hi],
                "cpu_ratio_to_arx_upper": round(min(cpus) * 1000 / hi, 2),
            }
        )
        print(json.dumps(out[-1]), flush=True)
    return [{"encode_seconds": round(encode_s, 4)}, *out]


def bench_cli(repeat: int) -> dict:
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for sup in (0.0, 0.05):
            pol = _policy(Path(tmp), sup)
            walls = []
            for i in range(repeat):
                out = Path(tmp) / f"out_{sup}_{i}"
                env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
                t0 = time.perf_counter()
                subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "veil",
                        "anonymize",
                        str(pol),
                        "--out",
                        str(out),
                        "--json",
                    ],
                    check=True,
                    env=env,
                    capture_output=True,
                )
                walls.append(time.perf_counter() - t0)
            res[f"suppression_{sup}"] = {
                "wall_seconds_min": round(min(walls), 3),
                "wall_seconds_all": [round(w, 3) for w in walls],
                "target_seconds": 1.5,
                "arx_fresh_process_seconds": [2.1, 3.5],
            }
            print(json.dumps(res), flush=True)
    return res


def bench_big(sup: float) -> dict:
    code = _BIG.format(src=str(ROOT / "src"), sup=sup)
    proc = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    rows, wall, cpu, peak, search_s, levels = proc.stdout.split()
    res = {
        "rows": int(rows),
        "k": 165,
        "suppression": sup,
        "anonymize_wall_seconds": round(float(wall), 3),
        "anonymize_cpu_seconds": round(float(cpu), 3),
        "search_seconds": round(float(search_s), 3),
        "peak_rss_mb": round(float(peak), 1),
        "levels": levels,
        "targets": {"seconds": 5.0, "peak_mb": 2048},
        "arx_search_ms": 170,
    }
    print(json.dumps(res), flush=True)
    return res


def bench_pycanon() -> dict:
    import pycanon.anonymity as pa

    from veil.tabular import AnonymizeConfig, anonymize, read_arx_hierarchy, verify_release

    df = adult_frame()
    hier = {q: read_arx_hierarchy(adult_hierarchy_path(q), q) for q in QIS}
    cfg = AnonymizeConfig.build(QIS, hier, k=5, suppression_limit=0.05, sensitive=["occupation"])
    res = anonymize(df, cfg)
    t0 = time.perf_counter()
    verify_release(df, res, cfg)
    veil_s = time.perf_counter() - t0
    kept = res.data.loc[~res.suppressed].astype(str).reset_index(drop=True)
    t0 = time.perf_counter()
    k = pa.k_anonymity(kept, QIS)
    pyc_s = time.perf_counter() - t0
    out = {
        "release": "k=5, 5% suppression, loss (ARX row 4)",
        "pycanon_k": int(k),
        "veil_min_class_size": res.min_class_size,
        "veil_verify_seconds": round(veil_s, 4),
        "pycanon_k_seconds": round(pyc_s, 4),
        "speed_ratio_pycanon_over_veil": round(pyc_s / veil_s, 2) if veil_s else None,
    }
    print(json.dumps(out), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one repeat, skip the 1M-row run")
    args = ap.parse_args()
    repeat = 1 if args.quick else 2
    load = os.getloadavg()
    result = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "loadavg_at_start": [round(x, 2) for x in load],
        },
        "reference_rows": bench_rows(repeat),
        "cli_whole_process": bench_cli(3 if not args.quick else 1),
        "pycanon_side_by_side": bench_pycanon(),
    }
    if not args.quick:
        result["adult_x33"] = bench_big(0.0)
    result["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    path = ROOT / "benchmarks" / "results" / "tabular_search.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
