"""Point masses and within-bin draws of the numeric bins (MST, AIM), beside
:mod:`veil.synth._discretize`.

- :func:`_lattice_counts`: a decimal column's values by the coarsest step they lie on
  (halves, quarters, tenths, twentieths, hundredths), counted in the same noisy vector as
  its zeros and whole numbers (a partition: a row adds to one count at most, L2
  sensitivity 1, so the measurement costs what the two counts did);
- :func:`_on_lattice`: a value drawn in a fine bin moved onto a step the column is
  written in, inside that fine bin;
- :func:`_weak_weights`: within-bin sampling of a weak column's equal bins, following its
  noisy fine counts where one stands out, or blocks of them where their sums are uneven
  (:func:`_weak_blocks`).

All post-processing of noisy counts (or of the decimals the output is written with).
"""

from __future__ import annotations

import itertools

import numpy as np

# a fine bin holding at most this many of the steps a decimal column is written in draws
# one of them (:func:`_on_lattice`); a wider one is drawn on its scale and rounded
_LATTICE_MAX = 4
# steps whose values a decimal column's point masses are measured at, beyond its zeros
# and whole numbers (years of school in half years, scores in tenths or twentieths)
_LATTICE_STEPS = (0.5, 0.25, 0.1, 0.05, 0.01)
# a weak column's coarse bin follows its fine counts where one stands this many sd out
# (an empty fine bin does so about once in 300,000)
_WEAK_POINT_Z = 4.5
# ... else follows the noisy sums of blocks of this many fine bins (the smallest size at
# which they are too uneven for an even spread: a chi-square test at this level)
_WEAK_BLOCKS = (2, 4, 8, 16, 32)
_WEAK_BLOCK_P = 1e-3


def _lattice_counts(x: np.ndarray) -> list[float]:
    """How many of ``x`` (non-whole values) lie on each step of ``_LATTICE_STEPS``,
    counted at the coarsest one only (a partition: 0.5 counts as a half, not a quarter),
    with the tolerance of a value stored as a 32-bit float (0.1 read as 0.10000000149)."""
    left = np.ones(len(x), dtype=bool)
    out = []
    for step in _LATTICE_STEPS:
        q = x / step
        on = left & (np.abs(q - np.round(q)) <= 1e-6 * np.maximum(1.0, np.abs(q)))
        out.append(float(on.sum()))
        left &= ~on
    return out


def _on_lattice(
    x: np.ndarray, left: np.ndarray, right: np.ndarray, decimals: int, u: np.ndarray
) -> np.ndarray:
    """Values drawn in fine bins ``[left, right)`` moved onto the numbers a column with
    ``decimals`` decimals can hold (steps of ``10**-decimals``) *inside* their fine bin,
    uniformly among them (``u`` uniform in [0, 1)), where a bin holds at least one and at
    most ``_LATTICE_MAX``; other values are left as drawn.

    The synthetic column is written with the input's decimals anyway
    (:func:`~veil.synth._schema.restore_dtypes`); rounding a value drawn uniformly in a
    fine bin sends part of the bin's mass to a step in the *neighbouring* fine bin, which
    smears a point mass the noisy histogram placed: years of school in half years, a
    third of them 10.5, in a fine bin [10.44, 10.53) came back as 10.4 for a third of
    those rows (KS complement 0.77). Post-processing: it uses the fine bin drawn and the
    decimals the output is written with, nothing else."""
    step = 10.0**-decimals
    # a step on a bin's left edge is in it, one on its right edge is not (half-open bins)
    klo = np.ceil(left / step - 1e-9)
    khi = np.ceil(right / step - 1e-9) - 1.0
    n = khi - klo + 1.0
    ok = (n >= 1.0) & (n <= _LATTICE_MAX)
    pick = klo + np.floor(u * np.maximum(n, 1.0))
    return np.where(ok, np.round(pick * step, decimals), x)


def _weak_weights(noisy: np.ndarray, sigma: float, cuts: list[int], flat: np.ndarray) -> np.ndarray:
    """Within-bin sampling weights of a weak column's equal bins: ``flat`` (1 inside the
    extent, 0 past it) where a coarse bin's noisy fine counts (``noisy``, unsmoothed: the
    smoothing would spread a value over five fine bins; noise sd ``sigma``) show nothing, else those counts clipped at zero (the fine bins past the
    extent kept at 0). A coarse bin shows something when one of its fine counts stands
    ``_WEAK_POINT_Z`` sd out: a score of few values (ages coded 0.19, 0.22, ... 0.72 in
    steps of 0.05, on 5,190 rows) has its values standing out of the noise one by one
    while most of its fine bins are empty, and uniform sampling between them spread a
    tenth of the rows at 0.27 over 0.23-0.31 (KS complement 0.89; a pitch speed, two
    modes at 0.1 mph steps, averaged 0.79 over four fits before this rule and 0.91
    after). A coarse bin whose
    fine counts are all under the noise follows blocks of them where their sums are too
    uneven for an even spread (:func:`_weak_blocks`), else stays uniform: its noisy counts
    would only move mass at random. Post-processing of the noisy counts."""
    w = np.asarray(flat, dtype=float).copy()
    inside = w > 0
    for a, b in itertools.pairwise(cuts):
        seg = noisy[a:b]
        if b - a < 2:
            continue
        if (seg[inside[a:b]] > _WEAK_POINT_Z * sigma).any():
            w[a:b] = np.where(inside[a:b], np.clip(seg, 0.0, None), 0.0)
            continue
        blocks = _weak_blocks(seg, sigma, inside[a:b])
        if blocks is not None:
            w[a:b] = blocks
    return w


def _weak_blocks(seg: np.ndarray, sigma: float, inside: np.ndarray) -> np.ndarray | None:
    """Within-bin weights of a coarse bin none of whose fine counts stands out: the bin cut
    into blocks of ``m`` fine bins (``m`` in ``_WEAK_BLOCKS``, the smallest that works),
    each block's noisy sum clipped at zero, spread evenly over its fine bins; "works" when
    the blocks' noisy sums are too uneven for an even spread plus noise (a chi-square test
    of their spread, sd ``sigma x sqrt(m)`` each, at ``_WEAK_BLOCK_P``). None when no size
    works (the bin stays uniform). A pitch speed on 3,402 rows had half of them in one
    coarse bin of 4.5 mph, the data in its lower 2.5 mph and no single fine count (a
    quarter mph) over its noise sd of 90: drawn uniformly the bin alone cost 0.23 of KS.
    Post-processing of the noisy counts."""
    from scipy.stats import chi2

    n = len(seg)
    for m in _WEAK_BLOCKS:
        if 2 * m > n:
            break
        starts = np.arange(0, n, m)
        sums = np.add.reduceat(np.where(inside, seg, 0.0), starts)
        sizes = np.add.reduceat(inside.astype(float), starts)
        ok = sizes > 0
        if ok.sum() < 2:
            break
        dens = sums[ok] / sizes[ok]
        mean = float(sums[ok].sum() / sizes[ok].sum())
        # an even spread: block sums mean x size, each with noise variance sigma**2 x size
        stat = float((((dens - mean) ** 2) * sizes[ok]).sum()) / sigma**2
        if stat <= chi2.isf(_WEAK_BLOCK_P, int(ok.sum()) - 1):
            continue
        per_bin = np.repeat(
            np.clip(sums, 0.0, None) / np.maximum(sizes, 1.0), np.diff(np.append(starts, n))
        )
        return np.where(inside, per_bin, 0.0)
    return None
