"""Normalized certainty penalty (NCP) and global certainty penalty (GCP) of a release.

NCP (Xu et al., KDD 2006) scores how much a released cell hides of its original value:

- numeric quasi-identifier released as the interval ``[lo, hi]``: ``(hi - lo) / (max - min)``
  over the original column;
- categorical one released as a node of its hierarchy (or a set of values):
  ``(leaves under the node - 1) / (domain size - 1)``, 0 for a single value;
- a suppressed cell (the row is suppressed, the cell is ``'*'`` or missing): 1.

The GCP of a release is the mean NCP over every quasi-identifier cell, in [0, 1]. Domains are
*active* domains: the distinct values that occur in the original column, so a hierarchy label
counts only the leaves that occur in the data, and an interval is measured against the data's
range.

:func:`ncp` reads any release veil makes:

- Mondrian ranges ``"[lo-hi]"``, sets ``"{a,b}"``, hierarchy labels (lowest common ancestors);
- full-domain generalizations: hierarchy labels at any level (give ``levels`` to say which,
  when a label could be read at several); a numeric column released as a hierarchy label is
  measured as the range of the original values under that label;
- original values (penalty 0) and ``'*'`` (penalty 1).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from veil._errors import InputError, SchemaError
from veil._numeric import coerce_numbers
from veil.tabular._leaf_tree import LeafTree, as_leaf_tree

__all__ = ["ncp", "ncp_by_column"]

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^\[\s*({_NUM})\s*-\s*({_NUM})\s*\]$")
_TOP = "*"


def _is_numeric(series: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series))


def _as_float(label: str) -> float | None:
    try:
        return float(label)
    except ValueError:
        return None


def _set_members(label: str) -> list[str] | None:
    if len(label) >= 2 and label[0] == "{" and label[-1] == "}":
        return label[1:-1].split(",")
    return None


def _label_leaves(tree: LeafTree | None, level: int | None) -> dict[str, np.ndarray]:
    return {} if tree is None else tree.label_leaves(level)


def _numeric_penalties(
    orig: pd.Series, labels: np.ndarray, tree: LeafTree | None, level: int | None, col: str
) -> np.ndarray:
    vals = coerce_numbers(orig)
    if vals.isna().any():
        raise SchemaError(
            f"numeric quasi-identifier {col!r} has {int(vals.isna().sum())} value(s) that are "
            "not numbers",
            hint="treat it as categorical (leave it out of 'numeric')",
        )
    lo_d, hi_d = float(vals.min()), float(vals.max())
    span = hi_d - lo_d
    present = np.unique(vals.to_numpy(float))
    by_label = _label_leaves(tree, level)
    leaf_num = (
        coerce_numbers(pd.Series(tree.leaves)).to_numpy(float) if tree is not None else np.zeros(0)
    )
    out = np.empty(len(labels))
    unknown = 0
    for i, lab in enumerate(labels):
        if lab == _TOP:
            out[i] = 1.0
            continue
        m = _RANGE.match(lab)
        if m is not None:
            width = float(m.group(2)) - float(m.group(1))
        elif (members := _set_members(lab)) is not None:
            nums = [_as_float(x) for x in members]
            if any(x is None for x in nums):
                unknown += 1
                continue
            width = max(nums) - min(nums)  # type: ignore[type-var,operator]
        elif level is None and (x := _as_float(lab)) is not None and x in present:
            width = 0.0
        elif lab in by_label:
            under = leaf_num[by_label[lab]]
            under = under[np.isin(under, present)]
            width = float(under.max() - under.min()) if under.size else 0.0
        elif (x := _as_float(lab)) is not None:
            width = 0.0
        else:
            unknown += 1
            continue
        out[i] = width / span if span > 0 else 0.0
    if unknown:
        raise InputError(
            f"column {col!r}: {unknown} released label(s) are neither a number, a range "
            "'[lo-hi]', a set nor a label of the column's hierarchy",
            hint="give the hierarchy used for the release",
        )
    return np.clip(out, 0.0, 1.0)


def _categorical_penalties(
    orig: pd.Series, labels: np.ndarray, tree: LeafTree | None, level: int | None, col: str
) -> np.ndarray:
    present = {str(v) for v in pd.unique(orig)}
    denom = len(present) - 1
    by_label = _label_leaves(tree, level)
    out = np.empty(len(labels))
    unknown = 0
    for i, lab in enumerate(labels):
        if lab == _TOP:
            out[i] = 1.0
            continue
        if level in (None, 0) and lab in present:
            count = 1
        elif lab in by_label:
            assert tree is not None
            count = sum(1 for j in by_label[lab] if tree.leaves[int(j)] in present)
        elif (members := _set_members(lab)) is not None:
            count = len(set(members))
        else:
            unknown += 1
            continue
        out[i] = (count - 1) / denom if denom > 0 else 0.0
    if unknown:
        raise InputError(
            f"column {col!r}: {unknown} released label(s) are neither an original value, a "
            "set nor a label of the column's hierarchy",
            hint="give the hierarchy used for the release",
        )
    return np.clip(out, 0.0, 1.0)


def ncp_by_column(
    original: pd.DataFrame,
    released: pd.DataFrame,
    qis: list[str],
    *,
    numeric: set[str] | None = None,
    hierarchies: Mapping[str, Any] | None = None,
    suppressed: np.ndarray | None = None,
    levels: Mapping[str, int] | None = None,
) -> dict[str, float]:
    """Mean NCP of each quasi-identifier column of a release.

    Parameters
    ----------
    original, released
        The input table and the release: same rows in the same order.
    qis
        The quasi-identifier columns.
    numeric
        Columns measured as intervals. Default: those with a numeric dtype in ``original``.
    hierarchies
        Hierarchies by column (ARX CSV path, DataFrame, mapping or engine hierarchy) for
        reading hierarchy labels.
    suppressed
        Boolean mask of suppressed rows: every cell of those rows costs 1.
    levels
        Hierarchy level each column was released at (full-domain releases), so a label is
        read at that level only.

    Returns
    -------
    dict
        Column name -> mean penalty in [0, 1].
    """
    if original.shape[0] != released.shape[0]:
        raise InputError(
            f"the release has {released.shape[0]} rows but the original has "
            f"{original.shape[0]}; NCP compares them row by row",
            hint="keep suppressed rows in the release and pass 'suppressed'",
        )
    missing = [q for q in qis if q not in original.columns or q not in released.columns]
    if missing:
        raise SchemaError(f"column(s) {', '.join(map(repr, missing))} missing from a table")
    hierarchies = hierarchies or {}
    levels = levels or {}
    if numeric is None:
        numeric = {q for q in qis if _is_numeric(original[q])}
    n = original.shape[0]
    supp = np.zeros(n, dtype=bool) if suppressed is None else np.asarray(suppressed, dtype=bool)
    out: dict[str, float] = {}
    for q in qis:
        if n == 0:
            out[q] = 0.0
            continue
        rel = released[q]
        na = rel.isna().to_numpy()
        codes, uniques = pd.factorize(rel.astype(object).where(~rel.isna(), _TOP))
        labels = np.asarray([str(u) for u in uniques], dtype=object)
        tree = as_leaf_tree(hierarchies[q], column=q) if q in hierarchies else None
        lvl = levels.get(q)
        if q in numeric:
            pen = _numeric_penalties(original[q], labels, tree, lvl, q)
        else:
            pen = _categorical_penalties(original[q], labels, tree, lvl, q)
        cell = pen[codes]
        cell[supp] = 1.0
        cell[na & original[q].isna().to_numpy() & ~supp] = 0.0  # missing kept as missing
        out[q] = float(cell.mean())
    return out


def ncp(
    original: pd.DataFrame,
    released: pd.DataFrame,
    qis: list[str],
    *,
    numeric: set[str] | None = None,
    hierarchies: Mapping[str, Any] | None = None,
    suppressed: np.ndarray | None = None,
    levels: Mapping[str, int] | None = None,
) -> float:
    """Global certainty penalty (GCP) of a release: mean NCP over all quasi-identifier cells.

    Takes the same arguments as :func:`ncp_by_column`.

    Examples
    --------
    >>> import pandas as pd
    >>> orig = pd.DataFrame({"age": [20, 30, 40, 60], "sex": ["F", "M", "F", "M"]})
    >>> rel = pd.DataFrame({"age": ["[20-30]", "[20-30]", "[40-60]", "[40-60]"],
    ...                     "sex": ["*", "*", "*", "*"]})
    >>> ncp(orig, rel, ["age", "sex"])  # age: (10/40 + 20/40) / 2; sex: 1
    0.6875
    """
    cols = ncp_by_column(
        original,
        released,
        qis,
        numeric=numeric,
        hierarchies=hierarchies,
        suppressed=suppressed,
        levels=levels,
    )
    return float(np.mean(list(cols.values()))) if cols else 0.0
