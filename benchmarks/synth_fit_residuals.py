"""Diagnostic and ablation: how close MST's and AIM's fitted model comes to its measurements.

Every measurement ``m`` of a marginal (or of a coarse triple) is a noisy vector ``y`` with
Gaussian noise of standard deviation ``m.stddev``; the fitted model gives the same query a
value ``f``. The residual ``(f - y) / stddev`` is in units of noise sd: a model fitted to
convergence leaves residuals of about the noise (RMS near 1 or below, since the model can
absorb part of the noise; the largest over hundreds of cells a few sd). A residual of many
sd means the mirror descent stopped short. For every model fit of a run (AIM re-fits once a
round) this script records, per measurement, the largest and the RMS residual in sd.

It runs each (method, domain, step rule, seed) with the step rule of
``veil.synth._marginal._MarginalSynthesizer._estimate`` set by ``FIT_STEP``: ``fixed``
(mbi's ``2 / (L * total)``) or ``armijo`` (mbi's Armijo step search), and reports fit CPU
seconds (the residual computation excluded), quality (sdmetrics' definitions) and, where the
table has a holdout, the train-on-synthetic AUC, as ``benchmarks/synth_skewed.py`` does.

Tables: ``adult`` (the split of ``benchmarks/synth_adult.py``, target ``salary-class``; DP
domains only, as it has no declared public domain), ``skewed`` (``benchmarks/synth_skewed.py``,
declared and DP domains), ``diamonds`` and ``cps1988`` (``benchmarks/synth_public.py``,
CSVs in ``--csv-dir``), and any table of ``benchmarks/synth_sweep.py`` (DP domains, no
holdout: quality only; CSVs in ``--sweep-dir``). Example::

    PYTHONPATH=src python benchmarks/synth_fit_residuals.py --table adult --methods aim \\
        --steps fixed,armijo --seeds 0,1 --out benchmarks/results/synth_fit_adult_armijo28.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import synth_public as sp
import synth_skewed as sk
import synth_sweep as sw
import veil.synth._marginal as marginal
from veil.synth._marginal import fit_residuals

RESULTS = Path(__file__).parent / "results"
ADULT_TARGET = "salary-class"

FITS: list[dict[str, Any]] = []  # the model fits of the current run
DIAG_CPU = [0.0]  # CPU seconds spent on residuals (taken out of the fit's)


def _recording() -> pytest.MonkeyPatch:
    mp = pytest.MonkeyPatch()
    original = marginal._MarginalSynthesizer._estimate

    def estimate(self: Any, mbi: Any, sizes: dict[str, int], ms: list[Any], warm: Any = None):  # type: ignore[no-untyped-def]
        model = original(self, mbi, sizes, ms, warm)
        c0 = time.process_time()
        res = fit_residuals(model, ms)
        worst = max(res, key=lambda r: r["max_sd"])
        FITS.append(
            {
                "measurements": len(ms),
                "max_sd": worst["max_sd"],
                "worst": worst["clique"],
                "rms_sd_mean": round(float(np.mean([r["rms_sd"] for r in res])), 3),
                "rms_sd_max": max(r["rms_sd"] for r in res),
                "residuals": res,
            }
        )
        DIAG_CPU[0] += time.process_time() - c0
        return model

    mp.setattr(marginal._MarginalSynthesizer, "_estimate", estimate)
    return mp


def load(args: argparse.Namespace) -> dict[str, Any]:
    """The table: train, holdout (or None), numeric columns, target, public domain."""
    if args.table == "adult":
        from veil.data import adult_frame

        df = adult_frame().sample(frac=1, random_state=0).reset_index(drop=True)
        train, hold = df.iloc[:25_162].reset_index(drop=True), df.iloc[25_162:]
        numeric = [
            c for c in df.columns if c != ADULT_TARGET and pd.api.types.is_numeric_dtype(df[c])
        ]
        return {
            "train": train,
            "hold": hold.reset_index(drop=True),
            "numeric": numeric,
            "target": ADULT_TARGET,
            "public": None,
        }
    if args.table == "skewed":
        df = sk.skewed_table(48_000, seed=0).drop(columns=["zip3"])
        return {
            "train": df.iloc[:40_000].reset_index(drop=True),
            "hold": df.iloc[40_000:].reset_index(drop=True),
            "numeric": sk.NUMERIC,
            "target": sk.TARGET,
            "public": sk.DOMAIN,
        }
    if args.table in ("diamonds", "cps1988"):
        table = sp.TABLES[args.table]
        cols = [*table["numeric"], *table["categorical"]]
        df = sp.load_csv(Path(args.csv_dir) / table["file"], cols)
        n = table["train"]
        return {
            "train": df.iloc[:n].reset_index(drop=True),
            "hold": df.iloc[n:].reset_index(drop=True),
            "numeric": table["numeric"],
            "target": table["target"],
            "public": table.get("public"),
        }
    table = sw.TABLES[args.table]
    df = sw.load(table, Path(args.sweep_dir), args.max_rows)
    return {"train": df, "hold": None, "numeric": table["numeric"], "target": None, "public": None}


def one(data: dict[str, Any], method: str, domain: str, seed: int, table: str) -> dict[str, Any]:
    FITS.clear()
    DIAG_CPU[0] = 0.0
    if data["hold"] is None:
        r = sw.run(method, data["train"], data["numeric"], seed)
        out = {
            "fit_cpu_s": r["fit_cpu_s"],
            "quality": r["quality"],
            "quality_all_pairs": r["quality_all_pairs"],
            "worst_numeric": r["worst_numeric"],
        }
    else:
        r = sk.run(
            method,
            domain,
            data["train"],
            data["hold"],
            seed,
            numeric=data["numeric"],
            target=data["target"],
            public=data["public"],
        )
        out = {
            "fit_cpu_s": r["fit_cpu_s"],
            "quality": r["quality"]["score"],
            "quality_all_pairs": r["quality"]["score_all_pairs"],
            "min_numeric_ks_complement": min(v["ks_complement"] for v in r["numeric"].values()),
            "synthetic_auc": r["ml_efficacy"]["synthetic_auc"],
            "real_auc": r["ml_efficacy"]["real_auc"],
            "auc_gap": r["ml_efficacy"]["gap"],
        }
    diag = DIAG_CPU[0]
    out["fit_cpu_s"] = round(out["fit_cpu_s"] - diag, 2)
    out["residual_cpu_s"] = round(diag, 2)
    out["fits"] = list(FITS)
    final = FITS[-1]
    out["final_fit"] = {k: final[k] for k in ("max_sd", "worst", "rms_sd_mean", "rms_sd_max")}
    return out


def summarize(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    keys = sorted({(r["method"], r["domain"], r["step"]) for r in runs})
    rows = []
    for method, domain, step in keys:
        rs = [r for r in runs if (r["method"], r["domain"], r["step"]) == (method, domain, step)]
        row: dict[str, Any] = {
            "method": method,
            "domain": domain,
            "step": step,
            "seeds": [r["seed"] for r in rs],
            "fit_cpu_s_mean": round(float(np.mean([r["fit_cpu_s"] for r in rs])), 2),
            "quality_mean": round(float(np.mean([r["quality"] for r in rs])), 4),
            "final_fit_max_sd": max(r["final_fit"]["max_sd"] for r in rs),
            "final_fit_rms_sd_mean": round(
                float(np.mean([r["final_fit"]["rms_sd_mean"] for r in rs])), 3
            ),
        }
        if "auc_gap" in rs[0]:
            row["synthetic_auc_mean"] = round(float(np.mean([r["synthetic_auc"] for r in rs])), 4)
            row["auc_gap_mean"] = round(float(np.mean([r["auc_gap"] for r in rs])), 4)
        rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--table", required=True, help="adult, skewed, diamonds, cps1988 or a sweep table"
    )
    ap.add_argument("--methods", default="mst,aim")
    ap.add_argument("--steps", default="fixed,armijo")
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--domains", default="declared,dp", help="those the table allows are run")
    ap.add_argument("--csv-dir", default="/tmp/synth_tables")
    ap.add_argument("--sweep-dir", default="/tmp/sweep28_tables")
    ap.add_argument("--max-rows", type=int, default=20_000)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    known = {"adult", "skewed", "diamonds", "cps1988", *sw.TABLES}
    if args.table not in known:
        ap.error(f"--table: one of {sorted(known)}")
    data = load(args)
    domains = [d for d in args.domains.split(",") if d == "dp" or data["public"] is not None]
    mp = _recording()
    runs = []
    try:
        for method, domain, step, seed in itertools.product(
            args.methods.split(","),
            domains,
            args.steps.split(","),
            [int(s) for s in args.seeds.split(",")],
        ):
            mp.setattr(marginal, "FIT_STEP", step)
            r = {"method": method, "domain": domain, "step": step, "seed": seed}
            r.update(one(data, method, domain, seed, args.table))
            runs.append(r)
            print(
                f"{args.table} {method} {domain} {step:6s} seed {seed}: fit {r['fit_cpu_s']:.1f}"
                f" CPU s, quality {r['quality']:.3f}"
                + (f", AUC gap {r['auc_gap']:.3f}" if "auc_gap" in r else "")
                + f"; final fit max {r['final_fit']['max_sd']:.1f} sd ({r['final_fit']['worst']})"
                f", mean RMS {r['final_fit']['rms_sd_mean']:.2f} sd",
                flush=True,
            )
    finally:
        mp.undo()
    result = {
        "command": "PYTHONPATH=src python " + " ".join(sys.argv),
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        },
        "setup": {
            "table": args.table,
            "epsilon": 1.0,
            "iters": 5000,
            "residual": "(model query - noisy measurement) / noise sd, per cell",
        },
        "summary": summarize(runs),
        "runs": runs,
    }
    Path(args.out).write_text(json.dumps(result, indent=1, default=str))
    print(json.dumps(result["summary"], indent=1))


if __name__ == "__main__":
    main()
