"""SISA unlearning is exact (hypothesis): for any set of ids, forgetting them (in one request or
several) leaves every shard bit-identical to training it from scratch without them.

One tiny model is fitted once; each example works on a fresh copy of its folder (with its
erasure log), so examples never see each other's erasures.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.unlearning import SISAModel, fit_table

KEY = bytes.fromhex("5b0e97c2d4a1f8363e7c5a90b12d4f68c3e9a7105f2b8d46e0c1a3f79b5d2e84")
N = 90


@pytest.fixture(scope="module")
def fitted() -> Iterator[Path]:
    rng = np.random.default_rng(11)
    colour = rng.choice(["r", "g", "b"], size=N)
    x = rng.normal(size=N)
    df = pd.DataFrame(
        {
            "id": [f"u{i}" for i in range(N)],
            "colour": colour,
            "x": x,
            "t": np.where((colour == "r") ^ (x > 0), "y", "n"),
        }
    )
    root = Path(tempfile.mkdtemp(prefix="veil-sisa-prop-"))
    model = fit_table(
        df,
        "t",
        "id",
        out=root / "m",
        key=KEY,
        shards=3,
        slices=3,
        epochs=2,
        batch_size=8,
        monolithic=False,
    )
    model.close()
    yield root / "m"
    shutil.rmtree(root, ignore_errors=True)


@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    requests=st.lists(
        st.sets(st.integers(0, N - 1), min_size=1, max_size=6), min_size=1, max_size=3
    )
)
def test_forget_then_verify_is_exact(fitted: Path, requests: list[set[int]]) -> None:
    work = Path(tempfile.mkdtemp(prefix="veil-sisa-ex-"))
    try:
        shutil.copytree(fitted, work / "m")
        with SISAModel.open(work / "m", key=KEY) as model:
            gone: set[int] = set()
            for req in requests:
                out = model.forget([f"u{i}" for i in sorted(req)])
                assert out["forgotten"] + out["already_forgotten"] == len(req)
                assert out["already_forgotten"] == len(req & gone)
                gone |= req
            result = model.verify(shards=[0, 1, 2])
            assert result["exact"] is True, result
            assert result["forgotten_rows_present"] == 0
            for i in gone:
                assert model.shard_of(f"u{i}") is None
            stored = sum(len(d["y"]) for d in model.data) + len(model.test["y"])
            assert stored == N - len(gone)
    finally:
        shutil.rmtree(work, ignore_errors=True)
