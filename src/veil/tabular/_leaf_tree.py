"""A hierarchy seen as a tree over its leaves, for local recoding and the NCP metric.

Mondrian and the NCP metric need three things from a generalization hierarchy: which leaves
sit under a label, the lowest common ancestor of a set of leaves, and an ordering of the
leaves in which every node covers a contiguous run. :class:`LeafTree` provides them from any
of the shapes a hierarchy arrives in (an ARX-format CSV path, a DataFrame in that layout, a
``{value: [level1, level2, ...]}`` mapping, or the engine's ``Hierarchy``, whose ``table``
is a 2-D array of labels), so these modules do not depend on how the engine stores its hierarchies.

Leaves are kept in *depth-first order*: sorted by their ancestors from the top level down,
ties kept in file order. In that order every node at every level covers a contiguous range
of leaf positions, and node codes at each level increase with the leaf position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from veil._errors import InputError
from veil._numeric import coerce_numbers

__all__ = ["LeafTree", "as_leaf_tree", "match_leaves"]

_TOP = "*"


@dataclass(frozen=True, eq=False)
class LeafTree:
    """Leaves of a hierarchy in depth-first order with per-level node codes.

    Attributes
    ----------
    leaves
        Leaf labels (level 0) as strings, in depth-first order.
    labels
        ``labels[level]`` is the list of node labels at that level, indexed by node code.
        Level 0 holds the leaves; the last level is the single root.
    anc
        Integer array of shape ``(levels, n_leaves)``: ``anc[level, leaf]`` is the code of the
        leaf's ancestor at ``level`` (``anc[0]`` is ``arange(n_leaves)``).
    """

    leaves: list[str]
    labels: list[list[str]]
    anc: np.ndarray

    @property
    def height(self) -> int:
        """Number of levels above the leaves (the root's level)."""
        return int(self.anc.shape[0] - 1)

    def leaf_index(self) -> dict[str, int]:
        """Map from leaf label to its depth-first position."""
        return {leaf: i for i, leaf in enumerate(self.leaves)}

    def label_leaves(self, level: int | None = None) -> dict[str, np.ndarray]:
        """Map each node label to the positions of the leaves under it.

        With ``level`` given only that level's labels are included; otherwise every level,
        the lowest level winning when a label repeats across levels (a leaf kept as is at
        a higher level is the same node).
        """
        out: dict[str, np.ndarray] = {}
        levels = range(self.height, -1, -1) if level is None else [level]
        for lv in levels:
            codes = self.anc[lv]
            order = np.argsort(codes, kind="stable")
            bounds = np.flatnonzero(np.diff(codes[order])) + 1
            for group in np.split(order, bounds):
                out[self.labels[lv][int(codes[group[0]])]] = group
        return out


def _frame_from(obj: Any) -> pd.DataFrame:
    if isinstance(obj, LeafTree):
        raise TypeError("already a LeafTree")
    if isinstance(obj, pd.DataFrame):
        return obj.astype(str)
    if isinstance(obj, (str, Path)):
        return pd.read_csv(
            obj, sep=";", header=None, dtype=str, keep_default_na=False, engine="python"
        )
    if isinstance(obj, Mapping):
        rows = [[str(k), *(str(x) for x in v)] for k, v in obj.items()]
        width = max((len(r) for r in rows), default=1)
        if any(len(r) != width for r in rows):
            raise InputError(
                "a hierarchy mapping must give the same number of levels for every value",
                hint="pad shorter rows with their last level or '*'",
            )
        return pd.DataFrame(rows)
    for attr in ("to_frame", "frame", "table"):
        got = getattr(obj, attr, None)
        if got is None:
            continue
        got = got() if callable(got) else got
        if isinstance(got, pd.DataFrame):
            return got.astype(str)
        if isinstance(got, np.ndarray) and got.ndim == 2:
            return pd.DataFrame(got).astype(str)
    raise InputError(
        f"cannot read a hierarchy from an object of type {type(obj).__name__}",
        hint="pass an ARX-format CSV path, a DataFrame (one row per value, one column per "
        "level) or a mapping value -> [level1, level2, ...]",
    )


def as_leaf_tree(obj: Any, *, column: str = "?") -> LeafTree:
    """Build a :class:`LeafTree` from a hierarchy in any supported shape.

    A root level ``'*'`` is added when the hierarchy's last level has more than one label.

    Examples
    --------
    >>> t = as_leaf_tree({"a": ["x", "*"], "b": ["y", "*"], "c": ["x", "*"]})
    >>> t.leaves
    ['a', 'c', 'b']
    >>> t.labels[1]
    ['x', 'y']
    """
    if isinstance(obj, LeafTree):
        return obj
    frame = _frame_from(obj)
    if frame.shape[0] == 0:
        raise InputError(f"the hierarchy of column {column!r} is empty")
    cols: list[np.ndarray] = [
        frame.iloc[:, j].to_numpy(dtype=object) for j in range(frame.shape[1])
    ]
    if len(pd.unique(cols[0])) != len(cols[0]):
        raise InputError(
            f"the hierarchy of column {column!r} lists "
            f"{len(cols[0]) - len(pd.unique(cols[0]))} value(s) more than once",
            hint="give each original value exactly one row",
        )
    if len(pd.unique(cols[-1])) > 1:
        cols.append(np.full(len(cols[0]), _TOP, dtype=object))
    # Node identity at each level is its path to the top, so equal labels under different
    # parents stay distinct nodes. Codes follow file order of first appearance, then the rows
    # are sorted top-down to a depth-first order in which codes are renumbered.
    n_levels = len(cols)
    path_codes = np.zeros((n_levels, len(cols[0])), dtype=np.int64)
    prefix = np.zeros(len(cols[0]), dtype=np.int64)
    for lv in range(n_levels - 1, -1, -1):
        own, own_uniques = pd.factorize(cols[lv])
        codes, _ = pd.factorize(prefix * (len(own_uniques) + 1) + own)
        path_codes[lv] = codes
        prefix = codes
    order = np.lexsort(path_codes)  # the last key (the top level) is the primary one
    anc = np.empty_like(path_codes)
    labels: list[list[str]] = []
    for lv in range(n_levels):
        sorted_codes = path_codes[lv, order]
        new_codes, _ = pd.factorize(sorted_codes)
        anc[lv] = new_codes
        first = np.unique(new_codes, return_index=True)[1]
        labels.append([str(cols[lv][order[i]]) for i in first])
    leaves = [str(cols[0][i]) for i in order]
    return LeafTree(leaves=leaves, labels=labels, anc=anc)


def match_leaves(
    tree: LeafTree, values: Sequence[Any] | np.ndarray, *, numeric: bool, column: str
) -> np.ndarray:
    """Depth-first leaf position of each distinct value; raises if any is missing.

    Numbers are matched by value (``'39'`` in the file matches ``39`` or ``39.0`` in the data),
    everything else by its string form. The error gives a count, never the values.
    """
    vals = np.asarray(values, dtype=object)
    lookup: dict[Any, int]
    if numeric:
        leaf_num = coerce_numbers(pd.Series(tree.leaves)).to_numpy(float)
        lookup = {float(v): i for i, v in enumerate(leaf_num) if not np.isnan(v)}
        keys: list[Any] = [float(v) for v in vals]
    else:
        lookup = tree.leaf_index()
        keys = [str(v) for v in vals]
    pos = np.array([lookup.get(k, -1) for k in keys], dtype=np.int64)
    missing = int((pos < 0).sum())
    if missing:
        raise InputError(
            f"column {column!r}: {missing} distinct value(s) in the data are missing from "
            "its hierarchy",
            hint="add a row for every value that occurs in the data",
        )
    return pos
