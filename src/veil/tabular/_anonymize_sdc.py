"""MDAV microaggregation and local cell suppression as algorithms of ``anonymize()``.

``search: {algorithm: mdav}`` and ``search: {algorithm: cell_suppression}`` release through
the same path as the optimal search and Mondrian: an :class:`AnonymizationResult` that the
independent group-by of :mod:`veil.tabular._verify` re-checks before the pipeline writes
anything (atomically).

Both methods only bound the size of the released classes. They provide k-anonymity and k-map
with a sampling fraction (a class of ``s`` records satisfies k-map when ``s / fraction >= k``);
l-diversity, t-closeness, delta-presence and k-map against a population table are refused,
with a pointer to Mondrian or the optimal search.

- ``mdav``: every quasi-identifier must be numeric; they are microaggregated together, so the
  released tuple of a record is its cluster's means and every class has at least k records.
  Categorical quasi-identifiers are refused (naming the columns), not left raw: a raw
  categorical column next to aggregated numbers would split the clusters into classes smaller
  than k. ``search.round_to`` rounds the means.
- ``cell_suppression``: cells of at-risk records become ``*``; a ``*`` is a value of its own,
  not a wildcard (see :mod:`veil.tabular._cell_suppression`). No record is removed; the records
  whose every quasi-identifier is ``*`` form one class of at least k, like any other.

Neither method suppresses records, so ``suppressed_records`` is 0 and the suppression limit
is not used.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np

from veil._errors import PolicyError, PrivacyRequirementNotMet, SchemaError
from veil._numeric import coerce_numbers
from veil._progress import Progress
from veil.tabular._anonymize import SUPPRESSED, AnonymizationResult

if TYPE_CHECKING:
    import pandas as pd

    from veil.policy import PrivacyConfig
    from veil.tabular._anonymize import AnonymizeConfig

__all__ = ["anonymize_cell_suppression", "anonymize_mdav", "class_size_bound"]

_ALTERNATIVES = "use search: {algorithm: mondrian} or {algorithm: optimal}"


def class_size_bound(privacy: PrivacyConfig, algorithm: str, n_rows: int) -> int:
    """The smallest class size that meets every model of ``privacy`` (at least 2).

    Raises :class:`PolicyError` for a model that class sizes alone cannot give, and
    :class:`PrivacyRequirementNotMet` when the bound exceeds the table.
    """
    refused = [
        name
        for name in ("l_diversity", "t_closeness", "delta_presence")
        if getattr(privacy, name) is not None
    ]
    km = privacy.k_map
    if km is not None and km.sampling_fraction is None:
        refused.append("k_map")
    if refused:
        raise PolicyError(
            f"search algorithm {algorithm} only bounds class sizes and cannot give "
            f"{', '.join(refused)}",
            key=f"privacy.{refused[0]}",
            hint=f"{_ALTERNATIVES}, or remove privacy.{refused[0]}",
        )
    size = 2
    if privacy.k_anonymity is not None:
        size = max(size, privacy.k_anonymity.k)
    if km is not None and km.sampling_fraction is not None:
        f = km.sampling_fraction
        s = max(1, math.floor(km.k * f))
        while s / f < km.k:  # the re-check's own test, so float rounding cannot split them
            s += 1
        size = max(size, s)
    if size > n_rows:
        raise PrivacyRequirementNotMet(
            f"the privacy models need classes of {size} records, more than the table "
            f"({n_rows} records)",
            hint="lower k (or raise k_map's sampling_fraction)",
        )
    return size


def _released_classes(data: pd.DataFrame, qis: list[str]) -> tuple[int, int]:
    """Number of released classes (identical quasi-identifier tuples) and the smallest size."""
    sizes = data.groupby(qis, dropna=False, observed=True, sort=False).size()
    return int(sizes.size), int(sizes.min())


def _numeric_problems(df: pd.DataFrame, qis: list[str]) -> list[str]:
    """Why each quasi-identifier cannot be averaged (counts and types, never a value)."""
    import pandas as pd

    n = len(df)
    problems: list[str] = []
    for q in qis:
        col = df[q]
        if pd.api.types.is_bool_dtype(col):
            problems.append(f"{q!r} (true/false values)")
            continue
        if pd.api.types.is_datetime64_any_dtype(col) or pd.api.types.is_timedelta64_dtype(col):
            problems.append(f"{q!r} (dates or durations)")
            continue
        nums = coerce_numbers(col)
        bad = int((nums.isna() & col.notna()).sum())
        if bad:
            problems.append(f"{q!r} ({bad} of {n} values are not numbers)")
            continue
        missing = int(col.isna().sum())
        if missing:
            problems.append(f"{q!r} ({missing} missing values)")
            continue
        infinite = int(np.isinf(nums.to_numpy(dtype=float)).sum())
        if infinite:
            problems.append(f"{q!r} ({infinite} infinite values)")
    return problems


def anonymize_mdav(
    df: pd.DataFrame, config: AnonymizeConfig, progress: Progress
) -> AnonymizationResult:
    """``search: {algorithm: mdav}``: microaggregate every quasi-identifier together."""
    from veil.tabular._mdav import mdav
    from veil.tabular._verify import verify_release

    started = time.perf_counter()
    qis = list(config.quasi_identifiers)
    k = class_size_bound(config.privacy, "mdav", len(df))
    problems = _numeric_problems(df, qis)
    if problems:
        raise SchemaError(
            "search algorithm mdav averages numeric quasi-identifiers only; "
            f"{len(problems)} cannot be averaged: {'; '.join(problems)}",
            hint="use search: {algorithm: mondrian} or {algorithm: cell_suppression} for "
            "categorical quasi-identifiers, or clean the column (impute missing values)",
        )
    round_to = config.search.round_to
    with progress.task("microaggregating (MDAV)"):
        res = mdav(df, qis, k, round_to=round_to)
    classes, smallest = _released_classes(res.data, qis)
    result = AnonymizationResult(
        data=res.data,
        suppressed=np.zeros(len(df), dtype=bool),
        transformation=None,
        information_loss={"sse": float(res.information_loss)},
        metric="sse",
        suppressed_records=0,
        equivalence_classes=classes,
        min_class_size=smallest,
        satisfied={},
        search={
            "algorithm": "mdav",
            "checked": int(res.n_groups),
            "seconds": round(float(res.seconds), 6),
            "total_seconds": round(time.perf_counter() - started, 6),
        },
        details={
            "clusters": int(res.n_groups),
            "cluster_size": k,
            "aggregated_columns": qis,
            "round_to": round_to,
        },
    )
    result.satisfied = verify_release(df, result, config)
    return result


def anonymize_cell_suppression(
    df: pd.DataFrame, config: AnonymizeConfig, progress: Progress
) -> AnonymizationResult:
    """``search: {algorithm: cell_suppression}``: replace at-risk cells by ``*``."""
    import pandas as pd

    from veil.tabular._cell_suppression import suppress_cells
    from veil.tabular._hierarchy import _label
    from veil.tabular._verify import verify_release

    started = time.perf_counter()
    qis = list(config.quasi_identifiers)
    k = class_size_bound(config.privacy, "cell_suppression", len(df))
    with progress.task("suppressing cells"):
        res = suppress_cells(df, qis, k, marker=SUPPRESSED)
    data = res.data
    mask = np.asarray(res.mask, dtype=bool)
    for j, q in enumerate(qis):
        if not mask[:, j].any():
            continue  # untouched: the column keeps its values and dtype
        # A column with a '*' holds strings: the kept values are spelt as hierarchies spell
        # them ("39", not "39.0"), missing values stay missing. Spelling is a function of the
        # value, so it can only merge classes, never split one.
        cells = np.asarray(df[q].map(_label, na_action="ignore"), dtype=object)
        cells[mask[:, j]] = SUPPRESSED
        data[q] = pd.Series(cells, index=df.index, dtype=object)
    classes, smallest = _released_classes(data, qis)
    n_cells = len(df) * len(qis)
    result = AnonymizationResult(
        data=data,
        suppressed=np.zeros(len(df), dtype=bool),
        transformation=None,
        information_loss={"ncp": float(mask.sum()) / n_cells},
        metric="ncp",
        suppressed_records=0,
        equivalence_classes=classes,
        min_class_size=smallest,
        satisfied={},
        search={
            "algorithm": "cell_suppression",
            "checked": int(res.rounds),
            "seconds": round(float(res.seconds), 6),
            "total_seconds": round(time.perf_counter() - started, 6),
        },
        details={
            "class_size": k,
            "cells_suppressed": int(res.cells_suppressed),
            "cells": n_cells,
            "records_affected": int(res.records_affected),
            "records_all_suppressed": int(mask.all(axis=1).sum()),
            "cells_suppressed_by_column": {q: int(mask[:, j].sum()) for j, q in enumerate(qis)},
        },
    )
    result.satisfied = verify_release(df, result, config)
    return result
