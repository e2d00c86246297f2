"""Vectorized k / l / t checks of many candidate groups at once, for local recoding.

Mondrian asks, for every partition it might cut, whether *both* halves would still satisfy
the privacy models. :class:`GroupChecker` answers that for a whole batch of candidate groups in
a few numpy calls: group sizes come from one ``bincount`` and each sensitive column's per-group
histogram from another, and each model is a row-wise test on those histograms:

- k-anonymity: size >= k;
- l-diversity: distinct (at least l values), entropy (entropy >= log l) or recursive (c, l)
  (r1 < c * (r_l + ... + r_m), counts sorted in decreasing order);
- t-closeness: earth mover's distance to the whole table's distribution <= t, with the equal
  ground distance (half the L1 distance), the ordered one (values in sorted order) or the
  hierarchical one (Li, Li & Venkatasubramanian 2007) when the sensitive column's hierarchy
  is given.

The class-level formulas are those of the engine's privacy models (``_privacy_models.py`` on
the engine branch); this module only batches them over candidate groups for the partitioner.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from veil._errors import InputError, SchemaError
from veil.policy import PrivacyConfig
from veil.tabular._leaf_tree import as_leaf_tree, match_leaves

__all__ = ["GroupChecker"]

_EPS = 1e-12


@dataclass(frozen=True, eq=False)
class _Sensitive:
    name: str
    codes: np.ndarray  # (n,) int64 code of each row's value
    n_values: int
    dist: np.ndarray  # (n_values,) the whole table's distribution
    order: np.ndarray | None  # codes in ground order, for the ordered distance
    tree_anc: np.ndarray | None  # (levels, n_values) ancestor codes, hierarchical distance


def _encode_sensitive(
    df: pd.DataFrame, column: str, *, ordered: bool, hierarchy: Any | None
) -> _Sensitive:
    if column not in df.columns:
        raise SchemaError(f"sensitive column {column!r} is not in the table")
    series = df[column]
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    codes = codes.astype(np.int64)
    n_values = len(uniques)
    dist = np.bincount(codes, minlength=n_values) / max(len(codes), 1)
    order = None
    if ordered:
        numeric = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
        keys = np.asarray(uniques, dtype=float) if numeric else np.asarray(uniques, dtype=str)
        order = np.argsort(keys, kind="stable")
    tree_anc = None
    if hierarchy is not None:
        tree = as_leaf_tree(hierarchy, column=column)
        numeric = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
        leaf = match_leaves(tree, np.asarray(uniques, dtype=object), numeric=numeric, column=column)
        tree_anc = tree.anc[:, leaf]
    return _Sensitive(column, codes, n_values, dist, order, tree_anc)


class GroupChecker:
    """Tests candidate groups of rows against the configured k, l and t.

    Parameters
    ----------
    df
        The whole table (for the sensitive columns and their overall distributions).
    privacy
        The privacy models; delta-presence and k-map are refused (they need a population
        table, which a local recoding of the sample alone cannot judge).
    sensitive
        The sensitive columns; l-diversity and t-closeness apply to ``column`` when the
        model names one, otherwise to each of these.
    hierarchies
        Hierarchies by column; the sensitive column's is used by the hierarchical distance.
    """

    def __init__(
        self,
        df: pd.DataFrame,
        privacy: PrivacyConfig,
        sensitive: list[str],
        *,
        hierarchies: Mapping[str, Any] | None = None,
    ) -> None:
        if privacy.delta_presence is not None or privacy.k_map is not None:
            raise InputError(
                "Mondrian supports k-anonymity, l-diversity and t-closeness; delta-presence "
                "and k-map need the optimal search",
                hint="set search: {algorithm: optimal} or drop delta_presence / k_map",
            )
        hierarchies = hierarchies or {}
        self.k = privacy.k_anonymity.k if privacy.k_anonymity is not None else 1
        self.ldiv = privacy.l_diversity
        self.tclose = privacy.t_closeness
        self._l_cols: list[_Sensitive] = []
        self._t_cols: list[_Sensitive] = []
        for model, target in ((self.ldiv, self._l_cols), (self.tclose, self._t_cols)):
            if model is None:
                continue
            cols = [model.column] if model.column is not None else list(sensitive)
            if not cols:
                raise InputError(
                    "l-diversity and t-closeness need at least one sensitive column",
                    hint="give the sensitive column(s)",
                )
            for c in cols:
                ordered = model is self.tclose and self.tclose.distance == "ordered"
                hier = None
                if model is self.tclose and self.tclose.distance == "hierarchical":
                    hier = hierarchies.get(c)
                    if hier is None:
                        raise InputError(
                            f"t-closeness with the hierarchical distance needs a hierarchy "
                            f"for the sensitive column {c!r}",
                            hint="give its hierarchy or use distance: equal / ordered",
                        )
                target.append(_encode_sensitive(df, c, ordered=ordered, hierarchy=hier))

    @property
    def needs_histograms(self) -> bool:
        return bool(self._l_cols or self._t_cols)

    def ok(self, group: np.ndarray, n_groups: int, rows: np.ndarray) -> np.ndarray:
        """Which of ``n_groups`` groups satisfy every model.

        ``group[i]`` is the group (``0 .. n_groups-1``) of table row ``rows[i]``. Empty
        groups fail.
        """
        sizes = np.bincount(group, minlength=n_groups)
        good = sizes >= max(self.k, 1)
        for col in self._l_cols:
            good &= self._l_ok(self._hist(col, group, n_groups, rows), sizes)
        for col in self._t_cols:
            good &= self._t_ok(col, self._hist(col, group, n_groups, rows), sizes)
        return good

    @staticmethod
    def _hist(col: _Sensitive, group: np.ndarray, n_groups: int, rows: np.ndarray) -> np.ndarray:
        flat = group * col.n_values + col.codes[rows]
        return np.bincount(flat, minlength=n_groups * col.n_values).reshape(
            n_groups, col.n_values
        )

    def _l_ok(self, hist: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        assert self.ldiv is not None
        lval = self.ldiv.l
        if self.ldiv.variant == "distinct":
            return np.asarray((hist > 0).sum(axis=1) >= lval)
        if self.ldiv.variant == "entropy":
            with np.errstate(divide="ignore", invalid="ignore"):
                p = hist / np.maximum(sizes, 1)[:, None]
                ent = -np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0).sum(axis=1)
            return np.asarray(ent >= np.log(lval) - _EPS)
        c = float(self.ldiv.c or 0.0)
        li = int(lval)
        srt = -np.sort(-hist, axis=1)
        if srt.shape[1] < li:
            return np.zeros(hist.shape[0], dtype=bool)
        tail = srt[:, li - 1 :].sum(axis=1)
        return np.asarray(srt[:, 0] < c * tail)

    def _t_ok(self, col: _Sensitive, hist: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        assert self.tclose is not None
        with np.errstate(divide="ignore", invalid="ignore"):
            p = hist / np.maximum(sizes, 1)[:, None]
        diff = p - col.dist[None, :]
        m = col.n_values
        if self.tclose.distance == "equal":
            emd = 0.5 * np.abs(diff).sum(axis=1)
        elif self.tclose.distance == "ordered":
            assert col.order is not None
            cum = np.cumsum(diff[:, col.order], axis=1)
            emd = np.abs(cum).sum(axis=1) / max(m - 1, 1)
        else:
            emd = _hierarchical_emd(diff, col.tree_anc)
        return np.asarray(emd <= self.tclose.t + _EPS)


def _hierarchical_emd(diff: np.ndarray, anc: np.ndarray | None) -> np.ndarray:
    """Hierarchical EMD of each row of ``diff`` (= p - q over leaves).

    For every inner node N at height h: cost = h / H * min(positive extra, negative extra)
    of its children, where a child's extra is the sum of ``diff`` over its leaves.
    """
    assert anc is not None
    height = anc.shape[0] - 1
    if height <= 0:
        return np.zeros(diff.shape[0])
    total = np.zeros(diff.shape[0])
    child_extra = diff  # extras of the nodes one level down, indexed by their codes
    child_codes = np.arange(diff.shape[1])
    for lv in range(1, height + 1):
        n_nodes = int(anc[lv].max()) + 1
        # parent of each child node at lv-1
        parent = np.zeros(int(child_codes.max()) + 1, dtype=np.int64)
        parent[child_codes] = anc[lv]
        onehot = np.zeros((parent.size, n_nodes))
        onehot[np.arange(parent.size), parent] = 1.0
        pos = np.clip(child_extra, 0, None) @ onehot
        neg = np.clip(-child_extra, 0, None) @ onehot
        total += (lv / height) * np.minimum(pos, neg).sum(axis=1)
        child_extra = child_extra @ onehot
        child_codes = anc[lv]
    return total
