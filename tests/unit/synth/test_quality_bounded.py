"""The synthetic-quality Cramer's V needs no dense contingency table."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from scipy.stats.contingency import association

from veil.synth._quality import _cramers_v_sparse, contingency_similarity


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sparse_cramers_v_equals_scipy_on_the_dense_table(seed):
    rng = np.random.default_rng(seed)
    n = 2000
    a = rng.choice(["x", "y", "z", None], size=n, p=[0.5, 0.3, 0.15, 0.05])
    b = np.where(rng.random(n) < 0.6, a, rng.choice(list("pqrst"), size=n))
    frame = pd.DataFrame({"a": a, "b": b})
    counts = frame.groupby(["a", "b"], dropna=False).size()
    dense = counts.unstack(fill_value=0).to_numpy()
    assert _cramers_v_sparse(counts) == pytest.approx(
        float(association(dense, method="cramer")), rel=1e-10
    )


def test_single_value_column_has_no_association():
    frame = pd.DataFrame({"a": ["x"] * 10, "b": list("pqpqpqpqpq")})
    assert np.isnan(_cramers_v_sparse(frame.groupby(["a", "b"]).size()))


def test_near_unique_columns_stay_small():
    n = 6000
    real = pd.DataFrame({"a": [f"a{i}" for i in range(n)], "b": [f"b{i}" for i in range(n)]})
    tracemalloc.start()
    try:
        score, strength = contingency_similarity(real, real)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert strength == pytest.approx(1.0) and score == pytest.approx(1.0)
    # dense: 6,000 x 6,000 int64 counts, 288 MB
    assert peak < 64 * 2**20, f"peaked at {peak / 2**20:.1f} MiB"
