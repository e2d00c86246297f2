"""How far the released columns are from the original ones, column by column and pairwise.

**Per column.** Total variation distance ``1/2 * sum |P(v) - Q(v)|`` between the original and
released value frequencies, and for columns numeric in both tables the Kolmogorov-Smirnov
statistic (largest gap between the two empirical CDFs). Numeric columns with more than
``bins`` distinct values are compared on ``bins`` quantile bins of the original for the total
variation (raw values would make any noise look like total change). When the release
generalized a column (its values are not the original's), the original is first recoded into
the released domain with the value map learned from aligned rows, so the distance measures
what the release distorted *at its own granularity* (suppression, local recoding); the loss
of granularity itself is what the information-loss metrics measure.

**Pairwise.** Association between every pair of columns, as Cramér's V on the (binned)
values, in the original and in the release; the mean and largest absolute change say how
well relationships between columns survived. Each column is first reduced to at most
``max_categories + 1`` codes (:mod:`veil.utility._categories`: numbers and numeric-like text
in quantile bins, the most frequent values of other columns plus one ``other``), so a
contingency table never has more than ``(max_categories + 1)**2`` cells whatever the
cardinality. Numeric-like text (``"$55,076.06"``) is compared as numbers per column too.

**Weighted rows.** With ``weights`` each row stands for that many records (the Ray engine's
distinct rows with their counts, ordered by their first record): every figure is the
records', equal to the one measured on them (``tests/property/test_utility_weights.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from veil.utility._categories import (
    MAX_CATEGORIES,
    expand,
    is_numeric,
    numeric_like,
    reduce_column,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["association_preservation", "column_distances"]


def _binned(
    orig: pd.Series, rel: pd.Series, bins: int, weights: np.ndarray | None = None
) -> tuple[pd.Series, pd.Series]:
    import pandas as pd

    values = expand(orig.to_numpy(dtype=float), weights)
    edges = np.unique(np.nanquantile(values, np.linspace(0, 1, bins + 1)))
    if len(edges) < 2:
        return orig.astype(str), rel.astype(str)
    edges[0], edges[-1] = -np.inf, np.inf
    inner = edges[1:-1]
    # bin index of each value (quantile bins of the original); missing values stay missing
    o = pd.Series(np.searchsorted(inner, orig.to_numpy(dtype=float), side="left"), dtype=float)
    r = pd.Series(np.searchsorted(inner, rel.to_numpy(dtype=float), side="left"), dtype=float)
    o[orig.isna().to_numpy()] = np.nan
    r[rel.isna().to_numpy()] = np.nan
    return o, r


def _counts(codes: np.ndarray, m: int, weights: np.ndarray | None) -> np.ndarray:
    """Records per code (integers, weighted or not)."""
    if weights is None:
        return np.bincount(codes, minlength=m)
    return np.rint(np.bincount(codes, weights=weights, minlength=m)).astype(np.int64)


def _joint_counts(
    orig: pd.Series, rel: pd.Series, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Value counts of both series over their joint values (missing is a value)."""
    import pandas as pd

    both = np.concatenate([orig.to_numpy(dtype=object), rel.to_numpy(dtype=object)])
    codes, uniq = pd.factorize(both)
    m = len(uniq) + 1  # code m - 1: missing
    codes = np.where(codes < 0, m - 1, codes)
    n_o = len(orig)
    return _counts(codes[:n_o], m, weights), _counts(codes[n_o:], m, weights)


def _tv(
    orig: pd.Series, rel: pd.Series, counts: tuple[np.ndarray, np.ndarray] | None = None
) -> float:
    co, cr = counts if counts is not None else _joint_counts(orig, rel)
    p = co / max(co.sum(), 1)
    q = cr / max(cr.sum(), 1)
    return float(0.5 * np.abs(p - q).sum())


def _cdf(s: pd.Series, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, int]:
    """Sorted non-missing values, the records at or below each (a cumulative count), total."""
    present = s.notna().to_numpy()
    values = s.to_numpy(dtype=float)[present]
    order = np.argsort(values, kind="stable")
    w = np.ones(len(values), np.int64) if weights is None else np.asarray(weights)[present]
    cum = np.concatenate([[0], np.cumsum(np.asarray(w, dtype=np.int64)[order])])
    return values[order], cum, int(cum[-1])


def _ks(orig: pd.Series, rel: pd.Series, weights: np.ndarray | None = None) -> float | None:
    a, cum_a, n_a = _cdf(orig, weights)
    b, cum_b, n_b = _cdf(rel, weights)
    if not n_a or not n_b:
        return None
    grid = np.concatenate([a, b])
    cdf_a = cum_a[np.searchsorted(a, grid, side="right")] / n_a
    cdf_b = cum_b[np.searchsorted(b, grid, side="right")] / n_b
    return float(np.abs(cdf_a - cdf_b).max())


def _profile(
    orig: pd.Series,
    rel: pd.Series,
    top: int = 12,
    counts: tuple[np.ndarray, np.ndarray] | None = None,
) -> dict[str, list[float]]:
    """Shares of the original's most frequent values (by rank, unlabeled) in both tables.

    The last entry is everything else (suppressed values included). No value is named.
    """
    co, cr = counts if counts is not None else _joint_counts(orig, rel)
    p = co / max(co.sum(), 1)
    q = cr / max(cr.sum(), 1)
    present = np.flatnonzero(co)
    head = present[np.argsort(-co[present], kind="stable")][:top]
    po = [float(x) for x in p[head]]
    qo = [float(x) for x in q[head]]
    if len(present) > top or float(q[head].sum()) < 1 - 1e-9:
        po.append(float(max(0.0, 1 - sum(po))))
        qo.append(float(max(0.0, 1 - sum(qo))))
    return {"original": po, "released": qo}


