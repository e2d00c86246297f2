"""Client-level DP's noise multiplier under the RDP and PRV accountants (no training).

For the command's schedule (``--rounds 20``, every client in every round, delta 1e-5) and
epsilon 1, 3 and 8: the multiplier each accountant calibrates (``client_noise``, what ``veil
fl simulate --dp client [--accountant prv]`` adds), the epsilon it reports, and the exact
epsilon of that multiplier: with no subsampling the rounds compose into one Gaussian
mechanism of ``mu = sqrt(rounds) / z`` (computed with scipy, independent of Opacus). A
``--fraction-fit 0.5`` row is given too (subsampled: no closed form, the accountants only).

Run: ``PYTHONPATH=src python benchmarks/fl_accountants.py``; writes
``benchmarks/results/fl_accountants.json``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from scipy.stats import norm

from veil.federated import FLConfig
from veil.federated._simulate import client_noise

OUT = Path(__file__).parent / "results" / "fl_accountants.json"


def exact_epsilon(z: float, rounds: int, delta: float) -> float:
    mu = math.sqrt(rounds) / z
    lo, hi = 0.0, 100.0
    for _ in range(200):
        mid = (lo + hi) / 2
        d = norm.cdf(-mid / mu + mu / 2) - math.exp(mid) * norm.cdf(-mid / mu - mu / 2)
        lo, hi = (mid, hi) if d > delta else (lo, mid)
    return hi


def main() -> None:
    rows = []
    for q in (1.0, 0.5):
        for eps in (1.0, 3.0, 8.0):
            row: dict[str, object] = {"epsilon": eps, "fraction_fit": q, "rounds": 20}
            for acc in ("rdp", "prv"):
                cfg = FLConfig(rounds=20, dp="client", epsilon=eps, fraction_fit=q, accountant=acc)
                z, spent = client_noise(cfg)
                row[acc] = {"noise_multiplier": round(z, 4), "epsilon_reported": round(spent, 4)}
                if q == 1.0:
                    row[acc]["epsilon_exact"] = round(exact_epsilon(z, 20, cfg.delta), 4)  # type: ignore[index]
            row["prv_noise_over_rdp"] = round(
                row["prv"]["noise_multiplier"] / row["rdp"]["noise_multiplier"],  # type: ignore[index]
                4,
            )
            rows.append(row)
            print(json.dumps(row))
    OUT.write_text(
        json.dumps(
            {
                "benchmark": "fl_accountants",
                "command": "PYTHONPATH=src python benchmarks/fl_accountants.py",
                "delta": 1e-5,
                "rows": rows,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
