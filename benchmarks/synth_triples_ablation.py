"""Benchmark: what in MST with target triples moves diamonds' figures (issue 28).

Three checks behind docs/synthetic-data.md's "Target triples on coarse groups", each MST
with the target ``cut`` on diamonds (45,000 training rows, DP domains), measured as
``benchmarks/synth_public.py`` measures (the same ``run``):

- ``armijo``: MST with the target and *no* triples, but with mbi's Armijo step search
  forced, as fits with triples use it: how much of the triples' quality gain is the search;
- ``eps100``: MST with triples at epsilon 100 (8 groups: the noise almost gone): what the
  triples can do where the noise does not limit them;
- ``cell_noise4``: MST with triples, the group rule's constant at 4 noise sd instead of 8
  (more, smaller groups).

``--table cps1988`` runs the same checks on CPS1988 (target ``parttime``).

Run (the CSV as for ``synth_public.py --table diamonds``)::

    PYTHONPATH=src python benchmarks/synth_triples_ablation.py --seeds 0,1 --out benchmarks/results/synth_triples_ablation_triples28.json
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import synth_public as sp
import veil.synth._coarse as coarse
import veil.synth._marginal as marginal
from synth_skewed import run, summarize


@contextmanager
def _armijo() -> Iterator[None]:
    """Every fit uses mbi's Armijo step search (as fits with coarse triples do)."""

    def estimate(self: Any, mbi: Any, sizes: dict[str, int], ms: list[Any], warm: Any = None):  # type: ignore[no-untyped-def]
        domain = mbi.Domain(list(sizes), [sizes[c] for c in sizes])
        total = mbi.estimation.minimum_variance_unbiased_total(ms)
        loss_fn = mbi.marginal_loss.from_linear_measurements(ms, domain)
        est = mbi.estimation.MirrorDescent()
        return est.estimate(domain, loss_fn, known_total=total, iters=self.iters, warm_start=warm)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(marginal._MarginalSynthesizer, "_estimate", estimate)
        yield


@contextmanager
def _cell_noise(value: float) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(coarse, "TRIPLE_CELL_NOISE", value)
        yield


CHECKS = {
    "armijo": ("mst_target", 1.0, _armijo),
    "eps100": ("mst_triples", 100.0, None),
    "cell_noise4": ("mst_triples", 1.0, lambda: _cell_noise(4.0)),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--checks", default=",".join(CHECKS))
    ap.add_argument("--table", default="diamonds", choices=["diamonds", "cps1988"])
    ap.add_argument("--csv-dir", default="/tmp/synth_tables")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    table = sp.TABLES[args.table]
    df = sp.load_csv(Path(args.csv_dir) / table["file"], [*table["numeric"], *table["categorical"]])
    n = table["train"]
    train, hold = df.iloc[:n].reset_index(drop=True), df.iloc[n:].reset_index(drop=True)
    out: dict[str, Any] = {"command": "PYTHONPATH=src python " + " ".join(sys.argv), "checks": {}}
    for name in args.checks.split(","):
        method, epsilon, ctx = CHECKS[name]
        runs = []
        for seed in (int(s) for s in args.seeds.split(",")):
            with ctx() if ctx is not None else _cell_noise(coarse.TRIPLE_CELL_NOISE):
                r = run(
                    method,
                    "dp",
                    train,
                    hold,
                    seed,
                    numeric=table["numeric"],
                    target=table["target"],
                    public=table["public"],
                    epsilon=epsilon,
                )
            runs.append({"seed": seed, **r})
            print(
                f"{name} seed {seed}: quality {r['quality']['score']:.3f} (all pairs "
                f"{r['quality']['score_all_pairs']:.3f}) AUC gap {r['ml_efficacy']['gap']:.4f} "
                f"fit {r['fit_cpu_s']:.1f} CPU s",
                flush=True,
            )
        out["checks"][name] = {
            "method": method,
            "epsilon": epsilon,
            "summary": summarize(runs)[0],
            "runs": [
                {k: r.get(k) for k in ("seed", "fit_cpu_s", "ml_efficacy", "domain_budget")}
                | {"quality": {k: r["quality"][k] for k in ("score", "score_all_pairs")}}
                for r in runs
            ],
        }
    Path(args.out).write_text(json.dumps(out, indent=2, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
