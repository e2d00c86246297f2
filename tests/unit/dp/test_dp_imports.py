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
