"""Benchmark: the DP domain and discretization of numeric columns alone, on seeded noise.

MST and AIM runs draw their noise from OpenDP, unseeded, so two runs of the same code on a
small table differ by more than most changes to the domain rules. This replays only the
stages that place a numeric column's values, with a seeded Gaussian of the same scale as
the fit's (epsilon 1, delta 1e-9, half of it for the category lists' thresholds, the budget split
of ``veil.synth._marginal``):

1. the noisy row count and the DP bounds (:func:`veil.synth._domain.dp_bounds`);
2. the noisy fine histogram and the bins (:meth:`veil.synth._discretize.Discretizer.build`);
3. a noisy one-way marginal of the coarse bins (AIM's noise, sd from its 10 % share),
   which calibrates the tails (:meth:`~veil.synth._discretize.Discretizer.calibrate`);
4. rows drawn from that one-way marginal (clipped at zero; a stand-in for the model) and
   decoded.

Draw ``i`` uses the same noise under any version of the code that makes the same
measurements, so ``PYTHONPATH=/other/src`` runs the same draws against other code (a
before/after comparison on identical noise). Per column: the KS complement of the decoded
values against the training column (mean and worst over the draws), the share of values
clipped by the bounds, the largest upper bound and synthetic maximum over the real
maximum, how many draws' upper bound exceeds 4 times the real maximum, and the share of
synthetic values outside the training column's range (``outside_share_*``: values a user
sees as impossible, an age under the study's youngest or a year after its last; they also
move sdmetrics' pair bins, cut at each table's own minimum and maximum).

Tables: the ``synth_public.py`` ones (``--csv-dir``, default /tmp/synth_tables), the
``synth_sweep.py`` ones (``--sweep-dir``, default /tmp/sweep28_tables; capped at 20,000 rows
as the sweep fits them) and the generated skewed table. Run::

    PYTHONPATH=src python benchmarks/synth_domain_sim.py --tables nmes1988,medexp --draws 60
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import ks_2samp

sys.path.insert(0, str(Path(__file__).parent))
from _skewed import skewed_table
from synth_public import NUMERIC, TABLES, load_csv
from synth_public import load as load_gapminder
from synth_sweep import TABLES as SWEEP
from synth_sweep import load as load_sweep
from veil.synth._discretize import Discretizer
from veil.synth._domain import dp_bounds
from veil.synth._marginal import _rows_sigma
from veil.synth._noise import rho_for
from veil.synth._schema import infer_schema

RESULTS = Path(__file__).parent / "results"


class SeededNoise:
    """A Gaussian of the requested scale from a seeded generator (benchmarks only: the
    synthesizers draw theirs from OpenDP)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def gaussian(self, counts: np.ndarray, sigma: float, what: str = "") -> np.ndarray:
        c = np.asarray(counts, dtype=float)
        return c + self.rng.normal(0.0, sigma, c.shape)


def load(name: str, csv_dir: Path, sweep_dir: Path) -> tuple[pd.DataFrame, list[str], int]:
    """(training rows, numeric columns, modelled columns) as the ``dp`` runs of
    ``synth_public.py``, ``synth_sweep.py`` and ``synth_skewed.py`` fit them (every domain
    estimated)."""
    if name == "skewed":
        df = skewed_table(48_000, 0).iloc[:40_000]
        return df, ["age", "stay", "charges", "procedures"], 9
    if name == "gapminder":
        return load_gapminder().iloc[:1400], list(NUMERIC), 5
    if name in SWEEP:
        st = SWEEP[name]
        df = load_sweep(st, sweep_dir, 20_000)
        return df, list(st["numeric"]), len(st["numeric"]) + len(st["categorical"])
    t = TABLES[name]
    cols = [*t["numeric"], *t["categorical"]]
    df = load_csv(csv_dir / t["file"], cols).iloc[: t["train"]]
    return df, list(t["numeric"]), len(cols)


