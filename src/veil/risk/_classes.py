"""Equivalence classes of a table: rows that share every quasi-identifier value.

Everything in :mod:`veil.risk` is computed from these classes, built once with a vectorized
group-by on integer codes (no Python loop over rows or classes):

1. each quasi-identifier column is dictionary-encoded (``pandas.factorize``);
2. the codes are combined into one integer key per row (mixed radix, re-encoded whenever the
   key space would overflow 63 bits);
3. the keys are encoded once more to dense class ids ``0..C-1`` and counted with ``bincount``.

Suppressed rows are left out of every class (their class id is ``-1``). They are found from
an explicit boolean mask (what ``veil run`` passes) or, for a table read from disk, from a
marker: a row is suppressed when *every* quasi-identifier equals the marker (ARX writes
suppressed records that way). The row order and the index of the frame do not matter: only
positions are used.

Missing values (NaN/None) in a quasi-identifier are one value of their own, like any other:
two rows both missing ``age`` fall into the same class. Their count is reported so a user can
see it.

A table may also be given as weighted distinct rows (``weights``: the records each row
stands for, as the Ray engine aggregates a release): the classes are then formed over the
rows and every count (class sizes, rows, suppressed rows, missing values) sums the weights,
so every figure computed from them is the one the records themselves give.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from veil._errors import InputError, SchemaError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EquivalenceClasses", "check_columns", "encode_column", "equivalence_classes"]

_MAX_KEY = 2**62


def check_columns(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    """Raise :class:`SchemaError` naming every missing column (names only, never values)."""
    present = {str(c) for c in df.columns}
    missing = [c for c in columns if c not in present]
    if missing:
        shown = ", ".join(sorted(present)[:30])
        raise SchemaError(
            f"{len(missing)} {what} column(s) not in the table: {', '.join(missing)}",
            hint=f"the table has: {shown}",
        )


def encode_column(values: pd.Series, column: str) -> tuple[np.ndarray, int]:
    """Dictionary-encode one column: integer codes ``0..m-1`` and ``m``.

    Missing values get a code of their own. Unhashable cells (lists, dicts) raise
    :class:`InputError` naming the column and the type, never the value.
    """
    codes, m, _ = _factorize(values, column)
    return codes, m


def _factorize(values: pd.Series, column: str) -> tuple[np.ndarray, int, int]:
    """Codes (missing values get the code ``m - 1`` of their own), ``m``, missing count."""
    import pandas as pd

    try:
        # with the NA sentinel pandas skips a slow isna pass over object columns
        codes, uniques = pd.factorize(values)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in values if not _hashable(v)})
        raise InputError(
            f"column {column!r} holds unhashable values ({', '.join(kinds) or 'unknown type'}); "
            "equivalence classes need values that can be compared",
            hint="convert the column to strings or numbers first",
        ) from None
    codes = codes.astype(np.int64, copy=False)
    m = len(uniques)
    na = codes < 0
    n_missing = int(na.sum())
    if n_missing:
        codes = np.where(na, m, codes)
        m += 1
    return codes, m, n_missing


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


@dataclass(frozen=True)
class EquivalenceClasses:
    """The equivalence classes of a table over its quasi-identifiers.

    Attributes
    ----------
    quasi_identifiers
        The columns the classes are defined on, in the order given.
    class_of_row
        Class id of each row by position, ``-1`` for a suppressed row.
    sizes
        Number of rows in each class (ids ``0..C-1``).
    n_rows
        Rows in the table, suppressed ones included.
    n_suppressed
        Rows left out of every class.
    missing_values
        Per quasi-identifier, how many retained rows have a missing value there.
    weights
        Records each row stands for (``None``: one each); ``class_of_row`` is then by
        weighted row, and ``sizes``, ``n_rows``, ``n_suppressed`` and ``missing_values``
        count records.
    """

    quasi_identifiers: tuple[str, ...]
    class_of_row: np.ndarray
    sizes: np.ndarray
    n_rows: int
    n_suppressed: int
    missing_values: dict[str, int]
    weights: np.ndarray | None = None

    def retained_weights(self) -> np.ndarray | None:
        """The weights of the retained rows (``None`` when each row is one record)."""
        if self.weights is None:
            return None
        return self.weights[self.retained]

    @property
    def n_classes(self) -> int:
        return len(self.sizes)

    @property
    def n_records(self) -> int:
        """Rows that belong to a class (not suppressed)."""
        return self.n_rows - self.n_suppressed

    @property
    def retained(self) -> np.ndarray:
        """Boolean mask of the rows that belong to a class."""
        return self.class_of_row >= 0

    @property
    def k(self) -> int | None:
        """Size of the smallest class; ``None`` when every row is suppressed."""
        return int(self.sizes.min()) if len(self.sizes) else None

    def size_histogram(self) -> list[tuple[int, int]]:
        """``[(class size, number of classes), ...]`` in increasing size."""
        if not len(self.sizes):
            return []
        values, counts = np.unique(self.sizes, return_counts=True)
        return [(int(v), int(c)) for v, c in zip(values, counts, strict=True)]

    def row_class_size(self) -> np.ndarray:
        """Size of the class of each row (0 for a suppressed row)."""
        out = np.zeros(self.n_rows, dtype=np.int64)
        keep = self.retained
        out[keep] = self.sizes[self.class_of_row[keep]]
        return out


def suppressed_by_marker(
    df: pd.DataFrame, quasi_identifiers: Sequence[str], marker: str
) -> np.ndarray:
    """Rows whose every quasi-identifier equals ``marker`` (compared as strings)."""
    mask = np.ones(len(df), dtype=bool)
    for q in quasi_identifiers:
        col = df[q]
        if col.dtype == object or str(col.dtype) in ("string", "category"):
            mask &= (col.astype("string") == marker).fillna(False).to_numpy(dtype=bool)
        else:  # a numeric column cannot hold the marker
            return np.zeros(len(df), dtype=bool)
    return mask


def equivalence_classes(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    *,
    suppressed: Any = None,
    marker: str | None = None,
    weights: Any = None,
) -> EquivalenceClasses:
    """Group the rows of ``df`` into equivalence classes over ``quasi_identifiers``.

    Parameters
    ----------
    df
        The table; any index and any row order.
    quasi_identifiers
        Column names; at least one.
    suppressed
        Boolean mask (array-like, by position) of suppressed rows, left out of every class.
    marker
        Alternatively (or additionally), rows whose every quasi-identifier equals this string
        count as suppressed.
    weights
        Records each row stands for (whole numbers of at least 1, by position): a table given as
        its distinct rows with their counts gives the classes of the records.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": ["20-29", "20-29", "30-39"], "sex": ["F", "F", "*"]})
    >>> ec = equivalence_classes(df, ["age", "sex"])
    >>> ec.k, ec.n_classes
    (1, 2)
    """
    qis = [str(q) for q in quasi_identifiers]
    if not qis:
        raise InputError(
            "no quasi-identifier given", hint="name at least one column, e.g. --qi age,zip"
        )
    if len(set(qis)) != len(qis):
        raise InputError("a quasi-identifier is named twice", hint="list each column once")
    check_columns(df, qis, "quasi-identifier")
    n = len(df)
    mask = np.zeros(n, dtype=bool)
    if suppressed is not None:
        sup = np.asarray(suppressed, dtype=bool)
        if sup.shape != (n,):
            raise InputError(
                f"the suppression mask has shape {sup.shape}, expected ({n},)",
                hint="pass one boolean per row",
            )
        mask |= sup
    if marker is not None and n:
        mask |= suppressed_by_marker(df, qis, marker)
    w = _weights(weights, n)
    keep = ~mask
    w_kept = None if w is None else w[keep]
    key = np.zeros(int(keep.sum()), dtype=np.int64)
    radix = 1
    missing: dict[str, int] = {}
    for q in qis:
        col = df[q].iloc[keep] if not keep.all() else df[q]
        codes, card, missing[q] = _factorize(col, q)
        if w_kept is not None and missing[q]:
            missing[q] = int(w_kept[codes == card - 1].sum())
        card = max(card, 1)
        if radix * card >= _MAX_KEY:  # re-encode to dense ids before the key overflows
            key, radix = _dense(key)
        key = key * card + codes
        radix *= card
    class_ids, n_classes = _dense(key)
    class_of_row = np.full(n, -1, dtype=np.int64)
    class_of_row[keep] = class_ids
    sizes = np.bincount(class_ids, weights=w_kept, minlength=n_classes).astype(np.int64)
    return EquivalenceClasses(
        quasi_identifiers=tuple(qis),
        class_of_row=class_of_row,
        sizes=sizes,
        n_rows=n if w is None else int(w.sum()),
        n_suppressed=int(mask.sum()) if w is None else int(w[mask].sum()),
        missing_values=missing,
        weights=w,
    )


def _weights(weights: Any, n: int) -> np.ndarray | None:
    """The weights as integers, checked: one per row, none negative."""
    if weights is None:
        return None
    w = np.asarray(weights)
    if w.shape != (n,):
        raise InputError(
            f"{w.size} weights for {n} rows", hint="pass one record count per row, by position"
        )
    if w.dtype.kind not in "iub" and not bool(np.all(np.mod(w, 1) == 0)):
        raise InputError("the weights are not whole numbers", hint="pass record counts")
    w = w.astype(np.int64)
    if bool((w < 1).any()):
        raise InputError("a weight is below 1", hint="pass the records each row stands for")
    return w


def _dense(key: np.ndarray) -> tuple[np.ndarray, int]:
    import pandas as pd

    codes, uniques = pd.factorize(key)
    return codes.astype(np.int64, copy=False), max(len(uniques), 1) if len(key) else 0
