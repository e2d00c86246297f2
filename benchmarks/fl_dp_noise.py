"""Client-level DP's noise against the largest mean update, by number of clients (no training).

With ``--dp client`` each client clips its update to L2 norm ``C`` and the server adds
Gaussian noise of standard deviation ``z x C`` to every coordinate of the sum, then divides by
the ``n`` participants. The mean of the clipped updates has norm at most ``C``; the noise on
it has norm about ``z x C x sqrt(d) / n`` for a model of ``d`` parameters. So
``z x sqrt(d) / n`` is how many times the largest possible mean update the noise is, every
round. ``z`` comes from veil's RDP calibration for issue #26's setting (epsilon 3, delta
1e-5, 20 rounds, every client in every round: no sampling amplification), ``d`` from the
models ``veil fl simulate`` builds on Adult.

Run: ``PYTHONPATH=src python benchmarks/fl_dp_noise.py``; writes
``benchmarks/results/fl_dp_noise.json``.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from fl_accuracy import SHARED, SHIPPED

OUT = Path(__file__).parent / "results" / "fl_dp_noise.json"


def main() -> None:
    import pandas as pd

    from veil.federated import FLConfig
    from veil.federated._model import fresh_model, prepare
    from veil.train import calibrate_noise

    data = SHARED if SHARED.exists() else SHIPPED
    frame = pd.read_csv(data, sep=None, engine="python")
    epsilon, delta, rounds = 3.0, 1e-5, 20
    z = calibrate_noise(
        epsilon=epsilon,
        delta=delta,
        sample_rate=1.0,
        steps=rounds,
        accountant="rdp",
        compare_rdp=False,
    ).noise_multiplier
    out: dict[str, object] = {
        "benchmark": "fl_dp_noise",
        "data": str(data),
        "epsilon": epsilon,
        "delta": delta,
        "rounds": rounds,
        "noise_multiplier": z,
        "models": {},
    }
    for model in ("logistic", "mlp"):
        fl = prepare(frame, "salary-class", FLConfig(clients=10, model=model), ())
        d = sum(p.numel() for p in fresh_model(fl.arch, fl.init_seed, model).parameters())
        out["models"][model] = {  # type: ignore[index]
            "parameters": d,
            "noise_norm_over_largest_mean_update": {
                str(n): z * math.sqrt(d) / n for n in (10, 50, 100)
            },
        }
    OUT.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
