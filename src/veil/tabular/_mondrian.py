"""Strict Mondrian multidimensional partitioning (local recoding).

Mondrian (LeFevre, DeWitt & Ramakrishnan, ICDE 2006) recursively cuts the table: each
partition is cut along the quasi-identifier where it is widest (relative to the whole
domain), at the median, as long as *both* halves still satisfy the privacy models; a
partition that no cut can split becomes an equivalence class. Every class is then released
with the smallest generalization that covers its rows:

- numeric quasi-identifiers: the range ``"[lo-hi]"`` of the class's values (the value itself
  when they are all equal);
- categorical ones with a hierarchy: the lowest common ancestor in the hierarchy of the
  class's values (cuts are made between children of that ancestor, never through a node);
- categorical ones without a hierarchy: the set ``"{a,b,c}"`` of the class's values, the
  values ordered by their frequency in the whole table (cuts split that order at the median).

"Strict" means the partitions never overlap: rows with the same value on the cut attribute
always go to the same side.

Privacy semantics: the unit of privacy is a row. Every released equivalence class (rows with
the same released quasi-identifier tuple) has at least k rows and satisfies l-diversity and
t-closeness as configured, because the cut that produced it was only accepted if it did.
Distinct classes can carry the same released tuple (two ranges that happen to coincide);
they then merge into one larger class, which keeps every model that is closed under union of
classes (k, distinct l, entropy l, equal/ordered t), so the guarantee holds on the release.
No record is suppressed.

The cutting runs breadth first over all open partitions at once: each round computes every
partition's widths with ``reduceat`` on rows kept sorted by partition, finds all medians with
one sort and ``searchsorted`` per attribute, and checks all candidate halves with one
``bincount`` per sensitive column. There is no loop over rows or over partitions.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from veil._errors import InputError, PrivacyRequirementNotMet, SchemaError
from veil._numeric import coerce_numbers
from veil._progress import NullProgress, Progress
from veil.policy import PrivacyConfig
from veil.tabular._leaf_tree import LeafTree, as_leaf_tree, match_leaves
from veil.tabular._partition_checks import GroupChecker
from veil.tabular._privacy_models import whole_table_failures

__all__ = ["MondrianResult", "mondrian"]


@dataclass(frozen=True, eq=False)
class MondrianResult:
    """What :func:`mondrian` released.

    Attributes
    ----------
    data
        The released table: same rows, order and index as the input; each quasi-identifier
        column holds strings (ranges, hierarchy labels or sets); other columns unchanged.
    suppressed
        Boolean mask of suppressed rows (Mondrian suppresses none: all ``False``).
    classes
        Number of equivalence classes of the release (distinct released quasi-identifier
        tuples; two partitions released alike count once).
    min_class_size
        Size of the smallest equivalence class of the release.
    ncp
        Global certainty penalty (GCP): the mean normalized certainty penalty over every
        quasi-identifier cell, in [0, 1]; 0 is the original table, 1 is everything ``*``.
    seconds
        Wall time of the partitioning and release.
    class_ids
        Partition number of each row.
    partitions
        Number of partitions Mondrian formed (at least ``classes``).
    ncp_by_column
        The mean penalty of each quasi-identifier column.
    rounds
        Number of breadth-first cutting rounds.
    """

    data: pd.DataFrame
    suppressed: np.ndarray
    classes: int
    min_class_size: int
    ncp: float
    seconds: float
    class_ids: np.ndarray = field(repr=False)
    partitions: int = 0
    ncp_by_column: dict[str, float] = field(default_factory=dict)
    rounds: int = 0


@dataclass(eq=False)
class _Dim:
    name: str
    kind: Literal["numeric", "hierarchy", "set"]
    codes: np.ndarray  # (n,) int64
    size: int  # number of distinct codes
    values: np.ndarray | None = None  # numeric: sorted distinct values
    integer: bool = False  # numeric: print as integers
    tree: LeafTree | None = None
    node_active: list[np.ndarray] | None = None  # hierarchy: active leaves under each node
    labels: list[str] | None = None  # set: label of each code
    domain: float = 0.0  # numeric: max - min; categorical: active domain size - 1

    def lca(self, mn: np.ndarray, mx: np.ndarray) -> np.ndarray:
        """Level of the lowest common ancestor of leaf positions ``mn..mx``."""
        assert self.tree is not None
        eq = self.tree.anc[:, mn] == self.tree.anc[:, mx]
        return np.argmax(eq, axis=0)

    def width(self, mn: np.ndarray, mx: np.ndarray, distinct: np.ndarray | None) -> np.ndarray:
        """Normalized certainty penalty of partitions with these code ranges."""
        if self.domain <= 0:
            return np.zeros(mn.shape[0])
        if self.kind == "numeric":
            assert self.values is not None
            return np.asarray((self.values[mx] - self.values[mn]) / self.domain)
        if self.kind == "hierarchy":
            assert self.tree is not None and self.node_active is not None
            lvl = self.lca(mn, mx)
            node = self.tree.anc[lvl, mn]
            counts = np.empty(mn.shape[0])
            for lv in np.unique(lvl):
                sel = lvl == lv
                counts[sel] = self.node_active[lv][node[sel]]
            return np.asarray((counts - 1) / self.domain)
        assert distinct is not None
        return np.asarray((distinct - 1) / self.domain)

    def split_values(self, rows: np.ndarray, lvl_of_row: np.ndarray | None) -> np.ndarray:
        """The ordinal each row is cut on: its code, or its LCA child's code."""
        codes = self.codes[rows]
        if self.kind != "hierarchy":
            return codes
        assert self.tree is not None and lvl_of_row is not None
        return np.asarray(self.tree.anc[lvl_of_row - 1, codes])


