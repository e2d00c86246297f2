"""Discrete codes for the marginal-based synthesizers (MST, AIM) and back.

- categorical and boolean: one code per category, plus one for "missing";
- numeric, integer and date: bins that **follow the data's shape**, plus a "missing" code.

How the numeric bins are made (each step differentially private or data-independent):

1. a *fine grid* over the column's bounds that depends only on the bounds: 256 equal bins,
   on a log scale (``log1p(x - low)``) when the bounds span more than 1,000 units from at
   or near zero (long tails: charges, incomes; not years in 1024-2048), one bin per whole
   number for an integer column spanning at most 513 values (0-512), or at most 1,025
   far from zero on a linear grid (years in the DP bounds 1024-2048), and a log scale
   whose low end keeps a bin per whole number for a wider integer column from near zero;
2. a histogram of the column on the fine grid, with Gaussian noise (OpenDP), from the
   discretization share of the budget (see :mod:`veil.synth._marginal`), averaged over 5
   neighbouring fine bins (post-processing; the noise shrinks by sqrt(5), so the thin
   tails of a column stand out of it), fewer at the ends (no mass lost there), except a
   count more than 5 noise standard deviations off its neighbours' mean (noise alone
   does so about once in 1.7 million fine bins): such a spike (a zero-inflated count's
   zeros, a value data were clipped to) keeps its own count, so it gets its own coarse
   bin instead of being spread over five values;
3. the coarse bins the model works with (``max_bins``, default 32) cut at the noisy
   histogram's quantiles (of the fine counts above three noise standard deviations, so the
   noise of many empty fine bins does not add up to phantom mass): equal mass per bin, so a
   skewed column is resolved where its rows are, not in an empty tail;
   an integer column of at most ``max_bins`` values keeps one coarse bin per value that
   stands out, and the empty values at either end join the outer bins (not one model bin
   each, whose noisy marginal counts would put ~40 synthetic rows on every empty value);
   when less than half of the mass stands out of the noise, or what stands out is less
   than 3 standard deviations of the noise in the histogram's total (few rows for the
   budget: the noisy total itself is then mostly noise), the bins are equal on the grid's scale instead (linear or log) and sampling is uniform on
   that scale inside a bin (``weak_signal`` in the saved layout), except in a bin where
   a fine count stands 4.5 noise sd out (a score of few values), which follows its noisy
   fine counts (:func:`veil.synth._points._weak_weights`), or where blocks of its fine
   counts are too uneven for an even spread (a chi-square test at 1e-3), which follows the
   blocks' sums, and except that a fine bin
   whose own noisy count stands 5.5 noise sd out (a count column's zeros) is a coarse bin
   of its own; on a linear grid, given
   a noisy row count, only over the fine bins where windows of noisy counts stand out
   (:func:`_extent`) when those hold most of the rows (``extent`` in the layout);
   ``max_bins`` itself follows the rows and the budget (see
   :meth:`veil.synth._marginal._MarginalSynthesizer._adaptive_bins`);
4. decoding draws a fine bin inside the coarse bin in proportion to its noisy count (what
   was measured, less one noise standard deviation; the two outer coarse bins are cut back
   to where the counts are when the bounds may lie far from the data, see
   :func:`veil.synth._weights._weights`, and continued past the cut by a thin geometric tail, see
   :func:`veil.synth._weights._tail`; the cut and the tail's decay are read so that the 5-bin average does
   not carry a hard edge, a clipped maximum's spike, outwards), then a value uniformly
   inside the fine bin (on the log scale for a log grid);
5. a decimal column also measures two point counts, its exact zeros and its other whole
   numbers, from a quarter of its fine histogram's rho: a column at least 75 % whole
   numbers gets one fine bin per number (the same vector counts its other values by the
   coarsest of the steps 0.5, 0.25, 0.1, 0.05, 0.01 they lie on: a partition, so its cost
   is unchanged); after the fit, :meth:`Discretizer.calibrate`
   sets, from the model's noisy one-way counts, the probability that a value drawn in the
   zeros' fine bin is 0 and in a fine bin holding a whole number is that number (then,
   with the measured shares, a half, a quarter ... inside the fine bin), and gives
   an outer coarse bin whose one-way count exceeds what its kept fine bins hold the
   excess as a tail past the cut, whose mean length is at most half the fine bins the
   data stand in (:func:`veil.synth._weights._mass_tail`; post-processing);
6. a value of a column written with few decimals is drawn on those decimals' steps inside
   its fine bin when the bin holds one to four of them
   (:func:`veil.synth._points._on_lattice`): rounding a uniform draw sent part of a point
   mass to the neighbouring fine bin's step.

Without a budget (``budget=None``, the non-DP path used by tests) the histogram is exact.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from veil._numeric import coerce_numbers
from veil.synth._noise import ZCDPBudget
from veil.synth._points import (
    _LATTICE_MAX,
    _LATTICE_STEPS,
    _lattice_counts,
    _on_lattice,
    _weak_weights,
)
from veil.synth._schema import ColumnSpec, TableSchema
from veil.synth._weights import (
    _APART,
    _FLOOR,
    _SMOOTH,
    _mass_tail,
    _smooth,
    _span,
    _weights,
)

__all__ = ["FINE_BINS", "LOG_SPAN", "Discretizer", "fine_edges"]

FINE_BINS = 256
LOG_SPAN = 1000.0
# whole numbers that get a fine bin each: 0-512 included, the power-of-two bounds DP finds
# for a count column (at 512 values it got bins of two, its zeros sampled half as ones)
_INT_FINE_MAX = 513
# ... and on a linear grid (a range far from zero), up to this many: one power of two of
# DP bounds, such as 1024-2048 for years
_INT_LINEAR_MAX = 1025
_CUT = 3.0
_MISSING_Z = 4.5  # a missing code's noisy count must stand this many sd out (once in 300,000)
_WEAK = 0.5  # below this share of the mass standing out of the noise: equal bins ...
_TOTAL_SDS = 3.0  # ... or below this many sd of the noise in the histogram's total
_LOG_RATIO = 8.0  # a log fine grid needs high > this x low (or low <= 0)
_WINDOWS = (1, 2, 4, 8, 16, 32)  # widths of the fine-bin windows that find the data's extent
_EXTENT_Z = 4.5  # ... a window's noisy sum must stand this many sd of that sum out
_EXTENT_MASS = 0.8  # ... and the extent must hold this share of the noisy row count
_WHOLE_GRID = 0.75  # a decimal column this much whole numbers gets one fine bin per number
_POINT_Z = 3.0  # a point mass (zeros, whole numbers) counts when its noisy count stands out
_MASS_Z = 3.0  # an outer bin's tail is re-drawn when its missing mass stands out this much


def fine_edges(kind: str, low: float, high: float) -> tuple[np.ndarray, str]:
    """The fine grid over ``[low, high]`` (edges) and its scale; depends on the bounds only.

    The log scale (``log1p(x - low)``) is for ranges that start at or near zero and span
    more than ``LOG_SPAN`` units (long tails), or more whole numbers than an integer
    column's fine bins (``_INT_FINE_MAX``). A range far from zero (``high`` at most
    ``_LOG_RATIO`` times ``low``: years 1024-2048, the power of two DP bounds found for
    1952-2007) is linear: on a log scale measured from ``low`` its data would sit in a few
    wide fine bins at the top."""
    span = high - low
    if kind == "integer" and span + 1 <= _INT_FINE_MAX:
        return np.arange(low - 0.5, high + 1.0, 1.0), "linear"
    # (an integer column too wide for a bin per whole number: on a linear grid its zeros
    # would share a fine bin with its ones and be sampled as often; the log grid keeps a
    # bin per whole number near zero)
    wide = span > LOG_SPAN or kind == "integer"
    if kind != "datetime" and wide and (low <= 0 or high > _LOG_RATIO * low):
        t = np.linspace(0.0, math.log1p(span), FINE_BINS + 1)
        edges = low + np.expm1(t)
        if kind == "integer":
            edges = np.unique(np.ceil(edges)) - 0.5
            edges[0], edges[-1] = low - 0.5, high + 0.5
        edges[-1] = max(edges[-1], high)
        return edges, "log"
    if kind == "integer" and span + 1 <= _INT_LINEAR_MAX:
        # far from zero (years inside the power of two 1024-2048 DP finds): a bin per
        # whole number too; at a quarter of the span per bin, four years shared a fine
        # bin and were drawn alike (a sample year 1995-2003, 44 % of it 1996, scored a
        # KS complement of 0.69)
        return np.arange(low - 0.5, high + 1.0, 1.0), "linear"
    if kind == "integer":
        edges = np.unique(np.round(np.linspace(low, high + 1, FINE_BINS + 1))) - 0.5
        return edges, "linear"
    return np.linspace(low, high if high > low else low + 1.0, FINE_BINS + 1), "linear"


def _extent(raw: np.ndarray, sigma: float) -> tuple[int, int] | None:
    """First and last fine bin of the data, from the unsmoothed noisy counts ``raw`` (noise
    ``sigma``): the union of the windows of ``m`` neighbouring fine bins (``m`` in
    ``_WINDOWS``) whose noisy sum stands ``_EXTENT_Z`` standard deviations of that sum
    (``sigma x sqrt(m)``) above zero. Few rows for the budget leave no single fine bin above
    the noise (1,400 country-years: 117 per year against a noise sd of 66), but windows of
    many bins are; the extent may reach up to ``m - 1`` fine bins past the data (the
    model's own marginals on the coarse bins then place the mass). An empty window passes
    about once in 300,000 (some 1,500 windows per column: about one column in 200 gets a
    too-wide extent, never a too-narrow one). None when no window stands out.
    Post-processing of the noisy counts."""
    raw = np.asarray(raw, dtype=float)
    lo = hi = None
    for m in _WINDOWS:
        if m > len(raw):
            break
        sums = np.convolve(raw, np.ones(m), mode="valid")
        ok = np.flatnonzero(sums > _EXTENT_Z * sigma * math.sqrt(m))
        if ok.size:
            a, b = int(ok[0]), int(ok[-1]) + m - 1
            lo = a if lo is None else min(lo, a)
            hi = b if hi is None else max(hi, b)
    return None if lo is None or hi is None else (lo, hi)


def _even_cuts(f: int, bins: int, extent: tuple[int, int] | None) -> tuple[list[int], np.ndarray]:
    """Cuts of ``bins`` equal coarse bins (on the grid's scale) over the fine bins of
    ``extent`` (all ``f`` when None), the outer ones reaching to the grid's ends, and
    sampling weights: 1 inside the extent, 0 outside."""
    a, b = (0, f - 1) if extent is None else extent
    n = b - a + 1
    inner = {a + round(j * n / bins) for j in range(1, bins)}
    cuts = sorted({0, f} | {c for c in inner if 0 < c < f})
    weights = np.zeros(f)
    weights[a : b + 1] = 1.0
    return cuts, weights


def _spikes(raw: np.ndarray, sigma: float, bins: int) -> list[int]:
    """Fine bins whose own noisy count in ``raw`` stands ``_APART`` noise standard
    deviations above zero, the largest first, at most a quarter of ``bins`` of them: each
    becomes a coarse bin of its own among a weak column's equal bins, which sample
    uniformly inside (a zero-inflated count's zeros, 3 in 4 of the rows, sharing a bin
    with its ones came out half zeros, half ones). Post-processing of the noisy counts; an
    empty fine bin passes once in 50 million."""
    if sigma <= 0 or bins < 4:
        return []
    raw = np.asarray(raw, dtype=float)
    found = np.flatnonzero(raw > _APART * sigma)
    found = found[np.argsort(-raw[found], kind="stable")][: bins // 4]
    return sorted(int(i) for i in found)


def _with_spikes(cuts: list[int], spikes: list[int]) -> list[int]:
    """``cuts`` with a coarse bin of its own for each fine bin in ``spikes``."""
    return sorted(set(cuts).union(*({i, i + 1} for i in spikes)))


def _as_float(s: pd.Series, kind: str) -> np.ndarray:
    if kind == "datetime":
        return np.where(s.isna(), np.nan, s.astype("int64", errors="ignore").astype(float))
    return coerce_numbers(s).to_numpy(dtype=float)


def _cuts(noisy: np.ndarray, bins: int) -> list[int]:
    """Fine-bin indices where the coarse bins start (plus the end): equal noisy mass."""
    f = len(noisy)
    if f <= bins:  # a bin per fine bin where counts stand out; the empty ends join the outer bins
        nz = np.flatnonzero(np.asarray(noisy) > 0)
        if nz.size == 0:
            return list(range(f + 1))
        return [0, *range(int(nz[0]) + 1, int(nz[-1]) + 1), f]
    cum = np.maximum.accumulate(np.cumsum(np.asarray(noisy, dtype=float)))
    total = cum[-1]
    if total <= 0:
        return sorted({round(j * f / bins) for j in range(bins + 1)})
    cuts = {0, f}
    for j in range(1, bins):
        k = int(np.searchsorted(cum, total * j / bins, side="left")) + 1
        cuts.add(min(max(k, 1), f))
    return sorted(cuts)


class Discretizer:
    """Map each modelled column to integer codes ``0..size-1`` and back.

    ``columns`` is the JSON-able description saved with a model; build one with
    :meth:`build`.
    """

    def __init__(self, columns: list[dict[str, Any]]) -> None:
        self.columns = columns

    @classmethod
    def build(
        cls,
        schema: TableSchema,
        data: pd.DataFrame,
        *,
        max_bins: int = 32,
        budget: ZCDPBudget | None = None,
        sigmas: dict[str, float] | None = None,
        missing_code: bool = False,
        exact_bounds: set[str] | frozenset[str] = frozenset(),
        rows: float | None = None,
    ) -> Discretizer:
        """Lay out the codes. Continuous columns are measured on their fine grid with
        Gaussian noise of scale ``sigmas[column]`` drawn from ``budget`` (exact when
        ``budget`` is None). ``missing_code``: every column gets a missing code (a DP domain, where
        whether a column has missing values is not read from the data). ``rows``: a noisy
        row count (DP), which lets a column with few rows for its noise keep its bins to
        the fine bins where the data stand out (:func:`_extent`) when those hold most of
        the rows."""
        columns: list[dict[str, Any]] = []
        for spec in schema.modelled:
            missing = bool(spec.has_missing or missing_code)
            col: dict[str, Any] = {"name": spec.name, "missing": missing}
            if spec.continuous:
                lo, hi = float(spec.low or 0.0), float(spec.high or 0.0)
                sigma = (sigmas or {}).get(spec.name)
                x = _as_float(data[spec.name], spec.kind)
                x = x[~np.isnan(x)]
                # point masses of a decimal column: its exact zeros and its other whole
                # numbers, two counts (a row adds to one at most) from a quarter of the
                # column's rho (the fine histogram keeps three quarters: the same cost)
                points = None
                lattice: list[float] = []
                grid_kind = spec.kind
                # (never exact counts beside a noisy fit: only measured, or all exact)
                if spec.kind == "numeric" and (budget is None or sigma is not None):
                    xc = np.clip(x, lo, hi)
                    whole = np.mod(xc, 1.0) == 0
                    # the other values by the coarsest step of _LATTICE_STEPS they lie on
                    # (a partition with the zeros and the whole numbers: a row adds to one
                    # count at most, so the vector's L2 sensitivity stays 1, its cost too)
                    pts = np.array(
                        [
                            float((xc == 0).sum()),
                            float((whole & (xc != 0)).sum()),
                            *_lattice_counts(xc[~whole]),
                        ],
                        dtype=float,
                    )
                    if budget is not None and sigma is not None:
                        psig = 2.0 * sigma
                        sigma = sigma * math.sqrt(4.0 / 3.0)
                        pts = budget.gaussian(pts, psig, what="point masses numeric")
                    else:
                        psig = 0.0
                    points = [float(pts[0]), float(pts[1]), psig]
                    lattice = [float(v) for v in pts[2:]]
                    # a column of whole numbers written as decimals (12.0, a few 12.5):
                    # one fine bin per whole number, as an integer column's, when the noisy
                    # counts say at least _WHOLE_GRID of its values are whole; under DP
                    # the share needs the noisy row count (the exact one would choose the
                    # grid outside the guarantee), without it the grid stays
                    n_est = float(rows) if rows is not None else None
                    if budget is None:
                        n_est = float(len(x))
                    if n_est and float(pts[:2].sum()) >= _WHOLE_GRID * n_est:
                        grid_kind = "integer"
                edges, scale = fine_edges(spec.kind, lo, hi)
                if grid_kind != spec.kind and math.ceil(hi) - math.floor(lo) < _INT_FINE_MAX:
                    edges, scale = fine_edges(grid_kind, math.floor(lo), math.ceil(hi))
                x = np.clip(x, edges[0], edges[-1])
                idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(edges) - 2)
                counts = np.bincount(idx, minlength=len(edges) - 1).astype(float)
                if budget is not None and sigma is not None:
                    noisy = budget.gaussian(counts, sigma, what=f"fine histogram {spec.kind}")
                else:
                    noisy, sigma = counts, 0.0
                raw, raw_sigma = noisy, sigma
                if sigma > 0:  # averaged over 5 neighbouring fine bins: noise / sqrt(5)
                    noisy = _smooth(noisy, sigma)
                    sigma = sigma / math.sqrt(_SMOOTH)
                # quantiles of the counts that stand out of the noise: the noise of many
                # empty fine bins would otherwise add up to phantom mass past the data
                standing = np.where(noisy > _CUT * sigma, noisy, 0.0)
                # the noisy total has noise of sd sigma x sqrt(fine bins): when it is as
                # large as the data, "half of the total" can be a few noise bins
                total_sd = sigma * math.sqrt(_SMOOTH * len(noisy))
                if standing.sum() >= max(_WEAK * float(noisy.sum()), _TOTAL_SDS * total_sd, 1.0):
                    cuts = _cuts(standing, max_bins)
                    kept: list[int] = []
                    weights = _weights(
                        noisy, cuts, sigma, spec.name not in exact_bounds, raw, raw_sigma, kept
                    )
                    if len(kept) == 2 and sigma > 0:  # see calibrate
                        col.update(kept=kept, fine_sigma=sigma)
                else:  # too few rows for this noise: equal bins on the grid's scale,
                    # over the fine bins where windows of the noisy counts show data
                    extent = None
                    # (linear grids only: a long tail on a log grid is thin everywhere,
                    # under the noise of any window, and the model's marginals place it)
                    if raw_sigma > 0 and scale == "linear" and spec.name not in exact_bounds:
                        extent = _extent(raw, raw_sigma)
                    # ... and only when those bins hold most of the (noisy) rows: data
                    # spread thinly over the range stand out nowhere and must keep it all
                    if extent is not None and (
                        rows is None
                        or float(raw[extent[0] : extent[1] + 1].sum()) < _EXTENT_MASS * rows
                    ):
                        extent = None
                    # (a spike's own bin and the split it makes cost two of the bins)
                    spikes = _spikes(raw, raw_sigma, max_bins)
                    even = max(max_bins - 2 * len(spikes), 1)
                    cuts, weights = _even_cuts(len(noisy), even, extent)
                    cuts = _with_spikes(cuts, spikes)
                    if sigma > 0:
                        weights = _weak_weights(raw, raw_sigma, cuts, weights)
                    col["weak_signal"] = True
                    if extent is not None:
                        col["extent"] = [int(extent[0]), int(extent[1])]
                        # the noisy rows inside the extent of each outer coarse bin, for
                        # calibrate when the next bin in is empty (post-processing)
                        e0, e1 = col["extent"]
                        col["extent_inside"] = [
                            float(raw[max(cuts[0], e0) : min(cuts[1] - 1, e1) + 1].sum()),
                            float(raw[max(cuts[-2], e0) : min(cuts[-1] - 1, e1) + 1].sum()),
                            float(raw_sigma),
                        ]
                col.update(
                    kind="bins",
                    low=lo,
                    high=hi,
                    scale=scale,
                    integer=spec.kind == "integer",
                    edges=[float(e) for e in edges],
                    weights=[float(w) for w in weights],
                    cuts=[int(c) for c in cuts],
                    bins=len(cuts) - 1,
                )
                if points is not None:
                    col["points"] = points
                    col["lattice_counts"] = lattice
                col["size"] = col["bins"] + int(missing)
            else:
                col.update(kind="cat", size=len(spec.categories) + int(missing))
            columns.append(col)
        return cls(columns)

    def drop_unmeasured_missing(self, one_way: dict[str, tuple[np.ndarray, float]]) -> None:
        """A DP domain gives every column a missing code; where the column's noisy one-way
        count of missing values is within ``_MISSING_Z`` noise standard deviations of zero,
        sampled rows that drew it get a value instead, drawn from the noisy one-way counts
        of the other codes (post-processing: no column gains missing values from noise
        alone). At 3 sd an empty missing code passed about once in 740 columns: a 4-column
        table with no missing values came back with some in a CI run."""
        for col in self.columns:
            got = one_way.get(col["name"])
            if not col["missing"] or got is None:
                continue
            noisy, sigma = got
            if noisy[-1] <= _MISSING_Z * sigma:
                col["fill_missing"] = [float(v) for v in np.clip(noisy[:-1], 0.0, None)]

    def calibrate(self, one_way: dict[str, tuple[np.ndarray, float]]) -> None:
        """Within-bin sampling set against the model's noisy one-way counts of the coarse
        bins (``one_way``: column -> (noisy counts, noise sd)); post-processing of noisy
        measurements only.

        - **tails**: an outer coarse bin cut back to the fine bins whose counts stand out
          of the noise (:func:`veil.synth._weights._weights`) may hold much more than those bins: a long,
          thin tail under the fine histogram's noise (a small table's visit counts 8-89,
          each value under the noise, together a quarter of the rows). When the bin's
          one-way count exceeds what its kept fine bins hold (their weights plus the noise
          floor taken off them) by ``_MASS_Z`` sd of that difference, the fine bins past
          the cut get that excess, decaying geometrically from the last kept bin
          (:func:`veil.synth._weights._mass_tail`) instead of the steep tail fitted to a few noisy counts;
          equally past the ``extent`` of a weak column's equal bins (sampled uniformly
          inside it), the inside then holding at most the neighbouring bin's density, or,
          when that bin is empty, what the noisy fine counts inside the extent hold
          (``extent_inside``; an empty neighbour left every row inside before);
        - **point masses** of a decimal column (``points``, measured in
          :meth:`build`): its exact zeros (an expense column zero for a quarter of its
          rows: spread over the fine bin ``[0, 0.04)`` their KS statistic alone is 0.23)
          become zeros again, with the probability their noisy count gives inside their
          coarse bin, and its whole numbers (years of schooling written ``12.0`` beside
          a few ``12.5``) are drawn at the whole number of their fine bin with the
          probability their noisy share of the non-zero values gives.
        """
        for col in self.columns:
            got = one_way.get(col["name"])
            if col["kind"] != "bins" or got is None:
                continue
            noisy, s1 = got
            m = np.clip(np.asarray(noisy, dtype=float)[: col["bins"]], 0.0, None)
            w = np.asarray(col["weights"], dtype=float).copy()
            cuts = [int(v) for v in col["cuts"]]
            if "kept" in col and col["bins"] >= 2:
                sf = float(col["fine_sigma"])
                for first, k, edge in (
                    (True, 0, int(col["kept"][0])),
                    (False, col["bins"] - 1, int(col["kept"][1])),
                ):
                    a, b = cuts[k], cuts[k + 1]
                    inner = w[edge:b] if first else w[a : edge + 1]
                    n_in = int((inner > 0).sum())
                    held = float(inner.sum()) + _FLOOR * sf * n_in
                    # a smoothed count averages _SMOOTH raw ones: their sum's noise
                    sd = math.sqrt(s1**2 + _SMOOTH * n_in * sf**2)
                    room = edge - a if first else b - 1 - edge
                    excess = float(m[k]) - held
                    if room > 0 and excess > _MASS_Z * sd:
                        # from the edge's count (its weight plus the floor taken off)
                        width = int(col["kept"][1]) - int(col["kept"][0]) + 1
                        tail = _mass_tail(
                            float(w[edge]) + _FLOOR * sf, room, excess, _span(width, excess, held)
                        )
                        if first:
                            w[a:edge] = tail[::-1]
                        else:
                            w[edge + 1 : b] = tail
                        col["tail_mass"] = True
            if "extent" in col and col["bins"] >= 3:
                # equal bins over the extent of a weak column: the outer ones' sampling
                # weights are 1 inside the extent, 0 past it; in count units, the inside
                # holds at most the neighbouring bin's density per fine bin
                e0, e1 = (int(v) for v in col["extent"])
                for first, k in ((True, 0), (False, col["bins"] - 1)):
                    a, b = cuts[k], cuts[k + 1]
                    nb = k + 1 if first else k - 1
                    width = max(cuts[nb + 1] - cuts[nb], 1)
                    lo_in, hi_in = (max(a, e0), b - 1) if first else (a, min(b - 1, e1))
                    n_in = hi_in - lo_in + 1
                    room = lo_in - a if first else b - 1 - hi_in
                    if n_in < 1 or room < 1:
                        continue
                    dens = min(float(m[nb]) / width, float(m[k]) / n_in)
                    excess = float(m[k]) - dens * n_in
                    sd = s1 * math.sqrt(1.0 + (n_in / width) ** 2)
                    inside = col.get("extent_inside")
                    if dens <= 0:
                        # the next bin in is empty, so its density says nothing of this
                        # bin's rows inside the extent: read them from the fine counts
                        # there (a score's values at 0.9, inside, and 1.1-1.5, past it, in
                        # one bin; or a score's lowest value just inside the extent)
                        if inside is None:  # a layout built without them: no tail
                            continue
                        held = min(max(float(inside[0 if first else 1]), 0.0), float(m[k]))
                        dens = held / n_in
                        excess = float(m[k]) - held
                        sd = math.sqrt(s1**2 + float(inside[2]) ** 2 * n_in)
                    if excess > _MASS_Z * sd:
                        tail = _mass_tail(
                            dens, room, excess, _span(e1 - e0 + 1, excess, dens * n_in)
                        )
                        w[lo_in : hi_in + 1] = dens
                        if first:
                            w[a:lo_in] = tail[::-1]
                        else:
                            w[hi_in + 1 : b] = tail
                        col["tail_mass"] = True
            pts = col.get("points")
            if pts is not None:
                z, wh, ps = (float(v) for v in pts)
                edges = np.asarray(col["edges"], dtype=float)
                if col["low"] <= 0 <= col["high"] and z > max(_POINT_Z * ps, 0.0):
                    f0 = int(np.clip(np.searchsorted(edges, 0.0, side="right") - 1, 0, len(w) - 1))
                    k0 = int(np.searchsorted(cuts, f0, side="right") - 1)
                    p0 = min(z / max(float(m[k0]), 1e-9), 1.0)
                    seg = w[cuts[k0] : cuts[k0 + 1]]
                    rest = float(seg.sum() - w[f0])
                    share = float(w[f0]) / float(seg.sum()) if seg.sum() > 0 else 0.0
                    if share < p0:  # the zeros' fine bin carries at least their share
                        w[f0] = p0 * rest / (1.0 - p0) if p0 < 1.0 and rest > 0 else 1.0
                        if p0 >= 1.0:
                            w[cuts[k0] : cuts[k0 + 1]] = 0.0
                            w[f0] = 1.0
                        seg = w[cuts[k0] : cuts[k0 + 1]]
                        share = float(w[f0]) / float(seg.sum())
                    col["zero"] = [f0, min(p0 / max(share, 1e-12), 1.0)]
                nonzero = float(m.sum()) - max(z, 0.0)
                if wh > _POINT_Z * ps and nonzero > 0:
                    col["whole"] = min(wh / nonzero, 1.0)
                shares = [
                    [step, min(n_s / nonzero, 1.0)]
                    for step, n_s in zip(
                        _LATTICE_STEPS, col.get("lattice_counts", []), strict=False
                    )
                    if n_s > _POINT_Z * ps and nonzero > 0
                ]
                if shares:
                    col["lattice"] = shares
            col["weights"] = [float(v) for v in w]

    def _fill(self, col: dict[str, Any], c: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Codes with the missing code replaced by draws from ``fill_missing``."""
        fill = col.get("fill_missing")
        miss = c >= col["size"] - 1
        if not fill or not miss.any():
            return c
        w = np.asarray(fill, dtype=float)
        w = w / w.sum() if w.sum() > 0 else np.full(len(w), 1.0 / len(w))
        c = c.copy()
        c[miss] = rng.choice(len(w), size=int(miss.sum()), p=w)
        return c

    @staticmethod
    def _points(
        col: dict[str, Any],
        x: np.ndarray,
        fine: np.ndarray,
        left: np.ndarray,
        right: np.ndarray,
        missing: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Values drawn in a fine bin set to its point mass (see :meth:`calibrate`): the
        zeros' fine bin gives exact zeros with probability ``zero[1]``; elsewhere a value
        whose fine bin holds a whole number becomes that number with the probability that
        gives the measured share of whole numbers among the non-zero values."""
        zero, whole, lattice = col.get("zero"), col.get("whole"), col.get("lattice")
        if zero is None and whole is None and lattice is None:
            return x
        x = x.copy()
        isz = np.zeros(len(x), dtype=bool)
        done = np.zeros(len(x), dtype=bool)
        if zero is not None:
            isz = (fine == int(zero[0])) & (rng.random(len(x)) < float(zero[1])) & ~missing
        if whole is not None:
            klo, khi = np.ceil(left), np.ceil(right) - 1.0
            rest = ~isz & ~missing
            has = (klo <= khi) & rest
            share = float(has.sum()) / max(float(rest.sum()), 1.0)
            if share > 0:
                snap = has & (rng.random(len(x)) < min(float(whole) / share, 1.0))
                x[snap] = np.clip(np.round(x[snap]), klo[snap], khi[snap])
                done = done | snap
        # the measured steps (halves, tenths ...) next, each on the rows left, with the
        # probability that gives its share of the non-zero values
        nonzero = max(float((~isz & ~missing).sum()), 1.0)
        for step, target in lattice or []:
            rest = ~isz & ~missing & ~done
            klo = np.ceil(left / step - 1e-9)
            khi = np.ceil(right / step - 1e-9) - 1.0
            # (fine bins of one to _LATTICE_MAX steps: a wider one is no point mass's)
            has = (klo <= khi) & (khi - klo < _LATTICE_MAX) & rest
            share = float(has.sum()) / nonzero
            if share <= 0:
                continue
            snap = has & (rng.random(len(x)) < min(float(target) / share, 1.0))
            pick = klo + np.floor(rng.random(len(x)) * np.maximum(khi - klo + 1.0, 1.0))
            # (a step drawn may be a whole number or a coarser step: rare in a fine bin of
            # one to four steps, and left as drawn)
            x[snap] = np.round(pick[snap] * step, 12)
            done = done | snap
        x[isz] = 0.0
        return x

    @property
    def sizes(self) -> dict[str, int]:
        return {c["name"]: int(c["size"]) for c in self.columns}

    def encode(self, data: pd.DataFrame, schema: TableSchema) -> dict[str, np.ndarray]:
        """Codes per column. Values outside the domain: numbers are clipped to the bounds,
        categories not in the list become the missing code."""
        out: dict[str, np.ndarray] = {}
        for col in self.columns:
            spec: ColumnSpec = schema[col["name"]]
            s = data[col["name"]]
            if col["kind"] == "cat":
                codes = np.asarray(
                    pd.Categorical(s, categories=spec.categories).codes, dtype=np.int64
                )
                codes[codes < 0] = len(spec.categories)
                if not col["missing"]:
                    codes = np.minimum(codes, max(len(spec.categories) - 1, 0))
            else:
                x = _as_float(s, spec.kind)
                edges = np.asarray(col["edges"])
                xc = np.clip(np.nan_to_num(x, nan=edges[0]), edges[0], edges[-1])
                fine = np.clip(np.searchsorted(edges, xc, side="right") - 1, 0, len(edges) - 2)
                codes = np.searchsorted(np.asarray(col["cuts"]), fine, side="right") - 1
                codes = np.clip(codes, 0, col["bins"] - 1).astype(np.int64)
                codes[np.isnan(x)] = col["bins"] if col["missing"] else codes[np.isnan(x)]
            out[col["name"]] = codes
        return out

    def decode(
        self, codes: dict[str, np.ndarray], schema: TableSchema, rng: np.random.Generator
    ) -> pd.DataFrame:
        out: dict[str, Any] = {}
        for col in self.columns:
            spec = schema[col["name"]]
            c = self._fill(col, np.asarray(codes[col["name"]], dtype=np.int64), rng)
            if col["kind"] == "cat":
                cats = np.array([*spec.categories, None], dtype=object)
                out[col["name"]] = cats[np.minimum(c, len(spec.categories))]
                continue
            missing = c >= col["bins"]
            b = np.minimum(c, col["bins"] - 1)
            edges = np.asarray(col["edges"], dtype=float)
            weights = np.asarray(col["weights"], dtype=float)
            cuts = np.asarray(col["cuts"], dtype=np.int64)
            fine = np.empty(len(c), dtype=np.int64)
            u = rng.random(len(c))
            for k in np.unique(b):
                rows = np.flatnonzero(b == k)
                w = weights[cuts[k] : cuts[k + 1]]
                if w.sum() <= 0:  # nothing measured above the noise: every fine bin alike
                    w = np.ones(cuts[k + 1] - cuts[k])
                cdf = np.cumsum(w) / w.sum()
                cdf[-1] = 1.0
                fine[rows] = cuts[k] + np.searchsorted(cdf, u[rows], side="right").clip(
                    0, len(w) - 1
                )
            left, right = edges[fine], edges[fine + 1]
            v = rng.random(len(c))
            if col["scale"] == "log":
                lo = col["low"]
                tl, tr = np.log1p(np.maximum(left - lo, 0)), np.log1p(np.maximum(right - lo, 0))
                x = lo + np.expm1(tl + v * (tr - tl))
            else:
                x = left + v * (right - left)
            if spec.kind == "numeric" and spec.decimals is not None:
                x = _on_lattice(x, left, right, spec.decimals, rng.random(len(c)))
            x = self._points(col, x, fine, left, right, missing, rng)
            x = np.clip(x, col["low"], col["high"])
            if col.get("integer"):
                x = np.clip(np.round(x), math.ceil(col["low"]), math.floor(col["high"]))
            elif spec.kind == "datetime":
                x = np.round(x)
            out[col["name"]] = np.where(missing, np.nan, x)
        return pd.DataFrame(out)
