"""Sampling weights of the fine bins of :class:`veil.synth._discretize.Discretizer`.

Everything here is post-processing of noisy fine counts (no budget is spent):

- :func:`_smooth`: noisy fine counts averaged over ``_SMOOTH`` neighbours, except a
  spike the noise cannot explain (a zero-inflated count's zeros);
- :func:`_weights`: the within-bin sampling weights, one noise sd taken off every count
  and, for bounds that may lie far from the data, the two outer coarse bins cut back to
  where the counts are (:func:`_edge`) and continued past the cut by a thin geometric
  tail (:func:`_tail`);
- :func:`_mass_tail` and :func:`_span`: the tail that carries an outer coarse bin's
  excess (its noisy one-way count less what its kept fine bins hold) after the fit
  (:meth:`veil.synth._discretize.Discretizer.calibrate`).

Split out of :mod:`veil.synth._discretize` (878 lines) without a change of behaviour.
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []

_FLOOR = 1.0  # noise standard deviations taken off every fine count
_ANCHOR = 4.0  # an outer coarse bin keeps its fine bins up to the outermost count above this
_EXTEND = 2.0  # ... and beyond it while the counts stay above this
_GAP = 3  # ... looking this many fine bins ahead (one low noisy count does not stop it)
# a count above _ANCHOR with more than _GAP fine bins between it and the rest of the data
# needs this many sd: every fine bin of an outer coarse bin is tested (hundreds on an
# integer column), and at 4 sd one empty bin far out took a stay column's tail to 241
# days (data up to 11) in about one run in 60; at 5.5 sd an empty bin passes once in 50
# million
_APART = 5.5
_SMOOTH = 5  # noisy fine counts are averaged over this many neighbours ...
_SPIKE = 5.0  # ... except a count this many noise sd off its neighbours' mean
_TAIL_FIT = 3  # the tail past a cut-back outer bin decays as its last kept bins did ...
_TAIL_RATIO = 0.5  # ... by at most this factor per fine bin
_DROP_Z = 0.5  # ... when the decrease stands this many sd of its noise out (unsmoothed counts)
_MASS_RATIO = 0.95  # an outer bin's excess (calibrate) decays by at least this factor per fine bin
# ... and with a mean length of at most this share of the fine bins the data stand in: a
# decay of 0.95 per fine bin alone spread the excess of a column of years of school (data
# 0-18, one fine bin per year) out to 389 on NMES1988
_TAIL_SPAN = 0.5


def _mass_tail(start: float, room: int, mass: float, width: int | None = None) -> np.ndarray:
    """``room`` weights continuing outwards from a fine bin of weight ``start`` that sum to
    ``mass`` (an excess the model's noisy one-way count measured past the fine bins whose
    own counts stand out): a geometric decay ``start x r**i`` with ``r`` solved for the
    sum, at most ``_MASS_RATIO`` (a tail decays: a flat one to the bounds put a small
    table's noisy excess on every value up to 31 emergency visits, when the data stop at
    12) and, given ``width`` (the fine bins the data stand in), at most the ratio whose
    mean length (``1 / (1 - r)`` fine bins) is ``_TAIL_SPAN`` of that width: the excess
    is placed near the data it continues, not over the bounds' headroom (a column of years
    of school, 0-18 on a fine bin per year, got values up to 389 with 0.95 per fine bin).
    When a tail from ``start`` at the largest ratio carries less than ``mass``, the excess
    beyond is left out (it stays with the kept fine bins) at ``_MASS_RATIO``; under the
    width's cap the whole mass goes to a tail of that ratio instead (starting higher):
    the one-way count measured it past the kept fine bins, and the cap keeps it near them.
    Post-processing of noisy counts."""
    if room <= 0 or mass <= 0:
        return np.zeros(max(room, 0))
    steps = np.arange(1, room + 1, dtype=float)
    start = start if start > 0 else mass / room
    cap = _MASS_RATIO
    if width is not None:
        cap = min(cap, max(1.0 - 1.0 / max(_TAIL_SPAN * width, 1.0), 0.0))
    if float((start * cap**steps).sum()) <= mass:  # a decaying tail carries less
        if width is None or cap >= _MASS_RATIO:
            return start * cap**steps
        shape = cap ** (steps - 1)  # the whole mass, near the data
        return mass * shape / float(shape.sum())
    lo, hi = 0.0, cap
    for _ in range(60):
        r = (lo + hi) / 2
        if float((start * r**steps).sum()) < mass:
            lo = r
        else:
            hi = r
    # the bisection's last step (cap / 2**60) is coarse against a tiny ratio (an excess of
    # 1e-9 after a kept bin of 2,533: r about 4e-13, summing to 1e-6 under the mass), so
    # the tail of the ratio found is scaled to the mass exactly
    tail = start * lo**steps
    total = float(tail.sum())
    if total <= 0:  # a ratio under the float's range: the mass in the first bin
        tail[0] = mass
        return tail
    return tail * (mass / total)


def _span(width: int, excess: float, held: float) -> int | None:
    """The width that caps a tail's mean length in :func:`_mass_tail`: the fine bins the
    data stand in, when the outer bin's excess is at most what its kept fine bins hold (a
    correction near the data: a column of years of school, 0-18, had its excess spread to
    389); None (no cap) when the excess is larger, since the rows that stand out are then
    the smaller part of the bin and their width no scale for the rest: a zero-inflated
    count's tail (14 % of the rows over 1-14, 86 % zeros: the data standing out were the
    zeros and ones) all came back as 2, follow-up days' lower quarter (0-2,800, thin on a
    log grid) was drawn within a few fine bins of the cut, and a wealth column's upper
    tail stopped near 110 (its 99th percentile: 225). Post-processing of noisy counts."""
    return width if excess <= held else None


def _tail(
    inner: np.ndarray,
    room: int,
    sigma: float,
    fit: np.ndarray | None = None,
    fit_sigma: float = 0.0,
) -> np.ndarray:
    """Weights for the ``room`` fine bins past a cut-back outer bin's last counted one.

    ``inner`` are the kept weights from that bin inwards. Past it the counts are under the
    noise (``sigma``), but the data rarely stop there: the tail starts at the last kept
    weight or one noise standard deviation, whichever is lower, and decays by the factor
    the last ``_TAIL_FIT`` kept bins show against the ``_TAIL_FIT`` before them (per fine
    bin, at most ``_TAIL_RATIO``; no tail when the counts do not decrease outwards),
    dropped where it falls under a thousandth of its start. ``fit``, when given, are the
    counts (in the same order) the decay is read from instead: the unsmoothed ones, since
    a neighbour average falls towards a hard edge as if a tail began there. Post-processing
    of noisy counts.
    """
    out = np.zeros(max(room, 0))
    src = inner if fit is None else fit
    if room <= 0 or len(inner) < 2 * _TAIL_FIT or len(src) < 2 * _TAIL_FIT:
        return out
    near = float(src[:_TAIL_FIT].sum())
    far = float(src[_TAIL_FIT : 2 * _TAIL_FIT].sum())
    if near <= 0 or far <= 0 or near >= far:
        return out
    # the decrease must stand out of the noise of the counts it is read from: on a plateau
    # cut at a hard edge (ages from 50) the noise alone made near < far in half the draws
    if far - near <= _DROP_Z * fit_sigma * np.sqrt(2 * _TAIL_FIT):
        return out
    r = min((near / far) ** (1.0 / _TAIL_FIT), _TAIL_RATIO)
    steps = np.arange(1, room + 1, dtype=float)
    start = min(float(inner[0]), sigma)
    tail = start * r**steps
    tail[tail < 1e-3 * start] = 0.0
    return tail


def _window_sum(x: np.ndarray) -> np.ndarray:
    """Sum over the ``_SMOOTH`` bins centred on each bin (fewer at the ends; any length)."""
    c = np.concatenate([[0.0], np.cumsum(x, dtype=float)])
    i = np.arange(len(x))
    half = _SMOOTH // 2
    return c[np.minimum(i + half + 1, len(x))] - c[np.maximum(i - half, 0)]


def _smooth(noisy: np.ndarray, sigma: float) -> np.ndarray:
    """Noisy fine counts averaged over ``_SMOOTH`` neighbours (fewer at the ends, so no mass
    is lost there), except where a count differs from the mean of those neighbours by
    more than ``_SPIKE`` standard deviations of that difference's noise: a spike (all the zeros of a zero-inflated count,
    the newborns' age 0) the noise cannot explain keeps its own count instead of being
    spread over its neighbours, which are averaged without it. Post-processing of the
    noisy counts."""
    noisy = np.asarray(noisy, dtype=float)
    ones = np.ones(len(noisy))
    k = _window_sum(ones)
    avg = _window_sum(noisy) / k
    # a count against the mean of its k - 1 neighbours: the noise of the difference has
    # sd sigma x sqrt(1 + 1 / (k - 1))
    nb = (avg * k - noisy) / np.maximum(k - 1, 1)
    sd = sigma * np.sqrt(1 + 1 / np.maximum(k - 1, 1))
    spike = (np.abs(noisy - nb) > _SPIKE * sd) & (k > 1)
    if not spike.any():
        return avg
    # the neighbours of a spike are averaged without it (it would leak into them)
    n_rest = _window_sum(ones - spike)
    avg = _window_sum(np.where(spike, 0.0, noisy)) / np.maximum(n_rest, 1.0)
    return np.where(spike | (n_rest < 1.0), noisy, avg)


def _edge(part: np.ndarray, sigma: float, first: bool, extend: bool = True) -> int | None:
    """Index in ``part`` (an outer coarse bin's fine counts) of the data's outermost fine bin
    on the outer side (``first``: the low end): the outermost count above ``_ANCHOR``
    standard deviations, with ``extend`` extended outwards while one of the next ``_GAP``
    counts stays above ``_EXTEND``; None when no count stands out."""
    hot = np.flatnonzero(part > _ANCHOR * sigma)
    # the outermost run of counts apart from the data (the next count inwards, or the
    # coarse bin's inner end, more than _GAP fine bins away) must stand _APART sd out
    # somewhere: a run, not a count, since a noise count of the smoothed counts is shared
    # by the _SMOOTH bins around it (a run of 4 sd noise counts 1605-1608 kept a column of
    # years, data 1995-2003, reaching down to 1605 about once in 40 builds)
    while hot.size:
        breaks = np.flatnonzero(np.diff(hot) > _GAP + 1)
        if first:
            run = hot[: breaks[0] + 1] if breaks.size else hot
            rest = hot[run.size :]
            apart = (int(rest[0]) if rest.size else len(part)) - int(run[-1]) > _GAP + 1
        else:
            run = hot[breaks[-1] + 1 :] if breaks.size else hot
            rest = hot[: hot.size - run.size]
            apart = int(run[0]) - (int(rest[-1]) if rest.size else -1) > _GAP + 1
        if not apart or part[run].max() > _APART * sigma:
            break
        hot = rest
    if not hot.size:
        return None
    if not extend:
        return int(hot[0] if first else hot[-1])
    if first:
        k = int(hot[0])
        while k > 0 and (part[max(k - _GAP, 0) : k] > _EXTEND * sigma).any():
            k -= 1
        return k
    k = int(hot[-1])
    while k < len(part) - 1 and (part[k + 1 : k + 1 + _GAP] > _EXTEND * sigma).any():
        k += 1
    return k


def _reach(part: np.ndarray, sigma: float, k: int, first: bool) -> int:
    """``k`` (an edge in ``part``, raw noisy counts of noise sd ``sigma``) moved outwards
    while the sum of the next 1 to ``_SMOOTH`` raw counts past it stands ``_EXTEND``
    standard deviations of that sum out: the extension a neighbour average gives, read
    one-sided, so that it follows a tail's own counts and not the rows inside the edge that
    the average spreads over it (a column of ages starting hard at 50 got a fifth of its
    lowest coarse bin at 46-49). On noise alone past a hard edge it moves in about one draw
    in 15, by 0.12 fine bins on average (a seeded test holds it); the averaged counts' old
    extension moved further, since their leak came on top. Post-processing of noisy counts."""
    step = -1 if first else 1
    while True:
        nxt = np.arange(k + step, k + step * (_SMOOTH + 1), step)
        nxt = nxt[(nxt >= 0) & (nxt < len(part))]
        if not nxt.size:
            return k
        sums = np.cumsum(part[nxt])
        if not (sums > _EXTEND * sigma * np.sqrt(np.arange(1, nxt.size + 1))).any():
            return k
        k += step


def _weights(
    noisy: np.ndarray,
    cuts: list[int],
    sigma: float,
    trim: bool,
    raw: np.ndarray | None = None,
    raw_sigma: float = 0.0,
    kept: list[int] | None = None,
) -> np.ndarray:
    """Within-bin sampling weights of the fine bins, from their noisy counts.

    One noise standard deviation is taken off every count. With ``trim`` (bounds that may
    lie far from the data: declared, or DP-estimated on a power-of-two grid) the first and
    last coarse bins, which reach to the bounds, are cut back to the data: to their
    outermost fine bin whose count stands 4 standard deviations above zero (an empty bin
    does so once in 30,000), extended outwards while the counts stay above two standard
    deviations in one of the next three fine bins; with no such bin, to the fine bin next
    to the neighbouring coarse bin. ``noisy`` may be smoothed (:func:`_smooth`): a
    neighbour average reaches ``_SMOOTH // 2`` fine bins past the data's edge (a hard
    edge, the spike of values clipped at a maximum), so an edge found on it is taken that
    many bins back in, unless an unsmoothed count in ``raw`` (noise ``raw_sigma``) stands
    4 standard deviations out further out; given ``raw``, the edge is extended on it, not on
    the smoothed counts (:func:`_reach`), and the tail past it needs a decrease of the raw
    counts that stands out of their noise (:func:`_tail`). ``kept``, when given, receives the fine bins
    the first and the last coarse bin were cut back to (see :meth:`Discretizer.calibrate`).
    Without ``trim`` (bounds read from the data, so values reach them) every
    fine bin keeps a weight of at least 1 % of the mean, so the synthetic column spans the
    real range. Everything here is post-processing of the noisy counts.
    """
    noisy = np.asarray(noisy, dtype=float)
    w = np.clip(noisy - _FLOOR * sigma, 0.0, None)
    if sigma <= 0:
        return w
    if not trim:  # bounds read from the data: values exist out to them, keep every bin alive
        return w + 0.01 * float(w.mean())
    if len(cuts) < 3:
        return w
    one_sided = raw is not None and raw_sigma > 0
    leak = _SMOOTH // 2 if raw is not None else 0
    for first, (a, b) in ((True, (cuts[0], cuts[1])), (False, (cuts[-2], cuts[-1]))):
        # with the raw counts, the smoothed ones only anchor the edge: extended on them, it
        # rode the smoothing's leak past a hard edge and the noise beyond it
        k = _edge(noisy[a:b], sigma, first, extend=not one_sided)
        if k is not None:  # back in by the smoothing's reach ...
            k = min(k + leak, b - a - 1) if first else max(k - leak, 0)
        if one_sided:  # ... unless the raw counts show data further out (a count 4 sd out,
            # read without extension), then on one-sided sums (_reach)
            part = np.asarray(raw, dtype=float)[a:b]
            kr = _edge(part, raw_sigma, first, extend=False)
            if kr is not None:
                k = kr if k is None else (min(k, kr) if first else max(k, kr))
            if k is not None:
                k = _reach(part, raw_sigma, k, first)
        if kept is not None:
            kept.append(a + (b - a - 1 if k is None else k) if first else a + (k or 0))
        if first:
            k = b - a - 1 if k is None else k
            w[a : a + k] = 0.0
            w[a + k] = max(w[a + k], 1e-9)
            fit = None if raw is None else np.asarray(raw, dtype=float)[a + k :][: _TAIL_FIT * 2]
            w[a : a + k] = _tail(w[a + k :][: _TAIL_FIT * 2], k, sigma, fit, raw_sigma)[::-1]
        else:
            k = 0 if k is None else k
            w[a + k + 1 : b] = 0.0
            w[a + k] = max(w[a + k], 1e-9)
            fit = (
                None
                if raw is None
                else np.asarray(raw, dtype=float)[: a + k + 1][::-1][: _TAIL_FIT * 2]
            )
            inner = w[: a + k + 1][::-1][: _TAIL_FIT * 2]
            w[a + k + 1 : b] = _tail(inner, b - a - k - 1, sigma, fit, raw_sigma)
    return w
