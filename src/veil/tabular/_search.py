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
  Li et al.'s t-closeness and l-diversity when no suppression is allowed) let a satisfying
  node mark all its generalizations as satisfying, so those are never grouped again when
  their score is known without suppression (Flash's predictive tagging).
* For monotone metrics (dm, height) the generalizations of a satisfying node are pruned.

No pruning rule is used where it could lose the optimum; the property tests compare the
result with a brute-force pass over the whole lattice.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from veil._errors import InputError
from veil.tabular._encoding import FrequencyTable, factorize_int
from veil.tabular._metrics import Metric, NodeClasses
from veil.tabular._privacy_models import PrivacyModel, classes_satisfying

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


class _Evaluator:
    def __init__(self, ft: FrequencyTable, models: Sequence[PrivacyModel]) -> None:
        self.ft = ft
        self.models = list(models)
        self.needs_hist = any(m.column is not None for m in self.models)
        # generalized codes of every combination at every level, and key multipliers
        self.gen_levels = [
            [q.level_codes[lv][ft.combos[:, d]] for lv in range(q.height)]
            for d, q in enumerate(ft.qis)
        ]
        self.level_sizes = [q.level_sizes() for q in ft.qis]
        self.n_eval = 0

    def evaluate(self, levels: tuple[int, ...], limit: int) -> NodeClasses:
        self.n_eval += 1
        ft = self.ft
        cols = [self.gen_levels[d][lv] for d, lv in enumerate(levels)]
        radix = [self.level_sizes[d][lv] for d, lv in enumerate(levels)]
        space = 1
        for r in radix:
            space *= r
        if space < (1 << 62):
            key = np.zeros(len(ft.counts), dtype=np.int64)
            for c, r in zip(cols, radix, strict=True):
                key *= r
                key += c
            combo_class, n_classes = factorize_int(key, space)
        else:
            key = np.zeros(len(ft.counts), dtype=np.int64)
            size = 1
            for c, r in zip(cols, radix, strict=True):
                key, size = factorize_int(key * r + c, size * r)
            combo_class, n_classes = key, size
        sizes = np.bincount(combo_class, weights=ft.counts, minlength=n_classes).astype(np.int64)
        hists = ft.histograms(combo_class, n_classes) if self.needs_hist else {}
        kept = classes_satisfying(self.models, sizes, hists)
        suppressed = int(sizes[~kept].sum())
        gen = np.stack(cols, axis=1) if cols else np.zeros((len(ft.counts), 0), np.int64)
        return NodeClasses(levels, gen, combo_class, sizes, kept, suppressed)


def evaluate_node(
    ft: FrequencyTable, models: Sequence[PrivacyModel], levels: Sequence[int]
) -> NodeClasses:
    """Group the frequency table at one node and mark the classes that satisfy the models."""
    return _Evaluator(ft, models).evaluate(tuple(int(x) for x in levels), 0)


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
        import math

        return int(math.floor(self.suppression_limit * float(n)))

    def run(self, ft: FrequencyTable) -> SearchResult:
        started = time.perf_counter()
        metric = self.metric
        metric.prepare(ft)
        nodes = lattice(ft.heights)
        n_nodes = len(nodes)
        limit = self.max_outliers(ft.n_rows)
        ev = _Evaluator(ft, self.models)
        level_sum = nodes.sum(axis=1)
        lb = None if self.exhaustive else metric.lower_bounds(nodes)
        # visiting order: bound, then lower nodes first, then lexicographic (index order)
        order = np.lexsort((np.arange(n_nodes), level_sum, lb if lb is not None else level_sum))
        if limit > 0:
            privacy_monotone = all(m.monotonic_suppression for m in self.models)
        else:
            privacy_monotone = all(m.monotonic_generalization for m in self.models)
        known_ok = np.zeros(n_nodes, dtype=bool)
        pruned = np.zeros(n_nodes, dtype=bool)
        best: tuple[float, int, int] | None = None  # score, level sum, node index
        best_node: NodeClasses | None = None
        min_sup: int | None = None
        scores: dict[tuple[int, ...], float] = {}
        for idx in order:
            idx = int(idx)
            if best is not None and lb is not None and not self.exhaustive:
                bound = float(lb[idx])
                if bound > best[0] + 1e-12 * max(1.0, abs(best[0])):
                    break
            if pruned[idx] and not self.exhaustive:
                continue
            levels = tuple(int(x) for x in nodes[idx])
            node: NodeClasses | None = None
            if known_ok[idx] and limit == 0 and not self.exhaustive:
                score = metric.score_without_suppression(levels)
                ok = True
                if score is None:
                    node = ev.evaluate(levels, limit)
                    score = metric.score(node)
            else:
                node = ev.evaluate(levels, limit)
                sup = node.suppressed_records
                min_sup = sup if min_sup is None else min(min_sup, sup)
                ok = sup <= limit
                score = metric.score(node) if ok else None
            if not ok:
                continue
            assert score is not None
            if self.exhaustive:
                scores[levels] = score
            key = (score, int(level_sum[idx]), idx)
            if best is None or (key[0], key[1]) < (best[0], best[1]):
                best = key
                best_node = node
            if not self.exhaustive and privacy_monotone:
                above = np.all(nodes >= nodes[idx], axis=1)
                known_ok |= above
                if metric.monotone:
                    above[idx] = False
                    pruned |= above
        result_levels = None
        result_node = None
        if best is not None:
            result_levels = tuple(int(x) for x in nodes[best[2]])
            result_node = best_node
            if result_node is None:
                result_node = ev.evaluate(result_levels, limit)
        return SearchResult(
            levels=result_levels,
            score=None if best is None else best[0],
            node=result_node,
            checked=ev.n_eval,
            lattice_size=n_nodes,
            seconds=time.perf_counter() - started,
            min_suppressed=min_sup,
            scores=scores,
        )
