"""How far sdmetrics' quality score turns on one value: the synthetic table's maximum.

sdmetrics cuts a numeric column into 10 equal bins between *each table's own* minimum and
maximum when it scores a pair with a categorical column. This takes the skewed table's
training rows (``benchmarks/_skewed.py``) as both the real and the "synthetic" table, and
changes only the synthetic longest stays: every stay above ``m`` set to ``m`` and one row
set to ``m`` (so the synthetic maximum is exactly ``m``; the real one is 20), then the
same for age (one row set to ``m``; the real maximum is 99). A perfect copy scores 1.0. Run::

    PYTHONPATH=src python benchmarks/synth_max_sensitivity.py

It writes ``benchmarks/results/synth_max_sensitivity.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _skewed import skewed_table
from veil.synth._quality import quality_report

RESULTS = Path(__file__).parent / "results"


def _scores(real: Any, synthetic: Any) -> dict[str, Any]:
    q = quality_report(real, synthetic)
    pairs = {
        "/".join(p["columns"]): p["score"]
        for p in q["details"]["column_pair_trends"]
        if p["score"] is not None
    }
    return {"quality": q["score"], "pairs": pairs}


def main() -> None:
    df = skewed_table(48_000, seed=0).drop(columns=["zip3"])
    train = df.iloc[:40_000].reset_index(drop=True)
    stay: dict[str, Any] = {}
    for m in (16, 18, 19, 20, 21, 22, 24, 28):
        s = train.copy()
        s.loc[s["stay"] > m, "stay"] = m
        s.loc[0, "stay"] = m
        stay[str(m)] = _scores(train, s)
    age: dict[str, Any] = {}
    for m in (99, 100, 101, 104, 110):
        s = train.copy()
        s.loc[0, "age"] = m
        age[str(m)] = _scores(train, s)
    out = {
        "command": "PYTHONPATH=src python " + " ".join(sys.argv),
        "real_max": {"stay": int(train["stay"].max()), "age": int(train["age"].max())},
        "synthetic_stay_max": stay,
        "synthetic_age_max": age,
    }
    path = RESULTS / "synth_max_sensitivity.json"
    path.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    for k, v in stay.items():
        print("stay max", k, round(v["quality"], 3), v["pairs"])


if __name__ == "__main__":
    main()
