"""Release leak scan speed (veil.audit.scan_release) on the demo table and larger tables.

Run from the repository root::

    PYTHONPATH=src python benchmarks/leak_scan.py [--repeat 3]

Writes ``benchmarks/results/leak_scan.json``. Cases:

* ``demo_notes_unredacted``: the demo's whole table (UCI Adult with generated identifiers)
  after its field transforms, with the notes as written: every note names its row, the worst
  case (tens of thousands of hits);
* ``clean_50k`` / ``clean_100k``: distinct names and e-mail addresses, notes of ordinary
  words and numbers, one planted cross-row leak: the common case of a release that passes.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _timing import best_of
from veil.audit import ReleasedTable, scan_release
from veil.policy import parse_policy

OUT = Path(__file__).parent / "results" / "leak_scan.json"


def _demo_case() -> tuple[Any, pd.DataFrame, pd.DataFrame]:
    import os

    from veil.demo import demo_frame, demo_policy
    from veil.pipeline import RunContext
    from veil.tabular._stage import TransformStage

    os.environ.setdefault("VEIL_HMAC_KEY", "6b" * 32)
    os.environ.setdefault("VEIL_FPE_KEY", "3c" * 16)
    os.environ.setdefault("VEIL_FPE_TWEAK", "1a" * 7)
    policy = demo_policy(Path("/tmp/veil-leak-bench"), dp=False)
    df = demo_frame(None)
    ctx = RunContext(policy=policy, original=df, data=df.copy(deep=False))
    TransformStage().run(ctx)
    return policy, df, ctx.data


def _clean_case(n: int) -> tuple[Any, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(0)
    first = np.array([f"Given{i:03d}" for i in range(400)])
    last = np.array([f"Family{i:03d}" for i in range(600)])
    names = [f"{a} {b}" for a, b in zip(rng.choice(first, n), rng.choice(last, n), strict=True)]
    emails = [f"user{i}@corp.example" for i in range(n)]
    notes = [f"Visit {i} went fine; follow up on day {i % 30} with the clinic." for i in range(n)]
    notes[123] = f"forward to {emails[4567]}"
    df = pd.DataFrame({"name": names, "email": emails, "notes": notes})
    policy = parse_policy(
        {
            "data": {"path": "x.csv"},
            "columns": {
                "name": {"role": "identifier", "action": "drop"},
                "email": {"role": "identifier", "action": "drop"},
                "notes": {"role": "text"},
            },
        }
    )
    return policy, df, df[["notes"]]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, Any] = {}
    for label, build in (
        ("demo_notes_unredacted", _demo_case),
        ("clean_50k", lambda: _clean_case(50_000)),
        ("clean_100k", lambda: _clean_case(100_000)),
    ):
        policy, original, released = build()
        tables = [ReleasedTable("", released, np.arange(len(released)))]
        seconds, scan = best_of(
            lambda p=policy, o=original, t=tables: scan_release(p, o, t), args.repeat
        )
        results[label] = {
            "rows": len(original),
            "released_columns": len(released.columns),
            "seconds": round(seconds, 3),
            "hits": scan.hits,
            "same_row": scan.same_row,
            "cross_row": scan.cross_row,
            "values_scanned": scan.values_scanned,
        }
        print(label, results[label], flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps(
            {
                "benchmark": "leak_scan",
                "command": f"PYTHONPATH=src python benchmarks/leak_scan.py --repeat {args.repeat}",
                "python": platform.python_version(),
                "machine": platform.machine(),
                "repeat": args.repeat,
                "note": "best of repeat; measured on a shared 2-core machine under load",
                "cases": results,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
