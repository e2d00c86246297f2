"""Where the synthetic values of a numeric column stop (issue 28, the sdmetrics pairs).

sdmetrics cuts a numeric column at 10 equal bins between *each table's own* minimum and
maximum, so a synthetic column that stops short of the real maximum (DP bounds that clip
the tail), or goes past a hard edge (a neighbour average leaking a clipped maximum's spike
outwards, a value 0 in a column that starts at 1), shifts every one of its bins.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from veil.synth._discretize import Discretizer, _cuts
from veil.synth._domain import dp_bounds, numeric_grid
from veil.synth._noise import ZCDPBudget
from veil.synth._schema import infer_schema
from veil.synth._weights import _SMOOTH, _reach, _smooth, _weights

# the bounds' noise seeded by its input (conftest.py)
pytestmark = pytest.mark.usefixtures("seeded_bounds_noise")


def test_dp_bounds_keep_one_grid_bin_of_headroom_past_the_data() -> None:
    rng = np.random.default_rng(0)  # test data only
    stay = (1 + rng.poisson(4.0, 40_000)).astype(float)  # 1 .. ~17; a thin tail past 16
    lo, hi, clipped = dp_bounds(stay, "integer", 5.0, ZCDPBudget(1.0), "bounds")
    # the last bin standing out is [8, 16) or [16, 32): one power of two more on top
    assert hi in (32, 64) and clipped == 0
    # the headroom bin below [1, 2) is [0.5, 1): no whole number in it, so no stay of 0
    assert lo == 1
    charges = np.exp(rng.normal(9.5, 0.6, 40_000))
    lo, hi, _ = dp_bounds(charges, "numeric", 5.0, ZCDPBudget(1.0), "bounds")
    # the bin of the 99.9th percentile (40 rows) stands out: the bound is one bin past it
    top = 2.0 ** (math.floor(math.log2(np.quantile(charges, 0.999))) + 2)
    assert lo < charges.min() and hi >= top
    assert lo == 0.0 and math.log2(hi).is_integer()  # over three doublings: from zero
    counts = np.array([0.0] * 3000 + [2.0] * 2000 + [5.0] * 500)
    lo, hi, _ = dp_bounds(counts, "integer", 5.0, ZCDPBudget(1.0), "bounds")
    assert lo == 0 and hi == 16  # falls outwards at the top; nothing below zero (no negatives)
    rising = np.array([2.0] * 100 + [5.0] * 3000)
    lo, hi, _ = dp_bounds(rising, "integer", 5.0, ZCDPBudget(1.0), "bounds")
    # rising to the top: no tail there, no headroom; and a column inside two grid bins
    # gets none below either (issue 28: lifespans 23-82 in 32-128 are no long tail)
    assert lo == 2 and hi == 8


def test_a_column_inside_one_grid_bin_gets_no_headroom() -> None:
    # years 1952-2007 all lie in [1024, 2048): doubling that range would only spread the
    # column's fine histogram thinner; its ends are the fine histogram's to find
    years = np.repeat(np.arange(1952, 2008, 5, dtype=float), 100)
    lo, hi, _ = dp_bounds(years, "integer", 5.0, ZCDPBudget(1.0), "bounds")
    assert (lo, hi) == (1024, 2048)


def test_the_grid_has_a_bin_past_every_end() -> None:
    # headroom never runs off the grid: the outermost hot bin keeps its own edge
    edges = numeric_grid("numeric")
    big = np.concatenate([np.full(2000, edges[-3] * 1.5), np.full(1000, edges[-2] * 1.5)])
    lo, hi, _ = dp_bounds(big, "numeric", 5.0, ZCDPBudget(1.0), "bounds")
    assert hi == edges[-1] and lo == edges[-3]


def _hard_edge() -> tuple[np.ndarray, np.ndarray, float]:
    """Counts of an age-like column: flat to fine bin 49, a spike of values clipped to
    49 (the ages over 99) too small to pass for more than noise (so it is averaged with
    its neighbours), nothing past it; the noise is left out so the test is exact."""
    counts = np.zeros(80)
    counts[:50] = 400.0
    counts[49] = 450.0
    sigma = 60.0
    return counts, _smooth(counts, sigma), sigma


def test_smoothing_does_not_carry_a_hard_edge_outwards() -> None:
    counts, smoothed, sigma = _hard_edge()
    assert smoothed[50:52].min() > 2 * sigma / math.sqrt(_SMOOTH)  # the average leaks
    cuts = [0, 10, 20, 30, 40, 80]
    leaky = _weights(smoothed, cuts, sigma / math.sqrt(_SMOOTH), trim=True)
    assert leaky[50:].sum() > 0.05 * leaky[40:50].sum()  # the old behaviour, for contrast
    w = _weights(smoothed, cuts, sigma / math.sqrt(_SMOOTH), trim=True, raw=counts, raw_sigma=sigma)
    assert w[49] > 0 and w[50:].sum() == 0  # the edge of the data, not two bins past it
    low = _weights(
        smoothed[::-1].copy(),
        [0, 40, 50, 60, 70, 80],
        sigma / math.sqrt(_SMOOTH),
        trim=True,
        raw=counts[::-1].copy(),
        raw_sigma=sigma,
    )
    assert low[30] > 0 and low[:30].sum() == 0  # the same at the low end


def test_raw_counts_further_out_keep_a_thin_tail_that_smoothing_found() -> None:
    # a tail of single fine bins 3.5 sd high: the smoothed edge (less its reach) holds it
    sigma = 20.0
    counts = np.zeros(100)
    counts[:40] = 1000.0
    counts[40:60] = 3.5 * sigma
    smoothed = _smooth(counts, sigma)
    w = _weights(smoothed, [0, 10, 20, 30, 100], sigma / math.sqrt(_SMOOTH), True, counts, sigma)
    assert w[40:55].all() and w[61:].sum() < 0.01 * w[40:60].sum()


def test_an_integer_column_of_few_values_merges_its_empty_ends() -> None:
    noisy = np.array([0.0, 0.0, 500.0, 800.0, 300.0, 0.0, 0.0, 0.0])
    cuts = _cuts(noisy, 32)
    assert cuts == [0, 3, 4, 8]  # bins [0, 3), [3, 4), [4, 8)
    coarse = np.searchsorted(cuts, np.flatnonzero(noisy), side="right") - 1
    assert len(set(coarse)) == 3  # each value that stands out keeps its own bin
    assert _cuts(np.zeros(4), 32) == [0, 1, 2, 3, 4]


def test_a_poisson_stay_keeps_its_range_under_dp_bounds() -> None:
    # a stay column (1 + Poisson), bounds estimated under DP: before, the bounds ended at
    # 16 and clipped every longer stay, and 32 values each got their own model bin
    rng = np.random.default_rng(1)  # test data only
    df = pd.DataFrame({"stay": (1 + rng.poisson(4.0, 40_000)).astype(int)})
    lo, hi, _ = dp_bounds(
        df["stay"].to_numpy(dtype=float), "integer", 10.0, ZCDPBudget(1.0), "bounds"
    )
    schema = infer_schema(df, bounds={"stay": (lo, hi)})
    disc = Discretizer.build(
        schema, df, budget=ZCDPBudget(1.0), sigmas={"stay": 10.0}, missing_code=True
    )
    col = disc.columns[0]
    assert col["bins"] <= df["stay"].max()  # the empty top of [1, hi] is one bin
    out = disc.decode(disc.encode(df, schema), schema, np.random.default_rng(0))
    real_max = int(df["stay"].max())
    assert out["stay"].min() == 1
    assert real_max - 3 <= out["stay"].max() <= real_max + 6


def _plateau_share_past_edge(seed: int) -> float:
    """A plateau of 350 rows a fine bin starting hard at bin 50 (ages from 50), noise sd 85
    (a small table's share of epsilon 1), the lowest coarse bin holding the edge bin and
    the empty range below it: the share of that bin's sampling weight below the edge."""
    rng = np.random.default_rng(seed)
    sigma = 85.0
    counts = np.zeros(100)
    counts[50:] = 350.0
    raw = counts + rng.normal(0.0, sigma, 100)
    smoothed = _smooth(raw, sigma)
    cuts = [0, 51, 60, 70, 80, 90, 100]
    w = _weights(smoothed, cuts, sigma / math.sqrt(_SMOOTH), True, raw, sigma)
    return float(w[:50].sum() / w[:51].sum())


def test_a_plateau_cut_at_a_hard_edge_gets_no_tail_from_its_noise() -> None:
    # the tail past a cut follows a decrease of the counts inwards of it; on a plateau the
    # noise alone showed one in about half the draws, and a fifth of the lowest coarse bin
    # (median of the draws: 0.16) was drawn below the data's minimum
    shares = [_plateau_share_past_edge(seed) for seed in range(300)]
    assert float(np.median(shares)) == 0.0
    assert float(np.mean(shares)) < 0.11


def test_reach_follows_a_tail_and_stops_at_a_hard_edge() -> None:
    sigma = 50.0
    hard = np.zeros(60)
    hard[30:] = 400.0
    assert _reach(hard, sigma, 30, first=True) == 30  # nothing below the edge
    tail = hard.copy()
    tail[20:30] = 1.5 * sigma  # a tail of bins each under 2 sd, whose sums stand out
    assert _reach(tail, sigma, 30, first=True) <= 21
    top = hard[::-1].copy()
    assert _reach(top, sigma, 29, first=False) == 29  # the same at the high end


def test_reach_on_noise_past_a_hard_edge_moves_rarely_and_little() -> None:
    # the one-sided sums of 1 to 5 counts at 2 sd: noise alone passes one of them in about
    # one draw in 15 (seeded: the measured rate is 0.065, 0.12 fine bins on average)
    rng = np.random.default_rng(0)  # test data and noise only
    moved = []
    for _ in range(4000):
        part = np.concatenate([rng.normal(0.0, 1.0, 30), np.full(30, 50.0)])
        moved.append(30 - _reach(part, 1.0, 30, first=True))
    assert 0.03 < float(np.mean(np.array(moved) > 0)) < 0.09
    assert float(np.mean(moved)) < 0.2
