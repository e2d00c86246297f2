"""Bounded categories for the utility measures: a column of any cardinality becomes at most
``max_categories + 1`` codes before a pairwise measure sees it.

Real tables carry near-unique columns (charges written as text, free-text notes, ids); a
contingency table of two such columns has ``distinct_a x distinct_b`` cells (46,880 x 13,202
float64 is 4.6 GiB, and the counts as many again), and its Cramér's V says nothing anyway
(almost every cell holds one row). So, per column and on its own values:

- a **numeric** column with more than ``bins`` distinct values goes into ``bins`` quantile bins;
- a **numeric-like text** column with more than ``max_categories`` distinct values (at least :data:`NUMERIC_SHARE` of its non-missing values read
  as numbers once currency signs, thousands separators, spaces and ``%`` are removed, e.g.
  ``"$55,076.06"``) is parsed and binned the same way;
- any **other** column with more than ``max_categories`` distinct values keeps its
  ``max_categories`` most frequent values (ties: first seen) and puts the rest in one
  ``other`` code; missing values are one value like any other.

Every step is linear in the number of rows; no value is ever named.

With ``weights`` each row stands for that many records (the Ray engine's distinct rows with
their counts, in the order of their first record): the codes, counts and shares are the
records' (see ``tests/property/test_utility_weights.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from veil._numeric import coerce_numbers

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MAX_CATEGORIES",
    "NUMERIC_SHARE",
    "bounded_codes",
    "expand",
    "numeric_like",
    "reduce_column",
]

MAX_CATEGORIES = 50
"""Most frequent values kept per column before the rest become one ``other`` category."""

NUMERIC_SHARE = 0.95
"""Share of non-missing text values that must read as numbers for a column to be binned."""

# currency signs, thousands separators (comma, space, apostrophe, thin spaces) and percent
_STRIP = r"[\s$€£¥₹,'%\u00a0\u2009\u202f]"


def is_numeric(s: pd.Series) -> bool:
    """Numbers, not booleans."""
    import pandas as pd

    return bool(pd.api.types.is_numeric_dtype(s)) and not pd.api.types.is_bool_dtype(s)


def expand(values: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Each value repeated as many times as its weight: the records behind weighted rows.

    Only quantiles use it (numpy's interpolation between two records, bit for bit); the
    memory is one float per record of one column, for as long as the quantiles take.
    """
    if weights is None:
        return values
    return np.repeat(values, np.asarray(weights, dtype=np.int64))


def _share(mask: np.ndarray, weights: np.ndarray | None) -> float:
    """The share of records where ``mask`` holds (a mean of booleans, weighted)."""
    if weights is None:
        return float(mask.mean())
    w = np.asarray(weights, dtype=np.int64)
    return int(w[mask].sum()) / int(w.sum())


def numeric_like(s: pd.Series, weights: np.ndarray | None = None) -> pd.Series | None:
    """The column as floats when it is text that reads as numbers, else ``None``.

    Missing values stay missing; values that do not parse (under ``1 - NUMERIC_SHARE`` of the
    non-missing ones) become missing too.

    Examples
    --------
    >>> import pandas as pd
    >>> numeric_like(pd.Series(["$1,200.50", "$3.00", None])).tolist()[:2]
    [1200.5, 3.0]
    >>> numeric_like(pd.Series(["a", "b"])) is None
    True
    """
    import pandas as pd

    if is_numeric(s) or pd.api.types.is_bool_dtype(s):
        return None
    present = s.dropna()
    if not len(present):
        return None
    text = present.astype(str)
    if not text.str.contains(r"\d", regex=True).all():
        return None
    parsed = coerce_numbers(text.str.replace(_STRIP, "", regex=True))
    w = None if weights is None else np.asarray(weights)[s.notna().to_numpy()]
    if _share(parsed.notna().to_numpy(), w) < NUMERIC_SHARE:
        return None
    out = pd.Series(np.nan, index=s.index, dtype=float)
    out.loc[parsed.index] = parsed.to_numpy(dtype=float)
    return out


def _quantile_codes(x: pd.Series, bins: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Quantile-bin codes ``0..b-1``; missing values get ``b`` (at most ``bins + 1`` codes)."""
    import pandas as pd

    if weights is None:
        arr = pd.qcut(x.astype(float), bins, labels=False, duplicates="drop").to_numpy(dtype=float)
    else:
        # the records' bins (pd.qcut on them), read back at each row's first record
        w = np.asarray(weights, dtype=np.int64)
        records = pd.Series(expand(x.to_numpy(dtype=float), w))
        binned = pd.qcut(records, bins, labels=False, duplicates="drop").to_numpy(dtype=float)
        arr = binned[np.cumsum(w) - w]
    top = int(np.nanmax(arr)) + 1 if np.isfinite(arr).any() else 0
    return np.where(np.isnan(arr), top, arr).astype(np.int64)


def _capped(
    codes: np.ndarray, max_categories: int, weights: np.ndarray | None = None
) -> np.ndarray:
    """Keep the ``max_categories`` most frequent codes (renumbered), the rest become one."""
    counts = np.bincount(codes, weights=weights)
    if len(counts) <= max_categories:
        return codes
    keep = np.argsort(-counts, kind="stable")[:max_categories]
    remap = np.full(len(counts), max_categories, dtype=np.int64)
    remap[keep] = np.arange(len(keep), dtype=np.int64)
    return remap[codes]


def reduce_column(
    s: pd.Series,
    *,
    bins: int = 10,
    max_categories: int = MAX_CATEGORIES,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, str]:
    """:func:`bounded_codes` and how the column was reduced: ``as_is``, ``quantile_bins``
    (numbers), ``numeric_text_bins`` (numeric-like text) or ``top_values`` (the most frequent
    values and one ``other``)."""
    from veil.risk._classes import encode_column

    w = weights
    if is_numeric(s) and s.nunique() > bins:
        return _capped(_quantile_codes(s, bins, w), max_categories, w), "quantile_bins"
    codes, m = encode_column(s, str(s.name))
    if m > max_categories and not is_numeric(s):
        parsed = numeric_like(s, w)
        if parsed is not None and parsed.nunique() > bins:
            codes = _quantile_codes(parsed, bins, w)
            return _capped(codes, max_categories, w), "numeric_text_bins"
    if m > max_categories:
        return _capped(codes, max_categories, w), "top_values"
    return codes, "as_is"


def bounded_codes(
    s: pd.Series, *, bins: int = 10, max_categories: int = MAX_CATEGORIES
) -> np.ndarray:
    """Integer codes ``0..m-1`` of a column with ``m <= max(bins, max_categories) + 1``.

    See the module docstring for the rules.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.Series([f"${i}.99" for i in range(1000)])
    >>> int(bounded_codes(s, bins=10).max()) + 1
    10
    >>> s = pd.Series([f"id{i}" for i in range(1000)])
    >>> int(bounded_codes(s, max_categories=5).max()) + 1
    6
    """
    return reduce_column(s, bins=bins, max_categories=max_categories)[0]