def _is_numeric(series: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series))


def _encode(df: pd.DataFrame, qi: str, *, numeric: bool, hierarchy: Any | None) -> _Dim:
    series = df[qi]
    if numeric:
        nums = coerce_numbers(series)
        bad = int((nums.isna() & series.notna()).sum())
        if bad:
            raise SchemaError(
                f"quasi-identifier {qi!r} is numeric but {bad} value(s) are not numbers",
                hint="clean the column or give it a hierarchy and treat it as categorical",
            )
        missing = int(nums.isna().sum())
        if missing:
            raise SchemaError(
                f"numeric quasi-identifier {qi!r} has {missing} missing value(s)",
                hint="impute or drop them before anonymizing",
            )
        arr = nums.to_numpy(dtype=float)
        values, codes = np.unique(arr, return_inverse=True)
        integer = bool(np.all(values == np.round(values)))
        return _Dim(
            qi,
            "numeric",
            codes.astype(np.int64),
            len(values),
            values=values,
            integer=integer,
            domain=float(values[-1] - values[0]),
        )
    fcodes, uniques = pd.factorize(series, use_na_sentinel=False)
    fcodes = fcodes.astype(np.int64)
    if hierarchy is not None:
        tree = as_leaf_tree(hierarchy, column=qi)
        leaf = match_leaves(
            tree, np.asarray(uniques, dtype=object), numeric=_is_numeric(series), column=qi
        )
        active = np.zeros(len(tree.leaves))
        active[leaf] = 1.0
        node_active = [
            np.bincount(tree.anc[lv], weights=active, minlength=int(tree.anc[lv].max()) + 1)
            for lv in range(tree.anc.shape[0])
        ]
        return _Dim(
            qi,
            "hierarchy",
            leaf[fcodes],
            len(tree.leaves),
            tree=tree,
            node_active=node_active,
            domain=float(len(uniques) - 1),
        )
    counts = np.bincount(fcodes, minlength=len(uniques))
    order = np.argsort(-counts, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    labels = [_plain(uniques[i]) for i in order]
    return _Dim(
        qi, "set", rank[fcodes], len(uniques), labels=labels, domain=float(len(uniques) - 1)
    )


def _plain(value: Any) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "NA"
    return str(value)


def _fmt(x: float, integer: bool) -> str:
    if integer:
        return str(int(x))
    return np.format_float_positional(x, trim="-")


def _segments(seg: np.ndarray, n_parts: int) -> tuple[np.ndarray, np.ndarray]:
    sizes = np.bincount(seg, minlength=n_parts)
    starts = np.zeros(n_parts, dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    return sizes, starts


def _distinct_per_part(seg: np.ndarray, codes: np.ndarray, size: int, n_parts: int) -> np.ndarray:
    keys = np.unique(seg * size + codes)
    return np.bincount(keys // size, minlength=n_parts)


def _validate(df: pd.DataFrame, qis: list[str], privacy: PrivacyConfig) -> None:
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"expected a pandas DataFrame, got {type(df).__name__}")
    if not qis:
        raise InputError("Mondrian needs at least one quasi-identifier")
    missing = [q for q in qis if q not in df.columns]
    if missing:
        raise SchemaError(
            f"quasi-identifier column(s) {', '.join(map(repr, missing))} are not in the table"
        )
    if len(set(qis)) != len(qis):
        raise InputError("a quasi-identifier is listed more than once")
    if df.shape[0] == 0:
        raise InputError(
            "the table is empty: there is nothing to anonymize",
            hint="check the input file and its filters",
        )
    if not privacy.any_model:
        raise InputError(
            "no privacy model is configured", hint="set e.g. privacy: {k_anonymity: {k: 5}}"
        )
    if privacy.k_anonymity is not None and privacy.k_anonymity.k > df.shape[0]:
        raise PrivacyRequirementNotMet(
            f"k = {privacy.k_anonymity.k} is larger than the table ({df.shape[0]} rows)",
            hint=f"use k <= {df.shape[0]}",
        )


def mondrian(
    df: pd.DataFrame,
    qis: list[str],
    privacy: PrivacyConfig,
    sensitive: list[str],
    *,
    numeric: set[str] | None = None,
    hierarchies: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> MondrianResult:
    """Anonymize ``df`` by strict Mondrian partitioning under k, l and t.

    Parameters
    ----------
    df
        The table. It is not modified.
    qis
        The quasi-identifier columns.
    privacy
        The models to satisfy (k-anonymity, l-diversity, t-closeness).
    sensitive
        Sensitive columns, for l-diversity and t-closeness.
    numeric
        Quasi-identifiers to treat as numbers (cut at the median, released as ranges).
        Default: those with a numeric dtype.
    hierarchies
        Hierarchies of categorical quasi-identifiers (ARX CSV path, DataFrame, mapping or an
        engine hierarchy); also of the sensitive column for hierarchical t-closeness. Those of
        numeric quasi-identifiers are not used.
    progress
        Receives one tick per cutting round.

    Returns
    -------
    MondrianResult

    Raises
    ------
    InputError
        Empty table, no quasi-identifier, a value missing from a hierarchy.
    SchemaError
        A missing column, or a non-numeric or missing value in a numeric quasi-identifier.
    PrivacyRequirementNotMet
        k is larger than the table, or the whole table fails the models.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.policy import PrivacyConfig
    >>> df = pd.DataFrame({"age": [21, 22, 35, 36, 50, 51, 60, 61]})
    >>> res = mondrian(df, ["age"], PrivacyConfig(k_anonymity={"k": 2}), [])
    >>> res.data["age"].tolist()
    ['[21-22]', '[21-22]', '[35-36]', '[35-36]', '[50-51]', '[50-51]', '[60-61]', '[60-61]']
    >>> res.min_class_size
    2
    """
    t0 = time.perf_counter()
    _validate(df, qis, privacy)
    hierarchies = dict(hierarchies or {})
    if numeric is None:
        numeric = {q for q in qis if _is_numeric(df[q])}
    dims = [
        _encode(df, q, numeric=q in numeric, hierarchy=None if q in numeric else hierarchies.get(q))
        for q in qis
    ]
    checker = GroupChecker(df, privacy, list(sensitive), hierarchies=hierarchies)
    n = df.shape[0]
    all_rows = np.arange(n, dtype=np.int64)
    if not checker.ok(np.zeros(n, dtype=np.int64), 1, all_rows)[0]:
        cols = whole_table_failures(checker.models, checker.domains)
        which = f" (sensitive column(s) {', '.join(map(repr, cols))})" if cols else ""
        raise PrivacyRequirementNotMet(
            "the whole table, as one class, does not satisfy the privacy models"
            f"{which}, so no generalization can",
            hint="lower l or raise t; a model with no column applies to every sensitive "
            "column, so name one with 'column' if the others need no l or t",
        )

    final = np.full(n, -1, dtype=np.int64)
    n_final = 0
    rows = all_rows
    seg = np.zeros(n, dtype=np.int64)
    n_parts = 1
    rounds = 0
    prog = progress if progress is not None else NullProgress()
    with prog.task("Mondrian partitioning", total=None) as task:
        while n_parts:
            rounds += 1
            sizes, starts = _segments(seg, n_parts)
            widths = np.empty((n_parts, len(dims)))
            lca_lvl: dict[int, np.ndarray] = {}
            for j, d in enumerate(dims):
                c = d.codes[rows]
                mn = np.minimum.reduceat(c, starts)
                mx = np.maximum.reduceat(c, starts)
                distinct = _distinct_per_part(seg, c, d.size, n_parts) if d.kind == "set" else None
                widths[:, j] = d.width(mn, mx, distinct)
                if d.kind == "hierarchy":
                    lca_lvl[j] = d.lca(mn, mx)
            rank = np.argsort(-widths, axis=1, kind="stable")
            chosen = np.full(n_parts, -1, dtype=np.int64)
            thr = np.zeros(n_parts, dtype=np.int64)
            for t in range(len(dims)):
                pending = np.flatnonzero(chosen < 0)
                if pending.size == 0:
                    break
                dim_t = rank[pending, t]
                live = widths[pending, dim_t] > 0
                pending, dim_t = pending[live], dim_t[live]
                for j in np.unique(dim_t):
                    parts = pending[dim_t == j]
                    ok, th = _try_cut(
                        dims[int(j)], parts, rows, seg, sizes, n_parts, lca_lvl.get(int(j)), checker
                    )
                    chosen[parts[ok]] = j
                    thr[parts[ok]] = th[ok]
            # Partitions no cut can split become classes.
            done = chosen < 0
            done_rows = done[seg]
            done_ids = np.cumsum(done) - 1
            final[rows[done_rows]] = n_final + done_ids[seg[done_rows]]
            n_final += int(done.sum())
            # The others are cut: side 0 keeps values <= threshold.
            keep = ~done_rows
            rows, seg = rows[keep], seg[keep]
            side = np.zeros(rows.shape[0], dtype=np.int64)
            for j in np.unique(chosen[~done]):
                on = chosen[seg] == j
                lv = lca_lvl[int(j)][seg[on]] if int(j) in lca_lvl else None
                vals = dims[int(j)].split_values(rows[on], lv)
                side[on] = vals > thr[seg[on]]
            key = seg * 2 + side
            order = np.argsort(key, kind="stable")
            rows, ks = rows[order], key[order]
            seg = np.zeros(ks.size, dtype=np.int64)
            np.cumsum(ks[1:] != ks[:-1], out=seg[1:])
            n_parts = int(seg[-1]) + 1 if seg.size else 0
            task.advance()
    return _release(df, qis, dims, final, n_final, rounds, t0)


def _try_cut(
    d: _Dim,
    parts: np.ndarray,
    rows: np.ndarray,
    seg: np.ndarray,
    sizes: np.ndarray,
    n_parts: int,
    lca_lvl: np.ndarray | None,
    checker: GroupChecker,
) -> tuple[np.ndarray, np.ndarray]:
    """Median cut of each partition in ``parts`` (sorted) along ``d``; which are allowed."""
    sel = np.zeros(n_parts, dtype=bool)
    sel[parts] = True
    on = sel[seg]
    r, s = rows[on], seg[on]
    vals = d.split_values(r, lca_lvl[s] if lca_lvl is not None else None)
    width = int(vals.max()) + 1
    key = s * width + vals
    ks = np.sort(key)
    cnt = sizes[parts]
    start = np.zeros(parts.size, dtype=np.int64)
    np.cumsum(cnt[:-1], out=start[1:])
    base = parts * width
    med = ks[start + (cnt - 1) // 2] - base
    le = np.searchsorted(ks, base + med, side="right") - start
    lt = np.searchsorted(ks, base + med, side="left") - start
    le_ok = (le > 0) & (le < cnt)
    lt_ok = (lt > 0) & (lt < cnt)
    use_le = le_ok & (~lt_ok | (np.abs(2 * le - cnt) <= np.abs(2 * lt - cnt)))
    th = np.where(use_le, med, med - 1)
    cuttable = le_ok | lt_ok
    local = np.full(n_parts, -1, dtype=np.int64)
    local[parts] = np.arange(parts.size)
    th_full = np.zeros(n_parts, dtype=np.int64)
    th_full[parts] = th
    group = local[s] * 2 + (vals > th_full[s])
    ok = checker.ok(group, 2 * parts.size, r).reshape(-1, 2).all(axis=1)
    return ok & cuttable, th


def _release(
    df: pd.DataFrame,
    qis: list[str],
    dims: list[_Dim],
    final: np.ndarray,
    n_classes: int,
    rounds: int,
    t0: float,
) -> MondrianResult:
    order = np.argsort(final, kind="stable")
    sizes, starts = _segments(final, n_classes)
    fs = final[order]
    out = df.copy()
    per_col: dict[str, float] = {}
    label_codes: list[np.ndarray] = []
    n = df.shape[0]
    for d in dims:
        c = d.codes[order]
        mn = np.minimum.reduceat(c, starts)
        mx = np.maximum.reduceat(c, starts)
        labels: list[str]
        if d.kind == "numeric":
            assert d.values is not None
            lo, hi = d.values[mn], d.values[mx]
            labels = [
                _fmt(a, d.integer) if a == b else f"[{_fmt(a, d.integer)}-{_fmt(b, d.integer)}]"
                for a, b in zip(lo.tolist(), hi.tolist(), strict=True)
            ]
            w = d.width(mn, mx, None)
        elif d.kind == "hierarchy":
            assert d.tree is not None
            lvl = d.lca(mn, mx)
            node = d.tree.anc[lvl, mn]
            labels = [d.tree.labels[a][b] for a, b in zip(lvl.tolist(), node.tolist(), strict=True)]
            w = d.width(mn, mx, None)
        else:
            assert d.labels is not None
            keys = np.unique(fs * d.size + c)
            part_of, code_of = keys // d.size, keys % d.size
            distinct = np.bincount(part_of, minlength=n_classes)
            bounds = np.flatnonzero(np.diff(part_of)) + 1
            names = d.labels
            labels = [
                names[int(g[0])] if g.size == 1 else "{" + ",".join(names[i] for i in g) + "}"
                for g in np.split(code_of, bounds)
            ]
            w = d.width(mn, mx, distinct)
        label_codes.append(pd.factorize(np.asarray(labels, dtype=object))[0])
        out[d.name] = pd.Series(
            np.asarray(labels, dtype=object)[final], index=df.index, dtype=object
        )
        per_col[d.name] = float((w * sizes).sum() / n)
    gcp = float(np.mean(list(per_col.values())))
    _, released = np.unique(np.stack(label_codes, axis=1), axis=0, return_inverse=True)
    released_sizes = np.bincount(released.ravel(), weights=sizes)
    return MondrianResult(
        data=out,
        suppressed=np.zeros(n, dtype=bool),
        classes=int(released_sizes.size),
        min_class_size=int(released_sizes.min()),
        ncp=gcp,
        seconds=time.perf_counter() - t0,
        class_ids=final,
        partitions=n_classes,
        ncp_by_column=per_col,
        rounds=rounds,
    )
