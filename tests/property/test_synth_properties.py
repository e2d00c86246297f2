"""Invariants: constraints hold in every sample; quality lies in [0, 1] and is 1 on a copy."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.synth import GaussianCopulaSynthesizer, Inequality, Range
from veil.synth._quality import quality_report


@st.composite
def tables(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(30, 120))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)  # test data only
    low = rng.integers(-50, 50, n)
    gap = rng.integers(0, draw(st.integers(1, 40)), n)
    cats = draw(st.lists(st.sampled_from(list("abcdef")), min_size=2, max_size=4, unique=True))
    return pd.DataFrame(
        {
            "low": low,
            "high": low + gap,
            "x": rng.normal(size=n) * draw(st.floats(0.1, 100)),
            "c": rng.choice(cats, n),
        }
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=tables(), seed=st.integers(0, 1000))
def test_constraints_always_hold(df: pd.DataFrame, seed: int) -> None:
    lo, hi = float(df["x"].min()), float(df["x"].max())
    cons = [Inequality("low", "high"), Range("x", lo, hi), Range("low", -50, None)]
    out = GaussianCopulaSynthesizer(constraints=cons, seed=seed).fit(df).sample(200)
    assert len(out) == 200
    assert (out["low"] <= out["high"]).all()
    assert out["x"].between(lo, hi).all() and (out["low"] >= -50).all()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=tables(), b=tables())
def test_quality_in_unit_interval_and_one_for_identical(a: pd.DataFrame, b: pd.DataFrame) -> None:
    q = quality_report(a, b)
    for key in ("score", "column_shapes"):
        assert 0.0 <= q[key] <= 1.0
    if q["column_pair_trends"] is not None:
        assert 0.0 <= q["column_pair_trends"] <= 1.0
    same = quality_report(a, a.copy())
    assert abs(same["score"] - 1.0) < 1e-12
