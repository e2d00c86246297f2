"""Batched privacy checks of candidate groups of rows, for local recoding.

Mondrian asks, for every partition it might cut, whether *both* halves would still satisfy
the privacy models. :class:`GroupChecker` answers that for a whole batch of candidate groups at
once: the group sizes come from one ``bincount`` and each sensitive column's per-group
histogram from another, and the engine's class-level models
(:mod:`veil.tabular._privacy_models`, ARX semantics) judge every group in one call. This
module only encodes the sensitive columns and batches; the models themselves live there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from veil._errors import InputError, SchemaError
from veil.policy import PrivacyConfig
from veil.tabular._leaf_tree import as_leaf_tree, match_leaves
from veil.tabular._privacy_models import (
    PrivacyModel,
    SensitiveDomain,
    build_models,
    classes_satisfying,
)

__all__ = ["GroupChecker", "encode_sensitive"]


def _is_numeric(series: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series))


def encode_sensitive(
    df: pd.DataFrame, column: str, *, hierarchy: Any | None = None
) -> tuple[np.ndarray, SensitiveDomain]:
    """Integer codes of a sensitive column and its :class:`SensitiveDomain`.

    Codes follow first appearance; ``order`` sorts them by value (numerically for numbers,
    as strings otherwise); with a hierarchy, ``hierarchy`` maps codes to ancestors.
    """
    if column not in df.columns:
        raise SchemaError(f"sensitive column {column!r} is not in the table")
    series = df[column]
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    codes = codes.astype(np.int64)
    counts = np.bincount(codes, minlength=len(uniques)).astype(np.int64)
    numeric = _is_numeric(series)
    keys = np.asarray(uniques, dtype=float) if numeric else np.asarray(uniques).astype(str)
    order = np.argsort(keys, kind="stable").astype(np.int64)
    levels: tuple[np.ndarray, ...] | None = None
    if hierarchy is not None:
        tree = as_leaf_tree(hierarchy, column=column)
        leaf = match_leaves(tree, np.asarray(uniques, dtype=object), numeric=numeric, column=column)
        levels = tuple(np.asarray(tree.anc[lv, leaf]) for lv in range(1, tree.anc.shape[0]))
    return codes, SensitiveDomain(column, counts, order=order, hierarchy=levels)


class GroupChecker:
    """Tests candidate groups of rows against the configured privacy models.

    Parameters
    ----------
    df
        The whole table (the sensitive columns and their overall distributions).
    privacy
        The models. Delta-presence and k-map against a population table are refused: a
        local recoding of the sample alone cannot judge them (k-map with a sampling fraction
        is accepted: it only reads class sizes).
    sensitive
        The sensitive columns; a model that names no column applies to each of them.
    hierarchies
        Hierarchies by column; the sensitive column's is used by hierarchical t-closeness.
    """

    def __init__(
        self,
        df: pd.DataFrame,
        privacy: PrivacyConfig,
        sensitive: list[str],
        *,
        hierarchies: Mapping[str, Any] | None = None,
    ) -> None:
        km = privacy.k_map
        if privacy.delta_presence is not None or (km is not None and km.sampling_fraction is None):
            raise InputError(
                "Mondrian supports k-anonymity, l-diversity, t-closeness and k-map with a "
                "sampling fraction; delta-presence and k-map against a population table need "
                "the optimal search",
                hint="set search: {algorithm: optimal}",
            )
        hierarchies = hierarchies or {}
        wanted: list[str] = []
        for model in (privacy.l_diversity, privacy.t_closeness):
            if model is None:
                continue
            cols = model.applies_to(sensitive)  # no column named: every sensitive column
            if not cols:
                raise InputError(
                    "l-diversity and t-closeness need a sensitive column",
                    hint="give the sensitive column(s)",
                )
            wanted.extend(c for c in cols if c not in wanted)
        tc = privacy.t_closeness
        hier_cols = tc.applies_to(sensitive) if tc and tc.distance == "hierarchical" else []
        self._codes: dict[str, np.ndarray] = {}
        domains: dict[str, SensitiveDomain] = {}
        for col in wanted:
            hier = None
            if col in hier_cols:
                hier = hierarchies.get(col)
                if hier is None:
                    raise InputError(
                        f"t-closeness with the hierarchical distance needs a hierarchy for "
                        f"the sensitive column {col!r}",
                        hint="give its hierarchy or use distance: equal or ordered",
                    )
            self._codes[col], domains[col] = encode_sensitive(df, col, hierarchy=hier)
        self.domains = domains
        self.models: list[PrivacyModel] = build_models(privacy, domains, sensitive=sensitive)
        self.min_size = max([1, *(m.minimal_class_size() for m in self.models)])

    def ok(self, group: np.ndarray, n_groups: int, rows: np.ndarray) -> np.ndarray:
        """Which of ``n_groups`` groups satisfy every model.

        ``group[i]`` (in ``0 .. n_groups-1``) is the group of table row ``rows[i]``. Empty
        groups fail.
        """
        sizes = np.bincount(group, minlength=n_groups)
        hists = {
            col: np.bincount(
                group * (int(c.max()) + 1) + c[rows], minlength=n_groups * (int(c.max()) + 1)
            ).reshape(n_groups, int(c.max()) + 1)
            for col, c in self._codes.items()
        }
        return (sizes >= self.min_size) & classes_satisfying(self.models, sizes, hists)
