"""``veil.synth`` exports a sorted ``__all__`` and loads no heavy dependency at import."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import veil.synth


def test_all_is_sorted_and_complete() -> None:
    assert veil.synth.__all__ == sorted(veil.synth.__all__)
    for name in veil.synth.__all__:
        assert hasattr(veil.synth, name)


def test_import_is_light() -> None:
    code = (
        "import sys, veil.synth, veil.cli._app\n"
        "heavy = [m for m in ('jax', 'mbi', 'torch', 'opacus', 'opendp', 'sklearn') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    src = str(Path(veil.synth.__file__).parents[2])
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == ""
