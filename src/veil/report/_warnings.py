"""Warnings about a release that its guarantees do not cover: ``report["warnings"]``.

Each warning is a dict with a ``code``, the ``column`` it is about, counts or shares, and a
``message``; never a data value. Two checks, both bounded in time:

``near_unique_column``
    A column released as it is (role ``insensitive`` or ``sensitive``, no transform) whose
    share of distinct values among its non-missing cells is above ``UNIQUE_SHARE`` and that
    has at least ``UNIQUE_MIN`` distinct values: nearly every row carries a value of its
    own, which can single the row out as an identifier would (a charge amount, a timestamp,
    a free-text code). One ``nunique`` per column.
``recomputable_quasi_identifier``
    A generalized quasi-identifier whose input values equal one released numeric column, or
    the sum or the difference of two, in at least ``RECOMPUTE_SHARE`` of the rows (age =
    discharge_year - birth_year): the released columns give back what the generalization
    hid. Checked on a sample of ``SAMPLE_ROWS`` rows over at most ``MAX_NUMERIC`` released
    numeric columns (so at most ``MAX_NUMERIC`` x (``MAX_NUMERIC`` - 1) x 3 / 2 + ``MAX_NUMERIC``
    comparisons per quasi-identifier), vectorized per column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from veil.pipeline import RunContext

__all__ = [
    "generalization_labels",
    "near_unique_columns",
    "near_unique_columns_counted",
    "recomputable_quasi_identifiers",
    "release_warnings",
]

UNIQUE_SHARE = 0.5
UNIQUE_MIN = 100
RECOMPUTE_SHARE = 0.99
SAMPLE_ROWS = 5000
MAX_NUMERIC = 30
_MIN_ROWS = 20  # fewer comparable rows than this prove nothing


def near_unique_columns(
    released: pd.DataFrame, columns: list[str], *, share: float = UNIQUE_SHARE
) -> list[dict[str, Any]]:
    """Warnings for the ``columns`` of ``released`` whose values are nearly all distinct."""
    counted = {}
    for c in columns:
        if c not in released.columns:
            continue
        values = released[c].dropna()
        counted[c] = (int(values.nunique()), len(values))
    return near_unique_columns_counted(counted, share=share)


def near_unique_columns_counted(
    counted: dict[str, tuple[int, int]], *, share: float = UNIQUE_SHARE
) -> list[dict[str, Any]]:
    """:func:`near_unique_columns` from counts: column -> (distinct values, non-missing
    cells), as the Ray engine merges them from the partitions."""
    out = []
    for c, (distinct, n) in counted.items():
        if n == 0:
            continue
        if distinct >= UNIQUE_MIN and distinct / n > share:
            out.append(
                {
                    "code": "near_unique_column",
                    "column": c,
                    "distinct": distinct,
                    "rows": n,
                    "share": round(distinct / n, 4),
                    "message": (
                        f"column {c!r} is released as it is with {distinct} distinct values in "
                        f"{n} rows ({distinct / n:.0%}): nearly every row has a value of its "
                        "own, which can single it out; drop, generalize or transform it, or "
                        "make it a quasi-identifier"
                    ),
                }
            )
    return out


def _numbers(s: pd.Series) -> np.ndarray:
    import pandas as pd

    if pd.api.types.is_bool_dtype(s):
        return np.full(len(s), np.nan)
    from veil._numeric import coerce_numbers

    return np.asarray(coerce_numbers(s), dtype=float)


def recomputable_quasi_identifiers(
    original: pd.DataFrame,
    released: pd.DataFrame,
    quasi_identifiers: list[str],
    numeric_columns: list[str],
    *,
    share: float = RECOMPUTE_SHARE,
    sample_rows: int = SAMPLE_ROWS,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Warnings for quasi-identifiers whose input values the released numeric columns give
    back: equal to one of them, or to the sum or difference of two, in ``share`` of rows.

    ``original`` and ``released`` must hold the same rows in the same order.
    """
    if len(original) != len(released) or not quasi_identifiers:
        return []
    n = len(original)
    rows = np.arange(n)
    if n > sample_rows:
        rows = np.sort(np.random.default_rng(seed).choice(n, sample_rows, replace=False))
    cols = [c for c in numeric_columns if c in released.columns][:MAX_NUMERIC]
    values = {c: _numbers(released[c].iloc[rows]) for c in cols}
    values = {c: v for c, v in values.items() if np.isfinite(v).sum() >= _MIN_ROWS}
    names = list(values)
    out = []
    for q in quasi_identifiers:
        if q not in original.columns:
            continue
        target = _numbers(original[q].iloc[rows])
        if np.isfinite(target).sum() < _MIN_ROWS:
            continue
        found = _best_relation(target, names, values, share)
        if found is None:
            continue
        relation, sources, matched = found
        operator = {"equal": "", "sum": " + ", "difference": " - "}[relation]
        formula = operator.join(sources)
        out.append(
            {
                "code": "recomputable_quasi_identifier",
                "column": q,
                "relation": relation,
                "from": sources,
                "share": round(matched, 4),
                "rows_checked": len(rows),
                "message": (
                    f"quasi-identifier {q!r} is generalized, but {formula} gives its input "
                    f"value back in {matched:.1%} of the rows checked: generalize, drop or "
                    f"transform {' and '.join(repr(s) for s in sources)} too"
                ),
            }
        )
    return out


