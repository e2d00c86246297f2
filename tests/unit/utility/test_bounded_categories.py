"""Pairwise utility measures stay bounded in memory whatever a column's cardinality."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from veil.utility import association_preservation, column_distances
from veil.utility._categories import MAX_CATEGORIES, bounded_codes, numeric_like
from veil.utility._distance import contingency


def _charges(rng: np.random.Generator, n: int) -> pd.Series:
    """Charges written as text, nearly every value distinct (the hospital table's case)."""
    cents = rng.integers(100_000, 10_000_000, size=n)
    return pd.Series([f"${c // 100}.{c % 100:02d}" for c in cents], dtype=object)


def test_high_cardinality_text_columns_give_a_capped_contingency_table():
    rng = np.random.default_rng(7)
    n = 4000
    df = pd.DataFrame(
        {
            "charge": _charges(rng, n),
            "other": _charges(rng, n),
            "code": pd.Series([f"id-{i}" for i in rng.permutation(n)], dtype=object),
        }
    )
    assert df["charge"].nunique() > 3900 and df["code"].nunique() == n
    codes = {c: bounded_codes(df[c]) for c in df.columns}
    for c in df.columns:
        assert int(codes[c].max()) + 1 <= MAX_CATEGORIES + 1
    table = contingency(codes["charge"], codes["code"])
    assert table.shape[0] * table.shape[1] <= (MAX_CATEGORIES + 1) ** 2
    assert table.sum() == n

    tracemalloc.start()
    try:
        out = association_preservation(df, df)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # uncapped, two 4,000-value columns make a 4,000 x 4,000 table: 128 MB of floats alone
    assert peak < 16 * 2**20, f"association step peaked at {peak / 2**20:.1f} MiB"
    assert len(out["pairs"]) == 3 and out["mean_abs_change"] == 0.0


def test_numeric_like_text_is_binned_and_keeps_its_association():
    rng = np.random.default_rng(3)
    n = 3000
    x = rng.normal(50_000, 15_000, size=n).round(2)
    y = x * 1.1 + rng.normal(0, 500, size=n)
    df = pd.DataFrame(
        {
            "a": [f"${v:,.2f}" for v in x],
            "b": [f"${v:,.2f}" for v in y],
            "noise": [f"${v:,.2f}" for v in rng.permutation(y)],
        }
    )
    parsed = numeric_like(df["a"])
    assert parsed is not None and np.allclose(parsed.to_numpy(), x)
    assert int(bounded_codes(df["a"], bins=10).max()) + 1 == 10
    pairs = {(p["a"], p["b"]): p["original"] for p in association_preservation(df, df)["pairs"]}
    # binned as numbers, the two related charges stay strongly associated, the shuffled not
    assert pairs[("a", "b")] > 0.8
    assert pairs[("a", "noise")] < 0.2


def test_cap_keeps_the_most_frequent_values_and_one_other():
    s = pd.Series(["common"] * 50 + ["second"] * 30 + [f"rare{i}" for i in range(200)])
    codes = bounded_codes(s, max_categories=2)
    assert int(codes.max()) + 1 == 3
    assert (codes[:50] == codes[0]).all() and (codes[50:80] == codes[50]).all()
    assert codes[0] != codes[50]
    assert set(codes[80:].tolist()) == {2}


def test_text_that_is_not_numeric_is_not_parsed():
    assert numeric_like(pd.Series(["2020-01-01", "2020-02-01"])) is None
    assert numeric_like(pd.Series(["a1", "b2"])) is None
    assert numeric_like(pd.Series([1.0, 2.0])) is None


def test_column_distance_of_numeric_like_text_is_measured_as_numbers():
    rng = np.random.default_rng(11)
    o = pd.DataFrame({"charge": _charges(rng, 2000)})
    parsed = numeric_like(o["charge"])
    assert parsed is not None
    shifted = pd.DataFrame({"charge": [f"${v * 2:.2f}" for v in parsed]})
    d = column_distances(o, shifted)[0]
    # as numbers, doubling every charge moves the distribution: KS is measured, not None
    assert d["ks"] is not None and d["ks"] > 0.3
    same = column_distances(o, o)[0]
    assert same["ks"] == pytest.approx(0.0) and same["total_variation"] == pytest.approx(0.0)


def test_the_result_and_the_report_say_which_columns_were_reduced():
    from veil.report import render_html

    rng = np.random.default_rng(1)
    n = 1000
    df = pd.DataFrame(
        {
            "charge": _charges(rng, n),
            "code": [f"id-{i}" for i in range(n)],
            "sex": rng.choice(["F", "M"], size=n),
            "age": rng.integers(0, 90, size=n),
        }
    )
    out = association_preservation(df, df)
    # age is a number in quantile bins as it always was; sex has two values
    assert out["reduced"] == {"charge": "numeric_text_bins", "code": "top_values"}
    assert out["max_categories"] == MAX_CATEGORIES
    page = render_html({"utility": {"associations": out}})
    assert "2 column(s) with more than 50 values were reduced first" in page
