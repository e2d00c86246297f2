"""The domain of the DP synthesizers (bounds, category lists), estimated under DP.

MST and AIM lay their marginals out over a *domain*: numeric bounds and category lists. A
domain read from the data is outside the DP guarantee (a rare category or an extreme value
is revealed to exist). Here every column whose domain was not declared gets one estimated
under DP, from a documented share of the budget:

- **numeric, integer and date bounds**: a Gaussian-noised histogram over a fixed grid that
  does not depend on the data (signed powers of two, ``±2**k`` for ``k`` in -10..62, and
  one bin around zero; dates: calendar years 1800-2199). The first and last bins whose
  noisy count exceeds 4.5 noise standard deviations (a false bin is then a 1-in-300,000
  event per bin) hold the data, widened past them to the outermost run of 2, 4, 8 or 16
  neighbouring bins whose noisy *sum* stands 4.5 sd of that sum out (a small table spread
  over many powers of two has no single bin above the noise: Gapminder's 1,400
  populations were clipped into one power of two); a bin is apart from the data by the
  grid bins between it, or its mirror image across zero, and them, and a range standing
  on one side of zero reaches across it to a run standing out no further out than its
  mirror (:func:`_mirrored_runs`: a small column spread across zero lost one side);
  when no single bin stands out at all,
  the range then widens over the neighbouring bins whose noisy sum stands out of its noise
  by the most, each bin after the first also holding half a noise sd of rows
  (:func:`_widen`: a long tail under the noise is not clipped away, nor is the range walked
  out over empty bins by their noise); rows the standing bins miss (the noisy row count
  less their noisy sum) standing 3 sd of that difference out widen a range with room on
  one side only (a zero-inflated count's zeros, alone or with positive values) over the
  bins that hold them, each bin costing one noise sd (:func:`_missing_rows`: a count with
  86 % zeros on 5,190 rows lost its whole tail to bounds [0, 0] in 1 draw of 5); where the
  noisy counts fall outwards from the bin before
  (a tail), the bound reaches into the grid bin *next to* the last one standing
  out (headroom: the whole power of two when that last bin's own noisy count stands 2.5
  sd out, a share in proportion below that, none for a count at or under zero, since an
  end reached by widening over noise-level bins is no evidence of a tail going on; none
  past the bin around zero, so a column of
  counts gets no negative values, and none for a column inside one or two bins, such as years or lifespans,
  whose ends the fine histogram resolves): the thin tail past the last bin that stands out (the
  longest stays: 12 of 40,000 rows past 16 days on the benchmark's table) is under the
  noise, not absent, and where the synthetic values stop inside the bounds is decided by
  the noisy fine histogram (:mod:`veil.synth._discretize`). An integer column's bounds
  are the whole numbers inside (``[0.5, 1)`` holds none: a stay column starting at 1
  keeps its low bound 1). Values outside are clipped.
- **category lists**: the Gaussian *stability histogram*: the noisy count of every value
  seen, kept when it exceeds ``1 + z * sigma``, where ``z`` makes the chance that a value
  held by one row passes at most ``delta_threshold / columns``. This is approximate zCDP:
  it costs rho for the noise and ``delta_threshold`` (half of the fit's delta) on top.
  Values dropped as too rare are encoded as missing.

The numbers are what OpenDP's Gaussian mechanism returns (:class:`ZCDPBudget`); no noise
comes from numpy.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from veil.synth._noise import ZCDPBudget

__all__ = [
    "BOUNDS_Z",
    "dp_bounds",
    "dp_categories",
    "numeric_grid",
    "read_public_domain",
    "stability_threshold",
]

BOUNDS_Z = 4.5
# a bin (or run) standing out apart from the rest, with at least two bins between them that do
# not, needs this many sd: every one of the grid's ~146 bins is tested, and at BOUNDS_Z one
# empty bin of a column passed about once in 4,000 fits, pulling the whole range to it
# (MedExp's expenses came out in [-2**41, 0] once); 5.5 sd holds the whole grid near the
# 1-in-300,000 rate a single test has at BOUNDS_Z
_APART_Z = 5.5
_APART_GAP = 2
_RUNS = (2, 4, 8, 16)  # runs of neighbouring grid bins summed when no bin stands out
_WIDEN_Z = 2.5  # the bins next to the standing ones join while their sum stands this out
_WIDEN_MAX = 16  # ... looking at most this many bins out
# ... and while each holds this many noise sd of rows on average: past a tail's end the
# sum's penalty grows ever more slowly (sqrt(k)), so alone it let the noise of empty bins
# carry the range out by up to _WIDEN_MAX bins (NMES1988's years of school, 0-18, got an
# upper bound of 131,072 in 1 of 60 simulated draws and of 512 in another; a quarter of
# an sd still let it reach 512 once); the first bin is free, so a thin tail that only its
# sum shows keeps most of itself (Gapminder's populations lose 16 % of their values to the
# bounds on average in benchmarks/synth_domain_sim.py, 10 % before)
_WIDEN_PER_BIN = 0.5
# rows the standing bins miss (noisy row count less their noisy sum) standing this many sd of
# that difference out are taken as there (a false alarm about once in 740 columns, which
# then widens by a grid bin about one time in 6: _missing_rows); a range with room on one
# side only then widens over the bins that hold them (doctorvisits' ``reduced``, 86 % zeros
# and 736 rows over 1-14 on 5,190 rows, had bounds [0, 0] in 12 of 60 simulated draws: no
# bin of its tail and no sum of them stood out of _widen's penalties, while the rows the
# zeros' bin missed did)
_REST_Z = 3.0
_HEAD_Z = 2.5  # an end bin standing this many sd out gets a whole grid bin of headroom
_ACROSS_Z = 3.75  # a range missing rows is carried across zero by a run this many sd out
_CORE_SHARE = 0.9  # ... also when the bins standing out hold less of the noisy row count
_ZERO_RATIO = 8.0  # a range of one sign whose far end is this many times its near end
# starts at zero, when it lies within this distance of zero (a linear fine grid; see dp_bounds)
_ZERO_SPAN = 1000.0
_YEAR_NS = 365.2425 * 86400e9


def read_public_domain(
    path: str | Path,
) -> tuple[dict[str, tuple[float, float]], dict[str, list[Any]]]:
    """(bounds, categories) from a JSON or YAML file::

    {"bounds": {"age": [0, 120]}, "categories": {"sex": ["F", "M"]}}
    """
    from veil._errors import InputError

    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
        if p.suffix.lower() in (".yaml", ".yml"):
            import yaml

            doc = yaml.safe_load(text)
        else:
            doc = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read the public domain file {p} ({type(exc).__name__})") from None
    if not isinstance(doc, dict) or set(doc) - {"bounds", "categories"}:
        raise InputError(
            f"{p}: a public domain file holds 'bounds' and/or 'categories' only",
            hint='e.g. {"bounds": {"age": [0, 120]}, "categories": {"sex": ["F", "M"]}}',
        )
    bounds: dict[str, tuple[float, float]] = {}
    for name, pair in (doc.get("bounds") or {}).items():
        try:
            lo, hi = (float(v) for v in pair)
        except (TypeError, ValueError):
            raise InputError(f"{p}: bounds of column {name!r} must be [low, high]") from None
        bounds[str(name)] = (lo, hi)
    cats: dict[str, list[Any]] = {}
    for name, values in (doc.get("categories") or {}).items():
        if not isinstance(values, list) or not values:
            raise InputError(f"{p}: categories of column {name!r} must be a non-empty list")
        cats[str(name)] = list(values)
    return bounds, cats


def numeric_grid(kind: str) -> np.ndarray:
    """Edges of the data-independent grid used to find bounds (increasing)."""
    if kind == "datetime":
        years = np.arange(1800, 2201)
        return np.array(
            [pd.Timestamp(year=int(y), month=1, day=1).value for y in years], dtype=float
        )
    if kind == "integer":
        # no bins that cannot hold a whole number: between 0's bin and 1's, the ten powers
        # of two of a decimal grid (2**-10 to 1) are empty for every integer column, and a
        # zero-inflated count's ones and twos had to stand out across them to be kept
        # (NMES1988's office visits, 77 % zeros, got bounds [0, 0] in 2 runs of 6)
        pos = 2.0 ** np.arange(1, 63)
        return np.concatenate([-pos[::-1], [-0.5, 0.5], pos])
    pos = 2.0 ** np.arange(-10, 63)
    return np.concatenate([-pos[::-1], pos])


def _gap(i: int, others: np.ndarray, zero: int) -> int:
    """Grid bins between bin ``i`` and the nearest of ``others``, or between ``i``'s
    mirror image across the bin around zero (``zero``; -1: none) and the nearest of them,
    whichever is fewer. Measured along the grid alone, the values of a column spread
    across zero (deviations, positions, differences: -30 to 30) that stand out on one
    side are twenty-odd bins from those on the other, the powers of two between -1 and 1
    that hold few of its rows, so the other side, standing out at 4.5 sd but not 5.5 on a
    small table, was taken for noise apart from the data and clipped away (a pitch's
    horizontal position, 3,402 rows: bounds [-16, 0], 41 % of its values clipped to 0).
    A bin whose mirror lies among or beside the bins standing out is no further from the
    data than they are from zero."""
    near = int(np.min(np.abs(others - i))) - 1
    if zero < 0 or i == zero:
        return near
    mirror = 2 * zero - i
    return min(near, int(np.min(np.abs(others - mirror))) - 1)


def _standing(noisy: np.ndarray, sigma: float, zero: int = -1) -> tuple[int, int]:
    """First and last grid bin holding data: the outermost bins whose noisy count stands
    ``BOUNDS_Z`` noise sd out, then, past them, the outermost run of ``m`` neighbouring bins
    (``m`` in ``_RUNS``) whose noisy *sum* stands ``BOUNDS_Z`` sd of that sum (sigma x
    sqrt(m)) out. A small table spread over many powers of two (1,400 country-years of
    populations from 6e4 to 1.3e9) has no single bin above the noise but its runs are; a
    run only counts lying wholly outside what already stands out, so one large bin does
    not carry an empty neighbour's noise out with it. Post-processing of the noisy counts
    (no further budget); an empty run passes about once in 300,000. ``zero``, the bin
    around zero (-1: none): runs do not carry a range that stands out on one side of zero
    across it (on the integer grid a zero-inflated count's range reached -2**30 once in
    300 draws)."""
    hot = np.flatnonzero(noisy > BOUNDS_Z * sigma)
    # an outermost bin standing out apart from the others must stand out _APART_Z sd
    while (
        hot.size > 1
        and _gap(hot[0], hot[1:], zero) > _APART_GAP
        and noisy[hot[0]] <= _APART_Z * sigma
    ):
        hot = hot[1:]
    while (
        hot.size > 1
        and _gap(hot[-1], hot[:-1], zero) > _APART_GAP
        and noisy[hot[-1]] <= _APART_Z * sigma
    ):
        hot = hot[:-1]
    if hot.size:
        first, last = int(hot[0]), int(hot[-1])
    else:  # no single bin stands out: the widest-standing run, else the largest count
        first = last = int(np.argmax(noisy))
        for m in _RUNS:
            sums = np.convolve(noisy, np.ones(m), mode="valid")
            ok = np.flatnonzero(sums > BOUNDS_Z * sigma * math.sqrt(m))
            if ok.size:
                first, last = int(ok[0]), int(ok[-1]) + m - 1
                break
    floor = zero if zero >= 0 and first >= zero else 0
    ceil = zero if zero >= 0 and last <= zero else len(noisy) - 1
    for m in _RUNS:
        thr = BOUNDS_Z * sigma * math.sqrt(m)
        # lowest run ending below ``first``; highest starting above ``last``
        apart = _APART_Z * sigma * math.sqrt(m)
        while first - m >= floor:
            sums = np.convolve(noisy[floor:first], np.ones(m), mode="valid")
            gap = first - (floor + np.arange(len(sums)) + m)  # bins between run and range
            ok = np.flatnonzero((sums > thr) & ((gap <= _APART_GAP) | (sums > apart)))
            if not ok.size:
                break
            first = floor + int(ok[0])
        while last + m <= ceil:
            sums = np.convolve(noisy[last + 1 : ceil + 1], np.ones(m), mode="valid")
            gap = np.arange(len(sums))  # bins between ``last`` and the run
            ok = np.flatnonzero((sums > thr) & ((gap <= _APART_GAP) | (sums > apart)))
            if not ok.size:
                break
            last = last + 1 + int(ok[-1]) + m - 1
    if zero >= 0 and (last < zero or first > zero):
        first, last = _mirrored_runs(noisy, sigma, zero, first, last)
    return first, last


def _mirrored_runs(
    noisy: np.ndarray, sigma: float, zero: int, first: int, last: int, z: float = BOUNDS_Z
) -> tuple[int, int]:
    """A range standing out on one side of zero (``first`` to ``last``), widened across
    it to the outermost run of ``m`` neighbouring bins (``m`` in ``_RUNS``) on the other
    side whose noisy sum stands ``BOUNDS_Z`` sd of that sum out and which lies between
    zero and the mirror image of the range's far end: a column spread across zero on a small table (a
    pitch's position, -31 to 30 on 3,402 rows) has its other side in bins of 300 to 400
    rows each, under 4.5 sd of noise 90, while the bins of a run of them are not. The
    mirror bounds the reach: a column of one sign gains values of the other only when a
    run of empty bins no further out than its own data passes (about once in 300,000
    runs), and never far past them (runs are otherwise not carried across zero: on the
    integer grid a zero-inflated count's range once reached -2**30). Post-processing of
    the noisy counts. ``z``: the sd a run must stand out by (:func:`_across_zero` asks less
    where the rows the range misses are known to stand out)."""
    for m in _RUNS:
        sums = np.convolve(noisy, np.ones(m), mode="valid")
        j = np.arange(len(sums))
        if last < zero:  # between zero and the mirror of the range's far end
            other = (j > zero) & (j + m - 1 <= 2 * zero - first)
        else:
            other = (j + m - 1 < zero) & (j >= 2 * zero - last)
        ok = np.flatnonzero((sums > z * sigma * math.sqrt(m)) & other)
        if ok.size:
            if last < zero:
                last = max(last, int(ok[-1]) + m - 1)
            else:
                first = min(first, int(ok[0]))
    return first, last


def _widen(
    noisy: np.ndarray,
    first: int,
    last: int,
    sigma: float,
    zero: int,
    rest: float | None = None,
    missing_only: bool = False,
    rows_sigma: float | None = None,
) -> tuple[int, int]:
    """Used when no single grid bin stands out of the noise (a small table for its budget;
    larger ones are left to :func:`_standing`'s runs as before). ``first`` and ``last``
    moved outwards by the ``k`` grid bins next to them (at most
    ``_WIDEN_MAX``) whose noisy sum stands out of its noise by the most: ``k`` maximizes
    that sum less ``_WIDEN_Z`` sd of it (``sigma x sqrt(k)``) and less ``_WIDEN_PER_BIN``
    sd for each bin after the first, when positive (a bin joins only if it holds some
    rows: past a tail's end the square root's penalty grows ever more slowly and, alone,
    let the noise of empty bins carry the range out by up to ``_WIDEN_MAX`` bins, more
    than four bins past a thin top in 8 % of draws; now 0.2 %). Clipping a
    tail costs more than a wider range: a small table's long tail (1,400 log-normal values
    over ten powers of two, noise sd 66) has no bin and no run of bins that stands 4.5 sd out
    past its two or three densest bins, which alone would clip half of the rows, but the
    tail's sum next to them stands out; past the tail's end the penalty grows and the
    noise adds nothing on average, so the maximum stops near it. Empty neighbours widen
    the range about one side in 20 (on a column inside one power of two), mostly by a bin or two. Not across zero (a positive column
    may reach the bin around zero, not negative values). When only the bin around zero
    stands out (a zero-inflated count on a small table: NMES1988's office visits, 77 %
    zeros, had its bounds stuck at [0, 0] and lost every other value), the column is
    taken as non-negative (counts, amounts) and widens upwards only: choosing the side
    whose sum stood out more let noise pick the negative one in about one run in 16;
    a column of negative values whose zeros alone stand out is clipped at zero (declare
    its bounds). ``rest``, the rows the standing bins miss (the noisy row count less
    their noisy sum): a side stops widening once the bins it adds hold them, since past
    that its sum only gathers noise (on NMES1988 a count of hospital stays, 80 % zeros,
    was widened to [0, 61269] before). On a range with room on one side only, that side
    also widens at least over the bins that hold ``rest`` when it stands out of its noise
    (:func:`_missing_rows`); ``missing_only``: that alone (a range holding most of the
    rows, which is otherwise left as it stands). Post-processing of the noisy counts."""
    n = len(noisy)
    stop_hi = n - 1 if last > zero or zero < 0 else zero - 1
    stop_lo = zero if first > zero >= 0 else 0
    # zeros and positive values standing out: not below zero either (on the integer grid,
    # whose bins next to zero hold -1 and -2, noise widened a count of emergency visits
    # below zero, to -2023, in one run of 16); the same for zeros and negative values
    if zero >= 0 and first == zero < last:
        stop_lo = zero
    if zero >= 0 and first < zero == last:
        stop_hi = zero
    only_zero = zero >= 0 and first == last == zero
    if only_zero:  # zeros alone: taken as a non-negative column (counts, amounts)
        stop_hi, stop_lo = n - 1, zero
    found: dict[int, tuple[int, float]] = {}
    for side in (1, -1):
        edge = last if side > 0 else first
        room = stop_hi - edge if side > 0 else edge - stop_lo
        best, top, acc = 0, 0.0, 0.0
        for k in range(1, min(0 if missing_only else room, _WIDEN_MAX) + 1):
            acc += float(noisy[edge + side * k])
            excess = acc - _WIDEN_Z * sigma * math.sqrt(k) - _WIDEN_PER_BIN * sigma * (k - 1)
            if excess > top:
                best, top = k, excess
            if rest is not None and best and acc >= rest:
                break
        found[side] = (best, top)
    if rest is not None:  # rows known to be missing, on the one side with room
        rooms = {1: stop_hi - last, -1: first - stop_lo}
        for side in (1, -1):
            if rooms[side] > 0 and rooms[-side] <= 0:
                edge = last if side > 0 else first
                out = noisy[edge + 1 :] if side > 0 else noisy[:edge][::-1]
                k = _missing_rows(out[: rooms[side]], sigma, last - first + 1, rest, rows_sigma)
                found[side] = (max(found[side][0], k), found[side][1])
    return first - found[-1][0], last + found[1][0]


def _across_zero(
    noisy: np.ndarray,
    first: int,
    last: int,
    sigma: float,
    zero: int,
    rows: float | None,
    rows_sigma: float | None,
) -> tuple[int, int]:
    """A range on one side of zero carried across it, when the rows it misses (the noisy
    row count less its noisy sum) stand ``_REST_Z`` sd of their noise out: to the
    outermost run of bins on the other side, no further out than the range's mirror image,
    whose sum stands ``_ACROSS_Z`` sd out (:func:`_mirrored_runs`, which asks 4.5 sd of a
    range without that evidence). A deviation around zero on 3,402 rows (Kershaw's pitch
    ``VDev``, -17 to 18) had its positive half standing out and its negative half (23 % of the rows
    over three powers of two, each under 3 sd of noise 90, no run at 4.5 sd either) under
    the noise: its bounds stopped at zero in about half the draws, and the KS complement
    fell to 0.66, while the rows missed stood 8 sd out. An empty run passes 3.75 sd about
    once in 11,000 (some 50 runs lie inside a mirror image). Post-processing of the noisy
    counts."""
    if rows is None or sigma <= 0:
        return first, last
    rest = rows - float(noisy[first : last + 1].sum())
    if rest <= _REST_Z * _rest_sd(sigma, last - first + 1, rows_sigma):
        return first, last
    return _mirrored_runs(noisy, sigma, zero, first, last, _ACROSS_Z)


def _rest_sd(sigma: float, standing: int, rows_sigma: float | None) -> float:
    """Noise sd of the rows ``standing`` bins miss: their noisy sum's (``sigma`` each) and
    the noisy row count's (``rows_sigma``; ``sigma`` when not given, the stand-in used
    before the fit passed it). The fit's row count takes 5 % of the domain's budget and
    each column's bounds an equal share of the rest, so the row count's noise is about
    sqrt(9.5 / columns) times a bin's: under it from 10 columns on, three times it with one
    column, where with the stand-in the row count's noise alone passed the rest test
    (:func:`_missing_rows`) about 1 time in 10 instead of 1 in 700."""
    r = sigma if rows_sigma is None else rows_sigma
    return math.sqrt(standing * sigma**2 + r**2)


def _missing_rows(
    outside: np.ndarray, sigma: float, standing: int, rest: float, rows_sigma: float | None = None
) -> int:
    """Grid bins to add past one end of a range of ``standing`` bins that misses ``rest``
    rows (the noisy row count less the bins' noisy sum; ``outside``: the noisy counts of
    the bins past that end, outwards): 0 unless ``rest`` stands ``_REST_Z`` sd of its noise
    out (the standing bins' and the row count's, :func:`_rest_sd`); then the ``k``
    (at most ``_WIDEN_MAX``) maximizing the rows the ``k`` bins account for, their noisy
    sum capped at ``rest``, less one noise sd per bin, when positive. A zero-inflated
    count whose other values are spread over a few bins under the noise each
    (doctorvisits' ``reduced``: 86 % zeros, 736 rows over 1-14 on 5,190 rows) had no
    bin and no sum of bins standing out of :func:`_widen`'s penalties, so its bounds came
    out [0, 0] in 12 of 60 simulated draws while the rows it missed stood out; the cap
    stops the sum from gaining past the missing rows, and the sd per bin makes an empty
    bin a loss on average (the range walks ``m`` bins past the data's end about as often
    as a sum of ``m`` noise draws exceeds ``m`` sd: 2 % for 4 bins). Post-processing of
    the noisy counts."""
    if sigma <= 0 or rest <= _REST_Z * _rest_sd(sigma, standing, rows_sigma):
        return 0
    acc = np.cumsum(outside[:_WIDEN_MAX])
    if not acc.size:
        return 0
    gain = np.minimum(acc, rest) - sigma * np.arange(1, acc.size + 1)
    k = int(np.argmax(gain))
    return k + 1 if gain[k] > 0 else 0


def _headroom(side: np.ndarray, sigma: float) -> float:
    """Grid bins of headroom (a fraction of one) past one end of the standing bins;
    ``side`` are their noisy counts from that end inwards to the peak. None unless they
    fall towards the end (a tail whose thin end is under the noise); then in proportion to
    the evidence that the end bin holds data: a whole grid bin (a power of two) when its
    noisy count stands ``_HEAD_Z`` noise sd (``sigma``) out, less in proportion below
    that, none for a count at or under zero. An end reached by widening over bins at the
    noise's level is no evidence of a tail going on past it: a whole power of two past
    such an end took a column of years of school (0-18) to 512 once the noise had carried
    it to 256. Post-processing of the noisy counts."""
    if len(side) < 2 or side[0] >= side[1] or sigma <= 0:
        return 0.0
    return float(np.clip(side[0] / (_HEAD_Z * sigma), 0.0, 1.0))


def _part(end: float, nxt: float, share: float, kind: str) -> float:
    """The point ``share`` of the way from a grid edge ``end`` to the next one out,
    ``nxt``: geometric between two powers of two of one sign (years: linear)."""
    if kind == "datetime" or end == 0.0 or nxt == 0.0 or (end > 0) != (nxt > 0):
        return end + share * (nxt - end)
    return float(end * (nxt / end) ** share)


def dp_bounds(
    values: np.ndarray,
    kind: str,
    sigma: float,
    budget: ZCDPBudget,
    what: str,
    rows: float | None = None,
    rows_sigma: float | None = None,
) -> tuple[float, float, int]:
    """(low, high, values clipped) for one column, from a noisy histogram on the fixed grid.

    ``rows_sigma``: the noise sd of ``rows`` (:func:`_rest_sd`; the bins' ``sigma`` when
    not given).

    ``rows``, a noisy (DP) row count: the bins that stand out are widened (:func:`_widen`)
    when they hold less than ``_CORE_SHARE`` of it, as well as when no single bin stands
    out (a small table's spread column: one noisy bin may stand out of five of a GDP per
    head's, holding a fifth of the rows).

    ``values`` are the non-missing values (floats; dates in ns). The clipped count is for
    the operator's notes; it is not part of the released model.
    """
    edges = numeric_grid(kind)
    x = np.clip(values, edges[0], edges[-1])
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(edges) - 2)
    counts = np.bincount(idx, minlength=len(edges) - 1).astype(float)
    noisy = budget.gaussian(counts, sigma, what=what)
    zero = len(edges) // 2 - 1 if kind != "datetime" else -1
    first, last = _standing(noisy, sigma, zero)
    top = len(edges) - 2
    core = float(noisy[first : last + 1].sum())
    rest = None if rows is None else max(rows - core, 0.0)
    missing = rest is not None and rest > _REST_Z * _rest_sd(sigma, last - first + 1, rows_sigma)
    if not (noisy > BOUNDS_Z * sigma).any() or (rows is not None and core < _CORE_SHARE * rows):
        # few rows: tails unseen
        first, last = _widen(noisy, first, last, sigma, zero, rest, rows_sigma=rows_sigma)
    elif missing:  # rows missing that no bin shows: only where the range has one side free
        first, last = _widen(
            noisy, first, last, sigma, zero, rest, missing_only=True, rows_sigma=rows_sigma
        )
    if rest is not None and zero >= 0 and (last < zero or first > zero):
        first, last = _across_zero(noisy, first, last, sigma, zero, rows, rows_sigma)
    # grid bins of headroom past an end where the noisy counts fall outwards (a tail whose
    # thin end is under the noise): as many as the decay continued needs (_headroom); not
    # past zero, nor for a column in one bin
    peak = first + int(np.argmax(noisy[first : last + 1]))
    # (none either for a column inside two grid bins: lifespans 23-82 in 32-128 are no
    # long tail, and a doubled range cost them half of the model's bins)
    k_low = _headroom(noisy[first : peak + 1], sigma) if last > first + 1 else 0.0
    k_high = _headroom(noisy[peak : last + 1][::-1], sigma) if last > first + 1 else 0.0
    if first in (zero, zero + 1) or first == 0:
        k_low = 0.0
    if last in (zero, zero - 1) or last == top:
        k_high = 0.0
    lo, hi = float(edges[first]), float(edges[last + 1])
    if kind != "datetime":  # the bin around zero ends the range at zero, not at -2**-10
        lo = 0.0 if first == zero else lo
        hi = 0.0 if last == zero else hi
    # a fraction of the next grid bin, on the grid's (power-of-two) scale; the grid bins
    # never cross zero, so the next bin of a positive end is [lo / 2, lo) (and so on)
    if k_low:
        nxt = float(edges[first - 1])
        lo = nxt if k_low >= 1.0 else _part(lo, nxt, k_low, kind)
    if k_high:
        nxt = float(edges[last + 2])
        hi = nxt if k_high >= 1.0 else _part(hi, nxt, k_high, kind)
    if kind == "numeric" or (kind == "integer" and max(abs(lo), abs(hi)) > _ZERO_SPAN):
        # A decimal range of one sign whose far end is ``_ZERO_RATIO`` times its near end
        # is a scale (scores, ages, log incomes) whose near end is a guess under the noise:
        # the grid's bins shrink towards zero, so the rows near it (a zero-inflated
        # column's zeros, six empty powers of two below its other values) fall in bins
        # too small to stand out and were clipped up to the low bound (MedExp's 304 zero
        # disease scores, 7 % of the column, written as 1). Starting the range at zero
        # costs its linear fine grid at most an eighth of its resolution; a range within
        # two doublings (1024-4096) keeps its ends. The same for a wider range, decimal
        # or integer, whose fine grid is a log scale: a column spread evenly from near
        # zero (depths 6-3,189 m, follow-up days 0-5,215) has half as many rows in each
        # power of two below its bulk, so its lowest rows stand out nowhere and were
        # clipped up to 128 or 512 (4 % and 5 % of the column); from zero, the log grid's
        # bins are as wide as before wherever the values are well above the old low end
        # (``log1p(x)`` against ``log1p(x - low)``). Not an integer column within
        # ``_ZERO_SPAN`` (its lowest whole number stands in a grid bin of its own; a stay
        # of at least 1 would be given zeros). Post-processing of the noisy bounds.
        if lo > 0 and hi >= _ZERO_RATIO * lo:
            lo = 0.0
        elif hi < 0 and lo <= _ZERO_RATIO * hi:
            hi = 0.0
    if kind == "integer":  # the whole numbers inside the range
        lo, hi = math.ceil(lo), math.ceil(hi)
    clipped = int(((values < lo) | (values > hi)).sum())
    return lo, hi, clipped


def stability_threshold(sigma: float, delta_per_column: float) -> float:
    """Noisy count a value needs to be kept: ``1 + z * sigma`` with P(N > z sigma) = delta."""
    from scipy.stats import norm

    return 1.0 + float(norm.isf(delta_per_column)) * sigma


def dp_categories(
    values: pd.Series, sigma: float, threshold: float, budget: ZCDPBudget, what: str
) -> tuple[list[Any], int]:
    """(kept categories in a data-independent order, number of seen values dropped)."""
    counts = values.value_counts(dropna=True)
    if counts.empty:
        return [], 0
    noisy = budget.gaussian(counts.to_numpy(dtype=float), sigma, what=what)
    kept = [v for v, c in zip(counts.index, noisy, strict=True) if c > threshold]
    try:
        kept = sorted(kept)
    except TypeError:
        kept = sorted(kept, key=str)
    return kept, int(len(counts) - len(kept))
