"""Hierarchies read as depth-first leaf trees: contiguity, the added root, the shapes accepted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError
from veil.data import adult_hierarchy_path
from veil.tabular._hierarchy import read_arx_hierarchy
from veil.tabular._leaf_tree import as_leaf_tree, match_leaves


def test_every_node_covers_a_contiguous_run_of_leaves() -> None:
    tree = as_leaf_tree(adult_hierarchy_path("education"))
    for lv in range(tree.anc.shape[0]):
        codes = tree.anc[lv]
        assert (np.diff(codes) >= 0).all()  # codes rise with the depth-first position
    assert tree.labels[-1] == ["*"]
    under = tree.label_leaves()
    assert {tree.leaves[i] for i in under["Graduate"]} == {"Masters", "Doctorate"}


def test_root_is_added_and_the_shapes_agree() -> None:
    mapping = {"a": ["x"], "b": ["y"], "c": ["x"]}
    frame = pd.DataFrame([["a", "x"], ["b", "y"], ["c", "x"]])
    t1, t2 = as_leaf_tree(mapping), as_leaf_tree(frame)
    assert t1.labels == t2.labels == [["a", "c", "b"], ["x", "y"], ["*"]]
    engine = as_leaf_tree(read_arx_hierarchy(adult_hierarchy_path("workclass"), "workclass"))
    assert engine.labels == as_leaf_tree(adult_hierarchy_path("workclass")).labels


def test_duplicate_values_and_missing_values_are_counted_not_shown() -> None:
    with pytest.raises(InputError, match="1 value"):
        as_leaf_tree(pd.DataFrame([["a", "*"], ["a", "*"]]))
    tree = as_leaf_tree({"1": ["*"], "2": ["*"]})
    assert match_leaves(tree, [2.0, 1], numeric=True, column="n").tolist() == [1, 0]
    with pytest.raises(InputError) as exc:
        match_leaves(tree, ["hidden-value"], numeric=False, column="n")
    assert "hidden-value" not in str(exc.value)


def test_unknown_shape_is_an_input_error() -> None:
    with pytest.raises(InputError, match="int"):
        as_leaf_tree(3)
