"""Peak memory and time of ``veil run`` on a 50,000-row hospital table, from the CLI and Python.

The table is the case that exhausted memory (issue #23): quasi-identifiers age, sex, zip3 and
admission date, an ordered sensitive (length of stay), a diagnosis, two charge columns written
as text (``"$55076.06"``, about 46,000 distinct values each) and an id-like insensitive
column. The policy asks for k=5 and ordered t-closeness 0.2. Run from the repository root::

    PYTHONPATH=src python benchmarks/hospital_memory.py [--rows 50000] [--seed 23]

Each measurement runs in a child process of its own and reads that child's peak resident set
size from ``os.wait4`` (the kernel's ``ru_maxrss``), so the two paths do not share a peak:

- ``cli``: ``python -m veil run policy.yaml``;
- ``python``: ``veil.run_policy`` on the table read with ``pandas.read_csv(dtype=str)`` (every
  column as text, as docs/anonymization.md suggests for exact spellings).

Writes ``benchmarks/results/hospital_memory.json``. The target is under 2 GB for both.
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
from typing import Any

import numpy as np

LIMIT_BYTES = 2 * 1000**3  # "under 2 GB"

POLICY = """\
version: 1
data: {path: hospital.csv}
columns:
  encounter:       {role: insensitive}
  age:             {role: quasi_identifier, dtype: numeric,
                    hierarchy: {type: interval, width: 5, growth: 2, top: 90}}
  sex:             {role: quasi_identifier, hierarchy: {type: taxonomy, tree: {F: ["*"], M: ["*"]}}}
  zip3:            {role: quasi_identifier, hierarchy: {type: mask, from: right}}
  admission_date:  {role: quasi_identifier, hierarchy: {type: date, levels: [month, quarter, year]}}
  length_of_stay:  {role: sensitive}
  diagnosis:       {role: insensitive}
  total_charges:   {role: insensitive}
  covered_charges: {role: insensitive}
privacy:
  k_anonymity: {k: 5}
  t_closeness: {t: 0.2, distance: ordered}
  suppression_limit: 0.05
search: {algorithm: optimal, metric: loss}
output: {path: out, format: csv, report: [json, html]}
"""

PYTHON_RUN = """\
import sys
import pandas as pd
from veil import load_policy, run_policy
policy = load_policy(sys.argv[1])
data = pd.read_csv(sys.argv[2], dtype=str, keep_default_na=False)
run_policy(policy, data=data, out_dir=sys.argv[3])
"""


def hospital_table(rows: int, seed: int) -> Any:
    """A seeded synthetic hospital table (no real person in it)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    age = np.clip(rng.gamma(4.0, 12.0, size=rows).astype(int), 0, 99)
    zips = np.array([f"{z:03d}" for z in rng.choice(1000, size=120, replace=False)])
    zip_weights = rng.dirichlet(np.ones(len(zips)))
    start = np.datetime64("2019-01-01")
    days = rng.integers(0, 3 * 365, size=rows)
    los = np.clip(rng.geometric(0.22, size=rows), 1, 60)
    diagnoses = np.array([f"{chr(65 + i % 26)}{i:02d}.{i % 10}" for i in range(300)])
    diag_weights = rng.dirichlet(np.full(len(diagnoses), 0.5))
    # charges grow with the stay; to 20 cents, about 46,000 of 50,000 values are distinct
    total = np.round(rng.lognormal(9.2, 0.6, size=rows) * (1 + 0.35 * los) * 5) / 5
    covered = np.round(total * rng.uniform(0.15, 0.95, size=rows) * 5) / 5
    return pd.DataFrame(
        {
            "encounter": rng.choice(10**8, size=rows, replace=False),
            "age": age,
            "sex": rng.choice(["F", "M"], size=rows),
            "zip3": rng.choice(zips, size=rows, p=zip_weights),
            "admission_date": (start + days.astype("timedelta64[D]")).astype(str),
            "length_of_stay": los,
            "diagnosis": rng.choice(diagnoses, size=rows, p=diag_weights),
            "total_charges": [f"${v:.2f}" for v in total],
            "covered_charges": [f"${v:.2f}" for v in covered],
        }
    )


def _measure(cmd: list[str], cwd: Path, cap_gb: float | None = None) -> dict[str, Any]:
    """Run ``cmd`` as a child; its exit code, wall time and peak RSS (bytes).

    ``cap_gb`` limits the child's address space (a guard for shared machines: a run that
    would need more fails with MemoryError instead of pushing others out of memory)."""
    import resource

    def limit() -> None:
        if cap_gb is not None:
            cap = int(cap_gb * 1000**3)
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryFile() as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=limit
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        log.seek(0)
        tail = log.read().decode("utf-8", "replace")[-2000:]
    peak = int(usage.ru_maxrss) * (1 if sys.platform == "darwin" else 1024)
    return {
        "exit_code": proc.returncode,
        "seconds": round(seconds, 2),
        "peak_rss_bytes": peak,
        "peak_rss_mib": round(peak / 2**20, 1),
        "ok": proc.returncode == 0 and peak < LIMIT_BYTES,
        "output_tail": tail if proc.returncode else "",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/hospital_memory.json"))
    ap.add_argument(
        "--cap-gb", type=float, default=None, help="address-space limit of each child (GB)"
    )
    args = ap.parse_args()

    df = hospital_table(args.rows, args.seed)
    with tempfile.TemporaryDirectory(prefix="veil-hospital-") as tmp:
        work = Path(tmp)
        df.to_csv(work / "hospital.csv", index=False)
        (work / "policy.yaml").write_text(POLICY, encoding="utf-8")
        (work / "run.py").write_text(PYTHON_RUN, encoding="utf-8")
        py = sys.executable
        runs = {
            "cli": _measure([py, "-m", "veil", "-q", "run", "policy.yaml"], work, args.cap_gb),
            "python": _measure(
                [py, "run.py", "policy.yaml", "hospital.csv", "out-py"], work, args.cap_gb
            ),
        }
        report_path = work / "out" / "report.json"
        report = json.loads(report_path.read_text("utf-8")) if report_path.exists() else {}
    result = {
        "benchmark": "hospital_memory",
        "command": f"PYTHONPATH=src python benchmarks/hospital_memory.py --rows {args.rows} "
        f"--seed {args.seed}",
        "table": {
            "rows": len(df),
            "distinct": {c: int(df[c].nunique()) for c in df.columns},
        },
        "policy": {"k": 5, "t_closeness": {"t": 0.2, "distance": "ordered"}},
        "limit_bytes": LIMIT_BYTES,
        "cap_gb": args.cap_gb,
        "runs": runs,
        "association_pairs": len(
            ((report.get("utility") or {}).get("associations") or {}).get("pairs") or []
        ),
        "machine": {
            "python": platform.python_version(),
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("table", "runs")}, indent=2))


if __name__ == "__main__":
    main()
