"""A separate process that spends from a ledger (driven by test_dp_ledger_concurrency.py).

Usage: python _dp_ledger_worker.py MODE URL PREFIX DATASET N EPSILON [MARKER]

MODE spend:  make N spends; print one JSON line per outcome ({"ok": id} / {"refused": 1} /
             {"error": type}) as soon as it is known, flushed.
MODE hang:   make one spend that stops inside its transaction (after the insert, before the
             commit), writes MARKER and sleeps: the test SIGKILLs it there.
MODE charge: reserve a spend with charge(), write MARKER with its id inside the block, sleep.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from veil import PrivacyBudgetExceeded
from veil._errors import LedgerUnavailableError
from veil.dp import BudgetLedger


def _main() -> None:
    mode, url, prefix, dataset, n, eps = sys.argv[1:7]
    marker = Path(sys.argv[7]) if len(sys.argv) > 7 else None
    ledger = BudgetLedger(url, table_prefix=prefix, busy_timeout=120)
    ledger.engine  # connect and create nothing new before the start line  # noqa: B018
    print(json.dumps({"ready": 1}), flush=True)
    go = os.environ.get("VEIL_TEST_GO")
    while go and not Path(go).exists():  # start line: all workers spend at the same moment
        time.sleep(0.005)
    if mode == "spend":
        for i in range(int(n)):
            try:
                s = ledger.spend(dataset, epsilon=float(eps), what=f"spend {i}", mechanism="test")
                print(json.dumps({"ok": s.id}), flush=True)
            except PrivacyBudgetExceeded:
                print(json.dumps({"refused": 1}), flush=True)
            except LedgerUnavailableError:
                print(json.dumps({"error": "unavailable"}), flush=True)
    elif mode == "hang":
        assert marker is not None

        def stop_here() -> None:
            marker.write_text("in transaction")
            time.sleep(600)

        ledger._before_commit = stop_here
        ledger.spend(dataset, epsilon=float(eps), what="killed mid-spend", mechanism="test")
    elif mode == "charge":
        assert marker is not None
        with ledger.charge(
            dataset, epsilon=float(eps), what="killed in body", mechanism="test"
        ) as s:
            marker.write_text(str(s.id))
            time.sleep(600)


if __name__ == "__main__":
    _main()
