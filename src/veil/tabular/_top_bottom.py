"""Top and bottom coding as levels of a numeric hierarchy.

Top coding replaces every value at or above a threshold by one open bin (``'>=90'``), bottom
coding every value below a threshold by ``'<18'``: the rare extreme values, which single
people out, are hidden while the bulk of the distribution keeps its detail.
:func:`top_bottom_levels` turns that into hierarchy levels the optimal search can choose:

- level 1 is the original values with the extremes coded;
- each level of an existing hierarchy follows, with the extremes kept in their open bins
  until the level where the hierarchy itself already puts all of them in one node (from then
  on that node is coarser than the bin, and is used);
- ``'*'`` is the top.

Each level coarsens the one before (values that share a label keep sharing one above), so the
result is a valid ARX-format hierarchy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil._errors import InputError
from veil._numeric import coerce_numbers
from veil.tabular._leaf_tree import as_leaf_tree

__all__ = ["top_bottom_levels"]


def _fmt(x: float) -> str:
    return str(int(x)) if float(x) == int(x) else np.format_float_positional(float(x), trim="-")


def top_bottom_levels(
    values: Sequence[Any] | np.ndarray | None = None,
    *,
    bottom: float | None = None,
    top: float | None = None,
    hierarchy: Any | None = None,
) -> pd.DataFrame:
    """ARX-format hierarchy (one row per value, one column per level) with top/bottom coding.

    Parameters
    ----------
    values
        The numeric values to cover. Default: the leaves of ``hierarchy``.
    bottom
        Values below it go to the bin ``'<bottom'``.
    top
        Values at or above it go to the bin ``'>=top'``.
    hierarchy
        An existing hierarchy of these values (ARX CSV path, DataFrame, mapping) whose levels
        follow the coded level. Without one the levels are: coded values, then ``'*'``.

    Returns
    -------
    pandas.DataFrame
        Column 0 the values (as strings), then one column per level, the last all ``'*'``.

    Examples
    --------
    >>> top_bottom_levels([15, 30, 45, 95], bottom=18, top=90).values.tolist()
    [['15', '<18', '*'], ['30', '30', '*'], ['45', '45', '*'], ['95', '>=90', '*']]
    """
    if bottom is None and top is None:
        raise InputError("top/bottom coding needs 'bottom', 'top' or both")
    if bottom is not None and top is not None and not bottom < top:
        raise InputError("'bottom' must be below 'top'")
    tree = as_leaf_tree(hierarchy, column="top/bottom") if hierarchy is not None else None
    if values is None:
        if tree is None:
            raise InputError("give the values or a hierarchy to take them from")
        raw = np.asarray(tree.leaves, dtype=object)
    else:
        raw = np.asarray(values, dtype=object)
    nums = coerce_numbers(pd.Series(raw)).to_numpy(dtype=float)
    if np.isnan(nums).any():
        raise InputError(
            f"top/bottom coding needs numbers; {int(np.isnan(nums).sum())} value(s) are not",
        )
    keys = [_fmt(v) for v in nums]
    if len(set(keys)) != len(keys):
        raise InputError("top/bottom coding: a value is listed more than once")
    low = nums < bottom if bottom is not None else np.zeros(len(nums), dtype=bool)
    high = nums >= top if top is not None else np.zeros(len(nums), dtype=bool)
    low_label = f"<{_fmt(bottom)}" if bottom is not None else ""
    high_label = f">={_fmt(top)}" if top is not None else ""
    levels: list[np.ndarray] = [np.asarray(keys, dtype=object)]
    first = np.asarray(keys, dtype=object)
    first[low], first[high] = low_label, high_label
    levels.append(first)
    if tree is not None:
        leaf_num = coerce_numbers(pd.Series(tree.leaves)).to_numpy(float)
        lookup = {float(v): i for i, v in enumerate(leaf_num)}
        missing = int(sum(float(v) not in lookup for v in nums))
        if missing:
            raise InputError(
                f"top/bottom coding: {missing} value(s) are missing from the hierarchy",
                hint="add a row for every value",
            )
        pos = np.array([lookup[float(v)] for v in nums], dtype=np.int64)
        for lv in range(1, tree.anc.shape[0]):
            codes = tree.anc[lv, pos]
            lab = np.asarray([tree.labels[lv][c] for c in codes], dtype=object)
            reserved = {low_label, high_label} - {""}
            if reserved & set(lab[~(low | high)].tolist()):
                raise InputError(
                    "top/bottom coding: a hierarchy label equals the open bin's label",
                    hint="choose another threshold",
                )
            for mask, name in ((low, low_label), (high, high_label)):
                if mask.any() and len(np.unique(codes[mask])) > 1:
                    lab[mask] = name
            levels.append(lab)
    if len(set(levels[-1].tolist())) > 1:
        levels.append(np.full(len(nums), "*", dtype=object))
    return pd.DataFrame({i: lv for i, lv in enumerate(levels)})
