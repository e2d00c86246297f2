"""Benchmark: how often the discretizer draws a sample year's rows over empty years.

``tests/unit/synth/test_sweep_shapes.py::test_years_inside_a_power_of_two_are_drawn_year_by_year``
builds a generated sample year (1995 to 2003, 8,000 rows, 44 % in 1996) inside the DP
bounds 1024-2048 with fresh OpenDP noise (sd 40 on the fine counts), calibrates it on
the exact one-way counts and decodes it. One build's KS complement is one draw of the
noise; this counts, over ``--builds`` builds, how many score under 0.95 and under 0.97,
and the lowest (docs/synthetic-data.md, "Runs of noise past the data"). The noise is
not seeded, so two runs differ by a few builds. Run::

    PYTHONPATH=src python benchmarks/synth_year_builds.py --builds 300 --out FILE

``PYTHONPATH=/other/src`` measures other code with the same script.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import ks_2samp

import veil
from veil.synth._discretize import Discretizer
from veil.synth._noise import ZCDPBudget
from veil.synth._schema import infer_schema

RESULTS = Path(__file__).parent / "results"


def _year_table() -> pd.DataFrame:
    """The test's column (generated; seed 0)."""
    rng = np.random.default_rng(0)
    years = np.arange(1995, 2004)
    p = np.array([16, 44, 17.5, 8.7, 4.4, 3.1, 2.2, 1.3, 2.8])
    return pd.DataFrame({"year": rng.choice(years, 8000, p=p / p.sum())})


def build_score(df: pd.DataFrame) -> float:
    """KS complement of one build (fresh noise), decoded with a fixed sampler seed."""
    schema = infer_schema(df, bounds={"year": (1024, 2048)})
    disc = Discretizer.build(schema, df, budget=ZCDPBudget(1.0), sigmas={"year": 40.0})
    codes = disc.encode(df, schema)
    one_way = {
        c["name"]: (np.bincount(codes[c["name"]], minlength=c["size"]).astype(float), 0.0)
        for c in disc.columns
    }
    disc.calibrate(one_way)
    out = disc.decode(codes, schema, np.random.default_rng(1))
    stat = ks_2samp(df["year"], out["year"].dropna(), method="asymp").statistic
    return float(1 - stat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builds", type=int, default=300)
    ap.add_argument("--out", default=str(RESULTS / "synth_year_builds.json"))
    args = ap.parse_args()
    df = _year_table()
    start = time.process_time()
    scores = np.array([build_score(df) for _ in range(args.builds)])
    code = Path(veil.__file__).resolve().parent
    commit = subprocess.run(
        ["git", "-C", str(code), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    result = {
        "command": f"PYTHONPATH={os.environ.get('PYTHONPATH', '')} python " + " ".join(sys.argv),
        "machine": {"platform": platform.platform(), "python": platform.python_version()},
        "veil_source": str(code),
        "veil_commit": commit,
        "builds": args.builds,
        "under_0_95": int((scores < 0.95).sum()),
        "under_0_97": int((scores < 0.97).sum()),
        "min_ks_complement": round(float(scores.min()), 4),
        "median_ks_complement": round(float(np.median(scores)), 4),
        "cpu_s": round(time.process_time() - start, 1),
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
