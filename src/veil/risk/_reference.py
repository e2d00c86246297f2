"""Reference releases of UCI Adult, built without the tabular engine.

The tests and benchmarks of :mod:`veil.risk` need released tables whose figures are known
from ARX (``shared/reference/arx-adult.md``). This module builds them directly: apply the
shipped ARX hierarchies at given levels (full-domain generalization) and suppress the records
of every class that violates the privacy models, writing ``*`` into each quasi-identifier of a
suppressed record, as ARX does. It is a fixture, not an anonymizer: it does not search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ADULT_SENSITIVE", "ReferenceRelease", "adult_release", "generalize"]

ADULT_SENSITIVE = "occupation"


@dataclass(frozen=True)
class ReferenceRelease:
    """A released table, its suppression mask and the levels applied per quasi-identifier."""

    data: pd.DataFrame
    suppressed: np.ndarray
    levels: dict[str, int]
    max_levels: dict[str, int]


def _hierarchy(column: str) -> pd.DataFrame:
    import pandas as pd

    from veil.data import adult_hierarchy_path

    return pd.read_csv(
        adult_hierarchy_path(column), sep=";", header=None, dtype=str, keep_default_na=False
    )


def generalize(df: pd.DataFrame, levels: dict[str, int]) -> tuple[pd.DataFrame, dict[str, int]]:
    """Apply the shipped Adult hierarchies at ``levels``; returns the table and max levels."""
    out = df.copy()
    max_levels = {}
    for col, level in levels.items():
        h = _hierarchy(col)
        max_levels[col] = h.shape[1] - 1
        mapping = dict(zip(h[0], h[level], strict=True))
        out[col] = df[col].astype(str).map(mapping)
        if out[col].isna().any():
            raise ValueError(f"hierarchy of {col!r} misses values")
    return out, max_levels


def adult_release(
    levels: Sequence[int],
    *,
    k: int = 5,
    l_distinct: int | None = None,
    t_equal: float | None = None,
    suppress: bool = True,
    rows: int | None = None,
) -> ReferenceRelease:
    """Adult generalized at ``levels`` (in the order of ``ADULT_QUASI_IDENTIFIERS``).

    With ``suppress``, every record of a class smaller than ``k``, with fewer than
    ``l_distinct`` occupations, or farther than ``t_equal`` (equal distance) from the
    occupation distribution of the whole input is suppressed.
    """
    from veil.data import ADULT_QUASI_IDENTIFIERS, adult_frame

    original = adult_frame(rows)
    qis = list(ADULT_QUASI_IDENTIFIERS)
    released, max_levels = generalize(original, dict(zip(qis, levels, strict=True)))
    sup = np.zeros(len(released), dtype=bool)
    if suppress:
        grp = released.groupby(qis, sort=False)
        size = grp[qis[0]].transform("size").to_numpy()
        bad = size < k
        if l_distinct is not None:
            bad |= grp[ADULT_SENSITIVE].transform("nunique").to_numpy() < l_distinct
        if t_equal is not None:
            p = original[ADULT_SENSITIVE].value_counts(normalize=True)
            cls = grp.ngroup().to_numpy()
            q = (
                released.assign(_c=cls)
                .groupby("_c")[ADULT_SENSITIVE]
                .value_counts(normalize=True)
                .unstack(fill_value=0)
                .reindex(columns=p.index, fill_value=0.0)
            )
            emd = 0.5 * (q - p).abs().sum(axis=1)
            bad |= emd.reindex(cls).to_numpy() > t_equal + 1e-12
        sup = bad
        released.loc[sup, qis] = "*"
    return ReferenceRelease(
        data=released,
        suppressed=sup,
        levels=dict(zip(qis, levels, strict=True)),
        max_levels=max_levels,
    )
