"""Shapes the sweep of public tables found broken (issue 28, benchmarks/synth_sweep.py).

Each test generates a column of the shape (never a table's values) and checks the rule
that fixed it: years far from zero, point masses on halves and tenths, a weak column's
values standing out one by one, a column spread across zero on a small table.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp

from veil.synth._discretize import Discretizer, fine_edges
from veil.synth._domain import dp_bounds
from veil.synth._noise import ZCDPBudget
from veil.synth._points import _LATTICE_STEPS, _lattice_counts, _on_lattice, _weak_weights
from veil.synth._schema import infer_schema


def _ks(a: pd.Series, b: pd.Series) -> float:
    return float(1 - ks_2samp(a.dropna(), b.dropna(), method="asymp").statistic)


def _one_way(disc: Discretizer, codes: dict[str, np.ndarray]) -> dict:
    """Exact one-way counts of the coarse bins (the non-DP path of calibrate)."""
    return {
        c["name"]: (np.bincount(codes[c["name"]], minlength=c["size"]).astype(float), 0.0)
        for c in disc.columns
    }


def test_an_integer_column_far_from_zero_gets_a_fine_bin_per_whole_number() -> None:
    edges, scale = fine_edges("integer", 1024.0, 2048.0)
    assert scale == "linear" and len(edges) == 1026
    assert np.all(np.diff(edges) == 1.0) and edges[0] == 1023.5
    # a wider range keeps the 256 bins on the grid's scale
    assert len(fine_edges("integer", 4096.0, 8192.0)[0]) == 257


def test_years_inside_a_power_of_two_are_drawn_year_by_year() -> None:
    """A sample year of 9 values, 44 % one of them, inside the DP bounds 1024-2048: at four
    years per fine bin it came back spread over 1993-2003 (KS complement 0.69)."""
    rng = np.random.default_rng(0)  # test data only
    years = np.arange(1995, 2004)
    p = np.array([16, 44, 17.5, 8.7, 4.4, 3.1, 2.2, 1.3, 2.8])
    df = pd.DataFrame({"year": rng.choice(years, 8000, p=p / p.sum())})
    schema = infer_schema(df, bounds={"year": (1024, 2048)})
    scores = []
    for _ in range(3):  # fresh OpenDP noise each time
        disc = Discretizer.build(schema, df, budget=ZCDPBudget(1.0), sigmas={"year": 40.0})
        codes = disc.encode(df, schema)
        disc.calibrate(_one_way(disc, codes))
        out = disc.decode(codes, schema, np.random.default_rng(1))
        scores.append(_ks(df["year"], out["year"]))
    # A few builds in 100 score 0.90-0.95 (benchmarks/synth_year_builds.py: 9 of 300, the
    # lowest 0.9156): a noise count 3 sd out past the data makes a cut of its own, and the
    # inner coarse bin from it to 1995 samples its empty years from their clipped noise.
    # Zeroing long empty runs of inner bins made that rare but cost 11 of 71 columns of
    # the sweep's tables in the seeded replay (benchmarks/synth_domain_sim.py), none
    # better, so it is not done. An earlier version asserted 0.95 for each of the three
    # builds and failed CI.
    assert sorted(scores)[1] >= 0.95, scores
    assert min(scores) >= 0.85, scores


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(-4000, 4000).map(lambda k: k / 100.0), min_size=0, max_size=60),
    extra=st.integers(-4000, 4000).map(lambda k: k / 20.0),
)
def test_lattice_counts_are_a_partition_so_one_row_moves_one_count(
    values: list[float], extra: float
) -> None:
    x = np.array([v for v in values if v != round(v)], dtype=float)
    counts = np.array(_lattice_counts(x))
    assert len(counts) == len(_LATTICE_STEPS)
    assert counts.sum() <= len(x)  # each value counted once at most
    if extra != round(extra):  # a neighbouring table: one row more
        more = np.array(_lattice_counts(np.append(x, extra)))
        diff = more - counts
        assert diff.sum() == 1 and np.all((diff == 0) | (diff == 1))


def test_lattice_counts_read_32_bit_floats_on_their_step() -> None:
    x = np.array([0.1, 0.2, 0.5, 10.5, 0.25, 0.05, 0.12, 10.8054895401001], dtype=np.float32)
    assert _lattice_counts(x.astype(float)) == [2.0, 1.0, 2.0, 1.0, 1.0]


@settings(max_examples=80, deadline=None)
@given(
    left=st.floats(-1000, 1000, allow_nan=False),
    width=st.floats(1e-4, 5.0),
    decimals=st.integers(0, 3),
    u=st.floats(0.0, 0.999999),
)
def test_values_move_onto_the_written_steps_inside_their_fine_bin(
    left: float, width: float, decimals: int, u: float
) -> None:
    right = left + width
    x = np.array([left + u * width])
    out = float(_on_lattice(x, np.array([left]), np.array([right]), decimals, np.array([u]))[0])
    step = 10.0**-decimals
    inside = np.arange(np.ceil(left / step - 1e-9), np.ceil(right / step - 1e-9)) * step
    if 1 <= len(inside) <= 4:
        assert np.isclose(inside, out, atol=1e-9 * max(1.0, abs(out))).any()
        assert left - 1e-9 <= out < right + 1e-9
    else:
        assert out == float(x[0])


def test_half_years_of_school_keep_their_point_masses() -> None:
    """Years of school in half years (a third at 10.5), with a few imputed values that
    carry float noise, so the column's decimals give no step to draw on: uniform draws inside a
    fine bin of 0.094 spread 10.5 over 10.44-10.53 (KS complement 0.77)."""
    rng = np.random.default_rng(1)  # test data only
    vals = np.array([7.0, 9.0, 10.0, 10.5, 11.0, 11.5, 12.0, 13.5, 14.5, 15.0, 18.0])
    p = np.array([1, 20, 2, 35, 10, 11, 6, 1, 2, 3, 9], dtype=float)
    x = rng.choice(vals, 10_000, p=p / p.sum())
    x[:40] = 10.0 + rng.random(40) * 2  # imputed, off every step
    df = pd.DataFrame({"educ": x})
    schema = infer_schema(df, bounds={"educ": (0.0, 32.0)})
    # (the imputed values leave no number of decimals coarser than the fine bins)
    assert schema["educ"].decimals is None or schema["educ"].decimals >= 3
    disc = Discretizer.build(schema, df)  # exact counts: the rule, not the noise
    codes = disc.encode(df, schema)
    disc.calibrate(_one_way(disc, codes))
    out = disc.decode(codes, schema, np.random.default_rng(2))
    assert _ks(df["educ"], out["educ"]) >= 0.95
    assert abs((out["educ"] == 10.5).mean() - (df["educ"] == 10.5).mean()) < 0.03


def test_a_weak_columns_bins_follow_values_standing_out_and_stay_flat_under_noise() -> None:
    rng = np.random.default_rng(3)  # test data only
    sigma = 40.0
    counts = np.zeros(64)
    counts[[5, 20, 37, 52]] = 600.0  # a score of few values
    noisy = counts + rng.normal(0, sigma, 64)
    flat = np.ones(64)
    flat[60:] = 0.0  # past the extent
    cuts = [0, 16, 32, 48, 64]
    w = _weak_weights(noisy, sigma, cuts, flat)
    for a, b in itertools.pairwise(cuts):
        seg = w[a:b]
        assert seg.argmax() + a in (5, 20, 37, 52)
        assert seg.max() / seg.sum() > 0.5  # most of the bin's draws on its value
    quiet = _weak_weights(rng.normal(0, sigma, 64), sigma, cuts, flat)
    assert np.array_equal(quiet, flat)  # noise alone: uniform, as before
    assert np.all(w[60:] == 0.0)


def test_dp_bounds_of_a_small_column_spread_across_zero_keep_both_sides() -> None:
    """3,400 values around zero (sd 11), noise sd 90 per grid bin: each power of two on
    the positive side holds 300-500 rows, under 4.5 sd, and the twenty-odd sub-unit bins
    between the two sides made one side look apart from the other. The positive side was
    clipped away in over half of the draws (28 % of the values clipped on average)."""
    rng = np.random.default_rng(0)  # test data only
    x = np.round(rng.normal(-2, 11, 3400), 3)
    n = float(len(x))  # the fit passes a noisy row count
    draws = [dp_bounds(x, "numeric", 90.0, ZCDPBudget(1e9), "bounds", n) for _ in range(30)]
    # (by simulation: 99 % of draws cross zero and 7 % of the values are clipped on average)
    crossing = np.mean([lo < 0 < hi for lo, hi, _ in draws])
    assert crossing >= 0.8, crossing
    assert np.mean([c for _, _, c in draws]) / len(x) <= 0.15


def test_dp_bounds_of_a_positive_column_rarely_gain_negative_values() -> None:
    """The runs across zero reach only the mirror of the data's own range: a count with
    zeros and no negative value keeps a low bound of zero."""
    rng = np.random.default_rng(4)  # test data only
    x = np.where(rng.random(3000) < 0.5, 0.0, rng.gamma(2.0, 6.0, 3000)).round(2)
    draws = [dp_bounds(x, "numeric", 90.0, ZCDPBudget(1e9), "bounds") for _ in range(30)]
    assert all(lo >= 0 for lo, _, _ in draws)


def test_dp_bounds_of_a_wide_range_spread_from_near_zero_start_at_zero() -> None:
    """Depths 6-3,200 spread evenly (and whole days 0-5,200): each power of two below the
    bulk holds half the rows of the next, so the lowest stand out nowhere and the bounds
    started at 128 or 512, clipping 2-5 % of the column up to them."""
    rng = np.random.default_rng(5)  # test data only
    depth = rng.uniform(6.0, 3200.0, 5800).round(2)
    days = rng.integers(0, 5200, 7800).astype(float)
    for x, kind in ((depth, "numeric"), (days, "integer")):
        draws = [dp_bounds(x, kind, 60.0, ZCDPBudget(1e9), "bounds", len(x)) for _ in range(10)]
        assert all(lo == 0 for lo, _, _ in draws), kind
        assert max(c for _, _, c in draws) == 0, kind


def test_a_zero_inflated_counts_thin_tail_is_not_squeezed_next_to_its_ones() -> None:
    """86 % zeros, the rest spread over 1-14 with a bump at 14, 5,200 rows, noise sd 60
    per fine bin, 16 bins: few values stand out beside the zeros, and the outer bin's
    excess (the tail, larger than what its kept fine bins hold) was capped at a mean
    length of half the fine bins standing out: in a quarter of the draws 11-12 % of the
    rows came back as 2 (2 % real), and the KS complement averaged 0.94 over 12 draws."""
    rng = np.random.default_rng(6)  # test data only
    n = 5200
    tail = rng.choice(np.arange(1, 15), n, p=np.r_[0.23, 0.15, 0.1, 0.07, np.full(9, 0.04), 0.09])
    x = np.where(rng.random(n) < 0.86, 0, tail)
    df = pd.DataFrame({"reduced": x})
    schema = infer_schema(df, bounds={"reduced": (0, 16)})
    scores = []
    for _ in range(12):  # fresh OpenDP noise each time
        disc = Discretizer.build(  # 16 bins: what the bins rule gives such a table
            schema, df, max_bins=16, budget=ZCDPBudget(1.0), sigmas={"reduced": 60.0}
        )
        codes = disc.encode(df, schema)
        disc.calibrate(_one_way(disc, codes))
        out = disc.decode(codes, schema, np.random.default_rng(7))["reduced"]
        scores.append(_ks(df["reduced"], out))
    # (about 0.97 now; the sd of a 12-draw mean is about 0.004)
    assert float(np.mean(scores)) >= 0.955, scores


def test_a_weak_bin_with_its_rows_in_one_part_follows_blocks_of_fine_counts() -> None:
    """A pitch speed's shape: half the rows of a 3,402-row table in one coarse bin of 18
    fine bins, all in its first ten, each fine count (180) under 4.5 noise sd (90). Drawn
    uniformly, the bin puts 8 / 18 = 0.44 of its rows past the data; the blocks' noisy
    sums find where the rows are in most draws (measured on these seeds: 61 of 100, the
    median share past the data 0.145), and never send more there than uniform would."""
    sigma = 90.0
    counts = np.zeros(18)
    counts[:10] = 180.0
    flat = np.ones(18)
    past, followed = [], 0
    for seed in range(100):
        noisy = counts + np.random.default_rng(seed).normal(0, sigma, 18)  # seeded noise
        w = _weak_weights(noisy, sigma, [0, 18], flat)
        followed += not np.array_equal(w, flat)
        past.append(float(w[10:].sum() / w.sum()))
    assert followed >= 45
    assert np.median(past) < 0.25
    assert max(past) <= 8 / 18 + 1e-9


def test_a_weak_bin_under_an_even_spread_of_rows_stays_uniform() -> None:
    """Rows spread evenly over a coarse bin (or none at all), under the fine counts' rule
    (4.5 sd): the blocks' sums are as uneven as the noise makes them, and the bin stays
    uniform but at the test's level, 1e-3 at each of the four block sizes that fit
    (expected 6 in 1,500; measured 6 on these seeds)."""
    sigma = 90.0
    flat = np.ones(32)
    moved = 0
    for seed in range(1500):
        rng = np.random.default_rng(seed)  # seeded noise
        level = (0.0, 40.0, 80.0)[seed % 3]
        noisy = level + rng.normal(0, sigma, 32)
        moved += not np.array_equal(_weak_weights(noisy, sigma, [0, 32], flat), flat)
    assert moved <= 15


def _weak_layout(inside: list[float]) -> Discretizer:
    """A weak column's layout: 64 fine bins, equal coarse bins over the extent 8-39, the
    last coarse bin 36-63 (its fine bins past 39 weighted 0, as build leaves them)."""
    cuts = [0, 8, 12, 16, 20, 24, 28, 32, 36, 64]
    weights = np.zeros(64)
    weights[8:40] = 1.0
    col = {
        "name": "score",
        "missing": True,
        "kind": "bins",
        "low": 0.0,
        "high": 4.0,
        "scale": "linear",
        "integer": False,
        "edges": [float(e) for e in np.linspace(0.0, 4.0, 65)],
        "weights": [float(w) for w in weights],
        "cuts": cuts,
        "bins": len(cuts) - 1,
        "size": len(cuts),
        "weak_signal": True,
        "extent": [8, 39],
        "extent_inside": inside,
    }
    return Discretizer([col])


def test_an_outer_bin_after_an_empty_one_reads_its_rows_inside_the_extent() -> None:
    """A score with a value just inside the extent (0.9) and more past it (1.1-1.5), the
    coarse bin before both empty: the bin keeps what its fine counts inside the extent
    hold and the rest goes past the extent (before, an empty neighbour left it all
    inside). With all of its rows inside, nothing goes past."""
    one_way = np.array([0, 300, 300, 300, 300, 300, 300, 0, 1300, 0], dtype=float)
    split = _weak_layout([0.0, 560.0, 90.0])
    split.calibrate({"score": (one_way, 60.0)})
    w = np.asarray(split.columns[0]["weights"])
    last = w[36:64]
    assert last[:4].sum() == pytest.approx(560.0 * last.sum() / 1300.0, rel=1e-6)
    assert last[4:].sum() > 0.5 * last.sum()  # the 740 rows past the extent
    held = _weak_layout([0.0, 1290.0, 90.0])
    held.calibrate({"score": (one_way, 60.0)})
    w = np.asarray(held.columns[0]["weights"])
    assert w[40:].sum() == 0.0  # all of them inside: no tail
