"""NCP / GCP on hand-computed releases: ranges, hierarchy labels, sets, suppression."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil._errors import InputError
from veil.tabular._ncp import ncp, ncp_by_column

TREE = {"a1": ["A", "*"], "a2": ["A", "*"], "a3": ["A", "*"], "b1": ["B", "*"], "c1": ["C", "*"]}


@pytest.fixture
def orig() -> pd.DataFrame:
    return pd.DataFrame({"age": [10, 20, 30, 50], "c": ["a1", "a2", "b1", "c1"]})


def test_ranges_and_values_of_a_numeric_column(orig) -> None:
    rel = orig.assign(age=["[10-20]", "[10-20]", "30", "*"])
    # domain 10..50 (width 40): 10/40, 10/40, 0, 1
    assert ncp_by_column(orig, rel, ["age"])["age"] == pytest.approx((0.25 + 0.25 + 0 + 1) / 4)


def test_hierarchy_labels_count_only_leaves_present_in_the_data(orig) -> None:
    rel = orig.assign(c=["A", "A", "b1", "*"])
    # active domain {a1, a2, b1, c1}: 'A' covers a1, a2 present (a3 absent) -> 1/3
    got = ncp_by_column(orig, rel, ["c"], hierarchies={"c": TREE})["c"]
    assert got == pytest.approx((1 / 3 + 1 / 3 + 0 + 1) / 4)


def test_sets_count_their_members(orig) -> None:
    rel = orig.assign(c=["{a1,a2}", "{a1,a2}", "{b1,c1}", "{b1,c1}"])
    assert ncp_by_column(orig, rel, ["c"])["c"] == pytest.approx(1 / 3)


def test_suppressed_rows_cost_one_in_every_column(orig) -> None:
    supp = np.array([False, False, False, True])
    assert ncp(orig, orig, ["age", "c"], suppressed=supp) == pytest.approx(0.25)
    assert ncp(orig, orig, ["age", "c"]) == 0.0


def test_numeric_column_released_as_hierarchy_label_is_measured_as_a_range() -> None:
    orig = pd.DataFrame({"age": [17, 19, 25, 90]})
    hier = {str(v): [f"{v // 20 * 20}-{v // 20 * 20 + 19}", "*"] for v in range(0, 100)}
    rel = pd.DataFrame({"age": ["0-19", "0-19", "20-39", "80-99"]})
    # '0-19' holds 17 and 19 of the data: 2/73; '20-39' and '80-99' one value each: 0
    got = ncp(orig, rel, ["age"], hierarchies={"age": hier}, levels={"age": 1})
    assert got == pytest.approx((2 / 73 * 2) / 4)


def test_unknown_label_is_an_error_without_the_label(orig) -> None:
    rel = orig.assign(c=["secret-label", "a2", "b1", "c1"])
    with pytest.raises(InputError) as exc:
        ncp(orig, rel, ["c"], hierarchies={"c": TREE})
    assert "secret-label" not in str(exc.value)


def test_row_count_mismatch_is_an_error(orig) -> None:
    with pytest.raises(InputError, match="rows"):
        ncp(orig, orig.iloc[:2], ["age"])