def column_distances(
    original: pd.DataFrame,
    released: pd.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    recode: Mapping[str, Mapping[Any, Any]] | None = None,
    bins: int = 20,
    weights: np.ndarray | None = None,
) -> list[dict[str, Any]]:
    """Total variation and KS distance per column present in both tables.

    Parameters
    ----------
    recode
        Per generalized column, original value -> released value
        (see :func:`veil.risk.learn_recoding`).
    weights
        Records per row, in both tables (aligned weighted rows; see the module docstring).

    Examples
    --------
    >>> import pandas as pd
    >>> o = pd.DataFrame({"a": ["x", "x", "y", "y"]})
    >>> column_distances(o, pd.DataFrame({"a": ["x", "x", "x", "y"]}))[0]["total_variation"]
    0.25
    """
    cols = [c for c in (columns or original.columns) if c in released.columns]
    out: list[dict[str, Any]] = []
    for col in cols:
        o, r = original[col], released[col]
        generalized = bool(recode and col in recode)
        entry: dict[str, Any] = {
            "column": str(col),
            "generalized": generalized,
            "distinct_original": int(o.nunique(dropna=False)),
            "distinct_released": int(r.nunique(dropna=False)),
        }
        if generalized:
            assert recode is not None
            o = o.map(dict(recode[col]))
        if not generalized and not is_numeric(o) and o.nunique() > MAX_CATEGORIES:
            # numeric-like text ("$55,076.06") is compared as the numbers it writes
            po, pr = numeric_like(o, weights), numeric_like(r, weights)
            if po is not None and pr is not None:
                o, r = po, pr
        if is_numeric(o) and is_numeric(r):
            entry["ks"] = _ks(o, r, weights)
            if o.nunique() > bins:
                o, r = _binned(o, r, bins, weights)
        else:
            entry["ks"] = None
        counts = _joint_counts(o, r, weights)
        entry["total_variation"] = _tv(o, r, counts)
        entry["profile"] = _profile(o, r, counts=counts)
        out.append(entry)
    return out


def contingency(a: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """The dense ``ka x kb`` count table of two code arrays (bounded codes keep it small)."""
    ka, kb = int(a.max()) + 1, int(b.max()) + 1
    counts = np.bincount(a * kb + b, weights=weights, minlength=ka * kb)
    return counts.reshape(ka, kb).astype(float)


def _cramers_v(a: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None) -> float:
    ka, kb = int(a.max()) + 1, int(b.max()) + 1
    if ka < 2 or kb < 2:
        return 0.0
    n = len(a) if weights is None else int(np.asarray(weights, dtype=np.int64).sum())
    table = contingency(a, b, weights)
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        chi2 = np.nansum(np.where(expected > 0, (table - expected) ** 2 / expected, 0.0))
    return float(np.sqrt(chi2 / (n * (min(ka, kb) - 1))))


def association_preservation(
    original: pd.DataFrame,
    released: pd.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    bins: int = 10,
    max_categories: int = MAX_CATEGORIES,
    weights: np.ndarray | None = None,
    released_weights: np.ndarray | None = None,
) -> dict[str, Any]:
    """Cramér's V for every column pair, original vs release (see the module docstring).

    Each column is reduced to at most ``max(bins, max_categories) + 1`` codes first, so
    memory stays linear in the rows whatever the columns' cardinality.

    Tables of different lengths are fine (each is measured on its own). ``weights`` and
    ``released_weights``: records per row of ``original`` and of ``released``.

    Examples
    --------
    >>> import pandas as pd
    >>> o = pd.DataFrame({"a": list("xxyy"), "b": list("ppqq")})
    >>> association_preservation(o, o)["mean_abs_change"]
    0.0
    """
    cols = [c for c in (columns or original.columns) if c in released.columns]
    if len(cols) < 2 or not len(original) or not len(released):
        return {
            "measure": "cramers_v",
            "pairs": [],
            "mean_abs_change": None,
            "max_abs_change": None,
        }
    oc: dict[Any, np.ndarray] = {}
    rc: dict[Any, np.ndarray] = {}
    reduced: dict[str, str] = {}
    for c in cols:
        oc[c], how = reduce_column(
            original[c], bins=bins, max_categories=max_categories, weights=weights
        )
        rc[c], how_r = reduce_column(
            released[c], bins=bins, max_categories=max_categories, weights=released_weights
        )
        if how in ("numeric_text_bins", "top_values") or how_r in (
            "numeric_text_bins",
            "top_values",
        ):
            reduced[str(c)] = how if how != "as_is" else how_r
    pairs: list[dict[str, Any]] = []
    for i, a in enumerate(cols):
        for b in cols[i + 1 :]:
            vo = _cramers_v(oc[a], oc[b], weights)
            vr = _cramers_v(rc[a], rc[b], released_weights)
            pairs.append({"a": str(a), "b": str(b), "original": vo, "released": vr})
    diffs = np.array([abs(p["original"] - p["released"]) for p in pairs])
    return {
        "measure": "cramers_v",
        "pairs": pairs,
        "mean_abs_change": float(diffs.mean()),
        "max_abs_change": float(diffs.max()),
        "max_categories": max_categories,
        # columns with more than max_categories values, and how they were reduced
        "reduced": reduced,
    }
