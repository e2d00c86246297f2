"""Benchmark: how often DP bounds give a one-signed column values of the other sign.

Replays only the DP bounds (:func:`veil.synth._domain.dp_bounds`) of every numeric column
of one sign (all values >= 0, or all <= 0) in the tables of ``synth_domain_sim.py`` (the
sweep's 13, the public four and the generated skewed table), with a seeded Gaussian of
the fit's scale at epsilon 1 (as ``synth_domain_sim.py``: draw ``i`` uses the same noise
under any version of the code), and counts the draws whose bounds cross zero. A rule that
carries a range across zero (``_across_zero``) must keep this near zero. Run::

    PYTHONPATH=src python benchmarks/synth_bounds_sign.py --draws 200 \\
        --out benchmarks/results/synth_bounds_sign.json
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import synth_domain_sim as sim
from veil.synth._domain import dp_bounds
from veil.synth._marginal import _rows_sigma
from veil.synth._noise import rho_for
from veil.synth._schema import infer_schema

TABLES = (
    "doctorvisits,flchain,slid,storms,txhousing,k401ksubs,restaurants,nasscds,rwm5yr,"
    "gss_wages,rainibk,edct,kershaw,diamonds,cps1988,medexp,nmes1988,skewed"
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", default=TABLES)
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--csv-dir", default="/tmp/synth_tables")
    ap.add_argument("--sweep-dir", default="/tmp/sweep28_tables")
    ap.add_argument("--out", default=str(sim.RESULTS / "synth_bounds_sign.json"))
    args = ap.parse_args()
    columns: dict[str, dict[str, int]] = {}
    for name in args.tables.split(","):
        x, numeric, modelled = sim.load(name, Path(args.csv_dir), Path(args.sweep_dir))
        # the budget split of synth_domain_sim.py: every column's domain estimated
        rho = rho_for(1.0, 0.5e-9)
        rho_domain = rho * 0.1
        sigma = math.sqrt(1 / (2 * rho_domain * 0.95 / modelled / 2))
        rows_sigma = _rows_sigma(rho_domain)
        for c in numeric:
            vals = x[c].dropna().to_numpy(dtype=float)
            positive, negative = bool(vals.min() >= 0), bool(vals.max() <= 0)
            if not (positive or negative):
                continue
            kind = infer_schema(x[[c]])[c].kind
            crossed = 0
            for i in range(args.draws):
                noise = sim.SeededNoise(1000 * i + 7)
                rows = len(x) + float(noise.gaussian(np.zeros(1), rows_sigma)[0])
                lo, hi, _ = dp_bounds(vals, kind, sigma, noise, "bounds", rows, rows_sigma)  # type: ignore[arg-type]
                crossed += int((positive and lo < 0) or (negative and hi > 0))
            columns[f"{name}/{c}"] = {"draws": args.draws, "crossed_zero": crossed}
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    result = {
        "command": "PYTHONPATH=src python " + " ".join(sys.argv),
        "machine": {"platform": platform.platform(), "python": platform.python_version()},
        "veil_commit_at_run": commit,
        "summary": {
            "one_signed_columns": len(columns),
            "draws": sum(v["draws"] for v in columns.values()),
            "draws_crossing_zero": sum(v["crossed_zero"] for v in columns.values()),
        },
        "columns": columns,
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result["summary"]))


if __name__ == "__main__":
    main()