def column(x: pd.DataFrame, c: str, draws: int, p: dict[str, float]) -> dict[str, Any]:
    vals = x[c].dropna().to_numpy(dtype=float)
    out = []
    for i in range(draws):
        noise = SeededNoise(1000 * i + 7)
        rows = len(x) + float(noise.gaussian(np.zeros(1), p["rows_sigma"])[0])
        schema = infer_schema(x[[c]])
        spec = schema[c]
        lo, hi, clipped = dp_bounds(
            vals, spec.kind, p["sigma"], noise, "bounds", rows, p["rows_sigma"]
        )  # type: ignore[arg-type]
        spec.low, spec.high = lo, hi
        disc = Discretizer.build(
            schema,
            x[[c]],
            max_bins=int(p["bins"]),
            budget=noise,  # type: ignore[arg-type]
            sigmas={c: p["sigma"]},
            missing_code=True,
            rows=rows,
        )
        col = disc.columns[0]
        true = np.bincount(disc.encode(x[[c]], schema)[c], minlength=col["size"]).astype(float)
        one_way = noise.gaussian(true, p["one_way_sigma"])
        disc.calibrate({c: (one_way, p["one_way_sigma"])})
        rng = np.random.default_rng(i)
        w = np.clip(one_way, 0.0, None)
        codes = rng.choice(len(w), size=len(vals), p=w / w.sum())
        syn = disc.decode({c: codes}, schema, rng)[c].to_numpy(dtype=float)
        syn = syn[~np.isnan(syn)]
        out.append(
            {
                "hi": hi,
                "clipped": clipped / len(vals),
                "ks": 1.0 - float(ks_2samp(vals, syn).statistic),
                "max": float(syn.max()),
                "outside": float(((syn < vals.min()) | (syn > vals.max())).mean()),
            }
        )
    r = pd.DataFrame(out)
    top = float(vals.max())
    return {
        "ks_complement_mean": round(float(r.ks.mean()), 4),
        "ks_complement_min": round(float(r.ks.min()), 4),
        "clipped_share_mean": round(float(r.clipped.mean()), 4),
        "upper_bound_over_real_max_max": round(float(r.hi.max()) / top, 2),
        "draws_upper_bound_over_4x_real_max": int((r.hi > 4 * top).sum()),
        "synthetic_max_over_real_max_median": round(float(r["max"].median()) / top, 2),
        "synthetic_max_over_real_max_max": round(float(r["max"].max()) / top, 2),
        "outside_share_mean": round(float(r.outside.mean()), 4),
        "outside_share_max": round(float(r.outside.max()), 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", default="nmes1988,medexp")
    ap.add_argument("--draws", type=int, default=60)
    ap.add_argument("--csv-dir", default="/tmp/synth_tables")
    ap.add_argument("--sweep-dir", default="/tmp/sweep28_tables")
    ap.add_argument("--out", default=str(RESULTS / "synth_domain_sim.json"))
    args = ap.parse_args()
    result: dict[str, Any] = {
        "command": "PYTHONPATH=src python " + " ".join(sys.argv),
        "machine": {"platform": platform.platform(), "python": platform.python_version()},
        "draws": args.draws,
        "tables": {},
    }
    for name in args.tables.split(","):
        df, numeric, modelled = load(name, Path(args.csv_dir), Path(args.sweep_dir))
        # every column's domain estimated; a categorical one's stability histogram takes
        # half of delta (all these tables have one)
        needs = modelled
        rho = rho_for(1.0, 0.5e-9)
        rho_domain = rho * 0.1 * needs / modelled
        rho_col = rho_domain * 0.95 / needs
        rho_model = rho - rho_domain
        pair_sd = math.sqrt((modelled - 1) / (2 * rho_model / 3))
        p = {
            "sigma": math.sqrt(1 / (2 * rho_col / 2)),
            "rows_sigma": _rows_sigma(rho_domain),  # the fit's own formula
            "one_way_sigma": math.sqrt(modelled / (2 * 0.1 * rho_model)),
            "bins": min(max(math.floor(math.sqrt(len(df) / (0.5 * pair_sd))), 4), 32),
        }
        cols = {}
        for c in numeric:
            cols[c] = column(df, c, args.draws, p)
            print(name, c, json.dumps(cols[c]), flush=True)
        result["tables"][name] = {
            "rows": len(df),
            "noise": {k: round(v, 2) for k, v in p.items()},
            "columns": cols,
        }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
