"""Optimal full-domain generalization over the lattice of hierarchy levels.

A node of the lattice is one level per quasi-identifier. The search returns the node that
satisfies the privacy models within the suppression limit with the lowest metric score,
breaking ties as ARX does (the lower node, i.e. the smaller sum of levels, wins), then by
lexicographic order of the levels.

How it stays exact and fast:

* Every node is evaluated on the frequency table of distinct quasi-identifier combinations
  (never on rows): generalizing is an index into precomputed level arrays, grouping is one
  hash/count pass over the combinations.
* Metrics with a cheap lower bound (loss, entropy, height, precision: the score without
  suppression is separable per attribute) let the search visit nodes in increasing bound
  order and stop as soon as the bound exceeds the best score found: no unvisited node can
  beat it. This is ARX's lower-bound pruning, made best-first.
* Monotonic privacy models (k-anonymity, distinct l-diversity, k-map; and every model of
  Li et al.'s t-closeness and l-diversity when no suppression is allowed; never
  delta-presence) let a satisfying
  node mark all its generalizations as satisfying, so those are never grouped again when
  their score is known without suppression (Flash's predictive tagging).
* For monotone metrics (dm, height) the generalizations of a satisfying node are pruned.
* A grouped node also bounds what every specialization of it must suppress: classes
  failing a model monotonic under suppression (k-anonymity, distinct l-diversity) fail in
  any split, and a class at EMD ``d > t`` from the whole table keeps at least a share
  ``(d - t) / (1 - t)`` of its records in parts farther than ``t`` (every EMD is convex
  in the class distribution and at most 1). When that bound exceeds the limit, the node's
  whole down-set fails; Flash-like walks up from a failing node find such bounds high in
  the lattice, so t-closeness with suppression, which is not monotone, prunes too.

No pruning rule is used where it could lose the optimum; the property tests compare the
result with a brute-force pass over the whole lattice.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from veil._errors import InputError
from veil.tabular._encoding import (
    FrequencyTable,
    factorize_int,
    factorize_sorted,
    factorize_uniques,
)
from veil.tabular._metrics import Metric, NodeClasses
from veil.tabular._privacy_models import PrivacyModel

__all__ = ["LatticeSearch", "SearchResult", "evaluate_node", "lattice"]

MAX_NODES = 5_000_000


@dataclass
class SearchResult:
    """What the search found."""

    levels: tuple[int, ...] | None
    score: float | None
    node: NodeClasses | None
    checked: int
    lattice_size: int
    seconds: float
    min_suppressed: int | None = None  # fewest records any checked node had to suppress
    scores: dict[tuple[int, ...], float] = field(default_factory=dict)


def lattice(heights: Sequence[int]) -> np.ndarray:
    """All nodes, ``(N, d)`` int64, in lexicographic order."""
    size = int(np.prod(heights, dtype=np.int64))
    if size > MAX_NODES:
        raise InputError(
            f"the generalization lattice has {size} nodes, more than {MAX_NODES} the optimal "
            "search handles",
            hint="use fewer quasi-identifiers or shorter hierarchies, or search: "
            "{algorithm: mondrian}",
        )
    grids = np.indices(tuple(heights)).reshape(len(heights), -1).T
    return grids.astype(np.int64)


@dataclass
class _Table:
    """Equivalence classes of one node: generalized codes, sizes, sensitive pairs."""

    levels: np.ndarray
    gen: np.ndarray | None  # (C, d) generalized codes of each class (slow path)
    sizes: np.ndarray  # (C,)
    pairs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None  # class, code, count
    combo_class: np.ndarray | None = None  # (m,) only for the root and applied nodes
    src: _Table | None = None  # where it was rolled up from, until its pairs are built
    inv: np.ndarray | None = None  # class of each source class
    key: np.ndarray | None = None  # (C,) fixed mixed-radix key of the codes (fast path)
    weights: np.ndarray | None = None  # ``sizes`` as floats (bincount weights, no cast)
    lv: tuple[int, ...] = ()  # ``levels`` as Python ints


class _Evaluator:
    """Groups the frequency table at any node, rolling up from the smallest cached
    predecessor (a node whose levels are all lower or equal) instead of the whole table."""

    #: key space (2 ** the bits of all QIs' fields) below which the fixed-radix key path is used
    FAST_LIMIT = 1 << 62

    def __init__(
        self,
        ft: FrequencyTable,
        models: Sequence[PrivacyModel],
        *,
        monotone_with_suppression: bool = True,
        cache_cells: int = 20_000_000,
    ) -> None:
        self.ft = ft
        self.models = list(models)
        self.sub_models = [
            m
            for m in self.models
            if (
                m.monotonic_suppression if monotone_with_suppression else m.monotonic_generalization
            )
        ]
        self.needs_hist = any(m.column is not None for m in self.models)
        # sub-models that read class sizes only are checked first, on every node
        self.size_models = [m for m in self.sub_models if m.column is None]
        sub_ids = {id(m) for m in self.sub_models}
        self.other_models = [
            (m, id(m) in sub_ids)
            for m in self.models
            if m.column is not None or id(m) not in sub_ids
        ]
        self.n_rows = int(ft.counts.sum())
        d = len(ft.qis)
        self.level_sizes = [q.level_sizes() for q in ft.qis]
        # one flat lookup array: code at level a of QI j -> code at level b (b >= a) lives at
        # FLAT[up_off[j, a, b] + code], so a whole node maps in a single fancy index
        hmax = max(q.height for q in ft.qis)
        self.up_off = np.zeros((d, hmax, hmax), dtype=np.int64)
        pieces: list[np.ndarray] = []
        pos = 0
        for j, q in enumerate(ft.qis):
            for a in range(q.height):
                for b in range(a, q.height):
                    m = np.zeros(len(q.level_labels[a]), dtype=np.int64)
                    m[q.level_codes[a]] = q.level_codes[b]
                    self.up_off[j, a, b] = pos
                    pieces.append(m)
                    pos += len(m)
        self.flat_up = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
        # fast path: one int64 key per class, each QI's code in a bit field of its own (as
        # wide as its level-0 codes need), so rolling up touches only the QIs whose level
        # changes, with shifts and masks rather than divisions
        bits = [max(len(q.level_labels[0]) - 1, 1).bit_length() for q in ft.qis]
        self.key_bits = sum(bits)
        self.fast = (1 << self.key_bits) < self.FAST_LIMIT
        self.radix = np.array([1 << b for b in bits], dtype=np.int64)
        self.shift = [sum(bits[j + 1 :]) for j in range(d)]
        self.mult = np.array([1 << sh for sh in self.shift], dtype=np.int64)
        self.field_mask = [(1 << b) - 1 for b in bits]
        # NodeClasses.gen_rows: decode a class's codes by shifts and masks
        self.fields = (
            np.array(self.shift, dtype=np.int64)[None, :],
            np.array(self.field_mask, dtype=np.int64)[None, :],
        )
        # (j, a, b) -> per code at level a: what the key gains when QI j goes from a to b
        self._key_delta: dict[tuple[int, int, int], np.ndarray] = {}
        self.qi_index = np.arange(d)
        root_gen = np.stack(
            [q.level_codes[0][ft.combos[:, j]] for j, q in enumerate(ft.qis)], axis=1
        )
        self.root = _Table(
            np.zeros(d, dtype=np.int64),
            None if self.fast else root_gen,
            ft.counts,
            {col: (pc, code, cnt.astype(np.float64)) for col, (pc, code, cnt) in ft.pairs.items()},
            np.arange(len(ft.counts), dtype=np.int64),
            key=root_gen @ self.mult if self.fast else None,
            lv=(0,) * d,
        )
        self.cache_levels = np.zeros((0, d), dtype=np.int64)
        self.cache_sizes = np.zeros(0, dtype=np.int64)
        self.cache: list[_Table] = []
        self.cache_map: dict[tuple[int, ...], _Table] = {}
        self.cache_cells = cache_cells
        self._cells = 0
        self._positions = np.arange(len(ft.counts), dtype=np.int64)  # no table is larger
        self.n_eval = 0

    def _source(self, at: tuple[int, ...], lx: np.ndarray) -> _Table:
        # a direct predecessor (one level lower on one QI) is usually cached and small
        levels = list(at)
        best: _Table | None = None
        for j, v in enumerate(levels):
            if v:
                levels[j] = v - 1
                t = self.cache_map.get(tuple(levels))
                levels[j] = v
                if t is not None and (best is None or len(t.sizes) < len(best.sizes)):
                    best = t
        if best is not None:
            return best
        k = len(self.cache)
        if k:
            ok = np.all(self.cache_levels[:k] <= lx[None, :], axis=1)
            if ok.any():
                cand = np.flatnonzero(ok)
                return self.cache[int(cand[np.argmin(self.cache_sizes[cand])])]
        return self.root

    def table(self, levels: tuple[int, ...], *, keep_combos: bool = False) -> _Table:
        lx = np.asarray(levels, dtype=np.int64)
        src = self.root if keep_combos else self._source(levels, lx)
        if self.fast:
            return self._table_fast(src, lx, levels, keep_combos)
        assert src.gen is not None
        off = self.up_off[self.qi_index, src.levels, lx]
        mapped = self.flat_up[src.gen + off[None, :]]
        radix = [self.level_sizes[j][b] for j, b in enumerate(levels)]
        n_src = len(src.sizes)
        space = 1
        for r in radix:
            space *= r
        if space < (1 << 62):
            mult = np.ones(len(radix), dtype=np.int64)
            acc = 1
            for j in range(len(radix) - 1, -1, -1):
                mult[j] = acc
                acc *= radix[j]
            key = mapped @ mult
            inv, n_new = factorize_int(key, space)
        else:
            key = np.zeros(n_src, dtype=np.int64)
            size = 1
            for j, r in enumerate(radix):
                key, size = factorize_int(key * r + mapped[:, j], size * r)
            inv, n_new = key, size
        sizes = np.bincount(inv, weights=src.sizes, minlength=n_new).astype(np.int64)
        first = np.empty(n_new, dtype=np.int64)
        first[inv[::-1]] = np.arange(n_src - 1, -1, -1, dtype=np.int64)
        tab = _Table(lx, mapped[first], sizes, None, None, src, inv, lv=levels)
        if keep_combos and src.combo_class is not None:
            tab.combo_class = inv[src.combo_class]
        return tab

    def _roll_key(self, src: _Table, levels: tuple[int, ...]) -> np.ndarray:
        """Fixed-radix key at ``levels`` of each class of ``src`` (may be ``src.key`` itself)."""
        assert src.key is not None
        key = src.key
        copied = False
        for j, (a, b) in enumerate(zip(src.lv, levels, strict=True)):
            if a == b:
                continue
            code = key >> self.shift[j] if self.shift[j] else key.copy()
            code &= self.field_mask[j]
            table = self._key_delta.get((j, a, b))
            if table is None:
                n_a = self.level_sizes[j][a]
                up = self.flat_up[self.up_off[j, a, b] : self.up_off[j, a, b] + n_a]
                table = (up - np.arange(n_a, dtype=np.int64)) << self.shift[j]
                self._key_delta[j, a, b] = table
            delta = table[code]
            if copied:
                key += delta
            else:
                key = key + delta
                copied = True
        return key

    def _table_fast(
        self, src: _Table, lx: np.ndarray, levels: tuple[int, ...], keep_combos: bool
    ) -> _Table:
        key = self._roll_key(src, levels)
        found = factorize_sorted(key, self.key_bits, self._positions)
        inv, uniques = found if found is not None else factorize_uniques(key)
        weights = np.bincount(
            inv, weights=src.sizes if src.weights is None else src.weights, minlength=len(uniques)
        )
        tab = _Table(
            lx, None, weights.astype(np.int64), None, None, src, inv, key=uniques, lv=levels
        )
        tab.weights = weights
        if keep_combos and src.combo_class is not None:
            tab.combo_class = inv[src.combo_class]
        return tab

    DENSE_CELLS = 4_000_000  # largest classes x sensitive values histogram built densely

    @staticmethod
    def _anchor(tab: _Table) -> tuple[_Table, list[np.ndarray]]:
        """The nearest table up the roll-up chain that has its pairs, and the class maps on
        the way (last hop first)."""
        maps: list[np.ndarray] = []
        while tab.pairs is None:
            assert tab.src is not None and tab.inv is not None
            maps.append(tab.inv)
            tab = tab.src
        return tab, maps

    def _roll_pairs(
        self, tab: _Table, found: tuple[_Table, list[np.ndarray]] | None = None
    ) -> dict[str, np.ndarray]:
        """Build the triples of ``tab`` from the nearest table that has them (``found``: that
        table and the maps to it), in one pass (the tables in between stay lazy); returns
        the dense histograms it built."""
        anchor, maps = found or self._anchor(tab)
        assert anchor.pairs is not None
        # compose from this table down: the intermediate maps are the smaller ones
        cls_map = maps[0]
        for inv in maps[1:]:
            cls_map = cls_map[inv]
        n_new = len(tab.sizes)
        pairs = {}
        dense: dict[str, np.ndarray] = {}
        for col, (pc, code, cnt) in anchor.pairs.items():
            s = self.ft.domains[col].n_codes
            ncls = cls_map[pc]
            if n_new * s <= self.DENSE_CELLS:
                flat = np.bincount(ncls * s + code, weights=cnt, minlength=n_new * s)
                nz = np.flatnonzero(flat != 0)  # much faster on booleans than on floats
                cls = nz // s
                # float counts: they only ever serve as bincount weights
                pairs[col] = (cls, nz - cls * s, flat[nz])
                dense[col] = flat.reshape(n_new, s)
                continue
            pk, npk = factorize_int(ncls * s + code, n_new * s)
            if npk < len(pk):
                agg = np.bincount(pk, weights=cnt, minlength=npk).astype(np.int64)
                f = np.empty(npk, dtype=np.int64)
                f[pk[::-1]] = np.arange(len(pk) - 1, -1, -1, dtype=np.int64)
                pairs[col] = (ncls[f], code[f], agg)
            else:
                pairs[col] = (ncls, code, cnt)
        tab.pairs = pairs
        tab.src = None
        tab.inv = None
        return dense

    def _remember(self, tab: _Table, levels: tuple[int, ...]) -> None:
        n_new = len(tab.sizes)
        if tab.src is not None and n_new >= len(tab.src.sizes):
            return
        width = 1 if tab.gen is None else tab.gen.shape[1]
        cells = n_new * (width + 2) + 3 * sum(len(p[0]) for p in (tab.pairs or {}).values())
        if self._cells + cells > self.cache_cells:
            return
        self._cells += cells
        k = len(self.cache)
        if k == len(self.cache_levels):
            grow = max(64, 2 * k)
            self.cache_levels = np.vstack(
                [self.cache_levels, np.zeros((grow, self.cache_levels.shape[1]), np.int64)]
            )
            self.cache_sizes = np.append(self.cache_sizes, np.zeros(grow, np.int64))
        self.cache_levels[k] = tab.levels
        self.cache_sizes[k] = n_new
        self.cache.append(tab)
        self.cache_map[levels] = tab

    def histograms(self, tab: _Table) -> dict[str, np.ndarray]:
        n = len(tab.sizes)
        out: dict[str, np.ndarray] = {}
        if tab.pairs is None:
            out = self._roll_pairs(tab)
        assert tab.pairs is not None
        for col, (pc, code, cnt) in tab.pairs.items():
            if col in out:
                continue
            s = self.ft.domains[col].n_codes
            flat = np.bincount(pc * s + code, weights=cnt, minlength=n * s)
            out[col] = flat.reshape(n, s)
        return out

    def evaluate(
        self,
        levels: tuple[int, ...],
        *,
        keep_combos: bool = False,
        abort_above: int | None = None,
        sub_only: bool = False,
    ) -> tuple[NodeClasses, float]:
        """The node's classes, and a lower bound of the records that the node and every
        node below it (a specialization: it splits the node's classes) must suppress.

        That bound counts the classes failing a monotone sub-model (every part of them fails
        too) and, for the other classes, the share that models such as t-closeness prove
        must fail in any split (:meth:`PrivacyModel.check`). Without suppression (the
        sub-models are then the models monotonic under generalization) a class failing a
        sub-model counts whole: any failing record is then too many.

        With ``abort_above``, a node whose monotone size models alone suppress more records
        than that is not checked further: its count is then a lower bound.
        """
        self.n_eval += 1
        tab = self.table(levels, keep_combos=keep_combos)
        sizes = tab.sizes
        # monotone sub-models first: when they alone suppress too much, skip the rest
        kept = np.ones(len(sizes), dtype=bool)
        for m in self.size_models:
            kept &= m.satisfied(sizes, {})
        # every node's classes hold all records: suppressed = all - kept
        sup = self.n_rows - int(np.dot(sizes, kept))
        below = float(sup)
        if self.other_models and not (sub_only or (abort_above is not None and sup > abort_above)):
            hists = self.histograms(tab) if self.needs_hist else {}
            # the classes failing the size models are suppressed whatever the others say
            chosen = np.flatnonzero(kept)
            csz = sizes[chosen]
            ok, share = self._check(csz, {col: h[chosen] for col, h in hists.items()})
            kept = kept.copy()
            kept[chosen] = ok
            sup += int(np.dot(csz, ~ok))
            below += float(np.dot(csz, share))
        if not keep_combos:
            self._remember(tab, levels)
        node = NodeClasses(
            levels,
            tab.gen,
            tab.combo_class,
            sizes,
            kept,
            sup,
            key=tab.key,
            mult=self.mult,
            radix=self.radix,
            fields=self.fields,
        )
        return node, below

    def _check(
        self, sizes: np.ndarray, hists: dict[str, np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The models other than the size models on some classes: whether each class
        satisfies them all, and the share of its records that must fail in any split of it
        (see :meth:`evaluate`)."""
        ok = np.ones(len(sizes), dtype=bool)
        share = np.zeros(len(sizes))
        for m, is_sub in self.other_models:
            r, sh = m.check(sizes, hists)
            ok &= r
            np.maximum(share, np.maximum(sh, ~r) if is_sub else sh, out=share)
        return ok, share


def evaluate_node(
    ft: FrequencyTable, models: Sequence[PrivacyModel], levels: Sequence[int]
) -> NodeClasses:
    """Group the frequency table at one node and mark the classes that satisfy the models."""
    node, _ = _Evaluator(ft, models).evaluate(tuple(int(x) for x in levels), keep_combos=True)
    return node


class LatticeSearch:
    """Optimal full-domain generalization (see the module docstring).

    Parameters
    ----------
    models
        Privacy models every kept class must satisfy.
    metric
        The metric to minimize.
    suppression_limit
        Share of records that may be suppressed (ARX: ``floor(limit * n)`` records).
    """

    def __init__(
        self,
        models: Sequence[PrivacyModel],
        metric: Metric,
        suppression_limit: float = 0.0,
        *,
        exhaustive: bool = False,
    ) -> None:
        self.models = list(models)
        self.metric = metric
        self.suppression_limit = suppression_limit
        self.exhaustive = exhaustive

    def max_outliers(self, n: int) -> int:
        """ARX's absolute limit: ``floor(limit * n)`` records."""
        return math.floor(self.suppression_limit * float(n))

    def run(self, ft: FrequencyTable) -> SearchResult:
        started = time.perf_counter()
        metric = self.metric
        metric.prepare(ft)
        nodes = lattice(ft.heights)
        n_nodes = len(nodes)
        heights = np.asarray(ft.heights, dtype=np.int64)
        limit = self.max_outliers(ft.n_rows)
        ev = _Evaluator(ft, self.models, monotone_with_suppression=limit > 0)
        level_sum = nodes.sum(axis=1)
        hs = [int(h) for h in ft.heights]
        mult = [1] * len(hs)  # index step of one level up on each QI
        for j in range(len(hs) - 2, -1, -1):
            mult[j] = mult[j + 1] * hs[j + 1]

        exhaustive = self.exhaustive
        lb = None if exhaustive else metric.lower_bounds(nodes)
        # visiting order: bound, then lower nodes first, then lexicographic (index order)
        order = np.lexsort((np.arange(n_nodes), level_sum, lb if lb is not None else level_sum))
        mono = ev.sub_models
        privacy_monotone = len(mono) == len(self.models)
        known_ok = np.zeros(n_nodes, dtype=bool)
        bad = np.zeros(n_nodes, dtype=bool)
        pruned = np.zeros(n_nodes, dtype=bool)
        # the same flags seen as arrays shaped like the lattice: an up-set or down-set of a
        # node is then one slice (nodes are in C order of their levels)
        shape = tuple(int(h) for h in heights)
        ok_l, bad_l, pruned_l = (a.reshape(shape) for a in (known_ok, bad, pruned))
        # monotone metrics: a node scores at least what any grouped predecessor scored
        dyn = np.zeros(n_nodes, dtype=np.float64)
        dyn_l = dyn.reshape(shape)

        def node_levels(idx: int) -> list[int]:
            out = nodes[idx].tolist()
            return out

        def down(idx: int) -> tuple[slice, ...]:
            return tuple(slice(0, x + 1) for x in node_levels(idx))

        def up(idx: int) -> tuple[slice, ...]:
            return tuple(slice(x, None) for x in node_levels(idx))

        results: dict[int, tuple[bool, float | None]] = {}
        best: tuple[float, int, int] | None = None  # score, level sum, node index
        min_sup: list[int] = []
        scores: dict[tuple[int, ...], float] = {}

        def run_node(idx: int) -> tuple[bool, float | None]:
            levels = tuple(node_levels(idx))
            node, below = ev.evaluate(levels, abort_above=None if exhaustive else limit)
            sup = node.suppressed_records
            min_sup.append(sup)
            ok = sup <= limit
            score = metric.score(node) if ok or metric.monotone else None
            if not exhaustive and metric.monotone and score is not None:
                view = dyn_l[up(idx)]
                np.maximum(view, score, out=view)
            if not ok:
                score = None
            results[idx] = (ok, score)
            if not exhaustive:
                if below > limit:
                    bad_l[down(idx)] = True
                if ok and privacy_monotone:
                    ok_l[up(idx)] = True
            return ok, score

        def walk_up(idx: int) -> None:
            """Flash-like: binary search for the border of the nodes known to fail on a path
            to the top, then (unless every model is monotone) a climb to a maximal one."""
            chain = [idx]
            cur = node_levels(idx)
            while True:
                # one level up on the QI whose relative level stays lowest (first on ties)
                j, low = -1, 2.0
                for i, (x, h) in enumerate(zip(cur, hs, strict=True)):
                    if x < h - 1 and (x + 1) / h < low:
                        j, low = i, (x + 1) / h
                if j < 0:
                    break
                cur[j] += 1
                chain.append(chain[-1] + mult[j])
            lo, hi = 0, len(chain)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                c = chain[mid]
                if not bad[c] and c not in results:
                    run_node(c)
                if bad[c]:
                    lo = mid
                else:
                    hi = mid
            if privacy_monotone:
                return
            # climb from the highest failing node of the chain to a maximal one, so that the
            # set of nodes known to fail is as large as this walk can make it
            top, cur, moved = chain[lo], node_levels(chain[lo]), True
            while moved:
                moved = False
                for j, h in enumerate(hs):
                    if cur[j] + 1 < h:
                        c = top + mult[j]
                        if not bad[c] and c not in results:
                            run_node(c)
                        if bad[c]:
                            top, moved = c, True
                            cur[j] += 1
                            break

        for idx in order:
            idx = int(idx)
            tol = 0.0 if best is None else 1e-12 * max(1.0, abs(best[0]))
            if best is not None and lb is not None and float(lb[idx]) > best[0] + tol:
                break
            if not exhaustive and (bad[idx] or pruned[idx]):
                continue
            if best is not None and not exhaustive and dyn[idx] > best[0] + tol:
                continue
            if idx in results:
                ok, score = results[idx]
            elif known_ok[idx] and limit == 0:
                levels = tuple(int(x) for x in nodes[idx])
                score = metric.score_without_suppression(levels)
                ok = True
                if score is None:
                    ok, score = run_node(idx)
            else:
                ok, score = run_node(idx)
                # Flash-like walks pay off while the border is unknown; with suppression the
                # first satisfying node comes early and walks mostly group useless nodes
                walk = limit == 0 or best is None
                if not exhaustive and bad[idx] and walk:
                    walk_up(idx)
            if not ok:
                continue
            assert score is not None
            if exhaustive:
                scores[tuple(int(x) for x in nodes[idx])] = score
            # equal score and level sum: the lexicographically first node (lowest index), so
            # the result does not depend on the order in which the search met the ties
            key = (score, int(level_sum[idx]), idx)
            if best is None or key < best:
                best = key
            if not exhaustive and metric.monotone:
                was = bool(pruned[idx])
                pruned_l[up(idx)] = True
                pruned[idx] = was
        result_levels = None
        result_node = None
        if best is not None:
            result_levels = tuple(int(x) for x in nodes[best[2]])
            result_node, _ = ev.evaluate(result_levels, keep_combos=True)
        return SearchResult(
            levels=result_levels,
            score=None if best is None else best[0],
            node=result_node,
            checked=ev.n_eval,
            lattice_size=n_nodes,
            seconds=time.perf_counter() - started,
            min_suppressed=min(min_sup) if min_sup else None,
            scores=scores,
        )
