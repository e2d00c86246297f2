"""Benchmark: the synthesizers on a public table veil did not generate (issue 28).

The table: Gapminder (1,704 rows: country-years 1952-2007), as shipped offline inside the
``plotly`` package (``plotly/package_data/datasets/gapminder.csv.gz``), without the
identifying columns (country, ISO codes, centroids): ``continent``, ``year``, ``lifeExp``,
``pop`` (population, very long-tailed) and ``gdpPercap`` (long-tailed). Shuffled with seed
0; the first 1,400 rows train, the other 304 are the holdout; train-on-synthetic AUC on
``continent`` (one-vs-rest macro AUC, 5 classes).

The public domain declared in the ``declared`` runs is general knowledge, not read from the
table: years 1950-2010, life expectancy 0-100, population 0-2e9, GDP per head 0-200,000,
the five continents. Run::

    PYTHONPATH=src python benchmarks/synth_public.py

It writes ``benchmarks/results/synth_public.json`` (same measures as
``benchmarks/synth_skewed.py``). The table is small for epsilon 1: expect noisier figures.

``--table breast_cancer``: a second public table, the Wisconsin diagnostic breast cancer
data as shipped offline inside scikit-learn (569 rows): the ten ``mean ...`` measurements
(areas up to 2,500, concavities with zeros) and the diagnosis, the target (binary AUC).
Shuffled with seed 0; 460 rows train, 109 are the holdout. No public domain is declared
for it (the measurements' ranges are not general knowledge): MST and AIM run with the
domain estimated under DP only.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from synth_skewed import MARGINAL, run, summarize

RESULTS = Path(__file__).parent / "results"
NUMERIC = ["year", "lifeExp", "pop", "gdpPercap"]
PUBLIC = {
    "bounds": {
        "year": [1950, 2010],
        "lifeExp": [0, 100],
        "pop": [0, 2_000_000_000],
        "gdpPercap": [0, 200_000],
    },
    "categories": {"continent": ["Africa", "Americas", "Asia", "Europe", "Oceania"]},
}


BREAST = [
    "mean radius",
    "mean texture",
    "mean perimeter",
    "mean area",
    "mean smoothness",
    "mean compactness",
    "mean concavity",
    "mean concave points",
    "mean symmetry",
    "mean fractal dimension",
]


def load_breast_cancer() -> pd.DataFrame:
    from sklearn.datasets import load_breast_cancer as _load

    frame = _load(as_frame=True).frame
    df = frame[BREAST].copy()
    df["diagnosis"] = frame["target"].map({0: "malignant", 1: "benign"})
    return df.sample(frac=1, random_state=0).reset_index(drop=True)


TABLES: dict[str, dict[str, Any]] = {
    "gapminder": {"numeric": NUMERIC, "target": "continent", "train": 1400},
    "breast_cancer": {"numeric": BREAST, "target": "diagnosis", "train": 460},
}


def load() -> pd.DataFrame:
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "datasets" / "gapminder.csv.gz"
    df = pd.read_csv(path)[["continent", *NUMERIC]]
    return df.sample(frac=1, random_state=0).reset_index(drop=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--methods", default="copula,mst,aim")
    ap.add_argument("--out", default=str(RESULTS / "synth_public.json"))
    ap.add_argument("--seeds", default="0", help="comma-separated seeds, one run each")
    ap.add_argument("--table", default="gapminder", choices=sorted(TABLES))
    ap.add_argument("--domains", default="declared,dp", help="mst/aim: which domains to run")
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    table = TABLES[args.table]
    df = load() if args.table == "gapminder" else load_breast_cancer()
    public = PUBLIC if args.table == "gapminder" else None
    n = table["train"]
    train, hold = df.iloc[:n].reset_index(drop=True), df.iloc[n:].reset_index(drop=True)
    runs = []
    seeds = [int(s) for s in args.seeds.split(",")]
    for method in args.methods.split(","):
        domains = args.domains.split(",") if method in MARGINAL else ["data"]
        if public is None:  # no public domain to declare
            domains = [d for d in domains if d != "declared"]
        for domain in domains:
            for seed in seeds:
                r = run(
                    method,
                    domain,
                    train,
                    hold,
                    seed,
                    numeric=table["numeric"],
                    target=table["target"],
                    public=public,
                )
                r = {"seed": seed, **r}
                runs.append(r)
                print(
                    f"{method:8s} {r['domain']:9s} seed {seed} quality {r['quality']['score']:.3f} (all pairs "
                    f"{r['quality']['score_all_pairs']:.3f})  numeric KS compl. "
                    + " ".join(f"{c} {v['ks_complement']:.3f}" for c, v in r["numeric"].items())
                    + f"  AUC {r['ml_efficacy']['synthetic_auc']:.3f} "
                    f"(real {r['ml_efficacy']['real_auc']:.3f})",
                    flush=True,
                )
    result = {
        "command": "PYTHONPATH=src python " + " ".join(sys.argv),
        "machine": {"platform": platform.platform(), "python": platform.python_version()},
        "setup": {
            "table": (
                "gapminder (plotly package data), continent/year/lifeExp/pop/gdpPercap"
                if args.table == "gapminder"
                else "breast_cancer (scikit-learn package data), the ten mean measurements"
                " and the diagnosis"
            ),
            "train_rows": len(train),
            "holdout_rows": len(hold),
            "target": table["target"],
            "epsilon": 1.0,
            "public_domain": public,
        },
        "summary": summarize(runs),
        "runs": runs,
    }
    out = Path(args.out)
    out.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
