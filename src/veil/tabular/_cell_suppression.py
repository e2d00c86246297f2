"""Local cell suppression: blank individual quasi-identifier cells until the table is k-anonymous.

Instead of removing whole records (record suppression) or coarsening whole columns
(generalization), local suppression replaces single quasi-identifier cells of the records that
are at risk by ``'*'``. veil reads a suppressed cell as a value of its own, never as a
wildcard: the equivalence classes of the release are its groups of identical
quasi-identifier tuples, ``'*'`` included, so a plain group-by verifies the guarantee. (The
wildcard reading of sdcMicro's ``localSuppression`` suppresses fewer cells but its classes
overlap, and a record can then be singled out by intersecting them.)

The greedy runs in rounds, each one vectorized over all rows:

1. the *unsafe* records are those in classes smaller than k;
2. for every quasi-identifier, count the unsafe records that would reach a class of at least
   k if that column were suppressed in every unsafe record; suppress the best column, but only
   in those records (their new classes are unchanged by leaving the others alone);
3. when no single column helps any record, suppress the column with the most distinct values
   among the unsafe records in all of them, and go on;
4. records left with every cell suppressed that still form fewer than k are topped up by fully
   suppressing surplus records of the largest classes.

A record that is safe stays safe: suppressing cells of other records only adds members to its
class. Privacy semantics: the unit of privacy is a row; the release is k-anonymous on the
quasi-identifiers. No record is removed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from veil._errors import InputError, PrivacyRequirementNotMet, SchemaError

__all__ = ["CellSuppressionResult", "suppress_cells"]


@dataclass(frozen=True, eq=False)
class CellSuppressionResult:
    """What :func:`suppress_cells` released.

    Attributes
    ----------
    data
        The table with suppressed quasi-identifier cells replaced by the marker (those
        columns become ``object``); other columns unchanged.
    mask
        Boolean array ``(rows, quasi-identifiers)``: which cells were suppressed.
    cells_suppressed
        Number of suppressed cells.
    records_affected
        Number of records with at least one suppressed cell.
    classes
        Number of equivalence classes of the release.
    min_class_size
        Size of the smallest one.
    seconds
        Wall time.
    rounds
        Rounds of the greedy (each suppresses one column in some records, or tops up the
        all-``*`` class).
    """

    data: pd.DataFrame
    mask: np.ndarray = field(repr=False)
    cells_suppressed: int
    records_affected: int
    classes: int
    min_class_size: int
    seconds: float
    rounds: int = 0


def _tuple_ids(codes: np.ndarray) -> np.ndarray:
    """Dense id of each row's tuple of codes (``codes`` is ``(rows, columns)``, >= 0)."""
    ids = np.zeros(codes.shape[0], dtype=np.int64)
    for j in range(codes.shape[1]):
        width = int(codes[:, j].max()) + 1
        ids = pd.factorize(ids * width + codes[:, j])[0].astype(np.int64)
    return ids


def _class_sizes(codes: np.ndarray) -> np.ndarray:
    ids = _tuple_ids(codes)
    return np.bincount(ids)[ids]


def suppress_cells(
    df: pd.DataFrame, qis: list[str], k: int, *, marker: str = "*"
) -> CellSuppressionResult:
    """Suppress quasi-identifier cells of at-risk records until every class has k records.

    Parameters
    ----------
    df
        The table; not modified.
    qis
        The quasi-identifier columns.
    k
        The k of k-anonymity (at least 2).
    marker
        What a suppressed cell shows.

    Returns
    -------
    CellSuppressionResult

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"zip": ["1", "1", "2", "3"], "sex": ["F", "F", "F", "F"]})
    >>> res = suppress_cells(df, ["zip", "sex"], 2)
    >>> res.data["zip"].tolist(), res.cells_suppressed
    (['1', '1', '*', '*'], 2)
    """
    t0 = time.perf_counter()
    if not qis:
        raise InputError("cell suppression needs at least one quasi-identifier")
    missing = [q for q in qis if q not in df.columns]
    if missing:
        raise SchemaError(
            f"quasi-identifier column(s) {', '.join(map(repr, missing))} are not in the table"
        )
    if k < 2:
        raise InputError(f"k must be at least 2, got {k}")
    n = df.shape[0]
    if n == 0:
        raise InputError("the table is empty: there is nothing to anonymize")
    if k > n:
        raise PrivacyRequirementNotMet(
            f"k = {k} is larger than the table ({n} rows)", hint=f"use k <= {n}"
        )
    # Code 0 is the suppressed value; original values are 1..m. A value equal to the marker
    # keeps its own code, so it never merges with suppressed cells.
    codes = np.column_stack(
        [pd.factorize(df[q], use_na_sentinel=False)[0].astype(np.int64) + 1 for q in qis]
    )
    d = len(qis)
    rounds = 0
    while True:
        sizes = _class_sizes(codes)
        unsafe = np.flatnonzero(sizes < k)
        if unsafe.size == 0:
            break
        rounds += 1
        open_cols = [j for j in range(d) if (codes[unsafe, j] != 0).any()]
        if not open_cols:
            _top_up(codes, unsafe, k)
            continue
        best_gain, best_col, best_rows = 0, -1, unsafe[:0]
        for j in open_cols:
            trial = codes.copy()
            trial[unsafe, j] = 0
            helped = unsafe[_class_sizes(trial)[unsafe] >= k]
            if helped.size > best_gain:
                best_gain, best_col, best_rows = helped.size, j, helped
        if best_col >= 0:
            codes[best_rows, best_col] = 0
            continue
        distinct = [len(np.unique(codes[unsafe, j])) for j in open_cols]
        codes[unsafe, open_cols[int(np.argmax(distinct))]] = 0
    mask = codes == 0
    out = df.copy()
    for j, q in enumerate(qis):
        if mask[:, j].any():
            col = out[q].astype(object)
            col[mask[:, j]] = marker
            out[q] = col
    ids = _tuple_ids(codes)
    class_sizes = np.bincount(ids)
    return CellSuppressionResult(
        data=out,
        mask=mask,
        cells_suppressed=int(mask.sum()),
        records_affected=int(mask.any(axis=1).sum()),
        classes=int(class_sizes.size),
        min_class_size=int(class_sizes.min()),
        seconds=time.perf_counter() - t0,
        rounds=rounds,
    )


def _top_up(codes: np.ndarray, unsafe: np.ndarray, k: int) -> None:
    """Fully suppress records of other classes to lift the all-'*' class to k.

    Surplus records (beyond k) of the largest classes are taken when there are enough;
    otherwise whole classes are absorbed, smallest first. Every class left keeps >= k.
    """
    need = k - unsafe.size
    ids = _tuple_ids(codes)
    full = np.bincount(ids)
    star = ids[unsafe[0]]
    others = np.flatnonzero(np.arange(full.size) != star)
    chosen: list[np.ndarray] = []
    if int(np.clip(full[others] - k, 0, None).sum()) >= need:
        for cls in others[np.argsort(-full[others], kind="stable")]:
            if need <= 0:
                break
            take = np.flatnonzero(ids == cls)[: min(need, int(full[cls]) - k)]
            chosen.append(take)
            need -= take.size
    else:
        for cls in others[np.argsort(full[others], kind="stable")]:
            if need <= 0:
                break
            chosen.append(np.flatnonzero(ids == cls))
            need -= int(full[cls])
    codes[np.concatenate(chosen)] = 0
