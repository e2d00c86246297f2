"""MDAV microaggregation of numeric quasi-identifiers.

Maximum Distance to Average Vector (Domingo-Ferrer & Torra 2005) groups the records into
clusters of ``k`` and replaces each record's quasi-identifiers by its cluster's mean:

1. while at least ``3k`` records remain: take the record ``r`` farthest from the mean of the
   remaining ones and the record ``s`` farthest from ``r``; form a cluster of ``r`` and its
   ``k - 1`` nearest neighbours, then one of ``s`` and its ``k - 1`` nearest neighbours;
2. if ``2k`` to ``3k - 1`` remain: one cluster of ``k`` around the record farthest from the
   mean, the rest form the last cluster;
3. fewer than ``2k``: they form the last cluster.

Every cluster has exactly ``k`` records except the last, which has ``k`` to ``2k - 1``.
Distances are Euclidean on standardized columns (each column divided by its standard
deviation), so no column dominates by its unit.

Privacy semantics: the unit of privacy is a row. After aggregation every record shares its
aggregated quasi-identifier values with at least ``k - 1`` others (k-anonymity on those
columns), provided no two clusters have the same mean; other columns are untouched, and no
l-diversity or t-closeness is implied.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from veil._errors import InputError, PrivacyRequirementNotMet, SchemaError
from veil._numeric import coerce_numbers

__all__ = ["MDAVResult", "mdav"]


@dataclass(frozen=True, eq=False)
class MDAVResult:
    """What :func:`mdav` released.

    Attributes
    ----------
    data
        The table with each aggregated column replaced by its cluster means (floats, or
        rounded to ``round_to`` decimals; with ``round_to=0`` an integer column stays
        integer); other columns unchanged.
    groups
        Cluster number of each row (clusters are numbered in the order they were formed;
        the last one may be larger).
    n_groups
        Number of clusters.
    information_loss
        Within-cluster sum of squares over total sum of squares (SSE/SST) on the
        standardized columns, in [0, 1].
    seconds
        Wall time.
    """

    data: pd.DataFrame
    groups: np.ndarray = field(repr=False)
    n_groups: int
    information_loss: float
    seconds: float


def _matrix(df: pd.DataFrame, columns: list[str]) -> np.ndarray:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise SchemaError(f"column(s) {', '.join(map(repr, missing))} are not in the table")
    cols = []
    for c in columns:
        s = df[c]
        nums = coerce_numbers(s)
        bad = int((nums.isna() & s.notna()).sum())
        if bad or pd.api.types.is_bool_dtype(s):
            raise SchemaError(
                f"MDAV needs numeric columns; column {c!r} has {bad} non-numeric value(s)",
                hint="microaggregate only numeric quasi-identifiers",
            )
        if nums.isna().any():
            raise SchemaError(
                f"column {c!r} has {int(nums.isna().sum())} missing value(s)",
                hint="impute or drop them before microaggregation",
            )
        cols.append(nums.to_numpy(dtype=float))
    return np.column_stack(cols) if cols else np.zeros((df.shape[0], 0))


def mdav(
    df: pd.DataFrame,
    columns: list[str],
    k: int,
    *,
    round_to: int | None = None,
) -> MDAVResult:
    """Microaggregate ``columns`` of ``df`` with MDAV into clusters of ``k`` records.

    Parameters
    ----------
    df
        The table; not modified.
    columns
        Numeric quasi-identifiers aggregated together.
    k
        Cluster size (at least 2).
    round_to
        Round the released means to this many decimals (``0`` for integers: an integer
        column then keeps its integer dtype).

    Returns
    -------
    MDAVResult

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [20, 21, 22, 50, 51, 52]})
    >>> res = mdav(df, ["age"], 3)
    >>> res.data["age"].tolist()
    [21.0, 21.0, 21.0, 51.0, 51.0, 51.0]
    """
    t0 = time.perf_counter()
    if not columns:
        raise InputError("MDAV needs at least one column")
    if k < 2:
        raise InputError(f"k must be at least 2, got {k}")
    n = df.shape[0]
    if n == 0:
        raise InputError("the table is empty: there is nothing to microaggregate")
    if k > n:
        raise PrivacyRequirementNotMet(
            f"k = {k} is larger than the table ({n} rows)", hint=f"use k <= {n}"
        )
    raw = _matrix(df, columns)
    sd = raw.std(axis=0)
    x = (raw - raw.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    groups = _cluster(x, k)
    n_groups = int(groups.max()) + 1
    counts = np.bincount(groups, minlength=n_groups).astype(float)
    means = np.column_stack(
        [
            np.bincount(groups, weights=raw[:, j], minlength=n_groups) / counts
            for j in range(raw.shape[1])
        ]
    )
    zmeans = np.column_stack(
        [
            np.bincount(groups, weights=x[:, j], minlength=n_groups) / counts
            for j in range(x.shape[1])
        ]
    )
    sst = float((x**2).sum())
    sse = float(((x - zmeans[groups]) ** 2).sum())
    out = df.copy()
    for j, c in enumerate(columns):
        vals = means[groups, j]
        if round_to is not None:
            vals = np.round(vals, round_to)
            if round_to == 0 and pd.api.types.is_integer_dtype(df[c].dtype):
                vals = vals.astype(np.int64)
        out[c] = pd.Series(vals, index=df.index)
    return MDAVResult(
        data=out,
        groups=groups,
        n_groups=n_groups,
        information_loss=sse / sst if sst > 0 else 0.0,
        seconds=time.perf_counter() - t0,
    )


def _cluster(x: np.ndarray, k: int) -> np.ndarray:
    """MDAV cluster number of each row of ``x`` (standardized).

    Squared distances are computed as ``|p|^2 - 2 p.c`` (the ``|c|^2`` term does not change
    an ordering) column by column on a column-major copy; taken rows get an infinite
    penalty, and the arrays are compacted only when half of them are gone.
    """
    n = x.shape[0]
    groups = np.full(n, -1, dtype=np.int64)
    idx = np.arange(n)
    cols = np.ascontiguousarray(x.T)
    sqn = (cols**2).sum(axis=0)
    pen = np.zeros(n)
    remaining = n
    total = cols.sum(axis=1)
    g = 0

    def dist(center: np.ndarray) -> np.ndarray:
        out = sqn.copy()
        tmp = np.empty_like(out)
        for j in range(cols.shape[0]):
            np.multiply(cols[j], -2.0 * float(center[j]), out=tmp)
            out += tmp
        return out

    def farthest(d: np.ndarray) -> int:
        return int(np.argmax(d - pen))

    def nearest(d: np.ndarray) -> np.ndarray:
        return np.argpartition(d + pen, k - 1)[:k]

    def take(local: np.ndarray, label: int) -> None:
        nonlocal remaining, total
        groups[idx[local]] = label
        pen[local] = np.inf
        remaining -= local.size
        total = total - cols[:, local].sum(axis=1)

    def compact() -> None:
        nonlocal cols, sqn, idx, pen
        if remaining * 2 < idx.size:
            keep = np.isfinite(pen)
            cols, sqn, idx = np.ascontiguousarray(cols[:, keep]), sqn[keep], idx[keep]
            pen = np.zeros(idx.size)

    while remaining >= 3 * k:
        r = farthest(dist(total / remaining))
        d_r = dist(cols[:, r].copy())
        take(nearest(d_r), g)
        s = farthest(d_r)
        take(nearest(dist(cols[:, s].copy())), g + 1)
        g += 2
        compact()
    if remaining >= 2 * k:
        r = farthest(dist(total / remaining))
        take(nearest(dist(cols[:, r].copy())), g)
        g += 1
    if remaining:
        groups[idx[np.isfinite(pen)]] = g
    return groups
