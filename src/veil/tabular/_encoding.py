"""Dictionary encoding and the frequency table the search works on.

Each quasi-identifier is encoded once: every record gets the row index of its value in the
column's hierarchy, and each hierarchy level becomes an integer lookup array (hierarchy row
-> generalized code). The table then collapses to its distinct quasi-identifier combinations
with their counts, plus, for every sensitive column, the sparse (combination, sensitive
code, count) triples. The search never touches rows again: evaluating a transformation is a
few array lookups and a group-by over the distinct combinations.

With a population table (delta-presence, k-map), the population's rows are encoded against
the same hierarchies; the combinations are then those of the subset *and* the population
(a combination only the population has counts 0 records), and the population count of each
combination is one more "sensitive" histogram, :data:`POPULATION`, with a single code: rolled
up like any other, it gives the population size of every class at any node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from veil._errors import InputError
from veil.tabular._hierarchy import Hierarchy, check_missing, match_rows, value_labels
from veil.tabular._privacy_models import POPULATION, SensitiveDomain

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["POPULATION", "EncodedQI", "FrequencyTable", "encode", "factorize_int"]


def factorize_uniques(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, distinct values in order of first appearance) of an int64 array, by hashing."""
    try:
        from pandas._libs import hashtable as _ht  # type: ignore[attr-defined]

        table = _ht.Int64HashTable(max(len(key), 1))
        uniques, codes = table.factorize(np.ascontiguousarray(key, dtype=np.int64))
        return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=np.int64)
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - pandas internals moved
        import pandas as pd

        codes, uniq = pd.factorize(key, sort=False)
        return codes.astype(np.int64, copy=False), np.asarray(uniq, dtype=np.int64)