def _share_equal(target: np.ndarray, candidate: np.ndarray) -> float:
    both = np.isfinite(target) & np.isfinite(candidate)
    if both.sum() < _MIN_ROWS:
        return 0.0
    close = np.abs(target[both] - candidate[both]) <= 1e-9 * np.maximum(1.0, np.abs(target[both]))
    # rows where the candidate is missing count as not recomputed
    return float(close.sum() / np.isfinite(target).sum())


def _best_relation(
    target: np.ndarray, names: list[str], values: dict[str, np.ndarray], share: float
) -> tuple[str, list[str], float] | None:
    best: tuple[str, list[str], float] | None = None

    def consider(relation: str, sources: list[str], candidate: np.ndarray) -> None:
        nonlocal best
        matched = _share_equal(target, candidate)
        if matched >= share and (best is None or matched > best[2]):
            best = (relation, sources, matched)

    for a in names:
        consider("equal", [a], values[a])
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            consider("sum", [a, b], values[a] + values[b])
            consider("difference", [a, b], values[a] - values[b])
            consider("difference", [b, a], values[b] - values[a])
    return best


def _generalized_qis(ctx: RunContext) -> list[str] | None:
    """Quasi-identifiers the release generalized (some released value differs from the
    input's, compared as text on the rows not suppressed); None when the release's rows
    are not the input's (nothing to compare row by row)."""
    released, original = ctx.data, ctx.original
    if len(released) != len(original):
        return None
    keep = np.ones(len(released), dtype=bool)
    if ctx.suppressed is not None and np.shape(ctx.suppressed) == (len(released),):
        keep = ~np.asarray(ctx.suppressed, dtype=bool)
    out = []
    for q in ctx.policy.quasi_identifiers:
        if q not in released.columns or q not in original.columns:
            continue
        now = released[q].astype(str).to_numpy()[keep]
        before = original[q].astype(str).to_numpy()[keep]
        if (now != before).any():
            out.append(q)
    return out


def generalization_labels(ctx: RunContext, changed: set[str] | None) -> dict[str, str]:
    """Per quasi-identifier of the release: what its released values are, in words.

    Says "not generalized" where the release kept the input's values (level 0), and what
    labels each algorithm writes: Mondrian writes its own ranges ``[lo-hi]`` for numeric
    quasi-identifiers whatever hierarchy the policy gives, so it does not name the
    hierarchy for them.
    """
    import pandas as pd

    anonymize = ctx.report.get("anonymize")
    if not isinstance(anonymize, dict):
        return {}
    algorithm = (anonymize.get("search") or {}).get("algorithm", "optimal")
    levels = anonymize.get("transformation")
    out: dict[str, str] = {}
    for q in ctx.policy.quasi_identifiers:
        if q not in ctx.data.columns:
            continue
        col = ctx.policy.columns[q]
        kind = col.hierarchy.type if col.hierarchy is not None else None
        level = levels.get(q) if isinstance(levels, dict) else None
        level = level.get("level") if isinstance(level, dict) else level
        if (changed is not None and q not in changed) or (algorithm == "optimal" and level == 0):
            out[q] = "not generalized (original values)"
        elif algorithm == "optimal":
            out[q] = f"level {level} of the {kind or 'auto'} hierarchy"
        elif algorithm == "mondrian":
            numeric = col.dtype == "numeric" or (
                q in ctx.original.columns and pd.api.types.is_numeric_dtype(ctx.original[q])
            )
            if numeric:
                out[q] = "Mondrian ranges [lo-hi] (its own labels, not a hierarchy's)"
            elif kind not in (None, "auto"):
                out[q] = f"Mondrian: common ancestors in the {kind} hierarchy"
            else:
                out[q] = "Mondrian: sets of values {a,b} (no hierarchy)"
        elif algorithm == "mdav":
            out[q] = "MDAV: cluster means (no hierarchy)"
        elif algorithm == "cell_suppression":
            out[q] = "cells suppressed as * (no hierarchy)"
        else:
            out[q] = f"generalized by {algorithm}"
    return out


def release_warnings(ctx: RunContext) -> list[dict[str, Any]]:
    """Every warning about the release in ``ctx`` (see the module docstring)."""
    import pandas as pd

    policy = ctx.policy
    released = ctx.data
    as_is = [
        name
        for name, col in policy.columns.items()
        if col.role.value in ("insensitive", "sensitive") and col.transform is None
    ]
    warnings = near_unique_columns(released, as_is)
    qis = _generalized_qis(ctx) or []
    if qis:
        numeric = [
            str(c)
            for c in released.columns
            if str(c) not in policy.quasi_identifiers
            and (
                pd.api.types.is_numeric_dtype(released[c])
                and not pd.api.types.is_bool_dtype(released[c])
            )
        ]
        warnings += recomputable_quasi_identifiers(ctx.original, released, qis, numeric)
    return warnings
