"""``import veil.dp`` and the budget CLI stay light: no OpenDP, Opacus, torch or pandas."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src"


def test_veil_dp_import_is_light() -> None:
    code = (
        "import json, sys, warnings; warnings.simplefilter('ignore');"
        "import veil.dp, veil.dp._stage, veil.cli._budget, veil.cli._dp;"
        "print(json.dumps([m for m in ('opendp', 'opacus', 'torch') if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(SRC)},
    )
    assert json.loads(out.stdout) == []


def test_the_erasure_log_needs_only_the_database_helpers() -> None:
    """``veil unlearn`` uses veil.dp._store's engines, not the ledger, the query language
    (pydantic) or the statistics: ``veil.dp`` loads each name on first use."""
    code = (
        "import json, sys; import veil.unlearning, veil.cli._unlearn;"
        "print(json.dumps([m for m in ('pydantic', 'veil.dp._ledger', 'veil.dp._query',"
        " 'veil.dp._stats') if m in sys.modules]));"
        "import veil.dp; veil.dp.BudgetLedger;"
        "print(json.dumps('veil.dp._ledger' in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(SRC)},
    ).stdout.splitlines()
    assert json.loads(out[0]) == []
    assert json.loads(out[1]) is True