def factorize_sorted(
    key: np.ndarray, key_bits: int, positions: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """(codes, sorted distinct values) of a non-negative int64 array whose values have at most
    ``key_bits`` bits, or None when positions do not fit beside them in 63 bits.
    ``positions``: ``arange`` of at least ``len(key)`` int64, if the caller keeps one.

    Each value is packed with its position into one int64 and the packs are sorted: numpy's
    vectorized sort of plain integers beats hashing and an indirect sort.
    """
    n = len(key)
    shift = max(n - 1, 1).bit_length()
    if n == 0 or key_bits + shift > 63:
        return None
    packed = key << shift
    packed |= np.arange(n, dtype=np.int64) if positions is None else positions[:n]
    packed.sort(kind="stable")
    pos = packed & ((1 << shift) - 1)
    packed >>= shift
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(packed[1:], packed[:-1], out=first[1:])
    ids = np.cumsum(first, dtype=np.int64)
    ids -= 1
    codes = np.empty(n, dtype=np.int64)
    codes[pos] = ids
    return codes, packed[first]


def factorize_int(
    key: np.ndarray, size_hint: int | None = None, rows: int | None = None
) -> tuple[np.ndarray, int]:
    """Dense ids ``0..n-1`` for the distinct values of an integer array (order of appearance
    is not kept). Uses a counting pass when the key space is small, hashing otherwise.

    ``rows``: the records ``key`` stands for when each entry is a weighted group of them
    (the Ray engine's aggregate); the choice of pass, and so the order of the ids, is then
    the one the records themselves would get."""
    if key.size == 0:
        return np.zeros(0, dtype=np.int64), 0
    if size_hint is not None and size_hint <= 2 * (key.size if rows is None else rows) + 64:
        present = np.zeros(size_hint, dtype=bool)
        present[key] = True
        nz = np.flatnonzero(present)
        ids = np.empty(size_hint, dtype=np.int64)
        ids[nz] = np.arange(len(nz), dtype=np.int64)
        return ids[key], len(nz)
    try:
        from pandas._libs import hashtable as _ht  # type: ignore[attr-defined]

        table = _ht.Int64HashTable(len(key))
        uniques, codes = table.factorize(np.ascontiguousarray(key, dtype=np.int64))
        return codes.astype(np.int64, copy=False), len(uniques)
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - pandas internals moved
        import pandas as pd

        codes, uniq = pd.factorize(key, sort=False)
        return codes.astype(np.int64, copy=False), len(uniq)


@dataclass
class EncodedQI:
    """One quasi-identifier, encoded against its hierarchy."""

    name: str
    hierarchy: Hierarchy
    level_codes: list[np.ndarray]  # per level: hierarchy row -> generalized code
    level_labels: list[np.ndarray]  # per level: generalized code -> label
    shares: list[np.ndarray]  # per level: generalized code -> ARX domain share
    value_counts: np.ndarray  # hierarchy row -> number of records with that value

    @property
    def height(self) -> int:
        return self.hierarchy.height

    @property
    def domain_size(self) -> int:
        return int(self.hierarchy.table.shape[0])

    def level_sizes(self) -> list[int]:
        return [len(lab) for lab in self.level_labels]


@dataclass
class FrequencyTable:
    """Distinct quasi-identifier combinations with counts and sensitive histograms.

    Attributes
    ----------
    qis
        The encoded quasi-identifiers, in search order.
    combos
        ``int64 (m, d)``: hierarchy row index of each QI for each distinct combination.
    counts
        ``int64 (m,)``: records per combination.
    row_combo
        ``int64 (n,)``: combination of each input record (used once, to apply the result).
    pairs
        Sensitive column -> ``(combo ids, sensitive codes, counts)``.
    domains
        Sensitive column -> :class:`SensitiveDomain` (global distribution etc.).
    sensitive_labels
        Sensitive column -> labels of its codes.
    population_counts
        ``int64 (m,)``: population records per combination, when a population was encoded
        (also in ``pairs[POPULATION]``); ``None`` otherwise.
    """

    qis: list[EncodedQI]
    combos: np.ndarray
    counts: np.ndarray
    row_combo: np.ndarray
    pairs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    domains: dict[str, SensitiveDomain] = field(default_factory=dict)
    sensitive_labels: dict[str, np.ndarray] = field(default_factory=dict)
    population_counts: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        return int(self.counts.sum())

    @property
    def heights(self) -> list[int]:
        return [q.height for q in self.qis]

    def generalized(self, levels: Sequence[int]) -> np.ndarray:
        """``(m, d)`` generalized codes of every combination at the given levels."""
        out = np.empty_like(self.combos)
        for d, (q, lv) in enumerate(zip(self.qis, levels, strict=True)):
            out[:, d] = q.level_codes[lv][self.combos[:, d]]
        return out

    def histograms(self, combo_class: np.ndarray, n_classes: int) -> dict[str, np.ndarray]:
        """Per-class sensitive histograms given the class of each combination."""
        out: dict[str, np.ndarray] = {}
        for col, (cid, code, cnt) in self.pairs.items():
            s = self.domains[col].n_codes
            flat = np.bincount(combo_class[cid] * s + code, weights=cnt, minlength=n_classes * s)
            out[col] = flat.astype(np.int64).reshape(n_classes, s)
        return out


def _encode_qi(
    name: str, series: pd.Series, hierarchy: Hierarchy, weights: np.ndarray | None = None
) -> tuple[EncodedQI, np.ndarray]:
    check_missing(hierarchy, bool(series.isna().any()))
    codes, labels = value_labels(series)
    counts = _count(codes, len(labels), weights)
    table = hierarchy.table
    label_row = match_rows(hierarchy, labels.tolist(), counts.tolist())
    rows = label_row[codes] if len(codes) else np.zeros(0, dtype=np.int64)
    value_counts = np.bincount(label_row, weights=counts, minlength=table.shape[0]).astype(np.int64)
    import pandas as pd

    level_codes, level_labels, shares = [], [], []
    n_h = table.shape[0]
    for level in range(table.shape[1]):
        lc, uniq = pd.factorize(table[:, level])
        lc = lc.astype(np.int64)
        level_codes.append(lc)
        level_labels.append(np.asarray(uniq, dtype=object))
        # ARX DomainShareMaterialized: rows of the hierarchy under the label / all rows
        shares.append(np.bincount(lc, minlength=len(uniq)) / float(n_h))
    return (
        EncodedQI(name, hierarchy, level_codes, level_labels, shares, value_counts),
        rows,
    )


def _population_rows(name: str, series: pd.Series, hierarchy: Hierarchy) -> np.ndarray:
    """Hierarchy row of each population record (the error counts values, never shows one)."""
    check_missing(hierarchy, bool(series.isna().any()))
    codes, labels = value_labels(series)
    counts = np.bincount(codes, minlength=len(labels))
    try:
        label_row = match_rows(hierarchy, labels.tolist(), counts.tolist())
    except InputError as exc:
        raise InputError(
            f"population table: {exc.message}",
            hint="every population value needs a row in the hierarchy (a built hierarchy "
            "covers the values of the input and the population together)",
        ) from None
    return label_row[codes] if len(codes) else np.zeros(0, dtype=np.int64)


def _count(codes: np.ndarray, minlength: int, weights: np.ndarray | None) -> np.ndarray:
    """Records per code: one per entry, or each entry's weight (exact below 2**53)."""
    if weights is None:
        return np.bincount(codes, minlength=minlength).astype(np.int64)
    return np.bincount(codes, weights=weights, minlength=minlength).astype(np.int64)


def _combine(
    columns: Sequence[np.ndarray], radices: Sequence[int], rows: int | None = None
) -> tuple[np.ndarray, int]:
    """Row ids of the distinct combinations of several code columns (pairwise factorizing)."""
    n = len(columns[0]) if columns else 0
    key = np.zeros(n, dtype=np.int64)
    size = 1
    for col, r in zip(columns, radices, strict=True):
        key, size = factorize_int(key * r + col, size * r, rows)
    return key, size


def encode(
    df: pd.DataFrame,
    qis: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    sensitive: Sequence[str] = (),
    *,
    sensitive_order: Mapping[str, np.ndarray] | None = None,
    sensitive_hierarchies: Mapping[str, Hierarchy] | None = None,
    population: pd.DataFrame | None = None,
    weights: np.ndarray | None = None,
) -> FrequencyTable:
    """Encode ``df`` into a :class:`FrequencyTable`.

    ``population`` (the population table of delta-presence / k-map, holding at least the
    quasi-identifier columns) adds its combinations and ``population_counts``. Metrics and
    sensitive distributions still describe ``df`` only.

    ``weights`` (no population then): each row of ``df`` stands for that many records,
    as in the Ray engine's aggregate of distinct rows. With the rows in the order of their
    first record, the table is the one the records themselves give (same combinations in
    the same order, same counts); ``row_combo`` then maps the aggregate's rows.

    Raises
    ------
    InputError
        A value of a quasi-identifier is missing from its hierarchy (counts only).
    """
    if weights is not None and population is not None:
        raise ValueError("weights and a population table cannot be combined")
    encoded: list[EncodedQI] = []
    row_codes: list[np.ndarray] = []
    n = len(df)
    total = n if weights is None else int(np.asarray(weights, dtype=np.int64).sum())
    for name in qis:
        q, rows = _encode_qi(name, df[name], hierarchies[name], weights)
        if population is not None:
            rows = np.concatenate([rows, _population_rows(name, population[name], q.hierarchy)])
        encoded.append(q)
        row_codes.append(rows)
    radices = [q.domain_size for q in encoded]
    all_combo, m = _combine(row_codes, radices, None if weights is None else total)
    row_combo = all_combo[:n]
    counts = _count(row_combo, m, weights)
    combos = np.zeros((m, len(encoded)), dtype=np.int64)
    for d, rc in enumerate(row_codes):
        combos[all_combo, d] = rc
    ft = FrequencyTable(encoded, combos, counts, row_combo)
    if population is not None:
        pop = np.bincount(all_combo[n:], minlength=m).astype(np.int64)
        ft.population_counts = pop
        nz = np.flatnonzero(pop)
        ft.pairs[POPULATION] = (nz, np.zeros(len(nz), dtype=np.int64), pop[nz])
        ft.domains[POPULATION] = SensitiveDomain(POPULATION, np.array([pop.sum()], np.int64))
    for col in sensitive:
        scodes, slabels = value_labels(df[col])
        s = len(slabels)
        order = None
        hier_maps: tuple[np.ndarray, ...] | None = None
        if sensitive_hierarchies and col in sensitive_hierarchies:
            sh = sensitive_hierarchies[col]
            check_missing(sh, bool(df[col].isna().any()))
            rows_s = match_rows(sh, slabels.tolist())
            import pandas as pd

            maps = []
            for level in range(1, sh.height):
                lc, _ = pd.factorize(sh.table[rows_s, level])
                maps.append(lc.astype(np.int64))
            if maps and len(pd.unique(sh.table[:, -1])) > 1:
                # the root above the hierarchy's several top nodes is part of its tree even
                # when the data holds values under only one of them (as Mondrian's tree and
                # the re-check): the height is the hierarchy's, not the data's
                maps.append(np.zeros(len(rows_s), dtype=np.int64))
            hier_maps = tuple(maps)
        try:
            nums = np.array([float(v) for v in slabels.tolist()])
            order = np.argsort(nums, kind="stable")
        except ValueError:
            order = np.argsort(np.array(slabels.tolist(), dtype=str), kind="stable")
        if sensitive_order and col in sensitive_order:
            order = sensitive_order[col]
        pair_key, n_pairs = factorize_int(
            row_combo * s + scodes, m * s, None if weights is None else total
        )
        pair_cnt = _count(pair_key, n_pairs, weights)
        first = np.zeros(n_pairs, dtype=np.int64)
        first[pair_key[::-1]] = np.arange(len(pair_key))[::-1]
        pair_combo = row_combo[first]
        pair_code = scodes[first]
        ft.pairs[col] = (pair_combo, pair_code, pair_cnt)
        ft.domains[col] = SensitiveDomain(
            col,
            _count(scodes, s, weights),
            order=order,
            hierarchy=hier_maps,
        )
        ft.sensitive_labels[col] = slabels
    if len(encoded) == 0 or ft.n_rows != total:
        raise InputError("nothing to encode: no quasi-identifier or no rows")
    return ft
