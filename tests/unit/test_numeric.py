"""Text read as numbers: the long exponents that crash pandas' parser (pandas GH 63650).

Each check runs in a child process: the bug is a segmentation fault, which would take the
test run down with it instead of failing one test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")

#: a hex digest whose prefix reads as 8e2569614270 (an exponent in [2**31, 2**32)), and
#: longer exponents; each took the process down in pd.to_numeric on pandas 2.3
CRASHERS = ["8e2569614270f3d8b9e7038efac9f116", "12e45678901234567890", "1E+4567890123456789"]


def _child(code: str) -> object:
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-800:]}"
    return json.loads(proc.stdout)


def test_coerce_numbers_survives_long_exponents() -> None:
    got = _child(
        "import json, math; from veil._numeric import coerce_numbers; "
        f"v = coerce_numbers({CRASHERS!r} + ['1.5', '2e3', None, 'x']).tolist(); "
        "print(json.dumps([None if isinstance(x, float) and math.isnan(x) else x for x in v]))"
    )
    assert got == [None, None, None, 1.5, 2000.0, None, None]


@pytest.mark.parametrize("dtype", ["object", "string", "category"])
def test_numeric_like_on_hashed_text_survives(dtype: str) -> None:
    # a column of hex digests (a hash transform's output) with the crashing ones among them
    got = _child(
        "import json, hashlib, pandas as pd; from veil.utility._categories import "
        "numeric_like, reduce_column; "
        f"vals = {CRASHERS!r} + [hashlib.sha256(str(i).encode()).hexdigest() for i in range(80)]; "
        f"s = pd.Series(vals, dtype={dtype!r}); "
        "print(json.dumps([numeric_like(s) is None, reduce_column(s)[1]]))"
    )
    assert got == [True, "top_values"]


def test_csv_with_long_exponent_cells_is_read(tmp_path: Path) -> None:
    # pandas' CSV reader died inferring these columns' types: veil reads them as text,
    # and every other column as before
    path = tmp_path / "t.csv"
    path.write_text(
        "digest,n,x\n8e2569614270f3d8b9e7038efac9f116,1,2.5\nff,3,4e4567890123\n"
        + "".join(f"{i:x},{i},{i}.5\n" for i in range(5000)),
        encoding="utf-8",
    )
    got = _child(
        "import json; from veil.io import read_table; "
        f"df = read_table({str(path)!r}); "
        "print(json.dumps([str(t) for t in df.dtypes] + [df.iloc[0, 0][:4], len(df)]))"
    )
    assert got == ["object", "int64", "object", "8e25", 5002]


def test_csv_without_long_exponents_keeps_its_types(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1e5,x\n2.5e-3,y\n12345678901e2,z\n", encoding="utf-8")
    got = _child(
        "import json; from veil.io import read_table; "
        f"print(json.dumps([str(t) for t in read_table({str(path)!r}).dtypes]))"
    )
    assert got == ["float64", "object"]


def test_transforms_and_dp_refuse_hex_text_instead_of_crashing() -> None:
    """A numeric transform, Mondrian's encoding and a DP sum on a column of hex digests each
    stop with veil's own error, naming the column (they called pd.to_numeric directly)."""
    got = _child(
        "import json, pandas as pd\n"
        "from veil._errors import VeilError\n"
        "from veil.tabular._base import to_numbers\n"
        "from veil.dp._mechanisms import _numeric\n"
        f"s = pd.Series({CRASHERS!r} * 3, name='digest')\n"
        "out = []\n"
        "for call in (lambda: to_numbers(s, transform='round'), lambda: _numeric(s, 'digest')):\n"
        "    try:\n"
        "        call(); out.append('no error')\n"
        "    except VeilError as exc:\n"
        "        out.append(type(exc).__name__ + ('+col' if 'digest' in str(exc) else ''))\n"
        "print(json.dumps(out))"
    )
    assert got == ["InputError+col", "SchemaError+col"]
