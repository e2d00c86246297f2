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
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
from pathlib import Path

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
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    df = load()
    train, hold = df.iloc[:1400].reset_index(drop=True), df.iloc[1400:].reset_index(drop=True)
    runs = []
    seeds = [int(s) for s in args.seeds.split(",")]
    for method in args.methods.split(","):
        for domain in ["declared", "dp"] if method in MARGINAL else ["data"]:
            for seed in seeds:
                r = run(
                    method,
                    domain,
                    train,
                    hold,
                    seed,
                    numeric=NUMERIC,
                    target="continent",
                    public=PUBLIC,
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
            "table": "gapminder (plotly package data), continent/year/lifeExp/pop/gdpPercap",
            "train_rows": len(train),
            "holdout_rows": len(hold),
            "target": "continent",
            "epsilon": 1.0,
            "public_domain": PUBLIC,
        },
        "summary": summarize(runs),
        "runs": runs,
    }
    out = Path(args.out)
    out.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
